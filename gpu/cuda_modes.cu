// The one-pass distributed solve on the device (cuda_modes.h; the method in
// docs/distributed.md, "One pass in the transverse modes", the host half in
// mpi_modes.c). A rank's slab is rows planes of n2 x n3, row-major:
//
//   transform: every plane to the transverse modes, xhat = E2 X E3^T, as
//     two cuBLAS products (dimension 3 over the whole slab at once,
//     dimension 2 as a strided batch over the planes); back X = E2^T xhat E3;
//   ends: per mode m, J_m = A1 + (sigma_m + c) M1 over the interior rows,
//     the first and last entries of J_m^-1 x by an elimination from each
//     end, one thread per mode (consecutive threads, consecutive modes: the
//     loads along dimension 1 are coalesced);
//   solve: per mode, Thomas on J_m with the separators' terms, the inverse
//     pivots kept in the work slab;
//   separators: cuda_modes_nccl.cu.
//
// The product's operands are dense eigenvector matrices: O(n) flops per
// value per dimension, on the FP64 tensor cores (cuBLAS chooses them).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "cuda_modes.cuh"
#include "cuda_modes.h"
#include "cuda_scalar.cuh"
#include "cuda_view.h"

namespace pscr_cuda {

namespace {

pscr_status modes_blas_error(cublasStatus_t b, const char *what)
{
  return pscr_error_set(PSCR_ERROR_DEVICE, "cuBLAS status %d (%s, the distributed solve's "
                        "transverse transform)", (int)b, what);
}

// Phase A: the last entry of J^-1 x (from the top) into vl, the first (from
// the bottom) into vf; a pivot at the rounding level of its terms (the
// slab at resonance for the mode) lowers *bad to m + 1.
template <class T>
__global__ void k_modes_ends(const T *__restrict__ x, T *vf, T *vl, const T *__restrict__ jd,
                             const T *__restrict__ jo, const T *lam2, const T *lam3, int n3, T c,
                             int nI, size_t pl, unsigned long long *bad)
{
  const size_t m = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= pl)
    return;
  const T t = mode_shift(lam2, lam3, n3, m, c);
  const real_t<T> eps = eps_of<T>();
  bool fail = false;
  // From the top: z / p at the last row.
  T p = jent(jd, 0, t), z = x[m];
  fail |= !(abs1(p) > 0);
  for (int r = 1; r < nI; r++) {
    const T o = jent(jo, r, t), d = jent(jd, r, t);
    const T l = o * inv(p), lo = l * o, piv = d - lo;
    fail |= !(abs1(piv) > eps * (abs1(d) + abs1(lo)));
    z = x[(size_t)r * pl + m] - l * z;
    p = piv;
  }
  vl[m] = z * inv(p);
  // From the bottom: the first row.
  p = jent(jd, nI - 1, t);
  z = x[(size_t)(nI - 1) * pl + m];
  for (int r = nI - 2; r >= 0; r--) {
    const T o = jent(jo, r + 1, t), d = jent(jd, r, t);
    const T l = o * inv(p), lo = l * o, piv = d - lo;
    fail |= !(abs1(piv) > eps * (abs1(d) + abs1(lo)));
    z = x[(size_t)r * pl + m] - l * z;
    p = piv;
  }
  vf[m] = z * inv(p);
  if (fail)
    atomicMin(bad, (unsigned long long)m + 1);
}

// Phase B: x = J^-1 (x - J(ia, ia-1) usl e_first - J(ib-1, ib) us e_last)
// per mode, in place; ip (a slab) holds the inverse pivots between the
// sweeps.
template <class T>
__global__ void k_modes_solve(T *__restrict__ x, const T *usl, const T *us, T *__restrict__ ip,
                              const T *__restrict__ jd, const T *__restrict__ jo, const T *lam2,
                              const T *lam3, int n3, T c, int nI, size_t pl)
{
  const size_t m = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= pl)
    return;
  const T t = mode_shift(lam2, lam3, n3, m, c);
  T xi = x[m];
  if (usl)
    xi -= jent(jo, 0, t) * usl[m];
  if (us && nI == 1)
    xi -= jent(jo, nI, t) * us[m];
  T q = inv(jent(jd, 0, t));
  ip[m] = q;
  x[m] = xi;
  for (int i = 1; i < nI; i++) {
    const T o = jent(jo, i, t), l = o * q;
    q = inv(jent(jd, i, t) - l * o);
    T xn = x[(size_t)i * pl + m];
    if (us && i == nI - 1)
      xn -= jent(jo, nI, t) * us[m];
    xi = xn - l * xi;
    x[(size_t)i * pl + m] = xi;
    ip[(size_t)i * pl + m] = q;
  }
  xi = xi * q;
  x[(size_t)(nI - 1) * pl + m] = xi;
  for (int i = nI - 2; i >= 0; i--) {
    xi = (x[(size_t)i * pl + m] - jent(jo, i + 1, t) * xi) * ip[(size_t)i * pl + m];
    x[(size_t)i * pl + m] = xi;
  }
}

cublasStatus_t gemm(const ModesState *s, cublasOperation_t ta, cublasOperation_t tb, int m,
                    int n, int k, const void *A, int lda, const void *B, int ldb, void *C,
                    int ldc)
{
  if (!s->cplx) {
    const double one = 1, zero = 0;
    return cublasDgemm(s->blas, ta, tb, m, n, k, &one, (const double *)A, lda,
                       (const double *)B, ldb, &zero, (double *)C, ldc);
  }
  const cuDoubleComplex one = {1, 0}, zero = {0, 0};
  return cublasZgemm(s->blas, ta, tb, m, n, k, &one, (const cuDoubleComplex *)A, lda,
                     (const cuDoubleComplex *)B, ldb, &zero, (cuDoubleComplex *)C, ldc);
}

// The products along dimension 3 (2D: dimension 2), the slab's contiguous
// one: column-major the slab is an L x (rows n2) matrix X, E's memory the
// matrix E^T, so xhat = E X is op T, back X = E^T xhat op N. Over the
// columns in pieces whose count fits cuBLAS's int.
cublasStatus_t contig(const ModesState *s, int d, int back, const void *src, void *dst,
                      size_t cols)
{
  const int L = d == 0 ? s->n2 : s->n3;
  const size_t step = (size_t)INT32_MAX;
  for (size_t c0 = 0; c0 < cols; c0 += step) {
    const int nc = (int)(cols - c0 < step ? cols - c0 : step);
    const size_t off = c0 * (size_t)L * s->elem;
    const cublasStatus_t b =
        gemm(s, back ? CUBLAS_OP_N : CUBLAS_OP_T, CUBLAS_OP_N, L, nc, L, s->E[d], L,
             (const char *)src + off, L, (char *)dst + off, L);
    if (b != CUBLAS_STATUS_SUCCESS)
      return b;
  }
  return CUBLAS_STATUS_SUCCESS;
}

// Dimension 2 of every plane (3D): column-major a plane is the n3 x n2
// matrix X^T, so xhat^T = X^T E2^T (E2's memory is E2^T: op N), back
// X^T = xhat^T E2 (op T); a strided batch over the planes.
cublasStatus_t dim2(const ModesState *s, int back, const void *src, void *dst)
{
  const int n2 = s->n2, n3 = s->n3;
  const long long stride = (long long)s->plane;
  const cublasOperation_t tb = back ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int batch = (int)s->rows;
  if (!s->cplx) {
    const double one = 1, zero = 0;
    return cublasDgemmStridedBatched(s->blas, CUBLAS_OP_N, tb, n3, n2, n2, &one,
                                     (const double *)src, n3, stride, (const double *)s->E[0],
                                     n2, 0, &zero, (double *)dst, n3, stride, batch);
  }
  const cuDoubleComplex one = {1, 0}, zero = {0, 0};
  return cublasZgemmStridedBatched(s->blas, CUBLAS_OP_N, tb, n3, n2, n2, &one,
                                   (const cuDoubleComplex *)src, n3, stride,
                                   (const cuDoubleComplex *)s->E[0], n2, 0, &zero,
                                   (cuDoubleComplex *)dst, n3, stride, batch);
}

void modes_free(ModesState *s)
{
  if (!s)
    return;
  for (int d = 0; d < 2; d++) {
    cudaFree(s->E[d]);
    cudaFree(s->lam[d]);
  }
  cudaFree(s->jd);
  cudaFree(s->jo);
  cudaFree(s->work);
  cudaFree(s->dplanes);
  cudaFree(s->bad);
  cudaFree(s->ip);
  cudaFree(s->sup);
  cudaFree(s->tplanes);
  cudaFree(s->zm);
  cudaFree(s->stage);
  if (s->stage_stream)
    cudaStreamDestroy(s->stage_stream);
  free(s->moff);
#if PSCR_HAVE_NCCL
  if (s->comm)
    modes_comm_close(s);
#endif
  cudaFreeHost(s->hplanes);
  if (s->blas)
    cublasDestroy(s->blas);
  free(s);
}

// Device memory of the state, counted (pscr_mpi_info.device_bytes).
cudaError_t dalloc(ModesState *s, void **dst, size_t bytes)
{
  const cudaError_t e = cudaMalloc(dst, bytes);
  if (e == cudaSuccess)
    s->device_bytes += bytes;
  return e;
}

// The same, filled with bytes from the host.
cudaError_t upload(ModesState *s, void **dst, const void *src, size_t bytes)
{
  cudaError_t e = dalloc(s, dst, bytes);
  if (e == cudaSuccess)
    e = cudaMemcpy(*dst, src, bytes, cudaMemcpyHostToDevice);
  return e;
}

} // namespace

} // namespace pscr_cuda

using namespace pscr_cuda;

extern "C" pscr_status pscr_cuda_modes_create(int device, const pscr_modes_view *v, void **ctx,
                                              void **dev_planes, void **host_planes)
{
  *ctx = NULL;
  const int saved = pscr_cuda_current_device();
  pscr_status st = PSCR_SUCCESS;
  ModesState *s = (ModesState *)calloc(1, sizeof *s);
  size_t bytes = 0;
  if (!s)
    return pscr_error_set(PSCR_ERROR_HOST_ALLOC, "cannot allocate the device modes' state");
  s->device = device;
  s->ndim = v->ndim;
  s->cplx = v->cplx;
  s->n2 = v->n2;
  s->n3 = v->ndim == 3 ? v->n3 : 1;
  s->nI = v->nI;
  s->rows = v->rows;
  s->plane = (size_t)s->n2 * (size_t)s->n3;
  s->elem = v->cplx ? 2 * sizeof(double) : sizeof(double);
  s->shift[0] = v->shift[0];
  s->shift[1] = v->shift[1];
  PSCR_CUDA_GOTO(st, fail, cudaSetDevice(device));
  for (int d = 0; d + 1 < v->ndim; d++) {
    const size_t n = (size_t)(d == 0 ? s->n2 : s->n3);
    PSCR_CUDA_ALLOC_GOTO(st, fail, upload(s, &s->E[d], v->E[d], n * n * s->elem), n * n * s->elem);
    PSCR_CUDA_ALLOC_GOTO(st, fail, upload(s, &s->lam[d], v->lam[d], n * s->elem), n * s->elem);
  }
  {
    // J's pairs (A1, M1) as the view has them: one row's pair, one load.
    const size_t e = s->elem, nI = (size_t)(v->nI > 0 ? v->nI : 1);
    PSCR_CUDA_ALLOC_GOTO(st, fail, upload(s, &s->jd, v->jd, 2 * nI * e), 2 * nI * e);
    PSCR_CUDA_ALLOC_GOTO(st, fail, upload(s, &s->jo, v->jo, 2 * (nI + 1) * e), 2 * (nI + 1) * e);
  }
  // The separators' data (used by modes_separators only).
  s->rank = v->rank;
  s->size = v->size;
  s->moff = (int *)malloc(2 * (size_t)v->size * sizeof(int));
  if (!s->moff) {
    st = pscr_error_set(PSCR_ERROR_HOST_ALLOC, "cannot copy the modes' owners");
    goto fail;
  }
  s->mcount = s->moff + v->size;
  memcpy(s->moff, v->moff, (size_t)v->size * sizeof(int));
  memcpy(s->mcount, v->mcount, (size_t)v->size * sizeof(int));
  s->nm = (size_t)v->mcount[v->rank];
  if (v->size > 1) {
    const size_t nsm = (size_t)(v->size - 1) * (s->nm ? s->nm : 1) * s->elem;
    PSCR_CUDA_ALLOC_GOTO(st, fail, upload(s, &s->ip, v->inv_piv, nsm), nsm);
    PSCR_CUDA_ALLOC_GOTO(st, fail, upload(s, &s->sup, v->sup, nsm), nsm);
    PSCR_CUDA_ALLOC_GOTO(st, fail, dalloc(s, &s->zm, nsm), nsm);
    bytes = 2 * s->plane * s->elem;
    PSCR_CUDA_ALLOC_GOTO(st, fail, dalloc(s, &s->tplanes, bytes), bytes);
  }
  bytes = s->rows * s->plane * s->elem;
  PSCR_CUDA_ALLOC_GOTO(st, fail, dalloc(s, &s->work, bytes), bytes);
  bytes = 3 * s->plane * s->elem;
  PSCR_CUDA_ALLOC_GOTO(st, fail, dalloc(s, &s->dplanes, bytes), bytes);
  PSCR_CUDA_ALLOC_GOTO(st, fail, dalloc(s, (void **)&s->bad, sizeof *s->bad), sizeof *s->bad);
  bytes = 6 * s->plane * s->elem;
  PSCR_CUDA_ALLOC_GOTO(st, fail, cudaMallocHost(&s->hplanes, bytes), bytes);
  s->pinned_bytes = bytes;
  if (cublasCreate(&s->blas) != CUBLAS_STATUS_SUCCESS) {
    s->blas = NULL;
    st = pscr_error_set(PSCR_ERROR_DEVICE, "cublasCreate failed (device %d)", device);
    goto fail;
  }
  // upload()'s copies from pageable memory may return before they land, and
  // the solves' streams are non-blocking (they do not wait for them).
  PSCR_CUDA_GOTO(st, fail, cudaDeviceSynchronize());
  pscr_cuda_restore_device(saved);
  *ctx = s;
  *dev_planes = s->dplanes;
  *host_planes = s->hplanes;
  return PSCR_SUCCESS;
fail:
  modes_free(s);
  pscr_cuda_restore_device(saved);
  return st;
}

extern "C" pscr_status pscr_cuda_modes_transform(void *ctx, int back, const void *src, void *dst,
                                                 void *stream)
{
  ModesState *s = (ModesState *)ctx;
  const int saved = pscr_cuda_current_device();
  const cudaStream_t cs = (cudaStream_t)stream;
  pscr_status st = PSCR_SUCCESS;
  cublasStatus_t b = CUBLAS_STATUS_SUCCESS;
  const size_t bytes = s->rows * s->plane * s->elem;
  PSCR_CUDA_GOTO(st, out, cudaSetDevice(s->device));
  if ((b = cublasSetStream(s->blas, cs)) != CUBLAS_STATUS_SUCCESS) {
    st = modes_blas_error(b, "cublasSetStream");
    goto out;
  }
  if (s->ndim == 2) {
    // One product; through the work slab where it would be in place.
    void *to = src == dst ? s->work : dst;
    if ((b = contig(s, 0, back, src, to, s->rows)) != CUBLAS_STATUS_SUCCESS) {
      st = modes_blas_error(b, "the products along dimension 2");
      goto out;
    }
    if (to != dst)
      PSCR_CUDA_GOTO(st, out, cudaMemcpyAsync(dst, to, bytes, cudaMemcpyDeviceToDevice, cs));
    goto out;
  }
  // Forward: dimension 3 into the work slab, dimension 2 into dst; back in
  // the reverse order.
  if (!back) {
    if ((b = contig(s, 1, 0, src, s->work, s->rows * (size_t)s->n2)) == CUBLAS_STATUS_SUCCESS)
      b = dim2(s, 0, s->work, dst);
  } else {
    if ((b = dim2(s, 1, src, s->work)) == CUBLAS_STATUS_SUCCESS)
      b = contig(s, 1, 1, s->work, dst, s->rows * (size_t)s->n2);
  }
  if (b != CUBLAS_STATUS_SUCCESS)
    st = modes_blas_error(b, "the products along dimensions 2 and 3");
out:
  pscr_cuda_restore_device(saved);
  return st;
}

extern "C" pscr_status pscr_cuda_modes_ends(void *ctx, const void *x, void *vf, void *vl,
                                            size_t *bad, void *stream)
{
  ModesState *s = (ModesState *)ctx;
  const int saved = pscr_cuda_current_device();
  const cudaStream_t cs = (cudaStream_t)stream;
  pscr_status st = PSCR_SUCCESS;
  const unsigned long long none = ~0ull;
  unsigned long long got = none;
  const unsigned threads = 256, blocks = (unsigned)((s->plane + threads - 1) / threads);
  *bad = 0;
  PSCR_CUDA_GOTO(st, out, cudaSetDevice(s->device));
  PSCR_CUDA_GOTO(st, out, cudaMemsetAsync(s->bad, 0xff, sizeof *s->bad, cs)); // ~0: none
  if (!s->cplx) {
    const double c = s->shift[0];
    k_modes_ends<double><<<blocks, threads, 0, cs>>>(
        (const double *)x, (double *)vf, (double *)vl, (const double *)s->jd,
        (const double *)s->jo, (const double *)s->lam[0],
        s->ndim == 3 ? (const double *)s->lam[1] : NULL, s->n3, c, s->nI, s->plane, s->bad);
  } else {
    const zc c(s->shift[0], s->shift[1]);
    k_modes_ends<zc><<<blocks, threads, 0, cs>>>(
        (const zc *)x, (zc *)vf, (zc *)vl, (const zc *)s->jd, (const zc *)s->jo,
        (const zc *)s->lam[0], s->ndim == 3 ? (const zc *)s->lam[1] : NULL, s->n3, c, s->nI,
        s->plane, s->bad);
  }
  PSCR_CUDA_GOTO(st, out, pscr_cuda_launch_check(cs));
  PSCR_CUDA_GOTO(st, out, cudaMemcpyAsync(&got, s->bad, sizeof got, cudaMemcpyDeviceToHost, cs));
  PSCR_CUDA_GOTO(st, out, cudaStreamSynchronize(cs));
  *bad = got == none ? 0 : (size_t)got;
out:
  pscr_cuda_restore_device(saved);
  return st;
}

extern "C" pscr_status pscr_cuda_modes_solve(void *ctx, void *x, const void *usl, const void *us,
                                             void *stream)
{
  ModesState *s = (ModesState *)ctx;
  const int saved = pscr_cuda_current_device();
  const cudaStream_t cs = (cudaStream_t)stream;
  pscr_status st = PSCR_SUCCESS;
  const unsigned threads = 256, blocks = (unsigned)((s->plane + threads - 1) / threads);
  PSCR_CUDA_GOTO(st, out, cudaSetDevice(s->device));
  if (!s->cplx) {
    k_modes_solve<double><<<blocks, threads, 0, cs>>>(
        (double *)x, (const double *)usl, (const double *)us, (double *)s->work,
        (const double *)s->jd, (const double *)s->jo, (const double *)s->lam[0],
        s->ndim == 3 ? (const double *)s->lam[1] : NULL, s->n3, s->shift[0], s->nI, s->plane);
  } else {
    k_modes_solve<zc><<<blocks, threads, 0, cs>>>(
        (zc *)x, (const zc *)usl, (const zc *)us, (zc *)s->work, (const zc *)s->jd,
        (const zc *)s->jo, (const zc *)s->lam[0], s->ndim == 3 ? (const zc *)s->lam[1] : NULL,
        s->n3, zc(s->shift[0], s->shift[1]), s->nI, s->plane);
  }
  PSCR_CUDA_GOTO(st, out, pscr_cuda_launch_check(cs));
out:
  pscr_cuda_restore_device(saved);
  return st;
}

extern "C" void pscr_cuda_modes_destroy(void *ctx)
{
  if (!ctx)
    return;
  ModesState *s = (ModesState *)ctx;
  const int saved = pscr_cuda_current_device();
  cudaSetDevice(s->device);
  modes_free(s);
  pscr_cuda_restore_device(saved);
}


extern "C" pscr_status pscr_cuda_modes_stage(void *ctx, void **slab, void **stream)
{
  ModesState *s = (ModesState *)ctx;
  *slab = NULL;
  *stream = NULL;
  if (!s->stage) {
    const int saved = pscr_cuda_current_device();
    pscr_status st = PSCR_SUCCESS;
    const size_t bytes = s->rows * s->plane * s->elem;
    PSCR_CUDA_GOTO(st, out, cudaSetDevice(s->device));
    if (!s->stage_stream)
      PSCR_CUDA_GOTO(st, out, cudaStreamCreateWithFlags(&s->stage_stream, cudaStreamNonBlocking));
    PSCR_CUDA_ALLOC_GOTO(st, out, dalloc(s, &s->stage, bytes), bytes);
  out:
    pscr_cuda_restore_device(saved);
    if (st)
      return st;
  }
  *slab = s->stage;
  *stream = s->stage_stream;
  return PSCR_SUCCESS;
}

extern "C" void pscr_cuda_modes_bytes(const void *ctx, size_t *device_bytes, size_t *host_bytes)
{
  const ModesState *s = (const ModesState *)ctx;
  *device_bytes = s->device_bytes;
  *host_bytes = s->pinned_bytes;
}

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
//   separators (with NCCL): the neighbours' terms, the separators'
//     right-hand sides and their Schur systems per mode (two all-to-alls
//     of grouped ncclSend / ncclRecv, the modes dealt out as on the host),
//     the separator planes to the next rank: all on the device, the
//     exchanges device to device (NVLink where the GPUs have it).
//
// The product's operands are dense eigenvector matrices: O(n) flops per
// value per dimension, on the FP64 tensor cores (cuBLAS chooses them).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#if PSCR_HAVE_NCCL
#include <nccl.h>
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_check.h"
#include "cuda_modes.h"
#include "cuda_scalar.cuh"
#include "cuda_view.h"

namespace pscr_cuda {

namespace {

struct ModesState {
  int device, ndim, cplx, n2, n3, nI;
  size_t rows, plane, elem;
  void *E[2], *lam[2];  // dtype, on the device
  void *jd, *jo;        // dtype: a | m per entry (nI and nI + 1 pairs)
  void *work;           // a slab of dtype: the products' other operand; the pivots
  void *dplanes;        // three planes for the caller
  void *hplanes;        // six pinned host planes for the caller
  unsigned long long *bad; // the least failing mode + 1 (device)
  double shift[2];
  cublasHandle_t blas;
  // The separators (modes_separators): this rank of size, the modes'
  // owners, this rank's nm modes' Schur factors (dtype, j nm + k), two
  // planes (the term sent, the term received), the own modes' right-hand
  // sides of every separator (ns nm).
  int rank, size;
  int *moff, *mcount; // host
  size_t nm;
  void *ip, *sup, *tplanes, *zm;
#if PSCR_HAVE_NCCL
  ncclComm_t comm; // non-blocking; NULL once aborted (comm_broken)
  int comm_broken;
#endif
};

// Seconds a rank waits for NCCL or its stream before it gives up (a peer
// failed or died): the communicator is aborted and the solve fails on this
// rank, which the distributed plan then agrees over MPI. Never a hang.
constexpr double kNcclTimeout = 120.0;

double now_s()
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

pscr_status modes_blas_error(cublasStatus_t b, const char *what)
{
  return pscr_error_set(PSCR_ERROR_DEVICE, "cuBLAS status %d (%s, the distributed solve's "
                        "transverse transform)", (int)b, what);
}

// sigma_m + c: mode m = k2 n3 + k3.
template <class T>
__device__ inline T mode_shift(const T *lam2, const T *lam3, int n3, size_t m, T c)
{
  if (!lam3)
    return lam2[m] + c;
  return lam2[m / (size_t)n3] + lam3[m % (size_t)n3] + c;
}

// J's entries: jd[2 i] + t jd[2 i + 1] (row ia + i), jo likewise (the
// coupling of rows ia - 1 + i and ia + i).
template <class T> __device__ inline T jent(const T *j, int i, T t) { return j[2 * i] + t * j[2 * i + 1]; }

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

// The term for the previous separator, out = J(ia - 1, ia) vf per mode.
template <class T>
__global__ void k_modes_left(const T *vf, T *out, const T *__restrict__ jo, const T *lam2,
                             const T *lam3, int n3, T c, size_t pl)
{
  const size_t m = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (m < pl)
    out[m] = jent(jo, 0, mode_shift(lam2, lam3, n3, m, c)) * vf[m];
}

// The separator's right-hand side in place: xs - in - J(ib, ib - 1) vl.
template <class T>
__global__ void k_modes_rhs(T *xs, const T *in, const T *vl, const T *__restrict__ jo,
                            const T *lam2, const T *lam3, int n3, T c, int nI, size_t pl)
{
  const size_t m = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (m < pl)
    xs[m] = xs[m] - in[m] - jent(jo, nI, mode_shift(lam2, lam3, n3, m, c)) * vl[m];
}

// The separators' Schur systems of the own modes (factored at plan time,
// pscr_mpi_factor_separators): b[j nm + k], separator j, mode k.
template <class T>
__global__ void k_modes_schur(T *b, const T *__restrict__ ip, const T *__restrict__ su, int ns,
                              size_t nm)
{
  const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nm)
    return;
  T prev = b[k];
  for (int j = 1; j < ns; j++) {
    const size_t a = (size_t)(j - 1) * nm + k;
    prev = b[a + nm] - su[a] * ip[a] * prev;
    b[a + nm] = prev;
  }
  prev = prev * ip[(size_t)(ns - 1) * nm + k];
  b[(size_t)(ns - 1) * nm + k] = prev;
  for (int j = ns - 2; j >= 0; j--) {
    const size_t a = (size_t)j * nm + k;
    prev = (b[a] - su[a] * prev) * ip[a];
    b[a] = prev;
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
  free(s->moff);
#if PSCR_HAVE_NCCL
  if (s->comm) {
    // A non-blocking communicator: finalized (polled, with the time limit),
    // then destroyed; aborted where finalizing fails.
    ncclResult_t r = ncclCommFinalize(s->comm);
    const double t0 = now_s();
    while (r == ncclInProgress && now_s() - t0 < kNcclTimeout)
      if (ncclCommGetAsyncError(s->comm, &r) != ncclSuccess)
        r = ncclInternalError;
    if (r == ncclSuccess)
      ncclCommDestroy(s->comm);
    else
      ncclCommAbort(s->comm);
  }
#endif
  cudaFreeHost(s->hplanes);
  if (s->blas)
    cublasDestroy(s->blas);
  free(s);
}

// Upload n values of elem bytes.
cudaError_t upload(void **dst, const void *src, size_t bytes)
{
  cudaError_t e = cudaMalloc(dst, bytes);
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
  char *jd = NULL, *jo = NULL;
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
    PSCR_CUDA_ALLOC_GOTO(st, fail, upload(&s->E[d], v->E[d], n * n * s->elem), n * n * s->elem);
    PSCR_CUDA_ALLOC_GOTO(st, fail, upload(&s->lam[d], v->lam[d], n * s->elem), n * s->elem);
  }
  {
    // J's entries interleaved per row (a, m), so one row's pair is one load.
    const size_t e = s->elem, nI = (size_t)(v->nI > 0 ? v->nI : 1);
    jd = (char *)malloc(2 * nI * e);
    jo = (char *)malloc(2 * (nI + 1) * e);
    if (!jd || !jo) {
      st = pscr_error_set(PSCR_ERROR_HOST_ALLOC, "cannot stage dimension 1's entries");
      goto fail;
    }
    for (size_t i = 0; i < (size_t)v->nI; i++) {
      memcpy(jd + 2 * i * e, (const char *)v->jd_a + i * e, e);
      memcpy(jd + (2 * i + 1) * e, (const char *)v->jd_m + i * e, e);
    }
    for (size_t i = 0; i <= (size_t)v->nI; i++) {
      memcpy(jo + 2 * i * e, (const char *)v->jo_a + i * e, e);
      memcpy(jo + (2 * i + 1) * e, (const char *)v->jo_m + i * e, e);
    }
    PSCR_CUDA_ALLOC_GOTO(st, fail, upload(&s->jd, jd, 2 * nI * e), 2 * nI * e);
    PSCR_CUDA_ALLOC_GOTO(st, fail, upload(&s->jo, jo, 2 * (nI + 1) * e), 2 * (nI + 1) * e);
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
    PSCR_CUDA_ALLOC_GOTO(st, fail, upload(&s->ip, v->inv_piv, nsm), nsm);
    PSCR_CUDA_ALLOC_GOTO(st, fail, upload(&s->sup, v->sup, nsm), nsm);
    PSCR_CUDA_ALLOC_GOTO(st, fail, cudaMalloc(&s->zm, nsm), nsm);
    bytes = 2 * s->plane * s->elem;
    PSCR_CUDA_ALLOC_GOTO(st, fail, cudaMalloc(&s->tplanes, bytes), bytes);
  }
  bytes = s->rows * s->plane * s->elem;
  PSCR_CUDA_ALLOC_GOTO(st, fail, cudaMalloc(&s->work, bytes), bytes);
  bytes = 3 * s->plane * s->elem;
  PSCR_CUDA_ALLOC_GOTO(st, fail, cudaMalloc(&s->dplanes, bytes), bytes);
  PSCR_CUDA_ALLOC_GOTO(st, fail, cudaMalloc((void **)&s->bad, sizeof *s->bad), sizeof *s->bad);
  bytes = 6 * s->plane * s->elem;
  PSCR_CUDA_ALLOC_GOTO(st, fail, cudaMallocHost(&s->hplanes, bytes), bytes);
  if (cublasCreate(&s->blas) != CUBLAS_STATUS_SUCCESS) {
    s->blas = NULL;
    st = pscr_error_set(PSCR_ERROR_DEVICE, "cublasCreate failed (device %d)", device);
    goto fail;
  }
  free(jd);
  free(jo);
  pscr_cuda_restore_device(saved);
  *ctx = s;
  *dev_planes = s->dplanes;
  *host_planes = s->hplanes;
  return PSCR_SUCCESS;
fail:
  free(jd);
  free(jo);
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

#if PSCR_HAVE_NCCL

static_assert(sizeof(ncclUniqueId) == PSCR_MODES_ID_BYTES, "PSCR_MODES_ID_BYTES is NCCL's id");

namespace {


pscr_status nccl_error(ncclResult_t r, const char *what)
{
  return pscr_error_set(PSCR_ERROR_DEVICE, "%s (%s, the distributed solve's exchange between "
                        "GPUs)", ncclGetErrorString(r), what);
}

// Abort the communicator: later solves fail at once instead of waiting.
void comm_abort(ModesState *s)
{
  if (s->comm)
    ncclCommAbort(s->comm);
  s->comm = NULL;
  s->comm_broken = 1;
}

// A non-blocking call's result r settled (ncclInProgress polled away).
pscr_status settle(ModesState *s, ncclResult_t r, const char *what)
{
  const double t0 = now_s();
  while (r == ncclInProgress) {
    if (ncclCommGetAsyncError(s->comm, &r) != ncclSuccess)
      r = ncclInternalError;
    if (r == ncclInProgress && now_s() - t0 > kNcclTimeout) {
      comm_abort(s);
      return pscr_error_set(PSCR_ERROR_DEVICE, "%s: no progress in %.0f s (a peer failed?); "
                            "the GPUs' communicator was aborted", what, kNcclTimeout);
    }
  }
  if (r != ncclSuccess) {
    const pscr_status st = nccl_error(r, what);
    comm_abort(s);
    return st;
  }
  return PSCR_SUCCESS;
}

// The stream finished, watching the communicator, with the time limit.
pscr_status wait_stream(ModesState *s, cudaStream_t cs)
{
  const double t0 = now_s();
  for (;;) {
    const cudaError_t e = cudaStreamQuery(cs);
    if (e == cudaSuccess)
      return PSCR_SUCCESS;
    if (e != cudaErrorNotReady)
      return pscr_cuda_error(e, "cudaStreamQuery");
    ncclResult_t a = ncclSuccess;
    if (ncclCommGetAsyncError(s->comm, &a) != ncclSuccess ||
        (a != ncclSuccess && a != ncclInProgress)) {
      comm_abort(s);
      return nccl_error(a, "the separators' exchange; the GPUs' communicator was aborted");
    }
    if (now_s() - t0 > kNcclTimeout) {
      comm_abort(s);
      return pscr_error_set(PSCR_ERROR_DEVICE, "the separators' exchange did not finish in %.0f "
                            "s (a peer failed?); the GPUs' communicator was aborted",
                            kNcclTimeout);
    }
  }
}

// count values of dtype as NCCL doubles.
size_t words(const ModesState *s, size_t count) { return count * (s->cplx ? 2 : 1); }

} // namespace

extern "C" pscr_status pscr_cuda_modes_comm_key(void *ctx, unsigned char *key)
{
  ModesState *s = (ModesState *)ctx;
  cudaDeviceProp prop;
  const cudaError_t e = cudaGetDeviceProperties(&prop, s->device);
  if (e != cudaSuccess)
    return pscr_cuda_error(e, "cudaGetDeviceProperties");
  memcpy(key, prop.uuid.bytes, 16);
  return PSCR_SUCCESS;
}

extern "C" pscr_status pscr_cuda_modes_comm_id(void *ctx, unsigned char *id)
{
  (void)ctx;
  ncclUniqueId u;
  const ncclResult_t r = ncclGetUniqueId(&u);
  if (r != ncclSuccess)
    return nccl_error(r, "ncclGetUniqueId");
  memcpy(id, &u, sizeof u);
  return PSCR_SUCCESS;
}

extern "C" pscr_status pscr_cuda_modes_comm_init(void *ctx, const unsigned char *id)
{
  ModesState *s = (ModesState *)ctx;
  const int saved = pscr_cuda_current_device();
  pscr_status st = PSCR_SUCCESS;
  ncclUniqueId u;
  memcpy(&u, id, sizeof u);
  ncclResult_t r = ncclSuccess;
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0; // every call polled with a time limit (settle)
  PSCR_CUDA_GOTO(st, out, cudaSetDevice(s->device));
  r = ncclCommInitRankConfig(&s->comm, s->size, u, s->rank, &config);
  if (r != ncclSuccess && r != ncclInProgress) {
    s->comm = NULL;
    st = nccl_error(r, "ncclCommInitRankConfig");
  } else {
    st = settle(s, r, "ncclCommInitRankConfig");
  }
out:
  pscr_cuda_restore_device(saved);
  return st;
}

// Steps 2-4 of the one-pass solve on the device. Every rank makes every
// exchange of its part whatever failed before it on that rank (a launch),
// so that no peer waits for it; the first failure is returned.
extern "C" pscr_status pscr_cuda_modes_separators(void *ctx, void *x, const void *vf,
                                                  const void *vl, void *usl, void *stream)
{
  ModesState *s = (ModesState *)ctx;
  const int saved = pscr_cuda_current_device();
  const cudaStream_t cs = (cudaStream_t)stream;
  pscr_status st = PSCR_SUCCESS;
  const size_t pl = s->plane, e = s->elem, nm = s->nm;
  const int me = s->rank, ns = s->size - 1, has_left = me > 0, has_sep = me < ns;
  const unsigned threads = 256, blocks = (unsigned)((pl + threads - 1) / threads);
  char *xs = (char *)x + (size_t)s->nI * pl * e, *out = (char *)s->tplanes, *in = out + pl * e;
  char *zm = (char *)s->zm;
  ncclResult_t r = ncclSuccess;
  const void *lam3 = s->ndim == 3 ? s->lam[1] : NULL;
  if (s->comm_broken || !s->comm)
    return pscr_error_set(PSCR_ERROR_DEVICE, "the GPUs' communicator was aborted by an earlier "
                          "failure: make a new plan");
  cudaError_t ce = cudaSetDevice(s->device);
  if (ce != cudaSuccess) {
    pscr_cuda_restore_device(saved);
    return pscr_cuda_error(ce, "cudaSetDevice");
  }
#define MODES_KEEP(call)                                                                     \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess && !st)                                                            \
      st = pscr_cuda_error(e_, #call);                                                       \
  } while (0)
  // A call's failure (not ncclInProgress, the non-blocking answer) is kept;
  // each group's end settles before the next kernel or group, and a
  // failure aborts the communicator there (settle), the rest skipped.
#define MODES_NCCL(call)                                                                     \
  do {                                                                                       \
    ncclResult_t r_ = s->comm ? (call) : ncclInvalidUsage;                                   \
    if (r_ != ncclSuccess && r_ != ncclInProgress && r == ncclSuccess)                       \
      r = r_;                                                                                \
  } while (0)
#define MODES_GROUP_END(what)                                                                \
  do {                                                                                       \
    const ncclResult_t g_ = s->comm ? ncclGroupEnd() : ncclInvalidUsage;                     \
    if (r != ncclSuccess) {                                                                  \
      if (!st)                                                                               \
        st = nccl_error(r, what);                                                            \
      comm_abort(s);                                                                         \
    } else if (s->comm) {                                                                    \
      const pscr_status g_st = settle(s, g_, what);                                          \
      if (g_st && !st)                                                                       \
        st = g_st;                                                                           \
    }                                                                                        \
  } while (0)
  // 2: this rank's term for the previous separator; the next rank's term.
  if (has_left) {
    if (!s->cplx)
      k_modes_left<double><<<blocks, threads, 0, cs>>>(
          (const double *)vf, (double *)out, (const double *)s->jo, (const double *)s->lam[0],
          (const double *)lam3, s->n3, s->shift[0], pl);
    else
      k_modes_left<zc><<<blocks, threads, 0, cs>>>(
          (const zc *)vf, (zc *)out, (const zc *)s->jo, (const zc *)s->lam[0], (const zc *)lam3,
          s->n3, zc(s->shift[0], s->shift[1]), pl);
    MODES_KEEP(cudaGetLastError());
  }
  MODES_NCCL(ncclGroupStart());
  if (has_left)
    MODES_NCCL(ncclSend(out, words(s, pl), ncclDouble, me - 1, s->comm, cs));
  if (has_sep)
    MODES_NCCL(ncclRecv(in, words(s, pl), ncclDouble, me + 1, s->comm, cs));
  MODES_GROUP_END("the separators' terms (ncclSend / ncclRecv)");
  // 3: the separator's right-hand side; to the modes' owners; the Schur
  // systems of the own modes; back.
  if (has_sep) {
    if (!s->cplx)
      k_modes_rhs<double><<<blocks, threads, 0, cs>>>(
          (double *)xs, (const double *)in, (const double *)vl, (const double *)s->jo,
          (const double *)s->lam[0], (const double *)lam3, s->n3, s->shift[0], s->nI, pl);
    else
      k_modes_rhs<zc><<<blocks, threads, 0, cs>>>(
          (zc *)xs, (const zc *)in, (const zc *)vl, (const zc *)s->jo, (const zc *)s->lam[0],
          (const zc *)lam3, s->n3, zc(s->shift[0], s->shift[1]), s->nI, pl);
    MODES_KEEP(cudaGetLastError());
  }
  for (int back = 0; back < 2; back++) {
    if (back && nm) {
      const unsigned kb = (unsigned)((nm + threads - 1) / threads);
      if (!s->cplx)
        k_modes_schur<double><<<kb, threads, 0, cs>>>((double *)zm, (const double *)s->ip,
                                                      (const double *)s->sup, ns, nm);
      else
        k_modes_schur<zc><<<kb, threads, 0, cs>>>((zc *)zm, (const zc *)s->ip,
                                                  (const zc *)s->sup, ns, nm);
      MODES_KEEP(cudaGetLastError());
    }
    // Forward: separator j's plane, modes of rank q, to zm + j nm on q;
    // back the reverse. The own block by a copy.
    MODES_NCCL(ncclGroupStart());
    for (int q = 0; q <= ns; q++) {
      const size_t cnt = (size_t)s->mcount[q];
      char *mine = xs + (size_t)s->moff[q] * e;
      if (!has_sep || !cnt || q == me)
        continue;
      if (!back)
        MODES_NCCL(ncclSend(mine, words(s, cnt), ncclDouble, q, s->comm, cs));
      else
        MODES_NCCL(ncclRecv(mine, words(s, cnt), ncclDouble, q, s->comm, cs));
    }
    for (int j = 0; j < ns && nm; j++) {
      if (j == me)
        continue;
      if (!back)
        MODES_NCCL(ncclRecv(zm + (size_t)j * nm * e, words(s, nm), ncclDouble, j, s->comm, cs));
      else
        MODES_NCCL(ncclSend(zm + (size_t)j * nm * e, words(s, nm), ncclDouble, j, s->comm, cs));
    }
    MODES_GROUP_END("the separators' all-to-all (ncclSend / ncclRecv)");
    if (has_sep && nm) {
      char *own = zm + (size_t)me * nm * e, *mine = xs + (size_t)s->moff[me] * e;
      MODES_KEEP(cudaMemcpyAsync(back ? mine : own, back ? own : mine, nm * e,
                                 cudaMemcpyDeviceToDevice, cs));
    }
  }
  // 4: the separator's plane to the next rank, the previous one's here.
  MODES_NCCL(ncclGroupStart());
  if (has_sep)
    MODES_NCCL(ncclSend(xs, words(s, pl), ncclDouble, me + 1, s->comm, cs));
  if (has_left)
    MODES_NCCL(ncclRecv(usl, words(s, pl), ncclDouble, me - 1, s->comm, cs));
  MODES_GROUP_END("the separators' planes (ncclSend / ncclRecv)");
#undef MODES_KEEP
#undef MODES_NCCL
#undef MODES_GROUP_END
  // Finished on return, watching the communicator (a peer that failed
  // mid-exchange ends this wait by the time limit, not a hang).
  if (s->comm) {
    const pscr_status w = wait_stream(s, cs);
    if (w && !st)
      st = w;
  }
  pscr_cuda_restore_device(saved);
  return st;
}

#endif

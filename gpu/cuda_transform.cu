// The CUDA backend's dense transforms (cuda_transform.h). With E_d = W_d^T
// (W_d^T A_d W_d = Lambda_d, W_d^T M_d W_d = I) a solve of
// (A1 (x) M' + M1 (x) A' + c M1 (x) M') u = f is
//   2D: Y = E1 F, the n1 systems (A2 + (c + lambda1_k) M2) along dimension 2,
//       u = E1^T Y;
//   3D: G = E1 F, per slab j Y_j = E2 G_j, the n1 n2 systems
//       (A3 + (c + lambda1_j + lambda2_k) M3) along dimension 3,
//       per slab H_j = E2^T Y_j, u = E1^T H.
// The products run on cuBLAS (tensor cores for FP64 on sm_80 and later),
// small ones on small_gemm.cuh's kernel; a 2D plan whose first pencil is a
// sine pencil of order 2^p - 1 applies E1 and E1^T by the fast sine
// transform instead (sine.cuh: cuFFT, O(n log n) per vector against the
// product's n); their output layouts are chosen so
// that the Thomas systems' index is the fastest in memory: a thread per
// system, its neighbours' threads reading the neighbouring words
// (coalesced). One full-size workspace besides u.
// The kernels and the products are cuda_transform.cuh's, which the
// reduction's state shares for the mixed 3D vectors (cuda_solve.cu).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cufft.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <cmath>

#include "cuda_check.h"
#include "cuda_scalar.cuh"
#include "cuda_transform.cuh"
#include "cuda_transform.h"
#include "dominance.h"
#include "sine.cuh"
#include "tf_part.cuh"

namespace pscr_cuda {

namespace {

struct TfState {
  int device, ndim, n[3], cplx, single, nthreads;
  int sms;   // multiprocessors of the device
  int twist; // the Thomas systems twisted where they are few (its probe passed)
  int smem;  // shared memory per block that k_tf_staged may take
  size_t total, elem;
  double shift[2];
  void *w[2], *lam[2], *fac[4]; // device
  void *cg;                     // the groups' shifts: c (2D), c + lambda1_g (3D)
  void *work, *stage;           // full-size workspace; host solves' buffer
  void *blas_ws;                // the cuBLAS handle's workspace (BLAS_WORKSPACE bytes)
  int *flag;                    // the pivot probe's answer
  int singular;
  cudaStream_t stream;
  cublasHandle_t blas;
  // 2D, dimension 1 by the fast sine transform (sine.cuh): its in-place
  // FFT plan (fft_made once created), the lines' buffer, the scales s_k.
  int sine, fft_made;
  cufftHandle fft;
  void *ext, *sscale;
  // Real sine plans: the Thomas systems by the partitioned solver
  // (tf_part.cuh) with part_p threads each, where they are all strictly
  // diagonally dominant (part: decided at upload); pf: its factor tables.
  int part, part_p;
  void *pf;
};

// Whether every system (A + (c + lam_k) M) of the last dimension, k < m,
// is strictly diagonally dominant by rows, in T's arithmetic (the device
// forms the same sums): the partitioned solver's pivots, those of
// sub-blocks, then cannot vanish (tf_part.cuh). src/dominance.c tests each
// run of equal rows once (a uniform mesh's interior: 8191 shifts of 8191
// rows in 0.1 ms on the VM, where the row-by-row test took 0.12 s).
inline bool tf_dominant(const double *ad, const double *ao, const double *md, const double *mo,
                        int nl, double c, const double *lam, size_t m)
{
  return pscr_rows_dominant_d(ad, ao, md, mo, nl, c, lam, m) != 0;
}
inline bool tf_dominant(const float *ad, const float *ao, const float *md, const float *mo,
                        int nl, float c, const float *lam, size_t m)
{
  return pscr_rows_dominant_s(ad, ao, md, mo, nl, c, lam, m) != 0;
}

// Every entry of u NaN (a plan whose pivots fail).
template <class W> __global__ void k_tf_nan(W *u, size_t count)
{
  for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < count;
       t += (size_t)gridDim.x * blockDim.x)
    u[t] = W(NAN);
}

pscr_status blas_error(cublasStatus_t b, const char *what)
{
  return pscr_error_set(PSCR_ERROR_DEVICE, "cuBLAS status %d (%s)", (int)b, what);
}

pscr_status fft_error(cufftResult r, const char *what)
{
  // cuFFT has no error strings: the code, from cufft.h's cufftResult.
  return pscr_error_set(r == CUFFT_ALLOC_FAILED ? PSCR_ERROR_DEVICE_ALLOC : PSCR_ERROR_DEVICE,
                        "cuFFT result %d (%s)", (int)r, what);
}

// The status of one direction of the sine transform (sine.cuh): its FFT's
// result *fr (a pointer: read after the call that sets it, which is
// sine_status's other argument), else its kernels' launches.
pscr_status sine_status(cudaError_t e, const cufftResult *fr, const char *direction)
{
  if (*fr != CUFFT_SUCCESS)
    return fft_error(*fr, direction);
  return e == cudaSuccess ? PSCR_SUCCESS : pscr_cuda_error(e, direction);
}

#define TF_BLAS(call)                                                                    \
  do {                                                                                   \
    cublasStatus_t b_ = (call);                                                          \
    if (b_ != CUBLAS_STATUS_SUCCESS)                                                     \
      return blas_error(b_, #call);                                                      \
  } while (0)

// Rows as the Thomas kernel's systems: groups x m of them, group g with
// shift cg[g] + lambda_k (the last transformed dimension's eigenvalues).
template <class T, bool PROBE>
cudaError_t thomas(const TfState *s, T *x, T *cp, size_t groups, size_t m, cudaStream_t cs,
                   int twist)
{
  const int l = s->ndim - 1;
  const TfFacs<T> F = {(const T *)s->fac[0], (const T *)s->fac[1], (const T *)s->fac[2],
                       (const T *)s->fac[3], s->n[l], s->sms, twist, s->smem};
  return tf_thomas<T, PROBE>(x, cp, groups, m, (const T *)s->cg, (const T *)s->lam[l - 1], F,
                             s->flag, cs);
}

// One right-hand side on stream cs: f and u on the device (u == f allowed).
template <class T> pscr_status solve_one(TfState *s, const T *f, T *u, cudaStream_t cs)
{
  const int n0 = s->n[0], n1 = s->n[1];
  const T *E0 = (const T *)s->w[0];
  T *G = (T *)s->work;
  if (s->sine) { // 2D only
    // As below, E1 and E1^T by the fast sine transform (sine.cuh), which
    // reads F whole before the solve writes u.
    using R = real_t<T>;
    constexpr int C = sizeof(T) / sizeof(R);
    const R *sc = (const R *)s->sscale;
    cufftResult fr = CUFFT_SUCCESS;
    if constexpr (C == 1) {
      if (s->part) {
        // The modes system-major (row k: mode k's system), solved in place.
        pscr_status st = sine_status(sine_rows<R>(s->fft, f, G, (R *)s->ext, nullptr, sc, n0,
                                                  (size_t)n1, cs, &fr),
                                     &fr, "the forward sine transform");
        if (st)
          return st;
        const size_t npad = (size_t)s->part_p * TF_PART_M;
        const T *pf = (const T *)s->pf;
        const PartFacs<T> facs = {pf, pf + npad, pf + 2 * npad, pf + 3 * npad};
        const cudaError_t e = tf_part<T>(facs, n1, s->part_p, (size_t)n0, (const T *)s->cg,
                                         (const T *)s->lam[0], G, s->flag, cs);
        if (e != cudaSuccess)
          return pscr_cuda_error(e, "cudaLaunchKernel(k_tf_part)");
        return sine_status(
            sine_rows<R>(s->fft, G, u, (R *)s->ext, sc, nullptr, n0, (size_t)n1, cs, &fr), &fr,
            "the backward sine transform");
      }
    }
    pscr_status st = sine_status(sine_forward<R, C>(s->fft, (const R *)f, (R *)G, (R *)s->ext,
                                                    sc, n0, (size_t)n1, cs, &fr),
                                 &fr, "the forward sine transform");
    if (st)
      return st;
    const cudaError_t e = thomas<T, false>(s, G, u, 1, (size_t)n0, cs, s->twist);
    if (e != cudaSuccess)
      return pscr_cuda_error(e, "cudaLaunchKernel(k_tf_thomas)");
    return sine_status(sine_backward<R, C>(s->fft, (const R *)G, (R *)u, (R *)s->ext, sc, n0,
                                           (size_t)n1, cs, &fr),
                       &fr, "the backward sine transform");
  }
  if (s->ndim == 2) {
    // Y (col-major n0 x n1, k fastest) = E1 F; rows solved in G with u as
    // scratch (f is consumed); u (row-major) = E1^T Y, as U^T = Y^T E1.
    TF_BLAS(gemm(s->blas, true, true, n0, n1, n0, E0, n0, 0, f, n1, 0, G, n0, 0, 1));
    cudaError_t e = thomas<T, false>(s, G, u, 1, (size_t)n0, cs, s->twist);
    if (e != cudaSuccess)
      return pscr_cuda_error(e, "cudaLaunchKernel(k_tf_thomas)");
    TF_BLAS(gemm(s->blas, true, true, n1, n0, n0, G, n0, 0, E0, n0, 0, u, n1, 0, 1));
    return PSCR_SUCCESS;
  }
  const int n2 = s->n[2];
  const T *E1 = (const T *)s->w[1];
  const long long slab = (long long)n1 * n2;
  // G (row-major n0 x n1 n2) = E1 F: col-major, G^T = F^T E1^T.
  TF_BLAS(gemm(s->blas, false, false, (int)slab, n0, n0, f, (int)slab, 0, E0, n0, 0, G,
               (int)slab, 0, 1));
  // Per slab j: Y_j (col-major n1 x n2: [j][i3][k]) = E2 G_j, into u.
  TF_BLAS(gemm(s->blas, true, true, n1, n2, n1, E1, n1, 0, G, n2, slab, u, n1, slab, n0));
  cudaError_t e = thomas<T, false>(s, u, G, (size_t)n0, (size_t)n1, cs, s->twist);
  if (e != cudaSuccess)
    return pscr_cuda_error(e, "cudaLaunchKernel(k_tf_thomas)");
  // Per slab: H_j (row-major n1 x n2) = E2^T Y_j, as H_j^T = Y_j^T E2, into G.
  TF_BLAS(gemm(s->blas, true, true, n2, n1, n1, u, n1, slab, E1, n1, 0, G, n2, slab, n0));
  // u (row-major) = E1^T H: col-major, u^T = H^T E1.
  TF_BLAS(gemm(s->blas, false, true, (int)slab, n0, n0, G, (int)slab, 0, E0, n0, 0, u,
               (int)slab, 0, 1));
  return PSCR_SUCCESS;
}

template <class T>
pscr_status solve_device_batch(TfState *s, int nrhs, const void *f, size_t ldf, void *u,
                               size_t ldu, cudaStream_t cs)
{
  pscr_status st = PSCR_SUCCESS;
  TF_BLAS(blas_bind(s->blas, s->blas_ws, cs));
  // f and u are column-major operands of leading dimension n2 (2D) or n2
  // n3 (3D): one that is not blas_aligned (a device batch's ld) goes
  // through stage, which only host solves use, one at a time (a
  // device_only plan has none: cuBLAS takes such operands as they are).
  const size_t bytes = s->total * sizeof(T), ld = bytes / (size_t)s->n[0];
  for (int r = 0; r < nrhs && st == PSCR_SUCCESS; r++) {
    const T *fr = (const T *)f + (size_t)r * ldf;
    T *ur = (T *)u + (size_t)r * ldu;
    T *X = (T *)s->stage, *uo = !X || blas_aligned(ur, ld) ? ur : X;
    if (X && !blas_aligned(fr, ld)) {
      const cudaError_t e = cudaMemcpyAsync(X, fr, bytes, cudaMemcpyDeviceToDevice, cs);
      if (e != cudaSuccess)
        return pscr_cuda_error(e, "cudaMemcpyAsync");
      fr = X;
    }
    st = solve_one<T>(s, fr, uo, cs);
    if (st == PSCR_SUCCESS && uo != ur) {
      const cudaError_t e = cudaMemcpyAsync(ur, X, bytes, cudaMemcpyDeviceToDevice, cs);
      if (e != cudaSuccess)
        return pscr_cuda_error(e, "cudaMemcpyAsync");
    }
  }
  if (st || !s->singular)
    return st;
  // The pivots depend on the shifts only: the probe at upload knew.
  using W = real_t<T>;
  const size_t words = sizeof(T) / sizeof(W);
  for (int r = 0; r < nrhs; r++) {
    k_tf_nan<W><<<1024, TF_THREADS, 0, cs>>>((W *)((T *)u + (size_t)r * ldu), s->total * words);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
      return pscr_cuda_error(e, "cudaLaunchKernel(k_tf_nan)");
  }
  return pscr_error_set(PSCR_ERROR_SINGULAR,
                        "A%d + s M%d has a zero pivot for a shift s = c + lambda of the "
                        "transforms: u is NaN",
                        s->ndim, s->ndim);
}

template <class Go> pscr_status by_type(const TfState *s, Go &&go)
{
  if (s->cplx)
    return s->single ? go(cf()) : go(zc());
  return s->single ? go(float()) : go(double());
}

} // namespace

} // namespace pscr_cuda

using namespace pscr_cuda;

extern "C" pscr_status pscr_cuda_tf_setup(const pscr_cuda_tf_view *v, void **state,
                                          size_t *bytes)
{
  pscr_status st = PSCR_SUCCESS;
  TfState *s = (TfState *)calloc(1, sizeof *s);
  *state = s;
  *bytes = 0;
  if (!s)
    return pscr_error_set(PSCR_ERROR_HOST_ALLOC, "cannot allocate the CUDA transform state");
  s->device = v->device;
  s->ndim = v->ndim;
  s->cplx = v->cplx;
  s->single = v->single;
  s->nthreads = v->nthreads;
  s->shift[0] = v->shift[0];
  s->shift[1] = v->shift[1];
  s->total = 1;
  for (int d = 0; d < 3; d++) {
    s->n[d] = d < v->ndim ? v->n[d] : 1;
    s->total *= (size_t)s->n[d];
  }
  s->elem = (s->single ? 4 : 8) * (s->cplx ? 2 : 1);
  PSCR_CUDA_GOTO(st, out, cudaSetDevice(s->device));
  PSCR_CUDA_GOTO(st, out,
                 cudaDeviceGetAttribute(&s->sms, cudaDevAttrMultiProcessorCount, s->device));
  PSCR_CUDA_GOTO(st, out,
                 cudaDeviceGetAttribute(&s->smem, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                        s->device));
  s->sine = v->sine_scale != nullptr; // 2D plans only (the view's)
  for (int d = 0; d < v->ndim - 1; d++) {
    const size_t n = (size_t)s->n[d], wn = d == 0 && s->sine ? 0 : n * n; // no E1: sines
    if (wn > 0)
      PSCR_CUDA_ALLOC_GOTO(st, out, cudaMalloc(&s->w[d], wn * s->elem), wn * s->elem);
    PSCR_CUDA_ALLOC_GOTO(st, out, cudaMalloc(&s->lam[d], n * s->elem), n * s->elem);
    *bytes += (wn + n) * s->elem;
  }
  if (s->sine) {
    // The complex lines of the in-place FFT (a pair of real columns each:
    // n2 / 2 real, n2 complex, of 2 (n1 + 1) entries, about twice the
    // data), the scales, cuFFT's work area.
    const size_t rs = s->single ? 4 : 8;
    const size_t lines = sine_lines((size_t)s->n[1] * (s->cplx ? 2 : 1));
    const size_t ext = 2 * sine_line(s->n[0]) * lines * rs, sc = (size_t)s->n[0] * rs;
    PSCR_CUDA_ALLOC_GOTO(st, out, cudaMalloc(&s->ext, ext), ext);
    PSCR_CUDA_ALLOC_GOTO(st, out, cudaMalloc(&s->sscale, sc), sc);
    size_t work = 0;
    cufftResult r = cufftCreate(&s->fft);
    s->fft_made = r == CUFFT_SUCCESS; // destroy only a handle cuFFT made
    if (r == CUFFT_SUCCESS)
      r = s->single ? sine_plan<float>(s->fft, s->n[0], lines, &work)
                    : sine_plan<double>(s->fft, s->n[0], lines, &work);
    if (r != CUFFT_SUCCESS) {
      st = fft_error(r, "cufftMakePlanMany64, the sine transform's plan");
      goto out;
    }
    *bytes += ext + sc + work;
    s->part_p = s->cplx || v->no_partition ? 0 : tf_part_threads(s->n[1]);
    if (s->part_p > 0) {
      const size_t pf = 4 * (size_t)s->part_p * TF_PART_M * s->elem;
      PSCR_CUDA_ALLOC_GOTO(st, out, cudaMalloc(&s->pf, pf), pf);
      *bytes += pf;
    }
  }
  for (int k = 0; k < 4; k++) {
    const size_t len = (size_t)s->n[v->ndim - 1] * s->elem;
    PSCR_CUDA_ALLOC_GOTO(st, out, cudaMalloc(&s->fac[k], len), len);
    *bytes += len;
  }
  // One full-size workspace, and the staging buffer of host-array solves
  // (and of device rows cuBLAS cannot take in place), allocated here so
  // that a solve allocates nothing; a device_only plan has no stage.
  PSCR_CUDA_ALLOC_GOTO(st, out, cudaMalloc(&s->work, s->total * s->elem), s->total * s->elem);
  if (!v->device_only) {
    PSCR_CUDA_ALLOC_GOTO(st, out, cudaMalloc(&s->stage, s->total * s->elem),
                         s->total * s->elem);
    *bytes += s->total * s->elem;
  }
  PSCR_CUDA_ALLOC_GOTO(st, out, cudaMalloc(&s->flag, sizeof(int)), sizeof(int));
  *bytes += s->total * s->elem + sizeof(int);
  {
    const size_t len = (size_t)(s->ndim == 3 ? s->n[0] : 1) * s->elem; // cg: a shift per group
    PSCR_CUDA_ALLOC_GOTO(st, out, cudaMalloc(&s->cg, len), len);
    PSCR_CUDA_ALLOC_GOTO(st, out, cudaMalloc(&s->blas_ws, BLAS_WORKSPACE), BLAS_WORKSPACE);
    *bytes += len + BLAS_WORKSPACE;
  }
  PSCR_CUDA_GOTO(st, out, cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
  if (cublasCreate(&s->blas) != CUBLAS_STATUS_SUCCESS) {
    s->blas = nullptr;
    return pscr_error_set(PSCR_ERROR_DEVICE, "cublasCreate failed (device %d)", s->device);
  }
out:
  return st;
}

extern "C" pscr_status pscr_cuda_tf_upload(void *state, const pscr_cuda_tf_view *v)
{
  TfState *s = (TfState *)state;
  pscr_status st = PSCR_SUCCESS;
  PSCR_CUDA_GOTO(st, out, cudaSetDevice(s->device));
  if (s->sine)
    PSCR_CUDA_GOTO(st, out,
                   cudaMemcpy(s->sscale, v->sine_scale, (size_t)s->n[0] * (s->single ? 4 : 8),
                              cudaMemcpyHostToDevice));
  for (int d = 0; d < s->ndim - 1; d++) {
    const size_t n = (size_t)s->n[d];
    if (s->w[d])
      PSCR_CUDA_GOTO(st, out,
                     cudaMemcpy(s->w[d], v->w[d], n * n * s->elem, cudaMemcpyHostToDevice));
    PSCR_CUDA_GOTO(st, out,
                   cudaMemcpy(s->lam[d], v->lambda[d], n * s->elem, cudaMemcpyHostToDevice));
  }
  for (int k = 0; k < 4; k++) {
    const size_t nl = (size_t)s->n[s->ndim - 1];
    // m_off and a_off have nl - 1 entries; the plan stores nl (zero padded).
    PSCR_CUDA_GOTO(st, out, cudaMemcpy(s->fac[k], v->fac[k], nl * s->elem, cudaMemcpyHostToDevice));
  }
  PSCR_CUDA_GOTO(st, out, cudaMemsetAsync(s->flag, 0, sizeof(int), s->stream));
  st = by_type(s, [&](auto t) -> pscr_status {
    using T = decltype(t);
    // The groups' shifts: c (2D), c + lambda1_g (3D), as the CPU forms them.
    const size_t groups = s->ndim == 3 ? (size_t)s->n[0] : 1;
    T *cg = (T *)malloc(groups * sizeof(T));
    if (!cg)
      return pscr_error_set(PSCR_ERROR_HOST_ALLOC, "cannot allocate the transform's shifts");
    if (s->ndim == 3)
      tf_shifts<T>(s->shift, v->lambda[0], groups, cg);
    else
      cg[0] = shift_of<T>(s->shift);
    cudaError_t e = cudaMemcpy(s->cg, cg, groups * sizeof(T), cudaMemcpyHostToDevice);
    free(cg);
    if (e != cudaSuccess)
      return pscr_cuda_error(e, "cudaMemcpy");
    if ((e = tf_stage_prepare<T>(s->smem)) != cudaSuccess)
      return pscr_cuda_error(e, "cudaFuncSetAttribute(k_tf_staged)");
    if constexpr (std::is_same<T, real_t<T>>::value) {
      if (s->pf) {
        const T *const *fac = (const T *const *)v->fac;
        const int nl = s->n[1];
        s->part = tf_dominant(fac[0], fac[1], fac[2], fac[3], nl, shift_of<T>(s->shift),
                                 (const T *)v->lambda[0], (size_t)s->n[0]);
        if (s->part) {
          const size_t npad = (size_t)s->part_p * TF_PART_M;
          T *tab = (T *)calloc(4 * npad, sizeof(T));
          if (!tab)
            return pscr_error_set(PSCR_ERROR_HOST_ALLOC, "cannot allocate the partition tables");
          const T one = T(1);
          part_chunk_factors(v->fac, (size_t)nl, s->part_p, TF_PART_M, sizeof(T), &one,
                             (char *)tab);
          e = cudaMemcpy(s->pf, tab, 4 * npad * sizeof(T), cudaMemcpyHostToDevice);
          free(tab);
          if (e != cudaSuccess)
            return pscr_cuda_error(e, "cudaMemcpy");
          if ((e = tf_part_prepare<T>(s->part_p)) != cudaSuccess)
            return pscr_cuda_error(e, "cudaFuncSetAttribute(k_tf_part)");
        }
      }
    }
    // The copies above, from pageable memory, may return before they land,
    // and s->stream is non-blocking: the pivot check must not read early.
    if ((e = cudaDeviceSynchronize()) != cudaSuccess)
      return pscr_cuda_error(e, "cudaDeviceSynchronize");
    // The pivots of plain Thomas (bit 1: the CPU's, whose failure makes
    // the plan singular), then those of the twisted factorization where it
    // would serve (bit 2: it serves only if they pass).
    const size_t m = (size_t)s->n[s->ndim == 3 ? 1 : 0];
    e = thomas<T, true>(s, nullptr, nullptr, groups, m, s->stream, 0);
    if (e == cudaSuccess && !v->no_twist &&
        tf_twist_fits(groups, groups * m, s->n[s->ndim - 1], s->sms))
      e = thomas<T, true>(s, nullptr, nullptr, groups, m, s->stream, 1);
    if (e == cudaSuccess)
      e = cudaStreamSynchronize(s->stream);
    if (e != cudaSuccess)
      return pscr_cuda_error(e, "cudaLaunchKernel(k_tf_thomas)");
    return PSCR_SUCCESS;
  });
  if (st)
    goto out;
  {
    int flag = 0;
    PSCR_CUDA_GOTO(st, out, cudaMemcpy(&flag, s->flag, sizeof flag, cudaMemcpyDeviceToHost));
    s->singular = (flag & 1) != 0;
    s->twist = !v->no_twist && (flag & 2) == 0;
  }
out:
  return st;
}

extern "C" pscr_status pscr_cuda_tf_solve_device_batch(void *state, int nrhs, const void *f,
                                                       size_t ldf, void *u, size_t ldu,
                                                       void *stream)
{
  TfState *s = (TfState *)state;
  cudaError_t e = cudaSetDevice(s->device);
  if (e != cudaSuccess)
    return pscr_cuda_error(e, "cudaSetDevice");
  return by_type(s, [&](auto t) {
    return solve_device_batch<decltype(t)>(s, nrhs, f, ldf, u, ldu, (cudaStream_t)stream);
  });
}

// Host arrays: each right-hand side through the staging buffer (pageable
// copies; the reduction's pipelined pinned staging is not shared yet).
extern "C" pscr_status pscr_cuda_tf_solve_batch(void *state, int nrhs, const void *f, size_t ldf,
                                                void *u, size_t ldu)
{
  TfState *s = (TfState *)state;
  pscr_status st = PSCR_SUCCESS, first = PSCR_SUCCESS;
  if (!s->stage) // pscr_solve refuses host arrays first; never reached
    return pscr_error_set(PSCR_ERROR_INVALID_VALUE, "a device_only plan has no host-solve buffer");
  PSCR_CUDA_GOTO(st, out, cudaSetDevice(s->device));
  for (int r = 0; r < nrhs; r++) {
    const size_t bytes = s->total * s->elem;
    PSCR_CUDA_GOTO(st, out,
                   cudaMemcpyAsync(s->stage, (const char *)f + (size_t)r * ldf * s->elem, bytes,
                                   cudaMemcpyHostToDevice, s->stream));
    st = by_type(s, [&](auto t) {
      return solve_device_batch<decltype(t)>(s, 1, s->stage, s->total, s->stage, s->total,
                                             s->stream);
    });
    if (st && st != PSCR_ERROR_SINGULAR)
      goto out;
    if (st && first == PSCR_SUCCESS)
      first = st;
    PSCR_CUDA_GOTO(st, out,
                   cudaMemcpyAsync((char *)u + (size_t)r * ldu * s->elem, s->stage, bytes,
                                   cudaMemcpyDeviceToHost, s->stream));
    PSCR_CUDA_GOTO(st, out, cudaStreamSynchronize(s->stream));
  }
  if (first != PSCR_SUCCESS)
    return pscr_error_set(first,
                          "A%d + s M%d has a zero pivot for a shift s = c + lambda of the "
                          "transforms: u is NaN for all %d right-hand sides",
                          s->ndim, s->ndim, nrhs);
out:
  return st;
}

extern "C" int pscr_cuda_tf_singular(const void *state)
{
  return ((const TfState *)state)->singular;
}

extern "C" double pscr_cuda_tf_part_steps(int nl)
{
  // Each thread's M rows down and up, and the boundary system's PCR.
  const int P = tf_part_threads(nl);
  return P > 0 ? 2 * (TF_PART_M + std::log2((double)P)) : 0.0;
}

extern "C" int pscr_cuda_sine_fits(int n, size_t cols)
{
  return sine_tiles(n, cols) <= (size_t)INT_MAX;
}

extern "C" void pscr_cuda_tf_destroy(void *state)
{
  TfState *s = (TfState *)state;
  if (!s)
    return;
  cudaSetDevice(s->device);
  if (s->blas)
    cublasDestroy(s->blas);
  if (s->fft_made)
    cufftDestroy(s->fft);
  cudaFree(s->ext);
  cudaFree(s->sscale);
  cudaFree(s->pf);
  if (s->stream)
    cudaStreamDestroy(s->stream);
  for (int d = 0; d < 2; d++) {
    cudaFree(s->w[d]);
    cudaFree(s->lam[d]);
  }
  for (int k = 0; k < 4; k++)
    cudaFree(s->fac[k]);
  cudaFree(s->cg);
  cudaFree(s->work);
  cudaFree(s->stage);
  cudaFree(s->blas_ws);
  cudaFree(s->flag);
  free(s);
}

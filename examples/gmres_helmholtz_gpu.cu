/*
 * pscr-gmres-gpu: pscr-gmres (gmres_helmholtz.c) with the whole GMRES
 * iteration on a CUDA device. Same problem, -lap u - omega^2 nu(x)^2 u = f on
 * (0,1)^2 with the second-order ABC, same bilinear FE discretization, same
 * media, load and options, same preconditioners; the host code that builds
 * them (factors, pencils, the perturbation D, diag(A), the load, the plans)
 * is gmres_problem.c, shared with the CPU example.
 *
 * On the device: the 1D factors, D, diag(A), b, the Krylov basis V and the
 * vectors x, w, z (cuDoubleComplex, the interleaved layout of PSCR_C64). The
 * operator A = A1 (x) M2 + M1 (x) A2 - omega^2 M1 (x) M2 + D is a kernel
 * applying the 9-point stencil from the factors, one thread per node.
 * Preconditioners, right preconditioning as in the CPU example:
 *   GMRES                         none;
 *   Jacobi-GMRES                  z = v / diag(A);
 *   pscr, c = -kbar^2             one pscr_solve_device with the C64 plan of
 *   pscr, c = -(1-0.5i) kbar^2    A1 (x) M2 + M1 (x) A2 + c M1 (x) M2 on the
 *                                 CUDA backend, on the example's stream.
 *
 * Arnoldi: classical Gram-Schmidt with one reorthogonalization (CGS2), each
 * pass two cublasZgemv, h = V^H w and w -= V h, over the k + 1 basis vectors
 * at once. The CPU example uses modified Gram-Schmidt; in exact arithmetic
 * both give the same Hessenberg matrix, and CGS2 keeps the basis orthogonal
 * to working precision ("twice is enough", Giraud, Langou, Rozloznik 2005),
 * at least as well as MGS, so the iteration counts agree to rounding. MGS on
 * the device would be 2 (k + 1) dependent launches (a Zdotc, an axpy with
 * the scalar from device memory) at step k, each reading one basis vector;
 * CGS2 is 4 launches, each reading the k + 1 vectors in one pass, which keeps
 * the device busy at k = 100. The norm is cublasDznrm2; all cuBLAS calls are
 * in device pointer mode (scalars stay on the device).
 *
 * The small least-squares problem is on the host: each step copies its
 * Hessenberg column (k + 2 entries) to pinned memory, and the host applies
 * the complex Givens rotations exactly as the CPU loop does (std::complex,
 * the same formulas), so the stopping test |g_k+1| / ||b|| <= tol is the
 * CPU's. At a restart (or at convergence) the host solves the triangular
 * system, uploads y, and the device forms x += M^-1 (V y) (one Zgemv, one
 * preconditioner application) and the true residual b - A x, whose norm
 * decides convergence and restarts the cycle, as on the CPU.
 *
 * Host synchronizations: ONE per Arnoldi step (the Hessenberg column), one
 * per restart cycle (the true residual), one for ||b|| at the start. Before
 * waiting for the column, the host enqueues the next step's
 * z = M^-1 v_k+1 and w = A z (they need only v_k+1, already on the device),
 * which the device runs while the host waits, so the wait does not drain the
 * device queue. That speculative work touches only z and w, never V, x or
 * the Hessenberg column. It is wasted when the step converges, and it would
 * then be counted in the time to solution (it precedes the final update in
 * stream order), so it is skipped when the residual estimate, extrapolated
 * geometrically from the last two steps, would reach tol at this step, and
 * at the last step of a cycle. The time to solution runs from an event before
 * x = 0 to the event after the norm of the true residual that stopped the
 * iteration.
 *
 * Each variant runs once untimed for two iterations first (CUDA loads
 * modules lazily at a kernel's first launch).
 *
 *   pscr-gmres-gpu [-n 127,255,511] [--omega W] [--nmax N] [--graded G] [--tol T]
 *                  [--restart M] [--maxit K] [--threads T] [--[no-]baseline]
 *                  [--cpu] [--device D] [--test]
 *
 * Exit status: 0, 1 on an error or a failed --test check, 2 on a bad
 * command line; without a CUDA device 77 with --test (ctest: skipped), else 1.
 */
#include <cuComplex.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <omp.h>

#include <complex>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cuda_example.cuh"
#include "gmres_problem.h"
#include "krylov_common.h"
#include "pscr.h"

typedef std::complex<double> zc; /* host complex: layout of cuDoubleComplex and PSCR_C64 */

/* ------------------------------------------------------------------ kernels */

/* Entry (i, i + s) of a symmetric tridiagonal matrix, s in {-1, 0, 1}, inside bounds. */
__device__ __forceinline__ cuDoubleComplex tri_at(const cuDoubleComplex *__restrict__ diag,
                                                  const cuDoubleComplex *__restrict__ off,
                                                  int i, int s)
{
  return s == 0 ? diag[i] : off[s < 0 ? i - 1 : i];
}

/*
 * y = A u, A = A1 (x) M2 + M1 (x) A2 + c M1 (x) M2 + D with the factors of
 * pscr_helmholtz_factors (per dimension a_diag, a_off, m_diag, m_off of n, n,
 * n, n complex entries: gmres_problem.h's fac layout) and D diagonal; one
 * thread per node (i, j), j fastest. For each row i + di of the stencil it
 * forms rm = (M2 row j) u and ra = (A2 row j) u, then adds
 * A1(i, i+di) rm + M1(i, i+di) (ra + c rm). Not the host's order of
 * operations (pscr_operator_apply sums the three Kronecker terms in three
 * passes), so it agrees with the host to rounding, not bitwise.
 */
__global__ void k_apply(int n, const cuDoubleComplex *__restrict__ f1,
                        const cuDoubleComplex *__restrict__ f2, cuDoubleComplex c,
                        const cuDoubleComplex *__restrict__ dpert,
                        const cuDoubleComplex *__restrict__ u, cuDoubleComplex *__restrict__ y)
{
  const size_t N = (size_t)n * n, stride = (size_t)gridDim.x * blockDim.x;
  const cuDoubleComplex *a1d = f1, *a1o = f1 + n, *m1d = f1 + 2 * n, *m1o = f1 + 3 * n;
  const cuDoubleComplex *a2d = f2, *a2o = f2 + n, *m2d = f2 + 2 * n, *m2o = f2 + 3 * n;
  for (size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x; idx < N; idx += stride) {
    const int i = (int)(idx / (size_t)n), j = (int)(idx - (size_t)i * n);
    const int dj0 = j > 0 ? -1 : 0, dj1 = j + 1 < n ? 1 : 0;
    cuDoubleComplex m2[3], a2[3];
    for (int dj = dj0; dj <= dj1; dj++) {
      m2[dj + 1] = tri_at(m2d, m2o, j, dj);
      a2[dj + 1] = tri_at(a2d, a2o, j, dj);
    }
    cuDoubleComplex s = cuCmul(dpert[idx], u[idx]);
    for (int di = i > 0 ? -1 : 0; di <= (i + 1 < n ? 1 : 0); di++) {
      const cuDoubleComplex *row = u + (size_t)(i + di) * n;
      cuDoubleComplex rm = make_cuDoubleComplex(0, 0), ra = rm;
      for (int dj = dj0; dj <= dj1; dj++) {
        const cuDoubleComplex v = row[j + dj];
        rm = cuCadd(rm, cuCmul(m2[dj + 1], v));
        ra = cuCadd(ra, cuCmul(a2[dj + 1], v));
      }
      const cuDoubleComplex a1 = tri_at(a1d, a1o, i, di), m1 = tri_at(m1d, m1o, i, di);
      s = cuCadd(s, cuCadd(cuCmul(a1, rm), cuCmul(m1, cuCadd(ra, cuCmul(c, rm)))));
    }
    y[idx] = s;
  }
}

/* v = w / *den (a real norm on the device), or 0 when *den is 0 (breakdown). */
__global__ void k_div_norm(size_t N, const double *den, const cuDoubleComplex *__restrict__ w,
                           cuDoubleComplex *__restrict__ v)
{
  const double d = *den;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < N; i += stride)
    v[i] = d > 0 ? make_cuDoubleComplex(w[i].x / d, w[i].y / d) : make_cuDoubleComplex(0, 0);
}

/* z = r / diag (Jacobi). */
__global__ void k_jacobi(size_t N, const cuDoubleComplex *__restrict__ r,
                         const cuDoubleComplex *__restrict__ diag,
                         cuDoubleComplex *__restrict__ z)
{
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < N; i += stride)
    z[i] = cuCdiv(r[i], diag[i]);
}

/*
 * The Hessenberg column of step k: col[0..k] += h2[0..k] (the two CGS
 * passes), col[k+1] = (||w||, 0) (Dznrm2 has written the real part).
 */
__global__ void k_column(int k, const cuDoubleComplex *__restrict__ h2,
                         cuDoubleComplex *__restrict__ col)
{
  for (int i = threadIdx.x; i <= k + 1; i += blockDim.x)
    col[i] = i <= k ? cuCadd(col[i], h2[i]) : make_cuDoubleComplex(col[i].x, 0.0);
}

/* y = b - y. */
__global__ void k_residual(size_t N, const cuDoubleComplex *__restrict__ b,
                           cuDoubleComplex *__restrict__ y)
{
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < N; i += stride)
    y[i] = cuCsub(b[i], y[i]);
}

/* ------------------------------------------------------------- device state */

/* Device scalars (doubles): ||b||, ||b - A x|| of the cycle, the true-residual pair. */
enum { S_BNORM, S_BETA, S_T0, S_T1, S_COUNT };

/* Stream, cuBLAS handle (device pointer mode, on the stream), events, pinned scalars. */
struct gpu_env {
  int device;
  cudaStream_t stream;
  cublasHandle_t blas;
  cudaEvent_t ev_start, ev_col, ev_end;
  double *h_scal; /* pinned, S_COUNT entries */
};

static void gpu_env_free(gpu_env *g)
{
  if (g->blas)
    cublasDestroy(g->blas);
  if (g->ev_start)
    cudaEventDestroy(g->ev_start);
  if (g->ev_col)
    cudaEventDestroy(g->ev_col);
  if (g->ev_end)
    cudaEventDestroy(g->ev_end);
  if (g->stream)
    cudaStreamDestroy(g->stream);
  if (g->h_scal)
    cudaFreeHost(g->h_scal);
}

static int gpu_env_init(gpu_env *g, int device)
{
  memset(g, 0, sizeof *g);
  g->device = device;
  CU_CK(cudaSetDevice(device));
  CU_CK(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
  CU_CK(cudaEventCreate(&g->ev_start));
  CU_CK(cudaEventCreateWithFlags(&g->ev_col, cudaEventDisableTiming));
  CU_CK(cudaEventCreate(&g->ev_end));
  CU_CK(cudaMallocHost((void **)&g->h_scal, S_COUNT * sizeof(double)));
  BLAS_CK(cublasCreate(&g->blas));
  BLAS_CK(cublasSetStream(g->blas, g->stream));
  BLAS_CK(cublasSetPointerMode(g->blas, CUBLAS_POINTER_MODE_DEVICE));
  return 0;
}

/* Device complex constants for the cuBLAS alpha and beta pointers. */
enum { C_ONE, C_ZERO, C_MONE, C_COUNT };

/* The problem of one size on the device, and the GMRES storage for restart m. */
struct dev_problem {
  int n, m; /* nodes per dimension; the basis holds m + 1 vectors */
  size_t N;
  cuDoubleComplex shift;               /* -omega^2 */
  cuDoubleComplex *fac[2], *dpert, *diag, *b; /* operator, load */
  cuDoubleComplex *V, *x, *w, *z;      /* basis (m + 1 columns of N), iterate, scratch */
  cuDoubleComplex *col, *h2, *y, *cst; /* Hessenberg column (m + 2), CGS pass 2, y (m), constants */
  double *scal;                        /* S_COUNT device scalars */
  zc *h_col, *h_y;                     /* pinned: the column (m + 2) and y (m) */
  zc *H, *g, *sn;                      /* host: rotated Hessenberg ((m + 1) m), g (m + 1), sines (m) */
  double *cs;                          /* host: cosines (m) */
};

static void dev_problem_free(dev_problem *d)
{
  void *ptrs[] = {d->fac[0], d->fac[1], d->dpert, d->diag, d->b, d->V,   d->x,
                  d->w,      d->z,      d->col,   d->h2,   d->y, d->cst, d->scal};
  for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
    if (ptrs[i])
      cudaFree(ptrs[i]);
  if (d->h_col)
    cudaFreeHost(d->h_col);
  if (d->h_y)
    cudaFreeHost(d->h_y);
  free(d->H);
  free(d->g);
  free(d->sn);
  free(d->cs);
  memset(d, 0, sizeof *d);
}

/*
 * Upload op and b (may be NULL) and allocate the GMRES storage for restart m.
 * The copies go on the example's stream, which is non-blocking (a plain
 * cudaMemcpy from pageable memory may return before the data has arrived,
 * and nothing would order it before that stream's kernels), and are waited for.
 */
static int dev_problem_init(dev_problem *d, const helm_op *op, const double *b, int m,
                            cudaStream_t st)
{
  memset(d, 0, sizeof *d);
  d->n = op->n;
  d->m = m;
  d->N = op->N;
  d->shift = make_cuDoubleComplex(op->shift[0], op->shift[1]);
  if (d->N > (size_t)INT_MAX) { /* the cuBLAS calls take int lengths */
    fprintf(stderr, "n^2 = %zu is above INT_MAX\n", d->N);
    return 1;
  }
  const size_t N = d->N, zs = sizeof(cuDoubleComplex);
  cuDoubleComplex **vec[] = {&d->dpert, &d->diag, &d->b, &d->x, &d->w, &d->z};
  for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++)
    CU_CK(cudaMalloc((void **)vec[i], N * zs));
  for (int k = 0; k < 2; k++)
    CU_CK(cudaMalloc((void **)&d->fac[k], (size_t)4 * op->n * zs));
  CU_CK(cudaMalloc((void **)&d->V, (size_t)(m + 1) * N * zs));
  CU_CK(cudaMalloc((void **)&d->col, (size_t)(m + 2) * zs));
  CU_CK(cudaMalloc((void **)&d->h2, (size_t)(m + 1) * zs));
  CU_CK(cudaMalloc((void **)&d->y, (size_t)m * zs));
  CU_CK(cudaMalloc((void **)&d->cst, C_COUNT * zs));
  CU_CK(cudaMalloc((void **)&d->scal, S_COUNT * sizeof(double)));
  CU_CK(cudaMallocHost((void **)&d->h_col, (size_t)(m + 2) * sizeof(zc)));
  CU_CK(cudaMallocHost((void **)&d->h_y, (size_t)m * sizeof(zc)));
  d->H = (zc *)malloc((size_t)(m + 1) * m * sizeof(zc));
  d->g = (zc *)malloc((size_t)(m + 1) * sizeof(zc));
  d->sn = (zc *)malloc((size_t)m * sizeof(zc));
  d->cs = (double *)malloc((size_t)m * sizeof(double));
  if (!d->H || !d->g || !d->sn || !d->cs) {
    fprintf(stderr, "out of memory (GMRES(%d) on the host)\n", m);
    return 1;
  }
  static const cuDoubleComplex cst[C_COUNT] = {{1.0, 0.0}, {0.0, 0.0}, {-1.0, 0.0}};
  CU_CK(cudaMemcpyAsync(d->cst, cst, sizeof cst, cudaMemcpyHostToDevice, st));
  for (int k = 0; k < 2; k++)
    CU_CK(cudaMemcpyAsync(d->fac[k], op->fac[k], (size_t)4 * op->n * zs,
                          cudaMemcpyHostToDevice, st));
  CU_CK(cudaMemcpyAsync(d->dpert, op->dpert, N * zs, cudaMemcpyHostToDevice, st));
  CU_CK(cudaMemcpyAsync(d->diag, op->diag, N * zs, cudaMemcpyHostToDevice, st));
  if (b)
    CU_CK(cudaMemcpyAsync(d->b, b, N * zs, cudaMemcpyHostToDevice, st));
  CU_CK(cudaStreamSynchronize(st));
  return 0;
}

static int dev_apply(const gpu_env *g, const dev_problem *d, const cuDoubleComplex *u,
                     cuDoubleComplex *y)
{
  k_apply<<<blocks_for(d->N), THREADS, 0, g->stream>>>(d->n, d->fac[0], d->fac[1], d->shift,
                                                       d->dpert, u, y);
  LAUNCH_CK();
  return 0;
}

/* ----------------------------------------------------------------- GMRES */

/*
 * z = M^-1 r on the stream; *out receives the result's address: z, or r
 * itself when there is no preconditioner. r == z is allowed.
 */
static int dev_precond(const gpu_env *g, const dev_problem *d, int variant, pscr_plan *plan,
                       const cuDoubleComplex *r, cuDoubleComplex *z,
                       const cuDoubleComplex **out)
{
  *out = z;
  switch (variant) {
  case R_NONE:
    *out = r;
    break;
  case R_JACOBI:
    k_jacobi<<<blocks_for(d->N), THREADS, 0, g->stream>>>(d->N, r, d->diag, z);
    LAUNCH_CK();
    break;
  default:
    PSCR_CK(pscr_solve_device(plan, r, z, g->stream));
    break;
  }
  return 0;
}

/* w = A M^-1 v (z: scratch for M^-1 v). */
static int dev_step_apply(const gpu_env *g, dev_problem *d, int variant, pscr_plan *plan,
                          const cuDoubleComplex *v)
{
  const cuDoubleComplex *mv;
  if (dev_precond(g, d, variant, plan, v, d->z, &mv))
    return 1;
  return dev_apply(g, d, mv, d->w);
}

/*
 * Right-preconditioned GMRES(restart) from x = 0 with the CPU loop's
 * stopping rules and counts (helm_gmres in gmres_problem.c); restart is
 * capped at d->m. Fills res (seconds: the CUDA-event time to solution; setup
 * left alone); returns 0, or 1 on a CUDA, cuBLAS or pscr error.
 */
static int dev_gmres(const gpu_env *g, dev_problem *d, int variant, pscr_plan *plan,
                     double tol, int restart, int maxit, krylov_result *res)
{
  const size_t N = d->N;
  const int n = (int)N, m = restart < d->m ? restart : d->m;
  const unsigned nb = blocks_for(N);
  cudaStream_t st = g->stream;
  cublasHandle_t bl = g->blas;
  const cuDoubleComplex *one = d->cst + C_ONE, *zero = d->cst + C_ZERO,
                        *mone = d->cst + C_MONE;
  zc *H = d->H, *gv = d->g, *sn = d->sn, *y = d->h_y;
  double *cs = d->cs;
  int total = 0;

  CU_CK(cudaEventRecord(g->ev_start, st));
  CU_CK(cudaMemsetAsync(d->x, 0, N * sizeof(cuDoubleComplex), st));
  CU_CK(cudaMemcpyAsync(d->w, d->b, N * sizeof(cuDoubleComplex), cudaMemcpyDeviceToDevice, st));
  BLAS_CK(cublasDznrm2(bl, n, d->b, 1, d->scal + S_BNORM));
  CU_CK(cudaMemcpyAsync(g->h_scal + S_BNORM, d->scal + S_BNORM, sizeof(double),
                        cudaMemcpyDeviceToHost, st));
  CU_CK(cudaEventRecord(g->ev_end, st)); /* the end, should no cycle run */
  CU_CK(cudaStreamSynchronize(st));      /* setup: ||b|| for the tolerance */
  const double bnorm = g->h_scal[S_BNORM];
  double beta = bnorm, est = 1.0;
  const double *d_beta = d->scal + S_BNORM; /* ||w|| on the device: w = b in the first cycle */
  res->converged = 0;
  for (;;) {
    if (beta <= tol * bnorm) {
      res->converged = 1;
      est = beta / bnorm;
      break;
    }
    if (total >= maxit)
      break;
    k_div_norm<<<nb, THREADS, 0, st>>>(N, d_beta, d->w, d->V); /* v0 = w / beta */
    LAUNCH_CK();
    gv[0] = beta;
    int k = 0, spec = 0;
    double est_prev = est = beta / bnorm;
    while (k < m && total < maxit) {
      const cuDoubleComplex *vk = d->V + (size_t)k * N;
      cuDoubleComplex *vn = d->V + (size_t)(k + 1) * N;
      zc *hk = H + (size_t)k * (m + 1);
      /* w = A M^-1 vk, unless the previous step has enqueued it already */
      if (!spec && dev_step_apply(g, d, variant, plan, vk))
        return 1;
      total++;
      /* CGS2: col = V^H w, w -= V col; h2 = V^H w, w -= V h2; then col += h2 */
      const int kk = k + 1;
      BLAS_CK(cublasZgemv(bl, CUBLAS_OP_C, n, kk, one, d->V, n, d->w, 1, zero, d->col, 1));
      BLAS_CK(cublasZgemv(bl, CUBLAS_OP_N, n, kk, mone, d->V, n, d->col, 1, one, d->w, 1));
      BLAS_CK(cublasZgemv(bl, CUBLAS_OP_C, n, kk, one, d->V, n, d->w, 1, zero, d->h2, 1));
      BLAS_CK(cublasZgemv(bl, CUBLAS_OP_N, n, kk, mone, d->V, n, d->h2, 1, one, d->w, 1));
      BLAS_CK(cublasDznrm2(bl, n, d->w, 1, (double *)(d->col + kk))); /* real part of col[k+1] */
      k_column<<<1, THREADS, 0, st>>>(k, d->h2, d->col);
      LAUNCH_CK();
      k_div_norm<<<nb, THREADS, 0, st>>>(N, (const double *)(d->col + kk), d->w, vn);
      LAUNCH_CK();
      CU_CK(cudaMemcpyAsync(d->h_col, d->col, (size_t)(kk + 1) * sizeof(zc),
                            cudaMemcpyDeviceToHost, st));
      CU_CK(cudaEventRecord(g->ev_col, st));
      /* the next step's A M^-1 v_k+1, queued before the wait (see the file comment) */
      const double pred = est * fmin(1.0, est / est_prev);
      spec = kk < m && total < maxit && pred > tol;
      if (spec && dev_step_apply(g, d, variant, plan, vn))
        return 1;
      CU_CK(cudaEventSynchronize(g->ev_col)); /* the step's one synchronization */
      for (int i = 0; i <= kk; i++)
        hk[i] = d->h_col[i];
      const double hn = d->h_col[kk].real();
      /* as helm_gmres: the previous rotations, then the new one zeroing hk[k+1] */
      for (int i = 0; i < k; i++) {
        zc t = cs[i] * hk[i] + sn[i] * hk[i + 1];
        hk[i + 1] = -std::conj(sn[i]) * hk[i] + cs[i] * hk[i + 1];
        hk[i] = t;
      }
      double a = std::abs(hk[k]), t = hypot(a, hn);
      if (a == 0) {
        cs[k] = 0;
        sn[k] = 1;
      } else {
        cs[k] = a / t;
        sn[k] = hk[k] / a * hn / t;
      }
      hk[k] = cs[k] * hk[k] + sn[k] * hn;
      hk[k + 1] = 0;
      gv[k + 1] = -std::conj(sn[k]) * gv[k];
      gv[k] = cs[k] * gv[k];
      k++;
      est_prev = est;
      est = std::abs(gv[k]) / bnorm;
      if (est <= tol || hn == 0)
        break;
    }
    /* y = H(0:k, 0:k)^-1 g on the host (pinned: uploaded in stream order) */
    for (int i = k - 1; i >= 0; i--) {
      zc s = gv[i];
      for (int j = i + 1; j < k; j++)
        s -= H[(size_t)j * (m + 1) + i] * y[j];
      y[i] = s / H[(size_t)i * (m + 1) + i];
    }
    /* x += M^-1 V y on the device */
    CU_CK(cudaMemcpyAsync(d->y, y, (size_t)k * sizeof(zc), cudaMemcpyHostToDevice, st));
    BLAS_CK(cublasZgemv(bl, CUBLAS_OP_N, n, k, one, d->V, n, d->y, 1, zero, d->w, 1));
    const cuDoubleComplex *mw;
    if (dev_precond(g, d, variant, plan, d->w, d->z, &mw))
      return 1;
    BLAS_CK(cublasZaxpy(bl, n, one, mw, 1, d->x, 1));
    /* the true residual decides convergence and restarts (one synchronization) */
    if (dev_apply(g, d, d->x, d->w))
      return 1;
    k_residual<<<nb, THREADS, 0, st>>>(N, d->b, d->w);
    LAUNCH_CK();
    BLAS_CK(cublasDznrm2(bl, n, d->w, 1, d->scal + S_BETA));
    CU_CK(cudaMemcpyAsync(g->h_scal + S_BETA, d->scal + S_BETA, sizeof(double),
                          cudaMemcpyDeviceToHost, st));
    CU_CK(cudaEventRecord(g->ev_end, st));
    CU_CK(cudaEventSynchronize(g->ev_end));
    beta = g->h_scal[S_BETA];
    d_beta = d->scal + S_BETA;
  }
  float ms = 0;
  CU_CK(cudaEventElapsedTime(&ms, g->ev_start, g->ev_end));

  /* ||b - A x|| / ||b||, recomputed. */
  if (dev_apply(g, d, d->x, d->w))
    return 1;
  k_residual<<<nb, THREADS, 0, st>>>(N, d->b, d->w);
  LAUNCH_CK();
  BLAS_CK(cublasDznrm2(bl, n, d->w, 1, d->scal + S_T0));
  BLAS_CK(cublasDznrm2(bl, n, d->b, 1, d->scal + S_T1));
  CU_CK(cudaMemcpyAsync(g->h_scal + S_T0, d->scal + S_T0, 2 * sizeof(double),
                        cudaMemcpyDeviceToHost, st));
  CU_CK(cudaStreamSynchronize(st));
  res->seconds = 1e-3 * ms;
  res->iterations = total;
  res->rec_res = est;
  res->true_res = g->h_scal[S_T0] / g->h_scal[S_T1];
  return 0;
}

/* ------------------------------------------------------------- one size */

/* What run_size found. */
struct size_result {
  krylov_result res[R_COUNT]; /* the GPU runs (iterations -1: not run) */
  int cpu_iters[R_COUNT];     /* the CPU example's counts, -1: not run */
  double cpu_true_res[R_COUNT];
  double host_true_res[R_COUNT];  /* ||b - A x|| / ||b|| of the device's x, on the host */
  double apply_diff, apply_scale; /* device vs host operator */
};

/* Host and device resources of run_size, freed in one place. */
struct size_state {
  helm_op op;
  int have_op;
  double *b, *hx, *hy; /* complex, N each */
  pscr_plan *plan, *cpu_plan;
  dev_problem d;
};

static void size_state_free(size_state *s)
{
  pscr_plan_destroy(s->plan);
  pscr_plan_destroy(s->cpu_plan);
  dev_problem_free(&s->d);
  free(s->b);
  free(s->hx);
  free(s->hy);
  if (s->have_op)
    helm_op_free(&s->op);
}

struct run_cfg {
  double omega, nmax, grading, tol;
  int restart, maxit, baseline; /* baseline: largest n for GMRES and Jacobi-GMRES */
  int cpu, check;               /* run the CPU example's pscr variants; --test's checks */
};

/*
 * The device operator against helm_apply (pscr_operator_apply plus D) on a
 * fixed vector: the max difference, and the scale it is measured against,
 * (||A1 (x) M2 + M1 (x) A2 - omega^2 M1 (x) M2||_inf + max |D|) max |u|,
 * which bounds the sum of the magnitudes the rounding errors are relative to.
 */
static int check_apply(const gpu_env *g, size_state *s, size_result *out)
{
  const size_t N = s->d.N;
  for (size_t i = 0; i < N; i++) {
    s->hx[2 * i] = sin(0.37 * (double)i) + 0.5;
    s->hx[2 * i + 1] = cos(0.23 * (double)i);
  }
  helm_apply(&s->op, s->hx, s->hy);
  double norm_a = 0;
  PSCR_CK(pscr_operator_norm_inf(PSCR_C64, 2, s->op.pen, s->op.shift, &norm_a));
  cuDoubleComplex *du = s->d.x, *dy = s->d.w;
  CU_CK(cudaMemcpyAsync(du, s->hx, N * sizeof(cuDoubleComplex), cudaMemcpyHostToDevice,
                        g->stream));
  if (dev_apply(g, &s->d, du, dy))
    return 1;
  CU_CK(cudaMemcpyAsync(s->hx, dy, N * sizeof(cuDoubleComplex), cudaMemcpyDeviceToHost,
                        g->stream));
  CU_CK(cudaStreamSynchronize(g->stream));
  out->apply_diff = cli_max_diff(1, N, s->hx, s->hy);
  double umax = 0;
  for (size_t i = 0; i < N; i++)
    umax = fmax(umax, hypot(sin(0.37 * (double)i) + 0.5, cos(0.23 * (double)i)));
  out->apply_scale = (norm_a + cli_max_diff(1, N, s->op.dpert, NULL)) * umax;
  return 0;
}

static int run_size_body(const gpu_env *g, int n, const run_cfg *cfg, size_state *s,
                         size_result *out)
{
  for (int v = 0; v < R_COUNT; v++) {
    memset(&out->res[v], 0, sizeof out->res[v]);
    out->res[v].iterations = -1;
    out->cpu_iters[v] = -1;
    out->cpu_true_res[v] = out->host_true_res[v] = NAN;
  }
  if (helm_op_init(&s->op, n, cfg->omega, cfg->nmax, cfg->grading))
    return 1;
  s->have_op = 1;
  const size_t N = s->op.N;
  s->b = (double *)malloc(2 * N * sizeof(double));
  s->hx = (double *)malloc(2 * N * sizeof(double));
  s->hy = (double *)malloc(2 * N * sizeof(double));
  if (!s->b || !s->hx || !s->hy) {
    fprintf(stderr, "out of memory at n = %d\n", n);
    return 1;
  }
  helm_load(&s->op, s->b);
  const int m = cfg->restart < cfg->maxit ? cfg->restart : cfg->maxit;
  if (dev_problem_init(&s->d, &s->op, s->b, m, g->stream))
    return 1;
  if (cfg->check && check_apply(g, s, out))
    return 1;

  double hmax = 0;
  for (int l = 0; l < n - 1; l++)
    hmax = fmax(hmax, s->op.h[0][l]);
  printf("n = %d (%zu unknowns), omega %g, nu in [1, %g], kbar = %.4g, omega nmax hmax = %.3f, "
         "%s mesh, GMRES(%d)\n",
         n, N, cfg->omega, cfg->nmax, sqrt(s->op.kbar2), cfg->omega * cfg->nmax * hmax,
         cfg->grading > 0 ? "graded" : "uniform", cfg->restart);
  printf("  %-26s %7s %10s %10s %10s %9s %9s %9s\n", "method", "iters", "rec.res", "true.res",
         "solve ms", "ms/iter", "plan ms", "CPU iters");

  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CUDA;
  opts.device = g->device;
  for (int v = n <= cfg->baseline ? R_NONE : R_MEAN; v < R_COUNT; v++) {
    krylov_result *r = &out->res[v];
    double plan_s = 0;
    if (v >= R_MEAN) {
      double t0 = cli_now();
      PSCR_CK(helm_make_plan(&s->op, v, &opts, &s->plan));
      plan_s = cli_now() - t0;
    }
    if (dev_gmres(g, &s->d, v, s->plan, cfg->tol, cfg->restart, cfg->maxit < 2 ? cfg->maxit : 2,
                  r)) /* warm-up */
      return 1;
    if (dev_gmres(g, &s->d, v, s->plan, cfg->tol, cfg->restart, cfg->maxit, r))
      return 1;
    r->setup = plan_s;
    if (cfg->check) { /* the device's x, checked on the host */
      CU_CK(cudaMemcpyAsync(s->hx, s->d.x, N * sizeof(cuDoubleComplex), cudaMemcpyDeviceToHost,
                            g->stream));
      CU_CK(cudaStreamSynchronize(g->stream));
      out->host_true_res[v] = helm_true_residual(&s->op, s->b, s->hx, s->hy);
    }
    if (cfg->cpu && v >= R_MEAN) { /* the CPU example's iteration, same problem */
      pscr_options co;
      pscr_options_init(&co);
      co.backend = PSCR_BACKEND_CPU;
      co.num_threads = cfg->check ? 1 : omp_get_max_threads();
      PSCR_CK(helm_make_plan(&s->op, v, &co, &s->cpu_plan));
      krylov_result cr;
      memset(&cr, 0, sizeof cr);
      int e = helm_gmres(&s->op, s->b, s->hx, helm_precond_pscr, s->cpu_plan, cfg->tol,
                         cfg->restart, cfg->maxit, &cr);
      pscr_plan_destroy(s->cpu_plan);
      s->cpu_plan = NULL;
      if (e) {
        fprintf(stderr, "the CPU GMRES failed (%d)\n", e);
        return 1;
      }
      out->cpu_iters[v] = cr.iterations;
      out->cpu_true_res[v] = cr.true_res;
    }
    pscr_plan_destroy(s->plan);
    s->plan = NULL;
    char cpu[16] = "-", plan[16] = "-";
    if (out->cpu_iters[v] >= 0)
      snprintf(cpu, sizeof cpu, "%d", out->cpu_iters[v]);
    if (v >= R_MEAN)
      snprintf(plan, sizeof plan, "%.2f", 1e3 * plan_s);
    printf("  %-26s %6d%s %10.2e %10.2e %10.3f %9.4f %9s %9s\n", helm_variant_names[v],
           r->iterations, r->converged ? " " : "*", r->rec_res, r->true_res, 1e3 * r->seconds,
           r->iterations > 0 ? 1e3 * r->seconds / r->iterations : 0.0, plan, cpu);
  }
  if (n <= cfg->baseline && out->res[R_NONE].iterations > 0)
    printf("  iterations / GMRES's: Jacobi %.3f, pscr mean %.3f, pscr shifted %.3f\n",
           (double)out->res[R_JACOBI].iterations / out->res[R_NONE].iterations,
           (double)out->res[R_MEAN].iterations / out->res[R_NONE].iterations,
           (double)out->res[R_SHIFTED].iterations / out->res[R_NONE].iterations);
  return 0;
}

static int run_size(const gpu_env *g, int n, const run_cfg *cfg, size_result *out)
{
  size_state s;
  memset(&s, 0, sizeof s);
  int rc = run_size_body(g, n, cfg, &s, out);
  size_state_free(&s);
  return rc;
}

/* -------------------------------------------------------------- --test */

/*
 * --test, the ctest case example_gmres_gpu: pscr-gmres's test problems
 * (full GMRES, omega = 20; nmax = 1 at n = 33, nmax = 1.5 at n = 33 and 65).
 * Passes when
 *   - at every size the device operator matches helm_apply (the host's
 *     pscr_operator_apply plus D) to APPLY_EPS eps times
 *     (||A - D||_inf + max |D|) max |u| (rounding only: the kernel sums in
 *     another order);
 *   - nmax = 1 (P = A): pscr with c = -kbar^2 converges in 1 iteration;
 *   - both pscr variants converge: true residual <= 10 tol, both as
 *     recomputed on the device and as recomputed on the host from the
 *     device's x;
 *   - both pscr variants' counts are within max(2, 5%) of the CPU example's
 *     (helm_gmres of gmres_problem.c with a CPU plan, one thread, in this
 *     process): the Arnoldi processes differ only in rounding (CGS2 against
 *     MGS, the operator's summation order, the device's reductions);
 *   - as pscr-gmres --test, on the device's own counts: c = -kbar^2 at most
 *     GMRES_RATIO_MAX of unpreconditioned GMRES's iterations, the shifted
 *     Laplacian at most SHIFTED_RATIO_MAX, and the c = -kbar^2 count grows by
 *     at most 1.25x + 5 from n = 33 to 65 (h-independence).
 */
#define APPLY_EPS 64
#define GMRES_RATIO_MAX 0.25
#define SHIFTED_RATIO_MAX 0.4

/* The allowed |GPU - CPU| iteration count difference: max(2, 5% of the CPU's). */
static int iters_slack(int cpu) { return cpu / 20 > 2 ? cpu / 20 : 2; }

/* The checks every size shares: operator, convergence, CPU counts. Returns 1 if all pass. */
static int check_common(const size_result *out, int n, double tol)
{
  const double eps = 2.220446049250313e-16;
  int a = out->apply_diff <= APPLY_EPS * eps * out->apply_scale;
  printf("  check: device operator vs host, max diff %.2e (relative to the scale %.2e, "
         "%.1f eps) %s\n",
         out->apply_diff, out->apply_diff / out->apply_scale,
         out->apply_diff / out->apply_scale / eps, a ? "ok" : "FAIL");
  int conv = 1, close = 1;
  for (int v = R_MEAN; v <= R_SHIFTED; v++) {
    conv &= out->res[v].converged && out->res[v].true_res <= 10 * tol &&
            out->host_true_res[v] <= 10 * tol;
    close &= out->cpu_iters[v] >= 0 &&
             abs(out->res[v].iterations - out->cpu_iters[v]) <= iters_slack(out->cpu_iters[v]);
  }
  printf("  check: n = %d pscr variants converged (true residual on the device %.2e, %.2e; on "
         "the host %.2e, %.2e) %s, counts (%d, %d) within max(2, 5%%) of the CPU's (%d, %d) "
         "%s\n",
         n, out->res[R_MEAN].true_res, out->res[R_SHIFTED].true_res,
         out->host_true_res[R_MEAN], out->host_true_res[R_SHIFTED], conv ? "ok" : "FAIL",
         out->res[R_MEAN].iterations, out->res[R_SHIFTED].iterations, out->cpu_iters[R_MEAN],
         out->cpu_iters[R_SHIFTED], close ? "ok" : "FAIL");
  return a && conv && close;
}

static int self_test(const gpu_env *g)
{
  static const int sizes[] = {33, 65};
  const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
  run_cfg cfg = {20.0, 1.0, 0.0, 1e-8, 2000, 2000, 0, 1, 1};
  size_result out;
  int fail = 0;

  omp_set_num_threads(1);
  if (run_size(g, 33, &cfg, &out)) {
    printf("FAILED (error)\n");
    return 1;
  }
  int ok = check_common(&out, 33, cfg.tol);
  int one = out.res[R_MEAN].converged && out.res[R_MEAN].iterations == 1;
  printf("  check: nmax = 1, P = A: 1 iteration %s\n", one ? "ok" : "FAIL");
  fail |= !(ok && one);

  cfg.nmax = 1.5;
  cfg.baseline = 65;
  int prev = 0;
  for (int s = 0; s < nsizes; s++) {
    if (run_size(g, sizes[s], &cfg, &out)) {
      printf("FAILED (error)\n");
      return 1;
    }
    ok = check_common(&out, sizes[s], cfg.tol);
    int it = out.res[R_MEAN].iterations, none = out.res[R_NONE].iterations;
    int r = it <= GMRES_RATIO_MAX * none;
    int rs = out.res[R_SHIFTED].iterations <= SHIFTED_RATIO_MAX * none;
    int h = s == 0 || it <= 1.25 * prev + 5;
    printf("  check: mean <= %.2f x GMRES (%d vs %d) %s, shifted <= %.2f x GMRES %s, "
           "h-independent %s\n",
           GMRES_RATIO_MAX, it, none, r ? "ok" : "FAIL", SHIFTED_RATIO_MAX, rs ? "ok" : "FAIL",
           h ? "ok" : "FAIL");
    fail |= !(ok && r && rs && h);
    prev = it;
  }
  printf("%s\n", fail ? "FAILED" : "passed");
  return fail;
}

/* ------------------------------------------------------------------ main */

static void usage(FILE *out)
{
  fprintf(out,
          "usage: pscr-gmres-gpu [-n N1,N2,...] [--omega W] [--nmax N] [--graded G] [--tol T]\n"
          "                      [--restart M] [--maxit K] [--threads T] [--[no-]baseline]\n"
          "                      [--cpu] [--device D] [--test]\n"
          "defaults: n = 127,255,511 nodes per dimension (2..1048576, at most 16 sizes),\n"
          "          omega 20 (W > 0), nmax 1.5 (N >= 1), uniform mesh (G in [0, 1)),\n"
          "          tol 1e-8 (T in (0, 1)), GMRES(100) (M in 1..10000), maxit 1000, device 0.\n"
          "Every iteration runs on the CUDA device (pscr's CUDA backend for the pscr\n"
          "preconditioners). The unpreconditioned and Jacobi GMRES baselines run for\n"
          "n <= 255 only; --baseline runs them at every n, --no-baseline at none.\n"
          "--cpu also runs the CPU example's pscr variants (--threads T threads, default\n"
          "all) and prints their iteration counts; --test runs the ctest case.\n"
          "Exit status: 0, 1 on an error or a failed --test check, 2 on a bad command line,\n"
          "no CUDA device: 77 with --test (ctest: skipped), else 1.\n");
}

int main(int argc, char **argv)
{
  gmres_args a;
  int device = 0, cpu = 0;
  gmres_args_init(&a);
  setvbuf(stdout, NULL, _IOLBF, 0); /* rows appear as they finish, also through a pipe */
  cli_args c;
  cli_init(&c, "pscr-gmres-gpu", argc, argv);
  while (cli_next(&c)) {
    int r = gmres_parse_option(&c, &a);
    if (r == CLI_USAGE)
      return CLI_USAGE;
    if (r)
      continue;
    if (cli_is(&c, "-h") || cli_is(&c, "--help")) {
      usage(stdout);
      return 0;
    } else if (cli_is(&c, "--cpu")) {
      if (cli_switch(&c))
        return CLI_USAGE;
      cpu = 1;
    } else if (cli_is(&c, "--device")) {
      if (cli_int(&c, 0, INT_MAX, &device))
        return CLI_USAGE;
    } else {
      return cli_unknown(&c);
    }
  }
  if (a.threads)
    omp_set_num_threads(a.threads);
  run_cfg cfg = {a.omega, a.nmax, a.grading, a.tol, a.restart, a.maxit, a.baseline, cpu, 0};
  const int test = a.test, nsizes = a.nsizes;
  const int *sizes = a.sizes;

  cudaDeviceProp prop;
  int dev_rc = example_device("pscr-gmres-gpu", device, test, &prop);
  if (dev_rc)
    return dev_rc;
  gpu_env g;
  if (gpu_env_init(&g, device)) {
    gpu_env_free(&g);
    return 1;
  }
  printf("pscr-gmres-gpu: -lap u - omega^2 nu^2 u = f on (0,1)^2, 2nd-order ABC, bilinear FE, "
         "tol %g; pscr %s; %s (sm_%d%d)\n",
         cfg.tol, pscr_version(), prop.name, prop.major, prop.minor);
  int rc = 0;
  if (test) {
    rc = self_test(&g);
  } else {
    int stalled = 0;
    for (int s = 0; s < nsizes && !rc; s++) {
      size_result out;
      if (run_size(&g, sizes[s], &cfg, &out)) {
        rc = 1;
        break;
      }
      for (int v = sizes[s] <= cfg.baseline ? R_NONE : R_MEAN; v < R_COUNT; v++)
        stalled |= !out.res[v].converged;
    }
    if (stalled)
      printf("(* not converged within maxit)\n");
  }
  gpu_env_free(&g);
  return rc;
}

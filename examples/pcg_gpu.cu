/*
 * The device side of the GPU PCG examples (pcg_gpu.cuh): pscr-pcg-gpu
 * (pcg_kappa_gpu.cu, 2D) and pscr-pcg3d-gpu (pcg3d_gpu.cu, 3D) run the
 * problems of pcg_problem.h (built on the host by pcg_problem.c, the CPU
 * examples' code) with the whole Krylov iteration on a CUDA device.
 *
 * On the device: the edge weights and the diagonal, b, S and the CG vectors
 * x, r, z, p, q; the operator is a kernel applying the 5-point (2D) or
 * 7-point (3D) stencil from the edge weights; dot products are cublasDdot
 * in device pointer mode (the results stay in device memory); alpha and
 * beta are formed inside the update kernels from those device scalars.
 * Preconditioners:
 *   CG          none;
 *   Jacobi-PCG  z = r / diag(A);
 *   pscr-PCG, P one pscr_solve_device with the plan of
 *               P = kbar (A1 (x) M2 + M1 (x) A2) (3D: the three-term sum)
 *               on the CUDA backend, on the example's stream;
 *   S P^-1 S    z = S P^-1 S r (two scaling kernels around the same solve).
 *
 * Host synchronizations: ONE per iteration. The stopping test needs ||r||
 * on the host, so after the x, r update ||r||^2 is copied to pinned host
 * memory and an event recorded; before waiting on that event the host
 * enqueues the rest of the iteration (preconditioner, (r, z), p update),
 * which the device runs while the host waits, so the wait does not drain
 * the device queue. When the test says converged, that speculative work
 * has only touched z and p, never x or r (the CPU loop stops at the same
 * point without it). The time to solution runs from an event before x = 0
 * to the event after the last ||r||^2, so the speculative tail is not
 * counted. Setting up costs one more synchronization (||b|| for the
 * tolerance), the recomputed true residual one after the loop.
 *
 * Each variant runs once untimed for two iterations first (CUDA loads
 * modules lazily at a kernel's first launch).
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cuda_example.cuh"
#include "krylov_common.h"
#include "pcg_gpu.cuh"
#include "pcg_problem.h"
#include "pscr.h"

/* ------------------------------------------------------------------ kernels */

/*
 * y = A u from the edge weights (pcg_problem.h's layout), one thread per
 * node, the last index j fastest. The products and differences are formed
 * in kappa_op_apply's order with the _rn intrinsics, which the compiler
 * never contracts into FMAs, so the result is bitwise the host's (the host
 * file is C11 without FMA contraction).
 */
__global__ void k_apply(int n1, int n2, const double *__restrict__ wx,
                        const double *__restrict__ wy, const double *__restrict__ diag,
                        const double *__restrict__ u, double *__restrict__ y)
{
  const size_t N = (size_t)n1 * n2, stride = (size_t)gridDim.x * blockDim.x;
  for (size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x; idx < N; idx += stride) {
    const int i = (int)(idx / (size_t)n2), j = (int)(idx - (size_t)i * n2);
    const double *wyi = wy + (size_t)i * (n2 + 1);
    double s = __dmul_rn(diag[idx], u[idx]);
    if (i > 0)
      s = __dsub_rn(s, __dmul_rn(wx[idx], u[idx - n2])); /* wx[i n2 + j]: left edge */
    if (i + 1 < n1)
      s = __dsub_rn(s, __dmul_rn(wx[idx + n2], u[idx + n2])); /* wx[(i+1) n2 + j] */
    if (j > 0)
      s = __dsub_rn(s, __dmul_rn(wyi[j], u[idx - 1]));
    if (j + 1 < n2)
      s = __dsub_rn(s, __dmul_rn(wyi[j + 1], u[idx + 1]));
    y[idx] = s;
  }
}

/*
 * 3D: y = A u with the 7-point stencil (pcg_problem.h's layout), one thread
 * per node, the last index k fastest, in apply_3d's order (pcg_problem.c),
 * again with the _rn intrinsics, so the result is bitwise the host's.
 */
__global__ void k_apply3(int n1, int n2, int n3, const double *__restrict__ wx,
                         const double *__restrict__ wy, const double *__restrict__ wz,
                         const double *__restrict__ diag, const double *__restrict__ u,
                         double *__restrict__ y)
{
  const size_t s1 = (size_t)n2 * n3, s2 = (size_t)n3;
  const size_t N = (size_t)n1 * s1, stride = (size_t)gridDim.x * blockDim.x;
  for (size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x; idx < N; idx += stride) {
    const int i = (int)(idx / s1), j = (int)((idx - (size_t)i * s1) / s2),
              k = (int)(idx - (size_t)i * s1 - (size_t)j * s2);
    const double *wyl = wy + ((size_t)i * (n2 + 1) + j) * n3;
    const double *wzl = wz + ((size_t)i * n2 + j) * (n3 + 1);
    double s = __dmul_rn(diag[idx], u[idx]);
    if (i > 0)
      s = __dsub_rn(s, __dmul_rn(wx[idx], u[idx - s1])); /* wx[(i n2 + j) n3 + k] */
    if (i + 1 < n1)
      s = __dsub_rn(s, __dmul_rn(wx[idx + s1], u[idx + s1]));
    if (j > 0)
      s = __dsub_rn(s, __dmul_rn(wyl[k], u[idx - s2]));
    if (j + 1 < n2)
      s = __dsub_rn(s, __dmul_rn(wyl[k + n3], u[idx + s2]));
    if (k > 0)
      s = __dsub_rn(s, __dmul_rn(wzl[k], u[idx - 1]));
    if (k + 1 < n3)
      s = __dsub_rn(s, __dmul_rn(wzl[k + 1], u[idx + 1]));
    y[idx] = s;
  }
}

/* alpha = rz / pq; x += alpha p; r -= alpha q. */
__global__ void k_update_xr(size_t N, const double *rz, const double *pq,
                            const double *__restrict__ p, const double *__restrict__ q,
                            double *__restrict__ x, double *__restrict__ r)
{
  const double alpha = *rz / *pq;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < N; i += stride) {
    x[i] += alpha * p[i];
    r[i] -= alpha * q[i];
  }
}

/* beta = rz_new / rz_old; p = z + beta p. */
__global__ void k_update_p(size_t N, const double *rz_new, const double *rz_old,
                           const double *__restrict__ z, double *__restrict__ p)
{
  const double beta = *rz_new / *rz_old;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < N; i += stride)
    p[i] = z[i] + beta * p[i];
}

/* y = a * b elementwise (y may be b: no restrict). */
__global__ void k_mul(size_t N, const double *a, const double *b, double *y)
{
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < N; i += stride)
    y[i] = b[i] * a[i];
}

/* y = a / b elementwise. */
__global__ void k_div(size_t N, const double *__restrict__ a, const double *__restrict__ b,
                      double *__restrict__ y)
{
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < N; i += stride)
    y[i] = a[i] / b[i];
}

/* y = b - y. */
__global__ void k_residual(size_t N, const double *__restrict__ b, double *__restrict__ y)
{
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < N; i += stride)
    y[i] = b[i] - y[i];
}

/* ------------------------------------------------------------- device state */

void gpu_env_free(gpu_env *g)
{
  if (g->blas)
    cublasDestroy(g->blas);
  if (g->ev_start)
    cudaEventDestroy(g->ev_start);
  if (g->ev_rr)
    cudaEventDestroy(g->ev_rr);
  if (g->stream)
    cudaStreamDestroy(g->stream);
  if (g->h_scal)
    cudaFreeHost(g->h_scal);
}

int gpu_env_init(gpu_env *g, int device)
{
  memset(g, 0, sizeof *g);
  g->device = device;
  CU_CK(cudaSetDevice(device));
  CU_CK(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
  CU_CK(cudaEventCreate(&g->ev_start));
  CU_CK(cudaEventCreate(&g->ev_rr));
  CU_CK(cudaMallocHost((void **)&g->h_scal, 2 * sizeof(double)));
  BLAS_CK(cublasCreate(&g->blas));
  BLAS_CK(cublasSetStream(g->blas, g->stream));
  BLAS_CK(cublasSetPointerMode(g->blas, CUBLAS_POINTER_MODE_DEVICE));
  return 0;
}

/* Device scalars: (p, q), ||r||^2, (r, z) double-buffered, and the spares. */
enum { S_PQ, S_RR, S_RZ0, S_RZ1, S_T0, S_T1, S_COUNT };

/* The problem of one size on the device. */
struct dev_problem {
  int ndim, n1, n2, n3;
  size_t N;
  double *wx, *wy, *wz, *diag, *scale, *b; /* operator (wz: 3D), load, S */
  double *x, *r, *z, *p, *q;          /* CG vectors */
  double *scal;                       /* S_COUNT device scalars */
};

static void dev_problem_free(dev_problem *d)
{
  double *ptrs[] = {d->wx, d->wy, d->wz, d->diag, d->scale, d->b,
                    d->x,  d->r,  d->z,  d->p,    d->q,     d->scal};
  for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
    if (ptrs[i])
      cudaFree(ptrs[i]);
  memset(d, 0, sizeof *d);
}

/*
 * Upload op, b and scale (either may be NULL) and allocate the CG vectors.
 * The copies go on the example's stream, which is non-blocking (a plain
 * cudaMemcpy from pageable memory may return before the data has arrived,
 * and nothing would order it before that stream's kernels), and are waited for.
 */
static int dev_problem_init(dev_problem *d, const kappa_op *op, const double *b,
                            const double *scale, cudaStream_t st)
{
  memset(d, 0, sizeof *d);
  d->ndim = op->ndim;
  d->n1 = op->n1;
  d->n2 = op->n2;
  d->n3 = op->n3;
  d->N = kappa_op_size(op);
  if (d->N > (size_t)INT_MAX) { /* the cuBLAS calls take int lengths */
    fprintf(stderr, "%zu unknowns: more than the cuBLAS calls' INT_MAX\n", d->N);
    return 1;
  }
  const size_t N = d->N, n3 = (size_t)op->n3, nwx = (size_t)(op->n1 + 1) * op->n2 * n3,
               nwy = (size_t)op->n1 * (op->n2 + 1) * n3,
               nwz = op->ndim == 3 ? (size_t)op->n1 * op->n2 * (n3 + 1) : 0;
  double **vec[] = {&d->diag, &d->scale, &d->b, &d->x, &d->r, &d->z, &d->p, &d->q};
  for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++)
    CU_CK(cudaMalloc((void **)vec[i], N * sizeof(double)));
  CU_CK(cudaMalloc((void **)&d->wx, nwx * sizeof(double)));
  CU_CK(cudaMalloc((void **)&d->wy, nwy * sizeof(double)));
  CU_CK(cudaMalloc((void **)&d->scal, S_COUNT * sizeof(double)));
  CU_CK(cudaMemcpyAsync(d->wx, op->wx, nwx * sizeof(double), cudaMemcpyHostToDevice, st));
  CU_CK(cudaMemcpyAsync(d->wy, op->wy, nwy * sizeof(double), cudaMemcpyHostToDevice, st));
  if (nwz) {
    CU_CK(cudaMalloc((void **)&d->wz, nwz * sizeof(double)));
    CU_CK(cudaMemcpyAsync(d->wz, op->wz, nwz * sizeof(double), cudaMemcpyHostToDevice, st));
  }
  CU_CK(cudaMemcpyAsync(d->diag, op->diag, N * sizeof(double), cudaMemcpyHostToDevice, st));
  if (b)
    CU_CK(cudaMemcpyAsync(d->b, b, N * sizeof(double), cudaMemcpyHostToDevice, st));
  if (scale)
    CU_CK(cudaMemcpyAsync(d->scale, scale, N * sizeof(double), cudaMemcpyHostToDevice, st));
  CU_CK(cudaStreamSynchronize(st));
  return 0;
}

static int dev_apply(const gpu_env *g, const dev_problem *d, const double *u, double *y)
{
  if (d->ndim == 3)
    k_apply3<<<blocks_for(d->N), THREADS, 0, g->stream>>>(d->n1, d->n2, d->n3, d->wx, d->wy,
                                                           d->wz, d->diag, u, y);
  else
    k_apply<<<blocks_for(d->N), THREADS, 0, g->stream>>>(d->n1, d->n2, d->wx, d->wy, d->diag,
                                                         u, y);
  LAUNCH_CK();
  return 0;
}

/* ------------------------------------------------------------------ PCG */

const char *const pcg_gpu_method_names[R_COUNT] = {"CG", "Jacobi-PCG", "pscr-PCG, P",
                                                   "pscr-PCG, S P^-1 S"};

/* z = M^-1 r on the stream (nothing for plain CG). */
static int dev_precond(const gpu_env *g, dev_problem *d, int method, pscr_plan *plan)
{
  const unsigned nb = blocks_for(d->N);
  switch (method) {
  case R_JACOBI:
    k_div<<<nb, THREADS, 0, g->stream>>>(d->N, d->r, d->diag, d->z);
    LAUNCH_CK();
    break;
  case R_PSCR:
    PSCR_CK(pscr_solve_device(plan, d->r, d->z, g->stream));
    break;
  case R_SCALED:
    k_mul<<<nb, THREADS, 0, g->stream>>>(d->N, d->scale, d->r, d->z);
    LAUNCH_CK();
    PSCR_CK(pscr_solve_device(plan, d->z, d->z, g->stream)); /* in place */
    k_mul<<<nb, THREADS, 0, g->stream>>>(d->N, d->scale, d->z, d->z);
    LAUNCH_CK();
    break;
  default:
    break;
  }
  return 0;
}

/*
 * PCG from x = 0 with the CPU loop's stopping rule and counts (pcg() in
 * pcg_problem.c). Fills res (seconds: the CUDA-event time to solution);
 * returns 0, or 1 on a CUDA, cuBLAS or pscr error.
 */
static int dev_pcg(const gpu_env *g, dev_problem *d, int method, pscr_plan *plan, double tol,
                   int maxit, krylov_result *res)
{
  const size_t N = d->N;
  const int n = (int)N;
  const unsigned nb = blocks_for(N);
  cudaStream_t st = g->stream;
  double *zz = method == R_CG ? d->r : d->z; /* the preconditioned residual */
  double *rz[2] = {d->scal + S_RZ0, d->scal + S_RZ1};
  int c = 0, k = 0;

  CU_CK(cudaEventRecord(g->ev_start, st));
  CU_CK(cudaMemsetAsync(d->x, 0, N * sizeof(double), st));
  CU_CK(cudaMemcpyAsync(d->r, d->b, N * sizeof(double), cudaMemcpyDeviceToDevice, st));
  BLAS_CK(cublasDdot(g->blas, n, d->b, 1, d->b, 1, d->scal + S_T0));
  CU_CK(cudaMemcpyAsync(g->h_scal, d->scal + S_T0, sizeof(double), cudaMemcpyDeviceToHost, st));
  if (dev_precond(g, d, method, plan))
    return 1;
  CU_CK(cudaMemcpyAsync(d->p, zz, N * sizeof(double), cudaMemcpyDeviceToDevice, st));
  BLAS_CK(cublasDdot(g->blas, n, d->r, 1, zz, 1, rz[0]));
  CU_CK(cudaEventRecord(g->ev_rr, st)); /* the end, should the loop not run */
  CU_CK(cudaStreamSynchronize(st));     /* setup: ||b|| for the tolerance */
  const double bnorm = sqrt(g->h_scal[0]);
  double rnorm = bnorm;

  while (rnorm > tol * bnorm && k < maxit) {
    if (dev_apply(g, d, d->p, d->q))
      return 1;
    BLAS_CK(cublasDdot(g->blas, n, d->p, 1, d->q, 1, d->scal + S_PQ));
    k_update_xr<<<nb, THREADS, 0, st>>>(N, rz[c], d->scal + S_PQ, d->p, d->q, d->x, d->r);
    LAUNCH_CK();
    /* Plain CG: ||r||^2 is also the next (r, z); store it there. */
    double *rr = method == R_CG ? rz[1 - c] : d->scal + S_RR;
    BLAS_CK(cublasDdot(g->blas, n, d->r, 1, d->r, 1, rr));
    CU_CK(cudaMemcpyAsync(g->h_scal, rr, sizeof(double), cudaMemcpyDeviceToHost, st));
    CU_CK(cudaEventRecord(g->ev_rr, st));
    k++;
    if (k < maxit) { /* the rest of the iteration, queued before the wait */
      if (dev_precond(g, d, method, plan))
        return 1;
      if (method != R_CG)
        BLAS_CK(cublasDdot(g->blas, n, d->r, 1, d->z, 1, rz[1 - c]));
      k_update_p<<<nb, THREADS, 0, st>>>(N, rz[1 - c], rz[c], zz, d->p);
      LAUNCH_CK();
    }
    CU_CK(cudaEventSynchronize(g->ev_rr)); /* the iteration's one synchronization */
    rnorm = sqrt(g->h_scal[0]);
    c = 1 - c;
  }
  float ms = 0;
  CU_CK(cudaEventElapsedTime(&ms, g->ev_start, g->ev_rr));

  /* ||b - A x|| / ||b||, recomputed (after the speculative tail, in stream order). */
  if (dev_apply(g, d, d->x, d->q))
    return 1;
  k_residual<<<nb, THREADS, 0, st>>>(N, d->b, d->q);
  LAUNCH_CK();
  BLAS_CK(cublasDnrm2(g->blas, n, d->q, 1, d->scal + S_T0));
  BLAS_CK(cublasDnrm2(g->blas, n, d->b, 1, d->scal + S_T1));
  CU_CK(cudaMemcpyAsync(g->h_scal, d->scal + S_T0, 2 * sizeof(double), cudaMemcpyDeviceToHost,
                        st));
  CU_CK(cudaStreamSynchronize(st));
  res->seconds = 1e-3 * ms;
  res->iterations = k;
  res->rec_res = rnorm / bnorm;
  res->converged = rnorm <= tol * bnorm;
  res->true_res = g->h_scal[0] / g->h_scal[1];
  return 0;
}

/* ------------------------------------------------------------- one size */

/* Host and device resources of run_size, freed in one place. */
struct size_state {
  kappa_op op;
  int have_op;
  double *b, *scale, *store, *hx, *hy, *work;
  pscr_plan *plan, *cpu_plan;
  dev_problem d;
};

static void size_state_free(size_state *s)
{
  pscr_plan_destroy(s->plan);
  pscr_plan_destroy(s->cpu_plan);
  dev_problem_free(&s->d);
  free(s->b);
  free(s->scale);
  free(s->store);
  free(s->hx);
  free(s->hy);
  free(s->work);
  if (s->have_op)
    kappa_op_free(&s->op);
}

/* The device operator against kappa_op_apply on a fixed vector. */
static int check_apply(const gpu_env *g, size_state *s, size_result *out)
{
  const size_t N = s->d.N;
  for (size_t i = 0; i < N; i++)
    s->hx[i] = sin(0.37 * (double)i) + 0.5;
  kappa_op_apply(&s->op, s->hx, s->hy);
  CU_CK(cudaMemcpyAsync(s->d.x, s->hx, N * sizeof(double), cudaMemcpyHostToDevice, g->stream));
  if (dev_apply(g, &s->d, s->d.x, s->d.q))
    return 1;
  CU_CK(cudaMemcpyAsync(s->hx, s->d.q, N * sizeof(double), cudaMemcpyDeviceToHost, g->stream));
  CU_CK(cudaStreamSynchronize(g->stream));
  out->apply_diff = cli_max_diff(0, N, s->hx, s->hy);
  out->apply_scale = cli_max_diff(0, N, s->hy, NULL);
  out->apply_mismatch = 0;
  for (size_t i = 0; i < N; i++)
    out->apply_mismatch += memcmp(&s->hx[i], &s->hy[i], sizeof(double)) != 0;
  return 0;
}

static int run_size_body(const gpu_env *g, int n, const run_opts *ro, size_state *s,
                         size_result *out)
{
  if (kappa_op_init_nd(&s->op, ro->ndim, n, ro->kind, ro->contrast, ro->grading)) {
    fprintf(stderr, "out of memory at n = %d\n", n);
    return 1;
  }
  s->have_op = 1;
  const size_t N = kappa_op_size(&s->op);
  s->b = (double *)malloc(N * sizeof(double));
  s->scale = (double *)malloc(N * sizeof(double));
  s->store = (double *)malloc(pcg_pencil_store_size(&s->op) * sizeof(double));
  s->hx = (double *)malloc(N * sizeof(double));
  s->hy = (double *)malloc(4 * N * sizeof(double)); /* also the CPU CG's work */
  if (!s->b || !s->scale || !s->store || !s->hx || !s->hy) {
    fprintf(stderr, "out of memory at n = %d\n", n);
    return 1;
  }
  pcg_load_and_scale(&s->op, s->b, s->scale);
  if (dev_problem_init(&s->d, &s->op, s->b, s->scale, g->stream))
    return 1;
  out->kmin = s->op.kmin;
  out->kmax = s->op.kmax;
  for (int v = 0; v < R_COUNT; v++) {
    memset(&out->res[v], 0, sizeof out->res[v]);
    out->res[v].iterations = -1;
    out->cpu_iters[v] = -1;
    out->cpu_true_res[v] = out->host_true_res[v] = NAN;
  }
  if (ro->check && check_apply(g, s, out))
    return 1;

  printf("n = %d (%zu unknowns), kappa %s, contrast %g (min %.3g, max %.3g, mean %.4g), "
         "%s mesh\n",
         n, N, kappa_names[ro->kind], ro->contrast, s->op.kmin, s->op.kmax, s->op.kbar,
         ro->grading > 0 ? "graded" : "uniform");

  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CUDA;
  opts.device = g->device;
  double t0 = cli_now();
  PSCR_CK(pcg_make_plan(&s->op, &opts, &s->plan, s->store));
  const double plan_s = cli_now() - t0;

  printf("  %-22s %7s %10s %10s %10s %9s %9s\n", "method", "iters", "rec.res", "true.res",
         "solve ms", "ms/iter", "CPU iters");
  for (int v = ro->skip_cg ? R_PSCR : R_CG; v < R_COUNT; v++) {
    krylov_result *r = &out->res[v];
    pscr_plan *plan = v >= R_PSCR ? s->plan : NULL;
    if (dev_pcg(g, &s->d, v, plan, ro->tol, ro->maxit < 2 ? ro->maxit : 2, r)) /* warm-up */
      return 1;
    if (dev_pcg(g, &s->d, v, plan, ro->tol, ro->maxit, r))
      return 1;
    r->setup = v >= R_PSCR ? plan_s : 0;
    if (ro->check) { /* the device's x, checked on the host */
      CU_CK(cudaMemcpyAsync(s->hx, s->d.x, N * sizeof(double), cudaMemcpyDeviceToHost,
                            g->stream));
      CU_CK(cudaStreamSynchronize(g->stream));
      out->host_true_res[v] = kappa_op_true_residual(&s->op, s->b, s->hx, s->hy);
    }
    if (ro->cpu && v >= R_PSCR) { /* the CPU example's iteration, same problem */
      if (!s->cpu_plan) {
        pscr_options co;
        pscr_options_init(&co);
        co.backend = PSCR_BACKEND_CPU;
        co.num_threads = ro->check ? 1 : 0;
        PSCR_CK(pcg_make_plan(&s->op, &co, &s->cpu_plan, s->store));
      }
      scaled_ctx sc = {s->cpu_plan, s->scale, N};
      krylov_result cr;
      int e = v == R_PSCR ? pcg(&s->op, s->b, s->hx, precond_pscr, s->cpu_plan, ro->tol,
                                ro->maxit, s->hy, &cr)
                          : pcg(&s->op, s->b, s->hx, precond_pscr_scaled, &sc, ro->tol,
                                ro->maxit, s->hy, &cr);
      if (e)
        return 1;
      out->cpu_iters[v] = cr.iterations;
      out->cpu_true_res[v] = cr.true_res;
    }
    char cpu[16] = "-";
    if (out->cpu_iters[v] >= 0)
      snprintf(cpu, sizeof cpu, "%d", out->cpu_iters[v]);
    printf("  %-22s %6d%s %10.2e %10.2e %10.3f %9.4f %9s\n", pcg_gpu_method_names[v], r->iterations,
           r->converged ? " " : "*", r->rec_res, r->true_res, 1e3 * r->seconds,
           r->iterations > 0 ? 1e3 * r->seconds / r->iterations : 0.0, cpu);
  }
  pscr_info info;
  PSCR_CK(pscr_plan_info(s->plan, &info));
  printf("  pscr plan (CUDA backend, P = kbar times the %dD Poisson operator): %.2f ms host "
         "wall clock, %.1f MiB on the device\n",
         ro->ndim,
         1e3 * plan_s, (double)info.device_bytes / (1024.0 * 1024.0));
  double kappa = s->op.kmax / s->op.kmin;
  printf("  classical CG bound (A-norm error) for cond(P^-1 A) <= kmax/kmin = %.3g: "
         "%.0f iterations\n",
         kappa, ceil(0.5 * sqrt(kappa) * log(2 / ro->tol)));
  return 0;
}

int pcg_gpu_run_size(const gpu_env *g, int n, const run_opts *ro, size_result *out)
{
  size_state s;
  memset(&s, 0, sizeof s);
  int rc = run_size_body(g, n, ro, &s, out);
  size_state_free(&s);
  return rc;
}

/* ------------------------------------------------------------ --test checks */

/*
 * The device operator with kappa = 1 against pscr_operator_apply of the
 * Poisson pencils (relative max difference <= 100 eps, as pscr-pcg's check).
 */
static int check_poisson_body(const gpu_env *g, int ndim, int n, double grading, size_state *s,
                              int *fail)
{
  *fail = 1;
  if (kappa_op_init_nd(&s->op, ndim, n, KAPPA_CHECKER, 1.0, grading))
    return 1;
  s->have_op = 1;
  const size_t N = kappa_op_size(&s->op);
  s->hx = (double *)malloc(N * sizeof(double));
  s->hy = (double *)malloc(N * sizeof(double));
  s->b = (double *)malloc(N * sizeof(double));
  s->store = (double *)malloc(pcg_pencil_store_size(&s->op) * sizeof(double));
  if (!s->hx || !s->hy || !s->b || !s->store)
    return 1;
  pscr_pencil pen[3];
  PSCR_CK(pcg_pencils(&s->op, 1.0, s->store, pen));
  for (size_t i = 0; i < N; i++)
    s->hx[i] = sin(0.37 * (double)i) + 0.5;
  double zero = 0.0;
  PSCR_CK(pscr_operator_apply(PSCR_R64, ndim, pen, &zero, s->hx, s->b));
  if (dev_problem_init(&s->d, &s->op, NULL, NULL, g->stream))
    return 1;
  CU_CK(cudaMemcpyAsync(s->d.x, s->hx, N * sizeof(double), cudaMemcpyHostToDevice, g->stream));
  if (dev_apply(g, &s->d, s->d.x, s->d.q))
    return 1;
  CU_CK(cudaMemcpyAsync(s->hy, s->d.q, N * sizeof(double), cudaMemcpyDeviceToHost, g->stream));
  CU_CK(cudaStreamSynchronize(g->stream));
  double diff = cli_max_diff(0, N, s->hy, s->b), scale = cli_max_diff(0, N, s->b, NULL);
  *fail = !(diff <= 100 * 2.220446049250313e-16 * scale);
  printf("check: device %d-point operator (kappa = 1) vs pscr_operator_apply, n = %d, "
         "grading %g: max diff %.2e (relative %.2e) %s\n",
         ndim == 3 ? 7 : 5, n, grading, diff, diff / scale, *fail ? "FAIL" : "ok");
  return 0;
}

int pcg_gpu_check_poisson(const gpu_env *g, int ndim, int n, double grading)
{
  size_state s;
  memset(&s, 0, sizeof s);
  int fail = 1;
  if (check_poisson_body(g, ndim, n, grading, &s, &fail)) {
    printf("check: device operator vs pscr_operator_apply, n = %d: error FAIL\n", n);
    fail = 1;
  }
  size_state_free(&s);
  return fail;
}

int pcg_gpu_main(int argc, char **argv, const pcg_gpu_program *prog)
{
  pcg_args a;
  int device = 0, cpu = 0;
  pcg_args_init(&a, prog->default_sizes, 3);
  setvbuf(stdout, NULL, _IOLBF, 0); /* rows appear as they finish, also through a pipe */
  cli_args c;
  cli_init(&c, prog->name, argc, argv);
  while (cli_next(&c)) {
    int r = pcg_parse_option(&c, &a);
    if (r == CLI_USAGE)
      return CLI_USAGE;
    if (r)
      continue;
    if (cli_is(&c, "-h") || cli_is(&c, "--help")) {
      prog->usage(stdout);
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
  run_opts ro = {prog->ndim, a.kind, a.contrast, a.grading, a.tol, a.maxit, a.skip_cg, cpu, 0};

  cudaDeviceProp prop;
  int dev_rc = example_device(prog->name, device, a.test, &prop);
  if (dev_rc)
    return dev_rc;
  gpu_env g;
  if (gpu_env_init(&g, device)) {
    gpu_env_free(&g);
    return 1;
  }
  printf("%s: -div(kappa grad u) = 1 on (0,1)^%d, u = 0 on the boundary; %s, tol %g; pscr %s; "
         "%s (sm_%d%d)\n",
         prog->name, prog->ndim, prog->discretization, ro.tol, pscr_version(), prop.name,
         prop.major, prop.minor);
  int rc = 0;
  if (a.test) {
    rc = prog->self_test(&g);
  } else {
    int stalled = 0;
    for (int s = 0; s < a.nsizes && !rc; s++) {
      size_result out;
      if (pcg_gpu_run_size(&g, a.sizes[s], &ro, &out)) {
        rc = 1;
        break;
      }
      for (int v = ro.skip_cg ? R_PSCR : R_CG; v < R_COUNT; v++)
        stalled |= !out.res[v].converged;
    }
    if (stalled)
      printf("(* not converged within maxit)\n");
  }
  gpu_env_free(&g);
  return rc;
}

/*
 * Dense matrix-decomposition baseline on the GPU (dense_md.h): GEMMs on
 * cuBLAS for the eigenvector transforms, one kernel for the tridiagonal
 * solves along the last dimension.
 *
 * The GEMM sequence and layouts are bl_dense_plan_steps (dense_md.c): the
 * forward transforms leave the data interleaved, row i of system s at
 * s + i nsys, so the tridiagonal kernel runs one thread per system (plain
 * Thomas, coefficients A_l + s M_l formed on the fly from the pencil, which
 * every thread reads at the same address) and consecutive threads touch
 * consecutive addresses: every access is coalesced, and no transpose is
 * needed because the transposes ride in the GEMMs' op flags.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "baseline_cuda.h"
#include "dense_md.h"
#include "gpu_timing.h"

/* cuBLAS workspace given to the handle (NVIDIA recommends 32 MiB on Hopper). */
#define BL_BLAS_WS ((size_t)32 << 20)

/* A cuBLAS call failed. */
#define BL_CUBLAS_GOTO(st, label, call)                                                      \
  do {                                                                                       \
    cublasStatus_t b_ = (call);                                                              \
    if (b_ != CUBLAS_STATUS_SUCCESS) {                                                       \
      (st) = b_ == CUBLAS_STATUS_ALLOC_FAILED ? PSCR_ERROR_DEVICE_ALLOC : PSCR_ERROR_DEVICE;  \
      snprintf(msg, len, "%s: %s", #call, cublasGetStatusString(b_));                        \
      goto label;                                                                            \
    }                                                                                        \
  } while (0)

struct bl_dense {
  int ndim;
  int n[3];             /* n[2] = 1 in 2D */
  size_t total;         /* N */
  double c;             /* the shift */
  bl_dense_steps steps;
  double eig_ms;        /* LAPACKE wall time */
  size_t bytes;         /* device memory held */
  int sms;              /* multiprocessors of the device */
  cudaStream_t stream;  /* own stream */
  cudaStream_t bound;   /* stream the cuBLAS handle is set to */
  cublasHandle_t blas;
  double *d_w[2];       /* W_1, W_2: n_d x n_d column-major */
  double *d_lam[2];     /* Lambda_1, Lambda_2 */
  double *d_fac;        /* last dimension: ad, ao, md, mo, n_l each (off-diagonals 0-padded) */
  double *d_work;       /* N: transform intermediate */
  double *d_cp;         /* N: Thomas multipliers */
  double *d_blas_ws;    /* cuBLAS workspace */
  double *d_f, *d_u;    /* for bl_dense_time */
};

/*
 * (A_l + s M_l) x_s = r_s for every system s < nsys, in place, row i of
 * system s at x[s + i nsys]; s = c + lam1[s % n1] (+ lam2[s / n1]). One
 * thread per system (bl_dense_tri_one): consecutive threads touch
 * consecutive addresses, every thread reads the same pencil entries.
 */
__global__ void k_tri(const double *__restrict__ fac, int n, size_t nsys, double c,
                      const double *__restrict__ lam1, const double *__restrict__ lam2, int n1,
                      double *__restrict__ x, double *__restrict__ cp)
{
  const double *ad = fac, *ao = fac + n, *md = fac + 2 * (size_t)n, *mo = fac + 3 * (size_t)n;
  for (size_t sys = (size_t)blockIdx.x * blockDim.x + threadIdx.x; sys < nsys;
       sys += (size_t)gridDim.x * blockDim.x) {
    double s = c + lam1[sys % (size_t)n1];
    if (lam2)
      s += lam2[sys / (size_t)n1];
    bl_dense_tri_one(ad, ao, md, mo, n, nsys, sys, s, x, cp);
  }
}

static double wall_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

static pscr_status bind_stream(bl_dense *s, cudaStream_t want, char *msg, size_t len)
{
  pscr_status st = PSCR_SUCCESS;
  if (want == s->bound)
    return st;
  BL_CUBLAS_GOTO(st, out, cublasSetStream(s->blas, want));
  /* cublasSetStream puts the handle back on its default workspace. */
  BL_CUBLAS_GOTO(st, out, cublasSetWorkspace(s->blas, s->d_blas_ws, BL_BLAS_WS));
  s->bound = want;
out:
  return st;
}

static pscr_status gemm(bl_dense *s, const bl_dense_gemm *g, const double *d_f, double *d_u,
                        char *msg, size_t len)
{
  pscr_status st = PSCR_SUCCESS;
  const double one = 1.0, zero = 0.0;
  double *ops[5] = {(double *)d_f, d_u, s->d_work, s->d_w[0], s->d_w[1]};
  const cublasOperation_t ta = g->trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t tb = g->trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  if (g->batch == 1)
    BL_CUBLAS_GOTO(st, out, cublasDgemm(s->blas, ta, tb, g->m, g->n, g->k, &one, ops[g->a],
                                        g->lda, ops[g->b], g->ldb, &zero, ops[g->c], g->ldc));
  else
    BL_CUBLAS_GOTO(st, out,
                   cublasDgemmStridedBatched(s->blas, ta, tb, g->m, g->n, g->k, &one, ops[g->a],
                                             g->lda, g->stride_a, ops[g->b], g->ldb,
                                             g->stride_b, &zero, ops[g->c], g->ldc, g->stride_c,
                                             g->batch));
out:
  return st;
}

extern "C" pscr_status bl_dense_solve_device(bl_dense *s, const double *d_f, double *d_u,
                                             void *stream, char *msg, size_t len)
{
  pscr_status st = PSCR_SUCCESS;
  if (!s || !d_f || !d_u) {
    snprintf(msg, len, "bl_dense_solve_device: NULL argument");
    return PSCR_ERROR_INVALID_VALUE;
  }
  if ((st = bind_stream(s, stream ? (cudaStream_t)stream : s->stream, msg, len)))
    return st;
  const bl_dense_steps *P = &s->steps;
  for (int i = 0; i < P->nfwd; i++)
    if ((st = gemm(s, &P->fwd[i], d_f, d_u, msg, len)))
      return st;
  {
    double *x = P->tri == BL_DENSE_U ? d_u : s->d_work;
    /* Few systems (2D: n1 of them): smaller blocks spread them over more
       multiprocessors. */
    int threads = BL_THREADS;
    while (threads > 32 && (P->nsys + threads - 1) / threads < 2 * (size_t)s->sms)
      threads /= 2;
    const size_t blocks = (P->nsys + threads - 1) / threads;
    k_tri<<<(unsigned)(blocks < ((size_t)1 << 20) ? blocks : ((size_t)1 << 20)), threads, 0,
            s->bound>>>(
        s->d_fac, P->n, P->nsys, s->c, s->d_lam[0], s->ndim == 3 ? s->d_lam[1] : NULL,
        s->n[0], x, s->d_cp);
    BL_CUDA_GOTO(st, out, cudaGetLastError());
  }
  for (int i = 0; i < P->nback; i++)
    if ((st = gemm(s, &P->back[i], d_f, d_u, msg, len)))
      return st;
out:
  return st;
}

static pscr_status dalloc(bl_dense *s, double **p, size_t count, char *msg, size_t len)
{
  pscr_status st = PSCR_SUCCESS;
  BL_CUDA_GOTO(st, out, cudaMalloc((void **)p, (count ? count : 1) * sizeof(double)));
  s->bytes += (count ? count : 1) * sizeof(double);
out:
  return st;
}

extern "C" pscr_status bl_dense_create(bl_dense **out, int device, pscr_dtype dtype, int ndim,
                                       const pscr_pencil *pencils, const double *shift,
                                       char *msg, size_t len)
{
  pscr_status st = PSCR_SUCCESS;
  bl_dense *s = NULL;
  double *lam = NULL, *w = NULL, *fac = NULL;
  int ndev = 0;

  if (!out) {
    snprintf(msg, len, "bl_dense_create: NULL solver pointer");
    return PSCR_ERROR_INVALID_VALUE;
  }
  *out = NULL;
  if (dtype != PSCR_R64) {
    snprintf(msg, len, "the dense MD baseline is real double (PSCR_R64) only");
    return PSCR_ERROR_NOT_SUPPORTED;
  }
  if (!pencils || !shift || (ndim != 2 && ndim != 3)) {
    snprintf(msg, len, "bl_dense_create: NULL pencils / shift or ndim %d", ndim);
    return PSCR_ERROR_INVALID_VALUE;
  }
  for (int d = 0; d < ndim; d++) {
    const pscr_pencil *p = &pencils[d];
    if (p->n < 1 || !p->a_diag || !p->m_diag || (p->n > 1 && !p->a_off)) {
      snprintf(msg, len, "bl_dense_create: pencil %d: n %d or a NULL array", d + 1, p->n);
      return PSCR_ERROR_INVALID_VALUE;
    }
  }
  if (!isfinite(*shift)) {
    snprintf(msg, len, "bl_dense_create: the shift is not finite");
    return PSCR_ERROR_NON_FINITE;
  }
  s = (bl_dense *)calloc(1, sizeof *s);
  if (!s) {
    snprintf(msg, len, "bl_dense: %zu bytes", sizeof *s);
    return PSCR_ERROR_HOST_ALLOC;
  }
  s->ndim = ndim;
  s->n[2] = 1;
  for (int d = 0; d < ndim; d++)
    s->n[d] = pencils[d].n;
  s->total = (size_t)s->n[0] * s->n[1] * s->n[2];
  s->c = *shift;
  if ((st = bl_dense_plan_steps(ndim, s->n, &s->steps))) {
    snprintf(msg, len, "bl_dense_create: sizes beyond cuBLAS's int dimensions");
    goto fail;
  }
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || device < 0 || device >= ndev) {
    (void)cudaGetLastError();
    snprintf(msg, len, "bl_dense_create: no CUDA device %d (%d found)", device, ndev);
    st = PSCR_ERROR_NOT_SUPPORTED;
    goto fail;
  }

  /* The last dimension's pencil, off-diagonals padded with zeros. */
  {
    const pscr_pencil *p = &pencils[ndim - 1];
    const size_t n = (size_t)p->n;
    fac = (double *)calloc(4 * n, sizeof *fac);
    if (!fac) {
      snprintf(msg, len, "bl_dense_create: %zu doubles", 4 * n);
      st = PSCR_ERROR_HOST_ALLOC;
      goto fail;
    }
    const double *ad = (const double *)p->a_diag, *ao = (const double *)p->a_off,
                 *md = (const double *)p->m_diag, *mo = (const double *)p->m_off;
    for (size_t i = 0; i < n; i++) {
      fac[i] = ad[i];
      fac[2 * n + i] = md[i];
      if (i + 1 < n) {
        fac[n + i] = ao[i];
        fac[3 * n + i] = mo ? mo[i] : 0.0;
      }
    }
    for (size_t i = 0; i < 4 * n; i++)
      if (!isfinite(fac[i])) {
        snprintf(msg, len, "bl_dense_create: NaN/Inf in pencil %d", ndim);
        st = PSCR_ERROR_NON_FINITE;
        goto fail;
      }
  }

  BL_CUDA_GOTO(st, fail, cudaSetDevice(device));
  BL_CUDA_GOTO(st, fail, cudaDeviceGetAttribute(&s->sms, cudaDevAttrMultiProcessorCount, device));
  BL_CUDA_GOTO(st, fail, cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
  BL_CUBLAS_GOTO(st, fail, cublasCreate(&s->blas));
  if ((st = dalloc(s, &s->d_blas_ws, BL_BLAS_WS / sizeof(double), msg, len)))
    goto fail;
  if ((st = bind_stream(s, s->stream, msg, len)))
    goto fail;

  /* Eigendecompositions on the host (timed), uploaded one at a time. */
  for (int d = 0; d < ndim - 1; d++) {
    const size_t n = (size_t)s->n[d];
    lam = (double *)malloc(n * sizeof *lam);
    w = (double *)malloc(n * n * sizeof *w);
    if (!lam || !w) {
      snprintf(msg, len, "bl_dense_create: eigenvectors of order %zu", n);
      st = PSCR_ERROR_HOST_ALLOC;
      goto fail;
    }
    double t0 = wall_ms();
    if ((st = bl_dense_eig(&pencils[d], lam, w, msg, len)))
      goto fail;
    s->eig_ms += wall_ms() - t0;
    if ((st = dalloc(s, &s->d_w[d], n * n, msg, len)) ||
        (st = dalloc(s, &s->d_lam[d], n, msg, len)))
      goto fail;
    BL_CUDA_GOTO(st, fail, cudaMemcpy(s->d_w[d], w, n * n * sizeof *w, cudaMemcpyHostToDevice));
    BL_CUDA_GOTO(st, fail, cudaMemcpy(s->d_lam[d], lam, n * sizeof *lam, cudaMemcpyHostToDevice));
    free(lam);
    free(w);
    lam = w = NULL;
  }
  {
    const size_t nl = (size_t)s->n[ndim - 1];
    if ((st = dalloc(s, &s->d_fac, 4 * nl, msg, len)))
      goto fail;
    BL_CUDA_GOTO(st, fail,
                 cudaMemcpy(s->d_fac, fac, 4 * nl * sizeof *fac, cudaMemcpyHostToDevice));
  }
  if ((st = dalloc(s, &s->d_work, s->total, msg, len)) ||
      (st = dalloc(s, &s->d_cp, s->total, msg, len)) ||
      (st = dalloc(s, &s->d_f, s->total, msg, len)) ||
      (st = dalloc(s, &s->d_u, s->total, msg, len)))
    goto fail;
  /* The copies above from pageable memory may still be in flight; the
     solves run on a non-blocking stream, which does not wait for them. */
  BL_CUDA_GOTO(st, fail, cudaDeviceSynchronize());
  free(fac);
  *out = s;
  return PSCR_SUCCESS;
fail:
  free(lam);
  free(w);
  free(fac);
  bl_dense_destroy(s);
  return st;
}

/* gpu_solve_fn for gpu_time_fn: ctx is the solver. */
static pscr_status bl_dense_solve_fn(void *ctx, const void *d_f, void *d_u, void *stream,
                                  char *msg, size_t len)
{
  return bl_dense_solve_device((bl_dense *)ctx, (const double *)d_f, (double *)d_u, stream, msg,
                                len);
}

extern "C" pscr_status bl_dense_time(bl_dense *s, const double *f, double *u, int repeat,
                                     double *ms_median, double *ms_min, char *msg, size_t len)
{
  if (!s || !f || !u || !ms_median || !ms_min) {
    snprintf(msg, len, "bl_dense_time: NULL argument");
    return PSCR_ERROR_INVALID_VALUE;
  }
  if (repeat < BL_DENSE_MIN_REPEAT)
    repeat = BL_DENSE_MIN_REPEAT;
  /* Timed as pscr is (gpu_timing.c). */
  return gpu_time_fn(bl_dense_solve_fn, s, s->stream, s->d_f, s->d_u, f, u,
                     s->total * sizeof(double), BL_DENSE_WARMUP, repeat, ms_median, ms_min, msg,
                     len);
}

extern "C" void bl_dense_info(const bl_dense *s, double *eig_ms, size_t *device_bytes)
{
  if (eig_ms)
    *eig_ms = s ? s->eig_ms : 0.0;
  if (device_bytes)
    *device_bytes = s ? s->bytes : 0;
}

extern "C" void bl_dense_destroy(bl_dense *s)
{
  if (!s)
    return;
  if (s->stream)
    cudaStreamSynchronize(s->stream);
  if (s->blas)
    cublasDestroy(s->blas);
  for (int d = 0; d < 2; d++) {
    cudaFree(s->d_w[d]);
    cudaFree(s->d_lam[d]);
  }
  cudaFree(s->d_fac);
  cudaFree(s->d_work);
  cudaFree(s->d_cp);
  cudaFree(s->d_blas_ws);
  cudaFree(s->d_f);
  cudaFree(s->d_u);
  if (s->stream)
    cudaStreamDestroy(s->stream);
  (void)cudaGetLastError(); /* teardown errors are not reported; leave nothing sticky */
  free(s);
}

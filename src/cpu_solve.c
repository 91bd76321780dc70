/*
 * CPU backend: the reference every other backend is checked against.
 * OpenMP over the independent work items of a level (outermost dimension);
 * all workspace allocated at plan time, none inside a solve; 64-bit indexing.
 */
#include <cblas.h>
#include <float.h>
#include <limits.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "plan.h"
#include "sine.h"
#include "team.h"

/* Eigenpairs solved together in interleaved lanes by the level-3 Thomas solver. */
#define PSCR_LANES 4

/* Where a solve met its first singular subproblem (dimension, level, block,
   eigenpair within the block, shift), for pscr_last_error(). */
typedef struct pscr_cpu_failure {
  int set, dim, level, first, last, eig;
  double shift[2];
} pscr_cpu_failure;

typedef struct pscr_cpu_ws {
  void *mem;
  void *item_buf[2];      /* per dimension: item accumulators, 3 S per work item */
  size_t item_stride[2];  /* elements per owner */
  void *thr_buf[2];       /* per dimension: r (PSCR_LANES slabs), gL, gR, mass, stiff */
  size_t thr_stride[2];   /* elements per thread */
  void *thomas_buf;       /* Thomas multipliers per thread */
  size_t thomas_stride;
  void *tf_buf[2];        /* per transformed dimension: its spectral coefficients, n_d S */
  size_t tf_stride[2];    /* elements per owner (one at dimension 1, a thread deeper) */
  int sine[2];            /* transform of dimension d by the fast sine transform (pscr_cpu_sine) */
  void *sine_buf;         /* the sine transforms' scratch per thread (sine.h) */
  size_t sine_stride;     /* its reals (double, or float in single plans) per thread */
  pscr_cpu_failure fail;
  int fail_claim; /* a thread has written fail (record_failure) */
  pscr_team_choice team; /* threads of each solve (team.h) */
} pscr_cpu_ws;

/*
 * The dense transform's products (cpu_solve_impl.h, transform_dim), row
 * major: G = E X (back = 0) or X = E^T G (back = 1), E the n x n matrix of
 * eigenvectors (row e: the eigenvector of lambda_e), X and G n x S. Complex
 * symmetric pencils transform by E^T, never the conjugate (W^T M W = I).
 * S <= INT_MAX (pscr_cpu_accepts).
 */
static void pscr_gemm_d(int back, int n, size_t S, const double *E, const double *in, double *out)
{
  cblas_dgemm(CblasRowMajor, back ? CblasTrans : CblasNoTrans, CblasNoTrans, n, (int)S, n, 1.0, E,
              n, in, (int)S, 0.0, out, (int)S);
}
static void pscr_gemm_s(int back, int n, size_t S, const float *E, const float *in, float *out)
{
  cblas_sgemm(CblasRowMajor, back ? CblasTrans : CblasNoTrans, CblasNoTrans, n, (int)S, n, 1.0f,
              E, n, in, (int)S, 0.0f, out, (int)S);
}
static void pscr_gemm_z(int back, int n, size_t S, const double complex *E,
                        const double complex *in, double complex *out)
{
  const double complex one = 1, zero = 0;
  cblas_zgemm(CblasRowMajor, back ? CblasTrans : CblasNoTrans, CblasNoTrans, n, (int)S, n, &one,
              E, n, in, (int)S, &zero, out, (int)S);
}
static void pscr_gemm_c(int back, int n, size_t S, const float complex *E, const float complex *in,
                        float complex *out)
{
  const float complex one = 1, zero = 0;
  cblas_cgemm(CblasRowMajor, back ? CblasTrans : CblasNoTrans, CblasNoTrans, n, (int)S, n, &one,
              E, n, in, (int)S, &zero, out, (int)S);
}

/*
 * The fast sine transform of dimension d (sine.h) in place on nb batches of
 * its n_d rows of S entries (batch stride bstride, row stride ld, in
 * elements): forward G = E X, or back X = E^T G, E = diag(s) times the
 * DST-I matrix (plan.c, pscr_sine_eigen). Complex data are interleaved
 * (re, im) reals and the scales are real: twice the columns. nt threads, or
 * the calling thread `me`'s scratch when nt is 1.
 */
#define PSCR_DEFINE_SINE(suf, T, R, words, fn)                                                 \
  static void pscr_sine_apply##suf(const pscr_plan *p, int d, T *x, size_t nb, size_t bstride, \
                                   size_t ld, size_t S, int back, int nt, int me)              \
  {                                                                                            \
    const pscr_cpu_ws *ws = p->backend_data;                                                   \
    R *scratch = (R *)ws->sine_buf + (nt > 1 ? 0 : (size_t)me * ws->sine_stride);             \
    fn(p->n[d], nb, (words) * bstride, (words) * ld, (words) * S, (R *)(void *)x,              \
       (const R *)p->sine_scale[d], back, nt, scratch);                                         \
  }
PSCR_DEFINE_SINE(_d, double, double, 1, pscr_sine_d)
PSCR_DEFINE_SINE(_z, double complex, double, 2, pscr_sine_d)
PSCR_DEFINE_SINE(_s, float, float, 1, pscr_sine_s)
PSCR_DEFINE_SINE(_c, float complex, float, 2, pscr_sine_s)
#undef PSCR_DEFINE_SINE

#include "scalar_real.h"
#include "cpu_solve_impl.h"
#include "scalar_undef.h"

#include "scalar_complex.h"
#include "cpu_solve_impl.h"
#include "scalar_undef.h"

#include "scalar_float.h"
#include "cpu_solve_impl.h"
#include "scalar_undef.h"

#include "scalar_cfloat.h"
#include "cpu_solve_impl.h"
#include "scalar_undef.h"

/* Round a count of elements up to a whole 64-byte line. */
static size_t pscr_pad(size_t count, size_t elem)
{
  size_t per_line = 64 / elem;
  return (count + per_line - 1) / per_line * per_line;
}

/*
 * Whether the CPU applies dimension d's transform by the fast sine
 * transform: a transformed dimension where the plan allows it
 * (pscr_plan_sine_fast); in 3D with both dimensions transformed, both or
 * neither (transform_tt keeps the dense products' layout otherwise).
 */
int pscr_cpu_sine(const pscr_plan *p, int d)
{
  if (p->method[d] != PSCR_METHOD_TRANSFORM || !pscr_plan_sine_fast(p, d))
    return 0;
  if (p->ndim == 3 && p->method[0] == PSCR_METHOD_TRANSFORM &&
      p->method[1] == PSCR_METHOD_TRANSFORM)
    return pscr_plan_sine_fast(p, 0) && pscr_plan_sine_fast(p, 1);
  return 1;
}

static pscr_status pscr_cpu_setup(pscr_plan *p)
{
  pscr_cpu_ws *ws = calloc(1, sizeof *ws);
  if (!ws)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate the CPU workspace descriptor");
  p->backend_data = ws;
  const size_t P = (size_t)p->nthreads, es = p->elem;
  size_t total = 0, item_off[2] = {0, 0}, thr_off[2] = {0, 0};
  size_t tf_off[2] = {0, 0}, sine_reals = 0;
  for (int d = 0; d < p->ndim - 1; d++) {
    size_t S = pscr_plan_slab(p, d), owners = d == 0 ? 1 : P;
    if (p->method[d] == PSCR_METHOD_TRANSFORM) {
      /* Its coefficients (the sine transform works in place and needs
         none), and the thread scratch of the last dimension's interleaved
         Thomas solves (thr_buf). */
      ws->sine[d] = pscr_cpu_sine(p, d);
      if (ws->sine[d] && pscr_sine_scratch(p->n[d]) > sine_reals)
        sine_reals = pscr_sine_scratch(p->n[d]);
      ws->tf_stride[d] = ws->sine[d] ? 0 : pscr_pad((size_t)p->n[d] * S, es);
      tf_off[d] = total;
      total += owners * ws->tf_stride[d];
      ws->thr_stride[d] = pscr_pad((size_t)PSCR_LANES * S, es);
      thr_off[d] = total;
      total += P * ws->thr_stride[d];
      continue;
    }
    ws->item_stride[d] =
        pscr_pad((size_t)p->lv[d].max_items * (size_t)pscr_item_sums(&p->lv[d]) * S, es);
    ws->thr_stride[d] = pscr_pad((PSCR_LANES + 4) * S, es);
    item_off[d] = total;
    total += owners * ws->item_stride[d];
    thr_off[d] = total;
    total += P * ws->thr_stride[d];
  }
  ws->thomas_stride = pscr_pad((size_t)PSCR_LANES * (size_t)p->n[p->ndim - 1], es);
  size_t thomas_off = total;
  total += P * ws->thomas_stride;
  /* The sine scratch in reals of the plan's precision, padded to elements. */
  const size_t real = p->single ? sizeof(float) : sizeof(double);
  ws->sine_stride = pscr_pad(sine_reals, real);
  const size_t sine_off = total;
  total += (P * ws->sine_stride * real + es - 1) / es;
  ws->mem = aligned_alloc(64, total * es);
  if (!ws->mem)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC,
                      "cannot allocate the CPU workspace (%zu bytes)", total * es);
  char *base = ws->mem;
  for (int d = 0; d < p->ndim - 1; d++) {
    ws->item_buf[d] = base + item_off[d] * es;
    ws->thr_buf[d] = base + thr_off[d] * es;
    ws->tf_buf[d] = base + tf_off[d] * es;
  }
  ws->thomas_buf = base + thomas_off * es;
  ws->sine_buf = base + sine_off * es;
  /* The vector passes once per level of dimension 1, forward and back; a
     transform of dimension 1 passes it about three times (two products and
     the subproblems). */
  const double passes =
      p->method[0] == PSCR_METHOD_TRANSFORM ? 3.0 : 2.0 * p->lv[0].k - 1.0;
  pscr_team_choice_init(&ws->team, (double)p->total * passes, p->nthreads,
                        (p->opts.flags & PSCR_FLAG_CPU_FIXED_TEAM) != 0);
  p->host_bytes += total * es;
  return PSCR_SUCCESS;
}

static pscr_status pscr_cpu_solve(pscr_plan *p, const void *f, void *u)
{
  pscr_cpu_ws *ws = p->backend_data;
  const int which = pscr_team_choice_pick(&ws->team), nt = ws->team.size[which];
  const double t0 = omp_get_wtime();
  pscr_status st;
  switch (p->dtype) {
  case PSCR_R64: st = cpu_solve_d(p, f, u, nt); break;
  case PSCR_C64: st = cpu_solve_z(p, f, u, nt); break;
  case PSCR_R32: st = cpu_solve_s(p, f, u, nt); break;
  case PSCR_C32: st = cpu_solve_c(p, f, u, nt); break;
  default: return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "unknown dtype %d", (int)p->dtype);
  }
  pscr_team_choice_record(&ws->team, which, omp_get_wtime() - t0);
  return st;
}

/* MEASURE's timing (backend.h): the team a solve would take now, that of
   the work capped by the idle cores (as pscr_team_choice tries it), on
   the fixed probe values. */
static pscr_status pscr_cpu_time_solves(pscr_plan *p, int max, double *seconds, int *done,
                                        int (*more)(void *ctx, const double *seconds, int done),
                                        void *ctx)
{
  pscr_cpu_ws *ws = p->backend_data;
  *done = 0;
  int nt = ws->team.work_size;
  const int idle = ws->team.fixed ? -1 : pscr_team_idle_cores();
  if (idle >= 0 && nt > idle + 1)
    nt = idle + 1;
  void *f = malloc(p->total * p->elem), *u = malloc(p->total * p->elem);
  pscr_status st = PSCR_SUCCESS;
  if (!f || !u) {
    st = PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate two vectors of %zu bytes to time",
                    p->total * p->elem);
    goto out;
  }
  pscr_plan_probe_values(p, f);
  while (*done < max) {
    const double t0 = omp_get_wtime();
    switch (p->dtype) {
    case PSCR_R64: st = cpu_solve_d(p, f, u, nt); break;
    case PSCR_C64: st = cpu_solve_z(p, f, u, nt); break;
    case PSCR_R32: st = cpu_solve_s(p, f, u, nt); break;
    default: st = cpu_solve_c(p, f, u, nt); break;
    }
    seconds[(*done)++] = omp_get_wtime() - t0;
    /* A probe that meets a singular pivot still times the solve. */
    if (st && st != PSCR_ERROR_SINGULAR)
      break;
    st = PSCR_SUCCESS;
    if (!more(ctx, seconds, *done))
      break;
  }
out:
  free(f);
  free(u);
  return st;
}

/*
 * A batch is a loop of single solves: each already spreads over the plan's
 * threads, and every u_r is then bitwise that of pscr_solve. A singular
 * right-hand side (its u_r is NaN) does not stop the others; the first one
 * is reported.
 */
static pscr_status pscr_cpu_solve_batch(pscr_plan *p, int nrhs, const void *f, size_t ldf,
                                        void *u, size_t ldu)
{
  pscr_status first = PSCR_SUCCESS;
  int nbad = 0, first_bad = 0;
  char detail[400] = "";
  for (int r = 0; r < nrhs; r++) {
    pscr_status st = pscr_cpu_solve(p, (const char *)f + (size_t)r * ldf * p->elem,
                                    (char *)u + (size_t)r * ldu * p->elem);
    if (st == PSCR_SUCCESS)
      continue;
    if (nbad++ == 0) {
      first = st;
      first_bad = r;
      snprintf(detail, sizeof detail, "%s", pscr_last_error());
    }
  }
  if (first == PSCR_SUCCESS)
    return PSCR_SUCCESS;
  /* The first failure's cause leads; which right-hand side, and how many
     failed, follow as context. */
  return PSCR_ERROR(first, "%s (right-hand side %d; %d of %d right-hand sides failed)", detail,
                    first_bad, nbad, nrhs);
}

static void pscr_cpu_destroy(pscr_plan *p)
{
  pscr_cpu_ws *ws = p->backend_data;
  if (!ws)
    return;
  free(ws->mem);
  free(ws);
  p->backend_data = NULL;
}

/* Plain Thomas per subproblem: pscr_info's level-3 fields say so. */
static void pscr_cpu_info(const pscr_plan *p, pscr_info *info)
{
  info->level3_rows_per_thread = 0;
  info->level3_threads_per_system = 1;
  for (int d = 0; d < p->ndim - 1; d++)
    info->transform_sine[d] = pscr_cpu_sine(p, d);
}

/* BLAS takes int sizes: a transformed dimension's slab must fit one. */
static int pscr_cpu_accepts(const pscr_plan *p, char *why, size_t len)
{
  for (int d = 0; d < p->ndim - 1; d++)
    if (p->method[d] == PSCR_METHOD_TRANSFORM && pscr_plan_slab(p, d) > (size_t)INT_MAX) {
      snprintf(why, len,
               "the transform of dimension %d multiplies n%d x %zu matrices, past BLAS's int "
               "sizes (%d)",
               d + 1, d + 1, pscr_plan_slab(p, d), INT_MAX);
      return 0;
    }
  /* 3D transform x transform multiplies E2 by an n2 x (n1 n3) matrix
     (cpu_solve_impl.h, transform_tt). */
  const size_t t = (size_t)p->n[0] * (size_t)p->n[2];
  if (p->ndim == 3 && p->method[0] == PSCR_METHOD_TRANSFORM &&
      p->method[1] == PSCR_METHOD_TRANSFORM && t > (size_t)INT_MAX) {
    snprintf(why, len,
             "the transform of dimension 2 multiplies n2 x %zu matrices (n1 n3), past BLAS's int "
             "sizes (%d)",
             t, INT_MAX);
    return 0;
  }
  return 1;
}

static pscr_status pscr_cpu_copy(const pscr_plan *p, void *dst, const void *src, size_t bytes,
                                  void *stream)
{
  (void)p;
  (void)stream;
  memmove(dst, src, bytes);
  return PSCR_SUCCESS;
}

const pscr_backend_ops pscr_cpu_backend = {
    .name = "cpu",
    .accepts = pscr_cpu_accepts,
    .setup = pscr_cpu_setup,
    .solve = pscr_cpu_solve,
    .solve_device = NULL,
    .solve_batch = pscr_cpu_solve_batch,
    .solve_device_batch = NULL,
    .solve_profile = NULL,
    .time_solves = pscr_cpu_time_solves,
    .refine_setup = NULL,
    .solve_device_refined = NULL,
    .copy = pscr_cpu_copy,
    .cost_rules = pscr_cpu_cost_rules,
    .info = pscr_cpu_info,
    .destroy = pscr_cpu_destroy,
};

#include "test_util.h"

#include <lapacke.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void tu_rng_seed(tu_rng *rng, uint64_t seed) { rng->state = seed * 0x9E3779B97F4A7C15ull + 1; }

static uint64_t tu_next(tu_rng *rng)
{
  uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double tu_uniform(tu_rng *rng) { return (double)(tu_next(rng) >> 11) * 0x1.0p-53; }

double tu_symm(tu_rng *rng) { return 2.0 * tu_uniform(rng) - 1.0; }

int tu_close(double a, double b, double rtol, double atol)
{
  if (isnan(a) || isnan(b))
    return 0;
  if (a == b)
    return 1;
  double scale = fmax(fabs(a), fabs(b));
  return fabs(a - b) <= rtol * scale + atol;
}

size_t tu_dtype_size(pscr_dtype dtype)
{
  switch (dtype) {
  case PSCR_R64: return sizeof(double);
  case PSCR_C64: return 2 * sizeof(double);
  case PSCR_R32: return sizeof(float);
  case PSCR_C32: return 2 * sizeof(float);
  }
  return 0;
}

static double tu_abs_at(pscr_dtype dtype, const void *x, size_t i)
{
  switch (dtype) {
  case PSCR_R64: return fabs(((const double *)x)[i]);
  case PSCR_C64: return cabs(((const double complex *)x)[i]);
  case PSCR_R32: return fabs((double)((const float *)x)[i]);
  case PSCR_C32: {
    const float *p = (const float *)x + 2 * i;
    return hypot(p[0], p[1]);
  }
  }
  return NAN;
}

double tu_norm_inf(pscr_dtype dtype, size_t n, const void *x)
{
  double m = 0.0;
  for (size_t i = 0; i < n; i++) {
    double a = tu_abs_at(dtype, x, i);
    if (isnan(a))
      return NAN;
    if (a > m)
      m = a;
  }
  return m;
}

double tu_diff_inf(pscr_dtype dtype, size_t n, const void *x, const void *y)
{
  double m = 0.0;
  for (size_t i = 0; i < n; i++) {
    double d;
    if (dtype == PSCR_R64)
      d = fabs(((const double *)x)[i] - ((const double *)y)[i]);
    else if (dtype == PSCR_C64)
      d = cabs(((const double complex *)x)[i] - ((const double complex *)y)[i]);
    else if (dtype == PSCR_R32)
      d = fabs((double)((const float *)x)[i] - (double)((const float *)y)[i]);
    else {
      const float *a = (const float *)x + 2 * i, *b = (const float *)y + 2 * i;
      d = hypot((double)a[0] - b[0], (double)a[1] - b[1]);
    }
    if (isnan(d))
      return NAN;
    if (d > m)
      m = d;
  }
  return m;
}

size_t tu_size(int ndim, const pscr_pencil *pencils)
{
  size_t n = 1;
  for (int d = 0; d < ndim; d++)
    n *= (size_t)pencils[d].n;
  return n;
}

double *tu_widen(const void *x, size_t count)
{
  if (!x)
    return NULL;
  double *d = malloc((count ? count : 1) * sizeof *d);
  if (d)
    for (size_t i = 0; i < count; i++)
      d[i] = ((const float *)x)[i];
  return d;
}

/* Single precision: the data widened to double and the double formula, so
   the residual itself carries no float rounding (an independent reference
   one precision above the solve). */
static double tu_backward_error_single(pscr_dtype dtype, int ndim, const pscr_pencil *pencils,
                                       const void *shift, const void *u, const void *f)
{
  const size_t w = dtype == PSCR_C32 ? 2 : 1, n = tu_size(ndim, pencils);
  pscr_pencil wide[3];
  double *arrays[3][4] = {{NULL}}, *sh = tu_widen(shift, w), *uw = tu_widen(u, n * w),
         *fw = tu_widen(f, n * w);
  double result = NAN;
  int ok = sh && uw && fw;
  for (int d = 0; d < ndim; d++) {
    const pscr_pencil *q = &pencils[d];
    const void *src[4] = {q->a_diag, q->a_off, q->m_diag, q->m_off};
    for (int a = 0; a < 4; a++) {
      arrays[d][a] = tu_widen(src[a], (size_t)((a & 1) ? q->n - 1 : q->n) * w);
      ok &= !src[a] || arrays[d][a];
    }
    wide[d] = (pscr_pencil){q->n, arrays[d][0], arrays[d][1], arrays[d][2], arrays[d][3]};
  }
  if (ok)
    result = tu_backward_error(dtype == PSCR_C32 ? PSCR_C64 : PSCR_R64, ndim, wide, sh, uw, fw);
  for (int d = 0; d < ndim; d++)
    for (int a = 0; a < 4; a++)
      free(arrays[d][a]);
  free(sh);
  free(uw);
  free(fw);
  return result;
}

double tu_backward_error(pscr_dtype dtype, int ndim, const pscr_pencil *pencils,
                         const void *shift, const void *u, const void *f)
{
  if (dtype == PSCR_R32 || dtype == PSCR_C32)
    return tu_backward_error_single(dtype, ndim, pencils, shift, u, f);
  size_t n = tu_size(ndim, pencils), es = tu_dtype_size(dtype);
  void *au = malloc(n * es);
  double norm_a = NAN, result = NAN;
  if (!au)
    return NAN;
  if (pscr_operator_apply(dtype, ndim, pencils, shift, u, au) != PSCR_SUCCESS ||
      pscr_operator_norm_inf(dtype, ndim, pencils, shift, &norm_a) != PSCR_SUCCESS)
    goto out;
  {
    double r = tu_diff_inf(dtype, n, au, f);
    double denom = norm_a * tu_norm_inf(dtype, n, u) + tu_norm_inf(dtype, n, f);
    result = denom > 0 ? r / denom : r;
  }
out:
  free(au);
  return result;
}

/* Dense tridiagonal entry (i, j) of A or M of pencil p, as double complex. */
static double complex tu_tri(pscr_dtype dtype, const void *diag, const void *off, int i, int j)
{
  int lo = i < j ? i : j;
  if (i == j)
    return dtype == PSCR_R64 ? ((const double *)diag)[i] : ((const double complex *)diag)[i];
  if (abs(i - j) != 1 || !off)
    return 0;
  return dtype == PSCR_R64 ? ((const double *)off)[lo] : ((const double complex *)off)[lo];
}

int tu_dense_solve(pscr_dtype dtype, int ndim, const pscr_pencil *p, const void *shift,
                   const void *f, void *u, double *rcond)
{
  if (dtype != PSCR_R64 && dtype != PSCR_C64)
    return -1001;
  int nn[3] = {1, 1, 1};
  for (int d = 0; d < ndim; d++)
    nn[d + (3 - ndim)] = p[d].n;
  /* Normalize to three dimensions with a leading 1x1 identity pencil pair. */
  size_t N = tu_size(ndim, p);
  double complex c = dtype == PSCR_R64 ? *(const double *)shift : *(const double complex *)shift;
  double complex *A = calloc(N * N, sizeof *A);
  int *ipiv = malloc(N * sizeof *ipiv);
  int info = -1000;
  if (!A || !ipiv)
    goto out;
  for (size_t row = 0; row < N; row++) {
    int ri[3] = {(int)(row / ((size_t)nn[1] * nn[2])), (int)((row / nn[2]) % nn[1]),
                 (int)(row % nn[2])};
    for (int d0 = -1; d0 <= 1; d0++)
      for (int d1 = -1; d1 <= 1; d1++)
        for (int d2 = -1; d2 <= 1; d2++) {
          int ci[3] = {ri[0] + d0, ri[1] + d1, ri[2] + d2};
          int ok = 1;
          for (int k = 0; k < 3; k++)
            ok &= ci[k] >= 0 && ci[k] < nn[k];
          if (!ok)
            continue;
          double complex a[3], m[3];
          for (int k = 0; k < 3; k++) {
            int d = k - (3 - ndim);
            if (d < 0) { /* padding dimension: A = 0, M = 1 */
              a[k] = 0;
              m[k] = 1;
              continue;
            }
            a[k] = tu_tri(dtype, p[d].a_diag, p[d].a_off, ri[k], ci[k]);
            m[k] = tu_tri(dtype, p[d].m_diag, p[d].m_off, ri[k], ci[k]);
          }
          double complex v = a[0] * m[1] * m[2] + m[0] * a[1] * m[2] + m[0] * m[1] * a[2] +
                             c * m[0] * m[1] * m[2];
          size_t col = ((size_t)ci[0] * nn[1] + ci[1]) * nn[2] + ci[2];
          A[col * N + row] = v;
        }
  }
  /* ||A||_1 before the factorization overwrites A, for the condition estimate. */
  double anorm1 = 0.0;
  for (size_t col = 0; col < N; col++) {
    double sum = 0.0;
    for (size_t row = 0; row < N; row++)
      sum += cabs(A[col * N + row]);
    anorm1 = fmax(anorm1, sum);
  }
  double rc = 0.0;
  if (dtype == PSCR_R64) {
    double *Ar = malloc(N * N * sizeof *Ar);
    if (!Ar)
      goto out;
    for (size_t i = 0; i < N * N; i++)
      Ar[i] = creal(A[i]);
    memcpy(u, f, N * sizeof(double));
    info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, (lapack_int)N, (lapack_int)N, Ar, (lapack_int)N, ipiv);
    if (info == 0)
      info = LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', (lapack_int)N, 1, Ar, (lapack_int)N, ipiv,
                            (double *)u, (lapack_int)N);
    if (info == 0 && rcond)
      info = LAPACKE_dgecon(LAPACK_COL_MAJOR, '1', (lapack_int)N, Ar, (lapack_int)N, anorm1, &rc);
    free(Ar);
  } else {
    lapack_complex_double *Az = (lapack_complex_double *)A, *uz = u;
    memcpy(u, f, N * sizeof(double complex));
    info = LAPACKE_zgetrf(LAPACK_COL_MAJOR, (lapack_int)N, (lapack_int)N, Az, (lapack_int)N, ipiv);
    if (info == 0)
      info = LAPACKE_zgetrs(LAPACK_COL_MAJOR, 'N', (lapack_int)N, 1, Az, (lapack_int)N, ipiv, uz,
                            (lapack_int)N);
    if (info == 0 && rcond)
      info = LAPACKE_zgecon(LAPACK_COL_MAJOR, '1', (lapack_int)N, Az, (lapack_int)N, anorm1, &rc);
  }
  if (rcond)
    *rcond = rc;
out:
  free(A);
  free(ipiv);
  return info;
}

int tu_pencil_eigenvalues(pscr_dtype dtype, const pscr_pencil *p, double *lambda)
{
  if (dtype != PSCR_R64 && dtype != PSCR_C64)
    return -1001;
  size_t n = (size_t)p->n;
  double *A = calloc(2 * n * n, sizeof *A), *M = A + n * n;
  int info = -1000;
  if (!A)
    return info;
  for (size_t i = 0; i < n; i++)
    for (size_t j = i > 0 ? i - 1 : 0; j <= i + 1 && j < n; j++) {
      double complex a = tu_tri(dtype, p->a_diag, p->a_off, (int)i, (int)j);
      double complex m = tu_tri(dtype, p->m_diag, p->m_off, (int)i, (int)j);
      if (cimag(a) != 0 || cimag(m) != 0) {
        info = -1002;
        goto out;
      }
      A[j * n + i] = creal(a);
      M[j * n + i] = creal(m);
    }
  info = LAPACKE_dsygv(LAPACK_COL_MAJOR, 1, 'N', 'U', (lapack_int)n, A, (lapack_int)n, M,
                       (lapack_int)n, lambda);
out:
  free(A);
  return info;
}

const pscr_options *tu_cpu_options(void)
{
  static _Thread_local pscr_options o;
  pscr_options_init(&o);
  o.planner = PSCR_PLANNER_NONE;
  o.backend = PSCR_BACKEND_CPU;
  return &o;
}

int tu_run_suite(Suite *suite)
{
  SRunner *sr = srunner_create(suite);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr), ran = srunner_ntests_run(sr);
  srunner_free(sr);
  /* A case or suite selected by name (CK_RUN_CASE, CK_RUN_SUITE: ctest
   * runs test_eigen case by case) that no longer exists runs nothing, and
   * Check calls that a pass. */
  if (ran == 0) {
    const char *c = getenv("CK_RUN_CASE"), *su = getenv("CK_RUN_SUITE");
    fprintf(stderr, "no test ran (CK_RUN_CASE=%s, CK_RUN_SUITE=%s)\n", c ? c : "(unset)",
            su ? su : "(unset)");
    return 1;
  }
  return failed == 0 ? 0 : 1;
}

void tu_check_h2_rate(const double *logh, const double *logerr, int count)
{
  double mx = 0, my = 0, sxx = 0, sxy = 0;
  for (int r = 0; r < count; r++) {
    mx += logh[r] / count;
    my += logerr[r] / count;
  }
  for (int r = 0; r < count; r++) {
    sxx += (logh[r] - mx) * (logh[r] - mx);
    sxy += (logh[r] - mx) * (logerr[r] - my);
  }
  const double rate = sxy / sxx;
  printf("  fitted rate %.3f\n", rate);
  ck_assert_msg(rate >= 1.85 && rate <= 2.3, "convergence rate %.3f not O(h^2)", rate);
}

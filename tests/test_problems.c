/*
 * Problem builders (problems/): the factors of eqs. 31 and 33-35 against
 * hand-derived entries, their algebraic properties on random meshes, the
 * meshes, the problem object (layout, load vectors, sampling), O(h^2)
 * convergence of manufactured solutions through a dense LAPACKE solve, and
 * every error path.
 *
 * Tolerances: TOL_EPS = 16 eps relative for entries computed by a handful of
 * operations; sums over n terms use n-scaled multiples stated at the check.
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pscr.h"
#include "test_util.h"
/* The tools' own check (cli_verify), tested here: its verdicts are the
   benchmarks' and pscr-solve's. */
#include "../examples/cli_common.h"

#define TOL_EPS (16 * DBL_EPSILON)
#define PI 3.14159265358979323846264338327950288
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Relative comparison of a complex entry stored as interleaved (re, im). */
static void check_c(const double *got, double re, double im, double rtol, double atol,
                    const char *what, int i)
{
  ck_assert_msg(tu_close(got[0], re, rtol, atol) && tu_close(got[1], im, rtol, atol),
                "%s[%d] = %.17g%+.17gi, expected %.17g%+.17gi", what, i, got[0], got[1], re,
                im);
}

static void check_r(double got, double want, double rtol, double atol, const char *what, int i)
{
  ck_assert_msg(tu_close(got, want, rtol, atol), "%s[%d] = %.17g, expected %.17g", what, i, got,
                want);
}

/* ========================================================================= */
/* Hand-derived factors                                                      */

START_TEST(test_poisson_uniform_n2)
{
  /*
   * Steps h = (1/3, 1/3, 1/3), nodes at 1/3 and 2/3 (eq. 31):
   *   A = [[1/h + 1/h, -1/h], [-1/h, 1/h + 1/h]] = [[6, -3], [-3, 6]],
   *   M = diag((h + h)/2) = diag(1/3, 1/3), off-diagonal of M zero.
   */
  double h[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3};
  double ad[2], ao[1], md[2], mo[1] = {42.0};
  ck_assert_int_eq(pscr_poisson_factors(2, h, ad, ao, md, mo), PSCR_SUCCESS);
  check_r(ad[0], 6.0, TOL_EPS, 0, "a_diag", 0);
  check_r(ad[1], 6.0, TOL_EPS, 0, "a_diag", 1);
  check_r(ao[0], -3.0, TOL_EPS, 0, "a_off", 0);
  check_r(md[0], 1.0 / 3, TOL_EPS, 0, "m_diag", 0);
  check_r(md[1], 1.0 / 3, TOL_EPS, 0, "m_diag", 1);
  ck_assert(mo[0] == 0.0);
  /* m_off may be NULL (M is diagonal). */
  ck_assert_int_eq(pscr_poisson_factors(2, h, ad, ao, md, NULL), PSCR_SUCCESS);
}
END_TEST

START_TEST(test_poisson_nonuniform_n2)
{
  /*
   * Steps h = (0.1, 0.2, 0.7), nodes at 0.1 and 0.3:
   *   a_diag[0] = 1/0.1 + 1/0.2 = 10 + 5 = 15
   *   a_diag[1] = 1/0.2 + 1/0.7 = 5 + 10/7 = 45/7
   *   a_off[0]  = -1/0.2 = -5
   *   m_diag[0] = (0.1 + 0.2)/2 = 0.15
   *   m_diag[1] = (0.2 + 0.7)/2 = 0.45
   */
  double h[3] = {0.1, 0.2, 0.7};
  double ad[2], ao[1], md[2];
  ck_assert_int_eq(pscr_poisson_factors(2, h, ad, ao, md, NULL), PSCR_SUCCESS);
  check_r(ad[0], 15.0, TOL_EPS, 0, "a_diag", 0);
  check_r(ad[1], 45.0 / 7.0, TOL_EPS, 0, "a_diag", 1);
  check_r(ao[0], -5.0, TOL_EPS, 0, "a_off", 0);
  check_r(md[0], 0.15, TOL_EPS, 0, "m_diag", 0);
  check_r(md[1], 0.45, TOL_EPS, 0, "m_diag", 1);
}
END_TEST

START_TEST(test_poisson_n1)
{
  /* One unknown between steps 0.25 and 0.5: A = 1/0.25 + 1/0.5 = 6, M = 0.375; a_off unused. */
  double h[2] = {0.25, 0.5}, ad, md;
  ck_assert_int_eq(pscr_poisson_factors(1, h, &ad, NULL, &md, NULL), PSCR_SUCCESS);
  check_r(ad, 6.0, TOL_EPS, 0, "a_diag", 0);
  check_r(md, 0.375, TOL_EPS, 0, "m_diag", 0);
}
END_TEST

START_TEST(test_helmholtz_n3)
{
  /*
   * n = 3 nodes at 0, 0.5, 0.75, steps h = (0.5, 0.25), omega = 2 (eq. 35):
   *   b_1 = 1/h_1 - i w/2           = 2 - i
   *   b_2 = (h_1 + h_2)/(h_1 h_2)   = 0.75/0.125 = 6
   *   b_3 = 1/h_2 - i w/2           = 4 - i
   *   a_1 = -1/h_1 = -2,  a_2 = -1/h_2 = -4
   *   d_1 = h_1/3 + i/(2w)          = 1/6 + i/4
   *   d_2 = (h_1 + h_2)/3           = 1/4
   *   d_3 = h_2/3 + i/(2w)          = 1/12 + i/4
   *   c_1 = h_1/6 = 1/12,  c_2 = h_2/6 = 1/24
   */
  double h[2] = {0.5, 0.25};
  double ad[6], ao[4], md[6], mo[4];
  ck_assert_int_eq(pscr_helmholtz_factors(3, h, 2.0, ad, ao, md, mo), PSCR_SUCCESS);
  check_c(ad + 0, 2.0, -1.0, TOL_EPS, 0, "a_diag", 0);
  check_c(ad + 2, 6.0, 0.0, TOL_EPS, 0, "a_diag", 1);
  check_c(ad + 4, 4.0, -1.0, TOL_EPS, 0, "a_diag", 2);
  check_c(ao + 0, -2.0, 0.0, TOL_EPS, 0, "a_off", 0);
  check_c(ao + 2, -4.0, 0.0, TOL_EPS, 0, "a_off", 1);
  check_c(md + 0, 1.0 / 6, 0.25, TOL_EPS, 0, "m_diag", 0);
  check_c(md + 2, 0.25, 0.0, TOL_EPS, 0, "m_diag", 1);
  check_c(md + 4, 1.0 / 12, 0.25, TOL_EPS, 0, "m_diag", 2);
  check_c(mo + 0, 1.0 / 12, 0.0, TOL_EPS, 0, "m_off", 0);
  check_c(mo + 2, 1.0 / 24, 0.0, TOL_EPS, 0, "m_off", 1);
}
END_TEST

START_TEST(test_helmholtz_n2)
{
  /* n = 2, h = (0.5), w = 4: both rows are boundary rows.
   *   b = 1/0.5 - 2i = 2 - 2i, a = -2, d = 0.5/3 + i/8, c = 0.5/6. */
  double h[1] = {0.5};
  double ad[4], ao[2], md[4], mo[2];
  ck_assert_int_eq(pscr_helmholtz_factors(2, h, 4.0, ad, ao, md, mo), PSCR_SUCCESS);
  for (int l = 0; l < 2; l++) {
    check_c(ad + 2 * l, 2.0, -2.0, TOL_EPS, 0, "a_diag", l);
    check_c(md + 2 * l, 0.5 / 3, 0.125, TOL_EPS, 0, "m_diag", l);
  }
  check_c(ao, -2.0, 0.0, TOL_EPS, 0, "a_off", 0);
  check_c(mo, 0.5 / 6, 0.0, TOL_EPS, 0, "m_off", 0);
}
END_TEST

/* ========================================================================= */
/* Properties on random meshes                                               */

static const int prop_sizes[] = {1, 2, 3, 7, 50, 333};

/* Random steps in [0.01, 1.01) * scale. */
static void random_steps(tu_rng *rng, int nsteps, double scale, double *h)
{
  for (int i = 0; i < nsteps; i++)
    h[i] = scale * (0.01 + tu_uniform(rng));
}

START_TEST(test_poisson_properties)
{
  /*
   * A * ones: interior rows sum to 0, the first to 1/h_0, the last to 1/h_n
   * (only the Dirichlet boundary couplings remain); sum of M = L - h_0/2 - h_n/2.
   * Tolerance: 8 n eps relative to the row's largest entry.
   */
  int n = prop_sizes[_i];
  tu_rng rng;
  double *h = malloc((n + 1) * sizeof *h), *ad = malloc(n * sizeof *ad);
  double *ao = malloc(n * sizeof *ao), *md = malloc(n * sizeof *md), *mo = malloc(n * sizeof *mo);
  ck_assert(h && ad && ao && md && mo);
  tu_rng_seed(&rng, 31 + n);
  random_steps(&rng, n + 1, 0.5, h);
  ck_assert_int_eq(pscr_poisson_factors(n, h, ad, ao, md, mo), PSCR_SUCCESS);

  double L = 0.0, msum = 0.0;
  for (int i = 0; i <= n; i++)
    L += h[i];
  for (int l = 0; l < n; l++) {
    double row = ad[l] + (l > 0 ? ao[l - 1] : 0.0) + (l < n - 1 ? ao[l] : 0.0);
    double want = (l == 0 ? 1.0 / h[0] : 0.0) + (l == n - 1 ? 1.0 / h[n] : 0.0);
    check_r(row, want, 8 * DBL_EPSILON, 8 * DBL_EPSILON * fabs(ad[l]), "row sum", l);
    ck_assert(md[l] > 0);
    msum += md[l];
  }
  for (int l = 0; l + 1 < n; l++)
    ck_assert(mo[l] == 0.0);
  check_r(msum, L - 0.5 * h[0] - 0.5 * h[n], 8.0 * (n + 1) * DBL_EPSILON, 0, "sum M", n);
  free(h);
  free(ad);
  free(ao);
  free(md);
  free(mo);
}
END_TEST

START_TEST(test_helmholtz_properties)
{
  /*
   * Re(A) * ones = 0 (stiffness rows sum to zero); Im(A) = -w/2 on the two
   * boundary rows only. ones^T Re(M) ones = L (consistent mass integrates 1);
   * Im(M) = 1/(2w) on the boundary rows only. Off-diagonals are real.
   */
  int n = prop_sizes[_i] + 1; /* >= 2 */
  double omega = 0.5 + _i;
  tu_rng rng;
  double *h = malloc(n * sizeof *h), *ad = malloc(2 * n * sizeof *ad);
  double *ao = malloc(2 * n * sizeof *ao), *md = malloc(2 * n * sizeof *md);
  double *mo = malloc(2 * n * sizeof *mo);
  ck_assert(h && ad && ao && md && mo);
  tu_rng_seed(&rng, 77 + n);
  random_steps(&rng, n - 1, 2.0, h);
  ck_assert_int_eq(pscr_helmholtz_factors(n, h, omega, ad, ao, md, mo), PSCR_SUCCESS);

  double L = 0.0, msum = 0.0;
  for (int i = 0; i < n - 1; i++)
    L += h[i];
  for (int l = 0; l < n; l++) {
    int end = l == 0 || l == n - 1;
    double row = ad[2 * l] + (l > 0 ? ao[2 * (l - 1)] : 0.0) + (l < n - 1 ? ao[2 * l] : 0.0);
    check_r(row, 0.0, 0, 8 * DBL_EPSILON * fabs(ad[2 * l]), "Re row sum", l);
    check_r(ad[2 * l + 1], end ? -0.5 * omega : 0.0, TOL_EPS, 0, "Im a_diag", l);
    check_r(md[2 * l + 1], end ? 0.5 / omega : 0.0, TOL_EPS, 0, "Im m_diag", l);
    /* row l of Re(M) times ones */
    msum += md[2 * l] + (l > 0 ? mo[2 * (l - 1)] : 0.0) + (l < n - 1 ? mo[2 * l] : 0.0);
  }
  for (int l = 0; l + 1 < n; l++) {
    ck_assert(ao[2 * l + 1] == 0.0);
    ck_assert(mo[2 * l + 1] == 0.0);
  }
  check_r(msum, L, 8.0 * n * DBL_EPSILON, 0, "ones^T Re(M) ones", n);
  free(h);
  free(ad);
  free(ao);
  free(md);
  free(mo);
}
END_TEST

/* ========================================================================= */
/* Meshes                                                                    */

static const struct mesh_case {
  int nsteps;
  double length, grading;
} mesh_cases[] = {
    {1, 1.0, 0.0}, {1, 2.5, 0.5}, {2, 1.0, 0.3}, {7, 3.0, 0.0},
    {64, 1.0, 0.5}, {1000, 0.1, 0.9}, {513, 7.0, 0.99},
};

START_TEST(test_mesh)
{
  /*
   * Positive steps, sum = length to 4 nsteps eps; nodes x_i = L phi(i/nsteps)
   * to 4 (i+1) eps L; mirror symmetric h[i] = h[nsteps-1-i] to 16 eps L / nsteps
   * relative to the steps; grading 0 in pscr_mesh_graded is pscr_mesh_uniform.
   */
  const struct mesh_case *mc = &mesh_cases[_i];
  int ns = mc->nsteps;
  double L = mc->length, g = mc->grading;
  double *h = malloc(ns * sizeof *h), *hu = malloc(ns * sizeof *hu);
  ck_assert(h && hu);
  ck_assert_int_eq(pscr_mesh_graded(ns, L, g, h), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_mesh_uniform(ns, L, hu), PSCR_SUCCESS);

  double x = 0.0, hmax = 0.0;
  for (int i = 0; i < ns; i++) {
    double t = (double)(i + 1) / ns;
    ck_assert_msg(h[i] > 0, "h[%d] = %g", i, h[i]);
    check_r(hu[i], L / ns, TOL_EPS, 0, "uniform h", i);
    x += h[i];
    check_r(x, L * (t - g * sin(2 * PI * t) / (2 * PI)), 4.0 * (i + 1) * DBL_EPSILON,
            4.0 * (i + 1) * DBL_EPSILON * L, "node", i + 1);
    hmax = fmax(hmax, h[i]);
  }
  check_r(x, L, 4.0 * ns * DBL_EPSILON, 0, "sum h", ns);
  for (int i = 0; i < ns; i++)
    check_r(h[i], h[ns - 1 - i], 0, 16 * DBL_EPSILON * L, "mirror h", i);
  if (g == 0.0)
    for (int i = 0; i < ns; i++)
      ck_assert(h[i] == hu[i]);
  else if (ns >= 4) /* phi'(t) = 1 - g cos(2 pi t): smallest steps at the ends */
    ck_assert(h[0] < h[ns / 2]);
  free(h);
  free(hu);
}
END_TEST

/* ========================================================================= */
/* The problem object                                                        */

static const struct problem_case {
  pscr_problem_kind kind;
  int ndim;
  int n[3];
  double length[3];
  double grading, omega;
} problem_cases[] = {
    {PSCR_PROBLEM_POISSON, 2, {1, 1, 1}, {1.0, 1.0, 1.0}, 0.0, 0.0},
    {PSCR_PROBLEM_POISSON, 2, {4, 7, 1}, {1.0, 2.0, 1.0}, 0.0, 0.0},
    {PSCR_PROBLEM_POISSON, 3, {3, 4, 5}, {0.5, 1.0, 3.0}, 0.4, 0.0},
    {PSCR_PROBLEM_HELMHOLTZ, 2, {2, 2, 1}, {1.0, 1.0, 1.0}, 0.0, 1.0},
    {PSCR_PROBLEM_HELMHOLTZ, 2, {6, 5, 1}, {2.0, 1.0, 1.0}, 0.6, 4.0},
    {PSCR_PROBLEM_HELMHOLTZ, 3, {4, 3, 5}, {1.0, 0.7, 1.3}, 0.0, 3.0},
    {PSCR_PROBLEM_HELMHOLTZ, 3, {5, 6, 4}, {1.0, 1.0, 1.0}, 0.3, 10.0},
};

static pscr_problem *make_problem(const struct problem_case *pc)
{
  pscr_problem *p = NULL;
  ck_assert_int_eq(
      pscr_problem_create(&p, pc->kind, pc->ndim, pc->n, pc->length, pc->grading, pc->omega),
      PSCR_SUCCESS);
  ck_assert_ptr_nonnull(p);
  return p;
}

static size_t problem_size(const pscr_problem *p)
{
  return tu_size(p->ndim, p->pencils);
}

START_TEST(test_problem_fields)
{
  /* Metadata, node coordinates (partial sums of the steps) and factors that
   * match the one-dimensional builders bit for bit. */
  const struct problem_case *pc = &problem_cases[_i];
  pscr_problem *p = make_problem(pc);
  int helm = pc->kind == PSCR_PROBLEM_HELMHOLTZ;

  ck_assert_int_eq(p->kind, pc->kind);
  ck_assert_int_eq(p->dtype, helm ? PSCR_C64 : PSCR_R64);
  ck_assert_int_eq(p->ndim, pc->ndim);
  if (pc->ndim == 2)
    ck_assert_int_eq(p->n[2], 1);
  ck_assert(p->shift[0] == (helm ? -pc->omega * pc->omega : 0.0));
  ck_assert(p->shift[1] == 0.0);
  for (int d = 0; d < pc->ndim; d++) {
    int n = pc->n[d], ns = helm ? n - 1 : n + 1, comps = helm ? 2 : 1;
    double L = pc->length[d], *ref = malloc(8 * (size_t)(n + 1) * sizeof *ref);
    double *rh = ref, *ad = rh + (n + 1), *ao = ad + 2 * n, *md = ao + 2 * n, *mo = md + 2 * n;
    ck_assert(ref);
    ck_assert_int_eq(p->n[d], n);
    ck_assert(p->length[d] == L);
    ck_assert_int_eq(p->pencils[d].n, n);
    ck_assert_int_eq(pscr_mesh_graded(ns, L, pc->grading, rh), PSCR_SUCCESS);
    ck_assert_mem_eq(p->h[d], rh, ns * sizeof *rh);

    double x = 0.0;
    if (helm)
      check_r(p->x[d][0], 0.0, 0, 0, "x", 0);
    for (int l = helm ? 1 : 0; l < n; l++) {
      x += p->h[d][helm ? l - 1 : l];
      check_r(p->x[d][l], x, 0, 0, "x", l);
    }
    if (helm)
      check_r(p->x[d][n - 1], L, 4.0 * n * DBL_EPSILON, 0, "last node", n - 1);

    if (helm) {
      ck_assert_int_eq(pscr_helmholtz_factors(n, rh, pc->omega, ad, ao, md, mo), PSCR_SUCCESS);
      ck_assert_mem_eq(p->pencils[d].m_off, mo, 2 * (n - 1) * sizeof *mo);
    } else {
      ck_assert_int_eq(pscr_poisson_factors(n, rh, ad, ao, md, NULL), PSCR_SUCCESS);
      ck_assert_ptr_null(p->pencils[d].m_off);
    }
    ck_assert_mem_eq(p->pencils[d].a_diag, ad, comps * n * sizeof *ad);
    ck_assert_mem_eq(p->pencils[d].m_diag, md, comps * n * sizeof *md);
    if (n > 1)
      ck_assert_mem_eq(p->pencils[d].a_off, ao, comps * (n - 1) * sizeof *ao);
    free(ref);
  }
  pscr_problem_destroy(p);
}
END_TEST

/* Unit lengths when length is NULL; Poisson ignores omega. */
START_TEST(test_problem_defaults)
{
  pscr_problem *p = NULL;
  int n[3] = {3, 2, 4};
  ck_assert_int_eq(pscr_problem_create(&p, PSCR_PROBLEM_POISSON, 3, n, NULL, 0.0, -1.0),
                   PSCR_SUCCESS);
  for (int d = 0; d < 3; d++) {
    ck_assert(p->length[d] == 1.0);
    check_r(p->x[d][n[d] - 1], 1.0 - 1.0 / (n[d] + 1), TOL_EPS, 0, "last x", d);
  }
  pscr_problem_destroy(p);
  pscr_problem_destroy(NULL);
}
END_TEST

/* Test fields. ctx points to the problem's ndim (int). */
static void g_one(const double *x, void *ctx, double *v)
{
  (void)x;
  (void)ctx;
  v[0] = 1.0;
}

static void g_one_c(const double *x, void *ctx, double *v)
{
  (void)x;
  (void)ctx;
  v[0] = 1.0;
  v[1] = 2.0;
}

/* Distinct, layout-revealing values: g = x1 + 10 x2 + 100 x3 (+ i (1 - x1 x2)). */
static void g_lin(const double *x, void *ctx, double *v)
{
  int ndim = *(const int *)ctx;
  v[0] = x[0] + 10 * x[1] + (ndim == 3 ? 100 * x[2] : 0.0);
}

static void g_lin_c(const double *x, void *ctx, double *v)
{
  g_lin(x, ctx, v);
  v[1] = 1.0 - x[0] * x[1];
}

START_TEST(test_problem_load_ones)
{
  /*
   * g = 1: Poisson, sum over the interior nodes of the lumped masses per
   * dimension is L_d - h_0/2 - h_n/2, so sum(b) = prod_d (L_d - h_{d,0}/2 - h_{d,n}/2).
   * Helmholtz, g = 1 + 2i: the consistent mass without ABC integrates 1
   * exactly, sum(b) = (1 + 2i) prod_d L_d. Tolerance 16 N eps relative.
   */
  const struct problem_case *pc = &problem_cases[_i];
  pscr_problem *p = make_problem(pc);
  int helm = pc->kind == PSCR_PROBLEM_HELMHOLTZ, comps = helm ? 2 : 1;
  size_t N = problem_size(p);
  double *b = malloc(N * comps * sizeof *b), want = 1.0, s[2] = {0.0, 0.0};
  ck_assert(b);
  ck_assert_int_eq(pscr_problem_load(p, helm ? g_one_c : g_one, NULL, b), PSCR_SUCCESS);
  for (int d = 0; d < pc->ndim; d++) {
    int n = pc->n[d];
    want *= helm ? pc->length[d] : pc->length[d] - 0.5 * p->h[d][0] - 0.5 * p->h[d][n];
  }
  for (size_t i = 0; i < N; i++)
    for (int c = 0; c < comps; c++)
      s[c] += b[i * comps + c];
  check_r(s[0], want, 16.0 * (double)N * DBL_EPSILON, 0, "sum Re b", 0);
  if (helm)
    check_r(s[1], 2 * want, 16.0 * (double)N * DBL_EPSILON, 0, "sum Im b", 0);
  free(b);
  pscr_problem_destroy(p);
}
END_TEST

/* Entry (i, j) of the 1D load mass of dimension d, rebuilt from the steps. */
static double load_mass_entry(const pscr_problem *p, int d, int i, int j)
{
  const double *h = p->h[d];
  int n = p->n[d];
  if (p->kind == PSCR_PROBLEM_POISSON) /* lumped: diag((h_i + h_{i+1})/2) */
    return i == j ? 0.5 * (h[i] + h[i + 1]) : 0.0;
  if (i == j) /* consistent, no ABC: (h_{i-1} + h_i)/3, ends h/3 */
    return ((i > 0 ? h[i - 1] : 0.0) + (i < n - 1 ? h[i] : 0.0)) / 3.0;
  if (abs(i - j) == 1)
    return h[i < j ? i : j] / 6.0;
  return 0.0;
}

START_TEST(test_problem_load_dense)
{
  /*
   * b against the Kronecker product applied entry by entry,
   * b_I = sum_J prod_d Mf_d(I_d, J_d) g(x_J), with Mf_d rebuilt from the
   * steps and g layout-revealing: checks the masses and the vector layout
   * (last dimension fastest). Also sample(): u_I = g(x_I). Tolerance 64 eps
   * relative to ||b||_inf.
   */
  const struct problem_case *pc = &problem_cases[_i];
  pscr_problem *p = make_problem(pc);
  int helm = pc->kind == PSCR_PROBLEM_HELMHOLTZ, comps = helm ? 2 : 1, ndim = pc->ndim;
  pscr_field_fn g = helm ? g_lin_c : g_lin;
  size_t N = problem_size(p);
  int nn[3] = {p->n[0], p->n[1], ndim == 3 ? p->n[2] : 1};
  double *b = malloc(N * comps * sizeof *b), *u = malloc(N * comps * sizeof *u);
  double *ref = calloc(N * comps, sizeof *ref);
  ck_assert(b && u && ref);
  ck_assert_int_eq(pscr_problem_load(p, g, &ndim, b), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_problem_sample(p, g, &ndim, u), PSCR_SUCCESS);

  for (size_t ia = 0; ia < N; ia++) {
    int ii[3] = {(int)(ia / ((size_t)nn[1] * nn[2])), (int)(ia / nn[2] % nn[1]),
                 (int)(ia % nn[2])};
    double x[3] = {0, 0, 0}, v[2] = {0, 0};
    for (int d = 0; d < ndim; d++)
      x[d] = p->x[d][ii[d]];
    g(x, &ndim, v);
    for (int c = 0; c < comps; c++)
      ck_assert_msg(u[ia * comps + c] == v[c], "sample[%zu] = %g, g = %g", ia, u[ia * comps + c],
                    v[c]);
    for (size_t ja = 0; ja < N; ja++) {
      int jj[3] = {(int)(ja / ((size_t)nn[1] * nn[2])), (int)(ja / nn[2] % nn[1]),
                   (int)(ja % nn[2])};
      double w = 1.0;
      for (int d = 0; d < ndim; d++)
        w *= load_mass_entry(p, d, ii[d], jj[d]);
      if (w == 0.0)
        continue;
      for (int d = 0; d < ndim; d++)
        x[d] = p->x[d][jj[d]];
      g(x, &ndim, v);
      for (int c = 0; c < comps; c++)
        ref[ia * comps + c] += w * v[c];
    }
  }
  double scale = tu_norm_inf(p->dtype, N, ref);
  ck_assert(scale > 0);
  double err = tu_diff_inf(p->dtype, N, b, ref);
  ck_assert_msg(err <= 64 * DBL_EPSILON * scale, "load error %g, scale %g", err, scale);
  free(b);
  free(u);
  free(ref);
  pscr_problem_destroy(p);
}
END_TEST

/* The test's own copies of the manufactured fields (independent of problem.c). */
static void man_exact(const double *x, void *ctx, double *v)
{
  const pscr_problem *p = ctx;
  double u = 1.0;
  for (int d = 0; d < p->ndim; d++) {
    double s = sin(PI * x[d] / p->length[d]);
    u *= p->kind == PSCR_PROBLEM_POISSON ? s : s * s;
  }
  v[0] = u;
  if (p->kind == PSCR_PROBLEM_HELMHOLTZ)
    v[1] = u;
}

/* f = -lap u - w^2 u by centred differences of man_exact (step 1e-4, error ~1e-7 rel). */
static void man_rhs_fd(const double *x, void *ctx, double *v)
{
  const pscr_problem *p = ctx;
  double u0[2], up[2], um[2], y[3] = {x[0], x[1], p->ndim == 3 ? x[2] : 0.0};
  man_exact(y, ctx, u0);
  v[0] = -(p->kind == PSCR_PROBLEM_HELMHOLTZ ? p->omega * p->omega : 0.0) * u0[0];
  for (int d = 0; d < p->ndim; d++) {
    double e = 1e-4 * p->length[d];
    y[d] = x[d] + e;
    man_exact(y, ctx, up);
    y[d] = x[d] - e;
    man_exact(y, ctx, um);
    y[d] = x[d];
    v[0] -= (up[0] - 2 * u0[0] + um[0]) / (e * e);
  }
  if (p->kind == PSCR_PROBLEM_HELMHOLTZ)
    v[1] = v[0];
}

START_TEST(test_manufactured_fields)
{
  /*
   * u_exact equals the test's own sampling of the exact solution (to 4 eps),
   * b equals the load of a finite-difference Laplacian of it (to 1e-6
   * relative: the FD truncation error), and either output may be NULL.
   */
  const struct problem_case *pc = &problem_cases[_i];
  pscr_problem *p = make_problem(pc);
  int comps = pc->kind == PSCR_PROBLEM_HELMHOLTZ ? 2 : 1;
  size_t N = problem_size(p);
  double *b = malloc(N * comps * sizeof *b), *u = malloc(N * comps * sizeof *u);
  double *rb = malloc(N * comps * sizeof *rb), *ru = malloc(N * comps * sizeof *ru);
  ck_assert(b && u && rb && ru);
  ck_assert_int_eq(pscr_problem_manufactured(p, b, u), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_problem_sample(p, man_exact, p, ru), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_problem_load(p, man_rhs_fd, p, rb), PSCR_SUCCESS);
  double su = tu_norm_inf(p->dtype, N, ru), sb = tu_norm_inf(p->dtype, N, rb);
  ck_assert_msg(tu_diff_inf(p->dtype, N, u, ru) <= 4 * DBL_EPSILON * su, "u_exact differs");
  ck_assert_msg(tu_diff_inf(p->dtype, N, b, rb) <= 1e-6 * sb + 1e-12, "b differs: %g vs %g",
                tu_diff_inf(p->dtype, N, b, rb), sb);
  memset(b, 0, N * comps * sizeof *b);
  ck_assert_int_eq(pscr_problem_manufactured(p, b, NULL), PSCR_SUCCESS);
  ck_assert(tu_diff_inf(p->dtype, N, b, rb) <= 1e-6 * sb + 1e-12);
  ck_assert_int_eq(pscr_problem_manufactured(p, NULL, u), PSCR_SUCCESS);
  ck_assert(tu_diff_inf(p->dtype, N, u, ru) <= 4 * DBL_EPSILON * su);
  ck_assert_int_eq(pscr_problem_manufactured(p, NULL, NULL), PSCR_SUCCESS);
  free(b);
  free(u);
  free(rb);
  free(ru);
  pscr_problem_destroy(p);
}
END_TEST

/* ========================================================================= */
/* O(h^2) convergence of the manufactured solutions (dense LAPACKE solves)   */

#define CONV_LEVELS 4
#define RATE_MIN 1.8
#define RATE_MAX 2.3

static const struct conv_case {
  const char *name;
  pscr_problem_kind kind;
  int ndim;
  double grading, omega;
  int nsteps[CONV_LEVELS]; /* mesh steps per dimension at each refinement */
} conv_cases[] = {
    {"poisson 2D uniform", PSCR_PROBLEM_POISSON, 2, 0.0, 0.0, {5, 10, 20, 40}},
    {"poisson 2D graded 0.5", PSCR_PROBLEM_POISSON, 2, 0.5, 0.0, {5, 10, 20, 40}},
    {"helmholtz 2D w=4 uniform", PSCR_PROBLEM_HELMHOLTZ, 2, 0.0, 4.0, {6, 12, 24, 48}},
    {"helmholtz 2D w=4 graded 0.5", PSCR_PROBLEM_HELMHOLTZ, 2, 0.5, 4.0, {6, 12, 24, 48}},
    {"poisson 3D graded 0.3", PSCR_PROBLEM_POISSON, 3, 0.3, 0.0, {4, 6, 10, 16}},
    {"helmholtz 3D w=3 uniform", PSCR_PROBLEM_HELMHOLTZ, 3, 0.0, 3.0, {6, 8, 10, 12}},
};

/* Least-squares slope of log(err) against log(h). */
static double fit_rate(int m, const double *h, const double *err)
{
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < m; i++) {
    double lx = log(h[i]), ly = log(err[i]);
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
  }
  return (m * sxy - sx * sy) / (m * sxx - sx * sx);
}

START_TEST(test_convergence)
{
  /*
   * Max-norm nodal error of the dense solution of A u = b against u_exact on
   * CONV_LEVELS refinements (lengths 1 x 1.5 (x 0.8)); the least-squares rate
   * in log(err) vs log(1/nsteps) must lie in [RATE_MIN, RATE_MAX] = [1.8, 2.3].
   */
  const struct conv_case *cc = &conv_cases[_i];
  const double length[3] = {1.0, 1.5, 0.8};
  double hs[CONV_LEVELS], errs[CONV_LEVELS];

  for (int lev = 0; lev < CONV_LEVELS; lev++) {
    int ns = cc->nsteps[lev], n = cc->kind == PSCR_PROBLEM_POISSON ? ns - 1 : ns + 1;
    int nv[3] = {n, n, n};
    pscr_problem *p = NULL;
    ck_assert_int_eq(
        pscr_problem_create(&p, cc->kind, cc->ndim, nv, length, cc->grading, cc->omega),
        PSCR_SUCCESS);
    size_t N = problem_size(p), es = tu_dtype_size(p->dtype);
    void *b = malloc(N * es), *u = malloc(N * es), *ue = malloc(N * es);
    ck_assert(b && u && ue);
    ck_assert_int_eq(pscr_problem_manufactured(p, b, ue), PSCR_SUCCESS);
    ck_assert_int_eq(tu_dense_solve(p->dtype, p->ndim, p->pencils, p->shift, b, u, NULL), 0);
    hs[lev] = 1.0 / ns;
    errs[lev] = tu_diff_inf(p->dtype, N, u, ue) / tu_norm_inf(p->dtype, N, ue);
    free(b);
    free(u);
    free(ue);
    pscr_problem_destroy(p);
  }
  double rate = fit_rate(CONV_LEVELS, hs, errs);
  ck_assert_msg(rate >= RATE_MIN && rate <= RATE_MAX,
                "%s: rate %.3f not in [%.1f, %.1f]; errors %.3e %.3e %.3e %.3e", cc->name, rate,
                RATE_MIN, RATE_MAX, errs[0], errs[1], errs[2], errs[3]);
  if (getenv("PSCR_TEST_VERBOSE"))
    fprintf(stderr, "%-28s rate %.3f errors %.3e %.3e %.3e %.3e\n", cc->name, rate, errs[0],
            errs[1], errs[2], errs[3]);
}
END_TEST

/* ========================================================================= */
/* Error paths                                                               */

static void check_fails(pscr_status got, pscr_status want, const char *what)
{
  ck_assert_msg(got == want, "%s: got %s, want %s", what, pscr_status_string(got),
                pscr_status_string(want));
  ck_assert_msg(pscr_last_error()[0] != '\0', "%s: no detail message", what);
}

START_TEST(test_errors_factors)
{
  double h[4] = {0.25, 0.25, 0.25, 0.25}, a[8], b[8], c[8], d[8];
  double hz[3] = {0.5, 0.0, 0.5}, hneg[3] = {0.5, -0.1, 0.5};
  double hnan[3] = {0.5, NAN, 0.5}, hinf[3] = {INFINITY, 0.5, 0.5};

  check_fails(pscr_poisson_factors(0, h, a, b, c, d), PSCR_ERROR_INVALID_VALUE, "P n=0");
  check_fails(pscr_poisson_factors(-3, h, a, b, c, d), PSCR_ERROR_INVALID_VALUE, "P n<0");
  check_fails(pscr_poisson_factors(2, NULL, a, b, c, d), PSCR_ERROR_INVALID_VALUE, "P h");
  check_fails(pscr_poisson_factors(2, h, NULL, b, c, d), PSCR_ERROR_INVALID_VALUE, "P ad");
  check_fails(pscr_poisson_factors(2, h, a, NULL, c, d), PSCR_ERROR_INVALID_VALUE, "P ao");
  check_fails(pscr_poisson_factors(2, h, a, b, NULL, d), PSCR_ERROR_INVALID_VALUE, "P md");
  check_fails(pscr_poisson_factors(2, hz, a, b, c, d), PSCR_ERROR_INVALID_VALUE, "P h=0");
  check_fails(pscr_poisson_factors(2, hneg, a, b, c, d), PSCR_ERROR_INVALID_VALUE, "P h<0");
  check_fails(pscr_poisson_factors(2, hnan, a, b, c, d), PSCR_ERROR_NON_FINITE, "P h NaN");
  check_fails(pscr_poisson_factors(2, hinf, a, b, c, d), PSCR_ERROR_NON_FINITE, "P h Inf");

  check_fails(pscr_helmholtz_factors(1, h, 1.0, a, b, c, d), PSCR_ERROR_INVALID_VALUE, "H n=1");
  check_fails(pscr_helmholtz_factors(3, NULL, 1.0, a, b, c, d), PSCR_ERROR_INVALID_VALUE,
              "H h");
  check_fails(pscr_helmholtz_factors(3, h, 1.0, NULL, b, c, d), PSCR_ERROR_INVALID_VALUE,
              "H ad");
  check_fails(pscr_helmholtz_factors(3, h, 1.0, a, NULL, c, d), PSCR_ERROR_INVALID_VALUE,
              "H ao");
  check_fails(pscr_helmholtz_factors(3, h, 1.0, a, b, NULL, d), PSCR_ERROR_INVALID_VALUE,
              "H md");
  check_fails(pscr_helmholtz_factors(3, h, 1.0, a, b, c, NULL), PSCR_ERROR_INVALID_VALUE,
              "H mo");
  check_fails(pscr_helmholtz_factors(3, h, 0.0, a, b, c, d), PSCR_ERROR_INVALID_VALUE, "H w=0");
  check_fails(pscr_helmholtz_factors(3, h, -2.0, a, b, c, d), PSCR_ERROR_INVALID_VALUE,
              "H w<0");
  check_fails(pscr_helmholtz_factors(3, h, NAN, a, b, c, d), PSCR_ERROR_NON_FINITE, "H w NaN");
  check_fails(pscr_helmholtz_factors(3, h, INFINITY, a, b, c, d), PSCR_ERROR_NON_FINITE,
              "H w Inf");
  check_fails(pscr_helmholtz_factors(3, hz, 1.0, a, b, c, d), PSCR_ERROR_INVALID_VALUE,
              "H h=0");
  check_fails(pscr_helmholtz_factors(3, hnan, 1.0, a, b, c, d), PSCR_ERROR_NON_FINITE,
              "H h NaN");

  /* A success clears the detail message. */
  ck_assert_int_eq(pscr_poisson_factors(2, h, a, b, c, d), PSCR_SUCCESS);
  ck_assert_str_eq(pscr_last_error(), "");
}
END_TEST

START_TEST(test_errors_mesh)
{
  double h[4];
  check_fails(pscr_mesh_uniform(0, 1.0, h), PSCR_ERROR_INVALID_VALUE, "U nsteps=0");
  check_fails(pscr_mesh_uniform(4, 1.0, NULL), PSCR_ERROR_INVALID_VALUE, "U h");
  check_fails(pscr_mesh_uniform(4, 0.0, h), PSCR_ERROR_INVALID_VALUE, "U L=0");
  check_fails(pscr_mesh_uniform(4, -1.0, h), PSCR_ERROR_INVALID_VALUE, "U L<0");
  check_fails(pscr_mesh_uniform(4, NAN, h), PSCR_ERROR_INVALID_VALUE, "U L NaN");
  check_fails(pscr_mesh_uniform(4, INFINITY, h), PSCR_ERROR_INVALID_VALUE, "U L Inf");
  check_fails(pscr_mesh_graded(0, 1.0, 0.5, h), PSCR_ERROR_INVALID_VALUE, "G nsteps=0");
  check_fails(pscr_mesh_graded(4, 1.0, 0.5, NULL), PSCR_ERROR_INVALID_VALUE, "G h");
  check_fails(pscr_mesh_graded(4, 0.0, 0.5, h), PSCR_ERROR_INVALID_VALUE, "G L=0");
  check_fails(pscr_mesh_graded(4, NAN, 0.5, h), PSCR_ERROR_INVALID_VALUE, "G L NaN");
  check_fails(pscr_mesh_graded(4, 1.0, -0.1, h), PSCR_ERROR_INVALID_VALUE, "G g<0");
  check_fails(pscr_mesh_graded(4, 1.0, 1.0, h), PSCR_ERROR_INVALID_VALUE, "G g=1");
  check_fails(pscr_mesh_graded(4, 1.0, 2.0, h), PSCR_ERROR_INVALID_VALUE, "G g>1");
  check_fails(pscr_mesh_graded(4, 1.0, NAN, h), PSCR_ERROR_INVALID_VALUE, "G g NaN");
}
END_TEST

START_TEST(test_errors_problem)
{
  pscr_problem *p = (pscr_problem *)&p; /* poison: must come back NULL */
  int n[3] = {3, 3, 3}, n0[3] = {3, 0, 3}, n1[3] = {3, 1, 3};
  double len[3] = {1, 1, 1}, len0[3] = {1, 0, 1}, lnan[3] = {1, 1, NAN};

  check_fails(pscr_problem_create(NULL, PSCR_PROBLEM_POISSON, 2, n, NULL, 0, 0),
              PSCR_ERROR_INVALID_VALUE, "problem NULL");
  check_fails(pscr_problem_create(&p, (pscr_problem_kind)7, 2, n, NULL, 0, 1),
              PSCR_ERROR_INVALID_VALUE, "kind");
  ck_assert_ptr_null(p);
  check_fails(pscr_problem_create(&p, PSCR_PROBLEM_POISSON, 1, n, NULL, 0, 0),
              PSCR_ERROR_INVALID_VALUE, "ndim 1");
  check_fails(pscr_problem_create(&p, PSCR_PROBLEM_POISSON, 4, n, NULL, 0, 0),
              PSCR_ERROR_INVALID_VALUE, "ndim 4");
  check_fails(pscr_problem_create(&p, PSCR_PROBLEM_POISSON, 2, NULL, NULL, 0, 0),
              PSCR_ERROR_INVALID_VALUE, "n NULL");
  check_fails(pscr_problem_create(&p, PSCR_PROBLEM_POISSON, 2, n0, NULL, 0, 0),
              PSCR_ERROR_INVALID_VALUE, "n = 0");
  check_fails(pscr_problem_create(&p, PSCR_PROBLEM_HELMHOLTZ, 2, n1, NULL, 0, 1),
              PSCR_ERROR_INVALID_VALUE, "Helmholtz n = 1");
  check_fails(pscr_problem_create(&p, PSCR_PROBLEM_POISSON, 2, n, len0, 0, 0),
              PSCR_ERROR_INVALID_VALUE, "length 0");
  check_fails(pscr_problem_create(&p, PSCR_PROBLEM_POISSON, 3, n, lnan, 0, 0),
              PSCR_ERROR_INVALID_VALUE, "length NaN");
  check_fails(pscr_problem_create(&p, PSCR_PROBLEM_POISSON, 2, n, len, -0.5, 0),
              PSCR_ERROR_INVALID_VALUE, "grading < 0");
  check_fails(pscr_problem_create(&p, PSCR_PROBLEM_POISSON, 2, n, len, 1.0, 0),
              PSCR_ERROR_INVALID_VALUE, "grading 1");
  check_fails(pscr_problem_create(&p, PSCR_PROBLEM_POISSON, 2, n, len, NAN, 0),
              PSCR_ERROR_INVALID_VALUE, "grading NaN");
  check_fails(pscr_problem_create(&p, PSCR_PROBLEM_HELMHOLTZ, 2, n, len, 0, 0.0),
              PSCR_ERROR_INVALID_VALUE, "omega 0");
  check_fails(pscr_problem_create(&p, PSCR_PROBLEM_HELMHOLTZ, 2, n, len, 0, -1.0),
              PSCR_ERROR_INVALID_VALUE, "omega < 0");
  check_fails(pscr_problem_create(&p, PSCR_PROBLEM_HELMHOLTZ, 2, n, len, 0, NAN),
              PSCR_ERROR_INVALID_VALUE, "omega NaN");
  check_fails(pscr_problem_create(&p, PSCR_PROBLEM_HELMHOLTZ, 2, n, len, 0, INFINITY),
              PSCR_ERROR_INVALID_VALUE, "omega Inf");
  ck_assert_ptr_null(p);

  /* load / sample / manufactured */
  double buf[64];
  int ndim = 2;
  pscr_problem bad;
  memset(&bad, 0, sizeof bad);
  ck_assert_int_eq(pscr_problem_create(&p, PSCR_PROBLEM_POISSON, 2, n, NULL, 0, 0),
                   PSCR_SUCCESS);
  check_fails(pscr_problem_load(NULL, g_one, NULL, buf), PSCR_ERROR_INVALID_VALUE, "load p");
  check_fails(pscr_problem_load(p, NULL, NULL, buf), PSCR_ERROR_INVALID_VALUE, "load g");
  check_fails(pscr_problem_load(p, g_one, NULL, NULL), PSCR_ERROR_INVALID_VALUE, "load b");
  check_fails(pscr_problem_load(&bad, g_one, NULL, buf), PSCR_ERROR_INVALID_VALUE, "load bad");
  check_fails(pscr_problem_sample(NULL, g_lin, &ndim, buf), PSCR_ERROR_INVALID_VALUE,
              "sample p");
  check_fails(pscr_problem_sample(p, NULL, &ndim, buf), PSCR_ERROR_INVALID_VALUE, "sample g");
  check_fails(pscr_problem_sample(p, g_lin, &ndim, NULL), PSCR_ERROR_INVALID_VALUE,
              "sample u");
  check_fails(pscr_problem_sample(&bad, g_lin, &ndim, buf), PSCR_ERROR_INVALID_VALUE,
              "sample bad");
  check_fails(pscr_problem_manufactured(NULL, buf, buf + 32), PSCR_ERROR_INVALID_VALUE,
              "manufactured p");
  check_fails(pscr_problem_manufactured(&bad, buf, buf + 32), PSCR_ERROR_INVALID_VALUE,
              "manufactured bad");
  ck_assert_int_eq(pscr_problem_manufactured(p, buf, buf + 32), PSCR_SUCCESS);
  pscr_problem_destroy(p);
}
END_TEST

/* cli_verify, the check of pscr-solve, pscr-roofline and pscr-precision: a
   solution with a NaN must not read as a small backward error (fmax drops
   NaN, and a max-norm built on it once gave a solution of NaNs the backward
   error 0). A zero solution has backward error ||f|| / ||f|| = 1. */
START_TEST(test_verify_nan)
{
  pscr_problem *p = NULL;
  const int n[3] = {7, 5, 1};
  ck_assert_int_eq(pscr_problem_create(&p, PSCR_PROBLEM_POISSON, 2, n, NULL, 0.0, 0.0),
                   PSCR_SUCCESS);
  const size_t N = 35;
  double b[35], u[35], au[35], berr = 0;
  for (size_t i = 0; i < N; i++)
    b[i] = 1.0 + (double)i;
  memset(u, 0, sizeof u);
  cli_verify(p, b, u, NULL, au, &berr, NULL);
  ck_assert_double_eq_tol(berr, 1.0, 1e-15);
  ck_assert(isnan(cli_max_diff(0, N, b, NULL)) == 0);
  u[17] = NAN;
  ck_assert(isnan(cli_max_diff(0, N, u, NULL)));
  ck_assert(isnan(cli_max_diff(1, N / 2, u, b)));
  cli_verify(p, b, u, NULL, au, &berr, NULL);
  ck_assert_msg(isnan(berr), "a NaN in u gave backward error %g", berr);
  for (size_t i = 0; i < N; i++)
    u[i] = NAN;
  cli_verify(p, b, u, NULL, au, &berr, NULL);
  ck_assert_msg(isnan(berr), "u of NaNs gave backward error %g", berr);
  pscr_problem_destroy(p);
}
END_TEST

static Suite *problems_suite(void)
{
  Suite *s = suite_create("problems");
  TCase *tc;

  tc = tcase_create("factors");
  tcase_add_test(tc, test_poisson_uniform_n2);
  tcase_add_test(tc, test_poisson_nonuniform_n2);
  tcase_add_test(tc, test_poisson_n1);
  tcase_add_test(tc, test_helmholtz_n3);
  tcase_add_test(tc, test_helmholtz_n2);
  tcase_add_loop_test(tc, test_poisson_properties, 0, (int)ARRAY_SIZE(prop_sizes));
  tcase_add_loop_test(tc, test_helmholtz_properties, 0, (int)ARRAY_SIZE(prop_sizes));
  suite_add_tcase(s, tc);

  tc = tcase_create("mesh");
  tcase_add_loop_test(tc, test_mesh, 0, (int)ARRAY_SIZE(mesh_cases));
  suite_add_tcase(s, tc);

  tc = tcase_create("problem");
  tcase_add_loop_test(tc, test_problem_fields, 0, (int)ARRAY_SIZE(problem_cases));
  tcase_add_test(tc, test_problem_defaults);
  tcase_add_loop_test(tc, test_problem_load_ones, 0, (int)ARRAY_SIZE(problem_cases));
  tcase_add_loop_test(tc, test_problem_load_dense, 0, (int)ARRAY_SIZE(problem_cases));
  tcase_add_loop_test(tc, test_manufactured_fields, 0, (int)ARRAY_SIZE(problem_cases));
  suite_add_tcase(s, tc);

  tc = tcase_create("convergence");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_convergence, 0, (int)ARRAY_SIZE(conv_cases));
  suite_add_tcase(s, tc);

  tc = tcase_create("errors");
  tcase_add_test(tc, test_errors_factors);
  tcase_add_test(tc, test_errors_mesh);
  tcase_add_test(tc, test_errors_problem);
  suite_add_tcase(s, tc);

  tc = tcase_create("verify");
  tcase_add_test(tc, test_verify_nan);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run_suite(problems_suite()); }

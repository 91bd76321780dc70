/*
 * Single precision (PSCR_R32, PSCR_C32) on the CPU backend: the plan is built
 * in double and the solve runs in float (plan.h). Checked here:
 *  - backward error, evaluated in double on the float data
 *    (tu_backward_error widens them), for every kind of test operator, 2D and
 *    3D, sizes covering 1..6 levels and every n1 mod 4;
 *  - agreement with the double-precision solve of the same (rounded) data:
 *    the two differ by at most about kappa times the sum of their backward
 *    errors;
 *  - O(h^2) discretization convergence on a manufactured solution, which
 *    float must not spoil at moderate sizes;
 *  - in place, batches bitwise equal to single solves, the statuses of bad
 *    input (NaN in f, a singular shift) and the operator in float.
 *
 * Bound: the double suites allow a normwise backward error of 1e-13, about
 * 450 units of roundoff (test_solve.c); the same 450 units of float roundoff
 * give BERR_SINGLE = 450 FLT_EPSILON = 5.4e-5, for real and complex data
 * alike (the double suites give complex data 100 times more; float does
 * not need it, see the measured values printed by each case).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_ops.h"

#define BERR_SINGLE (450.0 * FLT_EPSILON)

static pscr_plan *plan_for(const op *o)
{
  pscr_plan *plan = NULL;
  pscr_status st = pscr_plan_create(&plan, o->dtype, o->ndim, o->pencils, op_shift(o),
                                    tu_cpu_options());
  ck_assert_msg(st == PSCR_SUCCESS, "plan: %s (%s)", pscr_status_string(st), pscr_last_error());
  return plan;
}

/* tu_widen, asserted non-NULL. */
static double *widen(const void *x, size_t count)
{
  double *d = tu_widen(x, count);
  ck_assert_ptr_nonnull(d);
  return d;
}

/* The float solution u of the single-precision op o (kind k, sizes n, seed)
   against a dense LAPACKE solve in double of the same rounded data: two
   solutions with backward errors berr and <= N eps_d differ by at most about
   2 kappa (berr + N eps_d); 10 kappa covers the factor-5 slack of LAPACK's
   condition estimate (as in test_solve.c). */
static void check_dense(const op *o, kind k, const int *n, uint64_t seed, const void *f,
                        const void *u, double berr)
{
  const size_t N = tu_size(o->ndim, o->pencils), w = o->dtype == PSCR_C32 ? 2 : 1;
  op wide;
  make_op(&wide, k, o->ndim, n, seed);
  op_to_single(&wide);
  op_to_double(&wide); /* the same rounded numbers, as doubles */
  double *fw = widen(f, N * w), *uw = widen(u, N * w), *ref = malloc(N * w * sizeof *ref);
  ck_assert_ptr_nonnull(ref);
  double rcond = 0;
  ck_assert_int_eq(tu_dense_solve(wide.dtype, wide.ndim, wide.pencils, wide.shift, fw, ref, &rcond),
                   0);
  const double rel = tu_diff_inf(wide.dtype, N, uw, ref) / tu_norm_inf(wide.dtype, N, ref);
  const double kappa = 1.0 / rcond, bound = 10.0 * kappa * (berr + (double)N * DBL_EPSILON);
  ck_assert_msg(rel <= bound, "%s: differs from the dense double solve by %.3e > %.3e (kappa %.2e)",
                kind_name[k], rel, bound, kappa);
  free(fw);
  free(uw);
  free(ref);
  op_free(&wide);
}

/* Solve a random right-hand side in float; returns the backward error. */
static double check_single(kind k, int ndim, const int *n, uint64_t seed)
{
  op o;
  make_op(&o, k, ndim, n, seed);
  op_to_single(&o);
  const size_t N = tu_size(ndim, o.pencils), es = tu_dtype_size(o.dtype);
  pscr_plan *plan = plan_for(&o);
  pscr_info info;
  ck_assert_int_eq(pscr_plan_info(plan, &info), PSCR_SUCCESS);
  ck_assert_int_eq(info.dtype, o.dtype);
  void *f = random_vector(&o, seed + 1);
  void *u = malloc(N * es);
  ck_assert_ptr_nonnull(u);
  pscr_status st = pscr_solve(plan, f, u);
  ck_assert_msg(st == PSCR_SUCCESS, "solve: %s (%s)", pscr_status_string(st), pscr_last_error());
  const double berr = tu_backward_error(o.dtype, ndim, o.pencils, op_shift(&o), u, f);
  printf("%-15s %s %dD n=%4d %4d %4d  backward error %.2e (%.1f eps_f)\n", kind_name[k],
         o.dtype == PSCR_C32 ? "C32" : "R32", ndim, n[0], n[1], ndim == 3 ? n[2] : 1, berr,
         berr / FLT_EPSILON);
  ck_assert_msg(berr <= BERR_SINGLE, "%s %dD n=%d,%d,%d: backward error %.3e > %.2e",
                kind_name[k], ndim, n[0], n[1], ndim == 3 ? n[2] : 1, berr, BERR_SINGLE);
  if (N <= 1500)
    check_dense(&o, k, n, seed, f, u, berr);
  free(f);
  free(u);
  pscr_plan_destroy(plan);
  op_free(&o);
  return berr;
}

static const int sizes_2d[][2] = {
    {1, 1},   {2, 5},   {3, 4},    {5, 6},    {15, 9},   {16, 8},   {17, 11},  {64, 12},
    {65, 10}, {255, 4}, {257, 6},  {1000, 17}, {1023, 8}, {1025, 7}, {200, 150}, {511, 700},
    {4096, 16},
};
#define N_SIZES_2D ((int)(sizeof sizes_2d / sizeof sizes_2d[0]))

static const int sizes_3d[][3] = {
    {1, 1, 1}, {2, 3, 4}, {5, 6, 7}, {17, 3, 5}, {9, 10, 11}, {20, 65, 3}, {31, 31, 31}, {63, 64, 65},
};
#define N_SIZES_3D ((int)(sizeof sizes_3d / sizeof sizes_3d[0]))

static void run(kind k, int ndim, int i)
{
  int n[3];
  for (int d = 0; d < ndim; d++) {
    n[d] = ndim == 2 ? sizes_2d[i][d] : sizes_3d[i][d];
    if (k == HELMHOLTZ && n[d] < 2) /* ABC factors need two nodes per dimension */
      n[d] = 2;
  }
  check_single(k, ndim, n, 7000u + 100u * (uint64_t)ndim + (uint64_t)i);
}

START_TEST(single_2d_poisson) { run(POISSON, 2, _i); }
END_TEST
START_TEST(single_2d_helmholtz) { run(HELMHOLTZ, 2, _i); }
END_TEST
START_TEST(single_2d_random_spd) { run(RANDOM_SPD, 2, _i); }
END_TEST
START_TEST(single_2d_random_complex) { run(RANDOM_COMPLEX, 2, _i); }
END_TEST
START_TEST(single_3d_poisson) { run(POISSON, 3, _i); }
END_TEST
START_TEST(single_3d_helmholtz) { run(HELMHOLTZ, 3, _i); }
END_TEST
START_TEST(single_3d_random_spd) { run(RANDOM_SPD, 3, _i); }
END_TEST
START_TEST(single_3d_random_complex) { run(RANDOM_COMPLEX, 3, _i); }
END_TEST

/* In place and batches give bitwise the numbers of an out-of-place single
   solve (the same operations in the same order). */
START_TEST(single_in_place_and_batch)
{
  const int n[3] = {37, 21, 9};
  op o;
  make_op(&o, _i == 0 ? POISSON : RANDOM_COMPLEX, _i == 0 ? 2 : 3, n, 77);
  op_to_single(&o);
  const size_t N = tu_size(o.ndim, o.pencils), es = tu_dtype_size(o.dtype), ld = N + 3;
  pscr_plan *plan = plan_for(&o);
  void *f = random_vector(&o, 5), *u = malloc(N * es), *g = malloc(N * es);
  char *fb = calloc(3 * ld, es), *ub = calloc(3 * ld, es);
  ck_assert(u && g && fb && ub);
  memcpy(g, f, N * es);
  for (int r = 0; r < 3; r++)
    memcpy(fb + (size_t)r * ld * es, f, N * es);
  ck_assert_int_eq(pscr_solve(plan, f, u), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_solve(plan, g, g), PSCR_SUCCESS);
  ck_assert_int_eq(memcmp(u, g, N * es), 0);
  ck_assert_int_eq(pscr_solve_batch(plan, 3, fb, ld, ub, ld), PSCR_SUCCESS);
  for (int r = 0; r < 3; r++)
    ck_assert_int_eq(memcmp(ub + (size_t)r * ld * es, u, N * es), 0);
  free(f);
  free(u);
  free(g);
  free(fb);
  free(ub);
  pscr_plan_destroy(plan);
  op_free(&o);
}
END_TEST

/* Bad input in float: NaN/Inf in f or in a factor, a singular shift. */
START_TEST(single_bad_input)
{
  /* As test_solve.c's singular_shift: lambda = 2 exactly and c = -2 leave
     A2 = [[1, 1], [1, 1]], whose second pivot is exactly zero. */
  float a1 = 2.0f, m1 = 1.0f, c = -2.0f;
  float a2d[2] = {1.0f, 1.0f}, a2o[1] = {1.0f}, m2d[2] = {1.0f, 1.0f};
  pscr_pencil p[2] = {{1, &a1, NULL, &m1, NULL}, {2, a2d, a2o, m2d, NULL}};
  pscr_plan *plan;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R32, 2, p, &c, tu_cpu_options()), PSCR_SUCCESS);
  float f[2] = {1.0f, 2.0f}, u[2] = {5.0f, 5.0f};
  ck_assert_int_eq(pscr_solve(plan, f, u), PSCR_ERROR_SINGULAR);
  ck_assert(isnan(u[0]) && isnan(u[1]));
  ck_assert(f[0] == 1.0f && f[1] == 2.0f);
  f[1] = NAN;
  u[0] = 5.0f;
  ck_assert_int_eq(pscr_solve(plan, f, u), PSCR_ERROR_NON_FINITE);
  ck_assert_msg(strstr(pscr_last_error(), "f[1]"), "%s", pscr_last_error());
  ck_assert(u[0] == 5.0f); /* not written */
  pscr_plan_destroy(plan);

  a2d[1] = INFINITY;
  plan = (pscr_plan *)1;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R32, 2, p, &c, tu_cpu_options()),
                   PSCR_ERROR_NON_FINITE);
  ck_assert_ptr_null(plan);
  ck_assert_msg(strstr(pscr_last_error(), "a_diag[1]"), "%s", pscr_last_error());
  /* M1 indefinite: reported from the float data as from double data. */
  a2d[1] = 1.0f;
  m1 = -1.0f;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R32, 2, p, &c, tu_cpu_options()),
                   PSCR_ERROR_NOT_DEFINITE);
}
END_TEST

/* pscr_operator_apply in float against the double operator on the same
   (widened) numbers: a float stencil sum of at most 3^3 terms per entry
   errs by a few eps_f ||A|| ||u||. */
START_TEST(single_operator)
{
  const int n[3] = {19, 12, 7};
  op o, wide;
  make_op(&o, _i == 0 ? POISSON : HELMHOLTZ, 3, n, 31);
  make_op(&wide, _i == 0 ? POISSON : HELMHOLTZ, 3, n, 31);
  op_to_single(&o);
  op_to_single(&wide);
  op_to_double(&wide);
  const size_t N = tu_size(3, o.pencils), w = o.dtype == PSCR_C32 ? 2 : 1;
  void *u = random_vector(&o, 9), *au = malloc(N * tu_dtype_size(o.dtype));
  double *uw = widen(u, N * w), *ref = malloc(N * w * sizeof *ref);
  ck_assert(au && ref);
  ck_assert_int_eq(pscr_operator_apply(o.dtype, 3, o.pencils, op_shift(&o), u, au), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_operator_apply(wide.dtype, 3, wide.pencils, wide.shift, uw, ref),
                   PSCR_SUCCESS);
  double *aw = widen(au, N * w), na = 0, na32 = 0;
  ck_assert_int_eq(pscr_operator_norm_inf(wide.dtype, 3, wide.pencils, wide.shift, &na),
                   PSCR_SUCCESS);
  ck_assert_int_eq(pscr_operator_norm_inf(o.dtype, 3, o.pencils, op_shift(&o), &na32),
                   PSCR_SUCCESS);
  ck_assert_msg(fabs(na32 - na) <= 64 * FLT_EPSILON * na, "norms %.9e vs %.9e", na32, na);
  const double err = tu_diff_inf(wide.dtype, N, aw, ref) / (na * tu_norm_inf(wide.dtype, N, uw));
  printf("operator %s: float vs double %.2e (%.1f eps_f)\n", o.dtype == PSCR_C32 ? "C32" : "R32",
         err, err / FLT_EPSILON);
  ck_assert_msg(err <= 64 * FLT_EPSILON, "float operator error %.3e", err);
  free(u);
  free(au);
  free(uw);
  free(aw);
  free(ref);
  op_free(&o);
  op_free(&wide);
}
END_TEST

/* An op owning a copy of a model problem's factors (R64 / C64). */
static void op_from_problem(const pscr_problem *pb, op *o)
{
  memset(o, 0, sizeof *o);
  o->dtype = pb->dtype;
  o->ndim = pb->ndim;
  const int w = pb->dtype == PSCR_C64 ? 2 : 1;
  for (int d = 0; d < pb->ndim; d++) {
    const pscr_pencil *q = &pb->pencils[d];
    double *st = calloc((size_t)(4 * q->n + 4) * w, sizeof *st);
    ck_assert_ptr_nonnull(st);
    const double *src[4] = {q->a_diag, q->a_off, q->m_diag, q->m_off};
    for (int a = 0; a < 4; a++)
      if (src[a])
        memcpy(st + (size_t)a * q->n * w, src[a],
               (size_t)((a & 1) ? q->n - 1 : q->n) * w * sizeof *st);
    o->store[d] = st;
    o->pencils[d] = (pscr_pencil){q->n, st, st + (size_t)q->n * w, st + (size_t)2 * q->n * w,
                                  q->m_off ? st + (size_t)3 * q->n * w : NULL};
  }
  o->shift[0] = pb->shift[0];
  o->shift[1] = pb->shift[1];
}

/* Single precision is as stable as double: on smooth data (a manufactured
   load vector), where the backward error grows with n in both precisions,
   the float solve's backward error in units of eps_f stays within 10x the
   double solve's in units of eps_d (and 10 eps_f when double is below one
   unit), both solving the same float-rounded numbers. Measured here and on
   the H100 (pscr-precision): float stays below double in units. */
START_TEST(single_as_stable_as_double)
{
  static const struct { pscr_problem_kind kind; int n; } cases[] = {
      {PSCR_PROBLEM_POISSON, 511}, {PSCR_PROBLEM_HELMHOLTZ, 256}, {PSCR_PROBLEM_POISSON, 63}};
  const int ndim = _i == 2 ? 3 : 2, sizes[3] = {cases[_i].n, cases[_i].n, cases[_i].n};
  pscr_problem *pb;
  ck_assert_int_eq(pscr_problem_create(&pb, cases[_i].kind, ndim, sizes, NULL, 0.0,
                                       0.5 * (cases[_i].n - 1)),
                   PSCR_SUCCESS);
  op s, d;
  op_from_problem(pb, &s);
  op_to_single(&s);
  op_from_problem(pb, &d);
  op_to_single(&d);
  op_to_double(&d); /* the same rounded numbers */
  const size_t N = tu_size(ndim, pb->pencils), w = pb->dtype == PSCR_C64 ? 2 : 1;
  double *b = malloc(N * w * sizeof *b), *u64 = malloc(N * w * sizeof *u64);
  ck_assert(b && u64);
  ck_assert_int_eq(pscr_problem_manufactured(pb, b, NULL), PSCR_SUCCESS);
  void *b32 = op_vector(&s, b), *u32 = malloc(N * w * sizeof(float));
  double *b64 = widen(b32, N * w);
  pscr_plan *ps = plan_for(&s), *pd = plan_for(&d);
  ck_assert_int_eq(pscr_solve(ps, b32, u32), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_solve(pd, b64, u64), PSCR_SUCCESS);
  const double e32 = tu_backward_error(s.dtype, ndim, s.pencils, op_shift(&s), u32, b32);
  const double e64 = tu_backward_error(d.dtype, ndim, d.pencils, d.shift, u64, b64);
  const double units32 = e32 / FLT_EPSILON, units64 = e64 / DBL_EPSILON;
  printf("%s %dD n=%d: backward error float %.2e (%.0f eps_f), double %.2e (%.0f eps_d)\n",
         cases[_i].kind == PSCR_PROBLEM_POISSON ? "poisson" : "helmholtz", ndim, cases[_i].n, e32,
         units32, e64, units64);
  ck_assert_msg(units32 <= 10.0 * fmax(units64, 1.0), "float %.0f eps_f against double %.0f eps_d",
                units32, units64);
  pscr_plan_destroy(ps);
  pscr_plan_destroy(pd);
  pscr_problem_destroy(pb);
  op_free(&s);
  op_free(&d);
  free(b);
  free(u64);
  free(b32);
  free(u32);
  free(b64);
}
END_TEST

/* O(h^2) convergence on the manufactured solutions of the problem builders,
   with the factors, load and solve in float, at sizes where the
   discretization error dominates the rounding error. In 2D Poisson (graded
   mesh) the two meet near n = 255: measured relative errors 2.4e-5 at
   n = 127 and 3.1e-5 at n = 255, where double gives 6e-6; the README states
   this floor. */
static void single_convergence(pscr_problem_kind kind, int ndim, const int *sizes, int count)
{
  double logh[8], logerr[8];
  for (int r = 0; r < count; r++) {
    const int n[3] = {sizes[r], sizes[r] + (kind == PSCR_PROBLEM_HELMHOLTZ ? 0 : 1), sizes[r]};
    pscr_problem *pb;
    ck_assert_int_eq(pscr_problem_create(&pb, kind, ndim, n, NULL, 0.5, 6.0), PSCR_SUCCESS);
    op o;
    op_from_problem(pb, &o);
    op_to_single(&o);
    const size_t N = tu_size(ndim, pb->pencils), es = tu_dtype_size(pb->dtype);
    void *b = malloc(N * es), *ue = malloc(N * es);
    ck_assert(b && ue);
    ck_assert_int_eq(pscr_problem_manufactured(pb, b, ue), PSCR_SUCCESS);
    void *b32 = op_vector(&o, b), *ue32 = op_vector(&o, ue), *u = malloc(N * es / 2);
    pscr_plan *plan = plan_for(&o);
    ck_assert_int_eq(pscr_solve(plan, b32, u), PSCR_SUCCESS);
    double hmax = 0;
    for (int d = 0; d < ndim; d++) {
      const int steps = kind == PSCR_PROBLEM_POISSON ? n[d] + 1 : n[d] - 1;
      for (int i = 0; i < steps; i++)
        hmax = fmax(hmax, pb->h[d][i]);
    }
    const double err = tu_diff_inf(o.dtype, N, u, ue32) / tu_norm_inf(o.dtype, N, ue32);
    printf("single convergence %s %dD n=%d h=%.3e error %.3e\n",
           kind == PSCR_PROBLEM_POISSON ? "poisson" : "helmholtz", ndim, n[0], hmax, err);
    logh[r] = log(hmax);
    logerr[r] = log(err);
    pscr_plan_destroy(plan);
    pscr_problem_destroy(pb);
    op_free(&o);
    free(b);
    free(ue);
    free(b32);
    free(ue32);
    free(u);
  }
  tu_check_h2_rate(logh, logerr, count);
}

START_TEST(single_convergence_2d)
{
  static const int s[] = {15, 31, 63, 127};
  single_convergence(_i == 0 ? PSCR_PROBLEM_POISSON : PSCR_PROBLEM_HELMHOLTZ, 2, s, 4);
}
END_TEST

START_TEST(single_convergence_3d)
{
  static const int s[] = {8, 16, 32, 64};
  single_convergence(_i == 0 ? PSCR_PROBLEM_POISSON : PSCR_PROBLEM_HELMHOLTZ, 3, s, 4);
}
END_TEST

static Suite *single_suite(void)
{
  Suite *s = suite_create("single");
  TCase *tc = tcase_create("2d");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, single_2d_poisson, 0, N_SIZES_2D);
  tcase_add_loop_test(tc, single_2d_helmholtz, 0, N_SIZES_2D);
  tcase_add_loop_test(tc, single_2d_random_spd, 0, N_SIZES_2D);
  tcase_add_loop_test(tc, single_2d_random_complex, 0, N_SIZES_2D);
  suite_add_tcase(s, tc);
  tc = tcase_create("3d");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, single_3d_poisson, 0, N_SIZES_3D);
  tcase_add_loop_test(tc, single_3d_helmholtz, 0, N_SIZES_3D);
  tcase_add_loop_test(tc, single_3d_random_spd, 0, N_SIZES_3D);
  tcase_add_loop_test(tc, single_3d_random_complex, 0, N_SIZES_3D);
  suite_add_tcase(s, tc);
  tc = tcase_create("properties");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, single_in_place_and_batch, 0, 2);
  tcase_add_test(tc, single_bad_input);
  tcase_add_loop_test(tc, single_operator, 0, 2);
  tcase_add_loop_test(tc, single_as_stable_as_double, 0, 3);
  suite_add_tcase(s, tc);
  tc = tcase_create("convergence");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, single_convergence_2d, 0, 2);
  tcase_add_loop_test(tc, single_convergence_3d, 0, 2);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run_suite(single_suite()); }

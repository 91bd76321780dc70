/*
 * The method of each reduced dimension (pscr_options.method): every method
 * vector (2D: reduction or transform of dimension 1; 3D: the four
 * combinations for dimensions 1 and 2) on the CPU backend meets the
 * backward-error bounds of the reduction (test_solve: 1e-13 real, 1e-11
 * complex; test_single: 450 eps_f in float) on pencils of every kind
 * (uniform and graded FE Poisson, Helmholtz with absorbing boundaries,
 * random SPD and random complex symmetric), repeats bitwise, solves in
 * place as out of place, and reports itself in pscr_plan_info; bad method
 * values are refused with a message naming the field; the ESTIMATE
 * planner's choices where its margins are wide.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_ops.h"

#define BERR_REAL 1e-13
#define BERR_COMPLEX 1e-11
#define BERR_SINGLE (450.0 * FLT_EPSILON)

static const char *method_name(pscr_method m)
{
  return m == PSCR_METHOD_TRANSFORM ? "T" : m == PSCR_METHOD_REDUCTION ? "R" : "A";
}

/* Plan o with methods m0, m1 on the CPU, solve a random right-hand side
   out of place and in place, twice; check the bound, the repeat and the
   plan's report. Returns the backward error. */
static double check_methods_on(op *o, const char *what, pscr_method m0, pscr_method m1,
                               pscr_backend backend)
{
  const int ndim = o->ndim;
  const size_t N = tu_size(ndim, o->pencils), es = tu_dtype_size(o->dtype);
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = backend;
  opts.method[0] = m0;
  opts.method[1] = ndim == 3 ? m1 : PSCR_METHOD_AUTO;
  pscr_plan *plan = NULL;
  pscr_status st = pscr_plan_create(&plan, o->dtype, ndim, o->pencils, op_shift(o), &opts);
  ck_assert_msg(st == PSCR_SUCCESS, "%s %s%s: plan: %s (%s)", what, method_name(m0),
                method_name(m1), pscr_status_string(st), pscr_last_error());
  pscr_info info;
  ck_assert_int_eq(pscr_plan_info(plan, &info), PSCR_SUCCESS);
  size_t eig = 0;
  for (int d = 0; d < ndim - 1; d++) {
    const pscr_method want = d == 0 ? m0 : m1;
    ck_assert_int_eq(info.method[d], want);
    if (want == PSCR_METHOD_TRANSFORM) {
      ck_assert_int_eq(info.levels[d], 0);
      eig += (size_t)o->pencils[d].n;
    } else {
      ck_assert_int_gt(info.levels[d], 0);
    }
  }
  ck_assert_uint_ge(info.eigenpairs, eig);
  ck_assert(info.cost_total.flops > 0 && info.cost_total.bytes > 0);
  if (ndim == 2)
    ck_assert_int_eq(info.method[1], PSCR_METHOD_AUTO);

  void *f = random_vector(o, 77), *u = malloc(N * es), *u2 = malloc(N * es);
  ck_assert(f && u && u2);
  st = pscr_solve(plan, f, u);
  ck_assert_msg(st == PSCR_SUCCESS, "%s: solve: %s (%s)", what, pscr_status_string(st),
                pscr_last_error());
  const double berr = tu_backward_error(o->dtype, ndim, o->pencils, op_shift(o), u, f);
  const double bound = op_single(o)               ? BERR_SINGLE
                       : o->dtype == PSCR_C64 ? BERR_COMPLEX
                                                  : BERR_REAL;
  printf("%-22s %dD n=%4d %4d %4d  methods %s%s %s backward error %.2e\n", what, ndim,
         o->pencils[0].n, o->pencils[1].n, ndim == 3 ? o->pencils[2].n : 1, method_name(m0),
         ndim == 3 ? method_name(m1) : "", backend == PSCR_BACKEND_CUDA ? "cuda" : "cpu ", berr);
  ck_assert_msg(berr <= bound, "%s %s%s: backward error %.3e > %.1e", what, method_name(m0),
                method_name(m1), berr, bound);
  /* Again, and in place: bitwise the same. */
  ck_assert_int_eq(pscr_solve(plan, f, u2), PSCR_SUCCESS);
  ck_assert_msg(memcmp(u, u2, N * es) == 0, "%s: a second solve differs", what);
  memcpy(u2, f, N * es);
  ck_assert_int_eq(pscr_solve(plan, u2, u2), PSCR_SUCCESS);
  ck_assert_msg(memcmp(u, u2, N * es) == 0, "%s: the in-place solve differs", what);
  /* A batch of two: each bitwise the single solve. */
  void *f2 = malloc(2 * N * es), *ub = malloc(2 * N * es);
  ck_assert(f2 && ub);
  memcpy(f2, f, N * es);
  memcpy((char *)f2 + N * es, f, N * es);
  ck_assert_int_eq(pscr_solve_batch(plan, 2, f2, N, ub, N), PSCR_SUCCESS);
  ck_assert_msg(memcmp(u, ub, N * es) == 0 && memcmp(u, (char *)ub + N * es, N * es) == 0,
                "%s: a batch differs from the single solve", what);
  free(f2);
  free(ub);
  free(f);
  free(u);
  free(u2);
  pscr_plan_destroy(plan);
  return berr;
}

static double check_methods(op *o, const char *what, pscr_method m0, pscr_method m1)
{
  return check_methods_on(o, what, m0, m1, PSCR_BACKEND_CPU);
}

static const pscr_method vectors[4][2] = {
    {PSCR_METHOD_TRANSFORM, PSCR_METHOD_REDUCTION},
    {PSCR_METHOD_REDUCTION, PSCR_METHOD_TRANSFORM},
    {PSCR_METHOD_TRANSFORM, PSCR_METHOD_TRANSFORM},
    {PSCR_METHOD_REDUCTION, PSCR_METHOD_REDUCTION},
};

static const int sizes_2d[][2] = {{1, 1}, {2, 5}, {5, 6}, {17, 11}, {64, 12}, {70, 70}, {200, 150}};
static const int sizes_3d[][3] = {{1, 1, 1}, {2, 3, 4}, {5, 6, 7}, {17, 3, 5}, {16, 9, 10},
                                  {31, 31, 31}};

/* Each kind of make_op (random pencils) at each size, both 2D vectors
   (transform, and the reduction beside it). */
START_TEST(methods_2d)
{
  const kind k = (kind)_i;
  for (size_t s = 0; s < sizeof sizes_2d / sizeof *sizes_2d; s++) {
    int n[2] = {sizes_2d[s][0], sizes_2d[s][1]};
    if (k == HELMHOLTZ) /* ABC factors need two nodes per dimension */
      n[0] = n[0] < 2 ? 2 : n[0], n[1] = n[1] < 2 ? 2 : n[1];
    op o;
    make_op(&o, k, 2, n, 500u + s);
    check_methods(&o, kind_name[k], PSCR_METHOD_TRANSFORM, PSCR_METHOD_AUTO);
    check_methods(&o, kind_name[k], PSCR_METHOD_REDUCTION, PSCR_METHOD_AUTO);
    op_free(&o);
  }
}
END_TEST

START_TEST(methods_3d)
{
  const kind k = (kind)_i;
  for (size_t s = 0; s < sizeof sizes_3d / sizeof *sizes_3d; s++) {
    int n[3] = {sizes_3d[s][0], sizes_3d[s][1], sizes_3d[s][2]};
    if (k == HELMHOLTZ)
      for (int d = 0; d < 3; d++)
        n[d] = n[d] < 2 ? 2 : n[d];
    op o;
    make_op(&o, k, 3, n, 700u + s);
    for (int v = 0; v < 4; v++)
      check_methods(&o, kind_name[k], vectors[v][0], vectors[v][1]);
    op_free(&o);
  }
}
END_TEST

/* The model problems: uniform and graded Poisson, Helmholtz with the
   absorbing boundary condition (omega 20), 2D and 3D. */
START_TEST(methods_model)
{
  static const struct {
    pscr_problem_kind k;
    int ndim, n[3];
    double grading;
  } cases[] = {
      {PSCR_PROBLEM_POISSON, 2, {127, 100, 1}, 0.0},  {PSCR_PROBLEM_POISSON, 2, {90, 130, 1}, 0.6},
      {PSCR_PROBLEM_HELMHOLTZ, 2, {120, 64, 1}, 0.0}, {PSCR_PROBLEM_POISSON, 3, {24, 20, 18}, 0.0},
      {PSCR_PROBLEM_POISSON, 3, {21, 25, 19}, 0.6},   {PSCR_PROBLEM_HELMHOLTZ, 3, {20, 22, 18}, 0.0},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    op o;
    make_op_model(&o, cases[c].k, cases[c].ndim, cases[c].n, cases[c].grading);
    const char *what = cases[c].k == PSCR_PROBLEM_POISSON
                           ? (cases[c].grading > 0 ? "poisson graded" : "poisson")
                           : "helmholtz abc";
    if (cases[c].ndim == 2) {
      check_methods(&o, what, PSCR_METHOD_TRANSFORM, PSCR_METHOD_AUTO);
      check_methods(&o, what, PSCR_METHOD_REDUCTION, PSCR_METHOD_AUTO);
    } else {
      for (int v = 0; v < 4; v++)
        check_methods(&o, what, vectors[v][0], vectors[v][1]);
    }
    op_free(&o);
  }
}
END_TEST

/* Float plans (built in double, applied in float), real and complex. */
START_TEST(methods_single)
{
  static const int n2[2] = {100, 80}, n3[3] = {20, 18, 16};
  static const kind kinds[2] = {RANDOM_SPD, HELMHOLTZ};
  for (int k = 0; k < 2; k++) {
    op o;
    make_op(&o, kinds[k], 2, n2, 900u + k);
    op_to_single(&o);
    check_methods(&o, kind_name[kinds[k]], PSCR_METHOD_TRANSFORM, PSCR_METHOD_AUTO);
    op_free(&o);
    make_op(&o, kinds[k], 3, n3, 910u + k);
    op_to_single(&o);
    for (int v = 0; v < 3; v++)
      check_methods(&o, kind_name[kinds[k]], vectors[v][0], vectors[v][1]);
    op_free(&o);
  }
}
END_TEST

/* Bad method values: INVALID_VALUE naming the field; a transform on the
   CUDA backend: NOT_SUPPORTED (no CUDA in the build, no device, or the
   backend's refusal). */
START_TEST(methods_bad_input)
{
  op o;
  const int n[3] = {8, 6, 5};
  make_op(&o, POISSON, 3, n, 3);
  pscr_options opts;
  pscr_plan *plan = NULL;
  pscr_options_init(&opts);
  opts.method[0] = (pscr_method)7;
  ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, 3, o.pencils, op_shift(&o), &opts),
                   PSCR_ERROR_INVALID_VALUE);
  ck_assert_ptr_null(plan);
  ck_assert_msg(strstr(pscr_last_error(), "method[0] is 7") == pscr_last_error(), "%s",
                pscr_last_error());
  pscr_options_init(&opts);
  opts.method[1] = (pscr_method)-1;
  ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, 3, o.pencils, op_shift(&o), &opts),
                   PSCR_ERROR_INVALID_VALUE);
  ck_assert_msg(strstr(pscr_last_error(), "method[1] is -1") == pscr_last_error(), "%s",
                pscr_last_error());
  /* 2D: method[1] must stay AUTO. */
  pscr_options_init(&opts);
  opts.method[1] = PSCR_METHOD_TRANSFORM;
  ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, 2, o.pencils, op_shift(&o), &opts),
                   PSCR_ERROR_INVALID_VALUE);
  ck_assert_msg(strstr(pscr_last_error(), "method[1] is 2, but a 2D plan") == pscr_last_error(),
                "%s", pscr_last_error());
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CUDA;
  opts.method[0] = PSCR_METHOD_TRANSFORM;
  ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, 3, o.pencils, op_shift(&o), &opts),
                   PSCR_ERROR_NOT_SUPPORTED);
  ck_assert_ptr_null(plan);
  /* AUTO backend: a transform plan lands on the CPU. */
  opts.backend = PSCR_BACKEND_AUTO;
  ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, 3, o.pencils, op_shift(&o), &opts),
                   PSCR_SUCCESS);
  pscr_info info;
  ck_assert_int_eq(pscr_plan_info(plan, &info), PSCR_SUCCESS);
  ck_assert_int_eq(info.backend, PSCR_BACKEND_CPU);
  pscr_plan_destroy(plan);
  op_free(&o);
}
END_TEST

/* The methods a plan of o with planner ESTIMATE (CPU) resolves AUTO to,
   after a solve that meets the reduction's bound. */
static void estimate(op *o, pscr_method m0, pscr_method got[2])
{
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CPU;
  opts.planner = PSCR_PLANNER_ESTIMATE;
  opts.method[0] = m0;
  pscr_plan *plan = NULL;
  ck_assert_int_eq(pscr_plan_create(&plan, o->dtype, o->ndim, o->pencils, op_shift(o), &opts),
                   PSCR_SUCCESS);
  pscr_info info;
  ck_assert_int_eq(pscr_plan_info(plan, &info), PSCR_SUCCESS);
  got[0] = info.method[0];
  got[1] = info.method[1];
  const size_t N = tu_size(o->ndim, o->pencils), es = tu_dtype_size(o->dtype);
  void *f = random_vector(o, 5), *u = malloc(N * es);
  ck_assert_int_eq(pscr_solve(plan, f, u), PSCR_SUCCESS);
  const double berr = tu_backward_error(o->dtype, o->ndim, o->pencils, op_shift(o), u, f);
  ck_assert_msg(berr <= (o->dtype == PSCR_C64 ? BERR_COMPLEX : BERR_REAL),
                "estimated plan: backward error %.3e", berr);
  free(f);
  free(u);
  pscr_plan_destroy(plan);
}

/* PSCR_PLANNER_ESTIMATE on the CPU, where the model's margins are wide
   (docs/performance.md; both rates scale with the threads, so the choice
   does not depend on their count): 3D Poisson 64^3 transformed in both
   dimensions (modelled about 6x faster than reduced), 2D 127^2
   transformed, 2D 2047^2 reduced (the transform's products modelled 4x
   slower); a forced entry stays; PSCR_PLANNER_NONE keeps the reduction. */
START_TEST(planner_estimate)
{
  pscr_method got[2];
  op o;
  const int n3[3] = {64, 64, 64}, n2a[2] = {127, 127}, n2b[2] = {2047, 2047};
  make_op_model(&o, PSCR_PROBLEM_POISSON, 3, n3, 0.0);
  estimate(&o, PSCR_METHOD_AUTO, got);
  ck_assert_msg(got[0] == PSCR_METHOD_TRANSFORM && got[1] == PSCR_METHOD_TRANSFORM,
                "3D 64^3: methods %d %d", got[0], got[1]);
  estimate(&o, PSCR_METHOD_REDUCTION, got);
  ck_assert_int_eq(got[0], PSCR_METHOD_REDUCTION);
  ck_assert_int_ne(got[1], PSCR_METHOD_AUTO);
  op_free(&o);
  make_op_model(&o, PSCR_PROBLEM_POISSON, 2, n2a, 0.0);
  estimate(&o, PSCR_METHOD_AUTO, got);
  ck_assert_int_eq(got[0], PSCR_METHOD_TRANSFORM);
  ck_assert_int_eq(got[1], PSCR_METHOD_AUTO);
  op_free(&o);
  make_op_model(&o, PSCR_PROBLEM_POISSON, 2, n2b, 0.0);
  estimate(&o, PSCR_METHOD_AUTO, got);
  ck_assert_int_eq(got[0], PSCR_METHOD_REDUCTION);
  op_free(&o);

  /* The default planner: AUTO is the reduction. */
  make_op_model(&o, PSCR_PROBLEM_POISSON, 3, n3, 0.0);
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CPU;
  ck_assert_int_eq(opts.planner, PSCR_PLANNER_NONE);
  pscr_plan *plan = NULL;
  ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, 3, o.pencils, op_shift(&o), &opts),
                   PSCR_SUCCESS);
  pscr_info info;
  ck_assert_int_eq(pscr_plan_info(plan, &info), PSCR_SUCCESS);
  ck_assert(info.method[0] == PSCR_METHOD_REDUCTION && info.method[1] == PSCR_METHOD_REDUCTION);
  pscr_plan_destroy(plan);
  /* AUTO backend with ESTIMATE: a CUDA plan (where there is a device)
     transforms both dimensions or neither, which is all that backend
     takes. */
  opts.backend = PSCR_BACKEND_AUTO;
  opts.planner = PSCR_PLANNER_ESTIMATE;
  ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, 3, o.pencils, op_shift(&o), &opts),
                   PSCR_SUCCESS);
  ck_assert_int_eq(pscr_plan_info(plan, &info), PSCR_SUCCESS);
  if (info.backend == PSCR_BACKEND_CUDA) /* every dimension or none transformed */
    ck_assert(info.method[0] == info.method[1] && info.method[0] != PSCR_METHOD_AUTO);
  else
    ck_assert(info.method[0] == PSCR_METHOD_TRANSFORM &&
              info.method[1] == PSCR_METHOD_TRANSFORM);
  pscr_plan_destroy(plan);
  /* An unknown planner. */
  opts.planner = (pscr_planner)3;
  ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, 3, o.pencils, op_shift(&o), &opts),
                   PSCR_ERROR_INVALID_VALUE);
  ck_assert_msg(strstr(pscr_last_error(), "planner is 3") == pscr_last_error(), "%s",
                pscr_last_error());
  op_free(&o);
}
END_TEST

/* The CUDA backend's transforms (every reduced dimension: 2D T, 3D T x T)
   against the same bounds, every dtype, where there is a device; a mixed
   vector is refused there. */
START_TEST(methods_cuda)
{
  op o;
  const int n3[3] = {9, 10, 11};
  make_op(&o, POISSON, 3, n3, 1);
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CUDA;
  pscr_plan *plan = NULL;
  pscr_status st = pscr_plan_create(&plan, o.dtype, 3, o.pencils, op_shift(&o), &opts);
  pscr_plan_destroy(plan);
  op_free(&o);
  if (st == PSCR_ERROR_NOT_SUPPORTED) {
    printf("methods_cuda: not run: %s\n", pscr_last_error());
    return;
  }
  ck_assert_int_eq(st, PSCR_SUCCESS);
  static const int sizes2[][2] = {{1, 1}, {5, 6}, {17, 11}, {64, 12}, {200, 150}};
  static const int sizes3[][3] = {{1, 1, 1}, {5, 6, 7}, {17, 3, 5}, {31, 31, 31}, {40, 33, 37}};
  for (int k = 0; k < NKINDS; k++)
    for (int single = 0; single < 2; single++) {
      for (size_t i = 0; i < sizeof sizes2 / sizeof *sizes2; i++) {
        int n[2] = {sizes2[i][0], sizes2[i][1]};
        if (k == HELMHOLTZ)
          n[0] = n[0] < 2 ? 2 : n[0], n[1] = n[1] < 2 ? 2 : n[1];
        make_op(&o, (kind)k, 2, n, 40u + i);
        if (single)
          op_to_single(&o);
        check_methods_on(&o, kind_name[k], PSCR_METHOD_TRANSFORM, PSCR_METHOD_AUTO,
                         PSCR_BACKEND_CUDA);
        op_free(&o);
      }
      for (size_t i = 0; i < sizeof sizes3 / sizeof *sizes3; i++) {
        int n[3] = {sizes3[i][0], sizes3[i][1], sizes3[i][2]};
        if (k == HELMHOLTZ)
          for (int d = 0; d < 3; d++)
            n[d] = n[d] < 2 ? 2 : n[d];
        make_op(&o, (kind)k, 3, n, 60u + i);
        if (single)
          op_to_single(&o);
        check_methods_on(&o, kind_name[k], PSCR_METHOD_TRANSFORM, PSCR_METHOD_TRANSFORM,
                         PSCR_BACKEND_CUDA);
        op_free(&o);
      }
    }
  /* A mixed vector: NOT_SUPPORTED, naming the methods. */
  make_op(&o, POISSON, 3, n3, 1);
  opts.method[0] = PSCR_METHOD_TRANSFORM;
  opts.method[1] = PSCR_METHOD_REDUCTION;
  ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, 3, o.pencils, op_shift(&o), &opts),
                   PSCR_ERROR_NOT_SUPPORTED);
  ck_assert_msg(strstr(pscr_last_error(), "every reduced dimension or none") != NULL, "%s",
                pscr_last_error());
  op_free(&o);
}
END_TEST

static Suite *methods_suite(void)
{
  Suite *s = suite_create("methods");
  TCase *tc = tcase_create("methods");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, methods_2d, 0, NKINDS);
  tcase_add_loop_test(tc, methods_3d, 0, NKINDS);
  tcase_add_test(tc, methods_model);
  tcase_add_test(tc, methods_single);
  tcase_add_test(tc, methods_bad_input);
  tcase_add_test(tc, planner_estimate);
  tcase_add_test(tc, methods_cuda);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run_suite(methods_suite()); }

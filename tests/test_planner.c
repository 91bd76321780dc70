/*
 * The planners (pscr_options.planner): NONE takes the reduction, ESTIMATE
 * the cost model's cheapest vector, MEASURE the fastest timed one; both
 * record every candidate in pscr_info (estimate, time, or why it was not
 * taken), skip a transform that fails the accuracy probe and, under
 * MEASURE, a candidate whose timed solve fails; the plan they return
 * solves within the bounds of test_methods. On the CPU backend here, and
 * on CUDA where there is a device.
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

/* Plan o with planner pl and flags on backend be; checks the record
   against the plan and returns the plan (caller destroys) and its info. */
static pscr_plan *plan_with(op *o, pscr_planner pl, unsigned flags, pscr_backend be,
                            pscr_info *info)
{
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = be;
  opts.planner = pl;
  opts.flags = flags;
  pscr_plan *plan = NULL;
  const pscr_status st = pscr_plan_create(&plan, o->dtype, o->ndim, o->pencils, op_shift(o), &opts);
  ck_assert_msg(st == PSCR_SUCCESS, "planner %d: %s (%s)", (int)pl, pscr_status_string(st),
                pscr_last_error());
  ck_assert_int_eq(pscr_plan_info(plan, info), PSCR_SUCCESS);
  ck_assert(info->plan_seconds > 0);
  const int nv = o->ndim == 3 ? 4 : 2;
  if (pl == PSCR_PLANNER_NONE) {
    ck_assert_int_eq(info->ncandidates, 0);
    ck_assert_int_eq(info->chosen, -1);
    return plan;
  }
  ck_assert_int_eq(info->ncandidates, nv);
  ck_assert(info->chosen >= 0 && info->chosen < nv);
  const pscr_candidate *ch = &info->candidate[info->chosen];
  ck_assert_int_eq(ch->status, PSCR_SUCCESS);
  ck_assert_int_eq(ch->method[0], info->method[0]);
  ck_assert_int_eq(ch->method[1], info->method[1]);
  for (int k = 0; k < nv; k++) {
    const pscr_candidate *c = &info->candidate[k];
    /* Every vector once. */
    for (int j = 0; j < k; j++)
      ck_assert(c->method[0] != info->candidate[j].method[0] ||
                c->method[1] != info->candidate[j].method[1]);
    if (o->ndim == 2)
      ck_assert_int_eq(c->method[1], PSCR_METHOD_AUTO);
    if (c->status != PSCR_SUCCESS) {
      ck_assert_msg(c->reason[0] != 0, "candidate %d: status %d without a reason", k,
                    (int)c->status);
      continue;
    }
    ck_assert(c->estimate_seconds > 0);
    if (pl == PSCR_PLANNER_ESTIMATE) {
      ck_assert(c->measured_seconds == 0);
      ck_assert_msg(ch->estimate_seconds <= c->estimate_seconds,
                    "ESTIMATE chose %.3g s over %.3g s", ch->estimate_seconds,
                    c->estimate_seconds);
    } else if (c->measured_seconds == 0) {
      /* Not timed: its estimate is far above the cheapest's. */
      ck_assert_msg(strstr(c->reason, "not timed") == c->reason, "candidate %d: %s", k,
                    c->reason);
      double cheapest = c->estimate_seconds;
      for (int j = 0; j < nv; j++)
        if (info->candidate[j].status == PSCR_SUCCESS &&
            info->candidate[j].estimate_seconds < cheapest)
          cheapest = info->candidate[j].estimate_seconds;
      ck_assert(c->estimate_seconds > 4.0 * cheapest);
    } else {
      ck_assert(c->reason[0] == 0);
      ck_assert_msg(ch->measured_seconds <= c->measured_seconds,
                    "MEASURE chose %.3g s over %.3g s", ch->measured_seconds,
                    c->measured_seconds);
    }
  }
  /* A transformed dimension passed its probe. */
  for (int d = 0; d < o->ndim - 1; d++) {
    if (info->method[d] == PSCR_METHOD_TRANSFORM)
      ck_assert_msg(info->transform_defect[d] > 0 &&
                        info->transform_defect[d] <= 100.0 * info->n[d] * DBL_EPSILON,
                    "dimension %d: defect %.3g", d + 1, info->transform_defect[d]);
    else
      ck_assert(info->transform_defect[d] == 0);
  }
  return plan;
}

static void print_record(const char *what, const pscr_info *info)
{
  for (int k = 0; k < info->ncandidates; k++) {
    const pscr_candidate *c = &info->candidate[k];
    printf("%-28s %c%c%s est %.3e s  measured %.3e s  %s%s\n", what,
           c->method[0] == PSCR_METHOD_TRANSFORM ? 'T' : 'R',
           info->ndim == 3 ? (c->method[1] == PSCR_METHOD_TRANSFORM ? 'T' : 'R') : ' ',
           k == info->chosen ? "*" : " ", c->estimate_seconds, c->measured_seconds,
           c->status ? pscr_status_string(c->status) : "ok", c->status ? "" : "");
    if (c->status)
      printf("%-28s     %s\n", "", c->reason);
  }
}

/* The plan solves a random right-hand side within the bound of o's dtype. */
static void check_solves(op *o, pscr_plan *plan, const char *what)
{
  const size_t N = tu_size(o->ndim, o->pencils), es = tu_dtype_size(o->dtype);
  void *f = random_vector(o, 5), *u = malloc(N * es);
  ck_assert(f && u);
  ck_assert_int_eq(pscr_solve(plan, f, u), PSCR_SUCCESS);
  const double berr = tu_backward_error(o->dtype, o->ndim, o->pencils, op_shift(o), u, f);
  const double bound = op_single(o)               ? BERR_SINGLE
                       : o->dtype == PSCR_C64 ? BERR_COMPLEX
                                                  : BERR_REAL;
  ck_assert_msg(berr <= bound, "%s: backward error %.3e > %.1e", what, berr, bound);
  free(f);
  free(u);
}

/* Every planner on 2D and 3D problems of several kinds and dtypes. */
START_TEST(planner_modes)
{
  static const struct {
    kind k;
    int ndim, n[3], single;
  } cases[] = {
      {POISSON, 2, {63, 64, 1}, 0},       {HELMHOLTZ, 2, {40, 33, 1}, 0},
      {RANDOM_SPD, 3, {12, 10, 9}, 0},    {RANDOM_COMPLEX, 3, {9, 11, 8}, 0},
      {POISSON, 3, {16, 15, 14}, 1},      {HELMHOLTZ, 3, {10, 9, 12}, 1},
  };
  const int c = _i;
  op o;
  make_op(&o, cases[c].k, cases[c].ndim, cases[c].n, 40u + (unsigned)c);
  if (cases[c].single)
    op_to_single(&o);
  char what[64];
  for (int pl = PSCR_PLANNER_NONE; pl <= PSCR_PLANNER_MEASURE; pl++) {
    snprintf(what, sizeof what, "%s %dD %s planner %d", kind_name[cases[c].k], o.ndim,
             cases[c].single ? "float" : "double", pl);
    pscr_info info;
    pscr_plan *plan = plan_with(&o, (pscr_planner)pl, 0, PSCR_BACKEND_CPU, &info);
    print_record(what, &info);
    if (pl == PSCR_PLANNER_NONE)
      ck_assert(info.method[0] == PSCR_METHOD_REDUCTION);
    check_solves(&o, plan, what);
    pscr_plan_destroy(plan);
  }
  op_free(&o);
}
END_TEST

/* A transform that fails the accuracy probe is not taken: ESTIMATE falls
   back to the next vector, MEASURE skips it; a forced transform keeps its
   method and reports its defect. 2D 127^2 (ESTIMATE's choice there is
   the transform: test_methods planner_estimate) and 3D 24^3. */
START_TEST(planner_probe)
{
  op o;
  const int n2[2] = {127, 127}, n3[3] = {24, 24, 24};
  make_op_model(&o, PSCR_PROBLEM_POISSON, 2, n2, 0.0);
  pscr_info info;
  pscr_plan *plan = plan_with(&o, PSCR_PLANNER_ESTIMATE, 0, PSCR_BACKEND_CPU, &info);
  ck_assert_int_eq(info.method[0], PSCR_METHOD_TRANSFORM);
  pscr_plan_destroy(plan);
  for (int pl = PSCR_PLANNER_ESTIMATE; pl <= PSCR_PLANNER_MEASURE; pl++) {
    plan = plan_with(&o, (pscr_planner)pl, PSCR_FLAG_TEST_TRANSFORM_PROBE_FAILS,
                     PSCR_BACKEND_CPU, &info);
    print_record("probe fails, 2D 127^2", &info);
    ck_assert_int_eq(info.method[0], PSCR_METHOD_REDUCTION);
    for (int k = 0; k < info.ncandidates; k++)
      if (info.candidate[k].method[0] == PSCR_METHOD_TRANSFORM) {
        ck_assert_int_eq(info.candidate[k].status, PSCR_ERROR_EIGEN_FAILED);
        ck_assert_msg(strstr(info.candidate[k].reason, "accuracy probe") != NULL, "%s",
                      info.candidate[k].reason);
      }
    check_solves(&o, plan, "probe fails");
    pscr_plan_destroy(plan);
  }
  op_free(&o);

  /* 3D: every vector with a transform of an AUTO dimension fails; a forced
     transform of dimension 1 stays and reports its defect. */
  make_op_model(&o, PSCR_PROBLEM_POISSON, 3, n3, 0.0);
  plan = plan_with(&o, PSCR_PLANNER_MEASURE, PSCR_FLAG_TEST_TRANSFORM_PROBE_FAILS,
                   PSCR_BACKEND_CPU, &info);
  ck_assert(info.method[0] == PSCR_METHOD_REDUCTION && info.method[1] == PSCR_METHOD_REDUCTION);
  pscr_plan_destroy(plan);
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CPU;
  opts.planner = PSCR_PLANNER_ESTIMATE;
  opts.flags = PSCR_FLAG_TEST_TRANSFORM_PROBE_FAILS;
  opts.method[0] = PSCR_METHOD_TRANSFORM;
  ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, 3, o.pencils, op_shift(&o), &opts),
                   PSCR_SUCCESS);
  ck_assert_int_eq(pscr_plan_info(plan, &info), PSCR_SUCCESS);
  ck_assert_int_eq(info.method[0], PSCR_METHOD_TRANSFORM);
  ck_assert_int_eq(info.method[1], PSCR_METHOD_REDUCTION);
  ck_assert_int_eq(info.ncandidates, 2);
  ck_assert(info.transform_defect[0] > 0 && info.transform_defect[0] < 100.0 * 24 * DBL_EPSILON);
  check_solves(&o, plan, "forced T, probe fails");
  pscr_plan_destroy(plan);
  op_free(&o);
}
END_TEST

/* MEASURE skips a candidate whose timed solve fails, reports it, and keeps
   the best of the others. */
START_TEST(planner_measure_skips)
{
  op o;
  const int n3[3] = {20, 18, 16};
  make_op(&o, HELMHOLTZ, 3, n3, 9u);
  pscr_info info;
  pscr_plan *plan = plan_with(&o, PSCR_PLANNER_MEASURE, PSCR_FLAG_TEST_MEASURE_TRANSFORM_FAILS,
                              PSCR_BACKEND_CPU, &info);
  print_record("measure skips", &info);
  ck_assert(info.method[0] == PSCR_METHOD_REDUCTION && info.method[1] == PSCR_METHOD_REDUCTION);
  int failed = 0;
  for (int k = 0; k < info.ncandidates; k++) {
    const pscr_candidate *c = &info.candidate[k];
    if (c->method[0] == PSCR_METHOD_TRANSFORM || c->method[1] == PSCR_METHOD_TRANSFORM) {
      ck_assert_int_eq(c->status, PSCR_ERROR_DEVICE);
      ck_assert(strstr(c->reason, "timed solve failed") != NULL);
      failed++;
    }
  }
  ck_assert_int_eq(failed, 3);
  check_solves(&o, plan, "measure skips");
  pscr_plan_destroy(plan);
  op_free(&o);
}
END_TEST

/* Where there is a CUDA device: ESTIMATE and MEASURE on that backend
   (device-array timings), the chosen plan within the bounds. */
START_TEST(planner_cuda)
{
  pscr_info info;
  op o;
  const int n3[3] = {48, 40, 36}, n2[2] = {255, 256};
  make_op_model(&o, PSCR_PROBLEM_POISSON, 3, n3, 0.0);
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CUDA;
  pscr_plan *plan = NULL;
  if (pscr_plan_create(&plan, o.dtype, 3, o.pencils, op_shift(&o), &opts) != PSCR_SUCCESS) {
    printf("planner_cuda: skipped, no CUDA backend here (%s)\n", pscr_last_error());
    op_free(&o);
    return;
  }
  pscr_plan_destroy(plan);
  for (int pl = PSCR_PLANNER_ESTIMATE; pl <= PSCR_PLANNER_MEASURE; pl++) {
    for (int dim = 2; dim <= 3; dim++) {
      op_free(&o);
      if (dim == 2)
        make_op_model(&o, PSCR_PROBLEM_HELMHOLTZ, 2, n2, 0.0);
      else
        make_op_model(&o, PSCR_PROBLEM_POISSON, 3, n3, 0.0);
      plan = plan_with(&o, (pscr_planner)pl, 0, PSCR_BACKEND_CUDA, &info);
      ck_assert_int_eq(info.backend, PSCR_BACKEND_CUDA);
      print_record(dim == 2 ? "cuda 2D Helmholtz 255x256" : "cuda 3D Poisson 48x40x36", &info);
      check_solves(&o, plan, "cuda");
      pscr_plan_destroy(plan);
    }
  }
  op_free(&o);
}
END_TEST

static Suite *planner_suite(void)
{
  Suite *s = suite_create("planner");
  TCase *tc = tcase_create("planner");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, planner_modes, 0, 6);
  tcase_add_test(tc, planner_probe);
  tcase_add_test(tc, planner_measure_skips);
  tcase_add_test(tc, planner_cuda);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run_suite(planner_suite()); }

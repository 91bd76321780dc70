/*
 * pscr_options.refine: steps of iterative refinement with the library's
 * operator. The reduction's subproblems (Dirichlet at its separators, without
 * the absorbing ends) come far closer to singular than a Helmholtz operator
 * itself, and its backward error grows with omega at fixed omega h
 * (docs/accuracy.md); one step brings it to a few eps. Checked here, on the
 * CPU and (where there is a device) on CUDA with host and device arrays:
 *  - Helmholtz at omega h = 0.5, 2D 511^2 and 3D 47^3: refine = 1 gives a
 *    normwise backward error <= 1e-14 (measured 1.6e-16 in 2D, where the
 *    unrefined solve gives 1.3e-12), in place bitwise equal to out of
 *    place, a batch bitwise equal to single solves;
 *  - a float plan: the residual in double, one step lowers the backward
 *    error to the float rounding of u (<= 2 eps_f; measured 0.67 -> 0.18
 *    eps_f on graded Poisson 255x256);
 *  - refine_single (the corrections by a float plan of the same pencils):
 *    one step gains at least 100x, two meet the bound; in place as out
 *    of place;
 *  - the refinement buffers in pscr_info; bad values refused.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_ops.h"

#if PSCR_HAVE_CUDA /* pscr_config.h, through pscr.h */
#include <cuda_runtime_api.h>
#endif

#define BERR_REFINED 1e-14

/* Helmholtz at omega h = 0.5 on the unit square / cube: n per dimension. */
static pscr_problem *helmholtz(int ndim, int n)
{
  const int sizes[3] = {n, n, n};
  pscr_problem *pb = NULL;
  ck_assert_int_eq(pscr_problem_create(&pb, PSCR_PROBLEM_HELMHOLTZ, ndim, sizes, NULL, 0.0,
                                       0.5 * (n - 1)),
                   PSCR_SUCCESS);
  return pb;
}

static size_t problem_size(const pscr_problem *pb)
{
  return (size_t)pb->n[0] * (size_t)pb->n[1] * (size_t)pb->n[2];
}

static void *random_of(const pscr_problem *pb, uint64_t seed)
{
  const size_t words = 2 * problem_size(pb);
  double *x = malloc(words * sizeof *x);
  ck_assert_ptr_nonnull(x);
  tu_rng rng;
  tu_rng_seed(&rng, seed);
  for (size_t t = 0; t < words; t++)
    x[t] = tu_symm(&rng);
  return x;
}

static pscr_plan *plan_of(const pscr_problem *pb, pscr_backend backend, int refine,
                          int single)
{
  pscr_options opts;
  pscr_options_init(&opts);
  opts.planner = PSCR_PLANNER_NONE; /* the reduction, whose Helmholtz loss refinement repairs */
  opts.backend = backend;
  opts.refine = refine;
  opts.refine_single = single;
  pscr_plan *plan = NULL;
  const pscr_status st = pscr_plan_create(&plan, PSCR_C64, pb->ndim, pb->pencils, pb->shift, &opts);
  ck_assert_msg(st == PSCR_SUCCESS, "plan (refine %d): %s", refine, pscr_last_error());
  return plan;
}

static double berr(const pscr_problem *pb, const void *u, const void *f)
{
  return tu_backward_error(PSCR_C64, pb->ndim, pb->pencils, pb->shift, u, f);
}

/* Helmholtz on the CPU: the bound, in place, batches, pscr_info. */
START_TEST(refine_helmholtz)
{
  const int ndim = _i ? 3 : 2, n = _i ? 47 : 511;
  pscr_problem *pb = helmholtz(ndim, n);
  const size_t N = problem_size(pb), bytes = N * 16;
  void *f = random_of(pb, 11), *g = random_of(pb, 12), *u0 = malloc(bytes), *u1 = malloc(bytes);
  void *w = malloc(2 * bytes), *b = malloc(2 * bytes);
  ck_assert(u0 && u1 && w && b);
  pscr_plan *p0 = plan_of(pb, PSCR_BACKEND_CPU, 0, 0), *p1 = plan_of(pb, PSCR_BACKEND_CPU, 1, 0);
  ck_assert_int_eq(pscr_solve(p0, f, u0), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_solve(p1, f, u1), PSCR_SUCCESS);
  const double e0 = berr(pb, u0, f), e1 = berr(pb, u1, f);
  printf("%dD Helmholtz %d, omega h = 0.5: backward error %.2e, refined once %.2e\n", ndim, n,
         e0, e1);
  ck_assert_msg(e1 <= BERR_REFINED, "refined backward error %.3e", e1);
  /* In place: the same numbers (the plan kept f). */
  memcpy(w, f, bytes);
  ck_assert_int_eq(pscr_solve(p1, w, w), PSCR_SUCCESS);
  ck_assert(memcmp(w, u1, bytes) == 0);
  /* A batch of two, in place: each as its single solve. */
  memcpy(b, f, bytes);
  memcpy((char *)b + bytes, g, bytes);
  ck_assert_int_eq(pscr_solve_batch(p1, 2, b, N, b, N), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_solve(p1, g, w), PSCR_SUCCESS);
  ck_assert(memcmp(b, u1, bytes) == 0);
  ck_assert(memcmp((char *)b + bytes, w, bytes) == 0);
  /* Two u-sized buffers (f of in-place solves, r) and A u: 3 N elements. */
  pscr_info i0, i1;
  ck_assert_int_eq(pscr_plan_info(p0, &i0), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_plan_info(p1, &i1), PSCR_SUCCESS);
  ck_assert_uint_eq(i1.workspace_bytes - i0.workspace_bytes, 3 * bytes);
  /* refine_single: the corrections by a float plan of the same pencils.
     A float Helmholtz solve has a backward error of about 1e-4, so a step
     gains about 1e3 (one step: 1.4e-15 on a 2-core VM, 2.7e-14 on the
     H100's host CPU at 2D 511^2); two reach the bound. */
  pscr_plan *ps = plan_of(pb, PSCR_BACKEND_CPU, 1, 1);
  ck_assert_int_eq(pscr_solve(ps, f, u1), PSCR_SUCCESS);
  const double es1 = berr(pb, u1, f);
  pscr_plan_destroy(ps);
  ps = plan_of(pb, PSCR_BACKEND_CPU, 2, 1);
  ck_assert_int_eq(pscr_solve(ps, f, u1), PSCR_SUCCESS);
  const double es = berr(pb, u1, f);
  printf("%dD Helmholtz %d, omega h = 0.5: float corrections, one step %.2e, two %.2e\n", ndim,
         n, es1, es);
  ck_assert_msg(es1 <= e0 / 100 || es1 <= BERR_REFINED, "one float correction: %.3e from %.3e",
                es1, e0);
  ck_assert_msg(es <= BERR_REFINED, "refine_single, two steps: backward error %.3e", es);
  memcpy(w, f, bytes);
  ck_assert_int_eq(pscr_solve(ps, w, w), PSCR_SUCCESS);
  ck_assert(memcmp(w, u1, bytes) == 0);
  pscr_info is;
  ck_assert_int_eq(pscr_plan_info(ps, &is), PSCR_SUCCESS);
  ck_assert_uint_gt(is.workspace_bytes, i1.workspace_bytes);
  pscr_plan_destroy(ps);
  pscr_plan_destroy(p0);
  pscr_plan_destroy(p1);
  free(f);
  free(g);
  free(u0);
  free(u1);
  free(w);
  free(b);
  pscr_problem_destroy(pb);
}
END_TEST

/* A float plan: the residual in double on the float u. */
START_TEST(refine_single)
{
  op o;
  const int n[2] = {255, 256};
  make_op_model(&o, PSCR_PROBLEM_POISSON, 2, n, 0.5);
  op_to_single(&o);
  const size_t N = tu_size(2, o.pencils);
  void *f = random_vector(&o, 21);
  float *u[2] = {malloc(N * sizeof(float)), malloc(N * sizeof(float))};
  ck_assert(u[0] && u[1]);
  double e[2];
  for (int k = 0; k < 2; k++) {
    pscr_options opts = *tu_cpu_options();
    opts.refine = k;
    pscr_plan *plan = NULL;
    ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, 2, o.pencils, op_shift(&o), &opts),
                     PSCR_SUCCESS);
    ck_assert_int_eq(pscr_solve(plan, f, u[k]), PSCR_SUCCESS);
    e[k] = tu_backward_error(o.dtype, 2, o.pencils, op_shift(&o), u[k], f);
    pscr_plan_destroy(plan);
  }
  printf("float 2D graded Poisson 255x256: backward error %.2e, refined once %.2e (%.2f eps_f)\n",
         e[0], e[1], e[1] / FLT_EPSILON);
  ck_assert_msg(e[1] <= 2 * FLT_EPSILON && e[1] < e[0], "refined %.3e, unrefined %.3e", e[1],
                e[0]);
  free(u[0]);
  free(u[1]);
  free(f);
  op_free(&o);
}
END_TEST

START_TEST(refine_bad)
{
  op o;
  const int n[2] = {8, 9};
  make_op_model(&o, PSCR_PROBLEM_POISSON, 2, n, 0.0);
  const int bad[2] = {-1, PSCR_REFINE_MAX + 1};
  for (int k = 0; k < 2; k++) {
    pscr_options opts = *tu_cpu_options();
    opts.refine = bad[k];
    pscr_plan *plan = (pscr_plan *)&o;
    ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, 2, o.pencils, op_shift(&o), &opts),
                     PSCR_ERROR_INVALID_VALUE);
    ck_assert_ptr_null(plan);
    ck_assert_msg(strstr(pscr_last_error(), "refine is") != NULL, "message: %s",
                  pscr_last_error());
  }
  /* refine_single: 0 or 1, with refine >= 1, on double plans only. */
  const int single[3][2] = {{2, 1}, {1, 0}, {1, 1}};
  for (int k = 0; k < 3; k++) {
    pscr_options opts = *tu_cpu_options();
    opts.refine_single = single[k][0];
    opts.refine = single[k][1];
    op w;
    make_op_model(&w, PSCR_PROBLEM_POISSON, 2, n, 0.0);
    if (k == 2)
      op_to_single(&w);
    pscr_plan *plan = NULL;
    ck_assert_int_eq(pscr_plan_create(&plan, w.dtype, 2, w.pencils, op_shift(&w), &opts),
                     PSCR_ERROR_INVALID_VALUE);
    ck_assert_msg(strstr(pscr_last_error(), "refine_single is") != NULL, "message: %s",
                  pscr_last_error());
    op_free(&w);
  }
  op_free(&o);
}
END_TEST

/* CUDA: host arrays, device arrays out of place and in place, a C32 plan. */
START_TEST(refine_cuda)
{
#if PSCR_HAVE_CUDA
  pscr_problem *pb = helmholtz(2, 511);
  pscr_options opts;
  pscr_options_init(&opts);
  opts.planner = PSCR_PLANNER_NONE;
  opts.backend = PSCR_BACKEND_CUDA;
  opts.refine = 1;
  pscr_plan *plan = NULL;
  if (pscr_plan_create(&plan, PSCR_C64, 2, pb->pencils, pb->shift, &opts) != PSCR_SUCCESS) {
    printf("refine_cuda: skipped, no CUDA backend here (%s)\n", pscr_last_error());
    pscr_problem_destroy(pb);
    return;
  }
  const size_t N = problem_size(pb), bytes = N * 16;
  void *f = random_of(pb, 31), *u = malloc(bytes), *v = malloc(bytes), *df = NULL, *du = NULL;
  ck_assert(u && v);
  ck_assert_int_eq(pscr_solve(plan, f, u), PSCR_SUCCESS);
  const double eh = berr(pb, u, f);
  ck_assert_int_eq(cudaMalloc(&df, bytes), cudaSuccess);
  ck_assert_int_eq(cudaMalloc(&du, bytes), cudaSuccess);
  ck_assert_int_eq(cudaMemcpy(df, f, bytes, cudaMemcpyHostToDevice), cudaSuccess);
  ck_assert_int_eq(pscr_solve_device(plan, df, du, NULL), PSCR_SUCCESS);
  ck_assert_int_eq(cudaMemcpy(v, du, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  const double ed = berr(pb, v, f);
  ck_assert_int_eq(pscr_solve_device(plan, df, df, NULL), PSCR_SUCCESS);
  ck_assert_int_eq(cudaMemcpy(u, df, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  ck_assert(memcmp(u, v, bytes) == 0);
  printf("cuda 2D Helmholtz 511, refined once: backward error %.2e (host arrays), %.2e "
         "(device arrays)\n",
         eh, ed);
  ck_assert_msg(eh <= BERR_REFINED && ed <= BERR_REFINED, "host %.3e, device %.3e", eh, ed);
  /* The refinement's device buffers: r, a copy of f, the factors. */
  pscr_info info, info0;
  ck_assert_int_eq(pscr_plan_info(plan, &info), PSCR_SUCCESS);
  pscr_plan_destroy(plan);
  opts.refine = 0;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_C64, 2, pb->pencils, pb->shift, &opts),
                   PSCR_SUCCESS);
  ck_assert_int_eq(pscr_plan_info(plan, &info0), PSCR_SUCCESS);
  opts.refine = 1;
  ck_assert_uint_ge(info.device_bytes - info0.device_bytes, 2 * bytes);
  pscr_plan_destroy(plan);
  /* refine_single on the device: the float plan's corrections (two steps,
     as on the CPU above). */
  opts.refine_single = 1;
  opts.refine = 2;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_C64, 2, pb->pencils, pb->shift, &opts),
                   PSCR_SUCCESS);
  ck_assert_int_eq(cudaMemcpy(df, f, bytes, cudaMemcpyHostToDevice), cudaSuccess);
  ck_assert_int_eq(pscr_solve_device(plan, df, du, NULL), PSCR_SUCCESS);
  ck_assert_int_eq(cudaMemcpy(v, du, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  ck_assert_int_eq(pscr_solve(plan, f, u), PSCR_SUCCESS);
  const double sd = berr(pb, v, f), sh = berr(pb, u, f);
  printf("cuda 2D Helmholtz 511, two float corrections: %.2e (host arrays), %.2e (device "
         "arrays)\n",
         sh, sd);
  ck_assert_msg(sh <= BERR_REFINED && sd <= BERR_REFINED, "host %.3e, device %.3e", sh, sd);
  pscr_plan_destroy(plan);
  opts.refine_single = 0;
  opts.refine = 1;
  /* C32: the residual in double on the device. */
  float *fs = malloc(N * 8), *us = malloc(N * 8);
  ck_assert(fs && us);
  for (size_t t = 0; t < 2 * N; t++)
    fs[t] = (float)((double *)f)[t];
  op o;
  memset(&o, 0, sizeof o);
  o.dtype = PSCR_C64;
  o.ndim = 2;
  for (int d = 0; d < 2; d++) {
    const pscr_pencil *q = &pb->pencils[d];
    double *s = malloc((size_t)8 * q->n * sizeof *s);
    ck_assert_ptr_nonnull(s);
    memcpy(s, q->a_diag, 2 * (size_t)q->n * sizeof *s);
    memcpy(s + 2 * q->n, q->a_off, 2 * (size_t)(q->n - 1) * sizeof *s);
    memcpy(s + 4 * q->n, q->m_diag, 2 * (size_t)q->n * sizeof *s);
    memcpy(s + 6 * q->n, q->m_off, 2 * (size_t)(q->n - 1) * sizeof *s);
    o.store[d] = s;
    o.pencils[d] = (pscr_pencil){q->n, s, s + 2 * q->n, s + 4 * q->n, s + 6 * q->n};
  }
  o.shift[0] = pb->shift[0];
  o.shift[1] = pb->shift[1];
  op_to_single(&o);
  double es[2];
  void *dfs = NULL;
  ck_assert_int_eq(cudaMalloc(&dfs, N * 8), cudaSuccess);
  for (int k = 0; k < 2; k++) {
    opts.refine = k;
    ck_assert_int_eq(pscr_plan_create(&plan, PSCR_C32, 2, o.pencils, op_shift(&o), &opts),
                     PSCR_SUCCESS);
    ck_assert_int_eq(cudaMemcpy(dfs, fs, N * 8, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(pscr_solve_device(plan, dfs, dfs, NULL), PSCR_SUCCESS);
    ck_assert_int_eq(cudaMemcpy(us, dfs, N * 8, cudaMemcpyDeviceToHost), cudaSuccess);
    es[k] = tu_backward_error(PSCR_C32, 2, o.pencils, op_shift(&o), us, fs);
    pscr_plan_destroy(plan);
  }
  printf("cuda C32 2D Helmholtz 511: backward error %.2e, refined once %.2e (%.2f eps_f)\n",
         es[0], es[1], es[1] / FLT_EPSILON);
  ck_assert_msg(es[1] <= 2 * FLT_EPSILON && es[1] < es[0], "refined %.3e, unrefined %.3e",
                es[1], es[0]);
  cudaFree(dfs);
  cudaFree(df);
  cudaFree(du);
  free(fs);
  free(us);
  free(f);
  free(u);
  free(v);
  op_free(&o);
  pscr_problem_destroy(pb);
#else
  printf("refine_cuda: skipped, built without CUDA\n");
#endif
}
END_TEST

static Suite *refine_suite(void)
{
  Suite *s = suite_create("refine");
  TCase *tc = tcase_create("refine");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, refine_helmholtz, 0, 2);
  tcase_add_test(tc, refine_single);
  tcase_add_test(tc, refine_bad);
  tcase_add_test(tc, refine_cuda);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run_suite(refine_suite()); }

/* Helpers of the CUDA suites (test_cuda.c, test_cuda_paths.c,
   test_cuda_batch.c): plans with the test's flags, the profiled solve's
   check, the shared cases and bounds, and the main that skips without a
   device. The suites test the reduction's kernels: their plans pin
   PSCR_PLANNER_NONE (the default planner transforms small dimensions;
   test_methods covers the transforms). */
#include "cuda_common.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned ct_plan_flags;

pscr_plan *ct_make_plan_rows(const op *o, pscr_backend backend, int rows)
{
  pscr_options opts;
  pscr_options_init(&opts);
  opts.planner = PSCR_PLANNER_NONE;
  opts.backend = backend;
  opts.cuda_rows_per_thread = rows;
  opts.flags = ct_plan_flags;
  pscr_plan *plan = NULL;
  pscr_status st = pscr_plan_create(&plan, o->dtype, o->ndim, o->pencils, op_shift(o), &opts);
  ck_assert_msg(st == PSCR_SUCCESS, "plan (%s): %s (%s)",
                backend == PSCR_BACKEND_CUDA ? "cuda" : "cpu", pscr_status_string(st),
                pscr_last_error());
  return plan;
}

pscr_plan *ct_make_plan(const op *o, pscr_backend backend)
{
  return ct_make_plan_rows(o, backend, 0);
}

void ct_check_profile(pscr_plan *plan, const op *o, const void *f, const void *u_ref,
                      size_t bytes)
{
  void *df = NULL, *du = NULL, *u = malloc(bytes);
  ck_assert_ptr_nonnull(u);
  ck_assert_int_eq(cudaMalloc(&df, bytes), cudaSuccess);
  ck_assert_int_eq(cudaMalloc(&du, bytes), cudaSuccess);
  ck_assert_int_eq(cudaMemcpy(df, f, bytes, cudaMemcpyHostToDevice), cudaSuccess);
  double ms[PSCR_STAGE_COUNT];
  for (int pass = 0; pass < 2; pass++) {
    void *out = pass ? df : du; /* out of place, then in place (the same launches) */
    pscr_status st = pscr_solve_device_profile(plan, df, out, NULL, ms);
    ck_assert_msg(st == PSCR_SUCCESS, "profile: %s (%s)", pscr_status_string(st),
                  pscr_last_error());
    ck_assert_int_eq(cudaMemcpy(u, out, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert_msg(memcmp(u, u_ref, bytes) == 0, "profiled solve differs from pscr_solve");
    if (!pass)
      ck_assert_int_eq(cudaMemcpy(df, f, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert(ms[PSCR_STAGE_LEVEL3] > 0);
    for (int k = 0; k < PSCR_STAGE_COUNT; k++)
      ck_assert(ms[k] >= 0 && isfinite(ms[k]));
    ck_assert(o->ndim == 3 || ms[PSCR_STAGE_GATHER] == 0);
  }
  ck_assert_int_eq(pscr_solve_device_profile(plan, df, du, NULL, NULL), PSCR_ERROR_INVALID_VALUE);
  cudaFree(df);
  cudaFree(du);
  free(u);
}

void ct_make_case(op *o, int i, uint64_t seed)
{
  static const int n2r[2] = {200, 150}, n2c[2] = {129, 70}, n3[3] = {31, 20, 17};
  const int c = i % 3;
  make_op(o, c == 1 ? RANDOM_COMPLEX : RANDOM_SPD, c == 2 ? 3 : 2,
          c == 0 ? n2r : c == 1 ? n2c : n3, seed);
  if (i >= 3)
    op_to_single(o);
}

double ct_case_bound(const op *o)
{
  return op_single(o) ? BERR_SINGLE : o->dtype == PSCR_C64 ? BERR_COMPLEX : BERR_REAL;
}

void ct_device_solve(pscr_plan *plan, const void *df, void *du, void *host, size_t bytes,
                     cudaStream_t stream)
{
  ck_assert_int_eq(cudaMemsetAsync(du, 0xff, bytes, stream), cudaSuccess);
  pscr_status st = pscr_solve_device(plan, df, du, stream);
  ck_assert_msg(st == PSCR_SUCCESS, "device solve: %s (%s)", pscr_status_string(st),
                pscr_last_error());
  ck_assert_int_eq(cudaStreamSynchronize(stream), cudaSuccess);
  ck_assert_int_eq(cudaMemcpy(host, du, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
}

pscr_plan *ct_make_batch_plan(const op *o, int max_batch, int rows)
{
  pscr_options opts;
  pscr_options_init(&opts);
  opts.planner = PSCR_PLANNER_NONE;
  opts.backend = PSCR_BACKEND_CUDA;
  opts.cuda_rows_per_thread = rows;
  opts.max_batch = max_batch;
  opts.flags = ct_plan_flags;
  pscr_plan *plan = NULL;
  pscr_status st = pscr_plan_create(&plan, o->dtype, o->ndim, o->pencils, op_shift(o), &opts);
  ck_assert_msg(st == PSCR_SUCCESS, "batch plan (max_batch %d): %s (%s)", max_batch,
                pscr_status_string(st), pscr_last_error());
  return plan;
}

/* A plan on the CUDA backend for a 1 x 1 problem: NOT_SUPPORTED means no
   CUDA build, backend or device. */
static int cuda_available(void)
{
  double one = 1.0, c = 0.0;
  pscr_pencil p[2] = {{1, &one, NULL, &one, NULL}, {1, &one, NULL, &one, NULL}};
  pscr_options opts;
  pscr_options_init(&opts);
  opts.planner = PSCR_PLANNER_NONE;
  opts.backend = PSCR_BACKEND_CUDA;
  pscr_plan *plan = NULL;
  pscr_status st = pscr_plan_create(&plan, PSCR_R64, 2, p, &c, &opts);
  pscr_plan_destroy(plan);
  if (st == PSCR_ERROR_NOT_SUPPORTED)
    return 0;
  if (st != PSCR_SUCCESS) {
    fprintf(stderr, "CUDA plan failed: %s (%s)\n", pscr_status_string(st), pscr_last_error());
    return -1;
  }
  return 1;
}

int ct_main(Suite *(*make_suite)(void))
{
  int avail = cuda_available();
  if (avail == 0) {
    printf("skipped: %s\n", pscr_last_error()); /* "no CUDA device (...)" */
    return 77;
  }
  if (avail < 0)
    return 1;
  SRunner *sr = srunner_create(make_suite());
  srunner_set_fork_status(sr, CK_NOFORK); /* never fork after CUDA is initialized */
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}

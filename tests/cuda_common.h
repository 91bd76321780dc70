/* Helpers shared by the CUDA suites (test_cuda.c, test_cuda_paths.c,
   test_cuda_batch.c): the bounds, plans with the test's expert flags, the
   profiled solve's check, the cases several suites solve, and the main that
   reports the suite skipped without a device. ct_: CUDA test, as tu_ for
   test_util.h. */
#ifndef PSCR_TEST_CUDA_COMMON_H
#define PSCR_TEST_CUDA_COMMON_H

#include <cuda_runtime_api.h>
#include <float.h>

#include "test_ops.h"

#define BERR_REAL 1e-13
#define BERR_COMPLEX 1e-11
#define REL_DIFF 1e-10
/* Single precision: 450 units of float roundoff, as test_single.c. */
#define BERR_SINGLE (450.0 * FLT_EPSILON)

/* Expert switches (pscr_options.flags) that the plan helpers below
   (ct_make_plan_rows, ct_make_batch_plan) give the plans they make: a test
   sets them around a helper call and clears them after. */
extern unsigned ct_plan_flags;

/* rows: pscr_options.cuda_rows_per_thread (the CUDA level-3 solver). */
pscr_plan *ct_make_plan_rows(const op *o, pscr_backend backend, int rows);

/* ct_make_plan_rows with the default rows per thread. */
pscr_plan *ct_make_plan(const op *o, pscr_backend backend);

/* A CUDA plan of o with options.max_batch and rows per thread. */
pscr_plan *ct_make_batch_plan(const op *o, int max_batch, int rows);

/* pscr_solve_device_profile on device copies of f: the solve must make
   exactly the launches the cost model counts (the call fails otherwise),
   give the same u bit for bit as pscr_solve, and time level 3. */
void ct_check_profile(pscr_plan *plan, const op *o, const void *f, const void *u_ref,
                      size_t bytes);

/* i = 0..2: real 2D, complex 2D, real 3D; i = 3..5: the same in single
   precision. */
void ct_make_case(op *o, int i, uint64_t seed);

/* The backward error bound of o's dtype. */
double ct_case_bound(const op *o);

/* pscr_solve_device into du (first poisoned with NaN bytes), then host. */
void ct_device_solve(pscr_plan *plan, const void *df, void *du, void *host, size_t bytes,
                     cudaStream_t stream);

/* The main of a CUDA suite: exits 77 (ctest skip) when a CUDA plan cannot be
   made (no CUDA build, backend or device), 1 when making it fails otherwise;
   else runs make_suite()'s suite without fork (CK_NOFORK: CUDA, initialized
   by that first plan, must never be initialized before a fork) and returns
   0 when every test passed, else 1. */
int ct_main(Suite *(*make_suite)(void));

#endif

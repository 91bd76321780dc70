/*
 * pscr-gpu-once: one problem on the CUDA backend with a chosen level-3 solver,
 * for tuning and profiling (pscr-bench is the benchmark).
 *
 *   pscr-gpu-once KIND N [ROWS]
 *     KIND: p2, h2, p3, h3 (Poisson / Helmholtz, 2D / 3D), N: n per dimension,
 *     ROWS: pscr_options.cuda_rows_per_thread (0 automatic, -1 serial Thomas).
 *
 * Verifies a host-API solve (backward and discretization error), then times
 * pscr_solve_device as pscr-bench does (gpu_timing.c: CUDA events, median and
 * min of REPEAT after warm-up, device result against the host API's). With
 * PSCR_ONCE=1 in the environment it stops after one host-API solve and one
 * device solve, so a profiler (ncu) sees exactly two solves.
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "gpu_timing.h"
#include "pscr.h"

enum { REPEAT = 20 };

/* PSCR_ONCE: one device solve, nothing else on the device. */
static int solve_once(pscr_plan *plan, const double *b, size_t bytes)
{
  void *df = NULL, *du = NULL;
  int rc = 1;
  if (cudaMalloc(&df, bytes) == cudaSuccess && cudaMalloc(&du, bytes) == cudaSuccess &&
      cudaMemcpy(df, b, bytes, cudaMemcpyHostToDevice) == cudaSuccess &&
      pscr_solve_device(plan, df, du, NULL) == PSCR_SUCCESS &&
      cudaDeviceSynchronize() == cudaSuccess)
    rc = 0;
  cudaFree(df);
  cudaFree(du);
  return rc;
}

int main(int argc, char **argv)
{
  if (argc < 3 || strlen(argv[1]) != 2 || (argv[1][0] != 'p' && argv[1][0] != 'h') ||
      (argv[1][1] != '2' && argv[1][1] != '3')) {
    fprintf(stderr, "usage: %s p2|h2|p3|h3 N [ROWS]\n", argv[0]);
    return 2;
  }
  const int helm = argv[1][0] == 'h', ndim = argv[1][1] - '0';
  const int n = atoi(argv[2]), rows = argc > 3 ? atoi(argv[3]) : 0;
  int sizes[3] = {n, n, n};
  pscr_problem *pb = NULL;
  pscr_plan *plan = NULL;
  double *b = NULL, *u = NULL, *ue = NULL, *au = NULL;
  int rc = 1;
  pscr_status st = pscr_problem_create(&pb, helm ? PSCR_PROBLEM_HELMHOLTZ : PSCR_PROBLEM_POISSON,
                                       ndim, sizes, NULL, 0.0, 0.5 * (n - 1));
  if (st) {
    fprintf(stderr, "problem: %s (%s)\n", pscr_status_string(st), pscr_last_error());
    return 1;
  }
  const int cplx = pb->dtype == PSCR_C64;
  const size_t N = (size_t)pb->n[0] * pb->n[1] * pb->n[2], bytes = N * (cplx ? 16 : 8);
  b = malloc(bytes);
  u = malloc(bytes);
  ue = malloc(bytes);
  au = malloc(bytes);
  if (!b || !u || !ue || !au || pscr_problem_manufactured(pb, b, ue))
    goto out;
  pscr_options o;
  pscr_options_init(&o);
  o.backend = PSCR_BACKEND_CUDA;
  o.cuda_rows_per_thread = rows;
  o.check_finite = 0;
  double t0 = cli_now();
  if ((st = pscr_plan_create(&plan, pb->dtype, ndim, pb->pencils, pb->shift, &o)) ||
      (st = pscr_solve(plan, b, u))) {
    fprintf(stderr, "%s n=%d: %s (%s)\n", argv[1], n, pscr_status_string(st), pscr_last_error());
    goto out;
  }
  const double plan_s = cli_now() - t0;
  double berr, derr;
  cli_verify(pb, b, u, ue, au, &berr, &derr);
  if (getenv("PSCR_ONCE")) {
    rc = solve_once(plan, b, bytes);
    goto out;
  }
  gpu_timing t;
  if ((st = gpu_time_solve(plan, 0, cplx, N, b, u, REPEAT, &t))) {
    fprintf(stderr, "device timing: %s (%s)\n", pscr_status_string(st), t.msg);
    goto out;
  }
  printf("%s n=%d rows=%d plan %.3f s  device solve median %.3f ms min %.3f ms  berr %.2e  "
         "derr %.2e  device-vs-host %.1e\n",
         argv[1], n, rows, plan_s, t.solve_ms_median, t.solve_ms_min, berr, derr, t.rel_diff);
  rc = 0;
out:
  pscr_plan_destroy(plan);
  pscr_problem_destroy(pb);
  free(b);
  free(u);
  free(ue);
  free(au);
  return rc;
}

/*
 * pscr-solve: build a model problem (paper section 5.1), solve it, and report
 * sizes, backend, plan time, solve time, backward error and discretization
 * error against the manufactured solution.
 *
 *   pscr-solve [--problem poisson|helmholtz] [--dim 2|3] [-n N]
 *              [--graded G] [--omega W] [--backend auto|cpu|cuda]
 *              [--threads T] [--repeat R] [--flags NAME,...]
 */
#define _POSIX_C_SOURCE 200809L
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_common.h"
#include "pscr.h"

static void usage(const char *prog)
{
  fprintf(stderr,
          "usage: %s [--problem poisson|helmholtz] [--dim 2|3] [-n N] [--graded G]\n"
          "          [--omega W] [--backend auto|cpu|cuda] [--threads T] [--repeat R]\n"
          "          [--flags NAME,...]\n"
          "defaults: 2D Poisson, n = 1023 (2D) or 127 (3D), uniform mesh, omega = 40,\n"
          "          backend auto (CUDA when present), all threads, 5 repeats, no flags\n"
          "--flags: expert/test switches of pscr_options.flags by name (docs/user-guide.md)\n",
          prog);
}

int main(int argc, char **argv)
{
  pscr_problem_kind kind = PSCR_PROBLEM_POISSON;
  int ndim = 2, n = 0, repeat = 5;
  double grading = 0.0, omega = 40.0;
  pscr_options opts;
  pscr_options_init(&opts);
  for (int a = 1; a < argc; a++) {
    const char *arg = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;
    if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
      usage(argv[0]);
      return 0;
    }
    if (!val) {
      usage(argv[0]);
      return 2;
    }
    a++;
    if (!strcmp(arg, "--problem"))
      kind = !strcmp(val, "helmholtz") ? PSCR_PROBLEM_HELMHOLTZ : PSCR_PROBLEM_POISSON;
    else if (!strcmp(arg, "--dim"))
      ndim = atoi(val);
    else if (!strcmp(arg, "-n"))
      n = atoi(val);
    else if (!strcmp(arg, "--graded"))
      grading = atof(val);
    else if (!strcmp(arg, "--omega"))
      omega = atof(val);
    else if (!strcmp(arg, "--threads"))
      opts.num_threads = atoi(val);
    else if (!strcmp(arg, "--repeat"))
      repeat = atoi(val) > 0 ? atoi(val) : 1;
    else if (!strcmp(arg, "--flags")) {
      if (cli_parse_flags(val, &opts.flags))
        return 2;
    } else if (!strcmp(arg, "--backend"))
      opts.backend = !strcmp(val, "cpu")    ? PSCR_BACKEND_CPU
                     : !strcmp(val, "cuda") ? PSCR_BACKEND_CUDA
                                            : PSCR_BACKEND_AUTO;
    else {
      usage(argv[0]);
      return 2;
    }
  }
  if (n == 0)
    n = ndim == 3 ? 127 : 1023;
  int sizes[3] = {n, n, n};

  pscr_problem *pb = NULL;
  pscr_plan *plan = NULL;
  double *b = NULL, *ue = NULL, *u = NULL, *au = NULL, *times = NULL;
  int rc = 1;
  pscr_status st = pscr_problem_create(&pb, kind, ndim, sizes, NULL, grading, omega);
  if (st) {
    fprintf(stderr, "problem: %s (%s)\n", pscr_status_string(st), pscr_last_error());
    return 1;
  }
  int cplx = pb->dtype == PSCR_C64;
  size_t N = (size_t)pb->n[0] * pb->n[1] * pb->n[2], words = N * (cplx ? 2 : 1);
  b = malloc(words * sizeof *b);
  ue = malloc(words * sizeof *ue);
  u = malloc(words * sizeof *u);
  au = malloc(words * sizeof *au);
  times = malloc((size_t)repeat * sizeof *times);
  if (!b || !ue || !u || !au || !times) {
    fprintf(stderr, "out of host memory for %zu unknowns\n", N);
    goto out;
  }
  if ((st = pscr_problem_manufactured(pb, b, ue))) {
    fprintf(stderr, "manufactured: %s (%s)\n", pscr_status_string(st), pscr_last_error());
    goto out;
  }

  double t0 = cli_now();
  st = pscr_plan_create(&plan, pb->dtype, ndim, pb->pencils, pb->shift, &opts);
  double plan_time = cli_now() - t0;
  if (st) {
    fprintf(stderr, "plan: %s (%s)\n", pscr_status_string(st), pscr_last_error());
    goto out;
  }
  pscr_info info;
  pscr_plan_info(plan, &info);
  for (int r = 0; r < repeat + 1; r++) { /* the first solve is a warm-up */
    t0 = cli_now();
    st = pscr_solve(plan, b, u);
    double t = cli_now() - t0;
    if (st) {
      fprintf(stderr, "solve: %s (%s)\n", pscr_status_string(st), pscr_last_error());
      goto out;
    }
    if (r > 0)
      times[r - 1] = t;
  }
  qsort(times, (size_t)repeat, sizeof *times, cli_cmp_double);

  double berr, derr;
  cli_verify(pb, b, u, ue, au, &berr, &derr);

  printf("problem           %s %dD, %s mesh\n",
         kind == PSCR_PROBLEM_POISSON ? "Poisson (eq. 31)" : "Helmholtz with ABC (eqs. 33-35)",
         ndim, grading > 0 ? "graded" : "uniform");
  if (kind == PSCR_PROBLEM_HELMHOLTZ)
    printf("omega             %g\n", omega);
  printf("size              %d x %d", pb->n[0], pb->n[1]);
  if (ndim == 3)
    printf(" x %d", pb->n[2]);
  printf(" = %zu unknowns (%s)\n", N, cplx ? "complex double" : "double");
  printf("backend           %s", info.backend == PSCR_BACKEND_CUDA ? "cuda" : "cpu");
  if (info.backend == PSCR_BACKEND_CPU)
    printf(" (%d threads)", info.num_threads);
  printf("\nlevels            %d", info.levels[0]);
  if (ndim == 3)
    printf(" x %d", info.levels[1]);
  printf("\nplan time         %.4f s\n", plan_time);
  printf("solve time        %.4f s (median of %d, min %.4f s)\n", times[repeat / 2], repeat,
         times[0]);
  printf("backward error    %.2e  (||Au-f|| / (||A|| ||u|| + ||f||), inf-norms)\n", berr);
  printf("discretization    %.2e  (max-norm error vs exact solution, relative)\n", derr);
  printf("pscr %s\n", pscr_version());
  rc = 0;
out:
  pscr_plan_destroy(plan);
  pscr_problem_destroy(pb);
  free(b);
  free(ue);
  free(u);
  free(au);
  free(times);
  return rc;
}

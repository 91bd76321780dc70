/*
 * pscr-bench: solve time of the paper's test problems at the sizes of its
 * Tables 1-4, side by side with the paper's single-core Intel i5-6600 time.
 * Each problem is verified first (backward error and discretization error
 * against the manufactured solution), then timed: one warm-up solve, then
 * the median of --repeat solves. Plan (initialization) time is reported
 * apart, as in the paper.
 *
 *   pscr-bench [--tables poisson2d,helmholtz2d,poisson3d,helmholtz3d]
 *              [--max-n N] [--repeat R] [--threads T] [--backend cpu|cuda|auto]
 *              [--csv FILE]
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_common.h"
#include "paper_tables.h"
#include "pscr.h"

typedef struct result {
  double plan_s, solve_s, berr, derr;
  int ok;
} result;

static result run_one(const paper_table *t, int n, int repeat, const pscr_options *opts)
{
  result res = {0};
  int sizes[3] = {n, n, n};
  /* Helmholtz: omega h = 0.5 on the unit interval, a typical resolution. */
  double omega = 0.5 * (n - 1);
  pscr_problem *pb = NULL;
  pscr_plan *plan = NULL;
  double *b = NULL, *u = NULL, *ue = NULL, *au = NULL, *times = NULL;
  if (pscr_problem_create(&pb, t->helmholtz ? PSCR_PROBLEM_HELMHOLTZ : PSCR_PROBLEM_POISSON,
                          t->ndim, sizes, NULL, 0.0, omega))
    goto out;
  int cplx = pb->dtype == PSCR_C64;
  size_t N = (size_t)pb->n[0] * pb->n[1] * pb->n[2], words = N * (cplx ? 2 : 1);
  b = malloc(words * sizeof *b);
  u = malloc(words * sizeof *u);
  ue = malloc(words * sizeof *ue);
  au = malloc(words * sizeof *au);
  times = malloc((size_t)repeat * sizeof *times);
  if (!b || !u || !ue || !au || !times || pscr_problem_manufactured(pb, b, ue))
    goto out;
  double t0 = cli_now();
  pscr_status st = pscr_plan_create(&plan, pb->dtype, t->ndim, pb->pencils, pb->shift, opts);
  res.plan_s = cli_now() - t0;
  if (st) {
    fprintf(stderr, "%s n=%d: plan: %s (%s)\n", t->name, n, pscr_status_string(st), pscr_last_error());
    goto out;
  }
  /* Verify (this solve is also the warm-up). */
  if ((st = pscr_solve(plan, b, u))) {
    fprintf(stderr, "%s n=%d: solve: %s (%s)\n", t->name, n, pscr_status_string(st), pscr_last_error());
    goto out;
  }
  cli_verify(pb, b, u, ue, au, &res.berr, &res.derr);
  for (int r = 0; r < repeat; r++) {
    t0 = cli_now();
    pscr_solve(plan, b, u);
    times[r] = cli_now() - t0;
  }
  qsort(times, (size_t)repeat, sizeof *times, cli_cmp_double);
  res.solve_s = times[repeat / 2];
  res.ok = 1;
out:
  pscr_plan_destroy(plan);
  pscr_problem_destroy(pb);
  free(b);
  free(u);
  free(ue);
  free(au);
  free(times);
  return res;
}

int main(int argc, char **argv)
{
  const char *tables = "poisson2d,helmholtz2d,poisson3d,helmholtz3d", *csv_path = NULL;
  int max_n = 1 << 30, repeat = 5;
  pscr_options opts;
  pscr_options_init(&opts);
  opts.check_finite = 0; /* time the solver, not the input scan */
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!strcmp(argv[a], "--tables"))
      tables = argv[a + 1];
    else if (!strcmp(argv[a], "--max-n"))
      max_n = atoi(argv[a + 1]);
    else if (!strcmp(argv[a], "--repeat"))
      repeat = atoi(argv[a + 1]) > 0 ? atoi(argv[a + 1]) : 1;
    else if (!strcmp(argv[a], "--threads"))
      opts.num_threads = atoi(argv[a + 1]);
    else if (!strcmp(argv[a], "--csv"))
      csv_path = argv[a + 1];
    else if (!strcmp(argv[a], "--backend"))
      opts.backend = !strcmp(argv[a + 1], "cpu")    ? PSCR_BACKEND_CPU
                     : !strcmp(argv[a + 1], "cuda") ? PSCR_BACKEND_CUDA
                                                    : PSCR_BACKEND_AUTO;
    else {
      fprintf(stderr, "usage: %s [--tables LIST] [--max-n N] [--repeat R] [--threads T] "
                      "[--backend cpu|cuda|auto] [--csv FILE]\n", argv[0]);
      return 2;
    }
  }
  FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
  if (csv)
    fprintf(csv, "problem,n,dofs,backend,threads,plan_s,solve_s,paper_i5_s,ratio_i5,"
                 "backward_error,discretization_error\n");
  printf("pscr %s, solve time = median of %d after a verified warm-up; paper: one core of an "
         "i5-6600\n", pscr_version(), repeat);
  printf("%-12s %5s %11s %10s %10s %10s %7s %9s %9s\n", "problem", "n", "unknowns", "plan s",
         "solve s", "paper s", "speedup", "bwd err", "disc err");
  int failures = 0;
  for (int ti = 0; ti < 4; ti++) {
    const paper_table *t = &paper_tables[ti];
    if (!strstr(tables, t->name))
      continue;
    for (int r = 0; r < t->rows; r++) {
      int n = t->row[r].n;
      if (n > max_n)
        continue;
      result res = run_one(t, n, repeat, &opts);
      if (!res.ok) {
        failures++;
        continue;
      }
      double dofs = pow(n, t->ndim);
      printf("%-12s %5d %11.0f %10.4f %10.4f %10.4f %7.2f %9.1e %9.1e\n", t->name, n, dofs,
             res.plan_s, res.solve_s, t->row[r].i5, t->row[r].i5 / res.solve_s, res.berr, res.derr);
      fflush(stdout);
      if (csv)
        fprintf(csv, "%s,%d,%.0f,%s,%d,%.6f,%.6f,%.6f,%.3f,%.3e,%.3e\n", t->name, n, dofs,
                opts.backend == PSCR_BACKEND_CUDA ? "cuda" : "cpu", opts.num_threads, res.plan_s,
                res.solve_s, t->row[r].i5, t->row[r].i5 / res.solve_s, res.berr, res.derr);
    }
  }
  if (csv)
    fclose(csv);
  return failures ? 1 : 0;
}

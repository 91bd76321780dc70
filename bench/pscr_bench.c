/*
 * pscr-bench: solve time of the paper's test problems at the sizes of its
 * Tables 1-4. Each problem is verified first (backward error and
 * discretization error against the manufactured solution), then timed. Plan
 * (initialization) time is reported apart, as in the paper.
 *
 * CPU (and auto): one warm-up solve, then the median of --repeat (default 5)
 * pscr_solve calls, beside the paper's single-core Intel i5-6600 time.
 *
 * --backend cuda: beside the paper's GTX 1080 Ti execution and transfer
 * times, the median and minimum of --repeat (default and at least 10)
 * device-only pscr_solve_device calls timed with CUDA events, the pinned
 * H2D/D2H transfer times of f and u, and the host-API pscr_solve time
 * (pageable transfers included); see gpu_timing.c. The device solution is
 * checked against the host API's (bitwise or within 1e-12 relative).
 *
 *   pscr-bench [--tables poisson2d,helmholtz2d,poisson3d,helmholtz3d]
 *              [--min-n N] [--max-n N] [--repeat R] [--threads T]
 *              [--backend cpu|cuda|auto] [--device D] [--csv FILE]
 *
 * Exit status: 0, 1 when a size failed, 2 on a bad command line (or an
 * unwritable FILE), 77 --backend cuda without a CUDA build or device.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_common.h"
#include "gpu_timing.h"
#include "paper_tables.h"
#include "pscr.h"

/* Device result vs host-API result: beyond this relative difference a row fails. */
#define DEVICE_HOST_TOL 1e-12
/* Host-API timing on cuda: stop after this many seconds once 3 solves are in. */
#define HOST_API_BUDGET_S 2.0


/* One verified model problem: plan, right-hand side b, solution u. */
typedef struct bench_case {
  pscr_problem *pb;
  pscr_plan *plan;
  double *b, *u, *ue, *au; /* rhs, solution, exact solution, scratch */
  size_t N;                /* unknowns */
  int cplx;
  double plan_s, berr, derr;
} bench_case;

static void case_free(bench_case *c)
{
  pscr_plan_destroy(c->plan);
  pscr_problem_destroy(c->pb);
  free(c->b);
  free(c->u);
  free(c->ue);
  free(c->au);
  memset(c, 0, sizeof *c);
}

/* Build the problem, time the plan, solve once with host arrays and verify. */
static int case_setup(bench_case *c, const paper_table *t, int n, const pscr_options *opts)
{
  int sizes[3] = {n, n, n};
  /* Helmholtz: omega h = 0.5 on the unit interval, a typical resolution. */
  double omega = 0.5 * (n - 1);
  pscr_status st;
  memset(c, 0, sizeof *c);
  if ((st = pscr_problem_create(&c->pb, t->helmholtz ? PSCR_PROBLEM_HELMHOLTZ : PSCR_PROBLEM_POISSON,
                                t->ndim, sizes, NULL, 0.0, omega))) {
    fprintf(stderr, "%s n=%d: ", t->name, n);
    cli_report("problem", st);
    return 0;
  }
  c->cplx = c->pb->dtype == PSCR_C64;
  c->N = (size_t)c->pb->n[0] * c->pb->n[1] * c->pb->n[2];
  size_t words = c->N * (c->cplx ? 2 : 1);
  c->b = malloc(words * sizeof *c->b);
  c->u = malloc(words * sizeof *c->u);
  c->ue = malloc(words * sizeof *c->ue);
  c->au = malloc(words * sizeof *c->au);
  if (!c->b || !c->u || !c->ue || !c->au || pscr_problem_manufactured(c->pb, c->b, c->ue)) {
    fprintf(stderr, "%s n=%d: out of host memory for 4 vectors of %zu values\n", t->name, n, c->N);
    return 0;
  }
  double t0 = cli_now();
  st = pscr_plan_create(&c->plan, c->pb->dtype, t->ndim, c->pb->pencils, c->pb->shift, opts);
  c->plan_s = cli_now() - t0;
  if (st) {
    fprintf(stderr, "%s n=%d: ", t->name, n);
    cli_report("plan", st);
    return 0;
  }
  /* Verify (this solve is also the warm-up). */
  if ((st = pscr_solve(c->plan, c->b, c->u))) {
    fprintf(stderr, "%s n=%d: ", t->name, n);
    cli_report("solve", st);
    return 0;
  }
  cli_verify(c->pb, c->b, c->u, c->ue, c->au, &c->berr, &c->derr);
  return 1;
}

/* Median seconds of up to repeat pscr_solve(b -> dst) calls; fewer (at least
 * 3) when they pass budget_s. */
static double host_solve_median(bench_case *c, double *dst, int repeat, double budget_s)
{
  double *times = malloc((size_t)repeat * sizeof *times), start = cli_now(), med = NAN;
  int r = 0;
  if (!times)
    return NAN;
  for (; r < repeat && (r < 3 || cli_now() - start < budget_s); r++) {
    double t0 = cli_now();
    pscr_solve(c->plan, c->b, dst);
    times[r] = cli_now() - t0;
  }
  qsort(times, (size_t)r, sizeof *times, cli_cmp_double);
  med = times[r / 2];
  free(times);
  return med;
}

/* CPU (and auto) row: host-API solve time against the paper's i5-6600. */
static int run_cpu(const paper_table *t, const paper_row *row, int repeat, const pscr_options *opts,
                   FILE *csv)
{
  bench_case c;
  int n = row->n;
  if (!case_setup(&c, t, n, opts)) {
    case_free(&c);
    return 0;
  }
  double solve_s = host_solve_median(&c, c.u, repeat, INFINITY), dofs = pow(n, t->ndim);
  printf("%-12s %5d %11.0f %10.4f %10.4f %10.4f %7.2f %9.1e %9.1e\n", t->name, n, dofs, c.plan_s,
         solve_s, row->i5, row->i5 / solve_s, c.berr, c.derr);
  if (csv)
    fprintf(csv, "%s,%d,%.0f,%s,%d,%.6f,%.6f,%.6f,%.3f,%.3e,%.3e\n", t->name, n, dofs,
            opts->backend == PSCR_BACKEND_CUDA ? "cuda" : "cpu", opts->num_threads, c.plan_s,
            solve_s, row->i5, row->i5 / solve_s, c.berr, c.derr);
  case_free(&c);
  return 1;
}

/* CUDA row: device-only solve and transfers against the paper's GTX 1080 Ti. */
static int run_cuda(const paper_table *t, const paper_row *row, int repeat, const pscr_options *opts,
                    FILE *csv)
{
  bench_case c;
  gpu_timing g;
  int n = row->n, ok = 0;
  if (!case_setup(&c, t, n, opts))
    goto out;
  /* au is free after verification: the host-API solves write there, u stays
   * the reference for the device result. */
  double host_ms = 1e3 * host_solve_median(&c, c.au, repeat, HOST_API_BUDGET_S);
  pscr_status st = gpu_time_solve(c.plan, opts->device, c.pb->dtype, c.N, c.b, c.u, repeat, &g);
  if (st) {
    fprintf(stderr, "%s n=%d: device timing: %s\n", t->name, n, g.msg);
    goto out;
  }
  double dofs = pow(n, t->ndim), gtx_ms = 1e3 * row->gtx, xfer_ms = 1e3 * row->transfer;
  double speedup = gtx_ms / g.solve_ms_median;
  char match[16];
  ok = g.bitwise || g.rel_diff <= DEVICE_HOST_TOL;
  if (g.bitwise)
    snprintf(match, sizeof match, "bitwise");
  else
    snprintf(match, sizeof match, "%.1e%s", g.rel_diff, ok ? "" : "!");
  printf("%-12s %5d %11.0f %8.4f %9.4f %9.4f %8.3f %8.3f %9.3f %8.2f %8.2f %7.2f %8.1e %8.1e %8s\n",
         t->name, n, dofs, c.plan_s, g.solve_ms_median, g.solve_ms_min, g.h2d_ms, g.d2h_ms, host_ms,
         gtx_ms, xfer_ms, speedup, c.berr, c.derr, match);
  if (!ok)
    fprintf(stderr, "%s n=%d: device result differs from the host API's by %.3e (> %.0e)\n",
            t->name, n, g.rel_diff, DEVICE_HOST_TOL);
  if (csv)
    fprintf(csv, "%s,%d,%.0f,cuda,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.4f,%.4f,%.3f,%.3e,%.3e,%.3e\n",
            t->name, n, dofs, c.plan_s, g.solve_ms_median, g.solve_ms_min, g.h2d_ms, g.d2h_ms,
            host_ms, gtx_ms, xfer_ms, speedup, c.berr, c.derr, g.bitwise ? 0.0 : g.rel_diff);
out:
  case_free(&c);
  return ok;
}

static void usage(FILE *out)
{
  fprintf(out,
          "usage: pscr-bench [--tables LIST] [--min-n N] [--max-n N] [--repeat R] [--threads T]\n"
          "                  [--backend cpu|cuda|auto] [--device D] [--csv FILE]\n"
          "  LIST: comma-separated poisson2d,helmholtz2d,poisson3d,helmholtz3d (default all;\n"
          "        --problem is the same); the rows with min-n <= n <= max-n (N >= 0);\n"
          "  R >= 1 timed solves (default 5; cuda: at least %d), T >= 1 threads (default all),\n"
          "  D >= 0 the CUDA device; --csv FILE also writes the rows as CSV.\n"
          "Exit status: 0, 1 when a size failed, 2 on a bad command line or an unwritable\n"
          "FILE, 77 with --backend cuda without a CUDA build or device.\n",
          GPU_MIN_REPEAT);
}

int main(int argc, char **argv)
{
  static const char *const table_names[] = {"poisson2d", "helmholtz2d", "poisson3d",
                                            "helmholtz3d"};
  static const char *const backends[] = {"cpu", "cuda", "auto"};
  static const pscr_backend backend_of[] = {PSCR_BACKEND_CPU, PSCR_BACKEND_CUDA,
                                            PSCR_BACKEND_AUTO};
  const char *csv_path = NULL;
  unsigned tables = 0xf; /* bit k: table_names[k] */
  int min_n = 0, max_n = INT_MAX, repeat = 0, backend = 2;
  pscr_options opts;
  pscr_options_init(&opts);
  opts.planner = PSCR_PLANNER_NONE; /* the PSCR reduction is what this tool measures */
  opts.check_finite = 0; /* time the solver, not the input scan */
  cli_args c;
  cli_init(&c, "pscr-bench", argc, argv);
  while (cli_next(&c)) {
    int bad = 0;
    if (cli_is(&c, "-h") || cli_is(&c, "--help")) {
      usage(stdout);
      return 0;
    } else if (cli_is(&c, "--tables") || cli_is(&c, "--problem"))
      bad = cli_choice_set(&c, table_names, 4, &tables);
    else if (cli_is(&c, "--min-n"))
      bad = cli_int(&c, 0, INT_MAX, &min_n);
    else if (cli_is(&c, "--max-n"))
      bad = cli_int(&c, 0, INT_MAX, &max_n);
    else if (cli_is(&c, "--repeat"))
      bad = cli_int(&c, 1, 1000000, &repeat);
    else if (cli_is(&c, "--threads"))
      bad = cli_int(&c, 1, 4096, &opts.num_threads);
    else if (cli_is(&c, "--device"))
      bad = cli_int(&c, 0, INT_MAX, &opts.device);
    else if (cli_is(&c, "--csv"))
      bad = !(csv_path = cli_value(&c));
    else if (cli_is(&c, "--backend"))
      bad = cli_choice(&c, backends, 3, &backend);
    else
      return cli_unknown(&c);
    if (bad)
      return CLI_USAGE;
  }
  if (min_n > max_n)
    return cli_error(&c, "--min-n %d is above --max-n %d: no size to run", min_n, max_n);
  opts.backend = backend_of[backend];
  int cuda = opts.backend == PSCR_BACKEND_CUDA;
  char device[320] = "";
  if (cuda) {
    pscr_status st = gpu_describe(opts.device, device, sizeof device);
    if (st) {
      fprintf(stderr, "pscr-bench: --backend cuda: %s\n", device);
      return st == PSCR_ERROR_NOT_SUPPORTED ? 77 : 1;
    }
    repeat = repeat > GPU_MIN_REPEAT ? repeat : GPU_MIN_REPEAT;
  } else if (!repeat) {
    repeat = 5;
  }
  FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
  if (csv_path && !csv) {
    fprintf(stderr, "pscr-bench: --csv %s: %s\n", csv_path, strerror(errno));
    return CLI_USAGE;
  }
  if (csv && cuda)
    fprintf(csv, "# pscr %s, device: %s\n"
                 "problem,n,dofs,backend,plan_s,solve_ms_median,solve_ms_min,h2d_ms,d2h_ms,"
                 "host_api_ms,paper_gtx_ms,paper_transfer_ms,speedup,backward_error,"
                 "discretization_error,device_host_rel_diff\n", pscr_version(), device);
  else if (csv)
    fprintf(csv, "problem,n,dofs,backend,threads,plan_s,solve_s,paper_i5_s,ratio_i5,"
                 "backward_error,discretization_error\n");
  if (cuda) {
    printf("pscr %s on %s\n"
           "solve = pscr_solve_device on device arrays, CUDA events, median and min of %d after "
           "%d warm-ups; h2d/d2h = f and u, pinned, median of %d; host = pscr_solve on host "
           "arrays (pageable transfers included), median; paper: GTX 1080 Ti; speedup = paper gtx / "
           "solve; dev=host: device u against the host API's\n",
           pscr_version(), device, repeat, GPU_WARMUP, GPU_XFER_REPEAT);
    printf("%-12s %5s %11s %8s %9s %9s %8s %8s %9s %8s %8s %7s %8s %8s %8s\n", "problem", "n",
           "unknowns", "plan s", "solve ms", "min ms", "h2d ms", "d2h ms", "host ms", "gtx ms",
           "gtx xfer", "speedup", "bwd err", "disc err", "dev=host");
  } else {
    printf("pscr %s, solve time = median of %d after a verified warm-up; paper: one core of an "
           "i5-6600\n", pscr_version(), repeat);
    printf("%-12s %5s %11s %10s %10s %10s %7s %9s %9s\n", "problem", "n", "unknowns", "plan s",
           "solve s", "paper s", "speedup", "bwd err", "disc err");
  }
  fflush(stdout);
  int failures = 0;
  for (int ti = 0; ti < 4; ti++) {
    const paper_table *t = &paper_tables[ti];
    int k = 0;
    while (k < 4 && strcmp(t->name, table_names[k]))
      k++;
    if (k == 4 || !(tables & (1u << k)))
      continue;
    for (int r = 0; r < t->rows; r++) {
      const paper_row *row = &t->row[r];
      if (row->n < min_n || row->n > max_n)
        continue;
      if (!(cuda ? run_cuda : run_cpu)(t, row, repeat, &opts, csv))
        failures++;
      fflush(stdout);
      if (csv)
        fflush(csv);
    }
  }
  if (csv)
    fclose(csv);
  return failures ? 1 : 0;
}

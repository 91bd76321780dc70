/*
 * pscr-solve: build a model problem (paper section 5.1), solve it, and report
 * sizes, backend, plan time, solve time, backward error and discretization
 * error against the manufactured solution.
 *
 *   pscr-solve [--problem poisson|helmholtz] [--dim 2|3] [-n N] [--graded G]
 *              [--omega W] [--dtype double|float] [--backend auto|cpu|cuda]
 *              [--threads T] [--repeat R] [--batch K] [--flags NAME,...]
 *              [--method M[,M]] [--planner none|estimate|measure] [--refine K]
 *              [--refine-single]
 *
 * --dtype float solves in single precision (R32 / C32): the problem's
 * factors, shift and load are rounded to float first and the errors are
 * evaluated in double against those rounded numbers, as pscr-precision
 * does, so the backward error is the float solve's own. --batch K solves K
 * right-hand sides (f_r = (r + 1) f, so each has a known solution) with one
 * pscr_solve_batch and reports the time per right-hand side. --method sets
 * pscr_options.method: auto, reduction or transform for dimension 1 (and
 * 2 in 3D).
 *
 * Exit status: 0; 1 when the library reports an error (its cause first);
 * 2 on a bad command line.
 */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "pscr.h"

#define PROG "pscr-solve"

static void usage(FILE *out)
{
  fprintf(out,
          "usage: " PROG " [--problem poisson|helmholtz] [--dim 2|3] [-n N] [--graded G]\n"
          "                  [--omega W] [--dtype double|float] [--backend auto|cpu|cuda]\n"
          "                  [--threads T] [--repeat R] [--batch K] [--flags NAME,...]\n"
          "                  [--method M[,M]] [--planner none|estimate|measure]\n"
          "                  [--refine K] [--refine-single]\n"
          "defaults: 2D Poisson, n = 1023 (2D) or 127 (3D), uniform mesh (G in [0, 1)),\n"
          "          omega = 40, double, backend auto (CUDA when present), all threads\n"
          "          (T >= 1), 5 timed solves, one right-hand side, no flags\n"
          "--dtype float: the factors and the load rounded to float, a single precision\n"
          "          plan (R32 / C32); errors evaluated in double\n"
          "--batch K: K right-hand sides in one pscr_solve_batch (time per right-hand side)\n"
          "--flags: expert/test switches of pscr_options.flags by name (docs/user-guide.md)\n"
          "--method: how dimension 1 (and 2 in 3D) is solved: auto, reduction (PSCR) or\n"
          "          transform (dense eigenvector transform), e.g. transform,reduction\n"
          "--planner: how auto methods are chosen: estimate (the cost model, default),\n"
          "          none (the reduction) or measure (times each candidate)\n"
          "--refine K: K steps of iterative refinement after each solve (0 .. 8)\n"
          "--refine-single: the refinement's corrections by a float plan (double only)\n"
          "Exit status: 0, 1 on a library error, 2 on a bad command line.\n");
}

/* Round count doubles to float precision in place. */
static void round_to_float(double *x, size_t count)
{
  for (size_t i = 0; i < count; i++)
    x[i] = (double)(float)x[i];
}

int main(int argc, char **argv)
{
  static const char *const problems[] = {"poisson", "helmholtz"};
  static const char *const dtypes[] = {"double", "float"};
  static const char *const backends[] = {"auto", "cpu", "cuda"};
  static const char *const planners[] = {"none", "estimate", "measure"};
  int planner = PSCR_PLANNER_ESTIMATE; /* the library's default; planners[] is in enum order */
  int method[2] = {0, 0}, nmethods = 0;
  const char *method_text = "";
  static const pscr_backend backend_of[] = {PSCR_BACKEND_AUTO, PSCR_BACKEND_CPU,
                                            PSCR_BACKEND_CUDA};
  int problem = 0, ndim = 2, n = 0, repeat = 5, single = 0, backend = 0, nrhs = 1, threads = 0;
  double grading = 0.0, omega = 40.0;
  pscr_options opts;
  pscr_options_init(&opts);

  cli_args c;
  cli_init(&c, PROG, argc, argv);
  while (cli_next(&c)) {
    int bad = 0;
    if (cli_is(&c, "-h") || cli_is(&c, "--help")) {
      usage(stdout);
      return 0;
    } else if (cli_is(&c, "--problem"))
      bad = cli_choice(&c, problems, 2, &problem);
    else if (cli_is(&c, "--dim"))
      bad = cli_int(&c, 2, 3, &ndim);
    else if (cli_is(&c, "-n"))
      bad = cli_int(&c, 1, INT_MAX, &n);
    else if (cli_is(&c, "--graded"))
      bad = cli_double(&c, 0.0, 0, 1.0, 1, &grading);
    else if (cli_is(&c, "--omega"))
      bad = cli_double(&c, 0.0, 1, INFINITY, 1, &omega);
    else if (cli_is(&c, "--dtype"))
      bad = cli_choice(&c, dtypes, 2, &single);
    else if (cli_is(&c, "--backend"))
      bad = cli_choice(&c, backends, 3, &backend);
    else if (cli_is(&c, "--threads"))
      bad = cli_int(&c, 1, 4096, &threads);
    else if (cli_is(&c, "--repeat"))
      bad = cli_int(&c, 1, 1000000, &repeat);
    else if (cli_is(&c, "--batch"))
      bad = cli_int(&c, 1, INT_MAX, &nrhs);
    else if (cli_is(&c, "--flags"))
      bad = cli_flags(&c, &opts.flags);
    else if (cli_is(&c, "--planner"))
      bad = cli_choice(&c, planners, 3, &planner);
    else if (cli_is(&c, "--refine"))
      bad = cli_int(&c, 0, PSCR_REFINE_MAX, &opts.refine);
    else if (cli_is(&c, "--refine-single")) {
      bad = cli_switch(&c);
      opts.refine_single = 1;
    }
    else if (cli_is(&c, "--method")) {
      bad = cli_choice_seq(&c, cli_method_words(), CLI_NMETHODS, method, 2, &nmethods);
      method_text = c.inline_val ? c.inline_val : c.argv[c.next - 1];
    }
    else
      return cli_unknown(&c);
    if (bad)
      return CLI_USAGE;
  }
  if (nmethods > ndim - 1)
    return cli_error(&c, "--method '%s': %d entries, but a %dD problem has %d reduced dimension%s",
                     method_text, nmethods, ndim, ndim - 1, ndim == 3 ? "s" : "");
  for (int d = 0; d < nmethods; d++)
    opts.method[d] = (pscr_method)method[d]; /* the words are in enum order */
  opts.planner = (pscr_planner)planner; /* the order of planners[] */
  if (n == 0)
    n = ndim == 3 ? 127 : 1023;
  opts.backend = backend_of[backend];
  opts.num_threads = threads;
  if (nrhs > 1)
    opts.max_batch = nrhs; /* CUDA: the whole batch in one launch sequence */
  const pscr_problem_kind kind = problem ? PSCR_PROBLEM_HELMHOLTZ : PSCR_PROBLEM_POISSON;
  int sizes[3] = {n, n, n};

  pscr_problem *pb = NULL;
  pscr_plan *plan = NULL;
  double *b = NULL, *ue = NULL, *bc = NULL, *uc = NULL, *uec = NULL, *au = NULL, *times = NULL;
  void *f = NULL, *u = NULL;
  float *store = NULL, shift32[2];
  int rc = 1;
  pscr_status st = pscr_problem_create(&pb, kind, ndim, sizes, NULL, grading, omega);
  if (st) {
    cli_report(PROG, st);
    return 1;
  }
  const int cplx = pb->dtype == PSCR_C64;
  const pscr_dtype dtype = !single ? pb->dtype : cplx ? PSCR_C32 : PSCR_R32;
  const size_t N = (size_t)pb->n[0] * pb->n[1] * pb->n[2], words = N * (cplx ? 2 : 1);
  const size_t es = single ? sizeof(float) : sizeof(double);
  /* f and u hold nrhs vectors: refuse sizes whose byte counts overflow. */
  if ((double)words * nrhs * es > (double)SIZE_MAX / 4) {
    fprintf(stderr, PROG ": %zu unknowns x %d right-hand sides: more memory than can be "
                    "addressed\n", N, nrhs);
    goto out;
  }
  b = malloc(words * sizeof *b);
  ue = malloc(words * sizeof *ue);
  bc = malloc(words * sizeof *bc);
  uc = malloc(words * sizeof *uc);
  uec = malloc(words * sizeof *uec);
  au = malloc(words * sizeof *au);
  times = malloc((size_t)repeat * sizeof *times);
  f = malloc(words * nrhs * es);
  u = malloc(words * nrhs * es);
  if (!b || !ue || !bc || !uc || !uec || !au || !times || !f || !u) {
    fprintf(stderr, PROG ": out of host memory for %zu unknowns x %d right-hand sides\n", N,
            nrhs);
    goto out;
  }
  if ((st = pscr_problem_manufactured(pb, b, ue))) {
    cli_report(PROG, st);
    goto out;
  }
  pscr_pencil pen[3];
  memcpy(pen, pb->pencils, sizeof pen);
  if (single) {
    /* The float problem: its factors, shift and load are what the double
     * verification below applies, so they are rounded in place first. */
    for (int d = 0; d < ndim; d++) {
      const pscr_pencil *q = &pb->pencils[d];
      double *arr[4] = {(double *)q->a_diag, (double *)q->a_off, (double *)q->m_diag,
                        (double *)q->m_off};
      for (int a = 0; a < 4; a++)
        if (arr[a])
          round_to_float(arr[a], (size_t)((a & 1) ? q->n - 1 : q->n) * (cplx ? 2 : 1));
    }
    round_to_float(pb->shift, 2);
    if (cli_float_pencils(pb, pen, shift32, &store)) {
      fprintf(stderr, PROG ": out of host memory for the float pencils\n");
      goto out;
    }
  }
  /* f_r = (r + 1) b: right-hand side r's solution is (r + 1) ue. */
  for (int r = 0; r < nrhs; r++)
    for (size_t i = 0; i < words; i++) {
      const double v = (r + 1) * b[i];
      if (single)
        ((float *)f)[(size_t)r * words + i] = (float)v;
      else
        ((double *)f)[(size_t)r * words + i] = v;
    }

  double t0 = cli_now();
  st = pscr_plan_create(&plan, dtype, ndim, pen,
                        single ? (const void *)shift32 : (const void *)pb->shift, &opts);
  const double plan_time = cli_now() - t0;
  if (st) {
    cli_report(PROG, st);
    goto out;
  }
  pscr_info info;
  pscr_plan_info(plan, &info);
  for (int r = 0; r < repeat + 1; r++) { /* the first solve is a warm-up */
    t0 = cli_now();
    st = nrhs == 1 ? pscr_solve(plan, f, u) : pscr_solve_batch(plan, nrhs, f, N, u, N);
    const double t = cli_now() - t0;
    if (st) {
      cli_report(PROG, st);
      goto out;
    }
    if (r > 0)
      times[r - 1] = t;
  }
  qsort(times, (size_t)repeat, sizeof *times, cli_cmp_double);

  /* Every right-hand side verified in double; the worst is reported. */
  double berr = 0, derr = 0;
  for (int r = 0; r < nrhs; r++) {
    for (size_t i = 0; i < words; i++) {
      const size_t k = (size_t)r * words + i;
      bc[i] = cli_word(single, f, k);
      uc[i] = cli_word(single, u, k);
      uec[i] = (r + 1) * ue[i];
    }
    double be, de;
    cli_verify(pb, bc, uc, uec, au, &be, &de);
    berr = fmax(berr, be);
    derr = fmax(derr, de);
  }

  char thr[32];
  printf("problem           %s %dD, %s mesh\n",
         kind == PSCR_PROBLEM_POISSON ? "Poisson (eq. 31)" : "Helmholtz with ABC (eqs. 33-35)",
         ndim, grading > 0 ? "graded" : "uniform");
  if (kind == PSCR_PROBLEM_HELMHOLTZ)
    printf("omega             %g\n", omega);
  printf("size              %d x %d", pb->n[0], pb->n[1]);
  if (ndim == 3)
    printf(" x %d", pb->n[2]);
  printf(" = %zu unknowns (%s%s)\n", N, cplx ? "complex " : "",
         single ? "float; factors and load rounded to float, errors evaluated in double"
                : "double");
  printf("backend           %s", info.backend == PSCR_BACKEND_CUDA ? "cuda" : "cpu");
  if (info.backend == PSCR_BACKEND_CPU)
    printf(" (%s)", cli_threads(info.num_threads, thr, sizeof thr));
  printf("\nmethod            %s", cli_method_name(info.method[0]));
  if (ndim == 3)
    printf(" x %s", cli_method_name(info.method[1]));
  printf("\nlevels            %d", info.levels[0]);
  if (ndim == 3)
    printf(" x %d", info.levels[1]);
  printf("\nplan memory       %.3g MB host", 1e-6 * (double)info.workspace_bytes);
  if (info.backend == PSCR_BACKEND_CUDA)
    printf(", %.3g MB device", 1e-6 * (double)info.device_bytes);
  printf("\nplan time         %.4f s\n", plan_time);
  for (int k = 0; k < info.ncandidates; k++) {
    const pscr_candidate *cd = &info.candidate[k];
    printf("%s %-9s", k ? "                 " : "candidates       ", cli_method_name(cd->method[0]));
    if (ndim == 3)
      printf(" x %-9s", cli_method_name(cd->method[1]));
    printf(" estimate %.3e s", cd->estimate_seconds);
    if (cd->measured_seconds > 0)
      printf(", measured %.3e s", cd->measured_seconds);
    if (cd->status)
      printf(", not taken: %s", cd->reason);
    printf("%s\n", k == info.chosen ? "  (chosen)" : "");
  }
  if (nrhs == 1)
    printf("solve time        %.4f s (median of %d, min %.4f s)\n", times[repeat / 2], repeat,
           times[0]);
  else
    printf("solve time        %.4f s per right-hand side (pscr_solve_batch of %d: median of "
           "%d, min %.4f s per right-hand side)\n",
           times[repeat / 2] / nrhs, nrhs, repeat, times[0] / nrhs);
  printf("backward error    %.2e  (||Au-f|| / (||A|| ||u|| + ||f||), inf-norms%s)\n", berr,
         nrhs > 1 ? ", worst right-hand side" : "");
  printf("discretization    %.2e  (max-norm error vs exact solution, relative%s)\n", derr,
         nrhs > 1 ? ", worst" : "");
  printf("pscr %s\n", pscr_version());
  rc = 0;
out:
  pscr_plan_destroy(plan);
  pscr_problem_destroy(pb);
  free(b);
  free(ue);
  free(bc);
  free(uc);
  free(uec);
  free(au);
  free(times);
  free(f);
  free(u);
  free(store);
  return rc;
}

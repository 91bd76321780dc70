/*
 * pscr-gmres: pscr as the preconditioner of GMRES for a heterogeneous
 * Helmholtz problem,
 *
 *   -lap u - omega^2 nu(x)^2 u = f on (0,1)^2,
 *
 * with the second-order absorbing boundary condition of the paper (eqs.
 * 33-35) and a refractive index nu that is 1 near the boundary and rises to
 * --nmax (default 1.5) in a smooth inclusion around (0.5, 0.5):
 * nu^2 = 1 + (nmax^2 - 1) exp(-r^2 / (2 0.15^2)). The source f is a narrow
 * Gaussian at (0.25, 0.3). Complex double arithmetic (C99 double _Complex,
 * interleaved like PSCR_C64).
 *
 * Discretization: bilinear FE on n x n nodes of a uniform or graded tensor
 * mesh (boundary nodes included), the factors of pscr_helmholtz_factors at
 * the background wave number omega (consistent mass, ABC rows):
 *
 *   A = A1 (x) M2 + M1 (x) A2 - omega^2 M1 (x) M2 - omega^2 D,
 *   D = diag((nu^2 - 1) w1_i w2_j),
 *
 * the first three terms applied with pscr_operator_apply, the heterogeneous
 * part D by nodal quadrature (w: lumped masses, the row sums of the real part
 * of M) applied here. The load is b = (w1 (x) w2) f(nodes).
 *
 * Right-preconditioned restarted GMRES(m) (modified Gram-Schmidt, complex
 * Givens rotations), so the residual it monitors is the true ||b - A x|| in
 * every variant; it stops at ||r|| / ||b|| <= tol (1e-8), checking the
 * recomputed residual at each restart. Preconditioners compared:
 *
 *   none, Jacobi (diag(A));
 *   pscr, c = -kbar^2:  one pscr_solve of the constant-wave-number operator
 *       A1 (x) M2 + M1 (x) A2 + c M1 (x) M2 with the mean wave number,
 *       kbar^2 = omega^2 (mass-weighted mean of nu^2): A - P is a compact,
 *       smooth perturbation, so the count is independent of h;
 *   pscr, c = -(1 - 0.5i) kbar^2: the complex-shifted Laplacian (Erlangga,
 *       Vuik, Oosterlee), robust for large contrasts, more iterations.
 *
 * The operator, load, plans and the GMRES loop are gmres_problem.c, shared
 * with pscr-gmres-gpu (gmres_helmholtz_gpu.cu).
 *
 *   pscr-gmres [-n 127,255,511] [--omega W] [--nmax N] [--graded G] [--tol T]
 *              [--restart M] [--maxit K] [--threads T] [--[no-]baseline] [--test]
 *
 * Exit status: 0, 1 on an error or a failed --test check, 2 on a bad
 * command line.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "gmres_problem.h"
#include "krylov_common.h"
#include "pscr.h"

typedef struct run_cfg {
  double omega, nmax, grading, tol;
  int restart, maxit, baseline; /* baseline: largest n for GMRES and Jacobi-GMRES */
} run_cfg;

static int run_size(int n, const run_cfg *cfg, const pscr_options *opts,
                    krylov_result res[R_COUNT])
{
  helm_op op;
  pscr_plan *plan = NULL;
  int rc = 1;
  if (helm_op_init(&op, n, cfg->omega, cfg->nmax, cfg->grading))
    return 1;
  const size_t N = op.N;
  double *b = malloc(2 * N * sizeof *b), *x = malloc(2 * N * sizeof *x); /* complex */
  if (!b || !x) {
    fprintf(stderr, "out of memory at n = %d\n", n);
    goto out;
  }
  helm_load(&op, b);
  double hmax = 0;
  for (int l = 0; l < n - 1; l++)
    hmax = fmax(hmax, op.h[0][l]);
  printf("n = %d (%zu unknowns), omega %g, nu in [1, %g], kbar = %.4g, omega nmax hmax = %.3f, "
         "%s mesh, GMRES(%d)\n",
         n, N, cfg->omega, cfg->nmax, sqrt(op.kbar2),
         cfg->omega * cfg->nmax * hmax,
         cfg->grading > 0 ? "graded" : "uniform", cfg->restart);
  krylov_print_header();
  memset(res, 0, R_COUNT * sizeof *res);
  if (n <= cfg->baseline) {
    if (helm_gmres(&op, b, x, NULL, NULL, cfg->tol, cfg->restart, cfg->maxit, &res[R_NONE]))
      goto out;
    krylov_print_row(helm_variant_names[R_NONE], &res[R_NONE]);
    if (helm_gmres(&op, b, x, helm_precond_jacobi, &op, cfg->tol, cfg->restart, cfg->maxit,
                   &res[R_JACOBI]))
      goto out;
    krylov_print_row(helm_variant_names[R_JACOBI], &res[R_JACOBI]);
  }
  for (int v = R_MEAN; v <= R_SHIFTED; v++) {
    double t0 = cli_now();
    pscr_status st = helm_make_plan(&op, v, opts, &plan);
    res[v].setup = cli_now() - t0;
    if (st) {
      cli_report("pscr-gmres", st);
      goto out;
    }
    if (helm_gmres(&op, b, x, helm_precond_pscr, plan, cfg->tol, cfg->restart, cfg->maxit,
                   &res[v]))
      goto out;
    krylov_print_row(helm_variant_names[v], &res[v]);
    pscr_plan_destroy(plan);
    plan = NULL;
  }
  if (n <= cfg->baseline && res[R_NONE].iterations > 0)
    printf("  iterations / GMRES's: Jacobi %.3f, pscr mean %.3f, pscr shifted %.3f\n",
           (double)res[R_JACOBI].iterations / res[R_NONE].iterations,
           (double)res[R_MEAN].iterations / res[R_NONE].iterations,
           (double)res[R_SHIFTED].iterations / res[R_NONE].iterations);
  rc = 0;
out:
  pscr_plan_destroy(plan);
  free(b);
  free(x);
  helm_op_free(&op);
  return rc;
}

/*
 * --test, the ctest case: one thread, CPU backend, full GMRES.
 *   - homogeneous medium (nmax = 1): P = A, so pscr with c = -kbar^2 must
 *     converge in 1 iteration (a consistency check of operator and plan);
 *   - omega = 20, nmax = 1.5, n = 33 and 65 (omega nmax h = 0.94, 0.47):
 *     both pscr variants converge (recomputed residual <= 2 tol); with
 *     c = -kbar^2 at most GMRES_RATIO_MAX of unpreconditioned GMRES's
 *     iterations (measured 0.071, 0.033), the shifted Laplacian at most
 *     SHIFTED_RATIO_MAX (measured 0.24, 0.12); from n = 33 to 65 the
 *     c = -kbar^2 count grows by at most 1.25x + 5 (h-independence;
 *     measured 19 -> 19, GMRES's 266 -> 577).
 */
#define GMRES_RATIO_MAX 0.25
#define SHIFTED_RATIO_MAX 0.4

static int self_test(pscr_options *opts)
{
  static const int sizes[] = {33, 65};
  const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
  run_cfg cfg = {20.0, 1.0, 0.0, 1e-8, 2000, 2000, 0};
  krylov_result res[R_COUNT];
  int fail = 0;

  opts->num_threads = 1;
  omp_set_num_threads(1);
  if (run_size(33, &cfg, opts, res))
    return 1;
  int ok = res[R_MEAN].converged && res[R_MEAN].iterations == 1;
  printf("  check: nmax = 1, P = A: 1 iteration %s\n", ok ? "ok" : "FAIL");
  fail |= !ok;

  cfg.nmax = 1.5;
  cfg.baseline = 65;
  int prev = 0;
  for (int s = 0; s < nsizes; s++) {
    if (run_size(sizes[s], &cfg, opts, res))
      return 1;
    ok = 1;
    for (int v = R_MEAN; v <= R_SHIFTED; v++)
      ok &= res[v].converged && res[v].true_res <= 2 * cfg.tol;
    int it = res[R_MEAN].iterations;
    int r = it <= GMRES_RATIO_MAX * res[R_NONE].iterations;
    int rs = res[R_SHIFTED].iterations <= SHIFTED_RATIO_MAX * res[R_NONE].iterations;
    int h = s == 0 || it <= 1.25 * prev + 5;
    printf("  check: pscr variants converged %s, mean <= %.2f x GMRES %s, shifted <= %.2f x "
           "GMRES %s, h-independent %s\n",
           ok ? "ok" : "FAIL", GMRES_RATIO_MAX, r ? "ok" : "FAIL", SHIFTED_RATIO_MAX,
           rs ? "ok" : "FAIL", h ? "ok" : "FAIL");
    fail |= !(ok && r && rs && h);
    prev = it;
  }
  printf("%s\n", fail ? "FAILED" : "passed");
  return fail;
}

static void usage(FILE *out)
{
  fprintf(out,
          "usage: pscr-gmres [-n N1,N2,...] [--omega W] [--nmax N] [--graded G] [--tol T]\n"
          "                  [--restart M] [--maxit K] [--threads T] [--[no-]baseline] [--test]\n"
          "defaults: n = 127,255,511 nodes per dimension (2..1048576, at most 16 sizes),\n"
          "          omega 20 (W > 0), nmax 1.5 (N >= 1), uniform mesh (G in [0, 1)),\n"
          "          tol 1e-8 (T in (0, 1)), GMRES(100) (M in 1..10000), maxit 1000, all\n"
          "          threads (pscr and the Krylov loops; --threads T sets both), CPU backend.\n"
          "The unpreconditioned and Jacobi GMRES baselines run for n <= 255 only (slow);\n"
          "--baseline runs them at every n, --no-baseline at none; --test: the ctest case.\n"
          "Exit status: 0, 1 on an error or a failed --test check, 2 on a bad command line.\n");
}

int main(int argc, char **argv)
{
  gmres_args a;
  gmres_args_init(&a);
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CPU;
  setvbuf(stdout, NULL, _IOLBF, 0); /* rows appear as they finish, also through a pipe */
  cli_args c;
  cli_init(&c, "pscr-gmres", argc, argv);
  while (cli_next(&c)) {
    int r = gmres_parse_option(&c, &a);
    if (r == CLI_USAGE)
      return CLI_USAGE;
    if (r)
      continue;
    if (cli_is(&c, "-h") || cli_is(&c, "--help")) {
      usage(stdout);
      return 0;
    }
    return cli_unknown(&c);
  }
  if (a.threads) {
    opts.num_threads = a.threads;
    omp_set_num_threads(a.threads);
  }
  if (a.test)
    return self_test(&opts);
  run_cfg cfg = {a.omega, a.nmax, a.grading, a.tol, a.restart, a.maxit, a.baseline};
  printf("pscr-gmres: -lap u - omega^2 nu^2 u = f on (0,1)^2, 2nd-order ABC, bilinear FE, "
         "tol %g; pscr %s\n",
         cfg.tol, pscr_version());
  int stalled = 0;
  for (int s = 0; s < a.nsizes; s++) {
    krylov_result res[R_COUNT];
    if (run_size(a.sizes[s], &cfg, &opts, res))
      return 1;
    for (int v = a.sizes[s] <= cfg.baseline ? R_NONE : R_MEAN; v < R_COUNT; v++)
      stalled |= !res[v].converged;
  }
  if (stalled)
    printf("(* not converged within maxit)\n");
  return 0;
}

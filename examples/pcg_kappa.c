/*
 * pscr-pcg: pscr as the preconditioner of conjugate gradients for a
 * variable-coefficient problem,
 *
 *   -div(kappa grad u) = f on (0,1)^2,  u = 0 on the boundary,
 *
 * with kappa varying by a factor up to 1e3 (--contrast).
 *
 * Discretization: piecewise-linear (P1) finite elements on a tensor mesh
 * (uniform, or graded as pscr_mesh_graded), each rectangle cut into two
 * right triangles, kappa constant on each rectangle (its value at the
 * centre). On a right triangle the P1 stiffness couples only the two ends of
 * each leg, so the matrix is a 5-point stencil whose edge along x across the
 * step hx weighs (kappa_below hy_below + kappa_above hy_above) / (2 hx), and
 * likewise along y. For kappa = 1 this is exactly A1 (x) M2 + M1 (x) A2 of
 * pscr_poisson_factors (eq. 31, lumped mass); --test checks it against
 * pscr_operator_apply. The operator is applied matrix-free from the edge
 * weights. The load is b = (M1 (x) M2) f(nodes), f = 1.
 *
 * Preconditioner: one pscr_solve with P = kbar (A1 (x) M2 + M1 (x) A2), the
 * constant-coefficient operator on the same mesh, kbar the area-weighted
 * mean of kappa. Element by element kmin <= kappa <= kmax, so
 * kmin/kbar <= x'Ax / x'Px <= kmax/kbar: the condition number of P^-1 A is
 * at most kmax/kmin on every mesh, and PCG reduces the A-norm error by tol
 * within sqrt(kmax/kmin) ln(2/tol) / 2 iterations (the classical bound,
 * printed), independently of h. (Scaling P by kbar leaves the PCG iterates
 * unchanged; it only centres the spectrum near 1.) Plain CG and Jacobi-PCG
 * need O(1/h) iterations.
 *
 * A second variant scales the same plan by the diagonal: z = S P^-1 S r with
 * S = (diag(P) / diag(A))^1/2, so the preconditioner has A's diagonal. For
 * smooth kappa, -div(kappa grad) ~ kappa^1/2 (-lap) kappa^1/2 up to
 * lower-order terms and this takes about 10 iterations whatever the
 * contrast; at jumps of kappa its count grows like 1/h.
 *
 * All four stop when the recurrence residual ||r|| / ||b|| (2-norm) drops
 * below --tol (1e-8); afterwards ||b - A x|| / ||b|| is recomputed from x.
 *
 * The host code (media, operator, load, pencils, the CG loop) is in
 * pcg_problem.c, shared with the GPU version pscr-pcg-gpu (pcg_kappa_gpu.cu).
 *
 *   pscr-pcg [-n 127,255,511] [--kappa checker|bump|random] [--contrast C]
 *            [--graded G] [--tol T] [--maxit K] [--threads T] [--no-cg] [--test]
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "krylov_common.h"
#include "pcg_problem.h"
#include "pscr.h"

/*
 * --test: A(kappa = 1) against pscr_operator_apply (relative max difference
 * <= 100 eps).
 */
static int check_operator(int n, double grading)
{
  kappa_op op;
  int fail = 1;
  if (kappa_op_init(&op, n, KAPPA_CHECKER, 1.0, grading))
    return 1;
  size_t N = (size_t)n * n;
  double *u = malloc(N * sizeof *u), *y = malloc(N * sizeof *y), *z = malloc(N * sizeof *z);
  double *store = malloc((size_t)6 * n * sizeof *store);
  if (!u || !y || !z || !store)
    goto out;
  pscr_pencil pen[2];
  pcg_pencils(&op, 1.0, store, pen);
  for (size_t i = 0; i < N; i++)
    u[i] = sin(0.37 * (double)i) + 0.5;
  double zero = 0.0;
  kappa_op_apply(&op, u, y);
  if (pscr_operator_apply(PSCR_R64, 2, pen, &zero, u, z))
    goto out;
  double diff = cli_max_diff(0, N, y, z), scale = cli_max_diff(0, N, z, NULL);
  fail = !(diff <= 100 * 2.220446049250313e-16 * scale);
  printf("check: 5-point operator (kappa = 1) vs pscr_operator_apply, n = %d, grading %g: "
         "max diff %.2e (relative %.2e) %s\n",
         n, grading, diff, diff / scale, fail ? "FAIL" : "ok");
out:
  free(u);
  free(y);
  free(z);
  free(store);
  kappa_op_free(&op);
  return fail;
}

/* The solvers at one size; fills res[0..3] (CG, Jacobi, pscr, scaled pscr). */
enum { R_CG, R_JACOBI, R_PSCR, R_SCALED, R_COUNT };

static int run_size(int n, kappa_kind kind, double contrast, double grading, double tol,
                    int maxit, int skip_cg, const pscr_options *opts, krylov_result res[R_COUNT])
{
  kappa_op op;
  pscr_plan *plan = NULL;
  int rc = 1;
  if (kappa_op_init(&op, n, kind, contrast, grading)) {
    fprintf(stderr, "out of memory at n = %d\n", n);
    return 1;
  }
  size_t N = (size_t)n * n;
  double *b = malloc(N * sizeof *b), *x = malloc(N * sizeof *x),
         *work = malloc(4 * N * sizeof *work), *store = malloc((size_t)6 * n * sizeof *store),
         *scale = malloc(N * sizeof *scale);
  if (!b || !x || !work || !store || !scale) {
    fprintf(stderr, "out of memory at n = %d\n", n);
    goto out;
  }
  pcg_load_and_scale(&op, b, scale);

  printf("n = %d (%zu unknowns), kappa %s, contrast %g (min %.3g, max %.3g, mean %.4g), "
         "%s mesh\n",
         n, N, kappa_names[kind], contrast, op.kmin, op.kmax, op.kbar,
         grading > 0 ? "graded" : "uniform");
  krylov_print_header();
  memset(res, 0, R_COUNT * sizeof *res);
  if (!skip_cg) {
    pcg(&op, b, x, NULL, NULL, tol, maxit, work, &res[R_CG]);
    krylov_print_row("CG", &res[R_CG]);
    pcg(&op, b, x, precond_jacobi, &op, tol, maxit, work, &res[R_JACOBI]);
    krylov_print_row("Jacobi-PCG", &res[R_JACOBI]);
  }
  double t0 = cli_now();
  pscr_status st = pcg_make_plan(&op, opts, &plan, store);
  res[R_PSCR].setup = res[R_SCALED].setup = cli_now() - t0;
  if (st) {
    fprintf(stderr, "plan: %s (%s)\n", pscr_status_string(st), pscr_last_error());
    goto out;
  }
  if (pcg(&op, b, x, precond_pscr, plan, tol, maxit, work, &res[R_PSCR]))
    goto out;
  krylov_print_row("pscr-PCG, P", &res[R_PSCR]);
  scaled_ctx sc = {plan, scale, N};
  if (pcg(&op, b, x, precond_pscr_scaled, &sc, tol, maxit, work, &res[R_SCALED]))
    goto out;
  krylov_print_row("pscr-PCG, S P^-1 S", &res[R_SCALED]);
  double kappa = op.kmax / op.kmin;
  printf("  classical CG bound (A-norm error) for cond(P^-1 A) <= kmax/kmin = %.3g: "
         "%.0f iterations\n",
         kappa, ceil(0.5 * sqrt(kappa) * log(2 / tol)));
  if (!skip_cg && res[R_CG].iterations > 0)
    printf("  iterations / CG's: Jacobi %.3f, pscr %.3f, scaled pscr %.3f\n",
           (double)res[R_JACOBI].iterations / res[R_CG].iterations,
           (double)res[R_PSCR].iterations / res[R_CG].iterations,
           (double)res[R_SCALED].iterations / res[R_CG].iterations);
  rc = 0;
out:
  pscr_plan_destroy(plan);
  free(b);
  free(x);
  free(work);
  free(store);
  free(scale);
  kappa_op_free(&op);
  return rc;
}

/*
 * --test, the ctest case: n = 63 and 127, one thread, CPU backend, the three
 * media at contrast 1e3 (the bump on a graded mesh). Passes when
 *   - the 5-point operator with kappa = 1 matches pscr_operator_apply;
 *   - both pscr-PCG variants converge: recurrence residual <= tol and the
 *     recomputed ||b - A x|| / ||b|| <= 2 tol;
 *   - pscr-PCG with P takes at most PCG_RATIO_MAX of CG's iterations at
 *     n = 127 (measured 0.017 to 0.12) and its count grows by at most
 *     1.25x + 5 from n = 63 to 127 (h-independence; measured 1.03x to
 *     1.17x, CG's grows 2.3x to 2.6x);
 *   - on the smooth bump the scaled variant needs at most 20 iterations
 *     (measured 10 at every n).
 */
#define PCG_RATIO_MAX 0.3

static int self_test(pscr_options *opts)
{
  static const struct {
    kappa_kind kind;
    double grading;
  } cases[] = {{KAPPA_CHECKER, 0.0}, {KAPPA_BUMP, 0.5}, {KAPPA_RANDOM, 0.0}};
  static const int sizes[] = {63, 127};
  const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
  const double tol = 1e-8, contrast = 1e3;
  int fail = 0;

  opts->num_threads = 1;
  omp_set_num_threads(1);
  fail |= check_operator(17, 0.0);
  fail |= check_operator(20, 0.6);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    int prev = 0;
    for (int s = 0; s < nsizes; s++) {
      krylov_result res[R_COUNT];
      if (run_size(sizes[s], cases[c].kind, contrast, cases[c].grading, tol, 20000, 0, opts,
                   res))
        return 1;
      int ok = 1, it = res[R_PSCR].iterations;
      for (int v = R_PSCR; v <= R_SCALED; v++)
        ok &= res[v].converged && res[v].true_res <= 2 * tol;
      printf("  check: pscr variants converged %s", ok ? "ok" : "FAIL");
      if (s == nsizes - 1) {
        int r = res[R_CG].converged && it <= PCG_RATIO_MAX * res[R_CG].iterations;
        int h = it <= 1.25 * prev + 5;
        printf(", P <= %.2f x CG %s, P h-independent %s", PCG_RATIO_MAX, r ? "ok" : "FAIL",
               h ? "ok" : "FAIL");
        ok &= r && h;
      }
      if (cases[c].kind == KAPPA_BUMP) {
        int b = res[R_SCALED].iterations <= 20;
        printf(", S P^-1 S <= 20 on the smooth bump %s", b ? "ok" : "FAIL");
        ok &= b;
      }
      printf("\n");
      fail |= !ok;
      prev = it;
    }
  }
  printf("%s\n", fail ? "FAILED" : "passed");
  return fail;
}

static void usage(const char *prog)
{
  fprintf(stderr,
          "usage: %s [-n N1,N2,...] [--kappa checker|bump|random] [--contrast C]\n"
          "          [--graded G] [--tol T] [--maxit K] [--threads T] [--no-cg] [--test]\n"
          "defaults: n = 127,255,511 interior nodes per dimension, checker, contrast 1e3,\n"
          "          uniform mesh, tol 1e-8, maxit 20000, all threads (pscr and the Krylov\n"
          "          loops; --threads T sets both), CPU backend.\n"
          "--no-cg skips the CG and Jacobi-PCG baselines; --test runs the ctest case.\n",
          prog);
}

int main(int argc, char **argv)
{
  int sizes[16] = {127, 255, 511}, nsizes = 3, maxit = 20000, test = 0, skip_cg = 0;
  double contrast = 1e3, grading = 0.0, tol = 1e-8;
  kappa_kind kind = KAPPA_CHECKER;
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CPU;
  setvbuf(stdout, NULL, _IOLBF, 0); /* rows appear as they finish, also through a pipe */
  for (int a = 1; a < argc; a++) {
    const char *arg = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;
    if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
      usage(argv[0]);
      return 0;
    }
    if (!strcmp(arg, "--test")) {
      test = 1;
      continue;
    }
    if (!strcmp(arg, "--no-cg")) {
      skip_cg = 1;
      continue;
    }
    if (!val) {
      usage(argv[0]);
      return 2;
    }
    a++;
    if (!strcmp(arg, "-n")) {
      nsizes = krylov_parse_sizes(val, sizes, 16);
    } else if (!strcmp(arg, "--kappa")) {
      kind = !strcmp(val, "bump") ? KAPPA_BUMP : !strcmp(val, "random") ? KAPPA_RANDOM
                                                                         : KAPPA_CHECKER;
    } else if (!strcmp(arg, "--contrast")) {
      contrast = atof(val);
    } else if (!strcmp(arg, "--graded")) {
      grading = atof(val);
    } else if (!strcmp(arg, "--tol")) {
      tol = atof(val);
    } else if (!strcmp(arg, "--maxit")) {
      maxit = atoi(val);
    } else if (!strcmp(arg, "--threads")) {
      opts.num_threads = atoi(val);
      if (opts.num_threads > 0)
        omp_set_num_threads(opts.num_threads);
    } else {
      usage(argv[0]);
      return 2;
    }
  }
  if (nsizes < 1 || !(contrast >= 1) || !(grading >= 0 && grading < 1) || !(tol > 0) ||
      maxit < 1) {
    usage(argv[0]);
    return 2;
  }
  if (test)
    return self_test(&opts);
  printf("pscr-pcg: -div(kappa grad u) = 1 on (0,1)^2, u = 0 on the boundary; P1 FE "
         "(5-point), tol %g; pscr %s\n",
         tol, pscr_version());
  int stalled = 0;
  for (int s = 0; s < nsizes; s++) {
    krylov_result res[R_COUNT];
    if (run_size(sizes[s], kind, contrast, grading, tol, maxit, skip_cg, &opts, res))
      return 1;
    for (int v = skip_cg ? R_PSCR : R_CG; v < R_COUNT; v++)
      stalled |= !res[v].converged;
  }
  if (stalled)
    printf("(* not converged within maxit)\n");
  return 0;
}

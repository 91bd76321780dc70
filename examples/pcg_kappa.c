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
 * The host code (media, operator, load, pencils, the CG loop, the table of
 * one size, the shared options) is in pcg_problem.c, shared with the GPU
 * version pscr-pcg-gpu (pcg_kappa_gpu.cu) and the 3D examples (pcg3d.c).
 *
 *   pscr-pcg [-n 127,255,511] [--kappa checker|bump|random] [--contrast C]
 *            [--graded G] [--tol T] [--maxit K] [--threads T] [--no-cg] [--test]
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
#include "krylov_common.h"
#include "pcg_problem.h"
#include "pscr.h"

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
  fail |= pcg_check_operator(2, 17, 0.0);
  fail |= pcg_check_operator(2, 20, 0.6);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    int prev = 0;
    for (int s = 0; s < nsizes; s++) {
      krylov_result res[R_COUNT];
      if (pcg_run_size(2, sizes[s], cases[c].kind, contrast, cases[c].grading, tol, 20000, 0,
                       opts, res))
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

static void usage(FILE *out)
{
  fprintf(out,
          "usage: pscr-pcg [-n N1,N2,...] [--kappa checker|bump|random] [--contrast C]\n"
          "                [--graded G] [--tol T] [--maxit K] [--threads T] [--no-cg] [--test]\n"
          "defaults: n = 127,255,511 interior nodes per dimension (1..1048576, at most 16\n"
          "          sizes), checker, contrast 1e3 (C >= 1), uniform mesh (G in [0, 1)),\n"
          "          tol 1e-8 (T in (0, 1)), maxit 20000, all threads (pscr and the Krylov\n"
          "          loops; --threads T sets both), CPU backend.\n"
          "--no-cg skips the CG and Jacobi-PCG baselines; --test runs the ctest case.\n"
          "Exit status: 0, 1 on an error or a failed --test check, 2 on a bad command line.\n");
}

int main(int argc, char **argv)
{
  static const pcg_program prog = {"pscr-pcg", 2, {127, 255, 511}, "P1 FE (5-point)", usage, self_test};
  return pcg_main(argc, argv, &prog);
}

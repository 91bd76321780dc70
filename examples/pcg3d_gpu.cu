/*
 * pscr-pcg3d-gpu: pscr-pcg3d (pcg3d.c) with the whole Krylov iteration on a
 * CUDA device: -div(kappa grad u) = 1 on (0,1)^3, u = 0 on the boundary, the
 * 7-point stencil with kappa per cell, preconditioned by one
 * pscr_solve_device per iteration with the 3D plan of
 * P = kbar (A1 (x) M2 (x) M3 + M1 (x) A2 (x) M3 + M1 (x) M2 (x) A3) on the
 * CUDA backend. The host code (media, edge weights, load, pencils) is
 * pcg_problem.c, the device code (kernels, the CG loop, one size's table,
 * the checks) pcg_gpu.cu, both shared with the 2D examples; this file is
 * the 3D test and the command line.
 *
 *   pscr-pcg3d-gpu [-n 31,63,127] [--kappa checker|bump|random] [--contrast C]
 *                  [--graded G] [--tol T] [--maxit K] [--no-cg] [--cpu]
 *                  [--device D] [--test]
 *
 * Exit status: 0, 1 on an error or a failed --test check, 2 on a bad
 * command line; without a CUDA device 77 with --test (ctest: skipped), else 1.
 */
#include <cuda_runtime.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cuda_example.cuh"
#include "krylov_common.h"
#include "pcg_gpu.cuh"
#include "pcg_problem.h"
#include "pscr.h"

/*
 * --test, the ctest case example_pcg3d_gpu: pscr-pcg3d's test problems
 * (n = 15 and 31, contrast 1e3, the checkerboard on a uniform mesh and the
 * bump on a graded one). Passes when
 *   - the device operator with kappa = 1 matches pscr_operator_apply;
 *   - at every size the device operator matches kappa_op_apply to
 *     8 eps max|Au| (bitwise expected: same order, no FMA);
 *   - both pscr variants converge: recurrence residual <= tol, and the true
 *     residual <= 10 tol, recomputed on the device and on the host from the
 *     device's x;
 *   - both pscr variants' counts are within max(2, 5%) of the CPU
 *     example's (pcg() with a CPU plan, one thread, in this process), as
 *     pscr-pcg-gpu --test;
 *   - pscr-pcg3d --test's bounds: on the checkerboard P needs at most the
 *     classical bound's 303 iterations, at most 0.3 of CG's at n = 31 and
 *     grows by at most 1.25x + 5 from n = 15; on the bump the scaled
 *     variant needs at most 20.
 */
#define PCG3D_RATIO_MAX 0.3

static int self_test(const gpu_env *g)
{
  static const int sizes[] = {15, 31};
  const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
  const double tol = 1e-8, eps = 2.220446049250313e-16, contrast = 1e3;
  const int bound = (int)ceil(0.5 * sqrt(contrast) * log(2 / tol));
  int fail = 0;

  fail |= pcg_gpu_check_poisson(g, 3, 7, 0.0);
  fail |= pcg_gpu_check_poisson(g, 3, 9, 0.6);
  for (int bump = 0; bump < 2; bump++) {
    int prev = 0;
    for (int s = 0; s < nsizes; s++) {
      run_opts ro = {3, bump ? KAPPA_BUMP : KAPPA_CHECKER, contrast, bump ? 0.5 : 0.0, tol,
                     20000, 0, 1, 1};
      size_result out;
      if (pcg_gpu_run_size(g, sizes[s], &ro, &out)) {
        printf("FAILED (error)\n");
        return 1;
      }
      int ok = 1, it = out.res[R_PSCR].iterations;
      int a = out.apply_diff <= 8 * eps * out.apply_scale;
      printf("  check: device operator vs host, max diff %.2e (%zu entries not bitwise "
             "equal) %s\n",
             out.apply_diff, out.apply_mismatch, a ? "ok" : "FAIL");
      ok &= a;
      int conv = 1, close = 1;
      for (int v = R_PSCR; v <= R_SCALED; v++) {
        conv &= out.res[v].converged && out.res[v].true_res <= 10 * tol &&
                out.host_true_res[v] <= 10 * tol;
        close &= abs(out.res[v].iterations - out.cpu_iters[v]) <=
                 pcg_gpu_iters_slack(out.cpu_iters[v]);
      }
      printf("  check: pscr variants converged %s, counts (%d, %d) within max(2, 5%%) of the "
             "CPU's (%d, %d) %s",
             conv ? "ok" : "FAIL", out.res[R_PSCR].iterations, out.res[R_SCALED].iterations,
             out.cpu_iters[R_PSCR], out.cpu_iters[R_SCALED], close ? "ok" : "FAIL");
      ok &= conv && close;
      if (!bump) {
        int cb = it <= bound;
        printf(", P within the classical bound %d %s", bound, cb ? "ok" : "FAIL");
        ok &= cb;
        if (s == nsizes - 1) {
          int r = out.res[R_CG].converged && it <= PCG3D_RATIO_MAX * out.res[R_CG].iterations;
          int h = it <= 1.25 * prev + 5;
          printf(", P <= %.2f x CG %s, P h-independent %s", PCG3D_RATIO_MAX, r ? "ok" : "FAIL",
                 h ? "ok" : "FAIL");
          ok &= r && h;
        }
      } else {
        int b = out.res[R_SCALED].iterations <= 20;
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
          "usage: pscr-pcg3d-gpu [-n N1,N2,...] [--kappa checker|bump|random] [--contrast C]\n"
          "                      [--graded G] [--tol T] [--maxit K] [--no-cg] [--cpu]\n"
          "                      [--device D] [--test]\n"
          "defaults: n = 31,63,127 interior nodes per dimension (1..1048576, at most 16\n"
          "          sizes), checker, contrast 1e3 (C >= 1), uniform mesh (G in [0, 1)),\n"
          "          tol 1e-8 (T in (0, 1)), maxit 20000, device 0.\n"
          "Every iteration runs on the CUDA device (pscr's CUDA backend for P^-1).\n"
          "--no-cg skips the CG and Jacobi-PCG baselines; --cpu also runs the CPU\n"
          "example's pscr-PCG (all threads) and prints its iteration counts;\n"
          "--test runs the ctest case.\n"
          "Exit status: 0, 1 on an error or a failed --test check, 2 on a bad command line,\n"
          "no CUDA device: 77 with --test (ctest: skipped), else 1.\n");
}

int main(int argc, char **argv)
{
  static const pcg_gpu_program prog = {"pscr-pcg3d-gpu", 3, {31, 63, 127}, "7-point stencil", usage, self_test};
  return pcg_gpu_main(argc, argv, &prog);
}

/*
 * Eigen module (eigen/): the paths of pscr_eigen_real and
 * pscr_eigen_complex (pscr_eigen_config) and their threads. Concurrent
 * calls and every number of threads give the same bits, with the
 * eigenvector sweep by thread 0 alone or as a team, and with the spectrum
 * split in two; the split and the scalar paths (lanes 0) pass the same
 * bounds as the defaults (check_pencil, eigen_pencils.h), as does LR's
 * hand-over from a pipelined pair to single steps; and the order 8191
 * timing, printed. Accuracy on the case table: test_eigen.c.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "eigen.h"
#include "eigen_pencils.h"
#include "test_util.h"

/*
 * A zero pivot inside a pipelined LR pair (lr_impl.h lr_step2), after the
 * pair has stored a row, so that the pair must restore it and hand over to
 * the single steps with their shift retries. M = I and
 * T = tridiag(1; 2, 3, 2, 2, 2; 1), p_i = e_i^2 = 1. The trailing 2 x 2
 * [[2, 1], [1, 2]] gives the Wilkinson shift sigma = 2 - 1 / (0 + 1) = 1
 * exactly. First step: u_0 = 2 - 1 = 1, q_0 = 1, u_1 = 3 - 1 - 1 = 1,
 * q_1 = 1, u_2 = 2 - 1 - 1 = 0: a zero pivot at row 2, by which time the
 * second step has stored row 0. Every value is exact in binary.
 */
START_TEST(test_lr_pair_pivot)
{
  pencil p = {5, 1, NULL, NULL, NULL, NULL};
  p.ad = calloc(5, sizeof(double complex));
  p.ao = calloc(5, sizeof(double complex));
  p.md = calloc(5, sizeof(double complex));
  const double d[5] = {2, 3, 2, 2, 2};
  for (int i = 0; i < 5; i++) {
    p.ad[i] = d[i];
    p.ao[i] = i < 4 ? 1.0 : 0.0;
    p.md[i] = 1.0;
  }
  solve_and_check(&p, "complex, zero pivot in an LR pair");
  pencil_free(&p);
}
END_TEST

/* Concurrent calls give the serial results bit for bit (no shared state). */
START_TEST(test_threads)
{
  const int n = 300, nsel = 5, nt = 4;
  pencil p = make_pencil(C_HELMHOLTZ, n, 7);
  int sel[5] = {0, 1, 150, 298, 299};
  double complex *lam = malloc((size_t)(nt + 1) * n * sizeof(double complex));
  double complex *w = malloc((size_t)(nt + 1) * n * nsel * sizeof(double complex));
  int bad = 0;
  ck_assert_int_eq(run_eigen(&p, lam, nsel, sel, w), PSCR_SUCCESS);
#ifdef _OPENMP /* the CMake build links OpenMP through pscr */
#pragma omp parallel for num_threads(4) reduction(+ : bad)
#endif
  for (int t = 1; t <= nt; t++)
    bad += run_eigen(&p, lam + (size_t)t * n, nsel, sel, w + (size_t)t * n * nsel) !=
           PSCR_SUCCESS;
  ck_assert_int_eq(bad, 0);
  for (int t = 1; t <= nt; t++) {
    ck_assert(memcmp(lam, lam + (size_t)t * n, (size_t)n * sizeof(double complex)) == 0);
    ck_assert(memcmp(w, w + (size_t)t * n * nsel, (size_t)n * nsel * sizeof(double complex)) ==
              0);
  }
  free(lam);
  free(w);
  pencil_free(&p);
}
END_TEST

/*
 * The eigenvector stage (batches produced by every thread, swept in order
 * by thread 0 alone or, with config team 1 or from 4 threads on, by
 * every thread on fixed row segments) gives the same bits for any number
 * of threads and either way of sweeping: 1, 2 and 3 threads, then 2 and 3
 * threads sweeping as a team; real pencils with twisted vectors, tight
 * clusters (inverse iteration inside the sweep) and a complex one. Then
 * the same with the spectrum split in two (config split 1: two
 * pipelines side by side with 2 and 3 threads, one after the other with
 * 1 thread or a team).
 */
START_TEST(test_thread_counts)
{
  static const gen list[] = {R_POISSON, R_GLUED, R_WILKINSON, C_HELMHOLTZ};
  static const int threads[] = {1, 2, 3, 2, 3, 1, 2, 3, 2}, team[] = {0, 0, 0, 1, 1, 0, 0, 0, 1};
  static const int split[] = {0, 0, 0, 0, 0, 1, 1, 1, 1};
  enum { RUNS = 9, FIRST_SPLIT = 5 };
  const int n = 700, nsel = 5;
  int sel[5] = {0, 1, 350, 698, 699};
  for (int t = 0; t < (int)(sizeof list / sizeof list[0]); t++) {
    pencil p = make_pencil(list[t], n, 99);
    double complex *lam = malloc((size_t)RUNS * n * sizeof(double complex));
    double complex *w = malloc((size_t)RUNS * n * nsel * sizeof(double complex));
    for (int r = 0; r < RUNS; r++) {
#ifdef _OPENMP
      omp_set_num_threads(threads[r]);
#endif
      pscr_eigen_config cfg;
      pscr_eigen_config_default(&cfg);
      cfg.team = team[r];
      cfg.split = split[r];
      ck_assert_int_eq(run_eigen_cfg(&p, lam + (size_t)r * n, nsel, sel,
                                     w + (size_t)r * n * nsel, &cfg),
                       PSCR_SUCCESS);
    }
    for (int r = 1; r < RUNS; r++) {
      const int r0 = split[r] ? FIRST_SPLIT : 0; /* compared with the first run of its kind */
      if (r == r0)
        continue;
      ck_assert_msg(memcmp(lam + (size_t)r0 * n, lam + (size_t)r * n,
                           (size_t)n * sizeof(double complex)) == 0,
                    "%s: eigenvalues differ with %d threads%s%s", gens[list[t]].name,
                    threads[r], team[r] ? " (team)" : "", split[r] ? " (split)" : "");
      ck_assert_msg(memcmp(w + (size_t)r0 * n * nsel, w + (size_t)r * n * nsel,
                           (size_t)n * nsel * sizeof(double complex)) == 0,
                    "%s: eigenvectors differ with %d threads%s%s", gens[list[t]].name,
                    threads[r], team[r] ? " (team)" : "", split[r] ? " (split)" : "");
    }
    free(lam);
    free(w);
    pencil_free(&p);
  }
}
END_TEST

/*
 * Complex LR's double passes (lr_lanes_impl.h): on blocks of 1024 rows and
 * more the second pass follows the first on a second thread (while that
 * pays: on a loaded machine the call falls back to one thread after about
 * seven slow parallel passes, so some run in parallel either way). The
 * eigenvalues and the selected components must be the same bits with 1, 2
 * and 3 threads. Order 3000, above test_thread_counts' 700, where every
 * pass is on one thread.
 */
START_TEST(test_lr_threads)
{
  static const gen list[] = {C_HELMHOLTZ, C_RAND_TRI};
  static const int threads[] = {1, 2, 3};
  enum { RUNS = 3 };
  const int n = 3000, nsel = 5;
  int sel[5] = {0, 1, 1500, 2998, 2999};
#ifdef _OPENMP
  const int max0 = omp_get_max_threads();
#endif
  for (int t = 0; t < 2; t++) {
    pencil p = make_pencil(list[t], n, 5);
    double complex *lam = malloc((size_t)RUNS * n * sizeof(double complex));
    double complex *w = malloc((size_t)RUNS * n * nsel * sizeof(double complex));
    ck_assert(lam && w);
    for (int r = 0; r < RUNS; r++) {
#ifdef _OPENMP
      omp_set_num_threads(threads[r]);
#endif
      ck_assert_int_eq(run_eigen(&p, lam + (size_t)r * n, nsel, sel, w + (size_t)r * n * nsel),
                       PSCR_SUCCESS);
    }
    for (int r = 1; r < RUNS; r++) {
      ck_assert_msg(memcmp(lam, lam + (size_t)r * n, (size_t)n * sizeof(double complex)) == 0,
                    "%s: eigenvalues differ with %d threads", gens[list[t]].name, threads[r]);
      ck_assert_msg(memcmp(w, w + (size_t)r * n * nsel,
                           (size_t)n * nsel * sizeof(double complex)) == 0,
                    "%s: eigenvectors differ with %d threads", gens[list[t]].name, threads[r]);
    }
    free(lam);
    free(w);
    pencil_free(&p);
  }
#ifdef _OPENMP
  omp_set_num_threads(max0);
#endif
}
END_TEST

/*
 * The spectrum split in two (config split 1, two threads: the parts
 * side by side, each produced and swept by one thread): full solves pass
 * check_pencil's residual and M-orthogonality bounds, with no
 * Gram-Schmidt across the split (its gap exceeds the window). These
 * pencils have window boundaries from about 0.39 n up, so the split
 * happens; the vectors then differ in their last bits from the unsplit
 * run (the batches after the split start at its index), which the test
 * also asserts, as the sign that the split ran.
 */
START_TEST(test_split)
{
  static const gen list[] = {R_POISSON, R_WILKINSON, R_TRI_M, C_HELMHOLTZ, C_RAND_TRI};
  const int n = 1000;
  for (int t = 0; t < (int)(sizeof list / sizeof list[0]); t++) {
    pencil p = make_pencil(list[t], n, 5);
    double complex *lam = malloc((size_t)2 * n * sizeof(double complex));
    double complex *w = malloc((size_t)2 * n * n * sizeof(double complex));
    ck_assert_ptr_nonnull(lam);
    ck_assert_ptr_nonnull(w);
#ifdef _OPENMP
    omp_set_num_threads(2);
#endif
    for (int r = 0; r < 2; r++) {
      pscr_eigen_config cfg;
      pscr_eigen_config_default(&cfg);
      cfg.split = r;
      pscr_status st = run_eigen_cfg(&p, lam + (size_t)r * n, n, NULL, w + (size_t)r * n * n, &cfg);
      ck_assert_msg(st == PSCR_SUCCESS, "%s split %d: %s (%s)", gens[list[t]].name, r,
                    pscr_status_string(st), pscr_eigen_last_error());
    }
    double worst, orth;
    check_pencil(&p, gens[list[t]].name, lam + n, w + (size_t)n * n, &worst, &orth);
    ck_assert_msg(memcmp(w, w + (size_t)n * n, (size_t)n * n * sizeof(double complex)) != 0,
                  "%s: the split run gave the unsplit run's bits (no split?)",
                  gens[list[t]].name);
    printf("eigen split %-20s n=%4d  residual %.2f  orthogonality %.2f\n", gens[list[t]].name,
           n, worst, orth);
    free(lam);
    free(w);
    pencil_free(&p);
  }
}
END_TEST

/*
 * The lane paths (config lanes 1, the default) against the scalar ones
 * (lanes 0): Crawford's reduction with its chases in vector
 * lanes (orders >= 128), and complex LR's multishift passes in lanes
 * (blocks of 64 rows and more). Pencils with zero off-diagonals in A and M
 * (chases that never start, or stop on a zero bulge; LR blocks split from
 * the start), orders around the eight-lane blocks, real and complex, with
 * tridiagonal M and (complex) diagonal M, where LR's lanes alone differ;
 * and Helmholtz pencils up to order 1000, whose passes meet nearly split
 * blocks and whose LR values inverse iteration refines. Both
 * results pass check_pencil, and their eigenvalues agree within the
 * eigenvalue bound (real: C n eps max|lambda|; complex: the bound of
 * check_pencil for each value, kappa from the lane result's vector).
 * A pencil whose M is indefinite in either half gives the scalar sweep's
 * status and message.
 */
static pscr_eigen_config lanes_config(int on)
{
  pscr_eigen_config cfg;
  pscr_eigen_config_default(&cfg);
  cfg.lanes = on;
  return cfg;
}

START_TEST(test_lanes)
{
  static const int ns[] = {128, 129, 136, 137, 300, 1000};
  static const gen gs[] = {R_TRI_M, R_POISSON, C_RAND_TRI, C_HELMHOLTZ, C_RAND_DIAG};
  const double eps = DBL_EPSILON;
  for (int gi = 0; gi < 5; gi++)
    for (int ni = 0; ni < 6; ni++) {
      const int n = ns[ni], cplx = gens[gs[gi]].is_complex;
      if (n > 300 && gs[gi] != C_HELMHOLTZ)
        continue;
      pencil p = make_pencil(gs[gi], n, 500u + (uint64_t)(gi * 8 + ni));
      if (gs[gi] != C_HELMHOLTZ)
        for (int i = 0; i + 1 < n; i++) { /* zero couplings: chases stop */
          if (p.mo && i % 37 == 5)
            p.mo[i] = 0.0;
          if (i % 53 == 7 || i % 53 == 8)
            p.ao[i] = 0.0;
        }
      double complex *lam[2], *w[2];
      for (int lanes = 0; lanes < 2; lanes++) {
        lam[lanes] = malloc((size_t)n * sizeof(double complex));
        w[lanes] = malloc((size_t)n * n * sizeof(double complex));
        const pscr_eigen_config cfg = lanes_config(lanes);
        pscr_status st = run_eigen_cfg(&p, lam[lanes], n, NULL, w[lanes], &cfg);
        ck_assert_msg(st == PSCR_SUCCESS, "%s n=%d lanes=%d: %s", gens[gs[gi]].name, n, lanes,
                      pscr_eigen_last_error());
        double worst, orth;
        check_pencil(&p, gens[gs[gi]].name, lam[lanes], w[lanes], &worst, &orth);
      }
      const double anorm = tri_norm(n, p.ad, p.ao), mnorm = tri_norm(n, p.md, p.mo);
      double scale = 0.0, worst = 0.0;
      for (int j = 0; j < n; j++)
        scale = fmax(scale, cabs(lam[0][j]));
      for (int j = 0; j < n; j++) {
        const double bound =
            cplx ? complex_value_bound(n, w[1] + (size_t)j * n, lam[1][j], anorm, mnorm)
                 : EIG_TEST_C * n * eps * scale;
        /* Nearest scalar-path value (sorted by real part: look nearby). */
        double d = INFINITY;
        for (int k = j > 8 ? j - 8 : 0; k < n && k <= j + 8; k++)
          d = fmin(d, cabs(lam[1][j] - lam[0][k]));
        worst = fmax(worst, d / bound);
      }
      ck_assert_msg(worst <= 1.0, "%s n=%d: lanes and scalar eigenvalues differ by %.3g bounds",
                    gens[gs[gi]].name, n, worst);
      for (int lanes = 0; lanes < 2; lanes++) {
        free(lam[lanes]);
        free(w[lanes]);
      }
      pencil_free(&p);
    }

  /* M indefinite (real) or singular (complex) in the top half (row 100)
   * or the bottom half (row 300 of 400): the same status and message with
   * and without lanes. */
  for (int cplx = 0; cplx < 2; cplx++)
    for (int where = 0; where < 2; where++) {
      const int n = 400, bad = where ? 300 : 100;
      pencil p = make_pencil(cplx ? C_HELMHOLTZ : R_POISSON, n, 77);
      p.md[bad] = 0.0; /* real: a negative pivot; complex: a zero one */
      p.mo[bad] = p.mo[bad - 1] = cplx ? 0.0 : 4.0 * cabs(p.md[bad + 1]);
      char msg[2][512];
      pscr_status st[2];
      double complex *lam = malloc((size_t)n * sizeof(double complex));
      for (int lanes = 0; lanes < 2; lanes++) {
        const pscr_eigen_config cfg = lanes_config(lanes);
        st[lanes] = run_eigen_cfg(&p, lam, 0, NULL, NULL, &cfg);
        snprintf(msg[lanes], sizeof msg[lanes], "%s", pscr_eigen_last_error());
      }
      ck_assert_int_eq(st[0], PSCR_ERROR_NOT_DEFINITE);
      ck_assert_int_eq(st[1], st[0]);
      ck_assert_str_eq(msg[1], msg[0]);
      free(lam);
      pencil_free(&p);
    }
}
END_TEST

/* OpenMP threads the eigensolver may use (it parallelizes internally). */
static int eig_test_threads(void)
{
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Timing (printed, not asserted): all eigenpairs, 5 components, order 8191. */
START_TEST(test_timing)
{
  const int n = 8191, nsel = 5;
  int sel[5] = {0, 1, 4095, 8189, 8190};
  gen list[3] = {R_POISSON, R_DIAG_M, C_HELMHOLTZ};
  for (int t = 0; t < 3; t++) {
    pencil p = make_pencil(list[t], n, 11);
    double complex *lam = malloc((size_t)n * sizeof(double complex));
    double complex *w = malloc((size_t)n * nsel * sizeof(double complex));
    double t0 = now_s();
    pscr_status st = run_eigen(&p, lam, nsel, sel, w);
    double t1 = now_s();
    ck_assert_msg(st == PSCR_SUCCESS, "%s", pscr_eigen_last_error());
    printf("eigen timing: %-24s n=%d nsel=%d: %.3f s (up to %d OpenMP threads)\n",
           gens[list[t]].name, n, nsel, t1 - t0, eig_test_threads());
    free(lam);
    free(w);
    pencil_free(&p);
  }
}
END_TEST

int main(void)
{
  Suite *s = suite_create("eigen_paths");
  TCase *tp = tcase_create("lr_pairs");
  tcase_add_test(tp, test_lr_pair_pivot);
  suite_add_tcase(s, tp);
  /* Its team runs wait at barriers, which take long where other processes
   * (ctest -j2) hold the cores: not the default 4 s. */
  TCase *tn = tcase_create("thread_counts");
  tcase_set_timeout(tn, 300);
  tcase_add_test(tn, test_threads);
  tcase_add_test(tn, test_thread_counts);
  tcase_add_test(tn, test_lr_threads);
  suite_add_tcase(s, tn);
  TCase *tsp = tcase_create("split"); /* 6 full solves at n = 1000, one check_pencil each */
  tcase_set_timeout(tsp, 300);
  tcase_add_test(tsp, test_split);
  suite_add_tcase(s, tsp);
  TCase *tl = tcase_create("lanes"); /* 52 full solves with check_pencil */
  tcase_set_timeout(tl, 600);
  tcase_add_test(tl, test_lanes);
  suite_add_tcase(s, tl);
  TCase *tt = tcase_create("timing");
  tcase_set_timeout(tt, 600);
  tcase_add_test(tt, test_timing);
  suite_add_tcase(s, tt);
  return tu_run_suite(s);
}

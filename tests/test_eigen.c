/*
 * Eigen module (eigen/): generalized eigenproblems A w = lambda M w of
 * symmetric tridiagonal pencils, real and complex symmetric (paper section
 * 4.2, eq. 23): accuracy. One test body for every pencil in the case table,
 * the regression sweeps over Helmholtz and Poisson pencils, the error
 * statuses of both entry points, and the orthogonality check itself
 * (gram.c). The oracles and bounds: eigen_pencils.h. The paths and the
 * thread counts (the same bits, or the same bounds): test_eigen_paths.c.
 */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eigen.h"
#include "eigen_pencils.h"
#include "gram.h"
#include "test_util.h"

/* The largest order: 4000; under AddressSanitizer 1100 (test_util.h's
   TU_SANITIZED), still above the orders where the eigensolver's paths
   change (LR's parallel sweep from 1024, eigen/lr_lanes_impl.h; the
   split from 512, eigen/stage.c). At 4000 the glued clusters alone took
   295 s of the 452 s of pencils_real under ASan on a 2-core VM. */
static const int sizes[] = {1, 2, 3, 5, 17, 100, 1000, TU_SANITIZED ? 1100 : 4000};
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))

START_TEST(test_pencil)
{
  const int g = _i / NSIZES, n = sizes[_i % NSIZES];
  const int cplx = gens[g].is_complex;
  const double c_bound = EIG_TEST_C * (cplx ? sqrt(2.0) : 1.0);
  pencil p = make_pencil(gens[g].g, n, 1000u + (uint64_t)_i);
  double complex *lam = malloc((size_t)n * sizeof(double complex));
  double complex *w = malloc((size_t)n * n * sizeof(double complex));
  ck_assert_ptr_nonnull(w);

  pscr_status st = run_eigen(&p, lam, n, NULL, w);
  ck_assert_msg(st == PSCR_SUCCESS, "%s n=%d: %s (%s)", gens[g].name, n,
                pscr_status_string(st), pscr_eigen_last_error());
  double worst, orth;
  check_pencil(&p, gens[g].name, lam, w, &worst, &orth);

  /* Selected components: exactly those of the full vectors. */
  {
    int sel[5] = {n - 1, 0, n / 2, n / 3, n - 1};
    double complex *lam2 = malloc((size_t)n * sizeof(double complex));
    double complex *ws = malloc((size_t)n * 5 * sizeof(double complex));
    st = run_eigen(&p, lam2, 5 <= n ? 5 : n, sel, ws);
    ck_assert_int_eq(st, PSCR_SUCCESS);
    int ns = 5 <= n ? 5 : n;
    for (int j = 0; j < n; j++) {
      ck_assert(lam2[j] == lam[j]);
      for (int s = 0; s < ns; s++)
        ck_assert_msg(ws[(size_t)j * ns + s] == w[(size_t)j * n + sel[s]],
                      "%s n=%d: sel mode differs at vector %d, row %d", gens[g].name, n, j,
                      sel[s]);
    }
    /* Eigenvalues only (w NULL): the same values. */
    st = run_eigen(&p, lam2, 0, NULL, NULL);
    ck_assert_int_eq(st, PSCR_SUCCESS);
    for (int j = 0; j < n; j++)
      ck_assert(lam2[j] == lam[j]);
    free(lam2);
    free(ws);
  }
  printf("eigen %-26s n=%4d  residual %.2f  orthogonality %.2f  (units: n eps scaled, "
         "bound %.1f)\n",
         gens[g].name, n, worst, orth, c_bound);
  free(lam);
  free(w);
  pencil_free(&p);
}
END_TEST

/*
 * Regression sweep: complex Helmholtz pencils from the public factor and
 * mesh builders (pscr_helmholtz_factors on pscr_mesh_graded steps of
 * [0, 1]), as the plans build them. One of them (n = 37, grading 0.3,
 * omega 5, i.e. pscr_problem_create(HELMHOLTZ, {37, 20, 9}, grading 0.3,
 * omega 5), dimension 0) once got a spurious LR eigenvalue of modulus 1.5e8
 * (zggev: none above 1e5) that inverse iteration could not repair.
 */
static const int sweep_n[] = {2, 3, 5, 8, 13, 21, 37, 64, 100, 150};
static const double sweep_grading[] = {0.0, 0.3, 0.6};
static const double sweep_omega[] = {0.5, 2.0, 5.0, 20.0, 80.0};
#define SWEEP_NN ((int)(sizeof(sweep_n) / sizeof(sweep_n[0])))
#define SWEEP_NG ((int)(sizeof(sweep_grading) / sizeof(sweep_grading[0])))
#define SWEEP_NO ((int)(sizeof(sweep_omega) / sizeof(sweep_omega[0])))


START_TEST(test_helmholtz_sweep)
{
  const int n = sweep_n[_i];
  for (int ig = 0; ig < SWEEP_NG; ig++)
    for (int io = 0; io < SWEEP_NO; io++) {
      const double grading = sweep_grading[ig], omega = sweep_omega[io];
      double *h = malloc((size_t)(n - 1) * sizeof(double));
      double *buf = malloc((size_t)8 * n * sizeof(double));
      ck_assert_int_eq(pscr_mesh_graded(n - 1, 1.0, grading, h), PSCR_SUCCESS);
      ck_assert_int_eq(pscr_helmholtz_factors(n, h, omega, buf, buf + 2 * n, buf + 4 * n,
                                              buf + 6 * n),
                       PSCR_SUCCESS);
      pencil p = {n, 1, NULL, NULL, NULL, NULL};
      size_t sz = sizeof(double complex);
      p.ad = calloc((size_t)n, sz);
      p.ao = calloc((size_t)n, sz);
      p.md = calloc((size_t)n, sz);
      p.mo = calloc((size_t)n, sz);
      for (int i = 0; i < n; i++) {
        p.ad[i] = CMPLX(buf[2 * i], buf[2 * i + 1]);
        p.md[i] = CMPLX(buf[4 * n + 2 * i], buf[4 * n + 2 * i + 1]);
        if (i < n - 1) {
          p.ao[i] = CMPLX(buf[2 * n + 2 * i], buf[2 * n + 2 * i + 1]);
          p.mo[i] = CMPLX(buf[6 * n + 2 * i], buf[6 * n + 2 * i + 1]);
        }
      }
      char label[96];
      snprintf(label, sizeof label, "Helmholtz sweep n=%d grading=%g omega=%g", n, grading,
               omega);
      solve_and_check(&p, label);
      pencil_free(&p);
      free(h);
      free(buf);
    }
  printf("eigen Helmholtz sweep n=%4d: %d gradings x %d omegas passed\n", n, SWEEP_NG,
         SWEEP_NO);
}
END_TEST

/*
 * Regression: the paper's Helmholtz pencil at n = 4095 (pscr-bench's:
 * pscr_problem_create(HELMHOLTZ, 2D, 4095, omega = (n - 1) / 2)), with omega
 * moved by k 1e-15 relative. Its two boundary modes (eigenvectors at the
 * two ends, eigenvalue about 3.868e6 - 1.117e6i) form a pair split by
 * rounding only (|lambda_620 - lambda_621| about 2e-6, 5e-13 relative).
 * Once vector 620 was found, the Rayleigh-quotient shift of vector 621
 * converged onto lambda_620 to full precision, so the solve amplified
 * vector 620 by about 1e180, and the Gram-Schmidt pass against it left
 * only rounding: "inverse iteration did not converge for eigenvalue 621".
 * This happened for about 1 in 40 values of k on this machine (k = 144,
 * 162 and 164 are three of them), and for k = 0 with gcc 13.3 on a
 * 16-CPU Intel Xeon (the H100 host, 2026-11-24). The fix keeps the shift
 * inside a tight cluster. Checked here: success, every residual
 * (check_pencil), and the M-orthogonality of each such close pair.
 */
static const int end_pair_k[] = {144, 162, 164};

START_TEST(test_helmholtz_end_pair)
{
  const int n = 4095, k = end_pair_k[_i];
  const int sz[3] = {n, n, 1};
  pscr_problem *pb = NULL;
  ck_assert_int_eq(pscr_problem_create(&pb, PSCR_PROBLEM_HELMHOLTZ, 2, sz, NULL, 0.0,
                                       0.5 * (n - 1) * (1.0 + k * 1e-15)),
                   PSCR_SUCCESS);
  const pscr_pencil *q = &pb->pencils[0];
  const double complex *src[4] = {q->a_diag, q->a_off, q->m_diag, q->m_off};
  pencil p = {n, 1, NULL, NULL, NULL, NULL};
  double complex **dst[4] = {&p.ad, &p.ao, &p.md, &p.mo};
  for (int a = 0; a < 4; a++) {
    *dst[a] = calloc((size_t)n, sizeof(double complex));
    ck_assert_ptr_nonnull(*dst[a]);
    memcpy(*dst[a], src[a], (size_t)(a % 2 ? n - 1 : n) * sizeof(double complex));
  }
  pscr_problem_destroy(pb);
  double complex *lam = malloc((size_t)n * sizeof(double complex));
  double complex *w = malloc((size_t)n * n * sizeof(double complex));
  double complex *mw = malloc((size_t)n * sizeof(double complex));
  ck_assert(lam && w && mw);
  char label[64];
  snprintf(label, sizeof label, "Helmholtz n=4095 omega*(1%+de-15)", k);
  pscr_status st = run_eigen(&p, lam, n, NULL, w);
  ck_assert_msg(st == PSCR_SUCCESS, "%s: %s (%s)", label, pscr_status_string(st),
                pscr_eigen_last_error());
  double worst, orth;
  check_pencil(&p, label, lam, w, &worst, &orth);
  /* The close pairs: |w_j^T M w_{j-1}| <= C n eps |w_j|^T |M| |w_{j-1}|. */
  int pairs = 0;
  double pair_orth = 0.0;
  for (int j = 1; j < n; j++) {
    if (!(cabs(lam[j] - lam[j - 1]) <= 1e-9 * cabs(lam[j])))
      continue;
    pairs++;
    const double complex *wj = w + (size_t)j * n, *wk = w + (size_t)(j - 1) * n;
    tri_apply(n, p.md, p.mo, wk, mw);
    double complex s = 0.0;
    double sa = 0.0;
    for (int i = 0; i < n; i++) {
      s += wj[i] * mw[i];
      double mi = cabs(p.md[i]) * cabs(wk[i]);
      if (i > 0)
        mi += cabs(p.mo[i - 1]) * cabs(wk[i - 1]);
      if (i + 1 < n)
        mi += cabs(p.mo[i]) * cabs(wk[i + 1]);
      sa += cabs(wj[i]) * mi;
    }
    pair_orth = fmax(pair_orth, cabs(s) / (n * DBL_EPSILON * fmax(1.0, sa)));
  }
  printf("eigen %s: residual %.3g, %d close pair(s), |w_j^T M w_k| %.3g n eps |w|^T|M||w|\n",
         label, worst, pairs, pair_orth);
  ck_assert_msg(pairs >= 1, "%s: the premise (a pair closer than 1e-9 relative) is gone", label);
  ck_assert_msg(pair_orth <= EIG_TEST_C * sqrt(2.0), "%s: close pair |w_j^T M w_k| = %.3g", label,
                pair_orth);
  free(lam);
  free(w);
  free(mw);
  pencil_free(&p);
}
END_TEST

/*
 * Real guard: random graded Poisson-like pencils, P1 stiffness with
 * consistent (tridiagonal) or lumped (diagonal, pscr_poisson_factors) mass on
 * pscr_mesh_graded steps jittered by up to a factor 2.
 */
START_TEST(test_poisson_sweep)
{
  static const int ns[] = {1, 2, 3, 5, 8, 13, 21, 37, 64, 100, 150, 300};
  const int n = ns[_i % 12];
  tu_rng rng;
  tu_rng_seed(&rng, 7000u + (uint64_t)_i);
  for (int rep = 0; rep < 4; rep++) {
    const double grading = 0.9 * tu_uniform(&rng);
    const int lumped = rep & 1;
    double *h = malloc((size_t)(n + 1) * sizeof(double));
    ck_assert_int_eq(pscr_mesh_graded(n + 1, 1.0, grading, h), PSCR_SUCCESS);
    for (int i = 0; i <= n; i++)
      h[i] *= 1.0 + tu_uniform(&rng);
    pencil p = {n, 0, NULL, NULL, NULL, NULL};
    size_t sz = sizeof(double complex);
    p.ad = calloc((size_t)n, sz);
    p.ao = calloc((size_t)n, sz);
    p.md = calloc((size_t)n, sz);
    if (!lumped)
      p.mo = calloc((size_t)n, sz);
    if (lumped) {
      double *buf = calloc((size_t)3 * n, sizeof(double));
      ck_assert_int_eq(pscr_poisson_factors(n, h, buf, buf + n, buf + 2 * n, NULL),
                       PSCR_SUCCESS);
      for (int i = 0; i < n; i++) {
        p.ad[i] = buf[i];
        p.ao[i] = i < n - 1 ? buf[n + i] : 0.0;
        p.md[i] = buf[2 * n + i];
      }
      free(buf);
    } else {
      for (int i = 0; i < n; i++) {
        p.ad[i] = 1.0 / h[i] + 1.0 / h[i + 1];
        p.md[i] = (h[i] + h[i + 1]) / 3.0;
        if (i < n - 1) {
          p.ao[i] = -1.0 / h[i + 1];
          p.mo[i] = h[i + 1] / 6.0;
        }
      }
    }
    char label[96];
    snprintf(label, sizeof label, "Poisson sweep n=%d grading=%.3f %s", n, grading,
             lumped ? "lumped" : "consistent");
    solve_and_check(&p, label);
    pencil_free(&p);
    free(h);
  }
}
END_TEST


/* Error statuses of both entry points. */
START_TEST(test_errors)
{
  double ad[3] = {2, 2, 2}, ao[2] = {-1, -1}, md[3] = {1, 1, 1}, mo[2] = {0.1, 0.1}, lam[3],
         w[9];
  int sel[2] = {0, 2}, badsel[1] = {3};
  ck_assert_int_eq(pscr_eigen_real(0, ad, ao, md, NULL, lam, 1, NULL, NULL, NULL),
                   PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_eigen_real(3, NULL, ao, md, NULL, lam, 3, NULL, w, NULL),
                   PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_eigen_real(3, ad, NULL, md, NULL, lam, 3, NULL, w, NULL),
                   PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_eigen_real(3, ad, ao, NULL, NULL, lam, 3, NULL, w, NULL),
                   PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_eigen_real(3, ad, ao, md, NULL, NULL, 3, NULL, w, NULL),
                   PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_eigen_real(3, ad, ao, md, NULL, lam, 0, sel, w, NULL),
                   PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_eigen_real(3, ad, ao, md, NULL, lam, 4, NULL, w, NULL),
                   PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_eigen_real(3, ad, ao, md, NULL, lam, 2, NULL, w, NULL),
                   PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_eigen_real(3, ad, ao, md, NULL, lam, 1, badsel, w, NULL),
                   PSCR_ERROR_INVALID_VALUE);
  ck_assert(strlen(pscr_eigen_last_error()) > 0);
  ck_assert_int_eq(pscr_eigen_real(3, ad, ao, md, mo, lam, 2, sel, w, NULL), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_eigen_real(1, ad, NULL, md, NULL, lam, 1, NULL, w, NULL), PSCR_SUCCESS);
  ck_assert(tu_close(lam[0], 2.0, 0.0, 0.0) && tu_close(w[0], 1.0, 0.0, 0.0));

  ad[1] = NAN;
  ck_assert_int_eq(pscr_eigen_real(3, ad, ao, md, NULL, lam, 3, NULL, w, NULL),
                   PSCR_ERROR_NON_FINITE);
  ad[1] = 2.0;
  mo[0] = INFINITY;
  ck_assert_int_eq(pscr_eigen_real(3, ad, ao, md, mo, lam, 3, NULL, w, NULL),
                   PSCR_ERROR_NON_FINITE);
  mo[0] = 0.1;

  md[2] = -1.0; /* indefinite diagonal M */
  ck_assert_int_eq(pscr_eigen_real(3, ad, ao, md, NULL, lam, 3, NULL, w, NULL),
                   PSCR_ERROR_NOT_DEFINITE);
  ck_assert_ptr_nonnull(strstr(pscr_eigen_last_error(), "positive definite"));
  md[2] = 1.0;
  mo[0] = mo[1] = 2.0; /* indefinite tridiagonal M: pivot 1 - 4 < 0 */
  ck_assert_int_eq(pscr_eigen_real(3, ad, ao, md, mo, lam, 3, NULL, w, NULL),
                   PSCR_ERROR_NOT_DEFINITE);

  /* Complex: M = [[0, 1], [1, 0]] has a zero pivot on either side. */
  double complex cad[2] = {1, 2}, cao[1] = {0.5}, cmd[2] = {0, 0}, cmo[1] = {1}, clam[2],
                 cw[4];
  ck_assert_int_eq(pscr_eigen_complex(2, cad, cao, cmd, cmo, clam, 2, NULL, cw, NULL),
                   PSCR_ERROR_NOT_DEFINITE);
  ck_assert_int_eq(pscr_eigen_complex(2, cad, cao, cmd, NULL, clam, 2, NULL, cw, NULL),
                   PSCR_ERROR_NOT_DEFINITE);
  ck_assert_int_eq(pscr_eigen_complex(2, cad, NULL, cmd, NULL, clam, 2, NULL, cw, NULL),
                   PSCR_ERROR_INVALID_VALUE);
  cad[0] = CMPLX(NAN, 0.0);
  cmd[0] = cmd[1] = 1.0;
  ck_assert_int_eq(pscr_eigen_complex(2, cad, cao, cmd, cmo, clam, 2, NULL, cw, NULL),
                   PSCR_ERROR_NON_FINITE);
  cad[0] = 1.0;
  ck_assert_int_eq(pscr_eigen_complex(2, cad, cao, cmd, NULL, clam, 2, NULL, cw, NULL),
                   PSCR_SUCCESS);
  /* Isotropic eigenvector: A = [[1, i], [i, -1]], M = I is nilpotent
   * (A^2 = 0); its only eigenvector (1, i) has w^T w = 0. */
  double complex nad[2] = {1, -1}, nao[1] = {I};
  pscr_status st = pscr_eigen_complex(2, nad, nao, cmd, NULL, clam, 2, NULL, cw, NULL);
  ck_assert_msg(st == PSCR_ERROR_NOT_DEFINITE || st == PSCR_ERROR_EIGEN_FAILED,
                "nilpotent pencil: %s", pscr_status_string(st));

  /* The paths (pscr_eigen_config): the defaults, each field out of its
   * range (with its name in the message), and "" after a call that
   * succeeds. */
  pscr_eigen_config cfg;
  pscr_eigen_config_default(&cfg);
  ck_assert(cfg.lanes == 1 && cfg.team == -1 && cfg.split == -1);
  const struct {
    int lanes, team, split;
    const char *name;
  } bad[] = {{2, -1, -1, "lanes"}, {-1, -1, -1, "lanes"}, {1, 2, -1, "team"},
             {1, -2, -1, "team"},  {1, -1, 2, "split"},  {1, -1, -2, "split"}};
  for (int b = 0; b < (int)(sizeof bad / sizeof bad[0]); b++) {
    cfg = (pscr_eigen_config){bad[b].lanes, bad[b].team, bad[b].split};
    ck_assert_int_eq(pscr_eigen_real(3, ad, ao, md, mo, lam, 3, NULL, w, &cfg),
                     PSCR_ERROR_INVALID_VALUE);
    ck_assert_msg(strstr(pscr_eigen_last_error(), bad[b].name) != NULL, "detail: %s",
                  pscr_eigen_last_error());
    ck_assert_int_eq(pscr_eigen_complex(2, cad, cao, cmd, NULL, clam, 2, NULL, cw, &cfg),
                     PSCR_ERROR_INVALID_VALUE);
  }
  cfg = (pscr_eigen_config){0, 1, 1};
  ck_assert_int_eq(pscr_eigen_real(3, ad, ao, md, NULL, lam, 3, NULL, w, &cfg), PSCR_SUCCESS);
  ck_assert_str_eq(pscr_eigen_last_error(), "");
}
END_TEST


/*
 * The blocked orthogonality check (gram.c) that check_pencil relies on:
 * (1) on dense random W against the textbook triple loop, at orders that
 * end panels (16 columns), row groups (4) and row blocks (1024) short;
 * both refuse (+inf) a real check of data with an imaginary part;
 * (2) on W = M^{-1/2} (diagonal M, so W^T M W = I to rounding): every
 * entry within n eps, then with one planted entry w_j[k] = d at a time,
 * which makes (W^T M W)_jk = d sqrt(m_k): the check must find (j, k) and
 * measure |d| sqrt(m_k) / (n eps).
 */
START_TEST(test_gram)
{
  /* Under AddressSanitizer the largest order is 530 (a ragged last panel;
     the second row block, past gram.c's IC = 1024 rows, is the planted
     part's at n = 1500): the naive O(n^3) loops at 1030 took most of this
     case's 100 s there. */
  static const int orders[] = {1, 5, 37, 130, TU_SANITIZED ? 530 : 1030};
  tu_rng rng;
  tu_rng_seed(&rng, 77);
  for (int t = 0; t < 5; t++)
    for (int cplx = 0; cplx <= 1; cplx++) {
      const int n = orders[t];
      double complex *md = malloc((size_t)n * sizeof *md), *mo = malloc((size_t)n * sizeof *mo);
      double complex *w = malloc((size_t)n * n * sizeof *w);
      ck_assert(md && mo && w);
      for (int i = 0; i < n; i++) {
        md[i] = 4.0 + tu_uniform(&rng) + (cplx ? I * tu_symm(&rng) : 0.0);
        mo[i] = tu_symm(&rng) + (cplx ? I * tu_symm(&rng) : 0.0);
      }
      for (size_t q = 0; q < (size_t)n * n; q++)
        w[q] = tu_symm(&rng) + (cplx ? I * tu_symm(&rng) : 0.0);
      for (int tri = 0; tri <= 1; tri++) {
        const double complex *off = tri ? mo : NULL;
        gram_worst a = gram_orth_worst(n, cplx, md, off, w);
        gram_worst b = gram_orth_worst_naive(n, cplx, md, off, w);
        ck_assert_msg(a.j == b.j && a.k == b.k && fabs(a.measure - b.measure) <= 1e-12 * b.measure,
                      "gram n=%d cplx=%d tri=%d: blocked %.17g at (%d, %d), loop %.17g at (%d, %d)",
                      n, cplx, tri, a.measure, a.j, a.k, b.measure, b.j, b.k);
      }
      if (!cplx) { /* a real check of data with an imaginary part refuses it */
        double complex *const spot[3] = {md, w + (size_t)n * n - 1, w + (size_t)n * n / 2};
        for (int q = 0; q < 3; q++) {
          double complex *v = spot[q];
          const double complex keep = *v;
          *v += I * DBL_MIN;
          gram_worst a = gram_orth_worst(n, 0, md, mo, w);
          gram_worst b = gram_orth_worst_naive(n, 0, md, mo, w);
          *v = keep;
          ck_assert_msg(isinf(a.measure) && a.j == -1 && isinf(b.measure) && b.j == -1,
                        "gram n=%d: imaginary part %d in a real check not refused (%g, %g)", n, q,
                        a.measure, b.measure);
        }
        if (n > 1) { /* mo too */
          mo[n - 2] += I * DBL_MIN;
          gram_worst a = gram_orth_worst(n, 0, md, mo, w);
          gram_worst b = gram_orth_worst_naive(n, 0, md, mo, w);
          mo[n - 2] = creal(mo[n - 2]);
          ck_assert_msg(isinf(a.measure) && isinf(b.measure),
                        "gram n=%d: imaginary mo not refused (%g, %g)", n, a.measure, b.measure);
        }
      }
      free(md);
      free(mo);
      free(w);
    }

  /* Planted entries. Unplanted, every entry of W^T M W - I is a few
   * roundings (the diagonal m (1/sqrt m)^2 - 1, the rest exactly 0): a
   * kernel that drops or garbles any entry by more than n eps fails the
   * first assertion. Then one entry at a time, at the corners that end a
   * panel, a row group or a row block short: it must be the worst, with
   * the derived measure. */
  const int n = 1500;
  static const int plant[][2] = {{1203, 1090}, {1499, 0}, {1499, 1498}, {17, 16}, {1025, 1024}};
  for (int cplx = 0; cplx <= 1; cplx++) {
    double complex *md = malloc((size_t)n * sizeof *md);
    double complex *w = calloc((size_t)n * n, sizeof *w);
    ck_assert(md && w);
    for (int i = 0; i < n; i++) {
      md[i] = 0.5 + 3.0 * tu_uniform(&rng);
      w[(size_t)i * n + i] = 1.0 / sqrt(creal(md[i]));
    }
    gram_worst g = gram_orth_worst(n, cplx, md, NULL, w);
    ck_assert_msg(g.measure >= 0.0 && g.measure <= 1.0,
                  "gram unplanted cplx=%d: %.3g n eps at (%d, %d)", cplx, g.measure, g.j, g.k);
    for (int t = 0; t < (int)(sizeof plant / sizeof plant[0]); t++) {
      const int jp = plant[t][0], kp = plant[t][1];
      const double d = 1000.0 * n * DBL_EPSILON;
      const double expect = d * sqrt(creal(md[kp])) / (n * DBL_EPSILON);
      w[(size_t)jp * n + kp] = cplx ? d * I : d;
      g = gram_orth_worst(n, cplx, md, NULL, w);
      w[(size_t)jp * n + kp] = 0.0;
      ck_assert_msg(g.j == jp && g.k == kp && fabs(g.measure - expect) <= 1e-9 * expect,
                    "gram planted cplx=%d: %.17g at (%d, %d), want %.17g at (%d, %d)", cplx,
                    g.measure, g.j, g.k, expect, jp, kp);
    }
    free(md);
    free(w);
  }
}
END_TEST

int main(void)
{
  /* The pencils in two cases, the real generators and the complex ones (gens
   * lists the real ones first), so that ctest runs them as two tests side
   * by side (tests/CMakeLists.txt registers every case of this file). */
  int nreal = 0;
  while (nreal < NGENS && !gens[nreal].is_complex)
    nreal++;
  for (int g = nreal; g < NGENS; g++)
    if (!gens[g].is_complex) {
      fprintf(stderr, "test_eigen: gens[] must list its real generators first\n");
      return 1;
    }
  Suite *s = suite_create("eigen");
  TCase *tc = tcase_create("pencils_real");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, test_pencil, 0, nreal * NSIZES);
  suite_add_tcase(s, tc);
  TCase *tcc = tcase_create("pencils_complex");
  tcase_set_timeout(tcc, 600);
  tcase_add_loop_test(tcc, test_pencil, nreal * NSIZES, NGENS * NSIZES);
  suite_add_tcase(s, tcc);
  TCase *tsw = tcase_create("sweeps");
  tcase_set_timeout(tsw, 600);
  tcase_add_loop_test(tsw, test_helmholtz_sweep, 0, SWEEP_NN);
  tcase_add_loop_test(tsw, test_poisson_sweep, 0, 12);
  /* Not under AddressSanitizer (about 95 s each there): the three k were
     picked for the Release build's rounding, which the sanitizer's -O1
     build does not share, and pencils_complex covers the complex paths
     at order 1100 there. */
  if (!TU_SANITIZED)
    tcase_add_loop_test(tsw, test_helmholtz_end_pair, 0, 3);
  suite_add_tcase(s, tsw);
  TCase *tg = tcase_create("gram"); /* about 10 s: two O(n^3) loops at n = 1030 */
  tcase_set_timeout(tg, 300);
  tcase_add_test(tg, test_gram);
  suite_add_tcase(s, tg);
  TCase *te = tcase_create("errors");
  tcase_add_test(te, test_errors);
  suite_add_tcase(s, te);
  return tu_run_suite(s);
}

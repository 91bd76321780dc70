/*
 * Eigen module (eigen/): generalized eigenproblems A w = lambda M w of
 * symmetric tridiagonal pencils, real and complex symmetric (paper section
 * 4.2, eq. 23).
 *
 * One test body for every pencil in the case table (the real pencils run
 * through pscr_eigen_real and are checked in the same complex arithmetic).
 * Oracles and bounds, with eps = DBL_EPSILON and C = EIG_TEST_C = 10:
 *
 *   eigenvalues   vs LAPACKE dsbgv (real, every n) or zggev on the dense
 *                 pencil (complex, n <= 300, matched to the nearest):
 *                 |lambda_j - ref_j| <= C n eps max_k |ref_k|
 *                 (complex: times sqrt(2), Ginkgo's convention).
 *   residuals     for every j (full W, every n):
 *                 ||A w_j - lambda_j M w_j||_inf
 *                     <= C n eps (||A||_inf + |lambda_j| ||M||_inf) ||w_j||_inf,
 *                 the normwise backward error of an eigenpair of a pencil
 *                 (scaled by n eps ||A||, plus the lambda M term that is part
 *                 of the residual).
 *   orthogonality (every n, every entry j >= k; gram.c):
 *                 real: max_jk |(W^T M W - I)_jk| <= C n eps.
 *                 complex: the bilinear form x^T M y is no inner product,
 *                 so each entry is scaled by its rounding scale
 *                 |w_j|^T |M| |w_k| (>= 1 on the diagonal):
 *                 |(W^T M W - I)_jk| <= sqrt(2) C n eps max(1, |w_j|^T|M||w_k|).
 *   selection     sel mode (5 rows, in any order with a repeat) returns
 *                 exactly (bitwise) the matching entries of the full mode.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lapacke.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "eigen.h"
#include "gram.h"
#include "scalar.h" /* CMPLX where the C library lacks it */
#include "test_util.h"

#define EIG_TEST_C 10.0

typedef enum gen {
  R_DIAG_M,   /* random A, random positive diagonal M */
  R_TRI_M,    /* random A, random diagonally dominant tridiagonal M */
  R_POISSON,  /* FE Poisson on a non-uniform mesh (stiffness, mass) */
  R_WILKINSON,/* Wilkinson W+ (pairs of nearly equal eigenvalues), M = I */
  R_GLUED,    /* copies of a block glued by 1e-12: tight clusters, tridiag M */
  C_HELMHOLTZ,/* Helmholtz with 2nd-order ABC, eqs. 33-35 */
  C_RAND_TRI, /* random complex symmetric, well conditioned tridiagonal M */
  C_RAND_DIAG /* random complex symmetric, complex diagonal M */
} gen;

static const struct {
  gen g;
  const char *name;
  int is_complex;
} gens[] = {
    {R_DIAG_M, "real, diagonal M", 0},      {R_TRI_M, "real, tridiagonal M", 0},
    {R_POISSON, "real, Poisson", 0},        {R_WILKINSON, "real, Wilkinson W+", 0},
    {R_GLUED, "real, glued clusters", 0},   {C_HELMHOLTZ, "complex, Helmholtz ABC", 1},
    {C_RAND_TRI, "complex, tridiagonal M", 1}, {C_RAND_DIAG, "complex, diagonal M", 1},
};
static const int sizes[] = {1, 2, 3, 5, 17, 100, 1000, 4000};
#define NGENS ((int)(sizeof(gens) / sizeof(gens[0])))
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))

/* A pencil, always held as complex (imaginary parts zero when real). */
typedef struct pencil {
  int n, is_complex;
  double complex *ad, *ao, *md, *mo; /* mo NULL: M diagonal */
} pencil;

static void pencil_free(pencil *p)
{
  free(p->ad);
  free(p->ao);
  free(p->md);
  free(p->mo);
}

/* Non-uniform mesh steps h_0..h_{m-1} with sum 1 (ratios up to 3). */
static double *mesh_steps(int m, tu_rng *rng)
{
  double *h = malloc((size_t)m * sizeof(double)), sum = 0.0;
  for (int i = 0; i < m; i++) {
    h[i] = 1.0 + 2.0 * tu_uniform(rng);
    sum += h[i];
  }
  for (int i = 0; i < m; i++)
    h[i] /= sum;
  return h;
}

static pencil make_pencil(gen g, int n, uint64_t seed)
{
  pencil p = {n, 0, NULL, NULL, NULL, NULL};
  size_t sz = sizeof(double complex);
  p.ad = calloc((size_t)n, sz);
  p.ao = calloc((size_t)n, sz); /* n-1 used; n keeps n == 1 non-NULL */
  p.md = calloc((size_t)n, sz);
  int tri_m = g == R_TRI_M || g == R_POISSON || g == R_GLUED || g == C_HELMHOLTZ ||
              g == C_RAND_TRI;
  if (tri_m)
    p.mo = calloc((size_t)n, sz);
  tu_rng rng;
  tu_rng_seed(&rng, seed);
  switch (g) {
  case R_DIAG_M:
  case R_TRI_M:
    for (int i = 0; i < n; i++) {
      p.ad[i] = tu_symm(&rng);
      p.ao[i] = tu_symm(&rng);
      p.md[i] = g == R_DIAG_M ? 0.5 + 1.5 * tu_uniform(&rng) : 2.5 + 0.5 * tu_uniform(&rng);
      if (tri_m)
        p.mo[i] = tu_symm(&rng);
    }
    break;
  case R_POISSON: { /* n interior nodes, n+1 steps, Dirichlet ends */
    double *h = mesh_steps(n + 1, &rng);
    for (int i = 0; i < n; i++) {
      p.ad[i] = 1.0 / h[i] + 1.0 / h[i + 1];
      p.ao[i] = -1.0 / h[i + 1];
      p.md[i] = (h[i] + h[i + 1]) / 3.0;
      p.mo[i] = h[i + 1] / 6.0;
    }
    free(h);
    break;
  }
  case R_WILKINSON:
    for (int i = 0; i < n; i++) {
      p.ad[i] = fabs(i - 0.5 * (n - 1));
      p.ao[i] = 1.0;
      p.md[i] = 1.0;
    }
    break;
  case R_GLUED: { /* copies of one random block of order <= 7 */
    int b = n < 7 ? n : 7;
    double blk[3][7];
    for (int i = 0; i < b; i++) {
      blk[0][i] = tu_symm(&rng);
      blk[1][i] = tu_symm(&rng);
      blk[2][i] = 0.5 * tu_symm(&rng);
    }
    for (int i = 0; i < n; i++) {
      int k = i % b, last = k == b - 1;
      p.ad[i] = blk[0][k];
      p.ao[i] = last ? 1e-12 : blk[1][k];
      p.md[i] = 2.0;
      p.mo[i] = last ? 1e-12 : blk[2][k];
    }
    break;
  }
  case C_HELMHOLTZ: { /* eqs. 33-35: n nodes, n-1 steps, omega h ~ 0.3 */
    double omega = 0.3 * n + 1.0;
    double *h = mesh_steps(n > 1 ? n - 1 : 1, &rng);
    for (int l = 0; l < n; l++) {
      if (n == 1) {
        p.ad[0] = 1.0 / h[0] - I * omega;
        p.md[0] = h[0] / 3.0 + I / omega;
        break;
      }
      if (l == 0 || l == n - 1) {
        double hh = l == 0 ? h[0] : h[n - 2];
        p.ad[l] = 1.0 / hh - I * omega / 2.0;
        p.md[l] = hh / 3.0 + I / (2.0 * omega);
      } else {
        p.ad[l] = (h[l - 1] + h[l]) / (h[l - 1] * h[l]);
        p.md[l] = (h[l - 1] + h[l]) / 3.0;
      }
      if (l < n - 1) {
        p.ao[l] = -1.0 / h[l];
        p.mo[l] = h[l] / 6.0;
      }
    }
    free(h);
    break;
  }
  case C_RAND_TRI:
  case C_RAND_DIAG:
    for (int i = 0; i < n; i++) {
      p.ad[i] = CMPLX(tu_symm(&rng), tu_symm(&rng));
      p.ao[i] = CMPLX(tu_symm(&rng), tu_symm(&rng));
      p.md[i] = CMPLX(3.0 + tu_symm(&rng), 0.5 * tu_symm(&rng));
      if (tri_m)
        p.mo[i] = CMPLX(0.5 * tu_symm(&rng), 0.5 * tu_symm(&rng));
    }
    break;
  }
  if (n >= 1) { /* entries past n-1 are unused: keep them zero */
    p.ao[n - 1] = 0.0;
    if (p.mo)
      p.mo[n - 1] = 0.0;
  }
  p.is_complex = g >= C_HELMHOLTZ;
  return p;
}

/* Run the solver under test with the paths cfg (NULL: the defaults);
 * complex outputs either way. */
static pscr_status run_eigen_cfg(const pencil *p, double complex *lambda, int nsel,
                                 const int *sel, double complex *w, const pscr_eigen_config *cfg)
{
  int n = p->n;
  if (p->is_complex)
    return pscr_eigen_complex(n, p->ad, p->ao, p->md, p->mo, lambda, nsel, sel, w, cfg);
  double *buf = malloc((size_t)5 * n * sizeof(double));
  double *wr = w ? malloc((size_t)n * nsel * sizeof(double)) : NULL;
  for (int i = 0; i < n; i++) {
    buf[i] = creal(p->ad[i]);
    buf[n + i] = creal(p->ao[i]);
    buf[2 * n + i] = creal(p->md[i]);
    buf[3 * n + i] = p->mo ? creal(p->mo[i]) : 0.0;
  }
  pscr_status st = pscr_eigen_real(n, buf, buf + n, buf + 2 * n, p->mo ? buf + 3 * n : NULL,
                                   buf + 4 * n, nsel, sel, wr, cfg);
  for (int i = 0; i < n; i++)
    lambda[i] = buf[4 * n + i];
  if (w)
    for (size_t k = 0; k < (size_t)n * nsel; k++)
      w[k] = wr[k];
  free(wr);
  free(buf);
  return st;
}

/* run_eigen_cfg with the default paths. */
static pscr_status run_eigen(const pencil *p, double complex *lambda, int nsel, const int *sel,
                             double complex *w)
{
  return run_eigen_cfg(p, lambda, nsel, sel, w, NULL);
}

/* y = op x for the tridiagonal (diag, off; off NULL: diagonal); abs: |op| |x|. */
static void tri_apply(int n, const double complex *diag, const double complex *off,
                      const double complex *x, double complex *y)
{
  for (int i = 0; i < n; i++) {
    double complex s = diag[i] * x[i];
    if (off && i > 0)
      s += off[i - 1] * x[i - 1];
    if (off && i < n - 1)
      s += off[i] * x[i + 1];
    y[i] = s;
  }
}

static double tri_norm(int n, const double complex *diag, const double complex *off)
{
  double m = 0.0;
  for (int i = 0; i < n; i++) {
    double r = cabs(diag[i]);
    if (off && i > 0)
      r += cabs(off[i - 1]);
    if (off && i < n - 1)
      r += cabs(off[i]);
    m = fmax(m, r);
  }
  return m;
}

/* Reference eigenvalues: real dsbgv (ascending), complex zggev. 0 on success. */
static int reference_eigenvalues(const pencil *p, double complex *ref)
{
  int n = p->n, info;
  if (!p->is_complex) {
    double *ab = calloc((size_t)2 * n, sizeof(double)), *bb = calloc((size_t)2 * n, sizeof(double));
    double *wr = malloc((size_t)n * sizeof(double));
    for (int j = 0; j < n; j++) { /* upper band storage, kd = 1 */
      ab[2 * j + 1] = creal(p->ad[j]);
      bb[2 * j + 1] = creal(p->md[j]);
      if (j > 0) {
        ab[2 * j] = creal(p->ao[j - 1]);
        bb[2 * j] = p->mo ? creal(p->mo[j - 1]) : 0.0;
      }
    }
    info = LAPACKE_dsbgv(LAPACK_COL_MAJOR, 'N', 'U', n, 1, 1, ab, 2, bb, 2, wr, NULL, 1);
    for (int j = 0; j < n; j++)
      ref[j] = wr[j];
    free(ab);
    free(bb);
    free(wr);
    return info;
  }
  size_t nn = (size_t)n * n;
  double complex *A = calloc(nn, sizeof(double complex)), *B = calloc(nn, sizeof(double complex));
  double complex *al = malloc((size_t)n * sizeof(double complex));
  double complex *be = malloc((size_t)n * sizeof(double complex));
  for (int j = 0; j < n; j++) {
    A[(size_t)j * n + j] = p->ad[j];
    B[(size_t)j * n + j] = p->md[j];
    if (j < n - 1) {
      A[(size_t)j * n + j + 1] = A[(size_t)(j + 1) * n + j] = p->ao[j];
      if (p->mo)
        B[(size_t)j * n + j + 1] = B[(size_t)(j + 1) * n + j] = p->mo[j];
    }
  }
  info = LAPACKE_zggev(LAPACK_COL_MAJOR, 'N', 'N', n, A, n, B, n, al, be, NULL, 1, NULL, 1);
  for (int j = 0; j < n; j++)
    ref[j] = al[j] / be[j];
  free(A);
  free(B);
  free(al);
  free(be);
  return info;
}

/* Largest eigenvalue error, matching each computed value to the nearest
 * unused reference (sorted order for real spectra). */
static double eigenvalue_error(int n, int is_complex, const double complex *lam,
                               const double complex *ref)
{
  double err = 0.0;
  if (!is_complex) {
    for (int j = 0; j < n; j++)
      err = fmax(err, cabs(lam[j] - ref[j]));
    return err;
  }
  char *used = calloc((size_t)n, 1);
  for (int j = 0; j < n; j++) {
    int best = -1;
    double bd = INFINITY;
    for (int k = 0; k < n; k++)
      if (!used[k] && cabs(lam[j] - ref[k]) < bd) {
        bd = cabs(lam[j] - ref[k]);
        best = k;
      }
    used[best] = 1;
    err = fmax(err, bd);
  }
  free(used);
  return err;
}

/*
 * The checks of every full solve (W holds all n components of each vector):
 * sorted order, eigenvalues against LAPACK (complex: n <= 300), residuals,
 * M-orthonormality (every entry), with the bounds of the header comment.
 * Prints nothing; *worst_out / *orth_out get the residual and
 * orthogonality measures.
 */
/* The bound on the difference of two backward stable results for the
 * complex eigenvalue lam_j with eigenvector w_j (w^T M w = 1): C n eps
 * kappa_j (||A|| + |lam_j| ||M||), kappa_j = ||w_j||_2^2 (check_pencil
 * says why). */
static double complex_value_bound(int n, const double complex *wj, double complex lamj,
                                  double anorm, double mnorm)
{
  double kappa = 0.0;
  for (int i = 0; i < n; i++)
    kappa += cabs(wj[i]) * cabs(wj[i]);
  return EIG_TEST_C * sqrt(2.0) * n * DBL_EPSILON * kappa * (anorm + cabs(lamj) * mnorm);
}

static void check_pencil(const pencil *pp, const char *label, const double complex *lam,
                         const double complex *w, double *worst_out, double *orth_out)
{
  const pencil p = *pp;
  const int n = p.n, cplx = p.is_complex;
  const double eps = DBL_EPSILON, c_bound = EIG_TEST_C * (cplx ? sqrt(2.0) : 1.0);
  /* Sorted as documented. */
  for (int j = 1; j < n; j++)
    ck_assert_msg(creal(lam[j - 1]) < creal(lam[j]) ||
                      (creal(lam[j - 1]) == creal(lam[j]) && cimag(lam[j - 1]) <= cimag(lam[j])),
                  "%s n=%d: eigenvalues not sorted at %d", label, n, j);

  /* Eigenvalues against LAPACK. Real symmetric-definite pencils have
     perfectly conditioned eigenvalues in the M-norm: C n eps max|lambda|.
     Complex symmetric pencils are not normal: an eigenvalue's condition
     number is kappa_j = ||w_j||_2^2 / |w_j^T M w_j| = ||w_j||_2^2 (w^T M w = 1),
     and first-order perturbation theory bounds the difference of two
     backward stable results by C n eps kappa_j (||A|| + |lambda_j| ||M||). */
  double anorm = tri_norm(n, p.ad, p.ao), mnorm = tri_norm(n, p.md, p.mo);
  if (!cplx || n <= 300) {
    double complex *ref = malloc((size_t)n * sizeof(double complex));
    ck_assert_int_eq(reference_eigenvalues(&p, ref), 0);
    double scale = 0.0;
    for (int j = 0; j < n; j++)
      scale = fmax(scale, cabs(ref[j]));
    if (!cplx) {
      double err = eigenvalue_error(n, cplx, lam, ref);
      ck_assert_msg(err <= c_bound * n * eps * scale,
                    "%s n=%d: eigenvalue error %.3g > %.3g (= %.2f C n eps max|lambda|)",
                    label, n, err, c_bound * n * eps * scale,
                    err / (EIG_TEST_C * n * eps * scale));
    } else {
      char *used = calloc((size_t)n, 1);
      double worst_ratio = 0.0;
      for (int j = 0; j < n; j++) {
        int best = -1;
        double bd = INFINITY;
        for (int k = 0; k < n; k++)
          if (!used[k] && cabs(lam[j] - ref[k]) < bd) {
            bd = cabs(lam[j] - ref[k]);
            best = k;
          }
        used[best] = 1;
        double bound = complex_value_bound(n, w + (size_t)j * n, lam[j], anorm, mnorm);
        worst_ratio = fmax(worst_ratio, bd / bound);
      }
      free(used);
      ck_assert_msg(worst_ratio <= 1.0,
                    "%s n=%d: eigenvalue error %.3g x the bound C n eps kappa (||A|| + |lambda| ||M||)",
                    label, n, worst_ratio);
    }
    free(ref);
  }

  /* Residuals of every eigenpair. */
  double complex *x = malloc((size_t)n * sizeof(double complex));
  double complex *ax = malloc((size_t)n * sizeof(double complex));
  double complex *mx = malloc((size_t)n * sizeof(double complex));
  double worst = 0.0;
  for (int j = 0; j < n; j++) {
    double xn = 0.0;
    for (int i = 0; i < n; i++) {
      x[i] = w[(size_t)j * n + i];
      xn = fmax(xn, cabs(x[i]));
    }
    tri_apply(n, p.ad, p.ao, x, ax);
    tri_apply(n, p.md, p.mo, x, mx);
    double r = 0.0;
    for (int i = 0; i < n; i++)
      r = fmax(r, cabs(ax[i] - lam[j] * mx[i]));
    double rel = r / ((anorm + cabs(lam[j]) * mnorm) * xn * n * eps);
    worst = fmax(worst, rel);
  }
  ck_assert_msg(worst <= c_bound, "%s n=%d: residual %.3g n eps (||A|| + |lambda| ||M||) ||w|| > %g",
                label, n, worst, c_bound);

  /* M-orthonormality, W^T M W = I (plain transpose), every entry (gram.c:
     a blocked product, seconds at order 4000). */
  gram_worst g = gram_orth_worst(n, cplx, p.md, p.mo, w);
  ck_assert_msg(g.measure >= 0.0, "%s n=%d: out of memory in the orthogonality check", label, n);
  const double orth = g.measure;
  ck_assert_msg(orth <= c_bound, "%s n=%d: |W^T M W - I| at (%d, %d) = %.3g n eps%s > %g", label,
                n, g.j, g.k, orth, cplx ? " max(1, |w_j|^T|M||w_k|)" : "", c_bound);

  free(x);
  free(ax);
  free(mx);
  *worst_out = worst;
  *orth_out = orth;
}

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

/* Solve p fully and run check_pencil; fails with the label on any error. */
static void solve_and_check(const pencil *p, const char *label)
{
  int n = p->n;
  double complex *lam = malloc((size_t)n * sizeof(double complex));
  double complex *w = malloc((size_t)n * n * sizeof(double complex));
  ck_assert_ptr_nonnull(lam);
  ck_assert_ptr_nonnull(w);
  pscr_status st = run_eigen(p, lam, n, NULL, w);
  ck_assert_msg(st == PSCR_SUCCESS, "%s: %s (%s)", label, pscr_status_string(st),
                pscr_eigen_last_error());
  double worst, orth;
  check_pencil(p, label, lam, w, &worst, &orth);
  free(lam);
  free(w);
}

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
  static const int orders[] = {1, 5, 37, 130, 1030};
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
  tcase_add_loop_test(tsw, test_helmholtz_end_pair, 0, 3);
  suite_add_tcase(s, tsw);
  TCase *tg = tcase_create("gram"); /* about 10 s: two O(n^3) loops at n = 1030 */
  tcase_set_timeout(tg, 300);
  tcase_add_test(tg, test_gram);
  suite_add_tcase(s, tg);
  TCase *te = tcase_create("errors");
  tcase_add_test(te, test_errors);
  tcase_add_test(te, test_lr_pair_pivot);
  tcase_add_test(te, test_threads);
  suite_add_tcase(s, te);
  /* Its team runs wait at barriers, which take long where other processes
   * (ctest -j2) hold the cores: not the default 4 s. */
  TCase *tn = tcase_create("thread_counts");
  tcase_set_timeout(tn, 300);
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

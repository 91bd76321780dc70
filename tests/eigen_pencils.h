/*
 * Pencils and checks shared by the eigen module's suites (test_eigen.c,
 * test_eigen_paths.c): the generators of the case table, the solver call
 * with its paths (run_eigen_cfg), and the checks of every full solve
 * (check_pencil). Static functions, so that each suite is one file as
 * tests/CMakeLists.txt registers them; both use every one of them.
 *
 * The real pencils run through pscr_eigen_real and are checked in the
 * same complex arithmetic. Oracles and bounds, with eps = DBL_EPSILON and
 * C = EIG_TEST_C = 10:
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
 *                 exactly (bitwise) the matching entries of the full mode
 *                 (test_eigen.c, test_pencil).
 */
#ifndef PSCR_TEST_EIGEN_PENCILS_H
#define PSCR_TEST_EIGEN_PENCILS_H

#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

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
#define NGENS ((int)(sizeof(gens) / sizeof(gens[0])))

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

#endif

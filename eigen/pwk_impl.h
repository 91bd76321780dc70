/*
 * Eigenvalues of a REAL symmetric tridiagonal matrix: the root-free
 * Pal-Walker-Kahan QL iteration with Wilkinson's shift (as LAPACK dsterf),
 * on the diagonal d and the squared off-diagonals p = e^2.
 *
 * Why not the paper's LR algorithm here (lr_impl.h, used for the complex
 * case): with Wilkinson's shift inside the spectrum, T - sigma I is
 * indefinite and the LR step (an unpivoted LU) suffers element growth. On
 * the test pencils (random, Poisson on non-uniform meshes, Wilkinson W+)
 * real LR lost up to 1e3 n eps ||T|| of accuracy and let inverse iteration
 * stall, while the orthogonal PWK step is backward stable and meets
 * C n eps ||T|| everywhere. It has the same interface and the same cost
 * class (root-free, one division per row and step).
 *
 * Real only: included by eigen.c in the real expansion.
 */
/* Number of shifts of a combined QL step (pwk_multi_sweep), and the
 * smallest block that takes one. */
#define EIG_PWK_NS 4
#define EIG_PWK_MULTI_MIN 32
#define EIG_PWK_STALL 5

/*
 * EIG_PWK_NS root-free QL sweeps over rows l..m (dsterf's step, as in
 * pwk_eigenvalues) with the shifts sig[0..EIG_PWK_NS-1], chased together:
 * sweep s trails sweep s-1 by one row (its step at row i+1 needs the
 * entries that sweep s-1 wrote at row i), so the division chains of the
 * sweeps overlap. Every sweep does exactly the arithmetic of a plain
 * sweep on the matrix its predecessor left.
 */
static void EIG(pwk_multi_sweep)(int l, int m, double *d, double *p, const double *sig)
{
  enum { K = EIG_PWK_NS };
  double c[K] = {0}, s[K] = {0}, gamma[K] = {0}, pp[K] = {0};
  const int steps = m - l; /* rows m-1 .. l */
  for (int t = 0; t < steps + K - 1; t++) {
    for (int q = 0; q < K; q++) {
      const int i = m - 1 - (t - q);
      if (i > m - 1 || i < l)
        continue;
      const double sigma = sig[q];
      if (i == m - 1) {
        c[q] = 1.0;
        s[q] = 0.0;
        gamma[q] = d[m] - sigma;
        pp[q] = gamma[q] * gamma[q];
      }
      double bb = p[i];
      double rr = pp[q] + bb;
      if (!(rr >= DBL_MIN)) {
        /* An earlier sweep split the block at row i (its exact shift
         * left e_i = 0) and this sweep's bulge is zero too: it ends the
         * lower part there (p[i+1] = s pp = 0, d[i+1] = sigma + gamma)
         * and starts afresh above, as at row m. */
        if (i != m - 1)
          p[i + 1] = 0.0;
        d[i + 1] = gamma[q] + sigma;
        c[q] = 1.0;
        s[q] = 0.0;
        gamma[q] = d[i] - sigma;
        pp[q] = gamma[q] * gamma[q];
        if (i == l) {
          p[l] = 0.0;
          d[l] = sigma + gamma[q];
        }
        continue;
      }
      double rinv = 1.0 / rr, ipp = 1.0 / pp[q];
      if (i != m - 1)
        p[i + 1] = s[q] * rr;
      double oldc = c[q];
      c[q] = pp[q] * rinv;
      s[q] = bb * rinv;
      double oldgam = gamma[q], alpha = d[i];
      double g = pp[q] * (alpha - sigma) - bb * oldgam;
      gamma[q] = g * rinv;
      d[i + 1] = oldgam + (alpha - gamma[q]);
      pp[q] = (c[q] != 0.0) ? (g * g) * (rinv * ipp) : oldc * bb;
      if (i == l) {
        p[l] = s[q] * pp[q];
        d[l] = sigma + gamma[q];
      }
    }
  }
}

static pscr_status EIG(pwk_eigenvalues)(int n, double *d, double *p, double tnorm)
{
  const double eps2 = DBL_EPSILON * DBL_EPSILON;
  const double abs_tol = eps2 * tnorm * tnorm; /* |e| <= eps ||T|| */
  const long maxit = 30L * n;
  long it = 0;
  int l = 0, stall = 0, lprev = -1;
  const int lend = n - 1;
  while (l < lend) {
    /* First negligible e^2 at or below l: the unreduced block is l..m. */
    int m = l;
    while (m < lend && !(p[m] <= abs_tol || p[m] <= eps2 * fabs(d[m] * d[m + 1])))
      m++;
    if (m < lend)
      p[m] = 0.0;
    if (m == l) { /* d[l] converged */
      l++;
      continue;
    }
    if (m == l + 1) { /* 2x2 block: both eigenvalues directly */
      double mu = EIG(wilkinson)(d[l], d[l + 1], p[l]);
      d[l] = d[l] + d[l + 1] - mu;
      d[l + 1] = mu;
      p[l] = 0.0;
      l += 2;
      continue;
    }
    if (it++ >= maxit)
      return PSCR_ERROR(PSCR_ERROR_EIGEN_FAILED,
                        "QL iteration did not converge within %ld steps (order %d)", maxit, n);
    if (l != lprev) {
      lprev = l;
      stall = 0;
    }
    if (m - l + 1 >= EIG_PWK_MULTI_MIN && stall++ < EIG_PWK_STALL) {
      /* EIG_PWK_NS shifts: the eigenvalues of the leading block of that
       * order (a small single-shift problem). */
      double sd[EIG_PWK_NS], sp[EIG_PWK_NS];
      memcpy(sd, d + l, sizeof sd);
      memcpy(sp, p + l, (EIG_PWK_NS - 1) * sizeof(double));
      if (EIG(pwk_eigenvalues)(EIG_PWK_NS, sd, sp, EIG(tri_sq_norm)(EIG_PWK_NS, sd, sp)) ==
          PSCR_SUCCESS) {
        it += EIG_PWK_NS - 1;
        EIG(pwk_multi_sweep)(l, m, d, p, sd);
        continue;
      }
    }
    /* Wilkinson's shift from the leading 2x2 of the block. */
    double rte = sqrt(p[l]);
    double sg = (d[l + 1] - d[l]) / (2.0 * rte);
    double r = hypot(sg, 1.0);
    double sigma = d[l] - rte / (sg + copysign(r, sg));
    /* Root-free QL sweep from m up to l (dsterf). */
    double c = 1.0, s = 0.0, gamma = d[m] - sigma, pp = gamma * gamma;
    /* gamma = c (alpha - sigma) - s oldgam with c = pp / rr, s = bb / rr
     * is computed as g / rr, g = pp (alpha - sigma) - bb oldgam, and
     * gamma^2 / c as g^2 (1 / rr) (1 / pp): the two reciprocals are
     * independent of each other and of g, so the recurrence through pp
     * carries one division and two multiplications per row (was: a
     * division, then three dependent operations). Entries beyond ~1e100
     * would overflow g (as gamma^2 beyond 1e154 before; no scaling). */
    for (int i = m - 1; i >= l; i--) {
      double bb = p[i];
      double rr = pp + bb;
      double rinv = 1.0 / rr, ipp = 1.0 / pp;
      if (i != m - 1)
        p[i + 1] = s * rr;
      double oldc = c;
      c = pp * rinv;
      s = bb * rinv;
      double oldgam = gamma, alpha = d[i];
      double g = pp * (alpha - sigma) - bb * oldgam;
      gamma = g * rinv;
      d[i + 1] = oldgam + (alpha - gamma);
      pp = (c != 0.0) ? (g * g) * (rinv * ipp) : oldc * bb;
    }
    p[l] = s * pp;
    d[l] = sigma + gamma;
  }
  return PSCR_SUCCESS;
}

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
static pscr_status EIG(pwk_eigenvalues)(int n, double *d, double *p, double tnorm)
{
  const double eps2 = DBL_EPSILON * DBL_EPSILON;
  const double abs_tol = eps2 * tnorm * tnorm; /* |e| <= eps ||T|| */
  const long maxit = 30L * n;
  long it = 0;
  int l = 0;
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

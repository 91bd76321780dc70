/*
 * Eigenvalues of a (complex) symmetric tridiagonal matrix T by the LR
 * algorithm with Wilkinson's shift (paper section 4.2; Rutishauser [38]).
 *
 * Only the diagonal d_i and the products p_i = e_i^2 of the off-diagonals
 * enter: one LR step T - sigma I = L U, T' = U L + sigma I is
 *     u_0 = d_0 - sigma,  q_i = p_i / u_i,
 *     d'_i = u_i + q_i + sigma,  u_{i+1} = d_{i+1} - sigma - q_i,
 *     p'_i = u_{i+1} q_i,  d'_last = u_last + sigma,
 * a similarity (T' = L^{-1} T L), root-free and with one reciprocal per row.
 * The transform is not symmetric, so p_i may turn negative in the real case;
 * the eigenvalues stay those of T. This is the complex symmetric solver; on
 * real test pencils (random, Wilkinson matrices and graded Poisson
 * meshes) plain LR lost accuracy through element growth, so the real case
 * uses the root-free PWK QL iteration instead (pwk_impl.h). In the complex
 * case the same growth costs accuracy on large random pencils (up to
 * 1e2 n eps at n = 4000); inverse iteration therefore refines each
 * eigenvalue by the bilinear Rayleigh quotient when its residual shows the
 * LR value is off (EIG_REFINE in eigen.c).
 *
 * Zero pivots: a pivot u_i (i < last) with |u_i| <= eps ||T|| makes the
 * step unstable; the step is discarded and retried with a perturbed shift,
 * and after a few retries such pivots are replaced by eps ||T|| (a backward
 * perturbation of that size). At most 30 n steps in all, then
 * PSCR_ERROR_EIGEN_FAILED: never an endless loop.
 *
 * Type-generic code; eigen.c includes it in the complex expansion.
 */

/* One LR step on rows lo..hi, results to dn/pn. Returns 0 on a tiny pivot
 * (|u_i| <= tiny) or on element growth (|q_i| > growth) unless force is set
 * (then a tiny pivot is replaced by +-tiny and growth is let through). */
static int EIG(lr_step)(int lo, int hi, const EIG_T *d, const EIG_T *p, EIG_T sigma,
                        EIG_T *dn, EIG_T *pn, double tiny, double growth, int force)
{
  EIG_T u = d[lo] - sigma;
  for (int i = lo; i < hi; i++) {
    double au = EIG_ABS1(u);
    if (au <= tiny) {
      if (!force)
        return 0;
      u = (au == 0.0) ? (EIG_T)tiny : u * (tiny / au);
    }
    EIG_T q = EIG_DIV(p[i], u);
    /* |q_i| >> ||T||: the step cancels q_i against d_{i+1} - sigma and loses
     * about eps |q_i| absolutely (unpivoted LU of a complex symmetric
     * T - sigma I is not backward stable; e.g. a shift near an eigenvalue
     * of a leading block). */
    if (!force && !(EIG_ABS1(q) <= growth))
      return 0;
    dn[i] = u + q + sigma;
    u = d[i + 1] - sigma - q;
    pn[i] = u * q;
  }
  dn[hi] = u + sigma;
  return 1;
}

/*
 * d (n), p (n-1) in: T, tnorm = tri_sq_norm(T); out: d holds the eigenvalues
 * (unsorted), p is destroyed. dn, pn: scratch of n entries each.
 */
static pscr_status EIG(lr_eigenvalues)(int n, EIG_T *d, EIG_T *p, EIG_T *dn, EIG_T *pn,
                                       double tnorm)
{
  const double eps = DBL_EPSILON, eps2 = DBL_EPSILON * DBL_EPSILON;
  /* Negligible p: relative to the neighbouring diagonals (as dsterf) or
   * absolutely below (eps ||T||)^2, which moves an eigenvalue by at most
   * about eps ||T||. */
  const double abs_tol = eps2 * tnorm * tnorm;
  const double tiny = eps * tnorm;
  /* Largest multiplier q_i accepted without retrying (see lr_step). */
  const double growth = EIG_LR_GROWTH * tnorm;
  /* Shift perturbations of the retries, relative to ||T||: the first as
   * before (sqrt(eps)); later ones large enough to leave the neighbourhood
   * of a leading block's eigenvalue, where the multipliers grow as
   * ||T||^2 / distance. */
  static const double lr_perturb[EIG_LR_RETRIES] = {1.5e-8, 3e-8, 1e-6, 1e-5,
                                                    1e-4, 1e-3, 1e-2, 5e-2};
  const long maxit = 30L * n;
  long it = 0;
  int stall = 0; /* steps since the last deflation */

  int hi = n - 1;
  while (hi > 0) {
    int lo = hi;
    while (lo > 0) {
      /* |re| + |im| (within sqrt(2) of the modulus): this scan runs over
       * the whole block at every step, and cabs (hypot) dominated it. */
      double ap = EIG_ABS1(p[lo - 1]);
      if (ap <= abs_tol || ap <= eps2 * EIG_ABS1(d[lo - 1]) * EIG_ABS1(d[lo]))
        break;
      lo--;
    }
    if (lo == hi) { /* d[hi] has converged */
      hi--;
      stall = 0;
      continue;
    }
    if (lo == hi - 1) { /* 2x2 block: both eigenvalues directly */
      EIG_T mu = EIG(wilkinson)(d[lo], d[hi], p[lo]);
      d[lo] = d[lo] + d[hi] - mu;
      d[hi] = mu;
      hi -= 2;
      stall = 0;
      continue;
    }
    if (it++ >= maxit)
      return PSCR_ERROR(PSCR_ERROR_EIGEN_FAILED,
                        "LR iteration did not converge within %ld steps (order %d, %d "
                        "eigenvalues left)",
                        maxit, n, hi + 1);
    EIG_T sigma;
    if (++stall % 10 == 0) /* exceptional shift against cycling */
      sigma = d[hi] + 0.75 * sqrt(EIG_ABS(p[hi - 1]));
    else
      sigma = EIG(wilkinson)(d[hi - 1], d[hi], p[hi - 1]);

    int ok = 0;
    for (int retry = 0; retry < EIG_LR_RETRIES && !ok; retry++) {
      ok = EIG(lr_step)(lo, hi, d, p, sigma, dn, pn, tiny, growth, 0);
      /* A tiny pivot or element growth: move the shift off the bad spot
       * (complex: also off the real axis) by a growing amount, alternating
       * the side, and try again. The shift only sets the convergence speed;
       * a stable step matters more than a good shift. */
      if (!ok)
        sigma += ((retry & 1) ? -1.0 : 1.0) * lr_perturb[retry] * tnorm *
                 (EIG_IS_REAL ? 1.0 : EIG_PERTURB_DIR);
    }
    if (!ok)
      EIG(lr_step)(lo, hi, d, p, sigma, dn, pn, tiny, growth, 1);
    memcpy(d + lo, dn + lo, (size_t)(hi - lo + 1) * sizeof(EIG_T));
    memcpy(p + lo, pn + lo, (size_t)(hi - lo) * sizeof(EIG_T));
  }
  return PSCR_SUCCESS;
}

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
 * Long blocks take multishift passes instead, eight steps at a time in
 * vector lanes with the eigenvalues of the trailing 8 x 8 block as shifts
 * (lr_lanes_impl.h); the single steps below finish the short blocks and
 * take over where a pass fails or stalls.
 *
 * Zero pivots: a pivot u_i (i < last) with |u_i| <= eps ||T|| makes the
 * step unstable; the step is discarded and retried with a perturbed shift,
 * and after a few retries such pivots are replaced by eps ||T|| (a backward
 * perturbation of that size). At most 30 n steps in all, then
 * PSCR_ERROR_EIGEN_FAILED: never an endless loop.
 *
 * Type-generic code; eigen.c includes it in the complex expansion.
 */

/* p_i negligible: relative to the neighbouring diagonals (as dsterf) or
 * absolutely below abs_tol. */
static inline int EIG(lr_negligible)(EIG_T p, EIG_T d0, EIG_T d1, double abs_tol, double eps2)
{
  /* |re| + |im| (within sqrt(2) of the modulus): cabs (hypot) dominated. */
  double ap = EIG_ABS1(p);
  return ap <= abs_tol || ap <= eps2 * EIG_ABS1(d0) * EIG_ABS1(d1);
}

/* Row i of a step's result: the old values to bd, bp, the new ones in; the
 * largest row below i with a negligible p (the deflation scan), else neg. */
static inline int EIG(lr_put)(int i, int lo, EIG_T *d, EIG_T *p, EIG_T dnew, EIG_T pnew,
                              EIG_T *bd, EIG_T *bp, double abs_tol, double eps2, int neg)
{
  bd[i] = d[i];
  bp[i] = p[i];
  d[i] = dnew;
  p[i] = pnew;
  return i > lo && EIG(lr_negligible)(p[i - 1], d[i - 1], dnew, abs_tol, eps2) ? i - 1 : neg;
}

/* Undo a step that stopped: rows lo..k-1 back from bd, bp. */
static inline void EIG(lr_restore)(int lo, int k, EIG_T *d, EIG_T *p, const EIG_T *bd,
                                   const EIG_T *bp)
{
  for (int m = lo; m < k; m++) {
    d[m] = bd[m];
    p[m] = bp[m];
  }
}

/* One LR step on rows lo..hi, in place in d, p; the rows' old values go to
 * bd, bp, from which a step that stops is undone. Returns 0 on a tiny
 * pivot (|u_i| <= tiny) or on element growth (|q_i| > growth) unless force
 * is set (then a tiny pivot is replaced by +-tiny and growth is let
 * through); d, p are then as before. On success *lneg is the largest i in
 * lo..hi-1 with a negligible new p_i (lr_negligible), or -1: the scan for
 * the next block (lr_eigenvalues) runs here, off the recurrence's critical
 * path, and no copy of the new values is needed. */
static int EIG(lr_step)(int lo, int hi, EIG_T *d, EIG_T *p, EIG_T sigma, EIG_T *bd, EIG_T *bp,
                        double tiny, double growth, int force, double abs_tol, double eps2,
                        int *lneg)
{
  EIG_T u = d[lo] - sigma;
  int neg = -1;
  for (int i = lo; i < hi; i++) {
    double au = EIG_ABS1(u);
    if (au <= tiny) {
      if (!force)
        goto undo;
      u = (au == 0.0) ? (EIG_T)tiny : u * (tiny / au);
    }
    EIG_T q = EIG_DIV(p[i], u);
    /* |q_i| >> ||T||: the step cancels q_i against d_{i+1} - sigma and loses
     * about eps |q_i| absolutely (unpivoted LU of a complex symmetric
     * T - sigma I is not backward stable; e.g. a shift near an eigenvalue
     * of a leading block). */
    if (!force && !(EIG_ABS1(q) <= growth))
      goto undo;
    EIG_T dnew = u + q + sigma;
    u = d[i + 1] - sigma - q;
    neg = EIG(lr_put)(i, lo, d, p, dnew, u * q, bd, bp, abs_tol, eps2, neg);
    continue;
  undo:
    EIG(lr_restore)(lo, i, d, p, bd, bp);
    return 0;
  }
  d[hi] = u + sigma;
  if (hi > lo && EIG(lr_negligible)(p[hi - 1], d[hi - 1], d[hi], abs_tol, eps2))
    neg = hi - 1;
  *lneg = neg;
  return 1;
}

/* Two LR steps with the shift sigma on rows lo..hi, pipelined: the second
 * step's row i needs only rows i and i + 1 of the first, so it runs one row
 * behind it in the same loop, and the two recurrences (each waiting on a
 * division per row) overlap. The values are those of two lr_step calls in a
 * row; the first step's rows stay in registers and only the second's are
 * stored (old values to bd, bp).
 * Returns 0, with d, p as before, where either step meets a tiny pivot or
 * element growth (lr_step's tests; the caller then takes single steps);
 * otherwise *lneg as lr_step's. */
static int EIG(lr_step2)(int lo, int hi, EIG_T *d, EIG_T *p, EIG_T sigma, EIG_T *bd,
                         EIG_T *bp, double tiny, double growth, double abs_tol, double eps2,
                         int *lneg)
{
  EIG_T ua = d[lo] - sigma, ub = 0.0, pa = 0.0;
  int neg = -1, k = lo; /* rows lo..k-1 hold the second step's values */
  for (int i = lo; i <= hi; i++) {
    /* First step, row i: d1_i (and p1_i unless i is the last row). */
    EIG_T da;
    EIG_T pa_prev = pa;
    if (i < hi) {
      if (!(EIG_ABS1(ua) > tiny))
        goto undo;
      EIG_T qa = EIG_DIV(p[i], ua);
      if (!(EIG_ABS1(qa) <= growth))
        goto undo;
      da = ua + qa + sigma;
      ua = d[i + 1] - sigma - qa;
      pa = ua * qa;
    } else {
      da = ua + sigma;
    }
    if (i == lo) {
      ub = da - sigma;
      continue;
    }
    /* Second step, row i - 1, from p1_{i-1} and d1_i. */
    if (!(EIG_ABS1(ub) > tiny))
      goto undo;
    EIG_T qb = EIG_DIV(pa_prev, ub);
    if (!(EIG_ABS1(qb) <= growth))
      goto undo;
    EIG_T dnew = ub + qb + sigma;
    ub = da - sigma - qb;
    neg = EIG(lr_put)(k, lo, d, p, dnew, ub * qb, bd, bp, abs_tol, eps2, neg);
    k++;
  }
  d[hi] = ub + sigma;
  if (EIG(lr_negligible)(p[hi - 1], d[hi - 1], d[hi], abs_tol, eps2))
    neg = hi - 1;
  *lneg = neg;
  return 1;
undo:
  EIG(lr_restore)(lo, k, d, p, bd, bp);
  return 0;
}

/*
 * d (n), p (n-1) in: T, tnorm = tri_sq_norm(T); out: d holds the eigenvalues
 * (unsorted), p is destroyed. dn, pn: scratch of n entries each. lanes:
 * long blocks take multishift passes (lr_lanes_impl.h).
 */
static pscr_status EIG(lr_eigenvalues)(int n, EIG_T *d, EIG_T *p, EIG_T *dn, EIG_T *pn,
                                       double tnorm, int lanes)
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
  /* Long blocks: the double passes' second pass on a second thread, while
   * that pays (eig_lr_par). */
  eig_lr_par par = {1, 0.0, 0.0};
#ifdef _OPENMP
  if (lanes && n >= EIG_LR_PAR_MIN && !omp_in_parallel())
    par.threads = omp_get_max_threads();
#endif

  int hi = n - 1;
  /* After a step on lo..hi (hi unchanged): next_lo, the block's new start
   * when the step found a negligible p_i, else scan_top = lo, below which
   * the scan goes on (p_{lo-1} is checked again: d_lo has changed). */
  int next_lo = -1, scan_top = -1;
  while (hi > 0) {
    int lo;
    if (next_lo >= 0) {
      lo = next_lo;
    } else {
      lo = scan_top >= 0 ? scan_top : hi;
      while (lo > 0 && !EIG(lr_negligible)(p[lo - 1], d[lo - 1], d[lo], abs_tol, eps2))
        lo--;
    }
    next_lo = scan_top = -1;
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
      return EIG_ERROR(PSCR_ERROR_EIGEN_FAILED,
                       "LR iteration did not converge within %ld steps (order %d, %d "
                       "eigenvalues left)",
                       maxit, n, hi + 1);
    int exceptional = ++stall % 10 == 0;
    int ok = 0, lneg = -1;
    /* Where the block is long: two passes of EIG_LR_NS steps in vector
     * lanes, shifted by the eigenvalues of its trailing block of that order
     * (lr_lanes_impl.h), until EIG_LR_STALL double passes bring no
     * deflation. */
    if (!exceptional && lanes && hi - lo + 1 >= EIG_LR_MULTI_MIN && stall <= EIG_LR_STALL) {
      EIG_T sd[EIG_LR_NS], sp[EIG_LR_NS], sdn[EIG_LR_NS], spn[EIG_LR_NS];
      memcpy(sd, d + hi - EIG_LR_NS + 1, sizeof sd);
      memcpy(sp, p + hi - EIG_LR_NS + 1, (EIG_LR_NS - 1) * sizeof *sp);
      int shifts = EIG(lr_eigenvalues)(EIG_LR_NS, sd, sp, sdn, spn,
                                       EIG(tri_sq_norm)(EIG_LR_NS, sd, sp), 0) == PSCR_SUCCESS;
      for (int a = 0; a < EIG_LR_NS; a++)
        shifts = shifts && EIG_ISFINITE(sd[a]);
      ok = shifts && EIG(lr_lane_double)(lo, hi, d, p, sd, dn, pn, growth, abs_tol, eps2,
                                         &par);
      if (ok) {
        it += 2 * EIG_LR_NS - 1;
        for (int i = hi - 1; i >= lo && lneg < 0; i--)
          if (EIG(lr_negligible)(p[i], d[i], d[i + 1], abs_tol, eps2))
            lneg = i;
      }
    }
    EIG_T sigma;
    if (exceptional) /* exceptional shift against cycling */
      sigma = d[hi] + 0.75 * sqrt(EIG_ABS(p[hi - 1]));
    else
      sigma = EIG(wilkinson)(d[hi - 1], d[hi], p[hi - 1]);

    /* Two steps with the same shift in one pipelined pass (lr_step2): 17%
     * more steps than single steps with a fresh shift each (order 8191
     * Helmholtz), at about the time of one. (The other eigenvalue of the
     * trailing 2 x 2 as the second step's shift needed fewer steps but
     * failed a fifth of the pairs on growth.) Where the pair fails, or for
     * the exceptional shift, single steps as below. */
    if (!ok && !exceptional) {
      ok = EIG(lr_step2)(lo, hi, d, p, sigma, dn, pn, tiny, growth, abs_tol, eps2, &lneg);
      if (ok)
        it++;
    }
    for (int retry = 0; retry < EIG_LR_RETRIES && !ok; retry++) {
      ok = EIG(lr_step)(lo, hi, d, p, sigma, dn, pn, tiny, growth, 0, abs_tol, eps2, &lneg);
      /* A tiny pivot or element growth: move the shift off the bad spot
       * (complex: also off the real axis) by a growing amount, alternating
       * the side, and try again. The shift only sets the convergence speed;
       * a stable step matters more than a good shift. */
      if (!ok)
        sigma += ((retry & 1) ? -1.0 : 1.0) * lr_perturb[retry] * tnorm *
                 (EIG_IS_REAL ? 1.0 : EIG_PERTURB_DIR);
    }
    if (!ok)
      EIG(lr_step)(lo, hi, d, p, sigma, dn, pn, tiny, growth, 1, abs_tol, eps2, &lneg);
    if (lneg >= 0)
      next_lo = lneg + 1;
    else
      scan_top = lo;
  }
  return PSCR_SUCCESS;
}

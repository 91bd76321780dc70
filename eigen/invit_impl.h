/*
 * Eigenvectors by inverse iteration on the pencil itself (paper section 4.2):
 *     (A - sigma M) x_new = M x_old,
 * with a tridiagonal LU with partial pivoting (as LAPACK dgttrf/dgttrs) whose
 * zero or tiny pivots are raised to eps ||A - sigma M||, a random start, and
 * a residual test: after the solve ||(A - sigma M) x|| / ||x|| = ||b|| / ||x||.
 *
 * Clusters: a vector inherits from its computed neighbours errors of size
 * (residual) / (eigenvalue gap). Against every previously computed vector
 * whose eigenvalue lies within tau = EIG_CLUSTER_TOL ||T|| / n (not the whole
 * chained cluster of dstein, which for Poisson-like spectra would be the
 * entire spectrum and cost O(n^3)) the accepted vector is re-orthogonalized
 * in the M bilinear form x^T M y (plain transpose also when complex),
 * classical Gram-Schmidt repeated once when it cancels heavily. Pairs
 * further apart than tau have |x_j^T M x_k| of order eps ||T|| / tau =
 * n eps / EIG_CLUSTER_TOL (a window of a quarter of that width measured up
 * to 22 n eps at n = 1000, over the test's bound).
 *
 * Tight clusters (window members within EIG_TIGHT_TOL n eps ||T||, e.g.
 * hundreds of copies of one block glued by 1e-12): the solve amplifies all
 * cluster directions alike, so the start is made M-orthogonal to the earlier
 * members (CGS2) before every solve and the result again after it; shifts
 * sit pertol = 10 eps ||T|| above lambda_j (no accumulated drift); starts
 * differ per index (seeded by j). As Gram-Schmidt leaves a vector of the
 * cluster's invariant subspace, convergence is judged on the explicit
 * residual ||A v - lambda_j M v||, accepted up to the cluster's spread
 * times ||M||, and never after a single solve unless at the plain bound
 * (one solve damps the components outside the cluster only by spread/gap).
 *
 * Most vectors come from the batches of produce_impl.h; the inverse
 * iteration here, one vector at a time inside the sweep
 * (pipeline_impl.h), computes only the vectors of tight clusters and
 * those the batches do not accept.
 *
 * Cost: usually two solves per vector (the first from the random start is
 * accepted only at the plain bound EIG_RESID_TOL eps nrm, later ones at the
 * one-step bound sqrt(n) times that); the factorization and solve are
 * branch-free.
 *
 * Type-generic: included by eigen.c once per scalar type.
 */

/*
 * One pass of classical Gram-Schmidt of x against the window vectors
 * (M-normalized), in the bilinear form x^T M y. y: scratch of n. The
 * coefficients are computed four at a time (one pass over y per four
 * vectors) and subtracted four at a time.
 */
static void EIG(orthogonalize)(int n, const EIG_T *md, const EIG_T *mo, eig_ring *r,
                               const int *win, int nwin, EIG_T *coef, EIG_T *x, EIG_T *y)
{
  EIG(mass_apply)(n, md, mo, x, y);
  int t = 0;
  for (; t + 3 < nwin; t += 4) {
    const EIG_T *v0 = EIG(ring_at)(r, n, win[t]), *v1 = EIG(ring_at)(r, n, win[t + 1]);
    const EIG_T *v2 = EIG(ring_at)(r, n, win[t + 2]), *v3 = EIG(ring_at)(r, n, win[t + 3]);
    EIG_T s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    for (int i = 0; i < n; i++) {
      EIG_T yi = y[i];
      s0 += v0[i] * yi;
      s1 += v1[i] * yi;
      s2 += v2[i] * yi;
      s3 += v3[i] * yi;
    }
    coef[t] = s0;
    coef[t + 1] = s1;
    coef[t + 2] = s2;
    coef[t + 3] = s3;
  }
  for (; t < nwin; t++)
    coef[t] = EIG(dot)(n, EIG(ring_at)(r, n, win[t]), y);
  t = 0;
  for (; t + 3 < nwin; t += 4) {
    const EIG_T *v0 = EIG(ring_at)(r, n, win[t]), *v1 = EIG(ring_at)(r, n, win[t + 1]);
    const EIG_T *v2 = EIG(ring_at)(r, n, win[t + 2]), *v3 = EIG(ring_at)(r, n, win[t + 3]);
    EIG_T c0 = coef[t], c1 = coef[t + 1], c2 = coef[t + 2], c3 = coef[t + 3];
    for (int i = 0; i < n; i++)
      x[i] -= (c0 * v0[i] + c1 * v1[i]) + (c2 * v2[i] + c3 * v3[i]);
  }
  for (; t < nwin; t++) {
    const EIG_T *v = EIG(ring_at)(r, n, win[t]);
    EIG_T c = coef[t];
    for (int i = 0; i < n; i++)
      x[i] -= c * v[i];
  }
}

/*
 * Shift for vector j of the group starting at g0 (sigma_prev: the previous
 * vector's shift). Tight cluster members (an earlier eigenvalue of the
 * group within tight) are separated by Gram-Schmidt, not by the shift, and
 * get sigma = lambda_j + pertol: just above the earlier members (lambda_k
 * <= lambda_j), so that the solve cannot amplify them more than lambda_j's
 * own direction, and without the drift of dstein's accumulated
 * perturbations (which adds to the residuals). Others: dstein's
 * perturbation of (nearly) equal shifts.
 */
static EIG_T EIG(shift_of)(const EIG_T *lambda, int g0, int j, double tau, double tight,
                           double pertol, EIG_T sigma_prev)
{
  EIG_T lam = lambda[j];
  for (int k = j - 1; k >= g0 && creal(lam) - creal(lambda[k]) <= tau; k--) {
    double d2 = EIG(abs2)(lam - lambda[k]);
    if (d2 <= tau * tau && d2 <= tight * tight)
      return lam + pertol * EIG_PERTURB_DIR;
  }
  if (j > g0 && EIG_ABS1(lam - sigma_prev) < pertol)
    return sigma_prev + pertol;
  return lam;
}

/* Window of vector j: the earlier vectors k with |lambda_k - lambda_j| <=
 * tau (sorted by real part: a run of indices before j) into win; *intight
 * when one lies within the tight-cluster distance, *spread the largest such
 * distance. Returns the first index of the run. */
static int EIG(window)(const EIG(ictx) * cx, int g0, int j, int *win, int *nwin, int *intight,
                       double *spread)
{
  const EIG_T *lambda = cx->lambda;
  const double tau = cx->tau, tight = cx->tight;
  EIG_T lam = lambda[j];
  int first = j;
  *nwin = 0;
  *intight = 0;
  *spread = 0.0;
  while (first > g0 && creal(lam) - creal(lambda[first - 1]) <= tau)
    first--;
  for (int k = first; k < j; k++) {
    double d2 = EIG(abs2)(lam - lambda[k]);
    if (d2 <= tau * tau) {
      win[(*nwin)++] = k;
      if (d2 <= tight * tight) {
        *intight = 1;
        *spread = fmax(*spread, sqrt(d2));
      }
    }
  }
  return first;
}

/* The bilinear Rayleigh quotient v^T A v / v^T M v into *rho, y = M v on
 * return; 0 (no quotient) where |v^T M v| <= eps ||M||. */
static int EIG(rayleigh)(const EIG(ictx) * cx, const EIG_T *v, EIG_T *y, EIG_T *rho)
{
  const int n = cx->n;
  EIG(mass_apply)(n, cx->ad, cx->ao, v, y);
  const EIG_T num = EIG(dot)(n, v, y);
  EIG(mass_apply)(n, cx->md, cx->mo, v, y);
  const EIG_T den = EIG(dot)(n, v, y);
  if (!(EIG_ABS(den) > DBL_EPSILON * cx->mnorm))
    return 0;
  *rho = num * EIG_RECIP(den);
  return 1;
}

/*
 * Inverse iteration for vector j (window win[0..nwin-1], intight, spread as
 * in the sweep), from the shift sigma, into v (||v||_inf = 1). Returns 0 or
 * a failure kind (details in *fail).
 */
static int EIG(invit_one)(const EIG(ictx) * cx, EIG(sweep) * sw, int j, const int *win,
                          int nwin, int intight, double spread, EIG_T sigma, EIG_T *v,
                          EIG(ifail) * fail)
{
  const int n = cx->n;
  const EIG_T *ad = cx->ad, *ao = cx->ao, *md = cx->md, *mo = cx->mo;
  EIG_T *lambda = cx->lambda;
  const double anorm = cx->anorm, mnorm = cx->mnorm;
  const double eps = DBL_EPSILON;
  const int maxit = 5;
  const EIG_T lam = lambda[j];
  eig_ring *ring = &sw->ring;
  EIG_T *work = sw->work;
  EIG_T *x = work + 5 * (size_t)n, *y = work + 6 * (size_t)n, *coef = work + 7 * (size_t)n;
  EIG(lu) lu = {work, work + n, work + 2 * (size_t)n, work + 3 * (size_t)n,
                work + 4 * (size_t)n, sw->ip};
  const EIG(lu) *f = &lu;
  double nrm = EIG(shift_norm)(anorm, mnorm, sigma);
  EIG(shifted_factor)(n, ad, ao, md, mo, sigma, eps * nrm, &lu);
  /* Converged when ||b|| / ||x||, the residual of x / ||x|| apart from the
   * rounding errors of the solve, is below EIG_RESID_TOL eps nrm. (The
   * solve's own backward error, about sqrt(n) eps nrm here, lies along no
   * particular eigenvector and cannot be iterated away, so it is not part
   * of the test.) When the Gram-Schmidt pass against the window cancels
   * heavily (a tight cluster), that estimate no longer applies: the
   * residual of the orthogonalized vector is measured explicitly and
   * accepted up to the cluster's spread. */
  double tol = EIG_RESID_TOL * eps * nrm, tol1 = EIG_LATE_TOL * sqrt((double)n) * tol;
  /* Rayleigh-quotient shifts (complex), but not inside a tight cluster.
   * There the quotient converges onto the cluster's value, which an
   * earlier member of the window already has to full precision; the solve
   * then amplifies that member's vector far more than its own (1e180
   * against 1e6 for the boundary-mode pair of Helmholtz n = 4095,
   * test_eigen's test_helmholtz_end_pair), and the Gram-Schmidt pass
   * against it leaves only rounding. The cluster's acceptance test allows
   * the spread, which the shift from shift_of meets. */
  const int may_refine = EIG_REFINE && !intight;
  EIG(random_start)(n, j, v);
  double ratio = INFINITY;
  for (int it = 0; it < maxit; it++) {
    if (intight) {
      /* Tight cluster: the solve amplifies every cluster direction alike,
       * so the start must already be M-orthogonal to the earlier cluster
       * vectors (CGS2), or they would swamp the result. */
      for (int pass = 0; pass < 2; pass++)
        EIG(orthogonalize)(n, md, mo, ring, win, nwin, coef, v, y);
    }
    EIG(mass_apply)(n, md, mo, v, x);
    double bnorm = EIG(norm1_inf)(n, x);
    EIG(shifted_solve)(n, f, x);
    double xnorm = EIG(norm1_inf)(n, x);
    double raw_ratio = bnorm / xnorm;
    /* Converged in the raw residual: the first solve (from the random
     * start, whose components along the other eigenvectors are only
     * damped by (eigenvalue error) / gap) is held to tol; a later solve,
     * whose start was already such an iterate, to the classical bound
     * tol1 = EIG_LATE_TOL sqrt(n) tol: its remaining residual is the
     * eigenvalue error along the vector itself, harmless for
     * orthogonality, plus the backward error of the solve. */
    int pass_raw = raw_ratio <= (it == 0 ? tol : tol1);
    int heavy = 0;
    /* Complex: a residual above tol1 makes the Rayleigh quotient below
     * the next shift (may_refine). */
    int will_refine = may_refine && it + 1 < maxit && !(raw_ratio <= tol1);
    /* Orthogonalize only the vector that is going to be accepted, or
     * inside a tight cluster, where the iteration itself needs it, or
     * before a Rayleigh quotient: unorthogonalized, the iterate of a
     * close pair (|lambda_j - lambda_k| << tau, LR values off by about
     * that much) leans towards the earlier member, and its quotient then
     * converges to lambda_k again (a repeated eigenvalue, the other one
     * lost). */
    if (nwin > 0 && (pass_raw || intight || will_refine || it == maxit - 1)) {
      /* Classical Gram-Schmidt, repeated once when it cancelled heavily
       * or inside a tight cluster ("twice is enough"). */
      for (int pass = 0; pass < 2; pass++) {
        EIG(orthogonalize)(n, md, mo, ring, win, nwin, coef, x, y);
        double xo = EIG(norm1_inf)(n, x);
        int h = xo < 0.5 * xnorm;
        xnorm = xo;
        if (h)
          heavy = 1;
        if (!h && !(pass == 0 && intight))
          break;
      }
    }
    if (!(xnorm > 0.0) || !isfinite(xnorm)) {
      fail->kind = 1;
      fail->j = j;
      fail->lam = lam;
      return 1;
    }
    double rx = 1.0 / xnorm;
    for (int i = 0; i < n; i++)
      v[i] = x[i] * rx;
    if (!heavy) {
      ratio = raw_ratio;
      if (pass_raw)
        break;
    } else {
      ratio = EIG(residual)(n, ad, ao, md, mo, lambda[j], v, y);
      /* Not after the first solve unless at tol: a residual of the
       * spread's size there also holds the other eigenvectors' components,
       * damped only once by (spread) / gap. */
      if (ratio <= tol ||
          (it > 0 && ratio <= tol + (spread + EIG_ABS1(sigma - lambda[j])) * mnorm))
        break;
    }
    if (may_refine && it + 1 < maxit && !(ratio <= tol1)) {
      /* Rayleigh quotient v^T A v / v^T M v as the new shift, when the
       * residual is above the one-step bound tol1 for an eigenvalue that
       * is accurate to working precision (then the next solve from v
       * converges without it, and a refactorization is saved). */
      EIG_T rho;
      if (EIG(rayleigh)(cx, v, y, &rho) && EIG_ABS(rho - sigma) > eps * nrm) {
        sigma = rho;
        lambda[j] = rho;
        sw->refined = 1;
        nrm = EIG(shift_norm)(anorm, mnorm, sigma);
        tol = EIG_RESID_TOL * eps * nrm;
        tol1 = EIG_LATE_TOL * sqrt((double)n) * tol;
        EIG(shifted_factor)(n, ad, ao, md, mo, sigma, eps * nrm, &lu);
      }
    }
  }
  if (!(ratio <= sqrt(eps) * nrm)) {
    fail->kind = 2;
    fail->j = j;
    fail->lam = lam;
    fail->val = ratio / nrm;
    return 2;
  }

  return 0;
}

/* Vector j done (v, ||v||_inf = 1): scale to w^T M w = 1 with the sign
 * convention and store the selected components. y: scratch of n. */
static int EIG(finish)(const EIG(ictx) * cx, int j, EIG_T *v, EIG_T *y, EIG(ifail) * fail)
{
  const int n = cx->n;
  const double eps = DBL_EPSILON;
  /* w^T M w = 1 (complex: principal square root of w^T M w). */
  EIG(mass_apply)(n, cx->md, cx->mo, v, y);
  EIG_T s = EIG(dot)(n, v, y);
  /* Real: s > 0 as M is positive definite. Complex: reject a (numerically)
   * isotropic vector, |w^T M w| <= eps ||M|| ||w||^2 with ||w||_inf = 1. */
  if (EIG_IS_REAL ? !(creal(s) > 0.0) : !(EIG_ABS(s) > eps * cx->mnorm)) {
    fail->kind = 3;
    fail->j = j;
    fail->s = s;
    return 3;
  }
  EIG_T scale = EIG_RECIP(EIG_SQRT(s));
  /* Sign convention: the first entry of largest magnitude gets a positive
   * real part (deterministic output, identical for every sel). */
  int imax = EIG(argmax)(n, v);
  if (creal(v[imax] * scale) < 0.0)
    scale = -scale;
  EIG(scale)(n, scale, v);
  for (int t = 0; cx->w && t < cx->nsel; t++)
    cx->w[(size_t)j * cx->nsel + t] = v[cx->sel ? cx->sel[t] : t];
  return 0;
}

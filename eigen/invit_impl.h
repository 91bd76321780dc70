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
 * entire spectrum and cost O(n^3)) the new vector is re-orthogonalized in the
 * M bilinear form x^T M y (plain transpose also when complex), classical
 * Gram-Schmidt repeated once when it cancels heavily. Pairs further apart than
 * tau have |x_j^T M x_k| of order eps ||T|| / tau = n eps / EIG_CLUSTER_TOL.
 * Equal eigenvalues get shifts 10 eps ||T|| apart (dstein's perturbation) so
 * that the iteration can separate them.
 *
 * Type-generic: included by eigen.c once per scalar type.
 */

/* Factor A - sigma M = P L U; d, du, du2, dl, dinv (reciprocal pivots), ip. */
static void EIG(shifted_factor)(int n, const EIG_T *ad, const EIG_T *ao, const EIG_T *md,
                                const EIG_T *mo, EIG_T sigma, double pert, EIG_T *d,
                                EIG_T *du, EIG_T *du2, EIG_T *dl, EIG_T *dinv,
                                unsigned char *ip)
{
  for (int i = 0; i < n; i++)
    d[i] = ad[i] - sigma * md[i];
  for (int i = 0; i < n - 1; i++) {
    du[i] = ao[i] - (mo ? sigma * mo[i] : 0.0);
    dl[i] = du[i];
  }
  for (int i = 0; i < n - 1; i++) {
    if (EIG_ABS1(d[i]) >= EIG_ABS1(dl[i])) { /* no interchange */
      double a = EIG_ABS1(d[i]);
      if (a < pert)
        d[i] = (a == 0.0) ? (EIG_T)pert : d[i] * (pert / a);
      EIG_T r = EIG_RECIP(d[i]);
      dinv[i] = r;
      EIG_T f = dl[i] * r;
      dl[i] = f;
      d[i + 1] -= f * du[i];
      du2[i] = 0.0;
      ip[i] = 0;
    } else { /* interchange rows i and i+1 */
      EIG_T r = EIG_RECIP(dl[i]);
      dinv[i] = r;
      EIG_T f = d[i] * r;
      d[i] = dl[i];
      dl[i] = f;
      EIG_T tmp = du[i];
      du[i] = d[i + 1];
      d[i + 1] = tmp - f * d[i + 1];
      if (i < n - 2) {
        du2[i] = du[i + 1];
        du[i + 1] = -f * du[i + 1];
      } else {
        du2[i] = 0.0;
      }
      ip[i] = 1;
    }
  }
  double a = EIG_ABS1(d[n - 1]);
  if (a < pert)
    d[n - 1] = (a == 0.0) ? (EIG_T)pert : d[n - 1] * (pert / a);
  dinv[n - 1] = EIG_RECIP(d[n - 1]);
}

/* Solve with the factors of shifted_factor, in place. */
static void EIG(shifted_solve)(int n, const EIG_T *du, const EIG_T *du2, const EIG_T *dl,
                               const EIG_T *dinv, const unsigned char *ip, EIG_T *x)
{
  for (int i = 0; i < n - 1; i++) {
    if (!ip[i]) {
      x[i + 1] -= dl[i] * x[i];
    } else {
      EIG_T t = x[i];
      x[i] = x[i + 1];
      x[i + 1] = t - dl[i] * x[i + 1];
    }
  }
  x[n - 1] *= dinv[n - 1];
  if (n > 1)
    x[n - 2] = (x[n - 2] - du[n - 2] * x[n - 1]) * dinv[n - 2];
  for (int i = n - 3; i >= 0; i--)
    x[i] = (x[i] - du[i] * x[i + 1] - du2[i] * x[i + 2]) * dinv[i];
}

/* y = M x (mo NULL: M diagonal). */
static void EIG(mass_apply)(int n, const EIG_T *md, const EIG_T *mo, const EIG_T *x, EIG_T *y)
{
  if (!mo || n == 1) {
    for (int i = 0; i < n; i++)
      y[i] = md[i] * x[i];
    return;
  }
  y[0] = md[0] * x[0] + mo[0] * x[1];
  for (int i = 1; i < n - 1; i++)
    y[i] = mo[i - 1] * x[i - 1] + md[i] * x[i] + mo[i] * x[i + 1];
  y[n - 1] = mo[n - 2] * x[n - 2] + md[n - 1] * x[n - 1];
}

/* x^T y (no conjugation). Four partial sums: the window re-orthogonalization
 * is dominated by these dots, and one sum is bound by the add latency. */
static EIG_T EIG(dot)(int n, const EIG_T *x, const EIG_T *y)
{
  EIG_T s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  int i = 0;
  for (; i + 3 < n; i += 4) {
    s0 += x[i] * y[i];
    s1 += x[i + 1] * y[i + 1];
    s2 += x[i + 2] * y[i + 2];
    s3 += x[i + 3] * y[i + 3];
  }
  for (; i < n; i++)
    s0 += x[i] * y[i];
  return (s0 + s1) + (s2 + s3);
}

/* max |x_i| (|re| + |im|); NaN if any entry is NaN (fmax is a libm call
 * and would drop NaNs). */
static double EIG(norm1_inf)(int n, const EIG_T *x)
{
  double m = 0.0, sum = 0.0;
  for (int i = 0; i < n; i++) {
    double a = EIG_ABS1(x[i]);
    m = a > m ? a : m;
    sum += a;
  }
  return isnan(sum) ? sum : m;
}

static void EIG(scale)(int n, EIG_T a, EIG_T *x)
{
  for (int i = 0; i < n; i++)
    x[i] *= a;
}

/* Ring of the most recent full eigenvectors (n entries each): vector k lives
 * in slot k % cap while k >= (next index) - cap. */
typedef struct EIG(ring) {
  EIG_T *v;
  int cap;
} EIG(ring);

/* Make room for vectors first..j-1 plus j; returns 0 on allocation failure. */
static int EIG(ring_reserve)(EIG(ring) * r, int n, int first, int j)
{
  int need = j - first + 1;
  if (need <= r->cap)
    return 1;
  int cap = r->cap ? r->cap : 8;
  while (cap < need)
    cap *= 2;
  EIG_T *v = malloc((size_t)cap * (size_t)n * sizeof(EIG_T));
  if (!v)
    return 0;
  for (int k = first; k < j; k++)
    memcpy(v + (size_t)(k % cap) * n, r->v + (size_t)(k % r->cap) * n,
           (size_t)n * sizeof(EIG_T));
  free(r->v);
  r->v = v;
  r->cap = cap;
  return 1;
}

static EIG_T *EIG(ring_at)(EIG(ring) * r, int n, int k)
{
  return r->v + (size_t)(k % r->cap) * n;
}

/* Random start in [-1, 1) (splitmix64, seeded by the eigenvalue index). */
static void EIG(random_start)(int n, int j, EIG_T *x)
{
  uint64_t state = (uint64_t)(j + 1) * 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < n; i++) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    x[i] = 2.0 * ((double)(z >> 11) * 0x1.0p-53) - 1.0;
  }
}

/*
 * One pass of classical Gram-Schmidt of x against the window vectors
 * (M-normalized), in the bilinear form x^T M y. y: scratch of n.
 */
static void EIG(orthogonalize)(int n, const EIG_T *md, const EIG_T *mo, EIG(ring) * r,
                               const int *win, int nwin, EIG_T *coef, EIG_T *x, EIG_T *y)
{
  EIG(mass_apply)(n, md, mo, x, y);
  for (int t = 0; t < nwin; t++)
    coef[t] = EIG(dot)(n, EIG(ring_at)(r, n, win[t]), y);
  for (int t = 0; t < nwin; t++) {
    const EIG_T *v = EIG(ring_at)(r, n, win[t]);
    EIG_T c = coef[t];
    for (int i = 0; i < n; i++)
      x[i] -= c * v[i];
  }
}

/* Index of the first entry of largest magnitude (for the sign convention). */
static int EIG(argmax)(int n, const EIG_T *x)
{
  int best = 0;
  double m = -1.0;
  for (int i = 0; i < n; i++) {
    double a = EIG_ABS1(x[i]);
    if (a > m) {
      m = a;
      best = i;
    }
  }
  return best;
}

/*
 * All eigenvectors for the sorted eigenvalues lambda (n of them); writes the
 * sel components to w (w NULL: none). tnorm: ||T|| of the reduced problem
 * (cluster scale). With EIG_REFINE, lambda is refined (and re-sorted, with
 * the rows of w) where the residual shows it was inaccurate.
 */
static pscr_status EIG(inverse_iteration)(int n, const EIG_T *ad, const EIG_T *ao,
                                          const EIG_T *md, const EIG_T *mo, EIG_T *lambda,
                                          double anorm, double mnorm,
                                          double tnorm, int nsel, const int *sel, EIG_T *w)
{
  const double eps = DBL_EPSILON;
  const int maxit = 5;
  pscr_status st = PSCR_SUCCESS;
  EIG(ring) ring = {NULL, 0};
  EIG_T *work = malloc((size_t)8 * (size_t)n * sizeof(EIG_T));
  unsigned char *ip = malloc((size_t)n);
  int *win = malloc((size_t)n * sizeof(int));
  if (!work || !ip || !win) {
    st = PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "eigen: no memory for inverse iteration (n = %d)", n);
    goto out;
  }
  EIG_T *d = work, *du = work + n, *du2 = work + 2 * (size_t)n, *dl = work + 3 * (size_t)n;
  EIG_T *dinv = work + 4 * (size_t)n, *x = work + 5 * (size_t)n, *y = work + 6 * (size_t)n;
  EIG_T *coef = work + 7 * (size_t)n;

  const double tau = EIG_CLUSTER_TOL * tnorm / n;
  const double pertol = 10.0 * eps * (tnorm > 0.0 ? tnorm : 1.0);
  EIG_T sigma_prev = 0.0;
  int refined = 0;

  for (int j = 0; j < n; j++) {
    EIG_T lam = lambda[j];
    /* Window: earlier vectors with |lambda_k - lambda_j| <= tau. Sorted by
     * real part, so they lie in a contiguous run of indices before j. */
    int first = j, nwin = 0;
    while (first > 0 && creal(lam) - creal(lambda[first - 1]) <= tau)
      first--;
    for (int k = first; k < j; k++)
      if (EIG_ABS(lam - lambda[k]) <= tau)
        win[nwin++] = k;
    if (!EIG(ring_reserve)(&ring, n, first, j)) {
      st = PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "eigen: no memory for a cluster of %d vectors",
                      j - first + 1);
      goto out;
    }

    EIG_T sigma = lam;
    if (j > 0 && EIG_ABS(sigma - sigma_prev) < pertol)
      sigma = sigma_prev + pertol;
    sigma_prev = sigma;
    double nrm = anorm + EIG_ABS(sigma) * mnorm;
    if (nrm == 0.0)
      nrm = mnorm;
    EIG(shifted_factor)(n, ad, ao, md, mo, sigma, eps * nrm, d, du, du2, dl, dinv, ip);

    /* Converged when ||b|| / ||x||, the residual of x / ||x|| apart from the
     * rounding errors of the solve, is below EIG_RESID_TOL eps nrm: usually
     * after the second solve, which also damps the components along nearby
     * eigenvectors. (The solve's own backward error, about sqrt(n) eps nrm
     * here, lies along no particular eigenvector and cannot be iterated
     * away, so it is not part of the test.) */
    double tol = EIG_RESID_TOL * eps * nrm;
    EIG_T *v = EIG(ring_at)(&ring, n, j);
    EIG(random_start)(n, j, v);
    double ratio = INFINITY;
    for (int it = 0; it < maxit; it++) {
      EIG(mass_apply)(n, md, mo, v, x);
      double bnorm = EIG(norm1_inf)(n, x);
      EIG(shifted_solve)(n, du, du2, dl, dinv, ip, x);
      double xnorm = EIG(norm1_inf)(n, x);
      int cancelled = 0;
      if (nwin > 0) {
        /* Repeat the Gram-Schmidt pass once if it cancelled heavily
         * ("twice is enough"); a heavy cancellation also means the residual
         * estimate is not yet trustworthy, so iterate again. */
        for (int pass = 0; pass < 2; pass++) {
          EIG(orthogonalize)(n, md, mo, &ring, win, nwin, coef, x, y);
          double xo = EIG(norm1_inf)(n, x);
          int heavy = xo < 0.5 * xnorm;
          xnorm = xo;
          if (!heavy)
            break;
          cancelled = 1;
        }
      }
      if (!(xnorm > 0.0) || !isfinite(xnorm)) {
        st = PSCR_ERROR(PSCR_ERROR_EIGEN_FAILED,
                        "inverse iteration broke down for eigenvalue %d (%g%+gi)", j,
                        creal(lam), cimag(lam));
        goto out;
      }
      double rx = 1.0 / xnorm;
      for (int i = 0; i < n; i++)
        v[i] = x[i] * rx;
      ratio = bnorm * rx;
      if (ratio <= tol && !cancelled)
        break;
      if (EIG_REFINE && it + 1 < maxit) {
        /* Rayleigh quotient v^T A v / v^T M v as the new shift. */
        EIG(mass_apply)(n, ad, ao, v, y);
        EIG_T num = EIG(dot)(n, v, y);
        EIG(mass_apply)(n, md, mo, v, y);
        EIG_T den = EIG(dot)(n, v, y);
        if (EIG_ABS(den) > eps * mnorm) {
          EIG_T rho = num * EIG_RECIP(den);
          if (EIG_ABS(rho - sigma) > eps * nrm) {
            sigma = rho;
            lambda[j] = rho;
            refined = 1;
            nrm = anorm + EIG_ABS(sigma) * mnorm;
            if (nrm == 0.0)
              nrm = mnorm;
            tol = EIG_RESID_TOL * eps * nrm;
            EIG(shifted_factor)(n, ad, ao, md, mo, sigma, eps * nrm, d, du, du2, dl, dinv,
                                ip);
          }
        }
      }
    }
    if (!(ratio <= sqrt(eps) * nrm)) {
      st = PSCR_ERROR(PSCR_ERROR_EIGEN_FAILED,
                      "inverse iteration did not converge for eigenvalue %d (%g%+gi): "
                      "relative residual %g after %d steps",
                      j, creal(lam), cimag(lam), ratio / nrm, maxit);
      goto out;
    }

    /* w^T M w = 1 (complex: principal square root of w^T M w). */
    EIG(mass_apply)(n, md, mo, v, y);
    EIG_T s = EIG(dot)(n, v, y);
    /* Real: s > 0 as M is positive definite. Complex: reject a (numerically)
     * isotropic vector, |w^T M w| <= eps ||M|| ||w||^2 with ||w||_inf = 1. */
    if (EIG_IS_REAL ? !(creal(s) > 0.0) : !(EIG_ABS(s) > eps * mnorm)) {
      st = PSCR_ERROR(PSCR_ERROR_NOT_DEFINITE,
                      "eigenvector %d has w^T M w = %g%+gi: cannot be normalized", j,
                      creal(s), cimag(s));
      goto out;
    }
    EIG_T scale = EIG_RECIP(EIG_SQRT(s));
    /* Sign convention: the first entry of largest magnitude gets a positive
     * real part (deterministic output, identical for every sel). */
    int imax = EIG(argmax)(n, v);
    if (creal(v[imax] * scale) < 0.0)
      scale = -scale;
    EIG(scale)(n, scale, v);
    for (int t = 0; w && t < nsel; t++)
      w[(size_t)j * nsel + t] = v[sel ? sel[t] : t];
  }

  /* Refined eigenvalues may have swapped places: restore the documented
   * order (insertion sort, the array is nearly sorted). */
  for (int j = 1; refined && j < n; j++) {
    for (int k = j; k > 0 && EIG(compare)(&lambda[k - 1], &lambda[k]) > 0; k--) {
      EIG_T t = lambda[k];
      lambda[k] = lambda[k - 1];
      lambda[k - 1] = t;
      for (int s = 0; w && s < nsel; s++) {
        EIG_T *a = &w[(size_t)k * nsel + s], *b = &w[(size_t)(k - 1) * nsel + s];
        t = *a;
        *a = *b;
        *b = t;
      }
    }
  }

out:
  free(ring.v);
  free(win);
  free(ip);
  free(work);
  return st;
}

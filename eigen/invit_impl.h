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
 * Cost: usually two solves per vector (the first from the random start is
 * accepted only at the plain bound EIG_RESID_TOL eps nrm, later ones at the
 * one-step bound sqrt(n) times that); the factorizations of consecutive
 * vectors run in one loop (real case) to overlap their division latencies;
 * the factorization and solve are branch-free. The spectrum splits into
 * independent groups wherever consecutive eigenvalues are more than tau
 * apart; groups run in parallel (OpenMP), deterministically.
 *
 * Type-generic: included by eigen.c once per scalar type.
 */

/* LU factors of A - sigma M with partial pivoting (as LAPACK dgttrf):
 * pivots d (only the last is used by the solve), reciprocal pivots dinv,
 * multipliers dl, U's first and second off-diagonals du, du2 divided by
 * their row's pivot (see shifted_solve), interchanges ip. */
typedef struct EIG(lu) {
  EIG_T *d, *du, *du2, *dl, *dinv;
  unsigned char *ip;
} EIG(lu);

/* Pivot raised to pert in modulus when below it (a singular column). */
static inline EIG_T EIG(pivot_fix)(EIG_T p0, double pert)
{
  double a = EIG_ABS1(p0);
  if (a < pert) /* rare */
    p0 = (a == 0.0) ? (EIG_T)pert : p0 * (pert / a);
  return p0;
}

/*
 * Elimination step i (0 <= i < n-1). Row i holds (dc, uc, 0) in columns
 * i..i+2, row i+1 (l, dn, un): the entries of A - sigma M, dc and uc
 * already updated by step i-1. Branch-free: the pivoting pattern is
 * irregular near an eigenvalue and mispredicted branches would dominate, so
 * the interchange is a select; the carried entries stay in registers.
 */
static inline void EIG(factor_step)(int i, int n, const EIG_T *ad, const EIG_T *ao,
                                    const EIG_T *md, const EIG_T *mo, EIG_T sigma,
                                    double pert, const EIG(lu) * f, EIG_T *dc, EIG_T *uc)
{
  EIG_T l = ao[i] - (mo ? sigma * mo[i] : 0.0);
  EIG_T dn = ad[i + 1] - sigma * md[i + 1];
  EIG_T un = (i < n - 2) ? ao[i + 1] - (mo ? sigma * mo[i + 1] : 0.0) : 0.0;
  EIG_T c = *dc, u = *uc;
  int sw = EIG_ABS1(c) < EIG_ABS1(l);
  EIG_T p0 = sw ? l : c, q0 = sw ? c : l;   /* column i */
  EIG_T p1 = sw ? dn : u, q1 = sw ? u : dn; /* column i+1 */
  EIG_T p2 = sw ? un : 0.0;                 /* column i+2 */
  EIG_T q2 = sw ? 0.0 : un;
  p0 = EIG(pivot_fix)(p0, pert);
  EIG_T r = EIG_RECIP(p0);
  EIG_T m = q0 * r;
  f->d[i] = p0;
  f->dinv[i] = r;
  f->dl[i] = m;
  f->du[i] = p1 * r;
  f->du2[i] = p2 * r;
  f->ip[i] = (unsigned char)sw;
  *dc = q1 - m * p1;
  *uc = q2 - m * p2;
}

static inline void EIG(factor_last)(int n, double pert, const EIG(lu) * f, EIG_T dc)
{
  dc = EIG(pivot_fix)(dc, pert);
  f->d[n - 1] = dc;
  f->dinv[n - 1] = EIG_RECIP(dc);
}

static inline void EIG(factor_first)(int n, const EIG_T *ad, const EIG_T *ao, const EIG_T *md,
                                     const EIG_T *mo, EIG_T sigma, EIG_T *dc, EIG_T *uc)
{
  *dc = ad[0] - sigma * md[0];
  *uc = n > 1 ? ao[0] - (mo ? sigma * mo[0] : 0.0) : 0.0;
}

/* Factor A - sigma M into f. */
static void EIG(shifted_factor)(int n, const EIG_T *ad, const EIG_T *ao, const EIG_T *md,
                                const EIG_T *mo, EIG_T sigma, double pert, const EIG(lu) * f)
{
  EIG_T dc, uc;
  EIG(factor_first)(n, ad, ao, md, mo, sigma, &dc, &uc);
  for (int i = 0; i < n - 1; i++)
    EIG(factor_step)(i, n, ad, ao, md, mo, sigma, pert, f, &dc, &uc);
  EIG(factor_last)(n, pert, f, dc);
}

/* Two factorizations in one loop: their recurrences (a division each per
 * row) are independent, so the core overlaps their latencies. Same
 * arithmetic as two shifted_factor calls. */
static void EIG(shifted_factor2)(int n, const EIG_T *ad, const EIG_T *ao, const EIG_T *md,
                                 const EIG_T *mo, EIG_T sa, double pa, const EIG(lu) * fa,
                                 EIG_T sb, double pb, const EIG(lu) * fb)
{
  EIG_T dca, uca, dcb, ucb;
  EIG(factor_first)(n, ad, ao, md, mo, sa, &dca, &uca);
  EIG(factor_first)(n, ad, ao, md, mo, sb, &dcb, &ucb);
  for (int i = 0; i < n - 1; i++) {
    EIG(factor_step)(i, n, ad, ao, md, mo, sa, pa, fa, &dca, &uca);
    EIG(factor_step)(i, n, ad, ao, md, mo, sb, pb, fb, &dcb, &ucb);
  }
  EIG(factor_last)(n, pa, fa, dca);
  EIG(factor_last)(n, pb, fb, dcb);
}

/* Solve with the factors of shifted_factor, in place. */
static void EIG(shifted_solve)(int n, const EIG(lu) * f, EIG_T *x)
{
  const EIG_T *du = f->du, *du2 = f->du2, *dl = f->dl, *dinv = f->dinv;
  const unsigned char *ip = f->ip;
  EIG_T xi = x[0];
  for (int i = 0; i < n - 1; i++) { /* branch-free: the swap is a select */
    EIG_T xn = x[i + 1];
    int sw = ip[i];
    EIG_T piv = sw ? xn : xi, oth = sw ? xi : xn;
    x[i] = piv;
    xi = oth - dl[i] * piv;
  }
  x[n - 1] = xi;
  /* du, du2 hold U's off-diagonals already divided by the pivot, so that
   * the recurrence through x[i+1] is one fused multiply-add per row. */
  x[n - 1] *= dinv[n - 1];
  if (n > 1)
    x[n - 2] = x[n - 2] * dinv[n - 2] - du[n - 2] * x[n - 1];
  for (int i = n - 3; i >= 0; i--)
    x[i] = (x[i] * dinv[i] - du2[i] * x[i + 2]) - du[i] * x[i + 1];
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
 * (M-normalized), in the bilinear form x^T M y. y: scratch of n. The
 * coefficients are computed four at a time (one pass over y per four
 * vectors) and subtracted four at a time.
 */
static void EIG(orthogonalize)(int n, const EIG_T *md, const EIG_T *mo, EIG(ring) * r,
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

/* ||A x - lam M x||_inf (explicit residual); y: scratch of n. */
static double EIG(residual)(int n, const EIG_T *ad, const EIG_T *ao, const EIG_T *md,
                            const EIG_T *mo, EIG_T lam, const EIG_T *x, EIG_T *y)
{
  EIG(mass_apply)(n, md, mo, x, y);
  for (int i = 0; i < n; i++)
    y[i] = -lam * y[i] + ad[i] * x[i];
  for (int i = 0; i + 1 < n; i++) {
    y[i] += ao[i] * x[i + 1];
    y[i + 1] += ao[i] * x[i];
  }
  return EIG(norm1_inf)(n, y);
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

/* |z|^2 without hypot. */
static inline double EIG(abs2)(EIG_T z) { return creal(z) * creal(z) + cimag(z) * cimag(z); }

/* anorm + |sigma| mnorm: the scale of A - sigma M. */
static double EIG(shift_norm)(double anorm, double mnorm, EIG_T sigma)
{
  double nrm = anorm + EIG_ABS(sigma) * mnorm;
  return nrm == 0.0 ? mnorm : nrm;
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

/* Shared, read-only inputs of the inverse iteration (lambda and w are
 * written, each group only in its own rows). */
typedef struct EIG(ictx) {
  int n, nsel;
  const EIG_T *ad, *ao, *md, *mo;
  EIG_T *lambda, *w;
  const int *sel;
  double anorm, mnorm, tnorm;
} EIG(ictx);

/* Per-thread scratch. */
typedef struct EIG(iscr) {
  EIG(ring) ring;
  EIG_T *work;
  unsigned char *ip;
  int *win;
} EIG(iscr);

/* Failure of one group, reported by the calling thread (the detail message
 * is thread-local). kind: 1 breakdown, 2 no convergence, 3 isotropic,
 * 4 allocation. */
typedef struct EIG(ifail) {
  int kind, j;
  EIG_T lam, s;
  double val;
} EIG(ifail);

static int EIG(iscr_init)(EIG(iscr) * sc, int n)
{
  sc->ring.v = NULL;
  sc->ring.cap = 0;
  sc->work = malloc((size_t)14 * (size_t)n * sizeof(EIG_T));
  sc->ip = malloc((size_t)2 * (size_t)n);
  sc->win = malloc((size_t)n * sizeof(int));
  return sc->work && sc->ip && sc->win;
}

static void EIG(iscr_free)(EIG(iscr) * sc)
{
  free(sc->ring.v);
  free(sc->work);
  free(sc->ip);
  free(sc->win);
}

/*
 * Eigenvectors g0..g1-1: a group whose eigenvalues are separated from the
 * rest of the spectrum by more than the window tau (real parts), so that no
 * vector of another group enters its windows. Returns 0, or a failure kind
 * (details in *fail). *refined: set when an eigenvalue was refined.
 */
static int EIG(invit_group)(const EIG(ictx) * cx, EIG(iscr) * sc, int g0, int g1,
                            int *refined, EIG(ifail) * fail)
{
  const int n = cx->n;
  const EIG_T *ad = cx->ad, *ao = cx->ao, *md = cx->md, *mo = cx->mo;
  EIG_T *lambda = cx->lambda;
  const double anorm = cx->anorm, mnorm = cx->mnorm, tnorm = cx->tnorm;
  const double eps = DBL_EPSILON;
  const int maxit = 5;
  EIG(ring) *ring = &sc->ring;
  int *win = sc->win;
  EIG_T *work = sc->work;
  EIG_T *x = work + 5 * (size_t)n, *y = work + 6 * (size_t)n, *coef = work + 7 * (size_t)n;
  /* Two factorization slots (9n.. and 0..: d, du, du2, dl, dinv). */
  EIG(lu) lu[2];
  for (int t = 0; t < 2; t++) {
    EIG_T *b = t ? work + 9 * (size_t)n : work;
    lu[t].d = b;
    lu[t].du = b + n;
    lu[t].du2 = b + 2 * (size_t)n;
    lu[t].dl = b + 3 * (size_t)n;
    lu[t].dinv = b + 4 * (size_t)n;
    lu[t].ip = sc->ip + (size_t)t * n;
  }
  int ready = -1, slot = 0; /* lu[slot] already holds vector ready's factors */
  EIG_T sigma_ready = 0.0;

  const double tau = EIG_CLUSTER_TOL * tnorm / n, tau2 = tau * tau;
  const double pertol = 10.0 * eps * (tnorm > 0.0 ? tnorm : 1.0);
  /* Tight cluster: eigenvalues this close to lambda_j are numerically
   * indistinguishable; any vector of their invariant subspace is an
   * acceptable eigenvector, with a residual of up to their spread. */
  const double tight = EIG_TIGHT_TOL * n * eps * (tnorm > 0.0 ? tnorm : 1.0);
  EIG_T sigma_prev = 0.0;

  for (int j = g0; j < g1; j++) {
    EIG_T lam = lambda[j];
    /* Window: earlier vectors of the group with |lambda_k - lambda_j| <=
     * tau. Sorted by real part, so they lie in a run of indices before j. */
    int first = j, nwin = 0;
    double spread = 0.0;
    int intight = 0; /* some window member lies within tight */
    while (first > g0 && creal(lam) - creal(lambda[first - 1]) <= tau)
      first--;
    for (int k = first; k < j; k++) {
      double d2 = EIG(abs2)(lam - lambda[k]);
      if (d2 <= tau2) {
        win[nwin++] = k;
        if (d2 <= tight * tight) {
          intight = 1;
          spread = fmax(spread, sqrt(d2));
        }
      }
    }
    if (!EIG(ring_reserve)(ring, n, first, j)) {
      fail->kind = 4;
      fail->j = j - first + 1;
      return 4;
    }

    EIG_T sigma = EIG(shift_of)(lambda, g0, j, tau, tight, pertol, sigma_prev);
    sigma_prev = sigma;
    double nrm = EIG(shift_norm)(anorm, mnorm, sigma);
    const EIG(lu) *f;
    if (ready == j) { /* factored with vector j-1 */
      f = &lu[slot];
      sigma = sigma_ready;
    } else if (!EIG_REFINE && j + 1 < g1) {
      /* Factor for j and j+1 together (their shifts are known: no
       * refinement in this expansion). */
      EIG_T sn = EIG(shift_of)(lambda, g0, j + 1, tau, tight, pertol, sigma);
      EIG(shifted_factor2)(n, ad, ao, md, mo, sigma, eps * nrm, &lu[0], sn,
                           eps * EIG(shift_norm)(anorm, mnorm, sn), &lu[1]);
      f = &lu[0];
      ready = j + 1;
      slot = 1;
      sigma_ready = sn;
    } else {
      EIG(shifted_factor)(n, ad, ao, md, mo, sigma, eps * nrm, &lu[0]);
      f = &lu[0];
    }

    /* Converged when ||b|| / ||x||, the residual of x / ||x|| apart from the
     * rounding errors of the solve, is below EIG_RESID_TOL eps nrm. (The
     * solve's own backward error, about sqrt(n) eps nrm here, lies along no
     * particular eigenvector and cannot be iterated away, so it is not part
     * of the test.) When the Gram-Schmidt pass against the window cancels
     * heavily (a tight cluster), that estimate no longer applies: the
     * residual of the orthogonalized vector is measured explicitly and
     * accepted up to the cluster's spread. */
    double tol = EIG_RESID_TOL * eps * nrm, tol1 = EIG_LATE_TOL * sqrt((double)n) * tol;
    EIG_T *v = EIG(ring_at)(ring, n, j);
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
       * the next shift. */
      int will_refine = EIG_REFINE && it + 1 < maxit && !(raw_ratio <= tol1);
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
      if (EIG_REFINE && it + 1 < maxit && !(ratio <= tol1)) {
        /* Rayleigh quotient v^T A v / v^T M v as the new shift, when the
         * residual is above the one-step bound tol1 for an eigenvalue that
         * is accurate to working precision (then the next solve from v
         * converges without it, and a refactorization is saved). */
        EIG(mass_apply)(n, ad, ao, v, y);
        EIG_T num = EIG(dot)(n, v, y);
        EIG(mass_apply)(n, md, mo, v, y);
        EIG_T den = EIG(dot)(n, v, y);
        if (EIG_ABS(den) > eps * mnorm) {
          EIG_T rho = num * EIG_RECIP(den);
          if (EIG_ABS(rho - sigma) > eps * nrm) {
            sigma = rho;
            lambda[j] = rho;
            *refined = 1;
            nrm = anorm + EIG_ABS(sigma) * mnorm;
            if (nrm == 0.0)
              nrm = mnorm;
            tol = EIG_RESID_TOL * eps * nrm;
            tol1 = EIG_LATE_TOL * sqrt((double)n) * tol;
            EIG(shifted_factor)(n, ad, ao, md, mo, sigma, eps * nrm, &lu[0]);
            f = &lu[0];
          }
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

    /* w^T M w = 1 (complex: principal square root of w^T M w). */
    EIG(mass_apply)(n, md, mo, v, y);
    EIG_T s = EIG(dot)(n, v, y);
    /* Real: s > 0 as M is positive definite. Complex: reject a (numerically)
     * isotropic vector, |w^T M w| <= eps ||M|| ||w||^2 with ||w||_inf = 1. */
    if (EIG_IS_REAL ? !(creal(s) > 0.0) : !(EIG_ABS(s) > eps * mnorm)) {
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
  }
  return 0;
}

/*
 * All eigenvectors for the sorted eigenvalues lambda (n of them); writes the
 * sel components to w (w NULL: none). tnorm: ||T|| of the reduced problem
 * (cluster scale). With EIG_REFINE, lambda is refined (and re-sorted, with
 * the rows of w) where the residual shows it was inaccurate.
 *
 * The spectrum is split into groups wherever consecutive real parts are more
 * than the window tau apart; no window crosses a group boundary, so the
 * groups are independent and run in parallel (OpenMP; serially when called
 * from inside a parallel region). The result does not depend on the number
 * of threads.
 */
static pscr_status EIG(inverse_iteration)(int n, const EIG_T *ad, const EIG_T *ao,
                                          const EIG_T *md, const EIG_T *mo, EIG_T *lambda,
                                          double anorm, double mnorm,
                                          double tnorm, int nsel, const int *sel, EIG_T *w)
{
  const double tau = EIG_CLUSTER_TOL * tnorm / n;
  EIG(ictx) cx = {n, nsel, ad, ao, md, mo, lambda, w, sel, anorm, mnorm, tnorm};
  /* Group starts (gs[ng] = n); gfail per group. */
  int *gs = malloc(((size_t)n + 1) * sizeof(int));
  EIG(ifail) *gfail = malloc((size_t)n * sizeof(EIG(ifail)));
  int *gkind = calloc((size_t)n, sizeof(int));
  if (!gs || !gfail || !gkind) {
    free(gs);
    free(gfail);
    free(gkind);
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "eigen: no memory for inverse iteration (n = %d)",
                      n);
  }
  int ng = 0;
  for (int j = 0; j < n; j++)
    if (j == 0 || !(creal(lambda[j]) - creal(lambda[j - 1]) <= tau))
      gs[ng++] = j;
  gs[ng] = n;

  int refined = 0, allocfail = 0;
#ifdef _OPENMP
#pragma omp parallel if (ng > 1 && n >= 64) reduction(| : refined, allocfail)
#endif
  {
    EIG(iscr) sc;
    if (!EIG(iscr_init)(&sc, n)) {
      allocfail = 1;
    }
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
    for (int g = 0; g < ng; g++) {
      if (allocfail) {
        gkind[g] = 4;
        gfail[g].j = 0;
        continue;
      }
      int ref = 0;
      gkind[g] = EIG(invit_group)(&cx, &sc, gs[g], gs[g + 1], &ref, &gfail[g]);
      refined |= ref;
    }
    EIG(iscr_free)(&sc);
  }
  (void)allocfail;

  pscr_status st = PSCR_SUCCESS;
  for (int g = 0; g < ng && st == PSCR_SUCCESS; g++) {
    const EIG(ifail) *f = &gfail[g];
    switch (gkind[g]) {
    case 0:
      break;
    case 1:
      st = PSCR_ERROR(PSCR_ERROR_EIGEN_FAILED,
                      "inverse iteration broke down for eigenvalue %d (%g%+gi)", f->j,
                      creal(f->lam), cimag(f->lam));
      break;
    case 2:
      st = PSCR_ERROR(PSCR_ERROR_EIGEN_FAILED,
                      "inverse iteration did not converge for eigenvalue %d (%g%+gi): "
                      "relative residual %g",
                      f->j, creal(f->lam), cimag(f->lam), f->val);
      break;
    case 3:
      st = PSCR_ERROR(PSCR_ERROR_NOT_DEFINITE,
                      "eigenvector %d has w^T M w = %g%+gi: cannot be normalized", f->j,
                      creal(f->s), cimag(f->s));
      break;
    default:
      st = PSCR_ERROR(PSCR_ERROR_HOST_ALLOC,
                      "eigen: no memory for inverse iteration (n = %d, cluster %d)", n, f->j);
      break;
    }
  }
  free(gs);
  free(gfail);
  free(gkind);
  if (st != PSCR_SUCCESS)
    return st;

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
  return PSCR_SUCCESS;
}

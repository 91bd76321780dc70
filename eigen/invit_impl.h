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
 * Real pencils: most vectors come from twisted
 * factorizations instead (twisted_impl.h, sixteen at a time, then two
 * steps of inverse iteration with the same factors), re-orthogonalized
 * against the same window (vectors_pipeline); the inverse iteration below
 * computes only the vectors of tight clusters and those the twisted path
 * does not accept. Complex pencils (EIG_PIV_LANES) take the same
 * pipeline, but their batches come from this pivoted inverse iteration
 * run sixteen eigenvalues at a time (piv_produce): twisted factorizations
 * are not pivoted, and on near-degenerate complex symmetric pairs, as the
 * Helmholtz pencils at low omega have, their vectors lost orthogonality
 * growing with n (8 n eps at n = 300 against 0.25). (Inverse iteration one
 * vector at a time, in parallel over groups of the spectrum split by gaps
 * wider than tau, was 1.4 times slower on one thread at n = 8191; it was
 * removed once nothing called it.)
 *
 * Cost: usually two solves per vector (the first from the random start is
 * accepted only at the plain bound EIG_RESID_TOL eps nrm, later ones at the
 * one-step bound sqrt(n) times that); the factorization and solve are
 * branch-free.
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
  for (int k = first; r->cap > 0 && k < j; k++) /* (vectors not yet computed: garbage) */
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

/* Random start in [-1, 1) (splitmix64, seeded by the eigenvalue index):
 * entry i of the start of index j is eig_splitmix_unit(i + j + 2), a
 * function of i + j alone (piv_produce builds sixteen starts from one
 * sequence that way). */
#ifndef EIG_SPLITMIX_DEFINED
#define EIG_SPLITMIX_DEFINED
static inline double eig_splitmix_unit(uint64_t k)
{
  uint64_t z = k * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return 2.0 * ((double)(z >> 11) * 0x1.0p-53) - 1.0;
}
#endif

static void EIG(random_start)(int n, int j, EIG_T *x)
{
  for (int i = 0; i < n; i++)
    x[i] = eig_splitmix_unit((uint64_t)i + (uint64_t)j + 2u);
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

/* The residual bound for a solve after the first (invit_one's tol1):
 * EIG_LATE_TOL sqrt(n) times EIG_RESID_TOL eps nrm. */
static inline double EIG(late_tol)(int n, double nrm)
{
  return EIG_LATE_TOL * sqrt((double)n) * EIG_RESID_TOL * DBL_EPSILON * nrm;
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

/* Shared inputs of the eigenvector stage. lambda0: the eigenvalues as they
 * came in (read by the producers of twisted batches, while the sweep may
 * refine lambda). */
typedef struct EIG(ictx) {
  int n, nsel;
  const EIG_T *ad, *ao, *md, *mo;
  EIG_T *lambda, *w;
  const EIG_T *lambda0;
  const int *sel;
  double anorm, mnorm, tnorm;
  double tau, tight, pertol; /* window, tight cluster, shift perturbation */
} EIG(ictx);

/* A batch of twisted vectors for eigenvalues j0..j0+cnt-1: the vectors
 * (EIG_TW_NV n lane vectors), whether each lane was accepted, and its
 * (complex: possibly refined) eigenvalue. */
typedef struct EIG(tbatch) {
  EIG(v) *z;
  int j0, cnt, ok[EIG_TW_LANES];
  EIG_T lam[EIG_TW_LANES];
} EIG(tbatch);

#ifndef EIG_TEAM_DEFINED
#define EIG_TEAM_DEFINED
/*
 * The threads that sweep together (vectors_pipeline): the batch's rows
 * split into EIG_SWEEP_SEGS fixed segments (whole blocks of 32 rows),
 * thread tid of nt taking segments tid S / nt .. (tid + 1) S / nt - 1,
 * always the same rows. Sums over the rows are formed per segment and
 * added in segment order, so the result does not depend on nt (a team of
 * one, thread 0 sweeping alone, gives the same bits). Every thread takes
 * the same branches (decisions come from the added sums); what writes
 * shared state runs on thread 0 between barriers.
 */
#define EIG_SWEEP_SEGS 16
typedef struct eig_team {
  int tid, nt;
} eig_team;

static inline void eig_team_sync(const eig_team *tm)
{
#ifdef _OPENMP
  if (tm->nt > 1) {
#pragma omp barrier
  }
#else
  (void)tm;
#endif
}

/* First row of segment s (s = EIG_SWEEP_SEGS: n). */
static inline int eig_seg_row(int n, int s)
{
  const long nblk = (n + 31) / 32;
  const int r = (int)(s * nblk / EIG_SWEEP_SEGS) * 32;
  return r < n ? r : n;
}

/* The thread's segments s0..s1-1. */
static inline void eig_team_segs(const eig_team *tm, int *s0, int *s1)
{
  *s0 = tm->tid * EIG_SWEEP_SEGS / tm->nt;
  *s1 = (tm->tid + 1) * EIG_SWEEP_SEGS / tm->nt;
}

/* Items lo..hi-1 of cnt that the thread takes in a split (reductions). */
static inline void eig_team_share(const eig_team *tm, int cnt, int *lo, int *hi)
{
  *lo = (int)((long)tm->tid * cnt / tm->nt);
  *hi = (int)((long)(tm->tid + 1) * cnt / tm->nt);
}

/* Per segment partial norms and maxima (eig_vd slots per segment): max
 * and sum of |z| before and after block_orth, V's largest entry and its
 * row in run_finish. */
enum { EIG_SN_MB, EIG_SN_SB, EIG_SN_MA, EIG_SN_SA, EIG_SN_VMAX, EIG_SN_IMAX, EIG_SN_N };
#endif

/* State of the sweep over the eigenvectors, shared by its threads. */
typedef struct EIG(sweep) {
  EIG(ring) ring;
  EIG_T *work;    /* 14 n: LU factors, x, y, coefficients */
  EIG(v) *bcoef;  /* block coefficients: EIG_TW_NV n lane vectors */
  eig_vm *member; /* block window masks: EIG_TW_NV n */
  unsigned char *ip;
  int *win;
  int *gact;      /* block_orth's active lane vectors per group of vectors: n */
  /* Per segment partial sums: block coefficients (segc_cap vectors of
   * EIG_TW_NV lane vectors per segment), the run's Gram rows (EIG_TW_LANES
   * + 1 rows of EIG_TW_NV), norms (EIG_SN_N EIG_TW_NV per segment). */
  EIG(v) *segc, *segg;
  eig_vd *segn;
  int segc_cap;
  /* Thread 0's serial results, read by all after a barrier. */
  int okb[EIG_TW_LANES], lkind[EIG_TW_LANES], kf, bad;
  EIG_T sigma_prev;
  int refined;
  int g0; /* the part's first index (vectors_pipeline): no window reaches before it */
} EIG(sweep);

/* Failure, reported by the calling thread (the detail message is
 * thread-local). kind: 1 breakdown, 2 no convergence, 3 isotropic,
 * 4 allocation. */
typedef struct EIG(ifail) {
  int kind, j;
  EIG_T lam, s;
  double val;
} EIG(ifail);

/* Distance from lambda_j to the nearest other eigenvalue (sorted by real
 * part; INFINITY when alone). */
static double EIG(gap)(const EIG_T *lambda, int n, int j)
{
  double best = INFINITY;
  for (int k = j - 1; k >= 0 && creal(lambda[j]) - creal(lambda[k]) < best; k--)
    best = fmin(best, EIG_ABS(lambda[j] - lambda[k]));
  for (int k = j + 1; k < n && creal(lambda[k]) - creal(lambda[j]) < best; k++)
    best = fmin(best, EIG_ABS(lambda[j] - lambda[k]));
  return best;
}

/* An earlier eigenvalue (from g0 on) within the tight-cluster distance of
 * lambda_j. */
static int EIG(in_tight)(const EIG_T *lambda, int g0, int j, double tight)
{
  for (int k = j - 1; k >= g0 && creal(lambda[j]) - creal(lambda[k]) <= tight; k--)
    if (EIG(abs2)(lambda[j] - lambda[k]) <= tight * tight)
      return 1;
  return 0;
}

/* Twisted vector of shift sigma accepted (1): Rayleigh correction
 * |rho - sigma| = |gamma| / |z^T M z| below EIG_TW_TOL eps ||T|| and the
 * residual |gamma| / ||z||_inf below EIG_TW_RESID n eps ||A - sigma M||.
 * 0: finite but not accepted, -1: not finite. */
static int EIG(tw_accept)(const EIG(ictx) * cx, const EIG(twres) * r, EIG_T sigma)
{
  const double eps = DBL_EPSILON;
  double ag = EIG_ABS(r->gamma), az = EIG_ABS(r->zmz);
  if (!(r->zinf > 0.0) || !isfinite(r->zinf) || !isfinite(ag) || !(az > 0.0) ||
      !isfinite(az))
    return -1; /* not finite */
  double nrm = EIG(shift_norm)(cx->anorm, cx->mnorm, sigma);
  return ag <= EIG_TW_TOL * eps * cx->tnorm * az &&
         ag <= EIG_TW_RESID * cx->n * eps * nrm * r->zinf;
}

/* Rows i0 .. i1-1 of y = M z for lane vectors (EIG_TW_NV per row), row i of
   the result at y[(i - i0) NV]. */
static void EIG(lane_mass_rows)(int n, const EIG_T *md, const EIG_T *mo, const EIG(v) * z,
                                int i0, int i1, EIG(v) * y)
{
  enum { NV = EIG_TW_NV };
  for (int i = i0; i < i1; i++) {
#if !EIG_IS_REAL
    /* A row of real entries (Helmholtz: all but the first and the last),
     * with real products: the same numbers, half the operations. */
    if (cimag(md[i]) == 0.0 && (!mo || ((i == 0 || cimag(mo[i - 1]) == 0.0) &&
                                        (i == n - 1 || cimag(mo[i]) == 0.0)))) {
      const eig_vd d = eig_vd_splat(creal(md[i]));
      const eig_vd l = eig_vd_splat(mo && i > 0 ? creal(mo[i - 1]) : 0.0);
      const eig_vd u = eig_vd_splat(mo && i < n - 1 ? creal(mo[i]) : 0.0);
      for (int b = 0; b < NV; b++) {
        EIG(v) s = EIG(v_rscale)(z[(size_t)i * NV + b], d);
        if (mo && i > 0)
          s = (EIG(v)){eig_vd_fma(l, z[(size_t)(i - 1) * NV + b].re, s.re),
                       eig_vd_fma(l, z[(size_t)(i - 1) * NV + b].im, s.im)};
        if (mo && i < n - 1)
          s = (EIG(v)){eig_vd_fma(u, z[(size_t)(i + 1) * NV + b].re, s.re),
                       eig_vd_fma(u, z[(size_t)(i + 1) * NV + b].im, s.im)};
        y[(size_t)(i - i0) * NV + b] = s;
      }
      continue;
    }
#endif
    for (int b = 0; b < NV; b++) {
      EIG(v) s = EIG(v_mul)(EIG(v_splat)(md[i]), z[(size_t)i * NV + b]);
      if (mo && i > 0)
        s = EIG(v_mac)(s, EIG(v_splat)(mo[i - 1]), z[(size_t)(i - 1) * NV + b]);
      if (mo && i < n - 1)
        s = EIG(v_mac)(s, EIG(v_splat)(mo[i]), z[(size_t)(i + 1) * NV + b]);
      y[(size_t)(i - i0) * NV + b] = s;
    }
  }
}

/*
 * Produce batch tb (j0, cnt set) from the input eigenvalues lambda0; f:
 * the factorizations' scratch, bm: EIG_TW_NV n lane vectors of scratch.
 * A lane that is not accepted is recomputed once from its Rayleigh
 * quotient rho (Rayleigh quotient iteration) and then accepted only when
 * rho stayed within a quarter of the gap to the neighbouring eigenvalues
 * (a quotient drawn towards a neighbour has found the neighbour's vector);
 * complex: the eigenvalue is then refined to rho. The accepted vectors
 * then take two steps of inverse iteration with the same factorizations
 * (twisted_solve): the twisted vector alone leaves components along
 * eigenvectors just outside the window of up to (eigenvalue error) / tau,
 * amplified where those are larger than it at the twist row (|W^T M W - I|
 * measured 22.8 n eps on glued clusters at n = 1000; 8.4 after one step,
 * 1.9 after two, as inverse iteration's 0.8); the last step must pass the
 * later-solve bound of inverse iteration. Each vector is scaled to ||z||_inf = 1. Lanes in
 * tight clusters are left to inverse iteration (not computed when all are).
 */
static void EIG(tw_produce)(const EIG(ictx) * cx, EIG(tbatch) * tb, EIG(twf) * f, EIG(v) * bm)
{
  enum { L = EIG_TW_LANES, NV = EIG_TW_NV, VL = EIG_VL };
  const int n = cx->n, j0 = tb->j0, cnt = tb->cnt;
  const double eps = DBL_EPSILON;
  const EIG_T *lam0 = cx->lambda0;
  EIG_T sig[L];
  double pert[L];
  EIG(twres) res[L];
  int any = 0;
  for (int l = 0; l < L; l++) {
    sig[l] = tb->lam[l] = lam0[j0 + (l < cnt ? l : cnt - 1)];
    pert[l] = eps * EIG(shift_norm)(cx->anorm, cx->mnorm, sig[l]);
    tb->ok[l] = 0;
    if (l < cnt && !EIG(in_tight)(lam0, 0, j0 + l, cx->tight))
      any = 1;
  }
  if (!any)
    return;
  EIG(twisted_batch)(n, cx->ad, cx->ao, cx->md, cx->mo, sig, pert, f, tb->z, res);
  int again = 0, redo[L];
  for (int l = 0; l < L; l++) {
    /* Real: the eigenvalues are final, and the two steps of inverse
     * iteration below converge from any twisted vector whose Rayleigh
     * correction is well inside the gap; the later-solve bound then
     * decides. Complex: the correction must be small, or it refines the
     * eigenvalue. */
    if (EIG_REFINE)
      tb->ok[l] = l < cnt && EIG(tw_accept)(cx, &res[l], sig[l]) > 0;
    else
      tb->ok[l] = l < cnt && EIG(tw_accept)(cx, &res[l], sig[l]) >= 0 &&
                  EIG_ABS(res[l].gamma) <=
                      0.25 * EIG(gap)(lam0, n, j0 + l) * EIG_ABS(res[l].zmz);
    redo[l] = 0;
    if (l < cnt && !tb->ok[l] && EIG_ISFINITE(res[l].gamma) && EIG_ISFINITE(res[l].zmz) &&
        EIG_ABS(res[l].zmz) > 0.0) {
      EIG_T rho = sig[l] + res[l].gamma * EIG_RECIP(res[l].zmz);
      if (EIG_ISFINITE(rho)) {
        sig[l] = rho;
        pert[l] = eps * EIG(shift_norm)(cx->anorm, cx->mnorm, rho);
        redo[l] = again = 1;
      }
    }
  }
  if (again) {
    /* Lanes already accepted repeat their arithmetic bit for bit. */
    EIG(twisted_batch)(n, cx->ad, cx->ao, cx->md, cx->mo, sig, pert, f, tb->z, res);
    for (int l = 0; l < cnt; l++) {
      if (!redo[l])
        continue;
      int j = j0 + l;
      tb->ok[l] = EIG(tw_accept)(cx, &res[l], sig[l]) > 0 &&
                  EIG_ABS(sig[l] - lam0[j]) <= 0.25 * EIG(gap)(lam0, n, j);
      if (EIG_REFINE && tb->ok[l])
        tb->lam[l] = sig[l];
    }
  }
  /* Two steps of inverse iteration: b = M z, z = K^{-1} b. */
  eig_vd bn[NV], zn[NV];
  EIG(twisted_solve)(n, f, cx->md, cx->mo, tb->z, bm, NULL, NULL);
  EIG(twisted_solve)(n, f, cx->md, cx->mo, tb->z, bm, bn, zn);
  EIG(v) sc[NV];
  for (int b = 0; b < NV; b++) {
    sc[b] = EIG(v_splat)(1.0);
    for (int q = 0; q < VL; q++) {
      int l = b * VL + q;
      double nrm = EIG(shift_norm)(cx->anorm, cx->mnorm, sig[l]);
      double tol1 = EIG(late_tol)(n, nrm);
      tb->ok[l] =
          tb->ok[l] && zn[b][q] > 0.0 && isfinite(zn[b][q]) && bn[b][q] <= tol1 * zn[b][q];
      if (tb->ok[l]) /* ||z||_inf = 1 (unaccepted lanes: any finite scale) */
        EIG(v_put)(&sc[b], q, 1.0 / zn[b][q]);
    }
  }
  for (size_t i = 0; i < (size_t)n; i++)
    for (int b = 0; b < NV; b++)
      tb->z[i * NV + b] = EIG(v_mul)(tb->z[i * NV + b], sc[b]);
}

/*
 * Pivoted inverse iteration for the EIG_TW_LANES eigenvalues of a batch
 * side by side (the producer of complex batches, EIG_PIV_LANES): the LU
 * factorization with partial pivoting of factor_step and the solve of
 * shifted_solve, written for lane vectors. The interchange is a select per
 * lane, as in the scalar code, so every lane runs its own pivoting
 * sequence; only the tiny-pivot guard differs (v_floor moves a pivot below
 * pert by 2 pert instead of scaling it to pert: the same size of backward
 * perturbation without a division). Where the scalar factorization and
 * solve wait on one division or product per row, sixteen recurrences now
 * share that latency.
 *
 * The batch streams through the cache hierarchy (some 10 MB at n = 8191),
 * so the steps are fused into as few passes as the recurrences allow:
 * lane_factor_fwd factors, forms b = M z and runs the forward solve in one
 * pass, lane_back the backward solve and ||x||_inf, lane_mass_fwd the next
 * M z (of the scaled x, formed on the fly) and its forward solve. The
 * arithmetic is that of the separate passes, operation for operation.
 *
 * f: reciprocal pivots dinv, multipliers dl, U's first off-diagonal du
 * divided by the pivot (EIG_TW_NV n lane vectors each) and the
 * interchanges ip (a byte of eig_vm_bits per lane vector and row). U's
 * second off-diagonal, nonzero only after an interchange, is formed again
 * by the backward solves from the pencil and ip (lane_du2): the backward
 * passes wait on memory, not on arithmetic.
 */
typedef struct EIG(plu) {
  EIG(v) *dinv, *dl, *du;
  unsigned char *ip;
} EIG(plu);

/* Entry (i, i+1) of A - sigma M for the shifts s. */
static inline EIG(v) EIG(lane_off)(const EIG_T *ao, const EIG_T *mo, EIG(v) s, int i)
{
  return mo ? EIG(v_nmac)(EIG(v_splat)(ao[i]), s, EIG(v_splat)(mo[i])) : EIG(v_splat)(ao[i]);
}

/* Row i < n-2 of U's second off-diagonal divided by the pivot (dinv):
 * entry (i+1, i+2) of A - sigma M where row i was interchanged, else 0. */
static inline EIG(v) EIG(lane_du2)(const EIG_T *ao, const EIG_T *mo, EIG(v) s, int i,
                                   unsigned char ip, EIG(v) dinv)
{
  EIG(v) p2 = EIG(v_sel)(eig_vm_unbits(ip), EIG(lane_off)(ao, mo, s, i + 1), EIG(v_splat)(0.0));
  return EIG(v_mul)(p2, dinv);
}

/* Row i of M z from rows i-1, i, i+1 of z (as lane_mass_rows). */
static inline EIG(v) EIG(mass_row)(int n, const EIG_T *md, const EIG_T *mo, int i, EIG(v) zm,
                                   EIG(v) zi, EIG(v) zp)
{
  EIG(v) s = EIG(v_mul)(EIG(v_splat)(md[i]), zi);
  if (mo && i > 0)
    s = EIG(v_mac)(s, EIG(v_splat)(mo[i - 1]), zm);
  if (mo && i < n - 1)
    s = EIG(v_mac)(s, EIG(v_splat)(mo[i]), zp);
  return s;
}

/* Row i, lane vector b of the random starts: the window seq[i + 8 b ..] of
 * the full batch's sequence (seq not NULL), else z0's row. */
static inline EIG(v) EIG(start_row)(const double *seq, const EIG(v) * z0, size_t i, int b)
{
  if (!seq)
    return z0[i * EIG_TW_NV + b];
  eig_vd re;
  memcpy(&re, seq + i + (size_t)b * EIG_VL, sizeof re);
#if EIG_IS_REAL
  return re;
#else
  return (EIG(v)){re, eig_vd_splat(0.0)};
#endif
}

/* Factor A - sigma M (shifts s, pivot floors pt) into f and, in the same
 * pass, x = L^{-1} P M z for the starts z (start_row of seq, z0). */
static void EIG(lane_factor_fwd)(int n, const EIG_T *ad, const EIG_T *ao, const EIG_T *md,
                                 const EIG_T *mo, const EIG(v) * s, const eig_vd *pt,
                                 const EIG(plu) * f, const double *seq, const EIG(v) * z0,
                                 EIG(v) * x)
{
  enum { NV = EIG_TW_NV };
  const EIG(v) zero = EIG(v_splat)(0.0);
  EIG(v) dc[NV], uc[NV], lc[NV], zc[NV], zn[NV], xi[NV];
  for (int b = 0; b < NV; b++) {
    dc[b] = EIG(v_nmac)(EIG(v_splat)(ad[0]), s[b], EIG(v_splat)(md[0]));
    lc[b] = uc[b] = n > 1 ? EIG(lane_off)(ao, mo, s[b], 0) : zero;
    zc[b] = EIG(start_row)(seq, z0, 0, b);
    zn[b] = n > 1 ? EIG(start_row)(seq, z0, 1, b) : zero;
    xi[b] = EIG(mass_row)(n, md, mo, 0, zero, zc[b], zn[b]);
  }
  for (int i = 0; i < n - 1; i++) {
    EIG_UNROLL_NV
    for (int b = 0; b < NV; b++) {
      EIG(v) l = lc[b]; /* entry (i+1, i): the previous row's un */
      EIG(v) dn = EIG(v_nmac)(EIG(v_splat)(ad[i + 1]), s[b], EIG(v_splat)(md[i + 1]));
      EIG(v) un = i < n - 2 ? EIG(lane_off)(ao, mo, s[b], i + 1) : zero;
      lc[b] = un;
      const eig_vd adc = EIG(v_abs1)(dc[b]), al = EIG(v_abs1)(l);
      eig_vm sw = (eig_vm)(adc < al);
      EIG(v) p0 = EIG(v_sel)(sw, l, dc[b]), q0 = EIG(v_sel)(sw, dc[b], l);
      EIG(v) p1 = EIG(v_sel)(sw, dn, uc[b]), q1 = EIG(v_sel)(sw, uc[b], dn);
      EIG(v) p2 = EIG(v_sel)(sw, un, zero), q2 = EIG(v_sel)(sw, zero, un);
      /* The pivot floor (rare) off the recurrence's path: |p0| is the
       * |l| or |dc| of the pivot test. */
      if (eig_vm_bits((eig_vm)(eig_vd_sel(sw, al, adc) < pt[b])))
        p0 = EIG(v_floor)(p0, pt[b]);
      /* One division, 1 / |p0|^2, with t = q0 conj(p0) and the products t
       * p1, t p2 formed while it runs: m = q0 / p0 = t / |p0|^2 and dc =
       * q1 - m p1 = q1 - (t p1) / |p0|^2 wait on the division and one
       * fused multiply-add, where r = 1 / p0, m = q0 r and dc = q1 - m p1
       * took a product, a complex product and a complex multiply-add after
       * it (at order 8191 the factorization took about 57 cycles a row,
       * nearly all of them this recurrence; the stores cost about 15). As
       * |p0|^2 (before), t p1 is formed unscaled: entries up to about
       * 1e100 in modulus. */
      const eig_vd inv = 1.0 / EIG(v_norm2)(p0);
      const EIG(v) t = EIG(v_mulconj)(q0, p0);
      const EIG(v) r = EIG(v_rscale)(EIG(v_conj)(p0), inv);
      const EIG(v) m = EIG(v_rscale)(t, inv);
      const size_t k = (size_t)i * NV + b;
      f->dinv[k] = r;
      f->dl[k] = m;
      f->du[k] = EIG(v_mul)(p1, r);
      f->ip[k] = eig_vm_bits(sw);
      dc[b] = EIG(v_subscaled)(q1, EIG(v_mul)(t, p1), inv);
      uc[b] = EIG(v_subscaled)(q2, EIG(v_mul)(t, p2), inv);
      /* Row i+1 of M z, then the forward step of row i. */
      EIG(v) z2 = i < n - 2 ? EIG(start_row)(seq, z0, (size_t)i + 2, b) : zero;
      EIG(v) bn = EIG(mass_row)(n, md, mo, i + 1, zc[b], zn[b], z2);
      zc[b] = zn[b];
      zn[b] = z2;
      EIG(v) piv = EIG(v_sel)(sw, bn, xi[b]), oth = EIG(v_sel)(sw, xi[b], bn);
      x[k] = piv;
      xi[b] = EIG(v_nmac)(oth, m, piv);
    }
  }
  for (int b = 0; b < NV; b++) {
    const size_t k = (size_t)(n - 1) * NV + b;
    f->dinv[k] = EIG(v_recip)(EIG(v_floor)(dc[b], pt[b]));
    x[k] = xi[b];
  }
}

/* Row i of z = x sc (zero past the last row). */
static inline EIG(v) EIG(xs_row)(int n, const EIG(v) * x, size_t i, int b, eig_vd sc)
{
  return (int)i < n ? EIG(v_rscale)(x[i * EIG_TW_NV + b], sc) : EIG(v_splat)(0.0);
}

/* b = M z for z = x sc (per lane vector scale, formed row by row), bn =
 * ||b||_inf (eig_vd_norm), and x = L^{-1} P b in place. */
static void EIG(lane_mass_fwd)(int n, const EIG_T *md, const EIG_T *mo, const EIG(plu) * f,
                               EIG(v) * x, const eig_vd *sc, eig_vd *bnrm)
{
  enum { NV = EIG_TW_NV };
  const EIG(v) zero = EIG(v_splat)(0.0);
  EIG(v) zc[NV], zn[NV], xi[NV];
  eig_vd m[NV], sum[NV];
  for (int b = 0; b < NV; b++) {
    zc[b] = EIG(xs_row)(n, x, 0, b, sc[b]);
    zn[b] = EIG(xs_row)(n, x, 1, b, sc[b]);
    xi[b] = EIG(mass_row)(n, md, mo, 0, zero, zc[b], zn[b]);
    sum[b] = m[b] = EIG(v_abs1)(xi[b]);
  }
  for (int i = 0; i < n - 1; i++)
    EIG_UNROLL_NV
    for (int b = 0; b < NV; b++) {
      const size_t k = (size_t)i * NV + b;
      EIG(v) z2 = EIG(xs_row)(n, x, (size_t)i + 2, b, sc[b]);
      EIG(v) bn = EIG(mass_row)(n, md, mo, i + 1, zc[b], zn[b], z2);
      zc[b] = zn[b];
      zn[b] = z2;
      eig_vd a = EIG(v_abs1)(bn);
      m[b] = eig_vd_sel((eig_vm)(a > m[b]), a, m[b]);
      sum[b] += a;
      eig_vm sw = eig_vm_unbits(f->ip[k]);
      EIG(v) piv = EIG(v_sel)(sw, bn, xi[b]), oth = EIG(v_sel)(sw, xi[b], bn);
      x[k] = piv;
      xi[b] = EIG(v_nmac)(oth, f->dl[k], piv);
    }
  for (int b = 0; b < NV; b++) {
    x[(size_t)(n - 1) * NV + b] = xi[b];
    bnrm[b] = eig_vd_norm(m[b], sum[b]);
  }
}

/* x = U^{-1} x in place (after lane_factor_fwd or lane_mass_fwd; ao, mo,
 * s for lane_du2), and xn = ||x||_inf (eig_vd_norm). */
static void EIG(lane_back)(int n, const EIG_T *ao, const EIG_T *mo, const EIG(v) * s,
                           const EIG(plu) * f, EIG(v) * x, eig_vd *xnrm)
{
  enum { NV = EIG_TW_NV };
  EIG(v) x1[NV], x2[NV]; /* rows i+1, i+2 */
  eig_vd m[NV], sum[NV];
  for (int b = 0; b < NV; b++) {
    const size_t k = (size_t)(n - 1) * NV + b;
    x1[b] = x[k] = EIG(v_mul)(x[k], f->dinv[k]);
    sum[b] = m[b] = EIG(v_abs1)(x1[b]);
    if (n > 1) {
      x2[b] = x1[b];
      x1[b] = x[k - NV] =
          EIG(v_nmac)(EIG(v_mul)(x[k - NV], f->dinv[k - NV]), f->du[k - NV], x2[b]);
      eig_vd a = EIG(v_abs1)(x1[b]);
      m[b] = eig_vd_sel((eig_vm)(a > m[b]), a, m[b]);
      sum[b] += a;
    }
  }
  for (int i = n - 3; i >= 0; i--)
    EIG_UNROLL_NV
    for (int b = 0; b < NV; b++) {
      const size_t k = (size_t)i * NV + b;
      EIG(v) du2 = EIG(lane_du2)(ao, mo, s[b], i, f->ip[k], f->dinv[k]);
      EIG(v) xk = EIG(v_nmac)(EIG(v_nmac)(EIG(v_mul)(x[k], f->dinv[k]), du2, x2[b]),
                              f->du[k], x1[b]);
      x[k] = xk;
      x2[b] = x1[b];
      x1[b] = xk;
      eig_vd a = EIG(v_abs1)(xk);
      m[b] = eig_vd_sel((eig_vm)(a > m[b]), a, m[b]);
      sum[b] += a;
    }
  for (int b = 0; b < NV; b++)
    xnrm[b] = eig_vd_norm(m[b], sum[b]);
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
 * Lanes of batch tb that piv_produce did not accept (complex: mostly LR
 * eigenvalues off by more than the residual test allows, EIG_REFINE): one
 * step of Rayleigh quotient iteration from the lane's vector, as
 * invit_one's refinement, but here on a producer's thread instead of in
 * the sequential sweep, and from the batch's iterate instead of a random
 * start. The quotient is taken only within a quarter of the gap to the
 * neighbouring eigenvalues: an iterate that leans towards a close
 * neighbour would converge to it, and invit_one, which orthogonalizes
 * against the window first, takes such lanes. Accepted lanes get the new
 * vector (||z||_inf = 1) and the refined eigenvalue in tb->lam.
 *
 * Every lane at once: one pass forms each lane's bilinear Rayleigh
 * quotient rho = z^T A z / z^T M z and ||M z||_inf, then the lanes to
 * refine take one lane solve (A - rho M) x = M z together (the others
 * solve with their old shift and their results are dropped). At the
 * bottom of a Helmholtz spectrum about a third of the LR values need it
 * (order 8191: 327 lanes of the lowest 1024); refined one lane at a time
 * (scalar factor and solve, about 0.34 ms each), that eighth's batches
 * took 2.8 times as long to produce as the others. f, x: piv_produce's
 * factors and x (free by now).
 */
static void EIG(piv_refine)(const EIG(ictx) * cx, EIG(tbatch) * tb, const EIG(plu) * f,
                            EIG(v) * x)
{
  enum { L = EIG_TW_LANES, NV = EIG_TW_NV, VL = EIG_VL };
  const int n = cx->n, j0 = tb->j0;
  /* Candidates: lanes not accepted and not in a tight cluster (most
   * batches have none, and skip the pass). */
  int cand[L], need = 0;
  for (int l = 0; l < L; l++) {
    cand[l] = l < tb->cnt && !tb->ok[l] && !EIG(in_tight)(cx->lambda0, 0, j0 + l, cx->tight);
    need |= cand[l];
  }
  if (!need)
    return;
  const double eps = DBL_EPSILON;
  const EIG_T *ad = cx->ad, *ao = cx->ao, *md = cx->md, *mo = cx->mo;
  EIG(v) *z = tb->z;
  const EIG(v) zero = EIG(v_splat)(0.0);
  EIG(v) num[NV], den[NV];
  eig_vd bm[NV], bs[NV], zm[NV], zs[NV];
  for (int b = 0; b < NV; b++) {
    num[b] = den[b] = zero;
    bm[b] = bs[b] = zm[b] = zs[b] = eig_vd_splat(0.0);
  }
  for (int i = 0; i < n; i++)
    for (int b = 0; b < NV; b++) {
      const EIG(v) zi = z[(size_t)i * NV + b];
      const EIG(v) zl = i > 0 ? z[(size_t)(i - 1) * NV + b] : zero;
      const EIG(v) zr = i < n - 1 ? z[(size_t)(i + 1) * NV + b] : zero;
      const EIG(v) az = EIG(mass_row)(n, ad, ao, i, zl, zi, zr);
      const EIG(v) mz = EIG(mass_row)(n, md, mo, i, zl, zi, zr);
      num[b] = EIG(v_mac)(num[b], zi, az);
      den[b] = EIG(v_mac)(den[b], zi, mz);
      eig_vd a = EIG(v_abs1)(mz);
      bm[b] = eig_vd_sel((eig_vm)(a > bm[b]), a, bm[b]);
      bs[b] += a;
      a = EIG(v_abs1)(zi);
      zm[b] = eig_vd_sel((eig_vm)(a > zm[b]), a, zm[b]);
      zs[b] += a;
    }
  /* The lanes to refine: the tests above. */
  EIG(v) s[NV];
  eig_vd pt[NV];
  double tol1[L], bnorm[L];
  int take[L], any = 0;
  for (int l = 0; l < L; l++) {
    const int b = l / VL, q = l % VL, j = j0 + l;
    EIG(v_put)(&s[b], q, tb->lam[l]);
    pt[b][q] = eps * EIG(shift_norm)(cx->anorm, cx->mnorm, tb->lam[l]);
    take[l] = 0;
    if (!cand[l] || !(eig_vd_norm(zm[b], zs[b])[q] > 0.0))
      continue;
    const EIG_T d = EIG(v_get)(den[b], q);
    if (!(EIG_ABS(d) > eps * cx->mnorm))
      continue;
    const EIG_T rho = EIG(v_get)(num[b], q) * EIG_RECIP(d);
    if (!(EIG_ABS(rho - tb->lam[l]) <= 0.25 * EIG(gap)(cx->lambda0, n, j)))
      continue;
    const double nrm = EIG(shift_norm)(cx->anorm, cx->mnorm, rho);
    EIG(v_put)(&s[b], q, rho);
    pt[b][q] = eps * nrm;
    tol1[l] = EIG(late_tol)(n, nrm);
    bnorm[l] = eig_vd_norm(bm[b], bs[b])[q];
    take[l] = any = 1;
  }
  if (!any)
    return;
  eig_vd xn[NV];
  EIG(lane_factor_fwd)(n, ad, ao, md, mo, s, pt, f, NULL, z, x);
  EIG(lane_back)(n, ao, mo, s, f, x, xn);
  eig_vm acc[NV];
  int upd = 0;
  for (int b = 0; b < NV; b++) {
    acc[b] = (eig_vm)(xn[b] != xn[b]); /* all clear */
    for (int q = 0; q < VL; q++) {
      const int l = b * VL + q;
      const double x1 = xn[b][q];
      if (take[l] && x1 > 0.0 && isfinite(x1) && bnorm[l] <= tol1[l] * x1) {
        acc[b][q] = -1;
        tb->lam[l] = EIG(v_get)(s[b], q);
        tb->ok[l] = 1;
        upd = 1;
      }
    }
  }
  if (!upd)
    return;
  eig_vd rx[NV];
  for (int b = 0; b < NV; b++)
    rx[b] = 1.0 / xn[b];
  for (size_t i = 0; i < (size_t)n; i++)
    for (int b = 0; b < NV; b++)
      z[i * NV + b] = EIG(v_sel)(acc[b], EIG(v_rscale)(x[i * NV + b], rx[b]), z[i * NV + b]);
}

/*
 * Produce batch tb (j0, cnt set) by pivoted inverse iteration in lanes:
 * from the random start of invit_one (seeded by the index), two solves
 * with the shift lambda0_j; a lane is accepted when the second solve's
 * ||b|| / ||x|| meets the later-solve bound tol1 of invit_one (the first
 * solve damped the start's other components by (eigenvalue error) / gap,
 * as there). Lanes not accepted (complex: an eigenvalue the Rayleigh
 * quotient must refine) get one step of Rayleigh quotient iteration here
 * (piv_refine); lanes in tight clusters, and those still not accepted,
 * are left to invit_one in the sweep. Accepted vectors are scaled to
 * ||z||_inf = 1.
 * scr: 5 EIG_TW_NV n lane vectors (factors, x).
 */
static void EIG(piv_produce)(const EIG(ictx) * cx, EIG(tbatch) * tb, EIG(v) * scr)
{
  enum { L = EIG_TW_LANES, NV = EIG_TW_NV, VL = EIG_VL };
  const int n = cx->n, j0 = tb->j0, cnt = tb->cnt;
  const double eps = DBL_EPSILON;
  const size_t nl = (size_t)NV * n;
  const EIG_T *lam0 = cx->lambda0;
  EIG(plu) f = {scr, scr + nl, scr + 2 * nl, (unsigned char *)(scr + 3 * nl)};
  EIG(v) *x = scr + 4 * nl, *z = tb->z;
  EIG(v) s[NV];
  eig_vd pt[NV];
  double tol1[L];
  int any = 0;
  for (int b = 0; b < NV; b++) {
    s[b] = EIG(v_splat)(0.0);
    pt[b] = eig_vd_splat(0.0);
  }
  for (int l = 0; l < L; l++) {
    EIG_T sig = tb->lam[l] = lam0[j0 + (l < cnt ? l : cnt - 1)];
    double nrm = EIG(shift_norm)(cx->anorm, cx->mnorm, sig);
    EIG(v_put)(&s[l / VL], l % VL, sig);
    pt[l / VL][l % VL] = eps * nrm;
    tol1[l] = EIG(late_tol)(n, nrm);
    tb->ok[l] = 0;
    if (l < cnt && !EIG(in_tight)(lam0, 0, j0 + l, cx->tight))
      any = 1;
  }
  if (!any)
    return;
  /* Starts (in z until the end): lane l gets invit_one's random start of
   * index j0 + l. Row i of a full batch is the window seq[i .. i + L-1] of
   * the sequence seq[k] = eig_splitmix_unit(k + j0 + 2) (random_start);
   * the last batch (lanes past cnt repeat lane cnt-1) is built lane by
   * lane. */
  double *seq = NULL;
  if (cnt == L) {
    seq = (double *)z;
    for (int k = 0; k < n + L - 1; k++)
      seq[k] = eig_splitmix_unit((uint64_t)k + (uint64_t)j0 + 2u);
  } else {
    EIG_T *tmp = (EIG_T *)x;
    for (int l = 0; l < L; l++) {
      EIG(random_start)(n, j0 + (l < cnt ? l : cnt - 1), tmp);
      EIG(v) *zb = z + l / VL;
      for (int i = 0; i < n; i++)
        EIG(v_put)(&zb[(size_t)i * NV], l % VL, tmp[i]);
    }
  }
  /* Two solves: b = M z, x = (A - sigma M)^{-1} b, z = x / ||x||_inf. */
  eig_vd bn[NV], zn[NV], sc[NV];
  /* sc is set at the end of pass 0 before pass 1 reads it; GCC 13 cannot
   * see that (-Werror=maybe-uninitialized on the H100 machine), so clear it. */
  for (int b = 0; b < NV; b++)
    sc[b] = eig_vd_splat(0.0);
  for (int it = 0; it < 2; it++) {
    if (it == 0)
      EIG(lane_factor_fwd)(n, cx->ad, cx->ao, cx->md, cx->mo, s, pt, &f, seq, z, x);
    else
      EIG(lane_mass_fwd)(n, cx->md, cx->mo, &f, x, sc, bn);
    EIG(lane_back)(n, cx->ao, cx->mo, s, &f, x, zn);
    for (int b = 0; b < NV; b++) { /* 1 / ||x||_inf, 0 where not finite */
      eig_vd r = 1.0 / zn[b];
      sc[b] = eig_vd_sel((eig_vm)(eig_vd_abs(r) <= eig_vd_splat(DBL_MAX)), r, eig_vd_splat(0.0));
    }
  }
  for (size_t i = 0; i < (size_t)n; i++)
    for (int b = 0; b < NV; b++)
      z[i * NV + b] = EIG(v_rscale)(x[i * NV + b], sc[b]);
  for (int l = 0; l < cnt; l++) {
    double b1 = bn[l / VL][l % VL], z1 = zn[l / VL][l % VL];
    tb->ok[l] = !EIG(in_tight)(lam0, 0, j0 + l, cx->tight) && z1 > 0.0 && isfinite(z1) &&
                b1 <= tol1[l] * z1;
  }
  if (EIG_REFINE)
    EIG(piv_refine)(cx, tb, &f, x);
}

/* block_orth's kernels over the rows i0..i1-1 for nq <= EIG_ORTH_Q
 * vectors vk and the lane vectors b0..b1-1 of each row (inlined with
 * constant nq and bounds: lane vectors whose lanes all have a zero
 * coefficient are skipped, which changes no result beyond the sign of a
 * zero). Complex: three real products per complex one (p3, a3), three
 * vectors at a time so that the sums stay in the 32 vector registers. */
#undef EIG_ORTH_Q /* (defined per expansion) */
#if EIG_IS_REAL
#define EIG_ORTH_Q 4
#else
#define EIG_ORTH_Q 3
#endif

/* acc[q][b] += sum over the rows of vk[q][i] (M z)_i, M z of the rows
 * in mzb (row i at (i - i0) NV). */
static inline __attribute__((always_inline)) void
EIG(orth_coef)(int i0, int i1, int nq, const EIG_T *const *vk, const EIG(v) * mzb, int b0,
               int b1, EIG(v) (*acc)[EIG_TW_NV])
{
  enum { NV = EIG_TW_NV, Q = EIG_ORTH_Q };
#if EIG_IS_REAL
  EIG(v) a[Q][NV];
  for (int q = 0; q < nq; q++)
    for (int b = b0; b < b1; b++)
      a[q][b] = EIG(v_splat)(0.0);
  for (int i = i0; i < i1; i++)
    for (int q = 0; q < nq; q++) {
      EIG(v) w = EIG(v_splat)(vk[q][i]);
      for (int b = b0; b < b1; b++)
        a[q][b] = EIG(v_mac)(a[q][b], w, mzb[(size_t)(i - i0) * NV + b]);
    }
  for (int q = 0; q < nq; q++)
    for (int b = b0; b < b1; b++)
      acc[q][b] = EIG(v_add)(acc[q][b], a[q][b]);
#else
  EIG(a3) a[Q][NV];
  for (int q = 0; q < nq; q++)
    for (int b = b0; b < b1; b++)
      a[q][b] = EIG(a3_zero)();
  for (int i = i0; i < i1; i++) {
    EIG(p3) m[NV];
    for (int b = b0; b < b1; b++)
      m[b] = EIG(p3_of)(mzb[(size_t)(i - i0) * NV + b]);
    for (int q = 0; q < nq; q++) {
      EIG(p3) w = EIG(p3_splat)(vk[q][i]);
      for (int b = b0; b < b1; b++)
        a[q][b] = EIG(a3_mac)(a[q][b], w, m[b]);
    }
  }
  for (int q = 0; q < nq; q++)
    for (int b = b0; b < b1; b++)
      acc[q][b] = EIG(v_add)(acc[q][b], EIG(a3_val)(a[q][b]));
#endif
}

/* z_i -= sum_q c[q] vk[q][i] over the rows. */
static inline __attribute__((always_inline)) void
EIG(orth_update)(int i0, int i1, int nq, const EIG_T *const *vk, EIG(v) (*c)[EIG_TW_NV], int b0,
                 int b1, EIG(v) * z)
{
  enum { NV = EIG_TW_NV, Q = EIG_ORTH_Q };
#if EIG_IS_REAL
  for (int i = i0; i < i1; i++)
    for (int b = b0; b < b1; b++) {
      EIG(v) s = EIG(v_mul)(c[0][b], EIG(v_splat)(vk[0][i]));
      for (int q = 1; q < nq; q++)
        s = EIG(v_mac)(s, c[q][b], EIG(v_splat)(vk[q][i]));
      z[(size_t)i * NV + b] = EIG(v_sub)(z[(size_t)i * NV + b], s);
    }
#else
  EIG(p3) cp[Q][NV];
  for (int q = 0; q < nq; q++)
    for (int b = b0; b < b1; b++)
      cp[q][b] = EIG(p3_of)(c[q][b]);
  for (int i = i0; i < i1; i++) {
    EIG(a3) s[NV];
    for (int b = b0; b < b1; b++)
      s[b] = EIG(a3_zero)();
    for (int q = 0; q < nq; q++) {
      EIG(p3) w = EIG(p3_splat)(vk[q][i]);
      for (int b = b0; b < b1; b++)
        s[b] = EIG(a3_mac)(s[b], w, cp[q][b]);
    }
    for (int b = b0; b < b1; b++)
      z[(size_t)i * NV + b] = EIG(v_sub)(z[(size_t)i * NV + b], EIG(a3_val)(s[b]));
  }
#endif
}

/* The kernels above for the lane vectors act says (bit b: lane vector b),
 * nq constant (always_inline from orth_group's switch). */
static inline __attribute__((always_inline)) void
EIG(orth_kernel)(int upd, int i0, int i1, int nq, int act, const EIG_T *const *vk,
                 const EIG(v) * mzb, EIG(v) (*c)[EIG_TW_NV], EIG(v) * z)
{
  /* Constant lane-vector bounds in each call: the sums stay in registers. */
  if (upd && act == 3)
    EIG(orth_update)(i0, i1, nq, vk, c, 0, 2, z);
  else if (upd && act == 1)
    EIG(orth_update)(i0, i1, nq, vk, c, 0, 1, z);
  else if (upd && act == 2)
    EIG(orth_update)(i0, i1, nq, vk, c, 1, 2, z);
  else if (act == 3)
    EIG(orth_coef)(i0, i1, nq, vk, mzb, 0, 2, c);
  else if (act == 1)
    EIG(orth_coef)(i0, i1, nq, vk, mzb, 0, 1, c);
  else if (act == 2)
    EIG(orth_coef)(i0, i1, nq, vk, mzb, 1, 2, c);
}

static void EIG(orth_group)(int upd, int i0, int i1, int nq, int act, const EIG_T *const *vk,
                            const EIG(v) * mzb, EIG(v) (*c)[EIG_TW_NV], EIG(v) * z)
{
  _Static_assert(EIG_ORTH_Q <= 4, "orth_group lists up to four vectors");
  switch (nq) {
#if EIG_ORTH_Q == 4
  case 4: EIG(orth_kernel)(upd, i0, i1, 4, act, vk, mzb, c, z); break;
#endif
  case 3: EIG(orth_kernel)(upd, i0, i1, 3, act, vk, mzb, c, z); break;
  case 2: EIG(orth_kernel)(upd, i0, i1, 2, act, vk, mzb, c, z); break;
  default: EIG(orth_kernel)(upd, i0, i1, 1, act, vk, mzb, c, z); break;
  }
}

/* Lane vectors (bits) with a lane whose window holds one of the vectors
 * t..t+nq-1. */
static int EIG(orth_active)(const eig_vm *member, int t, int nq)
{
  int act = 0;
  for (int q = 0; q < nq; q++)
    for (int b = 0; b < EIG_TW_NV; b++)
      for (int l = 0; l < EIG_VL; l++)
        act |= (member[(size_t)(t + q) * EIG_TW_NV + b][l] != 0) << b;
  return act;
}

/* Per lane max |z_i| (|re| + |im|) and sum over rows i0..i1-1, into m and
 * sum (eig_vd_norm makes the norm of them). */
static inline void EIG(norm_rows)(int i0, int i1, const EIG(v) * z, eig_vd *m, eig_vd *sum)
{
  for (int i = i0; i < i1; i++)
    for (int b = 0; b < EIG_TW_NV; b++) {
      eig_vd a = EIG(v_abs1)(z[(size_t)i * EIG_TW_NV + b]);
      m[b] = eig_vd_sel((eig_vm)(a > m[b]), a, m[b]);
      sum[b] += a;
    }
}

/* orth_group over the vectors k0..k0+nk-1 of the ring, EIG_ORTH_Q at a
 * time (act: their groups' active lane vectors), for rows i0..i1-1:
 * coefficients into coef (upd 0, M z of the rows in mzb) or the update
 * of z with them (upd 1). */
static void EIG(orth_rows)(int upd, EIG(ring) * r, int n, int k0, int nk, const int *act, int i0,
                           int i1, const EIG(v) * mzb, EIG(v) * coef, EIG(v) * z)
{
  enum { Q = EIG_ORTH_Q };
  for (int t = 0; t < nk; t += Q) {
    const int nq = nk - t < Q ? nk - t : Q;
    const EIG_T *vk[Q];
    for (int q = 0; q < nq; q++)
      vk[q] = EIG(ring_at)(r, n, k0 + t + q);
    EIG(orth_group)(upd, i0, i1, nq, act[t / Q], vk, mzb,
                    (EIG(v)(*)[EIG_TW_NV])(coef + (size_t)t * EIG_TW_NV), z);
  }
}

/* Entry k of the segments' partial sums (segment sg's at base + sg
 * stride), added in segment order. */
static inline EIG(v) EIG(seg_sum)(const EIG(v) * base, size_t stride, size_t k)
{
  EIG(v) c = base[k];
  for (int sg = 1; sg < EIG_SWEEP_SEGS; sg++)
    c = EIG(v_add)(c, base[sg * stride + k]);
  return c;
}

/* ||z_l||_inf from the segments' slots sm (max) and ss (sum), into nrm. */
static void EIG(seg_norms)(const EIG(sweep) * sw, int sm, int ss, eig_vd *nrm)
{
  enum { NV = EIG_TW_NV, SN = EIG_SN_N };
  for (int b = 0; b < NV; b++) {
    eig_vd m = eig_vd_splat(0.0), sum = eig_vd_splat(0.0);
    for (int sg = 0; sg < EIG_SWEEP_SEGS; sg++) {
      eig_vd a = sw->segn[(size_t)sg * SN * NV + sm * NV + b];
      m = eig_vd_sel((eig_vm)(a > m), a, m);
      sum += sw->segn[(size_t)sg * SN * NV + ss * NV + b];
    }
    nrm[b] = eig_vd_norm(m, sum);
  }
}

/*
 * One block pass of classical Gram-Schmidt of the batch's lanes against
 * the earlier vectors k0..k0+nk-1 (in the ring, M-normalized), in the
 * bilinear form x^T M y: z_l -= sum_k (v_k^T M z_l) v_k, the coefficient
 * kept where sw->member[k * EIG_TW_NV + b] is set for lane (b, l) and zero
 * elsewhere (sw->gact: the groups' active lane vectors, orth_active);
 * ||z_l||_inf before and after into before and after. Every thread of tm
 * calls it (its segments' rows; member and gact ready before a barrier).
 * Two passes over z in blocks of rows that stay in the first-level cache:
 * the first forms M z of a block and its products with every v_k (and the
 * norms before), the second subtracts every v_k's share from the block
 * (and takes the norms after). The batch is 2 MB at n = 8191, past the
 * second-level cache: the six to eight passes over it that this replaces
 * took 0.34 s of block stages there, the two passes 0.32 s (and with the
 * three-product sums 0.27 s; bench/results/2026-11-24-cpu-eigen-sweep).
 */
static void EIG(block_orth)(const eig_team *tm, int n, const EIG_T *md, const EIG_T *mo,
                            EIG(sweep) * sw, int k0, int nk, EIG(v) * z, eig_vd *before,
                            eig_vd *after)
{
  enum { NV = EIG_TW_NV, RB = 32, SN = EIG_SN_N };
  _Static_assert(EIG_TW_NV == 2, "block_orth's kernels list two lane vectors");
  EIG(ring) *r = &sw->ring;
  const eig_vm *member = sw->member;
  const int *act = sw->gact;
  const EIG(v) zero = EIG(v_splat)(0.0);
  const size_t cstride = (size_t)sw->segc_cap * NV;
  EIG(v) mzb[RB * NV];
  int s0, s1;
  eig_team_segs(tm, &s0, &s1);
  for (int sg = s0; sg < s1; sg++) {
    EIG(v) *coef = sw->segc + sg * cstride;
    eig_vd *nrm = sw->segn + (size_t)sg * SN * NV;
    for (size_t k = 0; k < (size_t)nk * NV; k++)
      coef[k] = zero;
    for (int b = 0; b < NV; b++)
      nrm[EIG_SN_MB * NV + b] = nrm[EIG_SN_SB * NV + b] = eig_vd_splat(0.0);
    for (int i0 = eig_seg_row(n, sg), ie = eig_seg_row(n, sg + 1); i0 < ie; i0 += RB) {
      const int i1 = ie - i0 < RB ? ie : i0 + RB;
      EIG(lane_mass_rows)(n, md, mo, z, i0, i1, mzb);
      EIG(norm_rows)(i0, i1, z, nrm + EIG_SN_MB * NV, nrm + EIG_SN_SB * NV);
      EIG(orth_rows)(0, r, n, k0, nk, act, i0, i1, mzb, coef, NULL);
    }
  }
  eig_team_sync(tm);
  /* The coefficients, summed over the segments in order (the thread's
   * share of them), and the norms before (every thread). */
  int c0, c1;
  eig_team_share(tm, nk * NV, &c0, &c1);
  for (int k = c0; k < c1; k++)
    sw->bcoef[k] = EIG(v_sel)(member[k], EIG(seg_sum)(sw->segc, cstride, k), zero);
  EIG(seg_norms)(sw, EIG_SN_MB, EIG_SN_SB, before);
  eig_team_sync(tm);
  for (int sg = s0; sg < s1; sg++) {
    eig_vd *nrm = sw->segn + (size_t)sg * SN * NV;
    for (int b = 0; b < NV; b++)
      nrm[EIG_SN_MA * NV + b] = nrm[EIG_SN_SA * NV + b] = eig_vd_splat(0.0);
    for (int i0 = eig_seg_row(n, sg), ie = eig_seg_row(n, sg + 1); i0 < ie; i0 += RB) {
      const int i1 = ie - i0 < RB ? ie : i0 + RB;
      EIG(orth_rows)(1, r, n, k0, nk, act, i0, i1, NULL, sw->bcoef, z);
      EIG(norm_rows)(i0, i1, z, nrm + EIG_SN_MA * NV, nrm + EIG_SN_SA * NV);
    }
  }
  eig_team_sync(tm);
  EIG(seg_norms)(sw, EIG_SN_MA, EIG_SN_SA, after);
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
  EIG(ring) *ring = &sw->ring;
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

/* sw zeroed by the caller; sweep_free undoes a partial success. */
static int EIG(sweep_init)(EIG(sweep) * sw, int n)
{
  sw->work = malloc((size_t)14 * (size_t)n * sizeof(EIG_T));
  sw->bcoef = aligned_alloc(64, (size_t)EIG_TW_NV * (size_t)n * sizeof(EIG(v)));
  sw->member = aligned_alloc(64, (size_t)EIG_TW_NV * (size_t)n * sizeof(eig_vm));
  sw->ip = malloc((size_t)n);
  sw->win = malloc((size_t)n * sizeof(int));
  sw->gact = malloc((size_t)n * sizeof(int));
  sw->segc_cap = 64;
  sw->segc = aligned_alloc(64, (size_t)EIG_SWEEP_SEGS * sw->segc_cap * EIG_TW_NV *
                                   sizeof(EIG(v)));
  sw->segg = aligned_alloc(64, (size_t)EIG_SWEEP_SEGS * (EIG_TW_LANES + 1) * EIG_TW_NV *
                                   sizeof(EIG(v)));
  sw->segn = aligned_alloc(64, (size_t)EIG_SWEEP_SEGS * EIG_SN_N * EIG_TW_NV * sizeof(eig_vd));
  return sw->work && sw->bcoef && sw->member && sw->ip && sw->win && sw->gact && sw->segc &&
         sw->segg && sw->segn;
}

static void EIG(sweep_free)(EIG(sweep) * sw)
{
  free(sw->ring.v);
  free(sw->work);
  free(sw->bcoef);
  free(sw->member);
  free(sw->ip);
  free(sw->win);
  free(sw->gact);
  free(sw->segc);
  free(sw->segg);
  free(sw->segn);
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

/* Thread 0: the active lane vectors of block_orth's groups of vectors
 * from sw->member (nk vectors). */
static void EIG(block_groups)(EIG(sweep) * sw, int nk)
{
  for (int t = 0; t < nk; t += EIG_ORTH_Q)
    sw->gact[t / EIG_ORTH_Q] =
        EIG(orth_active)(sw->member, t, nk - t < EIG_ORTH_Q ? nk - t : EIG_ORTH_Q);
}

/*
 * Block stage: the accepted lanes of tb (ok) against the finished vectors
 * kb..ke-1 of their windows (block_orth), once more for lanes that
 * cancelled heavily (the norm halved; "twice is enough"); lanes still
 * cancelling heavily after that lay mostly in the window's span and are
 * left to inverse iteration (ok cleared). Every thread of tm calls it,
 * with the same ok.
 */
static void EIG(block_stage)(const eig_team *tm, const EIG(ictx) * cx, EIG(sweep) * sw,
                             EIG(tbatch) * tb, int *ok, int kb, int ke)
{
  enum { NV = EIG_TW_NV, VL = EIG_VL, L = EIG_TW_LANES };
  const int n = cx->n, nk = ke - kb;
  const double tau2 = cx->tau * cx->tau;
  eig_vm *member = sw->member;
  int any = 0, heavy[L];
  for (int k = 0; k < nk; k++)
    for (int b = 0; b < NV; b++) {
      eig_vm m = (eig_vm)(eig_vd_splat(0.0) != eig_vd_splat(0.0)); /* all clear */
      for (int l = 0; l < VL; l++) {
        int lane = b * VL + l;
        int in = ok[lane] && EIG(abs2)(cx->lambda[kb + k] - cx->lambda[tb->j0 + lane]) <= tau2;
        m[l] = in ? -1 : 0;
        any |= in;
      }
      if (tm->tid == 0)
        member[(size_t)k * NV + b] = m;
    }
  if (!any)
    return;
  if (tm->tid == 0)
    EIG(block_groups)(sw, nk);
  eig_team_sync(tm);
  eig_vd before[NV], after[NV], unused[NV];
  EIG(block_orth)(tm, n, cx->md, cx->mo, sw, kb, nk, tb->z, before, after);
  int again = 0;
  for (int lane = 0; lane < L; lane++) {
    heavy[lane] = ok[lane] && !(after[lane / VL][lane % VL] >= 0.5 * before[lane / VL][lane % VL]);
    again |= heavy[lane];
  }
  if (!again)
    return;
  if (tm->tid == 0) {
    for (int k = 0; k < nk; k++)
      for (int b = 0; b < NV; b++)
        for (int l = 0; l < VL; l++)
          member[(size_t)k * NV + b][l] &= heavy[b * VL + l] ? -1 : 0;
    EIG(block_groups)(sw, nk);
  }
  eig_team_sync(tm);
  for (int b = 0; b < NV; b++)
    before[b] = after[b];
  EIG(block_orth)(tm, n, cx->md, cx->mo, sw, kb, nk, tb->z, unused, after);
  for (int lane = 0; lane < L; lane++)
    if (heavy[lane] && !(after[lane / VL][lane % VL] >= 0.5 * before[lane / VL][lane % VL]))
      ok[lane] = 0;
}

/* run_finish's Gram rows: g[q][b] += z_k^T (M z)_b over the ib rows of a
 * block from i0 (k the partner at offset poff[q], q < kn <= EIG_ORTH_Q),
 * for the lane vectors b >= b0 (inlined with b0 constant; complex: three
 * real products per complex one, as block_orth). */
static inline __attribute__((always_inline)) void
EIG(gram_rows)(int ib, int i0, const EIG(v) * z, const int *poff, int kn,
               const EIG(v) (*mzb)[EIG_TW_NV], int b0, EIG(v) (*g)[EIG_TW_NV])
{
#if EIG_IS_REAL
  for (int ii = 0; ii < ib; ii++)
    for (int q = 0; q < kn; q++) {
      EIG(v) sv = EIG(v_splat)(EIG(tw_at)(z, i0 + ii, poff[q]));
      for (int b = b0; b < EIG_TW_NV; b++)
        g[q][b] = EIG(v_mac)(g[q][b], sv, mzb[ii][b]);
    }
#else
  EIG(a3) a[EIG_ORTH_Q][EIG_TW_NV];
  for (int q = 0; q < kn; q++)
    for (int b = b0; b < EIG_TW_NV; b++)
      a[q][b] = EIG(a3_zero)();
  for (int ii = 0; ii < ib; ii++) {
    EIG(p3) m[EIG_TW_NV];
    for (int b = b0; b < EIG_TW_NV; b++)
      m[b] = EIG(p3_of)(mzb[ii][b]);
    for (int q = 0; q < kn; q++) {
      EIG(p3) sv = EIG(p3_splat)(EIG(tw_at)(z, i0 + ii, poff[q]));
      for (int b = b0; b < EIG_TW_NV; b++)
        a[q][b] = EIG(a3_mac)(a[q][b], sv, m[b]);
    }
  }
  for (int q = 0; q < kn; q++)
    for (int b = b0; b < EIG_TW_NV; b++)
      g[q][b] = EIG(v_add)(g[q][b], EIG(a3_val)(a[q][b]));
#endif
}

/* gram_rows with constant kn and b0 (the sums stay in registers). */
static void EIG(gram_group)(int ib, int i0, const EIG(v) * z, const int *poff, int kn,
                            const EIG(v) (*mzb)[EIG_TW_NV], int b0, EIG(v) (*g)[EIG_TW_NV])
{
#define EIG_GRAM_CASE(K)                                                                      \
  case K:                                                                                     \
    if (b0 == 0)                                                                              \
      EIG(gram_rows)(ib, i0, z, poff, K, mzb, 0, g);                                          \
    else                                                                                      \
      EIG(gram_rows)(ib, i0, z, poff, K, mzb, 1, g);                                          \
    break;
  switch (kn) {
#if EIG_ORTH_Q == 4
    EIG_GRAM_CASE(4)
#endif
    EIG_GRAM_CASE(3)
    EIG_GRAM_CASE(2)
  default:
    EIG_GRAM_CASE(1)
  }
#undef EIG_GRAM_CASE
}

/*
 * Finish the run of lanes a..e-1 of tb (accepted, already orthogonal to
 * every earlier vector of their windows): Gram-Schmidt among themselves
 * in coefficient space (V = Z T, T upper triangular, from the Gram
 * matrices G = Z^T M Z, bilinear, and H = Z^H Z for the norms), the
 * normalization w^T M w = 1 with the sign convention, into the ring and
 * the selected components of w. A lane that cancels heavily (its norm
 * halves) ends the run: it is left to inverse iteration. Returns the
 * first lane not finished, or -1 on an isotropic vector (*fail, from
 * thread 0). Every thread of tm calls it; the sums over the rows are
 * formed per segment (its own), the small problems in between by every
 * thread alike.
 */
static int EIG(run_finish)(const eig_team *tm, const EIG(ictx) * cx, EIG(sweep) * sw,
                           EIG(tbatch) * tb, int a, int e, EIG(ifail) * fail)
{
  enum { NV = EIG_TW_NV, VL = EIG_VL, L = EIG_TW_LANES, S = EIG_SWEEP_SEGS, SN = EIG_SN_N };
  const int n = cx->n, j0 = tb->j0;
  const double eps = DBL_EPSILON, tau2 = cx->tau * cx->tau;
  const EIG_T *md = cx->md, *mo = cx->mo, *lambda = cx->lambda;
  const EIG(v) *z = tb->z;
  const EIG(v) zero = EIG(v_splat)(0.0);
  /* Partners: lanes in the window of a later lane of the run. Only their
   * rows of the Gram matrix G = Z^T M Z and of T leave the diagonal.
   * (G and V by diagonals instead, with lane rotations, saved work where
   * the windows are sparse but cost more at the bottom of the spectrum,
   * the part that bounds the call:
   * bench/results/2026-11-26-cpu-eigen-diag-gram.) */
  int part[L] = {0}, np = 0;
  for (int k = a; k < e; k++)
    for (int l = k + 1; l < e; l++)
      if (EIG(abs2)(lambda[j0 + k] - lambda[j0 + l]) <= tau2) {
        part[np++] = k;
        break;
      }
  int poff[L]; /* partner k's entry in a row of z (tw_at), hoisted out of the row loops */
  for (int q = 0; q < np; q++)
    poff[q] = EIG(tw_off)(part[q]);
  /* G[k][b] (k a partner): rows of G as lane vectors, gd its diagonal,
   * summed over blocks of GB rows (M z of the block in mzb) and
   * EIG_ORTH_Q rows k at a time, so that the sums stay in registers; per
   * segment (gd as the segment's row L), then added in segment order. */
  enum { GB = 32 };
  EIG(v) G[L][NV], gd[NV], mzb[GB][NV];
  int s0, s1;
  eig_team_segs(tm, &s0, &s1);
  for (int sg = s0; sg < s1; sg++) {
    EIG(v)(*Gs)[NV] = (EIG(v)(*)[NV])(sw->segg + (size_t)sg * (L + 1) * NV);
    for (int k = 0; k <= L; k++)
      for (int b = 0; b < NV; b++)
        Gs[k][b] = zero;
    for (int i0 = eig_seg_row(n, sg), ie = eig_seg_row(n, sg + 1); i0 < ie; i0 += GB) {
      const int ib = ie - i0 < GB ? ie - i0 : GB;
      EIG(lane_mass_rows)(n, md, mo, z, i0, i0 + ib, &mzb[0][0]);
      for (int ii = 0; ii < ib; ii++)
        for (int b = 0; b < NV; b++)
          Gs[L][b] = EIG(v_mac)(Gs[L][b], z[(size_t)(i0 + ii) * NV + b], mzb[ii][b]);
      for (int p0 = 0; p0 < np; p0 += EIG_ORTH_Q) {
        const int kn = np - p0 < EIG_ORTH_Q ? np - p0 : EIG_ORTH_Q;
        EIG(v) g[4][NV];
        for (int q = 0; q < 4; q++)
          for (int b = 0; b < NV; b++)
            g[q][b] = zero;
        /* Only G's entries above the diagonal are read (EIG_G): a group of
         * partners from lane vector 1 on skips lane vector 0. */
        EIG(gram_group)(ib, i0, z, poff + p0, kn, mzb, part[p0] < VL ? 0 : 1, g);
        for (int q = 0; q < kn; q++)
          for (int b = 0; b < NV; b++)
            Gs[part[p0 + q]][b] = EIG(v_add)(Gs[part[p0 + q]][b], g[q][b]);
      }
    }
  }
  eig_team_sync(tm);
  for (int k = 0; k <= L; k++)
    for (int b = 0; b < NV; b++) {
      const EIG(v) acc = EIG(seg_sum)(sw->segg, (size_t)(L + 1) * NV, (size_t)k * NV + b);
      if (k < L)
        G[k][b] = acc;
      else
        gd[b] = acc;
    }
  /* G_kl for k, l in the run: the diagonal, or the row of the smaller
   * index (G is symmetric), which is a partner wherever T and t below
   * reach it. */
#define EIG_G(k, l)                                                                           \
  ((k) == (l)  ? EIG(v_get)(gd[(l) / VL], (l) % VL)                                         \
   : (k) < (l) ? EIG(v_get)(G[k][(l) / VL], (l) % VL)                                        \
               : EIG(v_get)(G[l][(k) / VL], (k) % VL))
  /* Classical Gram-Schmidt in coefficient space: column l of T holds the
   * M-normalized v_l = sum_k T[k][l] z_k. Heavy cancellation, real: the
   * M-norm (G is an inner product) drops below half; complex (G is only
   * bilinear): the subtracted part sum_m |c_m| sum_k |T_km| may reach half
   * of ||z_l||_inf (about 1; the z_k are scaled to ||z_k||_inf = 1 before
   * the block stage). */
  EIG_T T[L][L];
  memset(T, 0, sizeof T);
  int stop = e;
  for (int l = a; l < e && stop == e; l++) {
    EIG_T t[L] = {0};
    t[l] = 1.0;
    double proj = 0.0;
    for (int m = a; m < l; m++) {
      if (!(EIG(abs2)(lambda[j0 + m] - lambda[j0 + l]) <= tau2))
        continue;
      EIG_T c = 0.0; /* v_m^T M z_l */
      double col = 0.0;
      for (int k = a; k <= m; k++) {
        c += T[k][m] * EIG_G(k, l);
        col += EIG_ABS1(T[k][m]);
      }
      for (int k = a; k <= m; k++)
        t[k] -= c * T[k][m];
      proj += EIG_ABS1(c) * col;
    }
    EIG_T s = 0.0; /* t^T G t */
    for (int k = a; k <= l; k++)
      for (int m = a; m <= l; m++)
        s += t[k] * t[m] * EIG_G(k, m);
    int heavy = EIG_IS_REAL ? !(creal(s) >= 0.25 * creal(EIG_G(l, l)))
                            : !(proj < 0.5) || !(EIG_ABS(s) > 0.0);
    if (heavy || !EIG_ISFINITE(s)) {
      stop = l;
      break;
    }
    EIG_T r = EIG_RECIP(EIG_SQRT(s));
    for (int k = a; k <= l; k++)
      T[k][l] = t[k] * r;
  }
  if (stop == a) {
    eig_team_sync(tm); /* (segg read by all before the next run's sums) */
    return a;
  }
  /* V = Z T, with each lane's largest entry (first index). */
  eig_vd vmax[NV], imax[NV];
  /* V = Z diag(T) + sum over partners k of z_k T[k][.] (off the
   * diagonal). */
  EIG(v) Trow[L][NV], Td[NV];
  for (int b = 0; b < NV; b++) {
    Td[b] = zero;
    for (int l = 0; l < VL; l++)
      if (b * VL + l >= a && b * VL + l < stop)
        EIG(v_put)(&Td[b], l, T[b * VL + l][b * VL + l]);
  }
  _Static_assert(EIG_TW_NV == 2, "run_finish's partner loops list two lane vectors");
  int npv = 0, npv0 = 0;
  while (npv < np && part[npv] < stop)
    npv++;
  while (npv0 < npv && part[npv0] < VL)
    npv0++;
  for (int q = 0; q < npv; q++) {
    const int k = part[q];
    for (int b = 0; b < NV; b++) {
      Trow[q][b] = zero;
      for (int l = 0; l < VL; l++) {
        const int c = b * VL + l;
        if (c > k && c < stop && k >= 0)
          EIG(v_put)(&Trow[q][b], l, T[k][c]);
      }
    }
  }
  EIG_T *vl[L];
  for (int l = a; l < stop; l++)
    vl[l] = EIG(ring_at)(&sw->ring, n, j0 + l);
  /* Rows of V in blocks of RB (real: eight rows; complex: four, whose
   * real and imaginary parts make eight), which leave the lane layout by
   * 8 x 8 transposes in registers: eight doubles of each lane's ring
   * vector per store. The ring keeps the vectors before the sign
   * convention (Gram-Schmidt against them does not see the sign); it is
   * applied to the returned components. */
#if !EIG_IS_REAL
  EIG(p3) Trow3[L][NV], Td3[NV]; /* as Trow and Td, for the three-product sums */
  for (int b = 0; b < NV; b++) {
    Td3[b] = EIG(p3_of)(Td[b]);
    for (int q = 0; q < npv; q++)
      Trow3[q][b] = EIG(p3_of)(Trow[q][b]);
  }
#endif
  enum { RB = EIG_IS_REAL ? VL : VL / 2 };
  for (int sg = s0; sg < s1; sg++) {
    for (int b = 0; b < NV; b++) {
      vmax[b] = eig_vd_splat(-1.0);
      imax[b] = eig_vd_splat(0.0);
    }
    for (int i0 = eig_seg_row(n, sg), ie = eig_seg_row(n, sg + 1); i0 < ie; i0 += RB) {
      const int rb = ie - i0 < RB ? ie - i0 : RB;
      EIG(v) blk[RB][NV];
      for (int k = 0; k < rb; k++) {
        const int i = i0 + k;
        EIG(v) acc[NV];
        /* T is upper triangular: a partner from lane vector 1 on has no
         * entry in lane vector 0. */
  #if EIG_IS_REAL
        for (int b = 0; b < NV; b++)
          acc[b] = EIG(v_mul)(z[(size_t)i * NV + b], Td[b]);
        for (int q = 0; q < npv0; q++) {
          EIG(v) s = EIG(v_splat)(EIG(tw_at)(z, i, poff[q]));
          for (int b = 0; b < NV; b++)
            acc[b] = EIG(v_mac)(acc[b], s, Trow[q][b]);
        }
        for (int q = npv0; q < npv; q++)
          acc[1] = EIG(v_mac)(acc[1], EIG(v_splat)(EIG(tw_at)(z, i, poff[q])), Trow[q][1]);
  #else
        EIG(a3) s3[NV];
        for (int b = 0; b < NV; b++)
          s3[b] = EIG(a3_mac)(EIG(a3_zero)(), EIG(p3_of)(z[(size_t)i * NV + b]), Td3[b]);
        for (int q = 0; q < npv0; q++) {
          EIG(p3) sv = EIG(p3_splat)(EIG(tw_at)(z, i, poff[q]));
          for (int b = 0; b < NV; b++)
            s3[b] = EIG(a3_mac)(s3[b], sv, Trow3[q][b]);
        }
        for (int q = npv0; q < npv; q++)
          s3[1] = EIG(a3_mac)(s3[1], EIG(p3_splat)(EIG(tw_at)(z, i, poff[q])), Trow3[q][1]);
        for (int b = 0; b < NV; b++)
          acc[b] = EIG(a3_val)(s3[b]);
  #endif
        eig_vd di = eig_vd_splat(i);
        for (int b = 0; b < NV; b++) {
          blk[k][b] = acc[b];
          eig_vd m = EIG(v_abs1)(acc[b]);
          eig_vm gt = (eig_vm)(m > vmax[b]);
          vmax[b] = eig_vd_sel(gt, m, vmax[b]);
          imax[b] = eig_vd_sel(gt, di, imax[b]);
        }
      }
      for (int b = 0; b < NV; b++) {
        if (b * VL + VL <= a || b * VL >= stop)
          continue;
        if (rb < RB) { /* the last rows */
          for (int l = b * VL; l < b * VL + VL; l++)
            for (int k = 0; l >= a && l < stop && k < rb; k++)
              vl[l][i0 + k] = EIG(v_get)(blk[k][b], l % VL);
          continue;
        }
        eig_vd r[VL];
        for (int k = 0; k < RB; k++) {
  #if EIG_IS_REAL
          r[k] = blk[k][b];
  #else
          r[2 * k] = blk[k][b].re;
          r[2 * k + 1] = blk[k][b].im;
  #endif
        }
        eig_transpose8(r);
        for (int q = 0; q < VL; q++) {
          const int l = b * VL + q;
          if (l >= a && l < stop)
            memcpy(vl[l] + i0, &r[q], sizeof r[q]);
        }
      }
    }
    for (int b = 0; b < NV; b++) {
      sw->segn[((size_t)sg * SN + EIG_SN_VMAX) * NV + b] = vmax[b];
      sw->segn[((size_t)sg * SN + EIG_SN_IMAX) * NV + b] = imax[b];
    }
  }
  eig_team_sync(tm);
  /* The largest entries over the segments in order (first index). */
  for (int b = 0; b < NV; b++) {
    vmax[b] = eig_vd_splat(-1.0);
    imax[b] = eig_vd_splat(0.0);
    for (int sg = 0; sg < S; sg++) {
      eig_vd m = sw->segn[((size_t)sg * SN + EIG_SN_VMAX) * NV + b];
      eig_vm gt = (eig_vm)(m > vmax[b]);
      vmax[b] = eig_vd_sel(gt, m, vmax[b]);
      imax[b] = eig_vd_sel(gt, sw->segn[((size_t)sg * SN + EIG_SN_IMAX) * NV + b], imax[b]);
    }
  }
  /* Sign convention: the first entry of largest magnitude gets a positive
   * real part. Complex: reject a (numerically) isotropic vector,
   * |w^T M w| <= eps ||M|| ||w||_inf^2 before the scaling. */
  for (int l = a; l < stop; l++) {
    int b = l / VL, q = l % VL;
    EIG_T top = vl[l][(int)imax[b][q]];
    double vm = vmax[b][q];
    if (!EIG_IS_REAL && !(1.0 > eps * cx->mnorm * vm * vm)) {
      if (tm->tid == 0) {
        fail->kind = 3;
        fail->j = j0 + l;
        fail->s = 1.0 / (vm * vm);
      }
      return -1;
    }
    const double sgn = creal(top) < 0.0 ? -1.0 : 1.0;
    for (int t = 0; tm->tid == 0 && cx->w && t < cx->nsel; t++)
      cx->w[(size_t)(j0 + l) * cx->nsel + t] = vl[l][cx->sel ? cx->sel[t] : t] * sgn;
  }
  return stop;
#undef EIG_G
}

/*
 * The sweep over the vectors of batch tb, in order. The accepted lanes
 * are first orthogonalized together against the earlier vectors of their
 * windows (block_stage), then finished in runs (run_finish); vectors in
 * tight clusters, and those the twisted path did not accept, come from
 * inverse iteration, after which the remaining lanes are orthogonalized
 * against them. Every thread of tm calls it: the block stages and runs
 * split the rows, the rest runs on thread 0 (its results reach the others
 * through sw after a barrier). Returns 0 or a failure kind, the same on
 * every thread (details in *fail, from thread 0).
 */
static int EIG(sweep_batch)(const eig_team *tm, const EIG(ictx) * cx, EIG(sweep) * sw,
                            EIG(tbatch) * tb, EIG(ifail) * fail)
{
  enum { L = EIG_TW_LANES, S = EIG_SWEEP_SEGS };
  /* The barrier first: tb's producer is done with it, and every thread
   * with the previous batch. (Nothing of tb is read before it; a team of
   * one has the pipeline's barrier per chunk instead.) */
  eig_team_sync(tm);
  const int n = cx->n, j0 = tb->j0, cnt = tb->cnt;
  EIG_T *lambda = cx->lambda;
  const double tau = cx->tau;
  EIG(ring) *ring = &sw->ring;
  EIG_T *y = sw->work + 6 * (size_t)n;
  int ok[L];
  if (tm->tid == 0) {
    for (int l = 0; l < cnt; l++) {
      sw->okb[l] = tb->ok[l] && !EIG(in_tight)(lambda, sw->g0, j0 + l, cx->tight);
      if (sw->okb[l] && EIG_REFINE && lambda[j0 + l] != tb->lam[l]) {
        lambda[j0 + l] = tb->lam[l];
        sw->refined = 1;
      }
    }
    for (int l = cnt; l < L; l++)
      sw->okb[l] = 0;
    /* The ring keeps every earlier vector within tau (real parts) of the
     * batch: from kf on; the block stages' sums up to j0 + cnt - kf
     * vectors per segment. */
    int kf = j0;
    while (kf > sw->g0 && creal(lambda[j0]) - creal(lambda[kf - 1]) <= tau)
      kf--;
    sw->kf = kf;
    sw->bad = !EIG(ring_reserve)(ring, n, kf, j0 + cnt - 1);
    const int need = j0 + cnt - kf;
    if (!sw->bad && need > sw->segc_cap) {
      int cap = sw->segc_cap;
      while (cap < need)
        cap *= 2;
      EIG(v) *c = aligned_alloc(64, (size_t)S * cap * EIG_TW_NV * sizeof(EIG(v)));
      sw->bad = c == NULL;
      if (c) {
        free(sw->segc);
        sw->segc = c;
        sw->segc_cap = cap;
      }
    }
    if (sw->bad) {
      fail->kind = 4;
      fail->j = need;
    }
  }
  eig_team_sync(tm);
  if (sw->bad)
    return 4;
  const int kf = sw->kf;
  memcpy(ok, sw->okb, sizeof ok);
  EIG(block_stage)(tm, cx, sw, tb, ok, kf, j0);
  int applied = j0; /* lanes still open are orthogonal to the vectors before */
  for (int pos = 0; pos < cnt;) {
    if (ok[pos] && applied < j0 + pos) {
      EIG(block_stage)(tm, cx, sw, tb, ok, applied, j0 + pos);
      applied = j0 + pos;
    }
    if (ok[pos]) {
      int e = pos;
      while (e < cnt && ok[e])
        e++;
      int stop = EIG(run_finish)(tm, cx, sw, tb, pos, e, fail);
      if (stop < 0)
        return 3; /* isotropic */
      if (stop < e)
        ok[stop] = 0;
      if (stop > pos)
        pos = stop;
      continue;
    }
    /* Inverse iteration for lane pos, on thread 0. */
    const int j = j0 + pos;
    if (tm->tid == 0) {
      int nwin, intight;
      double spread;
      EIG(window)(cx, sw->g0, j, sw->win, &nwin, &intight, &spread);
      EIG_T sigma =
          EIG(shift_of)(lambda, sw->g0, j, tau, cx->tight, cx->pertol, sw->sigma_prev);
      sw->sigma_prev = sigma;
      EIG_T *v = EIG(ring_at)(ring, n, j);
      int kind = EIG(invit_one)(cx, sw, j, sw->win, nwin, intight, spread, sigma, v, fail);
      if (!kind)
        kind = EIG(finish)(cx, j, v, y, fail);
      sw->lkind[pos] = kind;
    }
    eig_team_sync(tm);
    if (sw->lkind[pos])
      return sw->lkind[pos];
    pos++;
  }
  return 0;
}

/* Produce the batches first..first+nb-1 (below nbatch) of a chunk of the
 * part g0..g1-1 into tb[0..nb-1], claimed one at a time through *claim by
 * every thread that calls it. scr: the thread's scratch (NULL-safe
 * through mine_ok). */
static void EIG(produce_chunk)(const EIG(ictx) * cx, int g0, int g1, EIG(tbatch) * tb,
                               int *claim, int first, int nb, int nbatch, int mine_ok,
                               EIG(v) * scr, EIG(twf) * f)
{
  for (;;) {
    int q;
#ifdef _OPENMP
#pragma omp atomic capture
#endif
    q = (*claim)++;
    const int bi = first + q;
    if (q >= nb || bi >= nbatch)
      return;
    EIG(tbatch) *t = &tb[q];
    t->j0 = g0 + bi * EIG_TW_LANES;
    t->cnt = g1 - t->j0 < EIG_TW_LANES ? g1 - t->j0 : EIG_TW_LANES;
    if (mine_ok && EIG_PIV_LANES)
      EIG(piv_produce)(cx, t, scr);
    else if (mine_ok)
      EIG(tw_produce)(cx, t, f, scr + 4 * (size_t)EIG_TW_NV * cx->n);
    else
      for (int l = 0; l < EIG_TW_LANES; l++)
        t->ok[l] = 0; /* inverse iteration instead */
  }
}

/*
 * Pipeline over the part g0..g1-1 of the spectrum (vectors_pipeline), on
 * nt threads: batches of EIG_TW_LANES twisted vectors are produced in
 * parallel (OpenMP: every thread, in chunks of nb batches) and swept in
 * order (Gram-Schmidt against the window, inverse iteration where needed,
 * normalization). Every batch depends only on the input eigenvalues and
 * the sweep's sums go over fixed row segments in order, so the result
 * does not depend on the number of threads nor on who sweeps:
 * - team (from EIG_TEAM_MIN threads, eig_team_mode): every thread
 *   produces chunk s, then every thread sweeps it, each on its rows. On
 *   the 16-core H100 host, n = 8191: complex 0.81 s against 1.39 s with
 *   thread 0 alone, real 0.56 s against 0.97 s (16 threads; with 4, 0.99
 *   against 1.21 s; bench/results/2026-11-24-h100host-eigen-threads).
 * - alone (fewer threads): thread 0 sweeps chunk s-1 while the others
 *   produce chunk s, one barrier per chunk. With two threads the team
 *   gained nothing measurable (the work is the same, production and sweep
 *   already overlap), and its barriers (about eight per batch) wait a
 *   scheduler time slice each where other processes hold the cores: on
 *   the 2-core VM under load, 200 calls at n = 100 took 23 s against 0.3 s.
 * Returns 0 when out of memory; failures in *fail.
 */
static int EIG(pipeline_part)(const EIG(ictx) * cx, int g0, int g1, int nt, EIG(ifail) * fail,
                              int *refined)
{
  const int n = cx->n;
  const int nbatch = (g1 - g0 + EIG_TW_LANES - 1) / EIG_TW_LANES;
  /* One thread: a batch at a time, produced and then swept (as a team of
   * one), in one buffer: with two parts side by side, their working sets
   * share the last-level cache. */
  const int nb = nt == 1 ? 1 : nt > 2 ? nt : 2; /* batches per chunk */
  const int team = nt == 1 || eig_team_mode(nt);
  const int nbuf = nt == 1 ? 1 : 2;
  const int nchunk = (nbatch + nb - 1) / nb;
  /* Two chunks of batches (produced, swept; one where nt is 1). */
  EIG(tbatch) *tb = calloc((size_t)nbuf * nb, sizeof(EIG(tbatch)));
  int *claim = calloc((size_t)nchunk + 1, sizeof(int));
  int ok = tb && claim;
  for (int t = 0; ok && t < nbuf * nb; t++)
    ok = (tb[t].z = aligned_alloc(64, (size_t)EIG_TW_NV * n * sizeof(EIG(v)))) != NULL;
  EIG(sweep) sw;
  memset(&sw, 0, sizeof sw);
  sw.g0 = g0;
  ok = ok && EIG(sweep_init)(&sw, n);
  int allocfail = 0;

  if (ok) {
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1) reduction(| : allocfail)
#endif
    {
#ifdef _OPENMP
      const int tid = omp_get_thread_num();
#else
      const int tid = 0;
#endif
      /* Factorizations and M z of one batch: 5 EIG_TW_NV n lane vectors. */
      const size_t nl = (size_t)EIG_TW_NV * n;
      EIG(v) *scr = aligned_alloc(64, 6 * nl * sizeof(EIG(v)));
      EIG(twf) f;
      f.lp = scr;
      f.um = scr + nl;
      f.rp = scr + 2 * nl;
      f.rm = scr + 3 * nl;
      int mine_ok = scr != NULL; /* else: the call fails (after the sweep) */
      allocfail |= !mine_ok;
#ifdef _OPENMP
      const int nthr = omp_get_num_threads();
#else
      const int nthr = 1;
#endif
      /* The sweep's team: every thread, or thread 0 alone (the same bits). */
      const eig_team tm = team ? (eig_team){tid, nthr} : (eig_team){0, 1};
      int failed = 0; /* team: the same on every thread; else thread 0's */
      for (int s = 0; s <= nchunk; s++) {
        /* Alone: thread 0 sweeps chunk s-1 while the others produce chunk s. */
        if (!team && tid == 0 && s > 0)
          for (int q = 0; q < nb && !failed; q++)
            if ((s - 1) * nb + q < nbatch)
              failed = EIG(sweep_batch)(&tm, cx, &sw, &tb[((s - 1) % 2) * nb + q], fail) != 0;
        if (s == nchunk || (team && failed))
          break;
        EIG(produce_chunk)(cx, g0, g1, tb + (s % nbuf) * nb, claim + s, s * nb, nb, nbatch,
                           mine_ok, scr, &f);
        if (team) { /* every thread sweeps chunk s (sweep_batch's first
                       barrier waits for the producers) */
          for (int q = 0; q < nb && !failed; q++)
            if (s * nb + q < nbatch)
              failed = EIG(sweep_batch)(&tm, cx, &sw, &tb[(s % nbuf) * nb + q], fail) != 0;
        } else {
#ifdef _OPENMP
#pragma omp barrier
#endif
        }
      }
      free(scr);
    }
  }
  *refined = ok ? sw.refined : 0;
  EIG(sweep_free)(&sw);
  for (int t = 0; tb && t < nbuf * nb; t++)
    free(tb[t].z);
  free(tb);
  free(claim);
  return ok && !allocfail;
}

/*
 * Where the spectrum splits in two for the pipeline (vectors_pipeline): an
 * index m with Re lambda_m - Re lambda_{m-1} > tau, so that no window
 * crosses it, chosen so that the parts 0..m-1 and m..n-1 cost about the
 * same. Each index costs EIG_SPLIT_BASE plus the length of its window: on
 * the order-8191 Helmholtz pencil a batch of sixteen took about 1 ms to
 * produce and 0.75 ms plus 62 us per vector of its window to sweep (a
 * second fit, on one thread: 0.77 ms plus 78 us; so 28 to 22 window
 * vectors per index; the split there falls on the first gap either way), and
 * the windows run from about 45 vectors at the bottom of the spectrum
 * (small gaps against tau = ||T|| / n) to under one at the top, where
 * the gaps above tau are. Returns 0 (no split) below EIG_SPLIT_MIN, or
 * where the larger part would cost more than EIG_SPLIT_MAX of the whole
 * (PSCR_EIGEN_SPLIT, eig_split_mode, overrides that). The split depends on
 * lambda alone, never on the number of threads.
 */
#ifndef EIG_SPLIT_DEFINED
#define EIG_SPLIT_DEFINED
#define EIG_SPLIT_MIN 512
#define EIG_SPLIT_BASE 28.0
#define EIG_SPLIT_MAX 0.56
#endif
static int EIG(split_point)(const EIG(ictx) * cx)
{
  const int n = cx->n;
  const EIG_T *lambda = cx->lambda;
  const int mode = eig_split_mode();
  if (n < EIG_SPLIT_MIN || mode == 0)
    return 0;
  double *cum = malloc(((size_t)n + 1) * sizeof *cum);
  if (!cum)
    return 0; /* (only slower) */
  cum[0] = 0.0;
  for (int j = 0, first = 0; j < n; j++) {
    while (first < j && creal(lambda[j]) - creal(lambda[first]) > cx->tau)
      first++;
    cum[j + 1] = cum[j] + EIG_SPLIT_BASE + (j - first);
  }
  int best = 0;
  double cost = cum[n];
  for (int m = 1; m < n; m++) {
    if (creal(lambda[m]) - creal(lambda[m - 1]) <= cx->tau)
      continue;
    const double c = fmax(cum[m], cum[n] - cum[m]);
    if (c < cost) {
      cost = c;
      best = m;
    }
  }
  const int split = mode == 1 || cost <= EIG_SPLIT_MAX * cum[n] ? best : 0;
  free(cum);
  return split;
}

/*
 * All the vectors through pipeline_part. Where the spectrum splits
 * (split_point), the two parts share no window and each is a pipeline of
 * its own, whose batches start at the part's first index whatever the
 * number of threads (the same bits):
 * - two or three threads (the sweep not a team): the parts run side by
 *   side, each on one thread that produces and sweeps its batches in
 *   turn, with no barrier between them. With thread 0 sweeping
 *   everything, the sweep was the critical path (order 8191, complex:
 *   0.69 s of sweep against 0.5 s of production on the other thread);
 *   the split halves the sum of both.
 * - one thread, or a team: the parts one after the other.
 * Returns 0 when out of memory; failures in *fail (the lower part's
 * first).
 */
static int EIG(vectors_pipeline)(const EIG(ictx) * cx, EIG(ifail) * fail, int *refined)
{
  const int n = cx->n;
  int nt = 1;
#ifdef _OPENMP
  if (n >= 64 && !omp_in_parallel())
    nt = omp_get_max_threads();
#endif
  const int m = EIG(split_point)(cx);
  if (m == 0)
    return EIG(pipeline_part)(cx, 0, n, nt, fail, refined);
  const int g[3] = {0, m, n};
  EIG(ifail) pf[2];
  int pok[2] = {1, 1}, pref[2] = {0, 0};
  memset(pf, 0, sizeof pf);
  if (nt > 1 && !eig_team_mode(nt)) {
#ifdef _OPENMP
#pragma omp parallel for num_threads(2) schedule(static, 1)
#endif
    for (int p = 0; p < 2; p++)
      pok[p] = EIG(pipeline_part)(cx, g[p], g[p + 1], 1, &pf[p], &pref[p]);
  } else {
    for (int p = 0; p < 2 && pok[0] && !pf[0].kind; p++)
      pok[p] = EIG(pipeline_part)(cx, g[p], g[p + 1], nt, &pf[p], &pref[p]);
  }
  *refined = pref[0] | pref[1];
  if (pf[0].kind)
    *fail = pf[0];
  else if (pf[1].kind)
    *fail = pf[1];
  return pok[0] && pok[1];
}

/*
 * All eigenvectors for the sorted eigenvalues lambda (n of them); writes the
 * sel components to w (w NULL: none). tnorm: ||T|| of the reduced problem
 * (cluster scale). With EIG_REFINE, lambda is refined (and re-sorted, with
 * the rows of w) where the residual shows it was inaccurate. The vectors
 * come from vectors_pipeline (batches from twisted factorizations, or with
 * EIG_PIV_LANES from pivoted inverse iteration).
 */
static pscr_status EIG(inverse_iteration)(int n, const EIG_T *ad, const EIG_T *ao,
                                          const EIG_T *md, const EIG_T *mo, EIG_T *lambda,
                                          double anorm, double mnorm, double tnorm, int nsel,
                                          const int *sel, EIG_T *w)
{
  const double eps = DBL_EPSILON, tsafe = tnorm > 0.0 ? tnorm : 1.0;
  EIG_T *lambda0 = malloc((size_t)n * sizeof(EIG_T));
  if (!lambda0)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "eigen: no memory for inverse iteration (n = %d)",
                      n);
  memcpy(lambda0, lambda, (size_t)n * sizeof(EIG_T));
  EIG(ictx) cx = {n, nsel, ad, ao, md, mo, lambda, w, lambda0, sel, anorm, mnorm, tnorm,
                  EIG_CLUSTER_TOL * tnorm / n,
                  /* Tight cluster: eigenvalues this close to lambda_j are
                   * numerically indistinguishable; any vector of their
                   * invariant subspace is an acceptable eigenvector, with a
                   * residual of up to their spread. */
                  EIG_TIGHT_TOL * n * eps * tsafe, 10.0 * eps * tsafe};
  EIG(ifail) fail = {0, 0, 0.0, 0.0, 0.0};
  int refined = 0;
  int ok = EIG(vectors_pipeline)(&cx, &fail, &refined);
  free(lambda0);
  if (!ok)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "eigen: no memory for inverse iteration (n = %d)",
                      n);
  switch (fail.kind) {
  case 0:
    break;
  case 1:
    return PSCR_ERROR(PSCR_ERROR_EIGEN_FAILED,
                      "inverse iteration broke down for eigenvalue %d (%g%+gi)", fail.j,
                      creal(fail.lam), cimag(fail.lam));
  case 2:
    return PSCR_ERROR(PSCR_ERROR_EIGEN_FAILED,
                      "inverse iteration did not converge for eigenvalue %d (%g%+gi): "
                      "relative residual %g",
                      fail.j, creal(fail.lam), cimag(fail.lam), fail.val);
  case 3:
    return PSCR_ERROR(PSCR_ERROR_NOT_DEFINITE,
                      "eigenvector %d has w^T M w = %g%+gi: cannot be normalized", fail.j,
                      creal(fail.s), cimag(fail.s));
  default:
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC,
                      "eigen: no memory for inverse iteration (n = %d, window %d)", n, fail.j);
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
  return PSCR_SUCCESS;
}

/*
 * Crawford's reduction of a symmetric tridiagonal pencil (A, M) to a standard
 * symmetric tridiagonal matrix C = X^T A X with X^T M X = I (paper section
 * 4.2, applied to the eigenproblems of eq. 23; C. R. Crawford, "Reduction of
 * a band-symmetric generalized eigenvalue problem", CACM 16, 1973). This is
 * LAPACK dsbgst with ka = kb = 1, written for one bandwidth:
 *
 *   M is split-factored (a twisted Cholesky factorization meeting at the
 *   middle row m): rows 0..m-1 are eliminated top-down, rows n-1..m+1
 *   bottom-up, row m last. Eliminating row k with the congruence
 *   "scale k by M_kk^(-1/2), then col/row k+1 -= t col/row k" keeps M_kk = 1
 *   and zeroes M_{k,k+1}, but fills A at (k-1, k+1). That bulge is chased up
 *   and off the top by rotations in the planes (j, j+1), j = k-1..0, which
 *   act on the part of M that is already the identity and so leave it there.
 *   The split halves the total chase length (n^2/4 rotations instead of
 *   n^2/2). The bottom half is the mirror image; it runs the same top-down
 *   sweep on reversed copies.
 *
 * Complex symmetric case: every transpose is a plain transpose and the
 * rotations are complex orthogonal (c^2 + s^2 = 1, G^T G = I). They exist
 * unless the vector (g, b) to rotate is isotropic (g^2 + b^2 = 0, g != 0);
 * that, like a zero pivot of M, is reported as PSCR_ERROR_NOT_DEFINITE.
 *
 * Type-generic: included by eigen.c once per scalar type (see the EIG_*
 * macros there); no include guard on purpose.
 */

/* Eliminate row k of M (pivot k, scaled to 1; col/row k+1 -= t col/row
 * k zeroes M_{k,k+1}); returns t through *t, or a status (bad pivot). */
static inline pscr_status EIG(crawford_elim)(int k, EIG_T *ad, EIG_T *ao, EIG_T *md,
                                             const EIG_T *mo, double mnorm, int rev, int n,
                                             EIG_T *t)
{
  EIG_T piv = md[k];
  if (EIG_PIVOT_BAD(piv, mnorm))
    return EIG_ERROR(PSCR_ERROR_NOT_DEFINITE,
                     "M is not positive definite (complex: numerically zero pivot): "
                     "split-Cholesky pivot %d is %g%+gi",
                     rev ? n - 1 - k : k, creal(piv), cimag(piv));
  EIG_T sq, rs;
  EIG_SQRT_RECIP(piv, &sq, &rs);
  ad[k] *= rs * rs;
  if (k > 0)
    ao[k - 1] *= rs;
  ao[k] *= rs;
  /* col/row k+1 -= t col/row k zeroes M_{k,k+1} (M_kk is now 1). */
  EIG_T tk = mo[k] * rs;
  EIG_T akk = ad[k], ak1 = ao[k];
  md[k + 1] -= tk * tk;
  ad[k + 1] += tk * (tk * akk - 2.0 * ak1);
  ao[k] = ak1 - tk * akk;
  *t = tk;
  return PSCR_SUCCESS;
}

/* One rotation of a bulge chase, in the plane (j, j+1), the bulge g at
 * (j, j+2); g moves to (j-1, j+1). Returns 0, or 1 when the (complex
 * orthogonal) rotation does not exist: then *r2 holds g^2 + b^2. */
static inline int EIG(crawford_rot)(EIG_T *ad, EIG_T *ao, int j, EIG_T *g, EIG_T *r2out)
{
  EIG_T gg = *g, b = ao[j + 1];
  EIG_T r2 = gg * gg + b * b;
  if (!EIG_IS_REAL && EIG_ABS1(r2) <= DBL_EPSILON * (EIG_ABS1(gg) * EIG_ABS1(gg) +
                                                      EIG_ABS1(b) * EIG_ABS1(b))) {
    *r2out = r2;
    return 1;
  }
  EIG_T r, rr;
  EIG_SQRT_RECIP(r2, &r, &rr);
  EIG_T c = b * rr, s = gg * rr;
  EIG_T x = ad[j], z = ad[j + 1], y = ao[j];
  EIG_T cc = c * c, ss = s * s, cs = c * s;
  ao[j + 1] = r;
  ad[j] = cc * x - 2.0 * cs * y + ss * z;
  ad[j + 1] = ss * x + 2.0 * cs * y + cc * z;
  ao[j] = cs * (x - z) + (cc - ss) * y;
  if (j > 0) {
    *g = s * ao[j - 1];
    ao[j - 1] *= c;
  }
  return 0;
}

static pscr_status EIG(crawford_isotropic)(EIG_T r2, int j, int rev, int n)
{
  return EIG_ERROR(PSCR_ERROR_NOT_DEFINITE,
                   "Crawford reduction breaks down: isotropic rotation "
                   "(g^2 + b^2 = %g%+gi) at row %d",
                   creal(r2), cimag(r2), rev ? n - 1 - j : j);
}

/*
 * Top-down sweep: eliminate rows k = 0..nsteps-1 (nsteps <= len - 1) of M and
 * chase each bulge of A off the top. ad/md: diagonals, ao/mo: off-diagonals
 * (ao[i] couples i and i+1). md[nsteps] and ad[nsteps] receive the Schur
 * complement updates. rev/n only map indices for the error message.
 *
 * Two bulges at a time: the chase of step k+1 runs two planes behind that
 * of step k (plane p of the second touches ad[p..p+1], ao[p-1..p+1], which
 * the first has left for good once past plane p-2), so the two chains of
 * square roots and divisions overlap. Every entry sees the same operations
 * in the same order as in the plain sequence (k's chase, then k+1's), so
 * the result is bit for bit the same, and so is the first error reported.
 */
static pscr_status EIG(crawford_sweep)(int nsteps, EIG_T *ad, EIG_T *ao, EIG_T *md,
                                       const EIG_T *mo, double mnorm, int rev, int n)
{
  pscr_status st;
  EIG_T r2 = 0.0; /* set by crawford_rot before any use (GCC -march=x86-64-v3 cannot see it) */
  int k = 0;
  while (k < nsteps) {
    EIG_T ta = 0.0, tb = 0.0;
    st = EIG(crawford_elim)(k, ad, ao, md, mo, mnorm, rev, n, &ta);
    if (st != PSCR_SUCCESS)
      return st;
    if (k == 0) {
      k++;
      continue;
    }
    EIG_T ga = -ta * ao[k - 1];
    int ja = k - 1;
    if (k + 1 >= nsteps || ga == 0.0) { /* one chase alone */
      for (; ja >= 0 && ga != 0.0; ja--)
        if (EIG(crawford_rot)(ad, ao, ja, &ga, &r2))
          return EIG(crawford_isotropic)(r2, ja, rev, n);
      k++;
      continue;
    }
    /* First rotation of k's chase (plane k-1) before row k+1 is touched. */
    if (EIG(crawford_rot)(ad, ao, ja, &ga, &r2))
      return EIG(crawford_isotropic)(r2, ja, rev, n);
    ja--;
    /* Row k+1: its failure counts only after k's chase (as in sequence). */
    pscr_status st_b = EIG(crawford_elim)(k + 1, ad, ao, md, mo, mnorm, rev, n, &tb);
    EIG_T gb = st_b == PSCR_SUCCESS ? -tb * ao[k] : 0.0;
    int jb = k, fail_b = -1;
    EIG_T r2b = 0.0;
    while (ja >= 0 && ga != 0.0) {
      if (EIG(crawford_rot)(ad, ao, ja, &ga, &r2))
        return EIG(crawford_isotropic)(r2, ja, rev, n);
      ja--;
      if (fail_b < 0 && jb >= 0 && gb != 0.0) {
        if (EIG(crawford_rot)(ad, ao, jb, &gb, &r2b))
          fail_b = jb;
        jb--;
      }
    }
    if (st_b != PSCR_SUCCESS)
      return st_b;
    if (fail_b >= 0)
      return EIG(crawford_isotropic)(r2b, fail_b, rev, n);
    for (; jb >= 0 && gb != 0.0; jb--)
      if (EIG(crawford_rot)(ad, ao, jb, &gb, &r2))
        return EIG(crawford_isotropic)(r2, jb, rev, n);
    k += 2;
  }
  return PSCR_SUCCESS;
}

static int EIG(crawford_sweep_lanes)(int nsteps, EIG_T *ad, EIG_T *ao, EIG_T *md,
                                     const EIG_T *mo, double mnorm, int n);

/*
 * Reduce (A, M) in place: on return ad/ao hold C (tridiagonal, same
 * eigenvalues as the pencil). md/mo are destroyed. rev: scratch of 4n.
 *
 * The two halves touch disjoint entries except row m, to which each only
 * adds its Schur complement update; they run concurrently (two OpenMP
 * threads for large n; the same arithmetic, so the same result, on one
 * thread), and row m sums both updates.
 *
 * lanes: sweep with eight chases in vector lanes (crawford_lanes_impl.h).
 * Where that gives up, *redo is set and nothing is reported: the caller
 * restores ad, ao, md, mo from the pencil and calls again without lanes.
 */
static pscr_status EIG(crawford_reduce)(int n, EIG_T *ad, EIG_T *ao, EIG_T *md, EIG_T *mo,
                                        double mnorm, EIG_T *rev, int lanes, int *redo)
{
  int m = n / 2; /* meeting row of the split factorization */
  int len = n - m;
  EIG_T *rad = rev, *rao = rev + n, *rmd = rev + 2 * n, *rmo = rev + 3 * n;
  /* Bottom half, rows n-1..m+1, as a top-down sweep of the reversed tail. */
  if (len > 1) {
    for (int i = 0; i < len; i++) {
      rad[i] = ad[n - 1 - i];
      rmd[i] = md[n - 1 - i];
    }
    for (int i = 0; i < len - 1; i++) {
      rao[i] = ao[n - 2 - i];
      rmo[i] = mo[n - 2 - i];
    }
  }
  const EIG_T ad_m = ad[m], md_m = md[m];
  pscr_status st_top = PSCR_SUCCESS, st_bot = PSCR_SUCCESS;
  int bot_thread = 0, top_ok = 1, bot_ok = 1; /* lanes: each half's sweep done */
  *redo = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(2) if (n >= 512)
#endif
  {
#ifdef _OPENMP
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
    int t = 0, nt = 1;
#endif
    if (t == 0) {
      if (lanes)
        top_ok = EIG(crawford_sweep_lanes)(m, ad, ao, md, mo, mnorm, n);
      else
        st_top = EIG(crawford_sweep)(m, ad, ao, md, mo, mnorm, 0, n);
    }
    if (t == nt - 1 && len > 1) {
      if (lanes)
        bot_ok = EIG(crawford_sweep_lanes)(len - 1, rad, rao, rmd, rmo, mnorm, n);
      else
        st_bot = EIG(crawford_sweep)(len - 1, rad, rao, rmd, rmo, mnorm, 1, n);
      bot_thread = t;
    }
  }
  if (!top_ok || !bot_ok) {
    *redo = 1;
    return PSCR_SUCCESS;
  }
  if (st_top != PSCR_SUCCESS)
    return st_top;
  if (st_bot != PSCR_SUCCESS) {
    if (bot_thread == 0)
      return st_bot;
    /* The detail message went to the worker thread: repeat the bottom
     * sweep here (its entries are untouched by the top sweep). */
    for (int i = 0; i < len; i++) {
      rad[i] = ad[n - 1 - i];
      rmd[i] = md[n - 1 - i];
    }
    rad[len - 1] = ad_m;
    rmd[len - 1] = md_m;
    for (int i = 0; i < len - 1; i++) {
      rao[i] = ao[n - 2 - i];
      rmo[i] = mo[n - 2 - i];
    }
    return EIG(crawford_sweep)(len - 1, rad, rao, rmd, rmo, mnorm, 1, n);
  }
  if (len > 1) {
    for (int i = 0; i < len - 1; i++) {
      ad[n - 1 - i] = rad[i];
      md[n - 1 - i] = rmd[i];
    }
    for (int i = 0; i < len - 1; i++)
      ao[n - 2 - i] = rao[i];
    /* Row m: both halves' updates. */
    ad[m] += rad[len - 1] - ad_m;
    md[m] += rmd[len - 1] - md_m;
  }

  /* Row m: scale it last. */
  EIG_T piv = md[m];
  if (EIG_PIVOT_BAD(piv, mnorm))
    return EIG_ERROR(PSCR_ERROR_NOT_DEFINITE,
                     "M is not positive definite (complex: numerically zero pivot): "
                     "split-Cholesky pivot %d is %g%+gi",
                     m, creal(piv), cimag(piv));
  EIG_T rs = EIG_RECIP(EIG_SQRT(piv));
  ad[m] *= rs * rs;
  if (m > 0)
    ao[m - 1] *= rs;
  if (m < n - 1)
    ao[m] *= rs;
  return PSCR_SUCCESS;
}

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

/*
 * Top-down sweep: eliminate rows k = 0..nsteps-1 (nsteps <= len - 1) of M and
 * chase each bulge of A off the top. ad/md: diagonals, ao/mo: off-diagonals
 * (ao[i] couples i and i+1). md[nsteps] and ad[nsteps] receive the Schur
 * complement updates. rev/n only map indices for the error message.
 */
static pscr_status EIG(crawford_sweep)(int nsteps, EIG_T *ad, EIG_T *ao, EIG_T *md,
                                       const EIG_T *mo, double mnorm, int rev, int n)
{
  for (int k = 0; k < nsteps; k++) {
    EIG_T piv = md[k];
    if (EIG_PIVOT_BAD(piv, mnorm))
      return PSCR_ERROR(PSCR_ERROR_NOT_DEFINITE,
                        "M is not positive definite (complex: numerically zero pivot): "
                        "split-Cholesky pivot %d is %g%+gi",
                        rev ? n - 1 - k : k, creal(piv), cimag(piv));
    EIG_T rs = EIG_RECIP(EIG_SQRT(piv));
    ad[k] *= rs * rs;
    if (k > 0)
      ao[k - 1] *= rs;
    ao[k] *= rs;
    /* col/row k+1 -= t col/row k zeroes M_{k,k+1} (M_kk is now 1). */
    EIG_T t = mo[k] * rs;
    EIG_T akk = ad[k], ak1 = ao[k];
    md[k + 1] -= t * t;
    ad[k + 1] += t * (t * akk - 2.0 * ak1);
    ao[k] = ak1 - t * akk;
    if (k == 0)
      continue;
    /* Bulge at (j, j+2) with j = k-1; rotate in plane (j, j+1) to zero it. */
    EIG_T g = -t * ao[k - 1];
    for (int j = k - 1; j >= 0 && g != 0.0; j--) {
      EIG_T b = ao[j + 1];
      EIG_T r2 = g * g + b * b;
      if (!EIG_IS_REAL && EIG_ABS1(r2) <= DBL_EPSILON * (EIG_ABS1(g) * EIG_ABS1(g) +
                                                          EIG_ABS1(b) * EIG_ABS1(b)))
        return PSCR_ERROR(PSCR_ERROR_NOT_DEFINITE,
                          "Crawford reduction breaks down: isotropic rotation "
                          "(g^2 + b^2 = %g%+gi) at row %d",
                          creal(r2), cimag(r2), rev ? n - 1 - j : j);
      EIG_T r = EIG_SQRT(r2), rr = EIG_RECIP(r);
      EIG_T c = b * rr, s = g * rr;
      EIG_T x = ad[j], z = ad[j + 1], y = ao[j];
      EIG_T cc = c * c, ss = s * s, cs = c * s;
      ao[j + 1] = r;
      ad[j] = cc * x - 2.0 * cs * y + ss * z;
      ad[j + 1] = ss * x + 2.0 * cs * y + cc * z;
      ao[j] = cs * (x - z) + (cc - ss) * y;
      if (j > 0) {
        g = s * ao[j - 1];
        ao[j - 1] *= c;
      }
    }
  }
  return PSCR_SUCCESS;
}

/*
 * Reduce (A, M) in place: on return ad/ao hold C (tridiagonal, same
 * eigenvalues as the pencil). md/mo are destroyed. rev: scratch of 4n.
 *
 * The two halves touch disjoint entries except row m, to which each only
 * adds its Schur complement update; they run concurrently (two OpenMP
 * threads for large n; the same arithmetic, so the same result, on one
 * thread), and row m sums both updates.
 */
static pscr_status EIG(crawford_reduce)(int n, EIG_T *ad, EIG_T *ao, EIG_T *md, EIG_T *mo,
                                        double mnorm, EIG_T *rev)
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
  int bot_thread = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(2) if (n >= 512)
#endif
  {
#ifdef _OPENMP
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
#else
    int t = 0, nt = 1;
#endif
    if (t == 0)
      st_top = EIG(crawford_sweep)(m, ad, ao, md, mo, mnorm, 0, n);
    if (t == nt - 1 && len > 1) {
      st_bot = EIG(crawford_sweep)(len - 1, rad, rao, rmd, rmo, mnorm, 1, n);
      bot_thread = t;
    }
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
    return PSCR_ERROR(PSCR_ERROR_NOT_DEFINITE,
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

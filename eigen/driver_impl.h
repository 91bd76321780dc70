/*
 * Driver of the generalized eigensolver A w = lambda M w (paper eq. 23):
 * argument checks, reduction to a standard tridiagonal problem (diagonal M:
 * scaling by M^{-1/2}; otherwise Crawford), LR eigenvalues, sorting, inverse
 * iteration on the pencil for the vectors.
 *
 * Type-generic: included by eigen.c once per scalar type.
 */

static int EIG(all_finite)(int n, const EIG_T *x)
{
  for (int i = 0; i < n; i++)
    if (!EIG_ISFINITE(x[i]))
      return 0;
  return 1;
}

/* Infinity norm of the symmetric tridiagonal (diag, off; off may be NULL). */
static double EIG(tri_norm)(int n, const EIG_T *diag, const EIG_T *off)
{
  double m = 0.0;
  for (int i = 0; i < n; i++) {
    double r = EIG_ABS(diag[i]);
    if (off && i > 0)
      r += EIG_ABS(off[i - 1]);
    if (off && i < n - 1)
      r += EIG_ABS(off[i]);
    m = fmax(m, r);
  }
  return m;
}

static pscr_status EIG(eigen)(int n, const EIG_T *a_diag, const EIG_T *a_off,
                              const EIG_T *m_diag, const EIG_T *m_off, EIG_T *lambda,
                              int nsel, const int *sel, EIG_T *w,
                              const pscr_eigen_config *config)
{
  pscr_eig_error_clear();
  if (n < 1)
    return EIG_ERROR(PSCR_ERROR_INVALID_VALUE, "order n is %d, must be >= 1", n);
  if (!a_diag || !m_diag || !lambda || (n > 1 && !a_off))
    return EIG_ERROR(PSCR_ERROR_INVALID_VALUE, "%s is NULL",
                     !a_diag ? "a_diag" : !m_diag ? "m_diag" : !lambda ? "lambda" : "a_off");
  if (w) {
    if (nsel < 1 || nsel > n)
      return EIG_ERROR(PSCR_ERROR_INVALID_VALUE, "nsel is %d, not in 1..%d", nsel, n);
    if (!sel && nsel != n)
      return EIG_ERROR(PSCR_ERROR_INVALID_VALUE,
                       "sel is NULL (all rows) but nsel is %d, not n = %d", nsel, n);
    for (int t = 0; sel && t < nsel; t++)
      if (sel[t] < 0 || sel[t] >= n)
        return EIG_ERROR(PSCR_ERROR_INVALID_VALUE, "sel[%d] is %d, not in 0..%d", t,
                         sel[t], n - 1);
  }
  if (!EIG(all_finite)(n, a_diag) || !EIG(all_finite)(n - 1, a_off) ||
      !EIG(all_finite)(n, m_diag) || (m_off && !EIG(all_finite)(n - 1, m_off)))
    return EIG_ERROR(PSCR_ERROR_NON_FINITE, "the pencil (order %d) has a NaN or Inf entry", n);
  if (m_off && n == 1)
    m_off = NULL;

  /* The paths of the call (config NULL: the defaults), checked after the
   * arguments. */
  pscr_eigen_config cfg;
  pscr_status st = pscr_eig_config(config, &cfg);
  if (st != PSCR_SUCCESS)
    return st;
  /* d, p: reduced T (diagonal, squared off-diagonals); ad, ao, md, mo: the
   * Crawford copies (mo shares dn, free until LR); then 4n for Crawford's
   * reversed tail. */
  EIG_T *buf = malloc((size_t)11 * (size_t)n * sizeof(EIG_T));
  if (!buf)
    return EIG_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate the workspace of order %d", n);
  EIG_T *d = buf, *p = buf + n, *dn = buf + 2 * (size_t)n, *pn = buf + 3 * (size_t)n;
  EIG_T *ad = buf + 4 * (size_t)n, *ao = buf + 5 * (size_t)n;

  const double anorm = EIG(tri_norm)(n, a_diag, a_off);
  const double mnorm = EIG(tri_norm)(n, m_diag, m_off);

  if (!m_off) {
    /* Diagonal M: T = M^{-1/2} A M^{-1/2}. T enters LR only through d_i and
     * the squares p_i = e_i^2 = a_i^2 / (m_i m_{i+1}), so no square root is
     * needed (complex: the principal root would square to the same p_i). */
    for (int i = 0; i < n; i++) {
      if (EIG_PIVOT_BAD(m_diag[i], mnorm)) {
        st = EIG_ERROR(PSCR_ERROR_NOT_DEFINITE,
                       "M is not positive definite (complex: numerically zero pivot): "
                       "diagonal entry %d is %g%+gi",
                       i, creal(m_diag[i]), cimag(m_diag[i]));
        goto out;
      }
      d[i] = a_diag[i] * EIG_RECIP(m_diag[i]);
    }
    for (int i = 0; i < n - 1; i++)
      p[i] = a_off[i] * a_off[i] * EIG_RECIP(m_diag[i] * m_diag[i + 1]);
  } else {
    EIG_T *md = buf + 6 * (size_t)n, *mo = dn; /* dn/pn are free until LR */
    /* Chases in vector lanes from order EIG_CR_LANES_MIN on (a short sweep
     * has few chases to share the lanes); where the lanes give up (a bad
     * pivot, an isotropic rotation), the scalar sweep starts over from the
     * pencil and reports. (pscr_eig_lanes: common.h says why out of
     * line.) */
    int lanes = n >= EIG_CR_LANES_MIN && pscr_eig_lanes(&cfg), redo = 1;
    for (int attempt = 0; redo && attempt < 2; attempt++, lanes = 0) {
      memcpy(ad, a_diag, (size_t)n * sizeof(EIG_T));
      memcpy(ao, a_off, (size_t)(n - 1) * sizeof(EIG_T));
      memcpy(md, m_diag, (size_t)n * sizeof(EIG_T));
      memcpy(mo, m_off, (size_t)(n - 1) * sizeof(EIG_T));
      st = EIG(crawford_reduce)(n, ad, ao, md, mo, mnorm, buf + 7 * (size_t)n, lanes, &redo);
    }
    if (st != PSCR_SUCCESS)
      goto out;
    memcpy(d, ad, (size_t)n * sizeof(EIG_T));
    for (int i = 0; i < n - 1; i++)
      p[i] = ao[i] * ao[i];
  }
  const double tnorm = EIG(tri_sq_norm)(n, d, p);

  st = EIG_EIGENVALUES(n, d, p, dn, pn, tnorm, pscr_eig_lanes(&cfg));
  if (st != PSCR_SUCCESS)
    goto out;
  if (!EIG(all_finite)(n, d)) {
    st = EIG_ERROR(PSCR_ERROR_EIGEN_FAILED,
                   "LR iteration produced non-finite eigenvalues (order %d)", n);
    goto out;
  }
  qsort(d, (size_t)n, sizeof(EIG_T), EIG(compare));
  memcpy(lambda, d, (size_t)n * sizeof(EIG_T));

  /* Complex: the vectors are also what refines the LR eigenvalues, so they
   * are computed (not stored) even when only eigenvalues are wanted. */
  if (w || EIG_REFINE)
    st = EIG(inverse_iteration)(n, a_diag, a_off, m_diag, m_off, lambda, anorm, mnorm, tnorm,
                                nsel, sel, w, &cfg);
out:
  free(buf);
  return st;
}

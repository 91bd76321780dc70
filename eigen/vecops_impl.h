/*
 * Vector kernels of the eigenvector stage (paper section 4.2): products
 * with M, the bilinear dot product x^T y (no conjugation), infinity norms,
 * the explicit residual ||A x - lambda M x||, and the scales of
 * A - sigma M that the acceptance tests use; rows of M z for batches of
 * lane vectors (lane_mass_rows, mass_row).
 *
 * Type-generic: included by eigen.c once per scalar type, after
 * twisted_impl.h (lane vectors).
 */

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

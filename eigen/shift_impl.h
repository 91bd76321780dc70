/*
 * Helpers shared by the eigenvalue iterations (lr_impl.h, pwk_impl.h) and
 * the driver. Type-generic: included by eigen.c once per scalar type.
 */

/* ||T||_inf of the tridiagonal with diagonal d and squared off-diagonals p. */
static double EIG(tri_sq_norm)(int n, const EIG_T *d, const EIG_T *p)
{
  double tnorm = 0.0;
  for (int i = 0; i < n; i++) {
    double r = EIG_ABS(d[i]);
    if (i > 0)
      r += sqrt(EIG_ABS(p[i - 1]));
    if (i < n - 1)
      r += sqrt(EIG_ABS(p[i]));
    tnorm = fmax(tnorm, r);
  }
  return tnorm;
}

/* Eigenvalue of [[a, e], [e, b]] (e^2 = pp) nearest b: Wilkinson's shift, in
 * the cancellation-free form b - pp / (h +- sqrt(h^2 + pp)), h = (a - b)/2. */
static EIG_T EIG(wilkinson)(EIG_T a, EIG_T b, EIG_T pp)
{
  EIG_T h = 0.5 * (a - b);
  EIG_T r = EIG_SQRT0(h * h + pp);
  EIG_T den = (EIG_ABS1(h + r) >= EIG_ABS1(h - r)) ? h + r : h - r;
  if (den == 0.0)
    return b;
  return b - pp * EIG_RECIP(den);
}


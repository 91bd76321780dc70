/*
 * Type-generic code. Files that implement an algorithm once for real and
 * complex data (FFTW's X(name) convention) include their *_impl.h twice:
 *
 *   #include "scalar_real.h"     // or scalar_complex.h
 *   #include "thing_impl.h"
 *   #include "scalar_undef.h"
 *
 * which define
 *   PSCR_SCALAR       double | double complex
 *   PSCR_SUF(name)    name##_d | name##_z
 *   PSCR_ABS1(x)      |x| (real) or |re x| + |im x| (complex): cheap magnitude
 *   PSCR_IS_FINITE(x) no NaN/Inf in x
 *   PSCR_INV(x)       1/x
 *   PSCR_ABS(x)       |x|
 *   PSCR_IS_COMPLEX   0 or 1
 */
#ifndef PSCR_SCALAR_H
#define PSCR_SCALAR_H

#include <complex.h>
#include <math.h>

typedef double complex pscr_z;

/* C11's CMPLX, which glibc defines only for GCC >= 4.7 (not for clang). C11
   lays a complex out as two doubles, so this keeps Inf/NaN parts exact. */
static inline double complex pscr_cmplx(double re, double im)
{
  double complex z;
  ((double *)&z)[0] = re;
  ((double *)&z)[1] = im;
  return z;
}
#ifndef CMPLX
#define CMPLX(x, y) pscr_cmplx((x), (y))
#endif

static inline int pscr_finite_d(double x) { return isfinite(x); }
static inline int pscr_finite_z(double complex x) { return isfinite(creal(x)) && isfinite(cimag(x)); }

/* 1/x without the scaling of C's complex division: pivots and shifts stay
   far from overflow in the solver's well-posed range (|x| in 1e-150..1e150). */
static inline double complex pscr_inv_z(double complex x)
{
  double a = creal(x), b = cimag(x), s = 1.0 / (a * a + b * b);
  return CMPLX(a * s, -b * s);
}

#endif

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
#include <stdint.h>
#include <string.h>

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

/*
 * 1/x = conj(x) / |x|^2 without overflow or underflow for any finite x != 0,
 * branch-free and with one division (C's complex division scales with
 * branches and a library call). x is first scaled by s = 2^-p, p the binary
 * exponent of |re x| + |im x| read from its bits, so the scaled parts lie in
 * [-2, 2] and their squared sum cannot overflow; the power-of-two scaling is
 * exact.
 */
static inline double complex pscr_inv_z(double complex x)
{
  double a = creal(x), b = cimag(x), t = fabs(a) + fabs(b), s;
  uint64_t bits;
  memcpy(&bits, &t, sizeof bits);
  uint64_t sbits = (uint64_t)(2046 - (int64_t)((bits >> 52) & 0x7ff)) << 52;
  memcpy(&s, &sbits, sizeof s);
  double as = a * s, bs = b * s, k = s / (as * as + bs * bs);
  return CMPLX(as * k, -bs * k);
}

#endif

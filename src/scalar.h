/*
 * Type-generic code. Files that implement an algorithm once for real and
 * complex data (FFTW's X(name) convention) include their *_impl.h twice:
 *
 *   #include "scalar_real.h"     // or scalar_complex.h
 *   #include "thing_impl.h"
 *   #include "scalar_undef.h"
 *
 * (or scalar_float.h, scalar_cfloat.h for the single-precision apply types)
 * which define
 *   PSCR_SCALAR       double | double complex | float | float complex
 *   PSCR_SUF(name)    name##_d | name##_z | name##_s | name##_c
 *   PSCR_EPS          the type's machine epsilon (pivot tests)
 *   PSCR_ABS1(x)      |x| (real) or |re x| + |im x| (complex): cheap magnitude
 *   PSCR_IS_FINITE(x) no NaN/Inf in x
 *   PSCR_INV(x)       1/x
 *   PSCR_ABS(x)       |x|
 *   PSCR_IS_COMPLEX   0 or 1
 */
#ifndef PSCR_SCALAR_H
#define PSCR_SCALAR_H

#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

typedef double complex pscr_z;
typedef float complex pscr_c;

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
static inline int pscr_finite_s(float x) { return isfinite(x); }
static inline int pscr_finite_c(float complex x) { return isfinite(crealf(x)) && isfinite(cimagf(x)); }

/* A float complex from its parts, bit-exact (as pscr_cmplx). */
static inline float complex pscr_cmplxf(float re, float im)
{
  float complex z;
  ((float *)&z)[0] = re;
  ((float *)&z)[1] = im;
  return z;
}

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

/* The same in single precision: 8 exponent bits, bias 127. */
static inline float complex pscr_inv_c(float complex x)
{
  float a = crealf(x), b = cimagf(x), t = fabsf(a) + fabsf(b), s;
  uint32_t bits;
  memcpy(&bits, &t, sizeof bits);
  uint32_t sbits = (uint32_t)(254 - (int32_t)((bits >> 23) & 0xff)) << 23;
  memcpy(&s, &sbits, sizeof s);
  float as = a * s, bs = b * s, k = s / (as * as + bs * bs);
  return pscr_cmplxf(as * k, -bs * k);
}

#endif

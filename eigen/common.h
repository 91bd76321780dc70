/*
 * What every file of the eigensolver may use, apart from the library's
 * src/ headers (eigen/ includes none of them): CMPLX where the C library
 * lacks it, the calling thread's detail message of a failed call
 * (EIG_ERROR, read through pscr_eigen_last_error), and the configuration
 * (common.c).
 */
#ifndef PSCR_EIGEN_COMMON_H
#define PSCR_EIGEN_COMMON_H

#include <complex.h>

#include "eigen.h"

/* C11's CMPLX, which glibc defines only for GCC >= 4.7 (not for clang). C11
 * lays a complex out as two doubles, so this keeps Inf/NaN parts exact. */
static inline double complex eig_cmplx(double re, double im)
{
  double complex z;
  ((double *)&z)[0] = re;
  ((double *)&z)[1] = im;
  return z;
}
#ifndef CMPLX
#define CMPLX(x, y) eig_cmplx((x), (y))
#endif

/*
 * Record a detail message for the calling thread (pscr_eigen_last_error)
 * and return status unchanged, so that call sites read
 *     return EIG_ERROR(PSCR_ERROR_INVALID_VALUE, "order n is %d, must be >= 1", n);
 * The plan (src/plan.c) passes the message on to pscr_last_error with the
 * block's place after it, so the rules of the library's messages (error.h)
 * hold here: the cause first, no source location. PSCR_SUCCESS records
 * nothing.
 */
pscr_status pscr_eig_error(pscr_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
#define EIG_ERROR(status, ...) pscr_eig_error((status), __VA_ARGS__)

/* Clear the calling thread's detail message (start of every entry point). */
void pscr_eig_error_clear(void);

/* The configuration of a call: *out = *cfg, or the defaults where cfg is
 * NULL. PSCR_ERROR_INVALID_VALUE, with a message, for a field out of its
 * range. */
pscr_status pscr_eig_config(const pscr_eigen_config *cfg, pscr_eigen_config *out);

/* cfg->lanes, out of line: the driver (driver_impl.h) asks for it where it
 * used to read the environment, through a call as then. Read inline, GCC
 * numbered the driver's temporaries differently, its vectorizer then
 * fused the other product of some complex multiplications in Crawford's
 * reduction (VEC_FMADDSUB operands in another order), and complex
 * eigenvalues changed in their last bits. */
int pscr_eig_lanes(const pscr_eigen_config *cfg);
#endif

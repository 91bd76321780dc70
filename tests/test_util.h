/* Shared test helpers: deterministic random numbers, tolerant comparisons,
 * dense Kronecker reference operators and backward errors. */
#ifndef PSCR_TEST_UTIL_H
#define PSCR_TEST_UTIL_H

#include <check.h>
#include <complex.h>
#include <float.h>
#include <stddef.h>
#include <stdint.h>

#include "pscr.h"

/* 1 in a build under AddressSanitizer (CI's sanitizer stage,
   scripts/test-sanitizers.sh), else 0. There the accuracy sweeps' largest
   orders shrink (test_eigen, test_solve, test_levels; each says how): the
   Release stage runs them in full, and the sanitizers look for memory
   errors and undefined behaviour, which the same code paths show at the
   smaller orders. */
#if defined(__SANITIZE_ADDRESS__)
#define TU_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TU_SANITIZED 1
#endif
#endif
#ifndef TU_SANITIZED
#define TU_SANITIZED 0
#endif

/* Deterministic generator (splitmix64): same numbers on every machine. */
typedef struct tu_rng {
  uint64_t state;
} tu_rng;
void tu_rng_seed(tu_rng *rng, uint64_t seed);
double tu_uniform(tu_rng *rng); /* in [0, 1) */
double tu_symm(tu_rng *rng);    /* in [-1, 1) */

/* NaN-safe |a - b| <= rtol * max(|a|, |b|) + atol (SUNDIALS SUNRCompareTol). */
int tu_close(double a, double b, double rtol, double atol);

/* Bytes of one element of dtype. */
size_t tu_dtype_size(pscr_dtype dtype);

/* Infinity norm of a vector of n elements of dtype (NaN propagates). */
double tu_norm_inf(pscr_dtype dtype, size_t n, const void *x);

/* Maximum of |x_i - y_i| over n elements of dtype. */
double tu_diff_inf(pscr_dtype dtype, size_t n, const void *x, const void *y);

/* Total number of unknowns of the operator. */
size_t tu_size(int ndim, const pscr_pencil *pencils);

/* count floats widened to a new array of doubles (NULL for NULL, or when out
   of memory); caller frees. */
double *tu_widen(const void *x, size_t count);

/*
 * Normwise backward error ||A u - f||_inf / (||A||_inf ||u||_inf + ||f||_inf),
 * with A applied through pscr_operator_apply (independent of the solver).
 * R32/C32 data are widened to double first, so the residual of a
 * single-precision solve is evaluated in double. Returns NaN on failure.
 */
double tu_backward_error(pscr_dtype dtype, int ndim, const pscr_pencil *pencils,
                         const void *shift, const void *u, const void *f);

/*
 * Dense reference: form A (N x N, column-major, N = tu_size) straight from the
 * Kronecker definition (eq. 7/8) and solve A u = f with LAPACKE (LU with
 * partial pivoting). rcond (may be NULL) receives LAPACK's estimate of
 * 1 / kappa_1(A). Returns the LAPACKE info (0 on success), -1000 on
 * allocation failure.
 */
int tu_dense_solve(pscr_dtype dtype, int ndim, const pscr_pencil *pencils, const void *shift,
                   const void *f, void *u, double *rcond);

/*
 * Generalized eigenvalues of one pencil (A, M), ascending, into lambda (n
 * entries): dense LAPACKE_dsygv, independent of the solver's eigen module.
 * The pencil must be real: R64, or C64 with every imaginary part zero
 * (-1002 otherwise). Returns the LAPACKE info (0 on success), -1000 on
 * allocation failure.
 */
int tu_pencil_eigenvalues(pscr_dtype dtype, const pscr_pencil *p, double *lambda);

/* Options that pin the CPU backend (AUTO would pick CUDA where a device
   exists) and the reduction (PSCR_PLANNER_NONE: the default planner would
   transform the small dimensions these suites reduce); for suites that
   check the CPU reference. */
const pscr_options *tu_cpu_options(void);

/* Least-squares slope of log(err) against log(h) over count meshes,
   printed; asserts O(h^2): 1.85 <= slope <= 2.3. */
void tu_check_h2_rate(const double *logh, const double *logerr, int count);

/* Run a suite (CK_ENV honoured); returns the process exit code. */
int tu_run_suite(Suite *suite);

#endif

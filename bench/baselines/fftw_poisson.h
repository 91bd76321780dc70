/*
 * CPU fast Poisson baseline: FFTW's DST-I (RODFT00) along every dimension
 * but the last, a tridiagonal (Thomas) solve per mode along the last
 * dimension, DST-I back (baseline_common.h; one transform pair fewer than
 * transforming every dimension and dividing by the eigenvalues).
 * Solves exactly the operator of pscr_operator_apply for Toeplitz pencils,
 * e.g. pscr's uniform-mesh Poisson problem, in double precision.
 *
 * Without FFTW (BL_HAVE_FFTW 0, set by bench/baselines/CMakeLists.txt) these
 * are stubs returning PSCR_ERROR_NOT_SUPPORTED, so main.c carries no #if.
 */
#ifndef PSCR_BASELINE_FFTW_POISSON_H
#define PSCR_BASELINE_FFTW_POISSON_H

#include <stddef.h>
#include <stdio.h>

#include "pscr.h"

typedef struct bl_fftw bl_fftw;

#if BL_HAVE_FFTW

/*
 * @brief Plan a solver for the operator of (ndim, pencils, shift), R64.
 * @param[out] s        the solver, NULL on error.
 * @param[in]  nthreads FFT and Thomas threads; 0: OpenMP's default. With
 *                      no fftw3_omp library (BL_HAVE_FFTW_OMP 0) the FFTs
 *                      run on one thread whatever is asked.
 * @param[in]  measure  1: FFTW_MEASURE (planning times FFTs), 0: FFTW_ESTIMATE.
 * @param[out] msg      the reason on error.
 * @return PSCR_SUCCESS; PSCR_ERROR_NOT_SUPPORTED (a pencil is not Toeplitz);
 *   PSCR_ERROR_INVALID_VALUE; PSCR_ERROR_SINGULAR; PSCR_ERROR_HOST_ALLOC.
 */
pscr_status bl_fftw_create(bl_fftw **s, int ndim, const pscr_pencil *pencils, double shift,
                           int nthreads, int measure, char *msg, size_t len);

/*
 * @brief u = A^{-1} f. f and u hold n1*n2(*n3) doubles, last dimension
 *        fastest (pscr.h); u == f is allowed, other overlaps are not.
 * @return PSCR_SUCCESS; PSCR_ERROR_INVALID_VALUE for a NULL argument or a u
 *   whose SIMD alignment differs from fftw_malloc's (FFTW's new-array
 *   execute; malloc's 16 bytes are enough, so this does not happen on x86-64).
 */
pscr_status bl_fftw_solve(bl_fftw *s, const double *f, double *u);

/* @brief 1: this build has the FFTW solver. */
static inline int bl_fftw_available(void)
{
  return 1;
}

/* @brief Threads the FFTs run on (1 without fftw3_omp). */
int bl_fftw_threads(const bl_fftw *s);

/* @brief "FFTW 3.3.10, fftw3_omp" or "..., single-threaded (no fftw3_omp)". */
void bl_fftw_describe(char *buf, size_t len);

/* @brief Release a solver; NULL allowed. */
void bl_fftw_destroy(bl_fftw *s);

#else

static inline int bl_fftw_available(void)
{
  return 0;
}
static inline pscr_status bl_fftw_create(bl_fftw **s, int ndim, const pscr_pencil *pencils,
                                         double shift, int nthreads, int measure, char *msg,
                                         size_t len)
{
  (void)ndim, (void)pencils, (void)shift, (void)nthreads, (void)measure;
  *s = NULL;
  snprintf(msg, len, "built without FFTW (pkg-config found no fftw3)");
  return PSCR_ERROR_NOT_SUPPORTED;
}
static inline pscr_status bl_fftw_solve(bl_fftw *s, const double *f, double *u)
{
  (void)s, (void)f, (void)u;
  return PSCR_ERROR_NOT_SUPPORTED;
}
static inline int bl_fftw_threads(const bl_fftw *s)
{
  (void)s;
  return 0;
}
static inline void bl_fftw_describe(char *buf, size_t len)
{
  snprintf(buf, len, "not built (pkg-config found no fftw3; install libfftw3-dev)");
}
static inline void bl_fftw_destroy(bl_fftw *s)
{
  (void)s;
}

#endif

#endif

/*
 * GPU fast Poisson baseline on cuFFT: the same method as fftw_poisson.h
 * (baseline_common.h), a DST-I along every dimension but the last, one
 * tridiagonal (Thomas) solve per mode along the last dimension, and the
 * DST-I back. Every DST-I is computed the standard way, as a real FFT (D2Z)
 * of the odd extension of length 2(n+1), batched over all lines of a
 * dimension in a line-contiguous buffer, with transposing pack and unpack
 * kernels around it; the tridiagonal solves (one thread per line, coalesced)
 * read the spectrum of the dimension before the last in place and write the
 * odd extension of its backward transform. Double precision,
 * device arrays, one stream; plans, cuFFT workspace, the lines' LU factors
 * and every buffer are made at create, so a solve allocates nothing and does
 * not synchronize.
 *
 * Plain C interface (no CUDA types: streams are void *); the implementation
 * is cufft_poisson.cu. Without CUDA (PSCR_HAVE_CUDA 0) these are stubs
 * returning PSCR_ERROR_NOT_SUPPORTED, so main.c carries no #if.
 */
#ifndef PSCR_BASELINE_CUFFT_POISSON_H
#define PSCR_BASELINE_CUFFT_POISSON_H

#include <stddef.h>
#include <stdio.h>

#include "pscr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bl_cufft bl_cufft;

enum { BL_CUFFT_WARMUP = 2, BL_CUFFT_MIN_REPEAT = 10 };

#if PSCR_HAVE_CUDA

/*
 * @brief Build the solver on CUDA device @p device for the operator of
 *        (ndim, pencils, shift), R64 Toeplitz pencils: one cuFFT D2Z plan
 *        per dimension but the last, sharing one work area, the eigenvalue
 *        arrays on the device, the LU factors of every line's tridiagonal
 *        matrix along the last dimension (computed on the device: one
 *        reciprocal pivot per unknown), the odd-extension and spectrum
 *        buffers, a stream, and device f and u for bl_cufft_time.
 * @param[out] msg the failing call on error.
 * @return PSCR_SUCCESS; PSCR_ERROR_NOT_SUPPORTED (no device, a pencil not
 *   Toeplitz); PSCR_ERROR_INVALID_VALUE; PSCR_ERROR_SINGULAR;
 *   PSCR_ERROR_HOST_ALLOC; PSCR_ERROR_DEVICE_ALLOC; PSCR_ERROR_DEVICE.
 */
pscr_status bl_cufft_create(bl_cufft **s, int device, int ndim, const pscr_pencil *pencils,
                            double shift, char *msg, size_t len);

/*
 * @brief Enqueue u = A^{-1} f on @p stream (NULL: the solver's own stream).
 *        d_f and d_u are device arrays of n1*n2(*n3) doubles, last dimension
 *        fastest; d_u == d_f is allowed. No allocation, no synchronization.
 */
pscr_status bl_cufft_solve_device(bl_cufft *s, const double *d_f, double *d_u, void *stream,
                                  char *msg, size_t len);

/*
 * @brief Time the device-only solve: copy f to the device, BL_CUFFT_WARMUP
 *        untimed solves, then @p repeat (at least BL_CUFFT_MIN_REPEAT)
 *        solves each between two CUDA events on the solver's stream; copy
 *        the last u back to the host array @p u for checking.
 * @param[out] ms_median, ms_min  milliseconds per solve.
 */
pscr_status bl_cufft_time(bl_cufft *s, const double *f, double *u, int repeat,
                          double *ms_median, double *ms_min, char *msg, size_t len);

/* @brief Release the solver (synchronizes its stream); NULL allowed. */
void bl_cufft_destroy(bl_cufft *s);

#else

static inline pscr_status bl_cufft_create(bl_cufft **s, int device, int ndim,
                                          const pscr_pencil *pencils, double shift, char *msg,
                                          size_t len)
{
  (void)device, (void)ndim, (void)pencils, (void)shift;
  *s = NULL;
  snprintf(msg, len, "this pscr build has no CUDA (PSCR_HAVE_CUDA is 0)");
  return PSCR_ERROR_NOT_SUPPORTED;
}
static inline pscr_status bl_cufft_solve_device(bl_cufft *s, const double *d_f, double *d_u,
                                                void *stream, char *msg, size_t len)
{
  (void)s, (void)d_f, (void)d_u, (void)stream;
  snprintf(msg, len, "this pscr build has no CUDA (PSCR_HAVE_CUDA is 0)");
  return PSCR_ERROR_NOT_SUPPORTED;
}
static inline pscr_status bl_cufft_time(bl_cufft *s, const double *f, double *u, int repeat,
                                        double *ms_median, double *ms_min, char *msg,
                                        size_t len)
{
  (void)s, (void)f, (void)u, (void)repeat, (void)ms_median, (void)ms_min;
  snprintf(msg, len, "this pscr build has no CUDA (PSCR_HAVE_CUDA is 0)");
  return PSCR_ERROR_NOT_SUPPORTED;
}
static inline void bl_cufft_destroy(bl_cufft *s)
{
  (void)s;
}

#endif

#ifdef __cplusplus
}
#endif

#endif

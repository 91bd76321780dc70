/*
 * Device-only timing for pscr-bench --backend cuda (gpu_timing.c, plain C on
 * the CUDA runtime API). Without CUDA these are stubs that return
 * PSCR_ERROR_NOT_SUPPORTED, so pscr_bench.c carries no #if.
 */
#ifndef PSCR_BENCH_GPU_TIMING_H
#define PSCR_BENCH_GPU_TIMING_H

#include <stddef.h>
#include <stdio.h>

#include "pscr.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
  GPU_WARMUP = 2,      /* untimed pscr_solve_device calls before the timed ones */
  GPU_MIN_REPEAT = 10, /* fewest timed device solves */
  GPU_XFER_REPEAT = 5  /* timed H2D / D2H pairs */
};

typedef struct gpu_timing {
  double solve_ms_median, solve_ms_min; /* pscr_solve_device, CUDA events on one stream */
  double h2d_ms, d2h_ms;                /* f to the device, u back; pinned host memory, median */
  int bitwise;                          /* device u == host-API u, bit for bit */
  double rel_diff;                      /* max|u_dev - u_host| / max|u_host| */
  char msg[256];                        /* what failed, when a call returns an error */
} gpu_timing;

/*
 * One device solve of d_f into d_u, enqueued on @p stream without waiting;
 * ctx is the solver. Every GPU timing of the bench (pscr and each baseline)
 * runs through gpu_time_fn, so all are timed the same way.
 */
typedef pscr_status (*gpu_solve_fn)(void *ctx, const void *d_f, void *d_u, void *stream,
                                    char *msg, size_t len);

/* Bytes of nval values of dtype (real or complex, float or double). */
static inline size_t gpu_dtype_bytes(pscr_dtype dtype, size_t nval)
{
  const size_t words = dtype == PSCR_C32 || dtype == PSCR_C64 ? 2 : 1;
  const size_t es = dtype == PSCR_R32 || dtype == PSCR_C32 ? sizeof(float) : sizeof(double);
  return nval * words * es;
}

#if PSCR_HAVE_CUDA

/*
 * Describe CUDA device @p device into buf (name, compute capability, SMs,
 * memory, runtime and driver versions) and create its context, so that the
 * first plan's time does not include it. Returns PSCR_ERROR_NOT_SUPPORTED
 * with the reason in buf when there is no such device.
 */
pscr_status gpu_describe(int device, char *buf, size_t len);

/*
 * Copy @p bytes of host f to d_f, @p warmup untimed solves, then @p repeat
 * solves back to back on @p stream, each between two CUDA events; median
 * (the upper one for even counts) and minimum milliseconds. When u is not
 * NULL, d_u is copied back to it afterwards. On error msg says which call
 * failed; events are released on every path.
 */
pscr_status gpu_time_fn(gpu_solve_fn solve, void *ctx, void *stream, void *d_f, void *d_u,
                        const void *f, void *u, size_t bytes, int warmup, int repeat,
                        double *median, double *min, char *msg, size_t len);

/*
 * Time pscr_solve_device on a CUDA plan of @p dtype (the plan's): allocate
 * device f and u, copy f (nval values of dtype) once, GPU_WARMUP untimed solves, then
 * @p repeat solves each bracketed by events on one stream (median, min);
 * GPU_XFER_REPEAT pinned H2D copies of f and D2H copies of u (median); and
 * compare the device u with @p u_ref, the host API's solution. On error t->msg
 * says which call failed; device memory is released on every path.
 */
pscr_status gpu_time_solve(pscr_plan *plan, int device, pscr_dtype dtype, size_t nval,
                           const void *f, const void *u_ref, int repeat, gpu_timing *t);

/*
 * Profile pscr_solve_device per stage kind (pscr_solve_device_profile):
 * copy f (nval values of the plan's dtype) to the device, one untimed profiled solve, then
 * @p repeat profiled solves; ms[k] is the median over them of stage k's
 * milliseconds and *sum_ms the median of their sums. On error msg says
 * which call failed.
 */
pscr_status gpu_profile_solve(pscr_plan *plan, int device, pscr_dtype dtype, size_t nval,
                              const void *f, int repeat, double *ms, double *sum_ms,
                              char *msg, size_t len);

#else

static inline pscr_status gpu_time_fn(gpu_solve_fn solve, void *ctx, void *stream, void *d_f,
                                      void *d_u, const void *f, void *u, size_t bytes,
                                      int warmup, int repeat, double *median, double *min,
                                      char *msg, size_t len)
{
  (void)solve, (void)ctx, (void)stream, (void)d_f, (void)d_u, (void)f, (void)u, (void)bytes,
      (void)warmup, (void)repeat, (void)median, (void)min;
  snprintf(msg, len, "this pscr build has no CUDA backend");
  return PSCR_ERROR_NOT_SUPPORTED;
}

static inline pscr_status gpu_profile_solve(pscr_plan *plan, int device, pscr_dtype dtype,
                                            size_t nval, const void *f, int repeat, double *ms,
                                            double *sum_ms, char *msg, size_t len)
{
  (void)plan, (void)device, (void)dtype, (void)nval, (void)f, (void)repeat, (void)ms,
      (void)sum_ms;
  snprintf(msg, len, "this pscr build has no CUDA backend");
  return PSCR_ERROR_NOT_SUPPORTED;
}

static inline pscr_status gpu_describe(int device, char *buf, size_t len)
{
  (void)device;
  snprintf(buf, len, "this pscr build has no CUDA backend (PSCR_HAVE_CUDA is 0; configure "
                     "with -DPSCR_ENABLE_CUDA=ON)");
  return PSCR_ERROR_NOT_SUPPORTED;
}

static inline pscr_status gpu_time_solve(pscr_plan *plan, int device, pscr_dtype dtype,
                                         size_t nval, const void *f, const void *u_ref,
                                         int repeat, gpu_timing *t)
{
  (void)plan, (void)device, (void)dtype, (void)nval, (void)f, (void)u_ref, (void)repeat;
  snprintf(t->msg, sizeof t->msg, "this pscr build has no CUDA backend");
  return PSCR_ERROR_NOT_SUPPORTED;
}

#endif

#ifdef __cplusplus
}
#endif

#endif

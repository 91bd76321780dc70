/*
 * MEASURE's timing on the device (backend.h, time_solves): device arrays
 * and CUDA events around a backend's device solve. Plain C interface for
 * cuda_glue.c; the implementation is cuda_time.cu.
 */
#ifndef PSCR_CUDA_TIME_H
#define PSCR_CUDA_TIME_H

#include <stddef.h>

#include "pscr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef pscr_status (*pscr_cuda_solve_fn)(void *plan, const void *f, void *u, void *stream);

/* On device (made current; the caller restores its own): f and u of
   `words` floats (single) or doubles each, f filled on the device with the
   probe values (probe.h: those pscr_plan_probe_values writes on the host,
   without a host array or a copy); up to max solves solve(plan, f, u,
   stream) on a stream of its own, each timed by CUDA events into seconds[]
   (*done of them), asking more() after each. */
pscr_status pscr_cuda_time_solves(int device, size_t words, int single, pscr_cuda_solve_fn solve,
                                  void *plan, int max, double *seconds, int *done,
                                  int (*more)(void *ctx, const double *seconds, int done),
                                  void *ctx);

#ifdef __cplusplus
}
#endif

#endif

/*
 * cuSPARSE on exactly pscr's level-3 work: every batched launch of one pscr
 * solve (level3_batches.h) solved by a general batched tridiagonal solver,
 * to set pscr's level-3 solver beside the library one. Two variants:
 *
 *   BL_GTSV2_STRIDED      cusparse{D,Z}gtsv2StridedBatch: systems one after
 *                         another, x[sys n + i] (CR/PCR inside cuSPARSE);
 *   BL_GTSV_INTERLEAVED   cusparse{D,Z}gtsvInterleavedBatch, algo 0 (Thomas):
 *                         systems interleaved, x[i nsys + sys].
 *
 * For each launch, untimed: a kernel materializes the three diagonals of
 * every system from the last dimension's pencil and the launch's shifts,
 * diag = ad + s md, off = ao + s mo (sub-diagonal dl[0] = 0, super-diagonal
 * du[n-1] = 0), and a reproducible pseudo-random right-hand side in [-1, 1)
 * (a hash of launch, system and row; complex: both parts). Then one warm-up
 * and `repeat` timed solves, each between two CUDA events on one stream
 * (the diagonals and right-hand side rebuilt before every solve, outside the
 * events: gtsvInterleavedBatch may overwrite its inputs); per launch the
 * median. The sum of the medians over the launches is the time of one
 * solve's level-3 work on cuSPARSE. Note that the data of a launch that
 * fits in L2 (50 MB on an H100) is warm there when the timed call starts,
 * as it would be after pscr's own right-hand-side formation.
 *
 * Every launch's answer is checked on the device against systems rebuilt
 * from the pencil (not the possibly overwritten arrays): per system the
 * normwise backward error ||T y - r||_inf / (||T||_inf ||y||_inf + ||r||_inf);
 * the maximum over all systems of all launches is reported, and a value
 * above BL_GTSV_BERR_TOL or not finite fails the call.
 *
 * Plain C interface; the implementation is cusparse_level3.cu. Without CUDA
 * (PSCR_HAVE_CUDA 0) these are stubs returning PSCR_ERROR_NOT_SUPPORTED.
 */
#ifndef PSCR_BASELINE_CUSPARSE_LEVEL3_H
#define PSCR_BASELINE_CUSPARSE_LEVEL3_H

#include <stddef.h>
#include <stdio.h>

#include "level3_batches.h"
#include "pscr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which cuSPARSE routine. */
typedef enum bl_gtsv_variant {
  BL_GTSV2_STRIDED = 0,   /* cusparse{D,Z}gtsv2StridedBatch */
  BL_GTSV_INTERLEAVED = 1 /* cusparse{D,Z}gtsvInterleavedBatch, algo 0 */
} bl_gtsv_variant;

enum { BL_GTSV_WARMUP = 1, BL_GTSV_MIN_REPEAT = 3 };

/* A backward error above this (or NaN) fails bl_gtsv_level3_time. */
#define BL_GTSV_BERR_TOL 1e-12

/* What bl_gtsv_level3_time measured. */
typedef struct bl_gtsv_result {
  double ms_total;     /* sum over launches of the median solve time: one solve's level 3 */
  double ms_min_total; /* sum over launches of the fastest solve time */
  int nlaunch;         /* launches timed (list->nlaunch) */
  size_t total_sys;    /* systems over all launches */
  size_t total_rows;   /* tridiagonal rows over all launches */
  double rows_per_s;   /* total_rows / (ms_total / 1000) */
  double max_berr;     /* largest backward error of any system (NaN if one was NaN) */
  int worst_launch;    /* index of the launch with max_berr */
  size_t device_bytes; /* device memory the call allocated (arrays + cuSPARSE buffer) */
} bl_gtsv_result;

#if PSCR_HAVE_CUDA

/*
 * @brief Time every launch of @p list with cuSPARSE variant @p variant on
 *        CUDA device @p device, and check the answers.
 * @param[in]  list     from bl_l3_list_build (real or complex).
 * @param[in]  variant  BL_GTSV2_STRIDED or BL_GTSV_INTERLEAVED.
 * @param[in]  device   CUDA device ordinal.
 * @param[in]  repeat   timed solves per launch (raised to BL_GTSV_MIN_REPEAT),
 *                      after BL_GTSV_WARMUP untimed ones.
 * @param[out] launch_ms  NULL, or list->nlaunch entries: each launch's median ms.
 * @param[out] res      the totals (zeroed first; filled as far as it got on error).
 * @param[out] msg, len the failing call or the failing check on error.
 * @return PSCR_SUCCESS; PSCR_ERROR_INVALID_VALUE (NULL, an empty list, an
 *   unknown variant); PSCR_ERROR_NOT_SUPPORTED (no such device; a launch of
 *   more than INT_MAX rows, cuSPARSE's int sizes); PSCR_ERROR_HOST_ALLOC;
 *   PSCR_ERROR_DEVICE_ALLOC (cudaMalloc or cuSPARSE out of memory);
 *   PSCR_ERROR_DEVICE (any other CUDA or cuSPARSE error); PSCR_ERROR_SINGULAR
 *   (a backward error above BL_GTSV_BERR_TOL or not finite: the message
 *   names the launch). Every device allocation, event, stream and handle is
 *   released on every path.
 */
pscr_status bl_gtsv_level3_time(const bl_l3_list *list, bl_gtsv_variant variant, int device,
                                int repeat, double *launch_ms, bl_gtsv_result *res, char *msg,
                                size_t len);

#else

static inline pscr_status bl_gtsv_level3_time(const bl_l3_list *list, bl_gtsv_variant variant,
                                              int device, int repeat, double *launch_ms,
                                              bl_gtsv_result *res, char *msg, size_t len)
{
  (void)list, (void)variant, (void)device, (void)repeat, (void)launch_ms, (void)res;
  snprintf(msg, len, "this pscr build has no CUDA (PSCR_HAVE_CUDA is 0)");
  return PSCR_ERROR_NOT_SUPPORTED;
}

#endif

#ifdef __cplusplus
}
#endif

#endif

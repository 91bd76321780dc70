/*
 * Device ceilings for the roofline (pscr-roofline), measured in the same
 * process as the solves they bound: copy bandwidth (bytes read + written by
 * a streaming copy kernel and by cudaMemcpy device to device) and the FMA
 * rates in double and single precision (independent FMA chains, no memory
 * traffic). Each is the median of GPU_CEIL_REPEAT runs timed with CUDA
 * events after a warm-up. The datasheet values of known devices are printed
 * beside them. Without CUDA these are stubs returning
 * PSCR_ERROR_NOT_SUPPORTED.
 */
#ifndef PSCR_BENCH_CEILINGS_H
#define PSCR_BENCH_CEILINGS_H

#include <stddef.h>
#include <stdio.h>

#include "pscr.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { GPU_CEIL_REPEAT = 10 };

typedef struct gpu_ceilings {
  double copy_gbs;     /* copy kernel, GB/s (1e9 bytes read + written per second) */
  double memcpy_gbs;   /* cudaMemcpyAsync device to device, same measure */
  double fp64_gflops;  /* FMA = 2 flops */
  double fp32_gflops;
  size_t copy_bytes;   /* bytes of each of the two copy buffers */
  /* Datasheet values (0 when the device is not in the table): peak DRAM
     bandwidth, FP64 and FP32 (non-tensor) peaks. */
  double sheet_gbs, sheet_fp64, sheet_fp32;
  char sheet_name[64]; /* which datasheet entry, "" when none */
} gpu_ceilings;

#if PSCR_HAVE_CUDA

/*
 * @brief Measure the ceilings of CUDA device @p device (two buffers of
 *        @p copy_bytes each, at least 256 MiB so the copy streams from DRAM).
 * @param[out] msg the failing CUDA call on error.
 * @return PSCR_SUCCESS, PSCR_ERROR_DEVICE_ALLOC, PSCR_ERROR_DEVICE.
 */
pscr_status gpu_measure_ceilings(int device, size_t copy_bytes, gpu_ceilings *c, char *msg,
                                 size_t len);

#else

static inline pscr_status gpu_measure_ceilings(int device, size_t copy_bytes, gpu_ceilings *c,
                                               char *msg, size_t len)
{
  (void)device, (void)copy_bytes, (void)c;
  snprintf(msg, len, "this pscr build has no CUDA backend");
  return PSCR_ERROR_NOT_SUPPORTED;
}

#endif

#ifdef __cplusplus
}
#endif

#endif

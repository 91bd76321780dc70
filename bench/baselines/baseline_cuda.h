/*
 * What the CUDA baselines (cufft_poisson.cu, cusparse_level3.cu,
 * dense_md.cu) share: their block size, and the check of a CUDA runtime call
 * that turns a failure into a pscr status and a message and jumps to the
 * cleanup. The expanding function has `char *msg` and `size_t len`.
 */
#ifndef PSCR_BASELINE_CUDA_H
#define PSCR_BASELINE_CUDA_H

#include <stdio.h>

#include <cuda_runtime.h>

#include "pscr.h"

#define BL_THREADS 256

/* A CUDA runtime call failed: status, call and CUDA's text to msg. */
#define BL_CUDA_GOTO(st, label, call)                                                        \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess) {                                                                 \
      (void)cudaGetLastError();                                                              \
      (st) = e_ == cudaErrorMemoryAllocation ? PSCR_ERROR_DEVICE_ALLOC : PSCR_ERROR_DEVICE;  \
      snprintf(msg, len, "%s: %s", #call, cudaGetErrorString(e_));                           \
      goto label;                                                                            \
    }                                                                                        \
  } while (0)

#endif

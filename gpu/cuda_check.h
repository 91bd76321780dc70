// CUDA error checks for the backend: the status variable and the
// cleanup label are explicit at every call site; no macro hides a return.
#ifndef PSCR_CUDA_CHECK_H
#define PSCR_CUDA_CHECK_H

#include <cuda_runtime.h>

extern "C" {
#include "error.h"
}

// Any CUDA error -> PSCR_ERROR_DEVICE with the failing call in the message.
#define PSCR_CUDA_GOTO(st, label, call)                                                \
  do {                                                                                 \
    cudaError_t e_ = (call);                                                           \
    if (e_ != cudaSuccess) {                                                           \
      (st) = pscr_error_set(PSCR_ERROR_DEVICE, __FILE__, __LINE__, "%s: %s", #call,     \
                            cudaGetErrorString(e_));                                   \
      goto label;                                                                      \
    }                                                                                  \
  } while (0)

// Allocation: out of memory -> PSCR_ERROR_DEVICE_ALLOC, anything else -> DEVICE.
#define PSCR_CUDA_ALLOC_GOTO(st, label, call, what_bytes)                              \
  do {                                                                                 \
    cudaError_t e_ = (call);                                                           \
    if (e_ != cudaSuccess) {                                                           \
      cudaGetLastError(); /* clear it: an OOM is not sticky */                         \
      (st) = pscr_error_set(e_ == cudaErrorMemoryAllocation ? PSCR_ERROR_DEVICE_ALLOC   \
                                                            : PSCR_ERROR_DEVICE,       \
                            __FILE__, __LINE__, "cudaMalloc of %zu bytes: %s",         \
                            (size_t)(what_bytes), cudaGetErrorString(e_));             \
      goto label;                                                                      \
    }                                                                                  \
  } while (0)

// After a launch: the launch error, and in debug builds (PSCR_DEBUG_CUDA) a
// stream synchronize so an asynchronous fault names the kernel that caused it.
static inline cudaError_t pscr_cuda_launch_check(cudaStream_t stream)
{
  cudaError_t e = cudaGetLastError();
#ifdef PSCR_DEBUG_CUDA
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(stream);
#else
  (void)stream;
#endif
  return e;
}

#endif

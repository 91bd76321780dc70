// CUDA error checks for the backend: the status variable and the
// cleanup label are explicit at every call site; no macro hides a return.
#ifndef PSCR_CUDA_CHECK_H
#define PSCR_CUDA_CHECK_H

#include <cuda_runtime.h>

#include <string.h>

extern "C" {
#include "error.h"
}

// The message of a failed CUDA call: the runtime's text (the cause) first,
// then the CUDA runtime function that failed ("out of memory (cudaMallocHost
// of 65536 bytes)"). Where the check is on a variable holding an earlier
// call's result, or on one of the backend's own helpers, that expression
// would mean nothing to a user: only a call that starts with "cuda" is named
// (device allocations through the helper then say "cudaMalloc").
static inline int pscr_cuda_call_len(const char *call)
{
  return strncmp(call, "cuda", 4) == 0 ? (int)strcspn(call, "(") : 0;
}

static inline pscr_status pscr_cuda_error(cudaError_t e, const char *call)
{
  const int len = pscr_cuda_call_len(call);
  if (len > 0)
    return pscr_error_set(PSCR_ERROR_DEVICE, "%s (%.*s)", cudaGetErrorString(e), len, call);
  return pscr_error_set(PSCR_ERROR_DEVICE, "%s", cudaGetErrorString(e));
}

static inline pscr_status pscr_cuda_alloc_error(cudaError_t e, const char *call, size_t bytes)
{
  const pscr_status st =
      e == cudaErrorMemoryAllocation ? PSCR_ERROR_DEVICE_ALLOC : PSCR_ERROR_DEVICE;
  const int len = pscr_cuda_call_len(call);
  if (len > 0)
    return pscr_error_set(st, "%s (%.*s of %zu bytes)", cudaGetErrorString(e), len, call, bytes);
  return pscr_error_set(st, "%s (cudaMalloc of %zu bytes)", cudaGetErrorString(e), bytes);
}

// Any CUDA error -> PSCR_ERROR_DEVICE with the runtime's text.
#define PSCR_CUDA_GOTO(st, label, call)                                                \
  do {                                                                                 \
    cudaError_t e_ = (call);                                                           \
    if (e_ != cudaSuccess) {                                                           \
      (st) = pscr_cuda_error(e_, #call);                                               \
      goto label;                                                                      \
    }                                                                                  \
  } while (0)

// Allocation: out of memory -> PSCR_ERROR_DEVICE_ALLOC, anything else -> DEVICE.
#define PSCR_CUDA_ALLOC_GOTO(st, label, call, what_bytes)                              \
  do {                                                                                 \
    cudaError_t e_ = (call);                                                           \
    if (e_ != cudaSuccess) {                                                           \
      cudaGetLastError(); /* clear it: an OOM is not sticky */                         \
      (st) = pscr_cuda_alloc_error(e_, #call, (size_t)(what_bytes));                   \
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

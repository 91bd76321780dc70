/*
 * What the CUDA examples (pscr-pcg-gpu, pscr-pcg3d-gpu, pscr-gmres-gpu)
 * share: checks of CUDA, cuBLAS and pscr calls that report the cause and
 * the failing call and return 1 from the enclosing function, the grid of a
 * grid-stride kernel, and the choice of the device.
 */
#ifndef PSCR_EXAMPLES_CUDA_EXAMPLE_CUH
#define PSCR_EXAMPLES_CUDA_EXAMPLE_CUH

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>

#include "cli_common.h"
#include "pscr.h"

#define THREADS 256

/*
 * A CUDA, cuBLAS or pscr call failed: report the cause, then the call, and
 * return 1 from the enclosing function.
 */
#define CU_CK(call)                                                                          \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess) {                                                                 \
      fprintf(stderr, "CUDA error: %s (%s, from %s)\n", cudaGetErrorString(e_),              \
              cudaGetErrorName(e_), #call);                                                  \
      return 1;                                                                              \
    }                                                                                        \
  } while (0)

#define BLAS_CK(call)                                                                        \
  do {                                                                                       \
    cublasStatus_t b_ = (call);                                                              \
    if (b_ != CUBLAS_STATUS_SUCCESS) {                                                       \
      fprintf(stderr, "cuBLAS error: %s (from %s)\n", cublasGetStatusString(b_), #call);     \
      return 1;                                                                              \
    }                                                                                        \
  } while (0)

#define PSCR_CK(call)                                                                        \
  do {                                                                                       \
    pscr_status s_ = (call);                                                                 \
    if (s_ != PSCR_SUCCESS) {                                                                \
      cli_report(#call, s_);                                                                 \
      return 1;                                                                              \
    }                                                                                        \
  } while (0)

/* A kernel launch: the launch error (configuration, no device code) at once. */
#define LAUNCH_CK() CU_CK(cudaGetLastError())

static inline unsigned blocks_for(size_t n)
{
  size_t b = (n + THREADS - 1) / THREADS;
  const size_t cap = (size_t)65535 * 64; /* the loops are grid-stride */
  return (unsigned)(b < 1 ? 1 : b > cap ? cap : b);
}

/*
 * Device `device` and its properties. Returns 0; where there is no CUDA
 * device (cudaGetDeviceCount fails or finds none) or no such device, a
 * one-line message and 77 in --test mode (the ctest's SKIP_RETURN_CODE:
 * skipped) or 1 otherwise; 1 on another error.
 */
static inline int example_device(const char *prog, int device, int test, cudaDeviceProp *prop)
{
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    fprintf(stderr, "%s: no CUDA device (cudaGetDeviceCount: %s)%s\n", prog,
            e != cudaSuccess ? cudaGetErrorString(e) : "0 devices", test ? "; skipped" : "");
    return test ? 77 : 1;
  }
  if (device >= count) {
    fprintf(stderr, "%s: no CUDA device %d (cudaGetDeviceCount: %d device%s)%s\n", prog, device,
            count, count == 1 ? "" : "s", test ? "; skipped" : "");
    return test ? 77 : 1;
  }
  e = cudaGetDeviceProperties(prop, device);
  if (e != cudaSuccess) {
    fprintf(stderr, "%s: %s (from cudaGetDeviceProperties)\n", prog, cudaGetErrorString(e));
    return 1;
  }
  return 0;
}

#endif

/*
 * What the CUDA examples (pscr-pcg-gpu, pscr-gmres-gpu) share: checks of
 * CUDA, cuBLAS and pscr calls that report the failing call and return 1
 * from the enclosing function, the grid of a grid-stride kernel, and the
 * choice of the device.
 */
#ifndef PSCR_EXAMPLES_CUDA_EXAMPLE_CUH
#define PSCR_EXAMPLES_CUDA_EXAMPLE_CUH

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>

#include "pscr.h"

#define THREADS 256

/* A CUDA call failed: report it, return 1 from the enclosing function. */
#define CU_CK(call)                                                                          \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess) {                                                                 \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      return 1;                                                                              \
    }                                                                                        \
  } while (0)

#define BLAS_CK(call)                                                                        \
  do {                                                                                       \
    cublasStatus_t b_ = (call);                                                              \
    if (b_ != CUBLAS_STATUS_SUCCESS) {                                                       \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                          \
              cublasGetStatusString(b_));                                                    \
      return 1;                                                                              \
    }                                                                                        \
  } while (0)

#define PSCR_CK(call)                                                                        \
  do {                                                                                       \
    pscr_status s_ = (call);                                                                 \
    if (s_ != PSCR_SUCCESS) {                                                                \
      fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call,                     \
              pscr_status_string(s_), pscr_last_error());                                    \
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

/* Device `device` and its properties. Returns 0; 77 where there is no such
 * device (the example skips: its ctest SKIP_RETURN_CODE); 1 on an error. */
static inline int example_device(const char *prog, int device, cudaDeviceProp *prop)
{
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count <= device) {
    printf("%s: no CUDA device %d (%s); skipped\n", prog, device,
           e != cudaSuccess ? cudaGetErrorString(e) : "not enough devices");
    return 77;
  }
  if (cudaGetDeviceProperties(prop, device) != cudaSuccess) {
    fprintf(stderr, "%s: cudaGetDeviceProperties failed\n", prog);
    return 1;
  }
  return 0;
}

#endif

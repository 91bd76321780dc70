// CUDA backend entry points. The level kernels arrive with the CUDA backend
// issue; until then pscr_cuda_backend() reports the backend as unavailable
// and plans asking for it get PSCR_ERROR_NOT_SUPPORTED.
#include <cuda_runtime.h>

extern "C" {
#include "backend.h"
}

extern "C" int pscr_cuda_device_count(void)
{
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError(); // clear the sticky "no device" error
    return 0;
  }
  return count;
}

extern "C" const pscr_backend_ops *pscr_cuda_backend(void) { return nullptr; }

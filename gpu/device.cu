// CUDA device discovery. The backend's ops table (pscr_cuda_backend) lives in
// cuda_glue.c, the work in cuda_setup.cu, cuda_solve.cu and cuda_host.cu.
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

// CUDA device discovery, and the caller's current device around every
// backend call that sets the plan's (cuda_glue.c). The backend's ops table
// lives in cuda_glue.c, the work in cuda_setup.cu, cuda_solve.cu and
// cuda_host.cu.
#include <cuda_runtime.h>

extern "C" {
#include "backend.h"
#include "cuda_view.h"
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

extern "C" int pscr_cuda_current_device(void)
{
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess)
    return -1;
  return device;
}

// Only where the call changed it: cudaSetDevice to the current device is
// cheap, but a solve on the device hot path need not pay even that.
extern "C" void pscr_cuda_restore_device(int device)
{
  int now = -1;
  if (device < 0 || (cudaGetDevice(&now) == cudaSuccess && now == device))
    return;
  cudaSetDevice(device);
}

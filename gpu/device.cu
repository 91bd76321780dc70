// CUDA device discovery, and the caller's current device around every
// backend call that sets the plan's (cuda_glue.c). The backend's ops table
// lives in cuda_glue.c, the work in cuda_setup.cu, cuda_solve.cu and
// cuda_host.cu.
#include <cuda_runtime.h>

extern "C" {
#include "backend.h"
#include "cuda_view.h"
#include "error.h"
}

// Without a usable device the runtime fails here (no driver, a driver older
// than the runtime, no device): its text goes to the caller, which leads
// with "no CUDA device" and adds the text for whoever must fix the setup.
extern "C" int pscr_cuda_device_count(const char **error)
{
  int count = 0;
  if (error)
    *error = nullptr;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError(); // clear the sticky "no device" error
    if (error)
      *error = cudaGetErrorString(e);
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

// The backend's copy op (backend.h): either side host or device, the
// runtime telling which (unified addressing), on the caller's stream and
// finished on return, on the plan's device.
extern "C" pscr_status pscr_cuda_copy_sync(int device, void *dst, const void *src, size_t bytes,
                                           void *stream)
{
  int saved = -1;
  cudaGetDevice(&saved);
  cudaError_t e = cudaSetDevice(device);
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(s);
  pscr_cuda_restore_device(saved);
  if (e != cudaSuccess)
    return pscr_error_set(PSCR_ERROR_DEVICE, "copying %zu bytes failed: %s", bytes,
                          cudaGetErrorString(e));
  return PSCR_SUCCESS;
}

// MEASURE's timing on the device (cuda_time.h). The solves run on device
// arrays, as a caller of pscr_solve_device has them: a host solve's copies
// cost the same for every candidate and would hide the difference.
#include <cuda_runtime.h>

#include "cuda_args.cuh"
#include "cuda_check.h"
#include "cuda_time.h"
#include "probe.h"

// The probe values on the device: at 3D 255^3 the host fill and its copy
// (133 MB) took about 0.1 s per candidate, against about 1 ms per solve.
namespace pscr_cuda {
template <typename T>
__global__ void probe_fill(T *f, size_t words)
{
  for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < words;
       t += (size_t)gridDim.x * blockDim.x)
    f[t] = (T)pscr_probe_value(t);
}
} // namespace pscr_cuda

extern "C" pscr_status pscr_cuda_time_solves(int device, size_t words, int single,
                                             pscr_cuda_solve_fn solve, void *plan, int max,
                                             double *seconds, int *done,
                                             int (*more)(void *ctx, const double *seconds,
                                                         int done),
                                             void *ctx)
{
  pscr_status st = PSCR_SUCCESS;
  void *f = nullptr, *u = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t ev[2] = {nullptr, nullptr};
  const size_t bytes = words * (single ? sizeof(float) : sizeof(double));
  *done = 0;
  PSCR_CUDA_GOTO(st, out, cudaSetDevice(device));
  PSCR_CUDA_ALLOC_GOTO(st, out, cudaMalloc(&f, bytes), bytes);
  PSCR_CUDA_ALLOC_GOTO(st, out, cudaMalloc(&u, bytes), bytes);
  PSCR_CUDA_GOTO(st, out, cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  PSCR_CUDA_GOTO(st, out, cudaEventCreate(&ev[0]));
  PSCR_CUDA_GOTO(st, out, cudaEventCreate(&ev[1]));
  if (single)
    pscr_cuda::probe_fill<<<pscr_cuda::grid_of(words), pscr_cuda::THREADS, 0, stream>>>(
        static_cast<float *>(f), words);
  else
    pscr_cuda::probe_fill<<<pscr_cuda::grid_of(words), pscr_cuda::THREADS, 0, stream>>>(
        static_cast<double *>(f), words);
  PSCR_CUDA_GOTO(st, out, cudaGetLastError());
  while (*done < max) {
    PSCR_CUDA_GOTO(st, out, cudaEventRecord(ev[0], stream));
    st = solve(plan, f, u, stream);
    // A probe that meets a singular pivot still times the solve.
    if (st && st != PSCR_ERROR_SINGULAR)
      goto out;
    st = PSCR_SUCCESS;
    PSCR_CUDA_GOTO(st, out, cudaEventRecord(ev[1], stream));
    PSCR_CUDA_GOTO(st, out, cudaEventSynchronize(ev[1]));
    float ms = 0;
    PSCR_CUDA_GOTO(st, out, cudaEventElapsedTime(&ms, ev[0], ev[1]));
    seconds[(*done)++] = 1e-3 * ms;
    if (!more(ctx, seconds, *done))
      break;
  }
out:
  if (stream)
    cudaStreamSynchronize(stream);
  for (int k = 0; k < 2; k++)
    if (ev[k])
      cudaEventDestroy(ev[k]);
  if (stream)
    cudaStreamDestroy(stream);
  cudaFree(f);
  cudaFree(u);
  return st;
}

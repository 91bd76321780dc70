// Kernel launches of a solve with programmatic dependent launch (PDL,
// compute capability 9.0 and later). A solve is a chain of 30-40 dependent
// kernels on one stream (6 levels each way at 4095^2), most of them a few
// tens of microseconds long. Without PDL every boundary costs the next
// grid's launch and its ramp-up after the previous grid's tail. With PDL the
// next grid's blocks are scheduled into the SMs that the previous grid's
// last wave leaves idle, and wait there (pdl_gate) until that grid has
// finished and its writes are visible. The order of the stream's effects is
// unchanged: every kernel still reads only what finished before it.
#ifndef PSCR_CUDA_LAUNCH_CUH
#define PSCR_CUDA_LAUNCH_CUH

#include <cuda_runtime.h>

#include <utility>

#include "cuda_check.h"

namespace pscr_cuda {

// The first thing every solve kernel does, before it reads or writes any
// vector: wait until the previous grid of the stream has completed and its
// memory operations are visible (a no-op when this grid was launched
// without PDL or has no such predecessor), then allow the next grid's launch.
// Because every block waits before it allows anything, a grid completes
// only after its predecessor did, so the chain is ordered transitively. The
// next grid's blocks start only once every block of this one has passed
// here, so they never take an SM that this grid still needs.
// Kernels may do work that reads only setup-time data (the level-3 factors)
// before it.
__device__ __forceinline__ void pdl_gate()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// kernel<<<grid, block, smem, stream>>>(args...), allowed to start early
// (PDL) when `pdl`; then the launch check (cuda_check.h).
template <class... P, class... A>
cudaError_t launch(bool pdl, void (*kernel)(P...), dim3 grid, dim3 block, size_t smem,
                   cudaStream_t stream, A &&...args)
{
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cfg.attrs = attr;
  cfg.numAttrs = pdl ? 1 : 0;
  const cudaError_t e = cudaLaunchKernelEx(&cfg, kernel, std::forward<A>(args)...);
  if (e != cudaSuccess) {
    cudaGetLastError(); // the launch error is returned; do not leave it pending
    return e;
  }
  return pscr_cuda_launch_check(stream);
}

} // namespace pscr_cuda

#endif

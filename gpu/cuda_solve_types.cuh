// CUDA backend, solve side: the per-type entry points of the level driver,
// one translation unit each (cuda_solve_{d,z,s,c}.cu, made by
// PSCR_CUDA_SOLVE_TYPE in cuda_solve_impl.cuh); cuda_solve.cu dispatches on
// the plan's type. Suffixes: d double, z complex double, s float, c complex
// float.
#ifndef PSCR_CUDA_SOLVE_TYPES_CUH
#define PSCR_CUDA_SOLVE_TYPES_CUH

#include <cuda_runtime.h>

#include "cuda_state.cuh"

namespace pscr_cuda {

#define PSCR_CUDA_SOLVE_DECLARE(SUF)                                                          \
  cudaError_t part_attrs_##SUF(int cap);                                                      \
  cudaError_t part_resident_##SUF(State *s);                                                  \
  cudaError_t part_sum_plan_##SUF(State *s, bool always);                                     \
  cudaError_t solve_typed_##SUF(State *s, int nb, const void *f, size_t ldf, void *u,          \
                                size_t ldu, cudaStream_t cs);
PSCR_CUDA_SOLVE_DECLARE(d)
PSCR_CUDA_SOLVE_DECLARE(z)
PSCR_CUDA_SOLVE_DECLARE(s)
PSCR_CUDA_SOLVE_DECLARE(c)
#undef PSCR_CUDA_SOLVE_DECLARE

} // namespace pscr_cuda

#endif

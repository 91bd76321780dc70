// CUDA backend, solve side: the level driver's templates for complex double
// (cuda_solve_impl.cuh; cuda_solve.cu dispatches to them).
#include "cuda_solve_impl.cuh"

PSCR_CUDA_SOLVE_TYPE(z, zc, double)

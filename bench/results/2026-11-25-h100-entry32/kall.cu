#include "levels_kernels.cuh"
namespace pscr_cuda {
#define INST(T) \
template __global__ void k_couple_fwd<T, false>(LevelArgs<T>, Facs<T>, int, const T *, const T *, const T *, T *); \
template __global__ void k_couple_back<T, false>(LevelArgs<T>, Facs<T>, int, const T *, const T *, const T *, T *); \
template __global__ void k_couple_fwd<T, true>(LevelArgs<T>, Facs<T>, int, const T *, const T *, const T *, T *); \
template __global__ void k_couple_back<T, true>(LevelArgs<T>, Facs<T>, int, const T *, const T *, const T *, T *); \
template __global__ void k_gather<T>(LevelArgs<T>, int, const T *, const T *, const T *, T *, T *);
INST(float) INST(double) INST(cplx<float>) INST(cplx<double>)
}

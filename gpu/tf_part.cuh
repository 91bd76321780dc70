// The Thomas systems of a 2D transform plan (one per mode k of dimension 1,
// along dimension 2, shift c + lambda_k) by the level-3 partitioned solver
// (partition.cuh, part_solve: P threads of M rows per system, PCR on the
// boundary rows), where the plain kernel (cuda_transform.cuh, k_tf_thomas)
// leaves the device idle: n1 systems of n2 rows are n1 threads (two,
// twisted) against chains of n2 dependent loads, 43% of 2D Poisson 4095^2
// (one H200). The systems are stored system-major (row k of Y, the layout
// the sine transform's read-back writes, sine.cuh) and solved in place.
// Real plans whose systems are all strictly diagonally dominant (checked at
// upload, cuda_transform.cu): their partition pivots cannot fail, so no
// retry path is needed.
#ifndef PSCR_CUDA_TF_PART_CUH
#define PSCR_CUDA_TF_PART_CUH

#include <cuda_runtime.h>

#include "partition.cuh"

namespace pscr_cuda {

constexpr int TF_PART_M = 16; // rows per thread, as level 3's at n_l = 4095

// Threads per system for systems of nl rows, 0 where the partitioned
// solver does not serve: fewer than 32 threads (short systems: the plain
// kernel's chain is short) or more than a 512-thread block.
inline int tf_part_threads(int nl)
{
  const int P = part_threads_per_system(nl, TF_PART_M);
  return P >= 32 && P <= 512 ? P : 0;
}

// Block size for P threads per system: 256 (several systems) or P.
inline int tf_part_block(int P) { return P > 256 ? P : 256; }

template <class T> inline size_t tf_part_smem(int P)
{
  return (size_t)tf_part_block(P) * part_smem_per_thread<T, TF_PART_M, PartFacs<T>>(0) *
         sizeof(T);
}

// nsys systems of nl rows, system k at y + k nl with shift cg[0] + lam[k];
// a thread block solves blockDim / P systems at a time. Pivot failures set
// *flag (none on dominant systems).
template <class T, int NT>
__global__ void __launch_bounds__(NT, NT > 256 ? 1 : 2)
    k_tf_part(PartFacs<T> C, int nl, int P, size_t nsys, const T *cg, const T *lam, T *y,
              int *flag)
{
  constexpr int M = TF_PART_M;
  using F = PartFacs<T>;
  extern __shared__ double tf_part_smem_raw[];
  constexpr bool YS = part_ysmem<T>();
  constexpr int spt = part_smem_per_thread<T, M, F>(0);
  constexpr int YB = part_yb_cols<T, M, F>();
  const int spb = blockDim.x / P, lp = threadIdx.x % P, ls = threadIdx.x / P;
  const int npad = P * M;
  // A slot's shared memory as k_part's (unpaired): the chunk buffer | yb |
  // the PCR rows (YS), else the chunk buffer, which the PCR rows reuse.
  T *sb = reinterpret_cast<T *>(tf_part_smem_raw) + (size_t)ls * spt * P;
  T *sL = YS ? sb + (size_t)P * ((M + 1) + YB) : sb, *sD = sL + P, *sU = sD + P, *sR = sU + P;
  T *ybs = sb + (size_t)P * (M + 1) + (size_t)lp * YB;
  const T c = cg[0];
  // A uniform loop bound (every thread meets every barrier); a slot past
  // the last system repeats it, unwritten.
  for (size_t base = (size_t)blockIdx.x * spb; base < nsys; base += (size_t)gridDim.x * spb) {
    const size_t raw = base + (size_t)ls;
    const bool live = raw < nsys;
    const size_t k = live ? raw : nsys - 1;
    T *yk = y + k * (size_t)nl;
    // Row i at i + i / M (part_solve's layout), rows from nl on zero.
    for (unsigned i = (unsigned)lp; i < (unsigned)npad; i += (unsigned)P)
      sb[i + i / M] = i < (unsigned)nl ? yk[i] : T(0);
    slot_sync(P <= 32);
    part_solve<T, M, YS, F>(C, c + lam[k], nullptr, sb, sb + (size_t)lp * (M + 1), ybs, sL, sD,
                            sU, sR, lp, P, nl, live ? yk : nullptr, live, flag, false);
  }
}

// The launch: P threads per system (tf_part_threads), tables C.
template <class T>
cudaError_t tf_part(const PartFacs<T> &C, int nl, int P, size_t nsys, const T *cg, const T *lam,
                    T *y, int *flag, cudaStream_t cs)
{
  const int NT = tf_part_block(P);
  const size_t spb = (size_t)(NT / P), smem = tf_part_smem<T>(P);
  const unsigned grid = (unsigned)((nsys + spb - 1) / spb);
  if (NT == 512)
    k_tf_part<T, 512><<<grid, 512, smem, cs>>>(C, nl, P, nsys, cg, lam, y, flag);
  else
    k_tf_part<T, 256><<<grid, 256, smem, cs>>>(C, nl, P, nsys, cg, lam, y, flag);
  return cudaGetLastError();
}

// Before the first launch: the shared memory both block sizes may take.
template <class T> cudaError_t tf_part_prepare(int P)
{
  const int NT = tf_part_block(P);
  const void *k = NT == 512 ? (const void *)k_tf_part<T, 512> : (const void *)k_tf_part<T, 256>;
  return cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              (int)tf_part_smem<T>(P));
}

} // namespace pscr_cuda

#endif

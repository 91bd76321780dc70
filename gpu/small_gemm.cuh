// Small matrix products of the dense transforms, where cuBLAS's choice is
// slow: for C = op(A) op(B) of order about 128 and below it takes split-K
// kernels on a handful of CTAs. H100, double, C = A^T B^T, m = n = k,
// device-only means of 300 back to back (one-off measurement, 2026-11-28):
//
//   order            63     127    128    255
//   cublasDgemm      42.0   17.4   9.4    9.2 us
//   small_gemm        5.0    5.9   5.8   11.5 us
//   best cublasLt    14.2   10.2   7.6    7.8 us (of its heuristic's 8)
//
// so products of m n k <= SMALL_GEMM_WORK per batch entry (and few of
// them) run here: a CTA per 16 x 16 tile of C, its operands' 32-deep
// slices staged in shared memory, one thread per entry of C summing in
// ascending l (a fixed order: the same bits on every run and for every
// alignment of the operands, unlike cuBLAS's kernels).
#ifndef PSCR_SMALL_GEMM_CUH
#define PSCR_SMALL_GEMM_CUH

#include <cuda_runtime.h>

#include "cuda_scalar.cuh"

namespace pscr_cuda {

constexpr int SG_TILE = 16, SG_DEPTH = 32;
// The work (m n k, summed over the batch) up to which small_gemm serves.
constexpr long long SMALL_GEMM_WORK = 1LL << 22;

// op(A)(i, l) = A[l + i lda] if TA, else A[i + l lda]; op(B)(l, j) =
// B[j + l ldb] if TB, else B[l + j ldb]; C[i + j ldc]; batch entry
// blockIdx.z at A + z sa, B + z sb, C + z sc. Each slice is loaded with the
// operand's contiguous index on consecutive threads (coalesced).
template <class T, bool TA, bool TB>
__global__ void __launch_bounds__(SG_TILE *SG_TILE)
    k_small_gemm(int m, int n, int k, const T *__restrict__ A, int lda, long long sa,
                 const T *__restrict__ B, int ldb, long long sb, T *__restrict__ C, int ldc,
                 long long sc)
{
  __shared__ T a[SG_DEPTH][SG_TILE + 1], b[SG_DEPTH][SG_TILE + 1];
  A += blockIdx.z * sa;
  B += blockIdx.z * sb;
  C += blockIdx.z * sc;
  const int i0 = blockIdx.x * SG_TILE, j0 = blockIdx.y * SG_TILE;
  const int ti = threadIdx.x % SG_TILE, tj = threadIdx.x / SG_TILE;
  const T zero = T(0);
  T acc = zero;
  for (int l0 = 0; l0 < k; l0 += SG_DEPTH) {
    for (int e = threadIdx.x; e < SG_DEPTH * SG_TILE; e += blockDim.x) {
      // A: l fastest in memory if TA, else i.
      const int la = TA ? e % SG_DEPTH : e / SG_TILE, ia = TA ? e / SG_DEPTH : e % SG_TILE;
      const int gl = l0 + la, gi = i0 + ia;
      a[la][ia] = gl < k && gi < m ? A[TA ? gl + (size_t)gi * lda : gi + (size_t)gl * lda] : zero;
      // B: j fastest in memory if TB, else l.
      const int lb = TB ? e / SG_TILE : e % SG_DEPTH, jb = TB ? e % SG_TILE : e / SG_DEPTH;
      const int hl = l0 + lb, hj = j0 + jb;
      b[lb][jb] = hl < k && hj < n ? B[TB ? hj + (size_t)hl * ldb : hl + (size_t)hj * ldb] : zero;
    }
    __syncthreads();
#pragma unroll
    for (int l = 0; l < SG_DEPTH; l++)
      acc += a[l][ti] * b[l][tj];
    __syncthreads();
  }
  if (i0 + ti < m && j0 + tj < n)
    C[i0 + ti + (size_t)(j0 + tj) * ldc] = acc;
}

// Whether small_gemm serves a product of batch x (m n k): small enough, and
// its grid within CUDA's limits of 65535 on y (tiles of n) and z (batch);
// m n k <= 2^22 alone allows n up to 2^22 where m = k = 1.
inline bool small_gemm_fits(int m, int n, int k, int batch)
{
  return (long long)m * n * k * batch <= SMALL_GEMM_WORK && batch <= 65535 &&
         (n + SG_TILE - 1) / SG_TILE <= 65535;
}

template <class T>
cudaError_t small_gemm(bool ta, bool tb, int m, int n, int k, const T *A, int lda, long long sa,
                       const T *B, int ldb, long long sb, T *C, int ldc, long long sc, int batch,
                       cudaStream_t cs)
{
  const dim3 grid((unsigned)((m + SG_TILE - 1) / SG_TILE), (unsigned)((n + SG_TILE - 1) / SG_TILE),
                  (unsigned)batch);
  const int threads = SG_TILE * SG_TILE;
  if (ta && tb)
    k_small_gemm<T, true, true><<<grid, threads, 0, cs>>>(m, n, k, A, lda, sa, B, ldb, sb, C, ldc, sc);
  else if (ta)
    k_small_gemm<T, true, false><<<grid, threads, 0, cs>>>(m, n, k, A, lda, sa, B, ldb, sb, C, ldc,
                                                          sc);
  else if (tb)
    k_small_gemm<T, false, true><<<grid, threads, 0, cs>>>(m, n, k, A, lda, sa, B, ldb, sb, C, ldc,
                                                          sc);
  else
    k_small_gemm<T, false, false><<<grid, threads, 0, cs>>>(m, n, k, A, lda, sa, B, ldb, sb, C,
                                                           ldc, sc);
  return cudaGetLastError();
}

} // namespace pscr_cuda

#endif

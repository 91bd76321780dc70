// Level 3 with the weighted sums fused in (docs/design.md: "fuse the
// right-hand-side formation and the weighted accumulation into it"). One
// slot of k_part's P threads takes a reduction item (eigenpairs e0 .. e1-1
// of one block B, levels_kernels.cuh) and solves its systems one after the
// other, k_part's way (partition.cuh: part_solve), and adds each solution
// into the item's sums as it comes out of part_solve:
//   forward: L_B += w_e[first] y_e, R_B += w_e[last] y_e;
//   back:    u_{d_q} += w_e[q] y_e, q < |D(B)| (d_3 = last(B), weight
//            w_e[last], at the merged top level: src/levels.h),
// in eigenpair order, from zero, as k_reduce_items adds them. The sums of
// one item stay in shared memory (thread lp keeps rows lp + j P, j < M, of
// each; in registers they spilled: 1.2 KB per thread in double at M = 16),
// so the solutions never reach global memory: the unfused path writes every
// solution (the whole level, n rows per system) and reads it back in
// k_reduce_items, which at 4095^2 Poisson on the H100 was the "sums" stage
// (0.96 ms of 3.25 in double). An item's systems share their sources, so
// real types solve them two per pass from one read of the sources
// (stage_pair), as k_part's pairing does.
//
// Output: when every block is one item (L.direct), the sums themselves
// (L_B | R_B into lr; u_{d_q} over F_{d_q} in x: the slot has read its
// block's sources for the last time); otherwise the item's partial sums
// into `part`, which k_reduce_sum adds in item order (deterministic).
#ifndef PSCR_CUDA_PART_SUM_CUH
#define PSCR_CUDA_PART_SUM_CUH

#include "levels_kernels.cuh"
#include "partition.cuh"

namespace pscr_cuda {

// SUMS, the sums per entry, names the direction: 2 forward (L_B, R_B), 3
// back, 4 back at a level with four elements of D(B) (its own
// instantiation, real types only: part_sum_four).
template <int SUMS> constexpr bool part_sum_back() { return SUMS > 2; }
template <class T> constexpr bool part_sum_four() { return std::is_same<T, real_t<T>>::value; }

// Shared memory per thread: k_part's, then the direction's SUMS sums of M rows.
template <class T, int M, class F, int SUMS>
__host__ __device__ constexpr int part_sum_smem_per_thread(int pair)
{
  return part_smem_per_thread<T, M, F>(pair) + SUMS * M;
}

// Blocks per SM for the registers: two blocks of 256 threads, so 128
// registers (k_part's float bound of 80 spilled here; with the pivot table
// it fits, but a third block of the forward kernel gained nothing: 4095^2
// R32 1.670 -> 1.668 ms).
constexpr int part_sum_min_blocks(int NT) { return NT > 256 ? 1 : 2; }

// The sums of an item += w_e y_e for the NQ systems e = eq[0 .. NQ-1] of a
// pass, in that order; their solutions in the slot's buffers (row i at
// i + i / M, buffer q at sb + q P (M + 1)). Weight slots q0, q1 (then 2
// and last back).
template <class T, int M, int SUMS, int NQ>
__device__ __forceinline__ void add_rows(const LevelArgs<T> &L, const int *eq, int q0, int q1,
                                         const T *sb, T *acc, int lp, int P, int nl)
{
  const int npad = P * M;
  T w0[NQ], w1[NQ], w2[NQ], w3[NQ];
#pragma unroll
  for (int q = 0; q < NQ; q++) {
    const T *w = L.w + (size_t)eq[q] * W_SLOTS;
    w0[q] = w[q0];
    w1[q] = w[q1];
    w2[q] = SUMS > 2 ? w[2] : T(0);
    w3[q] = SUMS > 3 ? w[W_LAST] : T(0);
  }
  // Four rows at a time: fully unrolled, the compiler issued all 16 loads of
  // y and 48 of the sums first and spilled (ptxas: 40-150 bytes at 128
  // registers, M = 16); H100 4095^2 Poisson R32 1.95 -> 1.67 ms.
#pragma unroll 4
  for (int j = 0; j < M; j++) {
    const int i = lp + j * P;
    T a0 = acc[j * P], a1 = acc[npad + j * P], a2 = SUMS > 2 ? acc[2 * npad + j * P] : T(0);
    T a3 = SUMS > 3 ? acc[3 * npad + j * P] : T(0);
#pragma unroll
    for (int q = 0; q < NQ; q++) {
      const T y = i < nl ? sb[(size_t)q * P * (M + 1) + i + i / M] : T(0);
      a0 += w0[q] * y;
      a1 += w1[q] * y;
      if constexpr (SUMS > 2)
        a2 += w2[q] * y;
      if constexpr (SUMS > 3)
        a3 += w3[q] * y;
    }
    acc[j * P] = a0;
    acc[npad + j * P] = a1;
    if constexpr (SUMS > 2)
      acc[2 * npad + j * P] = a2;
    if constexpr (SUMS > 3)
      acc[3 * npad + j * P] = a3;
  }
}

// emax: the level's longest item, so that every slot of a thread block runs
// the same number of passes (barriers); a slot past its item's end repeats
// its last system and adds nothing. PAIRED: two systems per pass (one in
// the last pass of an odd emax).
template <class T, int M, int NT, bool PAIRED, int SUMS, class F>
__global__ void __launch_bounds__(NT, part_sum_min_blocks(NT))
    k_part_sum(LevelArgs<T> L, F C, int nl, int B, const T *cs, const T *x, const T *g, T *part,
               T *lr, T *xo, int P, int emax, int *flag)
{
  static_assert(!PAIRED || part_ysmem<T>(), "pairing needs the shared-memory columns");
  extern __shared__ double part_smem[];
  constexpr bool YS = part_ysmem<T>();
  constexpr int PAIR = PAIRED ? 2 : 1;
  constexpr bool BACK = part_sum_back<SUMS>();
  constexpr int spt = part_sum_smem_per_thread<T, M, F, SUMS>(PAIRED);
  constexpr int YB = part_yb_cols<T, M, F>();
  const int spb = blockDim.x / P;
  const int lp = threadIdx.x % P, ls = threadIdx.x / P;
  const int npad = P * M;
  // The factors are setup-time data: staged before the previous grid ends.
  T *sbase = part_stage_facs<T>(C, npad, reinterpret_cast<T *>(part_smem));
  pdl_gate();
  T *sb = sbase + (size_t)ls * spt * P;
  // This thread's sums: acc[a * npad + j * P] is row lp + j P of sum a.
  T *acc = sb + (size_t)P * part_smem_per_thread<T, M, F>(PAIRED) + lp;
  T *sL = YS ? sb + (size_t)P * (PAIR * (M + 1) + YB) : sb, *sD = sL + P, *sU = sD + P,
    *sR = sU + P;
  T *ybs = sb + (size_t)P * PAIR * (M + 1) + (size_t)lp * YB;
  const size_t S = L.S;
  const size_t units = (size_t)B * (size_t)L.nit;

  for (size_t base = (size_t)blockIdx.x * spb; base < units; base += (size_t)gridDim.x * spb) {
    const size_t raw = base + (size_t)ls;
    const bool live = raw < units;
    const size_t unit = live ? raw : units - 1;
    const int it = (int)(unit % (size_t)L.nit), b = (int)(unit / (size_t)L.nit);
    const int blk = L.items[3 * it], e0 = L.items[3 * it + 1], e1 = L.items[3 * it + 2];
    // Weight slots: forward first, last; back D(B) 0, 1, 2 (zero where
    // unused), last (SUMS 4).
    const int q0 = BACK ? 0 : W_FIRST, q1 = BACK ? 1 : W_LAST;
#pragma unroll
    for (int a = 0; a < SUMS; a++)
#pragma unroll
      for (int j = 0; j < M; j++)
        acc[a * npad + j * P] = T(0);

    for (int k = 0; k < emax; k += PAIR) {
      // The last pass of an odd emax solves one system: no item has a
      // second one there, and the condition is the same for every slot of
      // the thread block (barriers). So level 1's items of three solve
      // three systems paired, not four, and pair (emax >= 2 in
      // part_sum_pair).
      const bool two = PAIRED && k + 1 < emax;
      int eq[PAIR];
      bool on[PAIR];
#pragma unroll
      for (int q = 0; q < PAIR; q++) {
        const int e = e0 + k + q;
        on[q] = live && e < e1;
        eq[q] = e < e1 ? e : e1 - 1;
      }
      if (two && eq[0] != eq[PAIR - 1]) {
        stage_pair<T, M>(level_rhs(L, b, eq[0], x, g), level_rhs(L, b, eq[PAIR - 1], x, g), sb,
                         sb + (size_t)P * (M + 1), lp, P, npad, nl);
      } else {
#pragma unroll
        for (int q = 0; q < PAIR; q++)
          if (q == 0 || two)
            stage_one<T, M>(level_rhs(L, b, eq[q], x, g), sb + (size_t)q * P * (M + 1), lp, P,
                            npad, nl);
      }
      slot_sync(P <= 32);
#pragma unroll
      for (int q = 0; q < PAIR; q++) {
        if (q > 0 && !two)
          break;
        T *buf = sb + (size_t)q * P * (M + 1);
        part_solve<T, M, YS, F>(C, cs[b] + L.lam[eq[q]], part_tab_of<F>(L, eq[q], M), buf,
                                buf + (size_t)lp * (M + 1), ybs, sL, sD, sU, sR, lp, P, nl,
                                nullptr, on[q], flag, L.pcr_all != 0);
      }
      // The pass's solutions, rows lp + j P of each buffer: written by
      // their chunk's thread before part_solve's last barrier; only this
      // thread reads them, and only this thread stages them next
      // (stage_pair / stage_one), so no barrier is needed. Both systems of a
      // pair are added in one read-modify-write of the sums, in the order of
      // one after the other: bitwise the same sums with half the shared-
      // memory traffic (H100 4095^2 Poisson R32 1.636 -> 1.601 ms, 2047^2
      // R64 0.848 -> 0.825).
      if (two && on[PAIR - 1])
        add_rows<T, M, SUMS, PAIR>(L, eq, q0, q1, sb, acc, lp, P, nl);
      else if (on[0])
        add_rows<T, M, SUMS, 1>(L, eq, q0, q1, sb, acc, lp, P, nl);
    }
    if (!live)
      continue;
    if (L.direct) {
#pragma unroll
      for (int j = 0; j < M; j++) {
        const int i = lp + j * P;
        if (i < nl)
          reduce_store(L, b, blk, BACK, acc[j * P], acc[npad + j * P],
                       SUMS > 2 ? acc[2 * npad + j * P] : T(0),
                       SUMS > 3 ? acc[3 * npad + j * P] : T(0), lr, xo, (size_t)i);
      }
    } else {
      T *out = part + ((size_t)b * (size_t)L.nit + (size_t)it) * (size_t)L.ps * S;
#pragma unroll
      for (int j = 0; j < M; j++) {
        const int i = lp + j * P;
        if (i < nl) {
          out[i] = acc[j * P];
          out[S + i] = acc[npad + j * P];
          if constexpr (SUMS > 2)
            out[2 * S + i] = acc[2 * npad + j * P];
          if constexpr (SUMS > 3)
            out[3 * S + i] = acc[3 * npad + j * P];
        }
      }
    }
  }
}

} // namespace pscr_cuda

#endif

// Stage kernels of one reduction level (docs/design.md), each one launch
// over all batches, blocks and slab entries of the level. Batches: B
// independent problems of the dimension (the right-hand sides of a batched
// solve at the top dimension, the 3D inner 2D solves below it), batch b's
// vector at x + b L.xs, its shift cs[b]. Per (batch, block) buffer `lr` of
// 2 S entries: L_B | R_B in the forward reduction, gL | gR in the back
// substitution.
#ifndef PSCR_CUDA_LEVELS_KERNELS_CUH
#define PSCR_CUDA_LEVELS_KERNELS_CUH

#include "cuda_args.cuh"
#include "launch.cuh"
#include "level_rhs.cuh"
#include "stencil.cuh"

namespace pscr_cuda {

#define PSCR_GRID_STRIDE(idx, count)                                                   \
  for (size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x; idx < (count);        \
       idx += (size_t)gridDim.x * blockDim.x)

// The coupling and gather kernels' loops (slab_grid launches, cuda_args.cuh):
// slab rows over y, their entries t over x; the row's set-up (its indices,
// slabs and coefficients) is made once per row, and a thread takes
// COUPLE_PER entries of it (couple_grid). Rows and entries are counted in 32
// bits: a slab has fewer than 2^31 entries (pscr_cuda_sizes_fit, so that
// t plus the grid stride stays below 2^32), and 64-bit entry indices took
// more registers and instructions in every coupling kernel.
#define PSCR_ROW_LOOP(row, rows)                                                         \
  for (unsigned row = blockIdx.y * blockDim.y + threadIdx.y; row < (unsigned)(rows);     \
       row += gridDim.y * blockDim.y)
#define PSCR_ENTRY_LOOP(t, S)                                                            \
  for (unsigned t = blockIdx.x * blockDim.x + threadIdx.x; t < (unsigned)(S);            \
       t += gridDim.x * blockDim.x)

// Forward: F_j -= T(j, j-1) R_{B-} + T(j, j+1) L_{B+} for j in J_i, read
// from f (batch b at f + b L.fs) and written to x: at level 1 of the top
// dimension f is the caller's right-hand side (so u needs no copy of it),
// elsewhere f == x.
template <class T, bool S1>
__global__ void k_couple_fwd(LevelArgs<T> L, Facs<T> F, int B, const T *cs, const T *lr,
                             const T *f, T *x)
{
  pdl_gate();
  const size_t S = L.S;
  PSCR_ROW_LOOP(rest, (unsigned)B * (unsigned)L.nj)
  {
    const int q = (int)(rest % (unsigned)L.nj), b = (int)(rest / (unsigned)L.nj);
    const int *jr = L.jl + (size_t)q * 3;
    const int j = jr[0], left = jr[1], right = jr[2];
    const T c = cs[b];
    const T *lrb = lr + (size_t)b * (size_t)L.nb * 2 * S;
    const T *yl = left >= 0 ? lrb + ((size_t)left * 2 + 1) * S : nullptr;
    const T *yr = right >= 0 ? lrb + (size_t)right * 2 * S : nullptr;
    const Coupling<T> kl = yl ? coupling_of(F, L.d, c, j, j - 1) : Coupling<T>{};
    const Coupling<T> kr = yr ? coupling_of(F, L.d, c, j, j + 1) : Coupling<T>{};
    const T *fj = f + (size_t)b * L.fs + (size_t)j * S;
    T *xj = x + (size_t)b * L.xs + (size_t)j * S;
    PSCR_ENTRY_LOOP(t, S)
    {
      T vl, vr;
      couple_two<T, S1>(F, L.d + 1, kl, yl, kr, yr, t, vl, vr);
      T acc = T(0);
      if (yl)
        acc += vl;
      if (yr)
        acc += vr;
      xj[t] = fj[t] - acc;
    }
  }
}

// Back: gL = T(first, first-1) u_{first-1}, gR = T(last, last+1) u_{last+1}
// per block (zero where the neighbour does not exist). A block with four
// elements of D(B) (the merged top level, src/levels.h: d_3 = last(B) =
// n - 1, no right neighbour) gets gR = -F_{last} from the level's sources f
// instead: level_rhs subtracts w_e[last] gR, which adds the fourth term
// w_e[last] F_{d_3} of eq. 25, so the kernels that form right-hand sides
// keep three sources (a fourth pointer cost k_part_sum 15 registers and
// spills, 4095^2 R32 1.49 -> 1.56 ms, H100).
template <class T, bool S1>
__global__ void k_couple_back(LevelArgs<T> L, Facs<T> F, int B, const T *cs, const T *x,
                              const T *f, T *lr)
{
  pdl_gate();
  const size_t S = L.S;
  PSCR_ROW_LOOP(rest, (unsigned)B * (unsigned)L.nb)
  {
    const int blk = (int)(rest % (unsigned)L.nb), b = (int)(rest / (unsigned)L.nb);
    const int *row = L.blk + (size_t)blk * PSCR_CUDA_BLK_INTS;
    const int first = row[PSCR_CUDA_BLK_FIRST], last = row[PSCR_CUDA_BLK_LAST];
    const T c = cs[b];
    const T *xb = x + (size_t)b * L.xs;
    const T *yl = first > 0 ? xb + (size_t)(first - 1) * S : nullptr;
    const T *yr = last < L.n - 1 ? xb + (size_t)(last + 1) * S : nullptr;
    const Coupling<T> kl = yl ? coupling_of(F, L.d, c, first, first - 1) : Coupling<T>{};
    const Coupling<T> kr = yr ? coupling_of(F, L.d, c, last, last + 1) : Coupling<T>{};
    const T *fl = row[PSCR_CUDA_BLK_ND] > 3 ? f + (size_t)b * L.fs + (size_t)last * S : nullptr;
    T *out = lr + ((size_t)b * (size_t)L.nb + (size_t)blk) * 2 * S;
    PSCR_ENTRY_LOOP(t, S)
    {
      T gl, gr;
      couple_two<T, S1>(F, L.d + 1, kl, yl, kr, yr, t, gl, gr);
      out[t] = gl;
      out[S + t] = fl ? -fl[t] : gr;
    }
  }
}

// Right-hand sides of the level's subproblems as whole slabs, for levels
// whose subproblem is itself a PSCR solve (3D, dimension 1):
//   r_sys = sum_q w_e[q] F_{d_q} (- w_e[first] gL - w_e[last] gR), sys = b ne + e,
// and the subproblem shifts c_b + lambda_e. As the coupling kernels, a
// row's set-up (level_rhs: its block, weights and slabs) is made once per
// row and thread, which takes COUPLE_PER entries where the grid allows
// (couple_grid): with one entry per thread the float kernel was bound by
// instruction issue (72% of issue slots, H100 3D 255^3) and took 0.89 of
// the double time.
template <class T>
__global__ void k_gather(LevelArgs<T> L, int B, const T *cs, const T *x, const T *g, T *r,
                         T *shifts)
{
  pdl_gate();
  const size_t S = L.S;
  PSCR_ROW_LOOP(sys, (unsigned)B * (unsigned)L.ne)
  {
    const int e = (int)(sys % (unsigned)L.ne), b = (int)(sys / (unsigned)L.ne);
    const LevelRhs<T> R = level_rhs(L, b, e, x, g);
    T *rs = r + (size_t)sys * S;
    if (blockIdx.x == 0 && threadIdx.x == 0) // the thread of entry 0
      shifts[sys] = cs[b] + L.lam[e];
    PSCR_ENTRY_LOOP(t, S)
    {
      rs[t] = R.at(t);
    }
  }
}

// Weighted sums of the level's solutions v_sys (entry t at v[sys vs + t vt]):
//   forward: L_B = sum_e w_e[first] v_e, R_B = sum_e w_e[last] v_e into lr;
//   back:    u_{d_q} = sum_e w_e[q] v_e, written over F_{d_q} in x (every
//            read of F by this level happened in an earlier launch); the
//            fourth sum, d_3 = last(B) with weight w_e[last], only at the
//            merged top level (L.nds == 4, src/levels.h).
// Two passes so that a block with thousands of eigenpairs does not become
// one long serial loop: k_reduce_items sums each item (PSCR_CUDA_ITEM_EIGS
// eigenpairs of one block) into `part`, k_reduce_sum adds a block's items in
// a fixed order (deterministic; in lanes on long blocks). When every block is
// one item (L.direct), the first pass writes the result itself.
// (Named accumulators, not an array: a runtime-indexed array would live in
// local memory.)
template <class T> __device__ inline void reduce_store(const LevelArgs<T> &L, int b, int blk,
                                                       int back, T acc0, T acc1, T acc2, T acc3,
                                                       T *lr, T *x, size_t t)
{
  const size_t S = L.S;
  const int *row = L.blk + (size_t)blk * PSCR_CUDA_BLK_INTS;
  if (back) {
    T *xb = x + (size_t)b * L.xs;
    const int nd = row[PSCR_CUDA_BLK_ND];
    xb[(size_t)row[PSCR_CUDA_BLK_D] * S + t] = acc0;
    if (nd > 1)
      xb[(size_t)row[PSCR_CUDA_BLK_D + 1] * S + t] = acc1;
    if (nd > 2)
      xb[(size_t)row[PSCR_CUDA_BLK_D + 2] * S + t] = acc2;
    if (nd > 3)
      xb[(size_t)row[PSCR_CUDA_BLK_D + 3] * S + t] = acc3;
  } else {
    T *out = lr + ((size_t)b * (size_t)L.nb + (size_t)blk) * 2 * S;
    out[t] = acc0;
    out[S + t] = acc1;
  }
}

template <class T>
__global__ void k_reduce_items(LevelArgs<T> L, int B, const T *v, size_t vs, size_t vt, int back,
                               T *part, T *lr, T *x)
{
  pdl_gate();
  const size_t S = L.S, count = (size_t)B * (size_t)L.nit * S;
  PSCR_GRID_STRIDE(idx, count)
  {
    const size_t t = idx % S, rest = idx / S;
    const int it = (int)(rest % (size_t)L.nit), b = (int)(rest / (size_t)L.nit);
    const int blk = L.items[3 * it], e0 = L.items[3 * it + 1], e1 = L.items[3 * it + 2];
    // Weights: forward w_first, w_last; back w_0, w_1, w_2 (unused ones are
    // zero) and w_last at a level with four elements of D(B).
    const int q0 = back ? 0 : W_FIRST, q1 = back ? 1 : W_LAST;
    const bool four = back && L.nds > 3;
    T acc0 = T(0), acc1 = T(0), acc2 = T(0), acc3 = T(0);
    const T *vp = v + ((size_t)b * (size_t)L.ne + (size_t)e0) * vs + t * vt;
    // Unrolled: four loads of v in flight per thread (latency, not bytes,
    // limited this pass at 65-75% of DRAM bandwidth).
#pragma unroll 4
    for (int e = e0; e < e1; e++, vp += vs) {
      const T val = *vp;
      const T *w = L.w + (size_t)e * W_SLOTS;
      acc0 += w[q0] * val;
      acc1 += w[q1] * val;
      if (back)
        acc2 += w[2] * val;
      if (four)
        acc3 += w[W_LAST] * val;
    }
    if (L.direct) {
      reduce_store(L, b, blk, back, acc0, acc1, acc2, acc3, lr, x, t);
    } else {
      // Forward sums have two accumulators: the other slots stay unused.
      T *out = part + ((size_t)b * (size_t)L.nit + (size_t)it) * (size_t)L.ps * S;
      out[t] = acc0;
      out[S + t] = acc1;
      if (back)
        out[2 * S + t] = acc2;
      if (four)
        out[3 * S + t] = acc3;
    }
  }
}

// The sums of each block's items (k_reduce_items or k_part_sum wrote them
// to `part`). Lanes G (a power of two, reduce_lanes) share an entry: lane g
// adds items g, g + G, ... of the entry's block, then lane 0 adds the lanes
// in order. A thread block of THREADS takes THREADS / G consecutive entries
// of the flat (batch, block, t) range, so short slabs leave no thread idle.
// With G = 1 this is one thread per entry adding its block's items in
// order. The top levels have one or a few blocks of hundreds of items: one
// thread per entry made them a few thousand threads on long chains of
// dependent loads (4095^2 float, top level: 37 us on 16 thread blocks). G
// depends on the level and the device, not on the batch, so a batch's sums
// are bitwise its single solves'. LANES: G > 1 (G = 1 is its own
// instantiation, the one-thread-per-entry loop without the lanes' index
// arithmetic: with it, 3D 127^3 ran 0.5% slower).
template <class T, bool LANES>
__global__ void k_reduce_sum(LevelArgs<T> L, int B, int back, int lanes, const T *part, T *lr,
                             T *x)
{
  extern __shared__ double reduce_smem[];
  pdl_gate();
  const size_t S = L.S, count = (size_t)B * (size_t)L.nb * S;
  const int G = LANES ? lanes : 1;
  const unsigned tile = LANES ? blockDim.x / (unsigned)G : blockDim.x; // entries per block
  const unsigned tl = LANES ? threadIdx.x % tile : threadIdx.x;
  const unsigned g = LANES ? threadIdx.x / tile : 0;
  T *red = reinterpret_cast<T *>(reduce_smem);
  const bool four = back && L.nds > 3; // shared memory: 4 THREADS entries, else 3
  // The loop bound is uniform over the thread block (the barriers below).
  for (size_t base = (size_t)blockIdx.x * tile; base < count; base += (size_t)gridDim.x * tile) {
    const size_t idx = base + tl;
    const bool live = idx < count;
    const size_t t = idx % S, rest = idx / S;
    const int blk = (int)(rest % (size_t)L.nb), b = (int)(rest / (size_t)L.nb);
    T acc0 = T(0), acc1 = T(0), acc2 = T(0), acc3 = T(0);
    if (live) {
      const int it0 = L.bitem[2 * blk], it1 = it0 + L.bitem[2 * blk + 1];
      for (int it = it0 + (int)g; it < it1; it += G) {
        const T *in = part + ((size_t)b * (size_t)L.nit + (size_t)it) * (size_t)L.ps * S;
        acc0 += in[t];
        acc1 += in[S + t];
        if (back)
          acc2 += in[2 * S + t];
        if (four)
          acc3 += in[3 * S + t];
      }
    }
    if constexpr (LANES) {
      red[threadIdx.x] = acc0;
      red[blockDim.x + threadIdx.x] = acc1;
      red[2 * blockDim.x + threadIdx.x] = acc2;
      if (four)
        red[3 * blockDim.x + threadIdx.x] = acc3;
      __syncthreads();
      if (g == 0 && live) {
        for (unsigned q = 1; q < (unsigned)G; q++) {
          acc0 += red[q * tile + tl];
          acc1 += red[blockDim.x + q * tile + tl];
          acc2 += red[2 * blockDim.x + q * tile + tl];
          if (four)
            acc3 += red[3 * blockDim.x + q * tile + tl];
        }
      }
      __syncthreads();
    }
    if (g == 0 && live)
      reduce_store(L, b, blk, back, acc0, acc1, acc2, acc3, lr, x, t);
  }
}

// After a solve: if a pivot was flagged, u holds no solution; make that
// impossible to miss (as the CPU backend does). nb vectors of count words W
// (double, or float for single-precision plans; complex entries are two
// words), ld words apart (the gaps between them are not written).
template <class W>
__global__ void k_nan_if_flag(const int *flag, W *u, size_t count, int nb, size_t ld)
{
  pdl_gate();
  if (*flag == 0)
    return;
  for (int r = 0; r < nb; r++) {
    W *ur = u + (size_t)r * ld;
    PSCR_GRID_STRIDE(idx, count) { ur[idx] = W(NAN); }
  }
}

#undef PSCR_GRID_STRIDE
#undef PSCR_ROW_LOOP
#undef PSCR_ENTRY_LOOP

} // namespace pscr_cuda

#endif

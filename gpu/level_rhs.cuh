// The right-hand side of one subproblem of a level, shared by the three
// kernels that form it (k_part, k_thomas, k_gather): for batch b and
// eigenpair e of block B (eqs. 25 and 28),
//   r = sum_q w_e[q] F_{d_q}  (- w_e[first] gL - w_e[last] gR in the back
//       substitution),
// entry t of a slab. (At the merged top level, whose block has a fourth
// element d_3 = last(B) of weight w_e[last], k_couple_back stores
// gR = -F_{d_3}: the same formula adds that term.) Named scalars and
// pointers, not arrays: a runtime-indexed array would live in local memory.
#ifndef PSCR_CUDA_LEVEL_RHS_CUH
#define PSCR_CUDA_LEVEL_RHS_CUH

#include "cuda_args.cuh"

namespace pscr_cuda {

template <class T> struct LevelRhs {
  const T *s0, *s1, *s2; // F_{d_q}; unused ones alias s0 (valid addresses)
  const T *gl, *gr;      // gL, gR, or NULL in the forward reduction
  T w0, w1, w2, wf, wl;
  int nd;

  // The entry from its sources' entries: src(q) gives that of s0, s1, s2,
  // gl, gr for q = 0..4, and is called only for the sources the level uses,
  // in this order; back: gl != NULL (a caller that steps its own pointers
  // tests it once and need not keep gl live). at() below and k_part's
  // staging (partition.cuh stage_one) form their entries here; stage_pair
  // spells these operations out for two systems, interleaved.
  template <class Src> __device__ __forceinline__ T form(Src src, bool back) const
  {
    T r = w0 * src(0);
    if (nd > 1)
      r += w1 * src(1);
    if (nd > 2)
      r += w2 * src(2);
    if (back) {
      r -= wf * src(3);
      r -= wl * src(4);
    }
    return r;
  }

  __device__ T at(unsigned t) const
  {
    // The pointers by value: a lambda that captured `this` took up to 3 more
    // registers in k_thomas (ptxas sm_90).
    const T *const src[5] = {s0, s1, s2, gl, gr};
    return form([=](int q) { return src[q][t]; }, gl != nullptr);
  }
};

// x: the level's source vectors F (batch b at x + b L.fs); g: NULL (forward)
// or gL | gR per (batch, block) as k_couple_back writes them.
template <class T>
__device__ inline LevelRhs<T> level_rhs(const LevelArgs<T> &L, int b, int e, const T *x,
                                        const T *g)
{
  const size_t S = L.S;
  const int blk = L.eblk[e];
  const int *row = L.blk + (size_t)blk * PSCR_CUDA_BLK_INTS;
  const T *we = L.w + (size_t)e * W_SLOTS;
  const T *xb = x + (size_t)b * L.fs;
  LevelRhs<T> R;
  R.nd = row[PSCR_CUDA_BLK_ND];
  R.w0 = we[0];
  R.w1 = R.nd > 1 ? we[1] : T(0);
  R.w2 = R.nd > 2 ? we[2] : T(0);
  R.wf = we[W_FIRST];
  R.wl = we[W_LAST];
  R.s0 = xb + (size_t)row[PSCR_CUDA_BLK_D] * S;
  R.s1 = xb + (size_t)row[PSCR_CUDA_BLK_D + (R.nd > 1 ? 1 : 0)] * S;
  R.s2 = xb + (size_t)row[PSCR_CUDA_BLK_D + (R.nd > 2 ? 2 : 0)] * S;
  R.gl = g ? g + ((size_t)b * (size_t)L.nb + (size_t)blk) * 2 * S : nullptr;
  R.gr = g ? R.gl + S : nullptr;
  return R;
}

} // namespace pscr_cuda

#endif

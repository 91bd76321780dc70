// The coupling operator of docs/design.md on the device:
//   T(j, p) y = ((A_d)_jp + c (M_d)_jp) Mrest y + (M_d)_jp Arest y,
// Mrest, Arest the mass and stiffness of the dimensions after d: a 3-point
// stencil when one dimension remains, a 9-point stencil when two remain
// (Mrest = M2 (x) M3, Arest = A2 (x) M3 + M2 (x) A3).
#ifndef PSCR_CUDA_STENCIL_CUH
#define PSCR_CUDA_STENCIL_CUH

#include "cuda_args.cuh"

namespace pscr_cuda {

// Row i of a remaining dimension's M and A, loaded once: the coefficients
// of y[i-1], y[i], y[i+1] (those outside 0 .. n-1 unused).
template <class T> struct Row3 {
  T m0, m1, m2, a0, a1, a2;
  bool lo, hi;
  __device__ Row3(const FacDim<T> &D, int i) : lo(i > 0), hi(i + 1 < D.n)
  {
    m0 = lo ? D.mo[i - 1] : T(0);
    m1 = D.md[i];
    m2 = hi ? D.mo[i] : T(0);
    a0 = lo ? D.ao[i - 1] : T(0);
    a1 = D.ad[i];
    a2 = hi ? D.ao[i] : T(0);
  }
  // mass = (M y)[i], stiff = (A y)[i]; the sums in the order s = -1, 0, 1.
  __device__ void sums(const T *y, int i, T &mass, T &stiff) const
  {
    mass = T(0);
    stiff = T(0);
    if (lo) {
      const T yv = y[i - 1];
      mass += m0 * yv;
      stiff += a0 * yv;
    }
    const T yv = y[i];
    mass += m1 * yv;
    stiff += a1 * yv;
    if (hi) {
      const T yn = y[i + 1];
      mass += m2 * yn;
      stiff += a2 * yn;
    }
  }
  // alpha (M y)[i] + beta (A y)[i].
  __device__ T couple(T alpha, T beta, const T *y, int i) const
  {
    T mass, stiff;
    sums(y, i, mass, stiff);
    return alpha * mass + beta * stiff;
  }
};

// Entry t = (i2, i3) of two remaining dimensions r, r + 1: both rows'
// coefficients (Row3 each), loaded once for both couplings of the entry,
// and the 9-point stencil factored by dimension,
//   (Mrest y)[t] = sum_s2 m2[s2] ym[s2],
//   (Arest y)[t] = sum_s2 (a2[s2] ym[s2] + m2[s2] ya[s2]),
// where ym[s2], ya[s2] = the M3 and A3 sums over row i2 + s2 of y. The
// unfactored loop reloaded the coefficients at each of the nine points of
// each coupling and formed m2 m3 and a2 m3 + m2 a3 there: 45 products per
// coupling against 27 here. H100, 3D 255^3, the two 9-point kernels of a
// solve (with the plan's probe solve): 619 -> 362 M instructions, float
// 1.11 -> 0.85 ms; double 1.24 -> 1.34 ms, whose loads in flight take 84
// registers, not 64 (the solves as a whole: float 1% faster, double
// unchanged).
template <class T> struct Row9 {
  Row3<T> r2, r3;
  int i2, i3, n3;
  __device__ Row9(const FacDim<T> &D2, const FacDim<T> &D3, int i2_, int i3_)
      : r2(D2, i2_), r3(D3, i3_), i2(i2_), i3(i3_), n3(D3.n)
  {
  }
  // alpha (Mrest y)[t] + beta (Arest y)[t]; rows in the order s2 = -1, 0, 1.
  __device__ T couple(T alpha, T beta, const T *y) const
  {
    const T *row = y + (size_t)i2 * (size_t)n3;
    T mass = T(0), stiff = T(0), ym, ya;
    if (r2.lo) {
      r3.sums(row - n3, i3, ym, ya);
      mass += r2.m0 * ym;
      stiff += r2.a0 * ym + r2.m0 * ya;
    }
    r3.sums(row, i3, ym, ya);
    mass += r2.m1 * ym;
    stiff += r2.a1 * ym + r2.m1 * ya;
    if (r2.hi) {
      r3.sums(row + n3, i3, ym, ya);
      mass += r2.m2 * ym;
      stiff += r2.a2 * ym + r2.m2 * ya;
    }
    return alpha * mass + beta * stiff;
  }
};

// T(j, p) = alpha Mrest + beta Arest for dimension d with shift c,
// |j - p| = 1.
template <class T> struct Coupling {
  T alpha, beta;
};
template <class T>
__device__ inline Coupling<T> coupling_of(const Facs<T> &F, int d, T c, int j, int p)
{
  const int o = j < p ? j : p;
  const FacDim<T> D = F.dim(d);
  return {D.ao[o] + c * D.mo[o], D.mo[o]};
}

// Two couplings at the same slab entry t of the dimensions r .. ndim-1:
// v1 = (K1 y1)[t] and v2 = (K2 y2)[t], each 0 where its slab is NULL. S1:
// one slab dimension (2D plans; the inner dimension of 3D ones), a separate
// instantiation without the 9-point stencil's registers. Both couplings
// share one load of the stencil's coefficients: Row3 (six), or Row9 (two
// Row3) for the top dimension of 3D plans. (Real results are the
// same bit for bit as the former per-coupling stencil's; complex ones
// differ in rounding, as the compiler contracts the complex products
// differently.) The couplings ran at 35% of the DRAM bandwidth and 48% of
// the SM's issue (ncu, 4095^2 Poisson double, level 1: 108 us for 134 MB),
// with these loads and the per-entry row set-up (k_couple_*) most of it;
// now 43% and 87 us.
template <class T, bool S1>
__device__ inline void couple_two(const Facs<T> &F, int r, Coupling<T> k1, const T *y1,
                                  Coupling<T> k2, const T *y2, unsigned t, T &v1, T &v2)
{
  v1 = v2 = T(0);
  if constexpr (!S1) {
    const FacDim<T> D3 = F.dim(r + 1);
    // 32-bit division (t < S = n2 n3): a 64-bit one is a long subroutine.
    const unsigned i2 = t / (unsigned)D3.n, i3 = t % (unsigned)D3.n;
    const Row9<T> row(F.dim(r), D3, (int)i2, (int)i3);
    if (y1)
      v1 = row.couple(k1.alpha, k1.beta, y1);
    if (y2)
      v2 = row.couple(k2.alpha, k2.beta, y2);
  } else {
    const int i = (int)t;
    const Row3<T> row(F.dim(r), i);
    if (y1)
      v1 = row.couple(k1.alpha, k1.beta, y1, i);
    if (y2)
      v2 = row.couple(k2.alpha, k2.beta, y2, i);
  }
}

} // namespace pscr_cuda

#endif

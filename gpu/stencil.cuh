// The coupling operator of DESIGN.md section 2 on the device:
//   T(j, p) y = ((A_d)_jp + c (M_d)_jp) Mrest y + (M_d)_jp Arest y,
// Mrest, Arest the mass and stiffness of the dimensions after d: a 3-point
// stencil when one dimension remains, a 9-point stencil when two remain
// (Mrest = M2 (x) M3, Arest = A2 (x) M3 + M2 (x) A3).
#ifndef PSCR_CUDA_STENCIL_CUH
#define PSCR_CUDA_STENCIL_CUH

#include "cuda_args.cuh"

namespace pscr_cuda {

// Entry (i, i + s) of a tridiagonal matrix, s in {-1, 0, 1}, inside bounds.
template <class T> __device__ inline T tri_at(const T *diag, const T *off, int i, int s)
{
  return s == 0 ? diag[i] : off[s < 0 ? i - 1 : i];
}

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
  // alpha (M y)[i] + beta (A y)[i]; the sums in the order s = -1, 0, 1.
  __device__ T couple(T alpha, T beta, const T *y, int i) const
  {
    T mass = T(0), stiff = T(0);
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
    return alpha * mass + beta * stiff;
  }
};

// mass = (Mrest y)[t], stiff = (Arest y)[t] for two remaining dimensions
// r, r + 1 (9-point stencil; one remaining dimension takes Row3).
template <class T>
__device__ inline void mass_stiff(const Facs<T> &F, int r, const T *y, size_t t, T &mass,
                                  T &stiff)
{
  mass = T(0);
  stiff = T(0);
  const FacDim<T> D2 = F.dim(r), D3 = F.dim(r + 1);
  const int n2 = D2.n, n3 = D3.n;
  // 32-bit division (t < S = n2 n3): a 64-bit one is a long subroutine.
  const int i2 = (int)((unsigned)t / (unsigned)n3), i3 = (int)((unsigned)t % (unsigned)n3);
  for (int s2 = -1; s2 <= 1; s2++) {
    const int j2 = i2 + s2;
    if (j2 < 0 || j2 >= n2)
      continue;
    const T m2 = tri_at(D2.md, D2.mo, i2, s2), a2 = tri_at(D2.ad, D2.ao, i2, s2);
    const T *row = y + (size_t)j2 * (size_t)n3;
    for (int s3 = -1; s3 <= 1; s3++) {
      const int j3 = i3 + s3;
      if (j3 < 0 || j3 >= n3)
        continue;
      const T m3 = tri_at(D3.md, D3.mo, i3, s3);
      const T a3 = tri_at(D3.ad, D3.ao, i3, s3);
      const T yv = row[j3];
      mass += (m2 * m3) * yv;
      stiff += (a2 * m3 + m2 * a3) * yv;
    }
  }
}

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
// instantiation without the 9-point stencil's registers, where both share
// one load of the stencil's six coefficients (Row3). (Real results are the
// same bit for bit as the former per-coupling stencil's; complex ones
// differ in rounding, as the compiler contracts the complex products
// differently.) The couplings ran at 35% of the DRAM bandwidth and 48% of
// the SM's issue (ncu, 4095^2 Poisson double, level 1: 108 us for 134 MB),
// with these loads and the per-entry row set-up (k_couple_*) most of it;
// now 43% and 87 us (bench/results/2026-11-24-h100-couple-pairs and
// -couple-rows).
template <class T, bool S1>
__device__ inline void couple_two(const Facs<T> &F, int r, Coupling<T> k1, const T *y1,
                                  Coupling<T> k2, const T *y2, size_t t, T &v1, T &v2)
{
  v1 = v2 = T(0);
  if constexpr (!S1) {
    T mass, stiff;
    if (y1) {
      mass_stiff(F, r, y1, t, mass, stiff);
      v1 = k1.alpha * mass + k1.beta * stiff;
    }
    if (y2) {
      mass_stiff(F, r, y2, t, mass, stiff);
      v2 = k2.alpha * mass + k2.beta * stiff;
    }
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

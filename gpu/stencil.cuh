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

// mass = (Mrest y)[t], stiff = (Arest y)[t] for the dimensions r .. ndim-1.
template <class T>
__device__ inline void mass_stiff(const Facs<T> &F, int r, const T *y, size_t t, T &mass,
                                  T &stiff)
{
  mass = T(0);
  stiff = T(0);
  if (F.ndim - r == 1) {
    const FacDim<T> D = F.dim(r);
    const int n = D.n, i = (int)t;
    for (int s = -1; s <= 1; s++) {
      const int j = i + s;
      if (j < 0 || j >= n)
        continue;
      const T yv = y[j];
      mass += tri_at(D.md, D.mo, i, s) * yv;
      stiff += tri_at(D.ad, D.ao, i, s) * yv;
    }
    return;
  }
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

// (T(j, p) y)[t] for dimension d with shift c; |j - p| = 1; y is one slab.
template <class T>
__device__ inline T couple(const Facs<T> &F, int d, T c, int j, int p, const T *y, size_t t)
{
  const int o = j < p ? j : p;
  const FacDim<T> D = F.dim(d);
  const T alpha = D.ao[o] + c * D.mo[o], beta = D.mo[o];
  T mass, stiff;
  mass_stiff(F, d + 1, y, t, mass, stiff);
  return alpha * mass + beta * stiff;
}

} // namespace pscr_cuda

#endif

// Level solve when the subproblems are tridiagonal (the level runs along the
// last-but-one dimension d, so the subproblem is (A_l + s M_l) y = r along the
// last dimension l = d + 1). One thread per subproblem (batch b, eigenpair e):
//   r = sum_q w_e[q] F_{d_q} (- w_e[first] gL - w_e[last] gR in the back
//   substitution), formed row by row during the elimination;
//   s = c_b + lambda_e; Thomas elimination exactly as the CPU backend's
//   (cpu_solve_impl.h, same pivot test).
// y and the multipliers are stored interleaved, element i of system `sys` at
// [i * nsys + sys], so consecutive threads touch consecutive addresses.
#ifndef PSCR_CUDA_THOMAS_CUH
#define PSCR_CUDA_THOMAS_CUH

#include <float.h>

#include "cuda_args.cuh"
#include "launch.cuh"
#include "level_rhs.cuh"

namespace pscr_cuda {

// x: B batch vectors of n_d * S entries, L.xs apart; g: NULL (forward) or gL, gR per
// (batch, block) as written by k_couple_back; flag: set to 1 on a pivot that
// is numerically zero.
template <class T>
__global__ void k_thomas(LevelArgs<T> L, Facs<T> F, int B, const T *cs, const T *x,
                         const T *g, T *v, T *cp, int *flag)
{
  pdl_gate();
  const FacDim<T> D = F.dim(L.d + 1);
  const int nl = D.n;
  const T *ad = D.ad, *ao = D.ao, *md = D.md, *mo = D.mo;
  const size_t S = L.S, nsys = (size_t)B * (size_t)L.ne;
  for (size_t sys = (size_t)blockIdx.x * blockDim.x + threadIdx.x; sys < nsys;
       sys += (size_t)gridDim.x * blockDim.x) {
    const int b = (int)(sys / (size_t)L.ne), e = (int)(sys % (size_t)L.ne);
    const LevelRhs<T> R = level_rhs(L, b, e, x, g);
    const T s = cs[b] + L.lam[e];

    int bad = 0;
    T eprev = T(0), cprev = T(0), yprev = T(0);
    for (int i = 0; i < nl; i++) {
      const T r = R.at((unsigned)i);
      const T diag = ad[i] + s * md[i];
      T piv;
      if (i == 0) {
        piv = diag;
        bad |= !(abs1(piv) > real_t<T>(0));
      } else {
        const T tt = eprev * cprev;
        piv = diag - tt;
        bad |= !(abs1(piv) > eps_of<T>() * (abs1(diag) + abs1(tt)));
      }
      const T iv = inv(piv);
      const T y = i == 0 ? r * iv : (r - eprev * yprev) * iv;
      eprev = i < nl - 1 ? ao[i] + s * mo[i] : T(0);
      cprev = eprev * iv;
      v[(size_t)i * nsys + sys] = y;
      cp[(size_t)i * nsys + sys] = cprev;
      yprev = y;
    }
    T ynext = yprev;
    for (int i = nl - 2; i >= 0; i--) {
      const size_t at = (size_t)i * nsys + sys;
      ynext = v[at] - cp[at] * ynext;
      v[at] = ynext;
    }
    if (bad)
      atomicOr(flag, 1);
  }
}

} // namespace pscr_cuda

#endif

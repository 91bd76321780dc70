/*
 * Kronecker-structured operators on vectors whose LAST dimension is fastest:
 * the building blocks of pscr_operator_apply and of the solver's coupling
 * terms T(j, p) (docs/design.md).
 */
#ifndef PSCR_KRON_H
#define PSCR_KRON_H

#include <stddef.h>

#include "scalar.h"

/* One tridiagonal matrix of order n; off == NULL means diagonal. */
#define PSCR_KRON_DECL(SCALAR, SUF)                                                    \
  typedef struct SUF(pscr_tri) {                                                       \
    int n;                                                                             \
    const SCALAR *diag, *off;                                                          \
  } SUF(pscr_tri);                                                                     \
                                                                                       \
  /* One symmetric tridiagonal pencil (A, M). */                                       \
  typedef struct SUF(pscr_factor) {                                                    \
    SUF(pscr_tri) a, m;                                                                \
  } SUF(pscr_factor);                                                                  \
                                                                                       \
  /* out (+)= alpha (T_0 (x) ... (x) T_{nd-1}) u for nd = 1..3, one stencil pass.       \
     accumulate = 0 overwrites out. out must not alias u. nt threads (0: OpenMP's      \
     default); inside a parallel region it runs in the calling thread. */              \
  void SUF(pscr_kron_apply)(int nd, const SUF(pscr_tri) * t, SCALAR alpha,              \
                            const SCALAR *u, SCALAR *out, int accumulate, int nt);     \
                                                                                       \
  /* mass = ((x)_d M_d) u and stiff = (sum_d A_d on axis d, M elsewhere) u.            \
     Neither output may alias u. */                                                    \
  void SUF(pscr_kron_mass_stiff)(int nd, const SUF(pscr_factor) * f, const SCALAR *u,  \
                                 SCALAR *mass, SCALAR *stiff);                         \
                                                                                       \
  /* out = (stiff + shift mass) u: the operator of eq. 7 / 8, on nt threads (0:       \
     OpenMP's default). */                                                             \
  void SUF(pscr_kron_op)(int nd, const SUF(pscr_factor) * f, SCALAR shift,             \
                         const SCALAR *u, SCALAR *out, int nt);                        \
                                                                                       \
  /* ||stiff + shift mass||_inf: max row sum of |entries|, from the factors. */        \
  double SUF(pscr_kron_norm_inf)(int nd, const SUF(pscr_factor) * f, SCALAR shift);

#define PSCR_KRON_SUF_D_(name) name##_d
#define PSCR_KRON_SUF_Z_(name) name##_z
#define PSCR_KRON_SUF_S_(name) name##_s
#define PSCR_KRON_SUF_C_(name) name##_c
PSCR_KRON_DECL(double, PSCR_KRON_SUF_D_)
PSCR_KRON_DECL(double complex, PSCR_KRON_SUF_Z_)
PSCR_KRON_DECL(float, PSCR_KRON_SUF_S_)
PSCR_KRON_DECL(float complex, PSCR_KRON_SUF_C_)
#undef PSCR_KRON_SUF_D_
#undef PSCR_KRON_SUF_Z_
#undef PSCR_KRON_SUF_S_
#undef PSCR_KRON_SUF_C_

#endif

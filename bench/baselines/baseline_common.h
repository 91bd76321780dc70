/*
 * Shared by the fast Poisson baselines (fftw_poisson.c, cufft_poisson.cu):
 * the spectrum of a Kronecker-sum operator whose pencils are all Toeplitz.
 *
 * pscr's uniform-mesh Poisson problem (pscr_problem_create with
 * PSCR_PROBLEM_POISSON, grading 0; eq. 31, problems/factors.c) has in every
 * dimension A_d = (1/h) tridiag(-1, 2, -1) and the lumped mass M_d = h I.
 * Any symmetric Toeplitz tridiagonal T = tridiag(o, g, o) of order n has the
 * DST-I eigenvectors v_k(j) = sin(j k pi / (n+1)), j, k = 1..n, with the
 * eigenvalue g + 2 o cos(k pi / (n+1)), so both factors of every pencil are
 * diagonal in the DST-I basis and
 *
 *   2D: A = A1 (x) M2 + M1 (x) A2 + c M1 (x) M2                    (eq. 7)
 *   3D: A = A1 (x) M2 (x) M3 + M1 (x) A2 (x) M3 + M1 (x) M2 (x) A3
 *           + c M1 (x) M2 (x) M3                                   (eq. 8)
 *
 * is diagonalized by the DST-I along every dimension, with eigenvalues
 * lambda(k1, k2, k3) = sum_d a_d(k_d) prod_{e != d} m_e(k_e) + c prod_e m_e(k_e).
 *
 * The baselines use the unnormalized DST-I of FFTW's RODFT00,
 * Y_k = 2 sum_j X_j sin(pi (j+1)(k+1) / (n+1)), which is its own inverse up
 * to the factor 2(n+1). Every term of lambda has exactly one factor per
 * dimension, so that normalization is folded into the stored eigenvalues:
 * a[d] and m[d] hold 2(n_d+1) a_d and 2(n_d+1) m_d, and
 * u = DST(DST(f) / lambda) with lambda from the stored arrays.
 *
 * The baselines themselves (fftw_poisson.c, cufft_poisson.cu) transform
 * every dimension but the last and, per mode of the others, solve the
 * tridiagonal system along the last dimension: 2D (m1 A2 + (a1 + c m1) M2),
 * 3D (m1 m2 A3 + (a1 m2 + m1 a2 + c m1 m2) M3), with the scaled a and m of
 * the transformed dimensions (the same fold of the normalization) and the
 * last pencil's own entries. bl_lambda stays the operator's eigenvalue (the
 * singularity check below).
 */
#ifndef PSCR_BASELINE_COMMON_H
#define PSCR_BASELINE_COMMON_H

#include <stddef.h>

#include "pscr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Scaled 1D eigenvalues of every dimension; a 2D problem gets a third
 * dimension of size 1 with a = 0, m = 1, so one formula serves both. */
typedef struct bl_spectrum {
  int ndim;
  int n[3];      /* n[2] = 1 in 2D */
  double shift;  /* c */
  double *a[3];  /* n[d] entries: 2(n_d+1) a_d(k) */
  double *m[3];  /* n[d] entries: 2(n_d+1) m_d(k) */
  double *store; /* owns a[] and m[] */
} bl_spectrum;

/*
 * Fill @p s from real (R64) pencils and a real shift. Fails with
 * PSCR_ERROR_NOT_SUPPORTED, the reason in msg, when a pencil is not Toeplitz
 * (a non-uniform mesh) or M is not symmetric tridiagonal Toeplitz; with
 * PSCR_ERROR_SINGULAR when some lambda is zero (only a shift can do that).
 */
pscr_status bl_spectrum_init(bl_spectrum *s, int ndim, const pscr_pencil *pencils,
                             double shift, char *msg, size_t len);

/* Release what bl_spectrum_init allocated; a zeroed struct is fine. */
void bl_spectrum_free(bl_spectrum *s);

#ifdef __CUDACC__
#define BL_HOST_DEVICE __host__ __device__
#else
#define BL_HOST_DEVICE
#endif

/* lambda of the DST-I mode (k1, k2, k3), scaled by prod_d 2(n_d+1). */
static inline BL_HOST_DEVICE double bl_lambda(const double *a1, const double *m1, const double *a2,
                               const double *m2, const double *a3, const double *m3,
                               double c, int k1, int k2, int k3)
{
  double mm = m1[k1] * m2[k2];
  return a1[k1] * m2[k2] * m3[k3] + m1[k1] * a2[k2] * m3[k3] + mm * a3[k3] +
         c * mm * m3[k3];
}

#ifdef __cplusplus
}
#endif

#endif

/*
 * Generalized eigensolver for symmetric tridiagonal pencils (paper section
 * 4.2, eq. 23): the real and the complex symmetric entry points, both
 * expanded from one type-generic implementation (FFTW's X(name) style):
 *
 *   crawford_impl.h   Crawford's reduction to a standard tridiagonal problem
 *   crawford_lanes_impl.h  its bulge chases eight at a time in vector lanes
 *   shift_impl.h      Wilkinson's shift, ||T||
 *   lr_impl.h         LR algorithm with Wilkinson's shift (complex eigenvalues)
 *   lr_lanes_impl.h   its multishift passes: eight steps at a time in vector lanes
 *   pwk_impl.h        root-free PWK QL (real eigenvalues; lr_impl.h says why)
 *   twisted_impl.h    twisted factorizations, sixteen eigenvalues at a
 *                     time (real eigenvectors)
 *   vecops_impl.h     the eigenvector stage's vector kernels (M x, x^T y,
 *                     norms, residuals)
 *   pivlu_impl.h      tridiagonal LU with partial pivoting of A - sigma M,
 *                     for one shift and sixteen in vector lanes
 *   sweep_state_impl.h  the eigenvector stage's shared state: inputs,
 *                     batches, the sweep, its ring of recent vectors,
 *                     random starts
 *   produce_impl.h    batches of sixteen vectors: twisted (real), pivoted
 *                     inverse iteration in lanes (complex)
 *   blockgs_impl.h    blocked Gram-Schmidt of a batch against its window
 *                     and within it; normalization
 *   invit_impl.h      inverse iteration on the pencil, one vector at a
 *                     time (tight clusters, vectors the batches miss)
 *   pipeline_impl.h   the eigenvector stage's schedule: batches produced
 *                     in parallel and swept in order, by one thread or a
 *                     team, the spectrum split in two where that balances
 *   driver_impl.h     argument checks and the sequence of the above
 *
 * and, not type-generic, included once:
 *
 *   common.h, common.c  CMPLX where the C library lacks it, the detail
 *                     message of a failed call (EIG_ERROR,
 *                     pscr_eigen_last_error), the configuration
 *   lanes.h           lane vectors: eight doubles and their operations
 *   stage.h, stage.c  the eigenvector stage's team of threads, ring books,
 *                     random starts and schedule arithmetic
 *
 * eigen/ includes no header of src/: eigen.h, the interface, includes only
 * pscr.h. The EIG_* macros below give each expansion its scalar type and
 * operations. No shared mutable state: every call allocates its own
 * scratch and keeps its detail message per thread, so calls may run
 * concurrently from several threads.
 */
/* sched_yield (lr_lanes_impl.h) under -std=c11. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "eigen.h"

/* Complex products without C Annex G's NaN/Inf recovery (a libgcc
 * __muldc3 call each; the inputs are checked finite and every reciprocal
 * goes through eig_crecip), as CMake does for src/cpu_solve.c and
 * src/kron.c with -fcx-limited-range. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("cx-limited-range")
#endif

#include <complex.h>
#include <float.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "common.h"
#include "lanes.h"
#include "stage.h"

/*
 * Cluster window of inverse iteration: re-orthogonalize against earlier
 * vectors whose eigenvalues are within EIG_CLUSTER_TOL * ||T|| / n. Not
 * narrower for large n: smooth pencils would allow it, but with the width
 * times min(1, 4 / sqrt(n)) the orthogonality of test_eigen's glued
 * clusters at n = 1000 went from 1.38 to 6.16 n eps (bound 10; 2-core VM,
 * 2026-11-26; docs/performance.md).
 */
#define EIG_CLUSTER_TOL 1.0

/* Inverse iteration stops once ||b|| / ||x|| for (A - sigma M) x = b is
 * below EIG_RESID_TOL eps (||A|| + |lambda| ||M||) (infinity norms); the
 * inner products of vectors further apart than the cluster window then
 * measured below 2 n eps (n = 1000, random and Poisson pencils). */
#define EIG_RESID_TOL 4.0

/* Solves after the first are accepted when the residual is below
 * EIG_LATE_TOL sqrt(n) times the EIG_RESID_TOL bound (the first solve only
 * at the plain bound: accepting it at the loose one left |W^T M W - I| at
 * up to 70 n eps at n = 1000). */
#define EIG_LATE_TOL 1.0

/* Tight cluster: window members within EIG_TIGHT_TOL n eps ||T|| of an
 * eigenvalue; their orthogonalized vectors are accepted on an explicit
 * residual of up to the cluster's spread. */
#define EIG_TIGHT_TOL 10.0

/* Crawford's chases run in vector lanes (crawford_lanes_impl.h) from this
 * order on. */
#define EIG_CR_LANES_MIN 128

/* Twisted vectors (twisted_impl.h) are accepted when the Rayleigh
 * correction |rho - sigma| is below EIG_TW_TOL eps ||T|| and the residual
 * below EIG_TW_RESID n eps ||A - sigma M||. */
#define EIG_TW_TOL 4.0
#define EIG_TW_RESID 1.0

/* LR (complex): a step whose multipliers q_i exceed EIG_LR_GROWTH ||T||
 * is retried with a perturbed shift, up to EIG_LR_RETRIES times (then it is
 * taken as is). */
#define EIG_LR_GROWTH 1e3
#define EIG_LR_RETRIES 8

/* |re| + |im|: a cheap magnitude for pivoting and scaling decisions. */
static inline double eig_cabs1(double complex z) { return fabs(creal(z)) + fabs(cimag(z)); }

/* 1 / z with one real division, and no libgcc __divdc3 call (the C
 * complex division is slow in the inner loops). Scaled when |z|^2 would
 * leave the normal range. */
static inline double complex eig_crecip(double complex z)
{
  double a = creal(z), b = cimag(z);
  double den = a * a + b * b;
  if (den > DBL_MIN && den < DBL_MAX) {
    double r = 1.0 / den;
    return CMPLX(a * r, -b * r);
  }
  double s = fabs(a) + fabs(b);
  if (s == 0.0)
    return CMPLX(1.0 / s, 0.0); /* Inf, as 1/0 in the real case */
  a /= s;
  b /= s;
  double r = 1.0 / ((a * a + b * b) * s);
  return CMPLX(a * r, -b * r);
}

/* p / u as p conj(u) (1 / |u|^2): p conj(u) is formed while |u|^2 is, so a
 * recurrence through u waits for one real division and one product (the
 * LR step, lr_impl.h); eig_crecip's scaling when |u|^2 leaves the normal
 * range. */
static inline double complex eig_cdiv(double complex p, double complex u)
{
  double a = creal(u), b = cimag(u);
  double den = a * a + b * b;
  if (den > DBL_MIN && den < DBL_MAX) {
    double complex t = p * CMPLX(a, -b);
    double r = 1.0 / den;
    return CMPLX(creal(t) * r, cimag(t) * r);
  }
  return p * eig_crecip(u);
}

/* The principal square root r of z and 1 / r, with two real square roots
 * and one division (Crawford's rotations and pivots take one per row and
 * step; csqrt's hypot and the separate reciprocal dominated them). For
 * x >= 0: t = sqrt((|z| + x) / 2), r = t + i y / (2t); for x < 0:
 * t = sqrt((|z| - x) / 2), r = |y| / (2t) + i copysign(t, y); and
 * 1 / r = conj(r) / |z|, all from w = 1 / (t |z|). Outside the range
 * where |z|^2 is a normal number, csqrt and eig_crecip. */
static inline void eig_csqrt_recip(double complex z, double complex *r, double complex *rr)
{
  double x = creal(z), y = cimag(z);
  double m2 = x * x + y * y;
  if (!(m2 >= DBL_MIN && m2 < DBL_MAX)) {
    *r = csqrt(z);
    *rr = eig_crecip(*r);
    return;
  }
  double m = sqrt(m2);
  double t2 = 0.5 * (m + fabs(x)), t = sqrt(t2);
  double w = 1.0 / (t * m), hy = 0.5 * y * w; /* y / (2 t |z|) */
  if (x >= 0.0) {
    *r = CMPLX(t, hy * m);
    *rr = CMPLX(t2 * w, -hy);
  } else {
    *r = CMPLX(fabs(hy) * m, copysign(t, y));
    *rr = CMPLX(fabs(hy), -copysign(t2 * w, y));
  }
}

/* ---------------------------------------------------------------- real */
#define EIG(name) eig_##name##_real
#define EIG_T double
#define EIG_IS_REAL 1
#define EIG_ABS(x) fabs(x)
#define EIG_ABS1(x) fabs(x)
#define EIG_SQRT(x) sqrt(x)
/* The square root inside Wilkinson's shift: a negative radicand (possible
 * once LR has made the iterate unsymmetric) is clamped to zero. */
#define EIG_SQRT0(x) sqrt(fmax((x), 0.0))
#define EIG_RECIP(x) (1.0 / (x))
/* r = sqrt(x), rr = 1 / r */
#define EIG_SQRT_RECIP(x, r, rr) ((void)(*(r) = sqrt(x)), (void)(*(rr) = 1.0 / *(r)))
#define EIG_DIV(p, u) ((p) / (u))
#define EIG_ISFINITE(x) isfinite(x)
#define EIG_CONJ(x) (x)
/* Real: M must be positive definite, so every pivot must be positive. */
#define EIG_PIVOT_BAD(piv, mnorm) ((void)(mnorm), !((piv) > 0.0))
#define EIG_PERTURB_DIR 1.0
#define EIG_EIGENVALUES(n, d, p, dn, pn, tnorm, lanes)                                    \
  ((void)(dn), (void)(pn), (void)(lanes), EIG(pwk_eigenvalues)(n, d, p, tnorm))
/* Eigenvalues from PWK are accurate to eps ||T||: no refinement needed. */
#define EIG_REFINE 0
/* Batches of real vectors come from twisted factorizations. */
#define EIG_PIV_LANES 0

static int eig_compare_real(const void *x, const void *y)
{
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

#include "shift_impl.h"
#include "pwk_impl.h"
#include "twisted_impl.h"
#include "crawford_impl.h"
#include "crawford_lanes_impl.h"
#include "vecops_impl.h"
#include "pivlu_impl.h"
#include "sweep_state_impl.h"
#include "produce_impl.h"
#include "blockgs_impl.h"
#include "invit_impl.h"
#include "pipeline_impl.h"
#include "driver_impl.h"

#undef EIG_EIGENVALUES
#undef EIG_REFINE
#undef EIG_PIV_LANES
#undef EIG
#undef EIG_T
#undef EIG_IS_REAL
#undef EIG_ABS
#undef EIG_ABS1
#undef EIG_SQRT
#undef EIG_SQRT0
#undef EIG_RECIP
#undef EIG_SQRT_RECIP
#undef EIG_DIV
#undef EIG_ISFINITE
#undef EIG_CONJ
#undef EIG_PIVOT_BAD
#undef EIG_PERTURB_DIR

/* ---------------------------------------------------------------- complex */
#define EIG(name) eig_##name##_complex
#define EIG_T double complex
#define EIG_IS_REAL 0
#define EIG_ABS(x) cabs(x)
#define EIG_ABS1(x) eig_cabs1(x)
#define EIG_SQRT(x) csqrt(x) /* principal square root */
#define EIG_SQRT0(x) csqrt(x)
#define EIG_RECIP(x) eig_crecip(x)
#define EIG_SQRT_RECIP(x, r, rr) eig_csqrt_recip(x, r, rr)
#define EIG_DIV(p, u) eig_cdiv(p, u)
#define EIG_ISFINITE(x) (isfinite(creal(x)) && isfinite(cimag(x)))
#define EIG_CONJ(x) conj(x)
/* Complex symmetric: the factorizations only need nonzero pivots; a pivot
 * below eps ||M|| counts as zero. */
#define EIG_PIVOT_BAD(piv, mnorm) (!(eig_cabs1(piv) > DBL_EPSILON * (mnorm)))
#define EIG_PERTURB_DIR CMPLX(1.0, 0.5)
#define EIG_EIGENVALUES(n, d, p, dn, pn, tnorm, lanes) \
  EIG(lr_eigenvalues)(n, d, p, dn, pn, tnorm, lanes)
/* LR is not backward stable on complex symmetric matrices (unpivoted LU of
 * T - sigma I): inverse iteration refines each eigenvalue by the bilinear
 * Rayleigh quotient w^T A w / w^T M w (stationary at eigenvectors of a
 * complex symmetric pencil, so the error is squared) when the residual shows
 * the LR value is off. */
#define EIG_REFINE 1
/* Batches of vectors from pivoted inverse iteration in lanes (produce_impl.h,
 * piv_produce; unpivoted twisted factorizations lost orthogonality on
 * near-degenerate pairs), swept like the real twisted batches. */
#define EIG_PIV_LANES 1

static int eig_compare_complex(const void *x, const void *y)
{
  double complex a = *(const double complex *)x, b = *(const double complex *)y;
  if (creal(a) != creal(b))
    return (creal(a) > creal(b)) - (creal(a) < creal(b));
  return (cimag(a) > cimag(b)) - (cimag(a) < cimag(b));
}

#include "shift_impl.h"
#include "twisted_impl.h"
#include "lr_lanes_impl.h"
#include "lr_impl.h"
#include "crawford_impl.h"
#include "crawford_lanes_impl.h"
#include "vecops_impl.h"
#include "pivlu_impl.h"
#include "sweep_state_impl.h"
#include "produce_impl.h"
#include "blockgs_impl.h"
#include "invit_impl.h"
#include "pipeline_impl.h"
#include "driver_impl.h"

/* ---------------------------------------------------------------- API */
pscr_status pscr_eigen_real(int n, const double *a_diag, const double *a_off,
                            const double *m_diag, const double *m_off, double *lambda,
                            int nsel, const int *sel, double *w, const pscr_eigen_config *cfg)
{
  return eig_eigen_real(n, a_diag, a_off, m_diag, m_off, lambda, nsel, sel, w, cfg);
}

pscr_status pscr_eigen_complex(int n, const double complex *a_diag,
                               const double complex *a_off, const double complex *m_diag,
                               const double complex *m_off, double complex *lambda, int nsel,
                               const int *sel, double complex *w, const pscr_eigen_config *cfg)
{
  return eig_eigen_complex(n, a_diag, a_off, m_diag, m_off, lambda, nsel, sel, w, cfg);
}

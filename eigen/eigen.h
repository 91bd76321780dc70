/*
 * Generalized eigensolver for symmetric tridiagonal pencils
 *     A w = lambda M w,
 * real symmetric (M positive definite) and complex symmetric (not Hermitian;
 * the decomposition must exist), as in the paper's section 4.2:
 * Crawford's reduction to a standard tridiagonal problem when M has
 * off-diagonals (complex orthogonal rotations in the complex case), the LR
 * algorithm with Wilkinson's shift for the eigenvalues, and inverse iteration
 * for the eigenvectors. Eigenvectors are normalized so that W^T M W = I
 * (transpose, never conjugate).
 *
 * Thread safety: no global state; every call allocates its own scratch, so
 * calls may run concurrently (the plan calls it from OpenMP threads).
 */
#ifndef PSCR_EIGEN_H
#define PSCR_EIGEN_H

#include <complex.h>

#include "pscr.h"
#include "scalar.h" /* CMPLX where the C library lacks it */

/*
 * n        order, >= 1.
 * a_diag   n entries; a_off n-1 entries (ignored when n == 1).
 * m_diag   n entries; m_off n-1 entries or NULL (M diagonal).
 * lambda   out: n eigenvalues; real: ascending; complex: sorted by real part,
 *          then imaginary part.
 * nsel     number of wanted components per eigenvector (1..n).
 * sel      nsel 0-based row indices (any order, repeats allowed), or NULL
 *          meaning all rows 0..n-1 (then nsel must equal n).
 * w        out: n*nsel entries, w[j*nsel + s] = component sel[s] of the
 *          eigenvector of lambda[j]. May be NULL (eigenvalues only).
 *
 * Returns PSCR_SUCCESS, PSCR_ERROR_INVALID_VALUE (bad arguments),
 * PSCR_ERROR_NON_FINITE (NaN/Inf input), PSCR_ERROR_NOT_DEFINITE (real: M not
 * positive definite; complex: a zero pivot in the reduction or in a
 * normalization w^T M w = 0), PSCR_ERROR_EIGEN_FAILED (no convergence
 * within the iteration limit; never loops forever), PSCR_ERROR_HOST_ALLOC.
 * Every error also sets a detail message via pscr_error_set.
 */
pscr_status pscr_eigen_real(int n, const double *a_diag, const double *a_off,
                            const double *m_diag, const double *m_off, double *lambda,
                            int nsel, const int *sel, double *w);

pscr_status pscr_eigen_complex(int n, const double complex *a_diag,
                               const double complex *a_off, const double complex *m_diag,
                               const double complex *m_off, double complex *lambda, int nsel,
                               const int *sel, double complex *w);

#endif

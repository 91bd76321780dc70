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
 * Thread safety: no global state; every call allocates its own scratch and
 * keeps its detail message per thread, so calls may run concurrently (the
 * plan calls it from OpenMP threads).
 */
#ifndef PSCR_EIGEN_H
#define PSCR_EIGEN_H

#include <complex.h>

#include "pscr.h"

/*
 * Paths of a call, for tests and benchmarks that compare them. Every one
 * gives results within the same bounds; the results do not depend on the
 * number of threads, nor on team; lanes and split change their last bits.
 *   lanes  1 (default): Crawford's chases and complex LR's multishift
 *          passes in vector lanes; 0: the scalar sweep and single LR steps.
 *   team   the eigenvector sweep by every thread, each on its rows:
 *          -1 (default): from 4 threads on (EIG_TEAM_MIN); 0 never
 *          (thread 0 sweeps while the others produce); 1 always.
 *   split  the spectrum split in two for the eigenvector stage, at a gap
 *          wider than the cluster window: -1 (default) where that balances
 *          the parts (orders from 512 on); 0 never; 1 wherever such a gap
 *          exists (orders from 512 on).
 * Other values: PSCR_ERROR_INVALID_VALUE.
 */
typedef struct pscr_eigen_config {
  int lanes;
  int team;
  int split;
} pscr_eigen_config;

/* The defaults: lanes 1, team -1, split -1. */
void pscr_eigen_config_default(pscr_eigen_config *cfg);

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
 * cfg      the paths (pscr_eigen_config), or NULL for the defaults.
 *
 * Returns PSCR_SUCCESS, PSCR_ERROR_INVALID_VALUE (bad arguments),
 * PSCR_ERROR_NON_FINITE (NaN/Inf input), PSCR_ERROR_NOT_DEFINITE (real: M not
 * positive definite; complex: a zero pivot in the reduction or in a
 * normalization w^T M w = 0), PSCR_ERROR_EIGEN_FAILED (no convergence
 * within the iteration limit; never loops forever), PSCR_ERROR_HOST_ALLOC.
 * Every error also sets a detail message (pscr_eigen_last_error).
 */
pscr_status pscr_eigen_real(int n, const double *a_diag, const double *a_off,
                            const double *m_diag, const double *m_off, double *lambda,
                            int nsel, const int *sel, double *w, const pscr_eigen_config *cfg);

pscr_status pscr_eigen_complex(int n, const double complex *a_diag,
                               const double complex *a_off, const double complex *m_diag,
                               const double complex *m_off, double complex *lambda, int nsel,
                               const int *sel, double complex *w, const pscr_eigen_config *cfg);

/* The calling thread's detail message of its last call to pscr_eigen_real
 * or pscr_eigen_complex when that call failed; "" when it succeeded or
 * before any call. Valid until the thread's next call. */
const char *pscr_eigen_last_error(void);

#endif

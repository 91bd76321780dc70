/*
 * Host parts of the dense matrix-decomposition baseline (dense_md.h): the
 * generalized eigendecompositions (LAPACKE) and the GEMM sequence of a
 * solve. Plain C11, no CUDA.
 */
#include "dense_md.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if BL_HAVE_LAPACKE
#include <lapacke.h>
#endif

pscr_status bl_dense_plan_steps(int ndim, const int *n, bl_dense_steps *steps)
{
  if (!n || !steps || (ndim != 2 && ndim != 3))
    return PSCR_ERROR_INVALID_VALUE;
  for (int d = 0; d < ndim; d++)
    if (n[d] < 1)
      return PSCR_ERROR_INVALID_VALUE;
  memset(steps, 0, sizeof *steps);
  const long long n1 = n[0], n2 = n[1];
  if (ndim == 2) {
    /*
     * f is n1 x n2 row-major: column-major it is F^T (n2 x n1, ld n2).
     *   G = W1^T F:     column-major n1 x n2 (ld n1) = op_T(W1) op_T(F^T);
     *                   row i2 of system i1 at i1 + i2 n1: interleaved.
     *   tridiagonal solves in place on G (systems i1, rows i2);
     *   U^T = V^T W1^T: column-major n2 x n1 (ld n2) = u row-major n1 x n2.
     */
    steps->fwd[0] = (bl_dense_gemm){1, 1, (int)n1, (int)n2, (int)n1, BL_DENSE_W1, BL_DENSE_F,
                                    BL_DENSE_WORK, (int)n1, (int)n2, (int)n1, 0, 0, 0, 1};
    steps->back[0] = (bl_dense_gemm){1, 1, (int)n2, (int)n1, (int)n1, BL_DENSE_WORK, BL_DENSE_W1,
                                     BL_DENSE_U, (int)n1, (int)n1, (int)n2, 0, 0, 0, 1};
    steps->nfwd = steps->nback = 1;
    steps->tri = BL_DENSE_WORK;
    steps->nsys = (size_t)n1;
    steps->n = (int)n2;
    return PSCR_SUCCESS;
  }
  const long long n3 = n[2], s23 = n2 * n3;
  if (s23 > INT_MAX || n1 * n3 > INT_MAX)
    return PSCR_ERROR_NOT_SUPPORTED;
  /*
   * f is n1 x (n2 n3) row-major, entry (i1, i2 n3 + i3).
   *   1. G1 = W1^T F, column-major n1 x (n2 n3):  G1[i1 + n1 (i2 n3 + i3)].
   *   2. per i3 (batch, stride n1): the n1 x n2 slab of G1 with ld n1 n3,
   *      times W2: H[i1 + n1 j2 + n1 n2 i3] = sum_i2 G1[i1, i2, i3] W2[i2, j2]
   *      (W2^T applied along dimension 2). H into u.
   *   3. tridiagonal solves in place on u: system s = i1 + n1 i2, row i3 at
   *      s + n1 n2 i3 (interleaved).
   *   4. per i3: V slab (n1 x n2, ld n1) times W2^T into the G1 layout:
   *      P[j1 + n1 i2 n3 + n1 i3] = sum_j2 V[j1, j2, i3] W2[i2, j2]; the
   *      batches' outputs interleave column by column but never share an
   *      element (batch i3 writes rows i3 n1 .. i3 n1 + n1 - 1 of each
   *      column of ld n1 n3).
   *   5. U^T = P^T W1^T: column-major (n2 n3) x n1 = u row-major.
   */
  steps->fwd[0] = (bl_dense_gemm){1, 1, (int)n1, (int)s23, (int)n1, BL_DENSE_W1, BL_DENSE_F,
                                  BL_DENSE_WORK, (int)n1, (int)s23, (int)n1, 0, 0, 0, 1};
  steps->fwd[1] =
      (bl_dense_gemm){0, 0, (int)n1, (int)n2, (int)n2, BL_DENSE_WORK, BL_DENSE_W2, BL_DENSE_U,
                      (int)(n1 * n3), (int)n2, (int)n1, n1, 0, n1 * n2, (int)n3};
  steps->back[0] =
      (bl_dense_gemm){0, 1, (int)n1, (int)n2, (int)n2, BL_DENSE_U, BL_DENSE_W2, BL_DENSE_WORK,
                      (int)n1, (int)n2, (int)(n1 * n3), n1 * n2, 0, n1, (int)n3};
  steps->back[1] = (bl_dense_gemm){1, 1, (int)s23, (int)n1, (int)n1, BL_DENSE_WORK, BL_DENSE_W1,
                                   BL_DENSE_U, (int)n1, (int)n1, (int)s23, 0, 0, 0, 1};
  steps->nfwd = steps->nback = 2;
  steps->tri = BL_DENSE_U;
  steps->nsys = (size_t)(n1 * n2);
  steps->n = (int)n3;
  return PSCR_SUCCESS;
}

#if BL_HAVE_LAPACKE

pscr_status bl_dense_eig(const pscr_pencil *p, double *lam, double *w, char *msg, size_t len)
{
  if (!p || !lam || !w || p->n < 1 || !p->a_diag || !p->m_diag ||
      (p->n > 1 && !p->a_off)) {
    snprintf(msg, len, "bl_dense_eig: NULL argument or n < 1");
    return PSCR_ERROR_INVALID_VALUE;
  }
  const int n = p->n;
  const double *ad = p->a_diag, *ao = p->a_off, *md = p->m_diag, *mo = p->m_off;
  int diag = 1;
  for (int i = 0; i < n; i++) {
    if (!isfinite(ad[i]) || !isfinite(md[i]) || (i < n - 1 && !isfinite(ao[i])) ||
        (mo && i < n - 1 && !isfinite(mo[i]))) {
      snprintf(msg, len, "bl_dense_eig: NaN/Inf in the pencil (row %d)", i + 1);
      return PSCR_ERROR_NON_FINITE;
    }
    if (mo && i < n - 1 && mo[i] != 0)
      diag = 0;
  }
  pscr_status st = PSCR_SUCCESS;
  lapack_int info;
  if (diag) {
    /* S A S with S = M^{-1/2}: a standard symmetric tridiagonal problem. */
    double *sc = malloc(2 * (size_t)n * sizeof *sc), *e = sc + n;
    if (!sc) {
      snprintf(msg, len, "bl_dense_eig: %d doubles", 2 * n);
      return PSCR_ERROR_HOST_ALLOC;
    }
    for (int i = 0; i < n; i++) {
      if (!(md[i] > 0)) {
        free(sc);
        snprintf(msg, len, "bl_dense_eig: M(%d,%d) = %g is not positive", i + 1, i + 1, md[i]);
        return PSCR_ERROR_NOT_DEFINITE;
      }
      sc[i] = 1.0 / sqrt(md[i]);
    }
    for (int i = 0; i < n; i++) {
      lam[i] = ad[i] * sc[i] * sc[i];
      e[i] = i < n - 1 ? ao[i] * sc[i] * sc[i + 1] : 0.0;
    }
    info = LAPACKE_dstevd(LAPACK_COL_MAJOR, 'V', n, lam, e, w, n);
    if (info == 0)
      for (size_t j = 0; j < (size_t)n; j++)
        for (size_t i = 0; i < (size_t)n; i++)
          w[i + j * (size_t)n] *= sc[i];
    free(sc);
  } else {
    /* Band storage, upper, one super-diagonal: AB(1 + i - j, j) = A(i, j). */
    double *ab = malloc(4 * (size_t)n * sizeof *ab), *bb = ab + 2 * (size_t)n;
    if (!ab) {
      snprintf(msg, len, "bl_dense_eig: %d doubles", 4 * n);
      return PSCR_ERROR_HOST_ALLOC;
    }
    for (int j = 0; j < n; j++) {
      ab[2 * j] = j > 0 ? ao[j - 1] : 0.0;
      ab[2 * j + 1] = ad[j];
      bb[2 * j] = j > 0 ? mo[j - 1] : 0.0;
      bb[2 * j + 1] = md[j];
    }
    info = LAPACKE_dsbgvd(LAPACK_COL_MAJOR, 'V', 'U', n, 1, 1, ab, 2, bb, 2, lam, w, n);
    free(ab);
    if (info > n) {
      snprintf(msg, len, "LAPACKE_dsbgvd: M is not positive definite (info %d)", (int)info);
      return PSCR_ERROR_NOT_DEFINITE;
    }
  }
  if (info == LAPACK_WORK_MEMORY_ERROR || info == LAPACK_TRANSPOSE_MEMORY_ERROR) {
    snprintf(msg, len, "LAPACKE %s: out of memory", diag ? "dstevd" : "dsbgvd");
    st = PSCR_ERROR_HOST_ALLOC;
  } else if (info > 0) {
    snprintf(msg, len, "LAPACKE %s did not converge (info %d)", diag ? "dstevd" : "dsbgvd",
             (int)info);
    st = PSCR_ERROR_EIGEN_FAILED;
  } else if (info < 0) {
    snprintf(msg, len, "LAPACKE %s: argument %d invalid", diag ? "dstevd" : "dsbgvd",
             (int)-info);
    st = PSCR_ERROR_INVALID_VALUE;
  }
  return st;
}

#else

pscr_status bl_dense_eig(const pscr_pencil *p, double *lam, double *w, char *msg, size_t len)
{
  (void)p, (void)lam, (void)w;
  snprintf(msg, len, "pscr-baselines was built without LAPACKE (pkg-config lapacke)");
  return PSCR_ERROR_NOT_SUPPORTED;
}

#endif

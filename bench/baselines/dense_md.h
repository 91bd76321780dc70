/*
 * Dense matrix-decomposition (MD) solver on the GPU: the generic fast solver
 * for separable problems on non-uniform meshes (no FFT applies), to set
 * pscr beside. Real double only (PSCR_R64), 2D and 3D, any pencils pscr
 * accepts with M_1 (and M_2) symmetric positive definite.
 *
 * Algebra. For every dimension d except the last, the full generalized
 * eigendecomposition of the pencil (A_d, M_d):
 *     W_d^T A_d W_d = Lambda_d,   W_d^T M_d W_d = I
 * (so M_d = W_d^{-T} W_d^{-1} and A_d = W_d^{-T} Lambda_d W_d^{-1}). Putting
 * these into the operator (eq. 7 / 8) and taking W^{-T} out on the left and
 * W^{-1} on the right of every dimension but the last:
 *     2D: A = (W1^{-T} (x) I) [Lambda1 (x) M2 + I (x) A2 + c I (x) M2] (W1^{-1} (x) I)
 *     3D: A = (W1^{-T} (x) W2^{-T} (x) I)
 *             [Lambda1 (x) I (x) M3 + I (x) Lambda2 (x) M3 + I (x) I (x) A3 + c I (x) I (x) M3]
 *             (W1^{-1} (x) W2^{-1} (x) I)
 * The middle factor is block diagonal, one tridiagonal block per (i1) or
 * (i1, i2): A_l + (c + lambda1_i1 [+ lambda2_i2]) M_l. Hence
 *     u = (W1 (x) [W2 (x)] I) D^{-1} (W1^T (x) [W2^T (x)] I) f:
 * transform f with W^T along every dimension but the last (GEMMs), solve the
 * shifted tridiagonal systems along the last dimension, transform back with
 * W. Cost O(n1^2 n2) (2D) / O(n1 n2 n3 (n1 + n2)) (3D) flops in GEMMs, all of
 * it on tensor cores, plus O(N) memory passes.
 *
 * Create (untimed; wall time reported by the caller): LAPACKE
 * (LAPACKE_dstevd on the symmetrically scaled pencil when M_d is diagonal,
 * LAPACKE_dsbgvd with one super-diagonal otherwise), upload of W_d and
 * Lambda_d, the last dimension's pencil, a cuBLAS handle, a stream, and the
 * workspace (two vectors of N = n1 n2 (n3) doubles, plus f and u for
 * bl_dense_time). A solve allocates nothing and does not synchronize.
 *
 * Layout: f and u hold N doubles, the last dimension fastest,
 * x[(i1 n2 + i2) n3 + i3] (2D x[i1 n2 + i2]), device memory.
 *
 * Plain C interface; the implementation is dense_md.cu. Without CUDA
 * (PSCR_HAVE_CUDA 0) these are stubs returning PSCR_ERROR_NOT_SUPPORTED. A
 * CUDA build without LAPACKE (pkg-config lapacke) compiles the functions but
 * bl_dense_create returns PSCR_ERROR_NOT_SUPPORTED.
 */
#ifndef PSCR_BASELINE_DENSE_MD_H
#define PSCR_BASELINE_DENSE_MD_H

#include <stddef.h>
#include <stdio.h>

#include "pscr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bl_dense bl_dense;

enum { BL_DENSE_WARMUP = 2, BL_DENSE_MIN_REPEAT = 10 };

#if PSCR_HAVE_CUDA

/*
 * @brief Build the solver on CUDA device @p device for the operator of eq. 7
 *        (ndim 2) or eq. 8 (ndim 3).
 * @param[out] s       the solver; NULL on error.
 * @param[in]  device  CUDA device ordinal.
 * @param[in]  dtype   PSCR_R64; anything else is refused (NOT_SUPPORTED).
 * @param[in]  ndim    2 or 3.
 * @param[in]  pencils ndim pencils, dimension 1 first, real double entries
 *                     (pscr_pencil as for pscr_plan_create with PSCR_R64;
 *                     m_off NULL: M diagonal). Copied; the caller's arrays
 *                     may be freed after the call.
 * @param[in]  shift   &c, one double (a pscr_problem's shift array works).
 * @param[out] msg, len  the failing call or check on error.
 * @return PSCR_SUCCESS; PSCR_ERROR_INVALID_VALUE (NULL pencils / arrays /
 *   shift, ndim not 2 or 3, n < 1); PSCR_ERROR_NOT_SUPPORTED (dtype not
 *   PSCR_R64, no such device, LAPACKE not built in, a GEMM dimension or
 *   leading dimension above INT_MAX);
 *   PSCR_ERROR_NON_FINITE (NaN/Inf in a factor or the shift);
 *   PSCR_ERROR_NOT_DEFINITE (an M_d, d < ndim, not positive definite);
 *   PSCR_ERROR_EIGEN_FAILED (LAPACK did not converge); PSCR_ERROR_HOST_ALLOC;
 *   PSCR_ERROR_DEVICE_ALLOC; PSCR_ERROR_DEVICE (any other CUDA or cuBLAS
 *   error). Everything allocated is released on error.
 */
pscr_status bl_dense_create(bl_dense **s, int device, pscr_dtype dtype, int ndim,
                            const pscr_pencil *pencils, const double *shift, char *msg,
                            size_t len);

/*
 * @brief Enqueue u = A^{-1} f on @p stream (NULL: the solver's own stream).
 * @param[in]  d_f  device array of N doubles, last dimension fastest.
 * @param[out] d_u  device array of N doubles; d_u == d_f is allowed.
 * @return PSCR_SUCCESS; PSCR_ERROR_INVALID_VALUE (NULL argument);
 *   PSCR_ERROR_DEVICE (a launch or cuBLAS call failed). No allocation, no
 *   synchronization; a zero pivot of a shifted tridiagonal system is not
 *   detected here (it shows as Inf/NaN in u: check the answer).
 */
pscr_status bl_dense_solve_device(bl_dense *s, const double *d_f, double *d_u, void *stream,
                                  char *msg, size_t len);

/*
 * @brief Time the device-only solve: copy the host array @p f (N doubles) to
 *        the device once, BL_DENSE_WARMUP untimed solves, then @p repeat
 *        (raised to BL_DENSE_MIN_REPEAT) solves each between two CUDA events
 *        on the solver's stream; copy the last u back to the host array @p u.
 * @param[out] ms_median, ms_min  milliseconds per solve.
 * @return PSCR_SUCCESS; PSCR_ERROR_INVALID_VALUE (NULL argument);
 *   PSCR_ERROR_HOST_ALLOC; PSCR_ERROR_DEVICE.
 */
pscr_status bl_dense_time(bl_dense *s, const double *f, double *u, int repeat, double *ms_median,
                          double *ms_min, char *msg, size_t len);

/*
 * @brief What create did: @p eig_ms the wall time of the LAPACKE
 *        eigendecompositions, @p device_bytes the device memory held.
 *        Either pointer may be NULL.
 */
void bl_dense_info(const bl_dense *s, double *eig_ms, size_t *device_bytes);

/* @brief Release the solver (synchronizes its stream); NULL allowed. */
void bl_dense_destroy(bl_dense *s);

#else

static inline pscr_status bl_dense_create(bl_dense **s, int device, pscr_dtype dtype, int ndim,
                                          const pscr_pencil *pencils, const double *shift,
                                          char *msg, size_t len)
{
  (void)device, (void)dtype, (void)ndim, (void)pencils, (void)shift;
  *s = NULL;
  snprintf(msg, len, "this pscr build has no CUDA (PSCR_HAVE_CUDA is 0)");
  return PSCR_ERROR_NOT_SUPPORTED;
}
static inline pscr_status bl_dense_solve_device(bl_dense *s, const double *d_f, double *d_u,
                                                void *stream, char *msg, size_t len)
{
  (void)s, (void)d_f, (void)d_u, (void)stream;
  snprintf(msg, len, "this pscr build has no CUDA (PSCR_HAVE_CUDA is 0)");
  return PSCR_ERROR_NOT_SUPPORTED;
}
static inline pscr_status bl_dense_time(bl_dense *s, const double *f, double *u, int repeat,
                                        double *ms_median, double *ms_min, char *msg,
                                        size_t len)
{
  (void)s, (void)f, (void)u, (void)repeat, (void)ms_median, (void)ms_min;
  snprintf(msg, len, "this pscr build has no CUDA (PSCR_HAVE_CUDA is 0)");
  return PSCR_ERROR_NOT_SUPPORTED;
}
static inline void bl_dense_info(const bl_dense *s, double *eig_ms, size_t *device_bytes)
{
  (void)s;
  if (eig_ms)
    *eig_ms = 0;
  if (device_bytes)
    *device_bytes = 0;
}
static inline void bl_dense_destroy(bl_dense *s)
{
  (void)s;
}

#endif

/* ------------------------------------------------------------------------
 * Host parts (dense_md.c, plain C, built with or without CUDA): the
 * eigendecompositions and the exact sequence of GEMMs of a solve, shared by
 * dense_md.cu and the CPU self-check (check_main.c), which runs the same
 * steps with a reference GEMM to verify the layouts without a GPU.
 * ------------------------------------------------------------------------ */

/*
 * @brief Full generalized eigendecomposition of one real pencil (A, M), M
 *        symmetric positive definite: W^T A W = diag(lam), W^T M W = I.
 *        M diagonal (m_off NULL or all zero): LAPACKE_dstevd on
 *        S A S, S = M^{-1/2}, then W = S Z; otherwise LAPACKE_dsbgvd with
 *        one super-diagonal.
 * @param[in]  p    the pencil (double entries).
 * @param[out] lam  p->n eigenvalues, ascending.
 * @param[out] w    p->n^2 doubles, column-major: column j is eigenvector j.
 * @return PSCR_SUCCESS; PSCR_ERROR_INVALID_VALUE (NULL, n < 1);
 *   PSCR_ERROR_NON_FINITE; PSCR_ERROR_NOT_DEFINITE (M not positive
 *   definite); PSCR_ERROR_EIGEN_FAILED (LAPACK info > 0);
 *   PSCR_ERROR_HOST_ALLOC; PSCR_ERROR_NOT_SUPPORTED (built without LAPACKE).
 */
pscr_status bl_dense_eig(const pscr_pencil *p, double *lam, double *w, char *msg, size_t len);

/* Operands of the solve's GEMMs. */
typedef enum bl_dense_operand {
  BL_DENSE_F = 0,    /* the right-hand side f (read only) */
  BL_DENSE_U = 1,    /* the solution u (may be f) */
  BL_DENSE_WORK = 2, /* workspace of N doubles */
  BL_DENSE_W1 = 3,   /* W_1, n1 x n1 column-major */
  BL_DENSE_W2 = 4    /* W_2, n2 x n2 column-major (3D) */
} bl_dense_operand;

/* One cublasDgemmStridedBatched call, column-major, alpha 1, beta 0:
   C_b = op(A_b) op(B_b), X_b = X + b stride_x, b < batch. */
typedef struct bl_dense_gemm {
  int trans_a, trans_b; /* 1: op = transpose */
  int m, n, k;
  int a, b, c;          /* bl_dense_operand */
  int lda, ldb, ldc;
  long long stride_a, stride_b, stride_c;
  int batch;
} bl_dense_gemm;

/* A whole solve: the transforms W^T, the tridiagonal solves, W back. */
typedef struct bl_dense_steps {
  int nfwd, nback;
  bl_dense_gemm fwd[2], back[2];
  int tri;     /* operand the tridiagonal solves work on in place */
  size_t nsys; /* systems: n1 (2D) or n1 n2 (3D); system s = i1 (+ n1 i2) */
  int n;       /* their order, the last dimension's size */
  /* Row i of system s is at tri[s + i nsys] (interleaved: one thread per
     system reads consecutive addresses); its shift is
     c + lambda1[s % n1] (+ lambda2[s / n1] in 3D). */
} bl_dense_steps;

#ifdef __CUDACC__
#define BL_DENSE_HD __host__ __device__
#else
#define BL_DENSE_HD
#endif
#ifdef __CUDA_ARCH__ /* the device pass only: the host compiler does not know the pragma */
#define BL_DENSE_UNROLL _Pragma("unroll")
#else
#define BL_DENSE_UNROLL
#endif

/* Rows a Thomas sweep loads ahead (one memory latency per chunk). */
#define BL_DENSE_TRI_CHUNK 8

/*
 * @brief (A + s M) y = r for system @p sys of the interleaved layout, in
 *        place: row i at x[sys + i nsys]; plain Thomas (the sub-diagonal of
 *        row i is the super-diagonal of row i-1: the pencil is symmetric),
 *        the right-hand sides and multipliers of BL_DENSE_TRI_CHUNK rows
 *        loaded before they are used, so that one thread waits for memory
 *        once per chunk rather than once per row. The body of dense_md.cu's
 *        kernel, and of the CPU self-check.
 * @param ad, ao, md, mo  the pencil, n entries each, ao[n-1] = mo[n-1] = 0.
 * @param cp  multipliers, same layout as x (rows 0 .. n-2 written).
 */
static inline BL_DENSE_HD void bl_dense_tri_one(const double *ad, const double *ao,
                                                const double *md, const double *mo, int n,
                                                size_t nsys, size_t sys, double s, double *x,
                                                double *cp)
{
  double inv = 1.0 / (ad[0] + s * md[0]);
  double e = ao[0] + s * mo[0]; /* 0 when n == 1 (padding) */
  double xp = x[sys] * inv, cq = e * inv;
  x[sys] = xp;
  if (n > 1)
    cp[sys] = cq;
  int i = 1;
  for (; i + BL_DENSE_TRI_CHUNK <= n; i += BL_DENSE_TRI_CHUNK) {
    double r[BL_DENSE_TRI_CHUNK], a[BL_DENSE_TRI_CHUNK], m[BL_DENSE_TRI_CHUNK];
    double ae[BL_DENSE_TRI_CHUNK], me[BL_DENSE_TRI_CHUNK];
    BL_DENSE_UNROLL
    for (int q = 0; q < BL_DENSE_TRI_CHUNK; q++) {
      r[q] = x[sys + (size_t)(i + q) * nsys];
      a[q] = ad[i + q];
      m[q] = md[i + q];
      ae[q] = ao[i + q];
      me[q] = mo[i + q];
    }
    BL_DENSE_UNROLL
    for (int q = 0; q < BL_DENSE_TRI_CHUNK; q++) {
      const size_t idx = sys + (size_t)(i + q) * nsys;
      inv = 1.0 / (a[q] + s * m[q] - e * cq);
      xp = (r[q] - e * xp) * inv;
      x[idx] = xp;
      e = ae[q] + s * me[q]; /* 0 past the last row */
      cq = e * inv;
      if (i + q < n - 1)
        cp[idx] = cq;
    }
  }
  for (; i < n; i++) {
    const size_t idx = sys + (size_t)i * nsys;
    inv = 1.0 / (ad[i] + s * md[i] - e * cq);
    xp = (x[idx] - e * xp) * inv;
    x[idx] = xp;
    e = ao[i] + s * mo[i];
    cq = e * inv;
    if (i < n - 1)
      cp[idx] = cq;
  }
  /* Back substitution, rows n-2 .. 0; xp holds row n-1. */
  i = n - 2;
  for (; i + 1 >= BL_DENSE_TRI_CHUNK; i -= BL_DENSE_TRI_CHUNK) {
    double xv[BL_DENSE_TRI_CHUNK], cv[BL_DENSE_TRI_CHUNK];
    BL_DENSE_UNROLL
    for (int q = 0; q < BL_DENSE_TRI_CHUNK; q++) {
      xv[q] = x[sys + (size_t)(i - q) * nsys];
      cv[q] = cp[sys + (size_t)(i - q) * nsys];
    }
    BL_DENSE_UNROLL
    for (int q = 0; q < BL_DENSE_TRI_CHUNK; q++) {
      xp = xv[q] - cv[q] * xp;
      x[sys + (size_t)(i - q) * nsys] = xp;
    }
  }
  for (; i >= 0; i--) {
    const size_t idx = sys + (size_t)i * nsys;
    xp = x[idx] - cp[idx] * xp;
    x[idx] = xp;
  }
}

/*
 * @brief The steps of a solve for sizes n[0..ndim-1] (layout in dense_md.cu).
 * @return PSCR_SUCCESS; PSCR_ERROR_INVALID_VALUE (ndim not 2 or 3, n < 1);
 *   PSCR_ERROR_NOT_SUPPORTED (a GEMM size or leading dimension over INT_MAX).
 */
pscr_status bl_dense_plan_steps(int ndim, const int *n, bl_dense_steps *steps);

#ifdef __cplusplus
}
#endif

#endif

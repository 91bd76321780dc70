/*
 * The CUDA backend's dense transforms (PSCR_METHOD_TRANSFORM in every
 * reduced dimension: 2D T, 3D T x T; docs/design.md, Per-dimension
 * methods): cuBLAS products (or, for a 2D sine pencil, cuFFT's fast sine
 * transform) around batched Thomas solves of the last dimension, each
 * system with its own shift c + lambda. Plain C interface
 * for cuda_glue.c; the implementation is cuda_transform.cu. (A mixed 3D
 * vector, T x R or R x T, runs on the reduction's state: cuda_view.h.)
 */
#ifndef PSCR_CUDA_TRANSFORM_H
#define PSCR_CUDA_TRANSFORM_H

#include <stddef.h>

#include "pscr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the device needs, in the plan's apply type (float for R32 and C32,
   whose eigen data and factors the plan holds rounded). */
typedef struct pscr_cuda_tf_view {
  int device, ndim, n[3];
  int cplx, single;
  double shift[2];         /* c (re, im) */
  const void *w[2];        /* E_d = W_d^T, n_d x n_d row-major (row e: eigenvector e) */
  const void *lambda[2];   /* n_d eigenvalues */
  const void *fac[4];      /* the last dimension's a_diag, a_off, m_diag, m_off */
  int nthreads;            /* host threads for the staging copies */
  int no_twist;            /* PSCR_FLAG_CUDA_NO_TWIST */
  int device_only;         /* pscr_options.device_only: no host-solve buffer */
  int no_partition;        /* PSCR_FLAG_CUDA_TF_NO_PARTITION */
  /* 2D: dimension 1's sine scales s_k (plan.h) when it is applied by the
     fast sine transform (pscr_cuda_sine; gpu/sine.cuh), w[0] then unused;
     else NULL. */
  const void *sine_scale;
} pscr_cuda_tf_view;

/* Allocate the device buffers (eigen data, factors, one full-size
   workspace, a staging buffer for host solves), a stream and a cuBLAS
   handle on v->device: before the eigen stage. *bytes: device memory. */
pscr_status pscr_cuda_tf_setup(const pscr_cuda_tf_view *v, void **state, size_t *bytes);

/* Copy the eigen data and factors and probe the pivots of every system
   (they depend on the shifts only). */
pscr_status pscr_cuda_tf_upload(void *state, const pscr_cuda_tf_view *v);

pscr_status pscr_cuda_tf_solve_batch(void *state, int nrhs, const void *f, size_t ldf, void *u,
                                     size_t ldu);
pscr_status pscr_cuda_tf_solve_device_batch(void *state, int nrhs, const void *f, size_t ldf,
                                            void *u, size_t ldu, void *stream);
/* Whether the probe found a failing pivot (every solve then gives NaN). */
int pscr_cuda_tf_singular(const void *state);
/* The dependent steps of one system's chain when the partitioned solver
   (tf_part.cuh) takes a real 2D sine plan's Thomas systems of nl rows;
   0 where it does not serve that length (the cost model's rule). */
double pscr_cuda_tf_part_steps(int nl);
/* Whether sine.cuh's transposes of n rows of `cols` real columns fit their
   1D grid (a block per tile). */
int pscr_cuda_sine_fits(int n, size_t cols);
void pscr_cuda_tf_destroy(void *state);

#ifdef __cplusplus
}
#endif

#endif

/*
 * The transpose-based baseline of pscr-dist-bench (dist_transpose.h), the
 * part both executors share: the solve as a list of steps over named
 * buffers, built once by dt_plan_build (dist_transpose.c), run by the CPU
 * executor (dist_transpose.c: cblas, memcpy, MPI_Alltoallv, OpenMP Thomas)
 * or the GPU one (dist_transpose.cu: cuBLAS, cudaMemcpy2DAsync, NCCL, a
 * Thomas kernel). No MPI here: the .cu file includes it.
 *
 * Layout (pscr.h's): x[(i1 n2 + i2) n3 + i3] (2D x[i1 n2 + i2]); rank r
 * holds rows i1 in [b_r, e_r) of dimension 1 (nl1 = e_r - b_r); the
 * baseline also splits dimension 2 (pscr_mpi_split: [c_r, d_r), nl2). Every
 * matrix below is column-major (cuBLAS's and cblas's CblasColMajor); W_d
 * holds the eigenvectors of pencil d as columns, W_d^T M_d W_d = I.
 */
#ifndef PSCR_BENCH_DIST_TRANSPOSE_PLAN_H
#define PSCR_BENCH_DIST_TRANSPOSE_PLAN_H

#include <stddef.h>
#include <stdio.h>

#include "pscr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The buffers a step names (doubles). F and U: the caller's slab of f and u
   (nloc); SEND, RECV: the all-to-all buffers; WORK: the transformed volume
   of the rank's k2 (3D) or the Thomas multipliers (2D); CP: the Thomas
   multipliers (3D); W1, W2: the eigenvectors. */
enum { DT_F, DT_U, DT_SEND, DT_RECV, DT_WORK, DT_CP, DT_W1, DT_W2, DT_NBUF };

enum { DT_GEMM, DT_COPY, DT_A2A, DT_TRI };

/* C_j = op(A_j) op(B_j) + beta C_j, j < batch; X_j = buffer X + off + j stride. */
typedef struct dt_gemm {
  int ta, tb, m, n, k, lda, ldb, ldc, batch;
  int a, b, c;
  size_t oa, ob, oc;
  long long sa, sb, sc;
  double beta;
} dt_gemm;

/* rows x width doubles from (src + os, pitch ps) to (dst + od, pitch pd). */
typedef struct dt_copy {
  int src, dst, rows, width, ps, pd;
  size_t os, od;
} dt_copy;

/* All-to-all from src to dst with pattern `pattern` (reverse: the
   pattern's receive side is the send side and back); self: the own block
   is copied too (0: a step before wrote it into dst itself). */
typedef struct dt_a2a {
  int src, dst, pattern, reverse, self;
} dt_a2a;

/*
 * Thomas, in place on buffer x (multipliers in buffer cp): groups g <
 * groups of ns systems j of n rows each; row i of system (g, j) at
 * g ns n + j + i ns (consecutive systems at consecutive addresses). The
 * pencil is the last dimension's (A + s M), s = c + lam1[la + j]
 * (+ lam2[lb + g] when use_lb).
 */
typedef struct dt_tri {
  int x, cp, groups, ns, n, la, lb, use_lb;
} dt_tri;

typedef struct dt_step {
  int kind; /* DT_GEMM .. DT_TRI; the member of that name below */
  dt_gemm gemm;
  dt_copy copy;
  dt_a2a a2a;
  dt_tri tri;
} dt_step;

/* Doubles sent to / received from each rank, and their offsets. */
typedef struct dt_pattern {
  size_t *scnt, *soff, *rcnt, *roff; /* nranks each */
} dt_pattern;

typedef struct dt_plan {
  int ndim, n[3], nranks, rank; /* n[2] = 1 in 2D */
  double c;                     /* the shift */
  size_t nloc;                  /* this rank's slab, doubles */
  size_t size[DT_NBUF];         /* doubles of each buffer (F, U: nloc) */
  int nsteps;
  dt_step *steps;
  dt_pattern pat[2];
} dt_plan;

/* ------------------------------------------------------------------ GPU
 * dist_transpose.cu, built with CUDA and NCCL (DT_HAVE_GPU); the MPI side
 * (the NCCL id's broadcast, agreement of statuses) is dist_transpose.c's.
 * Every function returns PSCR_SUCCESS or a status with the failing call and
 * its cause in msg. */

typedef struct dt_gpu dt_gpu;

/* Bytes of an ncclUniqueId, and one (the caller broadcasts it). */
size_t dt_gpu_id_bytes(void);
pscr_status dt_gpu_make_id(void *id, char *msg, size_t len);

/* The device's UUID (16 bytes): NCCL needs one device per rank. */
pscr_status dt_gpu_uuid(int device, unsigned char uuid[16], char *msg, size_t len);

/* Device buffers, the eigenvectors and pencil uploaded, a stream, cuBLAS,
   events; no communicator yet. host_arrays: f and u of dt_gpu_solve are
   host arrays (copied in and out as part of the solve). */
pscr_status dt_gpu_create(dt_gpu **g, const dt_plan *plan, int device, int host_arrays,
                          const double *w1, const double *w2, const double *lam1,
                          const double *lam2, const double *fac, char *msg, size_t len);

/* The NCCL communicator (every rank, once all created their dt_gpu). */
pscr_status dt_gpu_connect(dt_gpu *g, const void *id, char *msg, size_t len);

/*
 * One solve, waited for (a timeout ends a wait on a failed peer: the
 * communicator is then aborted and every later solve fails). A local
 * failure does not skip the exchanges, so the peers are never left
 * waiting. step_ms[i]: milliseconds of step i (CUDA events); step_ms
 * [nsteps], [nsteps + 1]: the copies of f in and u out (host arrays).
 */
pscr_status dt_gpu_solve(dt_gpu *g, const double *f, double *u, double *step_ms, char *msg,
                         size_t len);

void dt_gpu_destroy(dt_gpu *g);

#ifdef __cplusplus
}
#endif

#endif

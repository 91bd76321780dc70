/*
 * A plain-data view of a plan for the CUDA backend. The plan headers are C11
 * (double complex) and cannot be compiled as C++, so cuda_glue.c reads the
 * plan and fills this C/C++-compatible struct; the .cu side consumes it.
 * Level tables are flattened per dimension, all levels concatenated.
 */
#ifndef PSCR_CUDA_VIEW_H
#define PSCR_CUDA_VIEW_H

#include <stddef.h>

#include "pscr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Ints per block in pscr_cuda_dim_view.blk. */
enum {
  PSCR_CUDA_BLK_FIRST = 0, /* first(B), 0-based */
  PSCR_CUDA_BLK_LAST = 1,  /* last(B) */
  PSCR_CUDA_BLK_ND = 2,    /* |D(B)|, 1..4 (4: the merged top level, src/levels.h) */
  PSCR_CUDA_BLK_D = 3,     /* D(B): 4 slots */
  PSCR_CUDA_BLK_EREL = 7,  /* first eigenpair of B, relative to the level's eig0 */
  PSCR_CUDA_BLK_INTS = 8
};

typedef struct pscr_cuda_level_view {
  int blk0, nb; /* blocks blk0 .. blk0+nb-1 of the dimension's blk table */
  int j0, nj;   /* J_i entries j0 .. j0+nj-1 of the dimension's jl table */
  size_t eig0;  /* the level's eigenpairs are eig0 .. eig0+ne-1 (contiguous) */
  int ne;
  int max_nd;   /* largest |D(B)| of the level's blocks */
} pscr_cuda_level_view;

typedef struct pscr_cuda_dim_view {
  /* 1: solved by the dense transform (PSCR_METHOD_TRANSFORM; the mixed 3D
     vectors): no levels (k = 0, empty tables), neig = n, lambda n
     eigenvalues, w E = W^T (n x n, row-major, row e the eigenvector e). */
  int transform;
  int n, k;
  size_t neig;               /* eigenpairs over all levels */
  int nblk, njl;             /* table lengths over all levels */
  int max_ne, max_nb;        /* largest ne and nb of any level */
  int item_sums;             /* partial sums per reduction item: 3, or 4 (src/levels.h) */
  pscr_cuda_level_view *lvl; /* k entries, level i at lvl[i-1] */
  int *blk;                  /* nblk * PSCR_CUDA_BLK_INTS */
  int *eblk;                 /* neig: level-relative block of each eigenpair */
  int *jl;                   /* njl * 3: j, left block, right block (level-relative, -1: none) */
  const void *lambda;        /* plan's lambda[d]: neig elements */
  const void *w;             /* plan's w[d]: neig * PSCR_W_SLOTS elements */
} pscr_cuda_dim_view;

typedef struct pscr_cuda_view {
  int is_complex; /* 0: real, 1: interleaved (re, im) pairs */
  int single;     /* 1: float data (R32, C32), 0: double (R64, C64) */
  int ndim, device;
  int rows_per_thread; /* pscr_options.cuda_rows_per_thread */
  unsigned int flags;  /* pscr_options.flags: the PSCR_FLAG_CUDA_* switches */
  int max_batch;       /* pscr_options.max_batch: right-hand sides per launch sequence */
  int num_threads;     /* CPU threads for the host-side staging copies */
  int n[3];
  size_t total, elem; /* elem: bytes per element of every array below */
  double shift[2];    /* c as (re, im) in double, whatever the precision */
  /* Factors of each dimension: a_diag (n), a_off (n-1), m_diag (n), m_off (n-1). */
  const void *fac[3][4];
  pscr_cuda_dim_view dim[2]; /* dimensions 0 .. ndim-2 */
} pscr_cuda_view;

/* Eigenpairs per reduction item (gpu/levels_kernels.cuh) at a level of ne
   eigenpairs whose weighted sums are fused into level 3 (gpu/part_sum.cuh),
   or 0 when that level keeps the separate sums pass (items of
   PSCR_CUDA_ITEM_EIGS). fuse_slots: the fused kernel's slots on the device
   (0: no fusion); min_eigs: the shortest item worth fusing (8 by default, 0
   when forced). A fused item writes 2-3 partial sums, so items are as long
   as one wave of the slots allows, ceil(ne / fuse_slots), between 4 and
   32 (with floor, 4095 eigenpairs on 264 slots made 273 items, and a second
   wave of 9 items doubled the level's time). Shorter items leave too few
   systems per slot to pay for the slot's lower occupancy (H100: 1023^2
   Poisson R64, items of 4, 0.31 -> 0.37 ms; 2047^2 R32, items of 4, no
   gain; 2047^2 R64 and 4095^2 R32, items of 8 and 16, 10% and 17% faster).
   The cost model (src/cost.c) applies the same rule. */
enum { PSCR_CUDA_ITEM_EIGS = 32, PSCR_CUDA_FUSE_MIN_EIGS = 8 };
static inline int pscr_cuda_fused_eigs(int ne, int fuse_slots, int min_eigs)
{
  if (fuse_slots <= 0)
    return 0;
  const int e = (ne + fuse_slots - 1) / fuse_slots;
  if (e < min_eigs)
    return 0;
  return e < 4 ? 4 : (e > PSCR_CUDA_ITEM_EIGS ? PSCR_CUDA_ITEM_EIGS : e);
}

/* cuda_glue.c: memcpy on nthreads OpenMP threads (staging copies). */
void pscr_cuda_host_copy(void *dst, const void *src, size_t bytes, int nthreads);

/* cuda_setup.cu, cuda_solve.cu, cuda_host.cu: the backend on a view. *state is the
   backend's private data. */
pscr_status pscr_cuda_state_setup(const pscr_cuda_view *v, void **state, size_t *device_bytes);
pscr_status pscr_cuda_state_upload(void *state, const pscr_cuda_view *v);
pscr_status pscr_cuda_state_solve(void *state, const void *f, void *u);
pscr_status pscr_cuda_state_solve_device(void *state, const void *f, void *u, void *stream);
/* nrhs right-hand sides, ld elements apart (arguments checked by solve.c). */
pscr_status pscr_cuda_state_solve_batch(void *state, int nrhs, const void *f, size_t ldf, void *u,
                                        size_t ldu);
pscr_status pscr_cuda_state_solve_device_batch(void *state, int nrhs, const void *f, size_t ldf,
                                               void *u, size_t ldu, void *stream);
void pscr_cuda_state_destroy(void *state);
/* What the state chose at setup (pscr_info, the cost model). */
typedef struct pscr_cuda_choices {
  int rows;        /* level-3 rows per thread, 0: plain Thomas */
  int threads;     /* threads per subproblem (1 for plain Thomas) */
  int mdiag;       /* M_l diagonal: the partitioned solver skips its off-diagonal */
  int toeplitz;    /* factors from row classes (2D Toeplitz plans, partition.cuh) */
  int pivot_table; /* the chunks' pivots from a plan-time table */
  int staged;      /* the factor table staged in shared memory (staged_facs) */
  int fuse_slots;  /* slots of the fused level-3 and sums kernel (0: separate pass) */
  int fuse_back;   /* back substitution fuses too: 0 no; 1 levels of up to 3 sums;
                      2 also the merged top level's 4 (src/levels.h) */
  int fuse_min;    /* the shortest fused item (pscr_cuda_fused_eigs) */
  int early_launch; /* the kernels launch early (launch.cuh) */
  int nan_fill;    /* every solve fills u with NaN: the plan's pivots fail with
                      plain Thomas too (probe_pivots) */
} pscr_cuda_choices;
void pscr_cuda_state_choices(const void *state, pscr_cuda_choices *c);

/* device.cu: the calling thread's current device (-1 when CUDA cannot say),
   and setting it back after a call that changed it. */
int pscr_cuda_current_device(void);
void pscr_cuda_restore_device(int device);
pscr_status pscr_cuda_copy_sync(int device, void *dst, const void *src, size_t bytes,
                                void *stream);
/* pscr_solve_device_profile; PSCR_ERROR_DEVICE unless the solve makes exactly
   `launches` launches. */
pscr_status pscr_cuda_state_solve_profile(void *state, const void *f, void *u, void *stream,
                                          double *ms, size_t launches);

#ifdef __cplusplus
}
#endif

#endif

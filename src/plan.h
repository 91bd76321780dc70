/* The plan object: everything a solve needs, built once (DESIGN.md section 3). */
#ifndef PSCR_PLAN_H
#define PSCR_PLAN_H

#include <stddef.h>

#include "backend.h"
#include "kron.h"
#include "levels.h"
#include "pscr.h"

struct pscr_plan {
  pscr_dtype dtype; /* the caller's type: f, u and the solve's arithmetic */
  int cplx;         /* C64 or C32 */
  int single;       /* R32 or C32: built in double, applied in float */
  int ndim;
  int n[3];     /* n[2] = 1 in 2D */
  size_t total; /* n1 n2 (n3) */
  size_t elem;  /* bytes per element of dtype */
  size_t celem; /* bytes per element of the compute type (double or double complex) */
  pscr_options opts;
  pscr_backend backend; /* resolved: CPU or CUDA */
  int nthreads;         /* CPU threads used by a solve */

  /* Owned copies of the factors in double or double complex (the compute
     type); off-diagonals always present (zeros when the caller passed NULL). */
  void *factor_storage;
  pscr_factor_d fac_d[3];
  pscr_factor_z fac_z[3];
  double shift[2]; /* c as (re, im) */

  /* Single precision (R32, C32): the balanced factors rounded to float, which
     the solve applies; fac_d / fac_z keep the double originals. */
  void *apply_storage;
  pscr_factor_s fac_s[3];
  pscr_factor_c fac_c[3];

  /* Reduction structure and eigen data of dimensions 1 .. ndim-1 (0-based:
     0 .. ndim-2): lambda[neig], w[neig * PSCR_W_SLOTS]. Computed in the
     compute type; in a single-precision plan rounded to float in place once
     the eigen stage is done (pscr_plan_create), so that from then on they
     have the plan's dtype, as everything a solve reads. */
  pscr_levels lv[2];
  void *lambda[2];
  void *w[2];

  /* CPU backend workspace (cpu_solve.c). */
  void *cpu_ws;
  size_t cpu_ws_bytes;

  /* The backend that runs the levels, and its private data. */
  const pscr_backend_ops *ops;
  void *backend_data;

  size_t host_bytes, device_bytes;

  /* Level-3 solver (pscr_info): rows per thread and threads per subproblem
     of the CUDA partitioned solver; 0 and 1 for plain Thomas. Set by the
     backend's setup. level3_mdiag: the partitioned solver skips the zero
     off-diagonal of a diagonal M_l (one multiply-add per row less).
     level3_toeplitz: it forms M_l, A_l from scalars (pscr_info). */
  int level3_rows, level3_threads, level3_mdiag, level3_toeplitz;
  /* level3_pivot_table: it takes the chunks' pivots from a table (pscr_info).
     level3_staged: it copies the factor table to shared memory (pscr_info). */
  int level3_pivot_table, level3_staged;
  /* CUDA, 2D: the slots of the level-3 kernel that adds up the weighted sums
     (0: none), whether the back substitution does so too (0: the forward
     reduction only; 1: back levels of up to 3 sums; 2: also the 4 of a
     merged top level, levels.h) and the shortest item it takes
     (pscr_cuda_fused_eigs). */
  int level3_fuse_slots, level3_fuse_back, level3_fuse_min;
  /* cuda_early_launch: the CUDA kernels launch early (pscr_info). */
  int cuda_early_launch;
  /* cuda_nan_fill: a shifted subproblem is singular (the CUDA setup's
     probe solve, gpu/cuda_solve.cu probe_pivots): every CUDA solve ends
     with a kernel that fills u with NaN. 0 otherwise, and on the CPU. */
  int cuda_nan_fill;
};

/* The cost model of one solve (cost.c): per stage kind, their sum, and the
   least traffic of any solve. */
void pscr_cost_model(const pscr_plan *p, pscr_cost *cost, pscr_cost *total, double *min_bytes);

/* Levels whose sums the CUDA level-3 kernel adds up (pscr_info.level3_fused_levels). */
int pscr_cost_fused_levels(const pscr_plan *p);

/* Slab length below dimension d: prod_{e > d} n_e. */
static inline size_t pscr_plan_slab(const pscr_plan *p, int d)
{
  size_t s = 1;
  for (int e = d + 1; e < p->ndim; e++)
    s *= (size_t)p->n[e];
  return s;
}

#endif

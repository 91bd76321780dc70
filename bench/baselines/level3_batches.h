/*
 * The level-3 work of one pscr solve, as a list of batched tridiagonal
 * solves: what a general batched tridiagonal solver (cuSPARSE gtsv,
 * cusparse_level3.h) would have to do in place of pscr's own level-3
 * solver, launch for launch.
 *
 * Every level-3 subproblem is a tridiagonal system (A_l + s M_l) y = r of
 * order n_l, l = ndim-1 the last dimension, with a shift s. pscr's solve
 * (DESIGN.md section 2; gpu/cuda_backend.cu run_dim / level_solve) issues
 * them in batches, one per level pass, in this order:
 *
 *   2D: dimension 1 (0-based 0) forward levels i = 1..k-1, then back levels
 *       i = k..1, skipping levels without blocks. The batch of level i holds
 *       one system per eigenpair e of the level (ne_i of them, in the plan's
 *       eigenpair order), shift s = c + lambda_e.
 *   3D: each level pass of dimension 1 (same order) with eigenpairs
 *       e0 = 0..ne0-1 is a batch of B = ne0 2D problems along dimensions 2, 3
 *       with shifts c + lambda0_e0; that batch runs dimension 2's level
 *       passes (same order again), each one launch of nsys = B ne1 systems,
 *       system b ne1 + e1 with shift c + lambda0_e0(b) + lambda1_e1 (the
 *       order of gpu/levels_kernels.cuh k_gather).
 *
 * So a 2D plan gives (2k-1) launches and a 3D plan (2k0-1)(2k1-1), fewer when
 * a level has no blocks.
 *
 * Plain C, host only; it reads the plan's private structure (src/plan.h),
 * so it is compiled with the library's private include directories. This
 * header needs only pscr.h.
 */
#ifndef PSCR_BASELINE_LEVEL3_BATCHES_H
#define PSCR_BASELINE_LEVEL3_BATCHES_H

#include <stddef.h>

#include "pscr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One batched launch of level-3 systems. */
typedef struct bl_l3_launch {
  size_t nsys;   /* systems in the launch, each of order list->n */
  size_t shift0; /* its shifts are list->shift values shift0 .. shift0 + nsys - 1
                    (complex: value t is list->shift[2t], [2t+1] = re, im) */
  int level0;    /* level (1..k) of dimension 1 whose pass this is (3D: the outer pass) */
  int back0;     /* 0: forward reduction pass, 1: back substitution pass */
  int level1;    /* 3D: level of dimension 2 (inner pass); 0 in 2D */
  int back1;     /* 3D: 0 forward, 1 back; 0 in 2D */
} bl_l3_launch;

/* Every level-3 launch of one solve of a plan, in solve order. */
typedef struct bl_l3_list {
  int ndim;           /* 2 or 3 */
  int cplx;           /* 0: R64 plan (real shifts and factors), 1: C64 (interleaved re, im) */
  int n;              /* order n_l of every system: the last dimension's size */
  /* The last dimension's pencil in the compute type, n values each (2n
     doubles when cplx); the off-diagonals are padded: ao[n-1] = mo[n-1] = 0.
     Row i of A_l + s M_l: sub ao[i-1] + s mo[i-1] (i > 0), diagonal
     ad[i] + s md[i], super ao[i] + s mo[i] (i < n-1). */
  const double *ad, *ao, *md, *mo;
  int nlaunch;
  bl_l3_launch *launch; /* nlaunch entries, in solve order */
  double *shift;        /* total_sys values (2 total_sys doubles when cplx) */
  size_t total_sys;     /* sum of nsys */
  size_t total_rows;    /* sum of nsys * n: tridiagonal rows solved by one pscr solve */
  size_t max_sys;       /* largest nsys */
  void *store;          /* internal: owns the arrays */
} bl_l3_list;

/*
 * @brief Enumerate the level-3 launches of one solve of @p plan (any
 *        backend; the shifts come from the plan's eigenvalues and shift c,
 *        which do not depend on the backend).
 * @param[in]  plan  a plan from pscr_plan_create, ndim 2 or 3, R64 or C64.
 * @param[out] list  filled on success, zeroed on error; release with
 *                   bl_l3_list_free.
 * @param[out] msg, len  a message on error (len bytes, NUL-terminated).
 * @return PSCR_SUCCESS; PSCR_ERROR_INVALID_VALUE (NULL argument);
 *   PSCR_ERROR_NOT_SUPPORTED (a dtype other than R64 / C64);
 *   PSCR_ERROR_HOST_ALLOC; PSCR_ERROR_NON_FINITE (a shift c + lambda..
 *   overflowed: the list would be useless).
 */
pscr_status bl_l3_list_build(const pscr_plan *plan, bl_l3_list *list, char *msg, size_t len);

/*
 * @brief Consistency checks of a built list against the plan, independent
 *        of the enumeration: the total number of systems equals
 *        2D: 2 neig - ne_k, 3D: (2 neig0 - ne0_k)(2 neig1 - ne1_k)
 *        (neig the eigenpairs of a dimension over all its levels, ne_k those
 *        of its top level, which runs once); every launch's systems lie in
 *        the shift array; total_rows = total_sys n; and the shifts of every
 *        2D launch are c + the eigenvalues of its level, in order.
 * @return PSCR_SUCCESS, or PSCR_ERROR_INVALID_VALUE with what differs in msg.
 */
pscr_status bl_l3_list_verify(const pscr_plan *plan, const bl_l3_list *list, char *msg,
                              size_t len);

/* @brief Release what bl_l3_list_build allocated; a zeroed list is fine. */
void bl_l3_list_free(bl_l3_list *list);

#ifdef __cplusplus
}
#endif

#endif

/*
 * Backends differ only in how they run the levels of a solve: a small ops
 * table (as SUNDIALS' N_Vector_Ops) that the core calls and never looks past.
 * The plan's level structure and eigen data are shared; what a backend
 * chooses and allocates lives in plan->backend_data.
 */
#ifndef PSCR_BACKEND_H
#define PSCR_BACKEND_H

#include <stddef.h>

#include "cost.h"
#include "pscr.h"

struct pscr_plan;

/*
 * A distributed plan's slab for the one-pass solve on device arrays
 * (mpi_modes.c): rows planes of n2 x n3 values of the plan's dtype (n3 = 1
 * in 2D), row-major, the first nI of them the interior's rows. Arrays in
 * the plan's dtype (double or double complex). E[d] (d + 2 the dimension,
 * n_{d+2} x n_{d+2}, row-major): row e the eigenvector of lam[d][e], W^T M W
 * = I. Dimension 1's entries of J = A1 + t M1 over the interior, as pairs
 * (A1, M1) of dtype: jd its nI diagonals (pair i: row ia + i), jo its
 * nI + 1 couplings (pair i: rows ia - 1 + i and ia + i; zeros where a row
 * is outside the problem).
 * The separators (for modes_separators): this rank of size ranks, rank r
 * owning modes [moff[r], moff[r] + mcount[r]); per own mode k (nm of them)
 * the factored Schur system of the size - 1 separators, entry j at
 * j nm + k: inv_piv (1 / pivot) and sup (the superdiagonal), dtype.
 */
typedef struct pscr_modes_view {
  int ndim, cplx, n2, n3, nI;
  size_t rows;
  const void *E[2], *lam[2];
  const void *jd, *jo;
  double shift[2];
  int rank, size;
  const int *moff, *mcount;
  const void *inv_piv, *sup;
} pscr_modes_view;

/* Bytes of a modes_comm_id (NCCL's unique id). */
#define PSCR_MODES_ID_BYTES 128

typedef struct pscr_backend_ops {
  const char *name;
  /* Whether the backend takes the plan's problem (sizes, dtype, options):
     0 with the reason in why (len bytes) when it does not. NULL: always. */
  int (*accepts)(const struct pscr_plan *plan, char *why, size_t len);
  /* Allocate what solves need. Called before the eigen stage, so a plan
     too large for memory fails fast; the plan's levels exist, its lambda and
     w arrays are allocated but not yet filled. */
  pscr_status (*setup)(struct pscr_plan *plan);
  /* Copy the finished plan data (factors, eigen data, level tables) where the
     backend needs it; called last in pscr_plan_create. May be NULL. */
  pscr_status (*upload)(struct pscr_plan *plan);
  /* Host arrays; u may equal f. */
  pscr_status (*solve)(struct pscr_plan *plan, const void *f, void *u);
  /* Device arrays on a stream (NULL when the backend has none). */
  pscr_status (*solve_device)(struct pscr_plan *plan, const void *f, void *u, void *stream);
  /* nrhs host right-hand sides, ldf / ldu elements apart, arguments already
     checked (solve.c): u == f with ldu == ldf or no overlap. */
  pscr_status (*solve_batch)(struct pscr_plan *plan, int nrhs, const void *f, size_t ldf,
                             void *u, size_t ldu);
  /* The same with device arrays on a stream (NULL when the backend has none). */
  pscr_status (*solve_device_batch)(struct pscr_plan *plan, int nrhs, const void *f,
                                    size_t ldf, void *u, size_t ldu, void *stream);
  /* pscr_solve_device with CUDA-event times per stage kind (NULL when the
     backend has none). */
  pscr_status (*solve_profile)(struct pscr_plan *plan, const void *f, void *u, void *stream,
                               double *ms);
  /* PSCR_PLANNER_MEASURE: up to max solves, back to back, each one's
     seconds into seconds[] (*done of them), asking more(ctx, seconds,
     done) after each whether to go on; on the backend's own arrays (device
     arrays on the CUDA backend) holding pscr_plan_probe_values, with the
     threads a solve would take now. NULL: the backend cannot time. */
  pscr_status (*time_solves)(struct pscr_plan *plan, int max, double *seconds, int *done,
                             int (*more)(void *ctx, const double *seconds, int done), void *ctx);
  /* pscr_options.refine on device arrays: allocate what a refined device
     solve needs (called once, at plan creation, when refine > 0), and the
     refined device solve itself. NULL when the backend has no device arrays. */
  pscr_status (*refine_setup)(struct pscr_plan *plan);
  pscr_status (*solve_device_refined)(struct pscr_plan *plan, const void *f, void *u,
                                      void *stream);
  /* bytes from src to dst, either of them host or device memory (the
     plan's device: unified addressing tells which), ordered on stream and
     finished on return. The CPU backend: memcpy. Distributed solves move
     planes of device arrays through it (mpi_solve.c). */
  pscr_status (*copy)(const struct pscr_plan *plan, void *dst, const void *src, size_t bytes,
                      void *stream);
  /* The one-pass distributed solve on device arrays (mpi_modes.c), on the
     plan's device: modes_create uploads a slab's view and allocates its
     work space, three device planes (*dev_planes) and six pinned host
     planes (*host_planes) of dtype. modes_transform takes the slab src to
     the transverse modes (back = 0) or back into dst (src may be dst);
     modes_ends writes the first and last entries of J_m^-1 x per mode of
     the interior into the device planes vf and vl (*bad: the first mode
     + 1 with a pivot at rounding level, else 0; finished on return);
     modes_solve solves the interior in place per mode with the
     separators' planes usl (before it) and us (after it), either NULL
     where absent. All NULL where the backend has no device arrays. */
  pscr_status (*modes_create)(const struct pscr_plan *plan, const pscr_modes_view *view,
                              void **ctx, void **dev_planes, void **host_planes);
  pscr_status (*modes_transform)(void *ctx, int back, const void *src, void *dst, void *stream);
  pscr_status (*modes_ends)(void *ctx, const void *x, void *vf, void *vl, size_t *bad,
                            void *stream);
  pscr_status (*modes_solve)(void *ctx, void *x, const void *usl, const void *us, void *stream);
  void (*modes_destroy)(void *ctx);
  /* Host arrays in the one-pass form: a device slab of dtype (the view's
     rows) and a stream to solve it on, the context's own, made at the
     first call and kept. */
  pscr_status (*modes_stage)(void *ctx, void **slab, void **stream);
  /* The device memory and the pinned host memory the context holds. */
  void (*modes_bytes)(const void *ctx, size_t *device_bytes, size_t *host_bytes);
  /* The separators' steps on the device, exchanging between the ranks'
     devices (NCCL; all NULL where the backend has no such exchange).
     modes_comm_key: the plan's device's 16-byte UUID (one rank per
     device); modes_comm_id: a new communicator's id (PSCR_MODES_ID_BYTES,
     on one rank); modes_comm_init: every rank joins with that id
     (collective). modes_separators (after modes_ends; collective): each
     rank's term for the previous separator from vf, the separator's
     right-hand side from x's separator plane (plane nI, where the rank has
     one), vl and the next rank's term, the Schur systems per mode through
     two all-to-alls, x's separator plane its solution, usl (a device
     plane) the previous rank's; ordered on the stream and finished on
     return (the wait watches the exchange: a failed peer is an error, not
     a hang). */
  pscr_status (*modes_comm_key)(void *ctx, unsigned char *key);
  pscr_status (*modes_comm_id)(void *ctx, unsigned char *id);
  pscr_status (*modes_comm_init)(void *ctx, const unsigned char *id);
  pscr_status (*modes_separators)(void *ctx, void *x, const void *vf, const void *vl, void *usl,
                                  void *stream);
  /* The rules of the cost model for this plan (cost.h). */
  void (*cost_rules)(const struct pscr_plan *plan, pscr_cost_rules *rules);
  /* The backend's fields of pscr_info (level3_*, cuda_early_launch); the
     core has filled the others, and zeroed these. */
  void (*info)(const struct pscr_plan *plan, pscr_info *info);
  /* Release what setup allocated; must accept a partial setup. */
  void (*destroy)(struct pscr_plan *plan);
} pscr_backend_ops;

extern const pscr_backend_ops pscr_cpu_backend;
void pscr_cpu_cost_rules(const struct pscr_plan *p, pscr_cost_rules *rules);
/* Whether the CPU backend applies dimension d's transform by the fast sine
   transform (cpu_solve.c). */
int pscr_cpu_sine(const struct pscr_plan *p, int d);

/*
 * CUDA backend (gpu/). In a CPU-only build both hooks are stubs, so callers
 * carry no #ifdef. pscr_cuda_device_count returns the number of devices;
 * where the CUDA runtime cannot tell (no driver, an old one, no device) it
 * returns 0 and, when error is not NULL, points *error at the runtime's
 * text (a static string), else sets *error to NULL.
 */
#if PSCR_HAVE_CUDA
int pscr_cuda_device_count(const char **error);
const pscr_backend_ops *pscr_cuda_backend(void);
#else
static inline int pscr_cuda_device_count(const char **error)
{
  if (error)
    *error = NULL;
  return 0;
}
static inline const pscr_backend_ops *pscr_cuda_backend(void) { return NULL; }
#endif

#endif

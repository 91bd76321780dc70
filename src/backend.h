/*
 * Backends differ only in how they run the levels of a solve (STYLE.md: a
 * small ops table, like SUNDIALS N_Vector_Ops). The plan's level structure
 * and eigen data are shared.
 */
#ifndef PSCR_BACKEND_H
#define PSCR_BACKEND_H

#include "pscr.h"
#include "env.h"

typedef struct pscr_backend_ops {
  const char *name;
  /* Allocate what solves need. Called before the eigen stage, so a plan
     too large for memory fails fast; the plan's levels exist, its lambda and
     w arrays are allocated but not yet filled. */
  pscr_status (*setup)(pscr_plan *plan);
  /* Copy the finished plan data (factors, eigen data, level tables) where the
     backend needs it; called last in pscr_plan_create. May be NULL. */
  pscr_status (*upload)(pscr_plan *plan);
  /* Host arrays; u may equal f. */
  pscr_status (*solve)(pscr_plan *plan, const void *f, void *u);
  /* Device arrays on a stream (NULL when the backend has none). */
  pscr_status (*solve_device)(pscr_plan *plan, const void *f, void *u, void *stream);
  /* nrhs host right-hand sides, ldf / ldu elements apart, arguments already
     checked (solve.c): u == f with ldu == ldf or no overlap. */
  pscr_status (*solve_batch)(pscr_plan *plan, int nrhs, const void *f, size_t ldf, void *u,
                             size_t ldu);
  /* The same with device arrays on a stream (NULL when the backend has none). */
  pscr_status (*solve_device_batch)(pscr_plan *plan, int nrhs, const void *f, size_t ldf,
                                    void *u, size_t ldu, void *stream);
  /* pscr_solve_device with CUDA-event times per stage kind (NULL when the
     backend has none). */
  pscr_status (*solve_profile)(pscr_plan *plan, const void *f, void *u, void *stream,
                               double *ms);
  /* Release what setup allocated; must accept a partial setup. */
  void (*destroy)(pscr_plan *plan);
} pscr_backend_ops;

extern const pscr_backend_ops pscr_cpu_backend;

/* The largest slab (n2 n3 entries in 3D) the CUDA backend takes: 2^31 - 1,
 * or lower where PSCR_CUDA_MAX_SLAB (a test switch) says so, so that a small
 * plan exercises the refusal and AUTO's fallback; it never raises it. */
static inline long long pscr_cuda_max_slab(void)
{
  const long long limit = 0x7fffffffLL, lower = pscr_env_count("PSCR_CUDA_MAX_SLAB");
  return lower > 0 && lower < limit ? lower : limit;
}

/*
 * Whether the CUDA backend indexes a problem of sizes n[0..ndim-1]: the
 * coupling and gather kernels count a slab's entries in 32 bits, entry
 * t < S plus a grid stride of about S (PSCR_ENTRY_LOOP, levels_kernels.cuh),
 * and the 9-point couplings split t into its two indices with a 32-bit
 * division (stencil.cuh). So the longest slab, n2 n3 in 3D (n2 in 2D, an
 * int), must stay below 2^31.
 */
static inline int pscr_cuda_sizes_fit(int ndim, const int *n)
{
  return ndim < 3 || (long long)n[1] * (long long)n[2] <= pscr_cuda_max_slab();
}

/*
 * CUDA backend (gpu/). pscr_cuda_backend() is NULL while the backend is not
 * available; in a CPU-only build both hooks are stubs, so callers carry no
 * #ifdef.
 */
#if PSCR_HAVE_CUDA
int pscr_cuda_device_count(void);
const pscr_backend_ops *pscr_cuda_backend(void);
#else
static inline int pscr_cuda_device_count(void) { return 0; }
static inline const pscr_backend_ops *pscr_cuda_backend(void) { return NULL; }
#endif

#endif

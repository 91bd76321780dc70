/*
 * pscr_options.refine on device arrays (cuda_refine.cu): the operator's
 * residual r = f - A u on the device, in double (double complex) also for
 * float plans, and u += r. Plain C interface for cuda_glue.c.
 */
#ifndef PSCR_CUDA_REFINE_H
#define PSCR_CUDA_REFINE_H

#include <stddef.h>

#include "pscr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pscr_cuda_refine_view {
  int device, ndim, n[3], cplx, single;
  /* The plan's double copy of the factors: per dimension a_diag | a_off |
     m_diag | m_off, n_d entries each (double or interleaved double
     complex; the off-diagonals zero-padded). */
  const void *factors;
  double shift[2];
} pscr_cuda_refine_view;

/* Device buffers: the factors, r and a copy of f (in-place solves).
   *bytes: device memory allocated. */
pscr_status pscr_cuda_refine_setup(const pscr_cuda_refine_view *v, void **state, size_t *bytes);
/* Copy f into the state's buffer on stream; *saved: that buffer. */
pscr_status pscr_cuda_refine_save(void *state, const void *f, void *stream, const void **saved);
/* r = f - A u on stream, stored in the plan's type or (single_out, a
   double plan's refine_single) in its float type; *r: the state's
   residual buffer. */
pscr_status pscr_cuda_refine_residual(void *state, const void *f, const void *u,
                                      int single_out, void *stream, void **r);
/* u += r (the state's residual buffer, by then the correction; single_in:
   in the float type) on stream. */
pscr_status pscr_cuda_refine_add(void *state, void *u, int single_in, void *stream);
void pscr_cuda_refine_destroy(void *state);

#ifdef __cplusplus
}
#endif

#endif

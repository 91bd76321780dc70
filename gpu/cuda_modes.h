/*
 * The one-pass distributed solve's device half (cuda_modes.cu; backend.h's
 * modes_* ops, mpi_modes.c the host half): the transverse transforms of a
 * rank's slab as cuBLAS products, and the per-mode tridiagonal sweeps along
 * dimension 1, one thread per mode; where NCCL is (PSCR_HAVE_NCCL), the
 * separators' steps too, exchanging between the ranks' devices. Plain C
 * interface for cuda_glue.c.
 */
#ifndef PSCR_CUDA_MODES_H
#define PSCR_CUDA_MODES_H

#include <stddef.h>

#include "backend.h"
#include "pscr.h"

#ifdef __cplusplus
extern "C" {
#endif

pscr_status pscr_cuda_modes_create(int device, const pscr_modes_view *view, void **ctx,
                                   void **dev_planes, void **host_planes);
pscr_status pscr_cuda_modes_transform(void *ctx, int back, const void *src, void *dst,
                                      void *stream);
pscr_status pscr_cuda_modes_ends(void *ctx, const void *x, void *vf, void *vl, size_t *bad,
                                 void *stream);
pscr_status pscr_cuda_modes_solve(void *ctx, void *x, const void *usl, const void *us,
                                  void *stream);
void pscr_cuda_modes_destroy(void *ctx);
pscr_status pscr_cuda_modes_stage(void *ctx, void **slab, void **stream);
void pscr_cuda_modes_bytes(const void *ctx, size_t *device_bytes, size_t *host_bytes);
#if PSCR_HAVE_NCCL
pscr_status pscr_cuda_modes_comm_key(void *ctx, unsigned char *key);
pscr_status pscr_cuda_modes_comm_id(void *ctx, unsigned char *id);
pscr_status pscr_cuda_modes_comm_init(void *ctx, const unsigned char *id);
pscr_status pscr_cuda_modes_separators(void *ctx, void *x, const void *vf, const void *vl,
                                       void *usl, void *stream);
#endif

#ifdef __cplusplus
}
#endif

#endif

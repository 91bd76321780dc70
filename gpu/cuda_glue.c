/*
 * C side of the CUDA backend: reads the plan (C11 headers) into the plain
 * view of cuda_view.h and provides the ops table. The work happens in
 * cuda_setup.cu, cuda_solve.cu and cuda_host.cu.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_view.h"
#include "error.h"
#include "plan.h"

void pscr_cuda_host_copy(void *dst, const void *src, size_t bytes, int nthreads)
{
  /* One memcpy streams at a fraction of the host's memory bandwidth; the
     staging copies of large solves are split over the plan's threads. */
  const size_t piece = (size_t)1 << 20;
  const long long np = (long long)((bytes + piece - 1) / piece);
  if (np <= 1 || nthreads <= 1) {
    memcpy(dst, src, bytes);
    return;
  }
#pragma omp parallel for schedule(static) num_threads(nthreads)
  for (long long i = 0; i < np; i++) {
    const size_t off = (size_t)i * piece, len = bytes - off < piece ? bytes - off : piece;
    memcpy((char *)dst + off, (const char *)src + off, len);
  }
}

static void pscr_cuda_view_free(pscr_cuda_view *v)
{
  for (int d = 0; d < 2; d++) {
    free(v->dim[d].lvl);
    free(v->dim[d].blk);
    free(v->dim[d].eblk);
    free(v->dim[d].jl);
  }
  memset(v, 0, sizeof *v);
}

/* Flatten the level tables of dimension d. */
static pscr_status pscr_cuda_dim_fill(const pscr_plan *p, int d, pscr_cuda_dim_view *D)
{
  const pscr_levels *lv = &p->lv[d];
  D->n = p->n[d];
  D->k = lv->k;
  D->item_sums = pscr_item_sums(lv);
  D->neig = lv->neig;
  for (int i = 0; i < lv->k; i++) {
    D->nblk += lv->level[i].nblocks;
    D->njl += lv->level[i].nj;
  }
  D->lvl = calloc((size_t)(lv->k > 0 ? lv->k : 1), sizeof *D->lvl);
  D->blk = malloc((size_t)(D->nblk > 0 ? D->nblk : 1) * PSCR_CUDA_BLK_INTS * sizeof(int));
  D->eblk = malloc((lv->neig > 0 ? lv->neig : 1) * sizeof(int));
  D->jl = malloc((size_t)(D->njl > 0 ? D->njl : 1) * 3 * sizeof(int));
  if (!D->lvl || !D->blk || !D->eblk || !D->jl)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "CUDA level tables of dimension %d", d + 1);
  int blk0 = 0, j0 = 0;
  for (int i = 0; i < lv->k; i++) {
    const pscr_level *L = &lv->level[i];
    pscr_cuda_level_view *V = &D->lvl[i];
    V->blk0 = blk0;
    V->nb = L->nblocks;
    V->j0 = j0;
    V->nj = L->nj;
    V->eig0 = L->nblocks > 0 ? L->blocks[0].eig : 0;
    V->ne = 0;
    for (int b = 0; b < L->nblocks; b++) {
      const pscr_block *B = &L->blocks[b];
      int m = B->last - B->first + 1;
      int *row = D->blk + (size_t)(blk0 + b) * PSCR_CUDA_BLK_INTS;
      row[PSCR_CUDA_BLK_FIRST] = B->first;
      row[PSCR_CUDA_BLK_LAST] = B->last;
      row[PSCR_CUDA_BLK_ND] = B->nd;
      for (int q = 0; q < PSCR_D_MAX; q++)
        row[PSCR_CUDA_BLK_D + q] = q < B->nd ? B->d[q] : 0;
      if (B->nd > V->max_nd)
        V->max_nd = B->nd;
      /* The level's eigenpairs are contiguous, blocks in order (levels.c). */
      row[PSCR_CUDA_BLK_EREL] = (int)(B->eig - V->eig0);
      for (int e = 0; e < m; e++)
        D->eblk[B->eig + (size_t)e] = b;
      V->ne += m;
    }
    for (int q = 0; q < L->nj; q++) {
      int *row = D->jl + (size_t)(j0 + q) * 3;
      row[0] = L->j[q];
      row[1] = L->jleft[q];
      row[2] = L->jright[q];
    }
    if (V->ne > D->max_ne)
      D->max_ne = V->ne;
    if (V->nb > D->max_nb)
      D->max_nb = V->nb;
    blk0 += L->nblocks;
    j0 += L->nj;
  }
  D->lambda = p->lambda[d];
  D->w = p->w[d];
  return PSCR_SUCCESS;
}

static pscr_status pscr_cuda_view_build(const pscr_plan *p, pscr_cuda_view *v)
{
  memset(v, 0, sizeof *v);
  v->is_complex = p->cplx;
  v->single = p->single;
  v->ndim = p->ndim;
  v->device = p->opts.device;
  v->rows_per_thread = p->opts.cuda_rows_per_thread;
  v->max_batch = p->opts.max_batch;
  v->num_threads = p->nthreads;
  v->total = p->total;
  v->elem = p->elem;
  v->shift[0] = p->shift[0];
  v->shift[1] = p->shift[1];
  for (int d = 0; d < 3; d++)
    v->n[d] = p->n[d];
  /* The arrays a solve reads: the float copies of a single-precision plan
     (NULL at setup time, before they exist; setup needs only sizes). */
  for (int d = 0; d < p->ndim; d++) {
    if (p->single) {
      const void *F[4] = {p->fac_s[d].a.diag, p->fac_s[d].a.off, p->fac_s[d].m.diag,
                          p->fac_s[d].m.off};
      memcpy(v->fac[d], F, sizeof F);
    } else if (v->is_complex) {
      const pscr_factor_z *F = &p->fac_z[d];
      v->fac[d][0] = F->a.diag;
      v->fac[d][1] = F->a.off;
      v->fac[d][2] = F->m.diag;
      v->fac[d][3] = F->m.off;
    } else {
      const pscr_factor_d *F = &p->fac_d[d];
      v->fac[d][0] = F->a.diag;
      v->fac[d][1] = F->a.off;
      v->fac[d][2] = F->m.diag;
      v->fac[d][3] = F->m.off;
    }
  }
  for (int d = 0; d < p->ndim - 1; d++) {
    pscr_status st = pscr_cuda_dim_fill(p, d, &v->dim[d]);
    if (st) {
      pscr_cuda_view_free(v);
      return st;
    }
  }
  return PSCR_SUCCESS;
}

/* The plan's copy of what the CUDA state chose (pscr_info): after setup,
   and after an upload of new factors (M_l may have turned (non)diagonal). */
static void pscr_cuda_read_choices(pscr_plan *p)
{
  pscr_cuda_state_choices(p->backend_data, &p->level3_rows, &p->level3_threads,
                          &p->level3_mdiag, &p->level3_toeplitz, &p->level3_pivot_table,
                          &p->level3_staged, &p->level3_fuse_slots, &p->level3_fuse_back,
                          &p->level3_fuse_min, &p->cuda_early_launch, &p->cuda_nan_fill);
}

static pscr_status pscr_cuda_setup(pscr_plan *p)
{
  pscr_cuda_view v;
  pscr_status st = pscr_cuda_view_build(p, &v);
  if (st)
    return st;
  size_t bytes = 0;
  st = pscr_cuda_state_setup(&v, &p->backend_data, &bytes);
  p->device_bytes += bytes;
  if (st == PSCR_SUCCESS)
    pscr_cuda_read_choices(p);
  pscr_cuda_view_free(&v);
  return st;
}

static pscr_status pscr_cuda_upload(pscr_plan *p)
{
  pscr_cuda_view v;
  pscr_status st = pscr_cuda_view_build(p, &v);
  if (st)
    return st;
  st = pscr_cuda_state_upload(p->backend_data, &v);
  if (st == PSCR_SUCCESS)
    pscr_cuda_read_choices(p);
  pscr_cuda_view_free(&v);
  return st;
}

static pscr_status pscr_cuda_solve(pscr_plan *p, const void *f, void *u)
{
  return pscr_cuda_state_solve(p->backend_data, f, u);
}

static pscr_status pscr_cuda_solve_device(pscr_plan *p, const void *f, void *u, void *stream)
{
  return pscr_cuda_state_solve_device(p->backend_data, f, u, stream);
}

static pscr_status pscr_cuda_solve_batch(pscr_plan *p, int nrhs, const void *f, size_t ldf,
                                         void *u, size_t ldu)
{
  return pscr_cuda_state_solve_batch(p->backend_data, nrhs, f, ldf, u, ldu);
}

static pscr_status pscr_cuda_solve_device_batch(pscr_plan *p, int nrhs, const void *f,
                                                size_t ldf, void *u, size_t ldu, void *stream)
{
  return pscr_cuda_state_solve_device_batch(p->backend_data, nrhs, f, ldf, u, ldu, stream);
}

static pscr_status pscr_cuda_solve_profile(pscr_plan *p, const void *f, void *u, void *stream,
                                           double *ms)
{
  pscr_cost cost[PSCR_STAGE_COUNT], total;
  double min_bytes;
  pscr_cost_model(p, cost, &total, &min_bytes);
  /* One event per launch; the solve must make exactly the launches the cost
     model counts, in place or not, which checks the model. */
  return pscr_cuda_state_solve_profile(p->backend_data, f, u, stream, ms,
                                       (size_t)total.launches);
}

static void pscr_cuda_destroy(pscr_plan *p)
{
  pscr_cuda_state_destroy(p->backend_data);
  p->backend_data = NULL;
}

static const pscr_backend_ops pscr_cuda_ops = {
    .name = "cuda",
    .setup = pscr_cuda_setup,
    .upload = pscr_cuda_upload,
    .solve = pscr_cuda_solve,
    .solve_device = pscr_cuda_solve_device,
    .solve_batch = pscr_cuda_solve_batch,
    .solve_device_batch = pscr_cuda_solve_device_batch,
    .solve_profile = pscr_cuda_solve_profile,
    .destroy = pscr_cuda_destroy,
};

const pscr_backend_ops *pscr_cuda_backend(void) { return &pscr_cuda_ops; }

/*
 * C side of the CUDA backend: reads the plan (C11 headers) into the plain
 * view of cuda_view.h and provides the ops table. The work happens in
 * cuda_setup.cu, cuda_solve.cu and cuda_host.cu.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_modes.h"
#include "cuda_refine.h"
#include "cuda_time.h"
#include "cuda_transform.h"
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

/* Flatten the level tables of dimension d; a transformed dimension has
   none, only its eigen data. */
static pscr_status pscr_cuda_dim_fill(const pscr_plan *p, int d, pscr_cuda_dim_view *D)
{
  if (p->method[d] == PSCR_METHOD_TRANSFORM) {
    D->transform = 1;
    D->n = p->n[d];
    D->neig = (size_t)p->n[d];
    D->lambda = p->lambda[d];
    D->w = p->w[d];
    return PSCR_SUCCESS;
  }
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
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC,
                      "cannot allocate the CUDA level tables of dimension %d", d + 1);
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
  v->flags = p->opts.flags;
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

/* What the CUDA state chose (pscr_info, the cost model): after setup, and
   after an upload of new factors (M_l may have turned (non)diagonal). */
static void pscr_cuda_read_choices(pscr_cuda_backend_data *b)
{
  pscr_cuda_state_choices(b->state, &b->choices);
}

/* Every reduced dimension transformed (2D T, 3D T x T): cuda_transform.cu
   solves the plan. Otherwise the reduction's state does, transforming one
   dimension of a mixed 3D vector itself (T x R, R x T). */
static int pscr_cuda_all_transform(const pscr_plan *p)
{
  int all = 1;
  for (int d = 0; d < p->ndim - 1; d++)
    all &= p->method[d] == PSCR_METHOD_TRANSFORM;
  return all;
}

static int pscr_cuda_any_transform(const pscr_plan *p)
{
  int any = 0;
  for (int d = 0; d < p->ndim - 1; d++)
    any |= p->method[d] == PSCR_METHOD_TRANSFORM;
  return any;
}

/* The largest slab (n2 n3 entries in 3D) the backend takes: 2^31 - 1, or
   1000 with PSCR_FLAG_TEST_CUDA_SLAB_1000, so that a small plan exercises
   the refusal and AUTO's fallback. The coupling and gather kernels count a
   slab's entries in 32 bits, entry t < S plus a grid stride of about S
   (PSCR_ENTRY_LOOP, levels_kernels.cuh), and the 9-point couplings split t
   into its two indices with a 32-bit division (stencil.cuh): so the
   longest slab, n2 n3 in 3D (n2 in 2D, an int), must stay below 2^31 (as
   must the transforms' cuBLAS leading dimensions, n2 n3 for a transformed
   dimension 1). Every method vector is taken. */
static int pscr_cuda_accepts(const pscr_plan *p, char *why, size_t len)
{
  const long long limit = (p->opts.flags & PSCR_FLAG_TEST_CUDA_SLAB_1000) ? 1000 : 0x7fffffffLL;
  if (p->ndim < 3 || (long long)p->n[1] * (long long)p->n[2] <= limit)
    return 1;
  snprintf(why, len, "the CUDA backend needs n2*n3 <= %lld in 3D (n2 = %d, n3 = %d)", limit,
           p->n[1], p->n[2]);
  return 0;
}

/* The view of a transform plan (cuda_transform.h): every reduced dimension
   transformed (pscr_cuda_all_transform). */
static void pscr_cuda_tf_view_of(const pscr_plan *p, pscr_cuda_tf_view *v)
{
  memset(v, 0, sizeof *v);
  v->device = p->opts.device;
  v->ndim = p->ndim;
  for (int d = 0; d < 3; d++)
    v->n[d] = p->n[d];
  v->cplx = p->cplx;
  v->single = p->single;
  v->shift[0] = p->shift[0];
  v->shift[1] = p->shift[1];
  v->nthreads = p->nthreads;
  v->no_twist = (p->opts.flags & PSCR_FLAG_CUDA_NO_TWIST) != 0;
  v->device_only = p->opts.device_only;
  v->no_partition = (p->opts.flags & PSCR_FLAG_CUDA_TF_NO_PARTITION) != 0;
  for (int d = 0; d < p->ndim - 1; d++) {
    v->w[d] = p->w[d];
    v->lambda[d] = p->lambda[d];
  }
  const int l = p->ndim - 1;
  const void *const f_d[4] = {p->fac_d[l].a.diag, p->fac_d[l].a.off, p->fac_d[l].m.diag,
                              p->fac_d[l].m.off};
  const void *const f_s[4] = {p->fac_s[l].a.diag, p->fac_s[l].a.off, p->fac_s[l].m.diag,
                              p->fac_s[l].m.off};
  for (int k = 0; k < 4; k++)
    v->fac[k] = p->single ? f_s[k] : f_d[k];
  v->sine_scale = pscr_cuda_sine(p, 0) ? p->sine_scale[0] : NULL;
}

static pscr_status pscr_cuda_setup(pscr_plan *p)
{
  pscr_cuda_backend_data *b = calloc(1, sizeof *b);
  if (!b)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate the CUDA backend data");
  p->backend_data = b;
  if (pscr_cuda_all_transform(p)) {
    pscr_cuda_tf_view tv;
    pscr_cuda_tf_view_of(p, &tv);
    size_t bytes = 0;
    const int saved = pscr_cuda_current_device();
    const pscr_status tst = pscr_cuda_tf_setup(&tv, &b->tf, &bytes);
    pscr_cuda_restore_device(saved);
    p->device_bytes += bytes;
    return tst;
  }
  pscr_cuda_view v;
  pscr_status st = pscr_cuda_view_build(p, &v);
  if (st)
    return st;
  size_t bytes = 0;
  const int saved = pscr_cuda_current_device();
  st = pscr_cuda_state_setup(&v, &b->state, &bytes);
  pscr_cuda_restore_device(saved);
  p->device_bytes += bytes;
  if (st == PSCR_SUCCESS)
    pscr_cuda_read_choices(b);
  pscr_cuda_view_free(&v);
  return st;
}

static pscr_status pscr_cuda_upload(pscr_plan *p)
{
  pscr_cuda_backend_data *b = p->backend_data;
  if (b->tf) {
    /* The plan's eigen data and factors are final now (single: rounded). */
    pscr_cuda_tf_view tv;
    pscr_cuda_tf_view_of(p, &tv);
    const int saved = pscr_cuda_current_device();
    const pscr_status tst = pscr_cuda_tf_upload(b->tf, &tv);
    pscr_cuda_restore_device(saved);
    b->choices.nan_fill = tst == PSCR_SUCCESS && pscr_cuda_tf_singular(b->tf);
    return tst;
  }
  pscr_cuda_view v;
  pscr_status st = pscr_cuda_view_build(p, &v);
  if (st)
    return st;
  const int saved = pscr_cuda_current_device();
  st = pscr_cuda_state_upload(b->state, &v);
  pscr_cuda_restore_device(saved);
  if (st == PSCR_SUCCESS)
    pscr_cuda_read_choices(b);
  pscr_cuda_view_free(&v);
  return st;
}

/* Every call that sets the plan's device sets the caller's back. */
static pscr_status pscr_cuda_solve(pscr_plan *p, const void *f, void *u)
{
  const pscr_cuda_backend_data *b = p->backend_data;
  const int saved = pscr_cuda_current_device();
  const pscr_status st = b->tf ? pscr_cuda_tf_solve_batch(b->tf, 1, f, p->total, u, p->total)
                               : pscr_cuda_state_solve(b->state, f, u);
  pscr_cuda_restore_device(saved);
  return st;
}

static pscr_status pscr_cuda_solve_device(pscr_plan *p, const void *f, void *u, void *stream)
{
  const pscr_cuda_backend_data *b = p->backend_data;
  const int saved = pscr_cuda_current_device();
  const pscr_status st =
      b->tf ? pscr_cuda_tf_solve_device_batch(b->tf, 1, f, p->total, u, p->total, stream)
            : pscr_cuda_state_solve_device(b->state, f, u, stream);
  pscr_cuda_restore_device(saved);
  return st;
}

static pscr_status pscr_cuda_refine_setup_ops(pscr_plan *p)
{
  pscr_cuda_backend_data *b = p->backend_data;
  const pscr_cuda_refine_view v = {p->opts.device, p->ndim, {p->n[0], p->n[1], p->n[2]},
                                   p->cplx, p->single, p->factor_storage,
                                   {p->shift[0], p->shift[1]}};
  const int saved = pscr_cuda_current_device();
  size_t bytes = 0;
  const pscr_status st = pscr_cuda_refine_setup(&v, &b->refine, &bytes);
  p->device_bytes += bytes;
  pscr_cuda_restore_device(saved);
  return st;
}

/* options.refine on device arrays: the solve, then per step the residual
   (cuda_refine.cu), a solve of it in place and u += the correction, all on
   the caller's stream. */
static pscr_status pscr_cuda_solve_device_refined(pscr_plan *p, const void *f, void *u,
                                                  void *stream)
{
  pscr_cuda_backend_data *b = p->backend_data;
  const int saved = pscr_cuda_current_device();
  const void *fk = f;
  pscr_status st = f == u ? pscr_cuda_refine_save(b->refine, f, stream, &fk) : PSCR_SUCCESS;
  if (st == PSCR_SUCCESS)
    st = pscr_cuda_solve_device(p, f, u, stream);
  /* refine_single: the corrections by the float plan of the same pencils
     (refine.c made it, on this backend), r and d in float. */
  pscr_plan *corr = p->refine_plan ? p->refine_plan : p;
  const int single = p->refine_plan != NULL;
  for (int k = 0; k < p->opts.refine && st == PSCR_SUCCESS; k++) {
    void *r = NULL;
    st = pscr_cuda_refine_residual(b->refine, fk, u, single, stream, &r);
    if (st == PSCR_SUCCESS)
      st = pscr_cuda_solve_device(corr, r, r, stream);
    if (st == PSCR_SUCCESS)
      st = pscr_cuda_refine_add(b->refine, u, single, stream);
  }
  pscr_cuda_restore_device(saved);
  return st;
}

static pscr_status pscr_cuda_solve_batch(pscr_plan *p, int nrhs, const void *f, size_t ldf,
                                         void *u, size_t ldu)
{
  const pscr_cuda_backend_data *b = p->backend_data;
  const int saved = pscr_cuda_current_device();
  const pscr_status st = b->tf ? pscr_cuda_tf_solve_batch(b->tf, nrhs, f, ldf, u, ldu)
                               : pscr_cuda_state_solve_batch(b->state, nrhs, f, ldf, u, ldu);
  pscr_cuda_restore_device(saved);
  return st;
}

static pscr_status pscr_cuda_solve_device_batch(pscr_plan *p, int nrhs, const void *f,
                                                size_t ldf, void *u, size_t ldu, void *stream)
{
  const pscr_cuda_backend_data *b = p->backend_data;
  const int saved = pscr_cuda_current_device();
  const pscr_status st =
      b->tf ? pscr_cuda_tf_solve_device_batch(b->tf, nrhs, f, ldf, u, ldu, stream)
            : pscr_cuda_state_solve_device_batch(b->state, nrhs, f, ldf, u, ldu, stream);
  pscr_cuda_restore_device(saved);
  return st;
}

static pscr_status pscr_cuda_solve_profile(pscr_plan *p, const void *f, void *u, void *stream,
                                           double *ms)
{
  const pscr_cuda_backend_data *b = p->backend_data;
  if (pscr_cuda_any_transform(p))
    return PSCR_ERROR(PSCR_ERROR_NOT_SUPPORTED,
                      "pscr_solve_device_profile does not profile a plan with a transformed "
                      "dimension yet (PSCR_METHOD_TRANSFORM)");
  pscr_cost cost[PSCR_STAGE_COUNT], total;
  double min_bytes;
  pscr_cost_rules rules;
  pscr_cuda_cost_rules(p, &rules);
  pscr_cost_model(p, &rules, cost, &total, &min_bytes);
  /* One event per launch; the solve must make exactly the launches the cost
     model counts, in place or not, which checks the model. */
  const int saved = pscr_cuda_current_device();
  const pscr_status st =
      pscr_cuda_state_solve_profile(b->state, f, u, stream, ms, (size_t)total.launches);
  pscr_cuda_restore_device(saved);
  return st;
}

static void pscr_cuda_info(const pscr_plan *p, pscr_info *info)
{
  const pscr_cuda_backend_data *b = p->backend_data;
  const pscr_cuda_choices *c = &b->choices;
  pscr_cost_rules rules;
  pscr_cuda_cost_rules(p, &rules);
  info->level3_rows_per_thread = c->rows;
  info->level3_threads_per_system = c->rows > 0 ? c->threads : 1;
  info->level3_toeplitz = c->toeplitz;
  info->level3_pivot_table = c->pivot_table;
  info->level3_staged = c->staged;
  info->level3_fused_levels = pscr_cost_fused_levels(p, &rules);
  info->level3_fused_back = info->level3_fused_levels > 0 && c->fuse_back;
  info->cuda_early_launch = c->early_launch;
  for (int d = 0; d < p->ndim - 1; d++)
    info->transform_sine[d] = pscr_cuda_sine(p, d);
}

static void pscr_cuda_destroy(pscr_plan *p)
{
  pscr_cuda_backend_data *b = p->backend_data;
  if (!b)
    return;
  if (b->state || b->tf) {
    const int saved = pscr_cuda_current_device();
    if (b->state)
      pscr_cuda_state_destroy(b->state);
    pscr_cuda_tf_destroy(b->tf);
    pscr_cuda_refine_destroy(b->refine);
    pscr_cuda_restore_device(saved);
  }
  free(b);
  p->backend_data = NULL;
}

/* MEASURE's timing (backend.h): the plan's own device solve on device
   arrays holding the probe values, timed by CUDA events (cuda_time.cu). */
static pscr_status pscr_cuda_solve_device_fn(void *plan, const void *f, void *u, void *stream)
{
  return pscr_cuda_solve_device((pscr_plan *)plan, f, u, stream);
}

static pscr_status pscr_cuda_time(pscr_plan *p, int max, double *seconds, int *done,
                                  int (*more)(void *ctx, const double *seconds, int done),
                                  void *ctx)
{
  *done = 0;
  const size_t words = p->total * (p->cplx ? 2 : 1);
  const int saved = pscr_cuda_current_device();
  const pscr_status st = pscr_cuda_time_solves(p->opts.device, words, p->single,
                                               pscr_cuda_solve_device_fn, p, max, seconds, done,
                                               more, ctx);
  pscr_cuda_restore_device(saved);
  return st;
}

static pscr_status pscr_cuda_copy(const pscr_plan *p, void *dst, const void *src, size_t bytes,
                                   void *stream)
{
  return pscr_cuda_copy_sync(p->opts.device, dst, src, bytes, stream);
}

/* The one-pass distributed solve's device half (cuda_modes.cu), on the
   plan's device. */
static pscr_status pscr_cuda_modes_create_op(const pscr_plan *p, const pscr_modes_view *v,
                                             void **ctx, void **dev_planes, void **host_planes)
{
  return pscr_cuda_modes_create(p->opts.device, v, ctx, dev_planes, host_planes);
}

static const pscr_backend_ops pscr_cuda_ops = {
    .name = "cuda",
    .accepts = pscr_cuda_accepts,
    .setup = pscr_cuda_setup,
    .upload = pscr_cuda_upload,
    .solve = pscr_cuda_solve,
    .solve_device = pscr_cuda_solve_device,
    .solve_batch = pscr_cuda_solve_batch,
    .solve_device_batch = pscr_cuda_solve_device_batch,
    .solve_profile = pscr_cuda_solve_profile,
    .time_solves = pscr_cuda_time,
    .refine_setup = pscr_cuda_refine_setup_ops,
    .solve_device_refined = pscr_cuda_solve_device_refined,
    .copy = pscr_cuda_copy,
    .modes_create = pscr_cuda_modes_create_op,
    .modes_transform = pscr_cuda_modes_transform,
    .modes_ends = pscr_cuda_modes_ends,
    .modes_solve = pscr_cuda_modes_solve,
    .modes_destroy = pscr_cuda_modes_destroy,
    .modes_stage = pscr_cuda_modes_stage,
    .modes_bytes = pscr_cuda_modes_bytes,
#if PSCR_HAVE_NCCL
    .modes_comm_key = pscr_cuda_modes_comm_key,
    .modes_comm_id = pscr_cuda_modes_comm_id,
    .modes_comm_init = pscr_cuda_modes_comm_init,
    .modes_separators = pscr_cuda_modes_separators,
#endif
    .cost_rules = pscr_cuda_cost_rules,
    .info = pscr_cuda_info,
    .destroy = pscr_cuda_destroy,
};

const pscr_backend_ops *pscr_cuda_backend(void) { return &pscr_cuda_ops; }

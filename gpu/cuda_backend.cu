// CUDA backend: device memory, upload, and the level driver of the radix-4
// PSCR solve (DESIGN.md section 2), mirroring cpu_solve_impl.h. Each stage of
// a level is one launch over all its blocks and eigenpairs; the 3D dimension-1
// subproblems (2D solves with shifts c + lambda_e) run as one batched 2D solve
// per outer level. Everything is allocated at plan time; a solve only
// enqueues work on its stream.
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_args.cuh"
#include "cuda_check.h"
#include "cuda_view.h"
#include "levels_kernels.cuh"
#include "thomas.cuh"

namespace pscr_cuda {

namespace {

// Device tables and workspace of one dimension d (0 .. ndim-2).
struct DimState {
  int n, k;
  size_t S;          // slab length below d
  size_t neig;       // eigenpairs over all levels
  int nblk, njl;
  pscr_cuda_level_view *lvl; // host copy, k entries
  int *blk, *eblk, *jl;      // device tables
  void *lam, *w;             // device eigen data
  void *v;      // level solutions: batch * max_ne * S
  void *lr;     // L_B|R_B or gL|gR: batch * max_nb * 2 * S
  void *shifts; // subproblem shifts (dimensions below ndim-2 only)
};

enum { MAX_ALLOCS = 32 };

struct State {
  int device, cplx, ndim, n[3];
  size_t total, elem;
  cudaStream_t stream; // private stream of the host-array solve
  void *fac[3];        // 4 n_d entries per dimension
  void *cs0;           // the shift c, one element
  int *flag;           // singular-pivot flag
  void *xbuf;          // total entries: the host solve's device copy of f / u
  void *cp;            // Thomas multipliers of the last-but-one dimension
  DimState dim[2];
  void *mem[MAX_ALLOCS];
  int nmem;
  size_t bytes;
};

cudaError_t dalloc(State *s, void **p, size_t bytes)
{
  *p = nullptr;
  if (s->nmem == MAX_ALLOCS)
    return cudaErrorInvalidValue;
  if (bytes == 0)
    bytes = 16;
  cudaError_t e = cudaMalloc(p, bytes);
  if (e != cudaSuccess) {
    *p = nullptr;
    return e;
  }
  s->mem[s->nmem++] = *p;
  s->bytes += bytes;
  return cudaSuccess;
}

void state_free(State *s)
{
  if (!s)
    return;
  cudaSetDevice(s->device);
  for (int i = 0; i < s->nmem; i++)
    cudaFree(s->mem[i]);
  if (s->stream)
    cudaStreamDestroy(s->stream);
  for (int d = 0; d < 2; d++)
    free(s->dim[d].lvl);
  cudaGetLastError(); // teardown errors are not reported; do not leave them sticky
  free(s);
}

template <class T> Facs<T> facs_of(const State *s)
{
  Facs<T> F;
  memset(&F, 0, sizeof F);
  F.ndim = s->ndim;
  for (int d = 0; d < 3; d++) {
    F.n[d] = s->n[d];
    if (d < s->ndim) {
      const T *base = (const T *)s->fac[d];
      const size_t n = (size_t)s->n[d];
      F.ad[d] = base;
      F.ao[d] = base + n;
      F.md[d] = base + 2 * n;
      F.mo[d] = base + 3 * n;
    }
  }
  return F;
}

template <class T> LevelArgs<T> level_of(const State *s, int d, int i)
{
  const DimState &D = s->dim[d];
  const pscr_cuda_level_view &V = D.lvl[i - 1];
  LevelArgs<T> L;
  L.blk = D.blk + (size_t)V.blk0 * PSCR_CUDA_BLK_INTS;
  L.eblk = D.eblk + V.eig0;
  L.jl = D.jl + (size_t)V.j0 * 3;
  L.lam = (const T *)D.lam + V.eig0;
  L.w = (const T *)D.w + V.eig0 * W_SLOTS;
  L.nb = V.nb;
  L.nj = V.nj;
  L.ne = V.ne;
  L.d = d;
  L.n = D.n;
  L.S = D.S;
  return L;
}

template <class T>
cudaError_t run_dim(const State *s, int d, int B, T *x, const T *cs, cudaStream_t stream);

// The subproblems of one level: solutions into dim[d].v (Thomas layout at the
// last-but-one dimension, slabs otherwise). g: NULL forward, gL|gR back.
template <class T>
cudaError_t level_solve(const State *s, int d, const LevelArgs<T> &L, int B, const T *cs,
                        T *x, const T *g, cudaStream_t stream)
{
  const DimState &D = s->dim[d];
  if (d == s->ndim - 2) {
    const size_t nsys = (size_t)B * (size_t)L.ne;
    k_thomas<T><<<grid_of(nsys), THREADS, 0, stream>>>(L, facs_of<T>(s), B, cs, x, g, (T *)D.v,
                                                       (T *)s->cp, s->flag);
    return pscr_cuda_launch_check(stream);
  }
  const size_t count = (size_t)B * (size_t)L.ne * L.S;
  k_gather<T><<<grid_of(count), THREADS, 0, stream>>>(L, B, cs, x, g, (T *)D.v, (T *)D.shifts);
  cudaError_t e = pscr_cuda_launch_check(stream);
  if (e != cudaSuccess)
    return e;
  // All ne subproblems of every batch as one batch of the next dimension.
  return run_dim<T>(s, d + 1, B * L.ne, (T *)D.v, (const T *)D.shifts, stream);
}

// Solve B independent problems of dimension d in place: batch b is
// (A_d (x) Mrest + M_d (x) (Arest + cs[b] Mrest)) x_b = f_b, x_b = x + b n_d S.
template <class T>
cudaError_t run_dim(const State *s, int d, int B, T *x, const T *cs, cudaStream_t stream)
{
  const DimState &D = s->dim[d];
  const Facs<T> F = facs_of<T>(s);
  const bool thomas = d == s->ndim - 2;
  cudaError_t e;

  // Forward reduction, levels 1..k-1.
  for (int i = 1; i < D.k; i++) {
    const LevelArgs<T> L = level_of<T>(s, d, i);
    if (L.nb == 0)
      continue;
    if ((e = level_solve<T>(s, d, L, B, cs, x, nullptr, stream)) != cudaSuccess)
      return e;
    const size_t nsys = (size_t)B * (size_t)L.ne;
    const size_t vs = thomas ? 1 : L.S, vt = thomas ? nsys : 1;
    const size_t nred = (size_t)B * (size_t)L.nb * L.S;
    k_reduce<T><<<grid_of(nred), THREADS, 0, stream>>>(L, B, (const T *)D.v, vs, vt, 0,
                                                       (T *)D.lr, x);
    if ((e = pscr_cuda_launch_check(stream)) != cudaSuccess)
      return e;
    if (L.nj > 0) {
      const size_t ncpl = (size_t)B * (size_t)L.nj * L.S;
      k_couple_fwd<T><<<grid_of(ncpl), THREADS, 0, stream>>>(L, F, B, cs, (const T *)D.lr, x);
      if ((e = pscr_cuda_launch_check(stream)) != cudaSuccess)
        return e;
    }
  }

  // Back substitution, levels k..1.
  for (int i = D.k; i >= 1; i--) {
    const LevelArgs<T> L = level_of<T>(s, d, i);
    if (L.nb == 0)
      continue;
    const size_t nblk = (size_t)B * (size_t)L.nb * L.S;
    k_couple_back<T><<<grid_of(nblk), THREADS, 0, stream>>>(L, F, B, cs, x, (T *)D.lr);
    if ((e = pscr_cuda_launch_check(stream)) != cudaSuccess)
      return e;
    if ((e = level_solve<T>(s, d, L, B, cs, x, (const T *)D.lr, stream)) != cudaSuccess)
      return e;
    const size_t nsys = (size_t)B * (size_t)L.ne;
    const size_t vs = thomas ? 1 : L.S, vt = thomas ? nsys : 1;
    k_reduce<T><<<grid_of(nblk), THREADS, 0, stream>>>(L, B, (const T *)D.v, vs, vt, 1,
                                                       (T *)D.lr, x);
    if ((e = pscr_cuda_launch_check(stream)) != cudaSuccess)
      return e;
  }
  return cudaSuccess;
}

} // namespace

} // namespace pscr_cuda

using pscr_cuda::State;

extern "C" pscr_status pscr_cuda_state_setup(const pscr_cuda_view *v, void **out,
                                             size_t *device_bytes)
{
  pscr_status st = PSCR_SUCCESS;
  *out = nullptr;
  *device_bytes = 0;
  State *s = (State *)calloc(1, sizeof *s);
  if (!s)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "CUDA backend state");
  s->device = v->device;
  s->cplx = v->is_complex;
  s->ndim = v->ndim;
  s->total = v->total;
  s->elem = v->elem;
  for (int d = 0; d < 3; d++)
    s->n[d] = v->n[d];
  const size_t es = v->elem;
  size_t batch = 1; // largest batch of the dimension: 1, then the outer max_ne

  PSCR_CUDA_GOTO(st, fail, cudaSetDevice(v->device));
  PSCR_CUDA_GOTO(st, fail, cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
  for (int d = 0; d < v->ndim; d++) {
    size_t b = 4 * (size_t)v->n[d] * es;
    PSCR_CUDA_ALLOC_GOTO(st, fail, pscr_cuda::dalloc(s, &s->fac[d], b), b);
  }
  PSCR_CUDA_ALLOC_GOTO(st, fail, pscr_cuda::dalloc(s, &s->cs0, es), es);
  PSCR_CUDA_ALLOC_GOTO(st, fail, pscr_cuda::dalloc(s, (void **)&s->flag, sizeof(int)),
                       sizeof(int));
  PSCR_CUDA_ALLOC_GOTO(st, fail, pscr_cuda::dalloc(s, &s->xbuf, v->total * es), v->total * es);
  for (int d = 0; d < v->ndim - 1; d++) {
    const pscr_cuda_dim_view *V = &v->dim[d];
    pscr_cuda::DimState *D = &s->dim[d];
    D->n = V->n;
    D->k = V->k;
    D->S = 1;
    for (int e = d + 1; e < v->ndim; e++)
      D->S *= (size_t)v->n[e];
    D->neig = V->neig;
    D->nblk = V->nblk;
    D->njl = V->njl;
    D->lvl = (pscr_cuda_level_view *)malloc((size_t)(V->k > 0 ? V->k : 1) * sizeof *D->lvl);
    if (!D->lvl) {
      st = PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "CUDA level list of dimension %d", d + 1);
      goto fail;
    }
    memcpy(D->lvl, V->lvl, (size_t)V->k * sizeof *D->lvl);
    size_t b;
    b = (size_t)V->nblk * PSCR_CUDA_BLK_INTS * sizeof(int);
    PSCR_CUDA_ALLOC_GOTO(st, fail, pscr_cuda::dalloc(s, (void **)&D->blk, b), b);
    b = V->neig * sizeof(int);
    PSCR_CUDA_ALLOC_GOTO(st, fail, pscr_cuda::dalloc(s, (void **)&D->eblk, b), b);
    b = (size_t)V->njl * 3 * sizeof(int);
    PSCR_CUDA_ALLOC_GOTO(st, fail, pscr_cuda::dalloc(s, (void **)&D->jl, b), b);
    b = V->neig * es;
    PSCR_CUDA_ALLOC_GOTO(st, fail, pscr_cuda::dalloc(s, &D->lam, b), b);
    b = V->neig * pscr_cuda::W_SLOTS * es;
    PSCR_CUDA_ALLOC_GOTO(st, fail, pscr_cuda::dalloc(s, &D->w, b), b);
    b = batch * (size_t)V->max_ne * D->S * es;
    PSCR_CUDA_ALLOC_GOTO(st, fail, pscr_cuda::dalloc(s, &D->v, b), b);
    b = batch * (size_t)V->max_nb * 2 * D->S * es;
    PSCR_CUDA_ALLOC_GOTO(st, fail, pscr_cuda::dalloc(s, &D->lr, b), b);
    if (d < v->ndim - 2) {
      b = batch * (size_t)V->max_ne * es;
      PSCR_CUDA_ALLOC_GOTO(st, fail, pscr_cuda::dalloc(s, &D->shifts, b), b);
    } else {
      b = batch * (size_t)V->max_ne * D->S * es;
      PSCR_CUDA_ALLOC_GOTO(st, fail, pscr_cuda::dalloc(s, &s->cp, b), b);
    }
    batch *= (size_t)V->max_ne;
  }
  *out = s;
  *device_bytes = s->bytes;
  return PSCR_SUCCESS;

fail:
  pscr_cuda::state_free(s);
  return st;
}

extern "C" pscr_status pscr_cuda_state_upload(void *state, const pscr_cuda_view *v)
{
  State *s = (State *)state;
  pscr_status st = PSCR_SUCCESS;
  const size_t es = s->elem;
  int nmax = 1;
  for (int d = 0; d < s->ndim; d++)
    nmax = s->n[d] > nmax ? s->n[d] : nmax;
  char *stage = (char *)malloc(4 * (size_t)nmax * es);
  if (!stage)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "CUDA upload staging (%zu bytes)",
                      4 * (size_t)nmax * es);
  PSCR_CUDA_GOTO(st, out, cudaSetDevice(s->device));
  // Factors: a_diag | a_off | m_diag | m_off, off-diagonals zero-padded to n.
  for (int d = 0; d < s->ndim; d++) {
    const size_t n = (size_t)s->n[d];
    memset(stage, 0, 4 * n * es);
    for (int a = 0; a < 4; a++) {
      const size_t cnt = (a & 1) ? n - 1 : n;
      if (cnt > 0)
        memcpy(stage + (size_t)a * n * es, v->fac[d][a], cnt * es);
    }
    PSCR_CUDA_GOTO(st, out, cudaMemcpy(s->fac[d], stage, 4 * n * es, cudaMemcpyHostToDevice));
  }
  // c as one element: shift[0] (real) or (shift[0], shift[1]) (complex).
  PSCR_CUDA_GOTO(st, out, cudaMemcpy(s->cs0, v->shift, es, cudaMemcpyHostToDevice));
  for (int d = 0; d < s->ndim - 1; d++) {
    const pscr_cuda_dim_view *V = &v->dim[d];
    pscr_cuda::DimState *D = &s->dim[d];
    PSCR_CUDA_GOTO(st, out,
                   cudaMemcpy(D->blk, V->blk, (size_t)V->nblk * PSCR_CUDA_BLK_INTS * sizeof(int),
                              cudaMemcpyHostToDevice));
    PSCR_CUDA_GOTO(st, out,
                   cudaMemcpy(D->eblk, V->eblk, V->neig * sizeof(int), cudaMemcpyHostToDevice));
    PSCR_CUDA_GOTO(st, out,
                   cudaMemcpy(D->jl, V->jl, (size_t)V->njl * 3 * sizeof(int),
                              cudaMemcpyHostToDevice));
    PSCR_CUDA_GOTO(st, out, cudaMemcpy(D->lam, V->lambda, V->neig * es, cudaMemcpyHostToDevice));
    PSCR_CUDA_GOTO(st, out,
                   cudaMemcpy(D->w, V->w, V->neig * pscr_cuda::W_SLOTS * es,
                              cudaMemcpyHostToDevice));
  }
  // Solves run on other streams (the private one is non-blocking): finish here.
  PSCR_CUDA_GOTO(st, out, cudaDeviceSynchronize());
out:
  free(stage);
  return st;
}

extern "C" pscr_status pscr_cuda_state_solve_device(void *state, const void *f, void *u,
                                                    void *stream)
{
  State *s = (State *)state;
  cudaStream_t cs = (cudaStream_t)stream;
  pscr_status st = PSCR_SUCCESS;
  cudaError_t e;
  const size_t bytes = s->total * s->elem;
  PSCR_CUDA_GOTO(st, out, cudaSetDevice(s->device));
  if (u != f)
    PSCR_CUDA_GOTO(st, out, cudaMemcpyAsync(u, f, bytes, cudaMemcpyDefault, cs));
  PSCR_CUDA_GOTO(st, out, cudaMemsetAsync(s->flag, 0, sizeof(int), cs));
  if (s->cplx)
    e = pscr_cuda::run_dim<pscr_cuda::zc>(s, 0, 1, (pscr_cuda::zc *)u,
                                          (const pscr_cuda::zc *)s->cs0, cs);
  else
    e = pscr_cuda::run_dim<double>(s, 0, 1, (double *)u, (const double *)s->cs0, cs);
  PSCR_CUDA_GOTO(st, out, e);
  {
    const size_t count = s->total * (s->cplx ? 2 : 1);
    pscr_cuda::k_nan_if_flag<<<pscr_cuda::grid_of(count), pscr_cuda::THREADS, 0, cs>>>(
        s->flag, (double *)u, count);
    PSCR_CUDA_GOTO(st, out, pscr_cuda_launch_check(cs));
  }
out:
  return st;
}

extern "C" pscr_status pscr_cuda_state_solve(void *state, const void *f, void *u)
{
  State *s = (State *)state;
  pscr_status st = PSCR_SUCCESS;
  const size_t bytes = s->total * s->elem;
  int bad = 0;
  PSCR_CUDA_GOTO(st, out, cudaSetDevice(s->device));
  PSCR_CUDA_GOTO(st, out, cudaMemcpyAsync(s->xbuf, f, bytes, cudaMemcpyHostToDevice, s->stream));
  if ((st = pscr_cuda_state_solve_device(s, s->xbuf, s->xbuf, s->stream)) != PSCR_SUCCESS)
    goto out;
  PSCR_CUDA_GOTO(st, out, cudaMemcpyAsync(u, s->xbuf, bytes, cudaMemcpyDeviceToHost, s->stream));
  PSCR_CUDA_GOTO(st, out,
                 cudaMemcpyAsync(&bad, s->flag, sizeof bad, cudaMemcpyDeviceToHost, s->stream));
  PSCR_CUDA_GOTO(st, out, cudaStreamSynchronize(s->stream));
  if (bad)
    st = PSCR_ERROR(PSCR_ERROR_SINGULAR,
                    "a shifted tridiagonal subproblem (A%d + s M%d) has a zero pivot", s->ndim,
                    s->ndim);
out:
  return st;
}

extern "C" void pscr_cuda_state_destroy(void *state) { pscr_cuda::state_free((State *)state); }

// CUDA backend: device memory, upload, and the level driver of the radix-4
// PSCR solve (DESIGN.md section 2), mirroring cpu_solve_impl.h. Each stage of
// a level is one launch over all its blocks and eigenpairs; the 3D dimension-1
// subproblems (2D solves with shifts c + lambda_e) run as one batched 2D solve
// per outer level. The right-hand sides of a batched solve (pscr_solve_batch)
// are batches of the top dimension in the same way: up to max_batch of them
// share every launch. Everything is allocated at plan time; a solve only
// enqueues work on its stream.
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_args.cuh"
#include "cuda_check.h"
#include "cuda_view.h"
#include "levels_kernels.cuh"
#include "partition.cuh"
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
  int *lit0, *lnit;          // host, per level: first item (in items) and item count
  int *ldirect;              // host, per level: every block is a single item
  int nitem, max_nit;
  int *blk, *eblk, *jl;      // device tables
  int *items, *bitem;        // device: reduction items (3 ints), per block first item, count
  void *lam, *w;             // device eigen data
  // Workspace of the dimension's largest batch: max_batch at the top
  // dimension, max_batch times the outer max_ne below it.
  void *v;      // level solutions: batch * max_ne * S
  void *lr;     // L_B|R_B or gL|gR: batch * max_nb * 2 * S
  void *part;   // reduction partial sums: batch * max_nit * 3 * S
  void *shifts; // subproblem shifts (dimensions below ndim-2 only)
};

enum { MAX_ALLOCS = 48 };

// Profiling mode (pscr_solve_device_profile): an event after every launch,
// tagged with the stage kind (pscr_stage) of that launch. NULL in State
// during normal solves, so they record nothing.
struct Prof {
  cudaEvent_t *ev;
  int *kind;
  size_t n, cap;
  bool overflow;   // more launches than the cost model counts
  cudaError_t err; // the first failed record
};

// Host-array solves of more than STAGE_MIN bytes copy pageable f and u through
// two pinned buffers of STAGE_CHUNK bytes, the host copy of one chunk
// overlapping the transfer of the other (H100, 4096^2 double: the host API
// time fell from 27 to about 12 ms, bench/results/2026-11-23-h100-cuda-v1).
constexpr size_t STAGE_CHUNK = (size_t)8 << 20;
constexpr size_t STAGE_MIN = (size_t)4 << 20;

struct State {
  int device, cplx, ndim, n[3];
  size_t total, elem;
  cudaStream_t stream; // private stream of the host-array solve
  void *fac[3];        // 4 n_d entries per dimension
  void *cs0;           // max_batch copies of the shift c: the top dimension's cs[b]
  int *flag;           // singular-pivot flag
  int max_batch;       // pscr_options.max_batch: right-hand sides per launch sequence
  void *xbuf;          // max_batch * total entries: the host solve's device copy of f / u
  void *cp;            // Thomas multipliers of the last-but-one dimension (serial path)
  int rows;            // level-3 solver: rows per thread of k_part, 0: serial Thomas
  int part_p;          // k_part threads per system
  int sms;             // multiprocessors of the device
  int nthreads;        // host threads for the staging copies
  void *pin[2];        // pinned staging buffers, STAGE_CHUNK bytes each (host solves)
  cudaEvent_t pin_done[2]; // the last transfer from/to pin[i] finished
  void *pfac;          // k_part factors of the last dimension (PartFacs), 4 P rows entries
  DimState dim[2];
  Prof *prof;          // non-NULL only inside pscr_cuda_state_solve_profile
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
  for (int i = 0; i < 2; i++) {
    if (s->pin[i])
      cudaFreeHost(s->pin[i]);
    if (s->pin_done[i])
      cudaEventDestroy(s->pin_done[i]);
  }
  if (s->stream)
    cudaStreamDestroy(s->stream);
  for (int d = 0; d < 2; d++) {
    free(s->dim[d].lvl);
    free(s->dim[d].lit0);
    free(s->dim[d].lnit);
    free(s->dim[d].ldirect);
  }
  cudaGetLastError(); // teardown errors are not reported; do not leave them sticky
  free(s);
}

// Profiling mode: record that the launch just enqueued belongs to `kind`.
void mark(const State *s, int kind, cudaStream_t stream)
{
  Prof *p = s->prof;
  if (!p)
    return;
  if (p->n == p->cap) {
    p->overflow = true;
    return;
  }
  cudaError_t e = cudaEventRecord(p->ev[p->n], stream);
  if (e != cudaSuccess && p->err == cudaSuccess)
    p->err = e;
  p->kind[p->n++] = kind;
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

// Level i of dimension d; xs: distance between the batch vectors of x.
template <class T> LevelArgs<T> level_of(const State *s, int d, int i, size_t xs)
{
  const DimState &D = s->dim[d];
  const pscr_cuda_level_view &V = D.lvl[i - 1];
  LevelArgs<T> L;
  L.blk = D.blk + (size_t)V.blk0 * PSCR_CUDA_BLK_INTS;
  L.eblk = D.eblk + V.eig0;
  L.jl = D.jl + (size_t)V.j0 * 3;
  L.lam = (const T *)D.lam + V.eig0;
  L.w = (const T *)D.w + V.eig0 * W_SLOTS;
  L.items = D.items + (size_t)D.lit0[i - 1] * 3;
  L.bitem = D.bitem + (size_t)V.blk0 * 2;
  L.nit = D.lnit[i - 1];
  L.direct = D.ldirect[i - 1];
  L.nb = V.nb;
  L.nj = V.nj;
  L.ne = V.ne;
  L.d = d;
  L.n = D.n;
  L.S = D.S;
  L.xs = xs;
  return L;
}

template <class T>
cudaError_t run_dim(const State *s, int d, int B, T *x, size_t xs, const T *cs, int rows,
                    cudaStream_t stream);

template <class T, int M>
cudaError_t launch_part_m(const State *s, const LevelArgs<T> &L, int B, const T *cs, const T *x,
                          const T *g, T *v, cudaStream_t stream)
{
  const int P = s->part_p, threads = part_block_threads(P), spb = threads / P;
  const size_t nsys = (size_t)B * (size_t)L.ne;
  const size_t np = (size_t)P * M;
  // Factors staged in shared memory when small; then a persistent grid.
  const int stage = 4 * np * sizeof(T) <= PART_STAGE_BYTES;
  size_t blocks = (nsys + (size_t)spb - 1) / (size_t)spb;
  const size_t cap = stage ? (size_t)s->sms * 8 : (size_t)1 << 20;
  if (blocks > cap)
    blocks = cap;
  const size_t smem =
      (size_t)threads * part_smem_per_thread<M>() * sizeof(T) + (stage ? 4 * np * sizeof(T) : 0);
  PartFacs<T> C;
  C.ad = (const T *)s->pfac;
  C.md = C.ad + np;
  C.ao = C.md + np;
  C.mo = C.ao + np;
  k_part<T, M><<<(unsigned)blocks, threads, smem, stream>>>(L, C, s->n[s->ndim - 1], B, cs, x, g,
                                                             v, P, stage, s->flag);
  return pscr_cuda_launch_check(stream);
}

// k_part may need more than the default 48 KB of dynamic shared memory.
template <class T, int M> cudaError_t part_attr()
{
  return cudaFuncSetAttribute(k_part<T, M>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              PART_MAX_P * part_smem_per_thread<M>() * (int)sizeof(T) +
                                  PART_STAGE_BYTES);
}

template <class T> cudaError_t part_attrs()
{
  cudaError_t e = part_attr<T, 2>();
  if (e == cudaSuccess)
    e = part_attr<T, 4>();
  if (e == cudaSuccess)
    e = part_attr<T, 8>();
  if (e == cudaSuccess)
    e = part_attr<T, 16>();
  return e;
}

template <class T>
cudaError_t launch_part(const State *s, const LevelArgs<T> &L, int B, const T *cs, const T *x,
                        const T *g, T *v, int rows, cudaStream_t stream)
{
  switch (rows) {
  case 2:
    return launch_part_m<T, 2>(s, L, B, cs, x, g, v, stream);
  case 4:
    return launch_part_m<T, 4>(s, L, B, cs, x, g, v, stream);
  case 8:
    return launch_part_m<T, 8>(s, L, B, cs, x, g, v, stream);
  default:
    return launch_part_m<T, 16>(s, L, B, cs, x, g, v, stream);
  }
}

// The subproblems of one level: solutions into dim[d].v (Thomas layout at the
// last-but-one dimension, slabs otherwise). g: NULL forward, gL|gR back.
template <class T>
cudaError_t level_solve(const State *s, int d, const LevelArgs<T> &L, int B, const T *cs,
                        T *x, const T *g, int rows, cudaStream_t stream)
{
  const DimState &D = s->dim[d];
  if (d == s->ndim - 2) {
    const size_t nsys = (size_t)B * (size_t)L.ne;
    if (rows == 0) {
      k_thomas<T><<<grid_of(nsys), THREADS, 0, stream>>>(L, facs_of<T>(s), B, cs, x, g,
                                                         (T *)D.v, (T *)s->cp, s->flag);
    } else {
      cudaError_t e = launch_part<T>(s, L, B, cs, x, g, (T *)D.v, rows, stream);
      if (e != cudaSuccess)
        return e;
    }
    mark(s, PSCR_STAGE_LEVEL3, stream);
    return pscr_cuda_launch_check(stream);
  }
  const size_t count = (size_t)B * (size_t)L.ne * L.S;
  k_gather<T><<<grid_of(count), THREADS, 0, stream>>>(L, B, cs, x, g, (T *)D.v, (T *)D.shifts);
  mark(s, PSCR_STAGE_GATHER, stream);
  cudaError_t e = pscr_cuda_launch_check(stream);
  if (e != cudaSuccess)
    return e;
  // All ne subproblems of every batch as one batch of the next dimension
  // (contiguous: subproblem sys at D.v + sys S, and n_{d+1} S_{d+1} = S).
  return run_dim<T>(s, d + 1, B * L.ne, (T *)D.v, L.S, (const T *)D.shifts, rows, stream);
}

// The weighted sums of a level's solutions (levels_kernels.cuh: k_reduce_*).
template <class T>
cudaError_t level_reduce(const State *s, int d, const LevelArgs<T> &L, int B, int back,
                         const T *v, size_t vs, size_t vt, T *x, cudaStream_t stream)
{
  const DimState &D = s->dim[d];
  const size_t nit = (size_t)B * (size_t)L.nit * L.S;
  k_reduce_items<T><<<grid_of(nit), THREADS, 0, stream>>>(L, B, v, vs, vt, back, (T *)D.part,
                                                          (T *)D.lr, x);
  mark(s, PSCR_STAGE_SUMS, stream);
  cudaError_t e = pscr_cuda_launch_check(stream);
  if (e != cudaSuccess || L.direct)
    return e;
  const size_t nblk = (size_t)B * (size_t)L.nb * L.S;
  k_reduce_sum<T><<<grid_of(nblk), THREADS, 0, stream>>>(L, B, back, (const T *)D.part,
                                                         (T *)D.lr, x);
  mark(s, PSCR_STAGE_SUMS, stream);
  return pscr_cuda_launch_check(stream);
}

// Solve B independent problems of dimension d in place: batch b is
// (A_d (x) Mrest + M_d (x) (Arest + cs[b] Mrest)) x_b = f_b, x_b = x + b xs
// (xs >= n_d S; the gaps between batch vectors are not touched).
template <class T>
cudaError_t run_dim(const State *s, int d, int B, T *x, size_t xs, const T *cs, int rows,
                    cudaStream_t stream)
{
  const DimState &D = s->dim[d];
  const Facs<T> F = facs_of<T>(s);
  const bool thomas = d == s->ndim - 2;
  cudaError_t e;

  // Forward reduction, levels 1..k-1.
  for (int i = 1; i < D.k; i++) {
    const LevelArgs<T> L = level_of<T>(s, d, i, xs);
    if (L.nb == 0)
      continue;
    if ((e = level_solve<T>(s, d, L, B, cs, x, nullptr, rows, stream)) != cudaSuccess)
      return e;
    const size_t nsys = (size_t)B * (size_t)L.ne;
    const bool serial = thomas && rows == 0;
    const size_t vs = serial ? 1 : L.S, vt = serial ? nsys : 1;
    if ((e = level_reduce<T>(s, d, L, B, 0, (const T *)D.v, vs, vt, x, stream)) != cudaSuccess)
      return e;
    if (L.nj > 0) {
      const size_t ncpl = (size_t)B * (size_t)L.nj * L.S;
      k_couple_fwd<T><<<grid_of(ncpl), THREADS, 0, stream>>>(L, F, B, cs, (const T *)D.lr, x);
      mark(s, PSCR_STAGE_COUPLING, stream);
      if ((e = pscr_cuda_launch_check(stream)) != cudaSuccess)
        return e;
    }
  }

  // Back substitution, levels k..1.
  for (int i = D.k; i >= 1; i--) {
    const LevelArgs<T> L = level_of<T>(s, d, i, xs);
    if (L.nb == 0)
      continue;
    const size_t nblk = (size_t)B * (size_t)L.nb * L.S;
    k_couple_back<T><<<grid_of(nblk), THREADS, 0, stream>>>(L, F, B, cs, x, (T *)D.lr);
    mark(s, PSCR_STAGE_COUPLING, stream);
    if ((e = pscr_cuda_launch_check(stream)) != cudaSuccess)
      return e;
    if ((e = level_solve<T>(s, d, L, B, cs, x, (const T *)D.lr, rows, stream)) != cudaSuccess)
      return e;
    const size_t nsys = (size_t)B * (size_t)L.ne;
    const bool serial = thomas && rows == 0;
    const size_t vs = serial ? 1 : L.S, vt = serial ? nsys : 1;
    if ((e = level_reduce<T>(s, d, L, B, 1, (const T *)D.v, vs, vt, x, stream)) != cudaSuccess)
      return e;
  }
  return cudaSuccess;
}

// Reduction items of dimension d (levels_kernels.cuh): each block's
// eigenpairs in runs of ITEM_EIGS. Host tables per level, device tables.
pscr_status build_items(State *s, int d, const pscr_cuda_dim_view *V, int **items, int **bitem)
{
  DimState *D = &s->dim[d];
  const int k = V->k > 0 ? V->k : 1;
  D->lit0 = (int *)calloc((size_t)k, sizeof(int));
  D->lnit = (int *)calloc((size_t)k, sizeof(int));
  D->ldirect = (int *)calloc((size_t)k, sizeof(int));
  *bitem = (int *)malloc((size_t)(V->nblk > 0 ? V->nblk : 1) * 2 * sizeof(int));
  if (!D->lit0 || !D->lnit || !D->ldirect || !*bitem)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "CUDA reduction items of dimension %d", d + 1);
  size_t nitem = 0;
  for (int b = 0; b < V->nblk; b++) {
    const int *row = V->blk + (size_t)b * PSCR_CUDA_BLK_INTS;
    const int m = row[PSCR_CUDA_BLK_LAST] - row[PSCR_CUDA_BLK_FIRST] + 1;
    nitem += (size_t)((m + ITEM_EIGS - 1) / ITEM_EIGS);
  }
  if (nitem > (size_t)INT_MAX / 3)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "CUDA reduction items: %zu items", nitem);
  *items = (int *)malloc((nitem > 0 ? nitem : 1) * 3 * sizeof(int));
  if (!*items)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "CUDA reduction items of dimension %d", d + 1);
  int it = 0;
  for (int i = 0; i < V->k; i++) {
    const pscr_cuda_level_view &lv = V->lvl[i];
    D->lit0[i] = it;
    int direct = 1;
    for (int b = 0; b < lv.nb; b++) {
      const int *row = V->blk + (size_t)(lv.blk0 + b) * PSCR_CUDA_BLK_INTS;
      const int e0 = row[PSCR_CUDA_BLK_EREL];
      const int e1 = e0 + row[PSCR_CUDA_BLK_LAST] - row[PSCR_CUDA_BLK_FIRST] + 1;
      (*bitem)[2 * (lv.blk0 + b)] = it - D->lit0[i];
      int cnt = 0;
      for (int e = e0; e < e1; e += ITEM_EIGS, cnt++, it++) {
        (*items)[3 * it] = b;
        (*items)[3 * it + 1] = e;
        (*items)[3 * it + 2] = e + ITEM_EIGS < e1 ? e + ITEM_EIGS : e1;
      }
      (*bitem)[2 * (lv.blk0 + b) + 1] = cnt;
      direct &= cnt == 1;
    }
    D->lnit[i] = it - D->lit0[i];
    D->ldirect[i] = direct;
    if (D->lnit[i] > D->max_nit)
      D->max_nit = D->lnit[i];
  }
  D->nitem = it;
  return PSCR_SUCCESS;
}

// Level-3 solver choice: rows per thread of k_part (0: serial Thomas).
// Automatic, from H100 measurements (bench/results/2026-11-23-h100-tuning):
// 16 rows past n = 2048, else 8; 2 for small 2D problems, whose few systems
// want short dependency chains (2D n = 256: 0.18 ms with 2, 0.20 ms with 8);
// more rows while P would exceed PART_MAX_P; past 16 PART_MAX_P rows, the
// serial path.
int choose_rows(int requested, int n, int ndim)
{
  if (requested < 0)
    return 0;
  if (requested > 0)
    return part_threads_per_system(n, requested) <= PART_MAX_P ? requested : 0;
  for (int m = n > 2048 ? 16 : (ndim == 2 && n <= 256 ? 2 : 8); m <= 16; m *= 2)
    if (part_threads_per_system(n, m) <= PART_MAX_P)
      return m;
  return 0;
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
  s->max_batch = v->max_batch;
  // Largest batch of each dimension: max_batch right-hand sides at the top,
  // then times the outer max_ne (the 3D inner 2D solves).
  size_t batch = (size_t)v->max_batch;
  s->rows = pscr_cuda::choose_rows(v->rows_per_thread, v->n[v->ndim - 1], v->ndim);
  s->part_p = s->rows > 0 ? pscr_cuda::part_threads_per_system(v->n[v->ndim - 1], s->rows) : 0;
  // Every workspace is at most a few times max_batch * total elements
  // (validation bounds 64 total bytes), and batch indices are ints.
  if (v->max_batch < 1 || (size_t)v->max_batch > (SIZE_MAX / 64) / v->total ||
      (v->ndim == 3 && (size_t)v->max_batch * (size_t)v->dim[0].max_ne > (size_t)INT_MAX)) {
    st = PSCR_ERROR(PSCR_ERROR_DEVICE_ALLOC,
                    "max_batch %d: the batch workspace (max_batch * n1*n2%s elements) "
                    "overflows the address space",
                    v->max_batch, v->ndim == 3 ? "*n3" : "");
    goto fail;
  }

  PSCR_CUDA_GOTO(st, fail, cudaSetDevice(v->device));
  PSCR_CUDA_GOTO(st, fail,
                 cudaDeviceGetAttribute(&s->sms, cudaDevAttrMultiProcessorCount, v->device));
  PSCR_CUDA_GOTO(st, fail, cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
  for (int d = 0; d < v->ndim; d++) {
    size_t b = 4 * (size_t)v->n[d] * es;
    PSCR_CUDA_ALLOC_GOTO(st, fail, pscr_cuda::dalloc(s, &s->fac[d], b), b);
  }
  {
    const size_t b = (size_t)s->max_batch * es;
    PSCR_CUDA_ALLOC_GOTO(st, fail, pscr_cuda::dalloc(s, &s->cs0, b), b);
  }
  if (s->rows > 0) {
    const size_t b = 4 * (size_t)s->part_p * (size_t)s->rows * es;
    PSCR_CUDA_ALLOC_GOTO(st, fail, pscr_cuda::dalloc(s, &s->pfac, b), b);
    PSCR_CUDA_GOTO(st, fail,
                   v->is_complex ? pscr_cuda::part_attrs<pscr_cuda::zc>()
                                 : pscr_cuda::part_attrs<double>());
  }
  PSCR_CUDA_ALLOC_GOTO(st, fail, pscr_cuda::dalloc(s, (void **)&s->flag, sizeof(int)),
                       sizeof(int));
  {
    const size_t b = (size_t)s->max_batch * v->total * es;
    PSCR_CUDA_ALLOC_GOTO(st, fail, pscr_cuda::dalloc(s, &s->xbuf, b), b);
  }
  s->nthreads = v->num_threads > 0 ? v->num_threads : 1;
  if (v->total * es > pscr_cuda::STAGE_MIN) {
    for (int i = 0; i < 2; i++) {
      PSCR_CUDA_ALLOC_GOTO(st, fail, cudaMallocHost(&s->pin[i], pscr_cuda::STAGE_CHUNK),
                           pscr_cuda::STAGE_CHUNK);
      PSCR_CUDA_GOTO(st, fail, cudaEventCreateWithFlags(&s->pin_done[i], cudaEventDisableTiming));
    }
  }
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
    {
      int *items = nullptr, *bitem = nullptr;
      st = pscr_cuda::build_items(s, d, V, &items, &bitem);
      if (st == PSCR_SUCCESS) {
        const size_t bi = (size_t)(D->nitem > 0 ? D->nitem : 1) * 3 * sizeof(int);
        const size_t bb = (size_t)(V->nblk > 0 ? V->nblk : 1) * 2 * sizeof(int);
        cudaError_t ce = pscr_cuda::dalloc(s, (void **)&D->items, bi);
        if (ce == cudaSuccess)
          ce = pscr_cuda::dalloc(s, (void **)&D->bitem, bb);
        if (ce == cudaSuccess)
          ce = cudaMemcpy(D->items, items, bi, cudaMemcpyHostToDevice);
        if (ce == cudaSuccess)
          ce = cudaMemcpy(D->bitem, bitem, bb, cudaMemcpyHostToDevice);
        if (ce != cudaSuccess) {
          cudaGetLastError();
          st = pscr_error_set(ce == cudaErrorMemoryAllocation ? PSCR_ERROR_DEVICE_ALLOC
                                                              : PSCR_ERROR_DEVICE,
                              __FILE__, __LINE__, "CUDA reduction items: %s",
                              cudaGetErrorString(ce));
        }
      }
      free(items);
      free(bitem);
      if (st != PSCR_SUCCESS)
        goto fail;
    }
    b = batch * (size_t)(D->max_nit > 0 ? D->max_nit : 1) * 3 * D->S * es;
    PSCR_CUDA_ALLOC_GOTO(st, fail, pscr_cuda::dalloc(s, &D->part, b), b);
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
  // k_part's chunk-major copy of the last dimension's factors, identity past n.
  if (s->rows > 0) {
    const int P = s->part_p, M = s->rows, l = s->ndim - 1;
    const size_t np = (size_t)P * M, n = (size_t)s->n[l];
    char *pf = (char *)calloc(4 * np, es);
    if (!pf) {
      st = PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "CUDA chunk-major factors (%zu bytes)", 4 * np * es);
      goto out;
    }
    const double one[2] = {1.0, 0.0};
    for (size_t i = 0; i < np; i++) {
      const size_t at = (i % (size_t)M) * (size_t)P + i / (size_t)M;
      // ad | md | ao | mo; view factors: a_diag, a_off, m_diag, m_off.
      const void *srcs[4] = {i < n ? (const char *)v->fac[l][0] + i * es : (const void *)one,
                             i < n ? (const char *)v->fac[l][2] + i * es : nullptr,
                             i + 1 < n ? (const char *)v->fac[l][1] + i * es : nullptr,
                             i + 1 < n ? (const char *)v->fac[l][3] + i * es : nullptr};
      for (int a = 0; a < 4; a++)
        if (srcs[a])
          memcpy(pf + ((size_t)a * np + at) * es, srcs[a], es);
    }
    cudaError_t ce = cudaMemcpy(s->pfac, pf, 4 * np * es, cudaMemcpyHostToDevice);
    free(pf);
    PSCR_CUDA_GOTO(st, out, ce);
  }
  // c as max_batch elements: shift[0] (real) or (shift[0], shift[1]) (complex).
  {
    const size_t b = (size_t)s->max_batch * es;
    char *cs = (char *)malloc(b);
    if (!cs) {
      st = PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "CUDA batch shifts (%zu bytes)", b);
      goto out;
    }
    for (int r = 0; r < s->max_batch; r++)
      memcpy(cs + (size_t)r * es, v->shift, es);
    cudaError_t ce = cudaMemcpy(s->cs0, cs, b, cudaMemcpyHostToDevice);
    free(cs);
    PSCR_CUDA_GOTO(st, out, ce);
  }
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

// The whole solve of nb right-hand sides (1 <= nb <= max_batch) on `stream`
// with the given level-3 solver (rows, as State.rows): f_r at f + r ldf, u_r
// at u + r ldu (elements, >= total); u == f only with ldu == ldf (in place).
// One launch sequence, the launches of a single solve, each over nb times the
// work; every u_r gets bitwise the numbers of a single solve (each kernel
// computes an entry the same way whatever B is).
//
// Strided batches: the kernels address the top dimension's batch vectors
// through LevelArgs.xs, so the solve runs in u itself whatever ldu is. The
// alternative, gathering the vectors into a contiguous device buffer and
// scattering them back, would need max_batch * total more device memory and
// two more passes over the data per right-hand side, for nothing the kernels
// cannot do with one multiply.
static pscr_status solve_on_stream(State *s, int nb, const void *f, size_t ldf, void *u,
                                   size_t ldu, cudaStream_t cs, int rows)
{
  pscr_status st = PSCR_SUCCESS;
  cudaError_t e;
  const size_t words = s->cplx ? 2 : 1, count = s->total * words;
  PSCR_CUDA_GOTO(st, out, cudaSetDevice(s->device));
  pscr_cuda::mark(s, PSCR_STAGE_OTHER, cs); // profiling: the start
  if (u != f) {
    if (nb == 1 || (ldf == s->total && ldu == s->total)) {
      PSCR_CUDA_GOTO(st, out,
                     cudaMemcpyAsync(u, f, (size_t)nb * s->total * s->elem, cudaMemcpyDefault,
                                     cs));
    } else {
      // Gaps between the vectors: one strided copy kernel (no cudaMemcpy2D,
      // whose pitch is limited to the device's memPitch).
      unsigned gx = pscr_cuda::grid_of(count);
      if (gx > 8u * (unsigned)s->sms)
        gx = 8u * (unsigned)s->sms;
      const dim3 grid(gx, (unsigned)(nb < 65535 ? nb : 65535));
      pscr_cuda::k_copy_batch<<<grid, pscr_cuda::THREADS, 0, cs>>>(
          (const double *)f, ldf * words, (double *)u, ldu * words, count, nb);
      PSCR_CUDA_GOTO(st, out, pscr_cuda_launch_check(cs));
    }
    pscr_cuda::mark(s, PSCR_STAGE_OTHER, cs);
  }
  PSCR_CUDA_GOTO(st, out, cudaMemsetAsync(s->flag, 0, sizeof(int), cs));
  pscr_cuda::mark(s, PSCR_STAGE_OTHER, cs);
  if (s->cplx)
    e = pscr_cuda::run_dim<pscr_cuda::zc>(s, 0, nb, (pscr_cuda::zc *)u, ldu,
                                          (const pscr_cuda::zc *)s->cs0, rows, cs);
  else
    e = pscr_cuda::run_dim<double>(s, 0, nb, (double *)u, ldu, (const double *)s->cs0, rows,
                                   cs);
  PSCR_CUDA_GOTO(st, out, e);
  {
    // Usually the flag is clear: a grid of a few blocks per SM (grid-stride)
    // instead of one thread per entry keeps this check at a few microseconds.
    // The pivots depend on the shifts only, not on f: a flag means that no
    // u_r of the batch is a solution.
    unsigned grid = pscr_cuda::grid_of(count);
    if (grid > 4u * (unsigned)s->sms)
      grid = 4u * (unsigned)s->sms;
    pscr_cuda::k_nan_if_flag<<<grid, pscr_cuda::THREADS, 0, cs>>>(s->flag, (double *)u, count,
                                                                  nb, ldu * words);
    pscr_cuda::mark(s, PSCR_STAGE_OTHER, cs);
    PSCR_CUDA_GOTO(st, out, pscr_cuda_launch_check(cs));
  }
out:
  return st;
}

extern "C" pscr_status pscr_cuda_state_solve_device(void *state, const void *f, void *u,
                                                    void *stream)
{
  State *s = (State *)state;
  return solve_on_stream(s, 1, f, s->total, u, s->total, (cudaStream_t)stream, s->rows);
}

// Groups of up to max_batch right-hand sides, one launch sequence each, in
// order on `stream`. Nothing is allocated and nothing waits for the host, so
// the call can be captured into a CUDA graph.
extern "C" pscr_status pscr_cuda_state_solve_device_batch(void *state, int nrhs, const void *f,
                                                          size_t ldf, void *u, size_t ldu,
                                                          void *stream)
{
  State *s = (State *)state;
  for (int r0 = 0; r0 < nrhs; r0 += s->max_batch) {
    const int nb = nrhs - r0 < s->max_batch ? nrhs - r0 : s->max_batch;
    const pscr_status st =
        solve_on_stream(s, nb, (const char *)f + (size_t)r0 * ldf * s->elem, ldf,
                        (char *)u + (size_t)r0 * ldu * s->elem, ldu, (cudaStream_t)stream,
                        s->rows);
    if (st != PSCR_SUCCESS)
      return st;
  }
  return PSCR_SUCCESS;
}

// Host -> device (h2d) or device -> host of `bytes` through the pinned buffers
// on s->stream; returns after the host side is done (the stream then holds
// only device work). Pinned or registered host memory goes directly.
static cudaError_t staged_copy(State *s, void *dev, void *host, size_t bytes, bool h2d)
{
  cudaPointerAttributes attr;
  cudaError_t e = cudaPointerGetAttributes(&attr, host);
  if (e != cudaSuccess)
    cudaGetLastError(); // plain pageable memory on old runtimes
  const bool pinned = e == cudaSuccess && attr.type == cudaMemoryTypeHost;
  if (!s->pin[0] || pinned || bytes <= pscr_cuda::STAGE_MIN) {
    e = h2d ? cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s->stream)
            : cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s->stream);
    return e != cudaSuccess ? e : cudaStreamSynchronize(s->stream);
  }
  const size_t C = pscr_cuda::STAGE_CHUNK, nc = (bytes + C - 1) / C;
  char *d = (char *)dev, *h = (char *)host;
  if (h2d) {
    for (size_t i = 0; i < nc; i++) {
      const size_t off = i * C, len = bytes - off < C ? bytes - off : C;
      void *buf = s->pin[i % 2];
      // The buffer's previous transfer, possibly one of the previous call (a
      // batch stages its right-hand sides back to back), must be done. An
      // event never recorded counts as done.
      if ((e = cudaEventSynchronize(s->pin_done[i % 2])) != cudaSuccess)
        return e;
      pscr_cuda_host_copy(buf, h + off, len, s->nthreads);
      if ((e = cudaMemcpyAsync(d + off, buf, len, cudaMemcpyHostToDevice, s->stream)) !=
              cudaSuccess ||
          (e = cudaEventRecord(s->pin_done[i % 2], s->stream)) != cudaSuccess)
        return e;
    }
    return cudaSuccess; // later stream work is ordered after the copies
  }
  // Device -> host: chunk i + 1 is in flight while chunk i is copied out.
  for (size_t i = 0; i <= nc; i++) {
    if (i < nc) {
      const size_t off = i * C, len = bytes - off < C ? bytes - off : C;
      if ((e = cudaMemcpyAsync(s->pin[i % 2], d + off, len, cudaMemcpyDeviceToHost,
                               s->stream)) != cudaSuccess ||
          (e = cudaEventRecord(s->pin_done[i % 2], s->stream)) != cudaSuccess)
        return e;
    }
    if (i > 0) {
      const size_t j = i - 1, off = j * C, len = bytes - off < C ? bytes - off : C;
      if ((e = cudaEventSynchronize(s->pin_done[j % 2])) != cudaSuccess)
        return e;
      pscr_cuda_host_copy(h + off, s->pin[j % 2], len, s->nthreads);
    }
  }
  return cudaSuccess;
}

// Host-array solves of nrhs right-hand sides (pscr_solve: 1), f_r at
// f + r ldf, u_r at u + r ldu: groups of up to max_batch staged into xbuf
// (contiguous), solved there in one launch sequence, staged back.
static pscr_status host_solve(State *s, int nrhs, const void *f, size_t ldf, void *u, size_t ldu)
{
  pscr_status st = PSCR_SUCCESS;
  const size_t bytes = s->total * s->elem;
  char *xb = (char *)s->xbuf;
  int rows = s->rows, nbad = 0, first_bad = -1;
  PSCR_CUDA_GOTO(st, out, cudaSetDevice(s->device));
  for (int r0 = 0; r0 < nrhs; r0 += s->max_batch) {
    const int nb = nrhs - r0 < s->max_batch ? nrhs - r0 : s->max_batch;
    int bad = 0;
    // The partitioned level-3 solver checks the pivots of sub-blocks; when
    // one fails, plain Thomas (the CPU backend's pivots) decides. Pivots
    // depend on the shifts only, never on f, so once a group fell back, the
    // remaining groups go to plain Thomas at once (the same numbers).
    for (;; rows = 0) {
      for (int j = 0; j < nb; j++)
        PSCR_CUDA_GOTO(st, out,
                       staged_copy(s, xb + (size_t)j * bytes,
                                   (char *)f + (size_t)(r0 + j) * ldf * s->elem, bytes, true));
      if ((st = solve_on_stream(s, nb, s->xbuf, s->total, s->xbuf, s->total, s->stream,
                                rows)) != PSCR_SUCCESS)
        goto out;
      PSCR_CUDA_GOTO(st, out,
                     cudaMemcpyAsync(&bad, s->flag, sizeof bad, cudaMemcpyDeviceToHost,
                                     s->stream));
      PSCR_CUDA_GOTO(st, out, cudaStreamSynchronize(s->stream));
      if (!bad || rows == 0)
        break;
    }
    for (int j = 0; j < nb; j++)
      PSCR_CUDA_GOTO(st, out,
                     staged_copy(s, xb + (size_t)j * bytes,
                                 (char *)u + (size_t)(r0 + j) * ldu * s->elem, bytes, false));
    if (bad) {
      if (first_bad < 0)
        first_bad = r0;
      nbad += nb;
    }
  }
  if (nbad > 0 && nrhs == 1)
    st = PSCR_ERROR(PSCR_ERROR_SINGULAR,
                    "a shifted tridiagonal subproblem (A%d + s M%d) has a zero pivot", s->ndim,
                    s->ndim);
  else if (nbad > 0)
    st = PSCR_ERROR(PSCR_ERROR_SINGULAR,
                    "a shifted tridiagonal subproblem (A%d + s M%d) has a zero pivot: u is NaN "
                    "for %d of %d right-hand sides (the first is right-hand side %d)",
                    s->ndim, s->ndim, nbad, nrhs, first_bad);
out:
  return st;
}

extern "C" pscr_status pscr_cuda_state_solve(void *state, const void *f, void *u)
{
  State *s = (State *)state;
  return host_solve(s, 1, f, s->total, u, s->total);
}

extern "C" pscr_status pscr_cuda_state_solve_batch(void *state, int nrhs, const void *f,
                                                   size_t ldf, void *u, size_t ldu)
{
  return host_solve((State *)state, nrhs, f, ldf, u, ldu);
}

extern "C" void pscr_cuda_state_destroy(void *state) { pscr_cuda::state_free((State *)state); }

extern "C" void pscr_cuda_state_level3(const void *state, int *rows, int *threads)
{
  const State *s = (const State *)state;
  *rows = s->rows;
  *threads = s->rows > 0 ? s->part_p : 1;
}

extern "C" pscr_status pscr_cuda_state_solve_profile(void *state, const void *f, void *u,
                                                     void *stream, double *ms, size_t launches)
{
  State *s = (State *)state;
  pscr_cuda::Prof prof = {};
  pscr_status st = PSCR_SUCCESS;
  cudaStream_t cs = (cudaStream_t)stream;
  // One event for the start, one after each launch.
  const size_t cap = launches + 1;
  prof.ev = (cudaEvent_t *)calloc(cap, sizeof *prof.ev);
  prof.kind = (int *)calloc(cap, sizeof *prof.kind);
  size_t made = 0;
  if (!prof.ev || !prof.kind) {
    st = PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "%zu profiling events", cap);
    goto out;
  }
  PSCR_CUDA_GOTO(st, out, cudaSetDevice(s->device));
  for (; made < cap; made++)
    PSCR_CUDA_GOTO(st, out, cudaEventCreate(&prof.ev[made]));
  prof.cap = cap;
  s->prof = &prof;
  st = solve_on_stream(s, 1, f, s->total, u, s->total, cs, s->rows);
  s->prof = nullptr;
  if (st != PSCR_SUCCESS)
    goto out;
  PSCR_CUDA_GOTO(st, out, cudaStreamSynchronize(cs));
  if (prof.overflow || prof.n != cap) {
    st = PSCR_ERROR(PSCR_ERROR_DEVICE,
                    "profiling: the solve made %s launches than the cost model's %zu",
                    prof.overflow ? "more" : "fewer", launches);
    goto out;
  }
  PSCR_CUDA_GOTO(st, out, prof.err);
  for (size_t i = 1; i < prof.n; i++) {
    float t = 0;
    PSCR_CUDA_GOTO(st, out, cudaEventElapsedTime(&t, prof.ev[i - 1], prof.ev[i]));
    ms[prof.kind[i]] += t;
  }
out:
  s->prof = nullptr;
  for (size_t i = 0; i < made; i++)
    cudaEventDestroy(prof.ev[i]);
  free(prof.ev);
  free(prof.kind);
  return st;
}

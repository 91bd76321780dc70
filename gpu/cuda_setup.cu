// CUDA backend, setup side: device memory for everything a solve needs
// (allocated at plan time, so a solve allocates nothing), the upload of the
// plan's factors, eigen data and level tables, and teardown. The solves are
// in cuda_solve.cu (device arrays) and cuda_host.cu (host arrays).
#include <cuda_runtime.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "cuda_state.cuh"
#include "cuda_transform.cuh"
#include "partition.cuh"

namespace pscr_cuda {

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
  if (s->blas)
    cublasDestroy(s->blas);
  for (int d = 0; d < 2; d++) {
    free(s->dim[d].lvl);
    free(s->dim[d].lit0);
    free(s->dim[d].lnit);
    free(s->dim[d].ldirect);
    free(s->dim[d].lemax);
    free(s->dim[d].lfused);
  }
  cudaGetLastError(); // teardown errors are not reported; do not leave them sticky
  free(s);
}

namespace {

// Reduction items of dimension d (levels_kernels.cuh): each block's
// eigenpairs in runs of pscr_cuda_fused_eigs on levels whose sums are fused
// into level 3 (fuse: the dimension may fuse), of PSCR_CUDA_ITEM_EIGS on the
// others. Host tables per level, device tables.
pscr_status build_items(State *s, int d, const pscr_cuda_dim_view *V, int fuse, int **items,
                        int **bitem)
{
  DimState *D = &s->dim[d];
  const int k = V->k > 0 ? V->k : 1;
  const int slots = fuse ? s->fuse_slots : 0;
  D->lit0 = (int *)calloc((size_t)k, sizeof(int));
  D->lnit = (int *)calloc((size_t)k, sizeof(int));
  D->ldirect = (int *)calloc((size_t)k, sizeof(int));
  D->lemax = (int *)calloc((size_t)k, sizeof(int));
  D->lfused = (int *)calloc((size_t)k, sizeof(int));
  *bitem = (int *)malloc((size_t)(V->nblk > 0 ? V->nblk : 1) * 2 * sizeof(int));
  if (!D->lit0 || !D->lnit || !D->ldirect || !D->lemax || !D->lfused || !*bitem)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC,
                      "cannot allocate the CUDA reduction items of dimension %d", d + 1);
  size_t nitem = 0;
  for (int i = 0; i < V->k; i++) {
    const pscr_cuda_level_view &lv = V->lvl[i];
    const int fe = pscr_cuda_fused_eigs(lv.ne, slots, s->fuse_min);
    const int per = fe > 0 ? fe : PSCR_CUDA_ITEM_EIGS;
    for (int b = 0; b < lv.nb; b++) {
      const int *row = V->blk + (size_t)(lv.blk0 + b) * PSCR_CUDA_BLK_INTS;
      const int m = row[PSCR_CUDA_BLK_LAST] - row[PSCR_CUDA_BLK_FIRST] + 1;
      nitem += (size_t)((m + per - 1) / per);
    }
  }
  if (nitem > (size_t)INT_MAX / 3)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate %zu CUDA reduction items", nitem);
  *items = (int *)malloc((nitem > 0 ? nitem : 1) * 3 * sizeof(int));
  if (!*items)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC,
                      "cannot allocate the CUDA reduction items of dimension %d", d + 1);
  int it = 0;
  for (int i = 0; i < V->k; i++) {
    const pscr_cuda_level_view &lv = V->lvl[i];
    D->lit0[i] = it;
    const int fe = pscr_cuda_fused_eigs(lv.ne, slots, s->fuse_min);
    const int per = fe > 0 ? fe : PSCR_CUDA_ITEM_EIGS;
    D->lfused[i] = fe > 0;
    int direct = 1;
    for (int b = 0; b < lv.nb; b++) {
      const int *row = V->blk + (size_t)(lv.blk0 + b) * PSCR_CUDA_BLK_INTS;
      const int e0 = row[PSCR_CUDA_BLK_EREL];
      const int e1 = e0 + row[PSCR_CUDA_BLK_LAST] - row[PSCR_CUDA_BLK_FIRST] + 1;
      (*bitem)[2 * (lv.blk0 + b)] = it - D->lit0[i];
      int cnt = 0;
      for (int e = e0; e < e1; e += per, cnt++, it++) {
        (*items)[3 * it] = b;
        (*items)[3 * it + 1] = e;
        (*items)[3 * it + 2] = e + per < e1 ? e + per : e1;
        if ((*items)[3 * it + 2] - e > D->lemax[i])
          D->lemax[i] = (*items)[3 * it + 2] - e;
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

} // namespace

// Whether the last dimension's factors (a_diag, a_off, m_diag, m_off, n
// entries of es bytes; the off-diagonals n - 1) are Toeplitz but for their
// end rows, compared bitwise, as every uniform mesh gives them; if so,
// ToepFacs' row-class table into tab (`one`: the element 1). Off unless
// n >= 4, and with PSCR_FLAG_CUDA_NO_TOEPLITZ (tests compare both).
static int toeplitz_ends(const State *s, const void *const fac[4], int n, size_t es,
                         const void *one, unsigned char *tab)
{
  if (n < 4 || (s->flags & PSCR_FLAG_CUDA_NO_TOEPLITZ))
    return 0;
  const char *ad = (const char *)fac[0], *ao = (const char *)fac[1];
  const char *md = (const char *)fac[2], *mo = (const char *)fac[3];
  const size_t un = (size_t)n;
  for (size_t i = 2; i + 1 < un; i++)
    if (memcmp(ad + i * es, ad + es, es) || memcmp(md + i * es, md + es, es))
      return 0;
  for (size_t i = 2; i + 2 < un; i++)
    if (memcmp(ao + i * es, ao + es, es) || memcmp(mo + i * es, mo + es, es))
      return 0;
  // By class: first, interior, last, padding (ad 1; md, ao, mo 0).
  const char *src[PART_TOEP_ENTRIES] = {
      ad, ad + es, ad + (un - 1) * es, (const char *)one,
      md, md + es, md + (un - 1) * es, nullptr,
      ao, ao + es, ao + (un - 2) * es, nullptr,
      mo, mo + es, mo + (un - 2) * es, nullptr};
  for (int k = 0; k < PART_TOEP_ENTRIES; k++) {
    if (src[k])
      memcpy(tab + (size_t)k * es, src[k], es);
    else
      memset(tab + (size_t)k * es, 0, es);
  }
  return 1;
}

// Whether a 2D plan gets k_part's pivot table (partition.cuh,
// part_tab_stride): its last dimension takes ToepFacs (Toeplitz but for
// the end rows, M >= PART_TOEP_MIN_M, factor table not staged; complex
// plans too, part_ptab_inst), unless PSCR_FLAG_CUDA_NO_PIVOT_TABLE (tests
// and benchmarks compare). A single-precision plan's float factors do not
// exist yet at setup (fac NULL): its table is allocated, and the upload
// decides on its use.
static bool pivot_table_wanted(const State *s, const void *const fac[4], size_t es)
{
  if (s->ndim != 2 || s->rows < PART_TOEP_MIN_M || (s->flags & PSCR_FLAG_CUDA_NO_PIVOT_TABLE) ||
      !part_toep_used(1, s->part_p, s->rows, es))
    return false;
  if (!fac[0])
    return true;
  unsigned char tab[PART_TOEP_ENTRIES * 16];
  const double one_d[2] = {1.0, 0.0}; // the element 1, real or complex
  const float one_s[2] = {1.0f, 0.0f};
  return toeplitz_ends(s, fac, s->n[s->ndim - 1], es,
                       s->single ? (const void *)one_s : (const void *)one_d, tab) != 0;
}

// The pivot table's arithmetic: double, or double complex for complex T.
template <class T> struct table_wide {
  using type = double;
  static double of(T x) { return (double)x; }
  static T back(double x) { return (T)x; }
};
template <class R> struct table_wide<cplx<R>> {
  using type = zc;
  static zc of(cplx<R> x) { return zc((double)x.re, (double)x.im); }
  static cplx<R> back(zc x) { return cplx<R>((R)x.re, (R)x.im); }
};

// The pivot table of the ne systems with eigenvalues lam (shift c + lam_e,
// formed in T as k_part forms it) from the row-class table ct (ToepFacs'
// 16 entries): part_solve's forward elimination of each chunk type's
// interior rows, in double (complex: double complex), rounded to T.
// Returns 0 when a pivot fails part_solve's test (|.|_1 as pivot_bad);
// the kernels then eliminate (and report) themselves.
template <class T>
static int pivot_table(const T *ct, int nl, int M, bool mdiag, T c, const T *lam, size_t ne,
                       T *out)
{
  using Wd = table_wide<T>;
  using W = typename Wd::type;
  const int F = part_tab_fields(M);
  const double eps = eps_of<T>();
  W ctd[PART_TOEP_ENTRIES], cp[16], yb[16]; // M - 1 entries: rows per thread <= 16
  if (M < 2 || M > 16)
    return 0;
  for (int k = 0; k < PART_TOEP_ENTRIES; k++)
    ctd[k] = Wd::of(ct[k]);
  const ToepFacs<W> C = {ctd, nl, mdiag}; // the kernels' row classes, widened
  const W zero = Wd::of(T(0));
  for (size_t e = 0; e < ne; e++) {
    const W s = Wd::of(c + lam[e]);
    for (int t = 0; t < PART_TAB_TYPES; t++) {
      const int lp = part_tab_rep(t, M, nl), row0 = lp * M;
      T *o = out + e * (size_t)part_tab_stride(M) + (size_t)t * F;
      W a = lp > 0 ? C.off(0, row0 - 1, s) : zero;
      for (int k = 0; k < M - 1; k++) {
        const W bd = C.diag(0, row0 + k, s), cc = C.off(0, row0 + k, s);
        const W acp = k > 0 ? a * cp[k - 1] : zero, piv = bd - acp;
        if (!(abs1(piv) > eps * (abs1(bd) + abs1(acp))))
          return 0;
        const W iv = inv(piv);
        cp[k] = cc * iv;
        yb[k] = -(k > 0 ? a * yb[k - 1] : a) * iv;
        o[k] = Wd::back(iv);
        o[(M - 1) + k] = Wd::back(a * iv);
        o[2 * (M - 1) + k] = Wd::back(cp[k]);
        o[3 * (M - 1) + k] = Wd::back(yb[k]);
        a = cc;
      }
      W be = yb[M - 2], ga = -cp[M - 2];
      for (int k = M - 3; k >= 0; k--) {
        be = yb[k] - cp[k] * be;
        ga = -cp[k] * ga;
      }
      o[4 * (M - 1)] = Wd::back(be);
      o[4 * (M - 1) + 1] = Wd::back(ga);
    }
  }
  return 1;
}

// A transformed dimension d of a mixed 3D vector (DimState): its eigen
// data and the transform's workspace (State::tfw). T x R (d = 0) solves one
// right-hand side at a time: E1 F, and the n1 problems of dimension 2 as
// the next dimension's batch (*batch = n1, the shifts c + lambda1_k). R x
// T (d = 1): the *batch subproblems of the outer levels, E2 X each.
static pscr_status setup_transform(State *s, int d, const pscr_cuda_dim_view *V, size_t *batch)
{
  pscr_status st = PSCR_SUCCESS;
  DimState *D = &s->dim[d];
  const size_t n = (size_t)V->n, es = s->elem;
  const size_t tfw = d == 0 ? s->total * es : *batch * n * D->S * es;
  D->transform = 1;
  D->neig = n;
  PSCR_CUDA_ALLOC_GOTO(st, out, dalloc(s, &D->lam, n * es), n * es);
  PSCR_CUDA_ALLOC_GOTO(st, out, dalloc(s, &D->w, n * n * es), n * n * es);
  PSCR_CUDA_ALLOC_GOTO(st, out, dalloc(s, &s->tfw, tfw), tfw);
  if (d == 0) {
    PSCR_CUDA_ALLOC_GOTO(st, out, dalloc(s, &D->shifts, n * es), n * es);
    *batch = n;
  }
out:
  return st;
}

// The cuBLAS handle of a mixed vector's products and its workspace.
static pscr_status setup_blas(State *s)
{
  pscr_status st = PSCR_SUCCESS;
  PSCR_CUDA_ALLOC_GOTO(st, out, dalloc(s, &s->blas_ws, BLAS_WORKSPACE), BLAS_WORKSPACE);
  if (cublasCreate(&s->blas) != CUBLAS_STATUS_SUCCESS) {
    s->blas = nullptr;
    st = PSCR_ERROR(PSCR_ERROR_DEVICE, "cublasCreate failed (device %d)", s->device);
  }
out:
  return st;
}

// The n shifts c + lambda_k of a T x R plan's dimension-2 problems, in the
// plan's type (cuda_transform.cuh: tf_shifts), into dim[0].shifts.
static pscr_status upload_tf_shifts(State *s, const double c[2], const void *lambda)
{
  const size_t n = (size_t)s->dim[0].n, b = n * s->elem;
  void *h = malloc(b);
  if (!h)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate the transform's shifts");
  if (s->single)
    s->cplx ? tf_shifts<cf>(c, lambda, n, h) : tf_shifts<float>(c, lambda, n, h);
  else
    s->cplx ? tf_shifts<zc>(c, lambda, n, h) : tf_shifts<double>(c, lambda, n, h);
  const cudaError_t e = cudaMemcpy(s->dim[0].shifts, h, b, cudaMemcpyHostToDevice);
  free(h);
  return e == cudaSuccess ? PSCR_SUCCESS : pscr_cuda_error(e, "cudaMemcpy");
}

// Level-3 solver choice: rows per thread of k_part (0: serial Thomas).
// Automatic, from H100 measurements:
// 16 rows past n = 2048, else 8; 2 for small 2D problems, whose few systems
// want short dependency chains (2D n = 256: 0.18 ms with 2, 0.20 ms with 8);
// more rows while P would exceed PART_MAX_P; past 16 PART_MAX_P rows, the
// serial path. Single precision takes 16 rows past n = 256: fewer PCR
// steps in float cost less accuracy (2D Helmholtz 1023^2, C32: backward error
// 7.2e-5 with 16 rows, 1.2e-3 with 8) and no time (0.400 against 0.412 ms;
// R32 Poisson 1023^2 0.283 against 0.318 ms). Complex double in 3D takes 4
// rows up to n = 128:
// at 8 its staged kernel spilled 244 bytes at 128 registers (3D Helmholtz
// C64 127^3 5.16 against 4.85 ms, 63^3 0.78 against 0.64 ms); at 255^3 the
// 8 rows stayed ahead (35.4 against 35.8 ms). Measured before the leaner
// level 3, after which the 8-row kernel spills 156 bytes.
int choose_rows(int requested, int n, int ndim, bool single, bool cplx)
{
  if (requested < 0)
    return 0;
  if (requested > 0)
    return part_threads_per_system(n, requested) <= PART_MAX_P ? requested : 0;
  const int large = single ? 256 : 2048;
  const int mid = ndim == 3 && cplx && !single && n <= 128 ? 4 : 8;
  for (int m = n > large ? 16 : (ndim == 2 && n <= 256 ? 2 : mid); m <= 16; m *= 2)
    if (part_threads_per_system(n, m) <= PART_MAX_P)
      return m;
  return 0;
}

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
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate the CUDA backend state");
  s->device = v->device;
  s->cplx = v->is_complex;
  s->single = v->single;
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
  s->flags = v->flags;
  // PSCR_FLAG_CUDA_PAIR_NEVER / _ALWAYS: k_part never or always solves two
  // systems per pass (tests compare both bitwise); neither: part_pair's rule.
  s->pair_mode = pscr_cuda::flag_mode(v->flags, PSCR_FLAG_CUDA_PAIR_NEVER,
                                      PSCR_FLAG_CUDA_PAIR_ALWAYS);
  // PSCR_FLAG_CUDA_NO_STAGE: k_part reads its factor table from global
  // memory even where staged_facs would copy it to shared memory (tests
  // compare the two bitwise).
  s->stage_facs = !(v->flags & PSCR_FLAG_CUDA_NO_STAGE);
  // PSCR_FLAG_CUDA_PCR_REFINE_ALL: k_part's refinement step of the boundary
  // system for every system, also where its rows are dominant enough for
  // PCR alone (tests compare the two to rounding).
  s->pcr_refine_all = (v->flags & PSCR_FLAG_CUDA_PCR_REFINE_ALL) != 0;
  // PSCR_FLAG_CUDA_COUPLE_ONE / _MANY: the coupling and gather kernels take
  // one entry per thread, or COUPLE_PER wherever the slabs are long enough
  // (tests compare both bitwise: the rule takes several only on grids too
  // large for a test); neither: couple_grid's rule.
  s->couple_mode = pscr_cuda::flag_mode(v->flags, PSCR_FLAG_CUDA_COUPLE_ONE,
                                        PSCR_FLAG_CUDA_COUPLE_MANY);
  // R x T: the last dimension's systems are the transform's (k_tf_thomas,
  // plain Thomas); nothing runs k_part.
  s->rows = v->dim[v->ndim - 2].transform
                ? 0
                : pscr_cuda::choose_rows(v->rows_per_thread, v->n[v->ndim - 1], v->ndim,
                                         v->single != 0, v->is_complex != 0);
  s->rows_chosen = s->rows;
  s->part_p = s->rows > 0 ? pscr_cuda::part_threads_per_system(v->n[v->ndim - 1], s->rows) : 0;
  // Every workspace is at most a few times max_batch * total elements
  // (validation bounds 64 total bytes), and batch indices are ints.
  if (v->max_batch < 1 || (size_t)v->max_batch > (SIZE_MAX / 64) / v->total ||
      (v->ndim == 3 && (size_t)v->max_batch * (size_t)v->dim[0].max_ne > (size_t)INT_MAX)) {
    st = PSCR_ERROR(PSCR_ERROR_DEVICE_ALLOC,
                    "the batch workspace (max_batch * n1*n2%s elements) overflows the "
                    "address space (max_batch %d)",
                    v->ndim == 3 ? "*n3" : "", v->max_batch);
    goto fail;
  }

  PSCR_CUDA_GOTO(st, fail, cudaSetDevice(v->device));
  PSCR_CUDA_GOTO(st, fail,
                 cudaDeviceGetAttribute(&s->sms, cudaDevAttrMultiProcessorCount, v->device));
  PSCR_CUDA_GOTO(st, fail,
                 cudaDeviceGetAttribute(&s->sm_threads, cudaDevAttrMaxThreadsPerMultiProcessor,
                                        v->device));
  // Programmatic dependent launch (launch.cuh) where the kernels have their
  // gates. PSCR_FLAG_CUDA_NO_EARLY_LAUNCH: off (A/B measurements).
  s->pdl = 0;
  if (!(v->flags & PSCR_FLAG_CUDA_NO_EARLY_LAUNCH))
    PSCR_CUDA_GOTO(st, fail, pscr_cuda::pdl_supported(v->device, &s->pdl));
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
    const size_t bt = pscr_cuda::PART_TOEP_ENTRIES * es;
    PSCR_CUDA_ALLOC_GOTO(st, fail, pscr_cuda::dalloc(s, &s->ptoep, bt), bt);
    if (pscr_cuda::pivot_table_wanted(s, v->fac[v->ndim - 1], es)) {
      const size_t bp = v->dim[0].neig * (size_t)pscr_cuda::part_tab_stride(s->rows) * es;
      PSCR_CUDA_ALLOC_GOTO(st, fail, pscr_cuda::dalloc(s, &s->ptab, bp), bp);
    }
    PSCR_CUDA_GOTO(st, fail,
                   pscr_cuda::part_attributes(v->is_complex != 0, v->single != 0, v->device));
    PSCR_CUDA_GOTO(st, fail, pscr_cuda::part_resident(s));
    // The weighted sums inside level 3 (part_sum.cuh) for 2D plans, on the
    // levels pscr_cuda_fused_eigs picks. PSCR_FLAG_CUDA_FUSE_NEVER: never;
    // PSCR_FLAG_CUDA_FUSE_ALL: every level whose kernel fits (tests compare
    // both). 3D plans solve the last dimension in batches of the outer
    // subproblems, whose count varies by outer level, and keep the separate
    // pass: with items sized per outer level the fused kernel was slower
    // there (H100 255^3 Poisson, 8 rows: double 16.2 -> 18.9 ms, float
    // 10.06 -> 10.30).
    const bool never = (v->flags & PSCR_FLAG_CUDA_FUSE_NEVER) != 0;
    const bool always = (v->flags & PSCR_FLAG_CUDA_FUSE_ALL) != 0;
    s->fuse_min = always ? 0 : PSCR_CUDA_FUSE_MIN_EIGS;
    if (v->ndim == 2 && !never)
      PSCR_CUDA_GOTO(st, fail, pscr_cuda::part_sum_plan(s, always));
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
    D->item_sums = V->item_sums;
    D->S = 1;
    for (int e = d + 1; e < v->ndim; e++)
      D->S *= (size_t)v->n[e];
    if (V->transform) {
      if ((st = pscr_cuda::setup_transform(s, d, V, &batch)) != PSCR_SUCCESS)
        goto fail;
      continue;
    }
    D->neig = V->neig;
    D->nblk = V->nblk;
    D->njl = V->njl;
    D->lvl = (pscr_cuda_level_view *)malloc((size_t)(V->k > 0 ? V->k : 1) * sizeof *D->lvl);
    if (!D->lvl) {
      st = PSCR_ERROR(PSCR_ERROR_HOST_ALLOC,
                      "cannot allocate the CUDA level list of dimension %d", d + 1);
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
      st = pscr_cuda::build_items(s, d, V, d == v->ndim - 2 && s->fuse_slots > 0, &items,
                                  &bitem);
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
                              "%s (uploading the CUDA reduction items, %zu bytes)",
                              cudaGetErrorString(ce), bi + bb);
        }
      }
      free(items);
      free(bitem);
      if (st != PSCR_SUCCESS)
        goto fail;
    }
    b = batch * (size_t)(D->max_nit > 0 ? D->max_nit : 1) * (size_t)D->item_sums * D->S * es;
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
  if ((s->dim[0].transform || s->dim[1].transform) &&
      (st = pscr_cuda::setup_blas(s)) != PSCR_SUCCESS)
    goto fail;
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
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate the CUDA upload staging (%zu bytes)",
                      4 * (size_t)nmax * es);
  PSCR_CUDA_GOTO(st, out, cudaSetDevice(s->device));
  s->rows = s->rows_chosen; // new factors: probe_pivots decides again
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
      st = PSCR_ERROR(PSCR_ERROR_HOST_ALLOC,
                      "cannot allocate the CUDA chunk-major factors (%zu bytes)", 4 * np * es);
      goto out;
    }
    const double one_d[2] = {1.0, 0.0};
    const float one_s[2] = {1.0f, 0.0f};
    const void *one = s->single ? (const void *)one_s : (const void *)one_d;
    pscr_cuda::part_chunk_factors(v->fac[l], n, P, M, es, one, pf);
    // Diagonal M_l (every m_off entry zero, bitwise): k_part skips mo.
    s->part_mdiag = 1;
    for (size_t i = 0; i < np * es && s->part_mdiag; i++)
      s->part_mdiag = pf[3 * np * es + i] == 0;
    cudaError_t ce = cudaMemcpy(s->pfac, pf, 4 * np * es, cudaMemcpyHostToDevice);
    free(pf);
    PSCR_CUDA_GOTO(st, out, ce);
    unsigned char tab[pscr_cuda::PART_TOEP_ENTRIES * 16];
    const int toep = pscr_cuda::toeplitz_ends(s, v->fac[l], s->n[l], es, one, tab);
    if (toep)
      PSCR_CUDA_GOTO(st, out,
                     cudaMemcpy(s->ptoep, tab, pscr_cuda::PART_TOEP_ENTRIES * es,
                                cudaMemcpyHostToDevice));
    // The pivot table (allocated at setup for a Toeplitz 2D plan; factors
    // uploaded later that are not Toeplitz leave it unused).
    s->ptab_on = 0;
    if (s->ptab && toep) {
      const pscr_cuda_dim_view *V = &v->dim[0];
      const size_t bp = V->neig * (size_t)pscr_cuda::part_tab_stride(M) * es;
      void *ht = malloc(bp);
      if (!ht) {
        st = PSCR_ERROR(PSCR_ERROR_HOST_ALLOC,
                        "cannot allocate the CUDA pivot table (%zu bytes)", bp);
        goto out;
      }
      const bool md = s->part_mdiag != 0;
      const int nl = s->n[l];
      const double *c = v->shift;
      auto table = [&](auto c0) {
        using T = decltype(c0);
        return pscr_cuda::pivot_table<T>((const T *)tab, nl, M, md, c0, (const T *)V->lambda,
                                         V->neig, (T *)ht);
      };
      using pscr_cuda::cf;
      using pscr_cuda::zc;
      s->ptab_on = s->single ? (s->cplx ? table(cf((float)c[0], (float)c[1])) : table((float)c[0]))
                             : (s->cplx ? table(zc(c[0], c[1])) : table(c[0]));
      cudaError_t ce =
          s->ptab_on ? cudaMemcpy(s->ptab, ht, bp, cudaMemcpyHostToDevice) : cudaSuccess;
      free(ht);
      PSCR_CUDA_GOTO(st, out, ce);
    }
    // Complex kernels take the row classes only with the pivot table
    // (part_ptab_inst); without it they load the factors per row.
    s->part_toep = toep && (!s->cplx || s->ptab_on);
  }
  // c as max_batch elements: shift[0] (real) or (shift[0], shift[1]) (complex),
  // rounded to float for a single-precision plan.
  {
    const size_t b = (size_t)s->max_batch * es;
    char *cs = (char *)malloc(b);
    if (!cs) {
      st = PSCR_ERROR(PSCR_ERROR_HOST_ALLOC,
                      "cannot allocate the CUDA batch shifts (%zu bytes)", b);
      goto out;
    }
    const float shift_s[2] = {(float)v->shift[0], (float)v->shift[1]};
    const void *shift = s->single ? (const void *)shift_s : (const void *)v->shift;
    for (int r = 0; r < s->max_batch; r++)
      memcpy(cs + (size_t)r * es, shift, es);
    cudaError_t ce = cudaMemcpy(s->cs0, cs, b, cudaMemcpyHostToDevice);
    free(cs);
    PSCR_CUDA_GOTO(st, out, ce);
  }
  for (int d = 0; d < s->ndim - 1; d++) {
    const pscr_cuda_dim_view *V = &v->dim[d];
    pscr_cuda::DimState *D = &s->dim[d];
    if (D->transform) {
      const size_t n = (size_t)D->n;
      PSCR_CUDA_GOTO(st, out, cudaMemcpy(D->lam, V->lambda, n * es, cudaMemcpyHostToDevice));
      PSCR_CUDA_GOTO(st, out, cudaMemcpy(D->w, V->w, n * n * es, cudaMemcpyHostToDevice));
      if (d == 0 && (st = pscr_cuda::upload_tf_shifts(s, v->shift, V->lambda)) != PSCR_SUCCESS)
        goto out;
      continue;
    }
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
  st = pscr_cuda::probe_pivots(s);
out:
  free(stage);
  return st;
}

extern "C" void pscr_cuda_state_destroy(void *state) { pscr_cuda::state_free((State *)state); }

extern "C" void pscr_cuda_state_choices(const void *state, pscr_cuda_choices *c)
{
  const State *s = (const State *)state;
  const int part = s->rows > 0; // else (probe_pivots' fallback too) plain Thomas
  c->rows = s->rows;
  c->threads = part ? s->part_p : 1;
  c->mdiag = part && s->part_mdiag;
  c->toeplitz = part && pscr_cuda::part_toep_used(s->part_toep, s->part_p, s->rows, s->elem);
  c->pivot_table = part && s->ptab_on;
  c->staged = part && pscr_cuda::staged_facs(s, s->rows, s->elem);
  c->fuse_slots = part ? s->fuse_slots : 0;
  c->fuse_back = part && s->fuse_slots > 0 && s->fuse_back ? 1 + s->fuse_back4 : 0;
  c->fuse_min = s->fuse_min;
  c->early_launch = s->pdl;
  c->nan_fill = s->pivots_bad;
}

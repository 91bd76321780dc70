// CUDA backend, solve side: the templates of the level driver (cuda_solve.cu
// says what it does), included by one translation unit per scalar type
// (cuda_solve_d.cu, _z, _s, _c), each instantiating them for its type
// through PSCR_CUDA_SOLVE_TYPE: the four compile in parallel. In one file
// they took about 4 minutes per architecture on one core, the pole of every
// build. Everything here is in an unnamed namespace: each unit has its own
// copy of what it instantiates, and nothing is shared between them.
#ifndef PSCR_CUDA_SOLVE_IMPL_CUH
#define PSCR_CUDA_SOLVE_IMPL_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "cuda_state.cuh"
#include "cuda_transform.cuh"
#include "launch.cuh"
#include "levels_kernels.cuh"
#include "part_sum.cuh"
#include "partition.cuh"
#include "thomas.cuh"
#include "cuda_solve_types.cuh"

namespace pscr_cuda {

namespace {

template <class T>
cudaError_t run_dim(const State *s, int d, int B, T *x, size_t xs, const T *f, size_t fs,
                    const T *cs, int nrhs, cudaStream_t stream);
template <class T>
cudaError_t transform_last(const State *s, int d, int B, T *x, const T *cs, int nrhs,
                           cudaStream_t stream);

// Whether the kernels of factors F have a PART_MAX_P instantiation:
// staged factors come with P <= THREADS only (part_stages).
template <class F> constexpr bool part_has_large() { return !is_staged<F>::value; }

// go(nt, pd) for the instantiated level-3 kernel shape of a launch with
// `threads` per block: nt the block size (std::integral_constant THREADS
// or PART_MAX_P), pd whether paired (std::bool_constant; real types only).
template <class T, class F, class Go> cudaError_t with_part_kernel(int threads, bool pair, Go &&go)
{
  auto sized = [&](auto pd) {
    if constexpr (part_has_large<F>())
      if (threads > THREADS)
        return go(std::integral_constant<int, PART_MAX_P>(), pd);
    return go(std::integral_constant<int, THREADS>(), pd);
  };
  if constexpr (part_ysmem<T>())
    if (pair)
      return sized(std::true_type());
  return sized(std::false_type());
}

// One k_part launch with factors C (PartFacs, StagedFacs or ToepFacs).
template <class T, int M, class F>
cudaError_t launch_k_part(const State *s, const F &C, bool pair, int threads, size_t blocks,
                          size_t smem, const LevelArgs<T> &L, int nl, int B, const T *cs,
                          const T *x, const T *g, T *v, int P, int *flag, cudaStream_t stream)
{
  const dim3 nb((unsigned)blocks), nt((unsigned)threads);
  return with_part_kernel<T, F>(threads, pair, [&](auto n, auto pd) {
    return launch(pdl_take(s), k_part<T, M, decltype(n)::value, decltype(pd)::value, F>, nb, nt,
                  smem, stream, L, C, nl, B, cs, x, g, v, P, flag);
  });
}

// go(std::integral_constant<int, M>()) for the instantiated rows per thread
// M of a plan's level-3 solver: 2, 4, 8, else 16.
template <class Go> cudaError_t with_rows(int rows, Go &&go)
{
  switch (rows) {
  case 2:
    return go(std::integral_constant<int, 2>());
  case 4:
    return go(std::integral_constant<int, 4>());
  case 8:
    return go(std::integral_constant<int, 8>());
  default:
    return go(std::integral_constant<int, 16>());
  }
}

// The launch shape of k_part and k_part_sum with factors F for `units`
// work units (slots' worth of work): blocks and the shared memory of the
// slots' buffers (per_thread entries of T). When the factors are staged
// (StagedFacs) the grid is persistent: one wave, `resident` blocks per SM
// (State::part_res, sum_res; 8 where unknown). A fixed 8 per SM left a
// partial last wave wherever fewer were resident: 3D 255^3 float holds 3
// blocks of k_part per SM, and its 1056 blocks ran as 2.67 waves in the
// time of 3 (H100: 10.34 -> 10.06 ms).
struct PartShape {
  int P, threads;
  size_t blocks, smem;
};

template <class T, class F>
PartShape part_shape(const State *s, size_t units, int per_thread, int resident = 0)
{
  PartShape sh;
  sh.P = s->part_p;
  sh.threads = part_block_threads(sh.P);
  const int spb = sh.threads / sh.P;
  sh.blocks = (units + (size_t)spb - 1) / (size_t)spb;
  const size_t cap = is_staged<F>::value
                         ? (size_t)s->sms * (size_t)(resident > 0 ? resident : 8)
                         : (size_t)1 << 20;
  if (sh.blocks > cap)
    sh.blocks = cap;
  if (sh.blocks < 1)
    sh.blocks = 1;
  sh.smem = (size_t)sh.threads * (size_t)per_thread * sizeof(T);
  return sh;
}

// go(C, smem) with the plan's level-3 factors C, ToepFacs when they are
// used (ToepTabFacs with the pivot table of a 2D plan), else StagedFacs
// where staged_facs holds, else PartFacs, and the shared memory that C's
// staging adds.
template <class T, int M, class Go> cudaError_t with_part_facs(const State *s, Go &&go)
{
  const int P = s->part_p;
  const size_t np = (size_t)P * M;
  if constexpr (part_ptab_inst<T, M>())
    if (s->ptab_on && part_toep_used(s->part_toep, P, M, sizeof(T))) {
      const ToepFacs<T> C = {(const T *)s->ptoep, s->n[s->ndim - 1], s->part_mdiag != 0};
      return go(ToepTabFacs<T>{C}, part_staging_bytes<T, M, ToepTabFacs<T>>(P));
    }
  if constexpr (part_toep_inst<T, M>())
    if (part_toep_used(s->part_toep, P, M, sizeof(T))) {
      const ToepFacs<T> C = {(const T *)s->ptoep, s->n[s->ndim - 1], s->part_mdiag != 0};
      return go(C, part_staging_bytes<T, M, ToepFacs<T>>(P));
    }
  PartFacs<T> C;
  C.ad = (const T *)s->pfac;
  C.md = C.ad + np;
  C.ao = C.md + np;
  C.mo = s->part_mdiag ? nullptr : C.ao + np;
  if (staged_facs(s, M, sizeof(T)))
    return go(StagedFacs<T>{C}, part_staging_bytes<T, M, StagedFacs<T>>(P));
  return go(C, part_staging_bytes<T, M, PartFacs<T>>(P));
}

template <class T, int M>
cudaError_t launch_part_m(const State *s, const LevelArgs<T> &L, int B, const T *cs, const T *x,
                          const T *g, T *v, int nrhs, cudaStream_t stream)
{
  const int spb = part_block_threads(s->part_p) / s->part_p;
  const size_t nsys = (size_t)B * (size_t)L.ne;
  // By the systems of one right-hand side (B counts nrhs of them at
  // every level): a batch then runs the kernel of a single solve, so its u_r
  // stay bitwise the same.
  const size_t per_rhs = nsys / (size_t)(nrhs > 0 ? nrhs : 1);
  const int pair = part_pair<T>(per_rhs, spb, s->sms, s->pair_mode);
  // k_part's work units: systems, or pairs of systems within each batch.
  const size_t units = pair ? (size_t)B * (((size_t)L.ne + 1) / 2) : nsys;
  const int nl = s->n[s->ndim - 1];
  return with_part_facs<T, M>(s, [&](const auto &C, size_t smem) {
    using F = std::decay_t<decltype(C)>;
    const PartShape sh =
        part_shape<T, F>(s, units, part_smem_per_thread<T, M, F>(pair), s->part_res[pair]);
    return launch_k_part<T, M>(s, C, pair, sh.threads, sh.blocks, sh.smem + smem, L, nl, B, cs, x,
                               g, v, sh.P, s->flag, stream);
  });
}

// One k_part_sum launch (part_sum.cuh).
template <class T, int M, int SUMS, class F>
cudaError_t launch_k_part_sum(const State *s, const F &C, bool pair, const PartShape &sh,
                              size_t smem, const LevelArgs<T> &L, int nl, int B, const T *cs,
                              const T *x, const T *g, T *part, T *lr, T *xo, int emax,
                              int *flag, cudaStream_t stream)
{
  const dim3 nb((unsigned)sh.blocks), nt((unsigned)sh.threads);
  return with_part_kernel<T, F>(sh.threads, pair, [&](auto n, auto pd) {
    return launch(pdl_take(s), k_part_sum<T, M, decltype(n)::value, decltype(pd)::value, SUMS, F>,
                  nb, nt, smem, stream, L, C, nl, B, cs, x, g, part, lr, xo, sh.P, emax, flag);
  });
}

// Real types solve an item's systems two per pass when items have two or
// more (the last pass of an odd emax solves one: level 1's items of three
// take a pair and a single, k_part_sum), and when pairing keeps enough
// blocks per SM (State::fuse_pair, part_sum_plan_f).
template <class T> inline bool part_sum_pair(const State *s, int back, int emax)
{
  return part_ysmem<T>() && emax >= 2 && s->fuse_pair[back];
}

template <class T, int M>
cudaError_t launch_part_sum_m(const State *s, const LevelArgs<T> &L, int B, int back,
                              const T *cs, const T *x, const T *g, T *xo, int emax,
                              cudaStream_t stream)
{
  const DimState &D = s->dim[s->ndim - 2];
  const bool pair = part_sum_pair<T>(s, back, emax);
  const size_t units = (size_t)B * (size_t)L.nit;
  const int nl = s->n[s->ndim - 1];
  return with_part_facs<T, M>(s, [&](const auto &C, size_t smem) {
    using F = std::decay_t<decltype(C)>;
    auto go = [&](auto sums) {
      constexpr int SUMS = decltype(sums)::value;
      const PartShape sh =
          part_shape<T, F>(s, units, part_sum_smem_per_thread<T, M, F, SUMS>(pair),
                           s->sum_res[pair][SUMS - 2]);
      return launch_k_part_sum<T, M, SUMS, F>(s, C, pair, sh, sh.smem + smem, L, nl, B, cs, x, g,
                                              (T *)D.part, (T *)D.lr, xo, emax, s->flag, stream);
    };
    if (!back)
      return go(std::integral_constant<int, 2>());
    if (L.nds < 4)
      return go(std::integral_constant<int, 3>());
    if constexpr (part_sum_four<T>())
      return go(std::integral_constant<int, 4>());
    return cudaErrorInvalidValue; // not planned (level_step: fuse_back4)
  });
}

// k_part may need more than the default 48 KB of dynamic shared memory: the
// most a launch asks for, capped at the device's per-block limit (the
// factor staging, PART_STAGE_BYTES, only comes with small P; a launch that
// still asked for more would fail and report it).
template <class T, int M, bool PAIRED, int SUMS, class F> cudaError_t part_sum_attr(int cap)
{
  constexpr int fb = part_sum_smem_per_thread<T, M, F, SUMS>(PAIRED) * (int)sizeof(T);
  const int fs = THREADS * fb + PART_STAGE_BYTES, fl = PART_MAX_P * fb + PART_STAGE_BYTES;
  const cudaFuncAttribute a = cudaFuncAttributeMaxDynamicSharedMemorySize;
  cudaError_t e = cudaFuncSetAttribute(k_part_sum<T, M, THREADS, PAIRED, SUMS, F>, a,
                                       fs < cap ? fs : cap);
  if constexpr (part_has_large<F>())
    if (e == cudaSuccess)
      e = cudaFuncSetAttribute(k_part_sum<T, M, PART_MAX_P, PAIRED, SUMS, F>, a,
                               fl < cap ? fl : cap);
  return e;
}

template <class T, int M, bool PAIRED, class F> cudaError_t part_attr_paired(int cap)
{
  constexpr int bytes = part_smem_per_thread<T, M, F>(PAIRED) * (int)sizeof(T);
  const int small = THREADS * bytes + PART_STAGE_BYTES;
  const int large = PART_MAX_P * bytes + PART_STAGE_BYTES;
  const int sm = small < cap ? small : cap, lg = large < cap ? large : cap;
  const cudaFuncAttribute a = cudaFuncAttributeMaxDynamicSharedMemorySize;
  cudaError_t e = cudaFuncSetAttribute(k_part<T, M, THREADS, PAIRED, F>, a, sm);
  if constexpr (part_has_large<F>())
    if (e == cudaSuccess)
      e = cudaFuncSetAttribute(k_part<T, M, PART_MAX_P, PAIRED, F>, a, lg);
  // k_part_sum: the sums' shared memory on top.
  if (e == cudaSuccess)
    e = part_sum_attr<T, M, PAIRED, 2, F>(cap);
  if (e == cudaSuccess)
    e = part_sum_attr<T, M, PAIRED, 3, F>(cap);
  if constexpr (part_sum_four<T>())
    if (e == cudaSuccess)
      e = part_sum_attr<T, M, PAIRED, 4, F>(cap);
  return e;
}

template <class T, int M, class F> cudaError_t part_attr_f(int cap)
{
  cudaError_t e = part_attr_paired<T, M, false, F>(cap);
  if constexpr (part_ysmem<T>())
    if (e == cudaSuccess)
      e = part_attr_paired<T, M, true, F>(cap);
  return e;
}

template <class T, int M> cudaError_t part_attr(int cap)
{
  cudaError_t e = part_attr_f<T, M, PartFacs<T>>(cap);
  if (e == cudaSuccess)
    e = part_attr_f<T, M, StagedFacs<T>>(cap);
  if constexpr (part_toep_inst<T, M>())
    if (e == cudaSuccess)
      e = part_attr_f<T, M, ToepFacs<T>>(cap);
  if constexpr (part_ptab_inst<T, M>())
    if (e == cudaSuccess)
      e = part_attr_f<T, M, ToepTabFacs<T>>(cap);
  return e;
}

template <class T> cudaError_t part_attrs(int cap)
{
  cudaError_t e = part_attr<T, 2>(cap);
  if (e == cudaSuccess)
    e = part_attr<T, 4>(cap);
  if (e == cudaSuccess)
    e = part_attr<T, 8>(cap);
  if (e == cudaSuccess)
    e = part_attr<T, 16>(cap);
  return e;
}

template <class T>
cudaError_t launch_part(const State *s, const LevelArgs<T> &L, int B, const T *cs, const T *x,
                        const T *g, T *v, int nrhs, cudaStream_t stream)
{
  return with_rows(s->rows, [&](auto m) {
    return launch_part_m<T, decltype(m)::value>(s, L, B, cs, x, g, v, nrhs, stream);
  });
}

template <class T>
cudaError_t launch_part_sum(const State *s, const LevelArgs<T> &L, int B, int back, const T *cs,
                            const T *x, const T *g, T *xo, int emax, cudaStream_t stream)
{
  return with_rows(s->rows, [&](auto m) {
    return launch_part_sum_m<T, decltype(m)::value>(s, L, B, back, cs, x, g, xo, emax, stream);
  });
}

// Blocks of k_part (SUMS 0) or k_part_sum (SUMS sums: the direction),
// paired or not, with factors F, that one SM holds; staging: F's shared
// memory on top of the slots'.
template <class T, int M, int SUMS, class F>
cudaError_t part_per_sm(const State *s, bool pair, size_t staging, int *per_sm)
{
  int spt = part_smem_per_thread<T, M, F>(pair);
  if constexpr (SUMS > 0)
    spt = part_sum_smem_per_thread<T, M, F, SUMS>(pair);
  const PartShape sh = part_shape<T, F>(s, 1, spt);
  auto occ = [&](auto kernel) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, kernel, sh.threads,
                                                         sh.smem + staging);
  };
  return with_part_kernel<T, F>(sh.threads, pair, [&](auto n, auto pd) {
    constexpr int NT = decltype(n)::value;
    constexpr bool PD = decltype(pd)::value;
    if constexpr (SUMS == 0)
      return occ(k_part<T, M, NT, PD, F>);
    else
      return occ(k_part_sum<T, M, NT, PD, SUMS, F>);
  });
}

// The persistent grids of plans whose level-3 factors are staged (then
// always StagedFacs, part_toep_used): resident blocks per SM of k_part
// (State::part_res, unpaired [0] and paired [1]) and of k_part_sum
// (sum_res[pair][sums - 2]), at setup. Zero where not staged or not
// instantiated.
template <class T, int M> cudaError_t part_resident_m(State *s)
{
  using F = StagedFacs<T>;
  if (!staged_facs(s, M, sizeof(T)))
    return cudaSuccess;
  const size_t staging = part_staging_bytes<T, M, F>(s->part_p);
  const int pairs = part_ysmem<T>() ? 2 : 1;
  cudaError_t e = cudaSuccess;
  for (int pair = 0; pair < pairs && e == cudaSuccess; pair++) {
    int *r = s->sum_res[pair];
    e = part_per_sm<T, M, 0, F>(s, pair != 0, staging, &s->part_res[pair]);
    if (e == cudaSuccess)
      e = part_per_sm<T, M, 2, F>(s, pair != 0, staging, &r[0]);
    if (e == cudaSuccess)
      e = part_per_sm<T, M, 3, F>(s, pair != 0, staging, &r[1]);
    if constexpr (part_sum_four<T>())
      if (e == cudaSuccess)
        e = part_per_sm<T, M, 4, F>(s, pair != 0, staging, &r[2]);
  }
  return e;
}

template <class T> cudaError_t part_resident_t(State *s)
{
  return with_rows(s->rows, [&](auto m) { return part_resident_m<T, decltype(m)::value>(s); });
}

// The fused kernels' launch plan, at setup (before the factors are
// uploaded), for the factors the solves will most likely take: ToepTabFacs
// when the pivot table was allocated (a Toeplitz 2D plan), else StagedFacs
// where staged_facs holds (as with_part_facs), else PartFacs (ToepFacs'
// shared memory differs by 16 entries; a plan whose table turns
// out unused runs the kernels planned for the table, correct but maybe
// with fewer blocks per SM than planned).
// - A direction fuses when its kernel keeps 16 warps per SM (unless
//   `always`: when it fits at all). With 8 (double and complex float at 16
//   rows, whose sums take the shared memory of a second block) level 3 ran
//   1.7-2x slower than k_part plus the separate sums (H100, 4095^2). The
//   forward kernel keeps two sums, not three: double at 16 rows with the
//   pivot table (no yb column) fits two blocks forward, one back, so it
//   fuses the forward levels only (4095^2 Poisson R64 3.05 -> 2.87 ms).
//   Complex double at 16 rows fuses neither (forward only when `always`).
// - Pairing (State::fuse_pair) where the paired kernel keeps 16 warps per
//   SM or as many blocks as the unpaired one (PSCR_CUDA_PAIR=0 / 1 forces
//   it): 4095^2 R32 back, two paired blocks beat three unpaired (1.67
//   against 1.82 ms); double forward, one paired block against two.
// - fuse_slots: the slots of the back kernel when it fuses, else of the
//   forward kernel (SMs times blocks per SM times slots per block); items
//   are sized by it (pscr_cuda_fused_eigs).
template <class T, int M, class F> cudaError_t part_sum_plan_f(State *s, bool always)
{
  const size_t staging = part_staging_bytes<T, M, F>(s->part_p);
  int fwd[2] = {0, 0}, back[2] = {0, 0};
  cudaError_t e = part_per_sm<T, M, 2, F>(s, false, staging, &fwd[0]);
  if (e == cudaSuccess)
    e = part_per_sm<T, M, 3, F>(s, false, staging, &back[0]);
  if (part_ysmem<T>() && e == cudaSuccess)
    e = part_per_sm<T, M, 2, F>(s, true, staging, &fwd[1]);
  if (part_ysmem<T>() && e == cudaSuccess)
    e = part_per_sm<T, M, 3, F>(s, true, staging, &back[1]);
  if (e != cudaSuccess)
    return e;
  const int mode = s->pair_mode, threads = part_block_threads(s->part_p);
  auto pairs = [&](const int *per_sm) {
    return part_ysmem<T>() &&
           (mode >= 0 ? mode == 1 : per_sm[1] * threads >= 512 || per_sm[1] >= per_sm[0]);
  };
  auto worth = [&](int per_sm) { return always ? per_sm > 0 : per_sm * threads >= 512; };
  s->fuse_pair[0] = pairs(fwd);
  s->fuse_pair[1] = pairs(back);
  const int pf = fwd[s->fuse_pair[0]], pb = back[s->fuse_pair[1]];
  s->fuse_back = worth(pb) && worth(pf);
  const int per_sm = s->fuse_back ? pb : worth(pf) ? pf : 0;
  s->fuse_slots = s->sms * per_sm * (threads / s->part_p);
  // A back level with four sums (the merged top level of n = 4^j) fuses
  // by the same rule, with the back levels' pairing.
  s->fuse_back4 = 0;
  if constexpr (part_sum_four<T>())
    if (s->fuse_back) {
      int b4 = 0;
      if ((e = part_per_sm<T, M, 4, F>(s, s->fuse_pair[1] != 0, staging, &b4)) != cudaSuccess)
        return e;
      s->fuse_back4 = worth(b4);
    }
  return cudaSuccess;
}

template <class T, int M> cudaError_t part_sum_plan_m(State *s, bool always)
{
  if constexpr (part_ptab_inst<T, M>())
    if (s->ptab)
      return part_sum_plan_f<T, M, ToepTabFacs<T>>(s, always);
  if (staged_facs(s, M, sizeof(T)))
    return part_sum_plan_f<T, M, StagedFacs<T>>(s, always);
  return part_sum_plan_f<T, M, PartFacs<T>>(s, always);
}

template <class T> cudaError_t part_sum_plan_t(State *s, bool always)
{
  return with_rows(s->rows,
                   [&](auto m) { return part_sum_plan_m<T, decltype(m)::value>(s, always); });
}

// Launch shape of k_couple_fwd / k_couple_back and k_gather over `rows`
// slabs of S entries: COUPLE_PER entries per thread where the grid still
// has COUPLE_MIN_BLOCKS blocks per SM with it, else one (State::couple_mode
// forces either). Four entries everywhere slows small 3D plans (63^3 R64
// 0.470 -> 0.497 ms, 95^3 1.39 -> 1.44 ms): some of their levels' grids
// then have fewer than 2 blocks per SM. The threshold was 16 blocks per SM
// (from 2D sizes); a sweep over 16, 8, 4, 2 and 0 after the short-slab
// grids found 2 the fastest or within noise everywhere (H100): 3D 127^3-191^3 1-3% faster (127^3 R64 2.179 -> 2.125
// ms, R32 1.520 -> 1.475), 2D 2047^2 2%.
constexpr size_t COUPLE_MIN_BLOCKS = 2;
inline SlabGrid couple_grid(const State *s, size_t S, size_t rows)
{
  if (s->couple_mode >= 0)
    return s->couple_mode ? slab_grid(S, rows, COUPLE_PER) : slab_grid(S, rows);
  const SlabGrid g = slab_grid(S, rows, COUPLE_PER);
  return (size_t)g.grid.x * g.grid.y >= COUPLE_MIN_BLOCKS * (size_t)s->sms ? g
                                                                             : slab_grid(S, rows);
}

// The subproblems of one level: solutions into dim[d].v (Thomas layout at the
// last-but-one dimension, slabs otherwise). g: NULL forward, gL|gR back.
template <class T>
cudaError_t level_solve(const State *s, int d, const LevelArgs<T> &L, int B, const T *cs,
                        const T *x, const T *g, int nrhs, cudaStream_t stream)
{
  const DimState &D = s->dim[d];
  if (d == s->ndim - 2) {
    const size_t nsys = (size_t)B * (size_t)L.ne;
    const cudaError_t e =
        s->rows == 0 ? launch(pdl_take(s), k_thomas<T>, grid_of(nsys), THREADS, 0, stream, L,
                           facs_of<T>(s), B, cs, x, g, (T *)D.v, (T *)s->cp, s->flag)
                  : launch_part<T>(s, L, B, cs, x, g, (T *)D.v, nrhs, stream);
    mark(s, PSCR_STAGE_LEVEL3, stream);
    return e;
  }
  const SlabGrid sg = couple_grid(s, L.S, (size_t)B * (size_t)L.ne);
  cudaError_t e = launch(pdl_take(s), k_gather<T>, sg.grid, sg.block, 0, stream, L, B, cs, x, g,
                         (T *)D.v, (T *)D.shifts);
  mark(s, PSCR_STAGE_GATHER, stream);
  if (e != cudaSuccess)
    return e;
  // All ne subproblems of every batch as one batch of the next dimension
  // (contiguous: subproblem sys at D.v + sys S, and n_{d+1} S_{d+1} = S),
  // by its reduction or (R x T) its transform.
  if (s->dim[d + 1].transform)
    return transform_last<T>(s, d + 1, B * L.ne, (T *)D.v, (const T *)D.shifts, nrhs, stream);
  return run_dim<T>(s, d + 1, B * L.ne, (T *)D.v, L.S, (const T *)D.v, L.S,
                    (const T *)D.shifts, nrhs, stream);
}

// Lanes per entry of k_reduce_sum (a power of two, at most 32): as many
// as the level's blocks have items on average, while the lanes of one
// right-hand side's entries stay within half the device's resident threads
// (State::sm_threads per SM). Depends on the level and the device only. H100, 4095^2
// Poisson: float 1.515 -> 1.484 ms, double 2.745 -> 2.680 ms. Half the
// resident threads measured best, against all of them or a quarter.
template <class T> int reduce_lanes(const State *s, const LevelArgs<T> &L, int B, int nrhs)
{
  const size_t per_blk = (size_t)L.nit / (size_t)L.nb;
  const size_t entries = (size_t)(B / (nrhs > 0 ? nrhs : 1)) * (size_t)L.nb * L.S;
  const size_t half = (size_t)s->sms * (size_t)(s->sm_threads / 2);
  int lanes = 1;
  while (lanes < 32 && 2 * (size_t)lanes <= per_blk && 2 * (size_t)lanes * entries <= half)
    lanes *= 2;
  return lanes;
}

// The sums of each block's items from their partial sums in dim[d].part
// (k_reduce_sum), into lr (forward) or x (back).
template <class T>
cudaError_t level_item_sums(const State *s, int d, const LevelArgs<T> &L, int B, int back, T *x,
                            int nrhs, cudaStream_t stream)
{
  const int lanes = reduce_lanes<T>(s, L, B, nrhs);
  const size_t tile = (size_t)THREADS / (size_t)lanes;
  const size_t nblk = (size_t)B * (size_t)L.nb * L.S;
  const size_t tiles = (nblk + tile - 1) / tile;
  const unsigned grid = tiles < ((size_t)1 << 24) ? (unsigned)tiles : 1u << 24;
  const size_t sums = back && L.nds > 3 ? 4 : 3;
  const size_t smem = lanes > 1 ? sums * (size_t)THREADS * sizeof(T) : 0;
  const cudaError_t e = launch(pdl_take(s),
                               lanes > 1 ? k_reduce_sum<T, true> : k_reduce_sum<T, false>,
                               grid, THREADS, smem, stream, L, B, back, lanes,
                               (const T *)s->dim[d].part, (T *)s->dim[d].lr, x);
  mark(s, PSCR_STAGE_SUMS, stream);
  return e;
}

// The weighted sums of a level's solutions (levels_kernels.cuh: k_reduce_*).
template <class T>
cudaError_t level_reduce(const State *s, int d, const LevelArgs<T> &L, int B, int back,
                         const T *v, size_t vs, size_t vt, T *x, int nrhs,
                         cudaStream_t stream)
{
  const DimState &D = s->dim[d];
  const size_t nit = (size_t)B * (size_t)L.nit * L.S;
  const cudaError_t e = launch(pdl_take(s), k_reduce_items<T>, grid_of(nit), THREADS, 0, stream, L,
                               B, v, vs, vt, back, (T *)D.part, (T *)D.lr, x);
  mark(s, PSCR_STAGE_SUMS, stream);
  if (e != cudaSuccess || L.direct)
    return e;
  return level_item_sums<T>(s, d, L, B, back, x, nrhs, stream);
}

// Level 3 and the weighted sums of level i in one pass (k_part_sum), then
// the sums of blocks of several items (k_reduce_sum). x: the level's
// sources F (g: NULL forward, gL|gR back); xo: the solution vectors, where
// the back substitution writes u_{d_q}.
template <class T>
cudaError_t level_solve_sum(const State *s, int d, int i, const LevelArgs<T> &L, int B, int back,
                            const T *cs, const T *x, const T *g, T *xo, int nrhs,
                            cudaStream_t stream)
{
  const DimState &D = s->dim[d];
  const cudaError_t e =
      launch_part_sum<T>(s, L, B, back, cs, x, g, xo, D.lemax[i - 1], stream);
  mark(s, PSCR_STAGE_LEVEL3, stream);
  if (e != cudaSuccess || L.direct)
    return e;
  return level_item_sums<T>(s, d, L, B, back, xo, nrhs, stream);
}

// Level i's subproblems and their weighted sums into x (L_B | R_B forward,
// u_{d_q} back; g: NULL forward, gL|gR back): in one pass where the level
// is fused in this direction (part_sum.cuh; its items were sized for it at
// setup; the back levels only with State::fuse_back), else
// level_solve, then level_reduce over the solutions in dim[d].v (Thomas
// layout on the serial path, slabs otherwise).
template <class T>
cudaError_t level_step(const State *s, int d, int i, const LevelArgs<T> &L, int B, int back,
                       const T *cs, const T *src, const T *g, T *x, int nrhs,
                       cudaStream_t stream)
{
  const DimState &D = s->dim[d];
  const bool thomas = d == s->ndim - 2;
  if (thomas && s->rows > 0 && s->fuse_slots > 0 && D.lfused[i - 1] && (!back || s->fuse_back) &&
      (!back || L.nds < 4 || s->fuse_back4))
    return level_solve_sum<T>(s, d, i, L, B, back, cs, src, g, x, nrhs, stream);
  cudaError_t e = level_solve<T>(s, d, L, B, cs, src, g, nrhs, stream);
  if (e != cudaSuccess)
    return e;
  const bool serial = thomas && s->rows == 0;
  const size_t vs = serial ? 1 : L.S, vt = serial ? (size_t)B * (size_t)L.ne : 1;
  return level_reduce<T>(s, d, L, B, back, (const T *)D.v, vs, vt, x, nrhs, stream);
}

// Solve B independent problems of dimension d: batch b is
// (A_d (x) Mrest + M_d (x) (Arest + cs[b] Mrest)) x_b = f_b, x_b = x + b xs,
// f_b = f + b fs (xs, fs >= n_d S; the gaps between batch vectors are not
// touched). f may be x (in place); otherwise every entry of x is written
// before it is read: level 1 reads its sources from f, its couplings write
// F_j = f_j - ... for j in J_1, and its back substitution writes the rest.
// nrhs: the right-hand sides of the whole launch sequence (B counts nrhs
// times the batches of one), so that launch shapes can be chosen per
// right-hand side.
template <class T>
cudaError_t run_dim(const State *s, int d, int B, T *x, size_t xs, const T *f, size_t fs,
                    const T *cs, int nrhs, cudaStream_t stream)
{
  const DimState &D = s->dim[d];
  const Facs<T> F = facs_of<T>(s);
  const bool s1 = s->ndim - d - 1 == 1; // the couplings' slabs have one dimension
  cudaError_t e;

  // Forward reduction, levels 1..k-1.
  for (int i = 1; i < D.k; i++) {
    const T *src = i == 1 ? f : x; // the level's sources F
    const LevelArgs<T> L = level_of<T>(s, d, i, xs, i == 1 ? fs : xs);
    if (L.nb == 0)
      continue;
    if ((e = level_step<T>(s, d, i, L, B, 0, cs, src, nullptr, x, nrhs, stream)) !=
        cudaSuccess)
      return e;
    if (L.nj > 0) {
      const SlabGrid gc = couple_grid(s, L.S, (size_t)B * (size_t)L.nj);
      e = launch(pdl_take(s), s1 ? k_couple_fwd<T, true> : k_couple_fwd<T, false>, gc.grid,
                 gc.block, 0, stream, L, F, B, cs, (const T *)D.lr, src, x);
      mark(s, PSCR_STAGE_COUPLING, stream);
      if (e != cudaSuccess)
        return e;
    }
  }

  // Back substitution, levels k..1.
  for (int i = D.k; i >= 1; i--) {
    const T *src = i == 1 ? f : x;
    const LevelArgs<T> L = level_of<T>(s, d, i, xs, i == 1 ? fs : xs);
    if (L.nb == 0)
      continue;
    const SlabGrid gb = couple_grid(s, L.S, (size_t)B * (size_t)L.nb);
    e = launch(pdl_take(s), s1 ? k_couple_back<T, true> : k_couple_back<T, false>, gb.grid,
               gb.block, 0, stream, L, F, B, cs, x, src, (T *)D.lr);
    mark(s, PSCR_STAGE_COUPLING, stream);
    if (e != cudaSuccess)
      return e;
    if ((e = level_step<T>(s, d, i, L, B, 1, cs, src, (const T *)D.lr, x, nrhs,
                           stream)) != cudaSuccess)
      return e;
  }
  return cudaSuccess;
}

// A cuBLAS product of a solve (a mixed vector's transform): the next kernel
// follows it, not one of our grids, so it starts in plain stream order
// (pdl_take). A failure stops the launch sequence; solve_on_stream reports
// cuBLAS's status.
inline cudaError_t blas_step(const State *s, cublasStatus_t b)
{
  s->pdl_armed = 0;
  if (b == CUBLAS_STATUS_SUCCESS)
    return cudaSuccess;
  s->blas_err = b;
  return cudaErrorUnknown;
}

// R x T: the B problems x_b = x + b n_d S of dimension d = ndim - 2 by its
// dense transform, in place (the outer levels' subproblems, shifts cs[b]):
// Y_b = E X_b into tfw (column-major n_d x S, the systems' index fastest),
// Thomas along the last dimension with shift cs[b] + lambda_k (x as the
// multipliers' scratch), X_b = E^T Y_b (as X_b^T = Y_b^T E). The products
// go one right-hand side's B / nrhs problems at a time, so that each
// right-hand side of a batch gets the products of a single solve (cuBLAS
// chooses its kernels by the batch count too).
template <class T>
cudaError_t transform_last(const State *s, int d, int B, T *x, const T *cs, int nrhs,
                           cudaStream_t stream)
{
  const DimState &D = s->dim[d];
  const int n = D.n, S = (int)D.S; // S: the last dimension's n
  const int groups = nrhs > 0 && B % nrhs == 0 ? nrhs : 1, per = B / groups;
  const long long slab = (long long)n * S;
  const T *E = (const T *)D.w, *fl = (const T *)s->fac[s->ndim - 1];
  T *Y = (T *)s->tfw;
  cudaError_t e = cudaSuccess;
  for (int r = 0; r < groups && e == cudaSuccess; r++) {
    const size_t at = (size_t)r * (size_t)per * (size_t)slab;
    e = blas_step(s, gemm<T>(s->blas, true, true, n, S, n, E, n, 0, x + at, S, slab, Y + at, n,
                             slab, per));
  }
  if (e != cudaSuccess)
    return e;
  const TfFacs<T> F = {fl, fl + S, fl + 2 * (size_t)S, fl + 3 * (size_t)S, S, s->sms, 0, 0};
  e = tf_thomas<T, false>(Y, x, (size_t)B, (size_t)n, cs, (const T *)D.lam, F, s->flag, stream);
  mark(s, PSCR_STAGE_LEVEL3, stream);
  for (int r = 0; r < groups && e == cudaSuccess; r++) {
    const size_t at = (size_t)r * (size_t)per * (size_t)slab;
    e = blas_step(s, gemm<T>(s->blas, true, true, S, n, n, Y + at, n, slab, E, n, 0, x + at, S,
                             slab, per));
  }
  return e;
}

// A device-to-device copy between the products of a solve (blas_aligned's
// staging); the next kernel starts in plain stream order (pdl_take).
inline cudaError_t copy_step(const State *s, void *dst, const void *src, size_t bytes,
                             cudaStream_t stream)
{
  s->pdl_armed = 0;
  return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream);
}

// T x R: dimension 1 by its dense transform, one right-hand side at a time
// (f_r at f + r ldf, u_r at u + r ldu; u == f allowed): G = E1 F into tfw
// (row-major n1 x S: problem k is slab k, contiguous), the n1 problems of
// dimension 2 with shifts c + lambda1_k (dim[0].shifts) by its reduction
// in place, u = E1^T G (column-major: u^T = G^T E1). An f_r or u_r that
// is not blas_aligned (a device batch's ld) goes through xbuf, which only
// host solves use, and theirs are aligned.
template <class T>
cudaError_t transform_top(const State *s, int nb, const T *f, size_t ldf, T *u, size_t ldu,
                          cudaStream_t stream)
{
  const DimState &D = s->dim[0];
  const int n = D.n, S = (int)D.S;
  const size_t bytes = s->total * sizeof(T);
  const T *E = (const T *)D.w;
  T *G = (T *)s->tfw, *X = (T *)s->xbuf;
  cudaError_t e = cudaSuccess;
  for (int r = 0; r < nb && e == cudaSuccess; r++) {
    const T *fr = f + (size_t)r * ldf;
    T *ur = u + (size_t)r * ldu;
    T *uo = blas_aligned(ur, D.S * sizeof(T)) ? ur : X;
    if (!blas_aligned(fr, D.S * sizeof(T))) {
      e = copy_step(s, X, fr, bytes, stream);
      fr = X;
    }
    // G^T = F^T E1^T (column-major S x n1).
    if (e == cudaSuccess)
      e = blas_step(s, gemm<T>(s->blas, false, false, S, n, n, fr, S, 0, E, n, 0, G, S, 0, 1));
    if (e == cudaSuccess)
      e = run_dim<T>(s, 1, n, G, D.S, G, D.S, (const T *)D.shifts, 1, stream);
    if (e == cudaSuccess)
      e = blas_step(s, gemm<T>(s->blas, false, true, S, n, n, G, S, 0, E, n, 0, uo, S, 0, 1));
    if (e == cudaSuccess && uo != ur)
      e = copy_step(s, ur, X, bytes, stream);
  }
  return e;
}



// The launch sequence and the NaN guard of solve_on_stream for scalar type
// T, made of words W (T itself, or its real type when complex). No copy of f
// into u: the first level reads f (run_dim). (The copy was 0.09 of 3.35 ms
// at 4095^2 Poisson, double, H100.)
template <class T, class W>
cudaError_t solve_typed(State *s, int nb, const void *f, size_t ldf, void *u, size_t ldu,
                        cudaStream_t cs)
{
  const size_t words = sizeof(T) / sizeof(W), count = s->total * words;
  cudaError_t e = s->dim[0].transform
                    ? transform_top<T>(s, nb, (const T *)f, ldf, (T *)u, ldu, cs)
                    : run_dim<T>(s, 0, nb, (T *)u, ldu, (const T *)f, ldf, (const T *)s->cs0, nb,
                                 cs);
  if (e != cudaSuccess)
    return e;
  // The pivots depend on the shifts only, not on f: probe_pivots knows
  // whether they fail, and then no u_r of any batch is a solution. Only
  // then does a solve end with the fill (the flag stays set). (The flag's
  // clear and test in every solve were 2 of 31 launches at 4096^2 Poisson,
  // 0.1-0.7% of the float time on the H100.)
  if (!s->pivots_bad)
    return cudaSuccess;
  unsigned grid = grid_of(count);
  if (grid > 4u * (unsigned)s->sms)
    grid = 4u * (unsigned)s->sms;
  e = launch(pdl_take(s), k_nan_if_flag<W>, grid, THREADS, 0, cs, (const int *)s->flag, (W *)u,
             count, nb, ldu * words);
  mark(s, PSCR_STAGE_OTHER, cs);
  return e;
}


} // namespace

} // namespace pscr_cuda

// The entry points of scalar type T (words W: T, or its real type when
// complex) that cuda_solve.cu dispatches to (cuda_solve_types.cuh).
#define PSCR_CUDA_SOLVE_TYPE(SUF, T, W)                                                        \
  namespace pscr_cuda {                                                                       \
  cudaError_t part_attrs_##SUF(int cap) { return part_attrs<T>(cap); }                        \
  cudaError_t part_resident_##SUF(State *s) { return part_resident_t<T>(s); }                 \
  cudaError_t part_sum_plan_##SUF(State *s, bool always)                                      \
  {                                                                                           \
    return part_sum_plan_t<T>(s, always);                                                     \
  }                                                                                           \
  cudaError_t solve_typed_##SUF(State *s, int nb, const void *f, size_t ldf, void *u,          \
                                size_t ldu, cudaStream_t cs)                                  \
  {                                                                                           \
    return solve_typed<T, W>(s, nb, f, ldf, u, ldu, cs);                                      \
  }                                                                                           \
  }

#endif

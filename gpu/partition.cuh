// Level-3 solver of the CUDA backend: the tridiagonal subproblems
//   (A_l + s M_l) y = r,   s = c_b + lambda_e,   l = d + 1 (the last dimension),
// of a whole level, r formed on the fly from F (and gL, gR in the back
// substitution) as in thomas.cuh. A partitioned Thomas/PCR hybrid that keeps
// every intermediate on chip (docs/design.md, the GPU cost model):
//
// - P threads share one system (P a power of two); thread p owns the M rows
//   p M .. p M + M - 1 (rows past n_l are identity rows). The last row of each
//   chunk, e_p, is a boundary unknown X_p.
// - Thread p eliminates its M - 1 interior rows with Thomas in registers,
//   giving each interior unknown as  x_i = alpha_i + beta_i X_{p-1} + gamma_i X_p
//   (three right-hand sides, one factorization).
// - Substituting the neighbours of row e_p gives the Schur complement on the
//   boundary unknowns, tridiagonal with one row per thread:
//     a_e beta_{e-1} X_{p-1} + (b_e + a_e gamma_{e-1} + c_e beta'_{e+1}) X_p
//       + c_e gamma'_{e+1} X_{p+1} = r_e - a_e alpha_{e-1} - c_e alpha'_{e+1}
//   (primes: the next thread's first interior row), solved by PCR in shared
//   memory in log2(P) steps.
// - Each thread then recovers its interior rows and writes the solution,
//   system-major (v[sys n_l + i]), so the weighted sums over eigenpairs read
//   it coalesced.
//
// Pivots are checked like the CPU's Thomas (relative to the terms that
// formed them); a failure sets *flag. The partition pivots are those of
// sub-blocks, so an indefinite system can fail here and still be solvable by
// plain Thomas: the host-array solve then retries with the serial path.
#ifndef PSCR_CUDA_PARTITION_CUH
#define PSCR_CUDA_PARTITION_CUH

#include <float.h>
#include <string.h>

#include <type_traits>

#include "cuda_args.cuh"
#include "launch.cuh"
#include "level_rhs.cuh"

namespace pscr_cuda {

// Largest P: one system per thread block (tuning experiments:
// -DPSCR_PART_MAX_P=256).
#ifndef PSCR_PART_MAX_P
#define PSCR_PART_MAX_P 512
#endif
constexpr int PART_MAX_P = PSCR_PART_MAX_P;

// Largest factor copy (4 P M entries) k_part stages in shared memory.
constexpr int PART_STAGE_BYTES = 16384;

// Whether k_part stages the factor table (P threads of M rows, es bytes per
// entry): a small table, and one system per block at most THREADS threads
// wide (the staged kernels have no PART_MAX_P instantiation; only 2 rows
// per thread in float reached it, by request).
inline bool part_stages(int P, int M, size_t es)
{
  return 4 * (size_t)P * (size_t)M * es <= (size_t)PART_STAGE_BYTES && P <= THREADS;
}

// ToepFacs (below) are instantiated for real types and M >= PART_TOEP_MIN_M
// only: the smaller chunk sizes serve short systems, whose factor table is
// staged; complex kernels spilled more with them and ran slower (H100,
// 4095^2 Helmholtz C64 10.9 -> 14.0 ms, C32 4.9 -> 5.4 ms).
constexpr int PART_TOEP_MIN_M = 8;
template <class T, int M> constexpr bool part_toep_inst()
{
  return M >= PART_TOEP_MIN_M && std::is_same<T, real_t<T>>::value;
}
// ToepTabFacs (the pivot table, below) are instantiated for complex types
// too: with the table the chain keeps ya alone in registers, where a
// complex kernel eliminating itself keeps cp, ya and yb (3 (M - 1) complex
// values) and spilled at M = 16 (H200, 2D Helmholtz 4095^2 C64: 128
// registers, about 10^7 local-memory spill requests per level-3 launch).
template <class T, int M> constexpr bool part_ptab_inst() { return M >= PART_TOEP_MIN_M; }

// Whether k_part uses ToepFacs: toep (State::part_toep: a real plan whose
// factors have the form), an instantiated M, and a table that is not staged.
inline bool part_toep_used(int toep, int P, int M, size_t es)
{
  return toep && M >= PART_TOEP_MIN_M && !part_stages(P, M, es);
}

// Warp shuffles of a scalar within segments of `width` lanes (a power of two <= 32).
__device__ inline double shfl_up(double v, int d, int width)
{
  return __shfl_up_sync(0xffffffffu, v, d, width);
}
__device__ inline double shfl_down(double v, int d, int width)
{
  return __shfl_down_sync(0xffffffffu, v, d, width);
}
__device__ inline float shfl_up(float v, int d, int width)
{
  return __shfl_up_sync(0xffffffffu, v, d, width);
}
__device__ inline float shfl_down(float v, int d, int width)
{
  return __shfl_down_sync(0xffffffffu, v, d, width);
}
template <class R> __device__ inline cplx<R> shfl_up(cplx<R> v, int d, int width)
{
  return cplx<R>(shfl_up(v.re, d, width), shfl_up(v.im, d, width));
}
template <class R> __device__ inline cplx<R> shfl_down(cplx<R> v, int d, int width)
{
  return cplx<R>(shfl_down(v.re, d, width), shfl_down(v.im, d, width));
}

// A barrier over the threads of one slot (a system in flight): the warp's
// when the slot fits in one (P <= 32: no other warp reads its shared
// memory), else the thread block's. Warps then run their systems without
// waiting for each other: barrier stalls were 14% of the float level-3
// kernel's cycles in 3D (one warp per system, eight per block). inwarp is
// the same for every thread of the block (one P per launch).
__device__ inline void slot_sync(bool inwarp)
{
  if (inwarp)
    __syncwarp();
  else
    __syncthreads();
}

// One PCR step of stride dl on row (L, D, U, R) given its neighbours' rows,
// the neighbours' diagonals already inverted (Im, Ip).
template <class T>
__device__ inline void pcr_step(T &L, T &D, T &U, T &R, T Lm, T Im, T Um, T Rm, T Lp, T Ip, T Up,
                                T Rp, int &bad)
{
  const T k1 = L * Im, k2 = U * Ip;
  const T u1 = k1 * Um, u2 = k2 * Lp;
  const T Dn = D - u1 - u2;
  bad |= !(abs1(Dn) > eps_of<T>() * (abs1(D) + abs1(u1) + abs1(u2)));
  L = -k1 * Lm;
  U = -k2 * Up;
  R = R - k1 * Rm - k2 * Rp;
  D = Dn;
}

// The boundary system (one row (L, D, U, R) per thread lp of P) by PCR:
// X this row's unknown, Xl the previous row's and Xr the next's (0 past
// the ends). Every row publishes its inverted diagonal, so a step costs one
// reciprocal per row. Rows outside 0 .. P-1 are identity rows. In a warp
// (inwarp: P <= 32) by shuffles; else through the shared rows sL..sR.
// Every thread of the system calls it (barriers).
template <class T>
__device__ inline void pcr_solve(bool inwarp, int P, int lp, T Lr, T Dr, T Ur, T Rr, T *sL,
                                 T *sD, T *sU, T *sR, int &bad, T &X, T &Xl, T &Xr)
{
  if (inwarp) {
    for (int dl = 1; dl < P; dl <<= 1) {
      const T I = inv(Dr);
      T Lm = shfl_up(Lr, dl, P), Im = shfl_up(I, dl, P), Um = shfl_up(Ur, dl, P),
        Rm = shfl_up(Rr, dl, P);
      T Lp = shfl_down(Lr, dl, P), Ip = shfl_down(I, dl, P), Up = shfl_down(Ur, dl, P),
        Rp = shfl_down(Rr, dl, P);
      if (lp < dl)
        Lm = Um = Rm = Im = T(0);
      if (lp + dl >= P)
        Lp = Up = Rp = Ip = T(0);
      pcr_step(Lr, Dr, Ur, Rr, Lm, Im, Um, Rm, Lp, Ip, Up, Rp, bad);
    }
    X = Rr * inv(Dr);
    Xl = shfl_up(X, 1, P);
    Xr = shfl_down(X, 1, P);
  } else {
    for (int dl = 1; dl < P; dl <<= 1) {
      sL[lp] = Lr;
      sD[lp] = inv(Dr);
      sU[lp] = Ur;
      sR[lp] = Rr;
      __syncthreads();
      const bool hm = lp >= dl, hp = lp + dl < P;
      const T Lm = hm ? sL[lp - dl] : T(0), Im = hm ? sD[lp - dl] : T(0);
      const T Um = hm ? sU[lp - dl] : T(0), Rm = hm ? sR[lp - dl] : T(0);
      const T Lp = hp ? sL[lp + dl] : T(0), Ip = hp ? sD[lp + dl] : T(0);
      const T Up = hp ? sU[lp + dl] : T(0), Rp = hp ? sR[lp + dl] : T(0);
      __syncthreads();
      pcr_step(Lr, Dr, Ur, Rr, Lm, Im, Um, Rm, Lp, Ip, Up, Rp, bad);
    }
    X = Rr * inv(Dr);
    sR[lp] = X;
    __syncthreads();
    Xl = sR[lp > 0 ? lp - 1 : 0];
    Xr = sR[lp + 1 < P ? lp + 1 : lp];
    __syncthreads();
  }
  if (lp == 0)
    Xl = T(0);
  if (lp == P - 1)
    Xr = T(0);
}

// The dominance of a boundary row above which PCR needs no refinement step:
// |D| >= pcr_dominant() (|L| + |U|): 1.0625 for real rows. An emulation of part_solve on FE
// tridiagonal systems (uniform and graded meshes, 16 to 1024 boundary rows,
// shifts s h^2 from 1e-9 to 12) lost at most 3x plain Thomas's backward
// error without the step wherever every boundary row had |D| >= 1.01
// (|L| + |U|), against up to 8x at 1.001 .. 1.01 and 1400x below; with the
// step, 2x everywhere (docs/accuracy.md, "The partitioned level-3 solver").
// Complex rows measure by abs1 (|re| + |im|), which overstates a modulus
// by up to sqrt(2), hence their larger bound.
template <class T> __device__ constexpr real_t<T> pcr_dominant()
{
  return std::is_same<T, real_t<T>>::value ? real_t<T>(1.0625) : real_t<T>(1.5 * 1.0625);
}

// The partition pivot test: |piv| must exceed eps times the terms it came from.
template <class T> __device__ inline bool pivot_bad(T piv, real_t<T> scale)
{
  return !(abs1(piv) > eps_of<T>() * scale);
}

// Factors of the last dimension in chunk-major order for k_part: row
// i = p M + k at k P + p, so thread p's k-th row loads are coalesced across
// the warp. Rows past n_l are identity rows (ad = 1, md = ao = mo = 0).
// mo is NULL when M_l is diagonal (lumped mass): one load and one
// multiply-add per row less (measured gain small: 2.844 -> 2.839 ms, R64
// 4095^2 level 3). diag / off take the row's table position `at` and its
// row index (unused here; ToepFacs uses it instead).
template <class T> struct PartFacs {
  const T *ad, *md, *ao, *mo; // P M entries each

  __device__ T diag(int at, int, T s) const { return ad[at] + s * md[at]; }
  __device__ T off(int at, int, T s) const { return mo ? ao[at] + s * mo[at] : ao[at]; }
};

// PartFacs that every thread block copies to shared memory first
// (part_stages: small tables). A separate instantiation, so that the
// compiler knows the rows are in shared memory: staging decided at run time
// left k_part reading them through generic pointers with 64-bit address
// arithmetic, and the float and double kernels spilled (H100 3D Poisson
// 255^3: double 15.96 -> 15.14 ms, float 9.86 -> 9.77 ms; 3D float 63^3
// 0.47 -> 0.49 ms).
// PartFacs' tables built on the host: the factors fac = a_diag, a_off,
// m_diag, m_off of n rows (es bytes an entry; the off-diagonals' n - 1
// entries read) into out, 4 P M entries ad | md | ao | mo in chunk-major
// order, rows from n on identity rows (one: the type's 1). out must be
// zeroed. The reduction's state (cuda_setup.cu) and the transforms'
// partitioned solves (tf_part.cuh) take the same tables.
inline void part_chunk_factors(const void *const fac[4], size_t n, int P, int M, size_t es,
                               const void *one, char *out)
{
  const size_t np = (size_t)P * M;
  for (size_t i = 0; i < np; i++) {
    const size_t at = (i % (size_t)M) * (size_t)P + i / (size_t)M;
    const void *srcs[4] = {i < n ? (const char *)fac[0] + i * es : one,
                           i < n ? (const char *)fac[2] + i * es : nullptr,
                           i + 1 < n ? (const char *)fac[1] + i * es : nullptr,
                           i + 1 < n ? (const char *)fac[3] + i * es : nullptr};
    for (int a = 0; a < 4; a++)
      if (srcs[a])
        memcpy(out + ((size_t)a * np + at) * es, srcs[a], es);
  }
}

template <class T> struct StagedFacs : PartFacs<T> {};

template <class F> struct is_staged : std::false_type {};
template <class T> struct is_staged<StagedFacs<T>> : std::true_type {};

// The same factors when A_l and M_l are Toeplitz but for their first and
// last rows (every uniform mesh; real plans, and complex ones with the
// pivot table, see part_toep_inst and part_ptab_inst): a table of four row
// classes instead
// of P M rows, staged in shared memory by every thread block, so level 3
// reads no factors from L1/L2 (a timing what-if without factor loads
// bounded the gain at a quarter of level 3, H100 4095^2 Poisson).
// tab: ad | md | ao |
// mo, four entries each, by class: diagonals row 0, rows 1 .. n-2, row n-1,
// padding rows (1, 0); off-diagonals (i, i+1) i = 0, 1 .. n-3, n-2, and
// i >= n-1 (0, 0). The arithmetic is PartFacs' (a + s m), so both give the
// same numbers. n_l >= 4. (Twelve scalars chosen per row by selects were
// hoisted out of the unrolled row loop by the compiler and spilled: 600
// bytes of stack, 4095^2 R64 3.7 -> 5.2 ms. With the table: R64 3.71 ->
// 3.36 ms, 2047^2 1.20 -> 1.01 ms; R32 2.49 -> 2.41 ms.)
template <class T> struct ToepFacs {
  const T *tab; // 16 entries: global memory, then the block's shared copy
  int nl;
  bool mdiag; // M_l diagonal: off() is the A_l entry alone, as PartFacs with mo NULL

  // Host too: the plan's pivot table (cuda_setup.cu) forms its rows here.
  __host__ __device__ T diag(int, int i, T s) const
  {
    const int c = (i > 0) + (i >= nl - 1) + (i >= nl);
    return tab[c] + s * tab[4 + c];
  }
  __host__ __device__ T off(int, int i, T s) const
  {
    const int c = (i > 0) + (i >= nl - 2) + (i >= nl - 1);
    return mdiag ? tab[8 + c] : tab[8 + c] + s * tab[12 + c];
  }
};
constexpr int PART_TOEP_ENTRIES = 16;

// ToepFacs whose systems also carry a pivot table (below): a separate
// instantiation, so that the kernels without it keep their registers (one
// kernel with both paths behind a runtime test: 4095^2 R64 3.36 -> 3.81 ms
// without the table).
template <class T> struct ToepTabFacs : ToepFacs<T> {};

template <class F> struct is_toep : std::false_type {};
template <class T> struct is_toep<ToepFacs<T>> : std::true_type {};
template <class T> struct is_toep<ToepTabFacs<T>> : std::true_type {};
template <class F> struct has_ptab : std::false_type {};
template <class T> struct has_ptab<ToepTabFacs<T>> : std::true_type {};

// Pivot table of a Toeplitz plan (2D; cuda_setup.cu builds it): the
// elimination of a chunk's interior rows (part_solve's forward Thomas)
// depends on the shift s and the chunk's row classes only, not on the
// right-hand side, and every interior chunk has the same classes. So each
// system carries, per chunk type (part_tab_type), for rows k < M-1:
//   iv_k = 1 / piv_k, m_k = a_k iv_k, cp_k = c_k iv_k,
//   yb_k (the response to the left boundary unknown),
// then be0, ga0 (beta, gamma of the chunk's first row). The forward sweep
// is then  ya_k = r_k iv_k - m_k ya_{k-1}: one fused multiply-add on the
// dependent chain per row instead of a reciprocal (a timing what-if
// without the chain: H100 4095^2 Poisson R64 3.36 -> 3.01 ms, R32 1.95 ->
// 1.76 ms).
constexpr int PART_TAB_TYPES = 4;
__host__ __device__ constexpr int part_tab_fields(int M) { return 4 * (M - 1) + 2; }
__host__ __device__ constexpr int part_tab_stride(int M)
{
  return PART_TAB_TYPES * part_tab_fields(M);
}
// Chunk type of thread lp (rows lp M .. lp M + M - 1 of n_l): 0 the first
// chunk, 1 interior, 2 the chunk that reaches the last rows (n_l - 2,
// n_l - 1, whose classes differ), 3 padding (identity rows only). The
// interior rows and left coupling of chunk lp use rows lp M - 1 ..
// lp M + M - 2, so only one chunk straddles the end.
__host__ __device__ inline int part_tab_type(int lp, int M, int nl)
{
  return lp == 0 ? 0 : lp * M >= nl ? 3 : (lp + 1) * M >= nl ? 2 : 1;
}
// System e's pivot table (NULL for factors without one).
template <class F, class T>
__device__ inline const T *part_tab_of(const LevelArgs<T> &L, int e, int M)
{
  return has_ptab<F>::value ? L.ptab + (size_t)e * part_tab_stride(M) : nullptr;
}
// A chunk of each type (the table is computed for it).
inline int part_tab_rep(int t, int M, int nl)
{
  const int last = (nl + M - 1) / M; // the first padding chunk
  return t == 0 ? 0 : t == 1 ? 1 : t == 2 ? (last - 1 > 1 ? last - 1 : 1) : (last > 1 ? last : 1);
}

// Shared memory of k_part per thread: the staging buffer of r and x (M + 1
// entries: row i at i + i / M, padded against bank conflicts). Real types
// have two (two systems per pass, see k_part), keep the forward-sweep
// columns ya (in place of r) and yb (M - 1 entries) there, and the PCR rows
// (4 entries) after them; complex types keep ya, yb in registers and reuse
// the staging buffer for the PCR rows.
// Why: registers limited k_part to 2 blocks of 256 threads per SM and spilled
// at M = 16; with ya, yb in shared memory, H100 4095^2 Poisson level 3 went
// R64 3.11 -> 2.84 ms. Complex columns (2M + 4 entries of 16 bytes) would
// not fit a 512-thread block's shared memory at M = 16.
// PSCR_PART_YSMEM=0 (experiments) keeps real columns in registers too.
#ifndef PSCR_PART_YSMEM
#define PSCR_PART_YSMEM 1
#endif
template <class T> constexpr bool part_ysmem()
{
  return PSCR_PART_YSMEM && std::is_same<T, real_t<T>>::value;
}
// The yb column is in shared memory only without the pivot table, which
// holds yb itself (4095^2 R32, fused sums: 16 KB less per thread block, a
// third block per SM).
template <class T, int M, class F> __host__ __device__ constexpr int part_yb_cols()
{
  return part_ysmem<T>() && !has_ptab<F>::value ? M - 1 : 0;
}
template <class T, int M, class F> __host__ __device__ constexpr int part_smem_per_thread(int pair)
{
  return part_ysmem<T>() ? (pair ? 2 : 1) * (M + 1) + part_yb_cols<T, M, F>() + 4
                         : (M + 1 > 4 ? M + 1 : 4);
}

// Blocks per SM k_part's registers must allow, by block size NT (256 or
// 512 threads): real float with ya, yb in shared memory fits 80 registers
// without spills, so three blocks of 256 (H100 4095^2 R32 level 3:
// 2.20 -> 1.84 ms); the others keep 128 registers (fewer spill, and lost
// more than occupancy gained, H100).
// Staged float factors at 8 rows (3D plans) take four blocks, 64 registers:
// the kernel is latency bound there, and the 60 bytes the paired kernel
// then spilled cost less than a fourth block gains (H100 255^3 k_part
// 12.75 -> 11.53 ms; at 16 rows, 2D 1023^2, a fourth block lost 2%).
// Since the leaner level 3 it spills nothing at 64.
// Complex float with the pivot table takes three (80 registers; H200 2D
// Helmholtz 4095^2 C32 3.24 -> 3.09 ms); complex double lost there (spills:
// C64 5.78 -> 7.28 ms) and keeps two.
template <class T, int M, class F> constexpr int part_min_blocks(int NT)
{
  if (NT > 256)
    return 1;
  if constexpr (std::is_same<T, cplx<float>>::value && has_ptab<F>::value)
    return 3;
  if (!(part_ysmem<T>() && sizeof(T) == 4))
    return 2;
  return is_staged<F>::value && M == 8 ? 4 : 3;
}

// A thread's column of M - 1 values: registers (indexed by unrolled
// constants) or a slice of shared memory.
template <class T, int N, bool SHARED> struct Column {
  T v[N];
  __device__ T &operator[](int k) { return v[k]; }
  __device__ void bind(T *) {}
};
template <class T, int N> struct Column<T, N, true> {
  T *p;
  __device__ T &operator[](int k) { return p[k]; }
  __device__ void bind(T *q) { p = q; }
};

// One system of k_part, its right-hand side staged in buf (the slot's
// chunks; mine = this thread's chunk): the partitioned elimination, PCR on
// the boundary unknowns, the back substitution, the solution left in buf
// (row i at i + i / M) and written to out (NULL: not written). A pivot
// failure is reported when `live` (false: a repeated slot). ybs: this
// thread's yb column (YS; unused with the pivot table); sL..sR: the PCR
// rows. refine_all: the boundary system's refinement step for every system
// (LevelArgs::pcr_all). Every thread of the block calls it (barriers).
template <class T, int M, bool YS, class F>
__device__ __forceinline__ void part_solve(const F &C, T s, const T *tab, T *buf, T *mine,
                                           T *ybs, T *sL, T *sD, T *sU, T *sR, int lp, int P,
                                           int nl, T *out, bool live, int *flag, bool refine_all)
{
  // Forward Thomas over the interior rows k = 0 .. M-2 for the right-hand
  // sides r (ya) and -a_{i0} e_1 (yb); the third, -c e_{M-1}, gives
  // yg = -cp at the last row and zero above it, so it needs no storage.
  // Row i: a x_{i-1} + bd x_i + c x_{i+1} = r, c of row i = a of row i + 1.
  int bad = 0;
  // YS: ya in place of r, yb after all P chunks; only cp in registers.
  T cp[M - 1];
  Column<T, M - 1, YS> ya, yb;
  ya.bind(mine);
  yb.bind(ybs);
  const int row0 = lp * M; // this thread's first row
  // tab (F = ToepTabFacs): this system's pivot table (part_tab_stride);
  // tt: this chunk type's fields iv | m | cp | yb (M - 1 each) | be0, ga0.
  const T *tt = tab;
  if constexpr (has_ptab<F>::value)
    tt += part_tab_type(lp, M, nl) * part_tab_fields(M);
  constexpr int TM = M - 1, TCP = 2 * (M - 1), TYB = 3 * (M - 1);
  T a = lp > 0 ? C.off((M - 1) * P + lp - 1, row0 - 1, s) : T(0);
  T alL, beL, gaL, al0, be0, ga0;
  if constexpr (has_ptab<F>::value) {
    // The chain is ya alone; cp, yb and the pivots come from the table.
#pragma unroll
    for (int k = 0; k < M - 1; k++) {
      const T r = mine[k];
      ya[k] = k > 0 ? r * tt[k] - tt[TM + k] * ya[k - 1] : r * tt[k];
    }
    a = C.off((M - 2) * P + lp, row0 + M - 2, s);
    alL = ya[M - 2];
    beL = tt[TYB + M - 2];
    gaL = -tt[TCP + M - 2];
    al0 = alL;
#pragma unroll
    for (int k = M - 3; k >= 0; k--)
      al0 = ya[k] - tt[TCP + k] * al0;
    be0 = tt[4 * (M - 1)];
    ga0 = tt[4 * (M - 1) + 1];
  } else {
    for (int k = 0; k < M - 1; k++) {
      const int at = k * P + lp;
      const T bd = C.diag(at, row0 + k, s);
      const T c = C.off(at, row0 + k, s);
      const T r = mine[k];
      const T acp = k > 0 ? a * cp[k - 1] : T(0);
      const T piv = bd - acp;
      bad |= pivot_bad(piv, abs1(bd) + abs1(acp));
      const T iv = inv(piv);
      cp[k] = c * iv;
      ya[k] = (k > 0 ? r - a * ya[k - 1] : r) * iv;
      yb[k] = -(k > 0 ? a * yb[k - 1] : a) * iv;
      a = c;
    }
    // alpha, beta, gamma of the last interior row come out of the forward
    // sweep; those of the first row from a back sweep that stores nothing.
    alL = ya[M - 2];
    beL = yb[M - 2];
    gaL = -cp[M - 2];
    al0 = alL;
    be0 = beL;
    ga0 = gaL;
    for (int k = M - 3; k >= 0; k--) {
      al0 = ya[k] - cp[k] * al0;
      be0 = yb[k] - cp[k] * be0;
      ga0 = -cp[k] * ga0;
    }
  }
  // Boundary row e_p: a (from the loop), bde, ce, re.
  const int ate = (M - 1) * P + lp;
  const T bde = C.diag(ate, row0 + M - 1, s);
  const T ce = C.off(ate, row0 + M - 1, s);
  const T re = mine[M - 1];
  const bool inwarp = P <= 32, last = lp == P - 1;
  slot_sync(inwarp); // complex: the staging buffer becomes the PCR rows

  // The next thread's first interior row: a shuffle when the system fits
  // in a warp (P <= 32, no barriers), shared memory otherwise.
  T alN, beN, gaN;
  if (inwarp) {
    alN = shfl_down(al0, 1, P);
    beN = shfl_down(be0, 1, P);
    gaN = shfl_down(ga0, 1, P);
  } else {
    sL[lp] = al0;
    sD[lp] = be0;
    sU[lp] = ga0;
    __syncthreads();
    if (!last) {
      alN = sL[lp + 1];
      beN = sD[lp + 1];
      gaN = sU[lp + 1];
    }
    __syncthreads();
  }
  if (last)
    alN = beN = gaN = T(0);

  // Schur complement row, then PCR.
  T Lr = a * beL;
  const T t1 = a * gaL, t2 = ce * beN;
  T Dr = bde + t1 + t2;
  bad |= pivot_bad(Dr, abs1(bde) + abs1(t1) + abs1(t2));
  T Ur = ce * gaN;
  T Rr = re - a * alL - ce * alN;
  // PCR, then one refinement step of the boundary system: PCR combines
  // rows with multipliers near 1/2 on weakly dominant rows (Poisson, and
  // Helmholtz away from its absorbing ends), a near-singular combination,
  // so its backward error grows with P: with 1000-row Helmholtz systems 64
  // to 512 boundary rows lost up to 1500x plain Thomas's. The residual of
  // the boundary rows and a second PCR on it bring that within 2x
  // (docs/accuracy.md, "The partitioned level-3 solver"); the boundary
  // system is P rows on chip, the level's traffic is unchanged.
  // Where every boundary row is dominant (pcr_dominant) PCR alone is
  // within 3x of Thomas, and the step is skipped: Poisson's systems but
  // those of the few lowest eigenvalues of each level (2D 4095^2 Poisson
  // spent 12% of its solve in the step). The decision is the system's own
  // (mine: some row of this slot is weak), so that a solution does not
  // depend on which systems share its warp or block (a batch gives bitwise
  // its single solves); the second pass runs where any slot of the warp
  // (P <= 32: the shuffles) or block (barriers) needs it, and the others
  // drop its correction. A NaN row refines (it is flagged anyway).
  // One copy of the PCR code, run once or twice (every instantiation of
  // part_solve carries it: compile time).
  const bool weak = refine_all || !(abs1(Dr) >= pcr_dominant<T>() * (abs1(Lr) + abs1(Ur)));
  bool mine_weak, again;
  if (inwarp) {
    const unsigned votes = __ballot_sync(0xffffffffu, weak);
    const unsigned base = (threadIdx.x & 31u) & ~(unsigned)(P - 1); // the slot's first lane
    const unsigned seg = P == 32 ? 0xffffffffu : ((1u << P) - 1u) << base;
    mine_weak = (votes & seg) != 0;
    again = votes != 0;
  } else if (P == (int)blockDim.x) {
    // The block is the slot (P >= 256).
    mine_weak = again = __syncthreads_or(weak) != 0;
  } else {
    // A slot of 32 < P < 256 threads is P / 32 whole warps: each warp's
    // vote in sR (free until pcr_solve), then the slot's.
    const bool w = __any_sync(0xffffffffu, weak);
    if ((lp & 31) == 0)
      sR[lp >> 5] = w ? T(1) : T(0);
    __syncthreads();
    mine_weak = false;
    for (int k = 0; k < P >> 5; k++)
      mine_weak |= abs1(sR[k]) != real_t<T>(0);
    again = __syncthreads_or(mine_weak) != 0;
  }
  T X = T(0), Xl = T(0), rhs = Rr;
#pragma unroll 1
  for (int pass = 0; pass < (again ? 2 : 1); pass++) {
    int pbad = 0;
    T x, xl, xr;
    pcr_solve(inwarp, P, lp, Lr, Dr, Ur, rhs, sL, sD, sU, sR, pbad, x, xl, xr);
    if (pass == 0) {
      bad |= pbad; // the second pass has the same rows
      rhs = Rr - Lr * xl - Dr * x - Ur * xr;
    }
    if (pass == 0 || mine_weak) {
      X += x;
      Xl += xl;
    }
  }

  // Back substitution of the interior with both boundary values known,
  // through shared memory so that the stores to v are coalesced.
  mine[M - 1] = X;
  T xn = alL + beL * Xl + gaL * X;
  mine[M - 2] = xn;
  if constexpr (has_ptab<F>::value) {
#pragma unroll
    for (int k = M - 3; k >= 0; k--) {
      xn = ya[k] + tt[TYB + k] * Xl - tt[TCP + k] * xn;
      mine[k] = xn;
    }
  } else {
    for (int k = M - 3; k >= 0; k--) {
      xn = ya[k] + yb[k] * Xl - cp[k] * xn;
      mine[k] = xn;
    }
  }
  slot_sync(inwarp);
  if (out) {
    T *o = out + lp;
    for (unsigned i = (unsigned)lp; i < (unsigned)nl; i += (unsigned)P, o += P)
      *o = buf[i + i / M];
  }
  if (live && bad)
    atomicOr(flag, 1);
  slot_sync(inwarp); // before the buffers are reused
}

// The shared memory part_stage_facs (below) takes for factors F: the
// row-class table, or the staged factor table of P M rows, or none.
template <class T, int M, class F> inline size_t part_staging_bytes(int P)
{
  return is_toep<F>::value     ? PART_TOEP_ENTRIES * sizeof(T)
         : is_staged<F>::value ? 4 * (size_t)P * M * sizeof(T)
                               : 0;
}

// StagedFacs (small systems): the factors once per thread block in shared
// memory at sbase (the grid is persistent, so each block solves many
// systems); ToepFacs: the row-class table. Returns the first shared entry
// after them.
template <class T, class F> __device__ inline T *part_stage_facs(F &C, int npad, T *sbase)
{
  if constexpr (is_toep<F>::value) {
    for (int i = threadIdx.x; i < PART_TOEP_ENTRIES; i += blockDim.x)
      sbase[i] = C.tab[i];
    C.tab = sbase;
    sbase += PART_TOEP_ENTRIES;
    __syncthreads();
  } else if constexpr (is_staged<F>::value) {
    for (int i = threadIdx.x; i < 4 * npad; i += blockDim.x)
      sbase[i] = C.ad[i];
    C.ad = sbase;
    C.md = sbase + npad;
    C.ao = sbase + 2 * npad;
    C.mo = C.mo ? sbase + 3 * npad : nullptr;
    sbase += 4 * npad;
    __syncthreads();
  }
  return sbase;
}

// A slot thread's walk over its rows lp, lp + P, ... of a right-hand
// side's sources, their pointers stepped by P: one 64-bit add per source
// and row, where indexing formed base + 4 i in 64 bits (four integer
// instructions per source and row, and a test of gl, in the SASS of the 3D
// float kernel). Without gL, gR (forward) gl and gr alias s0, as unused
// sources do in LevelRhs, and are not read.
template <class T> struct RhsWalk {
  const T *s0, *s1, *s2, *gl, *gr;

  __device__ RhsWalk(const LevelRhs<T> &R, int lp)
      : s0(R.s0 + lp), s1(R.s1 + lp), s2(R.s2 + lp), gl((R.gl ? R.gl : R.s0) + lp),
        gr((R.gl ? R.gr : R.s0) + lp)
  {
  }
  // Source q's entry (LevelRhs::form's numbering).
  __device__ T at(int q) const
  {
    return q == 0 ? *s0 : q == 1 ? *s1 : q == 2 ? *s2 : q == 3 ? *gl : *gr;
  }
  __device__ void step(int P)
  {
    s0 += P;
    s1 += P;
    s2 += P;
    gl += P;
    gr += P;
  }
};

// The right-hand sides of two systems with the same sources (batch and
// eigenvalue block), each source entry loaded once: LevelRhs::form's
// operations for each, interleaved. (Two calls of form on entries loaded
// once took 2 to 6 more registers in the paired kernels, ptxas sm_90.)
// Thread lp's rows lp + k P, k < M, are the slot's npad = P M rows; rows
// from nl on are zero. Row i sits at i + i / M in the buffers (unsigned: a
// shift, not a signed division).
template <class T, int M>
__device__ inline void stage_pair(const LevelRhs<T> &A, const LevelRhs<T> &B, T *bufA, T *bufB,
                                  int lp, int P, int npad, int nl)
{
  RhsWalk<T> w(A, lp);
  const bool back = A.gl != nullptr;
  // A loop over i < npad, not k < M: with M's constant trip count the
  // compiler unrolled it differently, and the fused kernels at 16 rows
  // spilled hundreds of bytes more (ptxas, sm_90).
  for (unsigned i = (unsigned)lp; i < (unsigned)npad; i += (unsigned)P, w.step(P)) {
    T ra = T(0), rb = T(0);
    if (i < (unsigned)nl) {
      const T v0 = *w.s0;
      ra = A.w0 * v0;
      rb = B.w0 * v0;
      if (A.nd > 1) {
        const T v1 = *w.s1;
        ra += A.w1 * v1;
        rb += B.w1 * v1;
      }
      if (A.nd > 2) {
        const T v2 = *w.s2;
        ra += A.w2 * v2;
        rb += B.w2 * v2;
      }
      if (back) {
        const T vl = *w.gl, vr = *w.gr;
        ra -= A.wf * vl;
        rb -= B.wf * vl;
        ra -= A.wl * vr;
        rb -= B.wl * vr;
      }
    }
    bufA[i + i / M] = ra;
    bufB[i + i / M] = rb;
  }
}

// One system's right-hand side, by LevelRhs::form (w captured by value: by
// reference, the complex kernels took 2 more registers).
template <class T, int M>
__device__ inline void stage_one(const LevelRhs<T> &R, T *buf, int lp, int P, int npad, int nl)
{
  RhsWalk<T> w(R, lp);
  const bool back = R.gl != nullptr;
  for (unsigned i = (unsigned)lp; i < (unsigned)npad; i += (unsigned)P, w.step(P)) {
    T r = T(0);
    if (i < (unsigned)nl)
      r = R.form([w](int q) { return w.at(q); }, back);
    buf[i + i / M] = r;
  }
}

// F: PartFacs<T> (rows), StagedFacs<T> (rows, staged) or ToepFacs<T> (row
// classes, staged).
template <class T, int M, int NT, bool PAIRED, class F>
__global__ void __launch_bounds__(NT, part_min_blocks<T, M, F>(NT))
    k_part(LevelArgs<T> L, F C, int nl, int B, const T *cs, const T *x, const T *g, T *v, int P,
           int *flag)
{
  static_assert(M >= 2, "a chunk needs an interior row and a boundary row");
  extern __shared__ double part_smem[];
  constexpr bool YS = part_ysmem<T>();
  // PAIRED (real types only, see part_pair): each slot solves two
  // consecutive systems per pass; they mostly share their sources, so both
  // right-hand sides are formed from one read of them (the loads were a
  // third of level 3's time). A separate instantiation: the unpaired kernel
  // stays as lean as before (a runtime switch cost 3-7% where unpaired).
  static_assert(!PAIRED || YS, "pairing needs the shared-memory columns");
  constexpr int PAIR = PAIRED ? 2 : 1; // systems per slot and pass
  constexpr int spt = part_smem_per_thread<T, M, F>(PAIRED);
  constexpr int YB = part_yb_cols<T, M, F>();
  const int spb = blockDim.x / P; // slots (systems in flight) per thread block
  const int lp = threadIdx.x % P, ls = threadIdx.x / P;
  const int npad = P * M;
  // The factors are setup-time data: staged before the previous grid ends.
  T *sbase = part_stage_facs<T>(C, npad, reinterpret_cast<T *>(part_smem));
  pdl_gate();
  // A slot's shared memory. YS: PAIR chunk buffers (r, then ya, then x) |
  // yb (YB = M - 1 per thread, odd stride: no bank conflicts; none with
  // the pivot table) | PCR rows. Else one chunk buffer, which the PCR rows
  // reuse.
  T *sb = sbase + (size_t)ls * spt * P;
  T *sL = YS ? sb + (size_t)P * (PAIR * (M + 1) + YB) : sb, *sD = sL + P, *sU = sD + P,
    *sR = sU + P;
  T *ybs = sb + (size_t)P * PAIR * (M + 1) + (size_t)lp * YB;

  const size_t nsys = (size_t)B * (size_t)L.ne;

  // The loop bound is uniform over the thread block (every thread meets every
  // barrier); a slot past the last system repeats the last one, unwritten.
  // Work units: systems, or (PAIRED) the pairs (b, 2k), (b, 2k + 1) of each
  // batch b, so that which systems share a pass depends on e alone and a
  // batched solve stages every system as its single solve does.
  const size_t hp = ((size_t)L.ne + 1) / 2;
  const size_t units = PAIRED ? (size_t)B * hp : nsys;
  for (size_t base = (size_t)blockIdx.x * spb; base < units; base += (size_t)gridDim.x * spb) {
    const size_t raw = base + (size_t)ls;
    const size_t unit = raw < units ? raw : units - 1;
    size_t sys[PAIR];
    bool active[PAIR];
    int bq[PAIR], eq[PAIR];
#pragma unroll
    for (int q = 0; q < PAIR; q++) {
      bq[q] = (int)(PAIRED ? unit / hp : unit / (size_t)L.ne);
      const int e = (int)(PAIRED ? 2 * (unit % hp) + q : unit % (size_t)L.ne);
      active[q] = raw < units && e < L.ne;
      eq[q] = e < L.ne ? e : L.ne - 1;
      sys[q] = (size_t)bq[q] * (size_t)L.ne + (size_t)eq[q];
    }
    // The right-hand sides (level_rhs.cuh), coalesced, into shared memory.
    if (PAIRED && active[PAIR - 1] && L.eblk[eq[0]] == L.eblk[eq[PAIR - 1]]) {
      stage_pair<T, M>(level_rhs(L, bq[0], eq[0], x, g), level_rhs(L, bq[0], eq[PAIR - 1], x, g),
                       sb, sb + (size_t)P * (M + 1), lp, P, npad, nl);
    } else {
#pragma unroll
      for (int q = 0; q < PAIR; q++)
        stage_one<T, M>(level_rhs(L, bq[q], eq[q], x, g), sb + (size_t)q * P * (M + 1), lp, P,
                        npad, nl);
    }
    slot_sync(P <= 32);
#pragma unroll
    for (int q = 0; q < PAIR; q++) {
      T *buf = sb + (size_t)q * P * (M + 1);
      part_solve<T, M, YS, F>(C, cs[bq[q]] + L.lam[eq[q]], part_tab_of<F>(L, eq[q], M), buf,
                              buf + (size_t)lp * (M + 1), ybs, sL, sD, sU, sR, lp, P, nl,
                              active[q] ? v + sys[q] * (size_t)nl : nullptr, active[q], flag,
                              L.pcr_all != 0);
    }
  }
}

// Launch shape of k_part for subproblems of n rows with M rows per thread:
// P = the power of two >= ceil(n / M), several systems per block when P is small.
inline int part_threads_per_system(int n, int M)
{
  const int need = (n + M - 1) / M;
  int P = 1;
  while (P < need)
    P <<= 1;
  return P;
}

inline int part_block_threads(int P) { return P >= THREADS ? P : THREADS; }

// Pairing halves k_part's grid; it pays where the paired grid still has
// several waves (H100: 2047^2 and 4095^2 Poisson 8-12% faster) and loses
// where the grid is already short (511^2, 3D 63^3: 20-30% slower when
// always on). Threshold: 4 blocks per SM after pairing, for the nsys
// systems of one right-hand side. mode: State::pair_mode (-1: this rule,
// 0 / 1: never / always).
template <class T> inline int part_pair(size_t nsys, int spb, int sms, int mode)
{
  if (!part_ysmem<T>())
    return 0;
  if (mode >= 0)
    return mode;
  return (nsys + 2 * (size_t)spb - 1) / (2 * (size_t)spb) >= 4 * (size_t)sms;
}

} // namespace pscr_cuda

#endif

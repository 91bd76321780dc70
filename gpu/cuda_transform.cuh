// The pieces of a dense transform (PSCR_METHOD_TRANSFORM) that the CUDA
// backend's two solvers share: cuda_transform.cu (every reduced dimension
// transformed: 2D T, 3D T x T) and the reduction's state (cuda_solve.cu:
// the mixed 3D vectors, T x R and R x T). Products by scalar type (cuBLAS,
// or small_gemm.cuh for small ones), the handle's stream and workspace, and
// the batched Thomas kernels of the last dimension with a shift per system.
#ifndef PSCR_CUDA_TRANSFORM_CUH
#define PSCR_CUDA_TRANSFORM_CUH

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdint.h>

#include <type_traits>

#include "cuda_scalar.cuh"
#include "small_gemm.cuh"

namespace pscr_cuda {

// The cuBLAS workspace of a handle: NVIDIA's advice for Hopper is 32 MiB
// (the default pool is smaller and shared by the handles of a context).
constexpr size_t BLAS_WORKSPACE = (size_t)32 << 20;

// Binds handle h to stream cs. cublasSetStream puts the handle back on its
// default workspace, so the plan's workspace ws is set again after it.
inline cublasStatus_t blas_bind(cublasHandle_t h, void *ws, cudaStream_t cs)
{
  cublasStatus_t b = cublasSetStream(h, cs);
  if (b == CUBLAS_STATUS_SUCCESS)
    b = cublasSetWorkspace(h, ws, BLAS_WORKSPACE);
  return b;
}

// cuBLAS chooses its kernels by its operands' alignment too: a device
// batch with ldf = N + 3 gave its second right-hand side other bits than
// its single solve (2D 64 x 12, R64, H200). The alignment that an operand
// of leading dimension ld (ld_bytes) has at the start of an allocation is
// the largest power of two dividing ld_bytes, at most 256 (cudaMalloc's);
// an operand less aligned than that goes through an aligned buffer, so that
// every right-hand side of a solve gets the kernels, and the bits, of a
// single solve. (The vectors of a batch in one of the backend's own
// buffers are apart by multiples of ld and never need it.)
inline bool blas_aligned(const void *p, size_t ld_bytes)
{
  size_t a = 256;
  while (a > 1 && ld_bytes % a != 0)
    a >>= 1;
  return (uintptr_t)p % a == 0;
}

// The cuBLAS routines and constants of scalar type T (its layout-compatible
// cuBLAS type S).
template <class T> struct Blas;
template <> struct Blas<double> {
  using S = double;
  static constexpr auto gemm = cublasDgemm;
  static constexpr auto batched = cublasDgemmStridedBatched;
  static S scalar(double x) { return x; }
};
template <> struct Blas<float> {
  using S = float;
  static constexpr auto gemm = cublasSgemm;
  static constexpr auto batched = cublasSgemmStridedBatched;
  static S scalar(double x) { return (float)x; }
};
template <> struct Blas<zc> {
  using S = cuDoubleComplex;
  static constexpr auto gemm = cublasZgemm;
  static constexpr auto batched = cublasZgemmStridedBatched;
  static S scalar(double x) { return make_cuDoubleComplex(x, 0); }
};
template <> struct Blas<cf> {
  using S = cuComplex;
  static constexpr auto gemm = cublasCgemm;
  static constexpr auto batched = cublasCgemmStridedBatched;
  static S scalar(double x) { return make_cuComplex((float)x, 0); }
};

// C = op(A) op(B), column-major, strided over `batch` (sa, sb, sc elements
// apart); transposes only, never the conjugate (complex symmetric pencils).
// Small products by small_gemm on the handle's stream (small_gemm.cuh says
// why), the others by cuBLAS.
template <class T>
cublasStatus_t gemm(cublasHandle_t h, bool ta, bool tb, int m, int n, int k, const T *A, int lda,
                    long long sa, const T *B, int ldb, long long sb, T *C, int ldc, long long sc,
                    int batch)
{
  if (small_gemm_fits(m, n, k, batch)) {
    cudaStream_t cs;
    const cublasStatus_t b = cublasGetStream(h, &cs);
    if (b != CUBLAS_STATUS_SUCCESS)
      return b;
    return small_gemm<T>(ta, tb, m, n, k, A, lda, sa, B, ldb, sb, C, ldc, sc, batch, cs) ==
                   cudaSuccess
               ? CUBLAS_STATUS_SUCCESS
               : CUBLAS_STATUS_EXECUTION_FAILED;
  }
  using X = Blas<T>;
  using S = typename X::S;
  const S one = X::scalar(1), zero = X::scalar(0);
  const cublasOperation_t oa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, ob = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  const S *a = reinterpret_cast<const S *>(A), *b = reinterpret_cast<const S *>(B);
  S *c = reinterpret_cast<S *>(C);
  if (batch == 1)
    return X::gemm(h, oa, ob, m, n, k, &one, a, lda, b, ldb, &zero, c, ldc);
  return X::batched(h, oa, ob, m, n, k, &one, a, lda, sa, b, ldb, sb, &zero, c, ldc, sc, batch);
}

// The shift c of a plan (re, im in double) in scalar type T: rounded to
// float for a single-precision plan, as the CPU backend rounds it.
template <class T> T shift_of(const double c[2])
{
  using R = real_t<T>;
  if constexpr (std::is_same<T, R>::value)
    return (R)c[0];
  else
    return T((R)c[0], (R)c[1]);
}

// The shifts c + lambda_g of the n problems of a transformed dimension, in
// T on the host (the device would compute the same IEEE sums).
template <class T> void tf_shifts(const double c[2], const void *lambda, size_t n, void *out)
{
  const T cc = shift_of<T>(c), *lam = (const T *)lambda;
  T *o = (T *)out;
  for (size_t g = 0; g < n; g++)
    o[g] = cc + lam[g];
}

constexpr int TF_THREADS = 256;

// Thomas on the systems (A + s M) x = r of the last dimension's pencil
// (order nl; ad, ao, md, mo as the plan stores them, the off-diagonals
// zero-padded to nl), system q = g m + k (g < groups, k < m) at
// x[g m nl + t m + k], t = 0 .. nl-1, with shift s = cg[g] + lb[k] (the
// CPU's order: the outer dimensions' shift first); cp: scratch of the same
// layout. PROBE: only the pivots, no data. A pivot that fails the CPU's
// test (cpu_solve_impl.h: |piv| <= eps (|diag| + |t|), or a first pivot of
// 0) sets *flag. The rows come TF_CHUNK at a time: their loads (which do
// not depend on the recurrence) are issued together, before the chain of
// divisions that does, so that one memory latency serves TF_CHUNK rows
// (a thread per system leaves few threads per SM to hide it: 3D 127^3 has
// 16129 systems, 2D 1023^2 has 1023).
constexpr int TF_CHUNK = 8;

// One system of k_tf_thomas: row i at x[base + i m] (cp likewise), shift
// s. Returns whether a pivot failed the CPU's test.
template <class T, bool PROBE>
__device__ __forceinline__ bool tf_thomas_sys(T *x, T *cp, size_t base, size_t m, int nl, T s,
                                              const T *ad, const T *ao, const T *md,
                                              const T *mo)
{
  using R = real_t<T>;
  const T zero = T(0);
  T b = ad[0] + s * md[0];
  bool bad = !(abs1(b) > R(0));
  T iv = inv(b);
  T e = nl > 1 ? ao[0] + s * mo[0] : zero;
  T xp = zero, cq = e * iv;
  if (!PROBE) {
    xp = x[base] * iv;
    x[base] = xp;
    cp[base] = cq;
  }
  // Row i of the forward sweep, its right-hand side r, diagonal diag and
  // coupling to row i + 1 (en) already formed.
  auto row = [&](int i, T r, T diag, T en) {
    const T ep = e; // the coupling to row i - 1
    const T t = ep * cq;
    const T piv = diag - t;
    bad |= !(abs1(piv) > eps_of<T>() * (abs1(diag) + abs1(t)));
    iv = inv(piv);
    e = en;
    cq = e * iv;
    if (!PROBE) {
      const size_t at = base + (size_t)i * m;
      xp = (r - ep * xp) * iv;
      x[at] = xp;
      cp[at] = cq;
    }
  };
  // The pencil's rows are loaded with the chunk's right-hand sides: the
  // stores to x and cp (which the compiler must assume may alias them)
  // would otherwise hold each row's loads behind the previous row's stores.
  auto coupling = [&](int i) { return i < nl - 1 ? ao[i] + s * mo[i] : zero; };
  int i = 1;
  for (; i + TF_CHUNK <= nl; i += TF_CHUNK) {
    T r[TF_CHUNK], dg[TF_CHUNK], en[TF_CHUNK];
#pragma unroll
    for (int c = 0; c < TF_CHUNK; c++) {
      r[c] = PROBE ? zero : x[base + (size_t)(i + c) * m];
      dg[c] = ad[i + c] + s * md[i + c];
      en[c] = coupling(i + c);
    }
#pragma unroll
    for (int c = 0; c < TF_CHUNK; c++)
      row(i + c, r[c], dg[c], en[c]);
  }
  for (; i < nl; i++)
    row(i, PROBE ? zero : x[base + (size_t)i * m], ad[i] + s * md[i], coupling(i));
  if (!PROBE) {
    int j = nl - 2;
    for (; j - TF_CHUNK + 1 >= 0; j -= TF_CHUNK) {
      T xr[TF_CHUNK], cr[TF_CHUNK];
#pragma unroll
      for (int c = 0; c < TF_CHUNK; c++) {
        const size_t at = base + (size_t)(j - c) * m;
        xr[c] = x[at];
        cr[c] = cp[at];
      }
#pragma unroll
      for (int c = 0; c < TF_CHUNK; c++) {
        xp = xr[c] - cr[c] * xp;
        x[base + (size_t)(j - c) * m] = xp;
      }
    }
    for (; j >= 0; j--) {
      const size_t at = base + (size_t)j * m;
      xp = x[at] - cp[at] * xp;
      x[at] = xp;
    }
  }
  return bad;
}

// The same systems by a twisted factorization ("burn at both ends"): rows
// 0 .. h-1 eliminated downwards and rows nl-1 .. h+1 upwards, in the same
// thread at once, the two chains meeting at row h = nl / 2, then both
// back substitutions at once. The same operations as Thomas, but two
// independent dependency chains of half the length: where the systems are
// too few to fill the device (2D: n1 of them), the reciprocal-bound chain,
// not the bandwidth, sets the time, and it halves. PROBE: only the pivots
// (each against the CPU's test), failures set bit 2 of *flag (the plan then
// keeps plain Thomas, whose pivots the CPU's match). Needs nl >= 3. One
// system, addressed as tf_thomas_sys's; returns, for PROBE, whether a pivot
// failed the CPU's test.
template <class T, bool PROBE>
__device__ __forceinline__ bool tf_twist_sys(T *x, T *cp, size_t base, size_t m, int nl, T s,
                                             const T *ad, const T *ao, const T *md,
                                             const T *mo)
{
  using R = real_t<T>;
  const T zero = T(0);
  const int h = nl / 2;
  auto at = [&](int i) { return base + (size_t)i * m; };
  auto diag = [&](int i) { return ad[i] + s * md[i]; };
  auto off = [&](int i) { return ao[i] + s * mo[i]; }; // rows i and i + 1
  bool bad = false;
  // Downwards: et couples the row to the one above, ct its multiplier,
  // yt its partial solution; upwards likewise with the row below.
  T piv = diag(0);
  bad |= !(abs1(piv) > R(0));
  T iv = inv(piv), et = off(0), ct = et * iv, yt = zero;
  piv = diag(nl - 1);
  bad |= !(abs1(piv) > R(0));
  T jv = inv(piv), eb = off(nl - 2), cb = eb * jv, yb = zero;
  if (!PROBE) {
    yt = x[at(0)] * iv;
    x[at(0)] = yt;
    cp[at(0)] = ct;
    yb = x[at(nl - 1)] * jv;
    x[at(nl - 1)] = yb;
    cp[at(nl - 1)] = cb;
  }
  // One row of each chain: i downwards, j upwards, their right-hand sides,
  // diagonals and next couplings already formed.
  auto down = [&](int i, T r, T dg, T en) {
    const T t = et * ct;
    piv = dg - t;
    if (PROBE)
      bad |= !(abs1(piv) > eps_of<T>() * (abs1(dg) + abs1(t)));
    iv = inv(piv);
    if (!PROBE) {
      yt = (r - et * yt) * iv;
      x[at(i)] = yt;
      cp[at(i)] = en * iv;
    }
    et = en;
    ct = en * iv;
  };
  auto up = [&](int j, T r, T dg, T en) {
    const T t = eb * cb;
    const T pj = dg - t;
    if (PROBE)
      bad |= !(abs1(pj) > eps_of<T>() * (abs1(dg) + abs1(t)));
    jv = inv(pj);
    if (!PROBE) {
      yb = (r - eb * yb) * jv;
      x[at(j)] = yb;
      cp[at(j)] = en * jv;
    }
    eb = en;
    cb = en * jv;
  };
  // Rows 1 .. h-1 downwards beside rows nl-2 .. h+1 upwards, TF_CHUNK of
  // each loaded ahead; the down chain has one row more when nl is even.
  const int steps = nl - 2 - h; // rows of the up chain
  int t = 0;
  for (; t + TF_CHUNK <= steps; t += TF_CHUNK) {
    T rd[TF_CHUNK], dd[TF_CHUNK], ed[TF_CHUNK], ru[TF_CHUNK], du[TF_CHUNK], eu[TF_CHUNK];
#pragma unroll
    for (int c = 0; c < TF_CHUNK; c++) {
      const int i = 1 + t + c, j = nl - 2 - t - c;
      rd[c] = PROBE ? zero : x[at(i)];
      ru[c] = PROBE ? zero : x[at(j)];
      dd[c] = diag(i);
      du[c] = diag(j);
      ed[c] = off(i);
      eu[c] = off(j - 1);
    }
#pragma unroll
    for (int c = 0; c < TF_CHUNK; c++) {
      down(1 + t + c, rd[c], dd[c], ed[c]);
      up(nl - 2 - t - c, ru[c], du[c], eu[c]);
    }
  }
  for (; t < steps; t++) {
    const int i = 1 + t, j = nl - 2 - t;
    down(i, PROBE ? zero : x[at(i)], diag(i), off(i));
    up(j, PROBE ? zero : x[at(j)], diag(j), off(j - 1));
  }
  if (1 + steps < h) // nl even: row h - 1
    down(h - 1, PROBE ? zero : x[at(h - 1)], diag(h - 1), off(h - 1));
  // Row h: both neighbours eliminated.
  {
    const T dg = diag(h), t1 = et * ct, t2 = eb * cb;
    const T ph = dg - t1 - t2;
    bad |= PROBE && !(abs1(ph) > eps_of<T>() * (abs1(dg) + abs1(t1) + abs1(t2)));
    if (!PROBE) {
      T xh = (x[at(h)] - et * yt - eb * yb) * inv(ph);
      x[at(h)] = xh;
      // Back substitution: rows h-1 .. 0 and h+1 .. nl-1 at once.
      T xd = xh, xu = xh;
      int i = h - 1, j = h + 1;
      for (; i - TF_CHUNK + 1 >= 0 && j + TF_CHUNK - 1 <= nl - 1; i -= TF_CHUNK, j += TF_CHUNK) {
        T yd[TF_CHUNK], cd[TF_CHUNK], yu[TF_CHUNK], cu[TF_CHUNK];
#pragma unroll
        for (int c = 0; c < TF_CHUNK; c++) {
          yd[c] = x[at(i - c)];
          cd[c] = cp[at(i - c)];
          yu[c] = x[at(j + c)];
          cu[c] = cp[at(j + c)];
        }
#pragma unroll
        for (int c = 0; c < TF_CHUNK; c++) {
          xd = yd[c] - cd[c] * xd;
          x[at(i - c)] = xd;
          xu = yu[c] - cu[c] * xu;
          x[at(j + c)] = xu;
        }
      }
      for (; i >= 0; i--) {
        xd = x[at(i)] - cp[at(i)] * xd;
        x[at(i)] = xd;
      }
      for (; j <= nl - 1; j++) {
        xu = x[at(j)] - cp[at(j)] * xu;
        x[at(j)] = xu;
      }
    }
  }
  return PROBE && bad;
}

// One system by plain Thomas or, TWIST, the twisted factorization; returns
// the bit of *flag that its failed pivot sets (1 plain, 2 twisted), or 0.
template <class T, bool PROBE, bool TWIST>
__device__ __forceinline__ int tf_sys(T *x, T *cp, size_t base, size_t m, int nl, T s,
                                      const T *ad, const T *ao, const T *md, const T *mo)
{
  if constexpr (TWIST)
    return tf_twist_sys<T, PROBE>(x, cp, base, m, nl, s, ad, ao, md, mo) ? 2 : 0;
  else
    return tf_thomas_sys<T, PROBE>(x, cp, base, m, nl, s, ad, ao, md, mo) ? 1 : 0;
}

// A thread per system q = g m + k, row i at x[g m nl + i m + k] (tf_sys).
template <class T, bool PROBE, bool TWIST>
__global__ void k_tf_thomas(T *x, T *cp, size_t groups, size_t m, int nl, const T *cg,
                            const T *lb, const T *ad, const T *ao, const T *md, const T *mo,
                            int *flag)
{
  const size_t q = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= groups * m)
    return;
  const size_t g = q / m, k = q % m;
  const int bit = tf_sys<T, PROBE, TWIST>(x, cp, g * m * (size_t)nl + k, m, nl, cg[g] + lb[k],
                                          ad, ao, md, mo);
  if (bit)
    atomicOr(flag, bit);
}

// The last dimension's factors on the device: a_diag, a_off, m_diag, m_off.
template <class T> struct TfFacs {
  const T *ad, *ao, *md, *mo;
  int nl;
  int sms;   // multiprocessors of the device (asked once, at plan creation)
  int twist; // the twisted form where the systems are few (tf_twist_fits)
  int smem;  // shared memory a block may take (k_tf_staged; 0: never staged)
};

// k_tf_thomas (plain or twisted) with the systems staged in shared memory: a
// block of TF_STAGE_THREADS loads `tile` neighbouring systems of one group
// whole (every load in flight at once), one thread per system runs the
// same per-system code on them there (cp never reaches DRAM), and the block
// writes them back. Where the systems are few (2D: n1 of them, a few
// blocks), the unstaged kernels wait a memory latency per TF_CHUNK rows,
// twice; staged, the rows' latency is paid once. The per-system code is
// the unstaged kernel's (tf_sys).
constexpr int TF_STAGE_THREADS = 128;

template <class T, bool TWIST>
__global__ void __launch_bounds__(TF_STAGE_THREADS)
    k_tf_staged(T *x, size_t m, int nl, int tile, const T *cg, const T *lb, const T *ad,
                const T *ao, const T *md, const T *mo, int *flag)
{
  extern __shared__ __align__(16) unsigned char tf_stage_raw[];
  T *sx = reinterpret_cast<T *>(tf_stage_raw), *sc = sx + (size_t)tile * nl;
  const size_t tiles = (m + tile - 1) / tile, g = blockIdx.x / tiles;
  const size_t k0 = (blockIdx.x % tiles) * (size_t)tile;
  const int w = (int)(m - k0 < (size_t)tile ? m - k0 : (size_t)tile);
  T *xg = x + g * m * (size_t)nl + k0;
  const int words = tile * nl;
  for (int e = threadIdx.x; e < words; e += blockDim.x) {
    const int i = e / tile, c = e % tile;
    if (c < w)
      sx[e] = xg[(size_t)i * m + c];
  }
  __syncthreads();
  const int k = threadIdx.x;
  if (k < w) {
    const int bit =
        tf_sys<T, false, TWIST>(sx, sc, k, tile, nl, cg[g] + lb[k0 + k], ad, ao, md, mo);
    if (bit)
      atomicOr(flag, bit);
  }
  __syncthreads();
  for (int e = threadIdx.x; e < words; e += blockDim.x) {
    const int i = e / tile, c = e % tile;
    if (c < w)
      xg[(size_t)i * m + c] = sx[e];
  }
}

// The tile of k_tf_staged for groups x m systems of order nl, or 0 where
// the unstaged kernels serve: more than one group (3D), the systems too
// many to leave SMs idle (m >= sms TF_THREADS), or a tile of TF_STAGE_MIN
// systems not fitting in smem bytes. Tiles of TF_STAGE_MIN (a row's load
// is then a 32-byte sector at least): the most blocks, so the most SMs
// loading at once; a thread per system computes either way. H100,
// device-only medians against the unstaged kernels, transform plans: 2D
// 255^2 0.045 against 0.048 ms, 511^2 0.087 against 0.096, Helmholtz
// 255^2 0.079 against 0.085; 3D 127^3 (127 groups) 0.171 against 0.141,
// Helmholtz 0.475 against 0.351, hence 2D only.
constexpr int TF_STAGE_MIN = 8;

template <class T> inline int tf_stage_tile(size_t groups, size_t m, int nl, int sms, int smem)
{
  const size_t bytes = 2 * (size_t)TF_STAGE_MIN * (size_t)nl * sizeof(T);
  if (groups != 1 || smem <= 0 || m == 0 || m >= (size_t)sms * TF_THREADS ||
      bytes > (size_t)smem)
    return 0;
  return TF_STAGE_MIN;
}

// Lets k_tf_staged<T, *> take up to smem bytes of shared memory (beyond
// the default 48 KB): once per plan, before its first solve.
template <class T> inline cudaError_t tf_stage_prepare(int smem)
{
  cudaError_t e = cudaFuncSetAttribute(k_tf_staged<T, false>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  if (e == cudaSuccess)
    e = cudaFuncSetAttribute(k_tf_staged<T, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             smem);
  return e;
}

// Whether the twisted form serves groups x m systems of order nl: one group
// (2D), too few systems to give every SM a full block of TF_THREADS (the
// chains' latency sets the time), and nl >= 16 (its two chains need nl >=
// 3; below 16 they are short either way). H100, device-only medians
// against plain Thomas: 2D 127^2 to 1023^2 7% to 21% faster; 3D 127^3
// (16129 systems) even, 63^3 slower (0.068 against 0.060 ms in the
// roofline runs, untraced): 3D keeps plain Thomas.
inline bool tf_twist_fits(size_t groups, size_t nsys, int nl, int sms)
{
  return groups == 1 && nl >= 16 && nsys < (size_t)sms * TF_THREADS;
}

// k_tf_thomas over groups x m systems on stream cs (a plain launch: the
// kernel follows a cuBLAS product, in stream order).
template <class T, bool PROBE>
cudaError_t tf_thomas(T *x, T *cp, size_t groups, size_t m, const T *cg, const T *lb,
                      const TfFacs<T> &F, int *flag, cudaStream_t cs)
{
  const size_t nsys = groups * m;
  if (nsys == 0)
    return cudaSuccess;
  // Few systems: smaller blocks, so that they spread over at least two
  // blocks per SM where they can (a thread per system).
  int threads = TF_THREADS;
  while (threads > 32 && (nsys + threads - 1) / threads < 2 * (size_t)F.sms)
    threads /= 2;
  const unsigned grid = (unsigned)((nsys + threads - 1) / threads);
  const bool twist = F.twist && tf_twist_fits(groups, nsys, F.nl, F.sms);
  if constexpr (!PROBE) {
    const int tile = tf_stage_tile<T>(groups, m, F.nl, F.sms, F.smem);
    if (tile > 0) {
      const unsigned blocks = (unsigned)(groups * ((m + tile - 1) / tile));
      const size_t bytes = 2 * (size_t)tile * (size_t)F.nl * sizeof(T);
      if (twist)
        k_tf_staged<T, true><<<blocks, TF_STAGE_THREADS, bytes, cs>>>(
            x, m, F.nl, tile, cg, lb, F.ad, F.ao, F.md, F.mo, flag);
      else
        k_tf_staged<T, false><<<blocks, TF_STAGE_THREADS, bytes, cs>>>(
            x, m, F.nl, tile, cg, lb, F.ad, F.ao, F.md, F.mo, flag);
      return cudaGetLastError();
    }
  }
  if (twist)
    k_tf_thomas<T, PROBE, true><<<grid, threads, 0, cs>>>(x, cp, groups, m, F.nl, cg, lb, F.ad,
                                                          F.ao, F.md, F.mo, flag);
  else
    k_tf_thomas<T, PROBE, false><<<grid, threads, 0, cs>>>(x, cp, groups, m, F.nl, cg, lb, F.ad,
                                                           F.ao, F.md, F.mo, flag);
  return cudaGetLastError();
}

} // namespace pscr_cuda

#endif

// The fast sine transform (DST-I) of a 2D transform plan's first dimension
// on the device, for sine pencils (docs/design.md, "Sine transforms"): with
// N = n0 + 1 and w_k(i) = s_k sin(pi (i+1)(k+1) / N) the pencil's
// eigenvectors (src/plan.c, pscr_sine_eigen),
//   forward:  Y[j][k] = s_k sum_i sin(pi (i+1)(k+1) / N) F[i][j]
//   backward: U[i][j] = sum_k sin(pi (i+1)(k+1) / N) s_k Y[j][k]
// both through FFTs of length 2N of odd extensions: a real line x has
// e = (0, x_0 .. x_{n-1}, 0, -x_{n-1} .. -x_0) with the spectrum
//   E_q = -2i S_q,   S_q = sum_k x_k sin(pi q (k+1) / N),
// purely imaginary. So two real lines a, b go through one complex FFT of
// z = e_a + i e_b: Z_q = -2i S_a,q + 2 S_b,q, whence S_a = -Im Z / 2 and
// S_b = Re Z / 2. cuFFT's in-place C2C / Z2Z of length 2N then does the
// work of a real FFT of length N per line, without the R2C's packing and
// post-processing passes (two of its three kernels, about 2/3 of its time
// at 2D 4095^2 on an H200).
//
// The data are seen as `cols` real columns, row-major (F, U: n rows of
// cols reals; a complex plan's column j is real columns 2j and 2j + 1, its
// real and imaginary parts, the sines and scales being real); complex line
// l carries real columns 2l and 2l + 1 (a last odd column pairs with
// zeros). These kernels build the extensions and read the spectra back,
// with the transposes the layouts need: F and U [i][col], the modes either
// [j][k] with the Thomas systems' index k fastest (as the products leave
// them) or system-major [k][j] (the partitioned solver's, real plans).
// Every entry is computed in the plan's precision.
#ifndef PSCR_CUDA_SINE_CUH
#define PSCR_CUDA_SINE_CUH

#include <cuda_runtime.h>
#include <cufft.h>

#include <stddef.h>

namespace pscr_cuda {

// The cuFFT types of real type R: its complex pair V and the in-place
// complex FFT (forward sign, exp(-2 pi i q m / 2N)).
template <class R> struct Fft;
template <> struct Fft<double> {
  using V = double2;
  static constexpr cufftType type = CUFFT_Z2Z;
  static cufftResult exec(cufftHandle h, double *x)
  {
    return cufftExecZ2Z(h, (cufftDoubleComplex *)x, (cufftDoubleComplex *)x, CUFFT_FORWARD);
  }
};
template <> struct Fft<float> {
  using V = float2;
  static constexpr cufftType type = CUFFT_C2C;
  static cufftResult exec(cufftHandle h, float *x)
  {
    return cufftExecC2C(h, (cufftComplex *)x, (cufftComplex *)x, CUFFT_FORWARD);
  }
};

constexpr int SINE_TILE = 32, SINE_ROWS = 8; // transposes: 32 x 32 tiles, 32 x 8 threads

// Complex lines of `cols` real columns, and complex entries per line (2N).
__host__ __device__ inline size_t sine_lines(size_t cols) { return (cols + 1) / 2; }
__host__ __device__ inline size_t sine_line(int n) { return 2 * (size_t)(n + 1); }

// Tiles of the transposes (32 rows by 32 complex lines), one block each
// (pscr_cuda_sine_fits, which pscr_cuda_sine asks, keeps them within a 1D
// grid).
__host__ __device__ inline size_t sine_tiles(int n, size_t cols)
{
  return ((sine_lines(cols) + SINE_TILE - 1) / SINE_TILE) *
         (((size_t)n + SINE_TILE - 1) / SINE_TILE);
}

// The odd extensions of F's lines (n rows of `cols` reals; row i times
// scale[i] where scale is not NULL), through a shared-memory tile so that
// F is read and the lines written along their contiguous index. The
// forward transform's first step, and the backward one's from modes stored
// system-major (sine_rows).
template <class R>
__global__ void k_sine_extend_rows(const R *__restrict__ f, const R *__restrict__ scale,
                                   R *__restrict__ ext, int n, size_t cols)
{
  using V = typename Fft<R>::V;
  __shared__ R tile[SINE_TILE][2 * SINE_TILE + 1]; // [row][real column]
  // One tile per block, in a 1D grid (n or cols may pass 65535 tiles).
  const size_t nl = sine_lines(cols), nbx = (nl + SINE_TILE - 1) / SINE_TILE;
  const size_t l0 = (blockIdx.x % nbx) * SINE_TILE;
  const int i0 = (int)(blockIdx.x / nbx) * SINE_TILE;
  const size_t L = sine_line(n), N = (size_t)n + 1;
  for (int r = threadIdx.y; r < SINE_TILE; r += SINE_ROWS) {
    const int i = i0 + r;
#pragma unroll
    for (int h = 0; h < 2; h++) {
      const int c = h * SINE_TILE + threadIdx.x;
      const size_t b = 2 * l0 + c;
      R v = R(0);
      if (i < n && b < cols)
        v = scale ? scale[i] * f[(size_t)i * cols + b] : f[(size_t)i * cols + b];
      tile[r][c] = v;
    }
  }
  __syncthreads();
  for (int r = threadIdx.y; r < SINE_TILE; r += SINE_ROWS) {
    const size_t l = l0 + r;
    const int i = i0 + threadIdx.x;
    if (l >= nl)
      continue;
    V *e = reinterpret_cast<V *>(ext) + l * L;
    if (i < n) {
      const R a = tile[threadIdx.x][2 * r], b = tile[threadIdx.x][2 * r + 1];
      e[i + 1] = V{a, b};
      e[2 * N - 1 - i] = V{-a, -b};
    }
    if (i0 == 0 && threadIdx.x == 0) {
      e[0] = V{R(0), R(0)};
      e[N] = V{R(0), R(0)};
    }
  }
}

// U[i][b] = S_{i+1} of real column b (times scale[i] where scale is not
// NULL): -Im / 2 or Re / 2 of line b / 2's spectrum, through a
// shared-memory tile (the spectra read along i, U written along b). The
// backward transform's last step, and the forward one's into modes stored
// system-major (sine_rows).
template <class R>
__global__ void k_sine_spectrum_to_rows(const R *__restrict__ ext, const R *__restrict__ scale,
                                        R *__restrict__ u, int n, size_t cols)
{
  using V = typename Fft<R>::V;
  __shared__ R tile[SINE_TILE][2 * SINE_TILE + 1]; // [row][real column]
  const size_t nl = sine_lines(cols), nbx = (nl + SINE_TILE - 1) / SINE_TILE;
  const size_t l0 = (blockIdx.x % nbx) * SINE_TILE;
  const int i0 = (int)(blockIdx.x / nbx) * SINE_TILE;
  const size_t L = sine_line(n);
  for (int r = threadIdx.y; r < SINE_TILE; r += SINE_ROWS) {
    const size_t l = l0 + r;
    const int i = i0 + threadIdx.x;
    if (l < nl && i < n) {
      const V z = reinterpret_cast<const V *>(ext)[l * L + (size_t)(i + 1)];
      const R h = scale ? R(0.5) * scale[i] : R(0.5);
      tile[threadIdx.x][2 * r] = -h * z.y;
      tile[threadIdx.x][2 * r + 1] = h * z.x;
    }
  }
  __syncthreads();
  for (int r = threadIdx.y; r < SINE_TILE; r += SINE_ROWS) {
    const int i = i0 + r;
#pragma unroll
    for (int h = 0; h < 2; h++) {
      const int c = h * SINE_TILE + threadIdx.x;
      const size_t b = 2 * l0 + c;
      if (i < n && b < cols)
        u[(size_t)i * cols + b] = tile[r][c];
    }
  }
}

// Forward, into modes with k fastest: Y[(j n + k) C + c] = s_k S_{k+1} of
// real column b = j C + c (no transpose: lines and modes both run along k).
template <class R, int C>
__global__ void k_sine_spectrum_to_modes(const R *__restrict__ ext, const R *__restrict__ scale,
                                         R *__restrict__ y, int n, size_t ncols)
{
  using V = typename Fft<R>::V;
  const size_t L = sine_line(n), count = ncols * (size_t)n * C;
  for (size_t o = (size_t)blockIdx.x * blockDim.x + threadIdx.x; o < count;
       o += (size_t)gridDim.x * blockDim.x) {
    const int c = C == 1 ? 0 : (int)(o % C);
    const size_t jk = o / C, j = jk / (size_t)n;
    const int k = (int)(jk - j * (size_t)n);
    const size_t b = j * C + c;
    const V z = reinterpret_cast<const V *>(ext)[(b >> 1) * L + (size_t)(k + 1)];
    y[o] = R(0.5) * scale[k] * ((b & 1) ? z.x : -z.y);
  }
}

// Backward, from modes with k fastest: the odd extensions of s_k Y along
// k, line l carrying real columns 2l and 2l + 1 (b = j C + c as above).
template <class R, int C>
__global__ void k_sine_modes_to_extension(const R *__restrict__ y, const R *__restrict__ scale,
                                          R *__restrict__ ext, int n, size_t ncols)
{
  using V = typename Fft<R>::V;
  const size_t cols = ncols * C, nl = sine_lines(cols);
  const size_t L = sine_line(n), N = (size_t)n + 1, count = nl * N;
  // Real column b's mode k.
  auto mode = [&](size_t b, int k) {
    if (b >= cols)
      return R(0);
    const size_t j = b / C;
    const int c = (int)(b - j * C);
    return y[(j * (size_t)n + (size_t)k) * C + c];
  };
  for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < count;
       t += (size_t)gridDim.x * blockDim.x) {
    const size_t l = t / N, q = t - l * N; // consecutive threads, consecutive q
    V *e = reinterpret_cast<V *>(ext) + l * L;
    if (q == 0) {
      e[0] = V{R(0), R(0)};
      e[N] = V{R(0), R(0)};
    } else {
      const int k = (int)q - 1;
      const R a = scale[k] * mode(2 * l, k), b = scale[k] * mode(2 * l + 1, k);
      e[q] = V{a, b};
      e[2 * N - q] = V{-a, -b};
    }
  }
}

// Handle h (cufftCreate's) made the in-place batched complex FFT of
// `lines` lines of dimension 0 (order n): length 2N, lines apart by 2N.
// *work: the bytes of its work area (cuFFT allocates it).
template <class R> cufftResult sine_plan(cufftHandle h, int n, size_t lines, size_t *work)
{
  long long len = (long long)sine_line(n);
  return cufftMakePlanMany64(h, 1, &len, nullptr, 1, len, nullptr, 1, len, Fft<R>::type,
                             (long long)lines, work);
}

// The FFT of the lines on stream cs; false with *fr set where cuFFT fails
// (the callers then return cudaSuccess: sine_status reads *fr first).
template <class R> bool sine_fft(cufftHandle h, R *ext, cudaStream_t cs, cufftResult *fr)
{
  return (*fr = cufftSetStream(h, cs)) == CUFFT_SUCCESS &&
         (*fr = Fft<R>::exec(h, ext)) == CUFFT_SUCCESS;
}

// Blocks of 256 threads for a grid-stride loop over count entries.
inline unsigned sine_blocks(size_t count)
{
  const size_t b = (count + 255) / 256;
  return (unsigned)(b < 65536 ? b : 65536);
}

// The forward transform: Y (n1 columns of n modes, C reals each) from F (n
// rows of n1 C reals). ext: sine_lines(n1 C) lines of sine_line(n) complex.
template <class R, int C>
cudaError_t sine_forward(cufftHandle h, const R *f, R *y, R *ext, const R *scale, int n,
                         size_t n1, cudaStream_t cs, cufftResult *fr)
{
  const size_t cols = n1 * C;
  const dim3 tb(SINE_TILE, SINE_ROWS);
  k_sine_extend_rows<R><<<(unsigned)sine_tiles(n, cols), tb, 0, cs>>>(f, nullptr, ext, n, cols);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess || !sine_fft(h, ext, cs, fr))
    return e;
  k_sine_spectrum_to_modes<R, C>
      <<<sine_blocks(cols * (size_t)n), 256, 0, cs>>>(ext, scale, y, n, n1);
  return cudaGetLastError();
}

// The backward transform: U (n rows of n1 C reals) from Y.
template <class R, int C>
cudaError_t sine_backward(cufftHandle h, const R *y, R *u, R *ext, const R *scale, int n,
                          size_t n1, cudaStream_t cs, cufftResult *fr)
{
  const size_t cols = n1 * C;
  k_sine_modes_to_extension<R, C>
      <<<sine_blocks(sine_lines(cols) * ((size_t)n + 1)), 256, 0, cs>>>(y, scale, ext, n, n1);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess || !sine_fft(h, ext, cs, fr))
    return e;
  const dim3 tb(SINE_TILE, SINE_ROWS);
  k_sine_spectrum_to_rows<R><<<(unsigned)sine_tiles(n, cols), tb, 0, cs>>>(ext, nullptr, u, n, cols);
  return cudaGetLastError();
}

// A real plan's transform between row-major layouts, either direction (the
// sine matrix is symmetric): out[k][j] = so_k sum_i sin(pi (i+1)(k+1) / N)
// si_i in[i][j], n rows of n1 each, si or so NULL for ones. Forward: in F,
// out the modes system-major (row k of Y: mode k's Thomas system,
// contiguous, the partitioned solver's layout), so = s. Backward: in Y,
// si = s, out U.
template <class R>
cudaError_t sine_rows(cufftHandle h, const R *in, R *out, R *ext, const R *si, const R *so,
                      int n, size_t n1, cudaStream_t cs, cufftResult *fr)
{
  const dim3 tb(SINE_TILE, SINE_ROWS);
  const unsigned grid = (unsigned)sine_tiles(n, n1);
  k_sine_extend_rows<R><<<grid, tb, 0, cs>>>(in, si, ext, n, n1);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess || !sine_fft(h, ext, cs, fr))
    return e;
  k_sine_spectrum_to_rows<R><<<grid, tb, 0, cs>>>(ext, so, out, n, n1);
  return cudaGetLastError();
}

} // namespace pscr_cuda

#endif

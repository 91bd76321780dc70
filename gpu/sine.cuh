// The fast sine transform (DST-I) of a 2D transform plan's first dimension
// on the device, for sine pencils (docs/design.md, "Sine transforms"): with
// N = n0 + 1 and w_k(i) = s_k sin(pi (i+1)(k+1) / N) the pencil's
// eigenvectors (src/plan.c, pscr_sine_eigen),
//   forward:  Y[j][k] = s_k sum_i sin(pi (i+1)(k+1) / N) F[i][j]
//   backward: U[i][j] = sum_k sin(pi (i+1)(k+1) / N) s_k Y[j][k]
// both through a real FFT of length 2N of each line's odd extension
// e = (0, x_0 .. x_{n-1}, 0, -x_{n-1} .. -x_0), whose spectrum is
//   E_q = -2i sum_k x_k sin(pi q (k+1) / N),
// so the sine sum is -Im E_q / 2 for q = 1 .. n. cuFFT transforms the
// lines in place (R2C / D2Z, each line padded to 2N + 2 reals); these
// kernels build the extensions and read the spectra back, with the
// transposes the layouts need (F and U row-major [i][j], Y [j][k] with the
// Thomas systems' index k fastest, as the products leave it).
//
// A complex plan's data transform as two real lines per column j (its real
// and imaginary parts): line b = j C + c, C = 2, the sines and scales being
// real. Every entry is computed in the plan's precision.
#ifndef PSCR_CUDA_SINE_CUH
#define PSCR_CUDA_SINE_CUH

#include <cuda_runtime.h>
#include <cufft.h>

#include <stddef.h>

namespace pscr_cuda {

// The cuFFT types of real type R.
template <class R> struct Fft;
template <> struct Fft<double> {
  using Z = cufftDoubleComplex;
  static constexpr cufftType type = CUFFT_D2Z;
  static cufftResult exec(cufftHandle h, double *x)
  {
    return cufftExecD2Z(h, (cufftDoubleReal *)x, (Z *)x);
  }
};
template <> struct Fft<float> {
  using Z = cufftComplex;
  static constexpr cufftType type = CUFFT_R2C;
  static cufftResult exec(cufftHandle h, float *x) { return cufftExecR2C(h, x, (Z *)x); }
};

constexpr int SINE_TILE = 32, SINE_ROWS = 8; // transposes: 32 x 32 tiles, 32 x 8 threads

// Reals per line of the in-place FFT: 2N inputs, N + 1 complex outputs.
__host__ __device__ inline size_t sine_line(int n) { return 2 * (size_t)(n + 1) + 2; }

// Tiles of the transposes, one block each (pscr_cuda_sine, cuda_cost.c, keeps
// them within a 1D grid).
__host__ __device__ inline size_t sine_tiles(int n, size_t cols)
{
  return ((cols + SINE_TILE - 1) / SINE_TILE) * (((size_t)n + SINE_TILE - 1) / SINE_TILE);
}

// The odd extensions of the lines of F (n rows of `cols` reals, row-major:
// line b is column b; row i times scale[i] where scale is not NULL),
// through a shared-memory tile so that F is read and the lines written
// along their contiguous index. The forward transform's first step, and
// the backward one's from modes stored system-major (sine_backward_rows).
template <class R>
__global__ void k_sine_extend_rows(const R *__restrict__ f, const R *__restrict__ scale,
                                   R *__restrict__ ext, int n, size_t cols)
{
  __shared__ R tile[SINE_TILE][SINE_TILE + 1];
  // One tile per block, in a 1D grid (n or cols may pass 65535 tiles).
  const size_t nbx = (cols + SINE_TILE - 1) / SINE_TILE;
  const size_t b0 = (blockIdx.x % nbx) * SINE_TILE;
  const int i0 = (int)(blockIdx.x / nbx) * SINE_TILE;
  const size_t L = sine_line(n), N = (size_t)n + 1;
  for (int r = threadIdx.y; r < SINE_TILE; r += SINE_ROWS) {
    const int i = i0 + r;
    const size_t b = b0 + threadIdx.x;
    if (i < n && b < cols)
      tile[r][threadIdx.x] = scale ? scale[i] * f[(size_t)i * cols + b] : f[(size_t)i * cols + b];
  }
  __syncthreads();
  for (int r = threadIdx.y; r < SINE_TILE; r += SINE_ROWS) {
    const size_t b = b0 + r;
    const int i = i0 + threadIdx.x;
    if (b >= cols)
      continue;
    R *e = ext + b * L;
    if (i < n) {
      const R v = tile[threadIdx.x][r];
      e[i + 1] = v;
      e[2 * N - 1 - i] = -v;
    }
    if (i0 == 0 && threadIdx.x == 0) {
      e[0] = R(0);
      e[N] = R(0);
    }
  }
}

// Forward, step 2: Y[(j n + k) C + c] = -s_k Im E_{k+1} / 2 of line
// b = j C + c (Y has the systems' index k fastest: no transpose).
template <class R, int C>
__global__ void k_sine_spectrum_to_modes(const R *__restrict__ ext, const R *__restrict__ scale,
                                         R *__restrict__ y, int n, size_t ncols)
{
  const size_t L = sine_line(n), count = ncols * (size_t)n * C;
  for (size_t o = (size_t)blockIdx.x * blockDim.x + threadIdx.x; o < count;
       o += (size_t)gridDim.x * blockDim.x) {
    const int c = C == 1 ? 0 : (int)(o % C);
    const size_t jk = o / C, j = jk / (size_t)n;
    const int k = (int)(jk - j * (size_t)n);
    const size_t b = j * C + c;
    y[o] = R(-0.5) * scale[k] * ext[b * L + 2 * (size_t)(k + 1) + 1];
  }
}

// Backward, step 1: the odd extensions of s_k Y[j][k] along k, line b =
// j C + c (read along k: no transpose).
template <class R, int C>
__global__ void k_sine_modes_to_extension(const R *__restrict__ y, const R *__restrict__ scale,
                                          R *__restrict__ ext, int n, size_t ncols)
{
  const size_t L = sine_line(n), N = (size_t)n + 1, count = ncols * N * C;
  for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < count;
       t += (size_t)gridDim.x * blockDim.x) {
    // t = (j N + q) C + c: consecutive threads take consecutive q.
    const int c = C == 1 ? 0 : (int)(t % C);
    const size_t jq = t / C, j = jq / N;
    const size_t q = jq - j * N;
    R *e = ext + (j * C + c) * L;
    if (q == 0) {
      e[0] = R(0);
      e[N] = R(0);
    } else {
      const R v = scale[q - 1] * y[(j * (size_t)n + (q - 1)) * C + c];
      e[q] = v;
      e[2 * N - q] = -v;
    }
  }
}

// U[i][b] = -Im E_{i+1} / 2 of line b (times scale[i] where scale is not
// NULL), through a shared-memory tile (the spectra read along i, U written
// along b): the backward transform's last step, and the forward one's
// into modes stored system-major (sine_forward_rows).
template <class R>
__global__ void k_sine_spectrum_to_rows(const R *__restrict__ ext, const R *__restrict__ scale,
                                        R *__restrict__ u, int n, size_t cols)
{
  __shared__ R tile[SINE_TILE][SINE_TILE + 1];
  // One tile per block, in a 1D grid (n or cols may pass 65535 tiles).
  const size_t nbx = (cols + SINE_TILE - 1) / SINE_TILE;
  const size_t b0 = (blockIdx.x % nbx) * SINE_TILE;
  const int i0 = (int)(blockIdx.x / nbx) * SINE_TILE;
  const size_t L = sine_line(n);
  for (int r = threadIdx.y; r < SINE_TILE; r += SINE_ROWS) {
    const size_t b = b0 + r;
    const int i = i0 + threadIdx.x;
    if (b < cols && i < n)
      tile[r][threadIdx.x] =
          (scale ? R(-0.5) * scale[i] : R(-0.5)) * ext[b * L + 2 * (size_t)(i + 1) + 1];
  }
  __syncthreads();
  for (int r = threadIdx.y; r < SINE_TILE; r += SINE_ROWS) {
    const int i = i0 + r;
    const size_t b = b0 + threadIdx.x;
    if (i < n && b < cols)
      u[(size_t)i * cols + b] = tile[threadIdx.x][r];
  }
}

// Handle h (cufftCreate's) made the in-place batched FFT of `lines` lines
// of dimension 0 (order n): length 2N, each line padded to sine_line(n)
// reals. *work: the bytes of its work area (cuFFT allocates it).
template <class R> cufftResult sine_plan(cufftHandle h, int n, size_t lines, size_t *work)
{
  long long len = 2 * (long long)(n + 1), in = (long long)sine_line(n), on = in / 2;
  return cufftMakePlanMany64(h, 1, &len, &in, 1, in, &on, 1, on, Fft<R>::type,
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
// rows of n1 C reals). ext: lines sine_line(n) reals each, n1 C of them.
template <class R, int C>
cudaError_t sine_forward(cufftHandle h, const R *f, R *y, R *ext, const R *scale, int n,
                         size_t n1, cudaStream_t cs, cufftResult *fr)
{
  const size_t cols = n1 * C;
  const dim3 tb(SINE_TILE, SINE_ROWS);
  const unsigned grid = (unsigned)sine_tiles(n, cols);
  k_sine_extend_rows<R><<<grid, tb, 0, cs>>>(f, nullptr, ext, n, cols);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess || !sine_fft(h, ext, cs, fr))
    return e;
  const size_t count = n1 * (size_t)n * C;
  const unsigned blocks = sine_blocks(count);
  k_sine_spectrum_to_modes<R, C><<<blocks, 256, 0, cs>>>(ext, scale, y, n, n1);
  return cudaGetLastError();
}

// The backward transform: U (n rows of n1 C reals) from Y.
template <class R, int C>
cudaError_t sine_backward(cufftHandle h, const R *y, R *u, R *ext, const R *scale, int n,
                          size_t n1, cudaStream_t cs, cufftResult *fr)
{
  const size_t cols = n1 * C, count = n1 * ((size_t)n + 1) * C;
  const unsigned blocks = sine_blocks(count);
  k_sine_modes_to_extension<R, C><<<blocks, 256, 0, cs>>>(y, scale, ext, n, n1);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess || !sine_fft(h, ext, cs, fr))
    return e;
  const dim3 tb(SINE_TILE, SINE_ROWS);
  const unsigned grid = (unsigned)sine_tiles(n, cols);
  k_sine_spectrum_to_rows<R><<<grid, tb, 0, cs>>>(ext, nullptr, u, n, cols);
  return cudaGetLastError();
}

// The forward transform of a real plan into modes stored system-major:
// Y[k][j] = s_k sum_i sin(pi (i+1)(k+1) / N) F[i][j], row k of Y being the
// Thomas system of mode k (contiguous, the partitioned solver's layout).
template <class R>
cudaError_t sine_forward_rows(cufftHandle h, const R *f, R *y, R *ext, const R *scale, int n,
                              size_t n1, cudaStream_t cs, cufftResult *fr)
{
  const dim3 tb(SINE_TILE, SINE_ROWS);
  const unsigned grid = (unsigned)sine_tiles(n, n1);
  k_sine_extend_rows<R><<<grid, tb, 0, cs>>>(f, nullptr, ext, n, n1);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess || !sine_fft(h, ext, cs, fr))
    return e;
  k_sine_spectrum_to_rows<R><<<grid, tb, 0, cs>>>(ext, scale, y, n, n1);
  return cudaGetLastError();
}

// Its inverse direction: U (n rows of n1) from system-major modes Y.
template <class R>
cudaError_t sine_backward_rows(cufftHandle h, const R *y, R *u, R *ext, const R *scale, int n,
                               size_t n1, cudaStream_t cs, cufftResult *fr)
{
  const dim3 tb(SINE_TILE, SINE_ROWS);
  const unsigned grid = (unsigned)sine_tiles(n, n1);
  k_sine_extend_rows<R><<<grid, tb, 0, cs>>>(y, scale, ext, n, n1);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess || !sine_fft(h, ext, cs, fr))
    return e;
  k_sine_spectrum_to_rows<R><<<grid, tb, 0, cs>>>(ext, nullptr, u, n, n1);
  return cudaGetLastError();
}

} // namespace pscr_cuda

#endif

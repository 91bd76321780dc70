/*
 * GPU fast Poisson baseline on cuFFT (cufft_poisson.h).
 *
 * Formulation: a DST-I along every dimension but the last, then one
 * tridiagonal (Thomas) solve per mode along the last dimension, then the
 * DST-I back. The last factor pair (A_l, M_l) is tridiagonal, so the mode
 * (k1[, k2]) leaves the system
 *   2D: (m1 A2 + (a1 + c m1) M2) u = g
 *   3D: (m1 m2 A3 + (a1 m2 + m1 a2 + c m1 m2) M3) u = g
 * along the last dimension (a_d, m_d the scaled 1D eigenvalues of
 * baseline_common.h, whose scale is exactly the round trip of the
 * transforms along the other dimensions). One transform pair fewer than a
 * DST-I along every dimension and a division.
 *
 * DST-I of a line x of length L through a real FFT of length N = 2(L+1):
 * the odd extension e = (0, x_0..x_{L-1}, 0, -x_{L-1}..-x_0) has
 *   E_k = sum_m e_m exp(-2 pi i k m / N) = -2 i sum_j x_j sin(pi k (j+1) / (L+1)),
 * so -Im E_k, k = 1..L, is FFTW's RODFT00 (twice the sine sum), the
 * convention whose scale baseline_common.h folds into the eigenvalues.
 *
 * Per transformed dimension d (L = n_d, B = N_total / L lines, inner =
 * product of the later sizes) the extension buffer has the transform index
 * outermost,
 * e[m B + b], E[k B + b] (cuFFT stride B, distance 1), with line
 * b = o inner + i reading x[(o L + j) inner + i]: pack and unpack are
 * coalesced.
 *
 * The tridiagonal solves run one thread per line (NL = N_total / n_l lines)
 * on an interleaved copy, element i of line s at t[i NL + s], so that
 * consecutive threads touch consecutive addresses. The last transformed
 * dimension (the one just before the last) is unpacked straight into that
 * layout and packed straight from it (shared-memory tile transposes inside
 * the unpack and pack kernels), so the interleaving costs no extra pass.
 * The solves use the LU factors of every line's matrix, computed once at
 * create (one reciprocal pivot per entry, w[i NL + s]): the forward and the
 * backward sweep are then one dependent FMA per entry.
 */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cufft.h>

#include "baseline_cuda.h"
#include "baseline_common.h"
#include "cufft_poisson.h"
#include "gpu_timing.h"

#define BL_MAX_GRID_Y 65535u

/* A cuFFT call failed (cuFFT has no error strings: the code is printed). */
#define BL_CUFFT_GOTO(st, label, call)                                                       \
  do {                                                                                       \
    cufftResult r_ = (call);                                                                 \
    if (r_ != CUFFT_SUCCESS) {                                                               \
      (st) = r_ == CUFFT_ALLOC_FAILED ? PSCR_ERROR_DEVICE_ALLOC : PSCR_ERROR_DEVICE;          \
      snprintf(msg, len, "%s: cufftResult %d", #call, (int)r_);                              \
      goto label;                                                                            \
    }                                                                                        \
  } while (0)

struct bl_cufft {
  bl_spectrum spec;         /* host copy of the scaled eigenvalues */
  int ndim;
  int n[3];                 /* n[2] = 1 in 2D */
  int nl;                   /* n of the last dimension (not transformed) */
  size_t nlines;            /* NL = total / nl: one tridiagonal system each */
  size_t total;             /* n1 n2 n3 */
  cufftHandle plan[3];      /* D2Z of dimension d < ndim - 1 */
  int planned[3];           /* plan[d] was created */
  cudaStream_t stream;      /* own stream */
  cudaStream_t bound;       /* stream the plans are set to */
  double *d_spec;           /* device copy of spec.store */
  const double *d_a[3], *d_m[3];
  double *d_w;              /* reciprocal LU pivots, w[i NL + s] */
  double *d_off;            /* off-diagonal of line s's matrix */
  double *d_ext;            /* odd extensions, max_d 2 (n_d + 1) B_d */
  cufftDoubleComplex *d_z;  /* their spectra, max_d (n_d + 2) B_d */
  void *d_work;             /* cuFFT work area, shared by the plans */
  double *d_f, *d_u;        /* for bl_cufft_time */
};

static unsigned grid_y(size_t rows)
{
  return rows < BL_MAX_GRID_Y ? (unsigned)rows : BL_MAX_GRID_Y;
}

/* One extension index m per grid row, e[m B + b]. */
__global__ void pack_cols(const double *__restrict__ x, double *__restrict__ e, int L,
                          size_t inner, size_t B)
{
  const int N = 2 * (L + 1);
  for (int m = blockIdx.y; m < N; m += gridDim.y) {
    int j = -1;
    double sign = 1.0;
    if (m >= 1 && m <= L)
      j = m - 1;
    else if (m >= L + 2)
      j = N - 1 - m, sign = -1.0;
    for (size_t b = (size_t)blockIdx.x * blockDim.x + threadIdx.x; b < B;
         b += (size_t)gridDim.x * blockDim.x) {
      size_t o = b / inner, i = b - o * inner;
      e[(size_t)m * B + b] = j < 0 ? 0.0 : sign * x[(o * L + j) * inner + i];
    }
  }
}

/* x[(o L + k) inner + i] = -Im E[(k + 1) B + b]. */
__global__ void unpack_cols(const cufftDoubleComplex *__restrict__ z, double *__restrict__ x,
                            int L, size_t inner, size_t B)
{
  for (int k = blockIdx.y; k < L; k += gridDim.y)
    for (size_t b = (size_t)blockIdx.x * blockDim.x + threadIdx.x; b < B;
         b += (size_t)gridDim.x * blockDim.x) {
      size_t o = b / inner, i = b - o * inner;
      x[(o * L + k) * inner + i] = -z[(size_t)(k + 1) * B + b].y;
    }
}

/*
 * The dimension before the last (L = its n, inner = nl, B = outer nl lines
 * b = o nl + i) to and from the interleaved layout of the tridiagonal solves:
 * mode k of outer index o is line s = o L + k, element i of it t[i NL + s].
 * 32 x 32 tiles through shared memory, (k, i) tile (blockIdx.y, blockIdx.x),
 * o = blockIdx.z; both the global reads and the writes are coalesced.
 */
#define BL_TILE 32
#define BL_TILE_ROWS 8

/* t[i NL + o L + k] = -Im E[(k + 1) B + o nl + i]. */
__global__ void unpack_interleave(const cufftDoubleComplex *__restrict__ z,
                                  double *__restrict__ t, int L, int nl, size_t B, size_t NL)
{
  __shared__ double tile[BL_TILE][BL_TILE + 1];
  const size_t o = blockIdx.z;
  const int i0 = blockIdx.x * BL_TILE, k0 = blockIdx.y * BL_TILE;
  for (int r = threadIdx.y; r < BL_TILE; r += BL_TILE_ROWS) {
    int k = k0 + r, i = i0 + threadIdx.x;
    if (k < L && i < nl)
      tile[r][threadIdx.x] = -z[(size_t)(k + 1) * B + o * nl + i].y;
  }
  __syncthreads();
  for (int r = threadIdx.y; r < BL_TILE; r += BL_TILE_ROWS) {
    int i = i0 + r, k = k0 + threadIdx.x;
    if (k < L && i < nl)
      t[(size_t)i * NL + o * L + k] = tile[threadIdx.x][r];
  }
}

/* e[(k + 1) B + b] = t[i NL + o L + k], e[(N - 1 - k) B + b] = -that, b = o nl + i;
   e[b] = e[(L + 1) B + b] = 0. */
__global__ void pack_interleave(const double *__restrict__ t, double *__restrict__ e, int L,
                                int nl, size_t B, size_t NL)
{
  __shared__ double tile[BL_TILE][BL_TILE + 1];
  const size_t o = blockIdx.z;
  const int N = 2 * (L + 1);
  const int i0 = blockIdx.x * BL_TILE, k0 = blockIdx.y * BL_TILE;
  for (int r = threadIdx.y; r < BL_TILE; r += BL_TILE_ROWS) {
    int i = i0 + r, k = k0 + threadIdx.x;
    if (k < L && i < nl)
      tile[threadIdx.x][r] = t[(size_t)i * NL + o * L + k];
  }
  __syncthreads();
  for (int r = threadIdx.y; r < BL_TILE; r += BL_TILE_ROWS) {
    int k = k0 + r, i = i0 + threadIdx.x;
    if (k < L && i < nl) {
      size_t b = o * nl + i;
      double v = tile[r][threadIdx.x];
      e[(size_t)(k + 1) * B + b] = v;
      e[(size_t)(N - 1 - k) * B + b] = -v;
    }
  }
  if (blockIdx.y == 0 && threadIdx.y == 0 && i0 + (int)threadIdx.x < nl) {
    size_t b = o * nl + i0 + threadIdx.x;
    e[b] = 0.0;
    e[(size_t)(L + 1) * B + b] = 0.0;
  }
}

/*
 * At create: line s's matrix alpha A_l + beta M_l (Toeplitz: diagonal g,
 * off-diagonal o) with 2D alpha = m1(k), beta = a1(k) + c m1(k), s = k;
 * 3D s = k1 n2 + k2, alpha = m1 m2, beta = a1 m2 + m1 a2 + c m1 m2. Its LU
 * factors without pivoting: pivot p_0 = g, p_i = g - o^2 / p_{i-1}; stores
 * w_i = 1 / p_i and the off-diagonal o.
 */
__global__ void factor_lines(double *__restrict__ w, double *__restrict__ off,
                             const double *__restrict__ a1, const double *__restrict__ m1,
                             const double *__restrict__ a2, const double *__restrict__ m2,
                             double c, int n2, int twod, double ag, double ao, double mg,
                             double mo, int nl, size_t NL)
{
  const size_t s = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= NL)
    return;
  double alpha, beta;
  if (twod) {
    alpha = m1[s];
    beta = a1[s] + c * m1[s];
  } else {
    size_t k1 = s / (size_t)n2, k2 = s - k1 * (size_t)n2;
    alpha = m1[k1] * m2[k2];
    beta = a1[k1] * m2[k2] + m1[k1] * a2[k2] + c * alpha;
  }
  const double g = alpha * ag + beta * mg, o = alpha * ao + beta * mo;
  double cp = 0.0; /* o / p_{i-1}: the upper factor's multiplier */
  for (int i = 0; i < nl; i++) {
    double wi = 1.0 / (g - o * cp);
    w[(size_t)i * NL + s] = wi;
    cp = o * wi;
  }
  off[s] = o;
}

/*
 * In place on the interleaved t, one thread per line:
 *   forward  d'_i = w_i (d_i - o d'_{i-1}) = w_i d_i - (o w_i) d'_{i-1}
 *   backward x_i = d'_i - (o w_i) x_{i+1}
 * one dependent FMA per entry; the loads of BL_TRI_CHUNK entries are issued
 * together (few lines in 2D: the latency is hidden by the chunk, not by
 * warps), and blocks of one warp spread the few lines over every SM.
 */
#ifndef BL_TRI_CHUNK
#define BL_TRI_CHUNK 32
#endif
#define BL_TRI_THREADS 32
__global__ void __launch_bounds__(BL_TRI_THREADS) tri_lines(double *__restrict__ t,
                                                 const double *__restrict__ w,
                                                 const double *__restrict__ off, int nl,
                                                 size_t NL)
{
  const size_t s = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= NL)
    return;
  const double o = off[s];
  double *ts = t + s;
  const double *ws = w + s;
  double d = 0.0;
  int i = 0;
  for (; i + BL_TRI_CHUNK <= nl; i += BL_TRI_CHUNK) {
    double tv[BL_TRI_CHUNK], wv[BL_TRI_CHUNK];
#pragma unroll
    for (int q = 0; q < BL_TRI_CHUNK; q++) {
      tv[q] = ts[(size_t)(i + q) * NL];
      wv[q] = ws[(size_t)(i + q) * NL];
    }
#pragma unroll
    for (int q = 0; q < BL_TRI_CHUNK; q++) {
      d = fma(-o * wv[q], d, wv[q] * tv[q]);
      ts[(size_t)(i + q) * NL] = d;
    }
  }
  for (; i < nl; i++) {
    double wi = ws[(size_t)i * NL];
    d = fma(-o * wi, d, wi * ts[(size_t)i * NL]);
    ts[(size_t)i * NL] = d;
  }
  double x = 0.0;
  i = nl;
  for (; i >= BL_TRI_CHUNK; i -= BL_TRI_CHUNK) {
    double tv[BL_TRI_CHUNK], wv[BL_TRI_CHUNK];
#pragma unroll
    for (int q = 0; q < BL_TRI_CHUNK; q++) {
      tv[q] = ts[(size_t)(i - 1 - q) * NL];
      wv[q] = ws[(size_t)(i - 1 - q) * NL];
    }
#pragma unroll
    for (int q = 0; q < BL_TRI_CHUNK; q++) {
      x = fma(-o * wv[q], x, tv[q]);
      ts[(size_t)(i - 1 - q) * NL] = x;
    }
  }
  for (; i > 0; i--) {
    x = fma(-o * ws[(size_t)(i - 1) * NL], x, ts[(size_t)(i - 1) * NL]);
    ts[(size_t)(i - 1) * NL] = x;
  }
}

/* Lines of dimension d: B = N_total / n_d of them, inner = product of later sizes. */
static void dim_shape(const bl_cufft *s, int d, size_t *B, size_t *inner)
{
  *inner = 1;
  for (int e = d + 1; e < 3; e++)
    *inner *= (size_t)s->n[e];
  *B = s->total / (size_t)s->n[d];
}

static dim3 tile_grid(const bl_cufft *s, int d)
{
  size_t outer = s->total / ((size_t)s->n[d] * (size_t)s->nl);
  return dim3((unsigned)((s->nl + BL_TILE - 1) / BL_TILE),
              (unsigned)((s->n[d] + BL_TILE - 1) / BL_TILE), (unsigned)outer);
}

/* One DST-I (RODFT00) along dimension d < ndim - 1: x -> y (y may be x); with
   to_lines the result goes to the interleaved layout of the tridiagonal
   solves instead (d = ndim - 2 only); with from_lines x is in that layout. */
static pscr_status dst_dim(bl_cufft *s, int d, const double *x, double *y, int from_lines,
                           int to_lines, char *msg, size_t len)
{
  pscr_status st = PSCR_SUCCESS;
  const int L = s->n[d], N = 2 * (L + 1);
  size_t B, inner;
  dim_shape(s, d, &B, &inner);
  const unsigned gx = (unsigned)((B + BL_THREADS - 1) / BL_THREADS);
  if (from_lines)
    pack_interleave<<<tile_grid(s, d), dim3(BL_TILE, BL_TILE_ROWS), 0, s->bound>>>(
        x, s->d_ext, L, s->nl, B, s->nlines);
  else
    pack_cols<<<dim3(gx, grid_y((size_t)N)), BL_THREADS, 0, s->bound>>>(x, s->d_ext, L, inner,
                                                                        B);
  BL_CUDA_GOTO(st, out, cudaGetLastError());
  BL_CUFFT_GOTO(st, out, cufftExecD2Z(s->plan[d], s->d_ext, s->d_z));
  if (to_lines)
    unpack_interleave<<<tile_grid(s, d), dim3(BL_TILE, BL_TILE_ROWS), 0, s->bound>>>(
        s->d_z, y, L, s->nl, B, s->nlines);
  else
    unpack_cols<<<dim3(gx, grid_y((size_t)L)), BL_THREADS, 0, s->bound>>>(s->d_z, y, L, inner,
                                                                          B);
  BL_CUDA_GOTO(st, out, cudaGetLastError());
out:
  return st;
}

pscr_status bl_cufft_solve_device(bl_cufft *s, const double *d_f, double *d_u, void *stream,
                                  char *msg, size_t len)
{
  pscr_status st = PSCR_SUCCESS;
  if (!s || !d_f || !d_u) {
    snprintf(msg, len, "bl_cufft_solve_device: NULL argument");
    return PSCR_ERROR_INVALID_VALUE;
  }
  const int last = s->ndim - 1; /* not transformed */
  cudaStream_t want = stream ? (cudaStream_t)stream : s->stream;
  if (want != s->bound) {
    for (int d = 0; d < last; d++)
      BL_CUFFT_GOTO(st, out, cufftSetStream(s->plan[d], want));
    s->bound = want;
  }
  /* Forward DST-I along dimensions 0 .. last-1 (the first reads f; the one
     before the last leaves d_u interleaved), the tridiagonal solves in
     place, the DST-I back (the first reads the interleaved d_u). */
  for (int d = 0; d < last; d++)
    if ((st = dst_dim(s, d, d == 0 ? d_f : d_u, d_u, 0, d == last - 1, msg, len)))
      goto out;
  tri_lines<<<(unsigned)((s->nlines + BL_TRI_THREADS - 1) / BL_TRI_THREADS), BL_TRI_THREADS, 0,
              s->bound>>>(d_u, s->d_w, s->d_off, s->nl, s->nlines);
  BL_CUDA_GOTO(st, out, cudaGetLastError());
  for (int d = last - 1; d >= 0; d--)
    if ((st = dst_dim(s, d, d_u, d_u, d == last - 1, 0, msg, len)))
      goto out;
out:
  return st;
}

pscr_status bl_cufft_create(bl_cufft **out, int device, int ndim, const pscr_pencil *pencils,
                            double shift, char *msg, size_t len)
{
  pscr_status st = PSCR_SUCCESS;
  size_t ext = 0, zed = 0, work = 0, nspec;
  bl_cufft *s;

  *out = NULL;
  s = (bl_cufft *)calloc(1, sizeof *s);
  if (!s) {
    snprintf(msg, len, "bl_cufft: %zu bytes", sizeof *s);
    return PSCR_ERROR_HOST_ALLOC;
  }
  if ((st = bl_spectrum_init(&s->spec, ndim, pencils, shift, msg, len)))
    goto fail;
  s->ndim = ndim;
  memcpy(s->n, s->spec.n, sizeof s->n);
  s->total = (size_t)s->n[0] * s->n[1] * s->n[2];
  s->nl = s->n[ndim - 1];
  s->nlines = s->total / (size_t)s->nl;
  nspec = 2 * ((size_t)s->n[0] + s->n[1] + s->n[2]);
  if (s->n[ndim - 2] > 65535 * BL_TILE || (ndim == 3 && s->n[0] > 65535)) {
    snprintf(msg, len, "bl_cufft: n = %d x %d x %d beyond the tile grid", s->n[0], s->n[1],
             s->n[2]);
    st = PSCR_ERROR_NOT_SUPPORTED;
    goto fail;
  }

  BL_CUDA_GOTO(st, fail, cudaSetDevice(device));
  BL_CUDA_GOTO(st, fail, cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
  s->bound = s->stream;

  /* Plans first, without work areas, to learn the sizes. */
  for (int d = 0; d < ndim - 1; d++) {
    const long long L = s->n[d], N = 2 * (L + 1), H = L + 2;
    size_t B, inner, ws = 0;
    dim_shape(s, d, &B, &inner);
    long long n[1] = {N}, inembed[1] = {N}, onembed[1] = {H};
    BL_CUFFT_GOTO(st, fail, cufftCreate(&s->plan[d]));
    s->planned[d] = 1;
    BL_CUFFT_GOTO(st, fail, cufftSetAutoAllocation(s->plan[d], 0));
    BL_CUFFT_GOTO(st, fail, cufftMakePlanMany64(s->plan[d], 1, n, inembed, (long long)B, 1,
                                                onembed, (long long)B, 1, CUFFT_D2Z,
                                                (long long)B, &ws));
    BL_CUFFT_GOTO(st, fail, cufftSetStream(s->plan[d], s->stream));
    ext = ext > (size_t)N * B ? ext : (size_t)N * B;
    zed = zed > (size_t)H * B ? zed : (size_t)H * B;
    work = work > ws ? work : ws;
  }
  BL_CUDA_GOTO(st, fail, cudaMalloc((void **)&s->d_ext, ext * sizeof(double)));
  BL_CUDA_GOTO(st, fail, cudaMalloc((void **)&s->d_z, zed * sizeof(cufftDoubleComplex)));
  if (work)
    BL_CUDA_GOTO(st, fail, cudaMalloc(&s->d_work, work));
  for (int d = 0; d < ndim - 1; d++)
    BL_CUFFT_GOTO(st, fail, cufftSetWorkArea(s->plan[d], s->d_work));
  BL_CUDA_GOTO(st, fail, cudaMalloc((void **)&s->d_spec, nspec * sizeof(double)));
  BL_CUDA_GOTO(st, fail, cudaMemcpy(s->d_spec, s->spec.store, nspec * sizeof(double),
                                    cudaMemcpyHostToDevice));
  for (int d = 0; d < 3; d++) {
    s->d_a[d] = s->d_spec + (s->spec.a[d] - s->spec.store);
    s->d_m[d] = s->d_spec + (s->spec.m[d] - s->spec.store);
  }
  /* The last dimension's factors (Toeplitz: bl_spectrum_init checked). */
  {
    const pscr_pencil *p = &pencils[ndim - 1];
    const double ag = ((const double *)p->a_diag)[0], mg = ((const double *)p->m_diag)[0];
    const double ao = s->nl > 1 ? ((const double *)p->a_off)[0] : 0.0;
    const double mo = s->nl > 1 && p->m_off ? ((const double *)p->m_off)[0] : 0.0;
    BL_CUDA_GOTO(st, fail, cudaMalloc((void **)&s->d_w, s->total * sizeof(double)));
    BL_CUDA_GOTO(st, fail, cudaMalloc((void **)&s->d_off, s->nlines * sizeof(double)));
    factor_lines<<<(unsigned)((s->nlines + 127) / 128), 128, 0, s->stream>>>(
        s->d_w, s->d_off, s->d_a[0], s->d_m[0], s->d_a[1], s->d_m[1], shift, s->n[1],
        ndim == 2, ag, ao, mg, mo, s->nl, s->nlines);
    BL_CUDA_GOTO(st, fail, cudaGetLastError());
    BL_CUDA_GOTO(st, fail, cudaStreamSynchronize(s->stream));
  }
  BL_CUDA_GOTO(st, fail, cudaMalloc((void **)&s->d_f, s->total * sizeof(double)));
  BL_CUDA_GOTO(st, fail, cudaMalloc((void **)&s->d_u, s->total * sizeof(double)));
  *out = s;
  return PSCR_SUCCESS;
fail:
  bl_cufft_destroy(s);
  return st;
}
/* gpu_solve_fn for gpu_time_fn: ctx is the solver. */
static pscr_status bl_cufft_solve_fn(void *ctx, const void *d_f, void *d_u, void *stream,
                                  char *msg, size_t len)
{
  return bl_cufft_solve_device((bl_cufft *)ctx, (const double *)d_f, (double *)d_u, stream, msg,
                                len);
}

pscr_status bl_cufft_time(bl_cufft *s, const double *f, double *u, int repeat,
                          double *ms_median, double *ms_min, char *msg, size_t len)
{
  if (repeat < BL_CUFFT_MIN_REPEAT)
    repeat = BL_CUFFT_MIN_REPEAT;
  /* Timed as pscr is (gpu_timing.c). */
  return gpu_time_fn(bl_cufft_solve_fn, s, s->stream, s->d_f, s->d_u, f, u,
                     s->total * sizeof(double), BL_CUFFT_WARMUP, repeat, ms_median, ms_min, msg,
                     len);
}

void bl_cufft_destroy(bl_cufft *s)
{
  if (!s)
    return;
  if (s->stream)
    cudaStreamSynchronize(s->stream);
  for (int d = 0; d < 3; d++)
    if (s->planned[d])
      cufftDestroy(s->plan[d]);
  cudaFree(s->d_u);
  cudaFree(s->d_f);
  cudaFree(s->d_off);
  cudaFree(s->d_w);
  cudaFree(s->d_spec);
  cudaFree(s->d_work);
  cudaFree(s->d_z);
  cudaFree(s->d_ext);
  if (s->stream)
    cudaStreamDestroy(s->stream);
  bl_spectrum_free(&s->spec);
  free(s);
}

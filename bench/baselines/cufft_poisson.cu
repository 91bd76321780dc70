/*
 * GPU fast Poisson baseline on cuFFT (cufft_poisson.h).
 *
 * DST-I of a line x of length L through a real FFT of length N = 2(L+1):
 * the odd extension e = (0, x_0..x_{L-1}, 0, -x_{L-1}..-x_0) has
 *   E_k = sum_m e_m exp(-2 pi i k m / N) = -2 i sum_j x_j sin(pi k (j+1) / (L+1)),
 * so -Im E_k, k = 1..L, is FFTW's RODFT00 (twice the sine sum), the
 * convention whose scale baseline_common.h folds into the eigenvalues.
 *
 * Per dimension d (L = n_d, B = N_total / L lines, inner = product of the
 * later sizes) the extension buffer is laid out so that both the pack and the
 * unpack kernels access memory coalesced:
 *   last dimension (inner == 1): lines contiguous, e[b N + m], E[b (L+2) + k]
 *     (cuFFT stride 1, distance N);
 *   other dimensions: the transform index outermost, e[m B + b], E[k B + b]
 *     (cuFFT stride B, distance 1),
 * with line b = o inner + i reading x[(o L + j) inner + i].
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
  size_t total;             /* n1 n2 n3 */
  cufftHandle plan[3];      /* D2Z of dimension d */
  int planned[3];           /* plan[d] was created */
  cudaStream_t stream;      /* own stream */
  cudaStream_t bound;       /* stream the plans are set to */
  double *d_spec;           /* device copy of spec.store */
  const double *d_a[3], *d_m[3];
  double *d_ext;            /* odd extensions, max_d 2 (n_d + 1) B_d */
  cufftDoubleComplex *d_z;  /* their spectra, max_d (n_d + 2) B_d */
  void *d_work;             /* cuFFT work area, shared by the plans */
  double *d_f, *d_u;        /* for bl_cufft_time */
};

static unsigned grid_y(size_t rows)
{
  return rows < BL_MAX_GRID_Y ? (unsigned)rows : BL_MAX_GRID_Y;
}

/* Last dimension: one line per grid row, e[b N + m]. */
__global__ void pack_rows(const double *__restrict__ x, double *__restrict__ e, int L, size_t B)
{
  const int N = 2 * (L + 1);
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= N)
    return;
  for (size_t b = blockIdx.y; b < B; b += gridDim.y) {
    const double *xb = x + b * L;
    double v = 0.0;
    if (m >= 1 && m <= L)
      v = xb[m - 1];
    else if (m >= L + 2)
      v = -xb[N - 1 - m];
    e[b * N + m] = v;
  }
}

/* Other dimensions: one extension index m per grid row, e[m B + b]. */
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

/* x[b L + k] = -Im E[b (L+2) + k + 1]. */
__global__ void unpack_rows(const cufftDoubleComplex *__restrict__ z, double *__restrict__ x,
                            int L, size_t B)
{
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= L)
    return;
  for (size_t b = blockIdx.y; b < B; b += gridDim.y)
    x[b * L + k] = -z[b * (L + 2) + k + 1].y;
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
 * u /= lambda(k1, k2, k3) (baseline_common.h). Threads run along the fastest
 * dimension, grid rows over the others: 3D rows r = k1 n2 + k2, columns k3;
 * 2D rows k1, columns k2 (k3 = 0: a3 = 0, m3 = 1).
 */
__global__ void divide(double *__restrict__ u, const double *__restrict__ a1,
                       const double *__restrict__ m1, const double *__restrict__ a2,
                       const double *__restrict__ m2, const double *__restrict__ a3,
                       const double *__restrict__ m3, double c, size_t rows, int cols, int n2,
                       int twod)
{
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= cols)
    return;
  for (size_t r = blockIdx.y; r < rows; r += gridDim.y) {
    int k1 = twod ? (int)r : (int)(r / n2);
    int k2 = twod ? col : (int)(r - (size_t)k1 * n2);
    int k3 = twod ? 0 : col;
    u[r * cols + col] /= bl_lambda(a1, m1, a2, m2, a3, m3, c, k1, k2, k3);
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

/* One DST-I (RODFT00) along dimension d: x -> y, y may be x. */
static pscr_status dst_dim(bl_cufft *s, int d, const double *x, double *y, char *msg,
                           size_t len)
{
  pscr_status st = PSCR_SUCCESS;
  const int L = s->n[d], N = 2 * (L + 1);
  size_t B, inner;
  dim_shape(s, d, &B, &inner);
  if (inner == 1) {
    pack_rows<<<dim3((N + BL_THREADS - 1) / BL_THREADS, grid_y(B)), BL_THREADS, 0,
                s->bound>>>(x, s->d_ext, L, B);
  } else {
    unsigned gx = (unsigned)((B + BL_THREADS - 1) / BL_THREADS);
    pack_cols<<<dim3(gx, grid_y((size_t)N)), BL_THREADS, 0, s->bound>>>(x, s->d_ext, L,
                                                                        inner, B);
  }
  BL_CUDA_GOTO(st, out, cudaGetLastError());
  BL_CUFFT_GOTO(st, out, cufftExecD2Z(s->plan[d], s->d_ext, s->d_z));
  if (inner == 1) {
    unpack_rows<<<dim3((L + BL_THREADS - 1) / BL_THREADS, grid_y(B)), BL_THREADS, 0,
                  s->bound>>>(s->d_z, y, L, B);
  } else {
    unsigned gx = (unsigned)((B + BL_THREADS - 1) / BL_THREADS);
    unpack_cols<<<dim3(gx, grid_y((size_t)L)), BL_THREADS, 0, s->bound>>>(s->d_z, y, L,
                                                                          inner, B);
  }
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
  cudaStream_t want = stream ? (cudaStream_t)stream : s->stream;
  if (want != s->bound) {
    for (int d = 0; d < s->ndim; d++)
      BL_CUFFT_GOTO(st, out, cufftSetStream(s->plan[d], want));
    s->bound = want;
  }
  /* Forward DST-I along every dimension (the first reads f), divide, back. */
  for (int d = 0; d < s->ndim; d++)
    if ((st = dst_dim(s, d, d == 0 ? d_f : d_u, d_u, msg, len)))
      goto out;
  {
    const int twod = s->ndim == 2, cols = twod ? s->n[1] : s->n[2];
    const size_t rows = twod ? (size_t)s->n[0] : (size_t)s->n[0] * s->n[1];
    divide<<<dim3((cols + BL_THREADS - 1) / BL_THREADS, grid_y(rows)), BL_THREADS, 0,
             s->bound>>>(d_u, s->d_a[0], s->d_m[0], s->d_a[1], s->d_m[1], s->d_a[2],
                         s->d_m[2], s->spec.shift, rows, cols, s->n[1], twod);
    BL_CUDA_GOTO(st, out, cudaGetLastError());
  }
  for (int d = s->ndim - 1; d >= 0; d--)
    if ((st = dst_dim(s, d, d_u, d_u, msg, len)))
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
  nspec = 2 * ((size_t)s->n[0] + s->n[1] + s->n[2]);

  BL_CUDA_GOTO(st, fail, cudaSetDevice(device));
  BL_CUDA_GOTO(st, fail, cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
  s->bound = s->stream;

  /* Plans first, without work areas, to learn the sizes. */
  for (int d = 0; d < ndim; d++) {
    const long long L = s->n[d], N = 2 * (L + 1), H = L + 2;
    size_t B, inner, ws = 0;
    dim_shape(s, d, &B, &inner);
    long long n[1] = {N}, inembed[1] = {N}, onembed[1] = {H};
    long long istride = inner == 1 ? 1 : (long long)B, idist = inner == 1 ? N : 1;
    long long ostride = inner == 1 ? 1 : (long long)B, odist = inner == 1 ? H : 1;
    BL_CUFFT_GOTO(st, fail, cufftCreate(&s->plan[d]));
    s->planned[d] = 1;
    BL_CUFFT_GOTO(st, fail, cufftSetAutoAllocation(s->plan[d], 0));
    BL_CUFFT_GOTO(st, fail, cufftMakePlanMany64(s->plan[d], 1, n, inembed, istride, idist,
                                                onembed, ostride, odist, CUFFT_D2Z,
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
  for (int d = 0; d < ndim; d++)
    BL_CUFFT_GOTO(st, fail, cufftSetWorkArea(s->plan[d], s->d_work));
  BL_CUDA_GOTO(st, fail, cudaMalloc((void **)&s->d_spec, nspec * sizeof(double)));
  BL_CUDA_GOTO(st, fail, cudaMemcpy(s->d_spec, s->spec.store, nspec * sizeof(double),
                                    cudaMemcpyHostToDevice));
  for (int d = 0; d < 3; d++) {
    s->d_a[d] = s->d_spec + (s->spec.a[d] - s->spec.store);
    s->d_m[d] = s->d_spec + (s->spec.m[d] - s->spec.store);
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
  cudaFree(s->d_spec);
  cudaFree(s->d_work);
  cudaFree(s->d_z);
  cudaFree(s->d_ext);
  if (s->stream)
    cudaStreamDestroy(s->stream);
  bl_spectrum_free(&s->spec);
  free(s);
}

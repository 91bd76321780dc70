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
 * DST-I of a line x of length L through an FFT of length N = 2(L+1): the
 * odd extension e = (0, x_0..x_{L-1}, 0, -x_{L-1}..-x_0) has
 *   E_k = sum_m e_m exp(-2 pi i k m / N) = -2 i sum_j x_j sin(pi k (j+1) / (L+1)),
 * so -Im E_k, k = 1..L, is FFTW's RODFT00 (twice the sine sum), the
 * convention whose scale baseline_common.h folds into the eigenvalues.
 * E is purely imaginary, so two real lines a, b share one complex line
 * z = e_a + i e_b: its complex FFT Z = E_a + i E_b gives RODFT00(a) =
 * -Im Z_k and RODFT00(b) = Re Z_k. One Z2Z per pair of lines does the work
 * of two D2Z without their packing and post-processing passes (the
 * formulation pscr's gpu/sine.cuh uses; a line left over pairs with zeros).
 *
 * Every transformed dimension goes through a buffer with its complex lines
 * contiguous (cuFFT stride 1, distance N; the transposes this needs ride in
 * the pack and unpack kernels, through shared-memory tiles, see pack_lines:
 * on the H100 the strided layout with the transform index outermost was
 * the slower one). The
 * tridiagonal solves, one thread per line, read the spectrum of the
 * dimension before the last in place, coalesced, and write their answer
 * straight into the odd extension of its backward transform (tri_lines):
 * no transpose or copy pass around them. They use the LU factors of every line's matrix,
 * computed once at create (one reciprocal pivot per entry), so the forward
 * and the backward sweep are one dependent FMA per entry.
 */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cufft.h>

#include "baseline_cuda.h"
#include "baseline_common.h"
#include "cufft_poisson.h"
#include "gpu_timing.h"

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
  cufftHandle plan[3];      /* Z2Z of dimension d < ndim - 1 (paired lines) */
  int planned[3];           /* plan[d] was created */
  cudaStream_t stream;      /* own stream */
  cudaStream_t bound;       /* stream the plans are set to */
  double *d_spec;           /* device copy of spec.store */
  const double *d_a[3], *d_m[3];
  double *d_w;              /* reciprocal LU pivots (tri_lines' layout) */
  double *d_off;            /* off-diagonal of line s's matrix */
  double2 *d_ext;           /* paired odd extensions, max_d 2 (n_d + 1) outer ceil(inner / 2) */
  double2 *d_z;             /* their spectra, as many */
  void *d_work;             /* cuFFT work area, shared by the plans */
  double *d_f, *d_u;        /* for bl_cufft_time */
};

/*
 * Every transformed dimension d (L = n_d, outer = product of the earlier
 * sizes, inner = product of the later ones) goes through a buffer with its
 * complex lines contiguous: within outer index o, real lines i and i + 1
 * (i even) share complex line c = o P + i / 2, P = ceil(inner / 2), as its
 * real and imaginary parts; the extension e[c N + m], its spectrum
 * Z[c N + k] (cuFFT stride 1, distance N). x[(o L + j) inner + i] is in the
 * solver's (and the user's) layout, so pack and unpack are transposes:
 * tiles of 32 rows j (or modes k) by 32 complex lines (64 real ones)
 * through shared memory, tile (lines, j or k) = (blockIdx.x, blockIdx.y),
 * o = blockIdx.z, every global access coalesced.
 */
#define BL_TILE 32
#define BL_TILE_ROWS 8

/* Complex lines per outer index: real lines i, i + 1 share line i / 2. */
__host__ __device__ static inline size_t pair_lines(size_t inner) { return (inner + 1) / 2; }

/* e[c N + j + 1] = (x[(o L + j) inner + 2p], x[... + 2p + 1]) for c = o P + p
   (zero past inner), e[c N + N - 1 - j] = -that, e[c N] = e[c N + L + 1] = 0. */
__global__ void pack_lines(const double *__restrict__ x, double2 *__restrict__ e, int L,
                           size_t inner)
{
  __shared__ double tile[BL_TILE][2 * BL_TILE + 1]; /* [j][real line - 2 p0] */
  const size_t o = blockIdx.z, N = 2 * ((size_t)L + 1), P = pair_lines(inner);
  const size_t p0 = (size_t)blockIdx.x * BL_TILE;
  const int j0 = blockIdx.y * BL_TILE;
  for (int r = threadIdx.y; r < BL_TILE; r += BL_TILE_ROWS) {
    const int j = j0 + r;
#pragma unroll
    for (int h = 0; h < 2; h++) {
      const int q = h * BL_TILE + threadIdx.x;
      const size_t i = 2 * p0 + q;
      tile[r][q] = j < L && i < inner ? x[(o * L + j) * inner + i] : 0.0;
    }
  }
  __syncthreads();
  for (int r = threadIdx.y; r < BL_TILE; r += BL_TILE_ROWS) {
    const int j = j0 + threadIdx.x;
    const size_t p = p0 + r;
    if (p >= P)
      continue;
    double2 *eb = e + (o * P + p) * N;
    if (j < L) {
      const double a = tile[threadIdx.x][2 * r], b = tile[threadIdx.x][2 * r + 1];
      eb[j + 1] = make_double2(a, b);
      eb[N - 1 - j] = make_double2(-a, -b);
    }
    if (j0 == 0 && threadIdx.x == 0) {
      eb[0] = make_double2(0.0, 0.0);
      eb[L + 1] = make_double2(0.0, 0.0);
    }
  }
}

/* x[(o L + k) inner + i] = -Im Z[c N + k + 1] (i even) or Re (i odd),
   c = o P + i / 2. */
__global__ void unpack_lines(const double2 *__restrict__ z, double *__restrict__ x, int L,
                             size_t inner)
{
  __shared__ double tile[BL_TILE][2 * BL_TILE + 1]; /* [k][real line - 2 p0] */
  const size_t o = blockIdx.z, N = 2 * ((size_t)L + 1), P = pair_lines(inner);
  const size_t p0 = (size_t)blockIdx.x * BL_TILE;
  const int k0 = blockIdx.y * BL_TILE;
  for (int r = threadIdx.y; r < BL_TILE; r += BL_TILE_ROWS) {
    const int k = k0 + threadIdx.x;
    const size_t p = p0 + r;
    if (k < L && p < P) {
      const double2 v = z[(o * P + p) * N + k + 1];
      tile[threadIdx.x][2 * r] = -v.y;
      tile[threadIdx.x][2 * r + 1] = v.x;
    }
  }
  __syncthreads();
  for (int r = threadIdx.y; r < BL_TILE; r += BL_TILE_ROWS) {
    const int k = k0 + r;
#pragma unroll
    for (int h = 0; h < 2; h++) {
      const int q = h * BL_TILE + threadIdx.x;
      const size_t i = 2 * p0 + q;
      if (k < L && i < inner)
        x[(o * L + k) * inner + i] = tile[r][q];
    }
  }
}

/*
 * The tridiagonal systems. After the forward transform of the dimension
 * before the last (L = its n, inner = nl), mode k of outer index o is line
 * s = o L + k of the solves, and its entry i (position along the last
 * dimension) is -Im Z[(o P + i / 2) N + k + 1] for even i, Re for odd i
 * (P = ceil(nl / 2)): consecutive lines s are consecutive addresses, so
 * the solves (one thread per line) read the spectrum in place, coalesced,
 * keep their intermediate d' and their LU factors at t[(o nl + i) L + k],
 * and write their answer straight into the same part of the paired odd
 * extension of the backward transform, e[(o P + i / 2) N + k + 1] and
 * e[... + N - 1 - k]: no transpose or copy pass around the solves. (An odd
 * nl's last line pairs with zeros, which the forward pack left there.)
 *
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
                             double mo, int L, int nl, size_t NL)
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
  const size_t ob = s / (size_t)L, k = s - ob * (size_t)L;
  double *ws = w + ob * (size_t)nl * L + k;
  double cp = 0.0; /* o / p_{i-1}: the upper factor's multiplier */
  for (int i = 0; i < nl; i++) {
    double wi = 1.0 / (g - o * cp);
    ws[(size_t)i * L] = wi;
    cp = o * wi;
  }
  off[s] = o;
}

/*
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
__global__ void __launch_bounds__(BL_TRI_THREADS)
    tri_lines(const double2 *__restrict__ z, double *__restrict__ t, double2 *__restrict__ e,
              const double *__restrict__ w, const double *__restrict__ off, int L, int nl,
              size_t NL)
{
  const size_t s = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= NL)
    return;
  const size_t ob = s / (size_t)L, k = s - ob * (size_t)L;
  const size_t N = 2 * ((size_t)L + 1), P = pair_lines((size_t)nl);
  const double o = off[s];
  const double2 *zs = z + ob * P * N + k + 1;      /* line i: zs[(i / 2) N] */
  double *ts = t + ob * (size_t)nl * L + k;        /* stride L */
  const double *ws = w + ob * (size_t)nl * L + k;  /* stride L */
  double *es = (double *)(e + ob * P * N);          /* line i, entry m: es[2 ((i / 2) N + m) + i % 2] */
  /* Real line i's mode k: -Im (even i) or Re (odd i) of the shared line. */
  auto mode = [&](int i) {
    const double2 v = zs[(size_t)(i >> 1) * N];
    return (i & 1) ? v.x : -v.y;
  };
  auto put = [&](int i, double v) {
    double *eb = es + 2 * (size_t)(i >> 1) * N + (i & 1);
    eb[2 * (k + 1)] = v;
    eb[2 * (N - 1 - k)] = -v;
  };
  double d = 0.0;
  int i = 0;
  for (; i + BL_TRI_CHUNK <= nl; i += BL_TRI_CHUNK) {
    double tv[BL_TRI_CHUNK], wv[BL_TRI_CHUNK];
#pragma unroll
    for (int q = 0; q < BL_TRI_CHUNK; q++) {
      tv[q] = mode(i + q);
      wv[q] = ws[(size_t)(i + q) * L];
    }
#pragma unroll
    for (int q = 0; q < BL_TRI_CHUNK; q++) {
      d = fma(-o * wv[q], d, wv[q] * tv[q]);
      ts[(size_t)(i + q) * L] = d;
    }
  }
  for (; i < nl; i++) {
    double wi = ws[(size_t)i * L];
    d = fma(-o * wi, d, wi * mode(i));
    ts[(size_t)i * L] = d;
  }
  double x = 0.0;
  i = nl;
  for (; i >= BL_TRI_CHUNK; i -= BL_TRI_CHUNK) {
    double tv[BL_TRI_CHUNK], wv[BL_TRI_CHUNK];
#pragma unroll
    for (int q = 0; q < BL_TRI_CHUNK; q++) {
      tv[q] = ts[(size_t)(i - 1 - q) * L];
      wv[q] = ws[(size_t)(i - 1 - q) * L];
    }
#pragma unroll
    for (int q = 0; q < BL_TRI_CHUNK; q++) {
      x = fma(-o * wv[q], x, tv[q]);
      put(i - 1 - q, x);
    }
  }
  for (; i > 0; i--) {
    x = fma(-o * ws[(size_t)(i - 1) * L], x, ts[(size_t)(i - 1) * L]);
    put(i - 1, x);
  }
  if (k == 0) /* the extension's zeros of this outer index's lines */
    for (size_t r = 0; r < P; r++) {
      e[(ob * P + r) * N] = make_double2(0.0, 0.0);
      e[(ob * P + r) * N + L + 1] = make_double2(0.0, 0.0);
    }
}

/* Dimension d: L = n_d, inner = product of the later sizes, outer = of the
   earlier ones. */
static void dim_shape(const bl_cufft *s, int d, size_t *outer, size_t *inner)
{
  *inner = 1;
  for (int e = d + 1; e < 3; e++)
    *inner *= (size_t)s->n[e];
  *outer = s->total / ((size_t)s->n[d] * *inner);
}

/* The forward DST-I along dimension d reading x, up to its spectrum in d_z. */
static pscr_status dst_in(bl_cufft *s, int d, const double *x, char *msg, size_t len)
{
  pscr_status st = PSCR_SUCCESS;
  size_t outer, inner;
  dim_shape(s, d, &outer, &inner);
  dim3 grid((unsigned)((pair_lines(inner) + BL_TILE - 1) / BL_TILE),
            (unsigned)((s->n[d] + BL_TILE - 1) / BL_TILE), (unsigned)outer);
  pack_lines<<<grid, dim3(BL_TILE, BL_TILE_ROWS), 0, s->bound>>>(x, s->d_ext, s->n[d], inner);
  BL_CUDA_GOTO(st, out, cudaGetLastError());
  BL_CUFFT_GOTO(st, out, cufftExecZ2Z(s->plan[d], (cufftDoubleComplex *)s->d_ext,
                                      (cufftDoubleComplex *)s->d_z, CUFFT_FORWARD));
out:
  return st;
}

/* The spectrum in d_z back to the solver's layout in y. */
static pscr_status dst_out(bl_cufft *s, int d, double *y, char *msg, size_t len)
{
  pscr_status st = PSCR_SUCCESS;
  size_t outer, inner;
  dim_shape(s, d, &outer, &inner);
  dim3 grid((unsigned)((pair_lines(inner) + BL_TILE - 1) / BL_TILE),
            (unsigned)((s->n[d] + BL_TILE - 1) / BL_TILE), (unsigned)outer);
  unpack_lines<<<grid, dim3(BL_TILE, BL_TILE_ROWS), 0, s->bound>>>(s->d_z, y, s->n[d], inner);
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
  const int last = s->ndim - 1, dl = last - 1; /* dl: the dimension before the last */
  cudaStream_t want = stream ? (cudaStream_t)stream : s->stream;
  if (want != s->bound) {
    for (int d = 0; d < last; d++)
      BL_CUFFT_GOTO(st, out, cufftSetStream(s->plan[d], want));
    s->bound = want;
  }
  /* 3D: dimension 0 there (f -> u) */
  for (int d = 0; d < dl; d++) {
    if ((st = dst_in(s, d, d == 0 ? d_f : d_u, msg, len)))
      goto out;
    if ((st = dst_out(s, d, d_u, msg, len)))
      goto out;
  }
  /* dimension dl forward; the solves from its spectrum into the extension
     of its backward transform (d_u is their scratch); that transform */
  if ((st = dst_in(s, dl, dl == 0 ? d_f : d_u, msg, len)))
    goto out;
  tri_lines<<<(unsigned)((s->nlines + BL_TRI_THREADS - 1) / BL_TRI_THREADS), BL_TRI_THREADS, 0,
              s->bound>>>(s->d_z, d_u, s->d_ext, s->d_w, s->d_off, s->n[dl], s->nl, s->nlines);
  BL_CUDA_GOTO(st, out, cudaGetLastError());
  BL_CUFFT_GOTO(st, out, cufftExecZ2Z(s->plan[dl], (cufftDoubleComplex *)s->d_ext,
                                      (cufftDoubleComplex *)s->d_z, CUFFT_FORWARD));
  if ((st = dst_out(s, dl, d_u, msg, len)))
    goto out;
  /* 3D: dimension 0 back */
  for (int d = dl - 1; d >= 0; d--) {
    if ((st = dst_in(s, d, d_u, msg, len)))
      goto out;
    if ((st = dst_out(s, d, d_u, msg, len)))
      goto out;
  }
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
  if (s->n[0] > 65535 * BL_TILE || s->n[1] > 65535 * BL_TILE || (ndim == 3 && s->n[0] > 65535)) {
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
    const long long L = s->n[d], N = 2 * (L + 1);
    size_t outer, inner, ws = 0;
    dim_shape(s, d, &outer, &inner);
    const size_t B = outer * pair_lines(inner); /* complex lines */
    long long n[1] = {N};
    BL_CUFFT_GOTO(st, fail, cufftCreate(&s->plan[d]));
    s->planned[d] = 1;
    BL_CUFFT_GOTO(st, fail, cufftSetAutoAllocation(s->plan[d], 0));
    BL_CUFFT_GOTO(st, fail, cufftMakePlanMany64(s->plan[d], 1, n, NULL, 1, N, NULL, 1, N,
                                                CUFFT_Z2Z, (long long)B, &ws));
    BL_CUFFT_GOTO(st, fail, cufftSetStream(s->plan[d], s->stream));
    ext = ext > (size_t)N * B ? ext : (size_t)N * B;
    work = work > ws ? work : ws;
  }
  zed = ext;
  BL_CUDA_GOTO(st, fail, cudaMalloc((void **)&s->d_ext, ext * sizeof(double2)));
  BL_CUDA_GOTO(st, fail, cudaMalloc((void **)&s->d_z, zed * sizeof(double2)));
  if (work)
    BL_CUDA_GOTO(st, fail, cudaMalloc(&s->d_work, work));
  for (int d = 0; d < ndim - 1; d++)
    BL_CUFFT_GOTO(st, fail, cufftSetWorkArea(s->plan[d], s->d_work));
  BL_CUDA_GOTO(st, fail, cudaMalloc((void **)&s->d_spec, nspec * sizeof(double)));
  /* On s->stream, before factor_lines: a cudaMemcpy from pageable memory may
     return before its DMA lands, and a non-blocking stream does not wait
     for it (factor_lines read the spectrum early: NaN factors at 8191^2). */
  BL_CUDA_GOTO(st, fail, cudaMemcpyAsync(s->d_spec, s->spec.store, nspec * sizeof(double),
                                         cudaMemcpyHostToDevice, s->stream));
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
        ndim == 2, ag, ao, mg, mo, s->n[ndim - 2], s->nl, s->nlines);
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

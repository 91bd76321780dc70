/*
 * cuSPARSE gtsv on exactly pscr's level-3 launches (cusparse_level3.h).
 *
 * Storage index of row i of system sys in a launch of nsys systems of order n:
 *   strided (gtsv2StridedBatch, batchStride n):  sys n + i
 *   interleaved (gtsvInterleavedBatch):          i nsys + sys
 * Both kernels below walk the storage index linearly, so their writes are
 * coalesced in either layout.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuComplex.h>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <math_constants.h>

#include "baseline_cuda.h"
#include "cusparse_level3.h"

/* A cuSPARSE call failed. */
#define BL_CUSPARSE_GOTO(st, label, call)                                                    \
  do {                                                                                       \
    cusparseStatus_t s_ = (call);                                                            \
    if (s_ != CUSPARSE_STATUS_SUCCESS) {                                                     \
      (st) = s_ == CUSPARSE_STATUS_ALLOC_FAILED ? PSCR_ERROR_DEVICE_ALLOC : PSCR_ERROR_DEVICE; \
      snprintf(msg, len, "%s: %s", #call, cusparseGetErrorString(s_));                       \
      goto label;                                                                            \
    }                                                                                        \
  } while (0)

namespace {

/* Scalar helpers for double and cuDoubleComplex. */
__host__ __device__ inline double bl_madd(double a, double s, double b) { return a + s * b; }
__host__ __device__ inline cuDoubleComplex bl_madd(cuDoubleComplex a, cuDoubleComplex s,
                                                   cuDoubleComplex b)
{
  return cuCadd(a, cuCmul(s, b));
}
__device__ inline double bl_sub(double a, double b) { return a - b; }
__device__ inline cuDoubleComplex bl_sub(cuDoubleComplex a, cuDoubleComplex b)
{
  return cuCsub(a, b);
}
__device__ inline double bl_abs(double a) { return fabs(a); }
__device__ inline double bl_abs(cuDoubleComplex a) { return hypot(cuCreal(a), cuCimag(a)); }
__device__ inline bool bl_finite(double a) { return isfinite(a); }
__device__ inline bool bl_finite(cuDoubleComplex a)
{
  return isfinite(cuCreal(a)) && isfinite(cuCimag(a));
}
template <class T> __device__ inline T bl_zero();
template <> __device__ inline double bl_zero<double>() { return 0.0; }
template <> __device__ inline cuDoubleComplex bl_zero<cuDoubleComplex>()
{
  return make_cuDoubleComplex(0.0, 0.0);
}

__device__ inline uint64_t bl_mix(uint64_t z)
{
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
__device__ inline double bl_unit(uint64_t h) { return (double)(h >> 11) * 0x1.0p-52 - 1.0; }

/* Right-hand side of row i of system sys of launch `launch`: in [-1, 1). */
template <class T> __device__ inline T bl_rhs(int launch, size_t sys, int i, int n);
template <> __device__ inline double bl_rhs<double>(int launch, size_t sys, int i, int n)
{
  return bl_unit(bl_mix(bl_mix((uint64_t)launch + 1) + (uint64_t)sys * (uint64_t)n + (uint64_t)i));
}
template <>
__device__ inline cuDoubleComplex bl_rhs<cuDoubleComplex>(int launch, size_t sys, int i, int n)
{
  uint64_t h = bl_mix(bl_mix((uint64_t)launch + 1) + (uint64_t)sys * (uint64_t)n + (uint64_t)i);
  return make_cuDoubleComplex(bl_unit(h), bl_unit(bl_mix(h)));
}

/* The last dimension's pencil on the device, n entries each. */
template <class T> struct Pencil {
  const T *ad, *ao, *md, *mo;
};

/* Row i of A + s M: sub-diagonal, diagonal, super-diagonal (0 outside). */
template <class T>
__device__ inline void bl_row(const Pencil<T> &P, T s, int i, int n, T *lo, T *di, T *up)
{
  *lo = i > 0 ? bl_madd(P.ao[i - 1], s, P.mo[i - 1]) : bl_zero<T>();
  *di = bl_madd(P.ad[i], s, P.md[i]);
  *up = i < n - 1 ? bl_madd(P.ao[i], s, P.mo[i]) : bl_zero<T>();
}

/* Materialize the diagonals and the right-hand side of one launch. */
template <class T>
__global__ void k_prepare(Pencil<T> P, int n, size_t nsys, int interleaved, const T *shift,
                          int launch, T *dl, T *d, T *du, T *x)
{
  const size_t count = nsys * (size_t)n;
  for (size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x; idx < count;
       idx += (size_t)gridDim.x * blockDim.x) {
    const size_t sys = interleaved ? idx % nsys : idx / (size_t)n;
    const int i = interleaved ? (int)(idx / nsys) : (int)(idx % (size_t)n);
    T lo, di, up;
    bl_row(P, shift[sys], i, n, &lo, &di, &up);
    dl[idx] = lo;
    d[idx] = di;
    du[idx] = up;
    x[idx] = bl_rhs<T>(launch, sys, i, n);
  }
}

/* Per system: ||T y - r||_inf / (||T||_inf ||y||_inf + ||r||_inf), T and r
   rebuilt from the pencil and the hash; NaN when y is not finite. */
template <class T>
__global__ void k_check(Pencil<T> P, int n, size_t nsys, int interleaved, const T *shift,
                        int launch, const T *y, double *berr)
{
  for (size_t sys = (size_t)blockIdx.x * blockDim.x + threadIdx.x; sys < nsys;
       sys += (size_t)gridDim.x * blockDim.x) {
    const size_t step = interleaved ? nsys : 1, base = interleaved ? sys : sys * (size_t)n;
    const T s = shift[sys];
    double res = 0, tn = 0, yn = 0, rn = 0;
    bool finite = true;
    for (int i = 0; i < n; i++) {
      T lo, di, up;
      bl_row(P, s, i, n, &lo, &di, &up);
      const T yi = y[base + (size_t)i * step];
      T ty = bl_madd(bl_zero<T>(), di, yi);
      if (i > 0)
        ty = bl_madd(ty, lo, y[base + (size_t)(i - 1) * step]);
      if (i < n - 1)
        ty = bl_madd(ty, up, y[base + (size_t)(i + 1) * step]);
      const T r = bl_rhs<T>(launch, sys, i, n);
      finite = finite && bl_finite(yi);
      res = fmax(res, bl_abs(bl_sub(ty, r)));
      tn = fmax(tn, bl_abs(lo) + bl_abs(di) + bl_abs(up));
      yn = fmax(yn, bl_abs(yi));
      rn = fmax(rn, bl_abs(r));
    }
    berr[sys] = finite ? res / (tn * yn + rn) : CUDART_NAN;
  }
}

unsigned grid_of(size_t count)
{
  size_t g = (count + BL_THREADS - 1) / BL_THREADS;
  const size_t cap = (size_t)1 << 20;
  return (unsigned)(g < 1 ? 1 : g > cap ? cap : g);
}

/* The cuSPARSE calls, per scalar type. */
cusparseStatus_t gtsv_buffer(cusparseHandle_t h, int variant, int n, int nsys, const double *dl,
                             const double *d, const double *du, const double *x, size_t *bytes)
{
  if (variant == BL_GTSV2_STRIDED)
    return cusparseDgtsv2StridedBatch_bufferSizeExt(h, n, dl, d, du, x, nsys, n, bytes);
  return cusparseDgtsvInterleavedBatch_bufferSizeExt(h, 0, n, dl, d, du, x, nsys, bytes);
}
cusparseStatus_t gtsv_buffer(cusparseHandle_t h, int variant, int n, int nsys,
                             const cuDoubleComplex *dl, const cuDoubleComplex *d,
                             const cuDoubleComplex *du, const cuDoubleComplex *x, size_t *bytes)
{
  if (variant == BL_GTSV2_STRIDED)
    return cusparseZgtsv2StridedBatch_bufferSizeExt(h, n, dl, d, du, x, nsys, n, bytes);
  return cusparseZgtsvInterleavedBatch_bufferSizeExt(h, 0, n, dl, d, du, x, nsys, bytes);
}
cusparseStatus_t gtsv_solve(cusparseHandle_t h, int variant, int n, int nsys, double *dl,
                            double *d, double *du, double *x, void *buf)
{
  if (variant == BL_GTSV2_STRIDED)
    return cusparseDgtsv2StridedBatch(h, n, dl, d, du, x, nsys, n, buf);
  return cusparseDgtsvInterleavedBatch(h, 0, n, dl, d, du, x, nsys, buf);
}
cusparseStatus_t gtsv_solve(cusparseHandle_t h, int variant, int n, int nsys,
                            cuDoubleComplex *dl, cuDoubleComplex *d, cuDoubleComplex *du,
                            cuDoubleComplex *x, void *buf)
{
  if (variant == BL_GTSV2_STRIDED)
    return cusparseZgtsv2StridedBatch(h, n, dl, d, du, x, nsys, n, buf);
  return cusparseZgtsvInterleavedBatch(h, 0, n, dl, d, du, x, nsys, buf);
}

int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Everything one call owns; released by release() on every path. */
struct Run {
  cudaStream_t stream;
  cusparseHandle_t handle;
  cudaEvent_t *ev;
  int nev;
  void *fac, *shift, *dl, *d, *du, *x, *buf;
  double *berr_d, *berr_h, *ms;
};

void release(Run *r)
{
  if (r->stream)
    cudaStreamSynchronize(r->stream);
  if (r->handle)
    cusparseDestroy(r->handle);
  for (int i = 0; i < r->nev; i++)
    cudaEventDestroy(r->ev[i]);
  free(r->ev);
  cudaFree(r->fac);
  cudaFree(r->shift);
  cudaFree(r->dl);
  cudaFree(r->d);
  cudaFree(r->du);
  cudaFree(r->x);
  cudaFree(r->buf);
  cudaFree(r->berr_d);
  free(r->berr_h);
  free(r->ms);
  if (r->stream)
    cudaStreamDestroy(r->stream);
  (void)cudaGetLastError(); /* teardown errors are not reported; leave nothing sticky */
}

template <class T>
pscr_status run(const bl_l3_list *list, int variant, int repeat, double *launch_ms,
                bl_gtsv_result *res, Run *R, char *msg, size_t len)
{
  pscr_status st = PSCR_SUCCESS;
  const int n = list->n, inter = variant == BL_GTSV_INTERLEAVED;
  const size_t es = sizeof(T), rows = list->max_sys * (size_t)n;
  size_t bufsz = 0;
  Pencil<T> P;

  R->ev = (cudaEvent_t *)calloc(2 * (size_t)repeat, sizeof *R->ev);
  R->ms = (double *)malloc((size_t)repeat * sizeof *R->ms);
  R->berr_h = (double *)malloc(list->max_sys * sizeof *R->berr_h);
  if (!R->ev || !R->ms || !R->berr_h) {
    snprintf(msg, len, "bl_gtsv_level3_time: host tables for %zu systems", list->max_sys);
    return PSCR_ERROR_HOST_ALLOC;
  }
  for (; R->nev < 2 * repeat; R->nev++)
    BL_CUDA_GOTO(st, out, cudaEventCreate(&R->ev[R->nev]));
  BL_CUDA_GOTO(st, out, cudaStreamCreateWithFlags(&R->stream, cudaStreamNonBlocking));
  BL_CUSPARSE_GOTO(st, out, cusparseCreate(&R->handle));
  BL_CUSPARSE_GOTO(st, out, cusparseSetStream(R->handle, R->stream));

  /* Pencil, the largest launch's arrays, its shifts, the check results. */
  BL_CUDA_GOTO(st, out, cudaMalloc(&R->fac, 4 * (size_t)n * es));
  {
    const double *src[4] = {list->ad, list->ao, list->md, list->mo};
    for (int k = 0; k < 4; k++)
      BL_CUDA_GOTO(st, out, cudaMemcpy((char *)R->fac + (size_t)k * n * es, src[k],
                                       (size_t)n * es, cudaMemcpyHostToDevice));
    /* Landed before R->stream's kernels read them: from pageable memory the
       copies may return early, and a non-blocking stream does not wait. */
    BL_CUDA_GOTO(st, out, cudaDeviceSynchronize());
  }
  P.ad = (const T *)R->fac;
  P.ao = P.ad + n;
  P.md = P.ao + n;
  P.mo = P.md + n;
  BL_CUDA_GOTO(st, out, cudaMalloc(&R->shift, list->max_sys * es));
  BL_CUDA_GOTO(st, out, cudaMalloc(&R->dl, rows * es));
  BL_CUDA_GOTO(st, out, cudaMalloc(&R->d, rows * es));
  BL_CUDA_GOTO(st, out, cudaMalloc(&R->du, rows * es));
  BL_CUDA_GOTO(st, out, cudaMalloc(&R->x, rows * es));
  BL_CUDA_GOTO(st, out, cudaMalloc((void **)&R->berr_d, list->max_sys * sizeof(double)));
  res->device_bytes = 4 * (size_t)n * es + list->max_sys * (es + sizeof(double)) + 4 * rows * es;

  /* One buffer, the largest any launch asks for. */
  for (int li = 0; li < list->nlaunch; li++) {
    size_t b = 0;
    BL_CUSPARSE_GOTO(st, out,
                     gtsv_buffer(R->handle, variant, n, (int)list->launch[li].nsys,
                                 (const T *)R->dl, (const T *)R->d, (const T *)R->du,
                                 (const T *)R->x, &b));
    bufsz = b > bufsz ? b : bufsz;
  }
  BL_CUDA_GOTO(st, out, cudaMalloc(&R->buf, bufsz ? bufsz : 128));
  res->device_bytes += bufsz;

  res->max_berr = 0;
  res->worst_launch = -1;
  for (int li = 0; li < list->nlaunch; li++) {
    const bl_l3_launch *L = &list->launch[li];
    const int nsys = (int)L->nsys;
    const size_t cnt = L->nsys * (size_t)n;
    const double *sh = list->shift + L->shift0 * (list->cplx ? 2 : 1);
    BL_CUDA_GOTO(st, out,
                 cudaMemcpyAsync(R->shift, sh, L->nsys * es, cudaMemcpyHostToDevice, R->stream));
    for (int rep = -BL_GTSV_WARMUP; rep < repeat; rep++) {
      k_prepare<T><<<grid_of(cnt), BL_THREADS, 0, R->stream>>>(
          P, n, L->nsys, inter, (const T *)R->shift, li, (T *)R->dl, (T *)R->d, (T *)R->du,
          (T *)R->x);
      BL_CUDA_GOTO(st, out, cudaGetLastError());
      if (rep >= 0)
        BL_CUDA_GOTO(st, out, cudaEventRecord(R->ev[2 * rep], R->stream));
      BL_CUSPARSE_GOTO(st, out,
                       gtsv_solve(R->handle, variant, n, nsys, (T *)R->dl, (T *)R->d,
                                  (T *)R->du, (T *)R->x, R->buf));
      if (rep >= 0)
        BL_CUDA_GOTO(st, out, cudaEventRecord(R->ev[2 * rep + 1], R->stream));
    }
    /* The last solve's answer, against systems rebuilt from the pencil. */
    k_check<T><<<grid_of(L->nsys), BL_THREADS, 0, R->stream>>>(
        P, n, L->nsys, inter, (const T *)R->shift, li, (const T *)R->x, R->berr_d);
    BL_CUDA_GOTO(st, out, cudaGetLastError());
    BL_CUDA_GOTO(st, out, cudaMemcpyAsync(R->berr_h, R->berr_d, L->nsys * sizeof(double),
                                          cudaMemcpyDeviceToHost, R->stream));
    BL_CUDA_GOTO(st, out, cudaStreamSynchronize(R->stream));
    for (int rep = 0; rep < repeat; rep++) {
      float t = 0.0f;
      BL_CUDA_GOTO(st, out, cudaEventElapsedTime(&t, R->ev[2 * rep], R->ev[2 * rep + 1]));
      R->ms[rep] = t;
    }
    qsort(R->ms, (size_t)repeat, sizeof *R->ms, cmp_double);
    const double med =
        repeat % 2 ? R->ms[repeat / 2] : 0.5 * (R->ms[repeat / 2 - 1] + R->ms[repeat / 2]);
    if (launch_ms)
      launch_ms[li] = med;
    res->ms_total += med;
    res->ms_min_total += R->ms[0];
    res->nlaunch = li + 1;
    res->total_sys += L->nsys;
    res->total_rows += cnt;
    for (size_t t = 0; t < L->nsys && !isnan(res->max_berr); t++) {
      const double b = R->berr_h[t];
      if (isnan(b) || b > res->max_berr) {
        res->max_berr = b;
        res->worst_launch = li;
      }
    }
    if (!(res->max_berr <= BL_GTSV_BERR_TOL)) {
      snprintf(msg, len,
               "launch %d (dimension-1 level %d %s%s): backward error %.3g above %.1e", li,
               L->level0, L->back0 ? "back" : "forward",
               list->ndim == 3 ? (L->back1 ? ", inner back" : ", inner forward") : "",
               res->max_berr, BL_GTSV_BERR_TOL);
      st = PSCR_ERROR_SINGULAR;
      goto out;
    }
  }
  res->rows_per_s = res->ms_total > 0 ? (double)res->total_rows / (res->ms_total * 1e-3) : 0;
out:
  return st;
}

} // namespace

extern "C" pscr_status bl_gtsv_level3_time(const bl_l3_list *list, bl_gtsv_variant variant,
                                           int device, int repeat, double *launch_ms,
                                           bl_gtsv_result *res, char *msg, size_t len)
{
  pscr_status st = PSCR_SUCCESS;
  Run R;
  int ndev = 0;

  if (!res || !msg) {
    if (msg)
      snprintf(msg, len, "bl_gtsv_level3_time: NULL result");
    return PSCR_ERROR_INVALID_VALUE;
  }
  memset(res, 0, sizeof *res);
  if (!list || !list->store || list->nlaunch < 1 || list->max_sys < 1) {
    snprintf(msg, len, "bl_gtsv_level3_time: NULL or empty launch list");
    return PSCR_ERROR_INVALID_VALUE;
  }
  if (variant != BL_GTSV2_STRIDED && variant != BL_GTSV_INTERLEAVED) {
    snprintf(msg, len, "bl_gtsv_level3_time: unknown variant %d", (int)variant);
    return PSCR_ERROR_INVALID_VALUE;
  }
  if (list->n < 3) {
    snprintf(msg, len, "bl_gtsv_level3_time: systems of order %d (cuSPARSE gtsv wants >= 3)",
             list->n);
    return PSCR_ERROR_NOT_SUPPORTED;
  }
  if (list->max_sys * (size_t)list->n > (size_t)INT_MAX) {
    snprintf(msg, len, "bl_gtsv_level3_time: a launch of %zu rows exceeds cuSPARSE's int sizes",
             list->max_sys * (size_t)list->n);
    return PSCR_ERROR_NOT_SUPPORTED;
  }
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || device < 0 || device >= ndev) {
    (void)cudaGetLastError();
    snprintf(msg, len, "bl_gtsv_level3_time: no CUDA device %d (%d found)", device, ndev);
    return PSCR_ERROR_NOT_SUPPORTED;
  }
  if (repeat < BL_GTSV_MIN_REPEAT)
    repeat = BL_GTSV_MIN_REPEAT;
  memset(&R, 0, sizeof R);
  BL_CUDA_GOTO(st, out, cudaSetDevice(device));
  st = list->cplx ? run<cuDoubleComplex>(list, variant, repeat, launch_ms, res, &R, msg, len)
                  : run<double>(list, variant, repeat, launch_ms, res, &R, msg, len);
out:
  release(&R);
  return st;
}

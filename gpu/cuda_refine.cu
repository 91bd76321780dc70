// The device half of pscr_options.refine (cuda_refine.h): the residual of
// the operator of eq. 7 / 8,
//   (A u)(i) = sum_{s in {-1,0,1}^nd} [ sum_d A_d(i_d, i_d+s_d) prod_{e!=d} M_e(i_e, i_e+s_e)
//                                       + c prod_e M_e(i_e, i_e+s_e) ] u(i+s),
// one thread per entry (3^ND neighbours), in double or double complex from
// the plan's double factors whatever the plan's dtype: a float plan's
// refinement sees the residual of the float u in double.
#include <cuda_runtime.h>
#include <stdlib.h>

#include <type_traits>

#include "cuda_check.h"
#include "cuda_refine.h"
#include "cuda_scalar.cuh"

namespace pscr_cuda {

namespace {

struct RefineState {
  int device, ndim, n[3], cplx, single;
  size_t total, elem;
  double shift[2];
  void *fac;   // compute type, 4 n_d per dimension
  void *r, *f; // dtype, total each
};

template <class T> struct wide_of { using type = T; };
template <> struct wide_of<float> { using type = double; };
template <> struct wide_of<cf> { using type = zc; };

__device__ inline double widen(float x) { return x; }
__device__ inline double widen(double x) { return x; }
__device__ inline zc widen(cf x) { return zc(x.re, x.im); }
__device__ inline zc widen(zc x) { return x; }
template <class T> __device__ inline T narrow(typename wide_of<T>::type x);
template <> __device__ inline float narrow<float>(double x) { return (float)x; }
template <> __device__ inline double narrow<double>(double x) { return x; }
template <> __device__ inline cf narrow<cf>(zc x) { return cf((float)x.re, (float)x.im); }
template <> __device__ inline zc narrow<zc>(zc x) { return x; }

// r = f - A u, ND = 2 or 3 dimensions (n2 = 1 in 2D). Every loop has a
// fixed trip count and is unrolled, so the stencil's 3^ND coefficients
// live in registers; a neighbour past an edge has coefficient 0 and its
// index clamped, so no branch depends on the position.
template <class T, int ND, class TO>
__global__ void k_residual(int n0, int n1, int n2, const typename wide_of<T>::type *fac,
                           typename wide_of<T>::type c, const T *f, const T *u, TO *r,
                           size_t total)
{
  using C = typename wide_of<T>::type;
  const int n[3] = {n0, n1, n2};
  const C zero = C(0);
  for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (size_t)gridDim.x * blockDim.x) {
    const size_t plane = (size_t)n1 * (size_t)n2;
    const int i0 = (int)(t / plane), rest = (int)(t - (size_t)i0 * plane);
    const int i[3] = {i0, ND == 3 ? rest / n2 : rest, ND == 3 ? rest % n2 : 0};
    // a[d][s + 1], m[d][s + 1]: row i_d of A_d and M_d at column i_d + s;
    // j[d][s + 1]: that column, clamped.
    C a[ND][3], m[ND][3];
    int j[ND][3];
    const C *at = fac;
#pragma unroll
    for (int d = 0; d < ND; d++) {
      const int nn = n[d], k = i[d];
      const C *ad = at, *ao = at + nn, *md = at + 2 * (size_t)nn, *mo = at + 3 * (size_t)nn;
      at += 4 * (size_t)nn;
      a[d][1] = ad[k];
      m[d][1] = md[k];
      a[d][0] = k > 0 ? ao[k - 1] : zero;
      m[d][0] = k > 0 ? mo[k - 1] : zero;
      a[d][2] = k < nn - 1 ? ao[k] : zero;
      m[d][2] = k < nn - 1 ? mo[k] : zero;
      j[d][0] = k > 0 ? k - 1 : k;
      j[d][1] = k;
      j[d][2] = k < nn - 1 ? k + 1 : k;
    }
    C acc = zero;
#pragma unroll
    for (int s0 = 0; s0 < 3; s0++)
#pragma unroll
      for (int s1 = 0; s1 < 3; s1++) {
        const C mm = m[0][s0] * m[1][s1];
        const C am = a[0][s0] * m[1][s1] + m[0][s0] * a[1][s1];
        const size_t row = (size_t)j[0][s0] * n1 + j[1][s1];
        if constexpr (ND == 2) {
          acc += (am + c * mm) * widen(u[row]);
        } else {
#pragma unroll
          for (int s2 = 0; s2 < 3; s2++)
            acc += (am * m[2][s2] + mm * a[2][s2] + c * (mm * m[2][s2])) *
                   widen(u[row * n2 + j[2][s2]]);
        }
      }
    r[t] = narrow<TO>(widen(f[t]) - acc);
  }
}

// The float type of T (refine_single: r and the correction in float).
template <class T> struct single_of { using type = T; };
template <> struct single_of<double> { using type = float; };
template <> struct single_of<zc> { using type = cf; };

// u += d, d of type TD (T, or its float type: widened first).
template <class T, class TD> __global__ void k_add(T *u, const TD *d, size_t total)
{
  for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (size_t)gridDim.x * blockDim.x) {
    if constexpr (std::is_same<T, TD>::value)
      u[t] += d[t];
    else
      u[t] += widen(d[t]); // a double plan's float correction
  }
}

unsigned grid_of(size_t total, int threads)
{
  const size_t g = (total + threads - 1) / threads;
  return (unsigned)(g < 65535u * 16u ? g : 65535u * 16u);
}

template <class Go> pscr_status by_type(const RefineState *s, Go &&go)
{
  if (s->cplx)
    return s->single ? go(cf()) : go(zc());
  return s->single ? go(float()) : go(double());
}

} // namespace

} // namespace pscr_cuda

using namespace pscr_cuda;

extern "C" pscr_status pscr_cuda_refine_setup(const pscr_cuda_refine_view *v, void **state,
                                              size_t *bytes)
{
  pscr_status st = PSCR_SUCCESS;
  RefineState *s = (RefineState *)calloc(1, sizeof *s);
  *state = s;
  *bytes = 0;
  if (!s)
    return pscr_error_set(PSCR_ERROR_HOST_ALLOC, "cannot allocate the CUDA refinement state");
  s->device = v->device;
  s->ndim = v->ndim;
  s->cplx = v->cplx;
  s->single = v->single;
  s->shift[0] = v->shift[0];
  s->shift[1] = v->shift[1];
  s->total = 1;
  size_t nfac = 0;
  for (int d = 0; d < 3; d++) {
    s->n[d] = d < v->ndim ? v->n[d] : 1;
    s->total *= (size_t)s->n[d];
    if (d < v->ndim)
      nfac += 4 * (size_t)s->n[d];
  }
  s->elem = (s->single ? 4 : 8) * (s->cplx ? 2 : 1);
  const size_t fbytes = nfac * (s->cplx ? 16 : 8), vbytes = s->total * s->elem;
  PSCR_CUDA_GOTO(st, out, cudaSetDevice(s->device));
  PSCR_CUDA_ALLOC_GOTO(st, out, cudaMalloc(&s->fac, fbytes), fbytes);
  PSCR_CUDA_ALLOC_GOTO(st, out, cudaMalloc(&s->r, vbytes), vbytes);
  PSCR_CUDA_ALLOC_GOTO(st, out, cudaMalloc(&s->f, vbytes), vbytes);
  *bytes = fbytes + 2 * vbytes;
  PSCR_CUDA_GOTO(st, out, cudaMemcpy(s->fac, v->factors, fbytes, cudaMemcpyHostToDevice));
  // From pageable memory the copy may return before it lands; the residual
  // kernels run on the caller's (possibly non-blocking) stream.
  PSCR_CUDA_GOTO(st, out, cudaDeviceSynchronize());
out:
  return st;
}

extern "C" pscr_status pscr_cuda_refine_save(void *state, const void *f, void *stream,
                                             const void **saved)
{
  RefineState *s = (RefineState *)state;
  pscr_status st = PSCR_SUCCESS;
  PSCR_CUDA_GOTO(st, out, cudaSetDevice(s->device));
  PSCR_CUDA_GOTO(st, out,
                 cudaMemcpyAsync(s->f, f, s->total * s->elem, cudaMemcpyDeviceToDevice,
                                 (cudaStream_t)stream));
  *saved = s->f;
out:
  return st;
}

extern "C" pscr_status pscr_cuda_refine_residual(void *state, const void *f, const void *u,
                                                 int single_out, void *stream, void **r)
{
  RefineState *s = (RefineState *)state;
  pscr_status st = PSCR_SUCCESS;
  PSCR_CUDA_GOTO(st, out, cudaSetDevice(s->device));
  *r = s->r;
  st = by_type(s, [&](auto t) -> pscr_status {
    using T = decltype(t);
    using C = typename wide_of<T>::type;
    C c;
    if constexpr (std::is_same<C, double>::value)
      c = s->shift[0];
    else
      c = C(s->shift[0], s->shift[1]);
    constexpr int threads = 256;
    using TS = typename single_of<T>::type;
    const unsigned grid = grid_of(s->total, threads);
    cudaStream_t cs = (cudaStream_t)stream;
    const T *ft = (const T *)f, *ut = (const T *)u;
    const int n0 = s->n[0], n1 = s->n[1], n2 = s->ndim == 3 ? s->n[2] : 1;
    if (single_out && s->ndim == 2)
      k_residual<T, 2, TS><<<grid, threads, 0, cs>>>(n0, n1, n2, (const C *)s->fac, c, ft, ut,
                                                     (TS *)s->r, s->total);
    else if (single_out)
      k_residual<T, 3, TS><<<grid, threads, 0, cs>>>(n0, n1, n2, (const C *)s->fac, c, ft, ut,
                                                     (TS *)s->r, s->total);
    else if (s->ndim == 2)
      k_residual<T, 2, T><<<grid, threads, 0, cs>>>(n0, n1, n2, (const C *)s->fac, c, ft, ut,
                                                    (T *)s->r, s->total);
    else
      k_residual<T, 3, T><<<grid, threads, 0, cs>>>(n0, n1, n2, (const C *)s->fac, c, ft, ut,
                                                    (T *)s->r, s->total);
    const cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? PSCR_SUCCESS : pscr_cuda_error(e, "cudaLaunchKernel(k_residual)");
  });
out:
  return st;
}

extern "C" pscr_status pscr_cuda_refine_add(void *state, void *u, int single_in, void *stream)
{
  RefineState *s = (RefineState *)state;
  pscr_status st = PSCR_SUCCESS;
  PSCR_CUDA_GOTO(st, out, cudaSetDevice(s->device));
  st = by_type(s, [&](auto t) -> pscr_status {
    using T = decltype(t);
    constexpr int threads = 256;
    using TS = typename single_of<T>::type;
    if (single_in)
      k_add<T, TS><<<grid_of(s->total, threads), threads, 0, (cudaStream_t)stream>>>(
          (T *)u, (const TS *)s->r, s->total);
    else
      k_add<T, T><<<grid_of(s->total, threads), threads, 0, (cudaStream_t)stream>>>(
          (T *)u, (const T *)s->r, s->total);
    const cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? PSCR_SUCCESS : pscr_cuda_error(e, "cudaLaunchKernel(k_add)");
  });
out:
  return st;
}

extern "C" void pscr_cuda_refine_destroy(void *state)
{
  RefineState *s = (RefineState *)state;
  if (!s)
    return;
  cudaSetDevice(s->device);
  cudaFree(s->fac);
  cudaFree(s->r);
  cudaFree(s->f);
  free(s);
}

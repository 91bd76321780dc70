// The device half of pscr_options.refine (cuda_refine.h): the residual of
// the operator of eq. 7 / 8,
//   (A u)(i) = sum_{s in {-1,0,1}^nd} [ sum_d A_d(i_d, i_d+s_d) prod_{e!=d} M_e(i_e, i_e+s_e)
//                                       + c prod_e M_e(i_e, i_e+s_e) ] u(i+s),
// one thread per entry (3^nd neighbours), in double or double complex from
// the plan's double factors whatever the plan's dtype: a float plan's
// refinement sees the residual of the float u in double.
#include <cuda_runtime.h>
#include <stdlib.h>

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

// r = f - A u; dimensions past nd are of order 1 with A = 0, M = 1.
template <class T>
__global__ void k_residual(int nd, int n0, int n1, int n2, const typename wide_of<T>::type *fac,
                           typename wide_of<T>::type c, const T *f, const T *u, T *r,
                           size_t total)
{
  using C = typename wide_of<T>::type;
  const int n[3] = {n0, n1, n2};
  const C zero = C(0), one = C(1);
  for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (size_t)gridDim.x * blockDim.x) {
    const int i[3] = {(int)(t / ((size_t)n1 * n2)), (int)(t / (size_t)n2 % (size_t)n1),
                      (int)(t % (size_t)n2)};
    // a[d][s + 1], m[d][s + 1]: row i_d of A_d and M_d at column i_d + s.
    C a[3][3], m[3][3];
    const C *at = fac;
    for (int d = 0; d < 3; d++) {
      if (d >= nd) {
        a[d][0] = a[d][1] = a[d][2] = zero;
        m[d][0] = m[d][2] = zero;
        m[d][1] = one;
        continue;
      }
      const int nn = n[d], k = i[d];
      const C *ad = at, *ao = at + nn, *md = at + 2 * (size_t)nn, *mo = at + 3 * (size_t)nn;
      at += 4 * (size_t)nn;
      a[d][1] = ad[k];
      m[d][1] = md[k];
      a[d][0] = k > 0 ? ao[k - 1] : zero;
      m[d][0] = k > 0 ? mo[k - 1] : zero;
      a[d][2] = k < nn - 1 ? ao[k] : zero;
      m[d][2] = k < nn - 1 ? mo[k] : zero;
    }
    C acc = zero;
    for (int s0 = 0; s0 < 3; s0++) {
      const int j0 = i[0] + s0 - 1;
      if (j0 < 0 || j0 >= n0)
        continue;
      for (int s1 = 0; s1 < 3; s1++) {
        const int j1 = i[1] + s1 - 1;
        if (j1 < 0 || j1 >= n1)
          continue;
        const C mm01 = m[0][s0] * m[1][s1];
        const C am = a[0][s0] * m[1][s1] + m[0][s0] * a[1][s1];
        for (int s2 = 0; s2 < 3; s2++) {
          const int j2 = i[2] + s2 - 1;
          if (j2 < 0 || j2 >= n2)
            continue;
          const C coef = am * m[2][s2] + mm01 * a[2][s2] + c * (mm01 * m[2][s2]);
          acc += coef * widen(u[((size_t)j0 * n1 + j1) * n2 + j2]);
        }
      }
    }
    r[t] = narrow<T>(widen(f[t]) - acc);
  }
}

template <class T> __global__ void k_add(T *u, const T *d, size_t total)
{
  for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (size_t)gridDim.x * blockDim.x)
    u[t] += d[t];
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
                                                 void *stream, void **r)
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
    k_residual<T><<<grid_of(s->total, threads), threads, 0, (cudaStream_t)stream>>>(
        s->ndim, s->n[0], s->n[1], s->n[2], (const C *)s->fac, c, (const T *)f, (const T *)u,
        (T *)s->r, s->total);
    const cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? PSCR_SUCCESS : pscr_cuda_error(e, "cudaLaunchKernel(k_residual)");
  });
out:
  return st;
}

extern "C" pscr_status pscr_cuda_refine_add(void *state, void *u, void *stream)
{
  RefineState *s = (RefineState *)state;
  pscr_status st = PSCR_SUCCESS;
  PSCR_CUDA_GOTO(st, out, cudaSetDevice(s->device));
  st = by_type(s, [&](auto t) -> pscr_status {
    using T = decltype(t);
    constexpr int threads = 256;
    k_add<T><<<grid_of(s->total, threads), threads, 0, (cudaStream_t)stream>>>(
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

// Scalar types of the CUDA kernels: double and float, and complex numbers
// layout-compatible with interleaved (re, im) pairs (C99 double _Complex /
// float _Complex, cuDoubleComplex / cuFloatComplex). Only what the solver
// needs: +, -, *, reciprocal, |.|_1, and the machine epsilon of each type for
// the pivot tests. Single-precision plans (PSCR_R32, PSCR_C32) run the same
// kernels with T = float or cf.
#ifndef PSCR_CUDA_SCALAR_CUH
#define PSCR_CUDA_SCALAR_CUH

#include <cfloat>
#include <cstring>
#include <math.h>

namespace pscr_cuda {

template <class R> struct cplx {
  R re, im;
  cplx() = default;
  __host__ __device__ constexpr cplx(R r, R i = R(0)) : re(r), im(i) {}
};
using zc = cplx<double>;
using cf = cplx<float>;
static_assert(sizeof(zc) == 2 * sizeof(double), "zc must be two packed doubles");
static_assert(sizeof(cf) == 2 * sizeof(float), "cf must be two packed floats");

template <class R> __host__ __device__ inline cplx<R> operator+(cplx<R> a, cplx<R> b)
{
  return cplx<R>(a.re + b.re, a.im + b.im);
}
template <class R> __host__ __device__ inline cplx<R> operator-(cplx<R> a, cplx<R> b)
{
  return cplx<R>(a.re - b.re, a.im - b.im);
}
template <class R> __host__ __device__ inline cplx<R> operator-(cplx<R> a)
{
  return cplx<R>(-a.re, -a.im);
}
template <class R> __host__ __device__ inline cplx<R> operator*(cplx<R> a, cplx<R> b)
{
  return cplx<R>(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
template <class R> __host__ __device__ inline cplx<R> &operator+=(cplx<R> &a, cplx<R> b)
{
  return a = a + b;
}
template <class R> __host__ __device__ inline cplx<R> &operator-=(cplx<R> &a, cplx<R> b)
{
  return a = a - b;
}

// The real type of a scalar type and its machine epsilon.
template <class T> struct real_of;
template <> struct real_of<double> { using type = double; };
template <> struct real_of<float> { using type = float; };
template <class R> struct real_of<cplx<R>> { using type = R; };
template <class T> using real_t = typename real_of<T>::type;

template <class T> __host__ __device__ constexpr real_t<T> eps_of();
template <> __host__ __device__ constexpr double eps_of<double>() { return DBL_EPSILON; }
template <> __host__ __device__ constexpr double eps_of<zc>() { return DBL_EPSILON; }
template <> __host__ __device__ constexpr float eps_of<float>() { return FLT_EPSILON; }
template <> __host__ __device__ constexpr float eps_of<cf>() { return FLT_EPSILON; }

// Bit casts usable on host and device.
template <class U, class V> __host__ __device__ inline U bit_cast(V x)
{
  static_assert(sizeof(U) == sizeof(V), "bit_cast needs equal sizes");
  U u;
  memcpy(&u, &x, sizeof u);
  return u;
}

// |x|_1: |x| (real), |re| + |im| (complex), as PSCR_ABS1 on the CPU.
__host__ __device__ inline double abs1(double x) { return fabs(x); }
__host__ __device__ inline float abs1(float x) { return fabsf(x); }
__host__ __device__ inline double abs1(zc x) { return fabs(x.re) + fabs(x.im); }
__host__ __device__ inline float abs1(cf x) { return fabsf(x.re) + fabsf(x.im); }

// 1/x as pscr_inv_z / pscr_inv_c on the CPU: x is prescaled by an exact
// power of two, 2^-p with p the binary exponent of |re| + |im|, so |x|^2
// cannot overflow or underflow; branch-free, one division.
__host__ __device__ inline double inv(double x) { return 1.0 / x; }
// Single precision on the device: the hardware reciprocal refined by one
// Newton step, three instructions on the level-3 solvers' dependent chain,
// within an ulp of 1.0f / x. The correctly rounded __frcp_rn adds a range
// test and a branch (for subnormal and huge x) to each: about 8% of the 3D
// float level-3 kernel's instructions (SASS counts, H100 255^3). Where it
// differs from 1.0f / x: subnormal x, 0 and inf give NaN, |x| >= 2^126
// gives 0 (the true value is below FLT_MIN). A subnormal pivot of a row of
// normal entries fails the pivot test (pivot_bad) first, and the solve
// reports it.
__host__ __device__ inline float inv(float x)
{
#ifdef __CUDA_ARCH__
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return fmaf(r, fmaf(-x, r, 1.0f), r);
#else
  return 1.0f / x;
#endif
}
__host__ __device__ inline zc inv(zc x)
{
  const double t = fabs(x.re) + fabs(x.im);
  const unsigned long long bits = bit_cast<unsigned long long>(t);
  const unsigned long long sbits = (unsigned long long)(2046 - (long long)((bits >> 52) & 0x7ff))
                                   << 52;
  const double s = bit_cast<double>(sbits);
  const double as = x.re * s, bs = x.im * s, k = s / (as * as + bs * bs);
  return zc(as * k, -bs * k);
}
__host__ __device__ inline cf inv(cf x)
{
  const float t = fabsf(x.re) + fabsf(x.im);
  const unsigned bits = bit_cast<unsigned>(t);
  const unsigned sbits = (unsigned)(254 - (int)((bits >> 23) & 0xff)) << 23;
  const float s = bit_cast<float>(sbits);
  const float as = x.re * s, bs = x.im * s, k = s * inv(as * as + bs * bs);
  return cf(as * k, -bs * k);
}

} // namespace pscr_cuda

#endif

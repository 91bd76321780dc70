// Scalar types of the CUDA kernels: double, and a complex double that is
// layout-compatible with interleaved (re, im) pairs (C99 double _Complex,
// cuDoubleComplex). Only what the solver needs: +, -, *, reciprocal, |.|_1.
#ifndef PSCR_CUDA_SCALAR_CUH
#define PSCR_CUDA_SCALAR_CUH

#include <cstring>
#include <math.h>

namespace pscr_cuda {

struct zc {
  double re, im;
  zc() = default;
  __host__ __device__ constexpr zc(double r, double i = 0.0) : re(r), im(i) {}
};
static_assert(sizeof(zc) == 2 * sizeof(double), "zc must be two packed doubles");

__host__ __device__ inline zc operator+(zc a, zc b) { return zc(a.re + b.re, a.im + b.im); }
__host__ __device__ inline zc operator-(zc a, zc b) { return zc(a.re - b.re, a.im - b.im); }
__host__ __device__ inline zc operator-(zc a) { return zc(-a.re, -a.im); }
__host__ __device__ inline zc operator*(zc a, zc b)
{
  return zc(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
__host__ __device__ inline zc &operator+=(zc &a, zc b) { return a = a + b; }
__host__ __device__ inline zc &operator-=(zc &a, zc b) { return a = a - b; }

// |x|_1: |x| (real), |re| + |im| (complex), as PSCR_ABS1 on the CPU.
// Bit casts usable on host and device.
__host__ __device__ inline unsigned long long bits_of(double x)
{
  unsigned long long u;
  memcpy(&u, &x, sizeof u);
  return u;
}
__host__ __device__ inline double double_of(unsigned long long u)
{
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}

__host__ __device__ inline double abs1(double x) { return fabs(x); }
__host__ __device__ inline double abs1(zc x) { return fabs(x.re) + fabs(x.im); }

// 1/x as pscr_inv_z on the CPU: x is prescaled by an exact power of two,
// 2^-p with p the binary exponent of |re| + |im|, so |x|^2 cannot overflow
// or underflow; branch-free, one division.
__host__ __device__ inline double inv(double x) { return 1.0 / x; }
__host__ __device__ inline zc inv(zc x)
{
  double t = fabs(x.re) + fabs(x.im);
  unsigned long long bits = bits_of(t);
  unsigned long long sbits = (unsigned long long)(2046 - (long long)((bits >> 52) & 0x7ff)) << 52;
  double s = double_of(sbits);
  double as = x.re * s, bs = x.im * s, k = s / (as * as + bs * bs);
  return zc(as * k, -bs * k);
}

} // namespace pscr_cuda

#endif

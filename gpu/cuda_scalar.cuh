// Scalar types of the CUDA kernels: double, and a complex double that is
// layout-compatible with interleaved (re, im) pairs (C99 double _Complex,
// cuDoubleComplex). Only what the solver needs: +, -, *, reciprocal, |.|_1.
#ifndef PSCR_CUDA_SCALAR_CUH
#define PSCR_CUDA_SCALAR_CUH

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
__host__ __device__ inline double abs1(double x) { return fabs(x); }
__host__ __device__ inline double abs1(zc x) { return fabs(x.re) + fabs(x.im); }

// 1/x without scaling, as pscr_inv_z on the CPU.
__host__ __device__ inline double inv(double x) { return 1.0 / x; }
__host__ __device__ inline zc inv(zc x)
{
  double s = 1.0 / (x.re * x.re + x.im * x.im);
  return zc(x.re * s, -x.im * s);
}

} // namespace pscr_cuda

#endif

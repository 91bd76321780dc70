/*
 * Lane vectors of the eigensolver (not type-generic): eight doubles in one
 * GNU C vector (one AVX-512 register, or two AVX2 ones), a mask of the same
 * width, and the operations on them that the type-generic lane kernels
 * (twisted_impl.h, crawford_lanes_impl.h, lr_lanes_impl.h, pivlu_impl.h,
 * blockgs_impl.h) build their real and complex lane vectors from. A batch
 * of eigenvectors is EIG_TW_NV lane vectors wide: EIG_TW_LANES
 * eigenvalues side by side.
 *
 * Included once by eigen.c, before the type-generic files.
 */
#ifndef PSCR_EIGEN_LANES_H
#define PSCR_EIGEN_LANES_H

#include <math.h>
#include <string.h>
#if defined(__AVX512F__) || (defined(__FMA__) && defined(__AVX__))
#include <immintrin.h>
#endif

#define EIG_VL 8                       /* doubles per lane vector */
#define EIG_TW_NV 2                    /* lane vectors per batch */
#define EIG_TW_LANES (EIG_VL * EIG_TW_NV) /* eigenvalues per batch */

/* Eight doubles, and a mask of the same width (-1 where a comparison
 * holds, 0 elsewhere). */
typedef double eig_vd __attribute__((vector_size(EIG_VL * sizeof(double))));
typedef long long eig_vm __attribute__((vector_size(EIG_VL * sizeof(long long))));

static inline eig_vd eig_vd_splat(double x)
{
  _Static_assert(EIG_VL == 8, "eig_vd_splat lists eight lanes");
  return (eig_vd){x, x, x, x, x, x, x, x}; /* not {0} + x: that loses -0.0 */
}

/* m ? a : b, lane by lane. */
static inline eig_vd eig_vd_sel(eig_vm m, eig_vd a, eig_vd b)
{
  return (eig_vd)(((eig_vm)a & m) | ((eig_vm)b & ~m));
}

/* Per lane ||.||_inf from the running max m and sum of |entries|: m, or
 * NaN where an entry was NaN (the sum then is; the max skips it). */
static inline eig_vd eig_vd_norm(eig_vd m, eig_vd sum)
{
  return eig_vd_sel((eig_vm)(sum != sum), sum, m);
}

static inline eig_vd eig_vd_abs(eig_vd a)
{
  return (eig_vd)((eig_vm)a & ~(eig_vm)eig_vd_splat(-0.0));
}

/* The sign bit of a (-0.0 or +0.0). */
static inline eig_vd eig_vd_sign(eig_vd a)
{
  return (eig_vd)((eig_vm)a & (eig_vm)eig_vd_splat(-0.0));
}

/* a b + c and c - a b, rounded once where the target has fused
 * multiply-add (the complex lane products below; one instruction where the
 * unfused forms take two, and the lane kernels are bound by their count). */
static inline eig_vd eig_vd_fma(eig_vd a, eig_vd b, eig_vd c)
{
#if defined(__AVX512F__)
  return (eig_vd)_mm512_fmadd_pd((__m512d)a, (__m512d)b, (__m512d)c);
#elif defined(__FMA__) && defined(__AVX__)
  __m256d a2[2], b2[2], c2[2];
  memcpy(a2, &a, sizeof a);
  memcpy(b2, &b, sizeof b);
  memcpy(c2, &c, sizeof c);
  for (int h = 0; h < 2; h++)
    c2[h] = _mm256_fmadd_pd(a2[h], b2[h], c2[h]);
  memcpy(&c, c2, sizeof c);
  return c;
#else
  return a * b + c;
#endif
}

/* c - a b = (-a) b + c: the negation is exact, so this is the fused
   negative multiply-add bitwise (compilers emit vfnmadd for it). */
static inline eig_vd eig_vd_fnma(eig_vd a, eig_vd b, eig_vd c) { return eig_vd_fma(-a, b, c); }

/* Unroll the loop over a batch's lane vectors (the fused lane kernels
 * carry several recurrences per lane vector; rolled, GCC keeps them in
 * memory and runs the lane vectors' chains one after the other). */
#if defined(__clang__)
#define EIG_UNROLL_NV _Pragma("unroll")
#elif defined(__GNUC__)
#define EIG_UNROLL_NV _Pragma("GCC unroll 2")
#else
#define EIG_UNROLL_NV
#endif

/* The eight lanes of a mask as the bits of a byte (lane l: bit l), and
 * back: the interchanges of a factorization stored in a byte per lane
 * vector, where the mask takes 64. */
static inline unsigned char eig_vm_bits(eig_vm m)
{
#if defined(__AVX512DQ__)
  return (unsigned char)_mm512_movepi64_mask((__m512i)m);
#else
  unsigned k = 0;
  for (int l = 0; l < EIG_VL; l++)
    k |= (m[l] < 0 ? 1u : 0u) << l;
  return (unsigned char)k;
#endif
}

static inline eig_vm eig_vm_unbits(unsigned char k)
{
#if defined(__AVX512DQ__)
  return (eig_vm)_mm512_movm_epi64((__mmask8)k);
#else
  eig_vm m;
  for (int l = 0; l < EIG_VL; l++)
    m[l] = (k >> l) & 1u ? -1 : 0;
  return m;
#endif
}

/* Transpose the 8 x 8 matrix whose rows are r[0..7], in place. */
static inline void eig_transpose8(eig_vd *r)
{
  _Static_assert(EIG_VL == 8, "eig_transpose8 lists eight lanes");
  eig_vd t[8], u[8];
  for (int k = 0; k < 8; k += 2) {
    t[k] = __builtin_shufflevector(r[k], r[k + 1], 0, 8, 2, 10, 4, 12, 6, 14);
    t[k + 1] = __builtin_shufflevector(r[k], r[k + 1], 1, 9, 3, 11, 5, 13, 7, 15);
  }
  for (int k = 0; k < 8; k += 4)
    for (int h = 0; h < 2; h++) {
      u[k + h] = __builtin_shufflevector(t[k + h], t[k + h + 2], 0, 1, 8, 9, 4, 5, 12, 13);
      u[k + h + 2] =
          __builtin_shufflevector(t[k + h], t[k + h + 2], 2, 3, 10, 11, 6, 7, 14, 15);
    }
  for (int h = 0; h < 4; h++) {
    r[h] = __builtin_shufflevector(u[h], u[h + 4], 0, 1, 2, 3, 8, 9, 10, 11);
    r[h + 4] = __builtin_shufflevector(u[h], u[h + 4], 4, 5, 6, 7, 12, 13, 14, 15);
  }
}

/* Square roots lane by lane (Crawford's rotations, crawford_lanes_impl.h). */
static inline eig_vd eig_vd_sqrt(eig_vd x)
{
#if defined(__AVX512F__)
  return (eig_vd)_mm512_sqrt_pd((__m512d)x);
#else
  for (int l = 0; l < EIG_VL; l++)
    x[l] = sqrt(x[l]);
  return x;
#endif
}

#endif

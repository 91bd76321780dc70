/*
 * pscr_plan_create / destroy / info: validation, owned factor copies, level
 * structure and the initialization stage (paper section 4.2, eq. 23): the
 * generalized eigenproblems A1[B,B] w = lambda M1[B,B] w of every block of
 * every level, keeping lambda and the eigenvector components at D(B),
 * first(B) and last(B).
 */
#include "plan.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "eigen.h"
#include "error.h"
#include "options.h"
#include "probe.h"
#include "sine.h"
#include "team.h"

/* The eigenproblems of a dimension take a team only above this n^2 (an
   eigen task costs far more per entry than PSCR_PAR_MIN's loops): below it
   a fork and join cost more than the work, and on a loaded machine each can
   cost a scheduler's time slice (test_abi's 15 plans and solves of 9 x 7:
   0.8-1.8 s on the default 2 threads against 0.18 s on one, with 6 other
   busy processes on a 2-core VM). */
#define PSCR_EIGEN_TEAM_WORK 4096

static size_t pscr_dtype_elem(pscr_dtype dtype)
{
  switch (dtype) {
  case PSCR_R64: return sizeof(double);
  case PSCR_C64: return sizeof(pscr_z);
  case PSCR_R32: return sizeof(float);
  case PSCR_C32: return 2 * sizeof(float);
  }
  return 0;
}

static int pscr_dtype_complex(pscr_dtype dtype) { return dtype == PSCR_C64 || dtype == PSCR_C32; }

/* Scalars read from caller arrays of any dtype, widened to double complex. */
static pscr_z pscr_load(pscr_dtype dtype, const void *a, size_t i)
{
  switch (dtype) {
  case PSCR_R64: return ((const double *)a)[i];
  case PSCR_C64: return ((const pscr_z *)a)[i];
  case PSCR_R32: return ((const float *)a)[i];
  case PSCR_C32: return ((const pscr_c *)a)[i];
  }
  return 0;
}

static pscr_status pscr_check_array(pscr_dtype dtype, const void *a, int count, int dim,
                                    const char *what)
{
  if (count > 0 && !a)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "pencil %d: %s is NULL", dim + 1, what);
  for (int i = 0; i < count; i++)
    if (!pscr_finite_z(pscr_load(dtype, a, (size_t)i)))
      return PSCR_ERROR(PSCR_ERROR_NON_FINITE, "pencil %d: %s[%d] is not finite", dim + 1,
                        what, i);
  return PSCR_SUCCESS;
}

/*
 * M_d of the reduced dimensions must be positive definite (real) or have
 * nonzero pivots (complex) for the eigen decompositions to exist. One LDL^T
 * sweep (O(n)) says so before anything expensive, with the global pivot.
 */
static pscr_status pscr_check_mass(pscr_dtype dtype, const pscr_pencil *q, int d)
{
  pscr_z piv = pscr_load(dtype, q->m_diag, 0);
  double scale = cabs(piv);
  for (int i = 0;; i++) {
    if (!pscr_dtype_complex(dtype) && !(creal(piv) > 0))
      return PSCR_ERROR(PSCR_ERROR_NOT_DEFINITE, "M%d is not positive definite: pivot %d is %g",
                        d + 1, i + 1, creal(piv));
    if (pscr_dtype_complex(dtype) && !(cabs(piv) > 4 * DBL_EPSILON * scale))
      return PSCR_ERROR(PSCR_ERROR_NOT_DEFINITE, "M%d has a zero pivot: pivot %d is %g%+gi",
                        d + 1, i + 1, creal(piv), cimag(piv));
    if (i + 1 == q->n)
      return PSCR_SUCCESS;
    pscr_z o = q->m_off ? pscr_load(dtype, q->m_off, (size_t)i) : 0;
    pscr_z next = pscr_load(dtype, q->m_diag, (size_t)i + 1);
    scale = cabs(next) + cabs(o * o / piv);
    piv = next - o * o / piv;
  }
}

/* opts: the caller's options as read by pscr_options_read (never NULL). */
static pscr_status pscr_validate(pscr_plan **plan, pscr_dtype dtype, int ndim,
                                 const pscr_pencil *pencils, const void *shift,
                                 const pscr_options *opts)
{
  if (!plan)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "plan is NULL");
  if (dtype != PSCR_R64 && dtype != PSCR_C64 && dtype != PSCR_R32 && dtype != PSCR_C32)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "unknown dtype %d", (int)dtype);
  if (ndim != 2 && ndim != 3)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "ndim is %d, must be 2 or 3", ndim);
  if (!pencils)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "pencils is NULL");
  if (!shift)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "shift is NULL");
  if (opts->backend != PSCR_BACKEND_AUTO && opts->backend != PSCR_BACKEND_CPU &&
      opts->backend != PSCR_BACKEND_CUDA)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "unknown backend %d", (int)opts->backend);
  if (opts->num_threads < 0)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "num_threads is %d, must be >= 0",
                      opts->num_threads);
  if (opts->device < 0)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "device is %d, must be >= 0", opts->device);
  const int r = opts->cuda_rows_per_thread;
  if (r != -1 && r != 0 && r != 2 && r != 4 && r != 8 && r != 16)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE,
                      "cuda_rows_per_thread is %d, must be -1, 0, 2, 4, 8 or 16", r);
  if (opts->max_batch < 1)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "max_batch is %d, must be >= 1",
                      opts->max_batch);
  pscr_status fst = pscr_flags_check(opts->flags);
  if (fst)
    return fst;
  for (int d = 0; d < 2; d++) {
    const int m = (int)opts->method[d];
    if (m != PSCR_METHOD_AUTO && m != PSCR_METHOD_REDUCTION && m != PSCR_METHOD_TRANSFORM)
      return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE,
                        "method[%d] is %d, must be PSCR_METHOD_AUTO (0), _REDUCTION (1) or "
                        "_TRANSFORM (2)",
                        d, m);
  }
  if (opts->refine < 0 || opts->refine > PSCR_REFINE_MAX)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "refine is %d, must be 0 .. %d", opts->refine,
                      PSCR_REFINE_MAX);
  if (opts->refine_single != 0 && opts->refine_single != 1)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "refine_single is %d, must be 0 or 1",
                      opts->refine_single);
  if (opts->refine_single && (opts->refine == 0 || dtype == PSCR_R32 || dtype == PSCR_C32))
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE,
                      "refine_single is 1, but it needs refine >= 1 (refine is %d) and a double "
                      "dtype (PSCR_R64 or PSCR_C64)",
                      opts->refine);
  if (opts->device_only != 0 && opts->device_only != 1)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "device_only is %d, must be 0 or 1",
                      opts->device_only);
  if (opts->device_only && opts->backend != PSCR_BACKEND_CUDA)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE,
                      "device_only is 1, but it needs backend PSCR_BACKEND_CUDA (backend is %d)",
                      (int)opts->backend);
  if (opts->planner != PSCR_PLANNER_NONE && opts->planner != PSCR_PLANNER_ESTIMATE &&
      opts->planner != PSCR_PLANNER_MEASURE)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE,
                      "planner is %d, must be PSCR_PLANNER_NONE (0), _ESTIMATE (1) or "
                      "_MEASURE (2)",
                      (int)opts->planner);
  if (ndim == 2 && opts->method[1] != PSCR_METHOD_AUTO)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE,
                      "method[1] is %d, but a 2D plan reduces dimension 1 only (method[0]); "
                      "method[1] must be PSCR_METHOD_AUTO",
                      (int)opts->method[1]);
  for (int d = 0; d < ndim; d++)
    if (pencils[d].n < 1)
      return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "pencil %d: n is %d, must be >= 1", d + 1,
                        pencils[d].n);
  /* The solver's buffers hold a few copies of f: their byte counts must fit. */
  size_t total = 1;
  for (int d = 0; d < ndim; d++) {
    if (total > (SIZE_MAX / 64) / (size_t)pencils[d].n)
      return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "n1*n2%s overflows the address space",
                        ndim == 3 ? "*n3" : "");
    total *= (size_t)pencils[d].n;
  }
  for (int d = 0; d < ndim; d++) {
    const pscr_pencil *p = &pencils[d];
    pscr_status st;
    if ((st = pscr_check_array(dtype, p->a_diag, p->n, d, "a_diag")) ||
        (st = pscr_check_array(dtype, p->a_off, p->n - 1, d, "a_off")) ||
        (st = pscr_check_array(dtype, p->m_diag, p->n, d, "m_diag")))
      return st;
    if (p->m_off && (st = pscr_check_array(dtype, p->m_off, p->n - 1, d, "m_off")))
      return st;
  }
  if (!pscr_finite_z(pscr_load(dtype, shift, 0)))
    return PSCR_ERROR(PSCR_ERROR_NON_FINITE, "shift is not finite");
  for (int d = 0; d < ndim - 1; d++) {
    pscr_status st = pscr_check_mass(dtype, &pencils[d], d);
    if (st)
      return st;
  }
  return PSCR_SUCCESS;
}

/* Multiply both matrices of pencil d by 2^e (exact). */
static void pscr_scale_pencil(pscr_plan *p, int d, int e)
{
  size_t n = (size_t)p->n[d], words = p->cplx ? 2 : 1;
  double *arrays[4] = {(double *)p->fac_d[d].a.diag, (double *)p->fac_d[d].a.off,
                       (double *)p->fac_d[d].m.diag, (double *)p->fac_d[d].m.off};
  for (int k = 0; k < 4; k++)
    for (size_t i = 0; i < n * words; i++)
      arrays[k][i] = ldexp(arrays[k][i], e);
}

/*
 * Scaling each pencil d by s_d (A_d and M_d alike) multiplies every Kronecker
 * term of eq. 7/8, the shift term included, by prod_d s_d. With s_d a power
 * of two bringing max |M_d| near 1 for the reduced dimensions, and the last
 * pencil taking 1 / prod of the others, the operator is unchanged exactly,
 * while the solver's intermediates (lambda_1 M_2, c + lambda_1 + lambda_2,
 * pivots) stay far from overflow even when the caller's factors span
 * 1e-150 .. 1e+150 (mesh units alone give A ~ 1/h, M ~ h).
 */
static pscr_status pscr_balance_factors(pscr_plan *p)
{
  int total = 0;
  for (int d = 0; d < p->ndim - 1; d++) {
    double mmax = 0;
    for (int i = 0; i < p->n[d]; i++)
      mmax = fmax(mmax, !p->cplx ? fabs(p->fac_d[d].m.diag[i]) : cabs(p->fac_z[d].m.diag[i]));
    int e = 0;
    frexp(mmax, &e); /* mmax = f 2^e, f in [0.5, 1) */
    pscr_scale_pencil(p, d, -e);
    total += e;
  }
  pscr_scale_pencil(p, p->ndim - 1, total);
  /* Only A / M ratios beyond the double range (eigenvalues that cannot be
     represented) overflow here. */
  for (int d = 0; d < p->ndim; d++)
    for (int i = 0; i < p->n[d]; i++) {
      double complex a = !p->cplx ? p->fac_d[d].a.diag[i] : p->fac_z[d].a.diag[i];
      double complex m = !p->cplx ? p->fac_d[d].m.diag[i] : p->fac_z[d].m.diag[i];
      double complex ao = i + 1 < p->n[d] ? (!p->cplx ? p->fac_d[d].a.off[i] : p->fac_z[d].a.off[i]) : 0;
      if (!pscr_finite_z(a) || !pscr_finite_z(m) || !pscr_finite_z(ao))
        return PSCR_ERROR(PSCR_ERROR_EIGEN_FAILED,
                          "pencil %d: A%d / M%d spans more than the double range (entry %d "
                          "overflows once M%d is scaled to 1)",
                          d + 1, d + 1, d + 1, i + 1, d + 1);
    }
  return PSCR_SUCCESS;
}

/*
 * Whether pencil d (balanced) is a real symmetric Toeplitz pair: A =
 * tridiag(a, b, a), M = tridiag(m, g, m), every entry exactly equal to its
 * diagonal's first (complex plans: imaginary parts exactly zero), and M
 * positive definite (g - 2 |m| > 0: its eigenvalues g + 2 m cos theta).
 * Then v_k(j) = sin(pi j k / (n + 1)) diagonalizes both (docs/design.md,
 * "Sine transforms"). Exact equality: a uniform mesh whose h is a power of
 * two (n + 1 = 2^k on a unit interval) gives it; a pencil off by rounding
 * keeps the eigensolver, which serves any pencil.
 */
static int pscr_is_sine_pencil(const pscr_plan *p, int d, double v[4])
{
  const int n = p->n[d];
  const size_t words = p->cplx ? 2 : 1;
  const pscr_factor_d *F = &p->fac_d[d]; /* complex: runs of (re, im) doubles */
  const double *arr[4] = {F->a.diag, F->a.off, F->m.diag, F->m.off};
  for (int k = 0; k < 4; k++) {
    const size_t len = (size_t)(k % 2 == 0 ? n : n - 1);
    v[k] = len ? arr[k][0] : 0;
    for (size_t t = 0; t < len; t++)
      if (arr[k][t * words] != v[k] || (words == 2 && arr[k][t * words + 1] != 0))
        return 0;
  }
  return v[2] - 2 * fabs(v[3]) > 0 && isfinite(v[0]) && isfinite(v[1]);
}

/* dst[0 .. count) = src[0 .. count) of the caller's dtype, widened to the
   compute type (a plain copy for R64 and C64). */
static void pscr_widen(const pscr_plan *p, void *dst, const void *src, size_t count)
{
  if (!p->single) {
    memcpy(dst, src, count * p->elem);
    return;
  }
  const size_t words = p->cplx ? 2 : 1;
  for (size_t t = 0; t < count * words; t++)
    ((double *)dst)[t] = ((const float *)src)[t];
}

/* Owned copies of the factors in the compute type, off-diagonals zero-filled. */
static pscr_status pscr_copy_factors(pscr_plan *p, const pscr_pencil *pencils)
{
  size_t count = 0;
  for (int d = 0; d < p->ndim; d++)
    count += 4 * (size_t)p->n[d];
  p->factor_storage = calloc(count, p->celem);
  if (!p->factor_storage)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC,
                      "cannot allocate the factor copies (%zu bytes)", count * p->celem);
  p->host_bytes += count * p->celem;
  char *at = p->factor_storage;
  for (int d = 0; d < p->ndim; d++) {
    const pscr_pencil *q = &pencils[d];
    size_t n = (size_t)q->n, bytes = n * p->celem;
    char *ad = at, *ao = at + bytes, *md = at + 2 * bytes, *mo = at + 3 * bytes;
    at += 4 * bytes;
    pscr_widen(p, ad, q->a_diag, n);
    pscr_widen(p, md, q->m_diag, n);
    if (n > 1) {
      pscr_widen(p, ao, q->a_off, n - 1);
      if (q->m_off)
        pscr_widen(p, mo, q->m_off, n - 1);
    }
    int nn = q->n;
    p->fac_d[d] = (pscr_factor_d){{nn, (double *)ad, (double *)ao}, {nn, (double *)md, (double *)mo}};
    p->fac_z[d] = (pscr_factor_z){{nn, (pscr_z *)ad, (pscr_z *)ao}, {nn, (pscr_z *)md, (pscr_z *)mo}};
  }
  return pscr_balance_factors(p);
}

/* The eigensolver's paths as the plan's flags choose them (pscr.h,
   PSCR_FLAG_EIGEN_*); without flags, its defaults. */
static void pscr_plan_eigen_config(const pscr_plan *p, pscr_eigen_config *cfg)
{
  const unsigned int f = p->opts.flags;
  pscr_eigen_config_default(cfg);
  cfg->lanes = !(f & PSCR_FLAG_EIGEN_SCALAR);
  cfg->team = pscr_flag_mode(f, PSCR_FLAG_EIGEN_TEAM_NEVER, PSCR_FLAG_EIGEN_TEAM_ALWAYS);
  cfg->split = pscr_flag_mode(f, PSCR_FLAG_EIGEN_SPLIT_NEVER, PSCR_FLAG_EIGEN_SPLIT_ALWAYS);
}

/*
 * A complex plan's block whose four scaled factor arrays (m complex entries
 * each, interleaved) have no imaginary part is a real symmetric pencil: the
 * Helmholtz factors of eqs. 33-35 carry their absorbing boundary terms in
 * the first and last rows only, so every block away from the ends is real.
 * The complex path (LR, not backward stable on complex symmetric matrices,
 * with Rayleigh-quotient refinement) serves such blocks best: through the
 * real path (PWK QL, twisted factorizations, no refinement) the CPU
 * backward error of 2D Helmholtz 4095^2 grew from 9.2e-14 to 2.7e-12. But
 * LR can leave the real axis on them: built without FMA, it gave a real
 * interior block of order 1023 (2D Helmholtz 4096 x 16, float-rounded
 * factors) an eigenvalue of 1.3e-4 with an imaginary part of 1.2e-4, and
 * inverse iteration then did not converge. So the real path is the
 * fallback where the complex one fails on a real block. Solves the block
 * by the real path when its M block is positive definite (lam and w
 * widened to complex, imaginary parts zero); returns
 * PSCR_ERROR_NOT_DEFINITE, with nothing written and no error message
 * recorded, when it is not or when the block has an imaginary part.
 */
static pscr_status pscr_block_eigen_real_part(int m, double *const dst[4], pscr_z *lam,
                                              int nsel, const int *sel, pscr_z *wsel,
                                              const pscr_eigen_config *cfg)
{
  for (int k = 0; k < 4; k++)
    for (int i = 0; i < m; i++)
      if (dst[k][2 * (size_t)i + 1] != 0.0)
        return PSCR_ERROR_NOT_DEFINITE;
  const size_t mm = (size_t)m;
  double *buf = malloc((5 * mm + mm * (size_t)nsel) * sizeof *buf);
  if (!buf)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC,
                      "cannot allocate the real eigenvectors of a block of order %d", m);
  double *re[4] = {buf, buf + mm, buf + 2 * mm, buf + 3 * mm};
  double *lr = buf + 4 * mm, *wr = buf + 5 * mm;
  for (int k = 0; k < 4; k++)
    for (size_t i = 0; i < mm; i++)
      re[k][i] = dst[k][2 * i];
  pscr_status st = pscr_eigen_real(m, re[0], re[1], re[2], re[3], lr, nsel, sel, wr, cfg);
  if (st == PSCR_SUCCESS) {
    for (size_t i = 0; i < mm; i++)
      lam[i] = lr[i];
    for (size_t i = 0; i < mm * (size_t)nsel; i++)
      wsel[i] = wr[i];
  } else if (st == PSCR_ERROR_NOT_DEFINITE) {
    pscr_error_clear(); /* an indefinite M: the complex path decides */
  } else {
    st = PSCR_ERROR(st, "%s", pscr_eigen_last_error());
  }
  free(buf);
  return st;
}

/*
 * The eigenpairs of rows first .. first+m-1 of pencil d (a block of a
 * level, or the whole pencil of a transformed dimension): lam (m values)
 * and w (m x nsel: w[e nsel + s] is component sel[s] of eigenvector e;
 * sel NULL: all m rows), W^T M W = I. Either array may be the plan's own.
 */
static pscr_status pscr_pencil_eigen(pscr_plan *p, int d, size_t f, int m, int nsel,
                                     const int *sel, void *lam, void *wsel)
{
  /* Scaled copies of the pencil's rows (4 m entries). */
  size_t fm = 4 * (size_t)m;
  char *scratch = malloc(fm * p->celem);
  if (!scratch)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate a pencil of order %d", m);
  pscr_status st;
  /*
   * The eigensolver's recurrences overflow or underflow once A / M leaves
   * about 1e+-50, which mesh units alone can cause (A ~ 1/h, M ~ h). Scale A
   * and M by powers of two (exact) to magnitude ~1: A' = A / sa, M' = M / sm
   * gives lambda = lambda' sa / sm and, from W'^T M' W' = I,
   * W = W' / sqrt(sm).
   */
  /* Real and complex data are both runs of doubles (complex: re, im pairs)
     and every scale factor is real, so scaling works on doubles for both. */
  const size_t words = p->celem / sizeof(double), fw = f * words;
  const pscr_factor_d *F = &p->fac_d[d];
  const double *src[4] = {F->a.diag + fw, F->a.off + fw, F->m.diag + fw, F->m.off + fw};
  double amax = 0, mmax = 0; /* within sqrt(2) of the largest |entry|: enough here */
  for (size_t t = 0; t < (size_t)m * words; t++) {
    amax = fmax(amax, fabs(src[0][t]));
    mmax = fmax(mmax, fabs(src[2][t]));
  }
  int ea = 0, em = 0;
  if (amax > 0)
    frexp(amax, &ea);
  frexp(mmax, &em);
  const double sa = ldexp(1.0, -ea), sm = ldexp(1.0, -em); /* multipliers */
  double *dst[4];
  for (int k = 0; k < 4; k++) {
    dst[k] = (double *)scratch + (size_t)k * m * words;
    size_t count = (size_t)(k % 2 == 0 ? m : m - 1) * words; /* diagonal / off-diagonal */
    for (size_t t = 0; t < (size_t)m * words; t++)
      dst[k][t] = t < count ? src[k][t] * (k < 2 ? sa : sm) : 0;
  }
  pscr_eigen_config cfg;
  pscr_plan_eigen_config(p, &cfg);
  if (!p->cplx) {
    st = pscr_eigen_real(m, dst[0], dst[1], dst[2], dst[3], (double *)lam, nsel, sel, wsel, &cfg);
    if (st != PSCR_SUCCESS)
      st = PSCR_ERROR(st, "%s", pscr_eigen_last_error());
  } else {
    st = pscr_eigen_complex(m, (pscr_z *)dst[0], (pscr_z *)dst[1], (pscr_z *)dst[2],
                            (pscr_z *)dst[3], (pscr_z *)lam, nsel, sel, wsel, &cfg);
    if (st == PSCR_ERROR_EIGEN_FAILED) {
      char why[300];
      snprintf(why, sizeof why, "%s", pscr_eigen_last_error());
      if (pscr_block_eigen_real_part(m, dst, (pscr_z *)lam, nsel, sel, wsel, &cfg) ==
          PSCR_SUCCESS)
        st = PSCR_SUCCESS;
      else
        st = PSCR_ERROR(st, "%s", why);
    } else if (st != PSCR_SUCCESS) {
      st = PSCR_ERROR(st, "%s", pscr_eigen_last_error());
    }
  }
  if (st == PSCR_SUCCESS) {
    double *l = (double *)lam, *wv = wsel;
    for (size_t t = 0; t < (size_t)m * words; t++) {
      l[t] *= sm / sa;
      if (!isfinite(l[t]) && st == PSCR_SUCCESS)
        st = PSCR_ERROR(PSCR_ERROR_EIGEN_FAILED,
                        "eigenvalue %zu overflows: A / M spans more than the double range",
                        t / words + 1);
    }
    for (size_t t = 0; t < (size_t)m * nsel * words; t++)
      wv[t] *= sqrt(sm);
  }
  free(scratch);
  return st;
}

/*
 * The eigenproblem of one block: lambda and the eigenvector components at
 * the PSCR_W_SLOTS slots (D(B), first, last). Slots may name the same row
 * (first(B) is often in D(B)), so the eigensolver is asked for each distinct
 * row once and the slots are filled from that.
 */
static pscr_status pscr_block_eigen(pscr_plan *p, int d, const pscr_block *B)
{
  /* Rows of the slots 0 .. PSCR_W_SLOTS-1 (levels.h): D(B) up to 3, first,
     last. A fourth element of D(B) is last(B), slot PSCR_W_LAST. Slots
     past nd (up to 3) are unused and stay zero. */
  int m = B->last - B->first + 1, row[PSCR_W_SLOTS], slot_of[PSCR_W_SLOTS], sel[PSCR_W_SLOTS];
  int nsel = 0;
  for (int q = 0; q < PSCR_W_SLOTS; q++)
    row[q] = -1;
  for (int q = 0; q < B->nd; q++)
    row[pscr_d_slot(q)] = B->d[q] - B->first;
  row[PSCR_W_FIRST] = 0;
  row[PSCR_W_LAST] = m - 1;
  for (int q = 0; q < PSCR_W_SLOTS; q++) {
    if (row[q] < 0)
      continue;
    int k = 0;
    while (k < nsel && sel[k] != row[q])
      k++;
    if (k == nsel)
      sel[nsel++] = row[q];
    slot_of[q] = k;
  }
  /* The selected eigenvector components (m nsel entries). */
  void *wsel = malloc((size_t)m * (size_t)nsel * p->celem);
  if (!wsel)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC,
                      "cannot allocate the eigenvectors of a block of order %d", m);
  char *lam = (char *)p->lambda[d] + B->eig * p->celem;
  pscr_status st = pscr_pencil_eigen(p, d, (size_t)B->first, m, nsel, sel, lam, wsel);
  if (st == PSCR_SUCCESS) {
    /* Scatter into the slots. */
    char *w = (char *)p->w[d] + B->eig * PSCR_W_SLOTS * p->celem;
    for (int e = 0; e < m; e++) {
      char *dst = w + (size_t)e * PSCR_W_SLOTS * p->celem;
      const char *src = (const char *)wsel + (size_t)e * nsel * p->celem;
      memset(dst, 0, PSCR_W_SLOTS * p->celem);
      for (int q = 0; q < PSCR_W_SLOTS; q++)
        if (row[q] >= 0)
          memcpy(dst + (size_t)q * p->celem, src + (size_t)slot_of[q] * p->celem, p->celem);
    }
  }
  free(wsel);
  return st;
}

typedef struct pscr_task {
  int level, block;
} pscr_task;

/* Level structure of dimension d (0-based), for the reduction. */
static pscr_status pscr_dimension_levels(pscr_plan *p, int d)
{
  pscr_levels *lv = &p->lv[d];
  /* The merged top level of n = 4^j (levels.h) unless PSCR_FLAG_NO_MERGE_TOP
     (tests and benchmarks compare the two). */
  const int merge = !(p->opts.flags & PSCR_FLAG_NO_MERGE_TOP);
  pscr_status st = pscr_levels_build(lv, p->n[d], PSCR_ITEM_EIGS, merge);
  if (st)
    return st;
  p->host_bytes += lv->bytes;
  return PSCR_SUCCESS;
}

/* Eigen storage of dimension d: per level's blocks for the reduction; all
   n eigenpairs and W whole (n x n, row e the eigenvector of lambda_e) for
   a transform, which has no levels. */
static pscr_status pscr_dimension_storage(pscr_plan *p, int d)
{
  if (p->method[d] == PSCR_METHOD_TRANSFORM) {
    const size_t n = (size_t)p->n[d];
    if (n > SIZE_MAX / 16 / n)
      return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC,
                        "the eigenvectors of dimension %d (%zu^2 entries) overflow the "
                        "address space",
                        d + 1, n);
    p->lambda[d] = malloc(n * p->celem);
    p->w[d] = malloc(n * n * p->celem);
    if (!p->lambda[d] || !p->w[d])
      return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC,
                        "cannot allocate the %zu x %zu eigenvectors of dimension %d (%zu bytes) "
                        "for its transform",
                        n, n, d + 1, n * n * p->celem);
    p->host_bytes += (n + n * n) * p->celem;
    if (p->sine_pencil[d]) {
      p->sine_scale[d] = malloc(n * sizeof(double));
      if (!p->sine_scale[d])
        return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC,
                          "cannot allocate the sine scales of dimension %d", d + 1);
      p->host_bytes += n * sizeof(double);
    }
    return PSCR_SUCCESS;
  }
  const pscr_levels *lv = &p->lv[d];
  p->lambda[d] = malloc((lv->neig ? lv->neig : 1) * p->celem);
  p->w[d] = malloc((lv->neig ? lv->neig : 1) * PSCR_W_SLOTS * p->celem);
  if (!p->lambda[d] || !p->w[d])
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC,
                      "cannot allocate the eigen data of dimension %d", d + 1);
  p->host_bytes += lv->neig * (1 + PSCR_W_SLOTS) * p->celem;
  return PSCR_SUCCESS;
}

/*
 * The eigenpairs of a sine pencil (pscr_is_sine_pencil) in closed form:
 * with theta_k = pi k / (n + 1) and sigma_k = sin^2(theta_k / 2),
 *   lambda_k = ((b + 2a) - 4 a sigma_k) / ((g + 2m) - 4 m sigma_k)
 * (g + 2 m cos theta, written without the cancellation of 1 - cos theta
 * at small theta), and W^T M W = I for w_k(j) = s_k sin(pi j k / (n + 1)),
 * s_k = sqrt(2 / ((n + 1) ((g + 2m) - 4 m sigma_k))). Row e = k - 1 of
 * p->w[d] is w_k; the sines come from one table of sin(pi q / (n + 1)),
 * each entry from an argument of at most pi / 2.
 */
#define PSCR_PI 3.14159265358979323846
static pscr_status pscr_sine_eigen(pscr_plan *p, int d)
{
  double v[4];
  pscr_is_sine_pencil(p, d, v);
  const double a = v[1], b = v[0], m = v[3], g = v[2];
  const int n = p->n[d];
  const size_t N = (size_t)n + 1, words = p->cplx ? 2 : 1;
  double *tab = malloc(2 * N * sizeof *tab);
  if (!tab)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate a sine table of %zu entries",
                      2 * N);
  for (size_t q = 0; q < 2 * N; q++) {
    const size_t r = q % N, near = r < N - r ? r : N - r; /* sin(pi r / N) = sin(pi (N - r) / N) */
    tab[q] = (q < N ? 1 : -1) * sin(PSCR_PI * (double)near / (double)N);
  }
  double *lam = p->lambda[d], *W = p->w[d], *scale = p->sine_scale[d];
  for (int k = 1; k <= n; k++) {
    const double half = sin(PSCR_PI * k / (2.0 * (double)N)), sigma = half * half;
    const double den = (g + 2 * m) - 4 * m * sigma;
    lam[(size_t)(k - 1) * words] = ((b + 2 * a) - 4 * a * sigma) / den;
    if (words == 2)
      lam[(size_t)(k - 1) * words + 1] = 0;
    scale[k - 1] = sqrt(2.0 / ((double)N * den));
  }
#pragma omp parallel for num_threads(p->nthreads) schedule(static) \
    if (p->nthreads > 1 && (size_t)n * n > PSCR_PAR_MIN)
  for (int e = 0; e < n; e++) {
    const size_t k = (size_t)e + 1;
    double *row = W + (size_t)e * n * words;
    for (size_t j = 1; j <= (size_t)n; j++) {
      row[(j - 1) * words] = scale[e] * tab[j * k % (2 * N)];
      if (words == 2)
        row[(j - 1) * words + 1] = 0;
    }
  }
  free(tab);
  return PSCR_SUCCESS;
}

/* Eigen data of dimension d for every block of every level. */
static pscr_status pscr_dimension_eigen(pscr_plan *p, int d)
{
  if (p->method[d] == PSCR_METHOD_TRANSFORM && p->sine_pencil[d]) {
    const pscr_status st = pscr_sine_eigen(p, d);
    if (st)
      return st;
    p->defect[d] = pscr_transform_defect(p, d);
    return PSCR_SUCCESS;
  }
  if (p->method[d] == PSCR_METHOD_TRANSFORM) {
    const pscr_status st =
        pscr_pencil_eigen(p, d, 0, p->n[d], p->n[d], NULL, p->lambda[d], p->w[d]);
    if (st)
      return PSCR_ERROR(st, "%s (pencil %d, its transform)", pscr_last_error(), d + 1);
    p->defect[d] = pscr_transform_defect(p, d);
    return PSCR_SUCCESS;
  }
  const pscr_levels *lv = &p->lv[d];
  size_t ntask = 0;
  for (int i = 0; i < lv->k; i++)
    ntask += (size_t)lv->level[i].nblocks;
  pscr_task *task = malloc((ntask ? ntask : 1) * sizeof *task);
  if (!task)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC,
                      "cannot allocate the eigen task list of dimension %d", d + 1);
  /* Largest blocks (top levels) first so the dynamic schedule balances. */
  size_t t = 0;
  for (int i = lv->k - 1; i >= 0; i--)
    for (int b = 0; b < lv->level[i].nblocks; b++)
      task[t++] = (pscr_task){i, b};

  int first_error = PSCR_SUCCESS; /* an int: OpenMP atomics want a plain scalar */
  int claimed = 0;                /* a thread has taken the report */
  char detail[400] = "";
#pragma omp parallel for schedule(dynamic, 1) num_threads(p->nthreads) \
    if (p->nthreads > 1 && ntask > 1 && (size_t)p->n[d] * p->n[d] > PSCR_EIGEN_TEAM_WORK)
  for (size_t q = 0; q < ntask; q++) {
    int failed;
#pragma omp atomic read
    failed = first_error;
    if (failed)
      continue;
    const pscr_block *B = &lv->level[task[q].level].blocks[task[q].block];
    pscr_status s = pscr_block_eigen(p, d, B);
    if (s != PSCR_SUCCESS) {
      /* The detail message is thread-local: hand it to the calling thread.
         The first thread to claim the report writes it (an atomic claim, not
         a named critical section: those are global symbols that the library
         would export). */
      int was;
#pragma omp atomic capture
      {
        was = claimed;
        claimed = 1;
      }
      if (!was) {
        /* The eigensolver's cause first, the block's place after it. */
        snprintf(detail, sizeof detail, "%s (pencil %d, level %d, block %d..%d)",
                 pscr_last_error(), d + 1, task[q].level + 1, B->first + 1, B->last + 1);
#pragma omp atomic write
        first_error = (int)s;
      }
    }
  }
  free(task);
  if (first_error != PSCR_SUCCESS)
    return PSCR_ERROR((pscr_status)first_error, "%s", detail);
  return PSCR_SUCCESS;
}

/*
 * Single precision: everything a solve reads rounded to float once the
 * double-precision plan is complete (the "built in double, applied
 * in float"). The factors get a float copy beside the double originals;
 * lambda and w are rounded in place (element t of the float array lies at or
 * before element t of the double one, so a forward pass never overwrites an
 * entry it still has to read) and the arrays shrink. A value past the float
 * range fails the plan: a solve with it could not be accurate.
 */
static pscr_status pscr_round_to_single(pscr_plan *p)
{
  const size_t words = p->cplx ? 2 : 1;
  size_t count = 0;
  for (int d = 0; d < p->ndim; d++)
    count += 4 * (size_t)p->n[d];
  p->apply_storage = malloc(count * p->elem);
  if (!p->apply_storage)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC,
                      "cannot allocate the float factor copies (%zu bytes)", count * p->elem);
  p->host_bytes += count * p->elem;
  const double *src = p->factor_storage;
  float *dst = p->apply_storage;
  for (size_t t = 0; t < count * words; t++) {
    dst[t] = (float)src[t];
    if (!isfinite(dst[t]))
      return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE,
                        "a factor entry is %g once balanced (pscr_plan_create scales each "
                        "pencil by a power of two): past the float range",
                        src[t]);
  }
  /* The layout of pscr_copy_factors: per dimension a_diag | a_off | m_diag | m_off. */
  float *at = p->apply_storage;
  for (int d = 0; d < p->ndim; d++) {
    const int n = p->n[d];
    const size_t nn = (size_t)n * words;
    float *ad = at, *ao = at + nn, *md = at + 2 * nn, *mo = at + 3 * nn;
    at += 4 * nn;
    p->fac_s[d] = (pscr_factor_s){{n, ad, ao}, {n, md, mo}};
    p->fac_c[d] = (pscr_factor_c){{n, (pscr_c *)ad, (pscr_c *)ao}, {n, (pscr_c *)md, (pscr_c *)mo}};
  }
  for (int d = 0; d < p->ndim - 1; d++) {
    const int transform = p->method[d] == PSCR_METHOD_TRANSFORM;
    const size_t neig = transform ? (size_t)p->n[d] : p->lv[d].neig;
    void **arr[2] = {&p->lambda[d], &p->w[d]};
    const size_t len[2] = {neig, neig * (transform ? neig : PSCR_W_SLOTS)};
    for (int k = 0; k < 2; k++) {
      const double *in = *arr[k];
      float *out = *arr[k];
      for (size_t t = 0; t < len[k] * words; t++) {
        const double v = in[t];
        out[t] = (float)v;
        if (!isfinite(out[t]))
          return PSCR_ERROR(PSCR_ERROR_EIGEN_FAILED,
                            "dimension %d: %s entry %zu is %g, past the float range", d + 1,
                            k ? "an eigenvector" : "an eigenvalue", t / words + 1, v);
      }
      void *shrunk = realloc(*arr[k], (len[k] ? len[k] : 1) * p->elem);
      if (shrunk)
        *arr[k] = shrunk;
    }
    p->host_bytes -= (len[0] + len[1]) * (p->celem - p->elem);
    if (p->sine_scale[d]) {
      /* s_k^2 = 2 / ((n + 1) mu_k), mu_k an eigenvalue of the balanced M
         (at most 1 + 2 |m|): past the float range only where M is nearly
         singular, which is refused like an eigenvalue past it. */
      const double *in = p->sine_scale[d];
      float *out = p->sine_scale[d];
      for (size_t t = 0; t < neig; t++) {
        out[t] = (float)in[t];
        if (!isfinite(out[t]) || !(out[t] > 0))
          return PSCR_ERROR(PSCR_ERROR_EIGEN_FAILED,
                            "dimension %d: sine scale %zu is %g, past the float range", d + 1,
                            t + 1, in[t]);
      }
      p->host_bytes -= neig * (sizeof(double) - sizeof(float));
    }
  }
  return PSCR_SUCCESS;
}

static pscr_status pscr_select_backend(pscr_plan *p)
{
  pscr_backend want = p->opts.backend;
  const pscr_backend_ops *cuda = pscr_cuda_backend();
  char why[200] = "";
  if (want == PSCR_BACKEND_CUDA) {
    if (!cuda)
      return PSCR_ERROR(PSCR_ERROR_NOT_SUPPORTED, "this build has no CUDA backend");
    /* "no CUDA device" first: the runtime's own text ("CUDA driver version
       is insufficient for CUDA runtime version") only says why. */
    const char *err = NULL;
    const int count = pscr_cuda_device_count(&err);
    if (count == 0)
      return PSCR_ERROR(PSCR_ERROR_NOT_SUPPORTED, "no CUDA device (cudaGetDeviceCount: %s)",
                        err ? err : "0 devices");
    if (count <= p->opts.device)
      return PSCR_ERROR(PSCR_ERROR_NOT_SUPPORTED,
                        "no CUDA device %d (cudaGetDeviceCount: %d device%s)", p->opts.device,
                        count, count == 1 ? "" : "s");
    if (cuda->accepts && !cuda->accepts(p, why, sizeof why))
      return PSCR_ERROR(PSCR_ERROR_NOT_SUPPORTED, "%s", why);
    p->backend = PSCR_BACKEND_CUDA;
    p->ops = cuda;
    return PSCR_SUCCESS;
  }
  /* AUTO: the device where there is one and it takes the problem, else the CPU. */
  if (want == PSCR_BACKEND_AUTO && cuda && pscr_cuda_device_count(NULL) > p->opts.device &&
      (!cuda->accepts || cuda->accepts(p, why, sizeof why))) {
    p->backend = PSCR_BACKEND_CUDA;
    p->ops = cuda;
    return PSCR_SUCCESS;
  }
  p->backend = PSCR_BACKEND_CPU;
  p->ops = &pscr_cpu_backend;
  if (p->ops->accepts && !p->ops->accepts(p, why, sizeof why))
    return PSCR_ERROR(PSCR_ERROR_NOT_SUPPORTED, "%s", why);
  return PSCR_SUCCESS;
}

/* Last in plan creation: the dense eigenvectors of the dimensions that the
   backend applies by the fast sine transform (its cost rules' sine) are
   not read by a solve (the eigen stage made them for the transform's
   defect probe, pscr_info.transform_defect): n_d^2 values, 537 MB at n =
   8191, given back. */
static void pscr_release_sine_vectors(pscr_plan *p)
{
  pscr_cost_rules rules;
  p->ops->cost_rules(p, &rules);
  for (int d = 0; d < p->ndim - 1; d++)
    if (rules.sine && rules.sine(p, d) && p->w[d]) {
      free(p->w[d]);
      p->w[d] = NULL;
      p->host_bytes -= (size_t)p->n[d] * (size_t)p->n[d] * p->elem;
    }
}

pscr_status pscr_plan_build(pscr_plan **plan, const pscr_plan_args *a, const pscr_options *o,
                            int skeleton)
{
  *plan = NULL;
  pscr_plan *p = calloc(1, sizeof *p);
  if (!p)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate the plan object");
  const int ndim = a->ndim;
  p->dtype = a->dtype;
  p->cplx = pscr_dtype_complex(a->dtype);
  p->single = a->dtype == PSCR_R32 || a->dtype == PSCR_C32;
  p->ndim = ndim;
  p->elem = pscr_dtype_elem(a->dtype);
  p->celem = p->cplx ? sizeof(pscr_z) : sizeof(double);
  p->total = 1;
  p->n[2] = 1;
  for (int d = 0; d < ndim; d++) {
    p->n[d] = a->pencils[d].n;
    p->total *= (size_t)a->pencils[d].n;
  }
  p->opts = *o;
  p->chosen = -1;
  /* AUTO entries are resolved by pscr_choose_methods once the backend is
     known. */
  for (int d = 0; d < ndim - 1; d++)
    p->method[d] = o->method[d];
  p->nthreads = p->opts.num_threads > 0 ? p->opts.num_threads : omp_get_max_threads();
  pscr_z c = pscr_load(a->dtype, a->shift, 0);
  p->shift[0] = creal(c);
  p->shift[1] = cimag(c);

  /* Everything is allocated before the (expensive) eigen stage, so a plan
     too large for memory fails at once. */
  pscr_status st;
  if ((st = pscr_select_backend(p)) || (st = pscr_copy_factors(p, a->pencils)))
    goto out_destroy;
  for (int d = 0; d < ndim - 1; d++) {
    double v[4];
    p->sine_pencil[d] = pscr_is_sine_pencil(p, d, v);
  }
  for (int d = 0; d < ndim - 1; d++)
    if (p->method[d] != PSCR_METHOD_TRANSFORM && (st = pscr_dimension_levels(p, d)))
      goto out_destroy;
  if ((st = pscr_choose_methods(p)))
    goto out_destroy;
  if (skeleton) {
    p->skeleton = 1;
    *plan = p;
    return PSCR_SUCCESS;
  }
  for (int d = 0; d < ndim - 1; d++)
    if ((st = pscr_dimension_storage(p, d)))
      goto out_destroy;
  if ((st = p->ops->setup(p)))
    goto out_destroy;
  for (int d = 0; d < ndim - 1; d++)
    if ((st = pscr_dimension_eigen(p, d)))
      goto out_destroy;
  if (p->single && (st = pscr_round_to_single(p)))
    goto out_destroy;
  if (p->ops->upload && (st = p->ops->upload(p)))
    goto out_destroy;
  pscr_release_sine_vectors(p);
  *plan = p;
  return PSCR_SUCCESS;

out_destroy:
  pscr_plan_destroy(p);
  return st;
}

/* The caller's options read into *o, then the arguments validated. */
static pscr_status pscr_read_validate(pscr_plan **plan, pscr_dtype dtype, int ndim,
                                      const pscr_pencil *pencils, const void *shift,
                                      const pscr_options *opts, pscr_options *o)
{
  const pscr_status st = pscr_options_read(opts, o);
  return st ? st : pscr_validate(plan, dtype, ndim, pencils, shift, o);
}

pscr_status pscr_plan_create(pscr_plan **plan, pscr_dtype dtype, int ndim,
                             const pscr_pencil *pencils, const void *shift,
                             const pscr_options *opts)
{
  pscr_error_clear();
  if (plan)
    *plan = NULL;
  pscr_options o;
  pscr_status st = pscr_read_validate(plan, dtype, ndim, pencils, shift, opts, &o);
  if (st)
    return st;
  const double t0 = omp_get_wtime();
  const pscr_plan_args a = {dtype, ndim, pencils, shift};
  st = pscr_plan_planned(plan, &a, &o);
  if (st == PSCR_SUCCESS && o.refine > 0 && (st = pscr_refine_setup(*plan))) {
    pscr_plan_destroy(*plan);
    *plan = NULL;
  }
  if (st == PSCR_SUCCESS)
    (*plan)->plan_seconds = omp_get_wtime() - t0;
  return st;
}

pscr_status pscr_plan_skeleton(pscr_plan **plan, pscr_dtype dtype, int ndim,
                               const pscr_pencil *pencils, const void *shift,
                               const pscr_options *opts)
{
  pscr_options o;
  pscr_status st = pscr_read_validate(plan, dtype, ndim, pencils, shift, opts, &o);
  if (st)
    return st;
  const pscr_plan_args a = {dtype, ndim, pencils, shift};
  return pscr_plan_build(plan, &a, &o, 1);
}

/* Fixed values in [-1, 1) (probe.h). */
void pscr_plan_probe_values(const pscr_plan *p, void *f)
{
  const size_t words = p->total * (p->cplx ? 2 : 1);
  for (size_t t = 0; t < words; t++) {
    const double v = pscr_probe_value(t);
    if (p->single)
      ((float *)f)[t] = (float)v;
    else
      ((double *)f)[t] = v;
  }
}

int pscr_plan_sine_fast(const pscr_plan *p, int d)
{
  return p->sine_pencil[d] && pscr_sine_supported(p->n[d]) &&
         !(p->opts.flags & PSCR_FLAG_NO_SINE);
}

void pscr_plan_destroy(pscr_plan *p)
{
  if (!p)
    return;
  if (p->ops)
    p->ops->destroy(p);
  for (int d = 0; d < 2; d++) {
    pscr_levels_free(&p->lv[d]);
    free(p->lambda[d]);
    free(p->w[d]);
    free(p->sine_scale[d]);
  }
  free(p->factor_storage);
  free(p->apply_storage);
  free(p->refine_storage);
  pscr_plan_destroy(p->refine_plan);
  free(p);
}

pscr_status pscr_plan_info_size(const pscr_plan *p, pscr_info *out, size_t size)
{
  pscr_error_clear();
  if (!p || !out)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "%s is NULL", p ? "info" : "plan");
  if (size < PSCR_INFO_MIN_SIZE)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE,
                      "size is %zu, below the %zu bytes of pscr 0.2's pscr_info", size,
                      (size_t)PSCR_INFO_MIN_SIZE);
  pscr_info full, *info = &full;
  memset(info, 0, sizeof *info);
  info->backend = p->backend;
  info->num_threads = p->nthreads;
  info->dtype = p->dtype;
  info->ndim = p->ndim;
  for (int d = 0; d < 3; d++)
    info->n[d] = p->n[d];
  for (int d = 0; d < p->ndim - 1; d++) {
    info->levels[d] = p->lv[d].k;
    info->eigenpairs += p->method[d] == PSCR_METHOD_TRANSFORM ? (size_t)p->n[d] : p->lv[d].neig;
    info->method[d] = p->method[d];
    info->transform_defect[d] = p->defect[d];
  }
  info->ncandidates = p->ncand;
  info->chosen = p->chosen;
  memcpy(info->candidate, p->cand, sizeof info->candidate);
  info->plan_seconds = p->plan_seconds;
  info->workspace_bytes = p->host_bytes;
  info->device_bytes = p->device_bytes;
  if (!p->skeleton) /* the backend's choices are made by its setup */
    p->ops->info(p, info);
  pscr_cost_rules rules;
  p->ops->cost_rules(p, &rules);
  pscr_cost_model(p, &rules, info->cost, &info->cost_total, &info->min_bytes);
  /* A caller built against an older (shorter) pscr_info gets its prefix; a
     newer (longer) one gets zeros past this library's fields. */
  info->size = size < sizeof full ? size : sizeof full;
  if (size > sizeof full)
    memset((char *)out + sizeof full, 0, size - sizeof full);
  memcpy(out, &full, info->size);
  return PSCR_SUCCESS;
}

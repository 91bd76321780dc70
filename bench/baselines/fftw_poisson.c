/*
 * CPU fast Poisson baseline on FFTW (fftw_poisson.h): one in-place RODFT00
 * plan over every dimension but the last (rank ndim - 1, stride n_l,
 * batched over the n_l positions of the last dimension), executed forward
 * and backward (DST-I is its own inverse up to the scale folded into the
 * eigenvalues), and between them a plain Thomas solve along each
 * contiguous line of the last dimension (OpenMP over the lines; every
 * line's LU factors, one reciprocal pivot per unknown, made at create).
 */
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>
#include <omp.h>

#include "baseline_common.h"
#include "fftw_poisson.h"

struct bl_fftw {
  bl_spectrum spec;
  fftw_plan plan; /* in place, SIMD-aligned (fftw_malloc) */
  int align;      /* fftw_alignment_of the planning array: new arrays must match */
  int threads;    /* FFT threads */
  int nthreads;   /* Thomas threads */
  int nl;         /* n of the last dimension (not transformed) */
  size_t nlines;  /* total / nl: one tridiagonal system each */
  double *off;    /* nlines: off-diagonal of line s's Toeplitz matrix */
  double *w;      /* total: its reciprocal LU pivots, w[s nl + i] */
  size_t total;
};

int bl_fftw_threads(const bl_fftw *s)
{
  return s->threads;
}

void bl_fftw_describe(char *buf, size_t len)
{
  snprintf(buf, len, "%s, %s", fftw_version,
           BL_HAVE_FFTW_OMP ? "threads through fftw3_omp"
                            : "single-threaded FFTs (no fftw3_omp library found)");
}

pscr_status bl_fftw_create(bl_fftw **out, int ndim, const pscr_pencil *pencils, double shift,
                           int nthreads, int measure, char *msg, size_t len)
{
  pscr_status st;
  bl_fftw *s = NULL;
  double *probe = NULL;
  int dims[3];
  fftw_r2r_kind kinds[3] = {FFTW_RODFT00, FFTW_RODFT00, FFTW_RODFT00};

  *out = NULL;
  s = calloc(1, sizeof *s);
  if (!s) {
    snprintf(msg, len, "bl_fftw: %zu bytes", sizeof *s);
    return PSCR_ERROR_HOST_ALLOC;
  }
  st = bl_spectrum_init(&s->spec, ndim, pencils, shift, msg, len);
  if (st)
    goto out_free;
  s->total = (size_t)s->spec.n[0] * s->spec.n[1] * s->spec.n[2];
  s->nthreads = nthreads > 0 ? nthreads : omp_get_max_threads();
  s->nl = s->spec.n[ndim - 1];
  s->nlines = s->total / (size_t)s->nl;
  s->off = malloc(s->nlines * sizeof *s->off);
  s->w = malloc(s->total * sizeof *s->w);
  if (!s->off || !s->w) {
    snprintf(msg, len, "bl_fftw: LU factors of %zu lines of %d", s->nlines, s->nl);
    st = PSCR_ERROR_HOST_ALLOC;
    goto out_spec;
  }
  {
    /* Line s (2D: mode k1; 3D: s = k1 n2 + k2) solves alpha A_l + beta M_l
       with alpha = prod m_d, beta = sum_d a_d prod_{e != d} m_e + c alpha over
       the transformed dimensions (scaled eigenvalues: the transforms' round
       trip is folded in); Toeplitz, diagonal g, off-diagonal o. Its LU
       factors without pivoting: p_0 = g, p_i = g - o^2 / p_{i-1}; w_i = 1 / p_i
       is stored, so that a solve has no division. */
    const bl_spectrum *sp = &s->spec;
    const pscr_pencil *last = &pencils[ndim - 1];
    const double ag = ((const double *)last->a_diag)[0], mg = ((const double *)last->m_diag)[0];
    const double ao = s->nl > 1 ? ((const double *)last->a_off)[0] : 0.0;
    const double mo = s->nl > 1 && last->m_off ? ((const double *)last->m_off)[0] : 0.0;
    const int n2 = ndim == 3 ? sp->n[1] : 1;
    for (size_t l = 0; l < s->nlines; l++) {
      size_t k1 = l / (size_t)n2, k2 = l - k1 * (size_t)n2;
      double alpha = sp->m[0][k1], beta = sp->a[0][k1];
      if (ndim == 3) {
        beta = beta * sp->m[1][k2] + alpha * sp->a[1][k2];
        alpha *= sp->m[1][k2];
      }
      beta += shift * alpha;
      const double g = alpha * ag + beta * mg, o = alpha * ao + beta * mo;
      double *wl = s->w + l * (size_t)s->nl, cp = 0.0;
      for (int i = 0; i < s->nl; i++) {
        wl[i] = 1.0 / (g - o * cp);
        cp = o * wl[i];
      }
      s->off[l] = o;
    }
  }
#if BL_HAVE_FFTW_OMP
  if (!fftw_init_threads()) { /* idempotent; the first call sets up FFTW's threads */
    snprintf(msg, len, "fftw_init_threads failed");
    st = PSCR_ERROR_NOT_SUPPORTED;
    goto out_spec;
  }
  fftw_plan_with_nthreads(s->nthreads);
  s->threads = s->nthreads;
#else
  s->threads = 1;
#endif
  /* FFTW_MEASURE overwrites the array it plans on: plan on scratch. */
  probe = fftw_malloc(s->total * sizeof *probe);
  if (!probe) {
    snprintf(msg, len, "bl_fftw: planning array of %zu doubles", s->total);
    st = PSCR_ERROR_HOST_ALLOC;
    goto out_spec;
  }
  for (int d = 0; d < ndim - 1; d++)
    dims[d] = s->spec.n[d];
  s->align = fftw_alignment_of(probe);
  /* Rank ndim - 1 over the leading dimensions (stride nl), nl of them
     interleaved (distance 1). */
  s->plan = fftw_plan_many_r2r(ndim - 1, dims, s->nl, probe, NULL, s->nl, 1, probe, NULL,
                               s->nl, 1, kinds, measure ? FFTW_MEASURE : FFTW_ESTIMATE);
  fftw_free(probe);
  if (!s->plan) {
    snprintf(msg, len, "fftw_plan_many_r2r returned NULL");
    st = PSCR_ERROR_NOT_SUPPORTED;
    goto out_spec;
  }
  *out = s;
  return PSCR_SUCCESS;
out_spec:
  free(s->w);
  free(s->off);
  bl_spectrum_free(&s->spec);
out_free:
  free(s);
  return st;
}

pscr_status bl_fftw_solve(bl_fftw *s, const double *f, double *u)
{
  if (!s || !f || !u || fftw_alignment_of(u) != s->align)
    return PSCR_ERROR_INVALID_VALUE;
  const int nl = s->nl;
  const double *off = s->off, *w = s->w;

  if (u != f)
    memcpy(u, f, s->total * sizeof *u);
  fftw_execute_r2r(s->plan, u, u);
  /* Thomas with the factors of create (no pivoting: every line's matrix is
     that of a mode of the operator restricted to the last dimension, SPD for
     Poisson): d'_i = w_i (d_i - o d'_{i-1}), x_i = d'_i - o w_i x_{i+1}. */
#pragma omp parallel for num_threads(s->nthreads) schedule(static)
  for (size_t l = 0; l < s->nlines; l++) {
    double *x = u + l * (size_t)nl;
    const double *wl = w + l * (size_t)nl;
    const double o = off[l];
    double d = 0.0;
    for (int i = 0; i < nl; i++)
      x[i] = d = wl[i] * (x[i] - o * d);
    for (int i = nl - 2; i >= 0; i--)
      x[i] -= o * wl[i] * x[i + 1];
  }
  fftw_execute_r2r(s->plan, u, u);
  return PSCR_SUCCESS;
}

void bl_fftw_destroy(bl_fftw *s)
{
  if (!s)
    return;
  fftw_destroy_plan(s->plan);
  free(s->w);
  free(s->off);
  bl_spectrum_free(&s->spec);
  free(s);
}

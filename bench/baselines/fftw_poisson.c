/*
 * CPU fast Poisson baseline on FFTW (fftw_poisson.h): one in-place
 * multi-dimensional RODFT00 plan, executed forward and backward (DST-I is
 * its own inverse up to the scale folded into the eigenvalues).
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
  int nthreads;   /* division threads */
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
  for (int d = 0; d < ndim; d++)
    dims[d] = s->spec.n[d];
  s->align = fftw_alignment_of(probe);
  s->plan = fftw_plan_r2r(ndim, dims, probe, probe, kinds,
                          measure ? FFTW_MEASURE : FFTW_ESTIMATE);
  fftw_free(probe);
  if (!s->plan) {
    snprintf(msg, len, "fftw_plan_r2r returned NULL");
    st = PSCR_ERROR_NOT_SUPPORTED;
    goto out_spec;
  }
  *out = s;
  return PSCR_SUCCESS;
out_spec:
  bl_spectrum_free(&s->spec);
out_free:
  free(s);
  return st;
}

pscr_status bl_fftw_solve(bl_fftw *s, const double *f, double *u)
{
  if (!s || !f || !u || fftw_alignment_of(u) != s->align)
    return PSCR_ERROR_INVALID_VALUE;
  const bl_spectrum *sp = &s->spec;
  const double *a1 = sp->a[0], *m1 = sp->m[0], *a2 = sp->a[1], *m2 = sp->m[1];
  const double *a3 = sp->a[2], *m3 = sp->m[2];
  const double c = sp->shift;
  const int n1 = sp->n[0], n2 = sp->n[1], n3 = sp->n[2];

  if (u != f)
    memcpy(u, f, s->total * sizeof *u);
  fftw_execute_r2r(s->plan, u, u);
#pragma omp parallel for collapse(2) num_threads(s->nthreads) schedule(static)
  for (int k1 = 0; k1 < n1; k1++)
    for (int k2 = 0; k2 < n2; k2++) {
      double *row = u + ((size_t)k1 * n2 + k2) * n3;
      for (int k3 = 0; k3 < n3; k3++)
        row[k3] /= bl_lambda(a1, m1, a2, m2, a3, m3, c, k1, k2, k3);
    }
  fftw_execute_r2r(s->plan, u, u);
  return PSCR_SUCCESS;
}

void bl_fftw_destroy(bl_fftw *s)
{
  if (!s)
    return;
  fftw_destroy_plan(s->plan);
  bl_spectrum_free(&s->spec);
  free(s);
}

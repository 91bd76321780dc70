/* Public solve entry points: argument checks, then the plan's backend. */
#include <stdint.h>
#include <string.h>

#include "error.h"
#include "plan.h"

/* The first non-finite entry of f, or -1 (SIZE_MAX) when there is none. */
static size_t pscr_find_non_finite(const pscr_plan *p, const void *f)
{
  /* Every dtype is a run of doubles or floats: (re, im) pairs for complex. */
  const size_t words = p->cplx ? 2 : 1, count = p->total * words;
  if (p->single) {
    const float *x = f;
    for (size_t t = 0; t < count; t++)
      if (!isfinite(x[t]))
        return t / words;
  } else {
    const double *x = f;
    for (size_t t = 0; t < count; t++)
      if (!isfinite(x[t]))
        return t / words;
  }
  return SIZE_MAX;
}

static pscr_status pscr_check_finite(const pscr_plan *p, const void *f)
{
  size_t at = pscr_find_non_finite(p, f);
  if (at != SIZE_MAX)
    return PSCR_ERROR(PSCR_ERROR_NON_FINITE, "f[%zu] is not finite", at);
  return PSCR_SUCCESS;
}

/*
 * Does some u_j = [u + j pu, u + j pu + len) meet some f_i = [f + i pf,
 * f + i pf + len) (byte addresses, pf, pu >= len, extents checked not to
 * wrap)? The u_j are ordered, so for each f_i only the first u_j that ends
 * after f_i starts can meet it: O(nrhs), not O(nrhs^2).
 */
static int pscr_batch_overlap(uintptr_t f, size_t pf, uintptr_t u, size_t pu, size_t len,
                              int nrhs, int *fi, int *uj)
{
  for (int i = 0; i < nrhs; i++) {
    const uintptr_t a = f + (uintptr_t)i * pf;
    /* u_j ends after a  <=>  u + j pu + len > a. */
    const size_t j = u + len > a ? 0 : (size_t)(a - len - u) / pu + 1;
    if (j < (size_t)nrhs && u + (uintptr_t)j * pu < a + len) {
      *fi = i;
      *uj = (int)j;
      return 1;
    }
  }
  return 0;
}

/* Arguments of pscr_solve_batch and pscr_solve_device_batch (host or device
   addresses alike: only their values are used). */
static pscr_status pscr_check_batch(const pscr_plan *p, int nrhs, const void *f, size_t ldf,
                                    const void *u, size_t ldu)
{
  if (!p || !f || !u)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "%s is NULL", !p ? "plan" : !f ? "f" : "u");
  if (nrhs < 1)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "nrhs is %d, must be >= 1", nrhs);
  const char *size = p->ndim == 3 ? "n1*n2*n3" : "n1*n2";
  if (ldf < p->total)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "ldf is %zu, must be >= %s = %zu", ldf, size,
                      p->total);
  if (ldu < p->total)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "ldu is %zu, must be >= %s = %zu", ldu, size,
                      p->total);
  /* Extents (nrhs - 1) ld + total elements, in bytes, within the address
     space (validation keeps 64 total bytes below SIZE_MAX). */
  const size_t es = p->elem, lim = SIZE_MAX / es - p->total, n1 = (size_t)nrhs - 1;
  const size_t ld[2] = {ldf, ldu};
  const uintptr_t at[2] = {(uintptr_t)f, (uintptr_t)u};
  for (int k = 0; k < 2; k++)
    if ((n1 > 0 && ld[k] > lim / n1) ||
        at[k] > UINTPTR_MAX - (n1 * ld[k] + p->total) * es)
      return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE,
                        "%s: %d right-hand sides %zu elements apart run past the address space",
                        k ? "u" : "f", nrhs, ld[k]);
  if (f == u && ldf == ldu)
    return PSCR_SUCCESS; /* in place */
  int fi = 0, uj = 0;
  if (pscr_batch_overlap(at[0], ldf * es, at[1], ldu * es, p->total * es, nrhs, &fi, &uj))
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE,
                      "u vector %d overlaps f vector %d (the only overlap allowed is u == f "
                      "with ldu == ldf, in place)",
                      uj, fi);
  return PSCR_SUCCESS;
}

/* A plan made with options.device_only holds no buffer for host arrays. */
static pscr_status pscr_check_host_arrays(const pscr_plan *p, const char *fn)
{
  if (!p->opts.device_only)
    return PSCR_SUCCESS;
  return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE,
                    "%s takes host arrays, but this plan was made with device_only = 1: it "
                    "solves device arrays only (pscr_solve_device, pscr_solve_device_batch)",
                    fn);
}

pscr_status pscr_solve(pscr_plan *plan, const void *f, void *u)
{
  pscr_error_clear();
  if (!plan || !f || !u)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "%s is NULL", !plan ? "plan" : !f ? "f" : "u");
  pscr_status hst = pscr_check_host_arrays(plan, "pscr_solve");
  if (hst)
    return hst;
  if (plan->opts.check_finite) {
    pscr_status st = pscr_check_finite(plan, f);
    if (st)
      return st;
  }
  return plan->opts.refine ? pscr_refine_solve(plan, f, u) : plan->ops->solve(plan, f, u);
}

pscr_status pscr_solve_device(pscr_plan *plan, const void *f, void *u, void *stream)
{
  pscr_error_clear();
  if (!plan || !f || !u)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "%s is NULL", !plan ? "plan" : !f ? "f" : "u");
  if (!plan->ops->solve_device)
    return PSCR_ERROR(PSCR_ERROR_NOT_SUPPORTED,
                      "pscr_solve_device needs a plan on the CUDA backend (this one is %s)",
                      plan->ops->name);
  return plan->opts.refine ? plan->ops->solve_device_refined(plan, f, u, stream)
                           : plan->ops->solve_device(plan, f, u, stream);
}

pscr_status pscr_solve_batch(pscr_plan *plan, int nrhs, const void *f, size_t ldf, void *u,
                             size_t ldu)
{
  pscr_error_clear();
  pscr_status st = pscr_check_batch(plan, nrhs, f, ldf, u, ldu);
  if (!st)
    st = pscr_check_host_arrays(plan, "pscr_solve_batch");
  if (st)
    return st;
  /* Every right-hand side before any solve: on NON_FINITE u is not written. */
  if (plan->opts.check_finite)
    for (int r = 0; r < nrhs; r++) {
      size_t at = pscr_find_non_finite(plan, (const char *)f + (size_t)r * ldf * plan->elem);
      if (at != SIZE_MAX)
        return PSCR_ERROR(PSCR_ERROR_NON_FINITE, "right-hand side %d: f[%zu] is not finite", r,
                          at);
    }
  if (!plan->opts.refine)
    return plan->ops->solve_batch(plan, nrhs, f, ldf, u, ldu);
  for (int r = 0; r < nrhs; r++) {
    st = pscr_refine_solve(plan, (const char *)f + (size_t)r * ldf * plan->elem,
                           (char *)u + (size_t)r * ldu * plan->elem);
    if (st)
      return st;
  }
  return PSCR_SUCCESS;
}

pscr_status pscr_solve_device_batch(pscr_plan *plan, int nrhs, const void *f, size_t ldf,
                                    void *u, size_t ldu, void *stream)
{
  pscr_error_clear();
  pscr_status st = pscr_check_batch(plan, nrhs, f, ldf, u, ldu);
  if (st)
    return st;
  if (!plan->ops->solve_device_batch)
    return PSCR_ERROR(PSCR_ERROR_NOT_SUPPORTED,
                      "pscr_solve_device_batch needs a plan on the CUDA backend (this one is "
                      "%s)",
                      plan->ops->name);
  if (!plan->opts.refine)
    return plan->ops->solve_device_batch(plan, nrhs, f, ldf, u, ldu, stream);
  for (int r = 0; r < nrhs; r++) {
    st = plan->ops->solve_device_refined(plan, (const char *)f + (size_t)r * ldf * plan->elem,
                                         (char *)u + (size_t)r * ldu * plan->elem, stream);
    if (st)
      return st;
  }
  return PSCR_SUCCESS;
}

pscr_status pscr_solve_device_profile(pscr_plan *plan, const void *f, void *u, void *stream,
                                      double *ms)
{
  pscr_error_clear();
  if (!plan || !f || !u || !ms)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "%s is NULL",
                      !plan ? "plan" : !f ? "f" : !u ? "u" : "ms");
  if (!plan->ops->solve_profile)
    return PSCR_ERROR(PSCR_ERROR_NOT_SUPPORTED,
                      "pscr_solve_device_profile needs a plan on the CUDA backend (this one is "
                      "%s)",
                      plan->ops->name);
  for (int k = 0; k < PSCR_STAGE_COUNT; k++)
    ms[k] = 0;
  return plan->ops->solve_profile(plan, f, u, stream, ms);
}

const char *pscr_stage_name(pscr_stage stage)
{
  static const char *const names[PSCR_STAGE_COUNT] = {"level3", "sums", "coupling", "gather",
                                                      "other"};
  return (int)stage >= 0 && stage < PSCR_STAGE_COUNT ? names[stage] : "unknown";
}

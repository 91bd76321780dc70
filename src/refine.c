/*
 * pscr_options.refine on host arrays: k steps of iterative refinement,
 *   r = f - A u,  A d = r (the plan's solve),  u += d,
 * the residual from the plan's double copy of the factors (plan.h: fac_d,
 * fac_z, balanced exactly, so A is the caller's operator) in double or
 * double complex, also for float plans, whose u is widened first. The
 * reduction's subproblems can be far closer to singular than A itself on
 * indefinite problems (Helmholtz: Dirichlet separators without the
 * absorbing ends, docs/accuracy.md); a step of refinement with the exact
 * operator repairs what their rounding errors cost. With refine_single
 * the corrections come from a float plan of the same pencils: a correction
 * needs few digits, and the float solve costs about half a double one.
 */
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "kron.h"
#include "plan.h"
#include "team.h"

/* options.refine_single: a float plan of p's (balanced, operator-equal)
   factors and shift, with p's backend, device, threads and methods. */
static pscr_status pscr_refine_plan_create(pscr_plan *p)
{
  const int words = p->cplx ? 2 : 1;
  size_t count = 0;
  for (int d = 0; d < p->ndim; d++)
    count += 4 * (size_t)p->n[d] * (size_t)words;
  float *store = malloc(count * sizeof *store);
  if (!store)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC,
                      "cannot allocate the float factors of refine_single (%zu bytes)",
                      count * sizeof *store);
  /* factor_storage: per dimension a_diag | a_off | m_diag | m_off, n_d
     compute-type entries each (plan.c). */
  const double *src = p->factor_storage;
  for (size_t t = 0; t < count; t++)
    store[t] = (float)src[t];
  pscr_pencil pen[3];
  const float *at = store;
  for (int d = 0; d < p->ndim; d++) {
    const size_t nn = (size_t)p->n[d] * (size_t)words;
    pen[d] = (pscr_pencil){p->n[d], at, at + nn, at + 2 * nn, at + 3 * nn};
    at += 4 * nn;
  }
  const float shift[2] = {(float)p->shift[0], (float)p->shift[1]};
  pscr_options o = p->opts;
  o.backend = p->backend;
  o.refine = 0;
  o.refine_single = 0;
  o.planner = PSCR_PLANNER_NONE;
  o.method[0] = p->method[0];
  o.method[1] = p->ndim == 3 ? p->method[1] : PSCR_METHOD_AUTO;
  o.check_finite = 0;
  const pscr_status st = pscr_plan_create(&p->refine_plan, p->cplx ? PSCR_C32 : PSCR_R32,
                                          p->ndim, pen, shift, &o);
  free(store);
  if (st)
    return PSCR_ERROR(st, "refine_single: the float plan of the corrections: %s",
                      pscr_last_error());
  p->host_bytes += p->refine_plan->host_bytes;
  p->device_bytes += p->refine_plan->device_bytes;
  return PSCR_SUCCESS;
}

pscr_status pscr_refine_setup(pscr_plan *p)
{
  /* f of an in-place solve and r in dtype; A u (and for float plans u
     widened) in the compute type: host solves' buffers, so none for a
     device_only plan (the backend's refine_setup holds the device's). */
  const size_t n = p->opts.device_only ? 0 : p->total;
  const size_t parts[4] = {n * p->elem, n * p->elem, p->single ? n * p->celem : 0,
                           n * p->celem};
  size_t bytes = 0;
  for (int k = 0; k < 4; k++)
    bytes += parts[k];
  char *at = p->refine_storage = bytes ? malloc(bytes) : NULL;
  if (bytes && !at)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC,
                      "cannot allocate the refinement buffers (%zu bytes, options.refine = %d)",
                      bytes, p->opts.refine);
  p->host_bytes += bytes;
  void **slot[4] = {&p->refine_f, &p->refine_r, &p->refine_wu, &p->refine_au};
  for (int k = 0; k < 4; k++) {
    *slot[k] = parts[k] ? at : NULL;
    at += parts[k];
  }
  pscr_status st = p->opts.refine_single ? pscr_refine_plan_create(p) : PSCR_SUCCESS;
  if (st == PSCR_SUCCESS && p->ops->refine_setup)
    st = p->ops->refine_setup(p);
  return st;
}

/* r = f - A u in the compute type, r stored in dtype. */
static void pscr_refine_residual(pscr_plan *p, const void *f, const void *u, void *r)
{
  const size_t n = p->total;
  if (!p->cplx) {
    const double sh = p->shift[0];
    const double *uw = u;
    if (p->single) {
      double *w = p->refine_wu;
#pragma omp parallel for schedule(static) num_threads(p->nthreads) if (n > PSCR_PAR_MIN)
      for (size_t t = 0; t < n; t++)
        w[t] = ((const float *)u)[t];
      uw = w;
    }
    double *au = p->refine_au;
    pscr_kron_op_d(p->ndim, p->fac_d, sh, uw, au, p->nthreads);
    if (p->single) {
#pragma omp parallel for schedule(static) num_threads(p->nthreads) if (n > PSCR_PAR_MIN)
      for (size_t t = 0; t < n; t++)
        ((float *)r)[t] = (float)((double)((const float *)f)[t] - au[t]);
    } else {
#pragma omp parallel for schedule(static) num_threads(p->nthreads) if (n > PSCR_PAR_MIN)
      for (size_t t = 0; t < n; t++)
        ((double *)r)[t] = ((const double *)f)[t] - au[t];
    }
    return;
  }
  const pscr_z sh = p->shift[0] + I * p->shift[1];
  const pscr_z *uw = u;
  if (p->single) {
    pscr_z *w = p->refine_wu;
#pragma omp parallel for schedule(static) num_threads(p->nthreads) if (n > PSCR_PAR_MIN)
    for (size_t t = 0; t < n; t++)
      w[t] = ((const pscr_c *)u)[t];
    uw = w;
  }
  pscr_z *au = p->refine_au;
  pscr_kron_op_z(p->ndim, p->fac_z, sh, uw, au, p->nthreads);
  if (p->single) {
#pragma omp parallel for schedule(static) num_threads(p->nthreads) if (n > PSCR_PAR_MIN)
    for (size_t t = 0; t < n; t++)
      ((pscr_c *)r)[t] = (pscr_c)((pscr_z)((const pscr_c *)f)[t] - au[t]);
  } else {
#pragma omp parallel for schedule(static) num_threads(p->nthreads) if (n > PSCR_PAR_MIN)
    for (size_t t = 0; t < n; t++)
      ((pscr_z *)r)[t] = ((const pscr_z *)f)[t] - au[t];
  }
}

/* u += d, in dtype. */
static void pscr_refine_add(const pscr_plan *p, const void *d, void *u)
{
  const size_t words = p->total * (p->cplx ? 2 : 1);
  if (p->single) {
#pragma omp parallel for schedule(static) num_threads(p->nthreads) if (words > PSCR_PAR_MIN)
    for (size_t t = 0; t < words; t++)
      ((float *)u)[t] += ((const float *)d)[t];
  } else {
#pragma omp parallel for schedule(static) num_threads(p->nthreads) if (words > PSCR_PAR_MIN)
    for (size_t t = 0; t < words; t++)
      ((double *)u)[t] += ((const double *)d)[t];
  }
}

/* refine_single: the correction d = A^-1 r by the float plan, r (double)
   rounded to float in the A u buffer (free once r is formed), u += d. */
static pscr_status pscr_refine_single_step(pscr_plan *p, void *u)
{
  const size_t words = p->total * (p->cplx ? 2 : 1);
  const double *r = p->refine_r;
  float *rf = p->refine_au;
#pragma omp parallel for schedule(static) num_threads(p->nthreads) if (words > PSCR_PAR_MIN)
  for (size_t t = 0; t < words; t++)
    rf[t] = (float)r[t];
  const pscr_status st = p->refine_plan->ops->solve(p->refine_plan, rf, rf);
  if (st != PSCR_SUCCESS)
    return st;
#pragma omp parallel for schedule(static) num_threads(p->nthreads) if (words > PSCR_PAR_MIN)
  for (size_t t = 0; t < words; t++)
    ((double *)u)[t] += (double)rf[t];
  return PSCR_SUCCESS;
}

pscr_status pscr_refine_solve(pscr_plan *p, const void *f, void *u)
{
  const void *fk = f;
  if (f == u) {
    memcpy(p->refine_f, f, p->total * p->elem);
    fk = p->refine_f;
  }
  pscr_status st = p->ops->solve(p, f, u);
  for (int k = 0; k < p->opts.refine && st == PSCR_SUCCESS; k++) {
    pscr_refine_residual(p, fk, u, p->refine_r);
    if (p->refine_plan) {
      st = pscr_refine_single_step(p, u);
      continue;
    }
    st = p->ops->solve(p, p->refine_r, p->refine_r);
    if (st == PSCR_SUCCESS)
      pscr_refine_add(p, p->refine_r, u);
  }
  return st;
}

/* Public solve entry points: argument checks, then the plan's backend. */
#include <string.h>

#include "error.h"
#include "plan.h"

static pscr_status pscr_check_finite(const pscr_plan *p, const void *f)
{
  /* R64 and C64 are both runs of doubles: (re, im) pairs for complex. */
  const double *x = f;
  size_t count = p->total * (p->dtype == PSCR_C64 ? 2 : 1);
  for (size_t t = 0; t < count; t++)
    if (!isfinite(x[t]))
      return PSCR_ERROR(PSCR_ERROR_NON_FINITE, "f[%zu] is not finite",
                        p->dtype == PSCR_C64 ? t / 2 : t);
  return PSCR_SUCCESS;
}

pscr_status pscr_solve(pscr_plan *plan, const void *f, void *u)
{
  pscr_error_clear();
  if (!plan || !f || !u)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "%s is NULL", !plan ? "plan" : !f ? "f" : "u");
  if (plan->opts.check_finite) {
    pscr_status st = pscr_check_finite(plan, f);
    if (st)
      return st;
  }
  return plan->ops->solve(plan, f, u);
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
  return plan->ops->solve_device(plan, f, u, stream);
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

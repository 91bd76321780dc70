/* pscr_operator_apply / pscr_operator_norm_inf: A and ||A||_inf from the factors. */
#include <string.h>

#include "error.h"
#include "kron.h"

static pscr_status pscr_operator_check(pscr_dtype dtype, int ndim, const pscr_pencil *pencils,
                                       const void *shift)
{
  if (dtype != PSCR_R64 && dtype != PSCR_C64 && dtype != PSCR_R32 && dtype != PSCR_C32)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "unknown dtype %d", (int)dtype);
  if (ndim != 2 && ndim != 3)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "ndim is %d, must be 2 or 3", ndim);
  if (!pencils || !shift)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "%s is NULL", pencils ? "shift" : "pencils");
  for (int d = 0; d < ndim; d++) {
    const pscr_pencil *p = &pencils[d];
    if (p->n < 1)
      return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "pencil %d: n is %d, must be >= 1", d + 1, p->n);
    if (!p->a_diag || !p->m_diag || (p->n > 1 && !p->a_off))
      return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "pencil %d: a factor array is NULL", d + 1);
  }
  return PSCR_SUCCESS;
}

#define PSCR_FACTORS_FROM_PENCILS(SUF, SCALAR, f, pencils, ndim)                       \
  for (int d_ = 0; d_ < (ndim); d_++) {                                               \
    const pscr_pencil *q_ = &(pencils)[d_];                                           \
    f[d_] = (SUF){{q_->n, q_->a_diag, q_->n > 1 ? q_->a_off : NULL},                 \
                  {q_->n, q_->m_diag, q_->n > 1 ? q_->m_off : NULL}};                 \
  }

pscr_status pscr_operator_apply(pscr_dtype dtype, int ndim, const pscr_pencil *pencils,
                                const void *shift, const void *u, void *out)
{
  pscr_error_clear();
  pscr_status st = pscr_operator_check(dtype, ndim, pencils, shift);
  if (st)
    return st;
  if (!u || !out)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "%s is NULL", u ? "out" : "u");
  switch (dtype) {
  case PSCR_R64: {
    pscr_factor_d f[3];
    PSCR_FACTORS_FROM_PENCILS(pscr_factor_d, double, f, pencils, ndim);
    pscr_kron_op_d(ndim, f, *(const double *)shift, u, out, 0);
  } break;
  case PSCR_C64: {
    pscr_factor_z f[3];
    PSCR_FACTORS_FROM_PENCILS(pscr_factor_z, pscr_z, f, pencils, ndim);
    pscr_kron_op_z(ndim, f, *(const pscr_z *)shift, u, out, 0);
  } break;
  case PSCR_R32: {
    pscr_factor_s f[3];
    PSCR_FACTORS_FROM_PENCILS(pscr_factor_s, float, f, pencils, ndim);
    pscr_kron_op_s(ndim, f, *(const float *)shift, u, out, 0);
  } break;
  case PSCR_C32: {
    pscr_factor_c f[3];
    PSCR_FACTORS_FROM_PENCILS(pscr_factor_c, pscr_c, f, pencils, ndim);
    pscr_kron_op_c(ndim, f, *(const pscr_c *)shift, u, out, 0);
  } break;
  }
  return PSCR_SUCCESS;
}

pscr_status pscr_operator_norm_inf(pscr_dtype dtype, int ndim, const pscr_pencil *pencils,
                                   const void *shift, double *norm)
{
  pscr_error_clear();
  pscr_status st = pscr_operator_check(dtype, ndim, pencils, shift);
  if (st)
    return st;
  if (!norm)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "norm is NULL");
  switch (dtype) {
  case PSCR_R64: {
    pscr_factor_d f[3];
    PSCR_FACTORS_FROM_PENCILS(pscr_factor_d, double, f, pencils, ndim);
    *norm = pscr_kron_norm_inf_d(ndim, f, *(const double *)shift);
  } break;
  case PSCR_C64: {
    pscr_factor_z f[3];
    PSCR_FACTORS_FROM_PENCILS(pscr_factor_z, pscr_z, f, pencils, ndim);
    *norm = pscr_kron_norm_inf_z(ndim, f, *(const pscr_z *)shift);
  } break;
  case PSCR_R32: {
    pscr_factor_s f[3];
    PSCR_FACTORS_FROM_PENCILS(pscr_factor_s, float, f, pencils, ndim);
    *norm = pscr_kron_norm_inf_s(ndim, f, *(const float *)shift);
  } break;
  case PSCR_C32: {
    pscr_factor_c f[3];
    PSCR_FACTORS_FROM_PENCILS(pscr_factor_c, pscr_c, f, pencils, ndim);
    *norm = pscr_kron_norm_inf_c(ndim, f, *(const pscr_c *)shift);
  } break;
  }
  return PSCR_SUCCESS;
}

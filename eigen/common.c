/* The eigensolver's detail messages and configuration (common.h). */
#include "common.h"

#include <stdarg.h>
#include <stdio.h>

#define EIG_DETAIL_MAX 512

static _Thread_local char eig_detail[EIG_DETAIL_MAX];

const char *pscr_eigen_last_error(void) { return eig_detail; }

void pscr_eig_error_clear(void) { eig_detail[0] = '\0'; }

pscr_status pscr_eig_error(pscr_status status, const char *fmt, ...)
{
  if (status == PSCR_SUCCESS)
    return status;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(eig_detail, EIG_DETAIL_MAX, fmt, ap);
  va_end(ap);
  return status;
}

void pscr_eigen_config_default(pscr_eigen_config *cfg)
{
  if (!cfg)
    return;
  cfg->lanes = 1;
  cfg->team = -1;
  cfg->split = -1;
}

pscr_status pscr_eig_config(const pscr_eigen_config *cfg, pscr_eigen_config *out)
{
  pscr_eigen_config_default(out);
  if (!cfg)
    return PSCR_SUCCESS;
  if (cfg->lanes != 0 && cfg->lanes != 1)
    return EIG_ERROR(PSCR_ERROR_INVALID_VALUE, "config lanes is %d, not 0 or 1",
                     cfg->lanes);
  if (cfg->team < -1 || cfg->team > 1)
    return EIG_ERROR(PSCR_ERROR_INVALID_VALUE, "config team is %d, not -1, 0 or 1",
                     cfg->team);
  if (cfg->split < -1 || cfg->split > 1)
    return EIG_ERROR(PSCR_ERROR_INVALID_VALUE, "config split is %d, not -1, 0 or 1",
                     cfg->split);
  *out = *cfg;
  return PSCR_SUCCESS;
}

int pscr_eig_lanes(const pscr_eigen_config *cfg) { return cfg->lanes; }

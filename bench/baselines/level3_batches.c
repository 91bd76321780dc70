/* Level-3 launches of one pscr solve (level3_batches.h). */
#include "level3_batches.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "levels.h"
#include "plan.h"

/* One level pass of one dimension: its level, direction and eigenpairs. */
typedef struct bl_pass {
  int level, back;
  size_t e0, ne; /* eigenpairs e0 .. e0+ne-1 of the dimension's arrays */
} bl_pass;

/* Eigenpairs of level i (1-based): the stored blocks' eigenpairs are
   consecutive in level order (levels.c gives each block B.eig = running neig). */
static void level_eigs(const pscr_levels *lv, int i, size_t *e0, size_t *ne)
{
  const pscr_level *L = &lv->level[i - 1];
  *e0 = L->nblocks ? L->blocks[0].eig : 0;
  *ne = 0;
  for (int b = 0; b < L->nblocks; b++)
    *ne += (size_t)(L->blocks[b].last - L->blocks[b].first + 1);
}

/* The passes of run_dim in order: forward 1..k-1, back k..1, levels without
   blocks skipped. out: room for 2k entries. Returns the count. */
static int dim_passes(const pscr_levels *lv, bl_pass *out)
{
  int np = 0;
  for (int i = 1; i < lv->k; i++)
    if (lv->level[i - 1].nblocks > 0) {
      out[np] = (bl_pass){.level = i, .back = 0};
      level_eigs(lv, i, &out[np].e0, &out[np].ne);
      np++;
    }
  for (int i = lv->k; i >= 1; i--)
    if (lv->level[i - 1].nblocks > 0) {
      out[np] = (bl_pass){.level = i, .back = 1};
      level_eigs(lv, i, &out[np].e0, &out[np].ne);
      np++;
    }
  return np;
}

void bl_l3_list_free(bl_l3_list *list)
{
  if (!list)
    return;
  free(list->store);
  memset(list, 0, sizeof *list);
}

/* Eigenvalue e of dimension d as a complex number (real plans: im 0). */
static double complex plan_lambda(const pscr_plan *p, int d, size_t e)
{
  if (p->dtype == PSCR_R64)
    return ((const double *)p->lambda[d])[e];
  return ((const double complex *)p->lambda[d])[e];
}

pscr_status bl_l3_list_build(const pscr_plan *plan, bl_l3_list *list, char *msg, size_t len)
{
  bl_pass *pass[2] = {NULL, NULL};
  int np[2] = {0, 0};
  pscr_status st = PSCR_SUCCESS;

  if (!list) {
    snprintf(msg, len, "bl_l3_list_build: NULL list");
    return PSCR_ERROR_INVALID_VALUE;
  }
  memset(list, 0, sizeof *list);
  if (!plan) {
    snprintf(msg, len, "bl_l3_list_build: NULL plan");
    return PSCR_ERROR_INVALID_VALUE;
  }
  if (plan->dtype != PSCR_R64 && plan->dtype != PSCR_C64) {
    snprintf(msg, len, "bl_l3_list_build: only R64 and C64 plans");
    return PSCR_ERROR_NOT_SUPPORTED;
  }
  if (plan->ndim != 2 && plan->ndim != 3) {
    snprintf(msg, len, "bl_l3_list_build: ndim is %d", plan->ndim);
    return PSCR_ERROR_INVALID_VALUE;
  }
  for (int d = 0; d < plan->ndim - 1; d++)
    if (plan->method[d] != PSCR_METHOD_REDUCTION) {
      /* The launches are the reduction's level 3: a transformed dimension
         has no levels (plan->lv[d] is empty). */
      snprintf(msg, len, "bl_l3_list_build: dimension %d is transformed, not reduced", d + 1);
      return PSCR_ERROR_NOT_SUPPORTED;
    }
  const int ndim = plan->ndim, cplx = plan->dtype == PSCR_C64, l = ndim - 1;
  const size_t words = cplx ? 2 : 1, n = (size_t)plan->n[l];

  for (int d = 0; d < ndim - 1; d++) {
    pass[d] = malloc(2 * (size_t)plan->lv[d].k * sizeof *pass[d]);
    if (!pass[d]) {
      snprintf(msg, len, "bl_l3_list_build: pass table");
      st = PSCR_ERROR_HOST_ALLOC;
      goto out;
    }
    np[d] = dim_passes(&plan->lv[d], pass[d]);
  }

  /* Count launches and systems, then one allocation for everything. */
  int nlaunch = ndim == 2 ? np[0] : np[0] * np[1];
  size_t total_sys = 0, max_sys = 0;
  for (int a = 0; a < np[0]; a++)
    for (int b = 0; b < (ndim == 2 ? 1 : np[1]); b++) {
      size_t s = pass[0][a].ne * (ndim == 2 ? 1 : pass[1][b].ne);
      total_sys += s;
      max_sys = s > max_sys ? s : max_sys;
    }
  const size_t launch_bytes = ((size_t)(nlaunch > 0 ? nlaunch : 1) * sizeof(bl_l3_launch) + 63) /
                              64 * 64;
  const size_t shift_doubles = (total_sys ? total_sys : 1) * words;
  const size_t fac_doubles = 4 * n * words;
  char *store = malloc(launch_bytes + (shift_doubles + fac_doubles) * sizeof(double));
  if (!store) {
    snprintf(msg, len, "bl_l3_list_build: %zu shifts", total_sys);
    st = PSCR_ERROR_HOST_ALLOC;
    goto out;
  }
  list->store = store;
  list->launch = (bl_l3_launch *)store;
  list->shift = (double *)(store + launch_bytes);
  double *fac = list->shift + shift_doubles;
  list->ndim = ndim;
  list->cplx = cplx;
  list->n = (int)n;
  list->nlaunch = nlaunch;
  list->total_sys = total_sys;
  list->total_rows = total_sys * n;
  list->max_sys = max_sys;

  /* The last dimension's pencil, off-diagonals padded to n. fac_d views the
     factor storage as doubles for both dtypes (complex: re, im pairs). */
  {
    const pscr_factor_d *F = &plan->fac_d[l];
    const double *src[4] = {F->a.diag, F->a.off, F->m.diag, F->m.off};
    for (int k = 0; k < 4; k++) {
      double *dst = fac + (size_t)k * n * words;
      const size_t count = (k % 2 == 0 ? n : n - 1) * words;
      for (size_t t = 0; t < n * words; t++)
        dst[t] = t < count && src[k] ? src[k][t] : 0.0;
    }
    list->ad = fac;
    list->ao = fac + n * words;
    list->md = fac + 2 * n * words;
    list->mo = fac + 3 * n * words;
  }

  /* The launches and their shifts, in solve order. */
  const double complex c = CMPLX(plan->shift[0], cplx ? plan->shift[1] : 0.0);
  size_t at = 0;
  int li = 0, finite = 1;
  for (int a = 0; a < np[0]; a++) {
    const bl_pass *P0 = &pass[0][a];
    for (int b = 0; b < (ndim == 2 ? 1 : np[1]); b++) {
      const bl_pass *P1 = ndim == 3 ? &pass[1][b] : NULL;
      const size_t ne1 = P1 ? P1->ne : 1;
      bl_l3_launch *L = &list->launch[li++];
      *L = (bl_l3_launch){.nsys = P0->ne * ne1,
                          .shift0 = at,
                          .level0 = P0->level,
                          .back0 = P0->back,
                          .level1 = P1 ? P1->level : 0,
                          .back1 = P1 ? P1->back : 0};
      for (size_t e0 = 0; e0 < P0->ne; e0++) {
        /* The same association as the CUDA backend: (c + lambda0) + lambda1. */
        const double complex cb = c + plan_lambda(plan, 0, P0->e0 + e0);
        for (size_t e1 = 0; e1 < ne1; e1++) {
          const double complex s = P1 ? cb + plan_lambda(plan, 1, P1->e0 + e1) : cb;
          finite &= isfinite(creal(s)) && isfinite(cimag(s));
          if (cplx) {
            list->shift[2 * at] = creal(s);
            list->shift[2 * at + 1] = cimag(s);
          } else {
            list->shift[at] = creal(s);
          }
          at++;
        }
      }
    }
  }
  if (!finite) {
    snprintf(msg, len, "bl_l3_list_build: a shift c + lambda overflowed");
    st = PSCR_ERROR_NON_FINITE;
  }
out:
  free(pass[0]);
  free(pass[1]);
  if (st != PSCR_SUCCESS)
    bl_l3_list_free(list);
  return st;
}

pscr_status bl_l3_list_verify(const pscr_plan *plan, const bl_l3_list *list, char *msg,
                              size_t len)
{
  if (!plan || !list || !list->store) {
    snprintf(msg, len, "bl_l3_list_verify: NULL plan or empty list");
    return PSCR_ERROR_INVALID_VALUE;
  }
  /* Systems per dimension: every level's eigenpairs twice (forward and
     back), the top level's once (it has no forward pass). */
  size_t expect = 1;
  for (int d = 0; d < plan->ndim - 1; d++) {
    const pscr_levels *lv = &plan->lv[d];
    size_t e0, ne_top;
    level_eigs(lv, lv->k, &e0, &ne_top);
    expect *= 2 * lv->neig - ne_top;
  }
  if (expect != list->total_sys) {
    snprintf(msg, len, "total systems %zu, expected %zu from the plan's eigenpair counts",
             list->total_sys, expect);
    return PSCR_ERROR_INVALID_VALUE;
  }
  if (list->total_rows != list->total_sys * (size_t)plan->n[plan->ndim - 1] ||
      list->n != plan->n[plan->ndim - 1]) {
    snprintf(msg, len, "total rows %zu != systems %zu x n %d", list->total_rows,
             list->total_sys, plan->n[plan->ndim - 1]);
    return PSCR_ERROR_INVALID_VALUE;
  }
  size_t at = 0, sum = 0;
  for (int i = 0; i < list->nlaunch; i++) {
    const bl_l3_launch *L = &list->launch[i];
    if (L->shift0 != at || L->nsys == 0 || L->nsys > list->max_sys) {
      snprintf(msg, len, "launch %d: shift0 %zu (expected %zu), nsys %zu", i, L->shift0, at,
               L->nsys);
      return PSCR_ERROR_INVALID_VALUE;
    }
    at += L->nsys;
    sum += L->nsys;
    if (plan->ndim == 2) {
      /* c + the level's eigenvalues in eigenpair order. */
      size_t e0, ne;
      level_eigs(&plan->lv[0], L->level0, &e0, &ne);
      if (ne != L->nsys) {
        snprintf(msg, len, "launch %d (level %d): %zu systems, the level has %zu eigenpairs", i,
                 L->level0, L->nsys, ne);
        return PSCR_ERROR_INVALID_VALUE;
      }
      for (size_t e = 0; e < ne; e++) {
        double complex want = CMPLX(plan->shift[0], list->cplx ? plan->shift[1] : 0.0) +
                              plan_lambda(plan, 0, e0 + e);
        const double *s = list->shift + (L->shift0 + e) * (list->cplx ? 2 : 1);
        double complex got = CMPLX(s[0], list->cplx ? s[1] : 0.0);
        if (got != want) {
          snprintf(msg, len, "launch %d, system %zu: shift %g%+gi, expected %g%+gi", i, e,
                   creal(got), cimag(got), creal(want), cimag(want));
          return PSCR_ERROR_INVALID_VALUE;
        }
      }
    }
  }
  if (sum != list->total_sys) {
    snprintf(msg, len, "launches hold %zu systems, total_sys is %zu", sum, list->total_sys);
    return PSCR_ERROR_INVALID_VALUE;
  }
  return PSCR_SUCCESS;
}

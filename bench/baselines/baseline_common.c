/* Spectrum of a Kronecker-sum operator with Toeplitz pencils (baseline_common.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline_common.h"

#define BL_PI 3.14159265358979323846

/* Toeplitz within this many ulps of the first entry (uniform meshes are exact). */
#define BL_TOEPLITZ_ULPS 8.0

/* x[0..n) all equal x[0] to BL_TOEPLITZ_ULPS relative ulps; x == NULL counts as zeros. */
static int is_constant(const double *x, int n)
{
  for (int i = 1; x && i < n; i++)
    if (!(fabs(x[i] - x[0]) <= BL_TOEPLITZ_ULPS * 0x1p-52 * fabs(x[0])))
      return 0;
  return 1;
}

pscr_status bl_spectrum_init(bl_spectrum *s, int ndim, const pscr_pencil *pencils,
                             double shift, char *msg, size_t len)
{
  size_t total = 0;

  memset(s, 0, sizeof *s);
  if ((ndim != 2 && ndim != 3) || !pencils) {
    snprintf(msg, len, "ndim = %d (2 or 3) and pencils %p", ndim, (const void *)pencils);
    return PSCR_ERROR_INVALID_VALUE;
  }
  s->ndim = ndim;
  s->shift = shift;
  for (int d = 0; d < 3; d++) {
    s->n[d] = d < ndim ? pencils[d].n : 1;
    if (s->n[d] < 1) {
      snprintf(msg, len, "pencil %d: n = %d < 1", d + 1, s->n[d]);
      return PSCR_ERROR_INVALID_VALUE;
    }
    total += 2 * (size_t)s->n[d];
  }
  for (int d = 0; d < ndim; d++) {
    const pscr_pencil *p = &pencils[d];
    int n = p->n;
    if (!p->a_diag || !p->m_diag || (n > 1 && !p->a_off)) {
      snprintf(msg, len, "pencil %d: NULL factor array", d + 1);
      return PSCR_ERROR_INVALID_VALUE;
    }
    if (!is_constant(p->a_diag, n) || !is_constant(p->a_off, n - 1) ||
        !is_constant(p->m_diag, n) || !is_constant(p->m_off, n - 1)) {
      snprintf(msg, len,
               "pencil %d is not Toeplitz (a non-uniform mesh?): the DST-I does not "
               "diagonalize it",
               d + 1);
      return PSCR_ERROR_NOT_SUPPORTED;
    }
  }
  s->store = malloc(total * sizeof *s->store);
  if (!s->store) {
    snprintf(msg, len, "spectrum: %zu doubles", total);
    return PSCR_ERROR_HOST_ALLOC;
  }
  double *next = s->store;
  for (int d = 0; d < 3; d++) {
    int n = s->n[d];
    s->a[d] = next;
    s->m[d] = next + n;
    next += 2 * (size_t)n;
    if (d >= ndim) { /* the size-1 third dimension of a 2D problem */
      s->a[d][0] = 0.0;
      s->m[d][0] = 1.0;
      continue;
    }
    const pscr_pencil *p = &pencils[d];
    const double *ad = p->a_diag, *ao_ = p->a_off, *md = p->m_diag, *mo_ = p->m_off;
    double ag = ad[0], ao = n > 1 ? ao_[0] : 0.0;
    double mg = md[0], mo = n > 1 && mo_ ? mo_[0] : 0.0;
    double scale = 2.0 * (n + 1);
    for (int k = 0; k < n; k++) {
      /* g + 2 o cos(t) = (g + 2 o) - 4 o sin^2(t/2): no cancellation for the
       * small eigenvalues of A (g + 2 o = 0 for Poisson). */
      double sn = sin(0.5 * BL_PI * (k + 1) / (n + 1)), s2 = 4.0 * sn * sn;
      s->a[d][k] = scale * ((ag + 2.0 * ao) - ao * s2);
      s->m[d][k] = scale * ((mg + 2.0 * mo) - mo * s2);
    }
  }
  /* Without a shift and with positive 1D eigenvalues lambda > 0; otherwise look. */
  int positive = shift == 0.0;
  for (int d = 0; d < ndim && positive; d++)
    for (int k = 0; k < s->n[d]; k++)
      positive &= s->a[d][k] > 0 && s->m[d][k] > 0;
  for (int k1 = 0; !positive && k1 < s->n[0]; k1++)
    for (int k2 = 0; k2 < s->n[1]; k2++)
      for (int k3 = 0; k3 < s->n[2]; k3++)
        if (bl_lambda(s->a[0], s->m[0], s->a[1], s->m[1], s->a[2], s->m[2], shift, k1, k2,
                      k3) == 0.0) {
          snprintf(msg, len, "the operator is singular: eigenvalue (%d, %d, %d) is 0", k1 + 1,
                   k2 + 1, k3 + 1);
          bl_spectrum_free(s);
          return PSCR_ERROR_SINGULAR;
        }
  return PSCR_SUCCESS;
}

void bl_spectrum_free(bl_spectrum *s)
{
  free(s->store);
  memset(s, 0, sizeof *s);
}

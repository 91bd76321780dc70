/*
 * One-dimensional factor builders of the paper's test problems (section 5.1)
 * and the meshes they live on.
 *
 *   Poisson (eq. 31): piecewise-linear FE on the n nodes strictly inside a
 *   mesh of n+1 steps, lumped mass.
 *   Helmholtz (eqs. 33-35): bilinear FE on n nodes including both boundary
 *   nodes, consistent mass, second-order absorbing boundary condition in the
 *   first and last rows.
 *
 * Complex arrays are interleaved (re, im) doubles.
 */
#include <math.h>
#include <stddef.h>

#include "error.h"
#include "pscr.h"
#include "problems_impl.h"

/* Every step finite (else NON_FINITE) and positive (else INVALID_VALUE). */
static pscr_status check_steps(int nsteps, const double *h)
{
  for (int i = 0; i < nsteps; i++) {
    if (!isfinite(h[i]))
      return PSCR_ERROR(PSCR_ERROR_NON_FINITE, "mesh step h[%d] is %g, not finite", i, h[i]);
    if (!(h[i] > 0))
      return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "mesh step h[%d] is %g, must be > 0", i,
                        h[i]);
  }
  return PSCR_SUCCESS;
}

pscr_status pscr_poisson_factors(int n, const double *h, double *a_diag, double *a_off,
                                 double *m_diag, double *m_off)
{
  pscr_status st;

  pscr_error_clear();
  if (n < 1)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "n is %d, must be >= 1", n);
  if (!h || !a_diag || !m_diag || (n > 1 && !a_off))
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "%s is NULL",
                      !h ? "h" : !a_diag ? "a_diag" : !m_diag ? "m_diag" : "a_off");
  st = check_steps(n + 1, h);
  if (st != PSCR_SUCCESS)
    return st;

  /* Node l lies between steps h[l] and h[l+1] (eq. 31, 0-based). */
  for (int l = 0; l < n; l++) {
    a_diag[l] = 1.0 / h[l] + 1.0 / h[l + 1];
    m_diag[l] = 0.5 * (h[l] + h[l + 1]);
  }
  for (int l = 0; l + 1 < n; l++) {
    a_off[l] = -1.0 / h[l + 1];
    if (m_off)
      m_off[l] = 0.0;
  }
  return PSCR_SUCCESS;
}

pscr_status pscr_helmholtz_factors(int n, const double *h, double omega, double *a_diag,
                                   double *a_off, double *m_diag, double *m_off)
{
  pscr_status st;

  pscr_error_clear();
  if (n < 2)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "n is %d, must be >= 2", n);
  if (!h || !a_diag || !a_off || !m_diag || !m_off)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "%s is NULL",
                      !h        ? "h"
                      : !a_diag ? "a_diag"
                      : !a_off  ? "a_off"
                      : !m_diag ? "m_diag"
                                : "m_off");
  if (!isfinite(omega))
    return PSCR_ERROR(PSCR_ERROR_NON_FINITE, "omega is %g, not finite", omega);
  if (!(omega > 0))
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "omega is %g, must be > 0", omega);
  st = check_steps(n - 1, h);
  if (st != PSCR_SUCCESS)
    return st;

  /*
   * Eq. 35, node l between steps h[l-1] and h[l] (0-based):
   *   b_l = 1/h[l-1] + 1/h[l],  d_l = (h[l-1] + h[l]) / 3   (interior),
   *   b_0 = 1/h[0] - i w/2,     d_0 = h[0]/3 + i/(2 w)       (and the last node),
   *   a_l = -1/h[l],            c_l = h[l]/6.
   */
  for (int l = 0; l < n; l++) {
    int end = l == 0 || l == n - 1;
    double left = l > 0 ? h[l - 1] : 0.0, right = l < n - 1 ? h[l] : 0.0;

    a_diag[2 * l] = (l > 0 ? 1.0 / left : 0.0) + (l < n - 1 ? 1.0 / right : 0.0);
    a_diag[2 * l + 1] = end ? -0.5 * omega : 0.0;
    m_diag[2 * l] = (left + right) / 3.0;
    m_diag[2 * l + 1] = end ? 0.5 / omega : 0.0;
  }
  for (int l = 0; l + 1 < n; l++) {
    a_off[2 * l] = -1.0 / h[l];
    a_off[2 * l + 1] = 0.0;
    m_off[2 * l] = h[l] / 6.0;
    m_off[2 * l + 1] = 0.0;
  }
  return PSCR_SUCCESS;
}

/*
 * Mesh map phi(t) = t - g sin(2 pi t) / (2 pi), phi(0) = 0 and phi(1) = 1
 * exactly; phi'(t) = 1 - g cos(2 pi t), so steps are finest (factor 1 - g)
 * at both ends.
 */
static double mesh_phi(double t, double grading)
{
  if (t <= 0.0)
    return 0.0;
  if (t >= 1.0)
    return 1.0;
  return t - grading * sin(2.0 * PSCR_PI * t) / (2.0 * PSCR_PI);
}

pscr_status pscr_mesh_steps_(int nsteps, double length, double grading, double *h)
{
  if (grading == 0.0) {
    for (int i = 0; i < nsteps; i++)
      h[i] = length / nsteps;
    return PSCR_SUCCESS;
  }
  /* Steps as differences of node positions, so sum(h) telescopes to length. */
  double x0 = 0.0;
  for (int i = 0; i < nsteps; i++) {
    double x1 = i + 1 == nsteps ? length : length * mesh_phi((double)(i + 1) / nsteps, grading);
    h[i] = x1 - x0;
    if (!(h[i] > 0))
      return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE,
                        "grading %.17g is too close to 1 for %d steps: mesh step %d is %g",
                        grading, nsteps, i, h[i]);
    x0 = x1;
  }
  return PSCR_SUCCESS;
}

/* Shared checks of the two mesh builders. */
static pscr_status check_mesh_args(int nsteps, double length, double *h)
{
  if (!h)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "h is NULL");
  if (nsteps < 1)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "nsteps is %d, must be >= 1", nsteps);
  if (!(length > 0) || !isfinite(length))
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "length is %g, must be > 0 and finite",
                      length);
  return PSCR_SUCCESS;
}

pscr_status pscr_mesh_uniform(int nsteps, double length, double *h)
{
  pscr_status st;

  pscr_error_clear();
  st = check_mesh_args(nsteps, length, h);
  if (st != PSCR_SUCCESS)
    return st;
  return pscr_mesh_steps_(nsteps, length, 0.0, h);
}

pscr_status pscr_mesh_graded(int nsteps, double length, double grading, double *h)
{
  pscr_status st;

  pscr_error_clear();
  st = check_mesh_args(nsteps, length, h);
  if (st != PSCR_SUCCESS)
    return st;
  if (!(grading >= 0.0 && grading < 1.0))
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "grading is %g, not in [0, 1)",
                      grading);
  return pscr_mesh_steps_(nsteps, length, grading, h);
}

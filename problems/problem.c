/*
 * The paper's model problems (section 5.1) as ready-to-solve objects:
 * factors, shift, node coordinates, FE load vectors and manufactured
 * solutions. Real (Poisson) and complex (Helmholtz) share one code path:
 * an element is `comps` doubles (1 or 2, interleaved re, im).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "pscr.h"
#include "problems_impl.h"

/* Doubles per element of the problem's dtype. */
static int problem_comps(const pscr_problem *p) { return p->dtype == PSCR_C64 ? 2 : 1; }

/* Steps of dimension d's mesh: n+1 (Poisson, interior unknowns) or n-1 (Helmholtz). */
static int problem_steps(pscr_problem_kind kind, int n)
{
  return kind == PSCR_PROBLEM_POISSON ? n + 1 : n - 1;
}

/* Doubles of owned storage for one dimension: x, h, a_diag, a_off, m_diag (, m_off). */
static size_t dim_doubles(pscr_problem_kind kind, int n)
{
  size_t nn = (size_t)n;
  if (kind == PSCR_PROBLEM_POISSON)
    return nn + (nn + 1) + nn + (nn - 1) + nn;
  return nn + (nn - 1) + 2 * nn + 2 * (nn - 1) + 2 * nn + 2 * (nn - 1);
}

/* Lay out dimension d in mem, build its mesh, coordinates and factors. */
static pscr_status build_dim(pscr_problem *p, int d, double grading, double *mem)
{
  pscr_problem_kind kind = p->kind;
  int n = p->n[d], nsteps = problem_steps(kind, n), comps = problem_comps(p);
  double *x = mem, *h = x + n;
  double *a_diag = h + nsteps, *a_off = a_diag + (size_t)comps * n;
  double *m_diag = a_off + (size_t)comps * (n - 1);
  double *m_off = kind == PSCR_PROBLEM_HELMHOLTZ ? m_diag + (size_t)comps * n : NULL;
  pscr_status st;

  st = pscr_mesh_steps_(nsteps, p->length[d], grading, h);
  if (st != PSCR_SUCCESS)
    return st;

  /* Poisson: x_l = h_0 + ... + h_l (interior nodes); Helmholtz: x_0 = 0, all nodes. */
  double s = 0.0;
  if (kind == PSCR_PROBLEM_POISSON) {
    for (int l = 0; l < n; l++)
      x[l] = s += h[l];
    st = pscr_poisson_factors(n, h, a_diag, a_off, m_diag, NULL);
  } else {
    x[0] = 0.0;
    for (int l = 1; l < n; l++)
      x[l] = s += h[l - 1];
    st = pscr_helmholtz_factors(n, h, p->omega, a_diag, a_off, m_diag, m_off);
  }
  if (st != PSCR_SUCCESS)
    return st;

  p->x[d] = x;
  p->h[d] = h;
  p->pencils[d].n = n;
  p->pencils[d].a_diag = a_diag;
  p->pencils[d].a_off = a_off;
  p->pencils[d].m_diag = m_diag;
  p->pencils[d].m_off = m_off;
  return PSCR_SUCCESS;
}

pscr_status pscr_problem_create(pscr_problem **problem, pscr_problem_kind kind, int ndim,
                                const int *n, const double *length, double grading,
                                double omega)
{
  pscr_problem *p;
  double *mem;
  size_t total = 0;
  pscr_status st;
  int nmin;

  pscr_error_clear();
  if (!problem)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "problem is NULL");
  *problem = NULL;
  if (kind != PSCR_PROBLEM_POISSON && kind != PSCR_PROBLEM_HELMHOLTZ)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "unknown kind %d", (int)kind);
  if (ndim != 2 && ndim != 3)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "ndim is %d, must be 2 or 3", ndim);
  if (!n)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "n is NULL");
  nmin = kind == PSCR_PROBLEM_POISSON ? 1 : 2;
  for (int d = 0; d < ndim; d++) {
    if (n[d] < nmin)
      return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "n[%d] is %d, must be >= %d%s", d, n[d],
                        nmin, nmin > 1 ? " for Helmholtz" : "");
    if (length && !(length[d] > 0 && isfinite(length[d])))
      return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE,
                        "length[%d] is %g, must be > 0 and finite", d, length[d]);
    total += dim_doubles(kind, n[d]);
  }
  if (!(grading >= 0.0 && grading < 1.0))
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "grading is %g, not in [0, 1)", grading);
  if (kind == PSCR_PROBLEM_HELMHOLTZ && !(omega > 0 && isfinite(omega)))
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "omega is %g, must be > 0 and finite", omega);
  if (total > SIZE_MAX / sizeof(double))
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "the problem's %zu doubles overflow size_t",
                      total);

  p = calloc(1, sizeof *p);
  if (!p)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate the problem struct");
  mem = malloc(total * sizeof *mem);
  if (!mem) {
    st = PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate the problem's %zu bytes",
                    total * sizeof *mem);
    goto out_free_problem;
  }

  p->kind = kind;
  p->dtype = kind == PSCR_PROBLEM_POISSON ? PSCR_R64 : PSCR_C64;
  p->ndim = ndim;
  p->n[0] = p->n[1] = p->n[2] = 1;
  p->omega = kind == PSCR_PROBLEM_HELMHOLTZ ? omega : 0.0;
  p->shift[0] = kind == PSCR_PROBLEM_HELMHOLTZ ? -omega * omega : 0.0;
  p->shift[1] = 0.0;
  p->storage = mem;

  double *next = mem;
  for (int d = 0; d < ndim; d++) {
    p->n[d] = n[d];
    p->length[d] = length ? length[d] : 1.0;
    st = build_dim(p, d, grading, next);
    if (st != PSCR_SUCCESS)
      goto out_free_mem;
    next += dim_doubles(kind, n[d]);
  }

  *problem = p;
  return PSCR_SUCCESS;

out_free_mem:
  free(mem);
out_free_problem:
  free(p);
  return st;
}

void pscr_problem_destroy(pscr_problem *problem)
{
  if (!problem)
    return;
  free(problem->storage);
  free(problem);
}

/* Enough of a problem to index into it (guards hand-made or destroyed structs). */
static pscr_status check_problem(const pscr_problem *p)
{
  if (!p)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "problem is NULL");
  if (p->ndim != 2 && p->ndim != 3)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "problem ndim is %d, not 2 or 3", p->ndim);
  if (p->dtype != PSCR_R64 && p->dtype != PSCR_C64)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "problem dtype %d is not R64 or C64",
                      (int)p->dtype);
  for (int d = 0; d < p->ndim; d++)
    if (p->n[d] < 1 || !p->x[d] || !p->pencils[d].m_diag)
      return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "problem dimension %d is not built", d);
  return PSCR_SUCCESS;
}

/* Total unknowns; n[2] = 1 in 2D. */
static size_t problem_size(const pscr_problem *p)
{
  return (size_t)p->n[0] * (size_t)p->n[1] * (size_t)(p->ndim == 3 ? p->n[2] : 1);
}

/* u_i = g(x_i), layout (i1*n2 + i2)*n3 + i3, comps doubles per element. */
static void sample(const pscr_problem *p, pscr_field_fn g, void *ctx, double *u)
{
  int comps = problem_comps(p), n3 = p->ndim == 3 ? p->n[2] : 1;
  double x[3] = {0.0, 0.0, 0.0};
  size_t idx = 0;

  for (int i1 = 0; i1 < p->n[0]; i1++) {
    x[0] = p->x[0][i1];
    for (int i2 = 0; i2 < p->n[1]; i2++) {
      x[1] = p->x[1][i2];
      for (int i3 = 0; i3 < n3; i3++, idx++) {
        if (p->ndim == 3)
          x[2] = p->x[2][i3];
        g(x, ctx, u + idx * (size_t)comps);
      }
    }
  }
}

/*
 * out = (I (x) Mf_d (x) I) in: the FE load mass of dimension d, i.e. the real
 * part of the pencil's M (lumped for Poisson; consistent for Helmholtz, whose
 * ABC terms i/(2 w) are purely imaginary). Along dimension d an element sits
 * `inner` doubles after its predecessor.
 */
static void apply_load_mass(const pscr_problem *p, int d, const double *in, double *out)
{
  int comps = problem_comps(p), len = p->n[d];
  const double *md = p->pencils[d].m_diag, *mo = p->pencils[d].m_off;
  size_t outer = 1, inner = (size_t)comps;

  for (int e = 0; e < d; e++)
    outer *= (size_t)p->n[e];
  for (int e = d + 1; e < p->ndim; e++)
    inner *= (size_t)p->n[e];

  for (size_t o = 0; o < outer; o++) {
    for (int i = 0; i < len; i++) {
      size_t base = (o * (size_t)len + (size_t)i) * inner;
      const double *xi = in + base;
      double *y = out + base;
      double dd = md[(size_t)i * comps];

      for (size_t k = 0; k < inner; k++)
        y[k] = dd * xi[k];
      if (mo && i > 0) {
        double lo = mo[(size_t)(i - 1) * comps];
        for (size_t k = 0; k < inner; k++)
          y[k] += lo * xi[k - inner];
      }
      if (mo && i + 1 < len) {
        double up = mo[(size_t)i * comps];
        for (size_t k = 0; k < inner; k++)
          y[k] += up * xi[k + inner];
      }
    }
  }
}

pscr_status pscr_problem_load(const pscr_problem *problem, pscr_field_fn g, void *ctx, void *b)
{
  double *cur, *other, *scratch;
  size_t count;
  pscr_status st;

  pscr_error_clear();
  st = check_problem(problem);
  if (st != PSCR_SUCCESS)
    return st;
  if (!g || !b)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "%s is NULL", !g ? "g" : "b");

  count = problem_size(problem) * (size_t)problem_comps(problem);
  scratch = malloc(count * sizeof *scratch);
  if (!scratch)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate %zu bytes of scratch",
                      count * sizeof *scratch);

  /* Nodal values, then one mass factor per dimension, ping-ponging b <-> scratch. */
  cur = b;
  other = scratch;
  sample(problem, g, ctx, cur);
  for (int d = 0; d < problem->ndim; d++) {
    double *t;
    apply_load_mass(problem, d, cur, other);
    t = cur;
    cur = other;
    other = t;
  }
  if (cur != (double *)b)
    memcpy(b, cur, count * sizeof *cur);

  free(scratch);
  return PSCR_SUCCESS;
}

pscr_status pscr_problem_sample(const pscr_problem *problem, pscr_field_fn g, void *ctx,
                                void *u)
{
  pscr_status st;

  pscr_error_clear();
  st = check_problem(problem);
  if (st != PSCR_SUCCESS)
    return st;
  if (!g || !u)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "%s is NULL", !g ? "g" : "u");
  sample(problem, g, ctx, u);
  return PSCR_SUCCESS;
}

/* ---------------------------------------------------------------------------
 * Manufactured solutions. ctx is the problem (read only).
 *
 * Poisson:   u = prod_d sin(a_d x_d),  a_d = pi / L_d,
 *            f = -lap u = (sum_d a_d^2) u.
 * Helmholtz: u = (1 + i) prod_d s_d,   s_d = sin^2(a_d x_d),
 *            s_d'' = 2 a_d^2 cos(2 a_d x_d),
 *            f = -lap u - w^2 u = (1 + i) (-sum_d s_d'' prod_{e != d} s_e - w^2 prod_d s_d).
 */
static void poisson_exact(const double *x, void *ctx, double *value)
{
  const pscr_problem *p = ctx;
  double u = 1.0;

  for (int d = 0; d < p->ndim; d++)
    u *= sin(PSCR_PI * x[d] / p->length[d]);
  value[0] = u;
}

static void poisson_rhs(const double *x, void *ctx, double *value)
{
  const pscr_problem *p = ctx;
  double k2 = 0.0;

  poisson_exact(x, ctx, value);
  for (int d = 0; d < p->ndim; d++) {
    double a = PSCR_PI / p->length[d];
    k2 += a * a;
  }
  value[0] *= k2;
}

static void helmholtz_exact(const double *x, void *ctx, double *value)
{
  const pscr_problem *p = ctx;
  double u = 1.0;

  for (int d = 0; d < p->ndim; d++) {
    double s = sin(PSCR_PI * x[d] / p->length[d]);
    u *= s * s;
  }
  value[0] = u;
  value[1] = u;
}

static void helmholtz_rhs(const double *x, void *ctx, double *value)
{
  const pscr_problem *p = ctx;
  double s2[3], dd[3], prod = 1.0, lap = 0.0, f;

  for (int d = 0; d < p->ndim; d++) {
    double a = PSCR_PI / p->length[d], s = sin(a * x[d]);
    s2[d] = s * s;
    dd[d] = 2.0 * a * a * cos(2.0 * a * x[d]);
    prod *= s2[d];
  }
  for (int d = 0; d < p->ndim; d++) {
    double t = dd[d];
    for (int e = 0; e < p->ndim; e++)
      if (e != d)
        t *= s2[e];
    lap += t;
  }
  f = -lap - p->omega * p->omega * prod;
  value[0] = f;
  value[1] = f;
}

pscr_status pscr_problem_manufactured(const pscr_problem *problem, void *b, void *u_exact)
{
  pscr_field_fn exact, rhs;
  void *ctx = (void *)problem; /* the fields only read it */
  pscr_status st;

  pscr_error_clear();
  st = check_problem(problem);
  if (st != PSCR_SUCCESS)
    return st;
  switch (problem->kind) {
  case PSCR_PROBLEM_POISSON:
    exact = poisson_exact;
    rhs = poisson_rhs;
    break;
  case PSCR_PROBLEM_HELMHOLTZ:
    exact = helmholtz_exact;
    rhs = helmholtz_rhs;
    break;
  default:
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "unknown kind %d", (int)problem->kind);
  }
  if ((problem->kind == PSCR_PROBLEM_POISSON) != (problem->dtype == PSCR_R64))
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "kind %d does not match dtype %d",
                      (int)problem->kind, (int)problem->dtype);
  if (b) {
    st = pscr_problem_load(problem, rhs, ctx, b);
    if (st != PSCR_SUCCESS)
      return st;
  }
  if (u_exact)
    sample(problem, exact, ctx, u_exact);
  return PSCR_SUCCESS;
}

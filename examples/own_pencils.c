/*
 * pscr-own-pencils: build your OWN pencils, without pscr's problem builders.
 *
 * Problem: -u_xx - u_yy + c u = f on (0,1)^2, u = 0 on the boundary, with
 * c = 1 and f such that u = sin(pi x) sin(pi y) (so f = (2 pi^2 + c) u).
 * Piecewise-linear finite elements on a graded tensor mesh of n1 x n2
 * interior nodes (any sizes), lumped mass. The 2D matrix is
 *
 *   A = A1 (x) M2 + M1 (x) A2 + c M1 (x) M2
 *
 * with (Ad, Md) the 1D stiffness and (lumped) mass matrices of dimension d:
 * each pencil is two tridiagonal matrices of order n_d, and c is the shift.
 *
 *   pscr-own-pencils [--test] [N1 N2]     (default 47 30; N in 16..100000)
 *
 * It solves at N1 x N2 and at the mesh refined once (2 N + 1 nodes: every
 * step halved), and checks the backward error of each solve and that the
 * error against u falls like h^2 (ratio about 4; from N = 16 the meshes
 * resolve u well enough for that, coarser ones need not). Exit status: 0, 1 when a
 * check fails, 2 on a bad command line. --test is the ctest case (the
 * same checks; the exit status tells).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pscr.h>

static const double PI = 3.14159265358979323846, C = 1.0; /* C: the shift c */

/* Mesh steps of n interior nodes on (0,1): n + 1 steps h[0..n] between
 * x_k = t - 0.4 sin(2 pi t) / (2 pi), t = k / (n + 1): finer near both ends. */
static void graded_steps(int n, double *h)
{
  for (int k = 0; k <= n; k++) {
    double t0 = (double)k / (n + 1), t1 = (double)(k + 1) / (n + 1);
    h[k] = (t1 - 0.4 * sin(2 * PI * t1) / (2 * PI)) - (t0 - 0.4 * sin(2 * PI * t0) / (2 * PI));
  }
}

/* One size: build, solve, check. Returns 0 and the max-norm error, or 1. */
static int solve(int n1, int n2, double *err)
{
  const int n[2] = {n1, n2};
  const size_t N = (size_t)n1 * n2;
  /* Per dimension: n + 1 steps, then the pencil's arrays. The entries are
   * double because the plan's dtype is PSCR_R64 (PSCR_C64: double complex;
   * R32 / C32: float). a_off has n - 1 entries: a_off[i] couples nodes i and
   * i + 1. m_off (also n - 1 entries) is NULL: a lumped mass is diagonal
   * (a consistent one would have h / 6 off the diagonal). */
  double *h[2], *a_diag[2], *a_off[2], *m_diag[2], *x[2];
  pscr_pencil pen[2];
  for (int d = 0; d < 2; d++) {
    h[d] = malloc((size_t)(n[d] + 1) * sizeof(double));
    a_diag[d] = malloc((size_t)n[d] * sizeof(double));
    a_off[d] = malloc((size_t)(n[d] - 1) * sizeof(double));
    m_diag[d] = malloc((size_t)n[d] * sizeof(double));
    x[d] = malloc((size_t)n[d] * sizeof(double));
    if (!h[d] || !a_diag[d] || !a_off[d] || !m_diag[d] || !x[d])
      return 1; /* (an example: out of memory ends the program) */
    graded_steps(n[d], h[d]);
    for (int i = 0; i < n[d]; i++) { /* node i lies between steps h[i] and h[i+1] */
      x[d][i] = (i ? x[d][i - 1] : 0.0) + h[d][i];
      a_diag[d][i] = 1 / h[d][i] + 1 / h[d][i + 1];   /* stiffness: integral of phi_i'^2 */
      m_diag[d][i] = 0.5 * (h[d][i] + h[d][i + 1]);   /* lumped mass: integral of phi_i */
      if (i + 1 < n[d])
        a_off[d][i] = -1 / h[d][i + 1];               /* integral of phi_i' phi_{i+1}' */
    }
    /* {order, A's diagonal, A's off-diagonal, M's diagonal, M's off-diagonal} */
    pen[d] = (pscr_pencil){n[d], a_diag[d], a_off[d], m_diag[d], NULL};
  }
  /* pen[0] is dimension 1 (x), pen[1] dimension 2 (y). Vectors run with the
   * LAST dimension fastest: node (i, j) is entry i n2 + j. The load is
   * b = (M1 (x) M2) f at the nodes. */
  double *b = malloc(N * sizeof *b), *u = malloc(N * sizeof *u), *r = malloc(N * sizeof *r);
  if (!b || !u || !r)
    return 1;
  for (int i = 0; i < n1; i++)
    for (int j = 0; j < n2; j++)
      b[(size_t)i * n2 + j] = m_diag[0][i] * m_diag[1][j] * (2 * PI * PI + C) *
                              sin(PI * x[0][i]) * sin(PI * x[1][j]);
  pscr_plan *plan = NULL; /* options NULL: the defaults (CPU, or CUDA when present) */
  pscr_status st = pscr_plan_create(&plan, PSCR_R64, 2, pen, &C, NULL); /* copies the arrays */
  if (st == PSCR_SUCCESS)
    st = pscr_solve(plan, b, u);
  if (st != PSCR_SUCCESS) {
    fprintf(stderr, "pscr-own-pencils: %s (status %d)\n", pscr_last_error(), (int)st);
    return 1;
  }
  /* Backward error ||A u - b|| / (||A|| ||u|| + ||b||) (inf-norms), A applied
   * from the same pencils; and the error against the exact solution. */
  double norm_a, res = 0, nu = 0, nb = 0, e = 0;
  pscr_operator_apply(PSCR_R64, 2, pen, &C, u, r);
  pscr_operator_norm_inf(PSCR_R64, 2, pen, &C, &norm_a);
  for (int i = 0; i < n1; i++)
    for (int j = 0; j < n2; j++) {
      size_t k = (size_t)i * n2 + j;
      res = fmax(res, fabs(r[k] - b[k]));
      nu = fmax(nu, fabs(u[k]));
      nb = fmax(nb, fabs(b[k]));
      e = fmax(e, fabs(u[k] - sin(PI * x[0][i]) * sin(PI * x[1][j])));
    }
  const double berr = res / (norm_a * nu + nb), bound = fmax(1e-13, 10 * (n1 + n2) * 2.2e-16);
  printf("%5d x %-5d backward error %.2e (bound %.0e) %s, max error %.3e\n", n1, n2, berr,
         bound, berr <= bound ? "ok" : "FAIL", e);
  *err = e;
  pscr_plan_destroy(plan);
  for (int d = 0; d < 2; d++)
    free(h[d]), free(a_diag[d]), free(a_off[d]), free(m_diag[d]), free(x[d]);
  free(b), free(u), free(r);
  return berr <= bound ? 0 : 1;
}

int main(int argc, char **argv)
{
  int n[2] = {47, 30}, npos = 0;
  for (int a = 1; a < argc; a++) { /* strict: the whole argument, in range, or exit 2 */
    const char *arg = argv[a], *bad = NULL;
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (!strcmp(arg, "--test"))
      continue; /* the same run; the exit status is the test */
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      printf("usage: pscr-own-pencils [--test] [N1 N2]  (default 47 30; N in 16..100000)\n");
      return 0;
    }
    if (arg[0] == '-' && !(arg[1] >= '0' && arg[1] <= '9'))
      bad = "unknown option";
    else if (npos == 2)
      bad = "unexpected argument";
    else if (end == arg || *end)
      bad = npos ? "N2: not an integer:" : "N1: not an integer:";
    else if (errno || v < 16 || v > 100000)
      bad = npos ? "N2: out of range 16..100000:" : "N1: out of range 16..100000:";
    if (bad) {
      fprintf(stderr, "pscr-own-pencils: %s '%s'\nTry 'pscr-own-pencils --help'.\n", bad, arg);
      return 2;
    }
    n[npos++] = (int)v;
  }
  if (npos == 1) {
    fprintf(stderr, "pscr-own-pencils: N2 missing (give N1 N2, or neither)\n"
                    "Try 'pscr-own-pencils --help'.\n");
    return 2;
  }
  double e1, e2;
  if (solve(n[0], n[1], &e1) || solve(2 * n[0] + 1, 2 * n[1] + 1, &e2))
    return 1;
  /* P1 with lumped mass: nodal error O(h^2), so halving h divides it by ~4. */
  const double ratio = e1 / e2;
  const int ok = ratio > 3.5 && ratio < 4.5;
  printf("error ratio %.2f (O(h^2): about 4) %s\n", ratio, ok ? "ok" : "FAIL");
  return ok ? 0 : 1;
}

/*
 * The host side of the PCG examples (pcg_problem.h): media, operator, load,
 * pencils and the CPU preconditioned CG, moved here unchanged from
 * pcg_kappa.c so that pscr-pcg-gpu builds the same problem and can compare
 * with the CPU iteration.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "pcg_problem.h"

/* Loops over fewer entries run serially: a parallel region costs more there. */
#define PAR_MIN 32768

const char *const kappa_names[3] = {"checker", "bump", "random"};

/*
 * kappa at the cell centre (x, y):
 *   checker: 1 or C on an 8 x 8 checkerboard (discontinuous);
 *   bump:    1 + (C - 1) exp(-r^2 / (2 0.15^2)) around (0.5, 0.5) (smooth);
 *   random:  C^u, u uniform in [0, 1) per cell of a 16 x 16 grid (a fixed
 *            hash, so every run and mesh sees the same medium).
 */
static double kappa_at(kappa_kind kind, double contrast, double x, double y)
{
  switch (kind) {
  case KAPPA_CHECKER:
    return ((int)floor(8 * x) + (int)floor(8 * y)) % 2 ? contrast : 1.0;
  case KAPPA_BUMP: {
    double r2 = (x - 0.5) * (x - 0.5) + (y - 0.5) * (y - 0.5);
    return 1.0 + (contrast - 1.0) * exp(-r2 / (2 * 0.15 * 0.15));
  }
  case KAPPA_RANDOM: {
    unsigned h = ((unsigned)floor(16 * x) * 2654435761u) ^ ((unsigned)floor(16 * y) * 40503u);
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    return pow(contrast, (double)(h & 0xffffu) / 65536.0);
  }
  }
  return 1.0;
}

void kappa_op_free(kappa_op *op)
{
  free(op->h[0]);
  free(op->h[1]);
  free(op->wx);
  free(op->wy);
  free(op->diag);
}

int kappa_op_init(kappa_op *op, int n, kappa_kind kind, double contrast, double grading)
{
  memset(op, 0, sizeof *op);
  op->n1 = op->n2 = n;
  size_t N = (size_t)n * n;
  op->h[0] = malloc((size_t)(n + 1) * sizeof(double));
  op->h[1] = malloc((size_t)(n + 1) * sizeof(double));
  double *kc = malloc((size_t)(n + 1) * (n + 1) * sizeof *kc);
  double *xc = malloc((size_t)(n + 1) * sizeof *xc);
  op->wx = malloc((size_t)(n + 1) * n * sizeof(double));
  op->wy = malloc((size_t)n * (n + 1) * sizeof(double));
  op->diag = malloc(N * sizeof(double));
  if (!op->h[0] || !op->h[1] || !kc || !xc || !op->wx || !op->wy || !op->diag) {
    free(kc);
    free(xc);
    kappa_op_free(op);
    return -1;
  }
  pscr_mesh_graded(n + 1, 1.0, grading, op->h[0]);
  pscr_mesh_graded(n + 1, 1.0, grading, op->h[1]);
  const double *hx = op->h[0], *hy = op->h[1];
  /* Cell centres (the mesh is the same in x and y). */
  for (int c = 0; c <= n; c++)
    xc[c] = (c > 0 ? xc[c - 1] + 0.5 * hx[c - 1] : 0.0) + 0.5 * hx[c];
  double area = 0, ksum = 0;
  op->kmin = INFINITY;
  op->kmax = 0;
  for (int cx = 0; cx <= n; cx++)
    for (int cy = 0; cy <= n; cy++) {
      double k = kappa_at(kind, contrast, xc[cx], xc[cy]);
      kc[(size_t)cx * (n + 1) + cy] = k;
      op->kmin = fmin(op->kmin, k);
      op->kmax = fmax(op->kmax, k);
      ksum += k * hx[cx] * hy[cy];
      area += hx[cx] * hy[cy];
    }
  op->kbar = ksum / area;
  for (int s = 0; s <= n; s++)
    for (int j = 0; j < n; j++)
      op->wx[(size_t)s * n + j] = (kc[(size_t)s * (n + 1) + j] * hy[j] +
                                   kc[(size_t)s * (n + 1) + j + 1] * hy[j + 1]) /
                                  (2 * hx[s]);
  for (int i = 0; i < n; i++)
    for (int t = 0; t <= n; t++)
      op->wy[(size_t)i * (n + 1) + t] = (kc[(size_t)i * (n + 1) + t] * hx[i] +
                                         kc[(size_t)(i + 1) * (n + 1) + t] * hx[i + 1]) /
                                        (2 * hy[t]);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      op->diag[(size_t)i * n + j] = op->wx[(size_t)i * n + j] + op->wx[(size_t)(i + 1) * n + j] +
                                    op->wy[(size_t)i * (n + 1) + j] +
                                    op->wy[(size_t)i * (n + 1) + j + 1];
  free(kc);
  free(xc);
  return 0;
}

/* y = A u, matrix-free (Dirichlet: neighbours outside the mesh are zero). */
void kappa_op_apply(const kappa_op *op, const double *u, double *y)
{
  const int n1 = op->n1, n2 = op->n2;
#pragma omp parallel for schedule(static) if ((size_t)n1 * n2 >= PAR_MIN)
  for (int i = 0; i < n1; i++) {
    const double *wl = op->wx + (size_t)i * n2, *wr = wl + n2;
    const double *wy = op->wy + (size_t)i * (n2 + 1), *d = op->diag + (size_t)i * n2;
    const double *ui = u + (size_t)i * n2;
    double *yi = y + (size_t)i * n2;
    for (int j = 0; j < n2; j++) {
      double s = d[j] * ui[j];
      if (i > 0)
        s -= wl[j] * ui[j - n2];
      if (i + 1 < n1)
        s -= wr[j] * ui[j + n2];
      if (j > 0)
        s -= wy[j] * ui[j - 1];
      if (j + 1 < n2)
        s -= wy[j + 1] * ui[j + 1];
      yi[j] = s;
    }
  }
}

static double dot(size_t N, const double *x, const double *y)
{
  double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s) if (N >= PAR_MIN)
  for (size_t i = 0; i < N; i++)
    s += x[i] * y[i];
  return s;
}

/* ||b - A x|| / ||b||, recomputed; r: scratch. */
double kappa_op_true_residual(const kappa_op *op, const double *b, const double *x, double *r)
{
  size_t N = (size_t)op->n1 * op->n2;
  kappa_op_apply(op, x, r);
  double s = 0;
  for (size_t i = 0; i < N; i++)
    s += (b[i] - r[i]) * (b[i] - r[i]);
  return sqrt(s / dot(N, b, b));
}

/* The preconditioners: z = M^-1 r, 0 on success. */
int precond_jacobi(void *ctx, const double *r, double *z)
{
  const kappa_op *op = ctx;
  size_t N = (size_t)op->n1 * op->n2;
#pragma omp parallel for schedule(static) if (N >= PAR_MIN)
  for (size_t i = 0; i < N; i++)
    z[i] = r[i] / op->diag[i];
  return 0;
}

int precond_pscr(void *ctx, const double *r, double *z)
{
  pscr_status st = pscr_solve(ctx, r, z);
  if (st)
    fprintf(stderr, "pscr_solve: %s (%s)\n", pscr_status_string(st), pscr_last_error());
  return st != PSCR_SUCCESS;
}

/*
 * The diagonally scaled variant z = S P^-1 S r, S = diag(A)^-1/2 diag(P)^1/2:
 * M = S^-1 P S^-1 has the diagonal of A. S^-2 is kappa near each node over
 * kbar (a weighted mean of the four cells around it). For smooth kappa,
 * -div(kappa grad) ~ kappa^1/2 (-lap) kappa^1/2 up to lower-order terms, so
 * this removes the contrast from the count; at jumps it does not.
 */

int precond_pscr_scaled(void *ctx_, const double *r, double *z)
{
  const scaled_ctx *ctx = ctx_;
  const size_t N = ctx->N;
#pragma omp parallel for schedule(static) if (N >= PAR_MIN)
  for (size_t i = 0; i < N; i++)
    z[i] = ctx->s[i] * r[i];
  if (precond_pscr(ctx->plan, z, z)) /* in place */
    return 1;
#pragma omp parallel for schedule(static) if (N >= PAR_MIN)
  for (size_t i = 0; i < N; i++)
    z[i] *= ctx->s[i];
  return 0;
}

/*
 * Preconditioned CG from x = 0 (precond NULL: plain CG). work: 4 N doubles.
 * Returns 0, or -1 when the preconditioner failed.
 */
int pcg(const kappa_op *op, const double *b, double *x, precond_fn precond, void *ctx,
        double tol, int maxit, double *work, krylov_result *res)
{
  size_t N = (size_t)op->n1 * op->n2;
  double *r = work, *z = work + N, *p = work + 2 * N, *q = work + 3 * N;
  double t0 = cli_now();
  double bnorm = sqrt(dot(N, b, b)), rz, rnorm = bnorm;
  int k = 0;

  memset(x, 0, N * sizeof *x);
  memcpy(r, b, N * sizeof *r);
  if (precond && precond(ctx, r, z))
    return -1;
  memcpy(p, precond ? z : r, N * sizeof *p);
  rz = dot(N, r, precond ? z : r);
  while (rnorm > tol * bnorm && k < maxit) {
    kappa_op_apply(op, p, q);
    double alpha = rz / dot(N, p, q), rr = 0;
#pragma omp parallel for schedule(static) reduction(+ : rr) if (N >= PAR_MIN)
    for (size_t i = 0; i < N; i++) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
      rr += r[i] * r[i];
    }
    rnorm = sqrt(rr);
    k++;
    if (rnorm <= tol * bnorm)
      break;
    double rz_new;
    if (precond) {
      if (precond(ctx, r, z))
        return -1;
      rz_new = dot(N, r, z);
    } else {
      rz_new = rr;
    }
    double beta = rz_new / rz;
    const double *zz = precond ? z : r;
#pragma omp parallel for schedule(static) if (N >= PAR_MIN)
    for (size_t i = 0; i < N; i++)
      p[i] = zz[i] + beta * p[i];
    rz = rz_new;
  }
  res->seconds = cli_now() - t0;
  res->iterations = k;
  res->rec_res = rnorm / bnorm;
  res->converged = rnorm <= tol * bnorm;
  res->true_res = kappa_op_true_residual(op, b, x, q);
  return 0;
}

pscr_status pcg_pencils(const kappa_op *op, double kscale, double *store, pscr_pencil pen[2])
{
  int n[2] = {op->n1, op->n2};
  for (int d = 0; d < 2; d++) {
    double *ad = store + (d ? (size_t)3 * n[0] : 0), *ao = ad + n[d], *md = ao + n[d];
    pscr_status st = pscr_poisson_factors(n[d], op->h[d], ad, ao, md, NULL);
    if (st)
      return st;
    for (int l = 0; l < n[d]; l++) {
      ad[l] *= kscale;
      ao[l] *= kscale; /* ao[n-1] is unused scratch */
    }
    pen[d] = (pscr_pencil){n[d], ad, ao, md, NULL};
  }
  return PSCR_SUCCESS;
}

/* Build the plan of P = kbar (A1 (x) M2 + M1 (x) A2) from the 1D Poisson factors. */
pscr_status pcg_make_plan(const kappa_op *op, const pscr_options *opts, pscr_plan **plan,
                          double *pencil_store)
{
  pscr_pencil pen[2];
  double zero = 0.0;
  pscr_status st = pcg_pencils(op, op->kbar, pencil_store, pen);
  if (st)
    return st;
  return pscr_plan_create(plan, PSCR_R64, 2, pen, &zero, opts);
}

void pcg_load_and_scale(const kappa_op *op, double *b, double *scale)
{
  const int n1 = op->n1, n2 = op->n2;
  const double *hx = op->h[0], *hy = op->h[1];
  for (int i = 0; i < n1; i++)
    for (int j = 0; j < n2; j++) {
      double m1 = 0.5 * (hx[i] + hx[i + 1]), m2 = 0.5 * (hy[j] + hy[j + 1]);
      double a1 = 1 / hx[i] + 1 / hx[i + 1], a2 = 1 / hy[j] + 1 / hy[j + 1];
      /* b = (M1 (x) M2) f with f = 1 (lumped masses). */
      b[(size_t)i * n2 + j] = m1 * m2;
      /* S = (diag(P) / diag(A))^1/2, P = kbar (A1 (x) M2 + M1 (x) A2). */
      scale[(size_t)i * n2 + j] =
          sqrt(op->kbar * (a1 * m2 + m1 * a2) / op->diag[(size_t)i * n2 + j]);
    }
}

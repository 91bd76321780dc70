/*
 * The host side of the PCG examples (pcg_problem.h): media, operator, load,
 * pencils, the CPU preconditioned CG, one size's table and the shared
 * options, in one place so that the CPU and GPU examples, 2D and 3D, build
 * the same problems and can compare their iterations. The 2D code is
 * pcg_kappa.c's original, unchanged (the same arithmetic in the same order,
 * so the GPU example's operator still matches it bitwise); 3D adds a third
 * direction of edges.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "pcg_problem.h"

/* Loops over fewer entries run serially. These vector operations are
   memory-bound: on 2 cores a 261121-entry loop gained nothing from a
   parallel region when idle, and with another job on a core its spinning
   threads made 45 PCG iterations 1.7x slower (docs/user-guide.md, Threads). */
#define PAR_MIN (1u << 20)

const char *const kappa_names[3] = {"checker", "bump", "random"};

/*
 * kappa at the cell centre (x, y) (3D: (x, y, z); 2D passes z = 0.5, which
 * leaves each formula its 2D value):
 *   checker: 1 or C on an 8 x 8 (x 8) checkerboard (discontinuous);
 *   bump:    1 + (C - 1) exp(-r^2 / (2 0.15^2)) around the centre (smooth);
 *   random:  C^u, u uniform in [0, 1) per cell of a 16 x 16 (x 16) grid (a
 *            fixed hash, so every run and mesh sees the same medium).
 */
static double kappa_at(kappa_kind kind, double contrast, double x, double y, double z)
{
  switch (kind) {
  case KAPPA_CHECKER:
    return ((int)floor(8 * x) + (int)floor(8 * y) + (int)floor(8 * z) - 4) % 2 ? contrast : 1.0;
  case KAPPA_BUMP: {
    double r2 = (x - 0.5) * (x - 0.5) + (y - 0.5) * (y - 0.5) + (z - 0.5) * (z - 0.5);
    return 1.0 + (contrast - 1.0) * exp(-r2 / (2 * 0.15 * 0.15));
  }
  case KAPPA_RANDOM: {
    unsigned h = ((unsigned)floor(16 * x) * 2654435761u) ^ ((unsigned)floor(16 * y) * 40503u) ^
                 (((unsigned)floor(16 * z) - 8u) * 97u);
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
  for (int d = 0; d < 3; d++)
    free(op->h[d]);
  free(op->wx);
  free(op->wy);
  free(op->wz);
  free(op->diag);
}

int kappa_op_init(kappa_op *op, int n, kappa_kind kind, double contrast, double grading)
{
  return kappa_op_init_nd(op, 2, n, kind, contrast, grading);
}

/*
 * 3D: the edge across x-step s between nodes (s-1, j, k) and (s, j, k)
 * borders the four cells (s, j or j+1, k or k+1), each contributing
 * kappa_cell hy hz / (4 hx): for kappa = 1 the weight is m2_j m3_k / hx_s,
 * the entry of A1 (x) M2 (x) M3 (lumped masses), as in 2D.
 */
static void weights_3d(kappa_op *op, const double *kc)
{
  const int n = op->n1;
  const size_t c1 = (size_t)(n + 1); /* cells per dimension */
  const double *hx = op->h[0], *hy = op->h[1], *hz = op->h[2];
#define KC(a, b, c) kc[((size_t)(a)*c1 + (size_t)(b)) * c1 + (size_t)(c)]
  for (int s = 0; s <= n; s++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        op->wx[((size_t)s * n + j) * n + k] =
            (KC(s, j, k) * hy[j] * hz[k] + KC(s, j + 1, k) * hy[j + 1] * hz[k] +
             KC(s, j, k + 1) * hy[j] * hz[k + 1] + KC(s, j + 1, k + 1) * hy[j + 1] * hz[k + 1]) /
            (4 * hx[s]);
  for (int i = 0; i < n; i++)
    for (int t = 0; t <= n; t++)
      for (int k = 0; k < n; k++)
        op->wy[((size_t)i * (n + 1) + t) * n + k] =
            (KC(i, t, k) * hx[i] * hz[k] + KC(i + 1, t, k) * hx[i + 1] * hz[k] +
             KC(i, t, k + 1) * hx[i] * hz[k + 1] + KC(i + 1, t, k + 1) * hx[i + 1] * hz[k + 1]) /
            (4 * hy[t]);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int t = 0; t <= n; t++)
        op->wz[((size_t)i * n + j) * (n + 1) + t] =
            (KC(i, j, t) * hx[i] * hy[j] + KC(i + 1, j, t) * hx[i + 1] * hy[j] +
             KC(i, j + 1, t) * hx[i] * hy[j + 1] + KC(i + 1, j + 1, t) * hx[i + 1] * hy[j + 1]) /
            (4 * hz[t]);
#undef KC
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        op->diag[((size_t)i * n + j) * n + k] =
            op->wx[((size_t)i * n + j) * n + k] + op->wx[((size_t)(i + 1) * n + j) * n + k] +
            op->wy[((size_t)i * (n + 1) + j) * n + k] +
            op->wy[((size_t)i * (n + 1) + j + 1) * n + k] +
            op->wz[((size_t)i * n + j) * (n + 1) + k] +
            op->wz[((size_t)i * n + j) * (n + 1) + k + 1];
}

int kappa_op_init_nd(kappa_op *op, int ndim, int n, kappa_kind kind, double contrast,
                     double grading)
{
  memset(op, 0, sizeof *op);
  op->ndim = ndim;
  op->n1 = op->n2 = n;
  op->n3 = ndim == 3 ? n : 1;
  const size_t N = kappa_op_size(op), n3 = (size_t)op->n3;
  const size_t cells = (size_t)(n + 1) * (n + 1) * (ndim == 3 ? (size_t)(n + 1) : 1);
  int fail = 0;
  for (int d = 0; d < ndim; d++)
    fail |= !(op->h[d] = malloc((size_t)(n + 1) * sizeof(double)));
  double *kc = malloc(cells * sizeof *kc);
  double *xc = malloc((size_t)(n + 1) * sizeof *xc);
  op->wx = malloc((size_t)(n + 1) * n * n3 * sizeof(double));
  op->wy = malloc((size_t)n * (n + 1) * n3 * sizeof(double));
  if (ndim == 3)
    fail |= !(op->wz = malloc((size_t)n * n * (n + 1) * sizeof(double)));
  op->diag = malloc(N * sizeof(double));
  if (fail || !kc || !xc || !op->wx || !op->wy || !op->diag) {
    free(kc);
    free(xc);
    kappa_op_free(op);
    return -1;
  }
  for (int d = 0; d < ndim; d++)
    pscr_mesh_graded(n + 1, 1.0, grading, op->h[d]);
  const double *hx = op->h[0], *hy = op->h[1];
  /* Cell centres (the mesh is the same in every dimension). */
  for (int c = 0; c <= n; c++)
    xc[c] = (c > 0 ? xc[c - 1] + 0.5 * hx[c - 1] : 0.0) + 0.5 * hx[c];
  double area = 0, ksum = 0;
  op->kmin = INFINITY;
  op->kmax = 0;
  if (ndim == 3) {
    const double *hz = op->h[2];
    for (int cx = 0; cx <= n; cx++)
      for (int cy = 0; cy <= n; cy++)
        for (int cz = 0; cz <= n; cz++) {
          double k = kappa_at(kind, contrast, xc[cx], xc[cy], xc[cz]);
          kc[((size_t)cx * (n + 1) + cy) * (n + 1) + cz] = k;
          op->kmin = fmin(op->kmin, k);
          op->kmax = fmax(op->kmax, k);
          ksum += k * hx[cx] * hy[cy] * hz[cz];
          area += hx[cx] * hy[cy] * hz[cz];
        }
    op->kbar = ksum / area;
    weights_3d(op, kc);
    free(kc);
    free(xc);
    return 0;
  }
  for (int cx = 0; cx <= n; cx++)
    for (int cy = 0; cy <= n; cy++) {
      double k = kappa_at(kind, contrast, xc[cx], xc[cy], 0.5);
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

/* 3D: y = A u with the 7-point stencil, the last index k fastest. */
static void apply_3d(const kappa_op *op, const double *u, double *y)
{
  const int n1 = op->n1, n2 = op->n2, n3 = op->n3;
  const size_t s1 = (size_t)n2 * n3, s2 = (size_t)n3; /* strides of i and j */
#pragma omp parallel for schedule(static) if ((size_t)n1 * s1 >= PAR_MIN)
  for (int i = 0; i < n1; i++)
    for (int j = 0; j < n2; j++) {
      const size_t row = (size_t)i * s1 + (size_t)j * s2;
      const double *wl = op->wx + row, *wr = wl + s1;
      const double *wyl = op->wy + ((size_t)i * (n2 + 1) + j) * n3, *wyr = wyl + n3;
      const double *wz = op->wz + ((size_t)i * n2 + j) * (n3 + 1);
      const double *d = op->diag + row, *ui = u + row;
      double *yi = y + row;
      for (int k = 0; k < n3; k++) {
        double s = d[k] * ui[k];
        if (i > 0)
          s -= wl[k] * ui[(ptrdiff_t)k - (ptrdiff_t)s1];
        if (i + 1 < n1)
          s -= wr[k] * ui[k + s1];
        if (j > 0)
          s -= wyl[k] * ui[(ptrdiff_t)k - (ptrdiff_t)s2];
        if (j + 1 < n2)
          s -= wyr[k] * ui[k + s2];
        if (k > 0)
          s -= wz[k] * ui[k - 1];
        if (k + 1 < n3)
          s -= wz[k + 1] * ui[k + 1];
        yi[k] = s;
      }
    }
}

/* y = A u, matrix-free (Dirichlet: neighbours outside the mesh are zero). */
void kappa_op_apply(const kappa_op *op, const double *u, double *y)
{
  if (op->ndim == 3) {
    apply_3d(op, u, y);
    return;
  }
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
  size_t N = kappa_op_size(op);
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
  size_t N = kappa_op_size(op);
#pragma omp parallel for schedule(static) if (N >= PAR_MIN)
  for (size_t i = 0; i < N; i++)
    z[i] = r[i] / op->diag[i];
  return 0;
}

int precond_pscr(void *ctx, const double *r, double *z)
{
  pscr_status st = pscr_solve(ctx, r, z);
  if (st)
    cli_report("pscr_solve", st);
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
  size_t N = kappa_op_size(op);
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

pscr_status pcg_pencils(const kappa_op *op, double kscale, double *store, pscr_pencil pen[3])
{
  const int n[3] = {op->n1, op->n2, op->n3};
  double *ad = store;
  for (int d = 0; d < op->ndim; d++) {
    double *ao = ad + n[d], *md = ao + n[d];
    pscr_status st = pscr_poisson_factors(n[d], op->h[d], ad, ao, md, NULL);
    if (st)
      return st;
    for (int l = 0; l < n[d]; l++) {
      ad[l] *= kscale;
      ao[l] *= kscale; /* ao[n-1] is unused scratch */
    }
    pen[d] = (pscr_pencil){n[d], ad, ao, md, NULL};
    ad = md + n[d];
  }
  return PSCR_SUCCESS;
}

/* Build the plan of P = kbar (A1 (x) M2 + M1 (x) A2) (3D: three terms) from
 * the 1D Poisson factors. */
pscr_status pcg_make_plan(const kappa_op *op, const pscr_options *opts, pscr_plan **plan,
                          double *pencil_store)
{
  pscr_pencil pen[3];
  double zero = 0.0;
  pscr_status st = pcg_pencils(op, op->kbar, pencil_store, pen);
  if (st)
    return st;
  return pscr_plan_create(plan, PSCR_R64, op->ndim, pen, &zero, opts);
}

void pcg_load_and_scale(const kappa_op *op, double *b, double *scale)
{
  const int n1 = op->n1, n2 = op->n2, n3 = op->n3;
  const double *hx = op->h[0], *hy = op->h[1], *hz = op->h[2];
  if (op->ndim == 3) {
    for (int i = 0; i < n1; i++)
      for (int j = 0; j < n2; j++)
        for (int k = 0; k < n3; k++) {
          double m1 = 0.5 * (hx[i] + hx[i + 1]), m2 = 0.5 * (hy[j] + hy[j + 1]),
                 m3 = 0.5 * (hz[k] + hz[k + 1]);
          double a1 = 1 / hx[i] + 1 / hx[i + 1], a2 = 1 / hy[j] + 1 / hy[j + 1],
                 a3 = 1 / hz[k] + 1 / hz[k + 1];
          const size_t at = ((size_t)i * n2 + j) * n3 + k;
          b[at] = m1 * m2 * m3;
          scale[at] = sqrt(op->kbar * (a1 * m2 * m3 + m1 * a2 * m3 + m1 * m2 * a3) / op->diag[at]);
        }
    return;
  }
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

/* ------------------------------------------------- the CPU examples' pieces */

int pcg_check_operator(int ndim, int n, double grading)
{
  kappa_op op;
  int fail = 1;
  if (kappa_op_init_nd(&op, ndim, n, KAPPA_CHECKER, 1.0, grading))
    return 1;
  const size_t N = kappa_op_size(&op);
  double *u = malloc(N * sizeof *u), *y = malloc(N * sizeof *y), *z = malloc(N * sizeof *z);
  double *store = malloc(pcg_pencil_store_size(&op) * sizeof *store);
  if (!u || !y || !z || !store)
    goto out;
  pscr_pencil pen[3];
  pcg_pencils(&op, 1.0, store, pen);
  for (size_t i = 0; i < N; i++)
    u[i] = sin(0.37 * (double)i) + 0.5;
  double zero = 0.0;
  kappa_op_apply(&op, u, y);
  if (pscr_operator_apply(PSCR_R64, ndim, pen, &zero, u, z))
    goto out;
  double diff = cli_max_diff(0, N, y, z), scale = cli_max_diff(0, N, z, NULL);
  fail = !(diff <= 100 * 2.220446049250313e-16 * scale);
  printf("check: %d-point operator (kappa = 1) vs pscr_operator_apply, n = %d, grading %g: "
         "max diff %.2e (relative %.2e) %s\n",
         ndim == 3 ? 7 : 5, n, grading, diff, diff / scale, fail ? "FAIL" : "ok");
out:
  free(u);
  free(y);
  free(z);
  free(store);
  kappa_op_free(&op);
  return fail;
}

int pcg_run_size(int ndim, int n, kappa_kind kind, double contrast, double grading, double tol,
                 int maxit, int skip_cg, const pscr_options *opts, krylov_result res[R_COUNT])
{
  kappa_op op;
  pscr_plan *plan = NULL;
  int rc = 1;
  if (kappa_op_init_nd(&op, ndim, n, kind, contrast, grading)) {
    fprintf(stderr, "out of memory at n = %d\n", n);
    return 1;
  }
  const size_t N = kappa_op_size(&op);
  double *b = malloc(N * sizeof *b), *x = malloc(N * sizeof *x),
         *work = malloc(4 * N * sizeof *work),
         *store = malloc(pcg_pencil_store_size(&op) * sizeof *store),
         *scale = malloc(N * sizeof *scale);
  if (!b || !x || !work || !store || !scale) {
    fprintf(stderr, "out of memory at n = %d\n", n);
    goto out;
  }
  pcg_load_and_scale(&op, b, scale);

  printf("n = %d (%zu unknowns), kappa %s, contrast %g (min %.3g, max %.3g, mean %.4g), "
         "%s mesh\n",
         n, N, kappa_names[kind], contrast, op.kmin, op.kmax, op.kbar,
         grading > 0 ? "graded" : "uniform");
  krylov_print_header();
  memset(res, 0, R_COUNT * sizeof *res);
  if (!skip_cg) {
    pcg(&op, b, x, NULL, NULL, tol, maxit, work, &res[R_CG]);
    krylov_print_row("CG", &res[R_CG]);
    pcg(&op, b, x, precond_jacobi, &op, tol, maxit, work, &res[R_JACOBI]);
    krylov_print_row("Jacobi-PCG", &res[R_JACOBI]);
  }
  double t0 = cli_now();
  pscr_status st = pcg_make_plan(&op, opts, &plan, store);
  res[R_PSCR].setup = res[R_SCALED].setup = cli_now() - t0;
  if (st) {
    cli_report("pscr_plan_create", st);
    goto out;
  }
  if (pcg(&op, b, x, precond_pscr, plan, tol, maxit, work, &res[R_PSCR]))
    goto out;
  krylov_print_row("pscr-PCG, P", &res[R_PSCR]);
  scaled_ctx sc = {plan, scale, N};
  if (pcg(&op, b, x, precond_pscr_scaled, &sc, tol, maxit, work, &res[R_SCALED]))
    goto out;
  krylov_print_row("pscr-PCG, S P^-1 S", &res[R_SCALED]);
  double kappa = op.kmax / op.kmin;
  printf("  classical CG bound (A-norm error) for cond(P^-1 A) <= kmax/kmin = %.3g: "
         "%.0f iterations\n",
         kappa, ceil(0.5 * sqrt(kappa) * log(2 / tol)));
  if (!skip_cg && res[R_CG].iterations > 0)
    printf("  iterations / CG's: Jacobi %.3f, pscr %.3f, scaled pscr %.3f\n",
           (double)res[R_JACOBI].iterations / res[R_CG].iterations,
           (double)res[R_PSCR].iterations / res[R_CG].iterations,
           (double)res[R_SCALED].iterations / res[R_CG].iterations);
  rc = 0;
out:
  pscr_plan_destroy(plan);
  free(b);
  free(x);
  free(work);
  free(store);
  free(scale);
  kappa_op_free(&op);
  return rc;
}

/* ------------------------------------------------------ command-line options */

void pcg_args_init(pcg_args *a, const int *sizes, int nsizes)
{
  memset(a, 0, sizeof *a);
  memcpy(a->sizes, sizes, (size_t)nsizes * sizeof *sizes);
  a->nsizes = nsizes;
  a->kind = KAPPA_CHECKER;
  a->contrast = 1e3;
  a->grading = 0.0;
  a->tol = 1e-8;
  a->maxit = 20000;
}

int pcg_parse_option(cli_args *c, pcg_args *a)
{
  int bad, k = 0;
  if (cli_is(c, "-n"))
    bad = cli_int_list(c, 1, 1 << 20, a->sizes, 16, &a->nsizes);
  else if (cli_is(c, "--kappa")) {
    bad = cli_choice(c, kappa_names, 3, &k);
    a->kind = (kappa_kind)k;
  } else if (cli_is(c, "--contrast"))
    bad = cli_double(c, 1.0, 0, INFINITY, 1, &a->contrast);
  else if (cli_is(c, "--graded"))
    bad = cli_double(c, 0.0, 0, 1.0, 1, &a->grading);
  else if (cli_is(c, "--tol"))
    bad = cli_double(c, 0.0, 1, 1.0, 1, &a->tol);
  else if (cli_is(c, "--maxit"))
    bad = cli_int(c, 1, INT_MAX, &a->maxit);
  else if (cli_is(c, "--no-cg")) {
    bad = cli_switch(c);
    a->skip_cg = 1;
  } else if (cli_is(c, "--test")) {
    bad = cli_switch(c);
    a->test = 1;
  } else
    return 0;
  return bad ? CLI_USAGE : 1;
}

int pcg_main(int argc, char **argv, const pcg_program *prog)
{
  pcg_args a;
  int threads = 0;
  pcg_args_init(&a, prog->default_sizes, 3);
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CPU;
  setvbuf(stdout, NULL, _IOLBF, 0); /* rows appear as they finish, also through a pipe */
  cli_args c;
  cli_init(&c, prog->name, argc, argv);
  while (cli_next(&c)) {
    int r = pcg_parse_option(&c, &a);
    if (r == CLI_USAGE)
      return CLI_USAGE;
    if (r)
      continue;
    if (cli_is(&c, "-h") || cli_is(&c, "--help")) {
      prog->usage(stdout);
      return 0;
    } else if (cli_is(&c, "--threads")) {
      if (cli_int(&c, 1, 4096, &threads))
        return CLI_USAGE;
    } else {
      return cli_unknown(&c);
    }
  }
  if (threads) {
    opts.num_threads = threads;
    omp_set_num_threads(threads);
  }
  if (a.test)
    return prog->self_test(&opts);
  printf("%s: -div(kappa grad u) = 1 on (0,1)^%d, u = 0 on the boundary; %s, tol %g; pscr %s\n",
         prog->name, prog->ndim, prog->discretization, a.tol, pscr_version());
  int stalled = 0;
  for (int s = 0; s < a.nsizes; s++) {
    krylov_result res[R_COUNT];
    if (pcg_run_size(prog->ndim, a.sizes[s], a.kind, a.contrast, a.grading, a.tol, a.maxit,
                     a.skip_cg, &opts, res))
      return 1;
    for (int v = a.skip_cg ? R_PSCR : R_CG; v < R_COUNT; v++)
      stalled |= !res[v].converged;
  }
  if (stalled)
    printf("(* not converged within maxit)\n");
  return 0;
}

/*
 * The host side of the GMRES examples (gmres_problem.h): operator, load,
 * plans and the CPU right-preconditioned GMRES, moved here unchanged from
 * gmres_helmholtz.c (the arithmetic in the same order, so pscr-gmres prints
 * the same numbers) so that pscr-gmres-gpu builds the same problem and can
 * compare with the CPU iteration. Complex vectors are C99 double _Complex
 * inside, interleaved double pairs in the interface.
 */
#define _POSIX_C_SOURCE 200809L
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "gmres_problem.h"

typedef double complex zdouble;

/* Loops over fewer entries run serially. These vector operations are
   memory-bound: on 2 cores a 261121-entry loop gained nothing from a
   parallel region when idle, and with another job on a core its spinning
   threads made 45 PCG iterations 1.7x slower (docs/user-guide.md, Threads). */
#define PAR_MIN (1u << 20)

const char *const helm_variant_names[R_COUNT] = {"GMRES", "Jacobi-GMRES", "pscr, c = -kbar^2",
                                                 "pscr, c = -(1-0.5i) kbar^2"};

static double nu2_at(double nmax, double x, double y)
{
  double r2 = (x - 0.5) * (x - 0.5) + (y - 0.5) * (y - 0.5);
  return 1.0 + (nmax * nmax - 1.0) * exp(-r2 / (2 * 0.15 * 0.15));
}

void helm_op_free(helm_op *op)
{
  for (int d = 0; d < 2; d++) {
    free(op->h[d]);
    free(op->x[d]);
    free(op->w[d]);
    free(op->fac[d]);
  }
  free(op->dpert);
  free(op->diag);
}

int helm_op_init(helm_op *op, int n, double omega, double nmax, double grading)
{
  memset(op, 0, sizeof *op);
  op->n = n;
  op->N = (size_t)n * n;
  op->omega = omega;
  op->numax = nmax;
  int fail = 0;
  for (int d = 0; d < 2; d++) {
    op->h[d] = malloc((size_t)(n - 1) * sizeof(double));
    op->x[d] = malloc((size_t)n * sizeof(double));
    op->w[d] = malloc((size_t)n * sizeof(double));
    op->fac[d] = malloc((size_t)8 * n * sizeof(double));
    fail |= !op->h[d] || !op->x[d] || !op->w[d] || !op->fac[d];
  }
  zdouble *dpert = malloc(op->N * sizeof *dpert), *diag = malloc(op->N * sizeof *diag);
  op->dpert = (double *)dpert;
  op->diag = (double *)diag;
  if (fail || !dpert || !diag) {
    helm_op_free(op);
    return -1;
  }
  for (int d = 0; d < 2; d++) {
    double *f = op->fac[d];
    pscr_status st = pscr_mesh_graded(n - 1, 1.0, grading, op->h[d]);
    if (!st)
      st = pscr_helmholtz_factors(n, op->h[d], omega, f, f + 2 * n, f + 4 * n, f + 6 * n);
    if (st) {
      cli_report("helm_op_init", st);
      helm_op_free(op);
      return -1;
    }
    op->pen[d] = (pscr_pencil){n, f, f + 2 * n, f + 4 * n, f + 6 * n};
    op->x[d][0] = 0.0;
    for (int l = 1; l < n; l++)
      op->x[d][l] = op->x[d][l - 1] + op->h[d][l - 1];
    for (int l = 0; l < n; l++)
      op->w[d][l] = 0.5 * ((l > 0 ? op->h[d][l - 1] : 0.0) + (l < n - 1 ? op->h[d][l] : 0.0));
  }
  op->shift[0] = -omega * omega;
  op->shift[1] = 0.0;
  double num = 0, den = 0;
  const double *ad[2], *md[2];
  for (int d = 0; d < 2; d++) {
    ad[d] = op->fac[d];
    md[d] = op->fac[d] + 4 * n;
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      size_t k = (size_t)i * n + j;
      double wij = op->w[0][i] * op->w[1][j], nu2 = nu2_at(nmax, op->x[0][i], op->x[1][j]);
      num += nu2 * wij;
      den += wij;
      dpert[k] = -omega * omega * (nu2 - 1.0) * wij;
      zdouble a1 = ad[0][2 * i] + I * ad[0][2 * i + 1], m1 = md[0][2 * i] + I * md[0][2 * i + 1];
      zdouble a2 = ad[1][2 * j] + I * ad[1][2 * j + 1], m2 = md[1][2 * j] + I * md[1][2 * j + 1];
      diag[k] = a1 * m2 + m1 * a2 - omega * omega * m1 * m2 + dpert[k];
    }
  op->kbar2 = omega * omega * num / den;
  return 0;
}

/* y = A u. */
static void apply(const helm_op *op, const zdouble *u, zdouble *y)
{
  pscr_operator_apply(PSCR_C64, 2, op->pen, op->shift, u, y);
  const size_t N = op->N;
  const zdouble *dpert = (const zdouble *)op->dpert;
#pragma omp parallel for schedule(static) if (N >= PAR_MIN)
  for (size_t k = 0; k < N; k++)
    y[k] += dpert[k] * u[k];
}

void helm_apply(const helm_op *op, const double *u, double *y)
{
  apply(op, (const zdouble *)u, (zdouble *)y);
}

/* <x, y> = sum conj(x_i) y_i. */
static zdouble zdot(size_t N, const zdouble *x, const zdouble *y)
{
  double re = 0, im = 0;
#pragma omp parallel for schedule(static) reduction(+ : re, im) if (N >= PAR_MIN)
  for (size_t i = 0; i < N; i++) {
    zdouble p = conj(x[i]) * y[i];
    re += creal(p);
    im += cimag(p);
  }
  return re + I * im;
}

static double znorm(size_t N, const zdouble *x)
{
  return sqrt(creal(zdot(N, x, x)));
}

/* y += a x */
static void zaxpy(size_t N, zdouble a, const zdouble *x, zdouble *y)
{
#pragma omp parallel for schedule(static) if (N >= PAR_MIN)
  for (size_t i = 0; i < N; i++)
    y[i] += a * x[i];
}

/* ||b - A x|| / bnorm; w: scratch. */
static double true_residual(const helm_op *op, const zdouble *b, const zdouble *x, zdouble *w,
                            double bnorm)
{
  const size_t N = op->N;
  apply(op, x, w);
  double s = 0;
  for (size_t i = 0; i < N; i++)
    s += creal(conj(b[i] - w[i]) * (b[i] - w[i]));
  return sqrt(s) / bnorm;
}

double helm_true_residual(const helm_op *op, const double *b, const double *x, double *r)
{
  return true_residual(op, (const zdouble *)b, (const zdouble *)x, (zdouble *)r,
                       znorm(op->N, (const zdouble *)b));
}

void helm_load(const helm_op *op, double *b_)
{
  zdouble *b = (zdouble *)b_;
  const int n = op->n;
  const double s2 = 0.03 * 0.03, pi = 3.141592653589793;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double dx = op->x[0][i] - 0.25, dy = op->x[1][j] - 0.3;
      b[(size_t)i * n + j] =
          op->w[0][i] * op->w[1][j] * exp(-(dx * dx + dy * dy) / (2 * s2)) / (2 * pi * s2);
    }
}

int helm_precond_jacobi(void *ctx, const double *r_, double *z_)
{
  const helm_op *op = ctx;
  const size_t N = op->N;
  const zdouble *r = (const zdouble *)r_, *diag = (const zdouble *)op->diag;
  zdouble *z = (zdouble *)z_;
#pragma omp parallel for schedule(static) if (N >= PAR_MIN)
  for (size_t k = 0; k < N; k++)
    z[k] = r[k] / diag[k];
  return 0;
}

int helm_precond_pscr(void *ctx, const double *r, double *z)
{
  pscr_status st = pscr_solve(ctx, r, z);
  if (st)
    cli_report("pscr_solve", st);
  return st != PSCR_SUCCESS;
}

int helm_gmres(const helm_op *op, const double *b_, double *x_, helm_precond_fn precond,
               void *ctx, double tol, int restart, int maxit, krylov_result *res)
{
  const zdouble *b = (const zdouble *)b_;
  zdouble *x = (zdouble *)x_;
  const size_t N = op->N;
  const int m = restart;
  int rc = -2, total = 0;
  zdouble *V = malloc((size_t)(m + 1) * N * sizeof *V), *w = malloc(N * sizeof *w);
  zdouble *H = malloc((size_t)(m + 1) * m * sizeof *H), *g = malloc((size_t)(m + 1) * sizeof *g);
  zdouble *sn = malloc((size_t)m * sizeof *sn), *y = malloc((size_t)m * sizeof *y);
  double *cs = malloc((size_t)m * sizeof *cs);
  if (!V || !w || !H || !g || !sn || !y || !cs)
    goto out;
  double t0 = cli_now(), bnorm = znorm(N, b), est = 1.0;
  memset(x, 0, N * sizeof *x);
  memcpy(w, b, N * sizeof *w); /* r = b - A x, x = 0 */
  res->converged = 0;
  for (;;) {
    double beta = znorm(N, w);
    if (beta <= tol * bnorm) {
      res->converged = 1;
      est = beta / bnorm;
      break;
    }
    if (total >= maxit)
      break;
    for (size_t i = 0; i < N; i++)
      V[i] = w[i] / beta;
    g[0] = beta;
    int k = 0;
    while (k < m && total < maxit) {
      zdouble *vk = V + (size_t)k * N, *vn = V + (size_t)(k + 1) * N, *hk = H + (size_t)k * (m + 1);
      /* vn = A M^-1 vk (vn is scratch for M^-1 vk first) */
      if (precond) {
        if (precond(ctx, (const double *)vk, (double *)vn)) {
          rc = -1;
          goto out;
        }
        apply(op, vn, w);
      } else {
        apply(op, vk, w);
      }
      total++;
      for (int i = 0; i <= k; i++) { /* modified Gram-Schmidt */
        hk[i] = zdot(N, V + (size_t)i * N, w);
        zaxpy(N, -hk[i], V + (size_t)i * N, w);
      }
      double hn = znorm(N, w);
      hk[k + 1] = hn;
      if (hn > 0)
        for (size_t i = 0; i < N; i++)
          vn[i] = w[i] / hn;
      for (int i = 0; i < k; i++) { /* previous rotations */
        zdouble t = cs[i] * hk[i] + sn[i] * hk[i + 1];
        hk[i + 1] = -conj(sn[i]) * hk[i] + cs[i] * hk[i + 1];
        hk[i] = t;
      }
      /* new rotation zeroing hk[k+1]: [c s; -conj(s) c], c real */
      double a = cabs(hk[k]), t = hypot(a, hn);
      if (a == 0) {
        cs[k] = 0;
        sn[k] = 1;
      } else {
        cs[k] = a / t;
        sn[k] = hk[k] / a * hn / t;
      }
      hk[k] = cs[k] * hk[k] + sn[k] * hn;
      hk[k + 1] = 0;
      g[k + 1] = -conj(sn[k]) * g[k];
      g[k] = cs[k] * g[k];
      k++;
      est = cabs(g[k]) / bnorm;
      if (est <= tol || hn == 0)
        break;
    }
    /* y = H(0:k, 0:k)^-1 g, x += M^-1 V y */
    for (int i = k - 1; i >= 0; i--) {
      zdouble s = g[i];
      for (int j = i + 1; j < k; j++)
        s -= H[(size_t)j * (m + 1) + i] * y[j];
      y[i] = s / H[(size_t)i * (m + 1) + i];
    }
    memset(w, 0, N * sizeof *w);
    for (int i = 0; i < k; i++)
      zaxpy(N, y[i], V + (size_t)i * N, w);
    if (precond && precond(ctx, (const double *)w, (double *)w)) {
      rc = -1;
      goto out;
    }
    zaxpy(N, 1.0, w, x);
    /* the true residual decides convergence and restarts */
    apply(op, x, w);
    for (size_t i = 0; i < N; i++)
      w[i] = b[i] - w[i];
  }
  res->seconds = cli_now() - t0;
  res->iterations = total;
  res->rec_res = est;
  res->true_res = true_residual(op, b, x, w, bnorm);
  rc = 0;
out:
  free(V);
  free(w);
  free(H);
  free(g);
  free(sn);
  free(y);
  free(cs);
  return rc;
}

pscr_status helm_make_plan(const helm_op *op, int variant, const pscr_options *opts,
                           pscr_plan **plan)
{
  zdouble c = -(variant == R_MEAN ? 1.0 : 1.0 - 0.5 * I) * op->kbar2;
  double shift[2] = {creal(c), cimag(c)};
  return pscr_plan_create(plan, PSCR_C64, 2, op->pen, shift, opts);
}

/* ------------------------------------------------------ command-line options */

void gmres_args_init(gmres_args *a)
{
  static const int sizes[] = {127, 255, 511};
  memset(a, 0, sizeof *a);
  memcpy(a->sizes, sizes, sizeof sizes);
  a->nsizes = 3;
  a->omega = 20.0;
  a->nmax = 1.5;
  a->grading = 0.0;
  a->tol = 1e-8;
  a->restart = 100;
  a->maxit = 1000;
  a->baseline = 255;
}

int gmres_parse_option(cli_args *c, gmres_args *a)
{
  int bad;
  if (cli_is(c, "-n"))
    bad = cli_int_list(c, 2, 1 << 20, a->sizes, 16, &a->nsizes);
  else if (cli_is(c, "--omega"))
    bad = cli_double(c, 0.0, 1, INFINITY, 1, &a->omega);
  else if (cli_is(c, "--nmax"))
    bad = cli_double(c, 1.0, 0, INFINITY, 1, &a->nmax);
  else if (cli_is(c, "--graded"))
    bad = cli_double(c, 0.0, 0, 1.0, 1, &a->grading);
  else if (cli_is(c, "--tol"))
    bad = cli_double(c, 0.0, 1, 1.0, 1, &a->tol);
  else if (cli_is(c, "--restart"))
    bad = cli_int(c, 1, 10000, &a->restart);
  else if (cli_is(c, "--maxit"))
    bad = cli_int(c, 1, INT_MAX, &a->maxit);
  else if (cli_is(c, "--threads"))
    bad = cli_int(c, 1, 4096, &a->threads);
  else if (cli_is(c, "--baseline")) {
    bad = cli_switch(c);
    a->baseline = 1 << 30;
  } else if (cli_is(c, "--no-baseline")) {
    bad = cli_switch(c);
    a->baseline = 0;
  } else if (cli_is(c, "--test")) {
    bad = cli_switch(c);
    a->test = 1;
  } else
    return 0;
  return bad ? CLI_USAGE : 1;
}

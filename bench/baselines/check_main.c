/*
 * pscr-baselines-check: CPU self-check of the host parts of the GPU
 * baselines, for a machine without a GPU.
 *
 * 1. Level-3 launch lists (level3_batches.h) of CPU plans, 2D and 3D, real
 *    (Poisson) and complex (Helmholtz), sizes around powers of 4:
 *    bl_l3_list_verify (system counts against the plans' eigenpair counts,
 *    2D shifts against c + lambda).
 * 2. Dense MD (dense_md.h): bl_dense_eig against its defining identities
 *    (||W^T M W - I||, ||W^T A W - Lambda||), and a whole solve run on the
 *    host through exactly the GEMM steps of bl_dense_plan_steps (with a
 *    reference column-major strided-batched GEMM, the semantics of
 *    cublasDgemmStridedBatched) and the interleaved tridiagonal layout the
 *    GPU kernel uses; the normwise backward error of u against
 *    pscr_operator_apply. Pencils: graded-mesh Poisson (diagonal M, the
 *    dstevd path) and a consistent-mass pencil (tridiagonal M, dsbgvd),
 *    u == f aliasing once.
 *
 * Exit status 0 when every check passes, 1 otherwise, 2 on a bad command
 * line (it takes no options).
 */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "dense_md.h"
#include "level3_batches.h"
#include "pscr.h"

static int failures;

#define CHECK(cond, ...)                                                                     \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      printf("FAIL: " __VA_ARGS__);                                                          \
      printf("\n");                                                                          \
      failures++;                                                                            \
    }                                                                                        \
  } while (0)

/* ---------------------------------------------------------------- 1. lists */

static void check_list(pscr_problem_kind kind, int ndim, const int *n)
{
  char msg[512] = "";
  pscr_problem *pb = NULL;
  pscr_plan *plan = NULL;
  bl_l3_list list;
  memset(&list, 0, sizeof list);
  pscr_status st = pscr_problem_create(&pb, kind, ndim, n, NULL, 0.0, 3.0);
  if (st) {
    CHECK(0, "problem %dD n1 %d: %s", ndim, n[0], pscr_last_error());
    return;
  }
  pscr_options o;
  pscr_options_init(&o);
  o.planner = PSCR_PLANNER_NONE;
  o.backend = PSCR_BACKEND_CPU;
  st = pscr_plan_create(&plan, pb->dtype, ndim, pb->pencils, pb->shift, &o);
  if (st) {
    CHECK(0, "plan %dD n1 %d: %s", ndim, n[0], pscr_last_error());
    goto out;
  }
  st = bl_l3_list_build(plan, &list, msg, sizeof msg);
  CHECK(!st, "bl_l3_list_build %dD n %d,%d: %s", ndim, n[0], n[1], msg);
  if (!st) {
    st = bl_l3_list_verify(plan, &list, msg, sizeof msg);
    CHECK(!st, "bl_l3_list_verify %dD %s n %d,%d: %s", ndim,
          kind == PSCR_PROBLEM_POISSON ? "real" : "complex", n[0], n[1], msg);
    CHECK(list.n == n[ndim - 1] && list.cplx == (pb->dtype == PSCR_C64),
          "list order %d / cplx %d", list.n, list.cplx);
  }
out:
  bl_l3_list_free(&list);
  pscr_plan_destroy(plan);
  pscr_problem_destroy(pb);
}

static void check_lists(void)
{
  static const int n1s[] = {1, 2, 3, 4, 5, 15, 16, 17, 63, 64, 65, 100, 255, 256, 257};
  int count = 0;
  for (size_t i = 0; i < sizeof n1s / sizeof *n1s; i++) {
    int n2[2] = {n1s[i], 7};
    check_list(PSCR_PROBLEM_POISSON, 2, n2);
    count++;
    if (n1s[i] >= 2) {
      check_list(PSCR_PROBLEM_HELMHOLTZ, 2, n2);
      count++;
    }
  }
  static const int n3s[][3] = {{1, 1, 3}, {4, 5, 3}, {17, 15, 4}, {16, 65, 5}, {31, 31, 31}};
  for (size_t i = 0; i < sizeof n3s / sizeof *n3s; i++) {
    check_list(PSCR_PROBLEM_POISSON, 3, n3s[i]);
    count++;
    if (n3s[i][0] >= 2 && n3s[i][1] >= 2) {
      check_list(PSCR_PROBLEM_HELMHOLTZ, 3, n3s[i]);
      count++;
    }
  }
  printf("level-3 launch lists: %d plans checked\n", count);
}

/* ---------------------------------------------------------- 2. dense MD */

/* C_b = op(A_b) op(B_b), column-major, as cublasDgemmStridedBatched with
   alpha 1, beta 0. */
static void ref_gemm(const bl_dense_gemm *g, double *const *ops)
{
  for (int b = 0; b < g->batch; b++) {
    const double *A = ops[g->a] + b * g->stride_a, *B = ops[g->b] + b * g->stride_b;
    double *C = ops[g->c] + b * g->stride_c;
    for (int j = 0; j < g->n; j++)
      for (int i = 0; i < g->m; i++) {
        double acc = 0;
        for (int l = 0; l < g->k; l++) {
          double a = g->trans_a ? A[l + (size_t)i * g->lda] : A[i + (size_t)l * g->lda];
          double bb = g->trans_b ? B[j + (size_t)l * g->ldb] : B[l + (size_t)j * g->ldb];
          acc += a * bb;
        }
        C[i + (size_t)j * g->ldc] = acc;
      }
  }
}

/* The GPU kernel's loop: bl_dense_tri_one per system, same layout and
   shifts, on the pencil padded as dense_md.cu pads it. */
static void ref_tri(const bl_dense_steps *P, const pscr_pencil *pl, double c, const double *lam1,
                    const double *lam2, int n1, double *x)
{
  const int n = P->n;
  double *fac = calloc(4 * (size_t)n, sizeof *fac);
  double *cp = malloc(P->nsys * (size_t)n * sizeof *cp);
  const double *ad = pl->a_diag, *ao = pl->a_off, *md = pl->m_diag, *mo = pl->m_off;
  for (int i = 0; i < n; i++) {
    fac[i] = ad[i];
    fac[2 * n + i] = md[i];
    if (i < n - 1) {
      fac[n + i] = ao[i];
      fac[3 * n + i] = mo ? mo[i] : 0.0;
    }
  }
  for (size_t sys = 0; sys < P->nsys; sys++) {
    double s = c + lam1[sys % (size_t)n1] + (lam2 ? lam2[sys / (size_t)n1] : 0.0);
    bl_dense_tri_one(fac, fac + n, fac + 2 * n, fac + 3 * n, n, P->nsys, sys, s, x, cp);
  }
  free(cp);
  free(fac);
}

/* Pencil storage for one dimension. */
typedef struct pen {
  double *ad, *ao, *md, *mo;
} pen;

/* kind 0: graded-mesh Poisson (lumped, diagonal M); 1: consistent mass
   h/6 (1 4 1) on the same mesh (tridiagonal M). */
static void make_pencil(pen *q, pscr_pencil *p, int n, int kind, double grading)
{
  double *h = malloc((size_t)(n + 1) * sizeof *h);
  q->ad = calloc((size_t)n, sizeof(double));
  q->ao = calloc((size_t)(n > 1 ? n - 1 : 1), sizeof(double));
  q->md = calloc((size_t)n, sizeof(double));
  q->mo = calloc((size_t)(n > 1 ? n - 1 : 1), sizeof(double));
  pscr_mesh_graded(n + 1, 1.0, grading, h);
  pscr_poisson_factors(n, h, q->ad, q->ao, q->md, NULL);
  if (kind == 1)
    for (int l = 0; l < n; l++) {
      q->md[l] = (h[l] + h[l + 1]) / 3.0;
      if (l < n - 1)
        q->mo[l] = h[l + 1] / 6.0;
    }
  *p = (pscr_pencil){n, q->ad, q->ao, q->md, kind == 1 ? q->mo : NULL};
  free(h);
}

static void free_pencil(pen *q)
{
  free(q->ad);
  free(q->ao);
  free(q->md);
  free(q->mo);
}

/* max |(W^T X W)_ij - D_ij| / max|D|, X tridiagonal (d, o), D = diag(dd) or I. */
static double congruence_err(int n, const double *w, const double *d, const double *o,
                             const double *dd)
{
  double err = 0, scale = 0;
  double *xw = malloc((size_t)n * n * sizeof *xw);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      double v = d[i] * w[i + (size_t)j * n];
      if (o && i > 0)
        v += o[i - 1] * w[i - 1 + (size_t)j * n];
      if (o && i < n - 1)
        v += o[i] * w[i + 1 + (size_t)j * n];
      xw[i + (size_t)j * n] = v;
    }
  for (int j = 0; j < n; j++) {
    double dj = dd ? dd[j] : 1.0;
    scale = fmax(scale, fabs(dj));
    for (int i = 0; i < n; i++) {
      double v = 0;
      for (int l = 0; l < n; l++)
        v += w[l + (size_t)i * n] * xw[l + (size_t)j * n];
      err = fmax(err, fabs(v - (i == j ? dj : 0.0)));
    }
  }
  free(xw);
  return err / scale;
}

static void check_dense(int ndim, const int *n, int kind, double c, int alias)
{
  char msg[512] = "";
  pen q[3];
  pscr_pencil pl[3];
  double *lam[2] = {NULL, NULL}, *w[2] = {NULL, NULL};
  bl_dense_steps P;
  size_t N = 1;
  int nmax = 1;
  memset(q, 0, sizeof q);
  for (int d = 0; d < ndim; d++) {
    make_pencil(&q[d], &pl[d], n[d], kind, 0.3 + 0.1 * d);
    N *= (size_t)n[d];
    nmax = n[d] > nmax ? n[d] : nmax;
  }
  const char *what = kind ? "consistent mass" : "lumped mass";
  pscr_status st = bl_dense_plan_steps(ndim, n, &P);
  CHECK(!st, "bl_dense_plan_steps: %s", pscr_status_string(st));
  for (int d = 0; !st && d < ndim - 1; d++) {
    lam[d] = malloc((size_t)n[d] * sizeof(double));
    w[d] = malloc((size_t)n[d] * n[d] * sizeof(double));
    st = bl_dense_eig(&pl[d], lam[d], w[d], msg, sizeof msg);
    if (st == PSCR_ERROR_NOT_SUPPORTED) {
      printf("dense MD: skipped (%s)\n", msg);
      goto out;
    }
    CHECK(!st, "bl_dense_eig n %d: %s", n[d], msg);
    if (st)
      goto out;
    double em = congruence_err(n[d], w[d], pl[d].m_diag, pl[d].m_off, NULL);
    double ea = congruence_err(n[d], w[d], pl[d].a_diag, pl[d].a_off, lam[d]);
    CHECK(em <= 10 * n[d] * DBL_EPSILON && ea <= 10 * n[d] * DBL_EPSILON,
          "eig %s n %d: ||W'MW - I|| %.2e, ||W'AW - L|| / ||L|| %.2e", what, n[d], em, ea);
  }
  if (st)
    goto out;
  {
    double *f = malloc(N * sizeof *f), *u = alias ? f : malloc(N * sizeof *u);
    double *work = malloc(N * sizeof *work), *b = malloc(N * sizeof *b);
    double *au = malloc(N * sizeof *au);
    for (size_t t = 0; t < N; t++)
      f[t] = b[t] = sin(0.37 * (double)t + 1.0) + 0.25 * cos(1.3 * (double)t);
    double *ops[5] = {f, u, work, w[0], w[1]};
    for (int i = 0; i < P.nfwd; i++)
      ref_gemm(&P.fwd[i], ops);
    ref_tri(&P, &pl[ndim - 1], c, lam[0], ndim == 3 ? lam[1] : NULL, n[0],
            P.tri == BL_DENSE_U ? u : work);
    for (int i = 0; i < P.nback; i++)
      ref_gemm(&P.back[i], ops);
    double norm_a = 0, shift[2] = {c, 0};
    pscr_operator_apply(PSCR_R64, ndim, pl, shift, u, au);
    pscr_operator_norm_inf(PSCR_R64, ndim, pl, shift, &norm_a);
    double berr = cli_max_diff(0, N, au, b) /
                  (norm_a * cli_max_diff(0, N, u, NULL) + cli_max_diff(0, N, b, NULL));
    double tol = fmax(64 * DBL_EPSILON, 10 * nmax * DBL_EPSILON);
    CHECK(berr <= tol, "dense MD %dD %s n %d,%d,%d c %g%s: backward error %.2e > %.2e", ndim,
          what, n[0], n[1], ndim == 3 ? n[2] : 1, c, alias ? " (u == f)" : "", berr, tol);
    printf("dense MD %dD %-15s n %4d,%4d,%4d c %-4g%-9s backward error %.2e\n", ndim, what,
           n[0], n[1], ndim == 3 ? n[2] : 1, c, alias ? " (u==f)" : "", berr);
    free(f);
    if (!alias)
      free(u);
    free(work);
    free(b);
    free(au);
  }
out:
  for (int d = 0; d < 2; d++) {
    free(lam[d]);
    free(w[d]);
  }
  for (int d = 0; d < ndim; d++)
    free_pencil(&q[d]);
}

int main(int argc, char **argv)
{
  /* No options: --help says so, anything else is a usage error. */
  cli_args c;
  cli_init(&c, "pscr-baselines-check", argc, argv);
  while (cli_next(&c)) {
    if (cli_is(&c, "-h") || cli_is(&c, "--help")) {
      printf("usage: pscr-baselines-check (no options): CPU self-check of the GPU baselines'\n"
             "host parts. Exit status: 0 when every check passes, 1 otherwise, 2 on a bad\n"
             "command line.\n");
      return 0;
    }
    return cli_unknown(&c);
  }
  check_lists();
  static const int s2[][2] = {{1, 1}, {1, 5}, {7, 1}, {13, 9}, {64, 33}, {100, 3},
                              {5, 8}, {6, 16}, {4, 17}, {3, 2}};
  for (size_t i = 0; i < sizeof s2 / sizeof *s2; i++) {
    check_dense(2, s2[i], 0, 0.0, 0);
    check_dense(2, s2[i], 1, 2.5, i == 3);
  }
  static const int s3[][3] = {{1, 1, 1}, {3, 4, 5}, {9, 6, 2}, {17, 12, 10}, {5, 1, 7},
                              {3, 2, 24}, {2, 3, 9}};
  for (size_t i = 0; i < sizeof s3 / sizeof *s3; i++) {
    check_dense(3, s3[i], 0, 0.0, i == 3);
    check_dense(3, s3[i], 1, 1.5, 0);
  }
  if (failures)
    printf("%d check(s) failed\n", failures);
  else
    printf("all checks passed\n");
  return failures ? 1 : 0;
}

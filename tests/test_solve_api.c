/*
 * The CPU solve's entry points beyond one good right-hand side: every
 * bad-input status and its detail message, singular subproblems (a NaN u,
 * f untouched), plans past the address space or memory, pscr_plan_info;
 * batches of right-hand sides (strided, in place) bitwise equal to single
 * solves, and the batch entry points' bad arguments. Solves and their
 * accuracy: test_solve.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_ops.h"

/* ------------------------------------------------ bad input */
START_TEST(bad_input)
{
  int n[2] = {8, 6};
  op o;
  make_op(&o, POISSON, 2, n, 3);
  pscr_plan *plan = (pscr_plan *)&o; /* must be overwritten with NULL on error */
  ck_assert_int_eq(pscr_plan_create(NULL, PSCR_R64, 2, o.pencils, o.shift, tu_cpu_options()),
                   PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, NULL, o.shift, tu_cpu_options()), PSCR_ERROR_INVALID_VALUE);
  ck_assert_ptr_null(plan);
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, o.pencils, NULL, tu_cpu_options()), PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 4, o.pencils, o.shift, tu_cpu_options()), PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 1, o.pencils, o.shift, tu_cpu_options()), PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_plan_create(&plan, (pscr_dtype)9, 2, o.pencils, o.shift, tu_cpu_options()), PSCR_ERROR_INVALID_VALUE);
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = (pscr_backend)7;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, o.pencils, o.shift, &opts), PSCR_ERROR_INVALID_VALUE);
  pscr_options_init(&opts);
  opts.num_threads = -1;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, o.pencils, o.shift, &opts), PSCR_ERROR_INVALID_VALUE);

  pscr_pencil bad[2] = {o.pencils[0], o.pencils[1]};
  bad[1].n = 0;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, bad, o.shift, tu_cpu_options()), PSCR_ERROR_INVALID_VALUE);
  bad[1] = o.pencils[1];
  bad[0].m_diag = NULL;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, bad, o.shift, tu_cpu_options()), PSCR_ERROR_INVALID_VALUE);

  /* NaN / Inf in a factor and in the shift. */
  double *ad = (double *)o.pencils[1].a_diag;
  double keep = ad[2];
  ad[2] = NAN;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, o.pencils, o.shift, tu_cpu_options()), PSCR_ERROR_NON_FINITE);
  ck_assert_msg(strstr(pscr_last_error(), "pencil 2") != NULL, "detail: %s", pscr_last_error());
  ad[2] = INFINITY;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, o.pencils, o.shift, tu_cpu_options()), PSCR_ERROR_NON_FINITE);
  ad[2] = keep;
  double inf_shift = INFINITY;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, o.pencils, &inf_shift, tu_cpu_options()), PSCR_ERROR_NON_FINITE);

  /* Indefinite M1 (real). */
  double *md = (double *)o.pencils[0].m_diag;
  keep = md[5];
  md[5] = -0.5;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, o.pencils, o.shift, tu_cpu_options()), PSCR_ERROR_NOT_DEFINITE);
  ck_assert_msg(strstr(pscr_last_error(), "M1 is not positive definite: pivot 6 is -0.5"),
                "detail: %s", pscr_last_error());
  md[5] = keep;
  /* Positive diagonal, indefinite through its off-diagonals (3D: M2 too). */
  {
    int n3[3] = {6, 5, 4};
    op q;
    make_op(&q, RANDOM_SPD, 3, n3, 8);
    double *mo = (double *)q.pencils[1].m_off;
    mo[2] = 10.0;
    ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 3, q.pencils, q.shift, tu_cpu_options()),
                     PSCR_ERROR_NOT_DEFINITE);
    ck_assert_msg(strstr(pscr_last_error(), "M2 is not positive definite: pivot 4"), "detail: %s",
                  pscr_last_error());
    op_free(&q);
  }

  /* Finite factors whose eigenvalues A / M ~ 1e300 / 1e-300 exceed the
     double range: the initialization must say so, not return Inf. */
  {
    double big_d[8], big_o[7], tiny[8];
    for (int i = 0; i < 8; i++) {
      big_d[i] = 3e300;
      tiny[i] = 1e-300;
      if (i < 7)
        big_o[i] = -1e300;
    }
    pscr_pencil pb[2] = {{8, big_d, big_o, tiny, NULL}, o.pencils[1]};
    pscr_status st = pscr_plan_create(&plan, PSCR_R64, 2, pb, o.shift, tu_cpu_options());
    ck_assert_msg(st == PSCR_ERROR_EIGEN_FAILED, "got %s (%s)", pscr_status_string(st),
                  pscr_last_error());
    ck_assert_ptr_null(plan);
  }

  /* Solve-time checks. */
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, o.pencils, o.shift, tu_cpu_options()), PSCR_SUCCESS);
  size_t N = 48;
  double f[48], u[48];
  for (size_t i = 0; i < N; i++)
    f[i] = 1.0;
  ck_assert_int_eq(pscr_solve(NULL, f, u), PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_solve(plan, NULL, u), PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_solve(plan, f, NULL), PSCR_ERROR_INVALID_VALUE);
  f[17] = NAN;
  for (size_t i = 0; i < N; i++)
    u[i] = 42.0;
  ck_assert_int_eq(pscr_solve(plan, f, u), PSCR_ERROR_NON_FINITE);
  ck_assert(u[0] == 42.0); /* u not written */
  ck_assert_int_eq(pscr_solve_device(plan, f, u, NULL), PSCR_ERROR_NOT_SUPPORTED);
  pscr_plan_destroy(plan);
  pscr_plan_destroy(NULL);
  op_free(&o);
}
END_TEST

START_TEST(singular_shift)
{
  /* Shifted subproblems that are exactly singular in floating point, so the
     zero pivot is certain: n1 = 1 with A1 = 2, M1 = 1 gives lambda = 2
     exactly, and c = -2 leaves A2 + (lambda + c) M2 = A2.
     _i = 0: A2 = [[1, 1], [1, 1]] (pivot 1 - 1 * 1 = 0 in the second row);
     _i = 1: A2 = [0] of order 1 (the first pivot is zero). */
  double a1 = 2.0, m1 = 1.0, c = -2.0;
  double a2d[2] = {1.0, 1.0}, a2o[1] = {1.0}, m2d[2] = {1.0, 1.0}, zero = 0.0;
  pscr_pencil p[2] = {{1, &a1, NULL, &m1, NULL}, {2, a2d, a2o, m2d, NULL}};
  if (_i == 1)
    p[1] = (pscr_pencil){1, &zero, NULL, m2d, NULL};
  pscr_plan *plan;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, p, &c, tu_cpu_options()), PSCR_SUCCESS);
  double f[2] = {1.0, 2.0}, u[2] = {5.0, 5.0};
  pscr_status st = pscr_solve(plan, f, u);
  ck_assert_msg(st == PSCR_ERROR_SINGULAR, "got %s", pscr_status_string(st));
  ck_assert(isnan(u[0])); /* no silent garbage */
  ck_assert(f[0] == 1.0 && f[1] == 2.0); /* f untouched */
  /* In place: the caller is told, and the NaNs say it too. */
  st = pscr_solve(plan, f, f);
  ck_assert_int_eq(st, PSCR_ERROR_SINGULAR);
  ck_assert(isnan(f[0]));
  pscr_plan_destroy(plan);
}
END_TEST

START_TEST(out_of_memory)
{
  /* n1 n2 n3 past the address space: refused before any array is read. */
  double one = 1.0, c = 0.0;
  pscr_pencil huge = {2147483647, &one, &one, &one, NULL};
  pscr_pencil p3[3] = {huge, huge, huge};
  pscr_plan *plan = (pscr_plan *)&one;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 3, p3, &c, tu_cpu_options()), PSCR_ERROR_HOST_ALLOC);
  ck_assert_ptr_null(plan);
  /* 2 x 2^20 x 2^20 = 2^41 unknowns (16 TiB per vector): a valid request
     whose workspace cannot be allocated. It must fail fast, before the
     O(n^2) eigen stage of dimension 2, with nothing leaked. */
  enum { big = 1 << 20 };
  double *s = malloc(4 * (size_t)big * sizeof *s);
  ck_assert_ptr_nonnull(s);
  for (size_t i = 0; i < (size_t)big; i++) {
    s[i] = 2.0;                        /* a_diag */
    s[big + i] = -1.0;                 /* a_off */
    s[2 * (size_t)big + i] = 1.0;      /* m_diag */
  }
  pscr_pencil q = {big, s, s + big, s + 2 * (size_t)big, NULL};
  double a2[2] = {2, 2}, o2[1] = {-1}, m2[2] = {1, 1};
  pscr_pencil p[3] = {{2, a2, o2, m2, NULL}, q, q};
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 3, p, &c, tu_cpu_options()), PSCR_ERROR_HOST_ALLOC);
  ck_assert_ptr_null(plan);
  ck_assert_msg(strstr(pscr_last_error(), "workspace") != NULL, "detail: %s", pscr_last_error());
  free(s);
}
END_TEST

START_TEST(plan_info)
{
  int n[3] = {100, 20, 7};
  op o;
  make_op(&o, RANDOM_SPD, 3, n, 4);
  pscr_plan *plan;
  ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, 3, o.pencils, o.shift, tu_cpu_options()), PSCR_SUCCESS);
  pscr_info info;
  ck_assert_int_eq(pscr_plan_info(plan, &info), PSCR_SUCCESS);
  ck_assert_int_eq(info.backend, PSCR_BACKEND_CPU);
  ck_assert_int_eq(info.ndim, 3);
  ck_assert_int_eq(info.n[0], 100);
  ck_assert_int_eq(info.n[2], 7);
  ck_assert_int_eq(info.levels[0], 4); /* floor(log4 100) + 1 */
  ck_assert_int_eq(info.levels[1], 3); /* floor(log4 20) + 1 */
  ck_assert(info.workspace_bytes > 0);
  ck_assert_int_eq(pscr_plan_info(NULL, &info), PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_plan_info(plan, NULL), PSCR_ERROR_INVALID_VALUE);
  pscr_plan_destroy(plan);
  op_free(&o);
}
END_TEST

/* ------------------------------------------------ batches */
/*
 * pscr_solve_batch: nrhs right-hand sides ld elements apart. Every u_r is
 * bitwise the u of pscr_solve on f_r (the CPU batch is that loop), the gaps
 * between strided vectors are neither read nor written, f is untouched out
 * of place.
 */
typedef struct batch_case {
  kind k;
  int ndim, n[3];
  int nrhs;
  int padf, padu; /* ldf = total + padf, ldu = total + padu */
  int in_place;   /* u == f, ldu == ldf (padu ignored) */
} batch_case;

static const batch_case batch_cases[] = {
    {RANDOM_SPD, 2, {37, 21, 1}, 1, 0, 0, 0},      {RANDOM_SPD, 2, {37, 21, 1}, 3, 0, 0, 0},
    {RANDOM_COMPLEX, 2, {17, 30, 1}, 3, 7, 2, 0},  {HELMHOLTZ, 2, {65, 12, 1}, 5, 0, 5, 0},
    {POISSON, 2, {64, 9, 1}, 5, 3, 0, 1},          {RANDOM_SPD, 3, {9, 10, 11}, 1, 4, 0, 1},
    {RANDOM_SPD, 3, {9, 10, 11}, 5, 13, 1, 0},     {RANDOM_COMPLEX, 3, {6, 17, 5}, 3, 0, 0, 1},
    {HELMHOLTZ, 3, {5, 6, 7}, 5, 2, 9, 0},         {POISSON, 3, {17, 3, 5}, 3, 1, 1, 1},
};
#define N_BATCH ((int)(sizeof batch_cases / sizeof batch_cases[0]))

/* A value no solve produces, marking the gaps between strided vectors. */
#define GAP_VALUE (-123456.75)

/* nrhs vectors of `words` doubles, ld doubles apart, random in the vectors
   and GAP_VALUE in the gaps; returns the buffer ((nrhs - 1) ld + words). */
static double *strided_vectors(const op *o, int nrhs, size_t ld, uint64_t seed)
{
  const size_t words = tu_size(o->ndim, o->pencils) * (o->dtype == PSCR_C64 ? 2 : 1);
  const size_t len = (size_t)(nrhs - 1) * ld + words;
  double *x = malloc(len * sizeof *x);
  ck_assert_ptr_nonnull(x);
  for (size_t i = 0; i < len; i++)
    x[i] = GAP_VALUE;
  for (int r = 0; r < nrhs; r++) {
    double *v = random_vector(o, seed + (uint64_t)r);
    memcpy(x + (size_t)r * ld, v, words * sizeof *x);
    free(v);
  }
  return x;
}

/* Every gap entry of a strided buffer still holds GAP_VALUE. */
static void check_gaps(const double *x, int nrhs, size_t ld, size_t words, const char *what)
{
  for (int r = 0; r + 1 < nrhs; r++)
    for (size_t i = words; i < ld; i++)
      ck_assert_msg(x[(size_t)r * ld + i] == GAP_VALUE, "%s: gap after vector %d written at %zu",
                    what, r, i);
}

START_TEST(batch_equals_single)
{
  const batch_case *bc = &batch_cases[_i];
  op o;
  make_op(&o, bc->k, bc->ndim, bc->n, 8800u + (uint64_t)_i);
  const size_t N = tu_size(o.ndim, o.pencils), es = tu_dtype_size(o.dtype);
  const size_t w = es / sizeof(double), words = N * w; /* doubles per vector */
  const size_t ldf = N + (size_t)bc->padf, ldu = bc->in_place ? ldf : N + (size_t)bc->padu;
  pscr_plan *plan;
  ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, o.ndim, o.pencils, o.shift, tu_cpu_options()),
                   PSCR_SUCCESS);
  double *f = strided_vectors(&o, bc->nrhs, ldf * w, 8900u + 10u * (uint64_t)_i);
  const size_t flen = (size_t)(bc->nrhs - 1) * ldf * w + words;
  const size_t ulen = (size_t)(bc->nrhs - 1) * ldu * w + words;
  double *f0 = malloc(flen * sizeof *f0), *ref = malloc((size_t)bc->nrhs * words * sizeof *ref);
  ck_assert(f0 && ref);
  memcpy(f0, f, flen * sizeof *f);
  for (int r = 0; r < bc->nrhs; r++)
    ck_assert_int_eq(pscr_solve(plan, f + (size_t)r * ldf * w, ref + (size_t)r * words),
                     PSCR_SUCCESS);
  double *u = f;
  if (!bc->in_place) {
    u = malloc(ulen * sizeof *u);
    ck_assert_ptr_nonnull(u);
    for (size_t i = 0; i < ulen; i++)
      u[i] = GAP_VALUE;
  }
  pscr_status st = pscr_solve_batch(plan, bc->nrhs, f, ldf, u, ldu);
  ck_assert_msg(st == PSCR_SUCCESS, "case %d: %s (%s)", _i, pscr_status_string(st),
                pscr_last_error());
  for (int r = 0; r < bc->nrhs; r++)
    ck_assert_msg(memcmp(u + (size_t)r * ldu * w, ref + (size_t)r * words, words * sizeof *u) == 0,
                  "case %d: right-hand side %d differs from pscr_solve", _i, r);
  check_gaps(u, bc->nrhs, ldu * w, words, "u");
  if (!bc->in_place) {
    ck_assert_msg(memcmp(f, f0, flen * sizeof *f) == 0, "case %d: f changed", _i);
    free(u);
  }
  printf("batch case %d: %dD %s nrhs %d ldf %zu ldu %zu%s: bitwise equal to single solves\n", _i,
         bc->ndim, kind_name[bc->k], bc->nrhs, ldf, ldu, bc->in_place ? " (in place)" : "");
  free(f);
  free(f0);
  free(ref);
  pscr_plan_destroy(plan);
  op_free(&o);
}
END_TEST

/* Every invalid argument: PSCR_ERROR_INVALID_VALUE with a detail message
   naming it, nothing written; NaN in one right-hand side: NON_FINITE before
   any solve; device batches on a CPU plan: NOT_SUPPORTED. */
static void expect_batch_error(pscr_status got, pscr_status want, const char *needle,
                               const char *what)
{
  ck_assert_msg(got == want, "%s: got %s (%s)", what, pscr_status_string(got), pscr_last_error());
  ck_assert_msg(strstr(pscr_last_error(), needle) != NULL, "%s: detail \"%s\" lacks \"%s\"", what,
                pscr_last_error(), needle);
}

START_TEST(batch_bad_arguments)
{
  int n[2] = {8, 6};
  op o;
  make_op(&o, POISSON, 2, n, 3);
  const size_t N = 48;
  pscr_plan *plan;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, o.pencils, o.shift, tu_cpu_options()),
                   PSCR_SUCCESS);
  enum { NR = 3 };
  double f[NR * 2 * 48], u[NR * 2 * 48];
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
    f[i] = 1.0 + (double)(i % 7);
    u[i] = 42.0;
  }
  expect_batch_error(pscr_solve_batch(NULL, NR, f, N, u, N), PSCR_ERROR_INVALID_VALUE, "plan",
                     "NULL plan");
  expect_batch_error(pscr_solve_batch(plan, NR, NULL, N, u, N), PSCR_ERROR_INVALID_VALUE,
                     "f is NULL", "NULL f");
  expect_batch_error(pscr_solve_batch(plan, NR, f, N, NULL, N), PSCR_ERROR_INVALID_VALUE,
                     "u is NULL", "NULL u");
  expect_batch_error(pscr_solve_batch(plan, 0, f, N, u, N), PSCR_ERROR_INVALID_VALUE,
                     "nrhs is 0", "nrhs 0");
  expect_batch_error(pscr_solve_batch(plan, -2, f, N, u, N), PSCR_ERROR_INVALID_VALUE,
                     "nrhs is -2", "nrhs -2");
  expect_batch_error(pscr_solve_batch(plan, NR, f, N - 1, u, N), PSCR_ERROR_INVALID_VALUE,
                     "ldf is 47, must be >= n1*n2 = 48", "ldf < total");
  expect_batch_error(pscr_solve_batch(plan, 1, f, 0, u, N), PSCR_ERROR_INVALID_VALUE,
                     "ldf is 0", "ldf 0, one right-hand side");
  expect_batch_error(pscr_solve_batch(plan, NR, f, N, u, 3), PSCR_ERROR_INVALID_VALUE,
                     "ldu is 3", "ldu < total");
  expect_batch_error(pscr_solve_batch(plan, NR, f, (size_t)-1 / 4, u, N),
                     PSCR_ERROR_INVALID_VALUE, "past the address space", "ldf overflow");
  expect_batch_error(pscr_solve_batch(plan, NR, f, N, u, (size_t)-1 / 16),
                     PSCR_ERROR_INVALID_VALUE, "past the address space", "ldu overflow");
  /* Overlaps: shifted by one element; the same start with other strides;
     the last f meeting the first u. */
  expect_batch_error(pscr_solve_batch(plan, NR, f, N, f + 1, N), PSCR_ERROR_INVALID_VALUE,
                     "overlaps", "u = f + 1");
  expect_batch_error(pscr_solve_batch(plan, NR, f, N, f, N + 1), PSCR_ERROR_INVALID_VALUE,
                     "u vector 0 overlaps f vector 0", "u == f, ldu != ldf");
  expect_batch_error(pscr_solve_batch(plan, NR, f, 2 * N, f + 4 * N + 10, 2 * N),
                     PSCR_ERROR_INVALID_VALUE, "u vector 0 overlaps f vector 2", "tail overlap");
  expect_batch_error(pscr_solve_device_batch(plan, NR, f, N, f + 1, N, NULL),
                     PSCR_ERROR_INVALID_VALUE, "overlaps", "device: u = f + 1");
  for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
    ck_assert_msg(u[i] == 42.0, "u[%zu] written by a rejected call", i);
  /* Interleaved without overlap (f_r and u_r alternate in one buffer) is fine. */
  double *g = malloc(2 * NR * N * sizeof *g), *ref = malloc(N * sizeof *ref);
  ck_assert(g && ref);
  for (size_t i = 0; i < 2 * NR * N; i++)
    g[i] = (double)(i % 11) - 5.0;
  ck_assert_int_eq(pscr_solve(plan, g + 2 * N, ref), PSCR_SUCCESS); /* f_1 */
  pscr_status st = pscr_solve_batch(plan, NR, g, 2 * N, g + N, 2 * N);
  ck_assert_msg(st == PSCR_SUCCESS, "interleaved: %s (%s)", pscr_status_string(st),
                pscr_last_error());
  ck_assert(memcmp(g + 3 * N, ref, N * sizeof *g) == 0);
  free(g);
  free(ref);
  /* NaN in the last right-hand side: refused before any solve. */
  f[2 * 2 * N + 17] = NAN;
  expect_batch_error(pscr_solve_batch(plan, NR, f, 2 * N, u, N), PSCR_ERROR_NON_FINITE,
                     "right-hand side 2: f[17] is not finite", "NaN in f_2");
  for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
    ck_assert_msg(u[i] == 42.0, "u[%zu] written after NON_FINITE", i);
  /* The NaN in the gap of a strided batch is not read. */
  f[2 * 2 * N + 17] = 1.0;
  f[2 * N - 1] = NAN;
  ck_assert_int_eq(pscr_solve_batch(plan, NR, f, 2 * N, u, N), PSCR_SUCCESS);
  expect_batch_error(pscr_solve_device_batch(plan, NR, f, N, u, N, NULL),
                     PSCR_ERROR_NOT_SUPPORTED, "pscr_solve_device_batch needs a plan on the CUDA",
                     "device batch on a CPU plan");
  expect_batch_error(pscr_solve_device_batch(plan, 0, f, N, u, N, NULL), PSCR_ERROR_INVALID_VALUE,
                     "nrhs is 0", "device nrhs 0");
  pscr_plan_destroy(plan);
  /* max_batch is validated at plan time on every backend. */
  pscr_options opts = *tu_cpu_options();
  opts.max_batch = 0;
  plan = (pscr_plan *)&o;
  expect_batch_error(pscr_plan_create(&plan, PSCR_R64, 2, o.pencils, o.shift, &opts),
                     PSCR_ERROR_INVALID_VALUE, "max_batch is 0", "max_batch 0");
  ck_assert_ptr_null(plan);
  op_free(&o);
}
END_TEST

/* A singular subproblem (as singular_shift): every u_r NaN, the gaps and f
   untouched, PSCR_ERROR_SINGULAR naming the first right-hand side; in place
   too. */
START_TEST(batch_singular)
{
  double a1 = 2.0, m1 = 1.0, c = -2.0;
  double a2d[2] = {1.0, 1.0}, a2o[1] = {1.0}, m2d[2] = {1.0, 1.0};
  pscr_pencil p[2] = {{1, &a1, NULL, &m1, NULL}, {2, a2d, a2o, m2d, NULL}};
  pscr_plan *plan;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, p, &c, tu_cpu_options()), PSCR_SUCCESS);
  double f[8] = {1.0, 2.0, GAP_VALUE, 3.0, 4.0, GAP_VALUE, 5.0, 6.0}, f0[8], u[8];
  memcpy(f0, f, sizeof f);
  for (int i = 0; i < 8; i++)
    u[i] = GAP_VALUE;
  expect_batch_error(pscr_solve_batch(plan, 3, f, 3, u, 3), PSCR_ERROR_SINGULAR,
                     "(right-hand side 0; 3 of 3 right-hand sides failed)", "singular batch");
  for (int r = 0; r < 3; r++)
    ck_assert(isnan(u[3 * r]) && isnan(u[3 * r + 1]));
  check_gaps(u, 3, 3, 2, "u");
  ck_assert(memcmp(f, f0, sizeof f) == 0);
  ck_assert_int_eq(pscr_solve_batch(plan, 3, f, 3, f, 3), PSCR_ERROR_SINGULAR);
  ck_assert(isnan(f[0]) && isnan(f[7]));
  check_gaps(f, 3, 3, 2, "f in place");
  pscr_plan_destroy(plan);
}
END_TEST

static Suite *solve_api_suite(void)
{
  Suite *s = suite_create("solve_api");
  TCase *tc = tcase_create("api");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, bad_input);
  tcase_add_loop_test(tc, singular_shift, 0, 2);
  tcase_add_test(tc, plan_info);
  tcase_add_test(tc, out_of_memory);
  suite_add_tcase(s, tc);
  tc = tcase_create("batch");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, batch_equals_single, 0, N_BATCH);
  tcase_add_test(tc, batch_bad_arguments);
  tcase_add_test(tc, batch_singular);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run_suite(solve_api_suite()); }

/* Public API basics: statuses, version, options, detail messages, operator. */
#include <complex.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "test_util.h"

START_TEST(status_strings)
{
  /* Every status has its own text naming the code; unknown values are caught. */
  static const pscr_status all[] = {
      PSCR_SUCCESS,          PSCR_ERROR_INVALID_VALUE, PSCR_ERROR_NOT_SUPPORTED,
      PSCR_ERROR_NON_FINITE, PSCR_ERROR_NOT_DEFINITE,  PSCR_ERROR_EIGEN_FAILED,
      PSCR_ERROR_SINGULAR,   PSCR_ERROR_HOST_ALLOC,    PSCR_ERROR_DEVICE_ALLOC,
      PSCR_ERROR_DEVICE};
  static const char *names[] = {
      "PSCR_SUCCESS",          "PSCR_ERROR_INVALID_VALUE", "PSCR_ERROR_NOT_SUPPORTED",
      "PSCR_ERROR_NON_FINITE", "PSCR_ERROR_NOT_DEFINITE",  "PSCR_ERROR_EIGEN_FAILED",
      "PSCR_ERROR_SINGULAR",   "PSCR_ERROR_HOST_ALLOC",    "PSCR_ERROR_DEVICE_ALLOC",
      "PSCR_ERROR_DEVICE"};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    const char *s = pscr_status_string(all[i]);
    ck_assert_ptr_nonnull(s);
    ck_assert_msg(strncmp(s, names[i], strlen(names[i])) == 0, "%s -> %s", names[i], s);
    for (size_t j = 0; j < i; j++)
      ck_assert_str_ne(s, pscr_status_string(all[j]));
  }
  ck_assert_str_eq(pscr_status_string((pscr_status)1234), "unknown status");
}
END_TEST

START_TEST(version)
{
  char expect[32];
  snprintf(expect, sizeof expect, "%d.%d.%d", PSCR_VERSION_MAJOR, PSCR_VERSION_MINOR,
           PSCR_VERSION_PATCH);
  ck_assert_str_eq(pscr_version(), expect);
}
END_TEST

START_TEST(options_defaults)
{
  pscr_options o;
  memset(&o, 0x5a, sizeof o);
  pscr_options_init(&o);
  ck_assert_int_eq(o.backend, PSCR_BACKEND_AUTO);
  ck_assert_int_eq(o.device, 0);
  ck_assert_int_eq(o.num_threads, 0);
  ck_assert_int_eq(o.check_finite, 1);
  ck_assert_int_eq(o.cuda_rows_per_thread, 0);
  ck_assert_int_eq(o.max_batch, 1);
  pscr_options_init(NULL); /* ignored, no crash */
}
END_TEST

/* cuda_rows_per_thread is validated at plan time on every backend (the CPU
   ignores its value): -1, 0, 2, 4, 8, 16 are accepted, anything else is
   INVALID_VALUE with the value in the message. */
START_TEST(options_cuda_rows)
{
  double a = 2.0, m = 1.0, c = 0.0;
  pscr_pencil p[2] = {{1, &a, NULL, &m, NULL}, {1, &a, NULL, &m, NULL}};
  pscr_options o;
  pscr_options_init(&o);
  o.backend = PSCR_BACKEND_CPU;
  static const int good[] = {-1, 0, 2, 4, 8, 16}, bad[] = {-2, 1, 3, 6, 32, 1 << 30};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    pscr_plan *plan = NULL;
    o.cuda_rows_per_thread = good[i];
    ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, p, &c, &o), PSCR_SUCCESS);
    pscr_plan_destroy(plan);
  }
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    pscr_plan *plan = (pscr_plan *)&o; /* must be reset to NULL */
    char want[64];
    o.cuda_rows_per_thread = bad[i];
    ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, p, &c, &o), PSCR_ERROR_INVALID_VALUE);
    ck_assert_ptr_null(plan);
    snprintf(want, sizeof want, "cuda_rows_per_thread is %d", bad[i]);
    ck_assert_msg(strstr(pscr_last_error(), want), "detail: %s", pscr_last_error());
  }
}
END_TEST

/* max_batch is validated at plan time on every backend (the CPU ignores its
   value): >= 1 is accepted, anything else is INVALID_VALUE with the value in
   the message. A batch solve on the CPU plan works whatever max_batch is. */
START_TEST(options_max_batch)
{
  double a = 2.0, m = 1.0, c = 0.0;
  pscr_pencil p[2] = {{1, &a, NULL, &m, NULL}, {1, &a, NULL, &m, NULL}};
  pscr_options o;
  pscr_options_init(&o);
  o.backend = PSCR_BACKEND_CPU;
  static const int good[] = {1, 2, 7, 1 << 20}, bad[] = {0, -1, -(1 << 30)};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    pscr_plan *plan = NULL;
    o.max_batch = good[i];
    ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, p, &c, &o), PSCR_SUCCESS);
    double f[3] = {1.0, 2.0, 3.0}, u[3] = {0.0, 0.0, 0.0};
    ck_assert_int_eq(pscr_solve_batch(plan, 3, f, 1, u, 1), PSCR_SUCCESS);
    for (int r = 0; r < 3; r++) /* (2 + 2) u = f */
      ck_assert(tu_close(u[r], f[r] / 4.0, 1e-15, 0));
    pscr_plan_destroy(plan);
  }
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    pscr_plan *plan = (pscr_plan *)&o; /* must be reset to NULL */
    char want[64];
    o.max_batch = bad[i];
    ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, p, &c, &o), PSCR_ERROR_INVALID_VALUE);
    ck_assert_ptr_null(plan);
    snprintf(want, sizeof want, "max_batch is %d, must be >= 1", bad[i]);
    ck_assert_msg(strstr(pscr_last_error(), want), "detail: %s", pscr_last_error());
  }
}
END_TEST

START_TEST(last_error_detail)
{
  pscr_plan *plan;
  double one = 1.0, zero = 0.0;
  pscr_pencil p[2] = {{3, &one, NULL, &one, NULL}, {-2, &one, NULL, &one, NULL}};
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, p, &zero, NULL), PSCR_ERROR_INVALID_VALUE);
  ck_assert_msg(strstr(pscr_last_error(), "pencil 1: a_off is NULL") ||
                    strstr(pscr_last_error(), "pencil 2: n is -2"),
                "detail: %s", pscr_last_error());
  /* A successful call clears the message. */
  pscr_info info;
  ck_assert_int_eq(pscr_plan_info(NULL, &info), PSCR_ERROR_INVALID_VALUE);
  ck_assert(strlen(pscr_last_error()) > 0);
  p[1].n = 1;
  p[0].n = 1;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, p, &zero, NULL), PSCR_SUCCESS);
  ck_assert_str_eq(pscr_last_error(), "");
  pscr_plan_destroy(plan);
}
END_TEST

/*
 * What pscr_last_error() says after a bad input: the specific cause first
 * (want_lead, the message's beginning), never the status's generic text
 * (that is pscr_status_string's), and no source location: no path ("src/",
 * "/tmp/...") and no "[file:line]" suffix. Brackets may only index a named
 * array ("m_diag[3]"). Returns nothing; asserts with the message shown.
 */
static void check_message(pscr_status got, pscr_status want, const char *want_lead,
                          const char *what)
{
  const char *msg = pscr_last_error();
  ck_assert_msg(got == want, "%s: got %s, want %s (%s)", what, pscr_status_string(got),
                pscr_status_string(want), msg);
  ck_assert_msg(msg[0] != '\0', "%s: no message", what);
  ck_assert_msg(strncmp(msg, want_lead, strlen(want_lead)) == 0,
                "%s: \"%s\" does not lead with \"%s\"", what, msg, want_lead);
  const char *generic = strstr(pscr_status_string(want), ": ") + 2;
  ck_assert_msg(strncmp(msg, generic, strlen(generic)) != 0 && strncmp(msg, "PSCR_", 5) != 0,
                "%s: \"%s\" leads with the status's text", what, msg);
  for (const char *c = msg; *c; c++) {
    /* A path separator joins two names ("src/plan.c"); "A / M" is prose. */
    ck_assert_msg(!(*c == '/' && c[1] != ' ' && c[1] != '\0'), "%s: a path in \"%s\"", what,
                  msg);
    if (*c == '[') {
      ck_assert_msg(c > msg && (isalnum((unsigned char)c[-1]) || c[-1] == '_'),
                    "%s: a bracket that indexes nothing in \"%s\"", what, msg);
      const char *d = c + 1;
      while (isdigit((unsigned char)*d))
        d++;
      ck_assert_msg(d > c + 1 && *d == ']', "%s: \"[\" not an index in \"%s\"", what, msg);
    }
  }
}

START_TEST(messages_lead_with_cause)
{
  double ad[15], ao[14], md[15], c = 0.0;
  for (int i = 0; i < 15; i++)
    ad[i] = 2, md[i] = 1;
  for (int i = 0; i < 14; i++)
    ao[i] = -1;
  pscr_pencil p[2] = {{15, ad, ao, md, NULL}, {7, ad, ao, md, NULL}};
  pscr_options o;
  pscr_options_init(&o);
  o.backend = PSCR_BACKEND_CPU;
  pscr_plan *plan = NULL;
  double f[2 * 105], u[2 * 105];
  for (int i = 0; i < 2 * 105; i++)
    f[i] = 1.0;

  check_message(pscr_solve(NULL, f, u), PSCR_ERROR_INVALID_VALUE, "plan is NULL", "NULL plan");
  p[0].n = -5;
  check_message(pscr_plan_create(&plan, PSCR_R64, 2, p, &c, &o), PSCR_ERROR_INVALID_VALUE,
                "pencil 1: n is -5, must be >= 1", "n < 1");
  p[0].n = 15;
  check_message(pscr_plan_create(&plan, (pscr_dtype)99, 2, p, &c, &o), PSCR_ERROR_INVALID_VALUE,
                "unknown dtype 99", "bad dtype");
  {
    double md2[7] = {1, 1, 1, NAN, 1, 1, 1};
    pscr_pencil q[2] = {p[0], {7, ad, ao, md2, NULL}};
    check_message(pscr_plan_create(&plan, PSCR_R64, 2, q, &c, &o), PSCR_ERROR_NON_FINITE,
                  "pencil 2: m_diag[3] is not finite", "NaN factor");
  }
  md[5] = -0.5;
  check_message(pscr_plan_create(&plan, PSCR_R64, 2, p, &c, &o), PSCR_ERROR_NOT_DEFINITE,
                "M1 is not positive definite: pivot 6 is -0.5", "indefinite M1");
  md[5] = 1;
  {
    pscr_options small = o;
    small.size = 3;
    check_message(pscr_plan_create(&plan, PSCR_R64, 2, p, &c, &small), PSCR_ERROR_INVALID_VALUE,
                  "opts->size is 3", "options size");
    small = o;
    small.flags = 1u << 31;
    check_message(pscr_plan_create(&plan, PSCR_R64, 2, p, &c, &small), PSCR_ERROR_INVALID_VALUE,
                  "unknown bits 0x80000000", "unknown flag");
    small = o;
    small.flags = PSCR_FLAG_EIGEN_TEAM_NEVER | PSCR_FLAG_EIGEN_TEAM_ALWAYS;
    check_message(pscr_plan_create(&plan, PSCR_R64, 2, p, &c, &small), PSCR_ERROR_INVALID_VALUE,
                  "flags eigen-team-never and eigen-team-always", "exclusive flags");
  }
  {
    /* CUDA asked for: a CPU-only build says so; a CUDA build without the
       device says "no CUDA device" first, whatever the runtime's reason. */
    pscr_options cu = o;
    cu.backend = PSCR_BACKEND_CUDA;
    cu.device = 1000;
    check_message(pscr_plan_create(&plan, PSCR_R64, 2, p, &c, &cu), PSCR_ERROR_NOT_SUPPORTED,
                  PSCR_HAVE_CUDA ? "no CUDA device" : "this build has no CUDA backend",
                  "CUDA device 1000");
    cu.device = 0;
    pscr_status st = pscr_plan_create(&plan, PSCR_R64, 2, p, &c, &cu);
    if (st == PSCR_SUCCESS)
      pscr_plan_destroy(plan); /* a device is present */
    else
      check_message(st, PSCR_ERROR_NOT_SUPPORTED,
                    PSCR_HAVE_CUDA ? "no CUDA device (cudaGetDeviceCount: "
                                   : "this build has no CUDA backend",
                    "CUDA device 0");
  }
  {
    /* A complex M1 whose pivots are all nonzero but for the reduction's
       block of rows 5..7, which starts afresh at m_diag[4] = 1 and meets
       m_diag[5] - m_off[4]^2 / 1 = -1 + 1 = 0: the eigensolver's cause,
       then the block (the plan adds it after). */
    double complex zad[15], zao[14], zmd[15], zmo[14], zc = 0;
    for (int i = 0; i < 15; i++)
      zad[i] = 2, zmd[i] = 1;
    for (int i = 0; i < 14; i++)
      zao[i] = -1, zmo[i] = 0;
    zmo[3] = 0.5, zmo[4] = I, zmd[5] = -1;
    pscr_pencil z[2] = {{15, zad, zao, zmd, zmo}, {7, zad, zao, zmd, NULL}};
    /* The reduction's blocks (a transform of the whole pencil, which the
       default planner would choose, has nonzero pivots and succeeds). */
    pscr_options reduce = o;
    reduce.planner = PSCR_PLANNER_NONE;
    check_message(pscr_plan_create(&plan, PSCR_C64, 2, z, &zc, &reduce),
                  PSCR_ERROR_NOT_DEFINITE, "M is not positive definite", "complex block pivot");
    ck_assert_msg(strstr(pscr_last_error(), "(pencil 1, level 1, block 5..7)"), "%s",
                  pscr_last_error());
  }

  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, p, &c, &o), PSCR_SUCCESS);
  check_message(pscr_solve_batch(plan, 2, f, 105, f + 1, 105), PSCR_ERROR_INVALID_VALUE,
                "u vector 0 overlaps f vector 0", "batch overlap");
  f[7] = INFINITY;
  check_message(pscr_solve(plan, f, u), PSCR_ERROR_NON_FINITE, "f[7] is not finite",
                "Inf in f");
  f[7] = 1;
  pscr_plan_destroy(plan);
  {
    /* A singular subproblem (test_solve_api's batch_singular): the cause
       first, then which right-hand side of the batch. */
    double a1 = 2.0, m1 = 1.0, cs = -2.0;
    double a2d[2] = {1.0, 1.0}, a2o[1] = {1.0}, m2d[2] = {1.0, 1.0};
    pscr_pencil s2[2] = {{1, &a1, NULL, &m1, NULL}, {2, a2d, a2o, m2d, NULL}};
    ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, s2, &cs, &o), PSCR_SUCCESS);
    check_message(pscr_solve_batch(plan, 2, f, 2, u, 2), PSCR_ERROR_SINGULAR, "shift c + lambda",
                  "singular batch");
    ck_assert_msg(strstr(pscr_last_error(), "(right-hand side 0; 2 of 2 right-hand sides failed)"),
                  "%s", pscr_last_error());
    pscr_plan_destroy(plan);
  }
  {
    pscr_problem *pb = NULL;
    const int n[2] = {-5, 7};
    check_message(pscr_problem_create(&pb, PSCR_PROBLEM_POISSON, 2, n, NULL, 0.0, 0.0),
                  PSCR_ERROR_INVALID_VALUE, "n[0] is -5, must be >= 1", "problem n < 1");
    double h[4] = {0.25, 0.25, -0.25, 0.25}, d[3], e[2], m[3];
    check_message(pscr_poisson_factors(3, h, d, e, m, NULL), PSCR_ERROR_INVALID_VALUE,
                  "mesh step h[2] is -0.25, must be > 0", "negative mesh step");
  }
}
END_TEST

START_TEST(cuda_request)
{
  /* CUDA asked for explicitly: NOT_SUPPORTED in a CPU-only build or with no
     device; AUTO always yields a working plan. */
  double a = 2.0, m = 1.0, c = 0.0;
  pscr_pencil p[2] = {{1, &a, NULL, &m, NULL}, {1, &a, NULL, &m, NULL}};
  pscr_options o;
  pscr_options_init(&o);
  o.backend = PSCR_BACKEND_CUDA;
  pscr_plan *plan = NULL;
  pscr_status st = pscr_plan_create(&plan, PSCR_R64, 2, p, &c, &o);
  ck_assert_msg(st == PSCR_SUCCESS || st == PSCR_ERROR_NOT_SUPPORTED, "%s", pscr_status_string(st));
  pscr_plan_destroy(plan);
  o.backend = PSCR_BACKEND_AUTO;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, p, &c, &o), PSCR_SUCCESS);
  double f = 8.0, u = 0.0;
  ck_assert_int_eq(pscr_solve(plan, &f, &u), PSCR_SUCCESS);
  /* 1x1 operator: a m + m a = 4, so u = 2. */
  ck_assert(tu_close(u, 2.0, 4 * DBL_EPSILON, 0));
  pscr_plan_destroy(plan);
}
END_TEST

START_TEST(operator_small)
{
  /* 2D, n = (2, 2): A = A1 (x) M2 + M1 (x) A2 + c M1 (x) M2 formed by hand. */
  double a1d[2] = {2, 3}, a1o[1] = {-1}, m1d[2] = {4, 5}, m1o[1] = {1};
  double a2d[2] = {1, 2}, a2o[1] = {0.5}, m2d[2] = {3, 1};
  pscr_pencil p[2] = {{2, a1d, a1o, m1d, m1o}, {2, a2d, a2o, m2d, NULL}};
  double c = 0.25;
  double A1[2][2] = {{2, -1}, {-1, 3}}, M1[2][2] = {{4, 1}, {1, 5}};
  double A2[2][2] = {{1, 0.5}, {0.5, 2}}, M2[2][2] = {{3, 0}, {0, 1}};
  double u[4] = {1, -2, 0.5, 3}, out[4], norm;
  ck_assert_int_eq(pscr_operator_apply(PSCR_R64, 2, p, &c, u, out), PSCR_SUCCESS);
  double best = 0;
  for (int i1 = 0; i1 < 2; i1++)
    for (int i2 = 0; i2 < 2; i2++) {
      double v = 0, row = 0;
      for (int j1 = 0; j1 < 2; j1++)
        for (int j2 = 0; j2 < 2; j2++) {
          double a = A1[i1][j1] * M2[i2][j2] + M1[i1][j1] * A2[i2][j2] + c * M1[i1][j1] * M2[i2][j2];
          v += a * u[j1 * 2 + j2];
          row += fabs(a);
        }
      ck_assert(tu_close(out[i1 * 2 + i2], v, 8 * DBL_EPSILON, 0));
      best = fmax(best, row);
    }
  ck_assert_int_eq(pscr_operator_norm_inf(PSCR_R64, 2, p, &c, &norm), PSCR_SUCCESS);
  ck_assert(tu_close(norm, best, 8 * DBL_EPSILON, 0));
  ck_assert_int_eq(pscr_operator_apply(PSCR_R64, 2, NULL, &c, u, out), PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_operator_apply(PSCR_R64, 2, p, &c, NULL, out), PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_operator_apply(PSCR_R64, 5, p, &c, u, out), PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_operator_norm_inf(PSCR_R64, 2, p, &c, NULL), PSCR_ERROR_INVALID_VALUE);
}
END_TEST


/*
 * The cost model (pscr_info.cost) on a CPU plan, n = (15, 10), against
 * counts derived by hand from the level structure: n1 = 15 has k = 2;
 * level 1: J_1 = {3, 7, 11}, four blocks of 3 rows with D(B) = B; level 2:
 * one block 0..14 with D(B) = J_1. A solve runs forward level 1 (12
 * subproblems), back level 2 (15), back level 1 (12): 39 Thomas solves of 10
 * rows. Real costs: Thomas 7 flops for row 0, 15 per further row (142 per
 * system); right-hand sides one FMA per source and row: 36 + 45 + 54 source
 * rows (back level 1: D(B) plus gL, gR where a neighbour exists), and one add
 * per shift; level-3 traffic: sources once per block plus the solutions,
 * (12 + 12) + (5 + 15) + (20 + 12) = 76 slabs of 10.
 */
START_TEST(cost_model)
{
  double ad[15], ao[14], md[15], c = 0.0;
  for (int i = 0; i < 15; i++)
    ad[i] = 2, md[i] = 1;
  for (int i = 0; i < 14; i++)
    ao[i] = -1;
  pscr_pencil p[2] = {{15, ad, ao, md, NULL}, {10, ad, ao, md, NULL}};
  pscr_options o;
  pscr_options_init(&o);
  o.backend = PSCR_BACKEND_CPU;
  o.planner = PSCR_PLANNER_NONE; /* the reduction's costs */
  pscr_plan *plan = NULL;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, p, &c, &o), PSCR_SUCCESS);
  pscr_info info;
  ck_assert_int_eq(pscr_plan_info(plan, &info), PSCR_SUCCESS);
  pscr_plan_destroy(plan);
  ck_assert_int_eq(info.level3_rows_per_thread, 0);
  ck_assert_int_eq(info.level3_toeplitz, 0);
  ck_assert_int_eq(info.level3_pivot_table, 0);
  ck_assert_int_eq(info.level3_staged, 0);
  ck_assert_int_eq(info.level3_fused_levels, 0);
  ck_assert_int_eq(info.level3_fused_back, 0);
  ck_assert_int_eq(info.cuda_early_launch, 0);
  ck_assert_int_eq(info.level3_threads_per_system, 1);
  const pscr_cost *L3 = &info.cost[PSCR_STAGE_LEVEL3], *sums = &info.cost[PSCR_STAGE_SUMS];
  const pscr_cost *cpl = &info.cost[PSCR_STAGE_COUPLING], *oth = &info.cost[PSCR_STAGE_OTHER];
  ck_assert_double_eq(L3->flops, (36 + 45 + 54) * 10 * 2 + 39 + 39 * 142);
  ck_assert_double_eq(L3->bytes, 76 * 10 * 8);
  ck_assert_double_eq(L3->launches, 3);
  /* Sums: 2 FMAs per eigenpair and entry forward, 3 back; read the
     solutions, write L_B | R_B or u on D(B). */
  ck_assert_double_eq(sums->flops, (12 * 2 + 15 * 3 + 12 * 3) * 10 * 2);
  ck_assert_double_eq(sums->bytes, ((12 + 8) + (15 + 3) + (12 + 12)) * 10 * 8);
  /* Couplings: one T(j, j+-1) y over a slab is 10 (alpha, alpha mass + beta
     stiff: 2 FMAs and a product) plus 28 stencil terms of 2 FMAs = 162;
     forward: 6 couplings (+ 10 adds each) and 3 slab updates; back level 1: 6. */
  ck_assert_double_eq(cpl->flops, 6 * (162 + 10) + 3 * 10 + 6 * 162);
  ck_assert_double_eq(cpl->bytes, ((6 + 6) + 2 + (6 + 8)) * 10 * 8);
  ck_assert_double_eq(info.cost[PSCR_STAGE_GATHER].flops, 0);
  ck_assert_double_eq(oth->bytes, 2 * 150 * 8);
  ck_assert_double_eq(info.min_bytes, 2 * 150 * 8);
  double f = 0, b = 0, l = 0;
  for (int k = 0; k < PSCR_STAGE_COUNT; k++)
    f += info.cost[k].flops, b += info.cost[k].bytes, l += info.cost[k].launches;
  ck_assert_double_eq(info.cost_total.flops, f);
  ck_assert_double_eq(info.cost_total.bytes, b);
  ck_assert_double_eq(info.cost_total.launches, 12);

  /* Complex: the same traffic in 16-byte elements, more flops per entry. */
  double complex zad[15], zao[14], zmd[15], zc = 0.5 * I;
  for (int i = 0; i < 15; i++)
    zad[i] = 2, zmd[i] = 1;
  for (int i = 0; i < 14; i++)
    zao[i] = -1;
  pscr_pencil pz[2] = {{15, zad, zao, zmd, NULL}, {10, zad, zao, zmd, NULL}};
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_C64, 2, pz, &zc, &o), PSCR_SUCCESS);
  pscr_info zinfo;
  ck_assert_int_eq(pscr_plan_info(plan, &zinfo), PSCR_SUCCESS);
  pscr_plan_destroy(plan);
  for (int k = 0; k < PSCR_STAGE_COUNT; k++) {
    ck_assert_double_eq(zinfo.cost[k].bytes, 2 * info.cost[k].bytes);
    ck_assert(zinfo.cost[k].flops >= 3 * info.cost[k].flops);
  }
  ck_assert_str_eq(pscr_stage_name(PSCR_STAGE_LEVEL3), "level3");
  ck_assert_str_eq(pscr_stage_name(PSCR_STAGE_COUNT), "unknown");
  double ms[PSCR_STAGE_COUNT];
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, p, &c, &o), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_solve_device_profile(plan, ad, md, NULL, ms), PSCR_ERROR_NOT_SUPPORTED);
  ck_assert_int_eq(pscr_solve_device_profile(plan, ad, md, NULL, NULL), PSCR_ERROR_INVALID_VALUE);
  pscr_plan_destroy(plan);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("api");
  TCase *tc = tcase_create("api");
  tcase_add_test(tc, status_strings);
  tcase_add_test(tc, version);
  tcase_add_test(tc, options_defaults);
  tcase_add_test(tc, options_cuda_rows);
  tcase_add_test(tc, options_max_batch);
  tcase_add_test(tc, last_error_detail);
  tcase_add_test(tc, cuda_request);
  tcase_add_test(tc, messages_lead_with_cause);
  tcase_add_test(tc, operator_small);
  tcase_add_test(tc, cost_model);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}

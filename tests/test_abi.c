/*
 * The ABI's promises (pscr.h, docs/user-guide.md "Versioning and ABI"):
 * explicit enum values, the size handshake of pscr_options and pscr_info
 * with older (shorter) and newer (longer) callers, the expert flags and
 * their validation, and the version queries.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

/* The values are part of the ABI: a reordering must fail here. */
START_TEST(enum_values)
{
  ck_assert_int_eq(PSCR_SUCCESS, 0);
  ck_assert_int_eq(PSCR_ERROR_INVALID_VALUE, 1);
  ck_assert_int_eq(PSCR_ERROR_NOT_SUPPORTED, 2);
  ck_assert_int_eq(PSCR_ERROR_NON_FINITE, 3);
  ck_assert_int_eq(PSCR_ERROR_NOT_DEFINITE, 4);
  ck_assert_int_eq(PSCR_ERROR_EIGEN_FAILED, 5);
  ck_assert_int_eq(PSCR_ERROR_SINGULAR, 6);
  ck_assert_int_eq(PSCR_ERROR_HOST_ALLOC, 7);
  ck_assert_int_eq(PSCR_ERROR_DEVICE_ALLOC, 8);
  ck_assert_int_eq(PSCR_ERROR_DEVICE, 9);
  ck_assert_int_eq(PSCR_R64, 0);
  ck_assert_int_eq(PSCR_C64, 1);
  ck_assert_int_eq(PSCR_R32, 2);
  ck_assert_int_eq(PSCR_C32, 3);
  ck_assert_int_eq(PSCR_BACKEND_AUTO, 0);
  ck_assert_int_eq(PSCR_BACKEND_CPU, 1);
  ck_assert_int_eq(PSCR_BACKEND_CUDA, 2);
  ck_assert_int_eq(PSCR_STAGE_LEVEL3, 0);
  ck_assert_int_eq(PSCR_STAGE_SUMS, 1);
  ck_assert_int_eq(PSCR_STAGE_COUPLING, 2);
  ck_assert_int_eq(PSCR_STAGE_GATHER, 3);
  ck_assert_int_eq(PSCR_STAGE_OTHER, 4);
  ck_assert_int_eq(PSCR_STAGE_COUNT, 5);
  ck_assert_int_eq(PSCR_PROBLEM_POISSON, 0);
  ck_assert_int_eq(PSCR_PROBLEM_HELMHOLTZ, 1);
  /* The status text is looked up by value, so value and name agree. */
#define CHECK_STATUS_(name, value, text)                                       \
  ck_assert_int_eq(strncmp(pscr_status_string((pscr_status)(value)), #name,    \
                           strlen(#name)), 0);
  PSCR_STATUS_LIST(CHECK_STATUS_)
#undef CHECK_STATUS_
}
END_TEST

START_TEST(version_queries)
{
  int major = -1, minor = -1, patch = -1;
  pscr_version_get(&major, &minor, &patch);
  ck_assert_int_eq(major, PSCR_VERSION_MAJOR);
  ck_assert_int_eq(minor, PSCR_VERSION_MINOR);
  ck_assert_int_eq(patch, PSCR_VERSION_PATCH);
  pscr_version_get(NULL, NULL, NULL); /* each may be NULL */
  ck_assert_str_eq(pscr_version(), PSCR_VERSION_STRING);
  ck_assert_int_eq(PSCR_VERSION_NUMBER, major * 10000 + minor * 100 + patch);
  ck_assert(PSCR_VERSION_GE(major, minor, patch));
  ck_assert(PSCR_VERSION_GE(0, 0, 0));
  ck_assert(!PSCR_VERSION_GE(major, minor, patch + 1));
  ck_assert(!PSCR_VERSION_GE(major + 1, 0, 0));
}
END_TEST

/* A small 2D problem for plans of this suite. */
static pscr_problem *small_problem(void)
{
  const int n[2] = {9, 7};
  pscr_problem *pb = NULL;
  ck_assert_int_eq(pscr_problem_create(&pb, PSCR_PROBLEM_POISSON, 2, n, NULL, 0.0, 0.0),
                   PSCR_SUCCESS);
  return pb;
}

static pscr_status plan_with(const pscr_problem *pb, const pscr_options *opts)
{
  pscr_plan *plan = NULL;
  pscr_status st = pscr_plan_create(&plan, pb->dtype, pb->ndim, pb->pencils, pb->shift, opts);
  ck_assert(st == PSCR_SUCCESS ? plan != NULL : plan == NULL);
  pscr_plan_destroy(plan);
  return st;
}

/* pscr 0.2's pscr_options ends with flags. */
#define OPTIONS_0_2 (offsetof(pscr_options, flags) + sizeof(unsigned int))

START_TEST(options_size_handshake)
{
  pscr_problem *pb = small_problem();
  pscr_options o;
  /* Bad sizes and NULL. */
  ck_assert_int_eq(pscr_options_init_size(NULL, sizeof o), PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_options_init_size(&o, OPTIONS_0_2 - 1), PSCR_ERROR_INVALID_VALUE);
  ck_assert_msg(strstr(pscr_last_error(), "size is") != NULL, "%s", pscr_last_error());
  /* Options never initialized (size 0, or garbage below the minimum). */
  memset(&o, 0, sizeof o);
  o.backend = PSCR_BACKEND_CPU;
  ck_assert_int_eq(plan_with(pb, &o), PSCR_ERROR_INVALID_VALUE);
  ck_assert_msg(strstr(pscr_last_error(), "pscr_options_init") != NULL, "%s",
                pscr_last_error());
  /* An older caller's struct: exactly 0.2's fields. */
  pscr_options_init(&o);
  ck_assert_uint_eq(o.size, sizeof o);
  o.size = OPTIONS_0_2;
  o.backend = PSCR_BACKEND_CPU;
  ck_assert_int_eq(plan_with(pb, &o), PSCR_SUCCESS);

  /* A newer caller's longer struct: init zeroes its extra fields, a plan
     accepts them at zero and refuses a field this library does not know. */
  struct {
    pscr_options o;
    unsigned char extra[24];
  } big;
  memset(&big, 0x5a, sizeof big);
  ck_assert_int_eq(pscr_options_init_size(&big.o, sizeof big), PSCR_SUCCESS);
  ck_assert_uint_eq(big.o.size, sizeof big);
  ck_assert_int_eq(big.o.backend, PSCR_BACKEND_AUTO);
  ck_assert_int_eq(big.o.max_batch, 1);
  ck_assert_uint_eq(big.o.flags, 0);
  for (size_t i = 0; i < sizeof big.extra; i++)
    ck_assert_int_eq(big.extra[i], 0);
  big.o.backend = PSCR_BACKEND_CPU;
  ck_assert_int_eq(plan_with(pb, &big.o), PSCR_SUCCESS);
  big.extra[5] = 1;
  ck_assert_int_eq(plan_with(pb, &big.o), PSCR_ERROR_NOT_SUPPORTED);
  ck_assert_msg(strstr(pscr_last_error(), "newer") != NULL, "%s", pscr_last_error());
  pscr_problem_destroy(pb);
}
END_TEST

/* pscr 0.2's pscr_info ends with min_bytes. */
#define INFO_0_2 (offsetof(pscr_info, min_bytes) + sizeof(double))

START_TEST(info_size_handshake)
{
  pscr_problem *pb = small_problem();
  pscr_options o;
  pscr_options_init(&o);
  o.backend = PSCR_BACKEND_CPU;
  pscr_plan *plan = NULL;
  ck_assert_int_eq(pscr_plan_create(&plan, pb->dtype, 2, pb->pencils, pb->shift, &o),
                   PSCR_SUCCESS);
  pscr_info ref;
  ck_assert_int_eq(pscr_plan_info(plan, &ref), PSCR_SUCCESS);
  ck_assert_uint_eq(ref.size, sizeof ref);
  ck_assert_int_eq(ref.backend, PSCR_BACKEND_CPU);
  ck_assert_int_eq(ref.n[0], 9);
  ck_assert(ref.cost_total.flops > 0);

  /* Too small, and NULL. */
  ck_assert_int_eq(pscr_plan_info_size(plan, &ref, INFO_0_2 - 1), PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_plan_info_size(plan, NULL, sizeof ref), PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_plan_info_size(NULL, &ref, sizeof ref), PSCR_ERROR_INVALID_VALUE);

  /* An older caller's struct: its prefix, nothing past it written. */
  unsigned char buf[sizeof(pscr_info) + 32];
  memset(buf, 0x5a, sizeof buf);
  ck_assert_int_eq(pscr_plan_info_size(plan, (pscr_info *)(void *)buf, INFO_0_2), PSCR_SUCCESS);
  pscr_info got;
  memcpy(&got, buf, sizeof got);
  ck_assert_uint_eq(got.size, INFO_0_2);
  ck_assert_int_eq(got.n[1], 7);
  ck_assert(got.min_bytes == ref.min_bytes);
  for (size_t i = INFO_0_2; i < sizeof buf; i++)
    ck_assert_int_eq(buf[i], 0x5a);

  /* A newer caller's longer struct: this library's fields, zeros after. */
  memset(buf, 0x5a, sizeof buf);
  ck_assert_int_eq(pscr_plan_info_size(plan, (pscr_info *)(void *)buf, sizeof buf), PSCR_SUCCESS);
  memcpy(&got, buf, sizeof got);
  ck_assert_uint_eq(got.size, sizeof(pscr_info));
  ck_assert(memcmp(&got.backend, &ref.backend, sizeof ref - offsetof(pscr_info, backend)) == 0);
  for (size_t i = sizeof(pscr_info); i < sizeof buf; i++)
    ck_assert_int_eq(buf[i], 0);
  pscr_plan_destroy(plan);
  pscr_problem_destroy(pb);
}
END_TEST

#define FLAG_ENTRY_(name, bit, cli, text) {name, cli},
static const struct {
  unsigned bit;
  const char *cli;
} flags[] = {PSCR_FLAG_LIST(FLAG_ENTRY_)};
#undef FLAG_ENTRY_
#define N_FLAGS ((int)(sizeof flags / sizeof flags[0]))

/* Every flag is one bit with its own name, and a plan takes it alone. */
START_TEST(flag_names_and_bits)
{
  unsigned all = 0;
  for (int i = 0; i < N_FLAGS; i++) {
    const unsigned b = flags[i].bit;
    ck_assert_msg(b != 0 && (b & (b - 1)) == 0, "%s is not one bit", flags[i].cli);
    ck_assert_msg(!(all & b), "%s reuses a bit", flags[i].cli);
    all |= b;
    ck_assert_str_eq(pscr_flag_name(b), flags[i].cli);
    for (int j = 0; j < i; j++)
      ck_assert_str_ne(flags[i].cli, flags[j].cli);
  }
  ck_assert_ptr_null(pscr_flag_name(0));
  ck_assert_ptr_null(pscr_flag_name(flags[0].bit | flags[1].bit));
  for (int k = 0; k < 32; k++)
    if (!(all & (1u << k)))
      ck_assert_ptr_null(pscr_flag_name(1u << k));
}
END_TEST

/* A plan with each flag alone (CPU backend: the CUDA flags are validated
   and ignored there) solves to the bound; unknown bits and both halves of a
   pair are refused with the cause in the message. */
START_TEST(flags_in_plans)
{
  pscr_problem *pb = small_problem();
  const size_t N = 9 * 7;
  double f[9 * 7], u[9 * 7];
  for (size_t i = 0; i < N; i++)
    f[i] = 1.0 + 0.1 * (double)(i % 5);
  pscr_options o;
  pscr_options_init(&o);
  o.backend = PSCR_BACKEND_CPU;
  for (int i = 0; i < N_FLAGS; i++) {
    o.flags = flags[i].bit;
    pscr_plan *plan = NULL;
    pscr_status st = pscr_plan_create(&plan, pb->dtype, 2, pb->pencils, pb->shift, &o);
    ck_assert_msg(st == PSCR_SUCCESS, "%s: %s", flags[i].cli, pscr_last_error());
    ck_assert_int_eq(pscr_solve(plan, f, u), PSCR_SUCCESS);
    const double berr = tu_backward_error(pb->dtype, 2, pb->pencils, pb->shift, u, f);
    ck_assert_msg(berr < 1e-14, "%s: backward error %.2e", flags[i].cli, berr);
    pscr_plan_destroy(plan);
  }
  unsigned all = 0;
  for (int i = 0; i < N_FLAGS; i++)
    all |= flags[i].bit;
  for (int k = 0; k < 32; k++) {
    if (all & (1u << k))
      continue;
    o.flags = 1u << k;
    ck_assert_int_eq(plan_with(pb, &o), PSCR_ERROR_INVALID_VALUE);
    ck_assert_msg(strstr(pscr_last_error(), "unknown bits") != NULL, "%s", pscr_last_error());
  }
  static const unsigned pairs[][2] = {
      {PSCR_FLAG_EIGEN_TEAM_NEVER, PSCR_FLAG_EIGEN_TEAM_ALWAYS},
      {PSCR_FLAG_EIGEN_SPLIT_NEVER, PSCR_FLAG_EIGEN_SPLIT_ALWAYS},
      {PSCR_FLAG_CUDA_PAIR_NEVER, PSCR_FLAG_CUDA_PAIR_ALWAYS},
      {PSCR_FLAG_CUDA_COUPLE_ONE, PSCR_FLAG_CUDA_COUPLE_MANY},
      {PSCR_FLAG_CUDA_FUSE_NEVER, PSCR_FLAG_CUDA_FUSE_ALL},
  };
  for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
    o.flags = pairs[k][0] | pairs[k][1] | PSCR_FLAG_NO_MERGE_TOP;
    ck_assert_int_eq(plan_with(pb, &o), PSCR_ERROR_INVALID_VALUE);
    ck_assert_msg(strstr(pscr_last_error(), pscr_flag_name(pairs[k][0])) &&
                      strstr(pscr_last_error(), pscr_flag_name(pairs[k][1])),
                  "%s", pscr_last_error());
  }
  pscr_problem_destroy(pb);
}
END_TEST

/* The eigensolver flags reach it: a complex Helmholtz plan whose first
   pencil is long enough for the vector-lane paths (Crawford's lane sweep
   from order 128, complex LR's multishift passes) solves to the bound
   with and without PSCR_FLAG_EIGEN_SCALAR, and the two solutions differ in
   their last bits (the scalar path rounds differently): identical ones
   would mean the flag never reached the eigensolver. */
START_TEST(eigen_flags_reach_the_eigensolver)
{
  const int n[2] = {300, 6};
  pscr_problem *pb = NULL;
  ck_assert_int_eq(pscr_problem_create(&pb, PSCR_PROBLEM_HELMHOLTZ, 2, n, NULL, 0.0, 30.0),
                   PSCR_SUCCESS);
  const size_t N = 300 * 6;
  double *f = malloc(2 * N * sizeof *f), *u[2] = {malloc(2 * N * sizeof(double)),
                                                   malloc(2 * N * sizeof(double))};
  ck_assert(f && u[0] && u[1]);
  for (size_t i = 0; i < 2 * N; i++)
    f[i] = 1.0 + 0.25 * (double)(i % 7) - 0.5 * (double)(i % 3);
  for (int k = 0; k < 2; k++) {
    pscr_options o;
    pscr_options_init(&o);
    o.backend = PSCR_BACKEND_CPU;
    o.flags = k ? PSCR_FLAG_EIGEN_SCALAR : 0;
    pscr_plan *plan = NULL;
    ck_assert_int_eq(pscr_plan_create(&plan, PSCR_C64, 2, pb->pencils, pb->shift, &o),
                     PSCR_SUCCESS);
    ck_assert_int_eq(pscr_solve(plan, f, u[k]), PSCR_SUCCESS);
    const double berr = tu_backward_error(PSCR_C64, 2, pb->pencils, pb->shift, u[k], f);
    ck_assert_msg(berr < 1e-11, "%s: backward error %.2e", k ? "scalar" : "lanes", berr);
    pscr_plan_destroy(plan);
  }
  ck_assert_msg(memcmp(u[0], u[1], 2 * N * sizeof(double)) != 0,
                "PSCR_FLAG_EIGEN_SCALAR left the solution bitwise unchanged");
  free(f);
  free(u[0]);
  free(u[1]);
  pscr_problem_destroy(pb);
}
END_TEST

static Suite *abi_suite(void)
{
  Suite *s = suite_create("abi");
  TCase *tc = tcase_create("abi");
  tcase_add_test(tc, enum_values);
  tcase_add_test(tc, version_queries);
  tcase_add_test(tc, options_size_handshake);
  tcase_add_test(tc, info_size_handshake);
  tcase_add_test(tc, flag_names_and_bits);
  tcase_add_test(tc, flags_in_plans);
  tcase_add_test(tc, eigen_flags_reach_the_eigensolver);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run_suite(abi_suite()); }

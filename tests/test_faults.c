/*
 * Host allocation failure injection: the malloc family is interposed for the
 * whole process (ELF symbol interposition also catches the calls made inside
 * libpscr), and while armed the k-th allocation fails. For k = 0, 1, 2, ...
 * plan creation, solves and the problem builders must return
 * PSCR_ERROR_HOST_ALLOC (never crash), leave no live allocation behind, and
 * succeed once k exceeds the number of allocation sites on the path. Under
 * PSCR_PLANNER_MEASURE a failure may also be survived (the candidate is
 * skipped), never leaked.
 *
 * Only allocations made by libpscr itself fail: the OpenMP runtime aborts on
 * out-of-memory by design, so its own allocations are left alone (the
 * caller's return address tells whose allocation it is).
 *
 * Not run under ASan or valgrind (they interpose malloc themselves).
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static _Thread_local int in_hook;
static int armed;             /* count and fail only while armed */
static long fail_at = -1;     /* index of the allocation to fail */
static long calls, live;      /* allocations seen / outstanding while armed */

/* Is the code at `ret` part of libpscr? */
static int from_pscr(void *ret)
{
  Dl_info info;
  in_hook = 1; /* dladdr may allocate */
  int ok = dladdr(ret, &info) && info.dli_fname && strstr(info.dli_fname, "libpscr");
  in_hook = 0;
  return ok;
}

#define should_fail() should_fail_(__builtin_return_address(0))
static int should_fail_(void *ret)
{
  if (!armed || in_hook || !from_pscr(ret))
    return 0;
  long k = __atomic_fetch_add(&calls, 1, __ATOMIC_SEQ_CST);
  return k == fail_at;
}

static void *track(void *p)
{
  if (p && armed)
    __atomic_fetch_add(&live, 1, __ATOMIC_SEQ_CST);
  return p;
}

void *malloc(size_t n) { return should_fail() ? NULL : track(__libc_malloc(n)); }
void *calloc(size_t a, size_t b) { return should_fail() ? NULL : track(__libc_calloc(a, b)); }
void *aligned_alloc(size_t al, size_t n) { return should_fail() ? NULL : track(__libc_memalign(al, n)); }
void *memalign(size_t al, size_t n) { return should_fail() ? NULL : track(__libc_memalign(al, n)); }
int posix_memalign(void **out, size_t al, size_t n)
{
  if (should_fail())
    return 12; /* ENOMEM */
  *out = track(__libc_memalign(al, n));
  return *out ? 0 : 12;
}
void *realloc(void *p, size_t n)
{
  if (!p)
    return malloc(n);
  return should_fail() ? NULL : __libc_realloc(p, n);
}
void free(void *p)
{
  if (p && armed)
    __atomic_fetch_sub(&live, 1, __ATOMIC_SEQ_CST);
  __libc_free(p);
}

typedef pscr_status (*scenario)(void);



static pscr_status plan_and_solve_with(int ndim, pscr_problem_kind kind, pscr_planner planner)
{
  int n[3] = {37, 20, 9};
  pscr_problem *pb = NULL;
  pscr_status st = pscr_problem_create(&pb, kind, ndim, n, NULL, 0.3, 5.0);
  if (st)
    return st;
  size_t N = (size_t)pb->n[0] * pb->n[1] * pb->n[2], es = pb->dtype == PSCR_C64 ? 16 : 8;
  void *b = malloc(N * es), *u = malloc(N * es);
  pscr_plan *plan = NULL;
  if (!b || !u) {
    st = PSCR_ERROR_HOST_ALLOC; /* the test's own buffers count as sites too */
    goto out;
  }
  if ((st = pscr_problem_manufactured(pb, b, NULL)))
    goto out;
  pscr_options opts = *tu_cpu_options();
  opts.planner = planner;
  if ((st = pscr_plan_create(&plan, pb->dtype, ndim, pb->pencils, pb->shift, &opts)))
    goto out;
  st = pscr_solve(plan, b, u);
out:
  pscr_plan_destroy(plan);
  pscr_problem_destroy(pb);
  free(b);
  free(u);
  return st;
}

static pscr_status poisson_2d(void)
{
  return plan_and_solve_with(2, PSCR_PROBLEM_POISSON, PSCR_PLANNER_NONE);
}
static pscr_status helmholtz_3d(void)
{
  return plan_and_solve_with(3, PSCR_PROBLEM_HELMHOLTZ, PSCR_PLANNER_NONE);
}
static pscr_status helmholtz_3d_measure(void)
{
  return plan_and_solve_with(3, PSCR_PROBLEM_HELMHOLTZ, PSCR_PLANNER_MEASURE);
}

/* tolerant: a failure may be survived (MEASURE skips a candidate whose
   plan fails and keeps another), so a success ends the walk only once no
   allocation failed. */
static void inject_with(scenario run, const char *name, int tolerant)
{
  /* Warm up: OpenMP creates its thread pool on first use and keeps it; those
     allocations are the runtime's, not ours. */
  ck_assert_int_eq(run(), PSCR_SUCCESS);
  long sites = 0;
  for (long k = 0;; k++) {
    calls = 0;
    live = 0;
    fail_at = k;
    armed = 1;
    pscr_status st = run();
    armed = 0;
    ck_assert_msg(live == 0, "%s: failing allocation %ld leaks %ld blocks", name, k, live);
    if (st == PSCR_SUCCESS && tolerant && calls > k)
      continue;
    if (st == PSCR_SUCCESS) {
      ck_assert_msg(calls <= k, "%s: allocation %ld failed but the call succeeded", name, k);
      sites = k;
      break;
    }
    ck_assert_msg(st == PSCR_ERROR_HOST_ALLOC, "%s: failing allocation %ld gave %s (%s)", name, k,
                  pscr_status_string(st), pscr_last_error());
    ck_assert_msg(k < 100000, "%s: no end to allocation sites", name);
  }
  printf("%s: each of its %ld allocations failed in turn: reported, nothing leaked\n", name, sites);
}

static void inject(scenario run, const char *name) { inject_with(run, name, 0); }

START_TEST(faults_poisson_2d) { inject(poisson_2d, "poisson 2D"); }
END_TEST
START_TEST(faults_helmholtz_3d) { inject(helmholtz_3d, "helmholtz 3D"); }
END_TEST
START_TEST(faults_measure_3d) { inject_with(helmholtz_3d_measure, "helmholtz 3D, MEASURE", 1); }
END_TEST

int main(void)
{
  Suite *s = suite_create("faults");
  TCase *tc = tcase_create("host_alloc");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, faults_poisson_2d);
  tcase_add_test(tc, faults_helmholtz_3d);
  tcase_add_test(tc, faults_measure_3d);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}

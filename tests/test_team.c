/*
 * The CPU solve's team (src/team.c): the phases hand out every item once,
 * no item of a phase starts before the previous phase is done, and a
 * thread that arrives after the others finished runs through without work
 * or waiting; the team size follows the work; the timed choice between one
 * thread and a team tries the team only where a core is idle, takes the
 * faster, tries the slower later the more it lost, and leaves a team that
 * load has made slow after one solve.
 */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "team.h"
#include "test_util.h"

enum { PHASES = 90, MAX_ITEMS = 40 };

/* Phase p has (p * 7) % MAX_ITEMS items (some none). Every item checks
   that all items of the previous phase wrote their mark (a thread that ran
   ahead, or a write not yet visible, shows as a wrong value), then writes
   its own. */
static int run_phases(pscr_team_phases *T, int mark[PHASES][MAX_ITEMS], int *wrong)
{
  int items = 0, prev = 0;
  for (int p = 0; p < PHASES; p++) {
    const int n = (p * 7) % MAX_ITEMS;
    if (p > 0)
      pscr_team_await(T, p - 1, prev);
    int count = 0;
    for (int j; (j = pscr_team_claim(T, p, n)) >= 0; count++) {
      for (int q = 0; p > 0 && q < prev; q++)
        *wrong += __atomic_load_n(&mark[p - 1][q], __ATOMIC_RELAXED) != p;
      __atomic_fetch_add(&mark[p][j], p + 1, __ATOMIC_RELAXED);
    }
    pscr_team_finish(T, p, count, n);
    items += count;
    prev = n;
  }
  return items;
}

/* Teams of 2, 3 and 5 threads (more than this machine's cores: the
   sleeping path), 20 rounds each: every item done once, in phase order. */
START_TEST(phases_hand_out_items_in_order)
{
  static const int teams[] = {2, 3, 5};
  static int mark[PHASES][MAX_ITEMS];
  for (size_t k = 0; k < sizeof teams / sizeof teams[0]; k++)
    for (int round = 0; round < 20; round++) {
      const int nt = teams[k];
      memset(mark, 0, sizeof mark);
      pscr_team_phases T;
      pscr_team_phases_init(&T);
      int wrong = 0, items = 0, size = 0;
#pragma omp parallel num_threads(nt) reduction(+ : wrong, items)
      {
#pragma omp single
        size = omp_get_num_threads();
        items += run_phases(&T, mark, &wrong);
      }
      ck_assert_msg(size == nt, "OpenMP gave %d threads, asked %d", size, nt);
      ck_assert_msg(wrong == 0, "team of %d: %d marks read before their phase ended", nt, wrong);
      int total = 0, twice = 0;
      for (int p = 0; p < PHASES; p++)
        for (int j = 0; j < (p * 7) % MAX_ITEMS; j++) {
          total++;
          twice += mark[p][j] != p + 1;
        }
      ck_assert_msg(items == total && twice == 0, "team of %d: %d of %d items, %d not done once",
                    nt, items, total, twice);
    }
}
END_TEST

/* Thread 1 starts only after thread 0 has seen the last phase done: it
   must find nothing to do and not wait (a barrier would hang here until
   the test's timeout). */
START_TEST(late_thread_skips_finished_phases)
{
  static int mark[PHASES][MAX_ITEMS];
  memset(mark, 0, sizeof mark);
  pscr_team_phases T;
  pscr_team_phases_init(&T);
  int finished = 0, wrong = 0, late_items = -1, early_items = 0, size = 0;
#pragma omp parallel num_threads(2) reduction(+ : wrong)
  {
    const int me = omp_get_thread_num();
#pragma omp single
    size = omp_get_num_threads();
    if (me == 0) {
      early_items = run_phases(&T, mark, &wrong);
      pscr_team_await(&T, PHASES - 1, ((PHASES - 1) * 7) % MAX_ITEMS);
      __atomic_store_n(&finished, 1, __ATOMIC_RELEASE);
    } else {
      while (!__atomic_load_n(&finished, __ATOMIC_ACQUIRE))
        ;
      late_items = run_phases(&T, mark, &wrong);
    }
  }
  ck_assert_int_eq(size, 2);
  ck_assert_int_eq(wrong, 0);
  ck_assert_int_eq(late_items, 0);
  int total = 0;
  for (int p = 0; p < PHASES; p++)
    total += (p * 7) % MAX_ITEMS;
  ck_assert_int_eq(early_items, total);
}
END_TEST

START_TEST(team_size_follows_work)
{
  ck_assert_int_eq(pscr_team_size(0, 8), 1);
  ck_assert_int_eq(pscr_team_size(1e9, 1), 1);
  /* 2D 63^2: 3969 unknowns, 5 passes: one thread. */
  ck_assert_int_eq(pscr_team_size(3969.0 * 5, 8), 1);
  /* Two threads from 2 x 16384 unknown-levels on. */
  ck_assert_int_eq(pscr_team_size(2 * 16384.0 - 1, 8), 1);
  ck_assert_int_eq(pscr_team_size(2 * 16384.0, 8), 2);
  /* 2D 127^2: 16129 unknowns, 7 passes: 6 threads' worth. */
  ck_assert_int_eq(pscr_team_size(16129.0 * 7, 8), 6);
  /* 2D 511^2, 9 passes: capped by max_threads. */
  ck_assert_int_eq(pscr_team_size(261121.0 * 9, 8), 8);
  ck_assert_int_eq(pscr_team_size(261121.0 * 9, 2), 2);
}
END_TEST

static int idle_none(void) { return 0; }
static int idle_one(void) { return 1; }
static int idle_three(void) { return 3; }
static int idle_unknown(void) { return -1; }

/* Replays solve times: t_one for one thread, t_team for the team, over
   `solves` solves; returns how many ran with the team. */
static int replay(pscr_team_choice *c, double t_one, double t_team, int solves)
{
  int with_team = 0;
  for (int s = 0; s < solves; s++) {
    const int which = pscr_team_choice_pick(c);
    with_team += which == 1;
    pscr_team_choice_record(c, which, which ? t_team : t_one);
  }
  return with_team;
}

START_TEST(choice_takes_the_faster)
{
  pscr_team_choice c;
  /* Too little work for a team: always one thread, never timed. */
  pscr_team_choice_init(&c, 1000.0, 2, 0);
  ck_assert_int_eq(c.size[1], 1);
  ck_assert_int_eq(replay(&c, 1.0, 0.1, 100), 100); /* candidate 1 is the team of one */
  ck_assert_int_eq(c.solves, 0);

  /* Idle machine, the team faster (0.6 against 1.0): one thread at solve
     0, the team's try at 1 wins; one thread's tries then come every 17th
     solve (16 after each), at 18, 35, ..., 154: 10 of 162 solves. */
  pscr_team_choice_init(&c, 1e7, 2, 0);
  c.idle_cores = idle_one;
  ck_assert_int_eq(c.size[1], 2);
  ck_assert_int_eq(replay(&c, 1.0, 0.6, 162), 152);

  /* Load arrives: the team now takes 3.0. Its smoothed time passes one
     thread's after one solve (0.6 + 0.25 (3.0 - 0.6) = 1.2 > 1.0). */
  ck_assert_int_eq(pscr_team_choice_pick(&c), 1);
  pscr_team_choice_record(&c, 1, 3.0);
  ck_assert_int_eq(pscr_team_choice_pick(&c), 0);

  /* No idle core: the team is never tried. */
  pscr_team_choice_init(&c, 1e7, 2, 0);
  c.idle_cores = idle_none;
  ck_assert_int_eq(replay(&c, 1.0, 0.1, 500), 0);

  /* A try that loses by much waits long: the team takes 20.0 against 1.0,
     so after its try at solve 1 the next waits 10 x 19 = 190 solves (at
     192, then at 383): tries cost about 1/10 of the time. */
  pscr_team_choice_init(&c, 1e7, 2, 0);
  c.idle_cores = idle_unknown; /* unknown load: tries go ahead */
  ck_assert_int_eq(replay(&c, 1.0, 20.0, 400), 3);

  /* Three idle cores: a team of four at most, the work's eight otherwise. */
  pscr_team_choice_init(&c, 1e7, 8, 0);
  ck_assert_int_eq(c.size[1], 8);
  c.idle_cores = idle_three;
  replay(&c, 1.0, 0.5, 2);
  ck_assert_int_eq(c.size[1], 4);

  /* Fixed: always the work's team, nothing timed. */
  pscr_team_choice_init(&c, 1e7, 4, 1);
  ck_assert_int_eq(replay(&c, 0.1, 9.0, 50), 50);
  ck_assert_int_eq(c.size[1], 4);
  ck_assert_int_eq(c.solves, 0);
}
END_TEST

/* The operating system's count, where there is one: between 0 and the
   online cores. */
START_TEST(idle_cores_in_range)
{
  const int idle = pscr_team_idle_cores();
  ck_assert_int_ge(idle, -1);
  ck_assert_int_lt(idle, omp_get_num_procs() + 1);
#if defined(__linux__)
  ck_assert_int_ge(idle, 0);
#endif
}
END_TEST

/* A thread of this process that spins is counted as this process's own
   runnable thread (so it is not taken for another job's load: a threaded
   BLAS's workers spin like it after each product). */
START_TEST(own_spinning_thread_counted)
{
#if defined(__linux__)
  int flag = 0, started = 0, counted = 0;
#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 1) {
      __atomic_store_n(&started, 1, __ATOMIC_SEQ_CST);
      while (!__atomic_load_n(&flag, __ATOMIC_SEQ_CST))
        ;
    } else if (omp_get_num_threads() == 2) {
      while (!__atomic_load_n(&started, __ATOMIC_SEQ_CST))
        ;
      counted = pscr_team_own_runnable();
      __atomic_store_n(&flag, 1, __ATOMIC_SEQ_CST);
    } else {
      counted = -1;
    }
  }
  ck_assert_msg(counted != -1, "OpenMP gave one thread for two");
  ck_assert_int_ge(counted, 2);
#else
  ck_assert_int_eq(pscr_team_own_runnable(), 1);
#endif
}
END_TEST

static Suite *team_suite(void)
{
  Suite *s = suite_create("team");
  TCase *tc = tcase_create("team");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, phases_hand_out_items_in_order);
  tcase_add_test(tc, late_thread_skips_finished_phases);
  tcase_add_test(tc, team_size_follows_work);
  tcase_add_test(tc, choice_takes_the_faster);
  tcase_add_test(tc, idle_cores_in_range);
  tcase_add_test(tc, own_spinning_thread_counted);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run_suite(team_suite()); }

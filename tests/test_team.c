/*
 * The CPU solve's team (src/team.c): the barrier keeps every thread's
 * writes of a phase visible to all in the next and lets no thread run ahead;
 * the team size follows the work; the timed choice between one thread and
 * the team takes the faster, probes the other every 16th solve and follows a
 * change of load after one probe.
 */
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "team.h"
#include "test_util.h"

/* Threads write their phase number into their own slot, meet, and check
   every other slot holds it: a thread that ran ahead, or a write not yet
   visible, shows as a wrong value. Teams of 2, 3 and 5 (more threads than
   this machine's cores: the sleeping path), 2000 phases. */
START_TEST(barrier_orders_phases)
{
  static const int teams[] = {2, 3, 5};
  for (size_t k = 0; k < sizeof teams / sizeof teams[0]; k++) {
    const int nt = teams[k];
    int slot[8];
    memset(slot, 0, sizeof slot);
    pscr_team_barrier bar;
    pscr_team_init(&bar);
    int wrong = 0, size = 0;
#pragma omp parallel num_threads(nt) reduction(+ : wrong)
    {
      const int me = omp_get_thread_num(), nth = omp_get_num_threads();
#pragma omp single
      size = nth;
      for (int phase = 1; phase <= 2000; phase++) {
        __atomic_store_n(&slot[me], phase, __ATOMIC_RELAXED);
        pscr_team_wait(&bar, nth);
        for (int t = 0; t < nth; t++)
          wrong += __atomic_load_n(&slot[t], __ATOMIC_RELAXED) != phase;
        pscr_team_wait(&bar, nth);
      }
    }
    ck_assert_msg(size == nt, "OpenMP gave %d threads, asked %d", size, nt);
    ck_assert_msg(wrong == 0, "team of %d: %d slots read out of phase", nt, wrong);
  }
  pscr_team_barrier one;
  pscr_team_init(&one);
  pscr_team_wait(&one, 1); /* a team of one returns at once */
}
END_TEST

START_TEST(team_size_follows_work)
{
  ck_assert_int_eq(pscr_team_size(0, 8), 1);
  ck_assert_int_eq(pscr_team_size(1e9, 1), 1);
  /* 2D 127^2: 16129 unknowns, 7 passes: one thread. */
  ck_assert_int_eq(pscr_team_size(16129.0 * 7, 8), 1);
  /* Two threads from 2 x 262144 unknown-levels on. */
  ck_assert_int_eq(pscr_team_size(2 * 262144.0 - 1, 8), 1);
  ck_assert_int_eq(pscr_team_size(2 * 262144.0, 8), 2);
  /* 2D 511^2, 9 passes: 8 threads' worth, capped by max_threads. */
  ck_assert_int_eq(pscr_team_size(261121.0 * 9, 8), 8);
  ck_assert_int_eq(pscr_team_size(261121.0 * 9, 2), 2);
}
END_TEST

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

  /* Idle machine: the team is faster; 2 measurements, then 1 probe of one
     thread per 16 solves. */
  pscr_team_choice_init(&c, 1e7, 2, 0);
  ck_assert_int_eq(c.size[1], 2);
  const int idle = replay(&c, 1.0, 0.6, 162);
  ck_assert_msg(idle == 162 - 1 - 10, "the team ran %d of 162 solves", idle);

  /* Load arrives: one thread is now faster (the team's 3.0 is its running
     time, smoothed; one thread's next probe shows 1.0): the choice moves
     to one thread within the 16 solves up to that probe. */
  int team_before_probe = 0;
  for (int s = 0; s < 32; s++) {
    const int which = pscr_team_choice_pick(&c);
    if (s >= 16)
      ck_assert_msg(which == 0 || c.solves % 16 == 15, "solve %d: still the team", s);
    team_before_probe += which == 1;
    pscr_team_choice_record(&c, which, which ? 3.0 : 1.0);
  }
  ck_assert(team_before_probe >= 1 && team_before_probe <= 17);

  /* Fixed: always the team, nothing timed. */
  pscr_team_choice_init(&c, 1e7, 4, 1);
  ck_assert_int_eq(replay(&c, 0.1, 9.0, 50), 50);
  ck_assert_int_eq(c.solves, 0);
}
END_TEST

static Suite *team_suite(void)
{
  Suite *s = suite_create("team");
  TCase *tc = tcase_create("team");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, barrier_orders_phases);
  tcase_add_test(tc, team_size_follows_work);
  tcase_add_test(tc, choice_takes_the_faster);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run_suite(team_suite()); }

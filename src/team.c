/* The CPU solve's barrier and team size (team.h). */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* syscall */
#endif
#include "team.h"

#include <limits.h>
#include <sched.h>
#include <stdatomic.h>

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

/* Spins before a waiter sleeps: about 10-40 us (a pause is 40-140 cycles
   on current x86 cores), longer than a futex wake-up on an idle machine,
   short beside a scheduler's time slice on a loaded one. */
#define PSCR_TEAM_SPIN 1024

/* Unknown-levels per thread (team.h): below it a second thread costs more
   in barriers than it saves. */
#define PSCR_TEAM_WORK 262144.0

static inline void pscr_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static void pscr_sleep_while(_Atomic unsigned *word, unsigned value)
{
#if defined(__linux__)
  /* Returns at once if *word changed; spurious wake-ups are fine: the
     caller tests again. */
  syscall(SYS_futex, (void *)word, FUTEX_WAIT_PRIVATE, value, NULL, NULL, 0);
#else
  (void)word;
  (void)value;
  sched_yield();
#endif
}

static void pscr_wake_all(_Atomic unsigned *word)
{
#if defined(__linux__)
  syscall(SYS_futex, (void *)word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
#else
  (void)word;
#endif
}

void pscr_team_wait(pscr_team_barrier *b, int n)
{
  if (n <= 1)
    return;
  _Atomic unsigned *arrived = &b->arrived, *gen = &b->gen;
  const unsigned g = atomic_load_explicit(gen, memory_order_acquire);
  if (atomic_fetch_add_explicit(arrived, 1, memory_order_acq_rel) == (unsigned)n - 1) {
    /* The last to arrive: nobody can reach the next barrier before gen
       moves, so the count is reset first. */
    atomic_store_explicit(arrived, 0, memory_order_relaxed);
    atomic_fetch_add_explicit(gen, 1, memory_order_acq_rel);
    pscr_wake_all(gen);
    return;
  }
  for (int s = 0; atomic_load_explicit(gen, memory_order_acquire) == g; s++) {
    if (s < PSCR_TEAM_SPIN)
      pscr_cpu_relax();
    else
      pscr_sleep_while(gen, g);
  }
}

int pscr_team_size(double work, int max_threads)
{
  if (max_threads <= 1 || !(work >= 2 * PSCR_TEAM_WORK))
    return 1;
  const double t = work / PSCR_TEAM_WORK;
  return t >= max_threads ? max_threads : (int)t;
}

/* Every PSCR_TEAM_PROBE-th solve runs with the slower candidate, to see
   whether it has become the faster: at most about 1/16 of the solves pay
   for a wrong guess, and a change of load is seen within 16 solves. The
   running choice's time is smoothed, so that one slow solve (a page fault,
   a preemption) does not switch it; a probe's time replaces the other's,
   so that one probe can. */
#define PSCR_TEAM_PROBE 16
#define PSCR_TEAM_SMOOTH 0.25

void pscr_team_choice_init(pscr_team_choice *c, double work, int max_threads, int fixed)
{
  c->size[0] = 1;
  c->size[1] = pscr_team_size(work, max_threads);
  c->secs[0] = c->secs[1] = -1.0;
  c->solves = 0;
  c->fixed = fixed || c->size[1] == 1;
}

int pscr_team_choice_pick(const pscr_team_choice *c)
{
  if (c->fixed)
    return 1;
  /* Each candidate once first, the team first (its first region also
     starts the threads: the next probe corrects that solve's time). */
  if (c->secs[1] < 0)
    return 1;
  if (c->secs[0] < 0)
    return 0;
  const int best = c->secs[0] <= c->secs[1] ? 0 : 1;
  return c->solves % PSCR_TEAM_PROBE == PSCR_TEAM_PROBE - 1 ? 1 - best : best;
}

void pscr_team_choice_record(pscr_team_choice *c, int which, double secs)
{
  if (c->fixed)
    return;
  const int probe = c->secs[0] >= 0 && c->secs[1] >= 0 &&
                    which != (c->secs[0] <= c->secs[1] ? 0 : 1);
  c->solves++;
  if (c->secs[which] < 0 || probe)
    c->secs[which] = secs;
  else
    c->secs[which] += PSCR_TEAM_SMOOTH * (secs - c->secs[which]);
}

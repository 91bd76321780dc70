/* The CPU solve's phases, team size and choice of team (team.h). */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* syscall */
#endif
#include "team.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include <stdatomic.h>

#if defined(__linux__)
#include <dirent.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

/* Spins before a waiter sleeps: about 10-40 us (a pause is 40-140 cycles
   on current x86 cores), longer than a futex wake-up on an idle machine,
   short beside a scheduler's time slice on a loaded one. */
#define PSCR_TEAM_SPIN 1024

/* Unknown-levels per thread (team.h). Two threads against one on the idle
   2-core VM, pscr-pcg's solves: 127^2 (16129 x 7) 1.3-1.5x faster, 95^2
   (9025 x 7) even, 63^2 (3969 x 5) 8% slower. Where a team gains nothing
   the timing (pscr_team_choice) keeps one thread after one try. */
#define PSCR_TEAM_WORK 16384.0

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

void pscr_team_phases_init(pscr_team_phases *t)
{
  for (int p = 0; p < PSCR_TEAM_MAX_PHASES; p++) {
    atomic_init(&t->phase[p].next, 0);
    atomic_init(&t->phase[p].done, 0);
  }
  atomic_init(&t->progress, 0);
  atomic_init(&t->sleepers, 0);
}

void pscr_team_finish(pscr_team_phases *t, int p, int count, int n)
{
  if (count == 0)
    return;
  if (atomic_fetch_add_explicit(&t->phase[p].done, count, memory_order_seq_cst) + count != n)
    return;
  /* The phase's last item: wake the sleepers. A waiter announces itself
     (sleepers) before it tests the phase again and then sleeps only while
     progress has not moved, so either it sees this phase done or this sees
     it (all seq_cst). */
  atomic_fetch_add_explicit(&t->progress, 1, memory_order_seq_cst);
  if (atomic_load_explicit(&t->sleepers, memory_order_seq_cst) != 0)
    pscr_wake_all(&t->progress);
}

void pscr_team_await(pscr_team_phases *t, int p, int n)
{
  _Atomic int *done = &t->phase[p].done;
  for (int s = 0; atomic_load_explicit(done, memory_order_acquire) != n; s++) {
    if (s < PSCR_TEAM_SPIN) {
      pscr_cpu_relax();
      continue;
    }
    const unsigned g = atomic_load_explicit(&t->progress, memory_order_seq_cst);
    atomic_fetch_add_explicit(&t->sleepers, 1, memory_order_seq_cst);
    if (atomic_load_explicit(done, memory_order_seq_cst) != n)
      pscr_sleep_while(&t->progress, g);
    atomic_fetch_sub_explicit(&t->sleepers, 1, memory_order_seq_cst);
  }
}

int pscr_team_size(double work, int max_threads)
{
  if (max_threads <= 1 || !(work >= 2 * PSCR_TEAM_WORK))
    return 1;
  const double t = work / PSCR_TEAM_WORK;
  return t >= max_threads ? max_threads : (int)t;
}

int pscr_team_own_runnable(void)
{
#if defined(__linux__)
  DIR *dir = opendir("/proc/self/task");
  if (!dir)
    return 1;
  int count = 0;
  for (struct dirent *e; (e = readdir(dir));) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9')
      continue;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/self/task/%.20s/stat", e->d_name);
    FILE *fp = fopen(path, "r");
    if (!fp)
      continue;
    const size_t len = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[len] = '\0';
    /* "tid (comm) S ...": comm may hold spaces and parentheses, the state
       follows the last ')'. */
    const char *close = strrchr(buf, ')');
    if (close && close[1] == ' ' && close[2] == 'R')
      count++;
  }
  closedir(dir);
  return count < 1 ? 1 : count;
#else
  return 1;
#endif
}

int pscr_team_idle_cores(void)
{
#if defined(__linux__)
  /* "0.52 0.58 0.59 3/467 12345": the fourth field's numerator counts the
     threads running or ready to run, the caller among them. This
     process's own ones are not load to avoid: a threaded BLAS (OpenBLAS's
     pthreads build) keeps its workers spinning for a while after each
     product, and counted as other jobs they had a plan made by
     PSCR_PLANNER_MEASURE, which runs the transforms' products, solve on
     one thread (2-core VM, 2D 1023^2 by the reduction: 35 ms against
     18 ms). */
  FILE *fp = fopen("/proc/loadavg", "r");
  if (!fp)
    return -1;
  int running = -1;
  if (fscanf(fp, "%*s %*s %*s %d/", &running) != 1)
    running = -1;
  fclose(fp);
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  if (running < 1 || online < 1)
    return -1;
  int others = running - pscr_team_own_runnable();
  if (others < 0)
    others = 0;
  return others + 1 >= online ? 0 : (int)(online - others - 1);
#else
  return -1;
#endif
}

/* The slower candidate runs again PSCR_TEAM_PROBE solves after its last
   try, or later after a try that lost by much: PSCR_TEAM_RATIO times the
   loss in the faster's solves, so that tries cost about 1/PSCR_TEAM_RATIO
   of the time at most. The running choice's time is smoothed, so that one
   slow solve (a page fault, a preemption) does not switch it; a try's time
   replaces the other's, so that one try can. */
#define PSCR_TEAM_PROBE 16
#define PSCR_TEAM_RATIO 10.0
#define PSCR_TEAM_MAX_WAIT 65536.0
#define PSCR_TEAM_SMOOTH 0.25

void pscr_team_choice_init(pscr_team_choice *c, double work, int max_threads, int fixed)
{
  c->work_size = pscr_team_size(work, max_threads);
  c->size[0] = 1;
  c->size[1] = c->work_size;
  c->secs[0] = c->secs[1] = -1.0;
  c->solves = 0;
  c->next_try = 1; /* the team's first try: the second solve */
  c->fixed = fixed || c->work_size == 1;
  c->idle_cores = pscr_team_idle_cores;
}

static int pscr_team_best(const pscr_team_choice *c)
{
  return c->secs[1] >= 0 && c->secs[1] < c->secs[0] ? 1 : 0;
}

int pscr_team_choice_pick(pscr_team_choice *c)
{
  if (c->fixed)
    return 1;
  if (c->secs[0] < 0)
    return 0;
  const int best = pscr_team_best(c);
  if (c->solves < c->next_try)
    return best;
  if (best == 1)
    return 0; /* one thread's try: it costs little, and needs no idle core */
  const int idle = c->idle_cores();
  if (idle == 0) {
    /* No core for a second thread: not worth a try. */
    c->next_try = c->solves + PSCR_TEAM_PROBE;
    return 0;
  }
  c->size[1] = idle > 0 && idle + 1 < c->work_size ? idle + 1 : c->work_size;
  return 1;
}

void pscr_team_choice_record(pscr_team_choice *c, int which, double secs)
{
  if (c->fixed)
    return;
  const int tried = c->secs[which] < 0 || (c->secs[1 - which] >= 0 && which != pscr_team_best(c));
  c->solves++;
  if (!tried) {
    c->secs[which] += PSCR_TEAM_SMOOTH * (secs - c->secs[which]);
    return;
  }
  c->secs[which] = secs;
  if (c->secs[1 - which] < 0)
    return; /* one thread's first solve: the team's try comes next */
  /* The next try of the slower: later the more it lost. */
  const int best = pscr_team_best(c);
  const double loss = c->secs[1 - best] - c->secs[best];
  double wait = PSCR_TEAM_RATIO * loss / c->secs[best];
  if (!(wait > PSCR_TEAM_PROBE))
    wait = PSCR_TEAM_PROBE;
  if (wait > PSCR_TEAM_MAX_WAIT)
    wait = PSCR_TEAM_MAX_WAIT;
  c->next_try = c->solves + (unsigned)wait;
}

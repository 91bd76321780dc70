/*
 * How many threads a CPU solve takes, and how they share its phases
 * (team.c).
 *
 * A solve is a sequence of dependent phases (per level: the subproblems,
 * the block sums, the couplings): no thread may start a phase before the
 * previous one is done. A barrier after each phase is wrong on a machine
 * shared with other jobs: the threads wait there for one that the other
 * job has descheduled, a scheduler's time slice each time. A
 * preconditioner called thousands of times on such a machine then lost
 * 100x to one thread (2-core VM, one other process: pscr-pcg 127^2, 0.019 s
 * with one thread, 1.66 s with two under OpenMP's spinning barriers; still
 * 10-20 ms per 0.35 ms solve with barriers that sleep). So a solve runs in
 * one parallel region whose threads wait only for work in hand
 * (pscr_team_phases), small solves take one thread (pscr_team_size), and a
 * plan times one thread against its team (pscr_team_choice).
 */
#ifndef PSCR_TEAM_H
#define PSCR_TEAM_H

#include <stdatomic.h>
#include <stddef.h>

/*
 * The phases of a solve, run by a team in which no thread waits for a
 * thread that is not working. Each phase hands out its items through a
 * counter (any thread takes any item) and counts the items done; a thread
 * starts on a phase once the previous one is done. A thread that the
 * scheduler keeps away (another job holds its core) takes no items while
 * away, so the others do its share and never wait for it: on return it
 * finds the phases it missed handed out and skips them. A thread waits only
 * for items in other threads' hands, spinning briefly and then sleeping.
 */
enum { PSCR_TEAM_MAX_PHASES = 96 };

/* Loops over this many entries or fewer run on the calling thread: a fork
   and join cost more than they save there, and on a loaded machine each
   can cost a scheduler's time slice (above). The operator products,
   refinement's vector loops, the sine table and the transform's accuracy
   probe take it. */
#define PSCR_PAR_MIN 65536

typedef struct pscr_team_phase {
  _Atomic int next; /* the next item to hand out */
  _Atomic int done; /* items finished */
} pscr_team_phase;

typedef struct pscr_team_phases {
  pscr_team_phase phase[PSCR_TEAM_MAX_PHASES];
  _Atomic unsigned progress; /* phases completed; sleepers wait on it */
  _Atomic unsigned sleepers; /* threads asleep or about to be */
} pscr_team_phases;

/* Set every counter to zero before the team starts. */
void pscr_team_phases_init(pscr_team_phases *t);

/* An item of phase p (0 <= p < PSCR_TEAM_MAX_PHASES) of n items for the
   caller to do, or -1 when all are handed out. */
static inline int pscr_team_claim(pscr_team_phases *t, int p, int n)
{
  const int j = atomic_fetch_add_explicit(&t->phase[p].next, 1, memory_order_relaxed);
  return j < n ? j : -1;
}

/* The caller finished `count` items of phase p of n items (its writes are
   then visible to every thread that pscr_team_await's the phase). */
void pscr_team_finish(pscr_team_phases *t, int p, int count, int n);

/* Return once all n items of phase p are finished. */
void pscr_team_await(pscr_team_phases *t, int p, int n);

/* Threads worth taking for a solve of `work` unknown-levels (the vector
   length times the levels it passes), at most max_threads: one per
   PSCR_TEAM_WORK of them, at least one. */
int pscr_team_size(double work, int max_threads);

/* This process's threads running or ready to run, the caller among them
   (Linux: the state of each of /proc/self/task); 1 where it cannot tell. */
int pscr_team_own_runnable(void);

/* Cores beside the caller's that no other process's runnable thread holds
   now, as the operating system counts them (Linux: /proc/loadavg's
   runnable threads less this process's, against the online cores), at
   least 0; -1 where it cannot tell. */
int pscr_team_idle_cores(void);

/*
 * The team of each solve, chosen by timing the plan's own solves. Whether
 * a second thread pays depends on what else the machine runs: with another
 * job on the cores, a solve's team waits for descheduled threads (measured
 * on a 2-core VM with one busy process: 10-20 ms per team solve of 127^2
 * against 0.35 ms with one thread). So a plan keeps the smoothed time per
 * solve of its two candidates, one thread and a team, runs its solves with
 * the faster and tries the other now and then, so that it follows a change
 * of load:
 * - one thread first: it is the cheap one, and the yardstick;
 * - the team is tried only while some core is idle (pscr_team_idle_cores),
 *   with at most one thread per idle core beside the caller's: a try on a
 *   full machine would cost many solves' time and could only lose;
 * - tries come every PSCR_TEAM_PROBE solves, or later after a try that lost
 *   by much, so that losing tries cost at most about 1/PSCR_TEAM_RATIO of
 *   the time.
 * The solutions do not depend on the team (cpu_solve_impl.h), so the
 * choice changes times only.
 */
typedef struct pscr_team_choice {
  int size[2];        /* the candidates: 1, and the team of the last try */
  int work_size;      /* the work's team (pscr_team_size) */
  double secs[2];     /* smoothed seconds per solve; < 0: not measured yet */
  unsigned solves;    /* solves timed so far */
  unsigned next_try;  /* the solve at which the slower candidate runs next */
  int fixed;          /* PSCR_FLAG_CPU_FIXED_TEAM: always the work's team, no timing */
  int (*idle_cores)(void); /* pscr_team_idle_cores; tests replace it */
} pscr_team_choice;

void pscr_team_choice_init(pscr_team_choice *c, double work, int max_threads, int fixed);

/* The candidate (0: one thread, 1: a team of size[1]) of the next solve. */
int pscr_team_choice_pick(pscr_team_choice *c);

/* A solve with candidate `which` took `secs`. */
void pscr_team_choice_record(pscr_team_choice *c, int which, double secs);

#endif

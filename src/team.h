/*
 * How many threads a CPU solve takes, and the barrier between its phases
 * (team.c).
 *
 * A solve is a sequence of dependent phases (per level: the subproblems,
 * the block sums, the couplings), so its threads meet at a barrier after
 * each. OpenMP's barriers spin before they sleep (libgomp: about 300000
 * iterations unless OMP_WAIT_POLICY=passive), which is right on a machine
 * of our own and wrong on one shared with other jobs: a thread spinning at
 * a barrier holds a core that the thread it waits for, descheduled by the
 * other job, needs. A preconditioner called thousands of times on such a
 * machine then lost 100x to one thread (2-core VM, one other process:
 * pscr-pcg 127^2, 0.019 s with one thread, 1.66 s with two). So a solve
 * runs in one parallel region, its phases separated by pscr_team_wait,
 * which spins only briefly and then sleeps, and small solves take one
 * thread (pscr_team_size).
 */
#ifndef PSCR_TEAM_H
#define PSCR_TEAM_H

#include <stdatomic.h>
#include <stddef.h>

/* A barrier for a team of threads, reusable; initialize it before the
   team's first use (pscr_team_init). */
typedef struct pscr_team_barrier {
  _Atomic unsigned arrived; /* threads at the current barrier */
  _Atomic unsigned gen;     /* barriers completed; sleepers wait on it */
} pscr_team_barrier;

static inline void pscr_team_init(pscr_team_barrier *b)
{
  atomic_init(&b->arrived, 0);
  atomic_init(&b->gen, 0);
}

/* Wait until all n threads of the team have called it (n >= 1). Every
   write a thread made before its call is visible to every thread after
   theirs. */
void pscr_team_wait(pscr_team_barrier *b, int n);

/* Threads worth taking for a solve of `work` unknown-levels (the vector
   length times the levels it passes), at most max_threads: one per
   PSCR_TEAM_WORK of them, at least one. */
int pscr_team_size(double work, int max_threads);

/*
 * The team of each solve, chosen by timing the plan's own solves. Whether
 * a second thread pays depends on what else the machine runs, which the
 * library cannot know beforehand: on a machine shared with other jobs every
 * barrier can cost a scheduler's time slice. So a plan keeps the smoothed
 * time per solve of its two candidates, one thread and the work's team
 * (pscr_team_size), runs its solves with the faster, and tries the other
 * every PSCR_TEAM_PROBE-th solve, so that it follows a change of load. The
 * solutions do not depend on the team (cpu_solve_impl.h), so the choice
 * changes times only.
 */
typedef struct pscr_team_choice {
  int size[2];     /* the candidates: 1, and the work's team size */
  double secs[2];  /* smoothed seconds per solve; < 0: not measured yet */
  unsigned solves; /* solves timed so far */
  int fixed;       /* PSCR_FLAG_CPU_FIXED_TEAM: always size[1], no timing */
} pscr_team_choice;

void pscr_team_choice_init(pscr_team_choice *c, double work, int max_threads, int fixed);

/* The candidate (0 or 1) of the next solve. */
int pscr_team_choice_pick(const pscr_team_choice *c);

/* A solve with candidate `which` took `secs`. */
void pscr_team_choice_record(pscr_team_choice *c, int which, double secs);

#endif

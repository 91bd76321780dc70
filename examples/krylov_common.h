/*
 * Helpers shared by the preconditioning examples (pscr-pcg, pscr-gmres): the
 * size list of the command line and the report of one Krylov run.
 */
#ifndef PSCR_KRYLOV_COMMON_H
#define PSCR_KRYLOV_COMMON_H

#include <stdio.h>
#include <stdlib.h>

/* What one Krylov run did. */
typedef struct krylov_result {
  int iterations;   /* matrix-vector products with A after the initial residual */
  int converged;    /* the recurrence residual reached tol */
  double rec_res;   /* relative residual of the recurrence, ||r|| / ||b|| */
  double true_res;  /* ||b - A x|| / ||b|| recomputed from x afterwards */
  double seconds;   /* wall time of the iteration (the plan excluded) */
  double setup;     /* wall time of the preconditioner setup (pscr plan) */
} krylov_result;

/*
 * Parse a comma-separated list of positive sizes ("127,255,511") into
 * sizes[0..max-1]. Returns the count, 0 on a malformed list.
 */
static inline int krylov_parse_sizes(const char *s, int *sizes, int max)
{
  int count = 0;
  while (*s && count < max) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v < 1 || v > 1 << 20)
      return 0;
    sizes[count++] = (int)v;
    s = *end == ',' ? end + 1 : end;
    if (*end && *end != ',')
      return 0;
  }
  return *s ? 0 : count;
}

static inline void krylov_print_header(void)
{
  printf("  %-26s %7s %10s %10s %9s %9s\n", "method", "iters", "rec.res", "true.res", "solve s",
         "setup s");
}

static inline void krylov_print_row(const char *name, const krylov_result *r)
{
  printf("  %-26s %6d%s %10.2e %10.2e %9.4f %9.4f\n", name, r->iterations,
         r->converged ? " " : "*", r->rec_res, r->true_res, r->seconds, r->setup);
}

#endif

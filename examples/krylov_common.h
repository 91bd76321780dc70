/*
 * Helpers shared by the preconditioning examples (pscr-pcg, pscr-pcg3d,
 * pscr-gmres and their GPU versions): the report of one Krylov run.
 */
#ifndef PSCR_KRYLOV_COMMON_H
#define PSCR_KRYLOV_COMMON_H

#include <stdio.h>

/* What one Krylov run did. */
typedef struct krylov_result {
  int iterations;   /* matrix-vector products with A after the initial residual */
  int converged;    /* the recurrence residual reached tol */
  double rec_res;   /* relative residual of the recurrence, ||r|| / ||b|| */
  double true_res;  /* ||b - A x|| / ||b|| recomputed from x afterwards */
  double seconds;   /* wall time of the iteration (the plan excluded) */
  double setup;     /* wall time of the preconditioner setup (pscr plan) */
} krylov_result;

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

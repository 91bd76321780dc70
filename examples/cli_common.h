/* Helpers shared by the command-line programs (pscr-solve, pscr-bench). */
#ifndef PSCR_CLI_COMMON_H
#define PSCR_CLI_COMMON_H

#include <math.h>
#include <stddef.h>
#include <time.h>

/* Monotonic wall-clock seconds. */
static inline double cli_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* qsort comparator for doubles (medians of timings). */
static inline int cli_cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* max_i |x_i - y_i| over n real or complex (re, im) entries; y NULL: max |x_i|. */
static inline double cli_max_diff(int cplx, size_t n, const double *x, const double *y)
{
  double m = 0;
  for (size_t i = 0; i < n; i++) {
    double d = cplx ? hypot(x[2 * i] - (y ? y[2 * i] : 0), x[2 * i + 1] - (y ? y[2 * i + 1] : 0))
                    : fabs(x[i] - (y ? y[i] : 0));
    m = fmax(m, d);
  }
  return m;
}

#endif

/* Helpers shared by the command-line programs (pscr-solve, pscr-bench). */
#ifndef PSCR_CLI_COMMON_H
#define PSCR_CLI_COMMON_H

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pscr.h"

/* Monotonic wall-clock seconds. */
static inline double cli_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "R64", "C64", "R32" or "C32". */
static inline const char *cli_dtype_name(pscr_dtype dtype)
{
  switch (dtype) {
  case PSCR_R64:
    return "R64";
  case PSCR_C64:
    return "C64";
  case PSCR_R32:
    return "R32";
  case PSCR_C32:
    return "C32";
  }
  return "?";
}

/*
 * --flags: a comma-separated list of pscr_flag_name()s (pscr.h,
 * PSCR_FLAG_LIST) into the bits of pscr_options.flags. Returns 0, or -1
 * after printing the unknown name and the known ones to stderr.
 */
static inline int cli_parse_flags(const char *list, unsigned int *flags)
{
  *flags = 0;
  const char *at = list;
  while (*at) {
    size_t len = strcspn(at, ",");
    unsigned int bit = 0;
    for (int k = 0; k < 32 && !bit; k++) {
      const char *name = pscr_flag_name(1u << k);
      if (name && strlen(name) == len && !strncmp(name, at, len))
        bit = 1u << k;
    }
    if (!bit) {
      fprintf(stderr, "--flags: unknown flag '%.*s'; known flags:", (int)len, at);
      for (int k = 0; k < 32; k++)
        if (pscr_flag_name(1u << k))
          fprintf(stderr, " %s", pscr_flag_name(1u << k));
      fprintf(stderr, "\n");
      return -1;
    }
    *flags |= bit;
    at += len;
    if (*at == ',')
      at++;
  }
  return 0;
}

/* qsort comparator for doubles (medians of timings). */
static inline int cli_cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Word k of a float (single) or double array, as a double. */
static inline double cli_word(int single, const void *p, size_t k)
{
  return single ? (double)((const float *)p)[k] : ((const double *)p)[k];
}

/* max_i |x_i - y_i| over n real or complex (re, im) entries of float
 * (single) or double data; y NULL: max |x_i|. */
static inline double cli_max_diff_of(int single, int cplx, size_t n, const void *x,
                                     const void *y)
{
  double m = 0;
  for (size_t i = 0; i < n; i++) {
    const size_t k = cplx ? 2 * i : i;
    const double re = cli_word(single, x, k) - (y ? cli_word(single, y, k) : 0);
    const double im = cplx ? cli_word(single, x, k + 1) - (y ? cli_word(single, y, k + 1) : 0) : 0;
    m = fmax(m, cplx ? hypot(re, im) : fabs(re));
  }
  return m;
}

/* cli_max_diff_of for double data. */
static inline double cli_max_diff(int cplx, size_t n, const double *x, const double *y)
{
  return cli_max_diff_of(0, cplx, n, x, y);
}

/*
 * pb's pencils and shift rounded to float, for an R32 / C32 plan of the
 * same problem: pen[d] points into *store (one allocation; the caller frees
 * it). Returns 0, or -1 when out of memory (*store NULL).
 */
static inline int cli_float_pencils(const pscr_problem *pb, pscr_pencil pen[3],
                                    float shift32[2], float **store)
{
  const size_t w = pb->dtype == PSCR_C64 ? 2 : 1;
  size_t total = 0;
  for (int d = 0; d < pb->ndim; d++)
    total += 4 * (size_t)pb->n[d] * w;
  float *at = (float *)malloc(total * sizeof *at); /* (casts: the .cu examples include this) */
  *store = at;
  if (!at)
    return -1;
  for (int d = 0; d < pb->ndim; d++) {
    const pscr_pencil *q = &pb->pencils[d];
    const size_t n = (size_t)q->n;
    const double *src[4] = {(const double *)q->a_diag, (const double *)q->a_off,
                            (const double *)q->m_diag, (const double *)q->m_off};
    const void *dst[4] = {NULL, NULL, NULL, NULL};
    for (int a = 0; a < 4; a++) {
      if (!src[a])
        continue;
      const size_t cnt = ((a & 1) ? n - 1 : n) * w; /* off-diagonals: n - 1 entries */
      for (size_t i = 0; i < cnt; i++)
        at[i] = (float)src[a][i];
      dst[a] = at;
      at += n * w;
    }
    pen[d] = (pscr_pencil){q->n, dst[0], dst[1], dst[2], dst[3]};
  }
  shift32[0] = (float)pb->shift[0];
  shift32[1] = (float)pb->shift[1];
  return 0;
}

/*
 * Verify a solve of a model problem: the normwise backward error
 * ||Au - b|| / (||A|| ||u|| + ||b||) (inf-norms, A applied from the factors)
 * and the relative max-norm error against the exact solution ue. au: scratch
 * of the vector's size. Either output may be NULL.
 */
static inline void cli_verify(const pscr_problem *pb, const double *b, const double *u,
                              const double *ue, double *au, double *berr, double *derr)
{
  int cplx = pb->dtype == PSCR_C64;
  size_t N = (size_t)pb->n[0] * pb->n[1] * pb->n[2];
  double norm_a = 0;
  pscr_operator_apply(pb->dtype, pb->ndim, pb->pencils, pb->shift, u, au);
  pscr_operator_norm_inf(pb->dtype, pb->ndim, pb->pencils, pb->shift, &norm_a);
  if (berr)
    *berr = cli_max_diff(cplx, N, au, b) /
            (norm_a * cli_max_diff(cplx, N, u, NULL) + cli_max_diff(cplx, N, b, NULL));
  if (derr)
    *derr = cli_max_diff(cplx, N, u, ue) / cli_max_diff(cplx, N, ue, NULL);
}

#endif

/* The eigenvector stage's schedule arithmetic (stage.h). */
#include "stage.h"

#include <math.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

eig_chunks pscr_eig_chunks(int nbatch, int nt, int team_mode)
{
  eig_chunks c;
  /* One thread: a batch at a time, produced and then swept (as a team of
   * one), in one buffer: with two parts side by side, their working sets
   * share the last-level cache. */
  c.nb = nt == 1 ? 1 : nt > 2 ? nt : 2;
  c.team = nt == 1 || eig_team_on(team_mode, nt);
  c.nbuf = nt == 1 ? 1 : 2;
  c.nchunk = (nbatch + c.nb - 1) / c.nb;
  return c;
}

int pscr_eig_sweep_threads(int n)
{
  int nt = 1;
#ifdef _OPENMP
  if (n >= 64 && !omp_in_parallel())
    nt = omp_get_max_threads();
#else
  (void)n;
#endif
  return nt;
}

/*
 * Where the spectrum splits in two for the pipeline (vectors_pipeline): an
 * index m with Re lambda_m - Re lambda_{m-1} > tau, so that no window
 * crosses it, chosen so that the parts 0..m-1 and m..n-1 cost about the
 * same. Each index costs EIG_SPLIT_BASE plus the length of its window: on
 * the order-8191 Helmholtz pencil a batch of sixteen took about 1 ms to
 * produce and 0.75 ms plus 62 us per vector of its window to sweep (a
 * second fit, on one thread: 0.77 ms plus 78 us; so 28 to 22 window
 * vectors per index; the split there falls on the first gap either way), and
 * the windows run from about 45 vectors at the bottom of the spectrum
 * (small gaps against tau = ||T|| / n) to under one at the top, where
 * the gaps above tau are. Returns 0 (no split) below EIG_SPLIT_MIN, or
 * where the larger part would cost more than EIG_SPLIT_MAX of the whole
 * (mode 0 or 1 overrides that). The split depends on
 * lambda alone, never on the number of threads.
 */
#define EIG_SPLIT_MIN 512
#define EIG_SPLIT_BASE 28.0
#define EIG_SPLIT_MAX 0.56
int pscr_eig_split_point(int n, const double *re, size_t stride, double tau, int mode)
{
  if (n < EIG_SPLIT_MIN || mode == 0)
    return 0;
  double *cum = malloc(((size_t)n + 1) * sizeof *cum);
  if (!cum)
    return 0; /* (only slower) */
  cum[0] = 0.0;
  for (int j = 0, first = 0; j < n; j++) {
    while (first < j && re[(size_t)j * stride] - re[(size_t)first * stride] > tau)
      first++;
    cum[j + 1] = cum[j] + EIG_SPLIT_BASE + (j - first);
  }
  int best = 0;
  double cost = cum[n];
  for (int m = 1; m < n; m++) {
    if (re[(size_t)m * stride] - re[(size_t)(m - 1) * stride] <= tau)
      continue;
    const double c = fmax(cum[m], cum[n] - cum[m]);
    if (c < cost) {
      cost = c;
      best = m;
    }
  }
  const int split = mode == 1 || cost <= EIG_SPLIT_MAX * cum[n] ? best : 0;
  free(cum);
  return split;
}

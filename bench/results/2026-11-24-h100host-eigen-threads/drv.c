/* Timing driver: all eigenpairs (5 selected components) of order n, median
 * of reps after one warm-up. kind c: complex Helmholtz pencil (test_eigen's
 * C_HELMHOLTZ generator, own RNG); kind r: real Poisson pencil on the same
 * kind of random mesh. Threads: OMP_NUM_THREADS. */
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "eigen.h"
static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
static int cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
int main(int argc, char **argv)
{
  const char kind = argc > 1 ? argv[1][0] : 'c';
  int n = argc > 2 ? atoi(argv[2]) : 8191, reps = argc > 3 ? atoi(argv[3]) : 5;
  double complex *ad = calloc(n, 16), *ao = calloc(n, 16), *md = calloc(n, 16),
                 *mo = calloc(n, 16), *lam = calloc(n, 16), *w = calloc((size_t)5 * n, 16);
  double *rd = calloc(5 * (size_t)n, 8), *rw = calloc(5 * (size_t)n, 8);
  double *h = malloc((size_t)(n + 1) * 8), sum = 0;
  unsigned long long s = 11;
  for (int i = 0; i <= n; i++) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    h[i] = 1.0 + 2.0 * ((s >> 11) * (1.0 / 9007199254740992.0));
    sum += h[i];
  }
  for (int i = 0; i <= n; i++)
    h[i] /= sum;
  double omega = 0.3 * n + 1.0;
  for (int l = 0; l < n; l++) {
    if (l == 0 || l == n - 1) {
      double hh = l == 0 ? h[0] : h[n - 2];
      ad[l] = 1.0 / hh - I * omega / 2.0;
      md[l] = hh / 3.0 + I / (2.0 * omega);
    } else {
      ad[l] = (h[l - 1] + h[l]) / (h[l - 1] * h[l]);
      md[l] = (h[l - 1] + h[l]) / 3.0;
    }
    if (l < n - 1) {
      ao[l] = -1.0 / h[l];
      mo[l] = h[l] / 6.0;
    }
    rd[l] = 1.0 / h[l] + 1.0 / h[l + 1]; /* real Poisson: n + 1 steps */
    rd[n + l] = -1.0 / h[l + 1];
    rd[2 * n + l] = (h[l] + h[l + 1]) / 3.0;
    rd[3 * n + l] = h[l + 1] / 6.0;
  }
  int sel[5] = {0, 1, n / 2, n - 2, n - 1};
  double t[64];
  if (reps > 63)
    reps = 63;
  for (int r = 0; r <= reps; r++) {
    double t0 = now_s();
    int st = kind == 'c' ? pscr_eigen_complex(n, ad, ao, md, mo, lam, 5, sel, w)
                         : pscr_eigen_real(n, rd, rd + n, rd + 2 * n, rd + 3 * n, rd + 4 * n, 5,
                                           sel, rw);
    t[r] = now_s() - t0;
    if (st) {
      printf("status %d\n", st);
      return 1;
    }
  }
  qsort(t + 1, reps, sizeof *t, cmp);
  printf("%s n=%d median %.3f s (min %.3f, max %.3f, %d runs after a warm-up)\n",
         kind == 'c' ? "complex" : "real", n, t[1 + reps / 2], t[1], t[reps], reps);
  return 0;
}

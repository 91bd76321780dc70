/*
 * The batched DST-I (src/sine.c) against a direct O(n^2) evaluation in long
 * double: forward and inverse, with and without scales, double and float,
 * n + 1 = 2 .. 8192; the round trip; batches with strides, narrow and odd
 * column counts and guard values around every row; bitwise the same
 * results for 1 to 4 threads; which orders are supported.
 *
 * Error measure: per column, ||y - y_exact||_2 / ||y_exact||_2 in units of
 * log2(n + 1) eps. The FFT's error bound is linear in log2 N (Higham,
 * Accuracy and Stability of Numerical Algorithms, 2nd ed., sec. 24.1);
 * measured here: at most 0.5 for n <= 7, where the rounding of the scales
 * dominates, and 0.08 to 0.24 from n = 15 on. ERR_C = 1 leaves a margin of
 * two or more, while the half-length algorithm with a running sum, whose
 * error grows like sqrt(N) eps, measured 1.1 to 1.4 at n = 255..1023 and 4
 * to 6 at n = 2047..8191 on such data: it fails from n = 255 on.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "sine.h"
#include "test_util.h"

#define ERR_C 1.0
#define PI_L 3.141592653589793238462643383279502884L

/* sin(pi r / N), 0 <= r < 2N, from an angle reduced to [0, pi/4] (long
   double sinl and cosl are accurate there). */
static long double sin_pi_frac(uint64_t r, uint64_t N)
{
  long double sign = 1;
  if (r >= N) { /* sin(pi + t) = -sin t */
    r -= N;
    sign = -1;
  }
  if (2 * r > N) /* sin(pi - t) = sin t */
    r = N - r;
  if (4 * r > N) /* sin(pi/2 - t) = cos t */
    return sign * cosl(PI_L * (long double)(N - 2 * r) / (long double)(2 * N));
  return sign * sinl(PI_L * (long double)r / (long double)N);
}

/* y = S x for one column of n entries (stride 1), S_jk = sin(pi j k / (n + 1)),
   with the table tab[r] = sin(pi r / (n + 1)), r < 2 (n + 1). */
static void ref_dst(int n, const long double *tab, const long double *x, long double *y)
{
  const uint64_t twoN = 2 * (uint64_t)(n + 1);
  for (int k = 1; k <= n; k++) {
    long double s = 0;
    uint64_t r = 0; /* j k mod 2N */
    for (int j = 1; j <= n; j++) {
      r += (uint64_t)k;
      if (r >= twoN)
        r -= twoN;
      s += tab[r] * x[j - 1];
    }
    y[k - 1] = s;
  }
}

static long double *sine_table(int n)
{
  const uint64_t N = (uint64_t)n + 1;
  long double *tab = malloc(2 * N * sizeof *tab);
  ck_assert_ptr_nonnull(tab);
  for (uint64_t r = 0; r < 2 * N; r++)
    tab[r] = sin_pi_frac(r, N);
  return tab;
}

/* A value representable in float (so double and float runs see the same
   input), uniform in [-1, 1). */
static long double rand_f(tu_rng *rng) { return (long double)(float)tu_symm(rng); }

/* ||got - want||_2 / ||want||_2 for one column of n entries; got at stride
   `stride` as double or float. */
static double col_error(int single, int n, const void *got, size_t stride, const long double *want)
{
  long double e = 0, w = 0;
  for (int j = 0; j < n; j++) {
    const long double g = single ? (long double)((const float *)got)[(size_t)j * stride]
                                 : (long double)((const double *)got)[(size_t)j * stride];
    e += (g - want[j]) * (g - want[j]);
    w += want[j] * want[j];
  }
  return (double)sqrtl(e / w);
}

static double lg2(int n) { return log2((double)n + 1); }

/* Runs the transform of the given type on data already converted into buf. */
static void run_sine(int single, int n, size_t nb, size_t bstride, size_t ld, size_t cols,
                     void *buf, const long double *scale, int inverse, int nt)
{
  const size_t per = pscr_sine_scratch(n);
  ck_assert_uint_gt(per, 0);
  if (single) {
    float *ws = malloc((size_t)nt * per * sizeof *ws), *s = NULL;
    ck_assert_ptr_nonnull(ws);
    if (scale) {
      s = malloc((size_t)n * sizeof *s);
      for (int k = 0; k < n; k++)
        s[k] = (float)scale[k];
    }
    pscr_sine_s(n, nb, bstride, ld, cols, buf, s, inverse, nt, ws);
    free(s);
    free(ws);
  } else {
    double *ws = malloc((size_t)nt * per * sizeof *ws), *s = NULL;
    ck_assert_ptr_nonnull(ws);
    if (scale) {
      s = malloc((size_t)n * sizeof *s);
      for (int k = 0; k < n; k++)
        s[k] = (double)scale[k];
    }
    pscr_sine_d(n, nb, bstride, ld, cols, buf, s, inverse, nt, ws);
    free(s);
    free(ws);
  }
}

/* count values converted from long double to a new array of float or double. */
static void *to_type(int single, size_t count, const long double *x)
{
  void *buf = malloc(count * (single ? sizeof(float) : sizeof(double)));
  ck_assert_ptr_nonnull(buf);
  for (size_t i = 0; i < count; i++) {
    if (single)
      ((float *)buf)[i] = (float)x[i];
    else
      ((double *)buf)[i] = (double)x[i];
  }
  return buf;
}

static const struct {
  int n, cols;
} acc_cases[] = {{1, 5},   {3, 5},    {7, 5},    {15, 5},  {63, 5},
                 {255, 5}, {1023, 3}, {4095, 3}, {8191, 1}};
enum { N_ACC = sizeof acc_cases / sizeof acc_cases[0] };

/* Forward and inverse, scale NULL and random scales in [1, 2), double and
   float, against S x and S (s x) in long double. Scale entries and inputs
   are floats, so the references serve both types. */
START_TEST(accuracy)
{
  const int n = acc_cases[_i].n, cols = acc_cases[_i].cols;
  tu_rng rng;
  tu_rng_seed(&rng, 1000 + (uint64_t)n);
  long double *tab = sine_table(n), *x = malloc((size_t)n * cols * sizeof *x),
              *s = malloc((size_t)n * sizeof *s), *col = malloc((size_t)n * sizeof *col),
              *ref0 = malloc((size_t)n * cols * sizeof *ref0),
              *ref1 = malloc((size_t)n * cols * sizeof *ref1),
              *want = malloc((size_t)n * sizeof *want);
  for (int k = 0; k < n; k++)
    s[k] = (long double)(float)(1.5 + 0.5 * tu_symm(&rng));
  for (size_t i = 0; i < (size_t)n * cols; i++)
    x[i] = rand_f(&rng);
  /* Column-major copies for the reference: ref0 = S x, ref1 = S (s x). */
  for (int c = 0; c < cols; c++) {
    for (int j = 0; j < n; j++)
      col[j] = x[(size_t)j * cols + c];
    ref_dst(n, tab, col, ref0 + (size_t)c * n);
    for (int j = 0; j < n; j++)
      col[j] *= s[j];
    ref_dst(n, tab, col, ref1 + (size_t)c * n);
  }
  for (int single = 0; single <= 1; single++) {
    const double eps = single ? FLT_EPSILON : DBL_EPSILON;
    double worst = 0;
    for (int inverse = 0; inverse <= 1; inverse++)
      for (int scaled = 0; scaled <= 1; scaled++) {
        void *buf = to_type(single, (size_t)n * cols, x);
        run_sine(single, n, 1, 0, (size_t)cols, (size_t)cols, buf, scaled ? s : NULL, inverse, 1);
        for (int c = 0; c < cols; c++) {
          const long double *r = (inverse && scaled ? ref1 : ref0) + (size_t)c * n;
          for (int k = 0; k < n; k++)
            want[k] = !inverse && scaled ? s[k] * r[k] : r[k];
          const void *got =
              single ? (const void *)((float *)buf + c) : (const void *)((double *)buf + c);
          const double ratio = col_error(single, n, got, (size_t)cols, want) / (lg2(n) * eps);
          ck_assert_msg(ratio <= ERR_C,
                        "%s n = %d %s %s column %d: error %.3g log2(n+1) eps, bound %.3g",
                        single ? "float" : "double", n, inverse ? "inverse" : "forward",
                        scaled ? "scaled" : "unscaled", c, ratio, ERR_C);
          worst = ratio > worst ? ratio : worst;
        }
        free(buf);
      }
    printf("sine %s n = %4d: max error %.3f log2(n+1) eps\n", single ? "float " : "double", n,
           worst);
  }
  free(tab);
  free(x);
  free(s);
  free(col);
  free(ref0);
  free(ref1);
  free(want);
}
END_TEST

/* inverse(forward(x)) is (n + 1)/2 x, unscaled and with scales s and 1/s
   (powers of two, so that s_k (1/s_k) = 1 exactly); up to n = 65535, beyond
   the sizes the O(n^2) reference can check, where chunks are 8 columns wide. */
START_TEST(round_trip)
{
  static const int sizes[] = {1, 7, 127, 1023, 4095, 32767, 65535};
  for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
    const int n = sizes[t], cols = 7;
    tu_rng rng;
    tu_rng_seed(&rng, 77 + (uint64_t)n);
    long double *x = malloc((size_t)n * cols * sizeof *x), *s = malloc((size_t)n * sizeof *s),
                *si = malloc((size_t)n * sizeof *si);
    for (int k = 0; k < n; k++) {
      s[k] = ldexpl(1, (int)(4 * tu_uniform(&rng)) - 1); /* 1/2, 1, 2 or 4 */
      si[k] = 1 / s[k];
    }
    for (size_t i = 0; i < (size_t)n * cols; i++)
      x[i] = rand_f(&rng);
    for (int single = 0; single <= 1; single++)
      for (int scaled = 0; scaled <= 1; scaled++) {
        const double eps = single ? FLT_EPSILON : DBL_EPSILON;
        void *buf = to_type(single, (size_t)n * cols, x);
        run_sine(single, n, 1, 0, (size_t)cols, (size_t)cols, buf, scaled ? s : NULL, 0, 1);
        run_sine(single, n, 1, 0, (size_t)cols, (size_t)cols, buf, scaled ? si : NULL, 1, 1);
        const long double f = 2.0L / (n + 1);
        for (int c = 0; c < cols; c++) {
          long double e = 0, w = 0;
          for (int j = 0; j < n; j++) {
            const size_t i = (size_t)j * cols + c;
            const long double g =
                f * (single ? (long double)((float *)buf)[i] : (long double)((double *)buf)[i]);
            e += (g - x[i]) * (g - x[i]);
            w += x[i] * x[i];
          }
          const double ratio = (double)sqrtl(e / w) / (lg2(n) * eps);
          ck_assert_msg(ratio <= 2 * ERR_C,
                        "%s n = %d %s column %d: round trip error %.3g log2(n+1) eps, bound %.3g",
                        single ? "float" : "double", n, scaled ? "scaled" : "unscaled", c, ratio,
                        2 * ERR_C);
        }
        free(buf);
      }
    free(x);
    free(s);
    free(si);
  }
}
END_TEST

static const struct {
  int n;
  size_t cols;
} batch_cases[] = {{63, 1}, {63, 3}, {63, 37}, {63, 1000}, {63, 1001}, {1023, 100}, {7, 1000}};
enum { N_BATCH = sizeof batch_cases / sizeof batch_cases[0] };

/* Three batches with bstride > n ld and ld > cols: every column right,
   every other entry of the array (the gaps between rows and batches, and
   beyond) bitwise untouched. */
START_TEST(batches)
{
  const int n = batch_cases[_i].n;
  const size_t cols = batch_cases[_i].cols, nb = 3, ld = cols + 5, bstride = (size_t)n * ld + 11;
  const size_t total = nb * bstride + 7;
  long double *tab = sine_table(n), *x = malloc(total * sizeof *x),
              *col = malloc((size_t)n * sizeof *col), *want = malloc((size_t)n * sizeof *want),
              *s = malloc((size_t)n * sizeof *s);
  char *inside = calloc(total, 1);
  tu_rng rng;
  tu_rng_seed(&rng, 5 + cols);
  for (int k = 0; k < n; k++)
    s[k] = (long double)(float)(1.5 + 0.5 * tu_symm(&rng));
  for (size_t b = 0; b < nb; b++)
    for (int j = 0; j < n; j++)
      memset(inside + b * bstride + (size_t)j * ld, 1, cols);
  for (size_t i = 0; i < total; i++)
    x[i] = inside[i] ? rand_f(&rng) : -12345.0L - (long double)(i % 97);
  for (int single = 0; single <= 1; single++)
    for (int inverse = 0; inverse <= 1; inverse++) {
      const double eps = single ? FLT_EPSILON : DBL_EPSILON;
      void *buf = to_type(single, total, x), *orig = to_type(single, total, x);
      const size_t es = single ? sizeof(float) : sizeof(double);
      run_sine(single, n, nb, bstride, ld, cols, buf, s, inverse, 1);
      size_t touched = 0;
      for (size_t i = 0; i < total; i++)
        touched += !inside[i] && memcmp((char *)buf + i * es, (char *)orig + i * es, es) != 0;
      ck_assert_msg(touched == 0, "n = %d cols = %zu: %zu entries outside the rows changed", n,
                    cols, touched);
      double worst = 0;
      for (size_t b = 0; b < nb; b++)
        for (size_t c = 0; c < cols; c++) {
          const size_t base = b * bstride + c;
          for (int j = 0; j < n; j++)
            col[j] = x[base + (size_t)j * ld] * (inverse ? s[j] : 1);
          ref_dst(n, tab, col, want);
          for (int k = 0; k < n && !inverse; k++)
            want[k] *= s[k];
          const double ratio =
              col_error(single, n, (char *)buf + base * es, ld, want) / (lg2(n) * eps);
          worst = ratio > worst ? ratio : worst;
        }
      ck_assert_msg(worst <= ERR_C, "%s n = %d cols = %zu %s: error %.3g log2(n+1) eps",
                    single ? "float" : "double", n, cols, inverse ? "inverse" : "forward", worst);
      free(buf);
      free(orig);
    }
  free(tab);
  free(x);
  free(col);
  free(want);
  free(s);
  free(inside);
}
END_TEST

/* The same bits for nt = 1, 2, 3, 4 (several batches and chunks per batch,
   so that the threads share them), forward scaled and inverse. */
START_TEST(threads)
{
  static const struct {
    int n;
    size_t nb, cols;
  } cases[] = {{255, 3, 300}, {1023, 2, 100}, {15, 5, 1000}};
  for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
    const int n = cases[t].n;
    const size_t nb = cases[t].nb, cols = cases[t].cols, ld = cols + 1,
                 bstride = (size_t)n * ld + 3, total = nb * bstride;
    tu_rng rng;
    tu_rng_seed(&rng, 9 + (uint64_t)n);
    long double *x = malloc(total * sizeof *x), *s = malloc((size_t)n * sizeof *s);
    for (int k = 0; k < n; k++)
      s[k] = (long double)(float)(1.5 + 0.5 * tu_symm(&rng));
    for (size_t i = 0; i < total; i++)
      x[i] = rand_f(&rng);
    for (int single = 0; single <= 1; single++)
      for (int inverse = 0; inverse <= 1; inverse++) {
        const size_t bytes = total * (single ? sizeof(float) : sizeof(double));
        void *one = to_type(single, total, x);
        run_sine(single, n, nb, bstride, ld, cols, one, s, inverse, 1);
        for (int nt = 2; nt <= 4; nt++) {
          void *many = to_type(single, total, x);
          run_sine(single, n, nb, bstride, ld, cols, many, s, inverse, nt);
          ck_assert_msg(memcmp(one, many, bytes) == 0, "%s n = %d %s: %d threads differ from one",
                        single ? "float" : "double", n, inverse ? "inverse" : "forward", nt);
          free(many);
        }
        free(one);
      }
    free(x);
    free(s);
  }
}
END_TEST

START_TEST(supported)
{
  for (int p = 1; p <= 24; p++) {
    const int n = (1 << p) - 1;
    ck_assert_msg(pscr_sine_supported(n), "n = %d", n);
    ck_assert_uint_gt(pscr_sine_scratch(n), 0);
  }
  static const int no[] = {0,         2, 5, 6, 1000, 1024, -1, -3, (1 << 25) - 1, (1 << 30) - 1,
                           0x7fffffff};
  for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
    ck_assert_msg(!pscr_sine_supported(no[i]), "n = %d", no[i]);
    ck_assert_uint_eq(pscr_sine_scratch(no[i]), 0);
  }
  /* An unsupported order, or nothing to do, leaves the data alone. */
  double x[12], y[12], ws[1];
  for (int i = 0; i < 12; i++)
    x[i] = y[i] = i + 0.5;
  pscr_sine_d(5, 1, 0, 2, 2, x, NULL, 0, 1, ws);
  pscr_sine_d(3, 0, 0, 2, 2, x, NULL, 0, 1, ws);
  pscr_sine_d(3, 1, 0, 2, 0, x, NULL, 0, 1, ws);
  ck_assert_mem_eq(x, y, sizeof x);
}
END_TEST

/* A plan that applies the sine transform keeps no dense eigenvectors on
   the host (plan.c gives them back after the upload: n^2 values), on the
   CPU and, where a CUDA plan can be made here, on CUDA, and still solves
   to the bound; with PSCR_FLAG_NO_SINE it keeps them for its products. */
START_TEST(plan_keeps_no_w)
{
  const int n[2] = {255, 6};
  pscr_problem *pb = NULL;
  ck_assert_int_eq(pscr_problem_create(&pb, PSCR_PROBLEM_POISSON, 2, n, NULL, 0, 0),
                   PSCR_SUCCESS);
  const size_t N = (size_t)n[0] * (size_t)n[1];
  double *f = malloc(N * sizeof *f), *u = malloc(N * sizeof *u);
  ck_assert(f && u);
  for (size_t t = 0; t < N; t++)
    f[t] = sin(0.7 * (double)t) + 0.25;
  static const pscr_backend backends[] = {PSCR_BACKEND_CPU, PSCR_BACKEND_CUDA};
  for (int b = 0; b < 2; b++) {
    for (int flag = 0; flag < 2; flag++) {
      pscr_options o;
      pscr_options_init(&o);
      o.backend = backends[b];
      o.method[0] = PSCR_METHOD_TRANSFORM;
      o.flags = flag ? PSCR_FLAG_NO_SINE : 0;
      pscr_plan *p = NULL;
      const pscr_status st = pscr_plan_create(&p, PSCR_R64, 2, pb->pencils, pb->shift, &o);
      if (b == 1 && st == PSCR_ERROR_NOT_SUPPORTED) {
        printf("plan_keeps_no_w: the CUDA backend's not run: %s\n", pscr_last_error());
        break;
      }
      ck_assert_msg(st == PSCR_SUCCESS, "backend %d: %s", b, pscr_last_error());
      pscr_info info;
      ck_assert_int_eq(pscr_plan_info(p, &info), PSCR_SUCCESS);
      ck_assert_int_eq(info.transform_sine[0], !flag);
      ck_assert_msg((p->w[0] == NULL) == !flag, "backend %d flag %d: w %p", b, flag, p->w[0]);
      ck_assert_int_eq(pscr_solve(p, f, u), PSCR_SUCCESS);
      const double berr = tu_backward_error(PSCR_R64, 2, pb->pencils, pb->shift, u, f);
      ck_assert_msg(berr <= 1e-14, "backend %d flag %d: backward error %.2e", b, flag, berr);
      pscr_plan_destroy(p);
    }
  }
  free(f);
  free(u);
  pscr_problem_destroy(pb);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("sine");
  TCase *tc = tcase_create("supported");
  tcase_add_test(tc, supported);
  tcase_add_test(tc, plan_keeps_no_w);
  suite_add_tcase(s, tc);
  tc = tcase_create("accuracy");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, accuracy, 0, N_ACC);
  tcase_add_test(tc, round_trip);
  suite_add_tcase(s, tc);
  tc = tcase_create("batches");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, batches, 0, N_BATCH);
  suite_add_tcase(s, tc);
  tc = tcase_create("threads");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, threads);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}

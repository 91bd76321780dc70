/*
 * pscr-baselines: fast Poisson solvers for pscr's uniform-mesh Dirichlet
 * Poisson problem (pscr_problem_create, PSCR_PROBLEM_POISSON, grading 0;
 * eq. 31), to set pscr's solve times beside: FFTW's DST-I on the CPU
 * (fftw_poisson.c) and a cuFFT DST-I on the GPU (cufft_poisson.cu). Both
 * solve exactly the operator pscr solves (baseline_common.h).
 *
 * For each size: build the problem and the manufactured right-hand side,
 * plan, then
 *   fftw:  one warm-up solve, the median (and minimum) of --repeat (default 5)
 *          wall-clock solves, host arrays;
 *   cufft: BL_CUFFT_WARMUP untimed device solves, the median (and minimum)
 *          of --gpu-repeat (default and at least 10) device-only solves timed
 *          with CUDA events, device arrays (transfers excluded);
 * and check the answer: the normwise backward error
 * ||A u - f||_inf / (||A||_inf ||u||_inf + ||f||_inf), A applied by
 * pscr_operator_apply from the problem's own pencils. A row whose backward
 * error exceeds BERR_TOL fails.
 *
 *   pscr-baselines [--2d N,N,..|none] [--3d N,N,..|none] [--repeat R]
 *                  [--gpu-repeat R] [--threads T] [--estimate]
 *                  [--no-cpu] [--no-gpu] [--device D]
 *
 * Defaults: --2d 1023,2047,4095 --3d 63,127,255. Exit status: 0, 1 when a
 * row failed, 2 usage.
 */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cufft_poisson.h"
#include "fftw_poisson.h"
#include "gpu_timing.h"
#include "pscr.h"

/* Backward error above this fails a row: 64 eps (the solvers reach ~1 eps). */
#define BERR_TOL (64.0 * DBL_EPSILON)
#define MAX_SIZES 16
#define MSG_LEN 512

typedef struct options {
  int sizes[2][MAX_SIZES]; /* [0]: 2D, [1]: 3D */
  int nsizes[2];
  int repeat, gpu_repeat, threads, measure, cpu, gpu, device;
} options;

static void usage(FILE *out)
{
  fprintf(out, "usage: pscr-baselines [--2d N,N,..|none] [--3d N,N,..|none] [--repeat R]\n"
               "                      [--gpu-repeat R] [--threads T] [--estimate]\n"
               "                      [--no-cpu] [--no-gpu] [--device D]\n");
}

/* "1023,2047" -> sizes; "none" -> 0 sizes. Returns -1 on a bad list. */
static int parse_sizes(const char *arg, int *sizes)
{
  int count = 0;
  if (!strcmp(arg, "none"))
    return 0;
  for (const char *p = arg; *p;) {
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p || v < 1 || v > 1 << 20 || count == MAX_SIZES)
      return -1;
    sizes[count++] = (int)v;
    p = *end == ',' ? end + 1 : end;
    if (*end && *end != ',')
      return -1;
  }
  return count;
}

static int parse_args(int argc, char **argv, options *o)
{
  static const int def2[] = {1023, 2047, 4095}, def3[] = {63, 127, 255};
  memset(o, 0, sizeof *o);
  memcpy(o->sizes[0], def2, sizeof def2);
  memcpy(o->sizes[1], def3, sizeof def3);
  o->nsizes[0] = o->nsizes[1] = 3;
  o->repeat = 5;
  o->gpu_repeat = 20;
  o->measure = o->cpu = o->gpu = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--estimate"))
      o->measure = 0;
    else if (!strcmp(a, "--no-cpu"))
      o->cpu = 0;
    else if (!strcmp(a, "--no-gpu"))
      o->gpu = 0;
    else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      exit(0);
    } else if (v && (!strcmp(a, "--2d") || !strcmp(a, "--3d"))) {
      int k = a[2] == '3';
      if ((o->nsizes[k] = parse_sizes(v, o->sizes[k])) < 0)
        return -1;
      i++;
    } else if (v && !strcmp(a, "--repeat"))
      o->repeat = atoi(argv[++i]);
    else if (v && !strcmp(a, "--gpu-repeat"))
      o->gpu_repeat = atoi(argv[++i]);
    else if (v && !strcmp(a, "--threads"))
      o->threads = atoi(argv[++i]);
    else if (v && !strcmp(a, "--device"))
      o->device = atoi(argv[++i]);
    else
      return -1;
  }
  return o->repeat >= 1 && o->gpu_repeat >= 1 && o->threads >= 0 && o->device >= 0 ? 0 : -1;
}

/* One problem and its vectors. */
typedef struct bl_case {
  pscr_problem *pb;
  double *b, *u, *au;
  size_t N;
  double norm_a;
} bl_case;

static void case_free(bl_case *c)
{
  pscr_problem_destroy(c->pb);
  free(c->b);
  free(c->u);
  free(c->au);
  memset(c, 0, sizeof *c);
}

static pscr_status case_setup(bl_case *c, int ndim, int n, char *msg, size_t len)
{
  int sizes[3] = {n, n, n};
  pscr_status st;
  memset(c, 0, sizeof *c);
  st = pscr_problem_create(&c->pb, PSCR_PROBLEM_POISSON, ndim, sizes, NULL, 0.0, 0.0);
  if (st) {
    snprintf(msg, len, "pscr_problem_create: %s", pscr_last_error());
    return st;
  }
  c->N = (size_t)c->pb->n[0] * c->pb->n[1] * c->pb->n[2];
  c->b = malloc(c->N * sizeof *c->b);
  c->u = malloc(c->N * sizeof *c->u);
  c->au = malloc(c->N * sizeof *c->au);
  if (!c->b || !c->u || !c->au) {
    snprintf(msg, len, "3 vectors of %zu doubles", c->N);
    return PSCR_ERROR_HOST_ALLOC;
  }
  if ((st = pscr_problem_manufactured(c->pb, c->b, NULL)) ||
      (st = pscr_operator_norm_inf(c->pb->dtype, c->pb->ndim, c->pb->pencils, c->pb->shift,
                                   &c->norm_a)))
    snprintf(msg, len, "right-hand side: %s", pscr_last_error());
  return st;
}

/* ||A u - b|| / (||A|| ||u|| + ||b||), inf-norms, A from the problem's pencils. */
static double backward_error(const bl_case *c)
{
  pscr_operator_apply(c->pb->dtype, c->pb->ndim, c->pb->pencils, c->pb->shift, c->u, c->au);
  return cli_max_diff(0, c->N, c->au, c->b) /
         (c->norm_a * cli_max_diff(0, c->N, c->u, NULL) + cli_max_diff(0, c->N, c->b, NULL));
}

static void print_row(const char *prob, int n, const char *solver, int threads, double plan_ms,
                      double med, double min, double berr, const char *note)
{
  char thr[16] = "-";
  if (threads > 0)
    snprintf(thr, sizeof thr, "%d", threads);
  printf("%-9s %6d  %-6s %4s %10.1f %11.3f %11.3f %10.2e  %s\n", prob, n, solver, thr,
         plan_ms, med, min, berr, note);
  fflush(stdout);
}

/* FFTW: plan, warm up, median of o->repeat wall-clock solves, check. 1: row failed. */
static int run_fftw(bl_case *c, const options *o, const char *prob, int n)
{
  char msg[MSG_LEN] = "";
  bl_fftw *s = NULL;
  double *t = malloc((size_t)o->repeat * sizeof *t), t0 = cli_now();
  pscr_status st = t ? PSCR_SUCCESS : PSCR_ERROR_HOST_ALLOC;
  int failed = 1;

  if (!st)
    st = bl_fftw_create(&s, c->pb->ndim, c->pb->pencils, c->pb->shift[0], o->threads,
                        o->measure, msg, sizeof msg);
  double plan_ms = 1e3 * (cli_now() - t0);
  if (!st)
    st = bl_fftw_solve(s, c->b, c->u); /* warm-up */
  for (int r = 0; !st && r < o->repeat; r++) {
    t0 = cli_now();
    st = bl_fftw_solve(s, c->b, c->u);
    t[r] = 1e3 * (cli_now() - t0);
  }
  if (st) {
    printf("%-9s %6d  %-6s  FAILED: %s: %s\n", prob, n, "fftw", pscr_status_string(st), msg);
    goto out;
  }
  qsort(t, (size_t)o->repeat, sizeof *t, cli_cmp_double);
  double berr = backward_error(c);
  failed = !(berr <= BERR_TOL);
  print_row(prob, n, "fftw", bl_fftw_threads(s), plan_ms, t[o->repeat / 2], t[0], berr,
            failed ? "FAIL: backward error" : "");
out:
  bl_fftw_destroy(s);
  free(t);
  return failed;
}

/* cuFFT: set up, device-only event timing, u back to the host, check. */
static int run_cufft(bl_case *c, const options *o, const char *prob, int n)
{
  char msg[MSG_LEN] = "";
  bl_cufft *s = NULL;
  double med = 0, min = 0, t0 = cli_now();
  int failed = 1;
  pscr_status st = bl_cufft_create(&s, o->device, c->pb->ndim, c->pb->pencils,
                                   c->pb->shift[0], msg, sizeof msg);
  double plan_ms = 1e3 * (cli_now() - t0);
  if (!st) {
    memset(c->u, 0, c->N * sizeof *c->u);
    st = bl_cufft_time(s, c->b, c->u, o->gpu_repeat, &med, &min, msg, sizeof msg);
  }
  if (st) {
    printf("%-9s %6d  %-6s  FAILED: %s: %s\n", prob, n, "cufft", pscr_status_string(st), msg);
    goto out;
  }
  double berr = backward_error(c);
  failed = !(berr <= BERR_TOL);
  print_row(prob, n, "cufft", -1, plan_ms, med, min, berr, failed ? "FAIL: backward error" : "");
out:
  bl_cufft_destroy(s);
  return failed;
}

int main(int argc, char **argv)
{
  options o;
  char desc[MSG_LEN];
  int failures = 0, gpu = 0, cpu;

  if (parse_args(argc, argv, &o)) {
    usage(stderr);
    return 2;
  }
  cpu = o.cpu && bl_fftw_available();
  bl_fftw_describe(desc, sizeof desc);
  printf("# pscr-baselines (pscr %s): uniform-mesh Dirichlet Poisson, eq. 31\n",
         pscr_version());
  if (cpu)
    printf("# cpu: %s; %s planning; median of %d wall-clock solves after 1 warm-up "
           "(the copy f -> u included)\n",
           desc, o.measure ? "FFTW_MEASURE" : "FFTW_ESTIMATE", o.repeat);
  else if (o.cpu)
    printf("# cpu: FFTW %s\n", desc);
  if (o.gpu) {
    gpu = gpu_describe(o.device, desc, sizeof desc) == PSCR_SUCCESS;
    printf("# gpu: %s\n", desc);
    if (gpu)
      printf("# gpu: cuFFT D2Z DST-I of length 2(n+1); device-only median of %d "
             "CUDA-event-timed solves after %d warm-up\n",
             o.gpu_repeat > BL_CUFFT_MIN_REPEAT ? o.gpu_repeat : BL_CUFFT_MIN_REPEAT,
             BL_CUFFT_WARMUP);
  }
  printf("# backward error ||Au-f||/(||A|| ||u||+||f||) (inf-norms, pscr_operator_apply); "
         "fails above %.1e\n",
         BERR_TOL);
  printf("%-9s %6s  %-6s %4s %10s %11s %11s %10s\n", "problem", "n", "solver", "thr",
         "setup_ms", "solve_ms", "min_ms", "berr");
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < o.nsizes[k]; i++) {
      const char *prob = k ? "poisson3d" : "poisson2d";
      int n = o.sizes[k][i];
      char msg[MSG_LEN] = "";
      bl_case c;
      pscr_status st = case_setup(&c, k + 2, n, msg, sizeof msg);
      if (st) {
        printf("%-9s %6d  FAILED: %s: %s\n", prob, n, pscr_status_string(st), msg);
        failures++;
      } else {
        if (cpu)
          failures += run_fftw(&c, &o, prob, n);
        if (gpu)
          failures += run_cufft(&c, &o, prob, n);
      }
      case_free(&c);
    }
  if (!cpu && !gpu)
    printf("# no solver available: nothing was run\n");
  if (failures)
    printf("# %d row(s) failed\n", failures);
  return failures ? 1 : 0;
}

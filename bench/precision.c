/*
 * pscr-precision: double against single precision on the same problems, in
 * one run (issue 6: "about twice as fast as double on the GPU for large
 * 2D/3D problems; documented accuracy").
 *
 *   pscr-precision [--backend cuda|cpu] [--max-n2 N] [--max-n3 N] [--repeat R]
 *                  [--rows M] [--profile] [--csv FILE]
 *
 * Cases: Poisson and Helmholtz (omega = (n - 1) / 2) on the unit square and
 * cube, uniform meshes, n = 255 .. max-n2 (2D, default 8191; 255 and 511 too) and 63 ..
 * max-n3 (3D, default 255; 383 and 511 with --max-n3 511). Each problem's
 * factors and load vector are first rounded to float, so the double plan
 * (R64 / C64) and the float plan (R32 / C32) solve exactly the same numbers.
 * Per dtype:
 *   - plan time; solve time: CUDA: pscr_solve_device with CUDA events on one
 *     stream, the median and minimum of R (default 20) after 2 warm-up solves
 *     (gpu_time_fn, as pscr-bench and pscr-roofline); CPU: pscr_solve wall
 *     clock, the median of R (default 5) after a warm-up;
 *   - the backward error ||Au - b|| / (||A|| ||u|| + ||b||) and the relative
 *     error against the manufactured solution, both evaluated in double;
 *   - effective bandwidth: the cost model's compulsory bytes (pscr_info.cost)
 *     per solve time, and min_bytes / time (read f, write u once).
 * The float / double time ratio is printed per case, and the stability
 * check: the float backward error in units of eps_f must stay within 10x the
 * double one in units of eps_d (and 10 eps_f when double is below 1 eps_d):
 * single precision is as stable as double in its own roundoff. A case that
 * fails it makes the exit status 1. --rows M sets
 * pscr_options.cuda_rows_per_thread for both plans; --profile adds one
 * pscr_solve_device_profile per plan (milliseconds per stage kind).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "gpu_timing.h"
#include "pscr.h"

#if PSCR_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

typedef struct result {
  double plan_s, med_ms, min_ms, berr, derr, bytes, min_bytes;
  double stage_ms[PSCR_STAGE_COUNT]; /* --profile */
  int rows;                          /* pscr_info.level3_rows_per_thread */
} result;

static int profile = 0;

#if PSCR_HAVE_CUDA
/* gpu_solve_fn for pscr (ctx: the plan). */
static pscr_status solve_fn(void *ctx, const void *d_f, void *d_u, void *stream, char *msg,
                            size_t len)
{
  pscr_status st = pscr_solve_device((pscr_plan *)ctx, d_f, d_u, stream);
  if (st) {
    char name[64];
    snprintf(msg, len, "%s (%s, from pscr_solve_device)", pscr_last_error(),
             cli_status_name(st, name, sizeof name));
  }
  return st;
}
#endif

/* Round count doubles to float precision in place. */
static void round_to_float(double *x, size_t count)
{
  for (size_t i = 0; i < count; i++)
    x[i] = (double)(float)x[i];
}

/* Time one solve of b (double values, widened from float) with a plan of
   `dtype` on the problem pb (factors already rounded); u receives the
   solution as doubles. */
static int run_dtype(const pscr_problem *pb, pscr_dtype dtype, const pscr_options *opts,
                     const double *b, double *u, int repeat, result *r)
{
  const int cplx = pb->dtype == PSCR_C64, single = dtype == PSCR_R32 || dtype == PSCR_C32;
  const size_t N = (size_t)pb->n[0] * pb->n[1] * pb->n[2], words = N * (cplx ? 2 : 1);
  const size_t es = single ? sizeof(float) : sizeof(double), bytes = words * es;
  pscr_pencil pen[3];
  float *store = NULL, shift32[2];
  void *f = NULL, *x = NULL;
  pscr_plan *plan = NULL;
  int rc = 1;
  memset(r, 0, sizeof *r);
  memcpy(pen, pb->pencils, sizeof pen);
  if (single && cli_float_pencils(pb, pen, shift32, &store))
    goto out;
  f = malloc(bytes);
  x = malloc(bytes);
  if (!f || !x)
    goto out;
  for (size_t i = 0; i < words; i++) {
    if (single)
      ((float *)f)[i] = (float)b[i];
    else
      ((double *)f)[i] = b[i];
  }
  double t0 = cli_now();
  pscr_status st = pscr_plan_create(&plan, dtype, pb->ndim, pen,
                                    single ? (const void *)shift32 : (const void *)pb->shift, opts);
  if (st) {
    cli_report("pscr-precision", st);
    goto out;
  }
  r->plan_s = cli_now() - t0;
  pscr_info info;
  pscr_plan_info(plan, &info);
  r->bytes = info.cost_total.bytes;
  r->rows = info.level3_rows_per_thread;
  r->min_bytes = info.min_bytes;
  if (info.backend == PSCR_BACKEND_CUDA) {
#if PSCR_HAVE_CUDA
    void *df = NULL, *du = NULL;
    char msg[256] = "";
    cudaStream_t s = NULL;
    st = PSCR_ERROR_DEVICE;
    if (cudaMalloc(&df, bytes) == cudaSuccess && cudaMalloc(&du, bytes) == cudaSuccess &&
        cudaStreamCreate(&s) == cudaSuccess)
      st = gpu_time_fn(solve_fn, plan, s, df, du, f, x, bytes, GPU_WARMUP, repeat, &r->med_ms,
                       &r->min_ms, msg, sizeof msg);
    if (!st && profile && (st = pscr_solve_device_profile(plan, df, du, s, r->stage_ms))) {
      char name[64];
      snprintf(msg, sizeof msg, "%s (%s, from pscr_solve_device_profile)", pscr_last_error(),
               cli_status_name(st, name, sizeof name));
    }
    if (st)
      fprintf(stderr, "device timing: %s\n", msg[0] ? msg : "cudaMalloc failed");
    if (s)
      cudaStreamDestroy(s);
    cudaFree(df);
    cudaFree(du);
    if (st)
      goto out;
#endif
  } else {
    double *ms = malloc((size_t)repeat * sizeof *ms);
    if (!ms || pscr_solve(plan, f, x)) {
      free(ms);
      goto out;
    }
    for (int k = 0; k < repeat; k++) {
      t0 = cli_now();
      if ((st = pscr_solve(plan, f, x))) {
        free(ms);
        goto out;
      }
      ms[k] = 1e3 * (cli_now() - t0);
    }
    qsort(ms, (size_t)repeat, sizeof *ms, cli_cmp_double);
    r->med_ms = ms[repeat / 2];
    r->min_ms = ms[0];
    free(ms);
  }
  for (size_t i = 0; i < words; i++)
    u[i] = single ? (double)((float *)x)[i] : ((double *)x)[i];
  rc = 0;
out:
  pscr_plan_destroy(plan);
  free(store);
  free(f);
  free(x);
  return rc;
}

static void usage(FILE *out)
{
  fprintf(out,
          "usage: pscr-precision [--backend cuda|cpu] [--max-n2 N] [--max-n3 N] [--repeat R]\n"
          "                      [--rows M] [--profile] [--csv FILE]\n"
          "  the cases with n <= max-n2 (2D, default 8191) and n <= max-n3 (3D, default 255);\n"
          "  R >= 1 timed solves (default 20 cuda, 5 cpu); M: pscr_options.cuda_rows_per_thread\n"
          "  (-1, 0, 2, 4, 8, 16; default 0, automatic); --profile: milliseconds per stage.\n"
          "Exit status: 0, 1 when a case failed or was not stable, 2 on a bad command line,\n"
          "77 with --backend cuda (the default) without a CUDA build or device.\n");
}

int main(int argc, char **argv)
{
  static const char *const backends[] = {"cuda", "cpu"};
  static const char *const rows_words[] = {"-1", "0", "2", "4", "8", "16"};
  static const int rows_of[] = {-1, 0, 2, 4, 8, 16};
  int max2 = 8191, max3 = 255, repeat = 0, backend = 0, rows = 1;
  const char *csv_path = NULL;
  pscr_options opts;
  pscr_options_init(&opts);
  opts.planner = PSCR_PLANNER_NONE; /* the PSCR reduction is what this tool measures */
  opts.check_finite = 0;
  cli_args c;
  cli_init(&c, "pscr-precision", argc, argv);
  while (cli_next(&c)) {
    int bad = 0;
    if (cli_is(&c, "-h") || cli_is(&c, "--help")) {
      usage(stdout);
      return 0;
    } else if (cli_is(&c, "--backend"))
      bad = cli_choice(&c, backends, 2, &backend);
    else if (cli_is(&c, "--max-n2"))
      bad = cli_int(&c, 1, INT_MAX, &max2);
    else if (cli_is(&c, "--max-n3"))
      bad = cli_int(&c, 1, INT_MAX, &max3);
    else if (cli_is(&c, "--repeat"))
      bad = cli_int(&c, 1, 1000000, &repeat);
    else if (cli_is(&c, "--csv"))
      bad = !(csv_path = cli_value(&c));
    else if (cli_is(&c, "--rows"))
      bad = cli_choice(&c, rows_words, 6, &rows);
    else if (cli_is(&c, "--profile")) {
      bad = cli_switch(&c);
      profile = 1;
    } else
      return cli_unknown(&c);
    if (bad)
      return CLI_USAGE;
  }
  opts.backend = backend ? PSCR_BACKEND_CPU : PSCR_BACKEND_CUDA;
  opts.cuda_rows_per_thread = rows_of[rows];
  const int cuda = opts.backend == PSCR_BACKEND_CUDA;
  if (repeat < 1)
    repeat = cuda ? 20 : 5;
  if (cuda) {
    char dev[256];
    if (gpu_describe(opts.device, dev, sizeof dev)) {
      fprintf(stderr, "pscr-precision: %s\n", dev);
      return 77;
    }
    printf("device: %s\n", dev);
  } else {
    printf("backend: cpu\n");
  }
  FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
  if (csv_path && !csv) {
    fprintf(stderr, "pscr-precision: --csv %s: %s\n", csv_path, strerror(errno));
    return CLI_USAGE;
  }
  if (csv)
    fprintf(csv, "kind,ndim,n,dtype,rows,plan_s,solve_ms_median,solve_ms_min,berr,berr_units,derr,"
                 "model_bytes,min_bytes,model_gbs,min_gbs,ratio_to_double,stable\n");
  printf("%-9s %5s %4s %4s %7s %9s %9s %9s %7s %9s %6s %6s %6s %s\n", "problem", "n", "type", "rows",
         "plan s", "median ms", "min ms", "berr", "/eps", "err", "GB/s", "f,u", "vs 64",
         "stable");
  static const struct { int helm, ndim, n; } cases[] = {
      {0, 2, 255},  {0, 2, 511},  {0, 2, 1023}, {0, 2, 2047}, {0, 2, 4095}, {0, 2, 8191},
      {1, 2, 1023}, {1, 2, 4095},
      {0, 3, 63},   {0, 3, 127},  {0, 3, 255},  {1, 3, 127},  {1, 3, 255},
      /* Past the default max-n3 (--max-n3 511): where float took half the
       * double time of the 3D solve (0.48-0.50 on an H200, docs/performance.md). */
      {0, 3, 383},  {1, 3, 383},  {0, 3, 511},
  };
  int failed = 0;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    const int n = cases[c].n, ndim = cases[c].ndim, helm = cases[c].helm;
    if (n > (ndim == 2 ? max2 : max3))
      continue;
    int sizes[3] = {n, n, n};
    pscr_problem *pb = NULL;
    if (pscr_problem_create(&pb, helm ? PSCR_PROBLEM_HELMHOLTZ : PSCR_PROBLEM_POISSON, ndim,
                            sizes, NULL, 0.0, 0.5 * (n - 1))) {
      failed = 1;
      continue;
    }
    const int cplx = pb->dtype == PSCR_C64, w = cplx ? 2 : 1;
    const size_t N = (size_t)pb->n[0] * pb->n[1] * pb->n[2];
    double *b = malloc(N * w * sizeof *b), *ue = malloc(N * w * sizeof *ue);
    double *u = malloc(N * w * sizeof *u), *au = malloc(N * w * sizeof *au);
    if (!b || !ue || !u || !au || pscr_problem_manufactured(pb, b, ue)) {
      failed = 1;
      goto next;
    }
    /* Both precisions solve the float-rounded data. */
    for (int d = 0; d < ndim; d++) {
      const pscr_pencil *q = &pb->pencils[d];
      double *arr[4] = {(double *)q->a_diag, (double *)q->a_off, (double *)q->m_diag,
                        (double *)q->m_off};
      for (int a = 0; a < 4; a++)
        if (arr[a])
          round_to_float(arr[a], (size_t)((a & 1) ? q->n - 1 : q->n) * w);
    }
    round_to_float(pb->shift, 2);
    round_to_float(b, N * w);
    double ms_double = 0, units_double = 0;
    for (int k = 0; k < 2; k++) {
      const pscr_dtype dt = k == 0 ? pb->dtype : (cplx ? PSCR_C32 : PSCR_R32);
      result r;
      if (run_dtype(pb, dt, &opts, b, u, repeat, &r)) {
        printf("%s%dd n=%d %s: FAILED\n", helm ? "helm" : "poisson", ndim, n, k ? "32" : "64");
        failed = 1;
        continue;
      }
      cli_verify(pb, b, u, ue, au, &r.berr, &r.derr);
      const double units = r.berr / (k ? 0x1p-23 : 0x1p-52); /* FLT_ / DBL_EPSILON */
      if (k == 0) {
        ms_double = r.med_ms;
        units_double = units;
      }
      const int stable = k == 0 || units <= 10.0 * (units_double > 1.0 ? units_double : 1.0);
      failed |= !stable;
      const char *name = cli_dtype_name(dt);
      const double ratio = k ? r.med_ms / ms_double : 1.0;
      printf("%-9s %5d %4s %4d %7.3f %9.3f %9.3f %9.2e %7.0f %9.2e %6.0f %6.0f %6.2f %s\n",
             helm ? (ndim == 2 ? "helm2d" : "helm3d") : (ndim == 2 ? "poisson2d" : "poisson3d"), n,
             name, r.rows, r.plan_s, r.med_ms, r.min_ms, r.berr, units, r.derr,
             r.bytes / r.med_ms * 1e-6, r.min_bytes / r.med_ms * 1e-6, ratio,
             k == 0 ? "-" : stable ? "yes" : "NO");
      if (profile) {
        printf("    stages ms:");
        for (int q = 0; q < PSCR_STAGE_COUNT; q++)
          printf(" %s %.3f", pscr_stage_name((pscr_stage)q), r.stage_ms[q]);
        printf("\n");
      }
      if (csv)
        fprintf(csv, "%s,%d,%d,%s,%d,%.4f,%.4f,%.4f,%.3e,%.1f,%.3e,%.0f,%.0f,%.1f,%.1f,%.3f,%d\n",
                helm ? "helmholtz" : "poisson", ndim, n, name, r.rows, r.plan_s, r.med_ms,
                r.min_ms, r.berr, units, r.derr, r.bytes, r.min_bytes, r.bytes / r.med_ms * 1e-6,
                r.min_bytes / r.med_ms * 1e-6, ratio, stable);
      fflush(stdout);
    }
  next:
    free(b);
    free(ue);
    free(u);
    free(au);
    pscr_problem_destroy(pb);
  }
  if (csv)
    fclose(csv);
  return failed;
}

/*
 * pscr-baselines: fast Poisson solvers for pscr's uniform-mesh Dirichlet
 * Poisson problem (pscr_problem_create, PSCR_PROBLEM_POISSON, grading 0;
 * eq. 31), to set pscr's solve times beside: FFTW's DST-I on the CPU
 * (fftw_poisson.c) and a cuFFT DST-I on the GPU (cufft_poisson.cu), each
 * along every dimension but the last with Thomas along the last. Both
 * solve exactly the operator pscr solves (baseline_common.h). On the GPU
 * also:
 *   dense: the dense matrix-decomposition solver (dense_md.h: eigenvector
 *          GEMMs on cuBLAS, Thomas along the last dimension), the generic
 *          fast solver that also works on non-uniform meshes;
 *   gtsv2, gtsvI: cuSPARSE gtsv2StridedBatch / gtsvInterleavedBatch on
 *          exactly the level-3 launches of one pscr solve of the problem
 *          (level3_batches.h, cusparse_level3.h; the launches come from a
 *          CPU-backend pscr plan, whose shifts equal the CUDA plan's). These
 *          rows time pscr's level-3 work only, not a whole solve.
 *
 * For each size: build the problem and the manufactured right-hand side,
 * plan, then
 *   fftw:  one warm-up solve, the median (and minimum) of --repeat (default 5)
 *          wall-clock solves, host arrays;
 *   cufft: BL_CUFFT_WARMUP untimed device solves, the median (and minimum)
 *          of --gpu-repeat (default and at least 10) device-only solves timed
 *          with CUDA events, device arrays (transfers excluded);
 *   dense: BL_DENSE_WARMUP untimed device solves, then as cufft; setup_ms
 *          is the whole create, LAPACKE eigendecompositions included;
 *   gtsv2, gtsvI: per launch one warm-up and --gpu-repeat event-timed calls,
 *          the sum over launches of the per-launch medians (and minima);
 *          setup_ms is pscr_plan_create (CPU) plus the launch list;
 * and check the answer: the normwise backward error
 * ||A u - f||_inf / (||A||_inf ||u||_inf + ||f||_inf), A applied by
 * pscr_operator_apply from the problem's own pencils. A row whose backward
 * error exceeds BERR_TOL fails (dense: DENSE_BERR_TOL, which grows with n
 * like the eigenvectors' orthogonality). The gtsv rows' berr column is the
 * largest per-system backward error of the tridiagonal solves
 * (cusparse_level3.h), failing above BL_GTSV_BERR_TOL.
 *
 *   pscr-baselines [--2d N,N,..|none] [--3d N,N,..|none] [--repeat R]
 *                  [--gpu-repeat R] [--threads T] [--estimate]
 *                  [--no-cpu] [--no-gpu] [--no-dense] [--no-gtsv] [--device D]
 *                  [--csv FILE]
 *
 * Defaults: --2d 1023,2047,4095 --3d 63,127,255. --csv FILE also writes
 * every row, failed ones too, as problem,n,solver,threads,setup_ms,solve_ms,
 * min_ms,berr,note (empty where the table prints "-"; a failed row has only
 * its note), the form bench/perf_tables.py reads. Exit status: 0, 1 when a
 * row failed, 2 usage or an unwritable FILE.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cufft_poisson.h"
#include "cusparse_level3.h"
#include "dense_md.h"
#include "fftw_poisson.h"
#include "gpu_timing.h"
#include "level3_batches.h"
#include "pscr.h"

/* Backward error above this fails a row: 64 eps (the solvers reach ~1 eps). */
#define BERR_TOL (64.0 * DBL_EPSILON)
/* The dense MD solver inherits its eigenvectors' O(n eps) orthogonality:
   max(64 eps, 10 n eps), the bound tests/test_solve.c uses for pscr at
   large n. */
#define DENSE_BERR_TOL(n) fmax(BERR_TOL, 10.0 * (double)(n) * DBL_EPSILON)
#define MAX_SIZES 16
#define MSG_LEN 512

typedef struct options {
  int sizes[2][MAX_SIZES]; /* [0]: 2D, [1]: 3D */
  int nsizes[2];
  int repeat, gpu_repeat, threads, measure, cpu, gpu, dense, gtsv, device, planner;
  const char *csv; /* --csv FILE, or NULL */
} options;

/* --csv: every row goes here too (main opens it). */
static FILE *csv_out;

static void usage(FILE *out)
{
  fprintf(out, "usage: pscr-baselines [--2d N,N,..|none] [--3d N,N,..|none] [--repeat R]\n"
               "                      [--gpu-repeat R] [--threads T] [--estimate]\n"
               "                      [--no-cpu] [--no-gpu] [--no-dense] [--no-gtsv]\n"
               "                      [--device D] [--csv FILE] [--planner none|estimate|measure]\n"
               "  N in 1..1048576, at most %d sizes; R >= 1; T >= 1 (default all); D >= 0.\n"
               "  --planner: pscr_options.planner of pscr's CPU plans (default estimate,\n"
               "  the library's); the note names the method per dimension.\n"
               "Exit status: 0, 1 when a row failed, 2 on a bad command line or an\n"
               "unwritable FILE.\n",
          MAX_SIZES);
}

/* The command line into o; -1 after --help, 0, or CLI_USAGE after the message. */
static int parse_args(int argc, char **argv, options *o)
{
  static const int def2[] = {1023, 2047, 4095}, def3[] = {63, 127, 255};
  memset(o, 0, sizeof *o);
  o->planner = PSCR_PLANNER_ESTIMATE; /* the library's default; planners[] is in enum order */
  memcpy(o->sizes[0], def2, sizeof def2);
  memcpy(o->sizes[1], def3, sizeof def3);
  o->nsizes[0] = o->nsizes[1] = 3;
  o->repeat = 5;
  o->gpu_repeat = 20;
  o->measure = o->cpu = o->gpu = o->dense = o->gtsv = 1;
  cli_args c;
  cli_init(&c, "pscr-baselines", argc, argv);
  while (cli_next(&c)) {
    int bad = 0;
    if (cli_is(&c, "--estimate") || cli_is(&c, "--no-cpu") || cli_is(&c, "--no-gpu") ||
        cli_is(&c, "--no-dense") || cli_is(&c, "--no-gtsv")) {
      bad = cli_switch(&c);
      int *sw = cli_is(&c, "--estimate") ? &o->measure
                : cli_is(&c, "--no-cpu") ? &o->cpu
                : cli_is(&c, "--no-gpu") ? &o->gpu
                : cli_is(&c, "--no-dense") ? &o->dense
                                           : &o->gtsv;
      *sw = 0;
    } else if (cli_is(&c, "-h") || cli_is(&c, "--help")) {
      usage(stdout);
      return -1;
    } else if (cli_is(&c, "--2d") || cli_is(&c, "--3d")) {
      const int k = c.opt[2] == '3';
      bad = cli_int_list_or_none(&c, 1, 1 << 20, o->sizes[k], MAX_SIZES, &o->nsizes[k]);
    } else if (cli_is(&c, "--repeat"))
      bad = cli_int(&c, 1, 1000000, &o->repeat);
    else if (cli_is(&c, "--gpu-repeat"))
      bad = cli_int(&c, 1, 1000000, &o->gpu_repeat);
    else if (cli_is(&c, "--threads"))
      bad = cli_int(&c, 1, 4096, &o->threads);
    else if (cli_is(&c, "--device"))
      bad = cli_int(&c, 0, INT_MAX, &o->device);
    else if (cli_is(&c, "--csv"))
      bad = !(o->csv = cli_value(&c));
    else if (cli_is(&c, "--planner")) {
      static const char *const planners[] = {"none", "estimate", "measure"};
      bad = cli_choice(&c, planners, 3, &o->planner);
    } else
      return cli_unknown(&c);
    if (bad)
      return CLI_USAGE;
  }
  return 0;
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

/* The note as one CSV field: quoted, its quotes doubled. */
static void csv_note(const char *note)
{
  fputc('"', csv_out);
  for (const char *p = note; *p; p++) {
    if (*p == '"')
      fputc('"', csv_out);
    fputc(*p, csv_out);
  }
  fputs("\"\n", csv_out);
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
  if (csv_out) {
    fprintf(csv_out, "%s,%d,%s,%s,%.1f,%.4f,%.4f,%.3e,", prob, n, solver,
            threads > 0 ? thr : "", plan_ms, med, min, berr);
    csv_note(note);
  }
}

/* A row that could not be measured: its status and message. */
static void fail_row(const char *prob, int n, const char *solver, pscr_status st,
                     const char *msg)
{
  char note[2 * MSG_LEN];
  char name[64];
  snprintf(note, sizeof note, "FAILED: %s (%s)", msg, cli_status_name(st, name, sizeof name));
  printf("%-9s %6d  %-6s  %s\n", prob, n, solver, note);
  fflush(stdout);
  if (csv_out) {
    fprintf(csv_out, "%s,%d,%s,,,,,,", prob, n, solver);
    csv_note(note);
  }
}

/* pscr on the CPU backend, timed as FFTW is (the baseline (d) comparison):
   plan, one warm-up, median of o->repeat wall-clock host-array solves on
   o->threads threads (0: all), check against pscr's documented bound
   (1e-13, growing like n eps). Returns the median in *ms; 1: row failed. */
static int run_pscr_cpu(bl_case *c, const options *o, const char *prob, int n, double *ms)
{
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CPU;
  opts.num_threads = o->threads;
  opts.planner = (pscr_planner)o->planner; /* the order of planners[] */
  pscr_plan *plan = NULL;
  pscr_info info;
  double *t = malloc((size_t)o->repeat * sizeof *t), t0 = cli_now();
  pscr_status st = t ? pscr_plan_create(&plan, c->pb->dtype, c->pb->ndim, c->pb->pencils,
                                        c->pb->shift, &opts)
                     : PSCR_ERROR_HOST_ALLOC;
  const double plan_ms = 1e3 * (cli_now() - t0);
  int failed = 1;
  *ms = -1;
  if (!st)
    st = pscr_solve(plan, c->b, c->u); /* warm-up */
  for (int r = 0; !st && r < o->repeat; r++) {
    t0 = cli_now();
    st = pscr_solve(plan, c->b, c->u);
    t[r] = 1e3 * (cli_now() - t0);
  }
  if (st) {
    fail_row(prob, n, "pscr", st, pscr_last_error());
    goto out;
  }
  pscr_plan_info(plan, &info);
  qsort(t, (size_t)o->repeat, sizeof *t, cli_cmp_double);
  const double berr = backward_error(c);
  failed = !(berr <= fmax(1e-13, 10.0 * n * DBL_EPSILON));
  *ms = t[o->repeat / 2];
  char note[64];
  snprintf(note, sizeof note, "%sCPU backend, methods %c%s",
           failed ? "FAIL: backward error; " : "",
           info.method[0] == PSCR_METHOD_TRANSFORM ? 'T' : 'R',
           c->pb->ndim == 3 ? (info.method[1] == PSCR_METHOD_TRANSFORM ? "T" : "R") : "");
  print_row(prob, n, "pscr", info.num_threads, plan_ms, *ms, t[0], berr, note);
out:
  pscr_plan_destroy(plan);
  free(t);
  return failed;
}

/* FFTW: plan, warm up, median of o->repeat wall-clock solves, check. 1: row failed. */
static int run_fftw(bl_case *c, const options *o, const char *prob, int n, double pscr_ms)
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
    fail_row(prob, n, "fftw", st, msg);
    goto out;
  }
  qsort(t, (size_t)o->repeat, sizeof *t, cli_cmp_double);
  double berr = backward_error(c);
  failed = !(berr <= BERR_TOL);
  char note[64] = "";
  if (pscr_ms > 0)
    snprintf(note, sizeof note, "pscr CPU / fftw: %.2fx", pscr_ms / t[o->repeat / 2]);
  print_row(prob, n, "fftw", bl_fftw_threads(s), plan_ms, t[o->repeat / 2], t[0], berr,
            failed ? "FAIL: backward error" : note);
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
    fail_row(prob, n, "cufft", st, msg);
    goto out;
  }
  double berr = backward_error(c);
  failed = !(berr <= BERR_TOL);
  print_row(prob, n, "cufft", -1, plan_ms, med, min, berr, failed ? "FAIL: backward error" : "");
out:
  bl_cufft_destroy(s);
  return failed;
}

/* Dense MD: create (LAPACKE + uploads), device-only event timing, check. */
static int run_dense(bl_case *c, const options *o, const char *prob, int n)
{
  char msg[MSG_LEN] = "", note[MSG_LEN] = "";
  bl_dense *s = NULL;
  double med = 0, min = 0, eig_ms = 0, t0 = cli_now();
  size_t bytes = 0;
  int failed = 1;
  pscr_status st = bl_dense_create(&s, o->device, c->pb->dtype, c->pb->ndim, c->pb->pencils,
                                   c->pb->shift, msg, sizeof msg);
  double plan_ms = 1e3 * (cli_now() - t0);
  if (!st) {
    memset(c->u, 0, c->N * sizeof *c->u);
    st = bl_dense_time(s, c->b, c->u, o->gpu_repeat, &med, &min, msg, sizeof msg);
  }
  if (st) {
    fail_row(prob, n, "dense", st, msg);
    goto out;
  }
  bl_dense_info(s, &eig_ms, &bytes);
  {
    int nmax = 1;
    for (int d = 0; d < c->pb->ndim; d++)
      nmax = c->pb->n[d] > nmax ? c->pb->n[d] : nmax;
    double berr = backward_error(c), tol = DENSE_BERR_TOL(nmax);
    failed = !(berr <= tol);
    snprintf(note, sizeof note, "%seig %.0f ms, %.0f MB on the device, berr bound %.1e",
             failed ? "FAIL: backward error; " : "", eig_ms, (double)bytes / 1e6, tol);
    print_row(prob, n, "dense", -1, plan_ms, med, min, berr, note);
  }
out:
  bl_dense_destroy(s);
  return failed;
}

/* cuSPARSE gtsv on the level-3 launches of a pscr solve of this problem:
   both variants. Returns the number of failed rows. */
static int run_gtsv(bl_case *c, const options *o, const char *prob, int n)
{
  static const struct {
    bl_gtsv_variant v;
    const char *name;
  } vars[2] = {{BL_GTSV2_STRIDED, "gtsv2"}, {BL_GTSV_INTERLEAVED, "gtsvI"}};
  char msg[MSG_LEN] = "";
  pscr_plan *plan = NULL;
  bl_l3_list list;
  pscr_options po;
  int failed = 0;
  double t0 = cli_now();
  pscr_status st;

  memset(&list, 0, sizeof list);
  pscr_options_init(&po);
  po.planner = PSCR_PLANNER_NONE; /* the reduction's level-3 launches */
  po.backend = PSCR_BACKEND_CPU;
  po.num_threads = o->threads;
  st = pscr_plan_create(&plan, c->pb->dtype, c->pb->ndim, c->pb->pencils, c->pb->shift, &po);
  if (st)
    snprintf(msg, sizeof msg, "pscr_plan_create (CPU): %s", pscr_last_error());
  if (!st)
    st = bl_l3_list_build(plan, &list, msg, sizeof msg);
  if (!st)
    st = bl_l3_list_verify(plan, &list, msg, sizeof msg);
  double setup_ms = 1e3 * (cli_now() - t0);
  if (st) {
    fail_row(prob, n, "gtsv", st, msg);
    failed = 1;
    goto out;
  }
  for (int k = 0; k < 2; k++) {
    bl_gtsv_result r;
    char note[MSG_LEN];
    st = bl_gtsv_level3_time(&list, vars[k].v, o->device, o->gpu_repeat, NULL, &r, msg,
                             sizeof msg);
    if (st) {
      fail_row(prob, n, vars[k].name, st, msg);
      failed++;
      continue;
    }
    snprintf(note, sizeof note,
             "level 3 only: %d launches, %zu systems, %zu rows, %.3g Grows/s, %.0f MB", r.nlaunch,
             r.total_sys, r.total_rows, r.rows_per_s / 1e9, (double)r.device_bytes / 1e6);
    print_row(prob, n, vars[k].name, -1, setup_ms, r.ms_total, r.ms_min_total, r.max_berr,
              note);
  }
out:
  bl_l3_list_free(&list);
  pscr_plan_destroy(plan);
  return failed;
}

int main(int argc, char **argv)
{
  options o;
  char desc[MSG_LEN];
  int failures = 0, gpu = 0, cpu;

  int parsed = parse_args(argc, argv, &o);
  if (parsed)
    return parsed < 0 ? 0 : CLI_USAGE;
  if (o.csv) {
    if (!(csv_out = fopen(o.csv, "w"))) {
      fprintf(stderr, "pscr-baselines: --csv %s: %s\n", o.csv, strerror(errno));
      return CLI_USAGE;
    }
    fprintf(csv_out, "problem,n,solver,threads,setup_ms,solve_ms,min_ms,berr,note\n");
  }
  cpu = o.cpu && bl_fftw_available();
  bl_fftw_describe(desc, sizeof desc);
  printf("# pscr-baselines (pscr %s): uniform-mesh Dirichlet Poisson, eq. 31\n",
         pscr_version());
  if (cpu)
    printf("# cpu: %s; DST-I along every dimension but the last, Thomas along the last; "
           "%s planning; median of %d wall-clock solves after 1 warm-up "
           "(the copy f -> u included)\n",
           desc, o.measure ? "FFTW_MEASURE" : "FFTW_ESTIMATE", o.repeat);
  else if (o.cpu)
    printf("# cpu: FFTW %s\n", desc);
  if (o.gpu) {
    gpu = gpu_describe(o.device, desc, sizeof desc) == PSCR_SUCCESS;
    printf("# gpu: %s\n", desc);
    if (gpu)
      printf("# gpu: cuFFT D2Z DST-I of length 2(n+1) along every dimension but the last, "
             "Thomas along the last; device-only median of %d CUDA-event-timed solves after "
             "%d warm-up\n",
             o.gpu_repeat > BL_CUFFT_MIN_REPEAT ? o.gpu_repeat : BL_CUFFT_MIN_REPEAT,
             BL_CUFFT_WARMUP);
    if (gpu && o.dense)
      printf("# gpu: dense: matrix decomposition, LAPACKE eigenvectors, cuBLAS DGEMM "
             "transforms, Thomas along the last dimension; timed as cufft (%d warm-ups)\n",
             BL_DENSE_WARMUP);
    if (gpu && o.gtsv)
      printf("# gpu: gtsv2 / gtsvI: cuSPARSE gtsv2StridedBatch / gtsvInterleavedBatch (algo 0) "
             "on pscr's level-3 launches only; per launch the median of %d event-timed calls "
             "after %d warm-up, summed; berr = max per-system backward error (fails above "
             "%.0e)\n",
             o.gpu_repeat > BL_GTSV_MIN_REPEAT ? o.gpu_repeat : BL_GTSV_MIN_REPEAT,
             BL_GTSV_WARMUP, BL_GTSV_BERR_TOL);
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
        fail_row(prob, n, "-", st, msg);
        failures++;
      } else {
        double pscr_ms = -1;
        if (o.cpu)
          failures += run_pscr_cpu(&c, &o, prob, n, &pscr_ms);
        if (cpu)
          failures += run_fftw(&c, &o, prob, n, pscr_ms);
        if (gpu)
          failures += run_cufft(&c, &o, prob, n);
        if (gpu && o.dense)
          failures += run_dense(&c, &o, prob, n);
        if (gpu && o.gtsv)
          failures += run_gtsv(&c, &o, prob, n);
      }
      case_free(&c);
    }
  if (!cpu && !gpu)
    printf("# no solver available: nothing was run\n");
  if (failures)
    printf("# %d row(s) failed\n", failures);
  if (csv_out && fclose(csv_out)) {
    fprintf(stderr, "pscr-baselines: writing %s failed\n", o.csv);
    return 2;
  }
  return failures ? 1 : 0;
}

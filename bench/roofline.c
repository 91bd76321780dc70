/*
 * pscr-roofline: pscr's CUDA solve against the device's roofline and
 * against the solvers a user could pick instead, all in one process
 * (paper section 5.3, Fig. 8; issue "Roofline benchmarks").
 *
 * 1. Ceilings, measured first (ceilings.cu): copy bandwidth (bytes read +
 *    written), FP64 and FP32 FMA rates; datasheet values beside them.
 * 2. Per case (a model problem of problems/, manufactured right-hand side):
 *    plan (init ms), one host-API solve checked by its backward error
 *    ||Au-f||/(||A|| ||u||+||f||), then device-only solves timed with CUDA
 *    events (median of --repeat after warm-up, gpu_timing.c), the pinned
 *    transfers, and a per-stage profile (pscr_solve_device_profile, median
 *    per stage kind). Work from pscr_plan_info's cost model: GFLOP/s, GB/s,
 *    intensity, and the fraction of the roofline bound
 *    max(flops / FP64 rate, bytes / copy bandwidth) reached.
 * 3. Baselines, timed the same way and each checking its own answer:
 *    cuFFT DST-I Poisson (uniform Poisson only; DST-I along every
 *    dimension but the last, Thomas along the last), the dense matrix-
 *    decomposition solver (R64), and cuSPARSE gtsv2StridedBatch /
 *    gtsvInterleavedBatch on exactly the plan's level-3 batches (against
 *    pscr's level-3 stage time).
 *
 * Output: a table on stdout and, with --csv FILE, one CSV line per run, per
 * stage kind and per baseline (`bench/perf_tables.py plot DIR` draws the PNG);
 * a baseline whose answer missed its bound has a line of row "rejected"
 * (whole-problem baselines: its time and backward error) or
 * "rejected-level3" (the cuSPARSE rows), so that tables say so.
 *
 *   pscr-roofline [--cases p2:4095,h2:1023,p3:255,g2:2047,...] [--repeat R]
 *                 [--csv FILE] [--device D] [--no-baselines] [--copy-mib M]
 *
 * Case names: p = Poisson uniform, g = Poisson graded mesh (grading 0.5),
 * h = Helmholtz (omega h = 0.5); 2 or 3 = dimensions; n per dimension.
 * Exit status: 0; 1 when a check failed; 2 on a bad command line or an
 * unwritable FILE; 77 without a CUDA device.
 */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ceilings.h"
#include "cli_common.h"
#include "cufft_poisson.h"
#include "cusparse_level3.h"
#include "dense_md.h"
#include "level3_batches.h"
#include "gpu_timing.h"
#include "pscr.h"

#define MAX_CASES 32
#define MSG_LEN 512
/* A pscr solution whose backward error exceeds this fails its row: the
   documented bounds (README "Guarantees and limits": 1e-13 real, 1e-11
   complex, growing like n eps from the eigenvector orthogonality). */
#define BERR_TOL_REAL 1e-13
#define BERR_TOL_COMPLEX 1e-11

static double pscr_tol(int cplx, int n)
{
  return fmax(cplx ? BERR_TOL_COMPLEX : BERR_TOL_REAL, 10.0 * n * DBL_EPSILON);
}

typedef struct rl_case {
  char name[16];
  pscr_problem_kind kind;
  int ndim, n;
  double grading;
} rl_case;

typedef struct rl_opts {
  rl_case cases[MAX_CASES];
  int ncases, repeat, device, baselines, planner, refine, refine_single;
  int method[2]; /* --method: pscr_method of dimension 1, then 2 (0: auto) */
  unsigned int flags; /* pscr_options.flags of pscr's plans (--flags) */
  size_t copy_mib;
  const char *csv;
} rl_opts;

static const char *default_cases = "p2:63,p2:127,p2:255,p2:511,p2:1023,p2:2047,p2:4095,p2:8191,"
                                   "g2:4095,h2:1023,h2:4095,"
                                   "p3:63,p3:127,p3:255,p3:511,g3:255,h3:127,h3:255";

static void usage(FILE *out)
{
  fprintf(out, "usage: pscr-roofline [--cases p2:4095,h2:1023,p3:255,g2:2047,...] [--repeat R]\n"
               "                     [--csv FILE] [--device D] [--no-baselines] "
               "[--copy-mib M]\n"
               "                     [--planner none|estimate|measure] [--refine K]\n"
               "                     [--refine-single] [--flags NAME,...] [--method M[,M]]\n"
               "  case: p (Poisson), g (Poisson, graded mesh) or h (Helmholtz), 2 or 3\n"
               "  dimensions, n in 2..65536; at most %d cases; R >= %d; D >= 0; M in\n"
               "  1..65536 MiB. --planner: pscr_options.planner of pscr's plans (estimate,\n"
               "  the default: the cost model's method per dimension, e.g. the dense\n"
               "  transform in 3D; none: the reduction; measure: the fastest of the timed\n"
               "  candidates); a transform\n"
               "  plan's stages are not profiled and it has no\n"
               "  level-3 (cuSPARSE) rows. --refine K (1..8): Helmholtz cases get a row\n"
               "  'pscr-refine', the chosen method with pscr_options.refine = K, checked and\n"
               "  timed like pscr's; --refine-single: its corrections by a float plan.\n"
               "  --flags: pscr_options.flags of pscr's plans by name (pscr_flag_name, e.g.\n"
               "  cuda-pcr-refine-all), to compare kernel paths; the baselines ignore them.\n"
               "  --method: pscr_options.method of pscr's plans, auto, reduction or transform\n"
               "  for dimension 1, then dimension 2 (3D cases; 2D cases take the first);\n"
               "  where a case's plan cannot take it, the case fails.\n"
               "Exit status: 0, 1 when a check failed, 2 on a bad command line or an unwritable\n"
               "FILE, 77 without a CUDA device.\n",
          MAX_CASES, GPU_MIN_REPEAT);
}

/* A --cases list into o->cases; 0, or CLI_USAGE after the message. */
static int parse_cases(const cli_args *c, const char *arg, rl_opts *o)
{
  o->ncases = 0;
  for (const char *at = arg;; at++) {
    const size_t len = strcspn(at, ",");
    char tok[32] = "";
    if (len == 0 || len >= sizeof tok)
      return cli_error(c, "--cases: '%.*s' in '%s' is not a case like p2:4095", (int)len, at,
                       arg);
    memcpy(tok, at, len);
    long long n = 0;
    const char k = tok[0], d = tok[1];
    if ((k != 'p' && k != 'g' && k != 'h') || (d != '2' && d != '3') || tok[2] != ':')
      return cli_error(c, "--cases: '%s' is not a case like p2:4095 (p, g or h; 2 or 3; ':' n)",
                       tok);
    char what[64];
    snprintf(what, sizeof what, "--cases '%s': n", tok);
    if (cli_parse_ll(c, what, tok + 3, 2, 1 << 16, &n))
      return CLI_USAGE;
    if (o->ncases == MAX_CASES)
      return cli_error(c, "--cases: more than %d cases", MAX_CASES);
    rl_case *rc = &o->cases[o->ncases++];
    snprintf(rc->name, sizeof rc->name, "%c%c:%d", k, d, (int)n);
    rc->kind = k == 'h' ? PSCR_PROBLEM_HELMHOLTZ : PSCR_PROBLEM_POISSON;
    rc->ndim = d - '0';
    rc->n = (int)n;
    rc->grading = k == 'g' ? 0.5 : 0.0;
    at += len;
    if (!*at)
      break;
  }
  return 0;
}

/* The command line into o; -1 after --help, 0, or CLI_USAGE after the message. */
static int parse_args(int argc, char **argv, rl_opts *o)
{
  cli_args c;
  cli_init(&c, "pscr-roofline", argc, argv);
  memset(o, 0, sizeof *o);
  o->repeat = 20;
  o->planner = PSCR_PLANNER_ESTIMATE; /* the library's default; planners[] is in enum order */
  o->baselines = 1;
  o->copy_mib = 1024;
  if (parse_cases(&c, default_cases, o))
    return CLI_USAGE;
  while (cli_next(&c)) {
    int bad = 0, mib = 0;
    const char *v;
    if (cli_is(&c, "--no-baselines")) {
      bad = cli_switch(&c);
      o->baselines = 0;
    } else if (cli_is(&c, "-h") || cli_is(&c, "--help")) {
      usage(stdout);
      return -1;
    } else if (cli_is(&c, "--cases"))
      bad = !(v = cli_value(&c)) || parse_cases(&c, v, o);
    else if (cli_is(&c, "--repeat"))
      bad = cli_int(&c, GPU_MIN_REPEAT, 1000000, &o->repeat);
    else if (cli_is(&c, "--device"))
      bad = cli_int(&c, 0, INT_MAX, &o->device);
    else if (cli_is(&c, "--copy-mib")) {
      bad = cli_int(&c, 1, 65536, &mib);
      o->copy_mib = (size_t)mib;
    } else if (cli_is(&c, "--csv"))
      bad = !(o->csv = cli_value(&c));
    else if (cli_is(&c, "--refine"))
      bad = cli_int(&c, 1, PSCR_REFINE_MAX, &o->refine);
    else if (cli_is(&c, "--flags"))
      bad = cli_flags(&c, &o->flags);
    else if (cli_is(&c, "--refine-single")) {
      bad = cli_switch(&c);
      o->refine_single = 1;
    }
    else if (cli_is(&c, "--planner")) {
      static const char *const planners[] = {"none", "estimate", "measure"};
      bad = cli_choice(&c, planners, 3, &o->planner);
    } else if (cli_is(&c, "--method")) {
      int nm = 0;
      bad = cli_choice_seq(&c, cli_method_words(), CLI_NMETHODS, o->method, 2, &nm);
    } else
      return cli_unknown(&c);
    if (bad)
      return CLI_USAGE;
  }
  return 0;
}

/* pscr_status_string's name part (one message at a time: a static buffer). */
static const char *status_name(pscr_status st)
{
  static char buf[64];
  return cli_status_name(st, buf, sizeof buf);
}

/* The roofline of the measured ceilings. */
typedef struct roof {
  double gbs, gflops; /* copy bandwidth, FP64 FMA rate */
} roof;

/* Fraction of the roofline bound reached: bound time / measured time. */
static double roof_fraction(const roof *r, double flops, double bytes, double ms)
{
  double t_bound = fmax(flops / (r->gflops * 1e9), bytes / (r->gbs * 1e9));
  return ms > 0 ? t_bound / (ms * 1e-3) : NAN;
}

/* One CSV line; NAN fields print empty. */
static void csv_line(FILE *f, const rl_case *c, const char *dtype, const char *row,
                     const char *what, double init_ms, double ms, double xfer_ms, double flops,
                     double bytes, const roof *r, double pscr_ms, double berr)
{
  if (!f)
    return;
  double gfs = flops / (ms * 1e6), gbs = bytes / (ms * 1e6);
  /* Every row of this driver runs on the GPU: pscr's CUDA backend and the
     CUDA baselines. */
  fprintf(f, "%s,%d,%d,%s,cuda,%s,%s", c->name, c->ndim, c->n, dtype, row, what);
  const double v[] = {init_ms,
                      ms,
                      xfer_ms,
                      flops,
                      bytes,
                      gfs,
                      gbs,
                      bytes > 0 ? flops / bytes : NAN,
                      roof_fraction(r, flops, bytes, ms),
                      gbs / r->gbs,
                      pscr_ms > 0 ? ms / pscr_ms : NAN,
                      berr};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    if (isnan(v[i]))
      fputs(",", f);
    else
      fprintf(f, ",%.6g", v[i]);
  }
  fputc('\n', f);
  fflush(f);
}

typedef struct rl_problem {
  pscr_problem *pb;
  double *b, *u, *au;
  size_t N;
  int cplx;
} rl_problem;

static void problem_free(rl_problem *p)
{
  pscr_problem_destroy(p->pb);
  free(p->b);
  free(p->u);
  free(p->au);
  memset(p, 0, sizeof *p);
}

static pscr_status problem_setup(rl_problem *p, const rl_case *c, char *msg, size_t len)
{
  int sizes[3] = {c->n, c->n, c->n};
  memset(p, 0, sizeof *p);
  pscr_status st = pscr_problem_create(&p->pb, c->kind, c->ndim, sizes, NULL, c->grading,
                                       0.5 * (c->n - 1));
  if (st) {
    snprintf(msg, len, "problem: %s", pscr_last_error());
    return st;
  }
  p->cplx = p->pb->dtype == PSCR_C64;
  p->N = (size_t)p->pb->n[0] * p->pb->n[1] * p->pb->n[2];
  const size_t words = p->N * (p->cplx ? 2 : 1);
  p->b = malloc(words * sizeof *p->b);
  p->u = malloc(words * sizeof *p->u);
  p->au = malloc(words * sizeof *p->au);
  if (!p->b || !p->u || !p->au) {
    snprintf(msg, len, "3 vectors of %zu values", p->N);
    return PSCR_ERROR_HOST_ALLOC;
  }
  if ((st = pscr_problem_manufactured(p->pb, p->b, NULL)))
    snprintf(msg, len, "right-hand side: %s", pscr_last_error());
  return st;
}

static double problem_berr(rl_problem *p, const double *u)
{
  double berr = NAN;
  cli_verify(p->pb, p->b, u, NULL, p->au, &berr, NULL);
  return berr;
}

/* The pscr rows of one case; returns the device solve median (ms), or a
   negative value when the case failed. */
/* What the planner knew (pscr_info.candidate), one line per vector. */
static void print_candidates(const rl_case *c, const pscr_info *info)
{
  if (info->ncandidates > 0)
    printf("  planned in %.1f ms:\n", 1e3 * info->plan_seconds);
  for (int k = 0; k < info->ncandidates; k++) {
    const pscr_candidate *cd = &info->candidate[k];
    printf("    candidate %-9s%s%-9s estimate %8.3f ms", cli_method_name(cd->method[0]),
           c->ndim == 3 ? " x " : "", c->ndim == 3 ? cli_method_name(cd->method[1]) : "",
           1e3 * cd->estimate_seconds);
    if (cd->measured_seconds > 0)
      printf("  measured %8.3f ms", 1e3 * cd->measured_seconds);
    if (cd->status)
      printf("  not taken: %.80s", cd->reason);
    printf("%s\n", k == info->chosen ? "  (chosen)" : "");
  }
}

static double run_pscr(const rl_case *c, rl_problem *p, const rl_opts *o, const roof *r,
                       FILE *csv, pscr_info *info, double *stage_ms, pscr_plan **plan_out,
                       int *failed)
{
  char msg[MSG_LEN] = "";
  const char *dtype = cli_dtype_name(p->pb->dtype);
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CUDA;
  opts.device = o->device;
  opts.planner = (pscr_planner)o->planner; /* the order of planners[] */
  opts.flags = o->flags;
  opts.method[0] = (pscr_method)o->method[0];
  opts.method[1] = c->ndim == 3 ? (pscr_method)o->method[1] : PSCR_METHOD_AUTO;
  pscr_plan *plan = NULL;
  double t0 = cli_now(), med = -1, sum_ms = 0;
  pscr_status st = pscr_plan_create(&plan, p->pb->dtype, c->ndim, p->pb->pencils, p->pb->shift,
                                    &opts);
  const double init_ms = 1e3 * (cli_now() - t0);
  gpu_timing t;
  memset(&t, 0, sizeof t);
  if (st) {
    snprintf(msg, sizeof msg, "plan: %s", pscr_last_error());
    goto fail;
  }
  pscr_plan_info(plan, info);
  if ((st = pscr_solve(plan, p->b, p->u))) {
    snprintf(msg, sizeof msg, "solve: %s", pscr_last_error());
    goto fail;
  }
  const double berr = problem_berr(p, p->u);
  if ((st = gpu_time_solve(plan, o->device, p->pb->dtype, p->N, p->b, p->u, o->repeat, &t))) {
    snprintf(msg, sizeof msg, "%s", t.msg);
    goto fail;
  }
  /* A plan with a transformed dimension has no stage profile yet. */
  const int transform =
      info->method[0] == PSCR_METHOD_TRANSFORM || info->method[1] == PSCR_METHOD_TRANSFORM;
  if (!transform && (st = gpu_profile_solve(plan, o->device, p->pb->dtype, p->N, p->b, o->repeat,
                                            stage_ms, &sum_ms, msg, sizeof msg)))
    goto fail;
  med = t.solve_ms_median;
  const pscr_cost *tot = &info->cost_total;
  const int bad = !(berr <= pscr_tol(p->cplx, c->n)) || !t.bitwise;
  *failed |= bad;
  printf("%-9s %-4s %-10s %9.1f %9.3f %9.3f %8.1f %8.1f %6.2f %6.1f%% %6.1f%%  %8.2e%s\n",
         c->name, dtype, "pscr", init_ms, med, t.h2d_ms + t.d2h_ms, tot->flops / (med * 1e6),
         tot->bytes / (med * 1e6), tot->flops / tot->bytes,
         100 * roof_fraction(r, tot->flops, tot->bytes, med),
         100 * info->min_bytes / (med * 1e6) / r->gbs, berr,
         bad ? (t.bitwise ? "  FAIL: backward error" : "  FAIL: device != host") : "");
  csv_line(csv, c, dtype, "run", "pscr", init_ms, med, t.h2d_ms + t.d2h_ms, tot->flops,
           tot->bytes, r, med, berr);
  csv_line(csv, c, dtype, "run", "pscr-min-bytes", NAN, med, NAN, tot->flops, info->min_bytes, r,
           med, NAN);
  if (transform) {
    printf("  methods: %s%s%s (transforms: matrix products); stages not profiled",
           cli_method_name(info->method[0]), c->ndim == 3 ? " x " : "",
           c->ndim == 3 ? cli_method_name(info->method[1]) : "");
    printf("\n");
    print_candidates(c, info);
    *plan_out = plan;
    return med;
  }
  print_candidates(c, info);
  printf("  stages (profiled, sum %.3f ms; level 3: M = %d rows/thread, P = %d):\n", sum_ms,
         info->level3_rows_per_thread, info->level3_threads_per_system);
  for (int k = 0; k < PSCR_STAGE_COUNT; k++) {
    const pscr_cost *s = &info->cost[k];
    if (s->launches == 0)
      continue;
    const double ms = stage_ms[k];
    printf("  %-9s %4.0f launches %9.3f ms %5.1f%%  %8.1f GFLOP/s %8.1f GB/s (%5.1f%% of copy) "
           "%6.2f flop/B  roofline %5.1f%%\n",
           pscr_stage_name((pscr_stage)k), s->launches, ms, 100 * ms / sum_ms,
           s->flops / (ms * 1e6), s->bytes / (ms * 1e6), 100 * s->bytes / (ms * 1e6) / r->gbs,
           s->bytes > 0 ? s->flops / s->bytes : 0, 100 * roof_fraction(r, s->flops, s->bytes, ms));
    csv_line(csv, c, dtype, "stage", pscr_stage_name((pscr_stage)k), NAN, ms, NAN, s->flops,
             s->bytes, r, NAN, NAN);
  }
  *plan_out = plan;
  return med;
fail:
  printf("%-9s %-4s %-10s FAILED: %s (%s)\n", c->name, dtype, "pscr", msg, status_name(st));
  *failed = 1;
  pscr_plan_destroy(plan);
  return -1;
}

/* --refine K: the method pscr chose (info), now with K refinement steps;
   device-only time and backward error checked like pscr's row. */
static void run_refined(const rl_case *c, rl_problem *p, const rl_opts *o, const roof *r,
                        const pscr_info *info, double pscr_ms, FILE *csv, int *failed)
{
  char msg[MSG_LEN] = "";
  const char *dtype = cli_dtype_name(p->pb->dtype);
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CUDA;
  opts.device = o->device;
  opts.method[0] = info->method[0];
  opts.method[1] = c->ndim == 3 ? info->method[1] : PSCR_METHOD_AUTO;
  opts.refine = o->refine;
  opts.refine_single = o->refine_single;
  opts.flags = o->flags;
  pscr_plan *plan = NULL;
  gpu_timing t;
  memset(&t, 0, sizeof t);
  const double t0 = cli_now();
  pscr_status st = pscr_plan_create(&plan, p->pb->dtype, c->ndim, p->pb->pencils, p->pb->shift,
                                    &opts);
  const double init_ms = 1e3 * (cli_now() - t0);
  if (st)
    snprintf(msg, sizeof msg, "plan: %s", pscr_last_error());
  else if ((st = pscr_solve(plan, p->b, p->u)))
    snprintf(msg, sizeof msg, "solve: %s", pscr_last_error());
  double berr = NAN;
  if (!st) {
    berr = problem_berr(p, p->u);
    if ((st = gpu_time_solve(plan, o->device, p->pb->dtype, p->N, p->b, p->u, o->repeat, &t)))
      snprintf(msg, sizeof msg, "%s", t.msg);
  }
  pscr_plan_destroy(plan);
  if (st) {
    printf("%-9s %-4s %-10s FAILED: %s (%s)\n", c->name, dtype, "pscr-refine", msg,
           status_name(st));
    *failed = 1;
    return;
  }
  const double med = t.solve_ms_median;
  /* The device arrays' residual is the device's (other rounding than the
     host's): the two solutions agree to the problem's conditioning, not
     bitwise. */
  const int far = !(t.rel_diff <= 1e-8);
  const int bad = !(berr <= pscr_tol(p->cplx, c->n)) || far;
  *failed |= bad;
  printf("%-9s %-4s %-10s %9.1f %9.3f %9.3f %8s %8s %6s %7s %7s  %8.2e  refine %d%s: %.2fx "
         "pscr's time; device vs host %.1e%s\n",
         c->name, dtype, "pscr-refine", init_ms, med, t.h2d_ms + t.d2h_ms, "-", "-", "-", "-", "-",
         berr, o->refine, o->refine_single ? " (float corrections)" : "", med / pscr_ms,
         t.rel_diff,
         bad ? (far ? "  FAIL: device != host" : "  FAIL: backward error") : "");
  csv_line(csv, c, dtype, "run", "pscr-refine", init_ms, med, t.h2d_ms + t.d2h_ms, NAN, NAN, r,
           pscr_ms, berr);
}

/* A baseline row: its time against pscr's. A baseline whose answer misses
   its bound is rejected (no ratio), which is a finding about the baseline,
   not a failure of the run. */
static void baseline_row(const rl_case *c, const char *dtype, const char *what, double init_ms,
                         double ms, double berr, double tol, double pscr_ms, double flops,
                         double bytes, const roof *r, FILE *csv)
{
  if (!(berr <= tol)) {
    printf("%-9s %-4s %-10s REJECTED: backward error %.2e above its bound %.1e (%.3f ms)\n",
           c->name, dtype, what, berr, tol, ms);
    csv_line(csv, c, dtype, "rejected", what, init_ms, ms, NAN, NAN, NAN, r, 0, berr);
    return;
  }
  printf("%-9s %-4s %-10s %9.1f %9.3f %9s %8s %8s %6s %7s %7s  %8.2e  pscr %.2fx\n", c->name,
         dtype, what, init_ms, ms, "-", "-", "-", "-", "-", "-", berr, ms / pscr_ms);
  csv_line(csv, c, dtype, "baseline", what, init_ms, ms, NAN, flops, bytes, r, pscr_ms, berr);
}

static void run_cufft(const rl_case *c, rl_problem *p, const rl_opts *o, const roof *r,
                      double pscr_ms, FILE *csv, int *failed)
{
  char msg[MSG_LEN] = "";
  bl_cufft *s = NULL;
  double med = 0, min = 0, t0 = cli_now();
  pscr_status st = bl_cufft_create(&s, o->device, c->ndim, p->pb->pencils, p->pb->shift[0], msg,
                                   sizeof msg);
  const double init_ms = 1e3 * (cli_now() - t0);
  if (!st) {
    memset(p->u, 0, p->N * sizeof *p->u);
    st = bl_cufft_time(s, p->b, p->u, o->repeat, &med, &min, msg, sizeof msg);
  }
  if (st) {
    printf("%-9s %-4s %-10s FAILED: %s (%s)\n", c->name, "R64", "cufft", msg, status_name(st));
    *failed = 1;
  } else {
    baseline_row(c, "R64", "cufft", init_ms, med, problem_berr(p, p->u), 64 * DBL_EPSILON,
                 pscr_ms, NAN, NAN, r, csv);
  }
  bl_cufft_destroy(s);
}

/* The dense matrix-decomposition solver (R64): its error is bounded by its
   eigenvectors' orthogonality, about n eps (bench/baselines/dense_md.h). */
static void run_dense(const rl_case *c, rl_problem *p, const rl_opts *o, const roof *r,
                      double pscr_ms, FILE *csv, int *failed)
{
  char msg[MSG_LEN] = "";
  bl_dense *s = NULL;
  double med = 0, min = 0, t0 = cli_now();
  pscr_status st = bl_dense_create(&s, o->device, p->pb->dtype, c->ndim, p->pb->pencils,
                                   p->pb->shift, msg, sizeof msg);
  const double init_ms = 1e3 * (cli_now() - t0);
  if (!st) {
    memset(p->u, 0, p->N * sizeof *p->u);
    st = bl_dense_time(s, p->b, p->u, o->repeat, &med, &min, msg, sizeof msg);
  }
  if (st) {
    printf("%-9s %-4s %-10s FAILED: %s (%s)\n", c->name, "R64", "dense", msg, status_name(st));
    *failed = 1;
  } else {
    const double tol = fmax(64 * DBL_EPSILON, 10.0 * c->n * DBL_EPSILON);
    baseline_row(c, "R64", "dense", init_ms, med, problem_berr(p, p->u), tol, pscr_ms, NAN, NAN,
                 r, csv);
  }
  bl_dense_destroy(s);
}

/* cuSPARSE on exactly the plan's level-3 launches, against pscr's profiled
   level-3 stage (right-hand sides and coefficients formed on the fly there;
   given as arrays to cuSPARSE). */
static void run_gtsv(const rl_case *c, const pscr_plan *plan, const char *dtype, const rl_opts *o,
                     const roof *r, double level3_ms, FILE *csv, int *failed)
{
  char msg[MSG_LEN] = "";
  bl_l3_list list;
  memset(&list, 0, sizeof list);
  pscr_status st = bl_l3_list_build(plan, &list, msg, sizeof msg);
  if (st) {
    printf("%-9s %-4s %-10s FAILED: %s (%s)\n", c->name, dtype, "gtsv", msg, status_name(st));
    *failed = 1;
    return;
  }
  static const struct {
    bl_gtsv_variant v;
    const char *name;
  } vars[] = {{BL_GTSV2_STRIDED, "gtsv2"}, {BL_GTSV_INTERLEAVED, "gtsvI"}};
  for (size_t k = 0; k < sizeof vars / sizeof vars[0]; k++) {
    bl_gtsv_result res;
    memset(&res, 0, sizeof res);
    st = bl_gtsv_level3_time(&list, vars[k].v, o->device, o->repeat, NULL, &res, msg, sizeof msg);
    if (st == PSCR_ERROR_SINGULAR) { /* its answer missed BL_GTSV_BERR_TOL */
      printf("%-9s %-4s %-10s REJECTED: %s\n", c->name, dtype, vars[k].name, msg);
      csv_line(csv, c, dtype, "rejected-level3", vars[k].name, NAN, NAN, NAN, NAN, NAN, r,
               0, NAN);
      continue;
    }
    if (st) {
      printf("%-9s %-4s %-10s FAILED: %s (%s)\n", c->name, dtype, vars[k].name, msg,
             status_name(st));
      *failed = 1;
      continue;
    }
    printf("%-9s %-4s %-10s %9s %9.3f %9s %8s %8s %6s %7s %7s  %8.2e  level 3: %zu launches, "
           "%.3g rows, %.1f G rows/s; pscr level 3 %.3f ms (%.1f G rows/s): %.2fx\n",
           c->name, dtype, vars[k].name, "-", res.ms_total, "-", "-", "-", "-", "-", "-",
           res.max_berr, (size_t)res.nlaunch, (double)res.total_rows, res.rows_per_s * 1e-9,
           level3_ms, (double)res.total_rows / (level3_ms * 1e6), res.ms_total / level3_ms);
    csv_line(csv, c, dtype, "baseline-level3", vars[k].name, NAN, res.ms_total, NAN, NAN, NAN, r,
             level3_ms, res.max_berr);
  }
  bl_l3_list_free(&list);
}

int main(int argc, char **argv)
{
  rl_opts o;
  char desc[MSG_LEN];
  int failed = 0;
  int parsed = parse_args(argc, argv, &o);
  if (parsed)
    return parsed < 0 ? 0 : CLI_USAGE;
  if (gpu_describe(o.device, desc, sizeof desc)) {
    fprintf(stderr, "pscr-roofline: %s\n", desc);
    return 77;
  }
  printf("# pscr-roofline (pscr %s): %s\n", pscr_version(), desc);
  gpu_ceilings ceil;
  if (gpu_measure_ceilings(o.device, o.copy_mib << 20, &ceil, desc, sizeof desc)) {
    fprintf(stderr, "pscr-roofline: ceilings: %s\n", desc);
    return 1;
  }
  printf("# ceilings (median of %d, CUDA events): copy kernel %.0f GB/s, cudaMemcpy D2D %.0f GB/s "
         "(read + written, 2 x %zu MiB); FP64 FMA %.0f GFLOP/s; FP32 FMA %.0f GFLOP/s\n",
         GPU_CEIL_REPEAT, ceil.copy_gbs, ceil.memcpy_gbs, ceil.copy_bytes >> 20, ceil.fp64_gflops,
         ceil.fp32_gflops);
  if (ceil.sheet_name[0])
    printf("# datasheet (%s): DRAM %.0f GB/s, FP64 %.0f GFLOP/s, FP32 %.0f GFLOP/s (no tensor "
           "cores)\n",
           ceil.sheet_name, ceil.sheet_gbs, ceil.sheet_fp64, ceil.sheet_fp32);
  else
    printf("# datasheet: this device is not in ceilings.cu's table\n");
  /* The better of the two copies is the bandwidth a kernel can reach. */
  const roof r = {fmax(ceil.copy_gbs, ceil.memcpy_gbs), ceil.fp64_gflops};
  printf("# roofline: copy bandwidth %.0f GB/s (the faster copy) and FP64 FMA rate; work from pscr_plan_info's cost "
         "model; solve = device-only median of %d (CUDA events) after warm-up; xfer = pinned H2D "
         "+ D2H\n",
         r.gbs, o.repeat);
  printf("# roof%% = max(flops/FP64, bytes/BW) / time; minB%% = (read f + write u) / time / BW\n");
  if (o.flags)
    printf("# pscr's plans with pscr_options.flags = 0x%x\n", o.flags);
  FILE *csv = NULL;
  if (o.csv) {
    csv = fopen(o.csv, "w");
    if (!csv) {
      fprintf(stderr, "pscr-roofline: cannot write %s\n", o.csv);
      return 2;
    }
    fprintf(csv, "# device: %s; roof_gbs %.1f; copy_gbs %.1f; fp64_gflops %.1f; fp32_gflops %.1f; "
                 "memcpy_gbs %.1f; sheet %s %.0f %.0f %.0f\n",
            desc, r.gbs, ceil.copy_gbs, ceil.fp64_gflops, ceil.fp32_gflops, ceil.memcpy_gbs,
            ceil.sheet_name[0] ? ceil.sheet_name : "-", ceil.sheet_gbs, ceil.sheet_fp64,
            ceil.sheet_fp32);
    fprintf(csv, "case,ndim,n,dtype,backend,row,what,init_ms,solve_ms,transfer_ms,flops,bytes,gflops,gbs,"
                 "intensity,roof_frac,bw_frac,ratio_to_pscr,berr\n");
  }
  printf("%-9s %-4s %-10s %9s %9s %9s %8s %8s %6s %7s %7s  %8s\n", "case", "type", "solver",
         "init_ms", "solve_ms", "xfer_ms", "GFLOP/s", "GB/s", "flop/B", "roof%", "minB%",
         "berr");
  for (int i = 0; i < o.ncases; i++) {
    const rl_case *c = &o.cases[i];
    rl_problem p;
    char msg[MSG_LEN] = "";
    pscr_status st = problem_setup(&p, c, msg, sizeof msg);
    if (st) {
      printf("%-9s FAILED: %s (%s)\n", c->name, msg, status_name(st));
      failed = 1;
      problem_free(&p);
      continue;
    }
    pscr_info info;
    double stage_ms[PSCR_STAGE_COUNT] = {0};
    pscr_plan *plan = NULL;
    const double pscr_ms = run_pscr(c, &p, &o, &r, csv, &info, stage_ms, &plan, &failed);
    if (pscr_ms > 0 && o.refine && c->kind == PSCR_PROBLEM_HELMHOLTZ)
      run_refined(c, &p, &o, &r, &info, pscr_ms, csv, &failed);
    if (pscr_ms > 0 && o.baselines) {
      if (c->kind == PSCR_PROBLEM_POISSON && c->grading == 0)
        run_cufft(c, &p, &o, &r, pscr_ms, csv, &failed);
      if (c->kind == PSCR_PROBLEM_POISSON)
        run_dense(c, &p, &o, &r, pscr_ms, csv, &failed);
      if (info.method[0] != PSCR_METHOD_TRANSFORM &&
          info.method[1] != PSCR_METHOD_TRANSFORM) /* level-3 rows mirror the reduction's */
        run_gtsv(c, plan, cli_dtype_name(p.pb->dtype), &o, &r, stage_ms[PSCR_STAGE_LEVEL3], csv,
                 &failed);
    }
    pscr_plan_destroy(plan);
    problem_free(&p);
  }
  if (csv)
    fclose(csv);
  if (failed)
    printf("# a check failed (see FAIL above)\n");
  return failed ? 1 : 0;
}

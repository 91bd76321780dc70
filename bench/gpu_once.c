/*
 * pscr-gpu-once: one problem on the CUDA backend with a chosen level-3 solver,
 * for tuning and profiling (pscr-bench is the benchmark).
 *
 *   pscr-gpu-once KIND N [ROWS] [--nrhs K] [--float] [--once] [--graded G]
 *   (exit status 0, 1 on an error, 2 on a bad command line, 77 without a
 *   CUDA device)
 *     KIND: p2, h2, p3, h3 (Poisson / Helmholtz, 2D / 3D), N: n per dimension,
 *     ROWS: pscr_options.cuda_rows_per_thread (0 automatic, -1 serial Thomas),
 *     K: also time batches of K right-hand sides (the plan gets max_batch K),
 *     --float: single precision (R32 / C32; the problem's pencils, shift
 *     and load vector rounded to float), else double (R64 / C64),
 *     --once: one device solve, untimed, for a profiler (below),
 *     --graded G: pscr_mesh_graded's mesh (G in [0, 1)) in every dimension
 *     instead of the uniform one (G 0, the default); the result line then
 *     ends with "graded G".
 *
 * Verifies a host-API solve (backward and discretization error), then times
 * pscr_solve_device as pscr-bench does (gpu_timing.c: CUDA events, median and
 * min of REPEAT after warm-up, device result against the host API's). With
 * --nrhs K it then times, on one stream with CUDA events, K consecutive
 * pscr_solve_device calls against one pscr_solve_device_batch of the same K
 * right-hand sides (medians of REPEAT after warm-up), checks that the batch
 * gives bitwise the single solves' u, and prints milliseconds per right-hand
 * side for both. With --once it stops after one host-API solve and one
 * device solve (one device batch of K with --nrhs).
 * A profiler then sees three solves, the plan's own probe solve
 * (probe_pivots) being the first; the device solve alone is bracketed by
 * cudaProfilerStart / cudaProfilerStop, so `ncu --profile-from-start off`
 * profiles exactly that one (scripts/gpu-profile.sh).
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda_profiler_api.h>
#include <limits.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "gpu_timing.h"
#include "pscr.h"

enum { REPEAT = 20 };

/* --once: one device solve, nothing else on the device. */
static int solve_once(pscr_plan *plan, const void *b, size_t bytes)
{
  void *df = NULL, *du = NULL;
  int rc = 1;
  if (cudaMalloc(&df, bytes) == cudaSuccess && cudaMalloc(&du, bytes) == cudaSuccess &&
      cudaMemcpy(df, b, bytes, cudaMemcpyHostToDevice) == cudaSuccess &&
      cudaProfilerStart() == cudaSuccess && pscr_solve_device(plan, df, du, NULL) == PSCR_SUCCESS &&
      cudaDeviceSynchronize() == cudaSuccess)
    rc = 0;
  cudaProfilerStop();
  cudaFree(df);
  cudaFree(du);
  return rc;
}

/* --nrhs K: K single device solves against one device batch of K. */
typedef struct batch_timing {
  double single_ms, batch_ms; /* medians, each for all K right-hand sides */
  int bitwise;                /* the batch's u_r == the single solves' u_r, every r */
  char msg[256];              /* what failed */
} batch_timing;

#define BT_CUDA(bt, label, call)                                                         \
  do {                                                                                  \
    cudaError_t e_ = (call);                                                            \
    if (e_ != cudaSuccess) {                                                            \
      snprintf((bt)->msg, sizeof (bt)->msg, "%s: %s", #call, cudaGetErrorString(e_));   \
      goto label;                                                                       \
    }                                                                                   \
  } while (0)
#define BT_PSCR(bt, label, call)                                                         \
  do {                                                                                  \
    pscr_status s_ = (call);                                                            \
    if (s_ != PSCR_SUCCESS) {                                                           \
      char name_[64];                                                                   \
      snprintf((bt)->msg, sizeof (bt)->msg, "%s (%s, from %s)", pscr_last_error(),      \
               cli_status_name(s_, name_, sizeof name_), #call);                        \
      goto label;                                                                       \
    }                                                                                   \
  } while (0)

/*
 * K right-hand sides f_r = (r + 1) b of nval values of dtype, contiguous on
 * the device. once: one batch solve and nothing else
 * (--once). Otherwise GPU_WARMUP untimed rounds, then REPEAT rounds of
 * [event, K x pscr_solve_device, event, pscr_solve_device_batch, event] on
 * one stream, the medians of both intervals, and the bitwise comparison of
 * the two results. Returns 0 on success.
 */
static int time_batch(pscr_plan *plan, const void *b, size_t nval, pscr_dtype dtype, int K,
                      int once, batch_timing *bt)
{
  const int single = dtype == PSCR_R32 || dtype == PSCR_C32;
  const size_t bytes = gpu_dtype_bytes(dtype, nval), all = (size_t)K * bytes;
  const size_t words = bytes / (single ? sizeof(float) : sizeof(double));
  void *h = NULL, *hb = NULL;
  double *ms1 = NULL, *msb = NULL;
  void *df = NULL, *du = NULL, *dv = NULL;
  cudaStream_t s = NULL;
  cudaEvent_t ev[3 * REPEAT];
  int rc = 1, made = 0;
  memset(bt, 0, sizeof *bt);
  h = malloc(all);
  hb = malloc(all);
  ms1 = malloc(REPEAT * sizeof *ms1);
  msb = malloc(REPEAT * sizeof *msb);
  if (!h || !hb || !ms1 || !msb) {
    snprintf(bt->msg, sizeof bt->msg, "host buffers (%zu bytes)", 2 * all);
    goto out;
  }
  for (int r = 0; r < K; r++)
    for (size_t i = 0; i < words; i++) {
      if (single)
        ((float *)h)[(size_t)r * words + i] = (float)(r + 1) * ((const float *)b)[i];
      else
        ((double *)h)[(size_t)r * words + i] = (r + 1) * ((const double *)b)[i];
    }
  BT_CUDA(bt, out, cudaMalloc(&df, all));
  BT_CUDA(bt, out, cudaMalloc(&du, all));
  BT_CUDA(bt, out, cudaMemcpy(df, h, all, cudaMemcpyHostToDevice));
  if (once) { /* profiled alone: see the header */
    BT_CUDA(bt, out, cudaProfilerStart());
    BT_PSCR(bt, out, pscr_solve_device_batch(plan, K, df, nval, du, nval, NULL));
    BT_CUDA(bt, out, cudaDeviceSynchronize());
    BT_CUDA(bt, out, cudaProfilerStop());
    rc = 0;
    goto out;
  }
  BT_CUDA(bt, out, cudaMalloc(&dv, all));
  BT_CUDA(bt, out, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (; made < 3 * REPEAT; made++)
    BT_CUDA(bt, out, cudaEventCreate(&ev[made]));
  /* du: single solves; dv: the batch. */
  for (int round = -GPU_WARMUP; round < REPEAT; round++) {
    if (round >= 0)
      BT_CUDA(bt, out, cudaEventRecord(ev[3 * round], s));
    for (int r = 0; r < K; r++)
      BT_PSCR(bt, out,
              pscr_solve_device(plan, (const char *)df + (size_t)r * bytes,
                                (char *)du + (size_t)r * bytes, s));
    if (round >= 0)
      BT_CUDA(bt, out, cudaEventRecord(ev[3 * round + 1], s));
    BT_PSCR(bt, out, pscr_solve_device_batch(plan, K, df, nval, dv, nval, s));
    if (round >= 0)
      BT_CUDA(bt, out, cudaEventRecord(ev[3 * round + 2], s));
  }
  BT_CUDA(bt, out, cudaStreamSynchronize(s));
  for (int round = 0; round < REPEAT; round++) {
    float a = 0, c = 0;
    BT_CUDA(bt, out, cudaEventElapsedTime(&a, ev[3 * round], ev[3 * round + 1]));
    BT_CUDA(bt, out, cudaEventElapsedTime(&c, ev[3 * round + 1], ev[3 * round + 2]));
    ms1[round] = a;
    msb[round] = c;
  }
  qsort(ms1, REPEAT, sizeof *ms1, cli_cmp_double);
  qsort(msb, REPEAT, sizeof *msb, cli_cmp_double);
  bt->single_ms = ms1[REPEAT / 2];
  bt->batch_ms = msb[REPEAT / 2];
  BT_CUDA(bt, out, cudaMemcpy(h, du, all, cudaMemcpyDeviceToHost));
  BT_CUDA(bt, out, cudaMemcpy(hb, dv, all, cudaMemcpyDeviceToHost));
  bt->bitwise = memcmp(h, hb, all) == 0;
  rc = 0;
out:
  if (s)
    cudaStreamSynchronize(s);
  for (int i = 0; i < made; i++)
    cudaEventDestroy(ev[i]);
  if (s)
    cudaStreamDestroy(s);
  cudaFree(df);
  cudaFree(du);
  cudaFree(dv);
  free(h);
  free(hb);
  free(ms1);
  free(msb);
  return rc;
}

static void usage(FILE *out)
{
  fprintf(out,
          "usage: pscr-gpu-once p2|h2|p3|h3 N [ROWS] [--nrhs K] [--float] [--once] [--graded G]\n"
          "  KIND: Poisson / Helmholtz, 2D / 3D; N >= 1 (Helmholtz >= 2) per dimension;\n"
          "  ROWS: pscr_options.cuda_rows_per_thread, -1, 0 (automatic), 2, 4, 8 or 16;\n"
          "  --nrhs K >= 1: also time batches of K; --float: R32 / C32; --once: one device\n"
          "  solve for a profiler; --graded G in [0, 1): a graded mesh (0: uniform).\n"
          "Exit status: 0, 1 on an error, 2 on a bad command line, 77 without a CUDA device.\n");
}

int main(int argc, char **argv)
{
  static const char *const kinds[] = {"p2", "h2", "p3", "h3"};
  static const char *const rows_words[] = {"-1", "0", "2", "4", "8", "16"};
  static const int rows_of[] = {-1, 0, 2, 4, 8, 16};
  /* --nrhs K, --float and --once may stand anywhere; the rest are positional:
   * KIND N [ROWS] (ROWS may be -1, so only "--" starts an option). */
  int nrhs = 0, npos = 0, single = 0, once = 0, kind_i = 0, n = 0, rows = 0;
  double grading = 0.0;
  cli_args c;
  cli_init(&c, "pscr-gpu-once", argc, argv);
  while (cli_next(&c)) {
    int bad = 0;
    if (cli_is(&c, "-h") || cli_is(&c, "--help")) {
      usage(stdout);
      return 0;
    } else if (cli_is(&c, "--nrhs"))
      bad = cli_int(&c, 1, INT_MAX, &nrhs);
    else if (cli_is(&c, "--float")) {
      bad = cli_switch(&c);
      single = 1;
    } else if (cli_is(&c, "--graded")) {
      bad = cli_double(&c, 0.0, 0, 1.0, 1, &grading);
    } else if (cli_is(&c, "--once")) {
      bad = cli_switch(&c);
      once = 1;
    } else if (!strncmp(c.arg, "--", 2)) {
      return cli_unknown(&c);
    } else if (npos == 0) {
      int k = 0;
      while (k < 4 && strcmp(c.arg, kinds[k]))
        k++;
      if (k == 4)
        return cli_error(&c, "KIND: '%s' is not one of: p2, h2, p3, h3", c.arg);
      kind_i = k;
      npos++;
    } else if (npos == 1) {
      long long v = 0;
      bad = cli_parse_ll(&c, "N", c.arg, 1, INT_MAX, &v);
      n = (int)v;
      npos++;
    } else if (npos == 2) {
      int k = 0;
      while (k < 6 && strcmp(c.arg, rows_words[k]))
        k++;
      if (k == 6)
        return cli_error(&c, "ROWS: '%s' is not one of: -1, 0, 2, 4, 8, 16", c.arg);
      rows = rows_of[k];
      npos++;
    } else {
      return cli_unknown(&c);
    }
    if (bad)
      return CLI_USAGE;
  }
  if (npos < 2)
    return cli_error(&c, "missing %s (usage: pscr-gpu-once p2|h2|p3|h3 N [ROWS])",
                     npos ? "N" : "KIND and N");
  {
    char desc[256];
    if (gpu_describe(0, desc, sizeof desc)) {
      fprintf(stderr, "pscr-gpu-once: %s\n", desc);
      return 77;
    }
  }
  const char *kind = kinds[kind_i];
  const int helm = kind[0] == 'h', ndim = kind[1] - '0';
  int sizes[3] = {n, n, n};
  pscr_problem *pb = NULL;
  pscr_plan *plan = NULL;
  double *b = NULL, *u = NULL, *ue = NULL, *au = NULL;
  float *store = NULL, *bf = NULL, *uf = NULL, shift32[2];
  int rc = 1;
  pscr_status st = pscr_problem_create(&pb, helm ? PSCR_PROBLEM_HELMHOLTZ : PSCR_PROBLEM_POISSON,
                                       ndim, sizes, NULL, grading, 0.5 * (n - 1));
  if (st) {
    cli_report("pscr-gpu-once", st);
    return 1;
  }
  const int cplx = pb->dtype == PSCR_C64;
  const pscr_dtype dtype = !single ? pb->dtype : cplx ? PSCR_C32 : PSCR_R32;
  const char *dname = cli_dtype_name(dtype);
  const size_t N = (size_t)pb->n[0] * pb->n[1] * pb->n[2], words = N * (cplx ? 2 : 1);
  const size_t bytes = words * sizeof(double);
  b = malloc(bytes);
  u = malloc(bytes);
  ue = malloc(bytes);
  au = malloc(bytes);
  if (!b || !u || !ue || !au || pscr_problem_manufactured(pb, b, ue))
    goto out;
  pscr_pencil pen[3];
  memcpy(pen, pb->pencils, sizeof pen);
  if (single) { /* the float problem: pencils, shift and b rounded */
    bf = malloc(words * sizeof *bf);
    uf = malloc(words * sizeof *uf);
    if (!bf || !uf || cli_float_pencils(pb, pen, shift32, &store))
      goto out;
    for (size_t i = 0; i < words; i++)
      bf[i] = (float)b[i];
  }
  /* The solve's own f and u: b and u, or their float copies. */
  const void *hf = single ? (const void *)bf : (const void *)b;
  void *hu = single ? (void *)uf : (void *)u;
  pscr_options o;
  pscr_options_init(&o);
  o.planner = PSCR_PLANNER_NONE; /* the PSCR reduction is what this tool measures */
  o.backend = PSCR_BACKEND_CUDA;
  o.cuda_rows_per_thread = rows;
  o.check_finite = 0;
  if (nrhs > 0)
    o.max_batch = nrhs; /* one launch sequence for the whole batch */
  double t0 = cli_now();
  if ((st = pscr_plan_create(&plan, dtype, ndim, pen,
                             single ? (const void *)shift32 : (const void *)pb->shift, &o)) ||
      (st = pscr_solve(plan, hf, hu))) {
    char where[64];
    snprintf(where, sizeof where, "pscr-gpu-once: %s n=%d %s", kind, n, dname);
    cli_report(where, st);
    goto out;
  }
  const double plan_s = cli_now() - t0;
  for (size_t i = 0; single && i < words; i++)
    u[i] = uf[i];
  /* Against the double problem: for float, of the order of float's epsilon. */
  double berr, derr;
  cli_verify(pb, b, u, ue, au, &berr, &derr);
  if (once) {
    batch_timing bt;
    rc = nrhs > 0 ? time_batch(plan, hf, N, dtype, nrhs, 1, &bt)
                  : solve_once(plan, hf, gpu_dtype_bytes(dtype, N));
    if (rc && nrhs > 0)
      fprintf(stderr, "device batch: %s\n", bt.msg);
    goto out;
  }
  gpu_timing t;
  if ((st = gpu_time_solve(plan, 0, dtype, N, hf, hu, REPEAT, &t))) {
    fprintf(stderr, "pscr-gpu-once: device timing: %s\n", t.msg);
    goto out;
  }
  printf("%s n=%d %s rows=%d plan %.3f s  device solve median %.3f ms min %.3f ms  berr %.2e  "
         "derr %.2e  device-vs-host %.1e",
         kind, n, dname, rows, plan_s, t.solve_ms_median, t.solve_ms_min, berr, derr,
         t.rel_diff);
  if (grading > 0)
    printf("  graded %g", grading);
  printf("\n");
  if (nrhs > 0) {
    batch_timing bt;
    if (time_batch(plan, hf, N, dtype, nrhs, 0, &bt)) {
      fprintf(stderr, "batch timing: %s\n", bt.msg);
      goto out;
    }
    printf("%s n=%d %s rows=%d nrhs=%d  per right-hand side: %d x pscr_solve_device %.3f ms, "
           "pscr_solve_device_batch %.3f ms (x%.2f)  median of %d  batch == single bitwise: "
           "%s\n",
           kind, n, dname, rows, nrhs, nrhs, bt.single_ms / nrhs, bt.batch_ms / nrhs,
           bt.single_ms / bt.batch_ms, REPEAT, bt.bitwise ? "yes" : "NO");
    if (!bt.bitwise)
      goto out;
  }
  rc = 0;
out:
  pscr_plan_destroy(plan);
  pscr_problem_destroy(pb);
  free(b);
  free(u);
  free(ue);
  free(au);
  free(store);
  free(bf);
  free(uf);
  return rc;
}

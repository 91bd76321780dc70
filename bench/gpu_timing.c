/*
 * Device-only timing for pscr-bench --backend cuda, plain C on the CUDA
 * runtime API: what the paper's GTX 1080 Ti columns measure, execution on
 * device arrays apart from the RAM-VRAM-RAM transfers.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cli_common.h"
#include "gpu_timing.h"

/* A CUDA call failed: status DEVICE_ALLOC for out of memory (not sticky, so
 * cleared), DEVICE otherwise; the call and CUDA's text go to t->msg. */
#define GPU_GOTO(t, st, label, call)                                                       \
  do {                                                                                     \
    cudaError_t e_ = (call);                                                               \
    if (e_ != cudaSuccess) {                                                               \
      cudaGetLastError();                                                                  \
      (st) = e_ == cudaErrorMemoryAllocation ? PSCR_ERROR_DEVICE_ALLOC : PSCR_ERROR_DEVICE; \
      snprintf((t)->msg, sizeof (t)->msg, "%s: %s", #call, cudaGetErrorString(e_));        \
      goto label;                                                                          \
    }                                                                                      \
  } while (0)

/* A pscr call failed: its status and detail message go to t->msg. */
#define PSCR_GOTO(t, st, label, call)                                                      \
  do {                                                                                     \
    (st) = (call);                                                                         \
    if (st) {                                                                              \
      char name_[64];                                                                      \
      snprintf((t)->msg, sizeof (t)->msg, "%s (%s, from %s)", pscr_last_error(),          \
               cli_status_name(st, name_, sizeof name_), #call);                           \
      goto label;                                                                          \
    }                                                                                      \
  } while (0)

pscr_status gpu_describe(int device, char *buf, size_t len)
{
  int count = 0, rt = 0, drv = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    cudaGetLastError();
    snprintf(buf, len, "no CUDA device (cudaGetDeviceCount: %s)",
             e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    return PSCR_ERROR_NOT_SUPPORTED;
  }
  if (device < 0 || device >= count) {
    snprintf(buf, len, "no CUDA device %d (%d present)", device, count);
    return PSCR_ERROR_NOT_SUPPORTED;
  }
  struct cudaDeviceProp p;
  if ((e = cudaGetDeviceProperties(&p, device)) != cudaSuccess ||
      (e = cudaSetDevice(device)) != cudaSuccess || (e = cudaFree(NULL)) != cudaSuccess) {
    snprintf(buf, len, "CUDA device %d: %s", device, cudaGetErrorString(e));
    return PSCR_ERROR_DEVICE;
  }
  cudaRuntimeGetVersion(&rt);
  cudaDriverGetVersion(&drv);
  snprintf(buf, len, "%s (device %d, sm_%d%d, %d SMs, %.1f GiB; CUDA runtime %d.%d, driver %d.%d)",
           p.name, device, p.major, p.minor, p.multiProcessorCount,
           (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0), rt / 1000, rt % 1000 / 10,
           drv / 1000, drv % 1000 / 10);
  return PSCR_SUCCESS;
}

/* Median and minimum of the n event intervals ev[stride i] -> ev[stride i + 1]. */
static void event_stats(const cudaEvent_t *ev, int stride, int n, double *ms, double *median,
                        double *min)
{
  for (int i = 0; i < n; i++) {
    float x = 0;
    cudaEventElapsedTime(&x, ev[stride * i], ev[stride * i + 1]);
    ms[i] = x;
  }
  qsort(ms, (size_t)n, sizeof *ms, cli_cmp_double);
  *median = ms[n / 2];
  if (min)
    *min = ms[0];
}

pscr_status gpu_time_fn(gpu_solve_fn solve, void *ctx, void *stream, void *d_f, void *d_u,
                        const void *f, void *u, size_t bytes, int warmup, int repeat,
                        double *median, double *min, char *msg, size_t len)
{
  pscr_status st = PSCR_SUCCESS;
  cudaStream_t s = (cudaStream_t)stream;
  gpu_timing t; /* for the GPU_GOTO messages */
  int made = 0;
  cudaEvent_t *ev = calloc(2 * (size_t)(repeat > 0 ? repeat : 1), sizeof *ev);
  double *ms = malloc((size_t)(repeat > 0 ? repeat : 1) * sizeof *ms);
  memset(&t, 0, sizeof t);
  if (!ev || !ms || repeat < 1) {
    st = ev && ms ? PSCR_ERROR_INVALID_VALUE : PSCR_ERROR_HOST_ALLOC;
    snprintf(t.msg, sizeof t.msg, "event tables (repeat %d)", repeat);
    goto out;
  }
  for (; made < 2 * repeat; made++)
    GPU_GOTO(&t, st, out, cudaEventCreate(&ev[made]));
  GPU_GOTO(&t, st, out, cudaMemcpyAsync(d_f, f, bytes, cudaMemcpyHostToDevice, s));
  for (int r = 0; r < warmup; r++)
    if ((st = solve(ctx, d_f, d_u, stream, t.msg, sizeof t.msg)))
      goto out;
  GPU_GOTO(&t, st, out, cudaStreamSynchronize(s));
  /* Back to back: the host never stalls the stream between solves. */
  for (int r = 0; r < repeat; r++) {
    GPU_GOTO(&t, st, out, cudaEventRecord(ev[2 * r], s));
    if ((st = solve(ctx, d_f, d_u, stream, t.msg, sizeof t.msg)))
      goto out;
    GPU_GOTO(&t, st, out, cudaEventRecord(ev[2 * r + 1], s));
  }
  GPU_GOTO(&t, st, out, cudaStreamSynchronize(s));
  event_stats(ev, 2, repeat, ms, median, min);
  if (u) {
    GPU_GOTO(&t, st, out, cudaMemcpyAsync(u, d_u, bytes, cudaMemcpyDeviceToHost, s));
    GPU_GOTO(&t, st, out, cudaStreamSynchronize(s));
  }
out:
  if (st)
    snprintf(msg, len, "%s", t.msg);
  cudaStreamSynchronize(s);
  for (int i = 0; i < made; i++)
    cudaEventDestroy(ev[i]);
  free(ev);
  free(ms);
  return st;
}

/* gpu_solve_fn for pscr: ctx is the plan. */
static pscr_status pscr_solve_fn(void *ctx, const void *d_f, void *d_u, void *stream, char *msg,
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

pscr_status gpu_time_solve(pscr_plan *plan, int device, pscr_dtype dtype, size_t nval,
                           const void *f, const void *u_ref, int repeat, gpu_timing *t)
{
  const size_t bytes = gpu_dtype_bytes(dtype, nval);
  /* Events and scratch of the transfer timing; the solves time themselves. */
  const int nev = 3 * GPU_XFER_REPEAT, nms = GPU_XFER_REPEAT;
  int made = 0;
  pscr_status st = PSCR_SUCCESS;
  void *d_f = NULL, *d_u = NULL;
  void *h_f = NULL, *h_u = NULL;
  double *ms = NULL;
  cudaStream_t s = NULL;
  cudaEvent_t *ev = calloc((size_t)nev, sizeof *ev);

  memset(t, 0, sizeof *t);
  ms = malloc((size_t)nms * sizeof *ms);
  if (!ev || !ms) {
    st = PSCR_ERROR_HOST_ALLOC;
    snprintf(t->msg, sizeof t->msg, "event tables");
    goto out;
  }
  GPU_GOTO(t, st, out, cudaSetDevice(device));
  GPU_GOTO(t, st, out, cudaMalloc(&d_f, bytes));
  GPU_GOTO(t, st, out, cudaMalloc(&d_u, bytes));
  GPU_GOTO(t, st, out, cudaMallocHost(&h_f, bytes));
  GPU_GOTO(t, st, out, cudaMallocHost(&h_u, bytes));
  GPU_GOTO(t, st, out, cudaStreamCreate(&s));
  for (; made < nev; made++)
    GPU_GOTO(t, st, out, cudaEventCreate(&ev[made]));
  memcpy(h_f, f, bytes);
  st = gpu_time_fn(pscr_solve_fn, plan, s, d_f, d_u, h_f, NULL, bytes, GPU_WARMUP, repeat,
                   &t->solve_ms_median, &t->solve_ms_min, t->msg, sizeof t->msg);
  if (st)
    goto out;

  /* Transfers from and to pinned memory: ev[3x] H2D ev[3x+1] D2H ev[3x+2]. */
  for (int x = 0; x < GPU_XFER_REPEAT; x++) {
    GPU_GOTO(t, st, out, cudaEventRecord(ev[3 * x], s));
    GPU_GOTO(t, st, out, cudaMemcpyAsync(d_f, h_f, bytes, cudaMemcpyHostToDevice, s));
    GPU_GOTO(t, st, out, cudaEventRecord(ev[3 * x + 1], s));
    GPU_GOTO(t, st, out, cudaMemcpyAsync(h_u, d_u, bytes, cudaMemcpyDeviceToHost, s));
    GPU_GOTO(t, st, out, cudaEventRecord(ev[3 * x + 2], s));
  }
  GPU_GOTO(t, st, out, cudaStreamSynchronize(s));
  event_stats(ev, 3, GPU_XFER_REPEAT, ms, &t->h2d_ms, NULL);
  event_stats(ev + 1, 3, GPU_XFER_REPEAT, ms, &t->d2h_ms, NULL);

  /* h_u now holds the device solution: the same as the host API's? */
  t->bitwise = !memcmp(h_u, u_ref, bytes);
  const int single = dtype == PSCR_R32 || dtype == PSCR_C32;
  const int cplx = dtype == PSCR_C32 || dtype == PSCR_C64;
  t->rel_diff = cli_max_diff_of(single, cplx, nval, h_u, u_ref) /
                cli_max_diff_of(single, cplx, nval, u_ref, NULL);
out:
  if (s)
    cudaStreamSynchronize(s);
  for (int i = 0; i < made; i++)
    cudaEventDestroy(ev[i]);
  if (s)
    cudaStreamDestroy(s);
  cudaFreeHost(h_u);
  cudaFreeHost(h_f);
  cudaFree(d_u);
  cudaFree(d_f);
  free(ms);
  free(ev);
  return st;
}

pscr_status gpu_profile_solve(pscr_plan *plan, int device, pscr_dtype dtype, size_t nval,
                              const void *f, int repeat, double *ms, double *sum_ms,
                              char *msg, size_t len)
{
  const size_t bytes = gpu_dtype_bytes(dtype, nval);
  pscr_status st = PSCR_SUCCESS;
  void *d_f = NULL, *d_u = NULL;
  gpu_timing t; /* for the GPU_GOTO / PSCR_GOTO messages */
  double *runs = malloc((size_t)(repeat + 1) * (PSCR_STAGE_COUNT + 1) * sizeof *runs);
  double *col = malloc((size_t)(repeat + 1) * sizeof *col);
  memset(&t, 0, sizeof t);
  if (!runs || !col || repeat < 1) {
    st = runs && col ? PSCR_ERROR_INVALID_VALUE : PSCR_ERROR_HOST_ALLOC;
    snprintf(t.msg, sizeof t.msg, "profile tables (repeat %d)", repeat);
    goto out;
  }
  GPU_GOTO(&t, st, out, cudaSetDevice(device));
  GPU_GOTO(&t, st, out, cudaMalloc(&d_f, bytes));
  GPU_GOTO(&t, st, out, cudaMalloc(&d_u, bytes));
  GPU_GOTO(&t, st, out, cudaMemcpy(d_f, f, bytes, cudaMemcpyHostToDevice));
  /* Run 0 is the warm-up. */
  for (int r = 0; r <= repeat; r++) {
    double *row = runs + (size_t)r * (PSCR_STAGE_COUNT + 1);
    PSCR_GOTO(&t, st, out, pscr_solve_device_profile(plan, d_f, d_u, NULL, row));
    row[PSCR_STAGE_COUNT] = 0;
    for (int k = 0; k < PSCR_STAGE_COUNT; k++)
      row[PSCR_STAGE_COUNT] += row[k];
  }
  for (int k = 0; k <= PSCR_STAGE_COUNT; k++) {
    for (int r = 0; r < repeat; r++)
      col[r] = runs[(size_t)(r + 1) * (PSCR_STAGE_COUNT + 1) + (size_t)k];
    qsort(col, (size_t)repeat, sizeof *col, cli_cmp_double);
    if (k < PSCR_STAGE_COUNT)
      ms[k] = col[repeat / 2];
    else
      *sum_ms = col[repeat / 2];
  }
out:
  if (st)
    snprintf(msg, len, "%s", t.msg);
  cudaFree(d_f);
  cudaFree(d_u);
  free(runs);
  free(col);
  return st;
}

/* Device-solve timing of Poisson (2D n^2 or 3D n^3) in R32 and R64 (P3_HELM=1:
   Helmholtz, omega = (n - 1) / 2, in C32 and C64): CUDA events,
   median of 20 after 3 warm-ups, random f, plus a host solve status.
   p3time NDIM N [once]  (once: one device solve per dtype, for ncu). */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pscr.h"
static int cmp(const void *a, const void *b) { float x = *(const float *)a, y = *(const float *)b; return (x > y) - (x < y); }
int main(int argc, char **argv)
{
  int nd = atoi(argv[1]), n = atoi(argv[2]), once = argc > 3 && !strcmp(argv[3], "once");
  const char *only = getenv("P3_ONLY"); /* "32" or "64" */
  int sz[3] = {n, n, nd == 3 ? n : 1};
  pscr_problem *pb;
  const int helm = getenv("P3_HELM") && atoi(getenv("P3_HELM")), w = helm ? 2 : 1;
  if (pscr_problem_create(&pb, helm ? PSCR_PROBLEM_HELMHOLTZ : PSCR_PROBLEM_POISSON, nd, sz, NULL, 0.0, helm ? 0.5 * (n - 1) : 0.0)) return 1;
  for (int dbl = 0; dbl < 2; dbl++) {
    if (only && atoi(only) != (dbl ? 64 : 32)) continue;
    pscr_pencil pen[3];
    float shift[2] = {(float)pb->shift[0], (float)pb->shift[1]};
    for (int d = 0; d < nd; d++) {
      const pscr_pencil *q = &pb->pencils[d];
      const double *src[4] = {q->a_diag, q->a_off, q->m_diag, q->m_off};
      float *dst[4] = {0};
      for (int k = 0; k < 4; k++) {
        if (!src[k]) continue;
        dst[k] = malloc(n * w * sizeof(float));
        for (int i = 0; i < ((k & 1) ? n - 1 : n) * w; i++) dst[k][i] = (float)src[k][i];
      }
      pen[d] = (pscr_pencil){n, dst[0], dst[1], dst[2], dst[3]};
    }
    pscr_options o;
    pscr_options_init(&o);
    o.backend = PSCR_BACKEND_CUDA;
    if (getenv("P3_ROWS")) o.cuda_rows_per_thread = atoi(getenv("P3_ROWS"));
    pscr_plan *plan;
    pscr_status st = dbl ? pscr_plan_create(&plan, helm ? PSCR_C64 : PSCR_R64, nd, pb->pencils, pb->shift, &o)
                         : pscr_plan_create(&plan, helm ? PSCR_C32 : PSCR_R32, nd, pen, shift, &o);
    if (st) { fprintf(stderr, "plan %s\n", pscr_last_error()); return 1; }
    size_t N = (size_t)n * n * (nd == 3 ? n : 1) * w, es = dbl ? 8 : 4, bytes = N * es;
    void *hf = malloc(bytes), *hu = malloc(bytes);
    srand(1);
    for (size_t i = 0; i < N; i++) {
      double v = rand() / (double)RAND_MAX - 0.5;
      if (dbl) ((double *)hf)[i] = v; else ((float *)hf)[i] = (float)v;
    }
    void *df, *du;
    cudaMalloc(&df, bytes); cudaMalloc(&du, bytes);
    cudaMemcpy(df, hf, bytes, cudaMemcpyHostToDevice);
    cudaStream_t s; cudaStreamCreate(&s);
    pscr_info info; pscr_plan_info(plan, &info);
    if (once) {
      st = pscr_solve_device(plan, df, du, s);
      cudaStreamSynchronize(s);
      printf("once %dD n=%d %s%s: %s\n", nd, n, helm ? "C" : "R", dbl ? "64" : "32", pscr_status_string(st));
    } else {
      cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
      float ms[20];
      for (int r = 0; r < 23; r++) {
        cudaEventRecord(e0, s);
        pscr_solve_device(plan, df, du, s);
        cudaEventRecord(e1, s);
        cudaEventSynchronize(e1);
        if (r >= 3) cudaEventElapsedTime(&ms[r - 3], e0, e1);
      }
      qsort(ms, 20, sizeof *ms, cmp);
      st = pscr_solve(plan, hf, hu);
      printf("%s%dd n=%d %s%s: median %.3f ms min %.3f ms (rows %d, P %d, fused %d/%d) host solve %s\n",
             helm ? "helm" : "poisson", nd, n, helm ? "C" : "R", dbl ? "64" : "32", ms[10], ms[0], info.level3_rows_per_thread, info.level3_threads_per_system,
             info.level3_fused_levels, info.level3_fused_back, pscr_status_string(st));
    }
    pscr_plan_destroy(plan);
    cudaFree(df); cudaFree(du); free(hf); free(hu);
  }
  return 0;
}

/* Stage times (pscr_solve_device_profile, median of 9) and the cost model's launches of 2D Poisson n^2 R32: prof N... */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include "pscr.h"
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
int main(int argc, char **argv)
{
  for (int a = 1; a < argc; a++) {
    int n = atoi(argv[a]), sz[3] = {n, n, 1};
    pscr_problem *pb;
    if (pscr_problem_create(&pb, PSCR_PROBLEM_POISSON, 2, sz, NULL, 0.0, 0.0)) return 1;
    pscr_pencil pen[2]; float shift[2] = {0, 0};
    for (int d = 0; d < 2; d++) {
      const pscr_pencil *q = &pb->pencils[d];
      const double *src[4] = {q->a_diag, q->a_off, q->m_diag, q->m_off};
      float *dst[4] = {0};
      for (int k = 0; k < 4; k++) {
        if (!src[k]) continue;
        dst[k] = malloc(n * sizeof(float));
        for (int i = 0; i < ((k & 1) ? n - 1 : n); i++) dst[k][i] = (float)src[k][i];
      }
      pen[d] = (pscr_pencil){n, dst[0], dst[1], dst[2], dst[3]};
    }
    pscr_options o; pscr_options_init(&o); o.backend = PSCR_BACKEND_CUDA;
    pscr_plan *plan;
    if (pscr_plan_create(&plan, PSCR_R32, 2, pen, shift, &o)) { fprintf(stderr, "%s\n", pscr_last_error()); return 1; }
    size_t bytes = (size_t)n * n * 4;
    void *df, *du; cudaMalloc(&df, bytes); cudaMalloc(&du, bytes); cudaMemset(df, 0, bytes);
    double st[PSCR_STAGE_COUNT][9], ms[PSCR_STAGE_COUNT];
    for (int r = 0; r < 12; r++) {
      if (pscr_solve_device_profile(plan, df, du, NULL, ms)) { fprintf(stderr, "%s\n", pscr_last_error()); return 1; }
      if (r >= 3) for (int k = 0; k < PSCR_STAGE_COUNT; k++) st[k][r - 3] = ms[k];
    }
    pscr_info info; pscr_plan_info(plan, &info);
    printf("n=%d R32 levels %d:", n, info.levels[0]);
    for (int k = 0; k < PSCR_STAGE_COUNT; k++) { qsort(st[k], 9, sizeof(double), cmp); printf(" stage%d %.3f ms (%d launches)", k, st[k][4], (int)info.cost[k].launches); }
    printf("\n");
    pscr_plan_destroy(plan); cudaFree(df); cudaFree(du);
  }
  return 0;
}

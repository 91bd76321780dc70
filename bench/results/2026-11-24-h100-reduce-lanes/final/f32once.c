/* One R32 (or R64) device solve of 2D Poisson n^2, for ncu: f32once N [64]. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include "pscr.h"
int main(int argc, char **argv)
{
  int n = atoi(argv[1]), dbl = argc > 2;
  int sz[3] = {n, n, 1};
  pscr_problem *pb;
  if (pscr_problem_create(&pb, PSCR_PROBLEM_POISSON, 2, sz, NULL, 0.0, 0.0)) return 1;
  pscr_pencil pen[2];
  float shift[2] = {0, 0};
  for (int d = 0; d < 2; d++) {
    const pscr_pencil *q = &pb->pencils[d];
    const double *src[4] = {q->a_diag, q->a_off, q->m_diag, q->m_off};
    float *dst[4] = {0};
    for (int a = 0; a < 4; a++) {
      if (!src[a]) continue;
      dst[a] = malloc(n * sizeof(float));
      for (int i = 0; i < ((a & 1) ? n - 1 : n); i++) dst[a][i] = (float)src[a][i];
    }
    pen[d] = (pscr_pencil){n, dst[0], dst[1], dst[2], dst[3]};
  }
  pscr_options o;
  pscr_options_init(&o);
  o.backend = PSCR_BACKEND_CUDA;
  pscr_plan *plan;
  pscr_status st = dbl ? pscr_plan_create(&plan, PSCR_R64, 2, pb->pencils, pb->shift, &o)
                       : pscr_plan_create(&plan, PSCR_R32, 2, pen, shift, &o);
  if (st) { fprintf(stderr, "plan %s\n", pscr_last_error()); return 1; }
  size_t N = (size_t)n * n, bytes = N * (dbl ? 8 : 4);
  void *df, *du;
  cudaMalloc(&df, bytes); cudaMalloc(&du, bytes);
  cudaMemset(df, 0, bytes);
  cudaDeviceSynchronize();
  st = pscr_solve_device(plan, df, du, NULL);
  cudaDeviceSynchronize();
  printf("solve %d\n", (int)st);
  pscr_info info;
  pscr_plan_info(plan, &info);
  printf("levels %d fused %d back %d launches: l3 %g sums %g coupling %g other %g\n", info.levels[0],
         info.level3_fused_levels, info.level3_fused_back, info.cost[PSCR_STAGE_LEVEL3].launches,
         info.cost[PSCR_STAGE_SUMS].launches, info.cost[PSCR_STAGE_COUPLING].launches,
         info.cost[PSCR_STAGE_OTHER].launches);
  return 0;
}

/* Solve a 2D Poisson problem through an installed pscr; exit 0 on success. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <pscr.h>

int main(void)
{
  int n[2] = {31, 17};
  pscr_problem *pb;
  pscr_plan *plan;
  if (pscr_problem_create(&pb, PSCR_PROBLEM_POISSON, 2, n, NULL, 0.0, 0.0) != PSCR_SUCCESS)
    return 1;
  size_t N = (size_t)n[0] * n[1];
  double *b = malloc(N * sizeof *b), *u = malloc(N * sizeof *u), *ue = malloc(N * sizeof *ue);
  pscr_problem_manufactured(pb, b, ue);
  pscr_status st = pscr_plan_create(&plan, PSCR_R64, 2, pb->pencils, pb->shift, NULL);
  if (st == PSCR_SUCCESS)
    st = pscr_solve(plan, b, u);
  double err = 0;
  for (size_t i = 0; i < N; i++)
    err = fmax(err, fabs(u[i] - ue[i]));
  printf("pscr %s: %s, max error vs exact %.2e\n", pscr_version(), pscr_status_string(st), err);
  pscr_plan_destroy(plan);
  pscr_problem_destroy(pb);
  free(b);
  free(u);
  free(ue);
  return st == PSCR_SUCCESS && err < 1e-2 ? 0 : 1;
}

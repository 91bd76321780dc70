/* Solve a 2D Poisson problem through an installed pscr, with options and
   pscr_info through their inline size wrappers; the loaded library's version
   must be the header's. Exit 0 on success. */
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
  int major = -1, minor = -1, patch = -1;
  pscr_version_get(&major, &minor, &patch);
  if (major != PSCR_VERSION_MAJOR || minor != PSCR_VERSION_MINOR || patch != PSCR_VERSION_PATCH) {
    printf("header %s, library %d.%d.%d\n", PSCR_VERSION_STRING, major, minor, patch);
    return 1;
  }
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CPU;
  pscr_info info;
  pscr_status st = pscr_plan_create(&plan, PSCR_R64, 2, pb->pencils, pb->shift, &opts);
  if (st == PSCR_SUCCESS)
    st = pscr_plan_info(plan, &info);
  if (st == PSCR_SUCCESS && (info.size != sizeof info || info.backend != PSCR_BACKEND_CPU))
    st = PSCR_ERROR_INVALID_VALUE;
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

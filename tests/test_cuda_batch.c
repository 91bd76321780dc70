/*
 * Batches of right-hand sides on the CUDA backend (host and device arrays,
 * strided, in place, groups of max_batch, graph capture, zero pivots)
 * bitwise equal to single solves; the batch entry points' argument checks.
 *
 * Helpers shared with test_cuda.c and test_cuda_paths.c: cuda_common.c.
 * Runs without fork (CK_NOFORK) so CUDA is never initialized before a fork;
 * exits 77 (ctest skip) when the CUDA backend or a device is not available
 * (ct_main).
 */

#include <cuda_runtime_api.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_common.h"

/*
 * pscr_solve_batch and pscr_solve_device_batch on a CUDA plan with
 * options.max_batch: every u_r bitwise the u of a single solve of the same
 * plan (the same kernels compute every entry the same way whatever the batch
 * size), the gaps between strided vectors untouched, f untouched out of
 * place. nrhs below, at and above max_batch (groups), 2D and 3D (the 3D
 * inner batch is max_batch times the outer eigenpairs), real and complex,
 * the serial Thomas path (-1) and the partitioned one, and one 2D case whose
 * vectors pass the 8 MB staging chunk of the host path.
 */
typedef struct gbatch_case {
  kind k;
  int ndim, n[3];
  int max_batch, nrhs;
  int padf, padu; /* ld = total + pad */
  int in_place;   /* u == f, ldu == ldf */
  int rows;       /* cuda_rows_per_thread */
} gbatch_case;

static const gbatch_case gbatch_cases[] = {
    {RANDOM_SPD, 2, {37, 21, 1}, 4, 3, 0, 0, 0, 0},
    {RANDOM_SPD, 2, {37, 21, 1}, 2, 5, 3, 1, 0, 0},
    {RANDOM_COMPLEX, 2, {65, 40, 1}, 3, 3, 5, 0, 1, 0},
    {HELMHOLTZ, 2, {17, 30, 1}, 2, 5, 0, 7, 0, -1},
    {POISSON, 2, {200, 150, 1}, 8, 8, 11, 11, 0, 0},
    {RANDOM_SPD, 3, {9, 10, 11}, 2, 3, 2, 0, 0, 0},
    {RANDOM_COMPLEX, 3, {17, 3, 5}, 4, 5, 0, 0, 1, 0},
    {HELMHOLTZ, 3, {6, 11, 65}, 3, 4, 1, 4, 0, -1},
    {POISSON, 3, {31, 20, 17}, 5, 5, 0, 3, 0, 0},
    {POISSON, 2, {1100, 1001, 1}, 2, 3, 5, 0, 0, 0},
};
#define N_GBATCH ((int)(sizeof gbatch_cases / sizeof gbatch_cases[0]))

/* A value no solve produces, marking the gaps between strided vectors. */
#define GAP_VALUE (-123456.75)

/* A buffer of nrhs vectors of `words` doubles, ld doubles apart: random in
   the vectors, GAP_VALUE in the gaps. */
static double *strided_buffer(const op *o, int nrhs, size_t ld, uint64_t seed, size_t *len)
{
  const size_t words = tu_size(o->ndim, o->pencils) * (o->dtype == PSCR_C64 ? 2 : 1);
  *len = (size_t)(nrhs - 1) * ld + words;
  double *x = malloc(*len * sizeof *x);
  ck_assert_ptr_nonnull(x);
  for (size_t i = 0; i < *len; i++)
    x[i] = GAP_VALUE;
  for (int r = 0; r < nrhs; r++) {
    double *v = random_vector(o, seed + (uint64_t)r);
    memcpy(x + (size_t)r * ld, v, words * sizeof *x);
    free(v);
  }
  return x;
}

/* u_r == ref_r bitwise for every r, and the gaps of u hold GAP_VALUE. */
static void check_batch_result(const double *u, const double *ref, int nrhs, size_t ld,
                               size_t words, int c, const char *what)
{
  for (int r = 0; r < nrhs; r++) {
    ck_assert_msg(memcmp(u + (size_t)r * ld, ref + (size_t)r * words, words * sizeof *u) == 0,
                  "case %d, %s: right-hand side %d differs from the single solve", c, what, r);
    if (r + 1 < nrhs)
      for (size_t i = words; i < ld; i++)
        ck_assert_msg(u[(size_t)r * ld + i] == GAP_VALUE,
                      "case %d, %s: gap after vector %d written at %zu", c, what, r, i);
  }
}

START_TEST(batch_against_single)
{
  const gbatch_case *bc = &gbatch_cases[_i];
  op o;
  make_op(&o, bc->k, bc->ndim, bc->n, 9700u + (uint64_t)_i);
  const size_t N = tu_size(o.ndim, o.pencils), es = tu_dtype_size(o.dtype);
  const size_t w = es / sizeof(double), words = N * w;
  const size_t ldf = N + (size_t)bc->padf, ldu = bc->in_place ? ldf : N + (size_t)bc->padu;
  pscr_plan *gpu = ct_make_batch_plan(&o, bc->max_batch, bc->rows);
  size_t flen = 0, ulen = (size_t)(bc->nrhs - 1) * ldu * w + words;
  double *f = strided_buffer(&o, bc->nrhs, ldf * w, 9800u + 10u * (uint64_t)_i, &flen);
  double *ref = malloc((size_t)bc->nrhs * words * sizeof *ref);
  double *u = malloc((ulen > flen ? ulen : flen) * sizeof *u);
  ck_assert(ref && u);
  /* The reference: single host solves of the same plan. */
  for (int r = 0; r < bc->nrhs; r++) {
    pscr_status st = pscr_solve(gpu, f + (size_t)r * ldf * w, ref + (size_t)r * words);
    ck_assert_msg(st == PSCR_SUCCESS, "case %d: single solve %d: %s (%s)", _i, r,
                  pscr_status_string(st), pscr_last_error());
  }

  /* Host arrays. */
  double *hu = u;
  if (bc->in_place)
    memcpy(hu, f, flen * sizeof *f);
  else
    for (size_t i = 0; i < ulen; i++)
      hu[i] = GAP_VALUE;
  pscr_status st = bc->in_place ? pscr_solve_batch(gpu, bc->nrhs, hu, ldf, hu, ldu)
                                : pscr_solve_batch(gpu, bc->nrhs, f, ldf, hu, ldu);
  ck_assert_msg(st == PSCR_SUCCESS, "case %d: host batch: %s (%s)", _i, pscr_status_string(st),
                pscr_last_error());
  check_batch_result(hu, ref, bc->nrhs, ldu * w, words, _i, "host batch");

  /* Device arrays on a user stream (the gaps copied too, to check them). */
  void *df = NULL, *du = NULL;
  ck_assert_int_eq(cudaMalloc(&df, flen * sizeof *f), cudaSuccess);
  ck_assert_int_eq(cudaMalloc(&du, ulen * sizeof *f), cudaSuccess);
  ck_assert_int_eq(cudaMemcpy(df, f, flen * sizeof *f, cudaMemcpyHostToDevice), cudaSuccess);
  for (size_t i = 0; i < ulen; i++)
    u[i] = GAP_VALUE;
  ck_assert_int_eq(cudaMemcpy(du, u, ulen * sizeof *u, cudaMemcpyHostToDevice), cudaSuccess);
  cudaStream_t stream;
  ck_assert_int_eq(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  void *out = bc->in_place ? df : du;
  st = pscr_solve_device_batch(gpu, bc->nrhs, df, ldf, out, ldu, stream);
  ck_assert_msg(st == PSCR_SUCCESS, "case %d: device batch: %s (%s)", _i, pscr_status_string(st),
                pscr_last_error());
  ck_assert_int_eq(cudaStreamSynchronize(stream), cudaSuccess);
  ck_assert_int_eq(cudaMemcpy(u, out, ulen * sizeof *u, cudaMemcpyDeviceToHost), cudaSuccess);
  check_batch_result(u, ref, bc->nrhs, ldu * w, words, _i, "device batch");
  if (!bc->in_place) {
    double *fd = malloc(flen * sizeof *fd);
    ck_assert_ptr_nonnull(fd);
    ck_assert_int_eq(cudaMemcpy(fd, df, flen * sizeof *fd, cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert_msg(memcmp(fd, f, flen * sizeof *f) == 0, "case %d: device batch changed f", _i);
    free(fd);
  }
  /* And a right-hand side is the solution, not only the same numbers twice. */
  const double berr = tu_backward_error(o.dtype, o.ndim, o.pencils, o.shift, ref, f);
  ck_assert_msg(berr <= (o.dtype == PSCR_C64 ? BERR_COMPLEX : BERR_REAL),
                "case %d: backward error %.3e", _i, berr);
  pscr_info info;
  ck_assert_int_eq(pscr_plan_info(gpu, &info), PSCR_SUCCESS);
  printf("batch case %d: %dD %s max_batch %d nrhs %d ldf %zu ldu %zu%s rows %d: bitwise equal, "
         "%.1f MB on the device\n",
         _i, bc->ndim, kind_name[bc->k], bc->max_batch, bc->nrhs, ldf, ldu,
         bc->in_place ? " in place" : "", bc->rows, 1e-6 * (double)info.device_bytes);
  ck_assert_int_eq(cudaStreamDestroy(stream), cudaSuccess);
  cudaFree(df);
  cudaFree(du);
  free(f);
  free(ref);
  free(u);
  pscr_plan_destroy(gpu);
  op_free(&o);
}
END_TEST

/* pscr_solve_device_batch is stream-ordered (no allocation, no host
   synchronization): it captures into a CUDA graph, and the graph (two
   groups of max_batch 2 for 3 strided right-hand sides) gives bitwise the
   results of direct calls. */
START_TEST(batch_graph_capture)
{
  op o;
  ct_make_case(&o, _i, 9900u + (uint64_t)_i);
  const size_t N = tu_size(o.ndim, o.pencils), es = tu_dtype_size(o.dtype);
  const size_t w = es / sizeof(double), words = N * w, ld = N + 3;
  const int nrhs = 3;
  pscr_plan *gpu = ct_make_batch_plan(&o, 2, 0);
  size_t len = 0;
  double *f = strided_buffer(&o, nrhs, ld * w, 9950u + 10u * (uint64_t)_i, &len);
  double *ref = malloc((size_t)nrhs * words * sizeof *ref), *u = malloc(len * sizeof *u);
  ck_assert(ref && u);
  for (int r = 0; r < nrhs; r++)
    ck_assert_int_eq(pscr_solve(gpu, f + (size_t)r * ld * w, ref + (size_t)r * words),
                     PSCR_SUCCESS);
  void *df = NULL, *du = NULL;
  ck_assert_int_eq(cudaMalloc(&df, len * sizeof *f), cudaSuccess);
  ck_assert_int_eq(cudaMalloc(&du, len * sizeof *f), cudaSuccess);
  cudaStream_t stream;
  ck_assert_int_eq(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);

  /* No assertion between begin and end. */
  cudaGraph_t graph = NULL;
  cudaError_t begin = cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  pscr_status st = PSCR_ERROR_DEVICE;
  char detail[512] = "";
  if (begin == cudaSuccess) {
    st = pscr_solve_device_batch(gpu, nrhs, df, ld, du, ld, stream);
    snprintf(detail, sizeof detail, "%s", pscr_last_error());
  }
  cudaError_t end = begin == cudaSuccess ? cudaStreamEndCapture(stream, &graph) : begin;
  ck_assert_msg(begin == cudaSuccess, "begin capture: %s", cudaGetErrorString(begin));
  ck_assert_msg(st == PSCR_SUCCESS, "batch during capture: %s (%s)", pscr_status_string(st),
                detail);
  ck_assert_msg(end == cudaSuccess, "end capture: %s", cudaGetErrorString(end));
  ck_assert_ptr_nonnull(graph);
  cudaGraphExec_t exec = NULL;
  ck_assert_int_eq(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (int rep = 0; rep < 2; rep++) {
    for (size_t i = 0; i < len; i++)
      u[i] = GAP_VALUE;
    ck_assert_int_eq(cudaMemcpyAsync(df, f, len * sizeof *f, cudaMemcpyHostToDevice, stream),
                     cudaSuccess);
    ck_assert_int_eq(cudaMemcpyAsync(du, u, len * sizeof *u, cudaMemcpyHostToDevice, stream),
                     cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(exec, stream), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(stream), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(u, du, len * sizeof *u, cudaMemcpyDeviceToHost), cudaSuccess);
    check_batch_result(u, ref, nrhs, ld * w, words, _i, "graph");
  }
  printf("batch graph capture case %d: bitwise equal to single solves\n", _i);
  ck_assert_int_eq(cudaGraphExecDestroy(exec), cudaSuccess);
  ck_assert_int_eq(cudaGraphDestroy(graph), cudaSuccess);
  ck_assert_int_eq(cudaStreamDestroy(stream), cudaSuccess);
  cudaFree(df);
  cudaFree(du);
  free(f);
  free(ref);
  free(u);
  pscr_plan_destroy(gpu);
  op_free(&o);
}
END_TEST

/* Batches and zero pivots. _i = 0: a singular subproblem (as singular_shift,
   test_cuda.c): the host batch reports PSCR_ERROR_SINGULAR, every u_r is
   NaN, the device batch fills every u_r with NaN; the gaps are untouched.
   _i = 1: the partition pivot of partition_pivot_fallback (test_cuda.c):
   the plan takes plain Thomas, and both batches solve every right-hand side
   as pscr_solve does. */
START_TEST(batch_pivots)
{
  double a1 = _i ? 1.0 : 2.0, m1 = 1.0, c = _i ? 0.0 : -2.0;
  double s2d[4] = {1.0, 1.0}, s2o[3] = {1.0}, m2d[4] = {1.0, 1.0, 1.0, 1.0}, m2o[3] = {0.0};
  double p2d[4] = {2.0, 2.0, -1.0, 2.0}, p2o[3] = {1.0, 1.0, 1.0};
  pscr_pencil p[2] = {{1, &a1, NULL, &m1, NULL}, {2, s2d, s2o, m2d, NULL}};
  if (_i)
    p[1] = (pscr_pencil){4, p2d, p2o, m2d, m2o};
  const int n2 = p[1].n, nrhs = 3, ld = n2 + 1;
  pscr_options opts;
  pscr_options_init(&opts);
  opts.planner = PSCR_PLANNER_NONE;
  opts.backend = PSCR_BACKEND_CUDA;
  opts.max_batch = 2;
  opts.cuda_rows_per_thread = _i ? 2 : 0;
  pscr_plan *plan;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, p, &c, &opts), PSCR_SUCCESS);
  double f[3 * 5], u[3 * 5], ref[3 * 4];
  const size_t len = (size_t)(nrhs - 1) * ld + n2;
  for (size_t i = 0; i < len; i++) {
    f[i] = (i % ld) == (size_t)n2 ? GAP_VALUE : 1.0 + (double)i;
    u[i] = GAP_VALUE;
  }
  pscr_status st = pscr_solve_batch(plan, nrhs, f, ld, u, ld);
  if (_i == 0) {
    ck_assert_msg(st == PSCR_ERROR_SINGULAR, "got %s", pscr_status_string(st));
    ck_assert_msg(strstr(pscr_last_error(), "u is NaN for all 3 right-hand sides"),
                  "detail: %s", pscr_last_error());
  } else {
    ck_assert_msg(st == PSCR_SUCCESS, "got %s (%s)", pscr_status_string(st), pscr_last_error());
    for (int r = 0; r < nrhs; r++)
      ck_assert_int_eq(pscr_solve(plan, f + r * ld, ref + r * n2), PSCR_SUCCESS);
  }
  for (int r = 0; r < nrhs; r++)
    for (int i = 0; i < n2; i++) {
      const double v = u[r * ld + i];
      ck_assert_msg(_i == 0 ? isnan(v) : v == ref[r * n2 + i], "host u_%d[%d] = %g", r, i, v);
    }
  for (int r = 0; r + 1 < nrhs; r++)
    ck_assert(u[r * ld + n2] == GAP_VALUE && f[r * ld + n2] == GAP_VALUE);
  /* Device arrays: no synchronous report; _i = 0: NaN in every u_r; gaps
     kept. */
  void *df = NULL, *du = NULL;
  ck_assert_int_eq(cudaMalloc(&df, len * sizeof *f), cudaSuccess);
  ck_assert_int_eq(cudaMalloc(&du, len * sizeof *f), cudaSuccess);
  ck_assert_int_eq(cudaMemcpy(df, f, len * sizeof *f, cudaMemcpyHostToDevice), cudaSuccess);
  for (size_t i = 0; i < len; i++)
    u[i] = GAP_VALUE;
  ck_assert_int_eq(cudaMemcpy(du, u, len * sizeof *u, cudaMemcpyHostToDevice), cudaSuccess);
  ck_assert_int_eq(pscr_solve_device_batch(plan, nrhs, df, ld, du, ld, NULL), PSCR_SUCCESS);
  ck_assert_int_eq(cudaMemcpy(u, du, len * sizeof *u, cudaMemcpyDeviceToHost), cudaSuccess);
  for (int r = 0; r < nrhs; r++) {
    for (int i = 0; i < n2; i++) {
      const double v = u[r * ld + i];
      ck_assert_msg(_i == 0 ? isnan(v) : v == ref[r * n2 + i], "device u_%d[%d] = %g", r, i, v);
    }
    if (r + 1 < nrhs)
      ck_assert(u[r * ld + n2] == GAP_VALUE);
  }
  cudaFree(df);
  cudaFree(du);
  pscr_plan_destroy(plan);
}
END_TEST

/* Argument checks of the batch entry points on a CUDA plan. */
START_TEST(batch_bad_arguments)
{
  double one = 1.0, c = 0.0;
  pscr_pencil p[2] = {{1, &one, NULL, &one, NULL}, {2, (double[]){1.0, 1.0}, &one,
                                                    (double[]){1.0, 1.0}, NULL}};
  pscr_options opts;
  pscr_options_init(&opts);
  opts.planner = PSCR_PLANNER_NONE;
  opts.backend = PSCR_BACKEND_CUDA;
  opts.max_batch = 2;
  pscr_plan *gpu;
  ck_assert_int_eq(pscr_plan_create(&gpu, PSCR_R64, 2, p, &c, &opts), PSCR_SUCCESS);
  void *d = NULL;
  ck_assert_int_eq(cudaMalloc(&d, 16 * sizeof(double)), cudaSuccess);
  double *x = d;
  ck_assert_int_eq(pscr_solve_device_batch(gpu, 0, x, 2, x + 8, 2, NULL), PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_solve_device_batch(gpu, 2, NULL, 2, x, 2, NULL), PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_solve_device_batch(gpu, 2, x, 1, x + 8, 2, NULL),
                   PSCR_ERROR_INVALID_VALUE);
  ck_assert_msg(strstr(pscr_last_error(), "ldf is 1"), "detail: %s", pscr_last_error());
  ck_assert_int_eq(pscr_solve_device_batch(gpu, 2, x, 2, x + 3, 2, NULL),
                   PSCR_ERROR_INVALID_VALUE);
  ck_assert_msg(strstr(pscr_last_error(), "overlaps"), "detail: %s", pscr_last_error());
  ck_assert_int_eq(pscr_solve_device_batch(gpu, 2, x, 2, x, 3, NULL), PSCR_ERROR_INVALID_VALUE);
  /* A valid in-place call on the same plan. */
  ck_assert_int_eq(cudaMemset(d, 0, 16 * sizeof(double)), cudaSuccess);
  ck_assert_int_eq(pscr_solve_device_batch(gpu, 3, x, 4, x, 4, NULL), PSCR_SUCCESS);
  ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
  cudaFree(d);
  pscr_plan_destroy(gpu);
  opts.max_batch = 0;
  pscr_plan *none = (pscr_plan *)&one;
  ck_assert_int_eq(pscr_plan_create(&none, PSCR_R64, 2, p, &c, &opts), PSCR_ERROR_INVALID_VALUE);
  ck_assert_ptr_null(none);
}
END_TEST

static Suite *cuda_batch_suite(void)
{
  Suite *s = suite_create("cuda_batch");
  TCase *tc = tcase_create("batch");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, batch_against_single, 0, N_GBATCH);
  tcase_add_loop_test(tc, batch_graph_capture, 0, 3);
  tcase_add_loop_test(tc, batch_pivots, 0, 2);
  tcase_add_test(tc, batch_bad_arguments);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return ct_main(cuda_batch_suite); }

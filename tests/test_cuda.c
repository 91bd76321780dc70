/*
 * CUDA backend against the CPU reference (Ginkgo-style: GPU results checked
 * against the reference kernels): random pencils of every kind, 2D and 3D
 * sizes covering 1..5 levels and every n1 mod 4; backward error bounds as in
 * test_solve.c plus "no worse than 10x the CPU's"; agreement with the CPU
 * solution; pscr_solve_device == pscr_solve; in place; singular shifts;
 * bitwise repeatable solves; pscr_solve_device captured into a CUDA graph
 * (no host synchronization, no allocation); a CUDA error in the middle of a
 * solve reported as PSCR_ERROR_DEVICE, the plan usable afterwards; batches
 * of right-hand sides (host and device arrays, strided, in place, groups of
 * max_batch, graph capture, zero pivots) bitwise equal to single solves;
 * single precision (R32, C32) on every size, kind and level-3 solver, with
 * the float bound of test_single.c; the level-3 solver's paired mode
 * (PSCR_FLAG_CUDA_PAIR_*) against the unpaired one, its Toeplitz factors
 * (uniform meshes, PSCR_FLAG_CUDA_NO_TOEPLITZ) bitwise equal to the factor table,
 * and its fused weighted sums (PSCR_FLAG_CUDA_FUSE_*) against the separate pass;
 * the coupling and gather kernels with several entries per thread
 * (PSCR_FLAG_CUDA_COUPLE_*) bitwise equal to one entry;
 * its factor table staged in shared memory bitwise equal to the table read
 * from device memory (PSCR_FLAG_CUDA_NO_STAGE);
 * the merged top level of n = 4^j against the plain levels
 * (PSCR_FLAG_NO_MERGE_TOP).
 *
 * Runs without fork (CK_NOFORK) so CUDA is never initialized before a fork;
 * exits 77 (ctest skip) when the CUDA backend or a device is not available.
 */

#include <cuda_runtime_api.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_ops.h"

#define BERR_REAL 1e-13
#define BERR_COMPLEX 1e-11
#define REL_DIFF 1e-10
/* Single precision: 450 units of float roundoff, as test_single.c. */
#define BERR_SINGLE (450.0 * FLT_EPSILON)

/* Expert switches (pscr_options.flags) that the plan helpers below
   (make_plan_rows, make_batch_plan) give the plans they make: a test sets
   them around a helper call and clears them after. */
static unsigned plan_flags;

/* rows: pscr_options.cuda_rows_per_thread (the CUDA level-3 solver). */
static pscr_plan *make_plan_rows(const op *o, pscr_backend backend, int rows)
{
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = backend;
  opts.cuda_rows_per_thread = rows;
  opts.flags = plan_flags;
  pscr_plan *plan = NULL;
  pscr_status st = pscr_plan_create(&plan, o->dtype, o->ndim, o->pencils, op_shift(o), &opts);
  ck_assert_msg(st == PSCR_SUCCESS, "plan (%s): %s (%s)",
                backend == PSCR_BACKEND_CUDA ? "cuda" : "cpu", pscr_status_string(st),
                pscr_last_error());
  return plan;
}

static pscr_plan *make_plan(const op *o, pscr_backend backend)
{
  return make_plan_rows(o, backend, 0);
}

/* pscr_info names the level-3 solver the option asked for: M rows per thread
   and P threads (the power of two with P M >= n_last) while P <= 512, plain
   Thomas (0, 1) for -1 or longer systems; automatic: one of those. */
static void check_level3_info(const pscr_info *info, int nl, int rows)
{
  const int M = info->level3_rows_per_thread, P = info->level3_threads_per_system;
  if (M == 0) {
    ck_assert_int_eq(P, 1);
    ck_assert(rows <= 0 || (nl + rows - 1) / rows > 512);
    return;
  }
  ck_assert(rows == 0 || rows == M);
  ck_assert(M == 2 || M == 4 || M == 8 || M == 16);
  ck_assert(P >= 1 && P <= 512 && (P & (P - 1)) == 0);
  ck_assert_msg((long)P * M >= nl && (P == 1 || (long)(P / 2) * M < nl),
                "n_last %d: P %d, M %d", nl, P, M);
}

/* pscr_solve_device_profile on device copies of f: the solve must make
   exactly the launches the cost model counts (the call fails otherwise),
   give the same u bit for bit as pscr_solve, and time level 3. */
static void check_profile(pscr_plan *plan, const op *o, const void *f, const void *u_ref,
                          size_t bytes)
{
  void *df = NULL, *du = NULL, *u = malloc(bytes);
  ck_assert_ptr_nonnull(u);
  ck_assert_int_eq(cudaMalloc(&df, bytes), cudaSuccess);
  ck_assert_int_eq(cudaMalloc(&du, bytes), cudaSuccess);
  ck_assert_int_eq(cudaMemcpy(df, f, bytes, cudaMemcpyHostToDevice), cudaSuccess);
  double ms[PSCR_STAGE_COUNT];
  for (int pass = 0; pass < 2; pass++) {
    void *out = pass ? df : du; /* out of place, then in place (the same launches) */
    pscr_status st = pscr_solve_device_profile(plan, df, out, NULL, ms);
    ck_assert_msg(st == PSCR_SUCCESS, "profile: %s (%s)", pscr_status_string(st),
                  pscr_last_error());
    ck_assert_int_eq(cudaMemcpy(u, out, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert_msg(memcmp(u, u_ref, bytes) == 0, "profiled solve differs from pscr_solve");
    if (!pass)
      ck_assert_int_eq(cudaMemcpy(df, f, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert(ms[PSCR_STAGE_LEVEL3] > 0);
    for (int k = 0; k < PSCR_STAGE_COUNT; k++)
      ck_assert(ms[k] >= 0 && isfinite(ms[k]));
    ck_assert(o->ndim == 3 || ms[PSCR_STAGE_GATHER] == 0);
  }
  ck_assert_int_eq(pscr_solve_device_profile(plan, df, du, NULL, NULL), PSCR_ERROR_INVALID_VALUE);
  cudaFree(df);
  cudaFree(du);
  free(u);
}

/* -------------------------------------------------- GPU against the CPU */
/* scale: NULL, or (sa, sm) applied to dimension 1 and (sm, sa) to dimension 2. */
/* ratio10: also assert the CUDA backend issue's target "backward error
   within 10x of the CPU backend's on the same case". */
/* single: the op rounded to R32/C32; then the float bound, and the GPU and
   CPU float solutions, which differ by rounding amplified by up to kappa, are
   compared through their backward errors only. */
static void check_gpu_full(kind k, int ndim, const int *n, uint64_t seed, const double *scale,
                           int rows, int ratio10, int single)
{
  op o;
  make_op(&o, k, ndim, n, seed);
  if (scale) {
    op_scale(&o, 0, scale[0], scale[1]);
    op_scale(&o, 1, scale[1], scale[0]);
  }
  if (single)
    op_to_single(&o);
  size_t N = tu_size(ndim, o.pencils), es = tu_dtype_size(o.dtype);
  pscr_plan *cpu = make_plan(&o, PSCR_BACKEND_CPU);
  pscr_plan *gpu = make_plan_rows(&o, PSCR_BACKEND_CUDA, rows);
  pscr_info info;
  ck_assert_int_eq(pscr_plan_info(gpu, &info), PSCR_SUCCESS);
  ck_assert_int_eq(info.backend, PSCR_BACKEND_CUDA);
  ck_assert(info.device_bytes > 0);

  void *f = random_vector(&o, seed + 1), *uc = malloc(N * es), *ug = malloc(N * es);
  ck_assert_ptr_nonnull(uc);
  ck_assert_ptr_nonnull(ug);
  pscr_status st = pscr_solve(cpu, f, uc);
  ck_assert_msg(st == PSCR_SUCCESS, "cpu solve: %s", pscr_status_string(st));
  st = pscr_solve(gpu, f, ug);
  ck_assert_msg(st == PSCR_SUCCESS, "cuda solve: %s (%s)", pscr_status_string(st),
                pscr_last_error());

  double bc = tu_backward_error(o.dtype, ndim, o.pencils, op_shift(&o), uc, f);
  double bg = tu_backward_error(o.dtype, ndim, o.pencils, op_shift(&o), ug, f);
  double bound = single ? BERR_SINGLE : o.dtype == PSCR_C64 ? BERR_COMPLEX : BERR_REAL;
  double rel = tu_diff_inf(o.dtype, N, ug, uc) / tu_norm_inf(o.dtype, N, uc);
  printf("%-15s %s %dD n=%4d %4d %4d rows %3d  berr cpu %.2e cuda %.2e (x%.1f)  rel diff %.2e\n",
         kind_name[k], single ? "f32" : "f64", ndim, n[0], n[1], ndim == 3 ? n[2] : 1, rows, bc,
         bg, bg / bc, rel);
  ck_assert_msg(bg <= bound, "%s %dD n=%d,%d,%d: cuda backward error %.3e > %.0e", kind_name[k],
                ndim, n[0], n[1], ndim == 3 ? n[2] : 1, bg, bound);
  if (ratio10)
    ck_assert_msg(bg <= 10 * bc + (single ? FLT_EPSILON : 1e-15),
                  "%s: cuda backward error %.3e > 10x cpu %.3e", kind_name[k], bg, bc);
  if (!single)
    ck_assert_msg(rel <= REL_DIFF, "%s %dD n=%d,%d,%d: cuda differs from cpu by %.3e",
                  kind_name[k], ndim, n[0], n[1], ndim == 3 ? n[2] : 1, rel);
  check_level3_info(&info, n[ndim - 1], rows);
  check_profile(gpu, &o, f, ug, N * es);

  free(f);
  free(uc);
  free(ug);
  pscr_plan_destroy(cpu);
  pscr_plan_destroy(gpu);
  op_free(&o);
}

static void check_gpu_scaled(kind k, int ndim, const int *n, uint64_t seed, const double *scale)
{
  check_gpu_full(k, ndim, n, seed, scale, 0, 1, 0);
}

static void check_gpu(kind k, int ndim, const int *n, uint64_t seed)
{
  check_gpu_full(k, ndim, n, seed, NULL, 0, 1, 0);
}

/* Every level-3 solver choice (0: automatic; -1: serial Thomas; 2..16 rows
   per thread of the partitioned solver) on every pencil kind, with last
   dimensions that leave partial chunks, one chunk, and P from 1 to 512
   threads per system. The absolute backward error bounds hold for all; the
   10x-the-CPU target is not asserted here: with 1000-row subproblems the
   partitioned solver (PCR over 64 to 512 chunk boundaries) measured
   2.4e-14 against the CPU's 1.1e-16 on a Helmholtz pencil (H100), within
   the bound but 232x. gpu_2d/gpu_3d and the paper problems (pscr-bench)
   carry the 10x target. */
static const int level3_rows[] = {0, -1, 2, 4, 8, 16};
#define N_ROWS ((int)(sizeof level3_rows / sizeof level3_rows[0]))
static const int level3_sizes[][3] = {
    {2, 1, 0}, {7, 3, 0}, {13, 17, 0}, {40, 257, 0}, {9, 1000, 0}, {5, 8, 9}, {6, 11, 65},
};
#define N_L3_SIZES ((int)(sizeof level3_sizes / sizeof level3_sizes[0]))

/* _i < N_L3: double; the next N_L3 the same cases in single precision (the
   partitioned solver's PCR in float included). */
#define N_L3 (N_ROWS * NKINDS * N_L3_SIZES)
START_TEST(level3_variants)
{
  const int single = _i >= N_L3, c = _i % N_L3;
  const int rows = level3_rows[c % N_ROWS], rest = c / N_ROWS;
  const kind k = (kind)(rest % NKINDS);
  const int *sz = level3_sizes[rest / NKINDS];
  const int ndim = sz[2] ? 3 : 2;
  int n[3];
  for (int d = 0; d < ndim; d++)
    n[d] = k == HELMHOLTZ && sz[d] < 2 ? 2 : sz[d];
  check_gpu_full(k, ndim, n, (single ? 9500u : 9000u) + (uint64_t)c, NULL, rows, 0, single);
}
END_TEST

/* A partition pivot that fails where plain Thomas does not: n1 = 1 (lambda = 1,
   c = 0, s = 1), A2 + M2 = tridiag(1; 3, 3, 0, 3; 1) is regular (Thomas
   pivots 3, 8/3, -3/8, 17/3), but with 2 rows per thread the second chunk
   starts at the zero diagonal. The plan's probe solve (probe_pivots) finds
   that and takes plain Thomas, which pscr_info reports, for every solve:
   pscr_solve and pscr_solve_device both return the solution. */
START_TEST(partition_pivot_fallback)
{
  double a1 = 1.0, m1 = 1.0, c = 0.0;
  double a2d[4] = {2.0, 2.0, -1.0, 2.0}, a2o[3] = {1.0, 1.0, 1.0};
  double m2d[4] = {1.0, 1.0, 1.0, 1.0}, m2o[3] = {0.0, 0.0, 0.0};
  pscr_pencil p[2] = {{1, &a1, NULL, &m1, NULL}, {4, a2d, a2o, m2d, m2o}};
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CUDA;
  opts.cuda_rows_per_thread = 2;
  pscr_plan *plan;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, p, &c, &opts), PSCR_SUCCESS);
  pscr_info info;
  ck_assert_int_eq(pscr_plan_info(plan, &info), PSCR_SUCCESS);
  ck_assert_int_eq(info.level3_rows_per_thread, 0);
  ck_assert_int_eq(info.level3_threads_per_system, 1);
  /* u = (1, 2, 3, 4): f = T u = (3+2, 1+6+3, 2+0+4, 3+12). */
  double f[4] = {5.0, 10.0, 6.0, 15.0}, u[4] = {0};
  pscr_status st = pscr_solve(plan, f, u);
  ck_assert_msg(st == PSCR_SUCCESS, "got %s (%s)", pscr_status_string(st), pscr_last_error());
  for (int i = 0; i < 4; i++)
    ck_assert_msg(fabs(u[i] - (i + 1)) <= 1e-14 * 4, "u[%d] = %.17g", i, u[i]);
  void *df = NULL, *du = NULL;
  ck_assert_int_eq(cudaMalloc(&df, sizeof f), cudaSuccess);
  ck_assert_int_eq(cudaMalloc(&du, sizeof f), cudaSuccess);
  ck_assert_int_eq(cudaMemcpy(df, f, sizeof f, cudaMemcpyHostToDevice), cudaSuccess);
  ck_assert_int_eq(pscr_solve_device(plan, df, du, NULL), PSCR_SUCCESS);
  ck_assert_int_eq(cudaMemcpy(u, du, sizeof u, cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i = 0; i < 4; i++)
    ck_assert_msg(fabs(u[i] - (i + 1)) <= 1e-14 * 4, "device u[%d] = %.17g", i, u[i]);
  cudaFree(df);
  cudaFree(du);
  pscr_plan_destroy(plan);
  /* Four rows per thread: one chunk, no failing pivot, the device path solves. */
  opts.cuda_rows_per_thread = 4;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, p, &c, &opts), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_solve(plan, f, u), PSCR_SUCCESS);
  for (int i = 0; i < 4; i++)
    ck_assert_msg(fabs(u[i] - (i + 1)) <= 1e-14 * 4, "u[%d] = %.17g", i, u[i]);
  pscr_plan_destroy(plan);
  /* An unsupported value is rejected at plan time. */
  opts.cuda_rows_per_thread = 3;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, p, &c, &opts), PSCR_ERROR_INVALID_VALUE);
  ck_assert_ptr_null(plan);
}
END_TEST

/* Factors scaled by 1e-150 .. 1e+150: the plan balances them, and the
   kernels' complex reciprocal must not overflow. */
START_TEST(gpu_badly_scaled)
{
  static const double scale[][2] = {{1e-150, 1e150}, {1e150, 1e-150}, {1e100, 1e100}};
  int n[3] = {33, 17, 9};
  check_gpu_scaled(_i % 2 ? RANDOM_COMPLEX : RANDOM_SPD, 3, n, 7000u + (uint64_t)_i,
                   scale[_i / 2]);
}
END_TEST

static const int sizes_2d[][2] = {
    {1, 1},   {2, 5},   {3, 4},   {4, 3},    {5, 6},    {15, 9},   {16, 8},   {17, 11},
    {63, 5},  {64, 12}, {65, 10}, {255, 4},  {256, 3},  {257, 6},  {1000, 17}, {1, 7},
    {70, 70}, {33, 40}, {200, 150},
};
#define N_SIZES_2D ((int)(sizeof sizes_2d / sizeof sizes_2d[0]))

static const int sizes_3d[][3] = {
    {1, 1, 1}, {2, 3, 4}, {4, 4, 4}, {5, 6, 7}, {17, 3, 5}, {3, 17, 4}, {31, 31, 31}, {64, 6, 5},
};
#define N_SIZES_3D ((int)(sizeof sizes_3d / sizeof sizes_3d[0]))

/* _i runs over sizes x kinds. */
START_TEST(gpu_2d)
{
  kind k = (kind)(_i % NKINDS);
  int i = _i / NKINDS, n[2] = {sizes_2d[i][0], sizes_2d[i][1]};
  if (k == HELMHOLTZ) { /* ABC factors need two nodes per dimension */
    n[0] = n[0] < 2 ? 2 : n[0];
    n[1] = n[1] < 2 ? 2 : n[1];
  }
  check_gpu(k, 2, n, 5000u + (uint64_t)_i);
}
END_TEST

START_TEST(gpu_3d)
{
  kind k = (kind)(_i % NKINDS);
  int i = _i / NKINDS, n[3];
  for (int d = 0; d < 3; d++)
    n[d] = (k == HELMHOLTZ && sizes_3d[i][d] < 2) ? 2 : sizes_3d[i][d];
  check_gpu(k, 3, n, 6000u + (uint64_t)_i);
}
END_TEST

/* Single precision on the 2D and 3D sizes and kinds, large ones included,
   within the float bound. The 10x-the-CPU ratio is not asserted: the
   partitioned solver's PCR in float measured up to 112x the CPU float
   backward error (5.8e-6 against 5.1e-8, Poisson 9 x 1000, 2 rows per
   thread; H100), within the bound. */
static const int single_sizes[][3] = {
    {1, 1, 0},    {5, 6, 0},    {17, 11, 0}, {257, 6, 0}, {1000, 17, 0}, {200, 150, 0},
    {1023, 1023, 0}, {4095, 64, 0}, {2, 3, 4}, {17, 3, 5}, {31, 31, 31}, {63, 64, 65},
};
#define N_SINGLE ((int)(sizeof single_sizes / sizeof single_sizes[0]))

START_TEST(gpu_single)
{
  const kind k = (kind)(_i % NKINDS);
  const int *sz = single_sizes[_i / NKINDS], ndim = sz[2] ? 3 : 2;
  int n[3];
  for (int d = 0; d < ndim; d++)
    n[d] = k == HELMHOLTZ && sz[d] < 2 ? 2 : sz[d];
  check_gpu_full(k, ndim, n, 9800u + (uint64_t)_i, NULL, 0, 0, 1);
}
END_TEST

/* -------------------------------- device arrays, streams and in place */
START_TEST(device_arrays)
{
  /* _i: 0 real 2D, 1 complex 2D, 2 real 3D, 3 complex 3D. */
  static const int n2[2] = {37, 21}, n3[3] = {9, 10, 11};
  kind k = (_i & 1) ? RANDOM_COMPLEX : RANDOM_SPD;
  int ndim = _i < 2 ? 2 : 3;
  op o;
  make_op(&o, k, ndim, ndim == 2 ? n2 : n3, 77u + (uint64_t)_i);
  size_t N = tu_size(ndim, o.pencils), es = tu_dtype_size(o.dtype), bytes = N * es;
  pscr_plan *gpu = make_plan(&o, PSCR_BACKEND_CUDA);
  void *f = random_vector(&o, 99u + (uint64_t)_i), *u = malloc(bytes), *ud = malloc(bytes);
  ck_assert_int_eq(pscr_solve(gpu, f, u), PSCR_SUCCESS);

  void *df = NULL, *du = NULL;
  ck_assert_int_eq(cudaMalloc(&df, bytes), cudaSuccess);
  ck_assert_int_eq(cudaMalloc(&du, bytes), cudaSuccess);
  ck_assert_int_eq(cudaMemcpy(df, f, bytes, cudaMemcpyHostToDevice), cudaSuccess);
  /* Default stream, out of place: f untouched, u equal to pscr_solve's. */
  ck_assert_int_eq(pscr_solve_device(gpu, df, du, NULL), PSCR_SUCCESS);
  ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
  ck_assert_int_eq(cudaMemcpy(ud, du, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  ck_assert_msg(tu_diff_inf(o.dtype, N, ud, u) == 0.0, "device solve differs from host solve");
  ck_assert_int_eq(cudaMemcpy(ud, df, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  ck_assert_msg(memcmp(ud, f, bytes) == 0, "pscr_solve_device changed f");
  /* A user stream, in place. */
  cudaStream_t stream;
  ck_assert_int_eq(cudaStreamCreate(&stream), cudaSuccess);
  ck_assert_int_eq(pscr_solve_device(gpu, df, df, stream), PSCR_SUCCESS);
  ck_assert_int_eq(cudaStreamSynchronize(stream), cudaSuccess);
  ck_assert_int_eq(cudaMemcpy(ud, df, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  ck_assert_msg(tu_diff_inf(o.dtype, N, ud, u) == 0.0, "in-place device solve differs");
  ck_assert_int_eq(cudaStreamDestroy(stream), cudaSuccess);
  /* Host, in place. */
  ck_assert_int_eq(pscr_solve(gpu, f, f), PSCR_SUCCESS);
  ck_assert_msg(tu_diff_inf(o.dtype, N, f, u) == 0.0, "in-place host solve differs");

  cudaFree(df);
  cudaFree(du);
  free(f);
  free(u);
  free(ud);
  pscr_plan_destroy(gpu);
  op_free(&o);
}
END_TEST

/* ------------------------- determinism, graph capture, errors mid-solve */
/* _i: 0 real 2D, 1 complex 2D, 2 real 3D. */
/* i = 0..2: real 2D, complex 2D, real 3D; i = 3..5: the same in single
   precision. */
static void make_case(op *o, int i, uint64_t seed)
{
  static const int n2r[2] = {200, 150}, n2c[2] = {129, 70}, n3[3] = {31, 20, 17};
  const int c = i % 3;
  make_op(o, c == 1 ? RANDOM_COMPLEX : RANDOM_SPD, c == 2 ? 3 : 2,
          c == 0 ? n2r : c == 1 ? n2c : n3, seed);
  if (i >= 3)
    op_to_single(o);
}

static double case_bound(const op *o)
{
  return op_single(o) ? BERR_SINGLE : o->dtype == PSCR_C64 ? BERR_COMPLEX : BERR_REAL;
}

/* pscr_solve_device into du (first poisoned with NaN bytes), then host. */
static void device_solve(pscr_plan *plan, const void *df, void *du, void *host, size_t bytes,
                         cudaStream_t stream)
{
  ck_assert_int_eq(cudaMemsetAsync(du, 0xff, bytes, stream), cudaSuccess);
  pscr_status st = pscr_solve_device(plan, df, du, stream);
  ck_assert_msg(st == PSCR_SUCCESS, "device solve: %s (%s)", pscr_status_string(st),
                pscr_last_error());
  ck_assert_int_eq(cudaStreamSynchronize(stream), cudaSuccess);
  ck_assert_int_eq(cudaMemcpy(host, du, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
}

/* The end of an A/B test: both plans, the right-hand side, both
   solutions, the operator. */
static void free_ab(pscr_plan *a, pscr_plan *b, void *f, void *ua, void *ub, op *o)
{
  pscr_plan_destroy(a);
  pscr_plan_destroy(b);
  free(f);
  free(ua);
  free(ub);
  op_free(o);
}

static const char *const dtype_names[] = {"R64", "C64", "R32", "C32"};

/* The check of an A/B test: ua and ub solve f by plans that differ only in
   how they group or order operations, so they agree to rounding (REL_DIFF;
   float 1e3 eps_f) and both meet the case's backward error bound. The
   relative difference and the backward errors go to rel, ba, bb for the
   caller's report. */
static void check_agree(const op *o, const void *f, const void *ua, const void *ub,
                        const char *what, int c, double *rel, double *ba, double *bb)
{
  const size_t N = tu_size(o->ndim, o->pencils);
  const int single = o->dtype == PSCR_R32 || o->dtype == PSCR_C32;
  *rel = tu_diff_inf(o->dtype, N, ua, ub) / tu_norm_inf(o->dtype, N, ua);
  *ba = tu_backward_error(o->dtype, o->ndim, o->pencils, op_shift(o), ua, f);
  *bb = tu_backward_error(o->dtype, o->ndim, o->pencils, op_shift(o), ub, f);
  ck_assert_msg(*rel <= (single ? 1e3 * FLT_EPSILON : REL_DIFF),
                "%s case %d (%s): the two solutions differ by %.3e (relative)", what, c,
                dtype_names[o->dtype], *rel);
  ck_assert_msg(*ba <= case_bound(o) && *bb <= case_bound(o),
                "%s case %d: backward errors %.3e and %.3e", what, c, *ba, *bb);
}

/* k_part's paired mode (two systems per slot and pass, their right-hand
   sides formed from one read of the shared sources) against the unpaired
   one: PSCR_FLAG_CUDA_PAIR_ALWAYS against _NEVER (the automatic rule pairs only large
   launches). Real types, R64 and R32, 2D and 3D, every rows-per-thread
   choice; odd system counts leave a slot's second system past the end, and
   eigenvalue-block boundaries split pairs. The right-hand sides are formed
   by the same operations; the two kernels are separate instantiations whose
   multiply-add contractions may differ, so the solutions agree to REL_DIFF
   (relative, max norm) rather than bitwise, and both meet the bound. */
static const int pair_sizes[][3] = {{7, 3, 0}, {40, 257, 0}, {9, 1000, 0}, {200, 150, 0},
                                    {5, 8, 9}, {6, 11, 65}};
#define N_PAIR_SIZES ((int)(sizeof pair_sizes / sizeof pair_sizes[0]))
static const int pair_rows[] = {0, 2, 4, 8, 16};
#define N_PAIR_ROWS ((int)(sizeof pair_rows / sizeof pair_rows[0]))

static pscr_plan *make_batch_plan(const op *o, int max_batch, int rows);

/* A batch of 3 random right-hand sides (seeds seed, seed + 1, seed + 2)
   solved by `plan` (max_batch >= 3) gives bitwise its single solves. */
static void check_batch3(pscr_plan *plan, const op *o, uint64_t seed, const char *what, int c)
{
  const size_t N = tu_size(o->ndim, o->pencils), bytes = N * tu_dtype_size(o->dtype);
  char *fb = malloc(3 * bytes), *ub = malloc(3 * bytes), *us = malloc(bytes);
  ck_assert(fb && ub && us);
  for (int r = 0; r < 3; r++) {
    void *fr = random_vector(o, seed + (uint64_t)r);
    memcpy(fb + (size_t)r * bytes, fr, bytes);
    free(fr);
  }
  ck_assert_int_eq(pscr_solve_batch(plan, 3, fb, N, ub, N), PSCR_SUCCESS);
  for (int r = 0; r < 3; r++) {
    ck_assert_int_eq(pscr_solve(plan, fb + (size_t)r * bytes, us), PSCR_SUCCESS);
    ck_assert_msg(memcmp(us, ub + (size_t)r * bytes, bytes) == 0,
                  "case %d: %s batch right-hand side %d differs from its single solve", c, what,
                  r);
  }
  free(fb);
  free(ub);
  free(us);
}

/* k_part's Toeplitz factors (twelve scalars instead of the factor table,
   for A_n, M_n Toeplitz but for their end rows) against the table:
   by default against PSCR_FLAG_CUDA_NO_TOEPLITZ, on the model problems of
   pscr_problem_create, each dtype, 2D and 3D, unpaired and (real) paired.
   The arithmetic per row is the table's (a + s m, identity rows past n_l),
   so the solutions must be bitwise equal. Uniform Poisson rows are all
   alike, so cases with op_vary_ends (distinct first and last rows, a
   tridiagonal M) check that each row class lands on its rows and that the
   m_off term is used. pscr_info says which path a plan
   took: a real plan on a uniform mesh whose table is not staged takes it
   (last dimensions 600..2100 with 8 or 16 rows per thread); complex plans
   (Helmholtz), a graded mesh and a short last dimension (staged table, 2
   rows per thread) do not. */
typedef struct toep_case {
  pscr_problem_kind k;
  int ndim, n[3], single;
  double grading;
  int vary;   /* op_vary_ends on the last dimension: distinct end rows, tridiagonal M */
  int expect; /* pscr_info.level3_toeplitz of the default plan */
} toep_case;
static const toep_case toep_cases[] = {
    {PSCR_PROBLEM_POISSON, 2, {5, 700, 1}, 0, 0.0, 0, 1},
    {PSCR_PROBLEM_POISSON, 2, {9, 2100, 1}, 0, 0.0, 0, 1},
    {PSCR_PROBLEM_POISSON, 2, {6, 1100, 1}, 1, 0.0, 0, 1},
    {PSCR_PROBLEM_POISSON, 2, {5, 1024, 1}, 0, 0.0, 0, 1},
    {PSCR_PROBLEM_POISSON, 3, {4, 5, 600}, 0, 0.0, 0, 1},
    {PSCR_PROBLEM_POISSON, 3, {3, 4, 1030}, 1, 0.0, 0, 1},
    {PSCR_PROBLEM_POISSON, 2, {5, 700, 1}, 0, 0.0, 1, 1},
    {PSCR_PROBLEM_POISSON, 2, {6, 1100, 1}, 1, 0.0, 1, 1},
    {PSCR_PROBLEM_POISSON, 2, {5, 1024, 1}, 0, 0.0, 1, 1},
    {PSCR_PROBLEM_POISSON, 3, {4, 5, 600}, 0, 0.0, 1, 1},
    {PSCR_PROBLEM_HELMHOLTZ, 2, {7, 600, 1}, 0, 0.0, 0, 0},
    {PSCR_PROBLEM_HELMHOLTZ, 2, {5, 700, 1}, 1, 0.0, 0, 0},
    {PSCR_PROBLEM_POISSON, 2, {5, 700, 1}, 0, 0.3, 0, 0},
    {PSCR_PROBLEM_POISSON, 2, {5, 100, 1}, 0, 0.0, 0, 0},
};
#define N_TOEP ((int)(sizeof toep_cases / sizeof toep_cases[0]))

/* A CUDA plan of o made with `flags` added to plan_flags, and its pscr_info. */
static pscr_plan *plan_with_flags(const op *o, unsigned flags, pscr_info *info)
{
  const unsigned saved = plan_flags;
  plan_flags |= flags;
  pscr_plan *plan = make_plan(o, PSCR_BACKEND_CUDA);
  plan_flags = saved;
  ck_assert_int_eq(pscr_plan_info(plan, info), PSCR_SUCCESS);
  return plan;
}


START_TEST(toeplitz_against_table)
{
  const toep_case *tc = &toep_cases[_i / 2];
  const int paired = _i % 2;
  op o;
  make_op_model(&o, tc->k, tc->ndim, tc->n, tc->grading);
  if (tc->vary)
    op_vary_ends(&o, tc->ndim - 1);
  if (tc->single)
    op_to_single(&o);
  const int real = o.dtype == PSCR_R64 || o.dtype == PSCR_R32;
  if (paired && !real) { /* complex plans never pair */
    op_free(&o);
    return;
  }
  /* Both without the pivot table, which changes the rounding (its own test below). */
  plan_flags = PSCR_FLAG_CUDA_NO_PIVOT_TABLE | (paired ? PSCR_FLAG_CUDA_PAIR_ALWAYS : 0);
  pscr_info it, i0;
  pscr_plan *pt = plan_with_flags(&o, 0, &it);
  pscr_plan *p0 = plan_with_flags(&o, PSCR_FLAG_CUDA_NO_TOEPLITZ, &i0);
  plan_flags = 0;
  ck_assert_int_eq(it.level3_pivot_table, 0);
  ck_assert_msg(it.level3_toeplitz == tc->expect, "case %d: level3_toeplitz %d, expected %d",
                _i, it.level3_toeplitz, tc->expect);
  ck_assert_int_eq(i0.level3_toeplitz, 0);
  ck_assert_int_eq(it.level3_rows_per_thread, i0.level3_rows_per_thread);

  const size_t N = tu_size(o.ndim, o.pencils), bytes = N * tu_dtype_size(o.dtype);
  void *f = random_vector(&o, 9800u + (uint64_t)_i);
  void *ut = malloc(bytes), *u0 = malloc(bytes);
  ck_assert(ut && u0);
  ck_assert_int_eq(pscr_solve(pt, f, ut), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_solve(p0, f, u0), PSCR_SUCCESS);
  const double berr = tu_backward_error(o.dtype, o.ndim, o.pencils, op_shift(&o), ut, f);
  printf("toeplitz case %d (%dD n_last %d %s%s%s): toeplitz %d, rows %d, backward error %.2e, "
         "bitwise %s\n",
         _i, o.ndim, o.pencils[o.ndim - 1].n, dtype_names[o.dtype], paired ? " paired" : "",
         tc->vary ? " varied ends" : "",
         it.level3_toeplitz, it.level3_rows_per_thread, berr,
         memcmp(ut, u0, bytes) == 0 ? "equal" : "DIFFERENT");
  ck_assert_msg(memcmp(ut, u0, bytes) == 0, "case %d: Toeplitz factors change the solution", _i);
  ck_assert_msg(berr <= case_bound(&o), "case %d: backward error %.3e", _i, berr);
  free_ab(pt, p0, f, ut, u0, &o);
}
END_TEST

/* k_part's pivot table (the chunks' elimination per eigenvalue, built at
   plan time for 2D Toeplitz plans) against the kernel's own elimination:
   by default against PSCR_FLAG_CUDA_NO_PIVOT_TABLE, R64 and R32, 8 and 16 rows per
   thread, fused sums and not, uniform Poisson and (vary) distinct end rows
   with a tridiagonal M. The last dimensions (past 1024, so that no factor
   table is staged and float plans take the Toeplitz path too) give chunk
   layouts with many padding chunks (1025, 1100), none (2048), and a last
   chunk that ends in padding rows (2047, 1500). The pivots are formed in
   double and the forward sweep as r iv - m y, so the solutions agree to
   rounding, not bitwise: double within REL_DIFF; float plans differ by
   their condition times float roundoff (up to 1.1e-2 here), so there the
   table's backward error must instead stay within 1.5 times the kernel's
   own (its pivots are double's: H100, 4095^2 Poisson 5.5e-6 -> 6.4e-7).
   Both meet the bound, and a batch of 3 gives bitwise its single solves.
   Plans the table does not serve (complex, graded mesh, 3D, rows < 8)
   report level3_pivot_table 0 (pivot_table_not_used). */
static const int pivtab_sizes[][3] = {{5, 1100, 0}, {9, 2048, 0}, {6, 1025, 1},
                                      {7, 2047, 0}, {5, 1500, 1}};
#define N_PIVTAB_SIZES ((int)(sizeof pivtab_sizes / sizeof pivtab_sizes[0]))

START_TEST(pivot_table_against_none)
{
  const int rows = _i % 2 ? 16 : 8, fused = (_i / 2) % 2, single = (_i / 4) % 2;
  const int *sz = pivtab_sizes[_i / 8];
  const int n[3] = {sz[0], sz[1], 1};
  op o;
  make_op_model(&o, PSCR_PROBLEM_POISSON, 2, n, 0.0);
  if (sz[2])
    op_vary_ends(&o, 1);
  if (single)
    op_to_single(&o);
  const size_t N = tu_size(o.ndim, o.pencils), bytes = N * tu_dtype_size(o.dtype);
  plan_flags = fused ? PSCR_FLAG_CUDA_FUSE_ALL : PSCR_FLAG_CUDA_FUSE_NEVER;
  pscr_plan *pt = make_batch_plan(&o, 3, rows);
  plan_flags |= PSCR_FLAG_CUDA_NO_PIVOT_TABLE;
  pscr_plan *p0 = make_batch_plan(&o, 3, rows);
  plan_flags = 0;
  pscr_info it, i0;
  ck_assert_int_eq(pscr_plan_info(pt, &it), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_plan_info(p0, &i0), PSCR_SUCCESS);
  ck_assert_int_eq(it.level3_rows_per_thread, rows);
  ck_assert_int_eq(it.level3_toeplitz, 1);
  ck_assert_msg(it.level3_pivot_table == 1, "case %d: no pivot table", _i);
  ck_assert_int_eq(i0.level3_pivot_table, 0);
  ck_assert_int_eq(it.level3_fused_levels, i0.level3_fused_levels);
  ck_assert_int_eq(it.level3_fused_back, i0.level3_fused_back);
  ck_assert(it.device_bytes > i0.device_bytes);

  void *f = random_vector(&o, 9700u + (uint64_t)_i);
  void *ut = malloc(bytes), *u0 = malloc(bytes);
  ck_assert(ut && u0);
  ck_assert_int_eq(pscr_solve(pt, f, ut), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_solve(p0, f, u0), PSCR_SUCCESS);
  const double rel = tu_diff_inf(o.dtype, N, u0, ut) / tu_norm_inf(o.dtype, N, u0);
  const double bt = tu_backward_error(o.dtype, o.ndim, o.pencils, op_shift(&o), ut, f);
  const double b0 = tu_backward_error(o.dtype, o.ndim, o.pencils, op_shift(&o), u0, f);
  printf("pivot table case %d (%d x %d %s%s rows %d, %d fused levels): relative difference "
         "%.2e, backward errors %.2e table, %.2e none\n",
         _i, n[0], n[1], dtype_names[o.dtype], sz[2] ? " varied ends" : "", rows,
         it.level3_fused_levels, rel, bt, b0);
  if (single)
    ck_assert_msg(bt <= 1.5 * b0, "case %d: backward error %.3e with the table, %.3e without",
                  _i, bt, b0);
  else
    ck_assert_msg(rel <= REL_DIFF, "case %d: the table changes the solution by %.3e (relative)",
                  _i, rel);
  ck_assert_msg(bt <= case_bound(&o), "case %d: backward error %.3e", _i, bt);
  ck_assert_msg(b0 <= case_bound(&o), "case %d: backward error %.3e", _i, b0);
  check_batch3(pt, &o, 9710u + 3u * (uint64_t)_i, "pivot table", _i);
  free_ab(pt, p0, f, ut, u0, &o);
}
END_TEST

/* Plans the pivot table does not serve. */
START_TEST(pivot_table_not_used)
{
  static const struct {
    pscr_problem_kind k;
    int ndim, n[3], rows;
    double grading;
  } cases[] = {{PSCR_PROBLEM_HELMHOLTZ, 2, {7, 600, 1}, 8, 0.0},
               {PSCR_PROBLEM_POISSON, 2, {5, 700, 1}, 8, 0.3},
               {PSCR_PROBLEM_POISSON, 3, {4, 5, 600}, 8, 0.0},
               {PSCR_PROBLEM_POISSON, 2, {5, 700, 1}, 4, 0.0}};
  op o;
  make_op_model(&o, cases[_i].k, cases[_i].ndim, cases[_i].n, cases[_i].grading);
  pscr_plan *plan = make_plan_rows(&o, PSCR_BACKEND_CUDA, cases[_i].rows);
  pscr_info info;
  ck_assert_int_eq(pscr_plan_info(plan, &info), PSCR_SUCCESS);
  ck_assert_int_eq(info.level3_rows_per_thread, cases[_i].rows);
  ck_assert_msg(info.level3_pivot_table == 0, "case %d: pivot table used", _i);
  pscr_plan_destroy(plan);
  op_free(&o);
}
END_TEST

/* paired: PSCR_FLAG_CUDA_PAIR_ALWAYS, else _NEVER. */
static void *solve_paired(const op *o, int rows, int paired, const void *f, size_t bytes)
{
  plan_flags = paired ? PSCR_FLAG_CUDA_PAIR_ALWAYS : PSCR_FLAG_CUDA_PAIR_NEVER;
  pscr_plan *plan = make_plan_rows(o, PSCR_BACKEND_CUDA, rows);
  plan_flags = 0;
  void *u = malloc(bytes);
  ck_assert_ptr_nonnull(u);
  pscr_status st = pscr_solve(plan, f, u);
  ck_assert_msg(st == PSCR_SUCCESS, "pair %d: %s (%s)", paired, pscr_status_string(st),
                pscr_last_error());
  pscr_plan_destroy(plan);
  return u;
}

START_TEST(paired_against_unpaired)
{
  const int rows = pair_rows[_i % N_PAIR_ROWS], rest = _i / N_PAIR_ROWS;
  const int single = rest % 2, kd = (rest / 2) % 2, *sz = pair_sizes[rest / 4];
  const int ndim = sz[2] ? 3 : 2;
  op o;
  make_op(&o, kd ? POISSON : RANDOM_SPD, ndim, sz, 9700u + (uint64_t)_i);
  if (single)
    op_to_single(&o);
  const size_t bytes = tu_size(o.ndim, o.pencils) * tu_dtype_size(o.dtype);
  void *f = random_vector(&o, 9750u + (uint64_t)_i);
  void *u0 = solve_paired(&o, rows, 0, f, bytes), *u1 = solve_paired(&o, rows, 1, f, bytes);
  double rel, b0, b1;
  check_agree(&o, f, u0, u1, "paired", _i, &rel, &b0, &b1);
  if (_i % 17 == 0)
    printf("paired case %d (%dD %s %s rows %d): relative difference %.2e, backward errors "
           "%.2e unpaired, %.2e paired\n",
           _i, ndim, kind_name[kd ? POISSON : RANDOM_SPD], single ? "R32" : "R64", rows, rel, b0,
           b1);

  /* Paired, a batch of 3 gives bitwise its single solves (pairs are formed
     within each right-hand side, whatever the system count). */
  plan_flags = PSCR_FLAG_CUDA_PAIR_ALWAYS;
  pscr_plan *plan = make_batch_plan(&o, 3, rows);
  plan_flags = 0;
  check_batch3(plan, &o, 9760u + 3u * (uint64_t)_i, "paired", _i);
  pscr_plan_destroy(plan);
  free(f);
  free(u0);
  free(u1);
  op_free(&o);
}
END_TEST

/* A random pencil op of the path comparisons below: RANDOM_COMPLEX or
   RANDOM_SPD, rounded to single precision when `single`. */
static void make_random_op(op *o, int cplx, int single, int ndim, const int *n, uint64_t seed)
{
  make_op(o, cplx ? RANDOM_COMPLEX : RANDOM_SPD, ndim, n, seed);
  if (single)
    op_to_single(o);
}

/* The coupling and gather kernels with COUPLE_PER entries per thread
   against one (PSCR_FLAG_CUDA_COUPLE_MANY against _ONE). The automatic rule
   takes several only on grids of 2 blocks per SM and more (COUPLE_MIN_BLOCKS:
   2D 2047^2, 3D 95^3 and up), larger than this test's sizes, so this is
   where that path is checked.
   Slabs longer than a thread block (2D rows of 300 and 1000 entries; 3D
   dimension-0 slabs of 715 and 800 entries for k_gather) give each thread
   several entries; the entries are formed by the same operations, so the
   solutions agree bitwise. Every dtype; a batch of 3 bitwise equal to its
   single solves. */
static const int couple_sizes[][3] = {{9, 1000, 0}, {40, 300, 0}, {6, 11, 65}, {5, 20, 40}};
#define N_COUPLE_SIZES ((int)(sizeof couple_sizes / sizeof couple_sizes[0]))

/* many: PSCR_FLAG_CUDA_COUPLE_MANY, else _ONE. */
static void *solve_couple_per(const op *o, int many, const void *f, size_t bytes)
{
  plan_flags = many ? PSCR_FLAG_CUDA_COUPLE_MANY : PSCR_FLAG_CUDA_COUPLE_ONE;
  pscr_plan *plan = make_plan(o, PSCR_BACKEND_CUDA);
  plan_flags = 0;
  void *u = malloc(bytes);
  ck_assert_ptr_nonnull(u);
  pscr_status st = pscr_solve(plan, f, u);
  ck_assert_msg(st == PSCR_SUCCESS, "couple many %d: %s (%s)", many, pscr_status_string(st),
                pscr_last_error());
  pscr_plan_destroy(plan);
  return u;
}

START_TEST(couple_per_against_one)
{
  const int dt = _i % 4, *sz = couple_sizes[_i / 4];
  const int ndim = sz[2] ? 3 : 2;
  op o;
  make_random_op(&o, dt >= 2, dt % 2, ndim, sz, 9600u + (uint64_t)_i);
  const size_t bytes = tu_size(o.ndim, o.pencils) * tu_dtype_size(o.dtype);
  void *f = random_vector(&o, 9650u + (uint64_t)_i);
  void *u0 = solve_couple_per(&o, 0, f, bytes), *u1 = solve_couple_per(&o, 1, f, bytes);
  ck_assert_msg(memcmp(u0, u1, bytes) == 0,
                "case %d (%dD %d x %d x %d %s): COUPLE_PER entries per thread differ from one",
                _i, ndim, sz[0], sz[1], sz[2] ? sz[2] : 1, dtype_names[o.dtype]);
  const double b = tu_backward_error(o.dtype, o.ndim, o.pencils, op_shift(&o), u1, f);
  ck_assert_msg(b <= case_bound(&o), "case %d: backward error %.3e", _i, b);

  plan_flags = PSCR_FLAG_CUDA_COUPLE_MANY;
  pscr_plan *plan = make_batch_plan(&o, 3, 0 /* the default rows */);
  plan_flags = 0;
  check_batch3(plan, &o, 9660u + 3u * (uint64_t)_i, "couple per", _i);
  pscr_plan_destroy(plan);
  free(f);
  free(u0);
  free(u1);
  op_free(&o);
}
END_TEST

/* k_part with its factor table staged in shared memory (StagedFacs)
   against the same table read from device memory
   (PSCR_FLAG_CUDA_NO_STAGE). The rows are eliminated by the same operations from the same
   values, so the solutions agree bitwise. Random (not Toeplitz) pencils, so
   that the table is what k_part reads; last dimensions of 65, 100 and 120
   rows, whose tables stage at every rows-per-thread choice and dtype (4 P M
   entries of at most 16 KiB, P <= 256: pscr_info.level3_staged must say
   so, and 0 for the unstaged plan). PSCR_FLAG_CUDA_FUSE_NEVER for both plans: the
   fused kernels size their items by their occupancy, which staging
   changes, and add the sums in that grouping. A batch of 3 of the unstaged
   plan gives bitwise its single solves. */
static const int stage_sizes[][3] = {{40, 120, 0}, {9, 100, 0}, {6, 11, 65}};
#define N_STAGE_SIZES ((int)(sizeof stage_sizes / sizeof stage_sizes[0]))
static const int stage_rows[] = {2, 4, 8, 16};

static pscr_plan *make_stage_plan(const op *o, int rows, int staged, int max_batch)
{
  plan_flags = PSCR_FLAG_CUDA_FUSE_NEVER | (staged ? 0 : PSCR_FLAG_CUDA_NO_STAGE);
  pscr_plan *plan = make_batch_plan(o, max_batch, rows);
  plan_flags = 0;
  return plan;
}

START_TEST(staged_against_unstaged)
{
  const int rows = stage_rows[_i % 4], dt = (_i / 4) % 4, *sz = stage_sizes[_i / 16];
  const int ndim = sz[2] ? 3 : 2;
  op o;
  make_random_op(&o, dt >= 2, dt % 2, ndim, sz, 9800u + (uint64_t)_i);
  const size_t bytes = tu_size(o.ndim, o.pencils) * tu_dtype_size(o.dtype);
  void *f = random_vector(&o, 9850u + (uint64_t)_i);
  void *us = malloc(bytes), *uu = malloc(bytes);
  ck_assert(us && uu);
  pscr_plan *ps = make_stage_plan(&o, rows, 1, 3), *pu = make_stage_plan(&o, rows, 0, 3);
  pscr_info is, iu;
  ck_assert_int_eq(pscr_plan_info(ps, &is), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_plan_info(pu, &iu), PSCR_SUCCESS);
  ck_assert_int_eq(is.level3_rows_per_thread, rows);
  ck_assert_int_eq(iu.level3_rows_per_thread, rows);
  ck_assert_int_eq(is.level3_threads_per_system, iu.level3_threads_per_system);
  ck_assert_msg(4L * is.level3_threads_per_system * rows * (long)tu_dtype_size(o.dtype) <=
                        16384 &&
                    is.level3_threads_per_system <= 256,
                "case %d: P %d, M %d: a table this size does not stage", _i,
                is.level3_threads_per_system, rows);
  ck_assert_msg(is.level3_staged == 1 && iu.level3_staged == 0,
                "case %d: level3_staged %d by default, %d with PSCR_FLAG_CUDA_NO_STAGE", _i,
                is.level3_staged, iu.level3_staged);
  ck_assert_int_eq(pscr_solve(ps, f, us), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_solve(pu, f, uu), PSCR_SUCCESS);
  ck_assert_msg(memcmp(us, uu, bytes) == 0,
                "case %d (%dD %d x %d x %d %s rows %d): staged factors differ from unstaged", _i,
                ndim, sz[0], sz[1], sz[2] ? sz[2] : 1, dtype_names[o.dtype], rows);
  const double b = tu_backward_error(o.dtype, o.ndim, o.pencils, op_shift(&o), us, f);
  ck_assert_msg(b <= case_bound(&o), "case %d: backward error %.3e", _i, b);
  check_batch3(pu, &o, 9860u + 3u * (uint64_t)_i, "unstaged", _i);
  pscr_plan_destroy(ps);
  pscr_plan_destroy(pu);
  free(f);
  free(us);
  free(uu);
  op_free(&o);
}
END_TEST

/* Level 3 with the weighted sums added up in the kernel (gpu/part_sum.cuh)
   against the separate sums pass: PSCR_FLAG_CUDA_FUSE_ALL (every level fused
   whose kernel fits, items of at least 4 eigenpairs) against _NEVER, 2D, each
   dtype and rows-per-thread choice. The test sizes leave blocks of several
   items (k_reduce_sum adds them), items of odd length (the paired kernel
   solves the last system of the longest alone, and a shorter item's slot
   repeats a system and adds it once; real types also paired against
   unpaired) and last dimensions that leave padding rows. The sums are
   added in another grouping, so the solutions agree to rounding, not
   bitwise; both meet the bound. pscr_info must report the
   fused levels, all of them, and whether the back substitution fuses too
   (complex double at 16 rows: its three sums do not fit the shared memory,
   the forward reduction's two do), the profiled solve must make exactly
   the cost model's launches, and a batch of 3 gives bitwise its single
   solves. */
static const int fuse_sizes[][2] = {{7, 3}, {40, 257}, {63, 1000}, {200, 150}, {130, 513}};
#define N_FUSE_SIZES ((int)(sizeof fuse_sizes / sizeof fuse_sizes[0]))
static const int fuse_rows[] = {2, 4, 8, 16};
#define N_FUSE_ROWS ((int)(sizeof fuse_rows / sizeof fuse_rows[0]))

START_TEST(fused_against_unfused)
{
  const int rows = fuse_rows[_i % N_FUSE_ROWS], rest = _i / N_FUSE_ROWS;
  const int cplx = rest % 2, single = (rest / 2) % 2;
  const int *sz = fuse_sizes[rest / 4];
  const int n[3] = {sz[0], sz[1], 1};
  op o;
  make_random_op(&o, cplx, single, 2, n, 9900u + (uint64_t)_i);
  const size_t N = tu_size(o.ndim, o.pencils), bytes = N * tu_dtype_size(o.dtype);
  plan_flags = PSCR_FLAG_CUDA_FUSE_ALL;
  pscr_plan *p1 = make_batch_plan(&o, 3, rows);
  plan_flags = PSCR_FLAG_CUDA_FUSE_NEVER;
  pscr_plan *p0 = make_batch_plan(&o, 3, rows);
  plan_flags = 0;
  pscr_info i1, i0;
  ck_assert_int_eq(pscr_plan_info(p1, &i1), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_plan_info(p0, &i0), PSCR_SUCCESS);
  ck_assert_int_eq(i1.level3_rows_per_thread, rows);
  ck_assert_int_eq(i0.level3_fused_levels, 0);
  ck_assert_int_eq(i0.level3_fused_back, 0);
  const int back_fits = !(o.dtype == PSCR_C64 && rows == 16);
  ck_assert_msg(i1.level3_fused_levels == i1.levels[0] && i1.level3_fused_back == back_fits,
                "case %d (%s rows %d): %d fused levels of %d, back %d", _i, dtype_names[o.dtype],
                rows, i1.level3_fused_levels, i1.levels[0], i1.level3_fused_back);
  /* Without the first pass over the solutions the model counts fewer
     launches and bytes. (Forward only, the back pass keeps its separate
     sums over the shorter fused items, which can cost more than the
     forward pass saves at these sizes: no such claim.) */
  if (back_fits) {
    ck_assert(i1.cost[PSCR_STAGE_SUMS].launches < i0.cost[PSCR_STAGE_SUMS].launches);
    ck_assert(i1.cost_total.bytes < i0.cost_total.bytes);
  }

  void *f = random_vector(&o, 9950u + (uint64_t)_i);
  void *u1 = malloc(bytes), *u0 = malloc(bytes);
  ck_assert(u1 && u0);
  ck_assert_int_eq(pscr_solve(p1, f, u1), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_solve(p0, f, u0), PSCR_SUCCESS);
  double rel, b0, b1;
  check_agree(&o, f, u0, u1, "fused", _i, &rel, &b0, &b1);
  if (_i % 7 == 0)
    printf("fused case %d (%d x %d %s rows %d, %d fused levels): relative difference %.2e, "
           "backward errors %.2e fused, %.2e unfused\n",
           _i, n[0], n[1], dtype_names[o.dtype], rows, i1.level3_fused_levels, rel, b1, b0);
  check_profile(p1, &o, f, u1, bytes);

  /* Real types: the fused kernel paired (PSCR_FLAG_CUDA_PAIR_ALWAYS)
     against unpaired (_NEVER). Level 1's items of three eigenpairs, and odd items
     elsewhere, end in a pass that solves one system alone (part_sum.cuh);
     a dropped or doubled last system would be an O(1) difference. Both
     plans must fuse every forward level (the two-sum kernel fits paired
     for real types), or the comparison would not reach the kernel. */
  if (o.dtype == PSCR_R64 || o.dtype == PSCR_R32) {
    void *up[2];
    for (int m = 0; m < 2; m++) {
      plan_flags = PSCR_FLAG_CUDA_FUSE_ALL |
                   (m ? PSCR_FLAG_CUDA_PAIR_ALWAYS : PSCR_FLAG_CUDA_PAIR_NEVER);
      pscr_plan *pp = make_plan_rows(&o, PSCR_BACKEND_CUDA, rows);
      plan_flags = 0;
      pscr_info ip;
      ck_assert_int_eq(pscr_plan_info(pp, &ip), PSCR_SUCCESS);
      ck_assert_msg(ip.level3_fused_levels == ip.levels[0],
                    "case %d (%s rows %d, pair %d): %d fused levels of %d", _i,
                    dtype_names[o.dtype], rows, m, ip.level3_fused_levels, ip.levels[0]);
      up[m] = malloc(bytes);
      ck_assert_ptr_nonnull(up[m]);
      ck_assert_int_eq(pscr_solve(pp, f, up[m]), PSCR_SUCCESS);
      pscr_plan_destroy(pp);
    }
    double relp, bp0, bp1;
    check_agree(&o, f, up[0], up[1], "fused paired", _i, &relp, &bp0, &bp1);
    free(up[0]);
    free(up[1]);
  }

  check_batch3(p1, &o, 9960u + 3u * (uint64_t)_i, "fused", _i);
  free_ab(p1, p0, f, u1, u0, &o);
}
END_TEST

/* The merged top level of n = 4^j (src/levels.h: one block with four
   coupling rows instead of a level holding the last row alone) against the
   plain level structure (PSCR_FLAG_NO_MERGE_TOP): real and complex, double
   and float, 2D and 3D (a merged first dimension that runs the slab kernels
   and a merged Thomas dimension), the weighted sums fused
   (PSCR_FLAG_CUDA_FUSE_ALL: the back pass of the top level with its four
   sums where that kernel fits, real types) and separate (_NEVER), two rows-per-thread choices. One level
   fewer in each dimension of order 4^j; the solutions agree to rounding
   (other operations), both meet the bound; the profiled solve makes exactly
   the cost model's launches (four-sum back fusion included) and a batch of
   3 gives bitwise its single solves. */
static const int merge_sizes[][3] = {{64, 257, 0}, {256, 100, 0}, {1024, 65, 0}, {16, 64, 33}};
#define N_MERGE_SIZES ((int)(sizeof merge_sizes / sizeof merge_sizes[0]))
static const int merge_rows[] = {4, 16};

static pscr_plan *make_merge_plan(const op *o, int merge, int fuse, int rows)
{
  plan_flags = (merge ? 0 : PSCR_FLAG_NO_MERGE_TOP) |
               (fuse ? PSCR_FLAG_CUDA_FUSE_ALL : PSCR_FLAG_CUDA_FUSE_NEVER);
  pscr_plan *plan = make_batch_plan(o, 3, rows);
  plan_flags = 0;
  return plan;
}

static int is_power_of_4(int n)
{
  while (n > 1 && n % 4 == 0)
    n /= 4;
  return n == 1;
}

START_TEST(merged_top_against_plain)
{
  const int rows = merge_rows[_i % 2], fuse = (_i / 2) % 2, rest = _i / 4;
  const int cplx = rest % 2, single = (rest / 2) % 2, *sz = merge_sizes[rest / 4];
  const int ndim = sz[2] ? 3 : 2;
  op o;
  make_random_op(&o, cplx, single, ndim, sz, 9970u + (uint64_t)_i);
  const size_t N = tu_size(o.ndim, o.pencils), bytes = N * tu_dtype_size(o.dtype);
  pscr_plan *pm = make_merge_plan(&o, 1, fuse, rows), *pp = make_merge_plan(&o, 0, fuse, rows);
  pscr_info im, ip;
  ck_assert_int_eq(pscr_plan_info(pm, &im), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_plan_info(pp, &ip), PSCR_SUCCESS);
  for (int d = 0; d < ndim - 1; d++)
    ck_assert_msg(im.levels[d] == ip.levels[d] - is_power_of_4(sz[d]),
                  "case %d dim %d (n %d): %d levels merged, %d plain", _i, d, sz[d],
                  im.levels[d], ip.levels[d]);

  void *f = random_vector(&o, 9980u + (uint64_t)_i);
  void *um = malloc(bytes), *up = malloc(bytes);
  ck_assert(um && up);
  ck_assert_int_eq(pscr_solve(pm, f, um), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_solve(pp, f, up), PSCR_SUCCESS);
  double rel, bp, bm;
  check_agree(&o, f, up, um, "merged", _i, &rel, &bp, &bm);
  if (_i % 5 == 0)
    printf("merged case %d (%d x %d x %d %s rows %d fuse %d, levels %d against %d): relative "
           "difference %.2e, backward errors %.2e merged, %.2e plain\n",
           _i, sz[0], sz[1], ndim == 3 ? sz[2] : 1, dtype_names[o.dtype], rows, fuse,
           im.levels[0], ip.levels[0], rel, bm, bp);
  check_profile(pm, &o, f, um, bytes);
  check_batch3(pm, &o, 9990u + 3u * (uint64_t)_i, "merged", _i);
  free_ab(pm, pp, f, um, up, &o);
}
END_TEST

/* Repeated solves of one input are bitwise identical: 5 pscr_solve and
   5 pscr_solve_device calls (the kernels use no atomics in their arithmetic
   and a fixed launch configuration per plan). */
START_TEST(deterministic)
{
  op o;
  make_case(&o, _i, 9100u + (uint64_t)_i);
  size_t N = tu_size(o.ndim, o.pencils), es = tu_dtype_size(o.dtype), bytes = N * es;
  pscr_plan *gpu = make_plan(&o, PSCR_BACKEND_CUDA);
  void *f = random_vector(&o, 9200u + (uint64_t)_i), *u0 = malloc(bytes), *u = malloc(bytes);
  ck_assert(u0 && u);
  ck_assert_int_eq(pscr_solve(gpu, f, u0), PSCR_SUCCESS);
  for (int r = 1; r < 5; r++) {
    memset(u, 0xff, bytes);
    ck_assert_int_eq(pscr_solve(gpu, f, u), PSCR_SUCCESS);
    ck_assert_msg(memcmp(u, u0, bytes) == 0, "case %d: host solve %d differs from solve 0", _i, r);
  }
  void *df = NULL, *du = NULL;
  ck_assert_int_eq(cudaMalloc(&df, bytes), cudaSuccess);
  ck_assert_int_eq(cudaMalloc(&du, bytes), cudaSuccess);
  ck_assert_int_eq(cudaMemcpy(df, f, bytes, cudaMemcpyHostToDevice), cudaSuccess);
  for (int r = 0; r < 5; r++) {
    device_solve(gpu, df, du, u, bytes, NULL);
    ck_assert_msg(memcmp(u, u0, bytes) == 0, "case %d: device solve %d differs from host solve",
                  _i, r);
  }
  double berr = tu_backward_error(o.dtype, o.ndim, o.pencils, op_shift(&o), u0, f);
  ck_assert_msg(berr <= case_bound(&o), "case %d: backward error %.3e", _i, berr);
  cudaFree(df);
  cudaFree(du);
  free(f);
  free(u0);
  free(u);
  pscr_plan_destroy(gpu);
  op_free(&o);
}
END_TEST

/* Kernels launched early (programmatic dependent launch, gpu/launch.cuh)
   against kernels launched in plain stream order
   (PSCR_FLAG_CUDA_NO_EARLY_LAUNCH): five
   device solves of each give bitwise the same u. Each kernel waits on the
   device for its predecessor, so the numbers cannot change; a kernel that
   read its inputs before that wait would read a previous solve's or
   poisoned values, which differ between solves (du is poisoned before each)
   and from the serial run. Cases: make_case's six (2D real and complex, 3D,
   each precision), then 2D Poisson with every level's weighted sums fused
   into level 3 (PSCR_FLAG_CUDA_FUSE_ALL), double and float. pscr_info says
   whether the plan launches early: where the device is of compute
   capability 9.0 or later and the build has kernels compiled for 9.0 or
   later (PSCR_TEST_EARLY_LAUNCH, tests/CMakeLists.txt). */
START_TEST(early_launch_against_serial)
{
  op o;
  if (_i < 6) {
    make_case(&o, _i, 9150u + (uint64_t)_i);
  } else {
    const int n[3] = {300, 1100, 1};
    make_op_model(&o, PSCR_PROBLEM_POISSON, 2, n, 0.0);
    if (_i == 7)
      op_to_single(&o);
    plan_flags = PSCR_FLAG_CUDA_FUSE_ALL;
  }
  pscr_info i1, i0;
  pscr_plan *p1 = plan_with_flags(&o, 0, &i1);
  pscr_plan *p0 = plan_with_flags(&o, PSCR_FLAG_CUDA_NO_EARLY_LAUNCH, &i0);
  plan_flags = 0;
  if (_i >= 6)
    ck_assert_int_gt(i1.level3_fused_levels, 0);
  int device = 0, major = 0;
  ck_assert_int_eq(cudaGetDevice(&device), cudaSuccess);
  ck_assert_int_eq(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device),
                   cudaSuccess);
  const int expect = major >= 9 && PSCR_TEST_EARLY_LAUNCH;
  ck_assert_int_eq(i0.cuda_early_launch, 0);
  ck_assert_msg(i1.cuda_early_launch == expect, "case %d: cuda_early_launch %d, expected %d", _i,
                i1.cuda_early_launch, expect);

  const size_t N = tu_size(o.ndim, o.pencils), bytes = N * tu_dtype_size(o.dtype);
  void *f = random_vector(&o, 9160u + (uint64_t)_i), *u1 = malloc(bytes), *u0 = malloc(bytes);
  ck_assert(u1 && u0);
  void *df = NULL, *du = NULL;
  ck_assert_int_eq(cudaMalloc(&df, bytes), cudaSuccess);
  ck_assert_int_eq(cudaMalloc(&du, bytes), cudaSuccess);
  ck_assert_int_eq(cudaMemcpy(df, f, bytes, cudaMemcpyHostToDevice), cudaSuccess);
  cudaStream_t stream;
  ck_assert_int_eq(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  device_solve(p0, df, du, u0, bytes, stream);
  for (int r = 0; r < 5; r++) {
    device_solve(p1, df, du, u1, bytes, stream);
    ck_assert_msg(memcmp(u1, u0, bytes) == 0,
                  "case %d, solve %d: early-launch solve differs from the serial one", _i, r);
  }
  const double berr = tu_backward_error(o.dtype, o.ndim, o.pencils, op_shift(&o), u1, f);
  printf("early launch case %d (%s, %dD, early %d): bitwise equal, backward error %.2e\n", _i,
         dtype_names[o.dtype], o.ndim, i1.cuda_early_launch, berr);
  ck_assert_msg(berr <= case_bound(&o), "case %d: backward error %.3e", _i, berr);
  ck_assert_int_eq(cudaStreamDestroy(stream), cudaSuccess);
  cudaFree(df);
  cudaFree(du);
  free_ab(p1, p0, f, u1, u0, &o);
}
END_TEST

/* pscr_solve_device is stream-ordered: it captures into a CUDA graph in
   cudaStreamCaptureModeGlobal, which a host synchronization or a cudaMalloc
   inside the solve would break (cudaErrorStreamCaptureUnsupported, then an
   invalidated capture). The graph, launched three times with new f contents
   copied in between, gives bitwise the results of direct calls. */
START_TEST(graph_capture)
{
  op o;
  make_case(&o, _i, 9300u + (uint64_t)_i);
  size_t N = tu_size(o.ndim, o.pencils), es = tu_dtype_size(o.dtype), bytes = N * es;
  pscr_plan *gpu = make_plan(&o, PSCR_BACKEND_CUDA);
  void *df = NULL, *du = NULL, *dref = NULL;
  ck_assert_int_eq(cudaMalloc(&df, bytes), cudaSuccess);
  ck_assert_int_eq(cudaMalloc(&du, bytes), cudaSuccess);
  ck_assert_int_eq(cudaMalloc(&dref, bytes), cudaSuccess);
  cudaStream_t stream;
  ck_assert_int_eq(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);

  /* No assertion between begin and end: a failed check must not leave the
     stream capturing. */
  cudaGraph_t graph = NULL;
  cudaError_t begin = cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  pscr_status st = PSCR_ERROR_DEVICE;
  char detail[512] = "";
  if (begin == cudaSuccess) {
    st = pscr_solve_device(gpu, df, du, stream);
    snprintf(detail, sizeof detail, "%s", pscr_last_error());
  }
  cudaError_t end = begin == cudaSuccess ? cudaStreamEndCapture(stream, &graph) : begin;
  ck_assert_msg(begin == cudaSuccess, "begin capture: %s", cudaGetErrorString(begin));
  ck_assert_msg(st == PSCR_SUCCESS, "solve during capture: %s (%s)", pscr_status_string(st),
                detail);
  ck_assert_msg(end == cudaSuccess, "end capture: %s", cudaGetErrorString(end));
  ck_assert_ptr_nonnull(graph);
  size_t nodes = 0;
  ck_assert_int_eq(cudaGraphGetNodes(graph, NULL, &nodes), cudaSuccess);
  ck_assert(nodes > 0);
  cudaGraphExec_t exec = NULL;
  ck_assert_int_eq(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);

  void *ug = malloc(bytes), *ud = malloc(bytes), *uc = malloc(bytes);
  ck_assert(ug && ud && uc);
  pscr_plan *cpu = make_plan(&o, PSCR_BACKEND_CPU);
  for (int r = 0; r < 3; r++) {
    void *f = random_vector(&o, 9400u + 10u * (uint64_t)_i + (uint64_t)r);
    ck_assert_int_eq(cudaMemcpyAsync(df, f, bytes, cudaMemcpyHostToDevice, stream), cudaSuccess);
    ck_assert_int_eq(cudaMemsetAsync(du, 0xff, bytes, stream), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(exec, stream), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(stream), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(ug, du, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    device_solve(gpu, df, dref, ud, bytes, stream);
    ck_assert_msg(memcmp(ug, ud, bytes) == 0, "case %d, launch %d: graph differs from direct",
                  _i, r);
    /* And it is the solution, not just the same numbers twice (single
       precision: through the backward error, as gpu_single). */
    ck_assert_int_eq(pscr_solve(cpu, f, uc), PSCR_SUCCESS);
    double rel = tu_diff_inf(o.dtype, N, ug, uc) / tu_norm_inf(o.dtype, N, uc);
    double berr = tu_backward_error(o.dtype, o.ndim, o.pencils, op_shift(&o), ug, f);
    printf("graph capture case %d launch %d: %zu nodes, rel diff to cpu %.2e, berr %.2e\n", _i,
           r, nodes, rel, berr);
    ck_assert_msg(op_single(&o) || rel <= REL_DIFF,
                  "case %d launch %d: graph result differs from cpu by %.3e", _i, r, rel);
    ck_assert_msg(berr <= case_bound(&o), "case %d launch %d: backward error %.3e", _i, r, berr);
    free(f);
  }
  ck_assert_int_eq(cudaGraphExecDestroy(exec), cudaSuccess);
  ck_assert_int_eq(cudaGraphDestroy(graph), cudaSuccess);
  ck_assert_int_eq(cudaStreamDestroy(stream), cudaSuccess);
  cudaFree(df);
  cudaFree(du);
  cudaFree(dref);
  free(ug);
  free(ud);
  free(uc);
  pscr_plan_destroy(cpu);
  pscr_plan_destroy(gpu);
  op_free(&o);
}
END_TEST

/*
 * A CUDA error in the middle of a host-array solve is reported, and the plan
 * stays usable. The error is provoked without touching the library: while a
 * stream of this thread captures in cudaStreamCaptureModeGlobal, the thread
 * may not make "potentially unsafe" calls (CUDA runtime API,
 * cudaThreadExchangeStreamCaptureMode; Programming Guide, "Prohibited and
 * Unhandled Operations"): synchronizing or querying a stream or the device,
 * synchronous and pageable-memory copies, cudaMalloc. pscr_solve copies f in
 * and u out from pageable host memory on its private stream and then
 * cudaStreamSynchronize()s it, so one of these calls fails with
 * cudaErrorStreamCaptureUnsupported (900, or 906 cudaErrorStreamCaptureImplicit
 * on some drivers) and the capture is invalidated (cudaStreamEndCapture then
 * returns cudaErrorStreamCaptureInvalidated and no graph). Seen on the H100
 * (CUDA 13.0, driver 580): the copies and kernels are enqueued, then
 * cudaStreamSynchronize fails with 900, so the error comes mid-solve. Under
 * compute-sanitizer memcheck each case adds three expected API errors (900
 * from cudaStreamSynchronize, 901 from cudaStreamEndCapture and from the
 * cudaGetLastError that clears it).
 *
 * Why the status must be PSCR_ERROR_DEVICE exactly: every CUDA call on the
 * host solve path goes through PSCR_CUDA_GOTO, which maps any cudaError_t to
 * PSCR_ERROR_DEVICE; the only other failure status of that path,
 * PSCR_ERROR_SINGULAR, is that of a plan whose setup probe found a zero
 * pivot, which these regular plans' did not. A PSCR_SUCCESS here would mean the runtime allowed a
 * synchronization during a global-mode capture (the premise is wrong, or the
 * solve did not synchronize and returned before u was written).
 */
START_TEST(error_mid_solve)
{
  int n[2] = {64, 40};
  op o;
  make_op(&o, _i ? RANDOM_COMPLEX : RANDOM_SPD, 2, n, 9500u + (uint64_t)_i);
  size_t N = tu_size(2, o.pencils), es = tu_dtype_size(o.dtype), bytes = N * es;
  pscr_plan *gpu = make_plan(&o, PSCR_BACKEND_CUDA), *cpu = make_plan(&o, PSCR_BACKEND_CPU);
  void *f = random_vector(&o, 9600u + (uint64_t)_i), *f0 = malloc(bytes), *u = malloc(bytes);
  void *u0 = malloc(bytes), *uc = malloc(bytes);
  ck_assert(f0 && u && u0 && uc);
  memcpy(f0, f, bytes);
  ck_assert_int_eq(pscr_solve(cpu, f, uc), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_solve(gpu, f, u0), PSCR_SUCCESS);

  cudaStream_t stream;
  ck_assert_int_eq(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  /* No assertion until the capture has ended. */
  cudaGraph_t graph = NULL;
  cudaError_t begin = cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  pscr_status st = PSCR_SUCCESS;
  char detail[512] = "";
  if (begin == cudaSuccess) {
    st = pscr_solve(gpu, f, u);
    snprintf(detail, sizeof detail, "%s", pscr_last_error());
  }
  cudaError_t end = begin == cudaSuccess ? cudaStreamEndCapture(stream, &graph) : begin;
  if (graph)
    cudaGraphDestroy(graph);
  cudaGetLastError(); /* clear the capture errors (none of them is sticky) */
  /* Work the failed solve did enqueue on the plan's stream finishes here,
     before u is read or reused. */
  cudaError_t sync = cudaDeviceSynchronize();
  cudaGetLastError();
  printf("error mid-solve case %d: %s (%s); end capture: %s\n", _i, pscr_status_string(st),
         detail, cudaGetErrorString(end));
  ck_assert_msg(begin == cudaSuccess, "begin capture: %s", cudaGetErrorString(begin));
  ck_assert_msg(sync == cudaSuccess, "device unusable after the capture: %s",
                cudaGetErrorString(sync));
  ck_assert_msg(st == PSCR_ERROR_DEVICE, "pscr_solve during a global capture returned %s (%s)",
                pscr_status_string(st), detail);
  ck_assert_msg(detail[0] != '\0', "PSCR_ERROR_DEVICE without a detail message");
  ck_assert_msg(memcmp(f, f0, bytes) == 0, "a failed solve changed f");

  /* The same plan solves correctly again: host and device arrays. */
  memset(u, 0xff, bytes);
  st = pscr_solve(gpu, f, u);
  ck_assert_msg(st == PSCR_SUCCESS, "solve after the error: %s (%s)", pscr_status_string(st),
                pscr_last_error());
  ck_assert_msg(memcmp(u, u0, bytes) == 0, "solve after the error differs from the one before");
  double rel = tu_diff_inf(o.dtype, N, u, uc) / tu_norm_inf(o.dtype, N, uc);
  ck_assert_msg(rel <= REL_DIFF, "solve after the error differs from cpu by %.3e", rel);
  void *df = NULL, *du = NULL;
  ck_assert_int_eq(cudaMalloc(&df, bytes), cudaSuccess);
  ck_assert_int_eq(cudaMalloc(&du, bytes), cudaSuccess);
  ck_assert_int_eq(cudaMemcpy(df, f, bytes, cudaMemcpyHostToDevice), cudaSuccess);
  device_solve(gpu, df, du, u, bytes, stream);
  ck_assert_msg(memcmp(u, u0, bytes) == 0, "device solve after the error differs");

  ck_assert_int_eq(cudaStreamDestroy(stream), cudaSuccess);
  cudaFree(df);
  cudaFree(du);
  free(f);
  free(f0);
  free(u);
  free(u0);
  free(uc);
  pscr_plan_destroy(gpu);
  pscr_plan_destroy(cpu);
  op_free(&o);
}
END_TEST

/* ------------------------------------------------------------ batches */
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

static pscr_plan *make_batch_plan(const op *o, int max_batch, int rows)
{
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CUDA;
  opts.cuda_rows_per_thread = rows;
  opts.max_batch = max_batch;
  opts.flags = plan_flags;
  pscr_plan *plan = NULL;
  pscr_status st = pscr_plan_create(&plan, o->dtype, o->ndim, o->pencils, op_shift(o), &opts);
  ck_assert_msg(st == PSCR_SUCCESS, "batch plan (max_batch %d): %s (%s)", max_batch,
                pscr_status_string(st), pscr_last_error());
  return plan;
}

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
  pscr_plan *gpu = make_batch_plan(&o, bc->max_batch, bc->rows);
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
  make_case(&o, _i, 9900u + (uint64_t)_i);
  const size_t N = tu_size(o.ndim, o.pencils), es = tu_dtype_size(o.dtype);
  const size_t w = es / sizeof(double), words = N * w, ld = N + 3;
  const int nrhs = 3;
  pscr_plan *gpu = make_batch_plan(&o, 2, 0);
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

/* Batches and zero pivots. _i = 0: a singular subproblem (as singular_shift):
   the host batch reports PSCR_ERROR_SINGULAR, every u_r is NaN, the device
   batch fills every u_r with NaN; the gaps are untouched. _i = 1: the
   partition pivot of partition_pivot_fallback: the plan takes plain Thomas,
   and both batches solve every right-hand side as pscr_solve does. */
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

/* ------------------------------------------------------------ errors */
START_TEST(singular_shift)
{
  /* As test_solve.c: n1 = 1, A1 = 2, M1 = 1 gives lambda = 2 exactly and
     c = -2 leaves A2 + (lambda + c) M2 = A2, singular. _i = 0: A2 = [[1,1],[1,1]];
     _i = 1: A2 = [0]. */
  double a1 = 2.0, m1 = 1.0, c = -2.0;
  double a2d[2] = {1.0, 1.0}, a2o[1] = {1.0}, m2d[2] = {1.0, 1.0}, zero = 0.0;
  pscr_pencil p[2] = {{1, &a1, NULL, &m1, NULL}, {2, a2d, a2o, m2d, NULL}};
  if (_i == 1)
    p[1] = (pscr_pencil){1, &zero, NULL, m2d, NULL};
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CUDA;
  pscr_plan *plan;
  ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 2, p, &c, &opts), PSCR_SUCCESS);
  double f[2] = {1.0, 2.0}, u[2] = {5.0, 5.0};
  pscr_status st = pscr_solve(plan, f, u);
  ck_assert_msg(st == PSCR_ERROR_SINGULAR, "got %s", pscr_status_string(st));
  ck_assert(isnan(u[0]));
  ck_assert(f[0] == 1.0 && f[1] == 2.0);
  st = pscr_solve(plan, f, f);
  ck_assert_int_eq(st, PSCR_ERROR_SINGULAR);
  ck_assert(isnan(f[0]));
  pscr_plan_destroy(plan);
}
END_TEST

/* A 3D plan needing several times the device's memory: PSCR_ERROR_DEVICE_ALLOC
   at once (device workspace is allocated before the eigen stage), a NULL
   plan, and device memory as it was. */
START_TEST(device_out_of_memory)
{
  size_t free0 = 0, total = 0, free1 = 0;
  ck_assert_int_eq(cudaMemGetInfo(&free0, &total), cudaSuccess);
  int n = (int)cbrt((double)total / 8.0) + 200; /* one vector alone > total */
  double *s = malloc((5 * (size_t)n + 1) * sizeof *s), *h = s + 4 * (size_t)n;
  ck_assert_ptr_nonnull(s);
  for (int i = 0; i <= n; i++) /* n + 1 mesh steps */
    h[i] = 1.0 / (n + 1);
  ck_assert_int_eq(pscr_poisson_factors(n, h, s, s + n, s + 2 * (size_t)n, NULL), PSCR_SUCCESS);
  pscr_pencil q = {n, s, s + n, s + 2 * (size_t)n, NULL};
  pscr_pencil p[3] = {q, q, q};
  double c = 0.0;
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CUDA;
  pscr_plan *plan = (pscr_plan *)&c;
  pscr_status st = pscr_plan_create(&plan, PSCR_R64, 3, p, &c, &opts);
  printf("device plan of %d^3 (%.0f GB per vector, %.0f GB on the device): %s\n", n,
         8e-9 * n * (double)n * n, 1e-9 * total, pscr_last_error());
  ck_assert_msg(st == PSCR_ERROR_DEVICE_ALLOC, "got %s", pscr_status_string(st));
  ck_assert_ptr_null(plan);
  ck_assert_int_eq(cudaMemGetInfo(&free1, &total), cudaSuccess);
  ck_assert_msg(free1 + (64u << 20) >= free0, "device memory leaked: %zu -> %zu free", free0, free1);
  /* The device is still usable afterwards. */
  int m[2] = {40, 30};
  check_gpu(POISSON, 2, m, 8000u);
  free(s);
}
END_TEST

START_TEST(bad_arguments)
{
  double one = 1.0, c = 0.0, f = 1.0, u = 0.0;
  pscr_pencil p[2] = {{1, &one, NULL, &one, NULL}, {1, &one, NULL, &one, NULL}};
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CPU;
  pscr_plan *cpu, *gpu;
  ck_assert_int_eq(pscr_plan_create(&cpu, PSCR_R64, 2, p, &c, &opts), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_solve_device(cpu, &f, &u, NULL), PSCR_ERROR_NOT_SUPPORTED);
  opts.backend = PSCR_BACKEND_CUDA;
  ck_assert_int_eq(pscr_plan_create(&gpu, PSCR_R64, 2, p, &c, &opts), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_solve_device(gpu, NULL, &u, NULL), PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_solve_device(gpu, &f, NULL, NULL), PSCR_ERROR_INVALID_VALUE);
  ck_assert_int_eq(pscr_solve(gpu, &f, &u), PSCR_SUCCESS);
  ck_assert(tu_close(u, 0.5, 1e-15, 0)); /* (1 + 1 + 0) u = 1 */
  /* 3D with n2*n3 = 65536 * 65537 >= 2^31: refused before any allocation
   * or eigen work (the backend's accepts hook, gpu/cuda_glue.c; 32768 *
   * 65535 < 2^31 would pass that test, but is not created here: the plan
   * would need 17 GB). */
  {
    const int big = 65536;
    double *ones = malloc((size_t)(big + 1) * sizeof *ones);
    ck_assert_ptr_nonnull(ones);
    for (int i = 0; i <= big; i++)
      ones[i] = 1.0;
    pscr_pencil p3[3] = {{1, &one, NULL, &one, NULL},
                         {big, ones, ones, ones, NULL},
                         {big + 1, ones, ones, ones, NULL}};
    pscr_plan *huge = (pscr_plan *)&one;
    ck_assert_int_eq(pscr_plan_create(&huge, PSCR_R64, 3, p3, &c, &opts),
                     PSCR_ERROR_NOT_SUPPORTED);
    ck_assert_ptr_null(huge);
    ck_assert_msg(strstr(pscr_last_error(), "n2*n3") != NULL, "message: %s", pscr_last_error());
    free(ones);
  }
  opts.device = 1 << 20;
  pscr_plan *none = (pscr_plan *)&one;
  ck_assert_int_eq(pscr_plan_create(&none, PSCR_R64, 2, p, &c, &opts), PSCR_ERROR_NOT_SUPPORTED);
  ck_assert_ptr_null(none);
  pscr_plan_destroy(cpu);
  pscr_plan_destroy(gpu);
}
END_TEST

/* The size limit's two branches on a small plan:
 * PSCR_FLAG_TEST_CUDA_SLAB_1000 lowers the CUDA backend's limit on n2*n3
 * from 2^31 - 1 to 1000. A 3D
 * plan with n2*n3 = 1200 is refused by an explicit CUDA request and
 * taken by the CPU under AUTO, whose solve is then checked against the
 * operator; n2*n3 = 1000 is still CUDA's, and 2D plans are not limited. */
START_TEST(size_limit_auto)
{
  enum { NMAX = 40 };
  double ad[NMAX], ao[NMAX], md[NMAX], c = 0.5;
  for (int i = 0; i < NMAX; i++) {
    ad[i] = 2.0 + 0.01 * i;
    ao[i] = -1.0;
    md[i] = 1.0;
  }
  pscr_options opts;
  pscr_options_init(&opts);
  opts.flags = PSCR_FLAG_TEST_CUDA_SLAB_1000;
  const int sizes[3][3] = {{3, 30, 40}, {3, 25, 40}, {30, 40, 0}}; /* 1200, 1000, 2D */
  const pscr_backend want[3] = {PSCR_BACKEND_CPU, PSCR_BACKEND_CUDA, PSCR_BACKEND_CUDA};
  for (int k = 0; k < 3; k++) {
    const int ndim = sizes[k][2] ? 3 : 2;
    pscr_pencil p[3];
    for (int d = 0; d < ndim; d++)
      p[d] = (pscr_pencil){sizes[k][d], ad, ao, md, NULL};
    pscr_plan *plan = NULL;
    opts.backend = PSCR_BACKEND_CUDA;
    pscr_status st = pscr_plan_create(&plan, PSCR_R64, ndim, p, &c, &opts);
    if (want[k] == PSCR_BACKEND_CPU) {
      ck_assert_int_eq(st, PSCR_ERROR_NOT_SUPPORTED);
      ck_assert_ptr_null(plan);
      ck_assert_msg(strstr(pscr_last_error(), "n2*n3 <= 1000") != NULL, "message: %s",
                    pscr_last_error());
    } else {
      ck_assert_int_eq(st, PSCR_SUCCESS);
      pscr_plan_destroy(plan);
    }
    opts.backend = PSCR_BACKEND_AUTO;
    ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, ndim, p, &c, &opts), PSCR_SUCCESS);
    pscr_info info;
    ck_assert_int_eq(pscr_plan_info(plan, &info), PSCR_SUCCESS);
    ck_assert_int_eq(info.backend, want[k]);
    /* The plan solves: backward error of a right-hand side. */
    const size_t N = (size_t)sizes[k][0] * sizes[k][1] * (ndim == 3 ? sizes[k][2] : 1);
    double *f = malloc(N * sizeof *f), *u = malloc(N * sizeof *u);
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(u);
    for (size_t i = 0; i < N; i++)
      f[i] = sin(0.7 * (double)i) + 0.25;
    ck_assert_int_eq(pscr_solve(plan, f, u), PSCR_SUCCESS);
    const double berr = tu_backward_error(PSCR_R64, ndim, p, &c, u, f);
    ck_assert_msg(berr < 1e-13, "case %d: backward error %.2e", k, berr);
    free(f);
    free(u);
    pscr_plan_destroy(plan);
  }
}
END_TEST

static Suite *cuda_suite(void)
{
  Suite *s = suite_create("cuda");
  TCase *tc = tcase_create("against_cpu");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, gpu_2d, 0, N_SIZES_2D * NKINDS);
  tcase_add_loop_test(tc, gpu_3d, 0, N_SIZES_3D * NKINDS);
  tcase_add_loop_test(tc, gpu_badly_scaled, 0, 6);
  tcase_add_loop_test(tc, level3_variants, 0, 2 * N_L3);
  tcase_add_loop_test(tc, gpu_single, 0, N_SINGLE * NKINDS);
  tcase_add_test(tc, partition_pivot_fallback);
  suite_add_tcase(s, tc);
  tc = tcase_create("api");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, device_arrays, 0, 4);
  tcase_add_loop_test(tc, singular_shift, 0, 2);
  tcase_add_test(tc, bad_arguments);
  tcase_add_test(tc, size_limit_auto);
  tcase_add_test(tc, device_out_of_memory);
  suite_add_tcase(s, tc);
  tc = tcase_create("stream_order");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, deterministic, 0, 6);
  tcase_add_loop_test(tc, paired_against_unpaired, 0, N_PAIR_SIZES * 4 * N_PAIR_ROWS);
  tcase_add_loop_test(tc, toeplitz_against_table, 0, 2 * N_TOEP);
  tcase_add_loop_test(tc, pivot_table_against_none, 0, 8 * N_PIVTAB_SIZES);
  tcase_add_loop_test(tc, pivot_table_not_used, 0, 4);
  tcase_add_loop_test(tc, fused_against_unfused, 0, N_FUSE_SIZES * 4 * N_FUSE_ROWS);
  tcase_add_loop_test(tc, couple_per_against_one, 0, N_COUPLE_SIZES * 4);
  tcase_add_loop_test(tc, staged_against_unstaged, 0, N_STAGE_SIZES * 16);
  tcase_add_loop_test(tc, merged_top_against_plain, 0, N_MERGE_SIZES * 16);
  tcase_add_loop_test(tc, early_launch_against_serial, 0, 8);
  tcase_add_loop_test(tc, graph_capture, 0, 6);
  tcase_add_loop_test(tc, error_mid_solve, 0, 2);
  suite_add_tcase(s, tc);
  tc = tcase_create("batch");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, batch_against_single, 0, N_GBATCH);
  tcase_add_loop_test(tc, batch_graph_capture, 0, 3);
  tcase_add_loop_test(tc, batch_pivots, 0, 2);
  tcase_add_test(tc, batch_bad_arguments);
  suite_add_tcase(s, tc);
  return s;
}

/* A plan on the CUDA backend for a 1 x 1 problem: NOT_SUPPORTED means no
   CUDA build, backend or device. */
static int cuda_available(void)
{
  double one = 1.0, c = 0.0;
  pscr_pencil p[2] = {{1, &one, NULL, &one, NULL}, {1, &one, NULL, &one, NULL}};
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CUDA;
  pscr_plan *plan = NULL;
  pscr_status st = pscr_plan_create(&plan, PSCR_R64, 2, p, &c, &opts);
  pscr_plan_destroy(plan);
  if (st == PSCR_ERROR_NOT_SUPPORTED)
    return 0;
  if (st != PSCR_SUCCESS) {
    fprintf(stderr, "CUDA plan failed: %s (%s)\n", pscr_status_string(st), pscr_last_error());
    return -1;
  }
  return 1;
}

int main(void)
{
  int avail = cuda_available();
  if (avail == 0) {
    printf("no CUDA device: skipped (%s)\n", pscr_last_error());
    return 77;
  }
  if (avail < 0)
    return 1;
  SRunner *sr = srunner_create(cuda_suite());
  srunner_set_fork_status(sr, CK_NOFORK); /* never fork after CUDA is initialized */
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}

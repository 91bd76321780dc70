/*
 * The CUDA backend's kernel paths that pscr_options.flags selects, each
 * against the path it replaces on the same plan data (A/B): the level-3
 * solver's paired mode (PSCR_FLAG_CUDA_PAIR_*) against the unpaired one, its
 * Toeplitz factors (uniform meshes, PSCR_FLAG_CUDA_NO_TOEPLITZ) bitwise equal
 * to the factor table, its pivot table (PSCR_FLAG_CUDA_NO_PIVOT_TABLE)
 * against the kernel's own elimination, and its fused weighted sums
 * (PSCR_FLAG_CUDA_FUSE_*) against the separate pass; the coupling and gather
 * kernels with several entries per thread (PSCR_FLAG_CUDA_COUPLE_*) bitwise
 * equal to one entry; its factor table staged in shared memory bitwise
 * equal to the table read from device memory (PSCR_FLAG_CUDA_NO_STAGE); the
 * merged top level of n = 4^j against the plain levels
 * (PSCR_FLAG_NO_MERGE_TOP); kernels launched early bitwise equal to plain
 * stream order (PSCR_FLAG_CUDA_NO_EARLY_LAUNCH); the refinement step of the
 * boundary systems where they are weakly dominant against every system's
 * (PSCR_FLAG_CUDA_PCR_REFINE_ALL).
 *
 * Helpers shared with test_cuda.c and test_cuda_batch.c: cuda_common.c.
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

/* The solves of an A/B test: a random right-hand side (seed), which plans
   a and b each solve into a vector of their own; free_ab frees all three. */
static void solve_ab(const op *o, pscr_plan *a, pscr_plan *b, uint64_t seed, void **f, void **ua,
                     void **ub)
{
  const size_t bytes = tu_size(o->ndim, o->pencils) * tu_dtype_size(o->dtype);
  *f = random_vector(o, seed);
  *ua = malloc(bytes);
  *ub = malloc(bytes);
  ck_assert(*ua && *ub);
  ck_assert_int_eq(pscr_solve(a, *f, *ua), PSCR_SUCCESS);
  ck_assert_int_eq(pscr_solve(b, *f, *ub), PSCR_SUCCESS);
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
  ck_assert_msg(*ba <= ct_case_bound(o) && *bb <= ct_case_bound(o),
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
   (Helmholtz) without the pivot table, a graded mesh and a short last
   dimension (staged table, 2 rows per thread) do not. */
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

/* A CUDA plan of o made with `flags` added to ct_plan_flags, and its pscr_info. */
static pscr_plan *plan_with_flags(const op *o, unsigned flags, pscr_info *info)
{
  const unsigned saved = ct_plan_flags;
  ct_plan_flags |= flags;
  pscr_plan *plan = ct_make_plan(o, PSCR_BACKEND_CUDA);
  ct_plan_flags = saved;
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
  ct_plan_flags = PSCR_FLAG_CUDA_NO_PIVOT_TABLE | (paired ? PSCR_FLAG_CUDA_PAIR_ALWAYS : 0);
  pscr_info it, i0;
  pscr_plan *pt = plan_with_flags(&o, 0, &it);
  pscr_plan *p0 = plan_with_flags(&o, PSCR_FLAG_CUDA_NO_TOEPLITZ, &i0);
  ct_plan_flags = 0;
  ck_assert_int_eq(it.level3_pivot_table, 0);
  ck_assert_msg(it.level3_toeplitz == tc->expect, "case %d: level3_toeplitz %d, expected %d",
                _i, it.level3_toeplitz, tc->expect);
  ck_assert_int_eq(i0.level3_toeplitz, 0);
  ck_assert_int_eq(it.level3_rows_per_thread, i0.level3_rows_per_thread);

  const size_t N = tu_size(o.ndim, o.pencils), bytes = N * tu_dtype_size(o.dtype);
  void *f, *ut, *u0;
  solve_ab(&o, pt, p0, 9800u + (uint64_t)_i, &f, &ut, &u0);
  const double berr = tu_backward_error(o.dtype, o.ndim, o.pencils, op_shift(&o), ut, f);
  printf("toeplitz case %d (%dD n_last %d %s%s%s): toeplitz %d, rows %d, backward error %.2e, "
         "bitwise %s\n",
         _i, o.ndim, o.pencils[o.ndim - 1].n, dtype_names[o.dtype], paired ? " paired" : "",
         tc->vary ? " varied ends" : "",
         it.level3_toeplitz, it.level3_rows_per_thread, berr,
         memcmp(ut, u0, bytes) == 0 ? "equal" : "DIFFERENT");
  ck_assert_msg(memcmp(ut, u0, bytes) == 0, "case %d: Toeplitz factors change the solution", _i);
  ck_assert_msg(berr <= ct_case_bound(&o), "case %d: backward error %.3e", _i, berr);
  free_ab(pt, p0, f, ut, u0, &o);
}
END_TEST

/* k_part's pivot table (the chunks' elimination per eigenvalue, built at
   plan time for 2D Toeplitz plans) against the kernel's own elimination:
   by default against PSCR_FLAG_CUDA_NO_PIVOT_TABLE, R64 and R32, 8 and 16 rows per
   thread, fused sums and not, uniform Poisson and (vary) distinct end rows
   with a tridiagonal M; C64 and C32 on uniform Helmholtz (complex end
   rows, consistent M). The last dimensions (past 1024, so that no factor
   table is staged and float plans take the Toeplitz path too) give chunk
   layouts with many padding chunks (1025, 1100), none (2048), and a last
   chunk that ends in padding rows (2047, 1500). The pivots are formed in
   double and the forward sweep as r iv - m y, so the solutions agree to
   rounding, not bitwise: double within REL_DIFF; float plans differ by
   their condition times float roundoff (up to 1.1e-2 here), so there the
   table's backward error must instead stay within 1.5 times the kernel's
   own (its pivots are double's: H100, 4095^2 Poisson 5.5e-6 -> 6.4e-7).
   Both meet the bound, and a batch of 3 gives bitwise its single solves.
   Plans the table does not serve (graded mesh, real or complex, 3D, rows
   < 8) report level3_pivot_table 0 (pivot_table_not_used). */
static const int pivtab_sizes[][3] = {{5, 1100, 0}, {9, 2048, 0}, {6, 1025, 1},
                                      {7, 2047, 0}, {5, 1500, 1}};
#define N_PIVTAB_SIZES ((int)(sizeof pivtab_sizes / sizeof pivtab_sizes[0]))

START_TEST(pivot_table_against_none)
{
  const int rows = _i % 2 ? 16 : 8, fused = (_i / 2) % 2, single = (_i / 4) % 2;
  const int cplx = (_i / 8) % 2;
  const int *sz = pivtab_sizes[_i / 16];
  const int n[3] = {sz[0], sz[1], 1};
  op o;
  make_op_model(&o, cplx ? PSCR_PROBLEM_HELMHOLTZ : PSCR_PROBLEM_POISSON, 2, n, 0.0);
  if (sz[2] && !cplx) /* Helmholtz's end rows differ already */
    op_vary_ends(&o, 1);
  if (single)
    op_to_single(&o);
  const size_t N = tu_size(o.ndim, o.pencils);
  ct_plan_flags = fused ? PSCR_FLAG_CUDA_FUSE_ALL : PSCR_FLAG_CUDA_FUSE_NEVER;
  pscr_plan *pt = ct_make_batch_plan(&o, 3, rows);
  ct_plan_flags |= PSCR_FLAG_CUDA_NO_PIVOT_TABLE;
  pscr_plan *p0 = ct_make_batch_plan(&o, 3, rows);
  ct_plan_flags = 0;
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

  void *f, *ut, *u0;
  solve_ab(&o, pt, p0, 9700u + (uint64_t)_i, &f, &ut, &u0);
  const double rel = tu_diff_inf(o.dtype, N, u0, ut) / tu_norm_inf(o.dtype, N, u0);
  const double bt = tu_backward_error(o.dtype, o.ndim, o.pencils, op_shift(&o), ut, f);
  const double b0 = tu_backward_error(o.dtype, o.ndim, o.pencils, op_shift(&o), u0, f);
  printf("pivot table case %d (%d x %d %s%s rows %d, %d fused levels): relative difference "
         "%.2e, backward errors %.2e table, %.2e none\n",
         _i, n[0], n[1], dtype_names[o.dtype], sz[2] && !cplx ? " varied ends" : "", rows,
         it.level3_fused_levels, rel, bt, b0);
  if (single)
    ck_assert_msg(bt <= 1.5 * b0, "case %d: backward error %.3e with the table, %.3e without",
                  _i, bt, b0);
  else
    ck_assert_msg(rel <= REL_DIFF, "case %d: the table changes the solution by %.3e (relative)",
                  _i, rel);
  ck_assert_msg(bt <= ct_case_bound(&o), "case %d: backward error %.3e", _i, bt);
  ck_assert_msg(b0 <= ct_case_bound(&o), "case %d: backward error %.3e", _i, b0);
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
  } cases[] = {{PSCR_PROBLEM_HELMHOLTZ, 2, {7, 600, 1}, 8, 0.3},
               {PSCR_PROBLEM_POISSON, 2, {5, 700, 1}, 8, 0.3},
               {PSCR_PROBLEM_POISSON, 3, {4, 5, 600}, 8, 0.0},
               {PSCR_PROBLEM_POISSON, 2, {5, 700, 1}, 4, 0.0}};
  op o;
  make_op_model(&o, cases[_i].k, cases[_i].ndim, cases[_i].n, cases[_i].grading);
  pscr_plan *plan = ct_make_plan_rows(&o, PSCR_BACKEND_CUDA, cases[_i].rows);
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
  ct_plan_flags = paired ? PSCR_FLAG_CUDA_PAIR_ALWAYS : PSCR_FLAG_CUDA_PAIR_NEVER;
  pscr_plan *plan = ct_make_plan_rows(o, PSCR_BACKEND_CUDA, rows);
  ct_plan_flags = 0;
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
  ct_plan_flags = PSCR_FLAG_CUDA_PAIR_ALWAYS;
  pscr_plan *plan = ct_make_batch_plan(&o, 3, rows);
  ct_plan_flags = 0;
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
  ct_plan_flags = many ? PSCR_FLAG_CUDA_COUPLE_MANY : PSCR_FLAG_CUDA_COUPLE_ONE;
  pscr_plan *plan = ct_make_plan(o, PSCR_BACKEND_CUDA);
  ct_plan_flags = 0;
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
  ck_assert_msg(b <= ct_case_bound(&o), "case %d: backward error %.3e", _i, b);

  ct_plan_flags = PSCR_FLAG_CUDA_COUPLE_MANY;
  pscr_plan *plan = ct_make_batch_plan(&o, 3, 0 /* the default rows */);
  ct_plan_flags = 0;
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
  ct_plan_flags = PSCR_FLAG_CUDA_FUSE_NEVER | (staged ? 0 : PSCR_FLAG_CUDA_NO_STAGE);
  pscr_plan *plan = ct_make_batch_plan(o, max_batch, rows);
  ct_plan_flags = 0;
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
  ck_assert_msg(b <= ct_case_bound(&o), "case %d: backward error %.3e", _i, b);
  check_batch3(pu, &o, 9860u + 3u * (uint64_t)_i, "unstaged", _i);
  pscr_plan_destroy(ps);
  pscr_plan_destroy(pu);
  free(f);
  free(us);
  free(uu);
  op_free(&o);
}
END_TEST

/* k_part's refinement step of the boundary system after PCR, taken only
   where some boundary row is weakly dominant (gpu/partition.cuh,
   pcr_dominant), against the step for every system
   (PSCR_FLAG_CUDA_PCR_REFINE_ALL): model problems, double and float, 2, 8
   and 16 rows per thread (hundreds to tens of boundary rows per system),
   the weighted sums fused and not. Both solutions meet the case's bound and
   agree to rounding. On uniform 2D Poisson most systems are dominant, so
   the default must skip the step somewhere at 8 and 16 rows per thread:
   its solution differs from the refined one in some bit (a test that the
   rule takes effect; the accuracy against the CPU, within 10x, is
   test_cuda's level3_variants). At 2 rows the boundary rows are about as
   weakly dominant as the system's own (1 + s h^2 / 2 for the shifts of
   this anisotropic 63 x 1000 grid), so every system refines. */
typedef struct refine_case {
  pscr_problem_kind k;
  int ndim, n[3];
  double grading;
  int skips; /* uniform 2D Poisson: the default plan must skip somewhere */
} refine_case;
static const refine_case refine_cases[] = {
    {PSCR_PROBLEM_POISSON, 2, {63, 1000, 1}, 0.0, 1},
    {PSCR_PROBLEM_POISSON, 2, {127, 2047, 1}, 0.0, 1},
    {PSCR_PROBLEM_POISSON, 2, {31, 700, 1}, 0.3, 0},
    {PSCR_PROBLEM_HELMHOLTZ, 2, {31, 1000, 1}, 0.0, 0},
    {PSCR_PROBLEM_POISSON, 3, {7, 9, 500}, 0.0, 0},
};
#define N_REFINE ((int)(sizeof refine_cases / sizeof refine_cases[0]))
static const int refine_rows[] = {2, 8, 16};

START_TEST(pcr_skip_against_refine_all)
{
  const refine_case *rc = &refine_cases[_i / 12];
  const int rows = refine_rows[_i % 3], single = (_i / 3) % 2, fuse = (_i / 6) % 2;
  op o;
  make_op_model(&o, rc->k, rc->ndim, rc->n, rc->grading);
  if (single)
    op_to_single(&o);
  ct_plan_flags = fuse ? PSCR_FLAG_CUDA_FUSE_ALL : PSCR_FLAG_CUDA_FUSE_NEVER;
  pscr_plan *p0 = ct_make_plan_rows(&o, PSCR_BACKEND_CUDA, rows);
  ct_plan_flags |= PSCR_FLAG_CUDA_PCR_REFINE_ALL;
  pscr_plan *p1 = ct_make_plan_rows(&o, PSCR_BACKEND_CUDA, rows);
  ct_plan_flags = 0;
  pscr_info i0;
  ck_assert_int_eq(pscr_plan_info(p0, &i0), PSCR_SUCCESS);

  const size_t N = tu_size(o.ndim, o.pencils), bytes = N * tu_dtype_size(o.dtype);
  void *f, *u0, *u1;
  solve_ab(&o, p0, p1, 9870u + (uint64_t)_i, &f, &u0, &u1);
  double rel, b0, b1;
  check_agree(&o, f, u0, u1, "pcr skip", _i, &rel, &b0, &b1);
  const int same = memcmp(u0, u1, bytes) == 0;
  printf("pcr skip case %d (%dD n_last %d %s rows %d%s): backward errors %.2e skipping, %.2e "
         "refining all, relative difference %.2e%s\n",
         _i, o.ndim, o.pencils[o.ndim - 1].n, dtype_names[o.dtype],
         i0.level3_rows_per_thread, fuse ? " fused" : "", b0, b1, rel,
         same ? " (bitwise equal)" : "");
  if (rc->skips && i0.level3_rows_per_thread >= 8)
    ck_assert_msg(!same, "case %d: no boundary system skipped its refinement step", _i);
  free_ab(p0, p1, f, u0, u1, &o);
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
  ct_plan_flags = PSCR_FLAG_CUDA_FUSE_ALL;
  pscr_plan *p1 = ct_make_batch_plan(&o, 3, rows);
  ct_plan_flags = PSCR_FLAG_CUDA_FUSE_NEVER;
  pscr_plan *p0 = ct_make_batch_plan(&o, 3, rows);
  ct_plan_flags = 0;
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

  void *f, *u1, *u0;
  solve_ab(&o, p1, p0, 9950u + (uint64_t)_i, &f, &u1, &u0);
  double rel, b0, b1;
  check_agree(&o, f, u0, u1, "fused", _i, &rel, &b0, &b1);
  if (_i % 7 == 0)
    printf("fused case %d (%d x %d %s rows %d, %d fused levels): relative difference %.2e, "
           "backward errors %.2e fused, %.2e unfused\n",
           _i, n[0], n[1], dtype_names[o.dtype], rows, i1.level3_fused_levels, rel, b1, b0);
  ct_check_profile(p1, &o, f, u1, bytes);

  /* Real types: the fused kernel paired (PSCR_FLAG_CUDA_PAIR_ALWAYS)
     against unpaired (_NEVER). Level 1's items of three eigenpairs, and odd items
     elsewhere, end in a pass that solves one system alone (part_sum.cuh);
     a dropped or doubled last system would be an O(1) difference. Both
     plans must fuse every forward level (the two-sum kernel fits paired
     for real types), or the comparison would not reach the kernel. */
  if (o.dtype == PSCR_R64 || o.dtype == PSCR_R32) {
    void *up[2];
    for (int m = 0; m < 2; m++) {
      ct_plan_flags = PSCR_FLAG_CUDA_FUSE_ALL |
                      (m ? PSCR_FLAG_CUDA_PAIR_ALWAYS : PSCR_FLAG_CUDA_PAIR_NEVER);
      pscr_plan *pp = ct_make_plan_rows(&o, PSCR_BACKEND_CUDA, rows);
      ct_plan_flags = 0;
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
  ct_plan_flags = (merge ? 0 : PSCR_FLAG_NO_MERGE_TOP) |
                  (fuse ? PSCR_FLAG_CUDA_FUSE_ALL : PSCR_FLAG_CUDA_FUSE_NEVER);
  pscr_plan *plan = ct_make_batch_plan(o, 3, rows);
  ct_plan_flags = 0;
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

  void *f, *um, *up;
  solve_ab(&o, pm, pp, 9980u + (uint64_t)_i, &f, &um, &up);
  double rel, bp, bm;
  check_agree(&o, f, up, um, "merged", _i, &rel, &bp, &bm);
  if (_i % 5 == 0)
    printf("merged case %d (%d x %d x %d %s rows %d fuse %d, levels %d against %d): relative "
           "difference %.2e, backward errors %.2e merged, %.2e plain\n",
           _i, sz[0], sz[1], ndim == 3 ? sz[2] : 1, dtype_names[o.dtype], rows, fuse,
           im.levels[0], ip.levels[0], rel, bm, bp);
  ct_check_profile(pm, &o, f, um, bytes);
  check_batch3(pm, &o, 9990u + 3u * (uint64_t)_i, "merged", _i);
  free_ab(pm, pp, f, um, up, &o);
}
END_TEST

/* Kernels launched early (programmatic dependent launch, gpu/launch.cuh)
   against kernels launched in plain stream order
   (PSCR_FLAG_CUDA_NO_EARLY_LAUNCH): five
   device solves of each give bitwise the same u. Each kernel waits on the
   device for its predecessor, so the numbers cannot change; a kernel that
   read its inputs before that wait would read a previous solve's or
   poisoned values, which differ between solves (du is poisoned before each)
   and from the serial run. Cases: ct_make_case's six (2D real and complex, 3D,
   each precision), then 2D Poisson with every level's weighted sums fused
   into level 3 (PSCR_FLAG_CUDA_FUSE_ALL), double and float. pscr_info says
   whether the plan launches early: where the device is of compute
   capability 9.0 or later and the build has kernels compiled for 9.0 or
   later (PSCR_TEST_EARLY_LAUNCH, tests/CMakeLists.txt). */
START_TEST(early_launch_against_serial)
{
  op o;
  if (_i < 6) {
    ct_make_case(&o, _i, 9150u + (uint64_t)_i);
  } else {
    const int n[3] = {300, 1100, 1};
    make_op_model(&o, PSCR_PROBLEM_POISSON, 2, n, 0.0);
    if (_i == 7)
      op_to_single(&o);
    ct_plan_flags = PSCR_FLAG_CUDA_FUSE_ALL;
  }
  pscr_info i1, i0;
  pscr_plan *p1 = plan_with_flags(&o, 0, &i1);
  pscr_plan *p0 = plan_with_flags(&o, PSCR_FLAG_CUDA_NO_EARLY_LAUNCH, &i0);
  ct_plan_flags = 0;
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
  ct_device_solve(p0, df, du, u0, bytes, stream);
  for (int r = 0; r < 5; r++) {
    ct_device_solve(p1, df, du, u1, bytes, stream);
    ck_assert_msg(memcmp(u1, u0, bytes) == 0,
                  "case %d, solve %d: early-launch solve differs from the serial one", _i, r);
  }
  const double berr = tu_backward_error(o.dtype, o.ndim, o.pencils, op_shift(&o), u1, f);
  printf("early launch case %d (%s, %dD, early %d): bitwise equal, backward error %.2e\n", _i,
         dtype_names[o.dtype], o.ndim, i1.cuda_early_launch, berr);
  ck_assert_msg(berr <= ct_case_bound(&o), "case %d: backward error %.3e", _i, berr);
  ck_assert_int_eq(cudaStreamDestroy(stream), cudaSuccess);
  cudaFree(df);
  cudaFree(du);
  free_ab(p1, p0, f, u1, u0, &o);
}
END_TEST

static Suite *cuda_paths_suite(void)
{
  Suite *s = suite_create("cuda_paths");
  TCase *tc = tcase_create("paths");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, paired_against_unpaired, 0, N_PAIR_SIZES * 4 * N_PAIR_ROWS);
  tcase_add_loop_test(tc, toeplitz_against_table, 0, 2 * N_TOEP);
  tcase_add_loop_test(tc, pivot_table_against_none, 0, 16 * N_PIVTAB_SIZES);
  tcase_add_loop_test(tc, pivot_table_not_used, 0, 4);
  tcase_add_loop_test(tc, fused_against_unfused, 0, N_FUSE_SIZES * 4 * N_FUSE_ROWS);
  tcase_add_loop_test(tc, couple_per_against_one, 0, N_COUPLE_SIZES * 4);
  tcase_add_loop_test(tc, staged_against_unstaged, 0, N_STAGE_SIZES * 16);
  tcase_add_loop_test(tc, merged_top_against_plain, 0, N_MERGE_SIZES * 16);
  tcase_add_loop_test(tc, early_launch_against_serial, 0, 8);
  tcase_add_loop_test(tc, pcr_skip_against_refine_all, 0, N_REFINE * 12);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return ct_main(cuda_paths_suite); }

/*
 * The method of each reduced dimension (pscr_options.method): every method
 * vector (2D: reduction or transform of dimension 1; 3D: the four
 * combinations for dimensions 1 and 2) on the CPU backend meets the
 * backward-error bounds of the reduction (test_solve: 1e-13 real, 1e-11
 * complex; test_single: 450 eps_f in float) on pencils of every kind
 * (uniform and graded FE Poisson, Helmholtz with absorbing boundaries,
 * random SPD and random complex symmetric), repeats bitwise, solves in
 * place as out of place, and reports itself in pscr_plan_info; so does
 * every vector on the CUDA backend where there is a device (methods_cuda:
 * every dtype, host and device arrays, batches, against the CPU backend's
 * solutions too); bad method values are refused with a message naming the
 * field; the ESTIMATE planner's choices where its margins are wide.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_ops.h"

#if PSCR_HAVE_CUDA /* pscr_config.h, through pscr.h */
#include <cuda_runtime_api.h>
#endif

#define BERR_REAL 1e-13
#define BERR_COMPLEX 1e-11
#define BERR_SINGLE (450.0 * FLT_EPSILON)

static const char *method_name(pscr_method m)
{
  return m == PSCR_METHOD_TRANSFORM ? "T" : m == PSCR_METHOD_REDUCTION ? "R" : "A";
}

/* Plan o with methods m0, m1 on the CPU, solve a random right-hand side
   out of place and in place, twice; check the bound, the repeat and the
   plan's report. Returns the backward error. */
static double check_methods_on(op *o, const char *what, pscr_method m0, pscr_method m1,
                               pscr_backend backend)
{
  const int ndim = o->ndim;
  const size_t N = tu_size(ndim, o->pencils), es = tu_dtype_size(o->dtype);
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = backend;
  opts.method[0] = m0;
  opts.method[1] = ndim == 3 ? m1 : PSCR_METHOD_AUTO;
  pscr_plan *plan = NULL;
  pscr_status st = pscr_plan_create(&plan, o->dtype, ndim, o->pencils, op_shift(o), &opts);
  ck_assert_msg(st == PSCR_SUCCESS, "%s %s%s: plan: %s (%s)", what, method_name(m0),
                method_name(m1), pscr_status_string(st), pscr_last_error());
  pscr_info info;
  ck_assert_int_eq(pscr_plan_info(plan, &info), PSCR_SUCCESS);
  size_t eig = 0;
  for (int d = 0; d < ndim - 1; d++) {
    const pscr_method want = d == 0 ? m0 : m1;
    ck_assert_int_eq(info.method[d], want);
    if (want == PSCR_METHOD_TRANSFORM) {
      ck_assert_int_eq(info.levels[d], 0);
      eig += (size_t)o->pencils[d].n;
    } else {
      ck_assert_int_gt(info.levels[d], 0);
    }
  }
  ck_assert_uint_ge(info.eigenpairs, eig);
  ck_assert(info.cost_total.flops > 0 && info.cost_total.bytes > 0);
  if (ndim == 2)
    ck_assert_int_eq(info.method[1], PSCR_METHOD_AUTO);

  void *f = random_vector(o, 77), *u = malloc(N * es), *u2 = malloc(N * es);
  ck_assert(f && u && u2);
  st = pscr_solve(plan, f, u);
  ck_assert_msg(st == PSCR_SUCCESS, "%s: solve: %s (%s)", what, pscr_status_string(st),
                pscr_last_error());
  const double berr = tu_backward_error(o->dtype, ndim, o->pencils, op_shift(o), u, f);
  const double bound = op_single(o)               ? BERR_SINGLE
                       : o->dtype == PSCR_C64 ? BERR_COMPLEX
                                                  : BERR_REAL;
  printf("%-22s %dD n=%4d %4d %4d  methods %s%s %s backward error %.2e\n", what, ndim,
         o->pencils[0].n, o->pencils[1].n, ndim == 3 ? o->pencils[2].n : 1, method_name(m0),
         ndim == 3 ? method_name(m1) : "", backend == PSCR_BACKEND_CUDA ? "cuda" : "cpu ", berr);
  ck_assert_msg(berr <= bound, "%s %s%s: backward error %.3e > %.1e", what, method_name(m0),
                method_name(m1), berr, bound);
  /* Again, and in place: bitwise the same. */
  ck_assert_int_eq(pscr_solve(plan, f, u2), PSCR_SUCCESS);
  ck_assert_msg(memcmp(u, u2, N * es) == 0, "%s: a second solve differs", what);
  memcpy(u2, f, N * es);
  ck_assert_int_eq(pscr_solve(plan, u2, u2), PSCR_SUCCESS);
  ck_assert_msg(memcmp(u, u2, N * es) == 0, "%s: the in-place solve differs", what);
  /* A batch of two: each bitwise the single solve. */
  void *f2 = malloc(2 * N * es), *ub = malloc(2 * N * es);
  ck_assert(f2 && ub);
  memcpy(f2, f, N * es);
  memcpy((char *)f2 + N * es, f, N * es);
  ck_assert_int_eq(pscr_solve_batch(plan, 2, f2, N, ub, N), PSCR_SUCCESS);
  ck_assert_msg(memcmp(u, ub, N * es) == 0 && memcmp(u, (char *)ub + N * es, N * es) == 0,
                "%s: a batch differs from the single solve", what);
  free(f2);
  free(ub);
  free(f);
  free(u);
  free(u2);
  pscr_plan_destroy(plan);
  return berr;
}

static double check_methods(op *o, const char *what, pscr_method m0, pscr_method m1)
{
  return check_methods_on(o, what, m0, m1, PSCR_BACKEND_CPU);
}

static const pscr_method vectors[4][2] = {
    {PSCR_METHOD_TRANSFORM, PSCR_METHOD_REDUCTION},
    {PSCR_METHOD_REDUCTION, PSCR_METHOD_TRANSFORM},
    {PSCR_METHOD_TRANSFORM, PSCR_METHOD_TRANSFORM},
    {PSCR_METHOD_REDUCTION, PSCR_METHOD_REDUCTION},
};

static const int sizes_2d[][2] = {{1, 1}, {2, 5}, {5, 6}, {17, 11}, {64, 12}, {70, 70}, {200, 150}};
static const int sizes_3d[][3] = {{1, 1, 1}, {2, 3, 4}, {5, 6, 7}, {17, 3, 5}, {16, 9, 10},
                                  {31, 31, 31}};

/* Each kind of make_op (random pencils) at each size, both 2D vectors
   (transform, and the reduction beside it). */
START_TEST(methods_2d)
{
  const kind k = (kind)_i;
  for (size_t s = 0; s < sizeof sizes_2d / sizeof *sizes_2d; s++) {
    int n[2] = {sizes_2d[s][0], sizes_2d[s][1]};
    if (k == HELMHOLTZ) /* ABC factors need two nodes per dimension */
      n[0] = n[0] < 2 ? 2 : n[0], n[1] = n[1] < 2 ? 2 : n[1];
    op o;
    make_op(&o, k, 2, n, 500u + s);
    check_methods(&o, kind_name[k], PSCR_METHOD_TRANSFORM, PSCR_METHOD_AUTO);
    check_methods(&o, kind_name[k], PSCR_METHOD_REDUCTION, PSCR_METHOD_AUTO);
    op_free(&o);
  }
}
END_TEST

START_TEST(methods_3d)
{
  const kind k = (kind)_i;
  for (size_t s = 0; s < sizeof sizes_3d / sizeof *sizes_3d; s++) {
    int n[3] = {sizes_3d[s][0], sizes_3d[s][1], sizes_3d[s][2]};
    if (k == HELMHOLTZ)
      for (int d = 0; d < 3; d++)
        n[d] = n[d] < 2 ? 2 : n[d];
    op o;
    make_op(&o, k, 3, n, 700u + s);
    for (int v = 0; v < 4; v++)
      check_methods(&o, kind_name[k], vectors[v][0], vectors[v][1]);
    op_free(&o);
  }
}
END_TEST

/* The model problems: uniform and graded Poisson, Helmholtz with the
   absorbing boundary condition (omega 20), 2D and 3D. */
START_TEST(methods_model)
{
  static const struct {
    pscr_problem_kind k;
    int ndim, n[3];
    double grading;
  } cases[] = {
      {PSCR_PROBLEM_POISSON, 2, {127, 100, 1}, 0.0},  {PSCR_PROBLEM_POISSON, 2, {90, 130, 1}, 0.6},
      {PSCR_PROBLEM_HELMHOLTZ, 2, {120, 64, 1}, 0.0}, {PSCR_PROBLEM_POISSON, 3, {24, 20, 18}, 0.0},
      {PSCR_PROBLEM_POISSON, 3, {21, 25, 19}, 0.6},   {PSCR_PROBLEM_HELMHOLTZ, 3, {20, 22, 18}, 0.0},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    op o;
    make_op_model(&o, cases[c].k, cases[c].ndim, cases[c].n, cases[c].grading);
    const char *what = cases[c].k == PSCR_PROBLEM_POISSON
                           ? (cases[c].grading > 0 ? "poisson graded" : "poisson")
                           : "helmholtz abc";
    if (cases[c].ndim == 2) {
      check_methods(&o, what, PSCR_METHOD_TRANSFORM, PSCR_METHOD_AUTO);
      check_methods(&o, what, PSCR_METHOD_REDUCTION, PSCR_METHOD_AUTO);
    } else {
      for (int v = 0; v < 4; v++)
        check_methods(&o, what, vectors[v][0], vectors[v][1]);
    }
    op_free(&o);
  }
}
END_TEST

/* Float plans (built in double, applied in float), real and complex. */
START_TEST(methods_single)
{
  static const int n2[2] = {100, 80}, n3[3] = {20, 18, 16};
  static const kind kinds[2] = {RANDOM_SPD, HELMHOLTZ};
  for (int k = 0; k < 2; k++) {
    op o;
    make_op(&o, kinds[k], 2, n2, 900u + k);
    op_to_single(&o);
    check_methods(&o, kind_name[kinds[k]], PSCR_METHOD_TRANSFORM, PSCR_METHOD_AUTO);
    op_free(&o);
    make_op(&o, kinds[k], 3, n3, 910u + k);
    op_to_single(&o);
    for (int v = 0; v < 3; v++)
      check_methods(&o, kind_name[kinds[k]], vectors[v][0], vectors[v][1]);
    op_free(&o);
  }
}
END_TEST

/*
 * A Toeplitz operator of dtype dt (R64, C64, R32): A_d = tridiag(-1, 2,
 * -1) / h, M_d = h I (consistent = 0: the lumped mass) or h tridiag(1, 4,
 * 1) / 6, h = 1 / (n_d + 1); shift 0 (real) or -30 + 5i (complex).
 */
static void toeplitz_op(op *o, int ndim, const int *n, pscr_dtype dt, int consistent)
{
  memset(o, 0, sizeof *o);
  const int w = dt == PSCR_C64 ? 2 : 1;
  o->dtype = dt == PSCR_R32 ? PSCR_R64 : dt;
  o->ndim = ndim;
  if (w == 2) {
    o->shift[0] = -30;
    o->shift[1] = 5;
  }
  for (int d = 0; d < ndim; d++) {
    const int m = n[d];
    double *s = calloc((size_t)(4 * m + 4) * w, sizeof *s);
    ck_assert_ptr_nonnull(s);
    double *ad = s, *ao = s + (size_t)m * w, *md = s + 2 * (size_t)m * w, *mo = s + 3 * (size_t)m * w;
    const double h = 1.0 / (m + 1);
    for (int i = 0; i < m; i++) {
      ad[i * w] = 2 / h;
      md[i * w] = consistent ? 4 * h / 6 : h;
      if (i + 1 < m) {
        ao[i * w] = -1 / h;
        mo[i * w] = consistent ? h / 6 : 0;
      }
    }
    o->pencils[d] = (pscr_pencil){m, ad, ao, md, mo};
    o->store[d] = s;
  }
  if (dt == PSCR_R32)
    op_to_single(o);
}

/* Plan o with methods m0, m1 on the backend, flags as given; its info's
   transform_sine must be e0, e1; solve f into u; the backward error. */
static double sine_solve(const op *o, pscr_backend backend, pscr_method m0, pscr_method m1,
                         unsigned flags, int e0, int e1, const void *f, void *u, size_t *bytes)
{
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = backend;
  opts.method[0] = m0;
  opts.method[1] = o->ndim == 3 ? m1 : PSCR_METHOD_AUTO;
  opts.flags = flags;
  pscr_plan *plan = NULL;
  pscr_status st = pscr_plan_create(&plan, o->dtype, o->ndim, o->pencils, op_shift(o), &opts);
  ck_assert_msg(st == PSCR_SUCCESS, "plan: %s (%s)", pscr_status_string(st), pscr_last_error());
  pscr_info info;
  ck_assert_int_eq(pscr_plan_info(plan, &info), PSCR_SUCCESS);
  ck_assert_msg(info.transform_sine[0] == e0 && info.transform_sine[1] == e1,
                "%s%s flags 0x%x: transform_sine %d %d, expected %d %d", method_name(m0),
                method_name(m1), flags, info.transform_sine[0], info.transform_sine[1], e0, e1);
  for (int d = 0; d < o->ndim - 1; d++)
    if (info.method[d] == PSCR_METHOD_TRANSFORM)
      ck_assert_msg(info.transform_defect[d] <= 100.0 * o->pencils[d].n * DBL_EPSILON,
                    "dimension %d: defect %.2e", d + 1, info.transform_defect[d]);
  *bytes = info.workspace_bytes;
  st = pscr_solve(plan, f, u);
  ck_assert_msg(st == PSCR_SUCCESS, "solve: %s (%s)", pscr_status_string(st), pscr_last_error());
  /* In place: bitwise the same. */
  const size_t N = tu_size(o->ndim, o->pencils), es = tu_dtype_size(o->dtype);
  void *v = malloc(N * es);
  ck_assert_ptr_nonnull(v);
  memcpy(v, f, N * es);
  ck_assert_int_eq(pscr_solve(plan, v, v), PSCR_SUCCESS);
  ck_assert_msg(memcmp(u, v, N * es) == 0, "the in-place solve differs");
  free(v);
  pscr_plan_destroy(plan);
  return tu_backward_error(o->dtype, o->ndim, o->pencils, op_shift(o), u, f);
}

/* Whether a CUDA plan can be made here (a CUDA build and a device). */
static int cuda_plans(void)
{
  double one = 1.0;
  const pscr_pencil p[2] = {{1, &one, NULL, &one, NULL}, {1, &one, NULL, &one, NULL}};
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CUDA;
  pscr_plan *plan = NULL;
  const double c = 0.0;
  const pscr_status st = pscr_plan_create(&plan, PSCR_R64, 2, p, &c, &opts);
  pscr_plan_destroy(plan);
  return st == PSCR_SUCCESS;
}

/*
 * The fast sine transform of a transformed Toeplitz dimension
 * (pscr_info.transform_sine): on the CPU taken exactly where n_d + 1 is a
 * power of two (in 3D transform x transform only when both are), on CUDA
 * (where there is a device) in 2D only, never with PSCR_FLAG_NO_SINE; its
 * backward error within 10x of the reduction's (and of the bound), its
 * solution that of the dense products to the problem's conditioning.
 */
START_TEST(methods_sine)
{
  const int nbackends = cuda_plans() ? 2 : 1;
  if (nbackends == 1)
    printf("methods_sine: the CUDA backend's not run: no CUDA plan here\n");
  static const struct {
    int ndim, n[3];
    pscr_dtype dt;
    int consistent;
  } cases[] = {
      {2, {127, 100, 1}, PSCR_R64, 0}, {2, {63, 33, 1}, PSCR_R64, 1}, {2, {1, 9, 1}, PSCR_R64, 0},
      {2, {255, 40, 1}, PSCR_C64, 1},  {2, {31, 50, 1}, PSCR_R32, 1}, {2, {100, 30, 1}, PSCR_R64, 0},
      {3, {31, 15, 20}, PSCR_R64, 1},  {3, {15, 7, 9}, PSCR_C64, 0},  {3, {7, 31, 6}, PSCR_R32, 0},
      {3, {31, 20, 9}, PSCR_R64, 1},   {3, {20, 15, 9}, PSCR_C64, 1},
      /* Long last dimensions: on CUDA the partitioned solver for the
         Thomas systems (gpu/tf_part.cuh) at 32, 64, 128 and 512 threads
         per system; complex keeps plain Thomas. */
      {2, {31, 300, 1}, PSCR_R32, 0},  {2, {63, 700, 1}, PSCR_R64, 1},
      {2, {127, 2000, 1}, PSCR_R64, 0}, {2, {15, 4100, 1}, PSCR_R64, 1},
      {2, {31, 400, 1}, PSCR_C64, 1},
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    op o;
    toeplitz_op(&o, cases[c].ndim, cases[c].n, cases[c].dt, cases[c].consistent);
    const size_t N = tu_size(o.ndim, o.pencils), es = tu_dtype_size(o.dtype);
    void *f = random_vector(&o, 31u + c), *u = malloc(N * es), *v = malloc(N * es);
    ck_assert(f && u && v);
    const double eps = op_single(&o) ? FLT_EPSILON : DBL_EPSILON;
    const double bound = op_single(&o)          ? BERR_SINGLE
                         : o.dtype == PSCR_C64 ? BERR_COMPLEX
                                               : BERR_REAL;
    size_t bytes_sine, bytes_dense, bytes_red;
    const double berr_red = sine_solve(&o, PSCR_BACKEND_CPU, PSCR_METHOD_REDUCTION,
                                       PSCR_METHOD_REDUCTION, 0, 0, 0, f, v, &bytes_red);
    int ok[2];
    for (int d = 0; d < 2; d++) {
      const int n = o.pencils[d].n;
      ok[d] = d < o.ndim - 1 && ((n + 1) & n) == 0;
    }
    const int nv = o.ndim == 3 ? 3 : 1;
    for (int vi = 0; vi < nv * nbackends; vi++) {
      const int cuda = vi >= nv;
      const pscr_backend be = cuda ? PSCR_BACKEND_CUDA : PSCR_BACKEND_CPU;
      const pscr_method m0 = o.ndim == 3 ? vectors[vi % nv][0] : PSCR_METHOD_TRANSFORM;
      const pscr_method m1 = o.ndim == 3 ? vectors[vi % nv][1] : PSCR_METHOD_AUTO;
      int e[2] = {m0 == PSCR_METHOD_TRANSFORM && ok[0], m1 == PSCR_METHOD_TRANSFORM && ok[1]};
      if ((m0 == PSCR_METHOD_TRANSFORM && m1 == PSCR_METHOD_TRANSFORM && !(ok[0] && ok[1])) ||
          (cuda && o.ndim == 3))
        e[0] = e[1] = 0;
      const double berr = sine_solve(&o, be, m0, m1, 0, e[0], e[1], f, u, &bytes_sine);
      const double berr_dense =
          sine_solve(&o, be, m0, m1, PSCR_FLAG_NO_SINE, 0, 0, f, v, &bytes_dense);
      const double diff =
          tu_diff_inf(o.dtype, N, u, v) / tu_norm_inf(o.dtype, N, v);
      printf("sine %s %dD n=%4d %4d %4d %s consistent %d methods %s%s sine %d%d: backward error "
             "%.2e (dense %.2e, reduction %.2e), difference %.1e\n",
             cuda ? "cuda" : "cpu ", o.ndim, o.pencils[0].n, o.pencils[1].n,
             o.ndim == 3 ? o.pencils[2].n : 1,
             cases[c].dt == PSCR_R64 ? "R64" : cases[c].dt == PSCR_C64 ? "C64" : "R32",
             cases[c].consistent, method_name(m0), o.ndim == 3 ? method_name(m1) : "", e[0], e[1],
             berr, berr_dense, berr_red, diff);
      ck_assert_msg(berr <= bound && berr <= 10 * fmax(berr_red, eps),
                    "backward error %.2e (reduction %.2e, bound %.1e)", berr, berr_red, bound);
      /* Both solutions are within kappa (berr) of the exact one, kappa the
         condition number of the uniform operator: below (n_max + 1)^2
         (the Laplacian part's extreme eigenvalues, 4 / h^2 against
         pi^2, relative to the mass), times 4 for the norms' ratio. */
      int nmax = 0;
      for (int d = 0; d < o.ndim; d++)
        nmax = o.pencils[d].n > nmax ? o.pencils[d].n : nmax;
      const double kappa = (double)(nmax + 1) * (nmax + 1);
      ck_assert_msg(diff <= 4 * kappa * (berr + berr_dense), "sine vs dense products: %.2e (bound "
                    "%.2e)", diff, 4 * kappa * (berr + berr_dense));
      if (!e[0] && !e[1]) /* the same plan but for the flag */
        ck_assert_uint_eq(bytes_sine, bytes_dense);
    }
    free(f);
    free(u);
    free(v);
    op_free(&o);
  }
}
END_TEST

/* Bad method values: INVALID_VALUE naming the field. A mixed vector on
   the CUDA backend: a plan where there is a device, else NOT_SUPPORTED (no
   CUDA in the build, no device); with the AUTO backend it lands on
   whichever took it. */
START_TEST(methods_bad_input)
{
  op o;
  const int n[3] = {8, 6, 5};
  make_op(&o, POISSON, 3, n, 3);
  pscr_options opts;
  pscr_plan *plan = NULL;
  pscr_options_init(&opts);
  opts.method[0] = (pscr_method)7;
  ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, 3, o.pencils, op_shift(&o), &opts),
                   PSCR_ERROR_INVALID_VALUE);
  ck_assert_ptr_null(plan);
  ck_assert_msg(strstr(pscr_last_error(), "method[0] is 7") == pscr_last_error(), "%s",
                pscr_last_error());
  pscr_options_init(&opts);
  opts.method[1] = (pscr_method)-1;
  ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, 3, o.pencils, op_shift(&o), &opts),
                   PSCR_ERROR_INVALID_VALUE);
  ck_assert_msg(strstr(pscr_last_error(), "method[1] is -1") == pscr_last_error(), "%s",
                pscr_last_error());
  /* 2D: method[1] must stay AUTO. */
  pscr_options_init(&opts);
  opts.method[1] = PSCR_METHOD_TRANSFORM;
  ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, 2, o.pencils, op_shift(&o), &opts),
                   PSCR_ERROR_INVALID_VALUE);
  ck_assert_msg(strstr(pscr_last_error(), "method[1] is 2, but a 2D plan") == pscr_last_error(),
                "%s", pscr_last_error());
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CUDA;
  opts.planner = PSCR_PLANNER_NONE; /* AUTO: the reduction */
  opts.method[0] = PSCR_METHOD_TRANSFORM;
  const pscr_status cuda = pscr_plan_create(&plan, o.dtype, 3, o.pencils, op_shift(&o), &opts);
  ck_assert_msg(cuda == PSCR_SUCCESS || cuda == PSCR_ERROR_NOT_SUPPORTED, "%s",
                pscr_status_string(cuda));
  ck_assert(cuda == PSCR_SUCCESS || plan == NULL);
  pscr_plan_destroy(plan);
  opts.backend = PSCR_BACKEND_AUTO;
  ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, 3, o.pencils, op_shift(&o), &opts),
                   PSCR_SUCCESS);
  pscr_info info;
  ck_assert_int_eq(pscr_plan_info(plan, &info), PSCR_SUCCESS);
  ck_assert_int_eq(info.backend, cuda == PSCR_SUCCESS ? PSCR_BACKEND_CUDA : PSCR_BACKEND_CPU);
  ck_assert(info.method[0] == PSCR_METHOD_TRANSFORM && info.method[1] == PSCR_METHOD_REDUCTION);
  pscr_plan_destroy(plan);
  op_free(&o);
}
END_TEST

/* The methods a plan of o with planner ESTIMATE (CPU) resolves AUTO to,
   after a solve that meets the reduction's bound. */
static void estimate_flags(op *o, pscr_method m0, unsigned flags, pscr_method got[2])
{
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CPU;
  opts.planner = PSCR_PLANNER_ESTIMATE;
  opts.method[0] = m0;
  opts.flags = flags;
  pscr_plan *plan = NULL;
  ck_assert_int_eq(pscr_plan_create(&plan, o->dtype, o->ndim, o->pencils, op_shift(o), &opts),
                   PSCR_SUCCESS);
  pscr_info info;
  ck_assert_int_eq(pscr_plan_info(plan, &info), PSCR_SUCCESS);
  got[0] = info.method[0];
  got[1] = info.method[1];
  const size_t N = tu_size(o->ndim, o->pencils), es = tu_dtype_size(o->dtype);
  void *f = random_vector(o, 5), *u = malloc(N * es);
  ck_assert_int_eq(pscr_solve(plan, f, u), PSCR_SUCCESS);
  const double berr = tu_backward_error(o->dtype, o->ndim, o->pencils, op_shift(o), u, f);
  ck_assert_msg(berr <= (o->dtype == PSCR_C64 ? BERR_COMPLEX : BERR_REAL),
                "estimated plan: backward error %.3e", berr);
  free(f);
  free(u);
  pscr_plan_destroy(plan);
}

static void estimate(op *o, pscr_method m0, pscr_method got[2])
{
  estimate_flags(o, m0, 0, got);
}

/* PSCR_PLANNER_ESTIMATE on the CPU, where the model's margins are wide
   (docs/performance.md; both rates scale with the threads, so the choice
   does not depend on their count): 3D Poisson 64^3 transformed in both
   dimensions (modelled about 6x faster than reduced), 2D 127^2
   transformed, 2D 2047^2 transformed by the sine transform (2-core VM:
   17 ms against the reduction's 80 ms) but reduced with PSCR_FLAG_NO_SINE
   (the products modelled 4x slower, measured 320 ms); a forced entry
   stays; PSCR_PLANNER_NONE keeps the reduction. */
START_TEST(planner_estimate)
{
  pscr_method got[2];
  op o;
  const int n3[3] = {64, 64, 64}, n2a[2] = {127, 127}, n2b[2] = {2047, 2047};
  make_op_model(&o, PSCR_PROBLEM_POISSON, 3, n3, 0.0);
  estimate(&o, PSCR_METHOD_AUTO, got);
  ck_assert_msg(got[0] == PSCR_METHOD_TRANSFORM && got[1] == PSCR_METHOD_TRANSFORM,
                "3D 64^3: methods %d %d", got[0], got[1]);
  estimate(&o, PSCR_METHOD_REDUCTION, got);
  ck_assert_int_eq(got[0], PSCR_METHOD_REDUCTION);
  ck_assert_int_ne(got[1], PSCR_METHOD_AUTO);
  op_free(&o);
  make_op_model(&o, PSCR_PROBLEM_POISSON, 2, n2a, 0.0);
  estimate(&o, PSCR_METHOD_AUTO, got);
  ck_assert_int_eq(got[0], PSCR_METHOD_TRANSFORM);
  ck_assert_int_eq(got[1], PSCR_METHOD_AUTO);
  op_free(&o);
  make_op_model(&o, PSCR_PROBLEM_POISSON, 2, n2b, 0.0);
  estimate(&o, PSCR_METHOD_AUTO, got);
  ck_assert_int_eq(got[0], PSCR_METHOD_TRANSFORM);
  estimate_flags(&o, PSCR_METHOD_AUTO, PSCR_FLAG_NO_SINE, got);
  ck_assert_int_eq(got[0], PSCR_METHOD_REDUCTION);
  op_free(&o);

  /* The default planner is ESTIMATE (both dimensions transformed, as
     above); with PSCR_PLANNER_NONE AUTO is the reduction. */
  make_op_model(&o, PSCR_PROBLEM_POISSON, 3, n3, 0.0);
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CPU;
  ck_assert_int_eq(opts.planner, PSCR_PLANNER_ESTIMATE);
  pscr_plan *plan = NULL;
  ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, 3, o.pencils, op_shift(&o), &opts),
                   PSCR_SUCCESS);
  pscr_info info;
  ck_assert_int_eq(pscr_plan_info(plan, &info), PSCR_SUCCESS);
  ck_assert(info.method[0] == PSCR_METHOD_TRANSFORM && info.method[1] == PSCR_METHOD_TRANSFORM);
  pscr_plan_destroy(plan);
  ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, 3, o.pencils, op_shift(&o), NULL),
                   PSCR_SUCCESS); /* no options: the defaults (AUTO backend) */
  ck_assert_int_eq(pscr_plan_info(plan, &info), PSCR_SUCCESS);
  ck_assert_int_eq(info.ncandidates, 4); /* the planner ran (NONE lists none) */
  ck_assert_int_ge(info.chosen, 0);
  pscr_plan_destroy(plan);
  opts.planner = PSCR_PLANNER_NONE;
  ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, 3, o.pencils, op_shift(&o), &opts),
                   PSCR_SUCCESS);
  ck_assert_int_eq(pscr_plan_info(plan, &info), PSCR_SUCCESS);
  ck_assert(info.method[0] == PSCR_METHOD_REDUCTION && info.method[1] == PSCR_METHOD_REDUCTION);
  pscr_plan_destroy(plan);
  /* AUTO backend with ESTIMATE: a CUDA plan (where there is a device)
     takes any of the four vectors, all of which that backend runs; the
     CPU's margins are those above. */
  opts.backend = PSCR_BACKEND_AUTO;
  opts.planner = PSCR_PLANNER_ESTIMATE;
  ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, 3, o.pencils, op_shift(&o), &opts),
                   PSCR_SUCCESS);
  ck_assert_int_eq(pscr_plan_info(plan, &info), PSCR_SUCCESS);
  if (info.backend == PSCR_BACKEND_CUDA)
    ck_assert(info.method[0] != PSCR_METHOD_AUTO && info.method[1] != PSCR_METHOD_AUTO);
  else
    ck_assert(info.method[0] == PSCR_METHOD_TRANSFORM &&
              info.method[1] == PSCR_METHOD_TRANSFORM);
  printf("planner ESTIMATE, AUTO backend, 3D Poisson 64^3: %s, methods %s%s\n",
         info.backend == PSCR_BACKEND_CUDA ? "cuda" : "cpu", method_name(info.method[0]),
         method_name(info.method[1]));
  pscr_plan_destroy(plan);
  /* An unknown planner. */
  opts.planner = (pscr_planner)3;
  ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, 3, o.pencils, op_shift(&o), &opts),
                   PSCR_ERROR_INVALID_VALUE);
  ck_assert_msg(strstr(pscr_last_error(), "planner is 3") == pscr_last_error(), "%s",
                pscr_last_error());
  /* device_only: 0 or 1, and 1 only with backend CUDA (test_cuda's
     device_only runs such plans). */
  opts.planner = PSCR_PLANNER_ESTIMATE;
  static const struct {
    pscr_backend backend;
    int device_only;
    const char *cause;
  } only[] = {{PSCR_BACKEND_CPU, 1, "device_only is 1, but it needs backend"},
              {PSCR_BACKEND_AUTO, 1, "device_only is 1, but it needs backend"},
              {PSCR_BACKEND_CUDA, 2, "device_only is 2, must be 0 or 1"},
              {PSCR_BACKEND_CPU, -1, "device_only is -1, must be 0 or 1"}};
  for (size_t i = 0; i < sizeof only / sizeof *only; i++) {
    opts.backend = only[i].backend;
    opts.device_only = only[i].device_only;
    plan = NULL;
    ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, 3, o.pencils, op_shift(&o), &opts),
                     PSCR_ERROR_INVALID_VALUE);
    ck_assert(plan == NULL);
    ck_assert_msg(strstr(pscr_last_error(), only[i].cause) == pscr_last_error(), "%s",
                  pscr_last_error());
  }
  op_free(&o);
}
END_TEST

#if PSCR_HAVE_CUDA
static const char *dtype_name(pscr_dtype t)
{
  return t == PSCR_R64 ? "R64" : t == PSCR_C64 ? "C64" : t == PSCR_R32 ? "R32" : "C32";
}

/* A plan of o with methods m0, m1 (m1 AUTO in 2D) on backend b, max_batch mb. */
static pscr_plan *plan_methods(const op *o, pscr_method m0, pscr_method m1, pscr_backend b,
                               int mb)
{
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = b;
  opts.max_batch = mb;
  opts.method[0] = m0;
  opts.method[1] = o->ndim == 3 ? m1 : PSCR_METHOD_AUTO;
  pscr_plan *plan = NULL;
  const pscr_status st =
      pscr_plan_create(&plan, o->dtype, o->ndim, o->pencils, op_shift(o), &opts);
  ck_assert_msg(st == PSCR_SUCCESS, "%s%s on %s: plan: %s (%s)", method_name(m0),
                method_name(m1), b == PSCR_BACKEND_CUDA ? "cuda" : "cpu", pscr_status_string(st),
                pscr_last_error());
  return plan;
}

/* Normwise relative difference max |x - y| / max |y| of n entries. */
static double rel_diff(const op *o, size_t n, const void *x, const void *y)
{
  const double ny = tu_norm_inf(o->dtype, n, y);
  return tu_diff_inf(o->dtype, n, x, y) / (ny > 0 ? ny : 1);
}

/* Right-hand sides of a batch whose u_r differ bitwise from their single
   solves, and solutions further from the CPU's than the bound, over the
   whole test (reported where they occur, asserted at the end so that one
   run names them all). */
static int batch_mismatches, cpu_mismatches;

static void check_batch_entry(const char *what, const char *how, int r, const op *o, size_t N,
                              const void *got, const void *want)
{
  const size_t es = tu_dtype_size(o->dtype);
  if (memcmp(got, want, N * es) == 0)
    return;
  batch_mismatches++;
  printf("MISMATCH %s: %s right-hand side %d differs from its single solve (relative %.2e)\n",
         what, how, r, rel_diff(o, N, got, want));
  fflush(stdout);
}

/* Device arrays: host x (count vectors, ld apart) to a new device array. */
static void *to_device(const void *x, size_t bytes)
{
  void *d = NULL;
  ck_assert_int_eq(cudaMalloc(&d, bytes), cudaSuccess);
  ck_assert_int_eq(cudaMemcpy(d, x, bytes, cudaMemcpyHostToDevice), cudaSuccess);
  return d;
}

static void from_device(void *x, const void *d, size_t bytes)
{
  ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
  ck_assert_int_eq(cudaMemcpy(x, d, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
}

/*
 * Method vector m0, m1 of o on the CUDA backend (max_batch 3): a host solve
 * meets the CPU's backward-error bound and matches the CPU backend's
 * solution of the same vector (normwise, REL_CPU_*; the one known gap is
 * printed); a second solve, an
 * in-place solve, device-array solves (pscr_solve_device, in place too)
 * repeat it bitwise; batches of 3 with ldf, ldu > N (host, device, device
 * in place) give each right-hand side its single solve's bits.
 */
#define REL_CPU_DOUBLE 1e-12
#define REL_CPU_SINGLE 1e-4
static void check_cuda_vector(op *o, const char *what, pscr_method m0, pscr_method m1)
{
  const int ndim = o->ndim;
  const size_t N = tu_size(ndim, o->pencils), es = tu_dtype_size(o->dtype), bytes = N * es;
  const size_t ldf = N + 3, ldu = N + 5;
  char label[96];
  snprintf(label, sizeof label, "%s %dD %dx%dx%d %s%s %s", what, ndim, o->pencils[0].n,
           o->pencils[1].n, ndim == 3 ? o->pencils[2].n : 1, method_name(m0),
           ndim == 3 ? method_name(m1) : "", dtype_name(o->dtype));
  pscr_plan *gpu = plan_methods(o, m0, m1, PSCR_BACKEND_CUDA, 3);
  pscr_plan *cpu = plan_methods(o, m0, m1, PSCR_BACKEND_CPU, 1);
  pscr_info info;
  ck_assert_int_eq(pscr_plan_info(gpu, &info), PSCR_SUCCESS);
  ck_assert_int_eq(info.backend, PSCR_BACKEND_CUDA);
  ck_assert_int_eq(info.method[0], m0);
  ck_assert_int_eq(info.method[1], ndim == 3 ? m1 : PSCR_METHOD_AUTO);
  ck_assert(info.device_bytes > 0 && info.cost_total.flops > 0);

  void *f[3], *u[3], *uc = malloc(bytes), *w = malloc(bytes);
  void *F = malloc(3 * ldf * es), *U = malloc(3 * ldu * es);
  ck_assert(uc && w && F && U);
  for (int r = 0; r < 3; r++) {
    f[r] = random_vector(o, 77 + (uint64_t)r);
    u[r] = malloc(bytes);
    ck_assert_ptr_nonnull(u[r]);
    const pscr_status st = pscr_solve(gpu, f[r], u[r]);
    ck_assert_msg(st == PSCR_SUCCESS, "%s %s%s: cuda solve: %s (%s)", what, method_name(m0),
                  method_name(m1), pscr_status_string(st), pscr_last_error());
    memcpy((char *)F + (size_t)r * ldf * es, f[r], bytes);
  }
  const double berr = tu_backward_error(o->dtype, ndim, o->pencils, op_shift(o), u[0], f[0]);
  const double bound = op_single(o)               ? BERR_SINGLE
                       : o->dtype == PSCR_C64 ? BERR_COMPLEX
                                                  : BERR_REAL;
  ck_assert_int_eq(pscr_solve(cpu, f[0], uc), PSCR_SUCCESS);
  const double rel = rel_diff(o, N, u[0], uc);
  const double berr_cpu = tu_backward_error(o->dtype, ndim, o->pencils, op_shift(o), uc, f[0]);
  /* The CUDA solution within a fixed distance of the CPU's. One known
     gap is exempt and printed, never hidden: the 2D reduction's float
     level 3 loses to the CPU's (Helmholtz 17 x 11, C32: backward error
     2.9e-5 against 1.1e-7, solutions 4.0e-4 apart, H200; docs/
     performance.md, Known open findings); it still meets the
     backward-error bound above. Every transform path meets the fixed
     bound. */
  const double rel_bound = op_single(o) ? REL_CPU_SINGLE : REL_CPU_DOUBLE;
  const int known_gap = ndim == 2 && m0 == PSCR_METHOD_REDUCTION && op_single(o);
  printf("%-22s %dD n=%4d %4d %4d  methods %s%s %s cpu berr %.2e cuda backward error %.2e, vs "
         "cpu %.2e\n",
         what, ndim, o->pencils[0].n, o->pencils[1].n, ndim == 3 ? o->pencils[2].n : 1,
         method_name(m0), ndim == 3 ? method_name(m1) : "", dtype_name(o->dtype), berr_cpu, berr,
         rel);
  fflush(stdout);
  ck_assert_msg(berr <= bound, "%s %s%s cuda: backward error %.3e > %.1e", what,
                method_name(m0), method_name(m1), berr, bound);
  if (!(rel <= rel_bound) && known_gap)
    printf("KNOWN GAP %s: cuda and cpu solutions differ by %.3e > %.2e (cuda backward error "
           "%.2e, cpu %.2e)\n",
           label, rel, rel_bound, berr, berr_cpu);
  else if (!(rel <= rel_bound)) {
    cpu_mismatches++;
    printf("MISMATCH %s: cuda and cpu solutions differ by %.3e > %.2e\n", label, rel,
           rel_bound);
  }

  /* Host arrays: again, in place, a batch. */
  ck_assert_int_eq(pscr_solve(gpu, f[0], w), PSCR_SUCCESS);
  ck_assert_msg(memcmp(u[0], w, bytes) == 0, "%s: a second cuda solve differs", what);
  memcpy(w, f[0], bytes);
  ck_assert_int_eq(pscr_solve(gpu, w, w), PSCR_SUCCESS);
  ck_assert_msg(memcmp(u[0], w, bytes) == 0, "%s: the in-place cuda solve differs", what);
  ck_assert_int_eq(pscr_solve_batch(gpu, 3, F, ldf, U, ldu), PSCR_SUCCESS);
  for (int r = 0; r < 3; r++)
    check_batch_entry(label, "host batch", r, o, N, (char *)U + (size_t)r * ldu * es, u[r]);

  /* Device arrays: one, in place, a batch, a batch in place. */
  void *dF = to_device(F, 3 * ldf * es), *dU = NULL;
  ck_assert_int_eq(cudaMalloc(&dU, 3 * ldu * es), cudaSuccess);
  ck_assert_int_eq(cudaMemset(dU, 0xff, 3 * ldu * es), cudaSuccess);
  ck_assert_int_eq(pscr_solve_device(gpu, dF, dU, NULL), PSCR_SUCCESS);
  from_device(w, dU, bytes);
  ck_assert_msg(memcmp(u[0], w, bytes) == 0, "%s: the device solve differs", what);
  void *dW = to_device(f[0], bytes);
  ck_assert_int_eq(pscr_solve_device(gpu, dW, dW, NULL), PSCR_SUCCESS);
  from_device(w, dW, bytes);
  ck_assert_msg(memcmp(u[0], w, bytes) == 0, "%s: the in-place device solve differs", what);
  ck_assert_int_eq(pscr_solve_device_batch(gpu, 3, dF, ldf, dU, ldu, NULL), PSCR_SUCCESS);
  from_device(U, dU, 3 * ldu * es);
  for (int r = 0; r < 3; r++)
    check_batch_entry(label, "device batch", r, o, N, (char *)U + (size_t)r * ldu * es, u[r]);
  ck_assert_int_eq(pscr_solve_device_batch(gpu, 3, dF, ldf, dF, ldf, NULL), PSCR_SUCCESS);
  from_device(F, dF, 3 * ldf * es);
  for (int r = 0; r < 3; r++)
    check_batch_entry(label, "device batch in place", r, o, N, (char *)F + (size_t)r * ldf * es,
                      u[r]);
  cudaFree(dF);
  cudaFree(dU);
  cudaFree(dW);
  for (int r = 0; r < 3; r++) {
    free(f[r]);
    free(u[r]);
  }
  free(uc);
  free(w);
  free(F);
  free(U);
  pscr_plan_destroy(gpu);
  pscr_plan_destroy(cpu);
}

/* Every 3D vector on CUDA with shifted systems that are singular (n1 = n2
   = 1: lambda1 = 2 and lambda2 = 3 exactly, c = -5 leaves A3 = [[1, 1],
   [1, 1]]): the pivot probe finds them, host solves report
   PSCR_ERROR_SINGULAR and every solve, host or device, gives NaN. */
static void check_cuda_singular(void)
{
  double a1 = 2.0, a2 = 3.0, one = 1.0, c = -5.0;
  double a3d[2] = {1.0, 1.0}, a3o[1] = {1.0}, m3d[2] = {1.0, 1.0};
  const pscr_pencil p[3] = {
      {1, &a1, NULL, &one, NULL}, {1, &a2, NULL, &one, NULL}, {2, a3d, a3o, m3d, NULL}};
  for (int v = 0; v < 4; v++) {
    pscr_options opts;
    pscr_options_init(&opts);
    opts.backend = PSCR_BACKEND_CUDA;
    opts.method[0] = vectors[v][0];
    opts.method[1] = vectors[v][1];
    pscr_plan *plan = NULL;
    ck_assert_int_eq(pscr_plan_create(&plan, PSCR_R64, 3, p, &c, &opts), PSCR_SUCCESS);
    double f[2] = {1.0, 2.0}, u[2] = {5.0, 5.0};
    const pscr_status st = pscr_solve(plan, f, u);
    ck_assert_msg(st == PSCR_ERROR_SINGULAR, "%s%s: got %s", method_name(vectors[v][0]),
                  method_name(vectors[v][1]), pscr_status_string(st));
    ck_assert(isnan(u[0]) && isnan(u[1]));
    void *df = to_device(f, sizeof f), *du = NULL;
    ck_assert_int_eq(cudaMalloc(&du, sizeof u), cudaSuccess);
    (void)pscr_solve_device(plan, df, du, NULL); /* the status of a device solve may be either */
    from_device(u, du, sizeof u);
    ck_assert(isnan(u[0]) && isnan(u[1]));
    cudaFree(df);
    cudaFree(du);
    pscr_plan_destroy(plan);
  }
}
#endif

#if PSCR_HAVE_CUDA
/* f solved on CUDA by method vector m0, m1, without (u[0]) and with
   (u[1]) the flag: the two paths a flag switches between. */
static void solve_flag_pair(const op *o, pscr_method m0, pscr_method m1, unsigned flag,
                            const void *f, void *u[2])
{
  for (int k = 0; k < 2; k++) {
    pscr_options opts;
    pscr_options_init(&opts);
    opts.backend = PSCR_BACKEND_CUDA;
    opts.method[0] = m0;
    opts.method[1] = o->ndim == 3 ? m1 : PSCR_METHOD_AUTO;
    opts.flags = k ? flag : 0;
    pscr_plan *plan = NULL;
    ck_assert_int_eq(pscr_plan_create(&plan, o->dtype, o->ndim, o->pencils, op_shift(o), &opts),
                     PSCR_SUCCESS);
    ck_assert_int_eq(pscr_solve(plan, f, u[k]), PSCR_SUCCESS);
    pscr_plan_destroy(plan);
  }
}

/* PSCR_FLAG_CUDA_NO_TWIST: the transforms' Thomas systems by plain Thomas
   where the default takes the twisted factorization (few systems, rows
   >= 16): the same solution to rounding (the twisted pivots differ). */
static void check_cuda_twist(op *o, pscr_method m0, pscr_method m1)
{
  const size_t N = tu_size(o->ndim, o->pencils), bytes = N * tu_dtype_size(o->dtype);
  void *f = random_vector(o, 91), *u[2] = {malloc(bytes), malloc(bytes)};
  ck_assert(u[0] && u[1]);
  solve_flag_pair(o, m0, m1, PSCR_FLAG_CUDA_NO_TWIST, f, u);
  const double rel = rel_diff(o, N, u[0], u[1]);
  const double berr = tu_backward_error(o->dtype, o->ndim, o->pencils, op_shift(o), u[0], f);
  printf("twisted vs plain Thomas, %dD %dx%dx%d %s%s %s: relative difference %.2e, backward "
         "error %.2e\n",
         o->ndim, o->pencils[0].n, o->pencils[1].n, o->ndim == 3 ? o->pencils[2].n : 1,
         method_name(m0), o->ndim == 3 ? method_name(m1) : "", dtype_name(o->dtype), rel, berr);
  ck_assert_msg(rel <= (op_single(o) ? REL_CPU_SINGLE : REL_CPU_DOUBLE),
                "twisted and plain Thomas differ by %.3e", rel);
  free(f);
  free(u[0]);
  free(u[1]);
}
#endif

#if PSCR_HAVE_CUDA
/* PSCR_FLAG_CUDA_TF_NO_PARTITION: a 2D sine transform's Thomas systems by
   the plain kernel where the default takes the partitioned solver (real,
   dominant, 257 to 8192 rows): the same solution to rounding, and not
   bitwise (the default did take the other path). */
static void check_cuda_partition(op *o)
{
  const size_t N = tu_size(o->ndim, o->pencils), bytes = N * tu_dtype_size(o->dtype);
  void *f = random_vector(o, 93), *u[2] = {malloc(bytes), malloc(bytes)};
  ck_assert(u[0] && u[1]);
  solve_flag_pair(o, PSCR_METHOD_TRANSFORM, PSCR_METHOD_AUTO, PSCR_FLAG_CUDA_TF_NO_PARTITION, f,
                  u);
  const double rel = rel_diff(o, N, u[0], u[1]);
  const double berr = tu_backward_error(o->dtype, o->ndim, o->pencils, op_shift(o), u[0], f);
  printf("partitioned vs plain Thomas, 2D %dx%d %s: relative difference %.2e, backward error "
         "%.2e\n",
         o->pencils[0].n, o->pencils[1].n, dtype_name(o->dtype), rel, berr);
  ck_assert_msg(rel <= (op_single(o) ? REL_CPU_SINGLE : REL_CPU_DOUBLE),
                "partitioned and plain Thomas differ by %.3e", rel);
  ck_assert_msg(memcmp(u[0], u[1], bytes) != 0,
                "the default solution has the plain kernel's bits: no partitioned solve");
  free(f);
  free(u[0]);
  free(u[1]);
}
#endif

/* The CUDA backend takes every method vector (2D T and R; 3D the four),
   every dtype, where there is a device. */
START_TEST(methods_cuda)
{
#if !PSCR_HAVE_CUDA
  printf("methods_cuda: not run: this build has no CUDA backend\n");
#else
  op o;
  const int n3[3] = {9, 10, 11};
  make_op(&o, POISSON, 3, n3, 1);
  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = PSCR_BACKEND_CUDA;
  pscr_plan *plan = NULL;
  pscr_status st = pscr_plan_create(&plan, o.dtype, 3, o.pencils, op_shift(&o), &opts);
  pscr_plan_destroy(plan);
  op_free(&o);
  if (st == PSCR_ERROR_NOT_SUPPORTED) {
    printf("methods_cuda: not run: %s\n", pscr_last_error());
    return;
  }
  ck_assert_int_eq(st, PSCR_SUCCESS);
  /* The transforms' products of m n k <= 2^22 run on pscr's small-product
     kernel (gpu/small_gemm.cuh), larger ones on cuBLAS: 2D 200 x 150 and
     3D 70 x 65 x 33 take cuBLAS for every product, the others the kernel. */
  static const int sizes2[][2] = {{1, 1}, {5, 6}, {17, 11}, {64, 12}, {200, 150}};
  static const int sizes3[][3] = {{1, 1, 1},    {5, 6, 7},    {17, 3, 5},
                                  {31, 31, 31}, {40, 33, 37}, {70, 65, 33}};
  batch_mismatches = cpu_mismatches = 0;
  for (int k = 0; k < NKINDS; k++)
    for (int single = 0; single < 2; single++) {
      for (size_t i = 0; i < sizeof sizes2 / sizeof *sizes2; i++) {
        int n[2] = {sizes2[i][0], sizes2[i][1]};
        if (k == HELMHOLTZ)
          n[0] = n[0] < 2 ? 2 : n[0], n[1] = n[1] < 2 ? 2 : n[1];
        make_op(&o, (kind)k, 2, n, 40u + i);
        if (single)
          op_to_single(&o);
        check_cuda_vector(&o, kind_name[k], PSCR_METHOD_TRANSFORM, PSCR_METHOD_AUTO);
        check_cuda_vector(&o, kind_name[k], PSCR_METHOD_REDUCTION, PSCR_METHOD_AUTO);
        op_free(&o);
      }
      for (size_t i = 0; i < sizeof sizes3 / sizeof *sizes3; i++) {
        int n[3] = {sizes3[i][0], sizes3[i][1], sizes3[i][2]};
        if (k == HELMHOLTZ)
          for (int d = 0; d < 3; d++)
            n[d] = n[d] < 2 ? 2 : n[d];
        make_op(&o, (kind)k, 3, n, 60u + i);
        if (single)
          op_to_single(&o);
        for (int v = 0; v < 4; v++)
          check_cuda_vector(&o, kind_name[k], vectors[v][0], vectors[v][1]);
        op_free(&o);
      }
    }
  { /* Uniform pencils with a long last dimension: the sine transform and
       the partitioned solver of the Thomas systems (gpu/tf_part.cuh), on
       host and device arrays, batches, in place, against the CPU. The
       shift 1e8 (above 3 / h^2, where the mass term dominates) keeps the
       operator well conditioned, so that two correct solutions stay within
       REL_CPU_*; methods_sine covers the unshifted ones by their
       conditioning. */
    static const struct {
      int n[3];
      pscr_dtype dt;
    } tz[] = {{{63, 700, 1}, PSCR_R64}, {{31, 300, 1}, PSCR_R32}, {{15, 4100, 1}, PSCR_R64}};
    for (size_t i = 0; i < sizeof tz / sizeof *tz; i++) {
      toeplitz_op(&o, 2, tz[i].n, tz[i].dt, 1);
      o.shift[0] = 1e8;
      o.shift32[0] = 1e8f;
      check_cuda_vector(&o, "uniform", PSCR_METHOD_TRANSFORM, PSCR_METHOD_AUTO);
      check_cuda_partition(&o);
      op_free(&o);
    }
  }
  check_cuda_singular();
  { /* n1 = 1, n2 past 16 x 65535: the first product's tiles of n would
       exceed the grid's y limit of small_gemm (small_gemm_fits). Random
       SPD pencils: their 1.1M-row systems are well conditioned, so the
       CPU and CUDA solutions stay within REL_CPU_DOUBLE (a Poisson
       pencil's have condition numbers near n^2 = 1e12, where two correct
       solutions may differ by far more). */
    const int nb[2] = {1, 1100000};
    make_op(&o, RANDOM_SPD, 2, nb, 9);
    check_cuda_vector(&o, kind_name[RANDOM_SPD], PSCR_METHOD_TRANSFORM, PSCR_METHOD_AUTO);
    op_free(&o);
  }
  {
    const int t2[2] = {200, 150}, t2b[2] = {300, 257};
    for (int single = 0; single < 2; single++) {
      make_op(&o, HELMHOLTZ, 2, t2, 7);
      if (single)
        op_to_single(&o);
      check_cuda_twist(&o, PSCR_METHOD_TRANSFORM, PSCR_METHOD_AUTO);
      op_free(&o);
    }
    make_op(&o, RANDOM_SPD, 2, t2b, 8);
    check_cuda_twist(&o, PSCR_METHOD_TRANSFORM, PSCR_METHOD_AUTO);
    op_free(&o);
  }
  /* A mixed vector with the AUTO backend runs on the device. */
  make_op(&o, POISSON, 3, n3, 1);
  opts.backend = PSCR_BACKEND_AUTO;
  opts.method[0] = PSCR_METHOD_TRANSFORM;
  opts.method[1] = PSCR_METHOD_REDUCTION;
  ck_assert_int_eq(pscr_plan_create(&plan, o.dtype, 3, o.pencils, op_shift(&o), &opts),
                   PSCR_SUCCESS);
  pscr_info info;
  ck_assert_int_eq(pscr_plan_info(plan, &info), PSCR_SUCCESS);
  ck_assert_int_eq(info.backend, PSCR_BACKEND_CUDA);
  /* Profiling: not for a plan with a transformed dimension. */
  void *df = NULL;
  double ms[PSCR_STAGE_COUNT];
  ck_assert_int_eq(cudaMalloc(&df, tu_size(3, o.pencils) * sizeof(double)), cudaSuccess);
  ck_assert_int_eq(pscr_solve_device_profile(plan, df, df, NULL, ms), PSCR_ERROR_NOT_SUPPORTED);
  cudaFree(df);
  pscr_plan_destroy(plan);
  op_free(&o);
  ck_assert_msg(cpu_mismatches == 0, "%d solutions differ from the CPU's (MISMATCH lines above)",
                cpu_mismatches);
  ck_assert_msg(batch_mismatches == 0,
                "%d right-hand sides of batches differ from their single solves (MISMATCH "
                "lines above)",
                batch_mismatches);
#endif
}
END_TEST

static Suite *methods_suite(void)
{
  Suite *s = suite_create("methods");
  TCase *tc = tcase_create("methods");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, methods_2d, 0, NKINDS);
  tcase_add_loop_test(tc, methods_3d, 0, NKINDS);
  tcase_add_test(tc, methods_model);
  tcase_add_test(tc, methods_single);
  tcase_add_test(tc, methods_sine);
  tcase_add_test(tc, methods_bad_input);
  tcase_add_test(tc, planner_estimate);
  suite_add_tcase(s, tc);
  /* A case of its own, so that CK_RUN_CASE=cuda runs it alone (memcheck). */
  TCase *tc_cuda = tcase_create("cuda");
  tcase_set_timeout(tc_cuda, 600);
  tcase_add_test(tc_cuda, methods_cuda);
  suite_add_tcase(s, tc_cuda);
  return s;
}

int main(void) { return tu_run_suite(methods_suite()); }

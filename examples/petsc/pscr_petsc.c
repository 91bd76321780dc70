/*
 * pscr-petsc: pscr as a PETSc preconditioner (PCSHELL), compared in the same
 * run with PETSc's own preconditioners, all inside KSPCG, on pscr-pcg's
 * problem (examples/pcg_kappa.c describes it):
 *
 *   -div(kappa grad u) = 1 on (0,1)^2, u = 0 on the boundary,
 *
 * P1 FE on a tensor mesh (the 5-point stencil of pcg_problem.c, whose edge
 * weights are assembled here into a sequential PETSc AIJ matrix), kappa an
 * 8 x 8 checkerboard, a smooth bump or a random field with contrast 1e3.
 *
 * Preconditioners (-methods, comma-separated; each KSP gets the options
 * prefix "<name>_", so e.g. -gamg_pc_gamg_threshold 0.02 tunes one of them):
 *   pscr1   PCSHELL: one pscr_solve (CPU backend, 1 thread) with
 *           P = kbar (A1 (x) M2 + M1 (x) A2) on the Vec arrays; the plan is
 *           created in the shell's setup callback, so PCSetUp times it;
 *   pscr    the same with all OpenMP threads (pscr_options.num_threads 0);
 *   pscr1s  the diagonally scaled variant S P^-1 S of pscr-pcg (1 thread;
 *           S = (diag(P) / diag(A))^1/2): for smooth kappa (-kappa bump);
 *   gamg, gamg2  PCGAMG (smoothed aggregation; PETSc defaults unless tuned
 *           through their prefixes);
 *   hypre   PCHYPRE BoomerAMG (when PETSc was configured with hypre);
 *   icc, ilu  PCICC / PCILU, level 0, natural ordering;
 *   jacobi, none.
 * PETSc runs in one MPI process and (Debian's build) one thread; only pscr
 * uses OpenMP threads.
 *
 * Every KSP: CG, zero initial guess, stopping at ||b - A x_k|| / ||b|| <= tol
 * (the unpreconditioned residual of the recurrence, KSP_NORM_UNPRECONDITIONED,
 * abstol 0), at most -maxit iterations. A fresh KSP is set up and solved
 * 1 + reps times; the first is a warm-up, the setup (KSPSetUp, which runs
 * PCSetUp) and solve (KSPSolve) times are the medians of the other reps.
 * Afterwards ||b - A x|| / ||b|| is recomputed with MatMult.
 *
 *   pscr-petsc [-n 255,511,1023] [-kappa checker|bump|random] [-contrast C]
 *              [-graded G] [-tol T] [-maxit K] [-reps R]
 *              [-methods pscr1,pscr,gamg,...] [-test] [PETSc options]
 *
 * PETSc options, single dash, any order; a value that is not a number or
 * is out of range, an unknown -kappa or -methods word: one line naming the
 * option and the value, exit status 2. Other options go to PETSc's options
 * database (the KSPs' prefixed options among them), which does not reject
 * unknown ones; -options_left lists those that were never used.
 */
#include <math.h>
#include <omp.h>
#include <petscksp.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "pcg_problem.h"
#include "pscr.h"

/* ------------------------------------------------------------ the matrix */

/* A as a sequential AIJ matrix from the edge weights of the kappa_op. */
static PetscErrorCode assemble(const kappa_op *op, Mat *A)
{
  const PetscInt n1 = op->n1, n2 = op->n2, N = n1 * n2;
  PetscFunctionBeginUser;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, N, N, 5, NULL, A));
  for (PetscInt i = 0; i < n1; i++)
    for (PetscInt j = 0; j < n2; j++) {
      PetscInt row = i * n2 + j, cols[5], k = 0;
      PetscScalar v[5];
      if (i > 0) {
        cols[k] = row - n2;
        v[k++] = -op->wx[(size_t)i * n2 + j];
      }
      if (j > 0) {
        cols[k] = row - 1;
        v[k++] = -op->wy[(size_t)i * (n2 + 1) + j];
      }
      cols[k] = row;
      v[k++] = op->diag[row];
      if (j + 1 < n2) {
        cols[k] = row + 1;
        v[k++] = -op->wy[(size_t)i * (n2 + 1) + j + 1];
      }
      if (i + 1 < n1) {
        cols[k] = row + n2;
        v[k++] = -op->wx[(size_t)(i + 1) * n2 + j];
      }
      PetscCall(MatSetValues(*A, 1, &row, k, cols, v, INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(*A, MAT_SPD, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------- the pscr PCSHELL */

typedef struct shell_ctx {
  const kappa_op *op;
  int threads;     /* pscr_options.num_threads: 1, or 0 for all */
  int scaled;      /* apply S P^-1 S instead of P^-1 */
  pscr_plan *plan; /* created by shell_setup */
  double *store;   /* the pencils' arrays, 3 (n1 + n2) doubles */
  double *scale;   /* scaled: S = (diag(P) / diag(A))^1/2, from shell_setup */
} shell_ctx;

static PetscErrorCode shell_setup(PC pc)
{
  shell_ctx *ctx;
  pscr_options o;
  PetscFunctionBeginUser;
  PetscCall(PCShellGetContext(pc, &ctx));
  pscr_plan_destroy(ctx->plan);
  ctx->plan = NULL;
  pscr_options_init(&o);
  o.backend = PSCR_BACKEND_CPU;
  o.num_threads = ctx->threads;
  pscr_status st = pcg_make_plan(ctx->op, &o, &ctx->plan, ctx->store);
  char name[64];
  PetscCheck(st == PSCR_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "%s (%s)", pscr_last_error(),
             cli_status_name(st, name, sizeof name));
  if (ctx->scaled && !ctx->scale) {
    size_t N = (size_t)ctx->op->n1 * ctx->op->n2;
    double *b = malloc(N * sizeof *b);
    ctx->scale = malloc(N * sizeof *ctx->scale);
    PetscCheck(b && ctx->scale, PETSC_COMM_SELF, PETSC_ERR_MEM, "out of memory");
    pcg_load_and_scale(ctx->op, b, ctx->scale);
    free(b);
  }
  PetscFunctionReturn(0);
}

/* y = P^-1 x: one pscr_solve on the arrays of the two Vecs. */
static PetscErrorCode shell_apply(PC pc, Vec x, Vec y)
{
  shell_ctx *ctx;
  const PetscScalar *xa;
  PetscScalar *ya;
  PetscFunctionBeginUser;
  PetscCall(PCShellGetContext(pc, &ctx));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArray(y, &ya));
  pscr_status st;
  if (ctx->scaled) {
    scaled_ctx sc = {ctx->plan, ctx->scale, (size_t)ctx->op->n1 * ctx->op->n2};
    for (size_t i = 0; i < sc.N; i++) /* z = S P^-1 S r, as pcg_problem.c */
      ya[i] = sc.s[i] * xa[i];
    st = pscr_solve(ctx->plan, ya, ya);
    for (size_t i = 0; i < sc.N; i++)
      ya[i] *= sc.s[i];
  } else {
    st = pscr_solve(ctx->plan, xa, ya);
  }
  PetscCall(VecRestoreArray(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  char name[64];
  PetscCheck(st == PSCR_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "%s (%s)", pscr_last_error(),
             cli_status_name(st, name, sizeof name));
  PetscFunctionReturn(0);
}

static PetscErrorCode shell_destroy(PC pc)
{
  shell_ctx *ctx;
  PetscFunctionBeginUser;
  PetscCall(PCShellGetContext(pc, &ctx));
  pscr_plan_destroy(ctx->plan);
  free(ctx->store);
  free(ctx->scale);
  PetscCall(PetscFree(ctx));
  PetscFunctionReturn(0);
}

static PetscErrorCode set_pscr_shell(PC pc, const kappa_op *op, int threads, int scaled)
{
  shell_ctx *ctx;
  PetscFunctionBeginUser;
  PetscCall(PetscNew(&ctx));
  ctx->op = op;
  ctx->threads = threads;
  ctx->scaled = scaled;
  ctx->store = malloc((size_t)3 * (op->n1 + op->n2) * sizeof *ctx->store);
  PetscCheck(ctx->store, PETSC_COMM_SELF, PETSC_ERR_MEM, "out of memory");
  PetscCall(PCSetType(pc, PCSHELL));
  PetscCall(PCShellSetContext(pc, ctx));
  PetscCall(PCShellSetSetUp(pc, shell_setup));
  PetscCall(PCShellSetApply(pc, shell_apply));
  PetscCall(PCShellSetDestroy(pc, shell_destroy));
  PetscCall(PCShellSetName(pc, scaled ? "pscr, S P^-1 S (1 thread)"
                                      : threads == 1 ? "pscr (1 thread)" : "pscr (all threads)"));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------- methods */

static const char *const method_names[] = {"pscr1", "pscr",  "pscr1s", "gamg",   "gamg2",
                                           "hypre", "icc",   "ilu",    "jacobi", "none"};
enum {
  M_PSCR1,
  M_PSCR,
  M_PSCR1S,
  M_GAMG,
  M_GAMG2,
  M_HYPRE,
  M_ICC,
  M_ILU,
  M_JACOBI,
  M_NONE,
  M_COUNT
};

typedef struct result {
  PetscInt its;
  KSPConvergedReason reason;
  double rec_res, true_res; /* recurrence and recomputed ||b - A x|| / ||b|| */
  double setup, solve;      /* medians, seconds */
} result;

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One KSPCG with preconditioner m: 1 + reps fresh setups and solves. */
static PetscErrorCode run_method(Mat A, Vec b, Vec x, const kappa_op *op, int m, double tol,
                                 PetscInt maxit, int reps, result *res)
{
  double ts[16], tv[16], bnorm, rnorm;
  Vec r;
  char prefix[32];
  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(b, &r));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  PetscCall(PetscSNPrintf(prefix, sizeof prefix, "%s_", method_names[m]));
  for (int rep = 0; rep <= reps; rep++) {
    KSP ksp;
    PC pc;
    PetscLogDouble t0, t1, t2;
    PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPSetTolerances(ksp, tol, 0.0, PETSC_DEFAULT, maxit));
    PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_FALSE));
    PetscCall(KSPGetPC(ksp, &pc));
    switch (m) {
    case M_PSCR1:
    case M_PSCR:
    case M_PSCR1S:
      PetscCall(set_pscr_shell(pc, op, m == M_PSCR ? 0 : 1, m == M_PSCR1S));
      break;
    case M_GAMG:
    case M_GAMG2:
      PetscCall(PCSetType(pc, PCGAMG));
      break;
    case M_HYPRE:
#if defined(PETSC_HAVE_HYPRE)
      PetscCall(PCSetType(pc, PCHYPRE));
      PetscCall(PCHYPRESetType(pc, "boomeramg"));
#endif
      break;
    case M_ICC:
      PetscCall(PCSetType(pc, PCICC));
      break;
    case M_ILU:
      PetscCall(PCSetType(pc, PCILU));
      break;
    case M_JACOBI:
      PetscCall(PCSetType(pc, PCJACOBI));
      break;
    default:
      PetscCall(PCSetType(pc, PCNONE));
    }
    PetscCall(KSPSetOptionsPrefix(ksp, prefix));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(PetscTime(&t0));
    PetscCall(KSPSetUp(ksp));
    PetscCall(PetscTime(&t1));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(PetscTime(&t2));
    ts[rep] = t1 - t0;
    tv[rep] = t2 - t1;
    PetscCall(KSPGetIterationNumber(ksp, &res->its));
    PetscCall(KSPGetConvergedReason(ksp, &res->reason));
    PetscCall(KSPGetResidualNorm(ksp, &rnorm));
    res->rec_res = rnorm / bnorm;
    PetscCall(KSPDestroy(&ksp));
  }
  /* Medians of reps 1..reps (rep 0 is the warm-up; with reps == 0, rep 0). */
  int lo = reps > 0, cnt = reps > 0 ? reps : 1;
  qsort(ts + lo, (size_t)cnt, sizeof *ts, cmp_double);
  qsort(tv + lo, (size_t)cnt, sizeof *tv, cmp_double);
  res->setup = ts[lo + cnt / 2];
  res->solve = tv[lo + cnt / 2];
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &rnorm));
  res->true_res = rnorm / bnorm;
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------- one size */

typedef struct problem {
  kappa_op op;
  Mat A;
  Vec b, x;
  double assembly; /* seconds */
} problem;

static PetscErrorCode problem_create(problem *p, int n, kappa_kind kind, double contrast,
                                     double grading)
{
  PetscLogDouble t0, t1;
  double *bb, *scale;
  PetscScalar *ba;
  PetscFunctionBeginUser;
  PetscCheck(!kappa_op_init(&p->op, n, kind, contrast, grading), PETSC_COMM_SELF, PETSC_ERR_MEM,
             "out of memory at n = %d", n);
  size_t N = (size_t)n * n;
  PetscCall(PetscTime(&t0));
  PetscCall(assemble(&p->op, &p->A));
  PetscCall(PetscTime(&t1));
  p->assembly = t1 - t0;
  PetscCall(MatCreateVecs(p->A, &p->x, &p->b));
  bb = malloc(N * sizeof *bb);
  scale = malloc(N * sizeof *scale);
  PetscCheck(bb && scale, PETSC_COMM_SELF, PETSC_ERR_MEM, "out of memory");
  pcg_load_and_scale(&p->op, bb, scale);
  PetscCall(VecGetArray(p->b, &ba));
  memcpy(ba, bb, N * sizeof *ba);
  PetscCall(VecRestoreArray(p->b, &ba));
  free(bb);
  free(scale);
  PetscFunctionReturn(0);
}

static PetscErrorCode problem_destroy(problem *p)
{
  PetscFunctionBeginUser;
  PetscCall(MatDestroy(&p->A));
  PetscCall(VecDestroy(&p->b));
  PetscCall(VecDestroy(&p->x));
  kappa_op_free(&p->op);
  PetscFunctionReturn(0);
}

static void print_header(void)
{
  PetscPrintf(PETSC_COMM_SELF, "  %-8s %4s %6s %10s %10s %9s %9s %9s  %s\n", "method", "thr",
              "iters", "rec.res", "true.res", "setup s", "solve s", "total s", "reason");
}

static void print_row(int m, const result *r)
{
  int thr = m == M_PSCR ? omp_get_max_threads() : 1;
  PetscPrintf(PETSC_COMM_SELF, "  %-8s %4d %6d %10.2e %10.2e %9.4f %9.4f %9.4f  %s\n",
              method_names[m], thr, (int)r->its, r->rec_res, r->true_res, r->setup, r->solve,
              r->setup + r->solve, KSPConvergedReasons[r->reason]);
}

/* -------------------------------------------------------------- --test */

/*
 * -test, the ctest case example_petsc: n = 63 and 127, checker and bump
 * (graded mesh 0.5) kappa at contrast 1e3, one thread. Passes when
 *   - MatMult with the assembled matrix equals kappa_op_apply (the
 *     examples' matrix-free operator) on a random vector to rounding
 *     (max difference <= 100 eps max |A u|);
 *   - KSPCG with the pscr PCSHELL converges (KSP_CONVERGED_RTOL) with the
 *     recomputed ||b - A x|| / ||b|| <= 10 tol;
 *   - it takes at most 0.3x the iterations of unpreconditioned KSPCG;
 *   - the scaled variant S P^-1 S converges likewise, on the smooth bump
 *     in at most 20 iterations (pscr-pcg measures 10);
 *   - GAMG-CG converges too (a sanity check of the comparison).
 */
static PetscErrorCode self_test(int *failed)
{
  static const struct {
    kappa_kind kind;
    double grading;
  } cases[] = {{KAPPA_CHECKER, 0.0}, {KAPPA_BUMP, 0.5}};
  static const int sizes[] = {63, 127};
  const double tol = 1e-8, contrast = 1e3;
  int fail = 0;
  PetscFunctionBeginUser;
  omp_set_num_threads(1);
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      problem p;
      PetscRandom rnd;
      Vec u, y;
      const PetscScalar *ua, *ya;
      int n = sizes[s];
      size_t N = (size_t)n * n;
      PetscCall(problem_create(&p, n, cases[c].kind, contrast, cases[c].grading));
      PetscPrintf(PETSC_COMM_SELF, "n = %d, kappa %s, contrast %g, %s mesh\n", n,
                  kappa_names[cases[c].kind], contrast,
                  cases[c].grading > 0 ? "graded" : "uniform");

      /* The assembled matrix against the matrix-free operator. */
      PetscCall(VecDuplicate(p.b, &u));
      PetscCall(VecDuplicate(p.b, &y));
      PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
      PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
      PetscCall(VecSetRandom(u, rnd));
      PetscCall(PetscRandomDestroy(&rnd));
      PetscCall(MatMult(p.A, u, y));
      double *z = malloc(N * sizeof *z);
      PetscCheck(z, PETSC_COMM_SELF, PETSC_ERR_MEM, "out of memory");
      PetscCall(VecGetArrayRead(u, &ua));
      PetscCall(VecGetArrayRead(y, &ya));
      kappa_op_apply(&p.op, ua, z);
      double diff = 0, scale = 0;
      for (size_t i = 0; i < N; i++) {
        diff = fmax(diff, fabs(ya[i] - z[i]));
        scale = fmax(scale, fabs(z[i]));
      }
      PetscCall(VecRestoreArrayRead(y, &ya));
      PetscCall(VecRestoreArrayRead(u, &ua));
      free(z);
      PetscCall(VecDestroy(&u));
      PetscCall(VecDestroy(&y));
      int ok_op = diff <= 100 * PETSC_MACHINE_EPSILON * scale;
      PetscPrintf(PETSC_COMM_SELF,
                  "  check: MatMult vs kappa_op_apply on a random vector: max diff %.2e "
                  "(relative %.2e) %s\n",
                  diff, diff / scale, ok_op ? "ok" : "FAIL");

      result res[M_COUNT];
      static const int ms[] = {M_PSCR1, M_PSCR1S, M_GAMG, M_NONE};
      print_header();
      for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++) {
        PetscCall(run_method(p.A, p.b, p.x, &p.op, ms[k], tol, 20000, 0, &res[ms[k]]));
        print_row(ms[k], &res[ms[k]]);
      }
      const result *rp = &res[M_PSCR1], *rn = &res[M_NONE], *rg = &res[M_GAMG],
                   *rs = &res[M_PSCR1S];
      int ok_conv = rp->reason == KSP_CONVERGED_RTOL && rp->true_res <= 10 * tol;
      int ok_ratio = rn->reason > 0 && rp->its <= 0.3 * rn->its;
      int ok_gamg = rg->reason > 0 && rg->true_res <= 10 * tol;
      PetscPrintf(PETSC_COMM_SELF,
                  "  check: pscr-CG converged, true res <= 10 tol %s; pscr %d its <= 0.3 x "
                  "CG's %d %s; GAMG-CG converged %s\n",
                  ok_conv ? "ok" : "FAIL", (int)rp->its, (int)rn->its, ok_ratio ? "ok" : "FAIL",
                  ok_gamg ? "ok" : "FAIL");
      int ok_scaled = rs->reason > 0 && rs->true_res <= 10 * tol &&
                      (cases[c].kind != KAPPA_BUMP || rs->its <= 20);
      PetscPrintf(PETSC_COMM_SELF, "  check: S P^-1 S converged%s %s\n",
                  cases[c].kind == KAPPA_BUMP ? " in <= 20 its on the smooth bump" : "",
                  ok_scaled ? "ok" : "FAIL");
      fail |= !(ok_op && ok_conv && ok_ratio && ok_gamg && ok_scaled);
      PetscCall(problem_destroy(&p));
    }
  PetscPrintf(PETSC_COMM_SELF, "%s\n", fail ? "FAILED" : "passed");
  *failed = fail;
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------- main */

static const char help[] =
    "pscr-petsc: KSPCG on -div(kappa grad u) = 1 with a pscr PCSHELL against PETSc's\n"
    "preconditioners. Options: -n 255,511,1023 (1..1048576, at most 16) -kappa\n"
    "checker|bump|random -contrast 1e3 (>= 1) -graded 0 (in [0, 1)) -tol 1e-8 (in (0, 1))\n"
    "-maxit 20000 (>= 1) -reps 3 (0..15) -methods pscr1,pscr,gamg,hypre,icc,ilu\n"
    "(also pscr1s, gamg2, jacobi, none; each KSP has the options prefix <method>_) -test\n"
    "Exit status: 0, 1 on an error or a failed -test check, 2 on a bad option value.\n";

/*
 * Option `name`'s value as written (PETSc's options database), into buf;
 * *set 0 when the option is absent. Numbers are then parsed here, strictly
 * (cli_common.h: the whole string, ranges in the message), rather than by
 * PetscOptionsGetInt, which truncates 3000000000 to a negative PetscInt.
 */
static PetscErrorCode raw_option(const char *name, char *buf, size_t len, PetscBool *set)
{
  PetscFunctionBeginUser;
  buf[0] = '\0';
  PetscCall(PetscOptionsGetString(NULL, NULL, name, buf, len, set));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  static const char *const names[] = {"-n", "-contrast", "-graded", "-tol", "-maxit", "-reps"};
  int sizes[16] = {255, 511, 1023}, nsizes = 3, maxit = 20000, reps = 3;
  double contrast = 1e3, grading = 0.0, tol = 1e-8;
  PetscBool test = PETSC_FALSE, set;
  char kname[256] = "checker", mlist[256] = "pscr1,pscr,gamg,hypre,icc,ilu", raw[256];
  int use[M_COUNT] = {0}, failed = 0, bad = 0, k = 0;
  kappa_kind kind = KAPPA_CHECKER;
  cli_args c; /* for the messages of cli_common.h's parsers */
  cli_init(&c, "pscr-petsc", argc, argv);

  /* PETSc's own -help prints help (and PETSc's options) and would go on:
   * here it stops; --help and -h, which PETSc does not know, print ours. */
  for (int a = 1; a < argc; a++)
    if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
      fputs(help, stdout);
      return 0;
    }
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsHasHelp(NULL, &set));
  if (set) {
    PetscCall(PetscFinalize());
    return 0;
  }
  for (int o = 0; o < 6 && !bad; o++) {
    PetscCall(raw_option(names[o], raw, sizeof raw, &set));
    if (!set)
      continue;
    long long v = 0;
    switch (o) {
    case 0:
      bad = cli_parse_int_list(&c, "-n", raw, 1, 1 << 20, sizes, 16, &nsizes);
      break;
    case 1:
      bad = cli_parse_double(&c, "-contrast", raw, 1.0, 0, INFINITY, 1, &contrast);
      break;
    case 2:
      bad = cli_parse_double(&c, "-graded", raw, 0.0, 0, 1.0, 1, &grading);
      break;
    case 3:
      bad = cli_parse_double(&c, "-tol", raw, 0.0, 1, 1.0, 1, &tol);
      break;
    case 4:
      bad = cli_parse_ll(&c, "-maxit", raw, 1, INT_MAX, &v);
      maxit = (int)v;
      break;
    default:
      bad = cli_parse_ll(&c, "-reps", raw, 0, 15, &v);
      reps = (int)v;
      break;
    }
  }
  if (!bad) {
    PetscCall(raw_option("-kappa", raw, sizeof raw, &set));
    if (set)
      snprintf(kname, sizeof kname, "%s", raw);
    while (k < 3 && strcmp(kname, kappa_names[k]))
      k++;
    if (k == 3)
      bad = cli_error(&c, "-kappa: '%s' is not one of: checker, bump, random", kname);
    kind = (kappa_kind)k;
  }
  if (!bad) {
    PetscCall(raw_option("-methods", raw, sizeof raw, &set));
    if (set)
      snprintf(mlist, sizeof mlist, "%s", raw);
  }
  char mcopy[256];
  snprintf(mcopy, sizeof mcopy, "%s", mlist);
  for (char *tok = strtok(mcopy, ","); tok && !bad; tok = strtok(NULL, ",")) {
    int m = 0;
    while (m < M_COUNT && strcmp(tok, method_names[m]))
      m++;
    if (m == M_COUNT) {
      char known[256];
      bad = cli_error(&c, "-methods: '%s' is not one of: %s", tok,
                      cli_choice_list(method_names, M_COUNT, known, sizeof known));
    } else {
      use[m] = 1;
    }
  }
  int any = 0;
  for (int m = 0; m < M_COUNT; m++)
    any |= use[m];
  if (!bad && !any)
    bad = cli_error(&c, "-methods: '%s' names no method", mlist);
  if (!bad) { /* -test, -test true / false (PETSc's booleans) */
    PetscCall(raw_option("-test", raw, sizeof raw, &set));
    if (set && raw[0]) {
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      PetscErrorCode ierr = PetscOptionsStringToBool(raw, &test);
      PetscCall(PetscPopErrorHandler());
      if (ierr)
        bad = cli_error(&c, "-test: '%s' is not a boolean (true, false, 1, 0, yes, no)", raw);
    } else {
      test = set;
    }
  }
  if (bad) { /* the message is out (one line and the hint): a usage error */
    PetscCall(PetscFinalize());
    return CLI_USAGE;
  }
#if !defined(PETSC_HAVE_HYPRE)
  if (use[M_HYPRE])
    PetscPrintf(PETSC_COMM_SELF, "(this PETSc has no hypre: hypre skipped)\n");
  use[M_HYPRE] = 0;
#endif

  if (test) {
    PetscCall(self_test(&failed));
  } else {
    char version[128];
    PetscCall(PetscGetVersion(version, sizeof version));
    PetscPrintf(PETSC_COMM_SELF,
                "pscr-petsc: -div(kappa grad u) = 1 on (0,1)^2, P1 FE (5-point), KSPCG, "
                "tol %g (unpreconditioned residual), zero initial guess\n"
                "pscr %s, %s, 1 MPI process, pscr threads: pscr1 1, pscr %d (OpenMP)\n"
                "times: median of %d fresh KSPSetUp + KSPSolve after a warm-up\n",
                (double)tol, pscr_version(), version, omp_get_max_threads(), (int)reps);
    for (int s = 0; s < nsizes; s++) {
      problem p;
      result res[M_COUNT];
      PetscCall(problem_create(&p, (int)sizes[s], kind, contrast, grading));
      PetscPrintf(PETSC_COMM_SELF,
                  "\nn = %d (%d unknowns), kappa %s, contrast %g (min %.3g, max %.3g, mean "
                  "%.4g), %s mesh; MatAssembly %.3f s\n",
                  (int)sizes[s], (int)(sizes[s] * sizes[s]), kappa_names[kind],
                  (double)contrast, p.op.kmin, p.op.kmax, p.op.kbar,
                  grading > 0 ? "graded" : "uniform", p.assembly);
      print_header();
      for (int m = 0; m < M_COUNT; m++) {
        if (!use[m])
          continue;
        PetscCall(run_method(p.A, p.b, p.x, &p.op, m, tol, maxit, (int)reps, &res[m]));
        print_row(m, &res[m]);
      }
      for (int m = M_PSCR1; m <= M_PSCR1S; m++)
        for (int g = M_GAMG; g <= M_GAMG2; g++)
          if (use[m] && use[g])
            PetscPrintf(PETSC_COMM_SELF,
                        "  time to solution (setup + solve), %s / %s: %.3f s / %.3f s = %.2f\n",
                        method_names[m], method_names[g], res[m].setup + res[m].solve,
                        res[g].setup + res[g].solve,
                        (res[m].setup + res[m].solve) / (res[g].setup + res[g].solve));
      PetscCall(problem_destroy(&p));
    }
  }
  PetscCall(PetscFinalize());
  return failed;
}

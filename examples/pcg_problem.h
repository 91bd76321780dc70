/*
 * The host side of the PCG examples, shared by pscr-pcg (pcg_kappa.c, 2D),
 * pscr-pcg3d (pcg3d.c, 3D), their GPU versions (pcg_kappa_gpu.cu,
 * pcg3d_gpu.cu, through pcg_gpu.cu) and pscr-petsc: the media kappa, the
 * 5-point (2D) or 7-point (3D) operator of -div(kappa grad u) as edge
 * weights, the load and the diagonal scaling, the pencils of
 * P = kbar (A1 (x) M2 + M1 (x) A2) (3D: kbar times the three-term sum), the
 * CPU preconditioned CG with its preconditioners, one size's table, and the
 * command-line options they share. pcg_kappa.c's opening comment describes
 * the discretization and the preconditioners, pcg3d.c's what changes in 3D.
 * Implemented in C (pcg_problem.c, OpenMP loops); the declarations are
 * usable from C++/CUDA.
 */
#ifndef PSCR_PCG_PROBLEM_H
#define PSCR_PCG_PROBLEM_H

#include <stddef.h>

#include "cli_common.h"
#include "krylov_common.h"
#include "pscr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kappa_kind { KAPPA_CHECKER, KAPPA_BUMP, KAPPA_RANDOM } kappa_kind;
extern const char *const kappa_names[3]; /* "checker", "bump", "random" */

/*
 * The discrete operator: edge weights of the stencil, and its diagonal. The
 * weight arrays have one more entry along their own direction (the edges
 * to the boundary, whose nodes are zero):
 *   2D: wx[s n2 + j]            edge across x-step s (nodes s-1, s) on row j,
 *       wy[i (n2+1) + t]        edge across y-step t on column i;
 *   3D: wx[(s n2 + j) n3 + k],  wy[(i (n2+1) + t) n3 + k],
 *       wz[(i n2 + j) (n3+1) + t].
 */
typedef struct kappa_op {
  int ndim;           /* 2 or 3 */
  int n1, n2, n3;     /* interior nodes per dimension (n3 = 1 in 2D) */
  double *h[3];       /* n_d + 1 mesh steps per dimension (h[2] NULL in 2D) */
  double *wx, *wy, *wz; /* edge weights (wz NULL in 2D) */
  double *diag;       /* n1 n2 n3 */
  double kmin, kmax, kbar;
} kappa_op;

/* The 2D operator on n x n interior nodes; 0, or -1 when out of memory. */
int kappa_op_init(kappa_op *op, int n, kappa_kind kind, double contrast, double grading);
/* The operator on n^ndim interior nodes (ndim 2 or 3); 0, or -1 when out of memory. */
int kappa_op_init_nd(kappa_op *op, int ndim, int n, kappa_kind kind, double contrast,
                     double grading);
void kappa_op_free(kappa_op *op);

/* Unknowns, n1 n2 n3. */
static inline size_t kappa_op_size(const kappa_op *op)
{
  return (size_t)op->n1 * op->n2 * op->n3;
}

/* y = A u, matrix-free (Dirichlet: neighbours outside the mesh are zero). */
void kappa_op_apply(const kappa_op *op, const double *u, double *y);

/* ||b - A x|| / ||b||, recomputed; r: scratch of n1 n2 n3. */
double kappa_op_true_residual(const kappa_op *op, const double *b, const double *x, double *r);

/*
 * The load b = (M1 (x) M2 (x) M3) f with f = 1 (lumped masses), and the
 * diagonal scaling S = (diag(P) / diag(A))^1/2 of the scaled variant,
 * n1 n2 n3 each.
 */
void pcg_load_and_scale(const kappa_op *op, double *b, double *scale);

/* Doubles of a pencil store: 3 (n1 + n2 (+ n3)). */
static inline size_t pcg_pencil_store_size(const kappa_op *op)
{
  return (size_t)3 * (op->n1 + op->n2 + (op->ndim == 3 ? op->n3 : 0));
}

/*
 * The 1D Poisson pencils of op's mesh with A_d multiplied by kscale (1 for
 * the Poisson operator, kbar for P). store: pcg_pencil_store_size doubles,
 * which the pencils point into.
 */
pscr_status pcg_pencils(const kappa_op *op, double kscale, double *store, pscr_pencil pen[3]);

/*
 * The plan of P = kbar (A1 (x) M2 + M1 (x) A2) (3D: kbar (A1 (x) M2 (x) M3 +
 * M1 (x) A2 (x) M3 + M1 (x) M2 (x) A3)) on opts' backend.
 * pencil_store: pcg_pencil_store_size doubles.
 */
pscr_status pcg_make_plan(const kappa_op *op, const pscr_options *opts, pscr_plan **plan,
                          double *pencil_store);

/* z = M^-1 r; returns 0 on success. */
typedef int (*precond_fn)(void *ctx, const double *r, double *z);

/* Jacobi; ctx: the kappa_op. */
int precond_jacobi(void *ctx, const double *r, double *z);

/* One pscr_solve with a CPU (or host-array) plan; ctx: the pscr_plan. */
int precond_pscr(void *ctx, const double *r, double *z);

/* The diagonally scaled variant z = S P^-1 S r; ctx: a scaled_ctx. */
typedef struct scaled_ctx {
  pscr_plan *plan;
  const double *s; /* S, n1 n2 n3 */
  size_t N;
} scaled_ctx;
int precond_pscr_scaled(void *ctx, const double *r, double *z);

/*
 * Preconditioned CG from x = 0 (precond NULL: plain CG), stopping when the
 * recurrence residual ||r|| / ||b|| <= tol or after maxit iterations.
 * work: 4 n1 n2 n3 doubles. Fills res (setup left alone). Returns 0, or -1
 * when the preconditioner failed.
 */
int pcg(const kappa_op *op, const double *b, double *x, precond_fn precond, void *ctx,
        double tol, int maxit, double *work, krylov_result *res);

/* ------------------------------------------------- the CPU examples' pieces */

/*
 * The operator with kappa = 1 against pscr_operator_apply of the Poisson
 * pencils on the same mesh (relative max difference <= 100 eps); prints a
 * check line. 0 when it passes.
 */
int pcg_check_operator(int ndim, int n, double grading);

/* The solvers compared at one size: CG, Jacobi-PCG, pscr with P, pscr with S P^-1 S. */
enum { R_CG, R_JACOBI, R_PSCR, R_SCALED, R_COUNT };

/*
 * One size on the CPU: prints the problem and the table of the four
 * solvers (CG and Jacobi-PCG skipped with skip_cg), and the classical CG
 * bound. Fills res[0..R_COUNT-1]; 0, or 1 on an error (reported).
 */
int pcg_run_size(int ndim, int n, kappa_kind kind, double contrast, double grading, double tol,
                 int maxit, int skip_cg, const pscr_options *opts, krylov_result res[R_COUNT]);

/* ------------------------------------------------------ command-line options */

/* What the PCG examples' command lines share. */
typedef struct pcg_args {
  int sizes[16], nsizes;
  kappa_kind kind;
  double contrast, grading, tol;
  int maxit, skip_cg, test;
} pcg_args;

/* The defaults: sizes as given, checker, contrast 1e3, uniform, tol 1e-8, maxit 20000. */
void pcg_args_init(pcg_args *a, const int *sizes, int nsizes);

/*
 * The current option of c if it is one of the shared ones (-n N1,N2,...,
 * --kappa, --contrast, --graded, --tol, --maxit, --no-cg, --test): 1 when
 * it was (and parsed), 0 when it is not one of them, CLI_USAGE after a
 * usage error's message.
 */
int pcg_parse_option(cli_args *c, pcg_args *a);

/* A CPU PCG example (pscr-pcg in 2D, pscr-pcg3d in 3D): what its main
   differs in. */
typedef struct pcg_program {
  const char *name;           /* the program, the prefix of its messages */
  int ndim;                   /* 2 or 3 */
  int default_sizes[3];       /* -n's default */
  const char *discretization; /* for the heading: "P1 FE (5-point)" */
  void (*usage)(FILE *out);
  int (*self_test)(pscr_options *opts); /* --test; opts: the CPU plan's options */
} pcg_program;

/* The main of a CPU PCG example: the shared options and --threads, --help,
   --test, then the table of every size. Its exit status. */
int pcg_main(int argc, char **argv, const pcg_program *prog);

#ifdef __cplusplus
}
#endif

#endif

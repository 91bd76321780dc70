/*
 * The host side of the PCG examples, shared by pscr-pcg (pcg_kappa.c, CPU)
 * and pscr-pcg-gpu (pcg_kappa_gpu.cu): the media kappa, the 5-point P1
 * operator of -div(kappa grad u) as edge weights, the load and the diagonal
 * scaling, the pencils of P = kbar (A1 (x) M2 + M1 (x) A2), and the CPU
 * preconditioned CG with its preconditioners. pcg_kappa.c's opening comment
 * describes the discretization and the preconditioners. Implemented in C
 * (pcg_problem.c, OpenMP loops); the declarations are usable from C++/CUDA.
 */
#ifndef PSCR_PCG_PROBLEM_H
#define PSCR_PCG_PROBLEM_H

#include <stddef.h>

#include "krylov_common.h"
#include "pscr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kappa_kind { KAPPA_CHECKER, KAPPA_BUMP, KAPPA_RANDOM } kappa_kind;
extern const char *const kappa_names[3]; /* "checker", "bump", "random" */

/* The discrete operator: edge weights of the 5-point stencil, and its diagonal. */
typedef struct kappa_op {
  int n1, n2;         /* interior nodes per dimension */
  double *h[2];       /* n1 + 1 and n2 + 1 mesh steps */
  double *wx;         /* wx[s n2 + j]: edge across x-step s (nodes s-1, s) on row j */
  double *wy;         /* wy[i (n2+1) + t]: edge across y-step t on column i */
  double *diag;       /* n1 n2 */
  double kmin, kmax, kbar;
} kappa_op;

/* The operator on n x n interior nodes; 0, or -1 when out of memory. */
int kappa_op_init(kappa_op *op, int n, kappa_kind kind, double contrast, double grading);
void kappa_op_free(kappa_op *op);

/* y = A u, matrix-free (Dirichlet: neighbours outside the mesh are zero). */
void kappa_op_apply(const kappa_op *op, const double *u, double *y);

/* ||b - A x|| / ||b||, recomputed; r: scratch of n1 n2. */
double kappa_op_true_residual(const kappa_op *op, const double *b, const double *x, double *r);

/*
 * The load b = (M1 (x) M2) f with f = 1 (lumped masses), and the diagonal
 * scaling S = (diag(P) / diag(A))^1/2 of the scaled variant, n1 n2 each.
 */
void pcg_load_and_scale(const kappa_op *op, double *b, double *scale);

/*
 * The 1D Poisson pencils of op's mesh with A_d multiplied by kscale (1 for
 * the Poisson operator, kbar for P). store: 3 (n1 + n2) doubles, which the
 * pencils point into.
 */
pscr_status pcg_pencils(const kappa_op *op, double kscale, double *store, pscr_pencil pen[2]);

/*
 * The plan of P = kbar (A1 (x) M2 + M1 (x) A2) on opts' backend.
 * pencil_store: 3 (n1 + n2) doubles.
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
  const double *s; /* S, n1 n2 */
  size_t N;
} scaled_ctx;
int precond_pscr_scaled(void *ctx, const double *r, double *z);

/*
 * Preconditioned CG from x = 0 (precond NULL: plain CG), stopping when the
 * recurrence residual ||r|| / ||b|| <= tol or after maxit iterations.
 * work: 4 n1 n2 doubles. Fills res (setup left alone). Returns 0, or -1 when
 * the preconditioner failed.
 */
int pcg(const kappa_op *op, const double *b, double *x, precond_fn precond, void *ctx,
        double tol, int maxit, double *work, krylov_result *res);

#ifdef __cplusplus
}
#endif

#endif

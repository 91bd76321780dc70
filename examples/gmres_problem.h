/*
 * The host side of the GMRES examples, shared by pscr-gmres
 * (gmres_helmholtz.c, CPU) and pscr-gmres-gpu (gmres_helmholtz_gpu.cu): the
 * heterogeneous Helmholtz operator (ABC factors, pencils, the lumped-mass
 * perturbation D, diag(A)), the load, the plans of the two pscr
 * preconditioners, and the CPU right-preconditioned GMRES with its
 * preconditioners. gmres_helmholtz.c's opening comment describes the
 * discretization and the preconditioners. Implemented in C (gmres_problem.c,
 * C99 double _Complex, OpenMP loops); the declarations use interleaved
 * (re, im) double pairs, the layout of PSCR_C64, so that they are usable
 * from C++/CUDA (cuDoubleComplex has the same layout).
 */
#ifndef PSCR_GMRES_PROBLEM_H
#define PSCR_GMRES_PROBLEM_H

#include <stddef.h>

#include "cli_common.h"
#include "krylov_common.h"
#include "pscr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The discrete operator and what the preconditioners need. */
typedef struct helm_op {
  int n;               /* nodes per dimension */
  size_t N;            /* n^2 */
  double omega;        /* background wave number */
  double *h[2];        /* n - 1 steps per dimension */
  double *x[2];        /* node coordinates */
  double *w[2];        /* lumped masses */
  double *fac[2];      /* a_diag, a_off, m_diag, m_off, interleaved complex (8n doubles) */
  pscr_pencil pen[2];
  double shift[2];     /* -omega^2 + 0i */
  double *dpert;       /* complex, N: -omega^2 (nu^2 - 1) w1_i w2_j */
  double *diag;        /* complex, N: diag(A) (Jacobi) */
  double kbar2;        /* mean of omega^2 nu^2 */
  double numax;
} helm_op;

/* The operator on n x n nodes; 0, or -1 (out of memory, bad factors: reported). */
int helm_op_init(helm_op *op, int n, double omega, double nmax, double grading);
void helm_op_free(helm_op *op);

/* y = A u (complex, N entries each; must not overlap). */
void helm_apply(const helm_op *op, const double *u, double *y);

/* ||b - A x|| / ||b||, recomputed; r: complex scratch of N. */
double helm_true_residual(const helm_op *op, const double *b, const double *x, double *r);

/* The load b = (w1 (x) w2) f(nodes), f the narrow Gaussian at (0.25, 0.3); complex, N. */
void helm_load(const helm_op *op, double *b);

/* The variants compared, and their names in the tables. */
enum helm_variant { R_NONE, R_JACOBI, R_MEAN, R_SHIFTED, R_COUNT };
extern const char *const helm_variant_names[R_COUNT];

/*
 * The plan of A1 (x) M2 + M1 (x) A2 + c M1 (x) M2 with the ABC factors at
 * omega on opts' backend: c = -kbar^2 (variant R_MEAN) or
 * c = -(1 - 0.5i) kbar^2 (R_SHIFTED).
 */
pscr_status helm_make_plan(const helm_op *op, int variant, const pscr_options *opts,
                           pscr_plan **plan);

/* z = M^-1 r (complex; r and z may alias); returns 0 on success. */
typedef int (*helm_precond_fn)(void *ctx, const double *r, double *z);

/* Jacobi, z = r / diag(A); ctx: the helm_op. */
int helm_precond_jacobi(void *ctx, const double *r, double *z);

/* One pscr_solve with a CPU (or host-array) plan; ctx: the pscr_plan. */
int helm_precond_pscr(void *ctx, const double *r, double *z);

/*
 * Right-preconditioned GMRES(restart) from x = 0 (precond NULL: none), at
 * most maxit Arnoldi steps, modified Gram-Schmidt, complex Givens rotations.
 * res->iterations counts Arnoldi steps (one A and one M^-1 each); setup is
 * left alone. Returns 0, -1 on a preconditioner failure, -2 out of memory.
 */
int helm_gmres(const helm_op *op, const double *b, double *x, helm_precond_fn precond,
               void *ctx, double tol, int restart, int maxit, krylov_result *res);

/* What the GMRES examples' command lines share. */
typedef struct gmres_args {
  int sizes[16], nsizes;
  double omega, nmax, grading, tol;
  int restart, maxit;
  int baseline; /* the largest n for the GMRES and Jacobi-GMRES baselines */
  int threads;  /* 0: all */
  int test;
} gmres_args;

/* The defaults: n = 127,255,511, omega 20, nmax 1.5, uniform mesh, tol 1e-8,
 * GMRES(100), maxit 1000, baselines up to n = 255, all threads. */
void gmres_args_init(gmres_args *a);

/*
 * The current option of c if it is one of the shared ones (-n N1,N2,...,
 * --omega, --nmax, --graded, --tol, --restart, --maxit, --threads,
 * --baseline, --no-baseline, --test): 1 when it was (and parsed), 0 when it
 * is not one of them, CLI_USAGE after a usage error's message.
 */
int gmres_parse_option(cli_args *c, gmres_args *a);

#ifdef __cplusplus
}
#endif

#endif

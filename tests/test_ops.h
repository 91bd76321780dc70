/* Random test operators shared by the solver suites (CPU and CUDA). */
#ifndef PSCR_TEST_OPS_H
#define PSCR_TEST_OPS_H

#include "test_util.h"

/* Kinds of pencils: non-uniform Poisson (eq. 31), Helmholtz with ABC
   (eqs. 33-35, omega = 20), random SPD with tridiagonal M, random complex
   symmetric with a modest imaginary part. */
typedef enum kind { POISSON, HELMHOLTZ, RANDOM_SPD, RANDOM_COMPLEX, NKINDS } kind;
extern const char *const kind_name[NKINDS];

/* A test operator with owned factor storage. */
typedef struct op {
  pscr_dtype dtype;
  int ndim;
  pscr_pencil pencils[3];
  double shift[2];
  float shift32[2]; /* the shift of a single-precision op (op_to_single) */
  void *store[3];
} op;

/* Build an operator of kind k with sizes n (Helmholtz needs n >= 2). */
void make_op(op *o, kind k, int ndim, const int *n, uint64_t seed);

/* The model problem of pscr_problem_create (omega 20; a uniform mesh for
   grading 0) as an op with owned factors (so op_to_single applies). */
void make_op_model(op *o, pscr_problem_kind k, int ndim, const int *n, double grading);

/* Real double op (from make_op_model or make_op), dimension d with n >= 4:
   make the end rows of A_d and M_d differ from the interior and give M_d a
   tridiagonal part, keeping both Toeplitz in the interior and SPD (first
   and last diagonal entries, first and last off-diagonal entries scaled,
   m_off = 0.25 m_diag[1] inside, 0.2 and 0.15 of it at the ends). */
void op_vary_ends(op *o, int d);
void op_free(op *o);

/* Multiply A_d by sa and M_d by sm (a badly scaled variant). */
void op_scale(op *o, int d, double sa, double sm);

/* A vector of the operator's size, entries uniform in [-1, 1). */
void *random_vector(const op *o, uint64_t seed);

/* Round an R64/C64 operator to R32/C32 in place (factors and shift). */
void op_to_single(op *o);

/* Widen an R32/C32 operator back to R64/C64 in place (exactly: every float
   is a double), e.g. for a double reference on the rounded data. */
void op_to_double(op *o);

/* The shift argument of pscr_plan_create for o (double or float). */
const void *op_shift(const op *o);

/* 1 for R32/C32. */
int op_single(const op *o);

/* A copy of a double (complex) vector of the operator's size in its dtype
   (rounded to float for a single-precision op); caller frees. */
void *op_vector(const op *o, const double *x);

#endif

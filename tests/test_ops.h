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
  double *store[3];
} op;

/* Build an operator of kind k with sizes n (Helmholtz needs n >= 2). */
void make_op(op *o, kind k, int ndim, const int *n, uint64_t seed);
void op_free(op *o);

/* Multiply A_d by sa and M_d by sm (a badly scaled variant). */
void op_scale(op *o, int d, double sa, double sm);

/* A vector of the operator's size, entries uniform in [-1, 1). */
void *random_vector(const op *o, uint64_t seed);

#endif

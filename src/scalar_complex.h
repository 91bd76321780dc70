#include "scalar.h"
#define PSCR_SCALAR double complex
#define PSCR_SUF(name) name##_z
#define PSCR_ABS1(x) (fabs(creal(x)) + fabs(cimag(x)))
#define PSCR_IS_FINITE(x) pscr_finite_z(x)
#define PSCR_INV(x) pscr_inv_z(x)
#define PSCR_IS_COMPLEX 1
#define PSCR_ABS(x) cabs(x)
#define PSCR_EPS DBL_EPSILON

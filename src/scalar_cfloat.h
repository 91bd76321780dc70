#include "scalar.h"
#define PSCR_SCALAR float complex
#define PSCR_SUF(name) name##_c
#define PSCR_ABS1(x) (fabsf(crealf(x)) + fabsf(cimagf(x)))
#define PSCR_IS_FINITE(x) pscr_finite_c(x)
#define PSCR_INV(x) pscr_inv_c(x)
#define PSCR_IS_COMPLEX 1
#define PSCR_ABS(x) cabsf(x)
#define PSCR_EPS FLT_EPSILON

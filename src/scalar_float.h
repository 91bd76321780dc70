#include "scalar.h"
#define PSCR_SCALAR float
#define PSCR_SUF(name) name##_s
#define PSCR_ABS1(x) fabsf(x)
#define PSCR_IS_FINITE(x) pscr_finite_s(x)
#define PSCR_INV(x) (1.0f / (x))
#define PSCR_IS_COMPLEX 0
#define PSCR_ABS(x) fabsf(x)
#define PSCR_EPS FLT_EPSILON

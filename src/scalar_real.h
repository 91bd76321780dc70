#include "scalar.h"
#define PSCR_SCALAR double
#define PSCR_SUF(name) name##_d
#define PSCR_ABS1(x) fabs(x)
#define PSCR_IS_FINITE(x) pscr_finite_d(x)
#define PSCR_INV(x) (1.0 / (x))
#define PSCR_IS_COMPLEX 0
#define PSCR_ABS(x) fabs(x)
#define PSCR_EPS DBL_EPSILON

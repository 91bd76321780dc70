/* Kronecker operators, written once for real and complex data in double and
   single precision (kron_impl.h). */
#include "kron.h"
#include "team.h"

#include <omp.h>

#include "scalar_real.h"
#include "kron_impl.h"
#include "scalar_undef.h"

#include "scalar_complex.h"
#include "kron_impl.h"
#include "scalar_undef.h"

#include "scalar_float.h"
#include "kron_impl.h"
#include "scalar_undef.h"

#include "scalar_cfloat.h"
#include "kron_impl.h"
#include "scalar_undef.h"

/* Kronecker operators, written once for real and complex data (kron_impl.h). */
#include "kron.h"

#include "scalar_real.h"
#include "kron_impl.h"
#include "scalar_undef.h"

#include "scalar_complex.h"
#include "kron_impl.h"
#include "scalar_undef.h"

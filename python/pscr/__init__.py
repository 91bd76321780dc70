"""pscr: fast direct solver for separable block tridiagonal systems (the
radix-4 PSCR method), from Python.

    import numpy as np, pscr
    problem = pscr.Problem.poisson((255, 127))
    b, u_exact = problem.manufactured()
    with problem.plan() as plan:          # or pscr.Plan(pencils, shift, ...)
        u = plan.solve(b)

Arrays: NumPy on the host; CuPy, PyTorch or JAX arrays in CUDA memory
(through DLPack) with a CUDA build. docs/python.md is the guide.
"""

from . import _errors, _pscr
from ._errors import (
    ClosedPlanError,
    DeviceAllocError,
    DeviceError,
    DTypeError,
    EigenFailedError,
    Error,
    HostAllocError,
    InvalidValueError,
    NonFiniteError,
    NotDefiniteError,
    NotSupportedError,
    SingularError,
    _STATUS_TEXT,
)
from ._linop import as_linear_operator
from ._plan import FLAGS, Plan, PlanInfo
from ._problems import (
    Pencil,
    Problem,
    helmholtz_factors,
    mesh_graded,
    mesh_uniform,
    operator_apply,
    operator_norm_inf,
    poisson_factors,
)

# The C library's own text per status, for the exceptions' messages.
_STATUS_TEXT.update({s: _pscr.status_string(s) for s in _pscr.STATUS_NAMES})

__version__: str = _pscr.version()
#: Whether this build has the CUDA backend (device arrays, backend="cuda").
HAS_CUDA: bool = _pscr.has_cuda
#: The largest refine= (PSCR_REFINE_MAX).
REFINE_MAX: int = _pscr.refine_max

__all__ = [
    "Plan",
    "PlanInfo",
    "Pencil",
    "Problem",
    "as_linear_operator",
    "poisson_factors",
    "helmholtz_factors",
    "mesh_uniform",
    "mesh_graded",
    "operator_apply",
    "operator_norm_inf",
    "FLAGS",
    "HAS_CUDA",
    "REFINE_MAX",
] + _errors.__all__

"""The exceptions of pscr: one class per C status (pscr_status), plus the
binding's own checks (dtype, closed plan). Every exception carries the
status and the library's detail message (pscr_last_error).

The extension raises these through _from_status and _from_kind, so the
hierarchy is defined here only.
"""

from __future__ import annotations

__all__ = [
    "Error",
    "InvalidValueError",
    "DTypeError",
    "ClosedPlanError",
    "NotSupportedError",
    "NonFiniteError",
    "NotDefiniteError",
    "EigenFailedError",
    "SingularError",
    "HostAllocError",
    "DeviceAllocError",
    "DeviceError",
]


class Error(Exception):
    """Any pscr failure.

    ``str(e)`` is what failed: the library's detail message
    (``pscr_last_error()``), e.g. "M1 is not positive definite: pivot 6 is
    -0.5", or the binding's own for what it checks before calling the
    library. Attributes: ``detail`` (that message), ``status`` (the C
    status, an int), ``status_name`` (its C name, e.g.
    ``"PSCR_ERROR_NOT_DEFINITE"``) and ``status_text`` (the library's
    generic text of the status, ``pscr_status_string()``).
    """

    status = -1
    status_name = "PSCR_ERROR"

    def __init__(self, detail: str, status: int | None = None) -> None:
        if status is not None:
            self.status = status
        self.detail = detail
        super().__init__(detail)

    @property
    def status_text(self) -> str:
        return _STATUS_TEXT.get(self.status, "unknown status")


class InvalidValueError(Error, ValueError):
    """PSCR_ERROR_INVALID_VALUE: a bad argument (shape, layout, option...)."""

    status = 1
    status_name = "PSCR_ERROR_INVALID_VALUE"


class DTypeError(InvalidValueError, TypeError):
    """An array or scalar whose element type is not the plan's (or not one
    of float32, float64, complex64, complex128)."""


class ClosedPlanError(InvalidValueError):
    """A plan used after close() (or after its ``with`` block)."""


class NotSupportedError(Error):
    """PSCR_ERROR_NOT_SUPPORTED: valid, but not in this build or backend."""

    status = 2
    status_name = "PSCR_ERROR_NOT_SUPPORTED"


class NonFiniteError(Error, ArithmeticError):
    """PSCR_ERROR_NON_FINITE: NaN or Inf in the factors, shift or f."""

    status = 3
    status_name = "PSCR_ERROR_NON_FINITE"


class NotDefiniteError(Error, ArithmeticError):
    """PSCR_ERROR_NOT_DEFINITE: M1 (M2 in 3D) not positive definite."""

    status = 4
    status_name = "PSCR_ERROR_NOT_DEFINITE"


class EigenFailedError(Error, ArithmeticError):
    """PSCR_ERROR_EIGEN_FAILED: the plan's eigensolver did not converge."""

    status = 5
    status_name = "PSCR_ERROR_EIGEN_FAILED"


class SingularError(Error, ArithmeticError):
    """PSCR_ERROR_SINGULAR: a shifted tridiagonal subproblem is singular."""

    status = 6
    status_name = "PSCR_ERROR_SINGULAR"


class HostAllocError(Error, MemoryError):
    """PSCR_ERROR_HOST_ALLOC: host memory exhausted."""

    status = 7
    status_name = "PSCR_ERROR_HOST_ALLOC"


class DeviceAllocError(Error, MemoryError):
    """PSCR_ERROR_DEVICE_ALLOC: device memory exhausted."""

    status = 8
    status_name = "PSCR_ERROR_DEVICE_ALLOC"


class DeviceError(Error):
    """PSCR_ERROR_DEVICE: any other CUDA error (named in the detail)."""

    status = 9
    status_name = "PSCR_ERROR_DEVICE"


_BY_STATUS = {
    cls.status: cls
    for cls in (
        InvalidValueError,
        NotSupportedError,
        NonFiniteError,
        NotDefiniteError,
        EigenFailedError,
        SingularError,
        HostAllocError,
        DeviceAllocError,
        DeviceError,
    )
}

_BY_KIND = {"value": InvalidValueError, "dtype": DTypeError, "closed": ClosedPlanError}

# The C library's generic text per status (pscr_status_string), filled in
# by __init__ once the extension is loaded.
_STATUS_TEXT: dict[int, str] = {}


def _from_status(status: int, detail: str) -> Error:
    cls = _BY_STATUS.get(status, Error)
    return cls(detail, status)


def _from_kind(kind: str, detail: str) -> Error:
    return _BY_KIND[kind](detail)

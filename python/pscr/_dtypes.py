"""The four element types and their C codes (pscr_dtype), and how a plan's
dtype is chosen when the caller does not say."""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from ._errors import DTypeError

# numpy dtype name -> pscr_dtype value (PSCR_R64 0, _C64 1, _R32 2, _C32 3).
CODES = {"float64": 0, "complex128": 1, "float32": 2, "complex64": 3}


def resolve(dtype: Any) -> np.dtype:
    """dtype as a NumPy dtype, refusing all but pscr's four."""
    try:
        dt = np.dtype(dtype)
    except TypeError as exc:
        raise DTypeError(f"dtype {dtype!r} is not a NumPy dtype") from exc
    if dt.name not in CODES:
        raise DTypeError(
            f"dtype {dt.name} is not supported; pscr solves float32, float64, "
            "complex64 and complex128"
        )
    return dt


def infer(arrays: Iterable[Any], shift: complex) -> np.dtype:
    """The dtype of a plan whose caller gave none: NumPy's promotion of the
    factors (float64 for integers), made complex where the shift has an
    imaginary part. float32 factors give a float32 plan."""
    arrays = [np.asarray(v) for v in arrays if v is not None]
    dt = np.result_type(*arrays) if arrays else np.dtype(np.float64)
    if dt.name not in CODES:
        dt = np.dtype(np.complex128 if dt.kind == "c" else np.float64)
    if complex(shift).imag != 0 and dt.kind != "c":
        dt = np.dtype(np.complex64 if dt == np.float32 else np.complex128)
    return dt


def code(dtype: np.dtype) -> int:
    return CODES[dtype.name]

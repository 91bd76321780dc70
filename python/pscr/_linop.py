"""A plan as a SciPy LinearOperator: x -> A^-1 x, for use as a
preconditioner (M=) in scipy.sparse.linalg's Krylov methods."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._dtypes import resolve


def as_linear_operator(plan: Any, dtype: Any = None) -> Any:
    """scipy.sparse.linalg.LinearOperator of shape (N, N), N = plan.size,
    that applies A^-1 by plan.solve to flat vectors (and to blocks of
    vectors, as one batch).

    dtype: the operator's dtype, the plan's by default. A float32 plan can
    precondition a float64 system: pass dtype=np.float64; vectors are then
    rounded to the plan's dtype for the solve and the result widened.

    A is (complex) symmetric, so the adjoint is conj(A^-1 conj(x)):
    rmatvec works too (for methods that need it).
    """
    from scipy.sparse.linalg import LinearOperator

    op_dtype = plan.dtype if dtype is None else resolve(dtype)
    shape, size = plan.shape, plan.size

    def matvec(x: np.ndarray) -> np.ndarray:
        f = np.ascontiguousarray(np.reshape(x, shape), dtype=plan.dtype)
        return plan.solve(f).reshape(-1).astype(op_dtype, copy=False)

    def rmatvec(x: np.ndarray) -> np.ndarray:
        return np.conj(matvec(np.conj(x)))

    def matmat(x: np.ndarray) -> np.ndarray:
        # Columns of x are right-hand sides: one batch of x.shape[1].
        f = np.ascontiguousarray(np.asarray(x).T.reshape((-1,) + shape), dtype=plan.dtype)
        u = plan.solve(f)
        return u.reshape(u.shape[0], size).T.astype(op_dtype, copy=False)

    return LinearOperator(
        (size, size), matvec=matvec, rmatvec=rmatvec, matmat=matmat, dtype=op_dtype
    )

"""Pencils, the operator, and the problem builders of the C library
(problems/): mesh steps, the Poisson and Helmholtz factors of one
dimension, and the model problems with their load vectors."""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Sequence

import numpy as np

from . import _dtypes, _pscr
from ._errors import DTypeError, InvalidValueError


class Pencil(NamedTuple):
    """A symmetric tridiagonal pencil (A, M) of order n: the diagonals
    (n entries) and off-diagonals (n - 1 entries) of A and M. ``m_off``
    None means M is diagonal; ``a_off`` may be None when n == 1."""

    a_diag: Any
    a_off: Any
    m_diag: Any
    m_off: Any = None

    @property
    def n(self) -> int:
        return len(self.a_diag)


def as_pencils(pencils: Sequence[Any], dtype: np.dtype) -> list[tuple]:
    """The pencils as the extension takes them: tuples of contiguous 1-D
    host arrays of `dtype` (copies only where the caller's arrays are not
    already that)."""
    if isinstance(pencils, (str, bytes)) or not isinstance(pencils, Sequence):
        raise InvalidValueError("pencils must be a sequence of 2 or 3 pencils")
    out = []
    for d, p in enumerate(pencils, 1):
        if not isinstance(p, Sequence) or len(p) not in (3, 4):
            raise InvalidValueError(
                f"pencil {d} must be a pscr.Pencil or (a_diag, a_off, m_diag[, m_off])"
            )
        entries = []
        for name, v in zip(Pencil._fields, tuple(p) + (None,) * (4 - len(p))):
            if v is None:
                entries.append(None)
                continue
            arr = np.asarray(v)
            if arr.dtype.kind == "c" and dtype.kind != "c":
                raise DTypeError(
                    f"pencil {d}: {name} is complex, but the plan's dtype {dtype.name} is real"
                )
            if arr.dtype.kind not in "biufc":
                raise DTypeError(f"pencil {d}: {name} has dtype {arr.dtype}, not a number")
            entries.append(np.ascontiguousarray(arr, dtype=dtype))
        out.append(tuple(entries))
    return out


def factor_arrays(pencils: Sequence[Any]) -> list[Any]:
    """Every factor array of the pencils (for dtype inference)."""
    return [v for p in pencils if isinstance(p, Sequence) for v in p if v is not None]


# --------------------------------------------------------------- the operator


def operator_apply(
    pencils: Sequence[Any], shift: complex, u: Any, out: Any = None, *, dtype: Any = None
) -> np.ndarray:
    """out = A u for the operator of the pencils and shift (eq. 7 / 8), on
    NumPy arrays of shape (n1, n2[, n3]) or a batch (k, n1, n2[, n3]).
    dtype defaults to u's. Float dtypes compute in float."""
    dt = _dtypes.resolve(np.asarray(u).dtype if dtype is None else dtype)
    if out is None:
        out = np.empty(np.shape(u), dtype=dt)
    _pscr.operator_apply(_dtypes.code(dt), as_pencils(pencils, dt), complex(shift), u, out)
    return out


def operator_norm_inf(pencils: Sequence[Any], shift: complex, *, dtype: Any = None) -> float:
    """||A||_inf, the largest absolute row sum, computed from the factors."""
    dt = (
        _dtypes.infer(factor_arrays(pencils), shift)
        if dtype is None
        else _dtypes.resolve(dtype)
    )
    return _pscr.operator_norm_inf(_dtypes.code(dt), as_pencils(pencils, dt), complex(shift))


# ------------------------------------------------------------- mesh, factors


def mesh_uniform(nsteps: int, length: float = 1.0) -> np.ndarray:
    """nsteps equal mesh steps of [0, length] (pscr_mesh_uniform)."""
    h = np.empty(max(int(nsteps), 0))
    _pscr.mesh_uniform(int(nsteps), float(length), h)
    return h


def mesh_graded(nsteps: int, length: float = 1.0, grading: float = 0.5) -> np.ndarray:
    """nsteps steps of a smoothly graded mesh of [0, length], finer near both
    ends for grading in (0, 1) (pscr_mesh_graded)."""
    h = np.empty(max(int(nsteps), 0))
    _pscr.mesh_graded(int(nsteps), float(length), float(grading), h)
    return h


def poisson_factors(h: Any) -> Pencil:
    """The Poisson factors of one dimension (paper eq. 31): piecewise-linear
    finite elements on the n = len(h) - 1 nodes strictly inside a mesh with
    steps h, lumped (diagonal) mass. float64."""
    h = np.ascontiguousarray(h, dtype=np.float64)
    if h.ndim != 1 or len(h) < 2:
        raise InvalidValueError("h must hold n+1 >= 2 mesh steps (n unknowns)")
    n = len(h) - 1
    a_diag, a_off, m_diag, m_off = np.empty(n), np.empty(n - 1), np.empty(n), np.empty(n - 1)
    _pscr.poisson_factors(h, a_diag, a_off, m_diag, m_off)
    return Pencil(a_diag, a_off, m_diag, None)


def helmholtz_factors(h: Any, omega: float) -> Pencil:
    """The Helmholtz factors of one dimension with the second-order absorbing
    boundary condition (eqs. 33-35): bilinear finite elements on the
    n = len(h) + 1 nodes of a mesh with steps h, boundary nodes included,
    consistent mass. complex128."""
    h = np.ascontiguousarray(h, dtype=np.float64)
    if h.ndim != 1 or len(h) < 1:
        raise InvalidValueError("h must hold n-1 >= 1 mesh steps (n nodes)")
    n = len(h) + 1
    c = np.complex128
    a_diag, a_off = np.empty(n, c), np.empty(n - 1, c)
    m_diag, m_off = np.empty(n, c), np.empty(n - 1, c)
    _pscr.helmholtz_factors(h, float(omega), a_diag, a_off, m_diag, m_off)
    return Pencil(a_diag, a_off, m_diag, m_off)


# ------------------------------------------------------------ model problems

_KINDS = {"poisson": 0, "helmholtz": 1}


class Problem:
    """A model problem of the paper (section 5.1) on [0, L1] x [0, L2]
    (x [0, L3]) (pscr_problem_create): its pencils and shift, node
    coordinates, load vectors and a manufactured solution.

    ``Problem.poisson(n)``: -lap u = f with Dirichlet conditions, float64.
    ``Problem.helmholtz(n, omega)``: -lap u - omega^2 u = f with the
    absorbing boundary condition, complex128.
    """

    def __init__(
        self,
        kind: str,
        n: Sequence[int],
        *,
        length: Sequence[float] | None = None,
        grading: float = 0.0,
        omega: float = 0.0,
    ) -> None:
        if kind not in _KINDS:
            raise InvalidValueError(f"kind {kind!r}: use 'poisson' or 'helmholtz'")
        self.kind = kind
        self._core = _pscr.ProblemCore(
            _KINDS[kind],
            [int(v) for v in n],
            None if length is None else [float(v) for v in length],
            float(grading),
            float(omega),
        )
        self.dtype = np.dtype(np.complex128 if kind == "helmholtz" else np.float64)
        self.shape: tuple[int, ...] = tuple(self._core.n)
        self.ndim = len(self.shape)
        self.omega = self._core.omega
        self.length: tuple[float, ...] = tuple(self._core.length)
        re, im = self._core.shift
        self.shift: complex | float = complex(re, im) if kind == "helmholtz" else re
        self.x: list[np.ndarray] = list(self._core.x)
        self.h: list[np.ndarray] = list(self._core.h)
        self.pencils: list[Pencil] = [Pencil(*p) for p in self._core.pencils]

    @classmethod
    def poisson(
        cls, n: Sequence[int], *, length: Sequence[float] | None = None, grading: float = 0.0
    ) -> "Problem":
        return cls("poisson", n, length=length, grading=grading)

    @classmethod
    def helmholtz(
        cls,
        n: Sequence[int],
        omega: float,
        *,
        length: Sequence[float] | None = None,
        grading: float = 0.0,
    ) -> "Problem":
        return cls("helmholtz", n, length=length, grading=grading, omega=omega)

    def grid(self) -> tuple[np.ndarray, ...]:
        """The node coordinates as broadcastable arrays (an open mesh grid,
        one axis per dimension), for vectorized fields g(x1, x2[, x3])."""
        return tuple(np.meshgrid(*self.x, indexing="ij", sparse=True))

    def sample(self, g: Callable[..., Any] | Any) -> np.ndarray:
        """Nodal values g(x_i) at every unknown, shape (n1, n2[, n3]): g is a
        vectorized function of the coordinates (called once, with the arrays
        of grid()) or already an array of nodal values."""
        values = g(*self.grid()) if callable(g) else g
        out = np.empty(self.shape, dtype=self.dtype)
        out[...] = values  # broadcasts a constant or a lower-rank field
        return out

    def load(self, g: Callable[..., Any] | Any) -> np.ndarray:
        """The finite-element load vector of the field g (pscr_problem_load):
        each dimension's mass (lumped for Poisson, consistent without the
        boundary terms for Helmholtz) applied to g's nodal values."""
        values = self.sample(g)
        b = np.empty(self.shape, dtype=self.dtype)
        self._core.load(values.reshape(-1), b.reshape(-1))
        return b

    def manufactured(self) -> tuple[np.ndarray, np.ndarray]:
        """(b, u_exact): the load of a known smooth solution and that
        solution's nodal values (pscr_problem_manufactured)."""
        b = np.empty(self.shape, dtype=self.dtype)
        u = np.empty(self.shape, dtype=self.dtype)
        self._core.manufactured(b.reshape(-1), u.reshape(-1))
        return b, u

    def plan(self, **options: Any) -> Any:
        """A pscr.Plan of this problem's operator; options as pscr.Plan's."""
        from ._plan import Plan

        options.setdefault("dtype", self.dtype)
        return Plan(self.pencils, self.shift, **options)

    def __repr__(self) -> str:
        size = " x ".join(map(str, self.shape))
        extra = f", omega={self.omega:g}" if self.kind == "helmholtz" else ""
        return f"pscr.Problem({self.kind}, {size}{extra})"

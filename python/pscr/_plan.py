"""pscr.Plan: a plan of the C library (pscr_plan_create) with its options by
name, solves on NumPy arrays and on CUDA device arrays of any DLPack
framework, and its description (pscr_plan_info)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np

from . import _arrays, _dtypes, _pscr
from ._errors import InvalidValueError
from ._problems import as_pencils, factor_arrays

_BACKENDS = {"auto": 0, "cpu": 1, "cuda": 2}
_METHODS = {"auto": 0, "reduction": 1, "transform": 2}
_PLANNERS = {"none": 0, "estimate": 1, "measure": 2}
# Command-line name of each flag bit -> bit (pscr_flag_name).
FLAGS: dict[str, int] = dict(_pscr.flag_names())


def _choice(name: str, value: Any, table: dict[str, int]) -> int:
    if isinstance(value, str) and value.lower() in table:
        return table[value.lower()]
    raise InvalidValueError(f"{name}={value!r}; use one of {', '.join(map(repr, table))}")


def _flag_bits(flags: int | str | Iterable[str]) -> int:
    if isinstance(flags, bool):
        raise InvalidValueError(f"flags={flags!r}; pass flag names or an int of bits")
    if isinstance(flags, int):
        return flags
    names = [flags] if isinstance(flags, str) else list(flags)
    bits = 0
    for f in names:
        if f not in FLAGS:
            raise InvalidValueError(f"unknown flag {f!r}; pscr.FLAGS lists the flags")
        bits |= FLAGS[f]
    return bits


def _methods(method: str | Sequence[str]) -> tuple[int, int]:
    if isinstance(method, str):
        method = (method, "auto")
    method = tuple(method)
    if len(method) not in (1, 2):
        raise InvalidValueError(f"method={method!r}; give one or two method names")
    codes = [_choice("method", m, _METHODS) for m in method]
    return (codes[0], codes[1] if len(codes) == 2 else 0)


def _int_option(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InvalidValueError(f"{name}={value!r}; an int is needed")
    return int(value)


@dataclass(frozen=True)
class PlanInfo:
    """What a plan is, as built (pscr_plan_info). Sizes in bytes, times in
    seconds; ``cost`` maps each stage kind ("level3", "sums", "coupling",
    "gather", "other") to the modelled flops, bytes and launches of one
    solve; ``candidates`` lists what the planner considered."""

    backend: str
    num_threads: int
    dtype: str
    ndim: int
    shape: tuple[int, ...]
    levels: tuple[int, int]
    eigenpairs: int
    workspace_bytes: int
    device_bytes: int
    level3_rows_per_thread: int
    level3_threads_per_system: int
    level3_toeplitz: bool
    level3_pivot_table: bool
    level3_staged: bool
    level3_fused_levels: int
    level3_fused_back: bool
    cuda_early_launch: bool
    cost: dict
    cost_total: dict
    min_bytes: float
    method: tuple[str, str]
    transform_defect: tuple[float, float]
    candidates: list
    chosen: int
    plan_seconds: float
    transform_sine: tuple[bool, bool]


class Plan:
    """A plan for A u = f with A = sum of Kronecker products of the pencils
    (eq. 7 in 2D, eq. 8 in 3D) and the shift c: the eigen data and all
    workspace, built once, for any number of solves.

    pencils: 2 or 3 pscr.Pencil (or (a_diag, a_off, m_diag[, m_off])
        tuples), dimension 1 first.
    shift: c.
    dtype: float64, complex128, float32 or complex64; by default the
        factors' type, complex when the shift is.
    backend: "auto" (CUDA when built with it and a device exists), "cpu"
        or "cuda". threads: CPU threads (0: OpenMP's default).
    planner: "estimate" (default: the cost model's fastest method per
        reduced dimension), "none" (the reduction) or "measure"; method:
        "auto", "reduction" or "transform" per reduced dimension (a name or
        a pair).
    refine: steps of iterative refinement (0 to pscr.REFINE_MAX);
        refine_single: a double plan's corrections in float.
    device_only: solve CUDA arrays only (backend "cuda"): a plan of dense
        transforms then holds one full-size device buffer less; solves of
        NumPy arrays raise InvalidValueError.
    device, max_batch, check_finite, cuda_rows_per_thread, flags: as
        pscr_options' fields (flags: names from pscr.FLAGS, or bits).

    Use it as a context manager, or call close(), to free its memory at a
    known point; it is freed when collected otherwise. One thread at a
    time may solve with a plan (others wait).
    """

    def __init__(
        self,
        pencils: Sequence[Any],
        shift: complex = 0.0,
        *,
        dtype: Any = None,
        backend: str = "auto",
        threads: int = 0,
        planner: str = "estimate",
        method: str | Sequence[str] = "auto",
        refine: int = 0,
        refine_single: bool = False,
        device_only: bool = False,
        device: int = 0,
        max_batch: int = 1,
        check_finite: bool = True,
        cuda_rows_per_thread: int = 0,
        flags: int | str | Iterable[str] = 0,
    ) -> None:
        try:
            shift = complex(shift)
        except TypeError as exc:
            raise InvalidValueError(f"shift {shift!r} is not a number") from exc
        if dtype is None:
            dt = _dtypes.infer(factor_arrays(pencils), shift)
        else:
            dt = _dtypes.resolve(dtype)
        self._pencils = as_pencils(pencils, dt)
        self._shift = shift
        self._dtype = dt
        self._core = _pscr.PlanCore(
            _dtypes.code(dt),
            self._pencils,
            shift,
            backend=_choice("backend", backend, _BACKENDS),
            device=_int_option("device", device),
            num_threads=_int_option("threads", threads),
            check_finite=bool(check_finite),
            cuda_rows_per_thread=_int_option("cuda_rows_per_thread", cuda_rows_per_thread),
            max_batch=_int_option("max_batch", max_batch),
            flags=_flag_bits(flags),
            method=_methods(method),
            planner=_choice("planner", planner, _PLANNERS),
            refine=_int_option("refine", refine),
            refine_single=bool(refine_single),
            device_only=bool(device_only),
        )
        self._backend = self._core.info()["backend"]

    # ------------------------------------------------------------ properties
    @property
    def dtype(self) -> np.dtype:
        """The element type of f and u."""
        return self._dtype

    @property
    def shape(self) -> tuple[int, ...]:
        """(n1, n2[, n3]): the shape of one right-hand side."""
        return tuple(self._core.shape)

    @property
    def ndim(self) -> int:
        return len(self._core.shape)

    @property
    def size(self) -> int:
        """Unknowns per right-hand side, n1 n2 (n3)."""
        return int(np.prod(self.shape))

    @property
    def backend(self) -> str:
        """"cpu" or "cuda": the backend the plan runs on."""
        return self._backend

    @property
    def closed(self) -> bool:
        return self._core.closed

    @property
    def info(self) -> PlanInfo:
        """The plan's description (pscr_plan_info)."""
        return PlanInfo(**self._core.info())

    # ---------------------------------------------------------------- solves
    def solve(self, f: Any, out: Any = None, *, stream: Any = None) -> Any:
        """u with A u = f.

        f: shape (n1, n2[, n3]), or (k, n1, n2[, n3]) for a batch of k
            right-hand sides; the plan's dtype; each vector C-contiguous
            (the last dimension fastest). A NumPy (host) array, or a CUDA
            array of CuPy, PyTorch, JAX or any DLPack producer: then the
            solve runs on the device, on `stream`, and u is a device array
            of the same framework.
        out: where u goes (same shape, dtype and side as f); out=f solves in
            place. By default a new array.
        stream: CUDA arrays only: the stream to solve on (an int
            cudaStream_t, a CuPy or PyTorch stream, or an object with
            __cuda_stream__). By default the framework's current stream
            (CuPy, PyTorch), else the legacy default stream. The call only
            enqueues work: u is complete for work enqueued on that stream
            after it.
        """
        if out is not None and _arrays.framework(out) == "jax":
            raise InvalidValueError(
                "out is a JAX array; JAX arrays are immutable: leave out=None"
            )
        if not _arrays.is_device_array(f):
            if out is None:
                out = _arrays.empty_like(f, np.shape(f), self._dtype)
            self._core.solve(f, out, 0)
            return out
        s = _arrays.current_stream(f) if stream is None else _arrays.stream_pointer(stream)
        if out is None:
            out = _arrays.empty_like(f, tuple(f.shape), self._dtype)
        if not _arrays.is_device_array(out):
            raise InvalidValueError("f is a CUDA array but out is not; both must be on the device")
        self._core.solve(_arrays.export(f, s), _arrays.export(out, s), s)
        return out

    def apply(self, u: Any, out: Any = None) -> np.ndarray:
        """A u with the plan's operator (pscr_operator_apply), on NumPy
        arrays: e.g. the residual f - plan.apply(u)."""
        if out is None:
            out = np.empty(np.shape(u), dtype=self._dtype)
        _pscr.operator_apply(_dtypes.code(self._dtype), self._pencils, self._shift, u, out)
        return out

    def norm_inf(self) -> float:
        """||A||_inf, the largest absolute row sum of the operator."""
        return _pscr.operator_norm_inf(_dtypes.code(self._dtype), self._pencils, self._shift)

    # -------------------------------------------------------------- lifetime
    def close(self) -> None:
        """Free the plan's memory now (host and device); later solves raise
        pscr.ClosedPlanError. Closing twice is harmless."""
        self._core.close()

    def __enter__(self) -> "Plan":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else self._backend
        size = " x ".join(map(str, self.shape))
        return f"pscr.Plan({size}, {self._dtype.name}, {state})"

"""Array frameworks at the boundary: where an array lives, which CUDA
stream a solve runs on, how a device array is handed to the extension
(DLPack, with the stream), and how a result array is allocated in the
caller's framework. Nothing here copies data.

NumPy arrays (and anything with the buffer protocol or a host __dlpack__)
go to the extension as they are. CUDA arrays (CuPy, PyTorch, JAX, or any
DLPack producer) are exported with ``__dlpack__(stream=s)``, the DLPack
consumer protocol: the producer orders its pending work on the array
before stream ``s``, where pscr's solve then runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._errors import InvalidValueError

# DLPack device types of CUDA memory (kDLCUDA, kDLCUDAManaged).
_CUDA_DEVICE_TYPES = (2, 13)


def framework(x: Any) -> str:
    """The top-level package of an array's type: "numpy", "cupy", "torch",
    "jax" (also for jaxlib's types), or another name."""
    root = type(x).__module__.split(".")[0]
    return "jax" if root == "jaxlib" else root


def is_device_array(x: Any) -> bool:
    """Whether x is an array in CUDA memory (its __dlpack_device__ says so)."""
    get = getattr(x, "__dlpack_device__", None)
    if get is None:
        return False
    try:
        kind, _ = get()
    except Exception:  # a producer that cannot say: not a CUDA array to us
        return False
    return int(kind) in _CUDA_DEVICE_TYPES


def stream_pointer(stream: Any) -> int:
    """A cudaStream_t as an integer, from an int, an object with the
    ``__cuda_stream__`` protocol, a CuPy stream (``.ptr``) or a PyTorch
    stream (``.cuda_stream``)."""
    if isinstance(stream, bool):
        raise InvalidValueError(f"stream must be a CUDA stream, not {stream!r}")
    if isinstance(stream, int):
        if stream < 0:
            raise InvalidValueError(f"stream {stream} is negative; pass a cudaStream_t")
        return stream
    protocol = getattr(stream, "__cuda_stream__", None)
    if protocol is not None:
        return int(protocol()[1])
    for attr in ("cuda_stream", "ptr"):
        value = getattr(stream, attr, None)
        if isinstance(value, int):
            return value
    raise InvalidValueError(
        f"stream is a {type(stream).__qualname__}; pass an int (a cudaStream_t), a CuPy "
        "or PyTorch stream, or an object with __cuda_stream__"
    )


def current_stream(x: Any) -> int:
    """The stream the array's framework is working on now: CuPy's and
    PyTorch's current stream; 0 (the legacy default stream) otherwise,
    e.g. for JAX, which has no user-visible current stream."""
    fw = framework(x)
    if fw == "cupy":
        import cupy

        return int(cupy.cuda.get_current_stream().ptr)
    if fw == "torch":
        import torch

        return int(torch.cuda.current_stream(x.device).cuda_stream)
    return 0


def export(x: Any, stream: int) -> Any:
    """x's DLPack capsule, its producer told to order x before `stream`.
    DLPack reserves 0 for CUDA; the legacy default stream is 1 there."""
    dl_stream = stream if stream != 0 else 1
    try:
        return x.__dlpack__(stream=dl_stream, max_version=(1, 0))
    except TypeError:  # a producer older than DLPack 1.0's keyword
        return x.__dlpack__(stream=dl_stream)


def _torch_dtype(dtype: np.dtype) -> Any:
    import torch

    return {
        "float32": torch.float32,
        "float64": torch.float64,
        "complex64": torch.complex64,
        "complex128": torch.complex128,
    }[dtype.name]


def empty_like(x: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    """A new array for a result, in x's framework and on x's device."""
    fw = framework(x)
    if fw == "cupy":
        import cupy

        with cupy.cuda.Device(x.device.id):
            return cupy.empty(shape, dtype=dtype)
    if fw == "torch":
        import torch

        return torch.empty(shape, dtype=_torch_dtype(dtype), device=x.device)
    if fw == "jax":
        import jax.numpy as jnp

        # JAX arrays are immutable; this one is new and unseen by anyone
        # but the solve that writes it (through DLPack) before returning it.
        return jnp.empty(shape, dtype=dtype, device=x.device)
    if is_device_array(x):
        raise InvalidValueError(
            f"pscr cannot allocate a result like a {type(x).__qualname__}: pass out="
        )
    return np.empty(shape, dtype=dtype)

"""CUDA device arrays: CuPy and PyTorch (and JAX, where installed with a GPU)
arrays in, device arrays of the same framework out, on the caller's stream,
with no copy to the host.

Skipped without a CUDA build of pscr, a device or the framework;
scripts/python-gpu-check.sh runs them with --require-gpu, which turns every
such skip into a failure.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from conftest import DTYPES
from dense import TOLERANCE, backward_error, dense_operator, random_pencil, random_rhs

import pscr
from pscr import _arrays

pytestmark = pytest.mark.gpu

SHAPES = [(31, 17), (9, 8, 7)]


@pytest.fixture
def cp(require):
    require(pscr.HAS_CUDA, "this pscr build has no CUDA backend")
    try:
        import cupy
    except ImportError:
        require(False, "CuPy is not installed")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception:  # no driver
        count = 0
    require(count > 0, "no CUDA device")
    return cupy


@pytest.fixture
def torch(require):
    require(pscr.HAS_CUDA, "this pscr build has no CUDA backend")
    try:
        import torch
    except ImportError:
        require(False, "PyTorch is not installed")
    require(torch.cuda.is_available(), "PyTorch sees no CUDA device")
    return torch


def case(rng, shape, dtype):
    complex_ = np.dtype(dtype).kind == "c"
    pencils = [random_pencil(rng, n, complex_) for n in shape]
    shift = 0.3 + 0.2j if complex_ else 0.5
    return pencils, shift


def spin_copy_kernel(cp):
    """A kernel that spins ~`cycles` clock cycles, then copies src to dst:
    work that a solve on the wrong stream would overtake."""
    return cp.RawKernel(
        r"""
        extern "C" __global__ void spin_copy(const double *src, double *dst, long long n,
                                             long long cycles) {
          long long start = clock64();
          while (clock64() - start < cycles) { }
          for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
               i += (long long)gridDim.x * blockDim.x)
            dst[i] = src[i];
        }
        """,
        "spin_copy",
    )


# ------------------------------------------------------------------- CuPy


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_cupy_solve(cp, rng, dtype, shape):
    pencils, shift = case(rng, shape, dtype)
    f = random_rhs(rng, shape, dtype)
    fd = cp.asarray(f)
    with pscr.Plan(pencils, shift, dtype=dtype, backend="cuda") as plan:
        assert plan.backend == "cuda"
        u = plan.solve(fd)
        assert isinstance(u, cp.ndarray) and u.dtype == np.dtype(dtype) and u.shape == shape
        assert u.device.id == fd.device.id
        assert backward_error(dense_operator(pencils, shift), cp.asnumpy(u), f) <= TOLERANCE[dtype]
        # Host arrays on the same CUDA plan: the same kernels, the same numbers.
        assert np.allclose(plan.solve(f), cp.asnumpy(u), rtol=1e-5 if dtype in ("float32", "complex64") else 1e-12)


@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_cupy_out_in_place_and_batch(cp, rng, dtype):
    shape = (31, 17)
    pencils, shift = case(rng, shape, dtype)
    fd = cp.asarray(random_rhs(rng, (3,) + shape, dtype))
    with pscr.Plan(pencils, shift, dtype=dtype, backend="cuda", max_batch=2) as plan:
        single = [plan.solve(fd[r]) for r in range(3)]
        out = cp.empty_like(fd)
        ptr = out.data.ptr
        assert plan.solve(fd, out=out) is out and out.data.ptr == ptr
        for r in range(3):  # a batch is bitwise its single solves
            assert cp.array_equal(out[r], single[r])
        g = fd[1].copy()
        assert plan.solve(g, out=g) is g
        assert cp.array_equal(g, single[1])


def test_cupy_current_stream_is_honoured(cp, rng):
    # A non-blocking stream does not wait for the legacy default stream (nor
    # it for this one): a solve enqueued anywhere but on `s` would read f
    # before the spinning kernel has written it.
    shape = (63, 31)
    pencils, shift = case(rng, shape, "float64")
    f = random_rhs(rng, shape, "float64")
    with pscr.Plan(pencils, shift, backend="cuda") as plan:
        expected = plan.solve(f)
        src = cp.asarray(f)
        kernel = spin_copy_kernel(cp)
        s = cp.cuda.Stream(non_blocking=True)
        with s:
            fd = cp.zeros(shape)
            kernel((64,), (128,), (src, fd, np.int64(fd.size), np.int64(200_000_000)))
            u = plan.solve(fd)  # on cupy's current stream: s
        s.synchronize()
        assert np.allclose(cp.asnumpy(u), expected, rtol=1e-12, atol=1e-14)
        # An explicit stream= wins over the current one.
        s2 = cp.cuda.Stream(non_blocking=True)
        with s2:
            fd2 = cp.zeros(shape)
            kernel((64,), (128,), (src, fd2, np.int64(fd2.size), np.int64(200_000_000)))
            out = cp.empty(shape)
        plan.solve(fd2, out=out, stream=s2)
        s2.synchronize()
        assert np.allclose(cp.asnumpy(out), expected, rtol=1e-12, atol=1e-14)


def test_cupy_solve_does_not_wait_for_the_device(cp, rng):
    # With a second of spinning ahead of it on the stream, a solve that
    # copied through the host or synchronized would take that second; an
    # enqueued one returns at once.
    shape = (63, 31)
    pencils, shift = case(rng, shape, "float64")
    with pscr.Plan(pencils, shift, backend="cuda") as plan:
        fd = cp.asarray(random_rhs(rng, shape, "float64"))
        plan.solve(fd)  # first use: kernels loaded
        busy = cp.zeros(shape)
        cp.cuda.get_current_stream().synchronize()
        spin_copy_kernel(cp)((1,), (32,), (fd, busy, np.int64(busy.size), np.int64(2_000_000_000)))
        start = time.perf_counter()
        plan.solve(fd)
        returned = time.perf_counter() - start
        begin = time.perf_counter()
        cp.cuda.get_current_stream().synchronize()
        waited = time.perf_counter() - begin
    assert returned < 0.1 < waited


def test_cupy_errors(cp, rng):
    shape = (31, 17)
    pencils, shift = case(rng, shape, "float64")
    with pscr.Plan(pencils, shift, backend="cuda") as plan:
        with pytest.raises(pscr.DTypeError, match="f has dtype float32"):
            plan.solve(cp.zeros(shape, dtype=cp.float32))
        with pytest.raises(pscr.InvalidValueError, match="not C-contiguous"):
            plan.solve(cp.zeros((31, 34))[:, ::2])
        with pytest.raises(pscr.InvalidValueError, match="both must be on the device"):
            plan.solve(cp.zeros(shape), out=np.zeros(shape))
        with pytest.raises(pscr.InvalidValueError, match="shape"):
            plan.solve(cp.zeros((17, 31)))
    with pscr.Plan(pencils, shift, backend="cpu") as cpu_plan:
        with pytest.raises(pscr.NotSupportedError):
            cpu_plan.solve(cp.zeros(shape))


def test_repeat_device_is_the_c_loop(cp, rng):
    # The timing baseline (python/tools/time_device.py) solves the same system.
    shape = (31, 17)
    pencils, shift = case(rng, shape, "float64")
    with pscr.Plan(pencils, shift, backend="cuda") as plan:
        fd = cp.asarray(random_rhs(rng, shape, "float64"))
        out = cp.empty_like(fd)
        s = cp.cuda.get_current_stream().ptr
        plan._core.repeat_device(_arrays.export(fd, s), _arrays.export(out, s), s, 3)
        assert cp.array_equal(out, plan.solve(fd))


# ---------------------------------------------------------------- PyTorch


@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_torch_solve(torch, rng, dtype):
    shape = (9, 8, 7)
    pencils, shift = case(rng, shape, dtype)
    f = random_rhs(rng, (2,) + shape, dtype)
    fd = torch.from_numpy(f).cuda()
    with pscr.Plan(pencils, shift, dtype=dtype, backend="cuda") as plan:
        u = plan.solve(fd)
        assert isinstance(u, torch.Tensor) and u.is_cuda and u.device == fd.device
        assert tuple(u.shape) == f.shape and str(u.dtype) == f"torch.{dtype}"
        a = dense_operator(pencils, shift)
        for r in range(2):
            assert backward_error(a, u[r].cpu().numpy(), f[r]) <= TOLERANCE[dtype]
        out = torch.empty_like(fd)
        ptr = out.data_ptr()
        assert plan.solve(fd, out=out) is out and out.data_ptr() == ptr
        assert torch.equal(out, u)


def test_torch_current_stream_is_honoured(torch, rng):
    shape = (63, 31)
    pencils, shift = case(rng, shape, "float64")
    f = random_rhs(rng, shape, "float64")
    with pscr.Plan(pencils, shift, backend="cuda") as plan:
        expected = plan.solve(f)
        src = torch.from_numpy(f).cuda()
        torch.cuda.synchronize()
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            fd = torch.zeros_like(src)
            torch.cuda._sleep(200_000_000)  # spins the current stream
            fd.copy_(src)
            u = plan.solve(fd)
        s.synchronize()
        assert np.allclose(u.cpu().numpy(), expected, rtol=1e-12, atol=1e-14)


# -------------------------------------------------------------------- JAX


def test_jax_solve(require, rng):
    require(pscr.HAS_CUDA, "this pscr build has no CUDA backend")
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        require(False, "JAX is not installed")
    gpus = [d for d in jax.devices() if d.platform == "gpu"]
    require(bool(gpus), "JAX sees no GPU")
    shape = (31, 17)
    pencils, shift = case(rng, shape, "float32")
    f = random_rhs(rng, shape, "float32")
    fd = jax.device_put(jnp.asarray(f), gpus[0])
    with pscr.Plan(pencils, shift, dtype="float32", backend="cuda") as plan:
        u = plan.solve(fd)
        assert isinstance(u, jax.Array) and u.dtype == jnp.float32
        assert backward_error(dense_operator(pencils, shift), np.asarray(u), f) <= TOLERANCE["float32"]
        with pytest.raises(pscr.InvalidValueError, match="immutable"):
            plan.solve(fd, out=u)

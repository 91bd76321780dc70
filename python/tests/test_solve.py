"""Solves on NumPy arrays against a dense NumPy reference, every dtype, 2D
and 3D, single right-hand sides and batches, out= and in place, options."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from conftest import DTYPES
from dense import TOLERANCE, backward_error, dense_operator, random_pencil, random_rhs

import pscr

# Sizes: odd and even, a power of four (the merged top level), n = 1.
SHAPES = [(13, 9), (16, 5), (1, 7), (5, 6, 7), (4, 1, 3)]
SHIFTS = {"real": 0.5, "complex": 0.3 + 0.2j}


def make_case(rng, shape, dtype):
    complex_ = np.dtype(dtype).kind == "c"
    pencils = [random_pencil(rng, n, complex_, mass_off=(d % 2 == 0)) for d, n in enumerate(shape)]
    shift = SHIFTS["complex" if complex_ else "real"]
    return pencils, shift


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_backward_error_against_dense(rng, dtype, shape):
    pencils, shift = make_case(rng, shape, dtype)
    a = dense_operator(pencils, shift)
    f = random_rhs(rng, shape, dtype)
    with pscr.Plan(pencils, shift, dtype=dtype) as plan:
        u = plan.solve(f)
    assert isinstance(u, np.ndarray) and u.dtype == np.dtype(dtype) and u.shape == shape
    assert backward_error(a, u, f) <= TOLERANCE[dtype]
    if dtype in ("float64", "complex128"):
        # These pencils are well conditioned: the dense solution itself.
        ref = np.linalg.solve(a, f.reshape(-1)).reshape(shape)
        assert np.allclose(u, ref, rtol=1e-10, atol=1e-12)


def test_dtype_is_inferred(rng):
    real = [random_pencil(rng, n) for n in (6, 5)]
    assert pscr.Plan(real, 1.0).dtype == np.float64
    assert pscr.Plan(real, 1.0 + 0.5j).dtype == np.complex128
    single = [tuple(None if v is None else v.astype(np.float32) for v in p) for p in real]
    assert pscr.Plan(single, 1.0).dtype == np.float32
    cplx = [random_pencil(rng, n, True) for n in (6, 5)]
    assert pscr.Plan(cplx, 1.0).dtype == np.complex128


@pytest.mark.parametrize("dtype", DTYPES)
def test_batch_is_bitwise_single_solves(rng, dtype):
    shape = (9, 8)
    pencils, shift = make_case(rng, shape, dtype)
    f = random_rhs(rng, (4,) + shape, dtype)
    with pscr.Plan(pencils, shift, dtype=dtype) as plan:
        u = plan.solve(f)
        assert u.shape == f.shape
        for r in range(4):
            assert np.array_equal(u[r], plan.solve(f[r]))
        # A batch whose vectors lie apart (every other one of a larger array).
        spread = random_rhs(rng, (6,) + shape, dtype)
        assert np.array_equal(plan.solve(spread[::2]), plan.solve(spread[::2].copy()))
        # An empty batch solves nothing.
        assert plan.solve(f[:0]).shape == (0,) + shape


@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_out_and_in_place(rng, dtype):
    shape = (7, 6, 5)
    pencils, shift = make_case(rng, shape, dtype)
    f = random_rhs(rng, shape, dtype)
    with pscr.Plan(pencils, shift, dtype=dtype) as plan:
        expected = plan.solve(f)
        out = np.empty_like(f)
        assert plan.solve(f, out=out) is out
        assert np.array_equal(out, expected)
        g = f.copy()
        assert plan.solve(g, out=g) is g
        assert np.array_equal(g, expected)
        batch = np.stack([f, 2 * f])
        plan.solve(batch, out=batch)
        assert np.array_equal(batch[0], expected)


def test_plan_options(rng):
    pencils, shift = make_case(rng, (33, 17), "float64")
    a = dense_operator(pencils, shift)
    f = random_rhs(rng, (33, 17), "float64")
    # CPU solves repeat bitwise for any thread count (user guide, Threads);
    # a CUDA plan (backend "auto" on a GPU machine) differs by rounding.
    reference = pscr.Plan(pencils, shift, backend="cpu", planner="none").solve(f)
    with pscr.Plan(pencils, shift, backend="cpu", threads=1, planner="none") as plan:
        info = plan.info
        assert info.backend == "cpu" and info.num_threads == 1 and plan.backend == "cpu"
        assert info.shape == (33, 17) and info.dtype == "float64" and info.ndim == 2
        assert info.levels[0] > 0 and info.method[0] == "reduction"
        assert info.workspace_bytes > 0 and info.cost_total["flops"] > 0
        assert set(info.cost) == {"level3", "sums", "coupling", "gather", "other"}
        assert np.array_equal(plan.solve(f), reference)
    with pscr.Plan(pencils, shift, method="transform") as plan:
        assert plan.info.method[0] == "transform" and plan.info.levels[0] == 0
        assert backward_error(a, plan.solve(f), f) <= 1e-13
    with pscr.Plan(pencils, shift, planner="estimate") as plan:
        info = plan.info
        assert len(info.candidates) >= 2
        assert 0 <= info.chosen < len(info.candidates)
        assert backward_error(a, plan.solve(f), f) <= 1e-13
    with pscr.Plan(pencils, shift, refine=1, flags=["no-merge-top"]) as plan:
        assert backward_error(a, plan.solve(f), f) <= 1e-13
    with pscr.Plan(pencils, shift, refine=1, refine_single=True) as plan:
        assert backward_error(a, plan.solve(f), f) <= 1e-13


def test_float_plan_refined_in_double_is_accurate(rng):
    # A float32 plan's solve is accurate to ~1e-6; the same pencils in a
    # double plan with refine_single reach double accuracy.
    pencils, shift = make_case(rng, (31, 12), "float64")
    a = dense_operator(pencils, shift)
    f = random_rhs(rng, (31, 12), "float64")
    u32 = pscr.Plan(pencils, shift, dtype="float32").solve(f.astype(np.float32))
    assert 1e-9 < backward_error(a, u32, f) <= 1e-5
    u64 = pscr.Plan(pencils, shift, refine=2, refine_single=True).solve(f)
    assert backward_error(a, u64, f) <= 1e-14


def test_apply_and_norm(rng):
    pencils, shift = make_case(rng, (6, 5, 4), "complex128")
    a = dense_operator(pencils, shift)
    u = random_rhs(rng, (6, 5, 4), "complex128")
    with pscr.Plan(pencils, shift) as plan:
        assert np.allclose(plan.apply(u).reshape(-1), a @ u.reshape(-1), rtol=1e-13, atol=1e-13)
        assert plan.norm_inf() == pytest.approx(np.abs(a).sum(axis=1).max(), rel=1e-13)
        # The residual of a solve, with the plan's own operator.
        f = random_rhs(rng, (6, 5, 4), "complex128")
        assert np.abs(plan.apply(plan.solve(f)) - f).max() <= 1e-12 * np.abs(f).max()


def test_threads_share_a_plan(rng):
    # Solves release the GIL; a plan serves one thread at a time, the others
    # wait: every thread still gets its own right answer.
    pencils, shift = make_case(rng, (63, 31), "float64")
    f = random_rhs(rng, (8, 63, 31), "float64")
    plan = pscr.Plan(pencils, shift)
    expected = plan.solve(f)
    results = [None] * 8

    def work(i):
        for _ in range(5):
            results[i] = plan.solve(f[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(8):
        assert np.array_equal(results[i], expected[i])
    plan.close()


def test_context_manager_and_close(rng):
    pencils, shift = make_case(rng, (5, 5), "float64")
    with pscr.Plan(pencils, shift) as plan:
        assert not plan.closed
        assert "cpu" in repr(plan) or "cuda" in repr(plan)
    assert plan.closed and "closed" in repr(plan)
    plan.close()  # twice: harmless

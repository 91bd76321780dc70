"""Bad input: each kind raises its own exception class, with the cause in
the message; nothing is solved or written."""

from __future__ import annotations

import numpy as np
import pytest
from dense import random_pencil, random_rhs

import pscr

SHAPE = (13, 9)


@pytest.fixture
def plan(rng):
    # The CPU backend on every machine: what the library reports for bad f
    # (a non-finite solution, say) is then the same everywhere.
    pencils = [random_pencil(rng, n) for n in SHAPE]
    with pscr.Plan(pencils, 0.5, backend="cpu") as p:
        yield p


@pytest.fixture
def pencils(rng):
    return [random_pencil(rng, n) for n in SHAPE]


def test_hierarchy():
    assert issubclass(pscr.InvalidValueError, pscr.Error)
    assert issubclass(pscr.InvalidValueError, ValueError)
    assert issubclass(pscr.DTypeError, pscr.InvalidValueError)
    assert issubclass(pscr.DTypeError, TypeError)
    assert issubclass(pscr.ClosedPlanError, pscr.InvalidValueError)
    assert issubclass(pscr.HostAllocError, MemoryError)
    statuses = {
        cls.status
        for cls in (
            pscr.InvalidValueError,
            pscr.NotSupportedError,
            pscr.NonFiniteError,
            pscr.NotDefiniteError,
            pscr.EigenFailedError,
            pscr.SingularError,
            pscr.HostAllocError,
            pscr.DeviceAllocError,
            pscr.DeviceError,
        )
    }
    assert statuses == set(range(1, 10))


def test_wrong_dtype(plan, rng):
    f = random_rhs(rng, SHAPE, "float32")
    with pytest.raises(pscr.DTypeError, match=r"f has dtype float32, the plan's dtype is float64"):
        plan.solve(f)
    with pytest.raises(pscr.DTypeError, match="int64"):
        plan.solve(np.zeros(SHAPE, dtype=np.int64))
    with pytest.raises(pscr.DTypeError, match="out has dtype complex128"):
        plan.solve(random_rhs(rng, SHAPE, "float64"), out=np.empty(SHAPE, np.complex128))


def test_wrong_shape(plan, rng):
    with pytest.raises(pscr.InvalidValueError, match=r"shape \(9, 13\); the plan takes \(13, 9\)"):
        plan.solve(random_rhs(rng, (9, 13), "float64"))
    with pytest.raises(pscr.InvalidValueError, match=r"shape \(117,\)"):
        plan.solve(random_rhs(rng, (117,), "float64"))
    with pytest.raises(pscr.InvalidValueError, match="shapes must match"):
        plan.solve(random_rhs(rng, (2,) + SHAPE, "float64"), out=np.empty((3,) + SHAPE))


def test_not_contiguous(plan, rng):
    wide = random_rhs(rng, (13, 18), "float64")
    with pytest.raises(pscr.InvalidValueError, match="not C-contiguous.*last dimension fastest"):
        plan.solve(wide[:, ::2])
    with pytest.raises(pscr.InvalidValueError, match="not C-contiguous"):
        plan.solve(np.asfortranarray(random_rhs(rng, SHAPE, "float64")))
    with pytest.raises(pscr.InvalidValueError, match="out is not C-contiguous"):
        plan.solve(random_rhs(rng, SHAPE, "float64"), out=np.empty((18, 13)).T[:, ::2])
    # A batch whose vectors overlap each other (stride below n1*n2).
    flat = random_rhs(rng, (200,), "float64")
    overlapping = np.lib.stride_tricks.as_strided(flat, (2,) + SHAPE, (8 * 5, 8 * 9, 8))
    with pytest.raises(pscr.InvalidValueError, match="batch axis has a stride of 5"):
        plan.solve(overlapping)


def test_layouts_and_byte_order(plan, rng):
    f = random_rhs(rng, SHAPE, "float64")
    with pytest.raises(pscr.InvalidValueError, match=r"not C-contiguous \(strides \(-9, 1\)"):
        plan.solve(f[::-1])
    with pytest.raises(pscr.InvalidValueError, match=r"not C-contiguous \(strides \(0, 1\)"):
        plan.solve(np.broadcast_to(f[0], SHAPE))
    with pytest.raises(pscr.DTypeError, match=r"dtype >f8\) cannot be passed"):
        plan.solve(f.astype(">f8"))


def test_not_an_array_and_read_only(plan, rng):
    with pytest.raises(pscr.InvalidValueError, match="f is a list, not an array"):
        plan.solve([[1.0] * 9] * 13)
    f = random_rhs(rng, SHAPE, "float64")
    out = np.empty(SHAPE)
    out.flags.writeable = False
    with pytest.raises(pscr.InvalidValueError, match="out is read-only"):
        plan.solve(f, out=out)
    # A read-only f is fine: pscr only reads it.
    f.flags.writeable = False
    assert np.isfinite(plan.solve(f)).all()


def test_overlap(plan, rng):
    buf = random_rhs(rng, (13 * 9 + 3,), "float64")
    f = buf[:117].reshape(SHAPE)
    out = buf[3:].reshape(SHAPE)
    before = buf.copy()
    with pytest.raises(pscr.InvalidValueError, match="out overlaps f"):
        plan.solve(f, out=out)
    assert np.array_equal(buf, before)


def test_closed_plan(plan, rng):
    plan.close()
    with pytest.raises(pscr.ClosedPlanError, match="the plan is closed"):
        plan.solve(random_rhs(rng, SHAPE, "float64"))
    with pytest.raises(pscr.ClosedPlanError):
        plan.info


@pytest.mark.parametrize(
    "options, error, message",
    [
        ({"backend": "gpu"}, pscr.InvalidValueError, "backend='gpu'; use one of 'auto', 'cpu', 'cuda'"),
        ({"planner": "fast"}, pscr.InvalidValueError, "planner='fast'"),
        ({"method": "fft"}, pscr.InvalidValueError, "method='fft'"),
        ({"method": ("auto", "transform")}, pscr.InvalidValueError, r"method\[1\]"),
        ({"refine": 99}, pscr.InvalidValueError, "refine is 99, must be 0 .. 8"),
        ({"refine": 1.5}, pscr.InvalidValueError, "refine=1.5; an int is needed"),
        ({"refine_single": True}, pscr.InvalidValueError, "refine_single"),
        ({"device_only": True, "backend": "cpu"}, pscr.InvalidValueError, "device_only is 1, but it needs backend"),
        ({"threads": -1}, pscr.InvalidValueError, "num_threads"),
        ({"max_batch": 0}, pscr.InvalidValueError, "max_batch"),
        ({"cuda_rows_per_thread": 3}, pscr.InvalidValueError, "cuda_rows_per_thread"),
        ({"flags": ["no-such-flag"]}, pscr.InvalidValueError, "unknown flag 'no-such-flag'"),
        ({"flags": 1 << 30}, pscr.InvalidValueError, "flag"),
        ({"dtype": np.int32}, pscr.DTypeError, "dtype int32 is not supported"),
        ({"dtype": "float64", "device": -1}, pscr.InvalidValueError, "device"),
    ],
    ids=lambda v: str(v) if not isinstance(v, dict) else ",".join(v),
)
def test_bad_options(pencils, options, error, message):
    with pytest.raises(error, match=message):
        pscr.Plan(pencils, 0.5, **options)


def test_cuda_in_a_cpu_build(pencils):
    if pscr.HAS_CUDA:
        pytest.skip("this build has the CUDA backend (test_gpu.py covers it)")
    with pytest.raises(pscr.NotSupportedError, match="this build has no CUDA backend"):
        pscr.Plan(pencils, 0.5, backend="cuda")


def test_bad_pencils(rng, pencils):
    with pytest.raises(pscr.InvalidValueError, match="pscr solves 2D .* and 3D"):
        pscr.Plan(pencils[:1], 0.5)
    short = list(pencils)
    a_diag, a_off, m_diag, m_off = short[1]
    short[1] = (a_diag, a_off[:-1], m_diag, m_off)
    with pytest.raises(pscr.InvalidValueError, match="pencil 2: a_off has 7 entries, needs 8"):
        pscr.Plan(short, 0.5)
    with pytest.raises(pscr.DTypeError, match="shift has a non-zero imaginary part"):
        pscr.Plan(pencils, 0.5 + 1j, dtype="float64")
    cplx = [random_pencil(rng, n, True) for n in SHAPE]
    with pytest.raises(pscr.DTypeError, match="pencil 1: a_diag is complex"):
        pscr.Plan(cplx, 0.5, dtype="float64")


def test_non_finite(pencils, rng, plan):
    a_diag, a_off, m_diag, m_off = pencils[1]
    bad = a_diag.copy()
    bad[3] = np.nan
    with pytest.raises(pscr.NonFiniteError, match="pencil 2: a_diag\\[3\\] is not finite"):
        pscr.Plan([pencils[0], (bad, a_off, m_diag, m_off)], 0.5)
    with pytest.raises(pscr.NonFiniteError, match="shift"):
        pscr.Plan(pencils, float("inf"))
    f = random_rhs(rng, SHAPE, "float64")
    f[2, 2] = np.inf
    out = np.zeros(SHAPE)
    with pytest.raises(pscr.NonFiniteError):
        plan.solve(f, out=out)
    assert not out.any()  # u is not written
    # Unchecked, the solve runs and the library finds the non-finite solution.
    with pscr.Plan(pencils, 0.5, check_finite=False, backend="cpu") as unchecked:
        with pytest.raises(pscr.SingularError, match="overflowed"):
            unchecked.solve(f)


def test_not_definite(pencils):
    a_diag, a_off, m_diag, m_off = pencils[0]
    with pytest.raises(pscr.NotDefiniteError, match="M1 is not positive definite"):
        pscr.Plan([(a_diag, a_off, -m_diag, m_off), pencils[1]], 0.5)


def test_singular():
    # n1 = 1 with eigenvalue 1, A2 = 0, M2 = I and c = -1: A is zero.
    p1 = (np.array([1.0]), None, np.array([1.0]), None)
    p2 = (np.zeros(3), np.zeros(2), np.ones(3), None)
    with pscr.Plan([p1, p2], -1.0, backend="cpu") as plan:
        with pytest.raises(pscr.SingularError):
            plan.solve(np.ones((1, 3)))


def test_error_attributes(pencils):
    with pytest.raises(pscr.Error) as caught:
        pscr.Plan(pencils, 0.5, refine=99)
    e = caught.value
    assert e.status == 1 and e.status_name == "PSCR_ERROR_INVALID_VALUE"
    assert str(e) == e.detail == "refine is 99, must be 0 .. 8"
    assert "invalid value" in e.status_text


def test_status_classes_match_the_library():
    # pscr/_errors.py keeps a class per C status; the extension lists the
    # header's statuses (PSCR_STATUS_LIST): every error status has its
    # class, with the header's value and name.
    from pscr import _errors, _pscr

    names = _pscr.STATUS_NAMES
    assert names[0] == "PSCR_SUCCESS" and len(names) >= 10
    for value, name in names.items():
        if value == 0:
            continue
        cls = _errors._BY_STATUS.get(value)
        assert cls is not None, f"no class for {name} ({value})"
        assert (cls.status, cls.status_name) == (value, name)
    assert set(_errors._BY_STATUS) == set(names) - {0}

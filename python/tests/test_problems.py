"""The problem builders (meshes, Poisson and Helmholtz factors, model
problems, load vectors) against their formulas, and the operator against
the dense reference."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DTYPES
from dense import TOLERANCE, backward_error, dense_operator, random_pencil, random_rhs, tridiag

import pscr


def test_meshes():
    assert np.array_equal(pscr.mesh_uniform(4, 2.0), np.full(4, 0.5))
    h = pscr.mesh_graded(16, 3.0, 0.5)
    assert h.sum() == pytest.approx(3.0, rel=1e-14)
    assert h[0] < h[8] and np.allclose(h, h[::-1])  # finer at both ends
    with pytest.raises(pscr.InvalidValueError, match="grading"):
        pscr.mesh_graded(8, 1.0, 1.5)
    with pytest.raises(pscr.InvalidValueError):
        pscr.mesh_uniform(0, 1.0)


def test_poisson_factors():
    h = np.array([0.1, 0.2, 0.3, 0.4])  # 3 unknowns
    p = pscr.poisson_factors(h)
    assert p.n == 3 and p.m_off is None
    assert np.allclose(p.a_diag, 1 / h[:-1] + 1 / h[1:])
    assert np.allclose(p.a_off, -1 / h[1:-1])
    assert np.allclose(p.m_diag, (h[:-1] + h[1:]) / 2)
    with pytest.raises(pscr.InvalidValueError, match="h\\[1\\]|> 0|h"):
        pscr.poisson_factors([0.1, -0.2, 0.3])


def test_helmholtz_factors():
    h, w = 0.25, 3.0
    p = pscr.helmholtz_factors(np.full(4, h), w)
    assert p.n == 5 and p.a_diag.dtype == np.complex128
    assert np.allclose(p.a_diag, [1 / h - 0.5j * w] + [2 / h] * 3 + [1 / h - 0.5j * w])
    assert np.allclose(p.a_off, -1 / h)
    assert np.allclose(p.m_diag, [h / 3 + 0.5j / w] + [2 * h / 3] * 3 + [h / 3 + 0.5j / w])
    assert np.allclose(p.m_off, h / 6)
    with pytest.raises(pscr.InvalidValueError, match="omega"):
        pscr.helmholtz_factors(np.full(4, h), -1.0)


def test_poisson_problem_converges_as_h_squared():
    errors = []
    for n in (15, 31, 63):
        pb = pscr.Problem.poisson((n, n + 2))
        b, exact = pb.manufactured()
        with pb.plan() as plan:
            u = plan.solve(b)
        errors.append(np.abs(u - exact).max() / np.abs(exact).max())
    # O(h^2): each halving of h divides the error by about 4.
    for coarse, fine in zip(errors, errors[1:]):
        assert 3.5 < coarse / fine < 4.5


def test_helmholtz_problem_against_dense():
    pb = pscr.Problem.helmholtz((12, 10), 5.0)
    assert pb.dtype == np.complex128 and pb.shift == -25.0
    a = dense_operator(pb.pencils, pb.shift)
    b, _ = pb.manufactured()
    with pb.plan() as plan:
        assert backward_error(a, plan.solve(b), b) <= TOLERANCE["complex128"]


def test_problem_3d_float32():
    pb = pscr.Problem.poisson((7, 6, 5), length=(1.0, 2.0, 0.5), grading=0.3)
    assert pb.length == (1.0, 2.0, 0.5) and pb.x[1][-1] < 2.0
    b, _ = pb.manufactured()
    with pb.plan(dtype="float32") as plan:
        assert plan.dtype == np.float32
        u = plan.solve(b.astype(np.float32))
    assert backward_error(dense_operator(pb.pencils, pb.shift), u, b) <= TOLERANCE["float32"]


def test_load_poisson_is_lumped_mass_times_nodal_values():
    pb = pscr.Problem.poisson((9, 7), grading=0.4)

    def g(x, y):
        return np.exp(x) * np.cos(3 * y)

    x, y = np.meshgrid(pb.x[0], pb.x[1], indexing="ij")
    expected = np.outer(pb.pencils[0].m_diag, pb.pencils[1].m_diag) * g(x, y)
    assert np.allclose(pb.load(g), expected, rtol=1e-14, atol=0)
    assert np.allclose(pb.load(g(x, y)), expected, rtol=1e-14, atol=0)  # nodal values
    assert np.allclose(pb.sample(g), g(x, y), rtol=0, atol=0)
    assert np.allclose(pb.load(2.0), 2 * np.outer(pb.pencils[0].m_diag, pb.pencils[1].m_diag))


def test_load_helmholtz_is_consistent_mass_without_boundary_terms():
    pb = pscr.Problem.helmholtz((6, 5, 4), 2.0)
    values = random_rhs(np.random.default_rng(1), pb.shape, "complex128")
    # The real part of each M: the consistent FE mass, without the ABC's i/(2 w).
    mass = [tridiag(p.m_diag.real, p.m_off.real) for p in pb.pencils]
    dense = np.kron(np.kron(mass[0], mass[1]), mass[2])
    expected = (dense @ values.reshape(-1)).reshape(pb.shape)
    assert np.allclose(pb.load(values), expected, rtol=1e-13, atol=1e-15)


def test_problem_errors():
    with pytest.raises(pscr.InvalidValueError, match="kind"):
        pscr.Problem("laplace", (4, 4))
    with pytest.raises(pscr.InvalidValueError):
        pscr.Problem.poisson((4,))
    with pytest.raises(pscr.InvalidValueError):
        pscr.Problem.helmholtz((4, 4), 0.0)
    with pytest.raises(pscr.InvalidValueError, match="length has 3 entries"):
        pscr.Problem.poisson((4, 4), length=(1, 1, 1))


@pytest.mark.parametrize("dtype", DTYPES)
def test_operator_apply_against_dense(dtype):
    rng = np.random.default_rng(7)
    complex_ = np.dtype(dtype).kind == "c"
    pencils = [random_pencil(rng, n, complex_) for n in (5, 4, 3)]
    shift = 0.2 - 0.1j if complex_ else 0.7
    a = dense_operator(pencils, shift)
    u = random_rhs(rng, (2, 5, 4, 3), dtype)  # a batch of two
    out = pscr.operator_apply(pencils, shift, u)
    assert out.dtype == np.dtype(dtype) and out.shape == u.shape
    rtol = 1e-13 if dtype in ("float64", "complex128") else 1e-5
    for r in range(2):
        ref = a @ u[r].reshape(-1).astype(np.complex128)
        assert np.allclose(out[r].reshape(-1), ref, rtol=rtol, atol=rtol * np.abs(ref).max())
    norm = pscr.operator_norm_inf(pencils, shift, dtype=dtype)
    # Float dtypes round the factors to float first.
    assert norm == pytest.approx(np.abs(a).sum(axis=1).max(), rel=max(rtol, 1e-12))
    with pytest.raises(pscr.InvalidValueError, match="out overlaps u"):
        pscr.operator_apply(pencils, shift, u, out=u)

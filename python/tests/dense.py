"""Independent references for the tests: the operator as a dense NumPy
matrix built from its Kronecker structure (eq. 7 / 8), the normwise
backward error, and random pencils of the kinds pscr solves."""

from __future__ import annotations

import numpy as np


def tridiag(diag, off):
    """The dense symmetric tridiagonal matrix of a diagonal and an
    off-diagonal (None: diagonal)."""
    diag = np.asarray(diag)
    t = np.diag(diag).astype(np.result_type(diag, np.float64))
    if off is not None and len(diag) > 1:
        off = np.asarray(off)
        t = t.astype(np.result_type(t, off))
        t += np.diag(off, 1) + np.diag(off, -1)
    return t


def dense_operator(pencils, shift):
    """A = sum_d M1 (x) .. Ad .. (x) Mk + c M1 (x) .. (x) Mk, in double."""
    a = [tridiag(p[0], p[1]) for p in pencils]
    m = [tridiag(p[2], p[3] if len(p) > 3 else None) for p in pencils]

    def kron_all(mats):
        out = mats[0]
        for x in mats[1:]:
            out = np.kron(out, x)
        return out

    total = shift * kron_all(m)
    for d in range(len(pencils)):
        total = total + kron_all([a[e] if e == d else m[e] for e in range(len(pencils))])
    return total


def backward_error(a_dense, u, f):
    """||A u - f|| / (||A|| ||u|| + ||f||), infinity norms, in double."""
    wide = np.complex128 if np.iscomplexobj(u) or np.iscomplexobj(a_dense) else np.float64
    u = np.asarray(u, dtype=wide).reshape(-1)
    f = np.asarray(f, dtype=wide).reshape(-1)
    r = a_dense @ u - f
    norm_a = np.abs(a_dense).sum(axis=1).max()
    return np.abs(r).max() / (norm_a * np.abs(u).max() + np.abs(f).max())


def random_pencil(rng, n, complex_=False, mass_off=True):
    """A random pencil: A diagonally dominant like a stiffness matrix, M
    positive definite (a small imaginary part in the complex case, which
    keeps the reduction's pivots away from zero)."""
    a_diag = 2.0 + rng.random(n)
    a_off = -(0.5 + 0.5 * rng.random(n - 1))
    m_diag = 1.0 + rng.random(n)
    m_off = 0.25 * rng.random(n - 1) if mass_off else None
    if complex_:
        a_diag = a_diag + 0.3j * rng.random(n)
        a_off = a_off + 0.1j * rng.random(n - 1)
        m_diag = m_diag + 0.05j * rng.random(n)
    return (a_diag, a_off, m_diag, m_off)


def random_rhs(rng, shape, dtype):
    dtype = np.dtype(dtype)
    f = rng.standard_normal(shape)
    if dtype.kind == "c":
        f = f + 1j * rng.standard_normal(shape)
    return f.astype(dtype)


# Bounds on the backward error per dtype: double as the C tests' (1e-13
# real, 1e-11 complex, docs/accuracy.md) with room for small sizes' noise;
# float: 48 eps_f is the GPU's worst measured (pscr.h), so 1e-5 leaves a
# margin on either backend. A wrong solve is O(1).
TOLERANCE = {"float64": 1e-13, "complex128": 1e-11, "float32": 1e-5, "complex64": 1e-5}

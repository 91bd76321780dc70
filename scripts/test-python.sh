#!/usr/bin/env bash
# The Python package as a user installs it: `pip install ".[test]"` from
# this checkout (pip builds it in an isolated environment with
# scikit-build-core and nanobind from PyPI, the C library compiled into the
# extension), into a virtual environment of its own under
# build-python/ that sees python3's packages (NumPy,
# SciPy, pytest are taken from there when present, else installed), then
# its pytest suite (python/tests). Used by CI (.ci/run).
#
# The CUDA backend is left out (-C cmake.define.PSCR_ENABLE_CUDA=OFF): on a
# machine without a GPU its tests skip anyway, and compiling the kernels
# would take several minutes of CI's budget; a user's `pip install .` builds
# it wherever nvcc is found (scripts/python-gpu-check.sh tests that build).
#
# Two pytest runs: every test but the GPU ones must pass and none may skip
# (a missing SciPy must not pass unnoticed); the GPU tests skip here.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-python
venv=$build/venv
mkdir -p "$build"
echo "test-python: virtual environment $venv (python3's packages visible)" >&2
python3 -m venv --system-site-packages --clear "$venv"
py=$PWD/$venv/bin/python
echo "test-python: $venv/bin/pip install '.[test]' -C cmake.define.PSCR_ENABLE_CUDA=OFF (log: $build/pip.log)" >&2
if ! "$py" -m pip install --disable-pip-version-check ".[test]" \
  -C cmake.define.PSCR_ENABLE_CUDA=OFF >"$build/pip.log" 2>&1; then
  cat "$build/pip.log" >&2
  echo "test-python: pip install failed (log above)" >&2
  exit 1
fi
# The package must come from this venv, built just now, with its extension
# and the files editors read (the stubs, py.typed).
(cd "$build" && "$py" - <<'EOF'
import os, sys
import pscr, pscr._pscr
where = os.path.dirname(pscr.__file__)
assert where.startswith(sys.prefix), f"pscr imported from {where}, not from {sys.prefix}"
for name in ("_pscr.pyi", "py.typed"):
    assert os.path.exists(os.path.join(where, name)), f"{name} missing from {where}"
print(f"test-python: pscr {pscr.__version__} from {where} (CUDA: {pscr.HAS_CUDA})", file=sys.stderr)
EOF
)
# The issue's acceptance line: the default problem (2D Poisson 1023 x 1023,
# as the quick start's) solved from a one-line import, to the
# discretization error.
echo "test-python: the default problem from python3 -c" >&2
(cd "$build" && "$py" -c "import pscr; p = pscr.Problem.poisson((1023, 1023)); b, u = p.manufactured(); e = abs(p.plan().solve(b) - u).max(); print(f'test-python: 2D Poisson 1023^2, max error {e:.2e}'); assert e < 1e-5")
echo "test-python: pytest python/tests -m 'not gpu' (no skips allowed)" >&2
"$py" -m pytest python/tests -m "not gpu" -rs -p no:cacheprovider | tee "$build/pytest.log"
if grep -q '^SKIPPED' "$build/pytest.log"; then
  echo "test-python: CPU tests were skipped (above); they must run" >&2
  exit 1
fi
echo "test-python: pytest python/tests -m gpu (skipped without a device)" >&2
"$py" -m pytest python/tests -m gpu -rs -p no:cacheprovider -q

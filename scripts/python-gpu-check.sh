#!/usr/bin/env bash
# The Python package's GPU check (issue 46), for a machine with a CUDA
# device and no network (nanobind, pytest, NumPy, SciPy, CuPy, PyTorch and
# JAX preinstalled for python3):
#   1. builds the package with the CUDA backend for sm_90 into
#      build-python-gpu/ and lays it out in build-python-gpu/site (CMake's
#      `python` component, the files a wheel holds), used through
#      PYTHONPATH, so nothing is installed into the system's Python;
#      with --pip instead: `pip install --no-build-isolation --no-deps .`
#      into python3's environment, CUDA found by default as for users;
#   2. runs the whole pytest suite with --require-gpu: the GPU tests (CuPy,
#      PyTorch, JAX device arrays) fail instead of skipping when something
#      is missing, and the CPU tests' plans (backend "auto") run on CUDA;
#   3. runs the CuPy example (python/examples/cupy_poisson.py) at 1023^2;
#   4. times plan.solve on device arrays against the C device API at
#      1023^2, float64 and float32, and fails beyond 10% + 20 us per call
#      (python/tools/time_device.py --check).
# Usage: scripts/python-gpu-check.sh [--pip]
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-python-gpu
python=$(command -v python3)
for mod in nanobind numpy scipy pytest cupy torch jax; do
  "$python" -c "import $mod" 2>/dev/null ||
    { echo "python-gpu-check: $python cannot import $mod" >&2; exit 1; }
done

if [ "${1:-}" = --pip ]; then
  echo "python-gpu-check: pip install --no-build-isolation --no-deps . (CUDA for sm_90)" >&2
  "$python" -m pip install --no-build-isolation --no-deps -v \
    -C cmake.define.CMAKE_CUDA_ARCHITECTURES=90 -C build-dir=$build/pip .
else
  echo "python-gpu-check: configuring $build/ (CUDA for sm_90, static libpscr in the module)" >&2
  cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE="$python" \
    -DPSCR_BUILD_PYTHON=ON -DBUILD_SHARED_LIBS=OFF -DPSCR_ENABLE_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_BENCH=OFF \
    -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_ENABLE_FORTRAN=OFF >/dev/null
  cmake --build $build -j"$(nproc)"
  rm -rf $build/site
  cmake --install $build --component python --prefix $build/site >/dev/null
  export PYTHONPATH=$PWD/$build/site
fi
"$python" -c 'import pscr; assert pscr.HAS_CUDA, "pscr was built without CUDA"; print("python-gpu-check: pscr", pscr.__version__, "from", pscr.__file__)'

# JAX takes 75% of the device's memory at its first use unless told not
# to; the plans of the other tests in the same process need theirs.
export XLA_PYTHON_CLIENT_PREALLOCATE=false
"$python" -m pytest python/tests --require-gpu -rs -p no:cacheprovider
"$python" python/examples/cupy_poisson.py --n 1023
"$python" python/examples/cupy_poisson.py --n 1023 --float32
"$python" python/tools/time_device.py --n 1023 --dtype float64 --dtype float32 --check
echo "python-gpu-check: passed"

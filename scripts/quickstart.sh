#!/usr/bin/env bash
# Quick start: install what is missing, build pscr-solve, then solve the
# default problem (2D Poisson 1023 x 1023; CUDA when a device is present,
# else CPU). Extra args go to pscr-solve (--help lists them). Builds into
# ${PSCR_BUILD_DIR:-build}; without a GPU, the CPU backend only.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${PSCR_BUILD_DIR:-build}
# A GPU needs both a device node and a device that nvidia-smi lists; without
# one the CUDA backend could not run, and compiling it takes most of the
# build's time.
cmake_args=()
if [ -e /dev/nvidia0 ] && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "quickstart: CUDA device found: $(nvidia-smi -L | head -n 1)" >&2
else
  echo "quickstart: no CUDA device found: building the CPU backend only (-DPSCR_ENABLE_CUDA=OFF)" >&2
  cmake_args+=(-DPSCR_ENABLE_CUDA=OFF)
fi
echo "quickstart: step 1/2: build pscr-solve into $build/ (scripts/build.sh: missing packages, configure, build)" >&2
bash scripts/build.sh --target pscr-solve "${cmake_args[@]}"
echo "quickstart: step 2/2: solve: $build/examples/pscr-solve $*" >&2
exec "$build/examples/pscr-solve" "$@"

#!/usr/bin/env bash
# Build with warnings as errors and run the whole test suite through ctest.
# Suites labelled "gpu" skip themselves without a CUDA device.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${PSCR_BUILD_DIR:-build}
echo "test: building pscr into $build/ with warnings as errors (scripts/build.sh -DPSCR_WERROR=ON)" >&2
bash scripts/build.sh -DPSCR_WERROR=ON
echo "test: running the whole suite: ctest --test-dir $build -j2 $*" >&2
ctest --test-dir "$build" --output-on-failure -j2 "$@"

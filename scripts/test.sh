#!/usr/bin/env bash
# Build with warnings as errors and run the whole test suite through ctest.
# Suites labelled "gpu" skip themselves without a CUDA device.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh -DPSCR_WERROR=ON
ctest --test-dir "${PSCR_BUILD_DIR:-build}" --output-on-failure -j2 "$@"

#!/usr/bin/env bash
# Build with warnings as errors and run the whole test suite through ctest.
# Suites labelled "gpu" skip themselves without a CUDA device.
# Builds into its own folder, ${PSCR_BUILD_DIR:-build-test}: its flags
# (PSCR_WERROR, and the CUDA backend wherever nvcc is found) differ from the
# quick start's build/, which would otherwise be rebuilt from scratch by each.
# Extra args go to ctest (e.g. -R api).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${PSCR_BUILD_DIR:-build-test}
echo "test: building pscr into $build/ with warnings as errors (scripts/build.sh -DPSCR_WERROR=ON)" >&2
PSCR_BUILD_DIR=$build bash scripts/build.sh -DPSCR_WERROR=ON
echo "test: running the suite: ctest --test-dir $build --output-on-failure -j2 $*" >&2
ctest --test-dir "$build" --output-on-failure -j2 "$@"

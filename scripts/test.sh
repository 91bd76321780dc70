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
# Without a GPU no kernel can run here: compile them for one architecture
# (sm_90; the only code that differs by architecture is launch.cuh's PDL
# gate), still with warnings as errors, unless CUDAARCHS names the
# architectures. The default two (80;90) took 8 of a CI build's 8.5
# minutes on 2 cores.
arch=()
if command -v nvcc >/dev/null && [ -z "${CUDAARCHS:-}" ] &&
   ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  arch=(-DCMAKE_CUDA_ARCHITECTURES=90)
  echo "test: no GPU here: CUDA kernels compiled for sm_90 only (the gpu tests skip themselves)" >&2
fi
echo "test: building pscr into $build/ with warnings as errors (scripts/build.sh -DPSCR_WERROR=ON ${arch[*]})" >&2
PSCR_BUILD_DIR=$build bash scripts/build.sh -DPSCR_WERROR=ON "${arch[@]}"
echo "test: running the suite: ctest --test-dir $build --output-on-failure -j2 $*" >&2
ctest --test-dir "$build" --output-on-failure -j2 "$@"

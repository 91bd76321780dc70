#!/usr/bin/env bash
# Quick start: build, then solve the default problem (2D Poisson 1023 x 1023;
# CUDA when a device is present, else CPU). Extra args go to pscr-solve.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${PSCR_BUILD_DIR:-build}
echo "quickstart: building pscr into $build/ (scripts/build.sh: missing packages, CMake, make)" >&2
bash scripts/build.sh >/dev/null
echo "quickstart: solving: $build/examples/pscr-solve $*" >&2
exec "$build/examples/pscr-solve" "$@"

#!/usr/bin/env bash
# Quick start: build, then solve the default problem (2D Poisson 1023 x 1023;
# CUDA when a device is present, else CPU). Extra args go to pscr-solve.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >/dev/null
exec "${PSCR_BUILD_DIR:-build}/examples/pscr-solve" "$@"

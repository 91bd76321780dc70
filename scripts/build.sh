#!/usr/bin/env bash
# Configure and build pscr into ${PSCR_BUILD_DIR:-build}. Extra args go to CMake.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
build=${PSCR_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPSCR_NATIVE=ON "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"

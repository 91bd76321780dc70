#!/usr/bin/env bash
# Configure and build pscr into ${PSCR_BUILD_DIR:-build} (Release,
# PSCR_NATIVE on), after scripts/deps.sh has installed what is missing.
#   scripts/build.sh [--target NAME] [CMAKE_ARGS...]
# --target builds one target (the quick start builds pscr-solve only);
# CMAKE_ARGS go to CMake's configure step (e.g. -DPSCR_WERROR=ON).
# Prints one line per stage; the configure output goes to
# BUILD/configure.log (shown in full when it fails), the build shows CMake's
# progress.
set -euo pipefail
cd "$(dirname "$0")/.."
target=()
if [ "${1:-}" = --target ]; then
  [ $# -ge 2 ] || { echo "build: --target needs a name" >&2; exit 2; }
  target=(--target "$2")
  shift 2
fi
bash scripts/deps.sh
build=${PSCR_BUILD_DIR:-build}
mkdir -p "$build"
echo "build: configuring $build/: cmake -S . -B $build -DCMAKE_BUILD_TYPE=Release -DPSCR_NATIVE=ON $*" >&2
if ! cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPSCR_NATIVE=ON "$@" >"$build/configure.log" 2>&1; then
  cat "$build/configure.log" >&2
  echo "build: configuring $build/ failed (log above, also in $build/configure.log)" >&2
  exit 1
fi
# The project's own configure messages (a missing optional dependency).
grep -h 'pscr: ' "$build/configure.log" | sed 's/^-- //; s/^/build: /' >&2 || true
cuda=$(sed -n 's/^PSCR_ENABLE_CUDA:BOOL=//p' "$build/CMakeCache.txt")
echo "build: configured (CUDA backend ${cuda:-OFF}; log $build/configure.log)" >&2
echo "build: building ${target[1]:-everything} with $(nproc) jobs: cmake --build $build -j$(nproc) ${target[*]}" >&2
cmake --build "$build" -j"$(nproc)" "${target[@]}"
echo "build: done: $build/" >&2

#!/usr/bin/env bash
# Build pscr-baselines with CUDA (sm_90, Release) into
# ${PSCR_BUILD_DIR:-build-baselines-gpu} and run it; extra arguments go to
# pscr-baselines. The table also goes to $OUT/baselines.txt when $OUT is set
# (the device machine's output folder). FFTW is optional: without it only the
# cuFFT rows run.
#
#   bash bench/baselines/run-gpu.sh [--2d 1023,2047,4095] [--3d 63,127,255] ...
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${PSCR_BUILD_DIR:-build-baselines-gpu}
mkdir -p "$build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_EXAMPLES=OFF \
  > "$build/baselines-build.log" 2>&1 || { tail -30 "$build/baselines-build.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" --target pscr-baselines >> "$build/baselines-build.log" 2>&1 ||
  { tail -30 "$build/baselines-build.log"; exit 1; }
grep "pscr-baselines:" "$build/baselines-build.log" || true
if [ -n "${OUT:-}" ]; then
  "$build/bench/baselines/pscr-baselines" "$@" 2>&1 | tee "$OUT/baselines.txt"
  exit "${PIPESTATUS[0]}"
fi
exec "$build/bench/baselines/pscr-baselines" "$@"

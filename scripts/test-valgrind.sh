#!/usr/bin/env bash
# valgrind memcheck on a small subset of the suites (CPU build without
# -march=native: valgrind does not decode AVX-512). Errors and definite
# leaks fail the run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
command -v valgrind >/dev/null || { [ "$(id -u)" -eq 0 ] && apt-get install -y -qq valgrind >/dev/null; }
build=${PSCR_VALGRIND_DIR:-build-valgrind}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPSCR_ENABLE_CUDA=OFF -DPSCR_NATIVE=OFF -DPSCR_ENABLE_MPI=OFF \
  -DPSCR_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target test_api test_solve test_solve_api
vg() { CK_FORK=no valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite --show-possibly-lost=no "$@"; }
vg "$build/tests/test_api"
CK_RUN_CASE=properties vg "$build/tests/test_solve"
CK_RUN_CASE=api vg "$build/tests/test_solve_api"
echo "valgrind memcheck: clean"

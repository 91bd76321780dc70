#!/usr/bin/env bash
# Build the libFuzzer target with clang (ASan + UBSan) and fuzz the public API
# for ${1:-60} seconds from the committed seed corpus. New inputs go to a
# scratch corpus; the committed one is only read.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
if ! command -v clang >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  [ "$(id -u)" -eq 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang libclang-rt-dev libomp-dev >/dev/null
fi
build=${PSCR_FUZZ_DIR:-build-fuzz}
# The fuzzer drives the single-process C API only: no MPI, no Fortran module (gfortran would link
# GCC's sanitizer runtimes into a library clang's instrumentation uses).
CC=clang cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPSCR_ENABLE_CUDA=OFF \
  -DPSCR_BUILD_FUZZ=ON -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_BENCH=OFF -DPSCR_BUILD_EXAMPLES=OFF \
  -DPSCR_ENABLE_FORTRAN=OFF -DPSCR_ENABLE_MPI=OFF -DPSCR_NATIVE=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target fuzz_plan
scratch=$(mktemp -d)
export ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
"$build/tests/fuzz/fuzz_plan" -max_total_time="${1:-60}" -timeout=20 -rss_limit_mb=4096 \
  -max_len=4096 -print_final_stats=1 "$scratch" tests/fuzz/corpus
rm -rf "$scratch"

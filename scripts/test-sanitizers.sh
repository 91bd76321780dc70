#!/usr/bin/env bash
# Build the CPU library and tests with AddressSanitizer + UndefinedBehavior-
# Sanitizer and run the suites in-process (CK_FORK=no), so LeakSanitizer
# checks every suite at exit, one ctest test per core (test_eigen's cases
# are separate tests). The tests see TU_SANITIZED (tests/test_util.h) and
# shrink their largest accuracy sweeps (test_eigen's order 4000, test_solve's
# order 16384): about 7 minutes on this 2-core VM.
# Used by CI after scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
build=${PSCR_ASAN_DIR:-build-asan}
# The optional PETSc example (where petsc-dev is installed) is left out here:
# it runs a third-party MPI stack whose own allocations are not ours to
# sanitize; it runs in the plain ctest stage (scripts/test.sh).
# The Fortran module and its test get the same flags (CMAKE_Fortran_FLAGS, used
# by gfortran's compile and link steps): a program that loads the sanitized
# libpscr needs the sanitizer runtime linked first.
# MPI is on: the distributed tests (label mpi) run last, with leak
# detection off (Open MPI's own start-up allocations are reported as leaks,
# and are not ours); every other suite keeps it.
sanitize="-O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DPSCR_ENABLE_CUDA=OFF -DPSCR_WERROR=ON \
  -DPSCR_BUILD_BENCH=OFF -DPSCR_WITH_PETSC=OFF \
  -DCMAKE_C_FLAGS="$sanitize" -DCMAKE_Fortran_FLAGS="$sanitize" \
  >/dev/null
cmake --build "$build" -j"$(nproc)"
# The Python tests (scripts_*, perf_tables, docs_links*) have no C code to
# sanitize. The build is PSCR_NATIVE's default (off): the one CI stage that
# runs the suites on the configuration users get by default.
# allocator_may_return_null: the out-of-memory tests ask for terabytes on
# purpose and expect PSCR_ERROR_HOST_ALLOC, not an abort.
export CK_FORK=no ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" -E 'install_consumer|scripts_|perf_tables|docs_links' -LE 'interposes-malloc|mpi' "$@"
if grep -q '#define PSCR_HAVE_MPI 1' "$build"/include/pscr_config.h 2>/dev/null; then
  echo "sanitizers: the distributed tests (leak detection off: Open MPI's allocations)"
  ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=0 \
    ctest --test-dir "$build" --output-on-failure -L mpi
fi

#!/usr/bin/env bash
# GPU checks for a machine with a CUDA device: build with CUDA, run the gpu
# label through ctest, then compute-sanitizer memcheck / racecheck /
# initcheck on each CUDA suite (test_cuda, test_cuda_paths, test_cuda_batch).
# Outputs go to ${OUT:-gpu-check-out}/.
#
# Where Check is not installed (the lent H100 has no package registry),
# carry its Debian packages in a git-ignored folder and point CHECK_DEBS at it:
#   here:  mkdir -p .carry && (cd .carry && apt-get download check libsubunit-dev libsubunit0)
#   there: CHECK_DEBS=.carry bash scripts/gpu-check.sh
set -u
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-gpu-check-out}
mkdir -p "$out"
if [ -n "${CHECK_DEBS:-}" ]; then
  P=$(mktemp -d)
  for f in "$CHECK_DEBS"/*.deb; do dpkg -x "$f" "$P"; done
  # Point the unpacked .pc files at $P. (PKG_CONFIG_SYSROOT_DIR=$P would
  # also prefix the system LAPACKE's include path, which CMake then
  # rejects as missing: seen on the H100 machine, 2026-11-25.)
  sed -i "s#^prefix=.*#prefix=$P/usr#" "$P"/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc
  export PKG_CONFIG_PATH=$P/usr/lib/x86_64-linux-gnu/pkgconfig
  export LD_LIBRARY_PATH=$P/usr/lib/x86_64-linux-gnu
fi
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nvcc --version | tail -2; } > "$out/device.txt" 2>&1
build=${PSCR_BUILD_DIR:-build-gpu}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DPSCR_WERROR=ON > "$out/build.txt" 2>&1
cmake --build "$build" -j"$(nproc)" >> "$out/build.txt" 2>&1 || { tail -30 "$out/build.txt"; exit 1; }
(cd "$build" && ctest -L gpu --output-on-failure -V) > "$out/ctest-gpu.txt" 2>&1
echo "ctest gpu rc=$?"; grep -E "Checks|F:" "$out/ctest-gpu.txt" | tail -6
# memcheck lists 8 API "errors" for test_cuda, all deliberate: the cudaMalloc
# failure of the device_out_of_memory test and the cudaGetLastError that
# clears it (2), and per error_mid_solve case (real, complex) the synchronize
# refused during a global-mode capture, the invalidated capture, and the
# clearing call (6). test_cuda_paths and test_cuda_batch should list none:
# these 8 were all of the single suite that the three were split from.
for suite in test_cuda test_cuda_paths test_cuda_batch; do
  for tool in memcheck racecheck initcheck; do
    extra=""; [ "$tool" = memcheck ] && extra="--leak-check full"
    # shellcheck disable=SC2086
    CK_FORK=no timeout 300 compute-sanitizer --tool "$tool" $extra "$build/tests/$suite" \
      > "$out/$suite.$tool.txt" 2>&1
    echo "$suite $tool rc=$?"; tail -2 "$out/$suite.$tool.txt"
  done
done

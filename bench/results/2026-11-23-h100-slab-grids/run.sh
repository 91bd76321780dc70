#!/usr/bin/env bash
# same run: p1 = HEAD, p3 = p1 + slab grids for coupling/gather + unrolled k_reduce_items
set -u
P=$(mktemp -d); for f in .carry/*.deb; do dpkg -x $f $P; done
export PKG_CONFIG_PATH=$P/usr/lib/x86_64-linux-gnu/pkgconfig PKG_CONFIG_SYSROOT_DIR=$P LD_LIBRARY_PATH=$P/usr/lib/x86_64-linux-gnu
for v in p1 p3; do rm -rf /tmp/s$v /tmp/$v; mkdir -p /tmp/s$v; tar -xf .carry/$v.tar -C /tmp/s$v; done
( cmake -S /tmp/sp1 -B /tmp/p1 -DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_TESTS=OFF > /tmp/build-p1.txt 2>&1
  cmake --build /tmp/p1 -j6 --target pscr-precision >> /tmp/build-p1.txt 2>&1 || { echo "build p1 failed"; tail -20 /tmp/build-p1.txt; } ) &
( cmake -S /tmp/sp3 -B /tmp/p3 -DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_WERROR=ON > /tmp/build-p3.txt 2>&1
  cmake --build /tmp/p3 -j10 >> /tmp/build-p3.txt 2>&1 || { echo "build p3 failed"; tail -30 /tmp/build-p3.txt; } ) &
wait
for r in 1 2; do for v in p1 p3; do
  echo "== $v run $r"
  timeout 200 /tmp/$v/bench/pscr-precision --profile --max-n2 4095 --max-n3 127 > /tmp/prec-$v-$r.txt 2>&1; echo "rc=$?"
  grep -E "  [0-9]+  [RC]" -A1 /tmp/prec-$v-$r.txt | grep -v "^--" | paste - - | awk '{print $1,$2,$3,$6,$8, $17,$18,$19,$20,$21,$22,$23,$24,$25,$26}' | tee -a $OUT/summary.txt
done; done
cp /tmp/prec-p3-2.txt $OUT/
(cd /tmp/p3 && timeout 300 ctest -L gpu --output-on-failure > /tmp/ctest-gpu.txt 2>&1; echo "ctest gpu rc=$?"; tail -3 /tmp/ctest-gpu.txt)
(cd /tmp/p3 && timeout 200 ./tests/test_cuda > /tmp/test_cuda.txt 2>&1; echo "test_cuda rc=$?"; grep -E "Checks" /tmp/test_cuda.txt; grep -E "test_cuda.c:[0-9]+:F" /tmp/test_cuda.txt | head -20)
timeout 120 compute-sanitizer --tool memcheck /tmp/p3/bench/pscr-precision --max-n2 1023 --max-n3 63 --repeat 1 > /tmp/memcheck.txt 2>&1; echo "memcheck rc=$?"; tail -1 /tmp/memcheck.txt

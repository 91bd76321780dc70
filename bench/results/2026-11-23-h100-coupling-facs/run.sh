#!/usr/bin/env bash
# same run: p0 = 9ad34b0, p1 = HEAD (Facs select), p2 = p1 + slab grids (no 64-bit index divisions)
set -u
P=$(mktemp -d); for f in .carry/*.deb; do dpkg -x $f $P; done
export PKG_CONFIG_PATH=$P/usr/lib/x86_64-linux-gnu/pkgconfig PKG_CONFIG_SYSROOT_DIR=$P LD_LIBRARY_PATH=$P/usr/lib/x86_64-linux-gnu
for v in p0 p1 p2; do rm -rf /tmp/s$v /tmp/$v; mkdir -p /tmp/s$v; tar -xf .carry/$v.tar -C /tmp/s$v; done
for v in p0 p1; do
( cmake -S /tmp/s$v -B /tmp/$v -DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_TESTS=OFF > $OUT/build-$v.txt 2>&1
  cmake --build /tmp/$v -j4 --target pscr-precision >> $OUT/build-$v.txt 2>&1 || { echo "build $v failed"; tail -20 $OUT/build-$v.txt; } ) &
done
( cmake -S /tmp/sp2 -B /tmp/p2 -DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_WERROR=ON > $OUT/build-p2.txt 2>&1
  cmake --build /tmp/p2 -j8 >> $OUT/build-p2.txt 2>&1 || { echo "build p2 failed"; tail -30 $OUT/build-p2.txt; } ) &
wait
for r in 1 2; do for v in p0 p1 p2; do
  echo "== $v run $r"
  timeout 200 /tmp/$v/bench/pscr-precision --profile --max-n2 4095 --max-n3 127 > $OUT/prec-$v-$r.txt 2>&1; echo "rc=$?"
  grep -E "  [0-9]+  [RC]" -A1 $OUT/prec-$v-$r.txt | grep -v "^--" | paste - - | awk '{print $1,$2,$3,$6,$8, $17,$18,$19,$20,$21,$22,$23,$24,$25,$26}'
done; done
(cd /tmp/p2 && timeout 300 ctest -L gpu --output-on-failure > $OUT/ctest-gpu.txt 2>&1; echo "ctest gpu rc=$?"; tail -3 $OUT/ctest-gpu.txt)
(cd /tmp/p2 && timeout 200 ./tests/test_cuda > $OUT/test_cuda.txt 2>&1; echo "test_cuda rc=$?"; grep -E "Checks" $OUT/test_cuda.txt; grep -E "test_cuda.c:[0-9]+:F" $OUT/test_cuda.txt | head -20)
timeout 120 compute-sanitizer --tool memcheck /tmp/p2/bench/pscr-precision --max-n2 1023 --max-n3 63 --repeat 1 > $OUT/memcheck.txt 2>&1; echo "memcheck rc=$?"; tail -1 $OUT/memcheck.txt
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt 2>&1

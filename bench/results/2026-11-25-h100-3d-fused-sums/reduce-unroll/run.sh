#!/usr/bin/env bash
# A/B: HEAD (old.tar) against the work tree: persistent level-3 grids of one
# wave (part_resident) and k_reduce_items unrolled by 8 for 4-byte entries.
set -u
mkdir -p $OUT
T0=$(date +%s)
P=$(mktemp -d); for f in .carry/*.deb; do dpkg -x $f $P; done
sed -i "s#^prefix=.*#prefix=$P/usr#" $P/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc
export PKG_CONFIG_PATH=$P/usr/lib/x86_64-linux-gnu/pkgconfig LD_LIBRARY_PATH=$P/usr/lib/x86_64-linux-gnu
mkdir -p /tmp/old && tar -xf .carry/old.tar -C /tmp/old
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_BUILD_BENCH=OFF"
( cmake -S /tmp/old -B /tmp/bo $F -DPSCR_BUILD_TESTS=OFF > /tmp/bo.log 2>&1 && cmake --build /tmp/bo -j8 --target pscr >> /tmp/bo.log 2>&1 || echo "old build failed" ) &
cmake -S . -B /tmp/bd $F -DPSCR_WERROR=ON > /tmp/bd.log 2>&1 && cmake --build /tmp/bd -j8 --target pscr test_cuda >> /tmp/bd.log 2>&1 || { tail -30 /tmp/bd.log; exit 1; }
wait
echo "builds done $(( $(date +%s) - T0 )) s"
for b in bo bd; do
  gcc -O2 -o /tmp/p3-$b .carry/p3time.c -Iinclude -I/tmp/$b/include -I/usr/local/cuda/include -L/tmp/$b -lpscr -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,/tmp/$b
done
(cd /tmp/bd && timeout 120 ./tests/test_cuda > $OUT/test_cuda.txt 2>&1; echo "test_cuda rc=$? at $(( $(date +%s) - T0 )) s"; grep -E "Checks|:F:|:E:" $OUT/test_cuda.txt | head)
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt; date -u >> $OUT/device.txt
for r in 1 2 3; do
  for c in "3 255" "3 127" "2 4095" "2 1023" "2 255"; do
    for b in bo bd; do echo -n "$b "; /tmp/p3-$b $c | tr '\n' ' '; echo; done
  done
done 2>&1 | tee $OUT/timing-ab.txt
echo "timing done $(( $(date +%s) - T0 )) s"
for t in 32 64; do
  P3_ONLY=$t ncu --csv --metrics gpu__time_duration.sum /tmp/p3-bd 3 255 once > /tmp/k$t.csv 2>/dev/null
  python3 .carry/ksum.py /tmp/k$t.csv > $OUT/kernels-$t.txt
done
echo "all done $(( $(date +%s) - T0 )) s"

#!/usr/bin/env bash
# k_reduce_items: the flat index split in 32 bits below 2^31: test_cuda, memcheck, timings old (HEAD) vs new.
set -u
mkdir -p $OUT
T0=$(date +%s)
P=$(mktemp -d); for f in .carry/*.deb; do dpkg -x $f $P; done
sed -i "s#^prefix=.*#prefix=$P/usr#" $P/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc
export PKG_CONFIG_PATH=$P/usr/lib/x86_64-linux-gnu/pkgconfig LD_LIBRARY_PATH=$P/usr/lib/x86_64-linux-gnu
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_EXAMPLES=OFF"
rm -rf /tmp/old /tmp/bd /tmp/bo; mkdir -p /tmp/old && tar -xf .carry/old.tar -C /tmp/old
(cmake -S . -B /tmp/bd $F -DPSCR_WERROR=ON > /tmp/bd.log 2>&1 && cmake --build /tmp/bd -j10 --target pscr test_cuda pscr-gpu-once >> /tmp/bd.log 2>&1) &
NEWP=$!
(cd /tmp/old && cmake -S . -B /tmp/bo $F -DPSCR_BUILD_TESTS=OFF > /tmp/bo.log 2>&1 && cmake --build /tmp/bo -j6 --target pscr pscr-gpu-once >> /tmp/bo.log 2>&1) &
OLDP=$!
wait $NEWP || { tail -40 /tmp/bd.log; cp /tmp/bd.log $OUT/; exit 1; }
echo "new build done $(( $(date +%s) - T0 )) s"
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt; date -u >> $OUT/device.txt
(cd /tmp/bd && timeout 240 ./tests/test_cuda > $OUT/test_cuda.txt 2>&1; echo "test_cuda rc=$? at $(( $(date +%s) - T0 )) s"; grep -E "Checks|:F:|:E:" $OUT/test_cuda.txt | head)
G=/tmp/bd/bench/pscr-gpu-once
{ echo "== memcheck p3 31 --float"; PSCR_ONCE=1 timeout 90 compute-sanitizer --tool memcheck $G p3 31 --float 2>&1 | tail -1
  echo "== memcheck h3 17 --nrhs 2"; PSCR_ONCE=1 timeout 90 compute-sanitizer --tool memcheck $G h3 17 --nrhs 2 2>&1 | tail -1
  echo "== memcheck p3 9 x 9 x 9 R64"; PSCR_ONCE=1 timeout 90 compute-sanitizer --tool memcheck $G p3 9 2>&1 | tail -1; } > $OUT/sanitizer.txt
wait $OLDP || { tail -30 /tmp/bo.log; }
echo "old build done $(( $(date +%s) - T0 )) s"
for r in 1 2 3; do for b in bo bd; do echo "== $b round $r"; for k in "p3 255" "p3 255 --float" "p3 127" "p3 127 --float" "h3 127" "h3 127 --float" "p2 4095" "p2 4095 --float"; do /tmp/$b/bench/pscr-gpu-once $k 2>&1 | tail -1; done; done; done > $OUT/timing-ab.txt
echo "timing done $(( $(date +%s) - T0 )) s"
for b in bo bd; do for k in "p3 255 --float" "p3 255"; do echo "== $b $k"; PSCR_ONCE=1 timeout 60 ncu --csv -k regex:"k_reduce" --metrics gpu__time_duration.sum,sm__inst_executed.sum /tmp/$b/bench/pscr-gpu-once $k > /tmp/ncu.csv 2>/dev/null; python3 .carry/msum.py /tmp/ncu.csv 2>&1 | tail -16; done; done > $OUT/ncu-reduce.txt
echo "ncu done $(( $(date +%s) - T0 )) s"

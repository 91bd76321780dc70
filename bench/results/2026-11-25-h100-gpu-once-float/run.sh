#!/usr/bin/env bash
# pscr-gpu-once --float (gpu_timing by dtype) and k_gather's shift store out of the entry loop:
# test_cuda, the bench tools in float and double, memcheck, timings old (HEAD) vs new.
set -u
mkdir -p $OUT
T0=$(date +%s)
P=$(mktemp -d); for f in .carry/*.deb; do dpkg -x $f $P; done
sed -i "s#^prefix=.*#prefix=$P/usr#" $P/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc
export PKG_CONFIG_PATH=$P/usr/lib/x86_64-linux-gnu/pkgconfig LD_LIBRARY_PATH=$P/usr/lib/x86_64-linux-gnu
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_EXAMPLES=OFF"
if [ "${1:-a}" = a ]; then
mkdir -p /tmp/old && tar -xf .carry/old.tar -C /tmp/old
(cmake -S . -B /tmp/bd $F -DPSCR_WERROR=ON > /tmp/bd.log 2>&1 && cmake --build /tmp/bd -j10 --target pscr test_cuda pscr-gpu-once pscr-precision pscr-bench pscr-roofline >> /tmp/bd.log 2>&1) &
NEWP=$!
(cd /tmp/old && cmake -S . -B /tmp/bo $F -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_BENCH=OFF > /tmp/bo.log 2>&1 && cmake --build /tmp/bo -j6 --target pscr >> /tmp/bo.log 2>&1) &
OLDP=$!
wait $NEWP || { tail -40 /tmp/bd.log; cp /tmp/bd.log $OUT/; exit 1; }
echo "new build done $(( $(date +%s) - T0 )) s"
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt; date -u >> $OUT/device.txt
(cd /tmp/bd && timeout 240 ./tests/test_cuda > $OUT/test_cuda.txt 2>&1; echo "test_cuda rc=$? at $(( $(date +%s) - T0 )) s"; grep -E "Checks|:F:|:E:" $OUT/test_cuda.txt | head)
G=/tmp/bd/bench/pscr-gpu-once
{ for k in "p3 255" "p3 255 --float" "h3 127" "h3 127 --float" "p2 2047 --float --nrhs 4" "h2 1023 --float --nrhs 3" "p2 1023 --nrhs 2" "h2 511"; do
    echo "== pscr-gpu-once $k"; timeout 60 $G $k 2>&1; echo "rc=$?"; done; } > $OUT/gpu-once.txt
echo "gpu-once done $(( $(date +%s) - T0 )) s"
{ echo "== memcheck p3 63 --float (PSCR_ONCE)"; PSCR_ONCE=1 timeout 90 compute-sanitizer --tool memcheck $G p3 63 --float 2>&1 | tail -2
  echo "== memcheck h3 31 --float --nrhs 2 (PSCR_ONCE)"; PSCR_ONCE=1 timeout 90 compute-sanitizer --tool memcheck $G h3 31 --float --nrhs 2 2>&1 | tail -2
  echo "== memcheck h3 31 (PSCR_ONCE)"; PSCR_ONCE=1 timeout 90 compute-sanitizer --tool memcheck $G h3 31 2>&1 | tail -2
  echo "== racecheck h3 31 --float (PSCR_ONCE)"; PSCR_ONCE=1 timeout 90 compute-sanitizer --tool racecheck $G h3 31 --float 2>&1 | tail -2; } > $OUT/sanitizer.txt
echo "sanitizers done $(( $(date +%s) - T0 )) s"
wait $OLDP || { tail -30 /tmp/bo.log; }
echo "old build done $(( $(date +%s) - T0 )) s"
exit 0
fi
# Phase b (the builds of phase a still in /tmp)
{ timeout 150 /tmp/bd/bench/pscr-precision --max-n2 1023 --max-n3 127 2>&1; echo "rc=$?"; } > $OUT/precision.txt
{ timeout 120 /tmp/bd/bench/pscr-bench --backend cuda --tables poisson3d,helmholtz2d --max-n 127 2>&1 | tail -12; echo "rc=$?"; } > $OUT/bench.txt
echo "precision, bench done $(( $(date +%s) - T0 )) s"
for b in bd bo; do gcc -O2 -o /tmp/p3$b .carry/p3time.c -Iinclude -I/tmp/$b/include -I/usr/local/cuda/include -L/tmp/$b -lpscr -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,/tmp/$b; done
for r in 1 2 3; do for b in bo bd; do echo "== $b round $r"; /tmp/p3$b 3 255 2>&1 | tail -2; /tmp/p3$b 3 127 2>&1 | tail -2; P3_HELM=1 /tmp/p3$b 3 127 2>&1 | tail -2; done; done > $OUT/timing-ab.txt
echo "all done $(( $(date +%s) - T0 )) s"

#!/usr/bin/env bash
# Staged-vs-unstaged switch: test_cuda, memcheck of the new test's paths, timings old (HEAD) vs new.
set -u
mkdir -p $OUT
T0=$(date +%s)
P=$(mktemp -d); for f in .carry/*.deb; do dpkg -x $f $P; done
sed -i "s#^prefix=.*#prefix=$P/usr#" $P/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc
export PKG_CONFIG_PATH=$P/usr/lib/x86_64-linux-gnu/pkgconfig LD_LIBRARY_PATH=$P/usr/lib/x86_64-linux-gnu
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_BUILD_BENCH=OFF"
mkdir -p /tmp/old && tar -xf .carry/old.tar -C /tmp/old
cmake -S . -B /tmp/bd $F -DPSCR_WERROR=ON > /tmp/bd.log 2>&1 && cmake --build /tmp/bd -j10 --target pscr test_cuda >> /tmp/bd.log 2>&1 &
NEWP=$!
(cd /tmp/old && cmake -S . -B /tmp/bo $F -DPSCR_BUILD_TESTS=OFF > /tmp/bo.log 2>&1 && cmake --build /tmp/bo -j6 --target pscr >> /tmp/bo.log 2>&1) &
OLDP=$!
wait $NEWP || { tail -30 /tmp/bd.log; cp /tmp/bd.log $OUT/; exit 1; }
echo "new build done $(( $(date +%s) - T0 )) s"
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt; date -u >> $OUT/device.txt
(cd /tmp/bd && timeout 240 ./tests/test_cuda > $OUT/test_cuda.txt 2>&1; echo "test_cuda rc=$? at $(( $(date +%s) - T0 )) s"; grep -E "Checks|:F:|:E:" $OUT/test_cuda.txt | head)
wait $OLDP || { tail -30 /tmp/bo.log; }
echo "old build done $(( $(date +%s) - T0 )) s"
for b in bd bo; do gcc -O2 -o /tmp/p3$b .carry/p3time.c -Iinclude -I/tmp/$b/include -I/usr/local/cuda/include -L/tmp/$b -lpscr -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,/tmp/$b; done
{ echo "== memcheck, 3D 63^3 R32, PSCR_CUDA_STAGE=0"; PSCR_CUDA_STAGE=0 P3_ONLY=32 timeout 60 compute-sanitizer --tool memcheck /tmp/p3bd 3 63 once 2>&1 | tail -2
  echo "== memcheck, 3D 63^3 R64"; P3_ONLY=64 timeout 60 compute-sanitizer --tool memcheck /tmp/p3bd 3 63 once 2>&1 | tail -2
  echo "== racecheck, 3D Helmholtz 31^3"; P3_HELM=1 timeout 60 compute-sanitizer --tool racecheck /tmp/p3bd 3 31 once 2>&1 | tail -2; } > $OUT/sanitizer.txt
echo "sanitizers done $(( $(date +%s) - T0 )) s"
# Timings: the default plans, old (HEAD) and new alternated; then new with PSCR_CUDA_STAGE=0.
for r in 1 2; do for b in bo bd; do echo "== $b round $r"; /tmp/p3$b 3 255 2>&1 | tail -3; /tmp/p3$b 3 127 2>&1 | tail -3; done; done > $OUT/timing-ab.txt
{ echo "== new, PSCR_CUDA_STAGE=0"; PSCR_CUDA_STAGE=0 /tmp/p3bd 3 255 2>&1 | tail -3; PSCR_CUDA_STAGE=0 /tmp/p3bd 3 127 2>&1 | tail -3; } >> $OUT/timing-ab.txt
echo "all done $(( $(date +%s) - T0 )) s"

#!/usr/bin/env bash
# Level 3: fast float reciprocal, warp barriers for slots within a warp, stepped source pointers.
# old (HEAD) against new alternated; test_cuda; sanitizers.
set -u
mkdir -p $OUT
T0=$(date +%s)
P=$(mktemp -d); for f in .carry/*.deb; do dpkg -x $f $P; done
sed -i "s#^prefix=.*#prefix=$P/usr#" $P/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc
export PKG_CONFIG_PATH=$P/usr/lib/x86_64-linux-gnu/pkgconfig LD_LIBRARY_PATH=$P/usr/lib/x86_64-linux-gnu
mkdir -p /tmp/old && tar -xf .carry/old.tar -C /tmp/old
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_BUILD_BENCH=OFF"
( cmake -S /tmp/old -B /tmp/bo $F -DPSCR_BUILD_TESTS=OFF > /tmp/bo.log 2>&1 && cmake --build /tmp/bo -j6 --target pscr >> /tmp/bo.log 2>&1 || echo "old build failed" ) &
cmake -S . -B /tmp/bd $F -DPSCR_WERROR=ON > /tmp/bd.log 2>&1 && cmake --build /tmp/bd -j10 --target pscr test_cuda >> /tmp/bd.log 2>&1 || { tail -30 /tmp/bd.log; exit 1; }
wait
echo "builds done $(( $(date +%s) - T0 )) s"
for b in bd bo; do
  gcc -O2 -o /tmp/p3$b .carry/p3time.c -Iinclude -I/tmp/$b/include -I/usr/local/cuda/include -L/tmp/$b -lpscr -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,/tmp/$b
done
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt; date -u >> $OUT/device.txt
(cd /tmp/bd && timeout 200 ./tests/test_cuda > $OUT/test_cuda.txt 2>&1; echo "test_cuda rc=$? at $(( $(date +%s) - T0 )) s"; grep -E "Checks|:F:|:E:" $OUT/test_cuda.txt | head)
for r in 1 2; do
  for c in "3 255" "3 127" "3 63" "2 4095" "2 1023" "2 255"; do
    for b in bo bd; do
      echo -n "round $r $([ $b = bo ] && echo old || echo new) poisson $c: "; /tmp/p3$b $c | tr '\n' ' '; echo
    done
  done
  for c in "3 255" "3 127" "2 4095"; do
    for b in bo bd; do
      echo -n "round $r $([ $b = bo ] && echo old || echo new) helm $c: "; P3_HELM=1 /tmp/p3$b $c | tr '\n' ' '; echo
    done
  done
done > $OUT/timing-ab.txt 2>&1
echo "timing done $(( $(date +%s) - T0 )) s"
{ for t in 32 64; do echo "== memcheck, 3D 63^3 R$t"; P3_ONLY=$t timeout 60 compute-sanitizer --tool memcheck /tmp/p3bd 3 63 once 2>&1 | tail -2; done
  echo "== racecheck, 3D 31^3"; timeout 60 compute-sanitizer --tool racecheck /tmp/p3bd 3 31 once 2>&1 | tail -2
  echo "== synccheck, 3D 31^3"; timeout 60 compute-sanitizer --tool synccheck /tmp/p3bd 3 31 once 2>&1 | tail -2
  echo "== racecheck, 3D Helmholtz 31^3"; P3_HELM=1 timeout 60 compute-sanitizer --tool racecheck /tmp/p3bd 3 31 once 2>&1 | tail -2
  echo "== racecheck, 2D 255^2"; timeout 60 compute-sanitizer --tool racecheck /tmp/p3bd 2 255 once 2>&1 | tail -2
  echo "== racecheck, 2D 1023^2 FUSE=1"; PSCR_CUDA_FUSE=1 timeout 90 compute-sanitizer --tool racecheck /tmp/p3bd 2 1023 once 2>&1 | tail -2; } > $OUT/sanitizer.txt
echo "sanitizers done $(( $(date +%s) - T0 )) s"
for b in bo bd; do for t in 32 64; do
  echo "== $b R$t k_part launch 13"; P3_ONLY=$t timeout 60 ncu -k regex:k_part --launch-skip 12 --launch-count 1 --metrics smsp__inst_executed.sum,gpu__time_duration.sum,launch__registers_per_thread /tmp/p3$b 3 255 once 2>&1 | grep -E "inst_executed|duration|registers"
done; done > $OUT/ncu-inst.txt
echo "ncu done $(( $(date +%s) - T0 )) s"

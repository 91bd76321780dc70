#!/usr/bin/env bash
# Level 3 (fast float reciprocal, warp barriers, stepped source pointers in the old loop shape)
# + k_reduce_items L2::256B loads (PSCR_CUDA_L2W). old (HEAD) against new; test_cuda; sanitizers.
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
  for c in "3 255" "3 127" "3 63" "2 4095" "2 1023"; do
    echo -n "round $r old poisson $c: "; /tmp/p3bo $c | tr '\n' ' '; echo
    echo -n "round $r new poisson $c: "; /tmp/p3bd $c | tr '\n' ' '; echo
    echo -n "round $r new L2W=0 poisson $c: "; PSCR_CUDA_L2W=0 /tmp/p3bd $c | tr '\n' ' '; echo
  done
  for c in "3 255" "2 4095"; do
    echo -n "round $r old helm $c: "; P3_HELM=1 /tmp/p3bo $c | tr '\n' ' '; echo
    echo -n "round $r new helm $c: "; P3_HELM=1 /tmp/p3bd $c | tr '\n' ' '; echo
  done
done > $OUT/timing-ab.txt 2>&1
echo "timing done $(( $(date +%s) - T0 )) s"
{ for t in 32 64; do echo "== memcheck, 3D 63^3 R$t"; P3_ONLY=$t timeout 60 compute-sanitizer --tool memcheck /tmp/p3bd 3 63 once 2>&1 | tail -2; done
  echo "== racecheck, 3D 31^3"; timeout 60 compute-sanitizer --tool racecheck /tmp/p3bd 3 31 once 2>&1 | tail -2
  echo "== synccheck, 3D 31^3"; timeout 60 compute-sanitizer --tool synccheck /tmp/p3bd 3 31 once 2>&1 | tail -2
  } > $OUT/sanitizer.txt
echo "sanitizers done $(( $(date +%s) - T0 )) s"
for v in "" "PSCR_CUDA_L2W=0"; do for t in 32 64; do
  echo "== new $v R$t"; env $v P3_ONLY=$t timeout 60 ncu --csv --metrics gpu__time_duration.sum /tmp/p3bd 3 255 once > /tmp/k.csv 2>/dev/null; python3 .carry/ksum.py /tmp/k.csv 2>&1 | head -8
done; done > $OUT/kernels.txt 2>&1
echo "ncu done $(( $(date +%s) - T0 )) s"

#!/usr/bin/env bash
# StagedFacs + four blocks for staged float at 8 rows: old (HEAD) against new,
# alternated; 63^3 with PDL off; test_cuda; sanitizers; precision table.
set -u
mkdir -p $OUT
T0=$(date +%s)
P=$(mktemp -d); for f in .carry/*.deb; do dpkg -x $f $P; done
sed -i "s#^prefix=.*#prefix=$P/usr#" $P/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc
export PKG_CONFIG_PATH=$P/usr/lib/x86_64-linux-gnu/pkgconfig LD_LIBRARY_PATH=$P/usr/lib/x86_64-linux-gnu
mkdir -p /tmp/old && tar -xf .carry/old.tar -C /tmp/old
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_EXAMPLES=OFF"
( cmake -S /tmp/old -B /tmp/bo $F -DPSCR_BUILD_BENCH=OFF -DPSCR_BUILD_TESTS=OFF > /tmp/bo.log 2>&1 && cmake --build /tmp/bo -j6 --target pscr >> /tmp/bo.log 2>&1 || echo "old build failed" ) &
cmake -S . -B /tmp/bd $F -DPSCR_BUILD_BENCH=ON -DPSCR_WERROR=ON > /tmp/bd.log 2>&1 && cmake --build /tmp/bd -j10 --target pscr test_cuda pscr-precision >> /tmp/bd.log 2>&1 || { tail -30 /tmp/bd.log; exit 1; }
wait
echo "builds done $(( $(date +%s) - T0 )) s"
for b in bd bo; do
  gcc -O2 -o /tmp/p3$b .carry/p3time.c -Iinclude -I/tmp/$b/include -I/usr/local/cuda/include -L/tmp/$b -lpscr -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,/tmp/$b
done
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt; date -u >> $OUT/device.txt
for r in 1 2 3; do
  for c in "3 255" "3 127" "3 63" "2 4095" "2 1023" "2 255"; do
    for b in bo bd; do
      echo -n "round $r $([ $b = bo ] && echo old || echo new) $c: "; /tmp/p3$b $c | tr '\n' ' '; echo
    done
  done
  for b in bo bd; do
    echo -n "round $r $([ $b = bo ] && echo old || echo new) 3 63 PSCR_CUDA_PDL=0: "; PSCR_CUDA_PDL=0 /tmp/p3$b 3 63 | tr '\n' ' '; echo
  done
done > $OUT/timing-ab.txt 2>&1
echo "timing done $(( $(date +%s) - T0 )) s"
(cd /tmp/bd && timeout 200 ./tests/test_cuda > $OUT/test_cuda.txt 2>&1; echo "test_cuda rc=$? at $(( $(date +%s) - T0 )) s"; grep -E "Checks|:F:|:E:" $OUT/test_cuda.txt | head)
{ for t in 32 64; do echo "== memcheck, 3D 63^3 R$t"; P3_ONLY=$t timeout 60 compute-sanitizer --tool memcheck /tmp/p3bd 3 63 once 2>&1 | tail -3; done
  echo "== memcheck, 2D 255^2 (2 rows, staged)"; timeout 60 compute-sanitizer --tool memcheck /tmp/p3bd 2 255 once 2>&1 | tail -3
  echo "== racecheck, 3D 31^3"; timeout 60 compute-sanitizer --tool racecheck /tmp/p3bd 3 31 once 2>&1 | tail -3; } > $OUT/sanitizer.txt
echo "sanitizers done $(( $(date +%s) - T0 )) s"
timeout $(( 585 - ($(date +%s) - T0) )) /tmp/bd/bench/pscr-precision --max-n2 4095 --max-n3 255 --profile --repeat 10 > $OUT/precision.txt 2>&1
echo "precision rc=$? at $(( $(date +%s) - T0 )) s"

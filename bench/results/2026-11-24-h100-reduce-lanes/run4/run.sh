#!/usr/bin/env bash
# k_reduce_sum lanes rule: resident threads divided by 1, 2, 4, 1e6 (lanes 1) against HEAD (old), alternated twice.
rm -rf /tmp/old && mkdir -p /tmp/old && tar -xf .carry/old.tar -C /tmp/old
(cmake -S /tmp/old -B /tmp/old/b -DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_EXAMPLES=OFF > /tmp/old.log 2>&1 && cmake --build /tmp/old/b -j6 --target pscr-precision >> /tmp/old.log 2>&1 && echo "old build ok" || tail /tmp/old.log) &
(cmake -S . -B /tmp/bn -DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_EXAMPLES=OFF > /tmp/bn.log 2>&1 && cmake --build /tmp/bn -j10 --target pscr-precision >> /tmp/bn.log 2>&1 && echo "new build ok" || tail /tmp/bn.log) &
wait
mkdir -p $OUT
for r in 1 2; do for v in old 1 2 4 1000000; do
  echo "== $v run $r"
  if [ $v = old ]; then /tmp/old/b/bench/pscr-precision --max-n2 4095 --max-n3 127 --repeat 20 2>&1
  else PSCR_X_LANES_DIV=$v /tmp/bn/bench/pscr-precision --max-n2 4095 --max-n3 127 --repeat 20 2>&1; fi
done; done > $OUT/lanes.txt
grep -E "==|poisson2d +4095|poisson3d +127" $OUT/lanes.txt | awk '{print $1,$2,$3,$6}'

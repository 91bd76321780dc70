#!/usr/bin/env bash
# k_reduce_sum lanes: at least 1 / 2 / 4 items per lane (PSCR_X_MIN_ITEMS) against HEAD (old), alternated twice.
rm -rf /tmp/old && mkdir -p /tmp/old && tar -xf .carry/old.tar -C /tmp/old
(cmake -S /tmp/old -B /tmp/old/b -DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_EXAMPLES=OFF > /tmp/old.log 2>&1 && cmake --build /tmp/old/b -j6 --target pscr-precision >> /tmp/old.log 2>&1 && echo "old build ok" || tail /tmp/old.log) &
(cmake -S . -B /tmp/bn -DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_EXAMPLES=OFF > /tmp/bn.log 2>&1 && cmake --build /tmp/bn -j10 --target pscr-precision >> /tmp/bn.log 2>&1 && echo "new build ok" || tail /tmp/bn.log) &
wait
mkdir -p $OUT
for r in 1 2; do for v in old 1 2 4; do
  echo "== $v run $r"
  if [ $v = old ]; then /tmp/old/b/bench/pscr-precision --max-n2 4095 --max-n3 127 --repeat 20 2>&1
  else PSCR_X_MIN_ITEMS=$v /tmp/bn/bench/pscr-precision --max-n2 4095 --max-n3 127 --repeat 20 2>&1; fi
done; done > $OUT/min-items.txt
grep -E "==|poisson2d +(2047|4095)|poisson3d +127|helm3d" $OUT/min-items.txt | awk '{print $1,$2,$3,$6}'

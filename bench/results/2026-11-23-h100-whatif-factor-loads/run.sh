#!/usr/bin/env bash
set -u
for v in base whatif; do
  f=""; [ $v = whatif ] && f="-DCMAKE_CUDA_FLAGS=-DPSCR_WHATIF_CONST_FACS"
  cmake -S . -B /tmp/w_$v -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_EXAMPLES=OFF $f > /tmp/w_$v.log 2>&1 || { tail /tmp/w_$v.log; exit 1; }
  cmake --build /tmp/w_$v -j16 --target pscr-precision >> /tmp/w_$v.log 2>&1 || { grep -E "error" /tmp/w_$v.log | head; exit 1; }
done
for v in base whatif base whatif; do
  echo "== $v"
  /tmp/w_$v/bench/pscr-precision --profile --max-n2 4095 --max-n3 127 --repeat 20 2>&1 | grep -iE "poisson|stage|dtype|level" | grep -vi helmholtz | head -24
done

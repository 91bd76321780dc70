#!/usr/bin/env bash
# Probe: per-SASS-instruction executed counts and stall samples of one
# 255^3 k_part launch, float and double (ncu source page), plus the SASS.
set -u
mkdir -p $OUT
T0=$(date +%s)
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_BUILD_BENCH=OFF -DPSCR_BUILD_TESTS=OFF -DCMAKE_CUDA_FLAGS=-lineinfo"
cmake -S . -B /tmp/bd $F > /tmp/bd.log 2>&1 && cmake --build /tmp/bd -j16 --target pscr >> /tmp/bd.log 2>&1 && echo "build ok $(( $(date +%s) - T0 )) s" || { tail -30 /tmp/bd.log; exit 1; }
gcc -O2 -o /tmp/p3 .carry/p3time.c -Iinclude -I/tmp/bd/include -I/usr/local/cuda/include -L/tmp/bd -lpscr -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,/tmp/bd
/tmp/p3 3 255 > $OUT/timing.txt 2>&1
for t in 32 64; do
  P3_ONLY=$t timeout 150 ncu -k regex:k_part --launch-skip 12 --launch-count 1 --section SourceCounters --section InstructionStats --section WarpStateStats --section Occupancy --import-source no -o /tmp/rep$t /tmp/p3 3 255 once > $OUT/ncu-$t.log 2>&1
  ncu -i /tmp/rep$t.ncu-rep --page source --csv --print-source sass > /tmp/src$t.csv 2>$OUT/src$t.err
  ncu -i /tmp/rep$t.ncu-rep --page details --print-details all > $OUT/details-$t.txt 2>&1
  gzip -c /tmp/src$t.csv > $OUT/src$t.csv.gz
  echo "ncu $t done at $(( $(date +%s) - T0 )) s"
done
cuobjdump -sass /tmp/bd/libpscr.so 2>/dev/null | python3 -c '
import sys, subprocess, re
txt = sys.stdin.read()
parts = txt.split("Function : ")
for p in parts[1:]:
    name = p.split("\n", 1)[0].strip()
    dm = subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.strip()
    if "k_part<" in dm and "StagedFacs" in dm and ", 8, 256, true" in dm:
        print("Function : " + dm); print(p)
' | gzip > $OUT/kpart-sass.txt.gz
ls -la $OUT
echo "done $(( $(date +%s) - T0 )) s"

#!/usr/bin/env bash
# Merged top level (n = 4^j): timing merged vs plain (PSCR_MERGE_TOP), same build; sanitizers.
source .carry/dev.sh || exit 1
mkdir -p $OUT
gcc -O2 -o /tmp/ft .carry/f32time.c -Iinclude -I/tmp/bd/include -I/usr/local/cuda/include -L/tmp/bd -lpscr -L/usr/local/cuda/lib64 -L/usr/local/cuda/lib -lcudart -Wl,-rpath,/tmp/bd || exit 1
for r in 1 2; do for m in 1 0; do
  echo "== PSCR_MERGE_TOP=$m run $r"; PSCR_MERGE_TOP=$m /tmp/ft 1024 4095 4096
done; done 2>&1 | tee $OUT/n4096.txt
for tool in memcheck racecheck initcheck; do
  PSCR_CUDA_FUSE=1 timeout 100 compute-sanitizer --tool $tool /tmp/ft 64 256 > $OUT/san-$tool.txt 2>&1
  echo "$tool rc=$?"; tail -1 $OUT/san-$tool.txt
done

#!/usr/bin/env bash
# Pivot probe at setup (no flag clear/test per solve): build, GPU tests, timing against HEAD (.carry/old.tar), sanitizers.
source .carry/dev.sh || exit 1
mkdir -p $OUT
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
rm -rf /tmp/old && mkdir -p /tmp/old && tar -xf .carry/old.tar -C /tmp/old
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_EXAMPLES=OFF"
(cmake -S /tmp/old -B /tmp/old/b $F > /tmp/old.log 2>&1 && cmake --build /tmp/old/b -j12 --target pscr >> /tmp/old.log 2>&1 && echo "old build ok" || tail /tmp/old.log) &
cd /tmp/bd && timeout 200 ctest -L gpu -E test_cuda --output-on-failure 2>&1 | tail -4
timeout 300 ./tests/test_cuda > $OUT/test_cuda.txt 2>&1; echo "test_cuda rc=$?"
grep -E "Checks|:F:|:E:" $OUT/test_cuda.txt | head
cd - > /dev/null
wait
for v in bd old/b; do
  gcc -O2 -o /tmp/t-${v%%/*} .carry/f32time.c -Iinclude -I/tmp/$v/include -I/usr/local/cuda/include -L/tmp/$v -lpscr -L/usr/local/cuda/lib64 -L/usr/local/cuda/lib -lcudart -Wl,-rpath,/tmp/$v
done
for r in 1 2 3; do
  echo "== this tree run $r"; /tmp/t-bd 1024 4095 4096
  echo "== HEAD run $r"; /tmp/t-old 1024 4095 4096
done 2>&1 | tee $OUT/timing.txt | grep -E "==|4096|4095"
for tool in memcheck racecheck initcheck; do
  PSCR_CUDA_FUSE=1 timeout 60 compute-sanitizer --tool $tool /tmp/t-bd 64 256 > $OUT/san-$tool.txt 2>&1
  echo "$tool rc=$?"; tail -1 $OUT/san-$tool.txt
done
timeout 120 compute-sanitizer --tool memcheck /tmp/bd/tests/test_cuda > $OUT/san-test_cuda.txt 2>&1 || true
tail -3 $OUT/san-test_cuda.txt

#!/usr/bin/env bash
# Review fixes: build with tests, GPU ctest, test_cuda, memcheck of test_cuda.
source .carry/dev.sh || exit 1
mkdir -p $OUT
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
cd /tmp/bd && timeout 200 ctest -L gpu -E test_cuda --output-on-failure 2>&1 | tail -4
timeout 300 ./tests/test_cuda > $OUT/test_cuda.txt 2>&1; echo "test_cuda rc=$?"
grep -E "Checks|:F:|:E:" $OUT/test_cuda.txt | head
timeout 200 compute-sanitizer --tool memcheck ./tests/test_cuda > $OUT/san-test_cuda.txt 2>&1; echo "memcheck rc=$?"
grep -E "Checks|ERROR SUMMARY" $OUT/san-test_cuda.txt | tail -2

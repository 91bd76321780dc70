#!/usr/bin/env bash
# Merged top level (n = 4^j): build, GPU tests.
source .carry/dev.sh || exit 1
mkdir -p $OUT
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; } > $OUT/device.txt
cd /tmp/bd && timeout 200 ctest -L gpu -E test_cuda --output-on-failure 2>&1 | tail -6
timeout 330 ./tests/test_cuda > $OUT/test_cuda.txt 2>&1; echo "test_cuda rc=$?"
grep -E "Checks|merged case|:F:|:E:" $OUT/test_cuda.txt | head -40

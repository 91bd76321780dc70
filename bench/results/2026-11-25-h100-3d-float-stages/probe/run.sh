#!/usr/bin/env bash
# Probe: per-kernel memory/issue metrics of one 255^3 solve, float and double.
set -u
mkdir -p $OUT
T0=$(date +%s)
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_BUILD_BENCH=OFF -DPSCR_BUILD_TESTS=OFF"
cmake -S . -B /tmp/bd $F > /tmp/bd.log 2>&1 && cmake --build /tmp/bd -j16 --target pscr >> /tmp/bd.log 2>&1 && echo "build ok $(( $(date +%s) - T0 )) s" || { tail -30 /tmp/bd.log; exit 1; }
gcc -O2 -o /tmp/p3 .carry/p3time.c -Iinclude -I/tmp/bd/include -I/usr/local/cuda/include -L/tmp/bd -lpscr -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,/tmp/bd
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt; date -u >> $OUT/device.txt
/tmp/p3 3 255 > $OUT/timing.txt 2>&1
M=gpu__time_duration.sum,dram__bytes.sum,lts__t_bytes.sum,sm__inst_executed.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__throughput.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts.sum
for t in 32 64; do
  P3_ONLY=$t timeout 200 ncu --csv --metrics $M -k regex:"k_reduce|k_couple|k_gather|k_part" /tmp/p3 3 255 once > /tmp/m$t.csv 2>/tmp/m$t.err
  python3 .carry/msum.py /tmp/m$t.csv > $OUT/metrics-$t.txt 2>&1 || tail -5 /tmp/m$t.err
  echo "metrics $t done at $(( $(date +%s) - T0 )) s"
done
for t in 32 64; do
  P3_ONLY=$t timeout 100 ncu -k regex:k_reduce_items --launch-skip 20 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats /tmp/p3 3 255 once > $OUT/ncu-reduce-$t.txt 2>&1
  echo "ncu $t done at $(( $(date +%s) - T0 )) s"
done

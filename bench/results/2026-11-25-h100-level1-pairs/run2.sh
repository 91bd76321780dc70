#!/usr/bin/env bash
# Level-1 pairing, final: full build (tests, bench, examples), GPU tests,
# sanitizers on the fused paired kernels, timing against HEAD (.carry/old.tar).
set -u
mkdir -p $OUT
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nvcc --version | tail -1; lscpu | grep -E "Model name|^CPU\(s\)"; } > $OUT/device.txt 2>&1
P=$(mktemp -d); for f in .carry/*.deb; do dpkg -x $f $P; done
sed -i "s#^prefix=.*#prefix=$P/usr#" $P/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc
export PKG_CONFIG_PATH=$P/usr/lib/x86_64-linux-gnu/pkgconfig LD_LIBRARY_PATH=$P/usr/lib/x86_64-linux-gnu
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90"
[ -f /tmp/old/b/libpscr.so ] || (rm -rf /tmp/old && mkdir -p /tmp/old && tar -xf .carry/old.tar -C /tmp/old
cmake -S /tmp/old -B /tmp/old/b $F -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_BUILD_BENCH=OFF > /tmp/old.log 2>&1 && cmake --build /tmp/old/b -j6 --target pscr >> /tmp/old.log 2>&1 && echo "old build ok" || tail /tmp/old.log) &
rm -rf /tmp/bd
t0=$(date +%s)
cmake -S . -B /tmp/bd $F -DPSCR_WERROR=ON > /tmp/bd.log 2>&1 && cmake --build /tmp/bd -j12 >> /tmp/bd.log 2>&1 && echo "new build ok $(( $(date +%s) - t0 )) s" || { tail -30 /tmp/bd.log; exit 1; }
grep -ci "warning" /tmp/bd.log
wait
for v in bd old/b; do
  gcc -O2 -o /tmp/t-${v%%/*} .carry/f32time.c -Iinclude -I/tmp/$v/include -I/usr/local/cuda/include -L/tmp/$v -lpscr -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,/tmp/$v
done
{
  for tool in memcheck racecheck initcheck; do
    echo "== $tool: PSCR_CUDA_FUSE=1 PSCR_CUDA_PAIR=1 f32time 64 256"
    PSCR_CUDA_FUSE=1 PSCR_CUDA_PAIR=1 timeout 280 compute-sanitizer --tool $tool /tmp/t-bd 64 256 2>&1 | tail -3
    echo "rc=${PIPESTATUS[0]}"
  done
} > $OUT/sanitizer.txt 2>&1 &
(cd /tmp/bd && timeout 300 ./tests/test_cuda > $OUT/test_cuda.txt 2>&1; echo "test_cuda rc=$?"; timeout 200 ctest -L gpu -E test_cuda 2>&1 | tail -3) | tee $OUT/ctest.txt
grep -E "Checks|:F:|:E:" $OUT/test_cuda.txt | head -20
wait
cat $OUT/sanitizer.txt
for r in 1 2 3; do
  echo "== this tree run $r"; /tmp/t-bd 1024 2047 4095 4096
  echo "== HEAD (2f7071e) run $r"; /tmp/t-old 1024 2047 4095 4096
done 2>&1 | tee $OUT/timing.txt | grep -E "==|4096|4095"

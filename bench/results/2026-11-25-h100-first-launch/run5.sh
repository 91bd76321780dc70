#!/usr/bin/env bash
# The solve's first kernel without early launch: build, test_cuda alone, then
# the stream_order tcase repeated while compute-sanitizer shares the GPU.
set -u
mkdir -p $OUT
T0=$(date +%s)
P=$(mktemp -d); for f in .carry/*.deb; do dpkg -x $f $P; done
sed -i "s#^prefix=.*#prefix=$P/usr#" $P/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc
export PKG_CONFIG_PATH=$P/usr/lib/x86_64-linux-gnu/pkgconfig LD_LIBRARY_PATH=$P/usr/lib/x86_64-linux-gnu
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_BUILD_BENCH=OFF"
cmake -S . -B /tmp/bd $F -DPSCR_WERROR=ON > /tmp/bd.log 2>&1 && cmake --build /tmp/bd -j16 --target test_cuda >> /tmp/bd.log 2>&1 && echo "build ok $(( $(date +%s) - T0 )) s" || { tail -30 /tmp/bd.log; exit 1; }
gcc -O2 -o /tmp/t-bd .carry/f32time.c -Iinclude -I/tmp/bd/include -I/usr/local/cuda/include -L/tmp/bd -lpscr -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,/tmp/bd
(cd /tmp/bd && timeout 240 ./tests/test_cuda > $OUT/test_cuda.txt 2>&1; echo "test_cuda rc=$? at $(( $(date +%s) - T0 )) s"; grep -E "Checks|:F:|:E:" $OUT/test_cuda.txt | head)
( while true; do PSCR_CUDA_FUSE=1 compute-sanitizer --tool memcheck /tmp/t-bd 64 256 > /dev/null 2>&1; done ) &
BG=$!
sleep 5
f=0; r=0
while [ $(( $(date +%s) - T0 )) -lt 470 ]; do
  r=$((r+1))
  (cd /tmp/bd && CK_RUN_CASE=stream_order timeout 60 ./tests/test_cuda > /tmp/so.txt 2>&1) || { f=$((f+1)); grep -E ":F:|:E:" /tmp/so.txt | head -3 >> $OUT/flake.txt; }
done
echo "stream_order (GPU shared, first kernel without early launch): failed $f of $r" | tee -a $OUT/flake.txt
kill $BG; pkill -f compute-sanitizer; true

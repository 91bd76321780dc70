#!/usr/bin/env bash
# error_mid_solve flake hunt: the stream_order tcase repeated while another
# process (compute-sanitizer memcheck on f32time) shares the GPU, with early
# launch on and off.
set -u
mkdir -p $OUT
P=$(mktemp -d); for f in .carry/*.deb; do dpkg -x $f $P; done
sed -i "s#^prefix=.*#prefix=$P/usr#" $P/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc
export PKG_CONFIG_PATH=$P/usr/lib/x86_64-linux-gnu/pkgconfig LD_LIBRARY_PATH=$P/usr/lib/x86_64-linux-gnu
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_BUILD_BENCH=OFF"
cmake -S . -B /tmp/bd $F > /tmp/bd.log 2>&1 && cmake --build /tmp/bd -j16 --target test_cuda >> /tmp/bd.log 2>&1 && echo "build ok" || { tail -30 /tmp/bd.log; exit 1; }
gcc -O2 -o /tmp/t-bd .carry/f32time.c -Iinclude -I/tmp/bd/include -I/usr/local/cuda/include -L/tmp/bd -lpscr -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,/tmp/bd
( while true; do PSCR_CUDA_FUSE=1 compute-sanitizer --tool memcheck /tmp/t-bd 64 256 > /dev/null 2>&1; done ) &
BG=$!
sleep 5
for pdl in 1 0; do
  f=0; t0=$(date +%s)
  for r in $(seq 25); do
    (cd /tmp/bd && PSCR_CUDA_PDL=$pdl CK_RUN_CASE=stream_order timeout 60 ./tests/test_cuda > /tmp/so.txt 2>&1) || { f=$((f+1)); grep -E ":F:|:E:" /tmp/so.txt | head -2; }
    [ $(( $(date +%s) - t0 )) -gt 150 ] && break
  done
  echo "PSCR_CUDA_PDL=$pdl: stream_order failed $f of $r (GPU shared)"
done 2>&1 | tee $OUT/flake.txt
kill $BG; pkill -f compute-sanitizer; true

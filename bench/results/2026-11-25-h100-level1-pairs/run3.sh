#!/usr/bin/env bash
# error_mid_solve failure hunt: test_cuda alone (new tree and HEAD), then stream_order repeated.
set -u
mkdir -p $OUT
P=$(mktemp -d); for f in .carry/*.deb; do dpkg -x $f $P; done
sed -i "s#^prefix=.*#prefix=$P/usr#" $P/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc
export PKG_CONFIG_PATH=$P/usr/lib/x86_64-linux-gnu/pkgconfig LD_LIBRARY_PATH=$P/usr/lib/x86_64-linux-gnu
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_BUILD_BENCH=OFF"
rm -rf /tmp/old && mkdir -p /tmp/old && tar -xf .carry/old.tar -C /tmp/old
(cmake -S /tmp/old -B /tmp/old/b $F > /tmp/old.log 2>&1 && cmake --build /tmp/old/b -j8 --target test_cuda >> /tmp/old.log 2>&1 && echo "old build ok" || tail /tmp/old.log) &
cmake -S . -B /tmp/bd $F -DPSCR_WERROR=ON > /tmp/bd.log 2>&1 && cmake --build /tmp/bd -j8 --target test_cuda >> /tmp/bd.log 2>&1 && echo "new build ok" || { tail -30 /tmp/bd.log; exit 1; }
wait
for r in 1 2; do
  (cd /tmp/bd && timeout 200 ./tests/test_cuda > $OUT/test_cuda_new$r.txt 2>&1; echo "new full run $r rc=$?"; grep -E "Checks|:F:|:E:" $OUT/test_cuda_new$r.txt)
done
for v in bd old/b; do
  f=0
  for r in $(seq 15); do
    (cd /tmp/$v && CK_RUN_CASE=stream_order timeout 60 ./tests/test_cuda > /tmp/so.txt 2>&1) || { f=$((f+1)); grep -E ":F:|:E:" /tmp/so.txt | head -2; }
  done
  echo "$v: stream_order failed $f of 15"
done | tee $OUT/stream_order.txt

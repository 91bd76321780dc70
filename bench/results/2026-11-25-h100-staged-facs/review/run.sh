#!/usr/bin/env bash
# Review mends: with_part_kernel, part_shape by factor type, pscr_env_switch. test_cuda; timing vs HEAD.
set -u
mkdir -p $OUT
T0=$(date +%s)
P=$(mktemp -d); for f in .carry/*.deb; do dpkg -x $f $P; done
sed -i "s#^prefix=.*#prefix=$P/usr#" $P/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc
export PKG_CONFIG_PATH=$P/usr/lib/x86_64-linux-gnu/pkgconfig LD_LIBRARY_PATH=$P/usr/lib/x86_64-linux-gnu
mkdir -p /tmp/old && tar -xf .carry/old.tar -C /tmp/old
F="-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DPSCR_BUILD_EXAMPLES=OFF -DPSCR_BUILD_BENCH=OFF"
( cmake -S /tmp/old -B /tmp/bo $F -DPSCR_BUILD_TESTS=OFF > /tmp/bo.log 2>&1 && cmake --build /tmp/bo -j6 --target pscr >> /tmp/bo.log 2>&1 || echo "old build failed" ) &
cmake -S . -B /tmp/bd $F -DPSCR_WERROR=ON > /tmp/bd.log 2>&1 && cmake --build /tmp/bd -j10 --target pscr test_cuda >> /tmp/bd.log 2>&1 || { tail -30 /tmp/bd.log; exit 1; }
wait
echo "builds done $(( $(date +%s) - T0 )) s"
for b in bd bo; do
  gcc -O2 -o /tmp/p3$b .carry/p3time.c -Iinclude -I/tmp/$b/include -I/usr/local/cuda/include -L/tmp/$b -lpscr -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,/tmp/$b
done
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt; date -u >> $OUT/device.txt
(cd /tmp/bd && timeout 200 ./tests/test_cuda > $OUT/test_cuda.txt 2>&1; echo "test_cuda rc=$? at $(( $(date +%s) - T0 )) s"; grep -E "Checks|:F:|:E:" $OUT/test_cuda.txt | head)
for c in "3 255" "2 4095" "3 63"; do for b in bo bd; do echo -n "$b $c: "; /tmp/p3$b $c | tr '\n' ' '; echo; done; done > $OUT/timing.txt 2>&1
for b in bo bd; do echo -n "$b 3 63 PDL=0: "; PSCR_CUDA_PDL=0 /tmp/p3$b 3 63 | tr '\n' ' '; echo; done >> $OUT/timing.txt 2>&1
echo "done $(( $(date +%s) - T0 )) s"

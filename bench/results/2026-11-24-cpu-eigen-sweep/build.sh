set -e
cd /tmp/eg && python3 instr.py
F="-O3 -DNDEBUG -g -march=native -fopenmp -Wno-psabi -I/work/main/src -I/work/main/include -I/work/main/build-cpu/include"
gcc $F -I/tmp/eg/eigen_i -o drvi drv.c drvi_extra.c /tmp/eg/eigen_i/eigen.c /work/main/src/error.c -lm
gcc $F -I/work/main/eigen -o drv drv.c /work/main/eigen/eigen.c /work/main/src/error.c -lm

#!/bin/sh
# Install the build tree into a scratch prefix, then build and run an outside
# consumer with find_package(pscr) and with pkg-config. Args: BUILD_DIR SRC_DIR WORK_DIR
set -eu
build=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
cmake -S "$src" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/configure.log"
cmake --build "$work/consumer" >"$work/build.log"
"$work/consumer/consumer"
libdir=$(ls -d "$work"/prefix/lib*/pkgconfig | head -n 1)
export PKG_CONFIG_PATH="$libdir"
cc -std=c11 "$src/main.c" -o "$work/consumer_pc" $(pkg-config --cflags --libs pscr) -lm \
  -Wl,-rpath,"$(dirname "$libdir")"
"$work/consumer_pc"
echo "find_package(pscr) and pkg-config consumers: OK"

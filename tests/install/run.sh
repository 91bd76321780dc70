#!/bin/sh
# Install the build tree into a scratch prefix, then build and run an outside
# consumer with find_package(pscr) and with pkg-config. Args: BUILD_DIR SRC_DIR WORK_DIR
set -eu
build=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
# A shared library exports exactly the functions pscr.h declares PSCR_EXTERN.
lib=$(ls "$work"/prefix/lib*/libpscr.so 2>/dev/null | head -n 1 || true)
if [ -n "$lib" ] && command -v nm >/dev/null; then
  header=$(ls "$work"/prefix/include/pscr.h)
  tr '\n' ' ' <"$header" | grep -o 'PSCR_EXTERN[^(]*(' |
    sed 's/.*[ *]\([a-z_0-9]*\)($/\1/' | grep '^pscr_' | sort -u >"$work/api.txt"
  nm -D --defined-only "$lib" | awk '{print $3}' | sort >"$work/exported.txt"
  if ! diff "$work/api.txt" "$work/exported.txt" >"$work/exports.diff"; then
    echo "libpscr.so exports differ from pscr.h's PSCR_EXTERN functions (< header, > library):"
    cat "$work/exports.diff"
    exit 1
  fi
  echo "exports: $(wc -l <"$work/exported.txt") symbols, exactly pscr.h's public functions"
fi
cmake -S "$src" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/configure.log"
cmake --build "$work/consumer" >"$work/build.log"
"$work/consumer/consumer"
libdir=$(ls -d "$work"/prefix/lib*/pkgconfig | head -n 1)
export PKG_CONFIG_PATH="$libdir"
cc -std=c11 "$src/main.c" -o "$work/consumer_pc" $(pkg-config --cflags --libs pscr) -lm \
  -Wl,-rpath,"$(dirname "$libdir")"
"$work/consumer_pc"
echo "find_package(pscr) and pkg-config consumers: OK"

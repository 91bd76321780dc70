#!/bin/sh
# Install the build tree into a scratch prefix, then check what a user of the
# install meets: the exported symbols, the installed pscr-solve (run from the
# prefix and from a moved copy of it: its RPATH is relative), and outside
# consumers built with find_package(pscr) and with pkg-config (and, where the
# build has the Fortran module, a Fortran program that uses it), as README.md,
# docs/user-guide.md and docs/fortran.md describe them. Every program runs without
# LD_LIBRARY_PATH, so only RPATHs can find the library.
# Args: BUILD_DIR SRC_DIR WORK_DIR
set -eu
build=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
run() { env -u LD_LIBRARY_PATH "$@"; }
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
# A shared library exports exactly the functions the public headers (pscr.h,
# and pscr_mpi.h where installed) declare PSCR_EXTERN.
lib=$(ls "$work"/prefix/lib*/libpscr.so 2>/dev/null | head -n 1 || true)
if [ -n "$lib" ] && command -v nm >/dev/null; then
  headers=$(ls "$work"/prefix/include/pscr.h "$work"/prefix/include/pscr_mpi.h 2>/dev/null || true)
  cat $headers | tr '\n' ' ' | grep -o 'PSCR_EXTERN[^(]*(' |
    sed 's/.*[ *]\([a-z_0-9]*\)($/\1/' | grep '^pscr_' | sort -u >"$work/api.txt"
  nm -D --defined-only "$lib" | awk '{print $3}' | sort >"$work/exported.txt"
  if ! diff "$work/api.txt" "$work/exported.txt" >"$work/exports.diff"; then
    echo "libpscr.so exports differ from the headers' PSCR_EXTERN functions (< header, > library):"
    cat "$work/exports.diff"
    exit 1
  fi
  echo "exports: $(wc -l <"$work/exported.txt") symbols, exactly the public headers' functions"
fi
# The installed tool, where the build made it (PSCR_BUILD_EXAMPLES).
if [ -e "$work/prefix/bin/pscr-solve" ]; then
  run "$work/prefix/bin/pscr-solve" -n 31 --backend cpu >"$work/solve.log" ||
    { cat "$work/solve.log"; echo "installed pscr-solve failed"; exit 1; }
  cp -R "$work/prefix" "$work/moved"
  run "$work/moved/bin/pscr-solve" -n 31 --backend cpu >"$work/solve-moved.log" ||
    { cat "$work/solve-moved.log"; echo "pscr-solve of a moved prefix failed"; exit 1; }
  rm -rf "$work/moved"
  echo "installed pscr-solve -n 31 --backend cpu: OK (also from a moved prefix)"
fi
cmake -S "$src" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/configure.log"
cmake --build "$work/consumer" >"$work/build.log"
run "$work/consumer/consumer"
libdir=$(ls -d "$work"/prefix/lib*/pkgconfig | head -n 1)
libdir=$(dirname "$libdir")
export PKG_CONFIG_PATH="$libdir/pkgconfig"
# shellcheck disable=SC2046 # pkg-config's flags are meant to split
cc -std=c11 "$src/main.c" -o "$work/consumer_pc" $(pkg-config --cflags --libs pscr) -lm \
  -Wl,-rpath,"$libdir"
run "$work/consumer_pc"
# Without the rpath a prefix outside the loader's path needs LD_LIBRARY_PATH,
# as the documents say.
# shellcheck disable=SC2046
cc -std=c11 "$src/main.c" -o "$work/consumer_pc_plain" $(pkg-config --cflags --libs pscr) -lm
if run "$work/consumer_pc_plain" >/dev/null 2>&1; then
  echo "a pkg-config consumer without an rpath found libpscr in $libdir by itself"
  exit 1
fi
LD_LIBRARY_PATH="$libdir" "$work/consumer_pc_plain" >/dev/null
echo "find_package(pscr) and pkg-config consumers: OK, without LD_LIBRARY_PATH (pkg-config: with -Wl,-rpath)"
# The Fortran module, where the build made it: the Fortran example built
# against the install as docs/fortran.md says (pscr.mod from the include
# folder, -lpscr_fortran before pkg-config's libraries), with the build's
# own Fortran compiler (module files are compiler-specific), runs.
if [ -e "$work/prefix/include/pscr.mod" ]; then
  fc=$(sed -n 's/^CMAKE_Fortran_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
  # shellcheck disable=SC2046
  "$fc" "$src/../../examples/poisson_fortran.f90" -o "$work/consumer_fortran" \
    $(pkg-config --cflags pscr) -lpscr_fortran $(pkg-config --libs pscr) -Wl,-rpath,"$libdir"
  run "$work/consumer_fortran" >"$work/fortran.log" ||
    { cat "$work/fortran.log"; echo "the installed Fortran module's consumer failed"; exit 1; }
  echo "Fortran consumer (use pscr, -lpscr_fortran): OK"
fi

#!/usr/bin/env bash
# Install pscr's build and test dependencies on Debian/Ubuntu when missing,
# saying which package is installed and what needs it before apt-get runs.
# Does nothing (and says so) when everything is present; needs root (or
# sudo) otherwise.
# PSCR_DEPS_PETSC=1 (CI) adds petsc-dev, so that the build also makes and
# tests the PETSc example; the quick start leaves it out (about 130 packages).
# PSCR_DEPS_DOCS=1 (CI) adds doxygen, for the API reference (the docs target).
set -euo pipefail
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
# What each package is for; README.md's requirements list the same.
why() {
  case $1 in
  cmake) echo "to configure the build (CMake >= 3.20)" ;;
  gcc) echo "the C11 compiler, with OpenMP" ;;
  g++) echo "the C++17 compiler of the Python package's extension (nanobind)" ;;
  gfortran) echo "the Fortran compiler of the Fortran module, its test and example" ;;
  make) echo "to run the build CMake generates" ;;
  pkg-config) echo "for the tests' pkg-config consumer and to find PETSc" ;;
  liblapacke-dev) echo "for the tests' dense reference solver and the dense baseline" ;;
  libopenblas-dev) echo "BLAS for the library's dense transforms, and the BLAS and LAPACK under LAPACKE" ;;
  check) echo "the unit-test framework of the test suites" ;;
  petsc-dev) echo "for the PETSc example (PSCR_DEPS_PETSC=1)" ;;
  doxygen) echo "for the API reference, the docs target (PSCR_DEPS_DOCS=1)" ;;
  libfftw3-dev) echo "optional: the FFTW baseline of pscr-baselines" ;;
  *) echo "a dependency" ;;
  esac
}
pkgs=(cmake gcc g++ gfortran make pkg-config liblapacke-dev libopenblas-dev check)
[ "${PSCR_DEPS_PETSC:-0}" = 1 ] && pkgs+=(petsc-dev)
[ "${PSCR_DEPS_DOCS:-0}" = 1 ] && pkgs+=(doxygen)
need=()
for pkg in "${pkgs[@]}"; do
  have_pkg "$pkg" || need+=("$pkg")
done
# Optional: FFTW3 for the CPU side of bench/baselines (pscr-baselines); the
# build skips it without FFTW, so a failed install only warns.
optional=()
have_pkg libfftw3-dev || optional+=(libfftw3-dev)
if [ ${#need[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ]; then
  echo "deps: every package is installed (${pkgs[*]} libfftw3-dev)" >&2
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
if ! command -v apt-get >/dev/null; then
  if [ ${#need[@]} -gt 0 ]; then
    echo "deps: please install: ${need[*]} (CMake >= 3.20, a C11 compiler with OpenMP, a C++17 compiler, a Fortran compiler, OpenBLAS, LAPACKE, Check)" >&2
    exit 1
  fi
  echo "deps: optional libfftw3-dev not installed (no apt-get): pscr-baselines builds without FFTW" >&2
  exit 0
fi
for pkg in "${need[@]}" "${optional[@]}"; do
  echo "deps: installing $pkg ($(why "$pkg"))" >&2
done
echo "deps: running: ${sudo:+$sudo }apt-get update -qq" >&2
$sudo apt-get update -qq
if [ ${#need[@]} -gt 0 ]; then
  echo "deps: running: ${sudo:+$sudo }apt-get install -y -qq ${need[*]}" >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
if [ ${#optional[@]} -gt 0 ]; then
  echo "deps: running: ${sudo:+$sudo }apt-get install -y -qq ${optional[*]}" >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${optional[@]}" >/dev/null ||
    echo "deps: optional libfftw3-dev not installed: pscr-baselines builds without FFTW" >&2
fi

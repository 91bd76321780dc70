#!/usr/bin/env bash
# Install pscr's build and test dependencies on Debian/Ubuntu when missing.
# Does nothing when everything is present; needs root (or sudo) otherwise.
# PSCR_DEPS_PETSC=1 (CI) adds petsc-dev, so that the build also makes and
# tests the PETSc example; the quick start leaves it out (about 130 packages).
# PSCR_DEPS_DOCS=1 (CI) adds doxygen, for the API reference (the docs target).
set -euo pipefail
need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
pkgs=(cmake gcc make pkg-config liblapacke-dev libopenblas-dev check)
[ "${PSCR_DEPS_PETSC:-0}" = 1 ] && pkgs+=(petsc-dev)
[ "${PSCR_DEPS_DOCS:-0}" = 1 ] && pkgs+=(doxygen)
for pkg in "${pkgs[@]}"; do
  have_pkg "$pkg" || need+=("$pkg")
done
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
# Optional: FFTW3 for the CPU side of bench/baselines (pscr-baselines); the
# build skips it without FFTW, so a failed install only warns.
optional() {
  have_pkg libfftw3-dev && return 0
  if command -v apt-get >/dev/null &&
    { [ ${#need[@]} -gt 0 ] || $sudo apt-get update -qq; } &&
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libfftw3-dev >/dev/null; then
    return 0
  fi
  echo "pscr: optional libfftw3-dev not installed: pscr-baselines builds without FFTW" >&2
}
if [ ${#need[@]} -eq 0 ]; then
  optional
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "pscr: please install: ${need[*]} (CMake >= 3.20, a C11 compiler with OpenMP, LAPACKE, Check)" >&2
  exit 1
fi
echo "pscr: installing ${need[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
optional

#!/usr/bin/env bash
# The CPU benchmarks: builds the tools (Release, CPU backend, tuned for this
# machine) and writes each tool's run into the current folder of this kind
# of machine, bench/results/cpu-<cores>core/, replacing that tool's previous
# run there: its CSV, its text output, its plot and its row in the folder's
# README.md (command, commit, date, machine). Then bench/perf_tables.py
# regenerates the docs' tables. docs/performance.md says what each tool
# measures.
#
# Run it on an otherwise idle machine: OpenMP barriers stall when another
# process holds a core, and the numbers then say nothing.
#
#   bash scripts/bench-cpu.sh [-b BUILD] [-o DIR] [-c COMMIT] [TOOL...]
#
#   TOOL      bench      pscr-bench --backend cpu: the paper's Tables 1-4
#             baselines  pscr-baselines --no-gpu: pscr's CPU backend against
#                        FFTW's DST-I (needs libfftw3-dev; skipped without)
#             (default: both)
#   -b BUILD  build directory (default build-cpu-bench)
#   -o DIR    write there instead, and leave the docs alone (an experiment)
#   -c COMMIT the commit to record where the tree's git metadata is not its
#             own; default: git's HEAD, "+modified" when tracked files
#             outside bench/results and docs differ from it
#
# Exit status: 0, or the first failing tool's (its partial output is kept
# and its README row says so).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build=build-cpu-bench out="" commit=""
while getopts "b:o:c:" opt; do
  case $opt in
  b) build=$OPTARG ;;
  o) out=$OPTARG ;;
  c) commit=$OPTARG ;;
  *) sed -n '2,26p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
tools=("$@")
[ ${#tools[@]} -gt 0 ] || tools=(bench baselines)
for t in "${tools[@]}"; do
  case $t in bench | baselines) ;; *) echo "bench-cpu.sh: unknown tool $t" >&2; exit 2 ;; esac
done

cores=$(nproc)
current=0
if [ -z "$out" ]; then
  out=bench/results/cpu-${cores}core
  current=1
fi
mkdir -p "$out" "$build"
bin=$(cd "$build" && pwd)/bench
if [ -z "$commit" ]; then
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  changed=$(git status --porcelain --untracked-files=no -- . ':!bench/results' ':!docs' \
    ':!README.md' 2>/dev/null)
  [ "$commit" = unknown ] || [ -z "$changed" ] || commit="$commit+modified"
fi
model=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
cc=$(gcc --version 2>/dev/null | head -1)
device="$model, $cores cores, $cores threads, ${cc:-compiler unknown}"
{
  date -u
  echo "commit $commit"
  lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|MHz|L2|L3"
  free -g | head -2
  gcc --version | head -1
} > "$out/device.txt" 2>&1

bash scripts/deps.sh || exit 1
log=$build/bench-cpu-build.log
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=OFF -DPSCR_NATIVE=ON \
  -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_EXAMPLES=OFF > "$log" 2>&1 &&
  cmake --build "$build" -j"$cores" --target pscr-bench >> "$log" 2>&1 ||
  { tail -30 "$log"; exit 1; }
# pscr-baselines exists only where FFTW was found.
cmake --build "$build" -j"$cores" --target pscr-baselines >> "$log" 2>&1 || true

status=0
for t in "${tools[@]}"; do
  case $t in
  bench) exe=pscr-bench exe_path=$bin/pscr-bench args=(--backend cpu --repeat 5 --csv bench.csv) ;;
  baselines)
    exe=pscr-baselines exe_path=$bin/baselines/pscr-baselines
    args=(--no-gpu --csv baselines.csv)
    ;;
  esac
  if [ ! -x "$exe_path" ]; then
    echo "bench-cpu.sh: $exe was not built (pscr-baselines needs FFTW): skipped"
    continue
  fi
  rm -f "$out/$t.csv" "$out/$t.txt" "$out/$t.png"
  when=$(date -u '+%Y-%m-%d %H:%M')
  echo "== $exe ${args[*]} ($when UTC, $out)"
  (cd "$out" && "$exe_path" "${args[@]}") 2>&1 | tee "$out/$t.txt"
  rc=${PIPESTATUS[0]}
  note="scripts/bench-cpu.sh; Release, -march=native, $cores OpenMP threads"
  [ "$rc" = 0 ] || note="$note; the tool exited with status $rc (see $t.txt)"
  files=("$t.csv" "$t.txt")
  [ "$t" = bench ] && files+=("$t.png")
  python3 bench/perf_tables.py record "$out" "${files[@]}" --tool "$exe" \
    --command "$exe ${args[*]}" --commit "$commit" --date "$when" --device "$device" \
    --note "$note" || status=1
  [ "$rc" = 0 ] || [ "$status" != 0 ] || status=$rc
done

if python3 -c "import matplotlib" 2>/dev/null; then
  python3 bench/perf_tables.py plot "$out" || status=1
else
  echo "bench-cpu.sh: no matplotlib here: draw the plots where it is," \
    "python3 bench/perf_tables.py plot $out"
fi
if [ "$current" = 1 ]; then
  python3 bench/perf_tables.py || status=1
fi
echo "bench-cpu.sh: status $status; results in $out"
exit "$status"

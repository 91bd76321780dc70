#!/usr/bin/env bash
# The GPU benchmarks, on a machine with a CUDA device: builds the tools with
# CUDA (Release) and writes each tool's run into the current folder of this
# kind of GPU, bench/results/<gpu>/ (the model in lower case: h100/, h200/,
# a100/, ...), replacing that tool's previous run there: its CSV, its text
# output, its plot and its row in the folder's README.md (command, commit,
# date, device). Then bench/perf_tables.py regenerates the docs' tables.
# docs/performance.md says what each tool measures.
#
#   bash scripts/bench-gpu.sh [-b BUILD] [-o DIR] [-a ARCHS] [-c COMMIT] [-p PLANNER] [TOOL...]
#
#   TOOL      bench      pscr-bench --backend cuda: the paper's Tables 1-4
#             roofline   pscr-roofline: ceilings, rates, per-stage profile,
#                        the cuFFT / dense MD / cuSPARSE baselines
#             precision  pscr-precision --max-n3 511: float against double
#             (default: all three; several minutes each on an H100, so a
#             device command of limited time may take them in two calls)
#   -b BUILD  build directory (default build-gpu-bench)
#   -o DIR    write there instead, and leave the docs alone (an experiment:
#             a change's A/B belongs outside bench/results)
#   -a ARCHS  CMAKE_CUDA_ARCHITECTURES (default 90: H100, H200)
#   -c COMMIT the commit to record where the tree's git metadata is not its
#             own (a copy of a tree); default: git's HEAD, "+modified" when
#             tracked files outside bench/results and docs differ from it
#   -p PLANNER pscr-roofline's --planner (none, the default; estimate:
#             pscr's method per dimension by the cost model; measure: the
#             fastest of the timed candidates)
#
# Exit status: 0, or the first failing tool's (its partial output is kept
# and its README row says so).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build=build-gpu-bench out="" archs=90 commit="" planner=none
while getopts "b:o:a:c:p:" opt; do
  case $opt in
  b) build=$OPTARG ;;
  o) out=$OPTARG ;;
  a) archs=$OPTARG ;;
  c) commit=$OPTARG ;;
  p) planner=$OPTARG ;;
  *) sed -n '2,30p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
tools=("$@")
[ ${#tools[@]} -gt 0 ] || tools=(bench roofline precision)
for t in "${tools[@]}"; do
  case $t in
  bench | roofline | precision) ;;
  *) echo "bench-gpu.sh: unknown tool $t" >&2; exit 2 ;;
  esac
done

name=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 2>/dev/null | head -1)
[ -n "$name" ] || { echo "bench-gpu.sh: no CUDA device (nvidia-smi found none)" >&2; exit 1; }
# The folder: the model's designation (H100, A100, L40S), else the whole name.
slug=$(echo "$name" | grep -oE '\b[A-Z][0-9]{2,3}[A-Z]?\b' | head -1 | tr '[:upper:]' '[:lower:]')
[ -n "$slug" ] || slug=$(echo "$name" | tr '[:upper:]' '[:lower:]' |
  sed -E 's/^nvidia //; s/[^a-z0-9]+/-/g; s/^-|-$//g')
current=0
if [ -z "$out" ]; then
  out=bench/results/$slug
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
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader -i 0 | head -1)
cuda=$(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')
device="$name, driver $driver, CUDA ${cuda:-?}"
{
  date -u
  echo "commit $commit"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  nvcc --version | tail -2
  lscpu | grep -E "Model name|^CPU\(s\)" || true
} > "$out/device.txt" 2>&1

targets=()
for t in "${tools[@]}"; do targets+=("pscr-$t"); done
log=$build/bench-gpu-build.log
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON -DPSCR_NATIVE=ON \
  -DCMAKE_CUDA_ARCHITECTURES="$archs" -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_EXAMPLES=OFF \
  > "$log" 2>&1 && cmake --build "$build" -j"$(nproc)" --target "${targets[@]}" >> "$log" 2>&1 ||
  { tail -30 "$log"; exit 1; }

status=0
for t in "${tools[@]}"; do
  case $t in
  bench) args=(--backend cuda --repeat 10 --csv bench.csv) ;;
  roofline) args=(--repeat 20 --csv roofline.csv --planner "$planner") ;;
  precision) args=(--max-n3 511 --profile --csv precision.csv) ;;
  esac
  rm -f "$out/$t.csv" "$out/$t.txt" "$out/$t.png"
  when=$(date -u '+%Y-%m-%d %H:%M')
  echo "== pscr-$t ${args[*]} ($when UTC, $out)"
  # The tool writes its CSV by the name in args, in $out.
  (cd "$out" && "$bin/pscr-$t" "${args[@]}") 2>&1 | tee "$out/$t.txt"
  rc=${PIPESTATUS[0]}
  note="scripts/bench-gpu.sh; Release, CUDA architectures $archs"
  [ "$rc" = 0 ] || note="$note; the tool exited with status $rc (see $t.txt)"
  files=("$t.csv" "$t.txt")
  python3 bench/perf_tables.py record "$out" "${files[@]}" "$t.png" --tool "pscr-$t" \
    --command "pscr-$t ${args[*]}" --commit "$commit" --date "$when" --device "$device" \
    --note "$note" || status=1
  [ "$rc" = 0 ] || [ "$status" != 0 ] || status=$rc
done

if python3 -c "import matplotlib" 2>/dev/null; then
  python3 bench/perf_tables.py plot "$out" || status=1
else
  echo "bench-gpu.sh: no matplotlib here: draw the plots where it is," \
    "python3 bench/perf_tables.py plot $out"
fi
if [ "$current" = 1 ]; then
  python3 bench/perf_tables.py || status=1
fi
echo "bench-gpu.sh: status $status; results in $out"
exit "$status"

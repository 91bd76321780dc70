#!/usr/bin/env bash
# Threads under load: pscr-pcg (a preconditioner called once per PCG
# iteration) with one thread against the default team (all cores), on an
# idle machine and with one competing process that keeps a core busy (a
# shell busy loop started here, as another job on a shared machine would).
# Prints each run and writes bench/results/cpu-<cores>core/threads.csv
# (median and minimum of the runs' PCG solve times) with its README row,
# then regenerates the docs' tables (bench/perf_tables.py). Run it on an
# otherwise idle machine: the "idle" rows assume nothing else runs.
#
#   bash scripts/bench-threads.sh [-o DIR] [-c COMMIT] [-r RUNS] [N...]
#
#   N         pscr-pcg sizes (default: 127 511)
#   -o DIR    write there instead, and leave the docs alone
#   -c COMMIT the commit to record (default: git's HEAD, "+modified" when
#             tracked files outside bench/results and docs differ)
#   -r RUNS   runs per configuration (default 7)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out="" commit="" runs=7
while getopts "o:c:r:" opt; do
  case $opt in
  o) out=$OPTARG ;;
  c) commit=$OPTARG ;;
  r) runs=$OPTARG ;;
  *) sed -n '2,18p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(127 511)
cores=$(nproc)
current=0
if [ -z "$out" ]; then
  out=bench/results/cpu-${cores}core
  current=1
fi
mkdir -p "$out"
if [ -z "$commit" ]; then
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  changed=$(git status --porcelain --untracked-files=no -- . ':!bench/results' ':!docs' \
    ':!README.md' 2>/dev/null)
  [ "$commit" = unknown ] || [ -z "$changed" ] || commit="$commit+modified"
fi
build=build-bench-threads
echo "bench-threads: building pscr-pcg (CPU, Release, native) in $build/"
bash scripts/deps.sh >/dev/null || exit 1
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPSCR_NATIVE=ON -DPSCR_ENABLE_CUDA=OFF \
  -DPSCR_BUILD_TESTS=OFF -DPSCR_BUILD_BENCH=OFF >/dev/null &&
  cmake --build "$build" -j"$cores" --target pscr-pcg >/dev/null || exit 1
pcg=$build/examples/pscr-pcg
[ -x "$pcg" ] || { echo "bench-threads: no $pcg" >&2; exit 1; }

hog=""
stop_hog() { [ -n "$hog" ] && kill "$hog" 2>/dev/null && wait "$hog" 2>/dev/null; hog=""; }
trap stop_hog EXIT

csv=$out/threads.csv txt=$out/threads.txt
when=$(date -u '+%Y-%m-%d %H:%M')
model=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
{
  echo "# device: ${model:-unknown CPU}, $cores cores; pscr-pcg --no-cg, kappa checker, contrast 1e3"
  echo "n,load,threads,runs,iterations,median_s,min_s"
} > "$csv"
{
  echo "bench-threads.sh at $commit, $when UTC: ${model:-unknown CPU}, $cores cores"
  echo "load: idle, or one competing busy-loop process; threads: 1, or the default (all)"
} > "$txt"
for n in "${sizes[@]}"; do
  for load in idle loaded; do
    if [ "$load" = loaded ]; then
      sh -c 'while :; do :; done' &
      hog=$!
      sleep 1
    fi
    for threads in 1 default; do
      args=(-n "$n" --no-cg)
      [ "$threads" = 1 ] && args+=(--threads 1)
      times=() iters=""
      for ((r = 0; r < runs; r++)); do
        line=$("$pcg" "${args[@]}" 2>&1 | grep -E '^  pscr-PCG, P  ')
        [ -n "$line" ] || { echo "bench-threads: pscr-pcg ${args[*]} failed" >&2; exit 1; }
        # method columns: "pscr-PCG, P" iters rec.res true.res solve_s setup_s
        iters=$(echo "$line" | awk '{print $3}')
        times+=("$(echo "$line" | awk '{print $6}')")
      done
      sorted=$(printf '%s\n' "${times[@]}" | sort -g)
      median=$(echo "$sorted" | sed -n "$(((runs + 1) / 2))p")
      min=$(echo "$sorted" | head -1)
      echo "$n,$load,$threads,$runs,$iters,$median,$min" >> "$csv"
      printf 'n %4d  %-6s  threads %-7s  %2d PCG iterations  median %.4f s  min %.4f s (%d runs)\n' \
        "$n" "$load" "$threads" "$iters" "$median" "$min" "$runs" | tee -a "$txt"
    done
    stop_hog
  done
done
python3 bench/perf_tables.py record "$out" threads.csv threads.txt --tool bench-threads.sh \
  --command "bash scripts/bench-threads.sh -r $runs ${sizes[*]}" --commit "$commit" \
  --date "$when" --device "${model:-unknown CPU}, $cores cores" \
  --note "pscr-pcg --no-cg; loaded: one busy-loop process; median and min of $runs runs" || exit 1
if [ "$current" = 1 ]; then
  python3 bench/perf_tables.py || exit 1
fi
echo "bench-threads: results in $out"

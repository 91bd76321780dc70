#!/usr/bin/env bash
# A/B on a CUDA machine: this tree ("new") against a baseline ("old"), built
# side by side, their pscr-gpu-once timings alternated over several rounds
# (each a median of CUDA-event timings after warm-up), optionally with
# the CUDA suites, memcheck and Nsight Compute kernel sums. For trying a
# change: its outputs stay outside the tree (what a change gained goes into
# its commit message, and into docs/performance.md where it matters to users;
# bench/results/ holds only the benchmark tools' current runs). Run from
# anywhere.
#
#   scripts/gpu-ab.sh [-o DIR] [-B DIR] [-a ARCHS] [-d DIR] [-r ROUNDS] [-b] [-t] [-m]
#                     [-k RE] [-M METRICS] OLD CASE...
#     OLD     the baseline: a source tree, or a tar of one
#             (here: git archive REV > .carry/old.tar)
#     CASE    pscr-gpu-once arguments as one word: "p3 255 --float"
#     -o DIR  outputs (default /tmp/pscr-gpu-ab-out): device.txt, timing-ab.txt
#             (every round's output), timing-summary.txt (per case and build:
#             the range of the rounds' medians), and those of the options
#     -B DIR  build directories DIR/new and DIR/old (default /tmp/pscr-ab)
#     -a ARCHS  CMAKE_CUDA_ARCHITECTURES (default 90)
#     -d DIR  Debian packages of Check to unpack where it is not installed,
#             as for gpu-check.sh (CHECK_DEBS there)
#     -r N    rounds (default 3); each round runs old, then new, every case
#     -b      no builds: reuse those of an earlier run in the -B directory (a
#             device command has a time limit: build and test in one, time in
#             the next)
#     -t      build and run the CUDA suites (test_cuda, test_cuda_paths,
#             test_cuda_batch) on the new tree (<suite>.txt)
#     -m      compute-sanitizer memcheck of the new build, one device solve
#             (pscr-gpu-once --once) of three small cases (sanitizer.txt)
#     -k RE   Nsight Compute: kernels matching the regex RE, one device solve
#             of every case on both builds, summed per kernel by ncu-sum.py
#             (ncu.txt); -M adds metrics to duration and instructions
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=/tmp/pscr-gpu-ab-out ab=/tmp/pscr-ab archs=90 debs="" rounds=3 reuse=0 tests=0
memcheck=0 kernels="" metrics=""
while getopts "o:B:a:d:r:btmk:M:" opt; do
  case $opt in
  o) out=$OPTARG ;;
  B) ab=$OPTARG ;;
  a) archs=$OPTARG ;;
  d) debs=$OPTARG ;;
  r) rounds=$OPTARG ;;
  b) reuse=1 ;;
  t) tests=1 ;;
  m) memcheck=1 ;;
  k) kernels=$OPTARG ;;
  M) metrics=$OPTARG ;;
  *) sed -n '2,32p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { sed -n '2,32p' "$0"; exit 2; }
old_src=$1
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
t0=$(date +%s)
stamp() { echo "$1 at $(($(date +%s) - t0)) s"; }

if [ -n "$debs" ]; then # as scripts/gpu-check.sh
  P=$(mktemp -d)
  for f in "$debs"/*.deb; do dpkg -x "$f" "$P"; done
  sed -i "s#^prefix=.*#prefix=$P/usr#" "$P"/usr/lib/x86_64-linux-gnu/pkgconfig/*.pc
  export PKG_CONFIG_PATH=$P/usr/lib/x86_64-linux-gnu/pkgconfig
  export LD_LIBRARY_PATH=$P/usr/lib/x86_64-linux-gnu
fi

build() { # new and old side by side; prints nothing on success
  rm -rf "$ab" && mkdir -p "$ab/old-src"
  if [ -d "$old_src" ]; then
    cp -a "$old_src/." "$ab/old-src/"
  else
    tar -xf "$old_src" -C "$ab/old-src" || { echo "gpu-ab: cannot read $old_src"; return 1; }
  fi
  local flags=(-DCMAKE_BUILD_TYPE=Release -DPSCR_ENABLE_CUDA=ON
    -DCMAKE_CUDA_ARCHITECTURES="$archs" -DPSCR_BUILD_EXAMPLES=OFF)
  local targets=(pscr pscr-gpu-once) tests_on=OFF jobs
  [ "$tests" = 1 ] && targets+=(test_cuda test_cuda_paths test_cuda_batch) tests_on=ON
  jobs=$(nproc)
  (cmake -S "$root" -B "$ab/new" "${flags[@]}" -DPSCR_WERROR=ON -DPSCR_BUILD_TESTS=$tests_on &&
    cmake --build "$ab/new" -j$((jobs * 2 / 3 + 1)) --target "${targets[@]}") > "$ab/new.log" 2>&1 &
  local new_pid=$!
  (cmake -S "$ab/old-src" -B "$ab/old" "${flags[@]}" -DPSCR_BUILD_TESTS=OFF &&
    cmake --build "$ab/old" -j$((jobs / 3 + 1)) --target pscr pscr-gpu-once) > "$ab/old.log" 2>&1 &
  old_pid=$!
  wait $new_pid || { tail -40 "$ab/new.log"; cp "$ab/new.log" "$out/"; return 1; }
  stamp "new build done"
}
old_pid=""
if [ "$reuse" = 1 ]; then
  for b in new old; do
    [ -x "$ab/$b/bench/pscr-gpu-once" ] || { echo "gpu-ab: -b, but no $b build in $ab"; exit 1; }
  done
else
  build || exit 1
fi
# One device solve for a profiler: --once, or, in a baseline older than
# that option, the environment variable its pscr-gpu-once read instead.
once_new=(--once) once_old=(--once) env_old=()
if ! grep -q -- '"--once"' "$ab/old-src/bench/gpu_once.c" 2>/dev/null; then
  once_old=() env_old=(PSCR_ONCE=1)
fi
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv;
  nvcc --version | tail -2; } > "$out/device.txt" 2>&1

if [ "$tests" = 1 ]; then
  for suite in test_cuda test_cuda_paths test_cuda_batch; do
    [ -x "$ab/new/tests/$suite" ] || { echo "gpu-ab: no $suite in $ab/new (build with -t)"; exit 1; }
    (cd "$ab/new" && timeout 300 "./tests/$suite" > "$out/$suite.txt" 2>&1)
    stamp "$suite rc=$?"
    grep -E "Checks|:F:|:E:" "$out/$suite.txt" | head
  done
fi
once=$ab/new/bench/pscr-gpu-once
if [ "$memcheck" = 1 ]; then
  for c in "p3 31 --float" "h3 17 --nrhs 2" "p3 9"; do
    echo "== memcheck $c"
    # shellcheck disable=SC2086
    timeout 120 compute-sanitizer --tool memcheck "$once" $c "${once_new[@]}" 2>&1 | tail -1
  done > "$out/sanitizer.txt"
  stamp "memcheck done"
  cat "$out/sanitizer.txt"
fi
if [ -n "$old_pid" ]; then
  wait "$old_pid" || { tail -40 "$ab/old.log"; cp "$ab/old.log" "$out/"; exit 1; }
  stamp "old build done"
fi

for r in $(seq 1 "$rounds"); do
  for b in old new; do
    for c in "$@"; do
      echo "== $b round $r :: $c"
      # shellcheck disable=SC2086
      "$ab/$b/bench/pscr-gpu-once" $c 2>&1
    done
  done
done > "$out/timing-ab.txt"
stamp "timings done"
# Per case and build, the range of the rounds' medians (the single-solve
# line; the batch lines of --nrhs are in timing-ab.txt).
awk '/^== (old|new) round [0-9]+ :: / { b = $2; c = $0; sub(/^== [a-z]+ round [0-9]+ :: /, "", c)
       if (!(c in seen)) { seen[c] = 1; order[++n] = c } next }
     match($0, /device solve median [0-9.]+ ms/) {
       split(substr($0, RSTART, RLENGTH), w, " "); v = w[4] + 0; k = c SUBSEP b
       if (!(k in lo) || v < lo[k]) lo[k] = v
       if (!(k in hi) || v > hi[k]) hi[k] = v }
     END { printf "%-28s %-20s %-20s\n", "case", "old ms", "new ms"
           for (i = 1; i <= n; i++) { c = order[i]
             o = (c SUBSEP "old") in lo ? sprintf("%.3f-%.3f", lo[c SUBSEP "old"], hi[c SUBSEP "old"]) : "-"
             nw = (c SUBSEP "new") in lo ? sprintf("%.3f-%.3f", lo[c SUBSEP "new"], hi[c SUBSEP "new"]) : "-"
             printf "%-28s %-20s %-20s\n", c, o, nw } }' "$out/timing-ab.txt" > "$out/timing-summary.txt"
cat "$out/timing-summary.txt"

if [ -n "$kernels" ]; then
  m=gpu__time_duration.sum,sm__inst_executed.sum${metrics:+,$metrics}
  csv=$(mktemp)
  for b in old new; do
    # A baseline older than the profiler range in pscr-gpu-once gets all
    # three solves of its run (probe, host API, device) profiled: divided by 3.
    range=(--profile-from-start off) solves=1 once=("${once_new[@]}") envs=()
    if [ $b = old ]; then
      once=("${once_old[@]}") envs=("${env_old[@]}")
      if ! grep -q cudaProfilerStart "$ab/old-src/bench/gpu_once.c"; then
        range=() solves=3
      fi
    fi
    for c in "$@"; do
      echo "== $b :: $c (per solve, of $solves profiled)"
      # shellcheck disable=SC2086
      env "${envs[@]}" timeout 300 ncu --csv "${range[@]}" -k regex:"$kernels" --metrics "$m" \
        "$ab/$b/bench/pscr-gpu-once" $c "${once[@]}" > "$csv" 2>/dev/null || echo "ncu failed"
      python3 "$here/ncu-sum.py" "$csv" --solves "$solves"
    done
  done > "$out/ncu.txt"
  rm -f "$csv"
  stamp "ncu done"
fi

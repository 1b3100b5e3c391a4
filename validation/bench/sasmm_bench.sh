#!/usr/bin/env bash
# sasmm_bench.sh — `ppt sasmm` on a trace of ~10^8 references: 5 core counts x 2
# interleavings, both hit-rate models. Usage: validation/bench/sasmm_bench.sh [N] [THREADS]
# (matmul N=370 gives 1.01e8 references; THREADS = ppt sasmm --threads, default 2).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${PPT_BIN:-$root/build/bin}
n=${1:-370}
th=${2:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin/ppt-cc" -O2 -fopenmp "$root/apps/examples/matmul.c" -o "$work/mm"
"$bin/ppt" trace -o "$work/mm.trace" -- "$work/mm" "$n" >/dev/null
refs=$("$bin/ppt" info --json "$work/mm.trace" | jq .refs)
for model in sim sdcm; do
  t0=$(date +%s.%N)
  "$bin/ppt" sasmm "$work/mm.trace" --hw "$root/hwspecs/sasmm-cachegrind.json" --cores 1,2,4,8,16 \
    --interleave rr,uniform --model "$model" --threads "$th" > "$work/out.$model.txt"
  t1=$(date +%s.%N)
  secs=$(echo "$t1 - $t0" | bc -l)
  printf 'model %-5s %d refs, 5 core counts x 2 interleavings, %d threads: %.1f s\n' "$model" "$refs" "$th" "$secs"
  cat "$work/out.$model.txt"
  printf '{"model":"%s","refs":%d,"threads":%d,"seconds":%.2f}\n' "$model" "$refs" "$th" "$secs"
done

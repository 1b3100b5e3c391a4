#!/usr/bin/env bash
# sweep_bench.sh — the design-space engine against the tool a user would otherwise run:
# a 30-point sweep (cores 1,2,4,8,16 x L1 8/16 KiB x L2 64/128/256 KiB, SASMM's Cachegrind
# configuration otherwise) as `ppt trace` + `ppt sweep`, against 30 Cachegrind runs of the
# same program built natively (clang -O2 -fopenmp), OMP_NUM_THREADS = the point's cores,
# --D1 and --LL set to the point's L1 and L2. Prints both wall times, their ratio, the time
# per point and the sweep's peak memory. With K > 1, a third side: the same sweep with set
# sampling (--sample-sets K, docs/sweep.md), timed in the same rounds, and its worst
# hit-rate error against the exact sweep.
#
# Usage: validation/bench/sweep_bench.sh [N] [ROUNDS] [K]
#   N: matmul size (apps/examples/matmul.c): 170 gives about 1e7 references, 370 about 1e8
#   ROUNDS: how many times each side runs, in turn (default 3; the medians are printed)
#   K: set sampling for the third side (default 16; 1: no third side)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${PPT_BIN:-$root/build/bin}
n=${1:-170}
rounds=${2:-3}
k=${3:-16}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
spec=$root/hwspecs/sasmm-cachegrind.json
"$bin/ppt-cc" -O2 -fopenmp "$root/apps/examples/matmul.c" -o "$work/mm"
clang -O2 -g -gdwarf-4 -fopenmp "$root/apps/examples/matmul.c" -o "$work/mm.native"

now() { date +%s.%N; }

# ppt_side SAMPLE OUT PEAK: trace, then the sweep with --sample-sets SAMPLE
ppt_side() {
  "$bin/ppt" trace -o "$work/mm.trace" -- "$work/mm" "$n" > /dev/null 2>&1
  /usr/bin/time -f '%M' -o "$3" "$bin/ppt" sweep "$work/mm.trace" --hw "$spec" --cores 1,2,4,8,16 \
    --set L1.size=8K,16K --set L2.size=64K,128K,256K --sample-sets "$1" --json > "$2"
}

cachegrind_side() {
  for cores in 1 2 4 8 16; do
    for l1 in 8192 16384; do
      for l2 in 65536 131072 262144; do
        OMP_NUM_THREADS=$cores valgrind --tool=cachegrind --cache-sim=yes --D1=$l1,8,64 --LL=$l2,16,64 \
          --cachegrind-out-file=/dev/null "$work/mm.native" "$n" > /dev/null 2>&1
      done
    done
  done
}

median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

: > "$work/a"
: > "$work/b"
: > "$work/c"
for ((r = 0; r < rounds; r++)); do
  t0=$(now); ppt_side 1 "$work/sweep.json" "$work/peak"; t1=$(now); cachegrind_side; t2=$(now)
  echo "$t1 - $t0" | bc -l >> "$work/a"
  echo "$t2 - $t1" | bc -l >> "$work/b"
  if [ "$k" -gt 1 ]; then
    t3=$(now); ppt_side "$k" "$work/sampled.json" "$work/peak.s"; t4=$(now)
    echo "$t4 - $t3" | bc -l >> "$work/c"
  fi
done
refs=$("$bin/ppt" info --json "$work/mm.trace" | jq .refs)
a=$(median < "$work/a")
b=$(median < "$work/b")
printf 'matmul N=%s: %s references, 30 points, %s rounds (medians)\n' "$n" "$refs" "$rounds"
printf '  ppt trace + ppt sweep : %8.2f s  (%.3f s per point; sweep peak %s KB)\n' "$a" "$(echo "$a / 30" | bc -l)" \
  "$(cat "$work/peak")"
printf '  30 x Cachegrind       : %8.2f s  (%.3f s per run)\n' "$b" "$(echo "$b / 30" | bc -l)"
printf '  ratio                 : %8.1fx\n' "$(echo "$b / $a" | bc -l)"
if [ "$k" -gt 1 ]; then
  c=$(median < "$work/c")
  worst=$(jq -s '[[.[0].points, .[1].points] | transpose[] | [.[0].levels, .[1].levels] | transpose[]
    | ((.[0].hit_rate - .[1].hit_rate) | fabs) * 100] | max' "$work/sweep.json" "$work/sampled.json")
  printf '  ppt, --sample-sets %-3s: %8.2f s  (%.3f s per point; sweep peak %s KB; worst error %.3f points)\n' \
    "$k" "$c" "$(echo "$c / 30" | bc -l)" "$(cat "$work/peak.s")" "$worst"
  printf '  ratio (sampled)       : %8.1fx\n' "$(echo "$b / $c" | bc -l)"
fi
printf '{"n":%s,"refs":%s,"ppt_s":%.3f,"cachegrind_s":%.3f,"ratio":%.2f}\n' "$n" "$refs" "$a" "$b" \
  "$(echo "$b / $a" | bc -l)"

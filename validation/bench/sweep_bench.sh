#!/usr/bin/env bash
# sweep_bench.sh — the design-space engine against the tool a user would otherwise run:
# a 30-point sweep (cores 1,2,4,8,16 x L1 8/16 KiB x L2 64/128/256 KiB, SASMM's Cachegrind
# configuration otherwise) as `ppt trace` + `ppt sweep`, against 30 Cachegrind runs of the
# same program built natively (clang -O2 -fopenmp), OMP_NUM_THREADS = the point's cores,
# --D1 and --LL set to the point's L1 and L2. Prints both wall times, their ratio, the time
# per point and the sweep's peak memory.
#
# Usage: validation/bench/sweep_bench.sh [N] [ROUNDS]
#   N: matmul size (apps/examples/matmul.c): 170 gives about 1e7 references, 370 about 1e8
#   ROUNDS: how many times both sides run, alternating (default 3; the medians are printed)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${PPT_BIN:-$root/build/bin}
n=${1:-170}
rounds=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
spec=$root/hwspecs/sasmm-cachegrind.json
"$bin/ppt-cc" -O2 -fopenmp "$root/apps/examples/matmul.c" -o "$work/mm"
clang -O2 -g -gdwarf-4 -fopenmp "$root/apps/examples/matmul.c" -o "$work/mm.native"

now() { date +%s.%N; }

ppt_side() {
  "$bin/ppt" trace -o "$work/mm.trace" -- "$work/mm" "$n" > /dev/null 2>&1
  /usr/bin/time -f '%M' -o "$work/peak" "$bin/ppt" sweep "$work/mm.trace" --hw "$spec" --cores 1,2,4,8,16 \
    --set L1.size=8K,16K --set L2.size=64K,128K,256K --json > "$work/sweep.json"
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
for ((r = 0; r < rounds; r++)); do
  t0=$(now); ppt_side; t1=$(now); cachegrind_side; t2=$(now)
  echo "$t1 - $t0" | bc -l >> "$work/a"
  echo "$t2 - $t1" | bc -l >> "$work/b"
done
refs=$("$bin/ppt" info --json "$work/mm.trace" | jq .refs)
a=$(median < "$work/a")
b=$(median < "$work/b")
printf 'matmul N=%s: %s references, 30 points, %s rounds (medians)\n' "$n" "$refs" "$rounds"
printf '  ppt trace + ppt sweep : %8.2f s  (%.3f s per point; sweep peak %s KB)\n' "$a" "$(echo "$a / 30" | bc -l)" \
  "$(cat "$work/peak")"
printf '  30 x Cachegrind       : %8.2f s  (%.3f s per run)\n' "$b" "$(echo "$b / 30" | bc -l)"
printf '  ratio                 : %8.1fx\n' "$(echo "$b / $a" | bc -l)"
printf '{"n":%s,"refs":%s,"ppt_s":%.3f,"cachegrind_s":%.3f,"ratio":%.2f}\n' "$n" "$refs" "$a" "$b" \
  "$(echo "$b / $a" | bc -l)"

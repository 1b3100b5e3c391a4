#!/usr/bin/env bash
# sweep_sampled.sh — the error of set sampling (`ppt sweep --sample-sets K`) against the
# exact sweep on the validation kernels: the benchmark's 30 points (cores 1,2,4,8,16 x L1
# 8/16 KiB x L2 64/128/256 KiB, SASMM's Cachegrind configuration otherwise), every level's
# global hit rate. Prints per kernel and K the worst and mean absolute error in points and
# the sweep's time, and one summary line per K over all kernels.
#
# Usage: validation/bench/sweep_sampled.sh [KERNEL...]   (default: the 17 validation kernels)
# Kernels are built with their list.txt flags at their default (small) sizes.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${PPT_BIN:-$root/build/bin}
spec=$root/hwspecs/sasmm-cachegrind.json
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || mapfile -t kernels < <(awk '$1 !~ /^#/ && NF {print $1}' "$root/validation/kernels/list.txt")
ks=(4 16)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sweep() {
  "$bin/ppt" sweep "$1" --hw "$spec" --cores 1,2,4,8,16 --set L1.size=8K,16K --set L2.size=64K,128K,256K \
    --sample-sets "$2" --json
}
for k in "${kernels[@]}"; do
  line=$(awk -v k="$k" '$1 == k' "$root/validation/kernels/list.txt")
  [ -n "$line" ] || { echo "$k: not in validation/kernels/list.txt" >&2; exit 2; }
  src=$(awk '{print $2}' <<< "$line")
  flags=$(cut -d'|' -f2 <<< "$line")
  # shellcheck disable=SC2086
  "$bin/ppt-cc" -O2 -fopenmp $flags "$root/validation/kernels/$src" -o "$work/$k" -lm 2> /dev/null
  "$bin/ppt" trace -o "$work/$k.trace" -- "$work/$k" > /dev/null 2>&1
  sweep "$work/$k.trace" 1 > "$work/exact.json"
  refs=$("$bin/ppt" info --json "$work/$k.trace" | jq .refs)
  for K in "${ks[@]}"; do
    sweep "$work/$k.trace" "$K" > "$work/s.json"
    jq -r -s --arg k "$k" --arg K "$K" --arg refs "$refs" '
      [[.[0].points, .[1].points] | transpose[] | [.[0].levels, .[1].levels] | transpose[]
        | ((.[0].hit_rate - .[1].hit_rate) | fabs) * 100] as $e
      | "\($k) \($refs) \($K) \($e | max) \($e | add / length) \(.[0].stats.seconds) \(.[1].stats.seconds)"' \
      "$work/exact.json" "$work/s.json" >> "$work/rows"
  done
done
printf '%-12s %11s %4s %9s %9s %8s %8s\n' kernel refs K worst mean exact_s sampled_s
awk '{printf "%-12s %11s %4s %9.3f %9.3f %8.2f %8.2f\n", $1, $2, $3, $4, $5, $6, $7}' "$work/rows"
awk '{w[$3] = $4 > w[$3] ? $4 : w[$3]; m[$3] += $5; n[$3]++; te[$3] += $6; ts[$3] += $7}
     END {for (K in w) printf "K=%s: %d kernels, worst %.3f points, mean of means %.3f points, time %.2f s -> %.2f s\n",
          K, n[K], w[K], m[K] / n[K], te[K], ts[K]}' "$work/rows"

#!/usr/bin/env bash
# sweep_exact.sh — every point of a `ppt sweep` against `ppt sasmm --set ...` run alone at
# that point, on the validation kernels: the accesses and misses of every level must be
# equal (docs/sweep.md, "Exactness"). Prints one line per kernel and exits 1 on any
# difference.
#
# Usage: validation/bench/sweep_exact.sh [KERNEL...]   (default: jacobi spmv rowcol histo)
# Kernels are built with their list.txt flags at their default (small) sizes.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${PPT_BIN:-$root/build/bin}
spec=$root/hwspecs/sasmm-cachegrind.json
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || kernels=(jacobi spmv rowcol histo)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cores=1,2,4
l1s=(8K 32K)
l2s=(64K 256K)
bad=0
for k in "${kernels[@]}"; do
  line=$(awk -v k="$k" '$1 == k' "$root/validation/kernels/list.txt")
  [ -n "$line" ] || { echo "$k: not in validation/kernels/list.txt" >&2; exit 2; }
  src=$(awk '{print $2}' <<< "$line")
  flags=$(cut -d'|' -f2 <<< "$line")
  # shellcheck disable=SC2086
  "$bin/ppt-cc" -O2 -fopenmp $flags "$root/validation/kernels/$src" -o "$work/$k" 2> /dev/null
  "$bin/ppt" trace -o "$work/$k.trace" -- "$work/$k" > /dev/null 2>&1
  "$bin/ppt" sweep "$work/$k.trace" --hw "$spec" --cores "$cores" --set "L1.size=$(IFS=,; echo "${l1s[*]}")" \
    --set "L2.size=$(IFS=,; echo "${l2s[*]}")" --json > "$work/sweep.json"
  n=0
  for l1 in "${l1s[@]}"; do
    for l2 in "${l2s[@]}"; do
      "$bin/ppt" sasmm "$work/$k.trace" --hw "$spec" --cores "$cores" --set "L1.size=$l1" --set "L2.size=$l2" \
        --json > "$work/one.json"
      for c in ${cores//,/ }; do
        want=$(jq -c --argjson c "$c" '.cores[] | select(.n == $c) | [.levels[] | .accesses, .misses]' "$work/one.json")
        got=$(jq -c --argjson c "$c" --arg l1 "$l1" --arg l2 "$l2" \
          '.points[] | select(.n == $c and .set["L1.size"] == ($l1 | sub("K$"; "") | tonumber * 1024)
             and .set["L2.size"] == ($l2 | sub("K$"; "") | tonumber * 1024)) | [.levels[] | .accesses, .misses]' \
          "$work/sweep.json")
        n=$((n + 1))
        if [ "$want" != "$got" ]; then
          echo "$k: L1 $l1, L2 $l2, $c cores: sweep $got, sasmm $want"
          bad=1
        fi
      done
    done
  done
  refs=$("$bin/ppt" info --json "$work/$k.trace" | jq .refs)
  printf '%-12s %10s refs: %d points, sweep %.2f s\n' "$k" "$refs" "$n" "$(jq .stats.seconds "$work/sweep.json")"
done
exit $bad

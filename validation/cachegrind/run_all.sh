#!/usr/bin/env bash
# run_all.sh — builds the validation kernels and collects Cachegrind ground truth for each
# at each thread count.
#
#   validation/cachegrind/run_all.sh OUTROOT [THREADS...]      (default: 1 2 4 8 16)
#
# Environment: CC (default clang), KERNELS (names from validation/kernels/list.txt, default
# all), KFLAGS (extra compile flags, e.g. "-DPAD=8" or "-DN=256").
# Produces OUTROOT/bin/NAME (the binaries), OUTROOT/NAME/tT/ (run.sh's output for T
# threads) and OUTROOT/cachegrind.tsv, one row per run:
#   kernel threads data_refs d1_misses ll_misses l1_hit_rate l2_hit_rate_global
#   l2_local_hit_rate cachegrind_seconds
# It also checks that each kernel prints the same output line at every thread count (the
# kernels are written to be bit-reproducible; see docs/validation.md) and exits 1 if not.
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 OUTROOT [THREADS...]" >&2; exit 2; }
outroot=$1
shift
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(1 2 4 8 16)

here=$(cd "$(dirname "$0")" && pwd)
kdir=$(cd "$here/../kernels" && pwd)
cc=${CC:-clang}
read -r -a kflags <<<"${KFLAGS:-}"
mkdir -p "$outroot/bin"

tsv="$outroot/cachegrind.tsv"
tmp="$tsv.tmp.$$"
trap 'rm -f "$tmp"' EXIT
printf 'kernel\tthreads\tdata_refs\td1_misses\tll_misses\tl1_hit_rate\tl2_hit_rate_global\tl2_local_hit_rate\tcachegrind_seconds\n' >"$tmp"

status=0
# list.txt: "NAME FILE HALF | BUILD FLAGS | RUNTIME SIZES" (docs/validation.md). The
# Cachegrind runs use the default sizes, so only the build flags are taken.
while IFS='|' read -r head eflags _sizes; do
  read -r name file _half <<<"$head"
  [ -n "$name" ] || continue
  if [ -n "${KERNELS:-}" ] && [[ " $KERNELS " != *" $name "* ]]; then continue; fi
  read -r -a entry_flags <<<"$eflags"
  bin="$outroot/bin/$name"
  "$cc" -O2 -fopenmp -Wall -Wextra -Werror -gdwarf-4 "${entry_flags[@]}" "${kflags[@]}" "$kdir/$file" -o "$bin" -lm
  first=""
  for t in "${threads[@]}"; do
    dir="$outroot/$name/t$t"
    mkdir -p "$dir"
    "$here/run.sh" "$bin" "$t" "$dir" 2>"$dir.log" || { cat "$dir.log" >&2; exit 1; }
    # cgsum.awk writes each top-level key on its own line ("  KEY: VALUE,"), so awk can
    # pick the fields without a JSON parser.
    awk -F': ' -v OFS='\t' '
      /^  "[a-z_0-9]+": / { k = $1; gsub(/[ "]/, "", k); v = $2; sub(/,$/, "", v); val[k] = v }
      END { gsub(/"/, "", val["kernel"])
            print val["kernel"], val["threads"], val["data_refs"], val["d1_misses"], val["ll_misses"],
                  val["l1_hit_rate"], val["l2_hit_rate_global"], val["l2_local_hit_rate"],
                  val["cachegrind_seconds"] }' "$dir/summary.json" >>"$tmp"
    out=$(head -n 1 "$dir/stdout.txt")
    if [ -z "$first" ]; then
      first=$out
    elif [ "$out" != "$first" ]; then
      echo "$0: $name prints a different result at $t threads:" >&2
      echo "  $first" >&2
      echo "  $out" >&2
      status=1
    fi
    tail -n 1 "$dir.log" | sed "s/^/$name t=$t: /" >&2
  done
done <"$kdir/list.txt"

mv "$tmp" "$tsv"
trap - EXIT
exit $status

#!/usr/bin/env bash
# trace_bench.sh — tracing cost on the matrix-multiply kernel (issue: foundation).
# Reports, for one sequential run of apps/examples/matmul.c at size N:
#   native time (clang -O2), `ppt trace` time (ppt-cc -O2), Cachegrind time (same native
#   binary, SASMM cache configuration), the two slowdowns, and bytes per reference on disk.
# Each time is the median of REPS runs. Usage: validation/bench/trace_bench.sh [N] [REPS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${PPT_BIN:-$root/build/bin}
n=${1:-400}
reps=${2:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=1

clang -O2 -fopenmp -gdwarf-4 "$root/apps/examples/matmul.c" -o "$work/native"
"$bin/ppt-cc" -O2 -fopenmp "$root/apps/examples/matmul.c" -o "$work/traced"

# median wall seconds of a command run $reps times
median() {
  local ts=()
  for ((i = 0; i < reps; i++)); do
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s.%N)
    ts+=("$(echo "$t1 - $t0" | bc -l)")
  done
  printf '%s\n' "${ts[@]}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

t_native=$(median "$work/native" "$n")
t_trace=$(median "$bin/ppt" trace -o "$work/mm.trace" -- "$work/traced" "$n")
creps=$reps; [ "$creps" -gt 3 ] && creps=3
reps_save=$reps; reps=$creps
t_cg=$(median valgrind --tool=cachegrind --cache-sim=yes --D1=8192,8,64 --LL=131072,16,64 \
  --cachegrind-out-file=/dev/null "$work/native" "$n")
reps=$reps_save
info=$("$bin/ppt" info --json "$work/mm.trace")
refs=$(echo "$info" | sed -n 's/^ *"refs":\([0-9]*\),/\1/p' | head -1)
bytes=$(echo "$info" | sed -n 's/^ *"file_bytes":\([0-9]*\),/\1/p' | head -1)
awk -v n="$n" -v tn="$t_native" -v tt="$t_trace" -v tc="$t_cg" -v r="$refs" -v b="$bytes" 'BEGIN {
  printf "matmul N=%d, 1 thread: %d references, trace %d bytes\n", n, r, b
  printf "  native      %8.3f s\n", tn
  printf "  ppt trace   %8.3f s  (%.1fx native, %.1f M refs/s)\n", tt, tt / tn, r / tt / 1e6
  printf "  cachegrind  %8.3f s  (%.1fx native)\n", tc, tc / tn
  printf "  on disk     %.4f bytes/reference\n", b / r
  printf "{\"n\":%d,\"refs\":%d,\"native_s\":%.4f,\"trace_s\":%.4f,\"cachegrind_s\":%.4f,\"trace_slowdown\":%.2f,\"cachegrind_slowdown\":%.2f,\"bytes_per_ref\":%.5f}\n",
    n, r, tn, tt, tc, tt / tn, tc / tn, b / r
}'

#!/usr/bin/env bash
# run.sh — Cachegrind ground truth for one validation kernel at one thread count.
#
#   validation/cachegrind/run.sh KERNEL_BINARY THREADS OUTDIR [ARGS...]
#
# Runs KERNEL_BINARY ARGS under Cachegrind with the SASMM paper's hierarchy (§4: L1-D 8 KB
# 8-way, L2 128 KB 16-way, 64 B lines; I1 32 KB 8-way, given only so that the host's
# caches never enter the run) and OMP_NUM_THREADS=THREADS, then sums the counts of the kernel functions
# (kernel_* and .omp_outlined.*) with cgsum.awk. Writes into OUTDIR:
#   cachegrind.out  Cachegrind's raw per-line counts (cg_annotate reads it)
#   stdout.txt      the kernel's output (its checksum line)
#   valgrind.log    Valgrind's own messages and whole-program totals
#   summary.json    kernel-only figures; written last and atomically (temp file + rename)
# Exit status: 0 ok, 1 the run or the summary failed, 2 bad usage.
#
# Build the kernel with -gdwarf-4: Valgrind 3.19 rejects clang 14's default DWARF 5 and
# then has no function names to count.
#
# Cachegrind runs the threads one at a time on one simulated hierarchy: for N threads its
# "L1" is a single L1 shared by all of them, not N private ones (see docs/validation.md).
# The OpenMP runtime keeps its defaults (set OMP_WAIT_POLICY etc. in the environment to
# change them): the wait policy changes how Valgrind interleaves the threads, and with it the
# N-thread figures by up to ~16 % of the LL misses (durbin, 16 threads); see the docs.
set -euo pipefail

usage() {
  echo "usage: $0 KERNEL_BINARY THREADS OUTDIR [ARGS...]" >&2
  exit 2
}
[ $# -ge 3 ] || usage
bin=$1 threads=$2 outdir=$3
shift 3
[ -x "$bin" ] || { echo "$0: $bin: not an executable file" >&2; exit 2; }
if ! [[ $threads =~ ^[1-9][0-9]{0,3}$ ]] || [ "$threads" -gt 1024 ]; then
  echo "$0: THREADS must be an integer 1..1024, got '$threads'" >&2
  exit 2
fi
command -v valgrind >/dev/null || { echo "$0: valgrind not found" >&2; exit 1; }

here=$(cd "$(dirname "$0")" && pwd)
kernel=$(basename "$bin")
bindir=$(cd "$(dirname "$bin")" && pwd)
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
rm -f "$outdir/summary.json"
valgrind=$(command -v valgrind)

# The client runs as ./NAME from its own folder with a minimal environment: a fixed PATH and the
# caller's OMP_*/KMP_* settings. The initial stack holds argv and the environment, so
# their sizes shift every stack address, and with it the L1 sets of the stack references:
# blackscholes' D1 misses ranged from 0.66 M to 1.16 M with nothing else changed. A fixed
# environment makes a run depend only on the kernel, its arguments and the OpenMP settings.
client_env=("PATH=/usr/local/bin:/usr/bin:/bin")
while IFS= read -r var; do
  case $var in OMP_NUM_THREADS) ;; OMP_* | KMP_*) client_env+=("$var=${!var}") ;; esac
done < <(compgen -e)
client_env+=("OMP_NUM_THREADS=$threads")

t0=$(date +%s.%N)
if ! (cd "$bindir" && env -i "${client_env[@]}" "$valgrind" --tool=cachegrind --cache-sim=yes \
  --I1=32768,8,64 --D1=8192,8,64 --LL=131072,16,64 \
  --cachegrind-out-file="$outdir/cachegrind.out" --log-file="$outdir/valgrind.log" \
  "./$kernel" "$@" >"$outdir/stdout.txt"); then
  echo "$0: $kernel failed under Cachegrind (see $outdir/valgrind.log)" >&2
  exit 1
fi
t1=$(date +%s.%N)
seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')

tmp="$outdir/.summary.json.$$"
trap 'rm -f "$tmp"' EXIT
# Strings go to awk through the environment: `awk -v` would interpret backslashes in them.
# Arguments are joined with the ASCII unit separator, which cgsum.awk splits on.
if ! CGSUM_KERNEL=$kernel CGSUM_OUTPUT=$(head -n 1 "$outdir/stdout.txt") \
  CGSUM_ARGS=$(IFS=$'\x1f'; printf '%s' "$*") \
  awk -v threads="$threads" -v seconds="$seconds" -f "$here/cgsum.awk" "$outdir/cachegrind.out" >"$tmp"; then
  echo "$0: could not summarise $outdir/cachegrind.out" >&2
  exit 1
fi
mv "$tmp" "$outdir/summary.json"
trap - EXIT

# Say which functions were counted (the brief of issue 4 asks for it to be visible).
awk '/"functions"/ { sub(/^ *"functions": */, ""); sub(/,$/, ""); print "counted: " $0 }' "$outdir/summary.json" >&2
awk '/^  "(data_refs|d1_misses|ll_misses|l1_hit_rate|l2_hit_rate_global|l2_local_hit_rate|cachegrind_seconds)"/ {
  gsub(/[", ]/, ""); printf "%s ", $0 } END { print "" }' "$outdir/summary.json" >&2

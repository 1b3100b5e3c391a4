#!/usr/bin/env bash
# reuse_device_bench.sh — the reuse engine's OpenCL device path (ppt reuse --device opencl,
# HP-RDA's chunked analysis and merge) against the CPU engine on 1 and 2 worker threads
# (issue 53; not a test).
#
# Traces apps/examples/matmul.c (ppt-cc -O2, one thread) at each size N given (default
# 171 and 368: 2 N^3 = 1.0e7 and 1.0e8 references) and reports, from `ppt reuse`'s own
# timer (trace decoding + analysis; the device path includes its kernel build, cached by
# PoCL after the first run, and every host <-> device copy): refs/s of each engine, the
# device's speed relative to one CPU thread, and whether all three profiles are
# identical (cmp of the -o JSON). Each timing is the best of REPS runs (default 3). The
# host's CPU (family/model), the OpenCL device and the load average are printed with the
# results. Ends with one JSON line.
# Usage: validation/bench/reuse_device_bench.sh [REPS] [N...]
#   DEVICE=opencl:K picks the device (default opencl:0); BATCH=refs its --device-batch.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${PPT_BIN:-$root/build/bin}
reps=${1:-3}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(171 368)
dev=${DEVICE:-opencl}
batch=()
[ -z "${BATCH:-}" ] || batch=(--device-batch "$BATCH")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=1
for tool in "$bin/ppt" "$bin/ppt-cc"; do
  [ -x "$tool" ] || { echo "reuse_device_bench: $tool is missing (build the project first)" >&2; exit 2; }
done
"$bin/ppt" reuse --device list > "$work/devices" || { echo "reuse_device_bench: ppt was built without OpenCL" >&2; exit 2; }
grep -q '^opencl:' "$work/devices" || { echo "reuse_device_bench: no OpenCL device" >&2; exit 2; }
cpu=$(awk -F': ' '/^model name/ { m = $2 } /^cpu family/ { f = $2 } /^model\t/ { n = $2 }
  END { printf "%s (family %s, model %s)", m, f, n; exit }' /proc/cpuinfo)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
"$bin/ppt-cc" -O2 -fopenmp "$root/apps/examples/matmul.c" -o "$work/mm"

# best TRACE OUT OPTIONS...: best analysis time over $reps runs; the profile to OUT.
best() {
  local tr=$1 out=$2 b="" e
  shift 2
  for ((i = 0; i < reps; i++)); do
    e=$("$bin/ppt" reuse "$@" -o "$out" --json "$tr" | jq .elapsed_s)
    b=$(echo "$e $b" | awk '{ print ($2 == "" || $1 < $2) ? $1 : $2 }')
  done
  echo "$b"
}

# nproc would follow OMP_NUM_THREADS
ncpu=$(getconf _NPROCESSORS_ONLN)
[ "$dev" != opencl ] || dev=opencl:0
devline=$(grep "^$dev " "$work/devices" | head -1 || true)
echo "host    $cpu, $ncpu CPUs"
echo "device  $devline"
printf '%-6s %12s %14s %14s %14s %9s %10s\n' N refs "cpu 1t M/s" "cpu 2t M/s" "device M/s" "dev/1t" identical
rows=""
for n in "${sizes[@]}"; do
  tr=$work/mm$n.trace
  "$bin/ppt" trace -o "$tr" -- "$work/mm" "$n" >/dev/null 2>&1
  refs=$("$bin/ppt" info --json "$tr" | jq .refs)
  t1=$(best "$tr" "$work/c1.json" --threads 1)
  t2=$(best "$tr" "$work/c2.json" --threads 2)
  td=$(best "$tr" "$work/d.json" --device "$dev" "${batch[@]}")
  same=false
  cmp -s "$work/c1.json" "$work/c2.json" && cmp -s "$work/c1.json" "$work/d.json" && same=true
  row=$(awk -v r="$refs" -v a="$t1" -v b="$t2" -v d="$td" -v n="$n" -v s="$same" 'BEGIN {
    printf "{\"n\":%d,\"refs\":%d,\"cpu_1t_mrefs_s\":%.2f,\"cpu_2t_mrefs_s\":%.2f,\"device_mrefs_s\":%.2f,\"device_vs_1t\":%.3f,\"identical\":%s}",
      n, r, r / a / 1e6, r / b / 1e6, r / d / 1e6, a / d, s }')
  echo "$row" | jq -r '[.n, .refs, .cpu_1t_mrefs_s, .cpu_2t_mrefs_s, .device_mrefs_s, .device_vs_1t, .identical] |
    @tsv' | awk -F'\t' '{ printf "%-6s %12s %14s %14s %14s %8sx %10s\n", $1, $2, $3, $4, $5, $6, $7 }'
  rows+="${rows:+,}$row"
  rm -f "$tr"
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
echo "load average: $load0 (start) -> $load1 (end)"
jq -cn --arg cpu "$cpu" --arg dev "$devline" --arg l0 "$load0" --arg l1 "$load1" \
  --argjson rows "[$rows]" '{bench: "reuse_device", host: $cpu, device: $dev, load: [$l0, $l1], sizes: $rows}'

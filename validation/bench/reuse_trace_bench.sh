#!/usr/bin/env bash
# reuse_trace_bench.sh — the reuse-distance engine on a real trace (issue 3; not a test).
#
# Traces apps/examples/matmul.c (ppt-cc -O2, one thread) at size N (default 400: 1.28e8
# references) and reports, from `ppt reuse`'s own timer (trace decoding + analysis):
#   exact     refs/s on 1 and 2 worker threads (--threads), and whether both agree;
#   sampled   --sample 0.01 (window sampling) refs/s, and the error of its L1 and L2 hit
#             rates against exact, by SDCM (`ppt hitrate`) on hwspecs/sasmm-cachegrind.json,
#             in percentage points, over SEEDS seeds (max |error| and mean error);
#   approx    --approx 0.01 (SHARDS) likewise;
#   backscan  the papers' backward scan (validation/bench/backscan) against the exact
#             engine on a smaller trace (N = NSMALL, default 100): speed, and whether the
#             sampled references' distances are identical.
# Each timing is the best of REPS runs. The machine's load average is printed with the
# results (timings on a shared machine vary with it). Ends with one JSON line.
# Usage: validation/bench/reuse_trace_bench.sh [N] [NSMALL] [REPS] [SEEDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${PPT_BIN:-$root/build/bin}
n=${1:-400}
nsmall=${2:-100}
reps=${3:-3}
seeds=${4:-3}
rate=0.01
hw=$root/hwspecs/sasmm-cachegrind.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=1
for tool in "$bin/ppt" "$bin/ppt-cc" "$bin/backscan"; do
  [ -x "$tool" ] || { echo "reuse_trace_bench: $tool is missing (build the project first)" >&2; exit 2; }
done
load0=$(cut -d' ' -f1-3 /proc/loadavg)

"$bin/ppt-cc" -O2 -fopenmp "$root/apps/examples/matmul.c" -o "$work/mm"
"$bin/ppt" trace -o "$work/big.trace" -- "$work/mm" "$n" >/dev/null 2>&1
"$bin/ppt" trace -o "$work/small.trace" -- "$work/mm" "$nsmall" >/dev/null 2>&1
refs=$("$bin/ppt" info --json "$work/big.trace" | jq .refs)

# best_elapsed OUT OPTIONS...: best analysis time over $reps runs; the profile to OUT.
best_elapsed() {
  local out=$1 best="" e
  shift
  for ((i = 0; i < reps; i++)); do
    e=$("$bin/ppt" reuse "$@" -o "$out" --json "$work/big.trace" | jq .elapsed_s)
    best=$(echo "$e $best" | awk '{ print ($2 == "" || $1 < $2) ? $1 : $2 }')
  done
  echo "$best"
}

# hit LEVEL PROFILE: global SDCM hit rate of a level of $hw.
hit() { "$bin/ppt" hitrate --json --hw "$hw" "$2" | jq ".levels[$1].hit_rate"; }

t1=$(best_elapsed "$work/exact1.json" --threads 1)
t2=$(best_elapsed "$work/exact2.json" --threads 2)
same=false
cmp -s "$work/exact1.json" "$work/exact2.json" && same=true
l1=$(hit 0 "$work/exact1.json")
l2=$(hit 1 "$work/exact1.json")

# estimate MODE: best time over all seeds' runs; hit-rate errors per seed, in points.
estimate() {
  local mode=$1 best="" e errs=""
  for ((s = 1; s <= seeds; s++)); do
    e=$(best_elapsed "$work/$mode$s.json" "--$mode" "$rate" --seed "$s")
    best=$(echo "$e $best" | awk '{ print ($2 == "" || $1 < $2) ? $1 : $2 }')
    errs="$errs $(hit 0 "$work/$mode$s.json") $(hit 1 "$work/$mode$s.json")"
  done
  # best, then max |err| and mean err for L1 and L2
  echo "$best $errs" | awk -v l1="$l1" -v l2="$l2" '{
    m1 = m2 = s1 = s2 = 0; k = 0
    for (i = 2; i < NF; i += 2) {
      e1 = 100 * ($i - l1); e2 = 100 * ($(i + 1) - l2); k++
      s1 += e1; s2 += e2
      if (e1 < 0 ? -e1 > m1 : e1 > m1) m1 = e1 < 0 ? -e1 : e1
      if (e2 < 0 ? -e2 > m2 : e2 > m2) m2 = e2 < 0 ? -e2 : e2
    }
    printf "%s %.4f %.4f %.4f %.4f\n", $1, m1, s1 / k, m2, s2 / k }'
}
read -r ts es1 em1 es2 em2 <<<"$(estimate sample)"
read -r ta ea1 am1 ea2 am2 <<<"$(estimate approx)"

bs=$("$bin/backscan" "$work/small.trace" --rate "$rate" --reps "$reps" | tail -1)
load1=$(cut -d' ' -f1-3 /proc/loadavg)

awk -v n="$n" -v r="$refs" -v t1="$t1" -v t2="$t2" -v same="$same" -v l1="$l1" -v l2="$l2" \
    -v ts="$ts" -v es1="$es1" -v em1="$em1" -v es2="$es2" -v em2="$em2" \
    -v ta="$ta" -v ea1="$ea1" -v am1="$am1" -v ea2="$ea2" -v am2="$am2" -v seeds="$seeds" \
    -v rate="$rate" -v load0="$load0" -v load1="$load1" -v cpus="$(getconf _NPROCESSORS_ONLN)" 'BEGIN {
  printf "matmul N=%d (ppt-cc -O2), thread 0: %d references; %d CPUs, load average %s -> %s\n", n, r, cpus, load0, load1
  printf "  exact   1 thread : %8.3f s  %7.2f M refs/s   L1 %.4f  L2 %.4f (SDCM, sasmm-cachegrind)\n", t1, r / t1 / 1e6, l1, l2
  printf "  exact   2 threads: %8.3f s  %7.2f M refs/s   %.2fx  identical: %s\n", t2, r / t2 / 1e6, t1 / t2, same
  printf "  sampled %g     : %8.3f s  %7.2f M refs/s   %.1fx exact; hit-rate error over %d seeds, points: L1 max %.3f mean %+.3f, L2 max %.3f mean %+.3f\n", rate, ts, r / ts / 1e6, t1 / ts, seeds, es1, em1, es2, em2
  printf "  approx  %g     : %8.3f s  %7.2f M refs/s   %.1fx exact; hit-rate error over %d seeds, points: L1 max %.3f mean %+.3f, L2 max %.3f mean %+.3f\n", rate, ta, r / ta / 1e6, t1 / ta, seeds, ea1, am1, ea2, am2
}'
echo "$bs" | jq -r '"  backscan on N='"$nsmall"' (\(.refs) refs, \(.sampled) sampled): \(.backscan_s * 1000 | round) ms = \(.backscan_mrefs_s * 100 | round / 100) M refs/s; exact engine \(.exact_mrefs_s * 100 | round / 100) M refs/s = \(.exact_vs_backscan * 10 | round / 10)x; sampled engine \(.sampled_vs_backscan * 10 | round / 10)x; distances identical: \(.identical)"'
jq -cn --argjson n "$n" --argjson refs "$refs" --argjson t1 "$t1" --argjson t2 "$t2" --argjson same "$same" \
  --argjson l1 "$l1" --argjson l2 "$l2" --argjson ts "$ts" --argjson es1 "$es1" --argjson em1 "$em1" \
  --argjson es2 "$es2" --argjson em2 "$em2" --argjson ta "$ta" --argjson ea1 "$ea1" --argjson am1 "$am1" \
  --argjson ea2 "$ea2" --argjson am2 "$am2" --argjson rate "$rate" --argjson seeds "$seeds" \
  --argjson bs "$bs" --arg load0 "$load0" --arg load1 "$load1" '{
  bench: "reuse_trace", n: $n, refs: $refs, load_before: $load0, load_after: $load1,
  exact_1t_s: $t1, exact_1t_mrefs_s: ($refs / $t1 / 1e6), exact_2t_s: $t2,
  exact_2t_mrefs_s: ($refs / $t2 / 1e6), speedup_2t: ($t1 / $t2), identical_2t: $same,
  l1_hit_exact: $l1, l2_hit_exact: $l2, rate: $rate, seeds: $seeds,
  sampled_s: $ts, sampled_mrefs_s: ($refs / $ts / 1e6), sampled_speedup: ($t1 / $ts),
  sampled_l1_err_max_pts: $es1, sampled_l1_err_mean_pts: $em1,
  sampled_l2_err_max_pts: $es2, sampled_l2_err_mean_pts: $em2,
  approx_s: $ta, approx_mrefs_s: ($refs / $ta / 1e6), approx_speedup: ($t1 / $ta),
  approx_l1_err_max_pts: $ea1, approx_l1_err_mean_pts: $am1,
  approx_l2_err_max_pts: $ea2, approx_l2_err_mean_pts: $am2,
  backscan: $bs}'

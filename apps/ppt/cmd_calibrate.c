/* cmd_calibrate.c — `ppt calibrate`: measure this machine and write it as a hwspec
 * (docs/calibrate.md): parse_args -> run -> write_outputs. */
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calibrate_spread.h"
#include "cli.h"
#include "ppt/calib.h"
#include "ppt/io.h"

static void help(void) {
  printf(
      "usage: ppt calibrate [-o FILE] [--quick] [--json] [--seed S] [--name NAME] [--repeat N]\n"
      "                     [--best] [--geometry auto|cpuid|sysfs|sweep]\n"
      "       ppt calibrate --combine [-o FILE] [--json] SPEC...\n\n"
      "Measures this machine and describes it as a hwspec (docs/hwspec.md): cache geometry\n"
      "from CPUID (Intel leaf 4, AMD Fn8000_001D or its older leaves), else Linux sysfs,\n"
      "and levels neither sizes measured by a pointer-chase sweep (each level's citation\n"
      "names its source); cores and SMT from sysfs, else CPUID; clock from a timed\n"
      "dependent-add chain; load-to-use latency per\n"
      "level and DRAM by pointer chasing a random cyclic permutation; read bandwidth per\n"
      "level and DRAM by streaming sums (DRAM over 512 MiB or more, with every core, and\n"
      "again with one core alone); what a line written back to DRAM costs (a triad\n"
      "a = b + 3c from DRAM, by one core and by every core, against those streams; the\n"
      "socket's DRAM figure is the triad's traffic where that moves more than the read\n"
      "stream); misses in flight, for random lines (huge pages: walks are the tlb's) and\n"
      "for a column walk whose lines all\n"
      "fall in one L1 set (mlp, mlp_same_set); the cost of a cache-to-cache transfer (two\n"
      "threads on two cores hand one line back and forth); whether a cache the sources call\n"
      "shared is shared in practice (two CPUs of it chase sets that together overflow one\n"
      "instance: a guest's CPUs may sit on separate L3s); what false sharing costs a loop\n"
      "(contention_factor: iterations of a few integer ops, each storing into its thread's\n"
      "own word of one cache line, on those two cores together against one core alone);\n"
      "throughput and latency of each op class; the cost of a mispredicted branch (a loop\n"
      "branching on random bytes against the same bytes sorted); the data TLB (levels\n"
      "from CPUID, a miss's cost by chasing one line per 4 KiB page against the same lines\n"
      "on huge pages, page walks in flight from loads of those lines whose addresses do\n"
      "not depend on each other); the FP ops a core holds\n"
      "waiting to issue (fp_window: independent elements, each a long chain of dependent\n"
      "fmul/fadd, overlap only as far as that window reaches); each core's speed over a\n"
      "mix of op kernels, alone (core_speed) and with 2, 4, ... and all cores running it at\n"
      "once (busy_speed: the slowest one's); the cost of an empty OpenMP\n"
      "parallel region on all CPUs and on one thread, timed by ppt-ompcost (installed next\n"
      "to ppt; $PPT_OMPCOST overrides), a process without SimGrid, whose presence slows\n"
      "OpenMP regions. Prints the measured table. Each figure is the median of many short\n"
      "trials: the machine as it usually runs, which is what the runtimes ppt predicts are\n"
      "compared with; on a shared host (a cloud VM) that can be 15-20 %% slower than its\n"
      "best. Run it on an otherwise idle machine. On a terminal, stderr shows the stage\n"
      "being measured; a stage still running after 60 s is named on stderr, every 60 s (on\n"
      "a virtual machine a probe waits as long as the host keeps one of its CPUs away).\n\n"
      "  -o, --output FILE  write the hwspec to FILE (atomically; '-' for stdout)\n"
      "  --quick            fewer trials (about 1-2 s; for tests, noisier figures)\n"
      "  --json             print the measurements and the spec as JSON instead of the table\n"
      "  --seed S           seed of the pointer-chase permutations (default 1)\n"
      "  --name NAME        the spec's name (default 'host')\n"
      "  --repeat N         calibrate N times (seeds S..S+N-1) and keep each figure's median,\n"
      "                     taken whole from the run that gave it with its citation (default 1;\n"
      "                     an odd N such as 5 steadies the figures of a shared, noisy host)\n"
      "  --best             keep each figure's fastest trial instead (the machine at its best)\n"
      "  --geometry SRC     where the cache geometry comes from: auto (default: CPUID, else\n"
      "                     sysfs, then a sweep for the rest), cpuid, sysfs, or sweep (measure\n"
      "                     every level); a source that says nothing falls back to the sweep\n"
      "  --combine SPEC...  measure nothing: write the per-figure medians of specs calibrated\n"
      "                     earlier, as --repeat does with its runs (e.g. runs spread over the\n"
      "                     time a validation takes; validation/run runtime does that)\n"
      "  -h, --help\n");
}

static const char *const level_fmt = "%-5s %8s %5s %5s %7s %9.3g %8.3g %10.4g %8.3g %4u%s\n";

static void size_str(uint64_t b, char *buf, size_t n) {
  if (b >= (UINT64_C(1) << 20) && b % (UINT64_C(1) << 20) == 0)
    snprintf(buf, n, "%" PRIu64 "M", b >> 20);
  else if (b >= 1024 && b % 1024 == 0)
    snprintf(buf, n, "%" PRIu64 "K", b >> 10);
  else
    snprintf(buf, n, "%" PRIu64, b);
}

static void print_table(FILE *f, const ppt_calib_result *r) {
  const ppt_hwspec *hw = &r->hw;
  uint32_t n = hw->nlevels;
  fprintf(f, "%s: %u cores (%u online CPUs, %u per core), clock %.3g GHz (%s; cpu MHz %.0f)\n", hw->name,
          hw->cores, r->online_cpus, r->smt, hw->clock_hz / 1e9,
          r->clock_method == PPT_CALIB_CLOCK_CHAIN ? "add chain" : "/proc/cpuinfo",
          r->clock_cpuinfo_hz / 1e6);
  fprintf(f, "cores from %s\n", r->topology_source);
  for (uint32_t k = 0; k < r->caches.nlevels; k++)
    fprintf(f, "%s from %s%s\n", hw->levels[k].name, r->caches.levels[k].where,
            r->caches.levels[k].assoc_assumed ? " (ways assumed)" : "");
  fprintf(f, "\n%-5s %8s %5s %5s %7s %9s %8s %10s %8s %4s\n", "level", "size", "ways", "line", "shared",
          "lat ns", "lat cyc", "bw GB/s", "B/cyc", "thr");
  for (uint32_t k = 0; k < n; k++) {
    const ppt_hw_level *lv = &hw->levels[k];
    char sz[16], ways[16], line[16], sh[16];
    size_str(lv->size, sz, sizeof sz);
    snprintf(ways, sizeof ways, "%u", lv->assoc);
    snprintf(line, sizeof line, "%u", lv->line);
    snprintf(sh, sizeof sh, "%u", lv->shared_by);
    char extra[96] = "";
    if (r->near[k])
      snprintf(extra, sizeof extra, "  (at %" PRIu64 " KiB; %.3g ns at half the level)",
               r->lat_near_bytes[k] >> 10, r->lat_ns[k]);
    fprintf(f, level_fmt, lv->name, sz, ways, line, sh, r->near[k] ? r->lat_near_ns[k] : r->lat_ns[k],
            lv->latency_cycles, r->bw_bytes_per_s[k] / 1e9, lv->bw_bytes_per_cycle, r->bw_threads[k], extra);
  }
  /* DRAM: the chase's set and latency; the spec's socket figure (the read stream, or the
   * triad's traffic where more), with the stream's set. */
  char sz[16], szs[16], dext[160];
  size_str(r->lat_bytes[n], sz, sizeof sz);
  size_str(r->bw_bytes[n], szs, sizeof szs);
  int from_triad;
  double sock = ppt_calib_socket_bw(r, &from_triad);
  if (from_triad)
    snprintf(dext, sizeof dext, "  (streams %s: the triad's traffic; the read stream %.4g GB/s)", szs,
             r->bw_bytes_per_s[n] / 1e9);
  else
    snprintf(dext, sizeof dext, "  (streams %s)", szs);
  fprintf(f, level_fmt, "DRAM", sz, "", "", "", r->lat_ns[n], r->lat_ns[n] * hw->clock_hz * 1e-9, sock / 1e9,
          sock / hw->clock_hz, r->bw_threads[n], dext);
  /* One core streaming DRAM alone (dram.core_bandwidth_gbs): bandwidth columns only. */
  size_str(r->dram_core_bytes, sz, sizeof sz);
  fprintf(f, "%-5s %8s %5s %5s %7s %9s %8s %10.4g %8.3g %4u%s\n", "DRAM", sz, "", "", "", "", "",
          r->dram_core_bytes_per_s / 1e9, r->dram_core_bytes_per_s / hw->clock_hz, 1u, "  (one core alone)");
  /* The triads and the write-back costs they imply (not in the spec: docs/hwspec.md). */
  double wb1 = ppt_calib_writeback_cost(r->dram_core_bytes_per_s, r->dram_core_triad_bytes_per_s),
         wbn = ppt_calib_writeback_cost(r->bw_bytes_per_s[n], r->dram_triad_bytes_per_s);
  if (wb1 >= 0 && wbn >= 0)
    fprintf(f,
            "DRAM triad a = b + 3c: %.4g GB/s of a by one core, %.4g by %u; to apply the write-back costs: "
            "--set dram.core_writeback_cost=%.3g --set dram.writeback_cost=%.3g (line fills)\n",
            r->dram_core_triad_bytes_per_s / 1e9, r->dram_triad_bytes_per_s / 1e9, r->bw_threads[n], wb1,
            wbn);
  fprintf(f, "\n%-7s %10s %10s %10s %10s\n", "op", "per cycle", "latency", "ns/op", "lat ns");
  for (int k = 0; k < PPT_HW_NOPCLASS; k++)
    fprintf(f, "%-7s %10.3g %10.3g %10.3g %10.3g\n", ppt_hwspec_opclass_name(k), hw->ops[k].per_cycle,
            hw->ops[k].latency, r->op_ns[k], r->op_lat_ns[k]);
  /* The scalar figures: ns as measured, cycles as in the spec (0: not measured). */
  fprintf(f, "\n%-18s %10s %10s\n", "figure", "ns", "cycles");
  fprintf(f, "%-18s %10.3g %10.3g\n", "call", r->call_ns, hw->call_cycles);
  const char *fj_how = r->fork_join_probe ? "by ppt-ompcost" : "in this process: ppt-ompcost failed";
  fprintf(f, "%-18s %10.3g %10.3g  (%u threads, %s)\n", "fork_join", r->fork_join_ns, hw->fork_join_cycles,
          r->fork_join_threads, fj_how);
  fprintf(f, "%-18s %10.3g %10.3g  (1 thread, %s)\n", "fork_join_serial", r->fork_join_serial_ns,
          hw->fork_join_serial_cycles, fj_how);
  fprintf(f, "%-18s %10.3g %10.3g  (branch on random bytes %.3g ns, sorted %.3g ns)\n", "branch_miss",
          r->branch_miss_ns, hw->branch_miss_cycles, r->branch_random_ns, r->branch_sorted_ns);
  fprintf(f, "%-18s %10.3g %10.3g  (a trip of *p += i, %.3g ns, less one add)\n", "store_forward",
          r->forward_ns - hw->ops[PPT_HW_IALU].latency / hw->clock_hz * 1e9, hw->store_forward_cycles,
          r->forward_ns);
  fprintf(f, "%-18s %10.3g %10.3g  (a trip of *p += 1.0, %.3g ns, less one FP add)\n", "store_forward_fp",
          r->forward_fp_ns - hw->ops[PPT_HW_FADD].latency / hw->clock_hz * 1e9, hw->store_forward_fp_cycles,
          r->forward_fp_ns);
  fprintf(f, "%-18s %10.3g %10.3g  (per transfer: half a round trip of %.3g ns, CPUs %d and %d)\n",
          "coherence", 0.5 * r->c2c_round_trip_ns, hw->coherence_cycles, r->c2c_round_trip_ns, r->c2c_cpus[0],
          r->c2c_cpus[1]);
  fprintf(f, "mlp %.3g misses in flight\n", hw->mlp);
  /* Each depth's cycles per chain at the clock the spec was computed with (not the spec's
   * 3-digit clock_ghz), so they are the citation's figures. */
  double clk = r->clock_method == PPT_CALIB_CLOCK_CHAIN ? r->clock_chain_hz : r->clock_cpuinfo_hz;
  fprintf(
      f,
      "fp_window %.3g FP ops waiting to issue  (chains of D (fmul, fadd) pairs, D = %u/%u/%u: %.3g/%.3g/%.3g "
      "cycles per chain)\n",
      hw->fp_window, r->fpwin_depth[0], r->fpwin_depth[1], r->fpwin_depth[2], r->fpwin_ns[0] * clk * 1e-9,
      r->fpwin_ns[1] * clk * 1e-9, r->fpwin_ns[2] * clk * 1e-9);
  fprintf(
      f,
      "contention_factor %.3g  (false sharing: %.3g ns per iteration on CPU %d alone, %.3g on CPUs %d and %d "
      "together; the median of five loops, %d rounds of hashing; 1-5 rounds: %.3g %.3g %.3g %.3g %.3g)\n",
      hw->contention_factor, r->contend_one_ns, r->c2c_cpus[0], r->contend_two_ns, r->c2c_cpus[0],
      r->c2c_cpus[1], r->contend_rounds, r->contend_factors[0], r->contend_factors[1], r->contend_factors[2],
      r->contend_factors[3], r->contend_factors[4]);
  if (r->same_set_load_ns > 0)
    fprintf(f,
            "mlp_same_set load %.3g, store %.3g  (column walk, %u x %u rows of %" PRIu64
            " B, one %s set: %.3g ns per line loaded, %.3g stored%s)\n",
            hw->mlp_same_set_load, hw->mlp_same_set_store, r->same_set_bufs, r->same_set_rows,
            r->same_set_row_bytes, hw->levels[0].name, r->same_set_load_ns, r->same_set_store_ns,
            r->same_set_capped ? "; capped at mlp" : "");
  for (uint32_t j = 0; j < hw->ntlb; j++)
    fprintf(f, "%s %u entries, %u ways, miss %.3g cycles (%.3g ns over %" PRIu64 " pages)\n", hw->tlb[j].name,
            hw->tlb[j].entries, hw->tlb[j].assoc, hw->tlb[j].miss_cycles, r->tlb_miss_ns[j], r->tlb_pages[j]);
  if (r->busy_nc) {
    fprintf(f, "busy cores");
    for (uint32_t j = 0; j < r->busy_nc; j++) fprintf(f, "  %u: %.3g", r->busy_counts[j], r->busy_at[j]);
    fprintf(f, "  (the slowest core's compute speed with that many computing at once)\n");
  }
  if (r->tlb_in_flight > 0)
    fprintf(f, "page walks %.3g in flight  (per walk: %.3g ns chased, %.3g ns for independent loads)\n",
            r->tlb_in_flight, r->tlb_walk_chase_ns, r->tlb_walk_load_ns);
  if (hw->notes[0]) fprintf(f, "\nnotes: %s\n", hw->notes);
  fprintf(f, "(%.1f s)\n", r->seconds);
}

/* Where the geometry came from: per level its source as read, the topology's, and the
 * chase sweep's points when one ran. */
static json_object *geometry_json(const ppt_calib_result *r) {
  static const char *const src[] = {"cpuid", "cpuid-legacy", "sysfs", "sweep"};
  json_object *g = json_object_new_object();
  json_object_object_add(g, "topology_source", json_object_new_string(r->topology_source));
  json_object_object_add(g, "package_cpus", json_object_new_int64(r->package_cpus));
  json_object *a = json_object_new_array();
  for (uint32_t k = 0; k < r->caches.nlevels; k++) {
    const ppt_calib_cache *c = &r->caches.levels[k];
    json_object *e = json_object_new_object();
    json_object_object_add(e, "level", json_object_new_int64(c->level));
    json_object_object_add(e, "source",
                           json_object_new_string(c->source >= 0 && c->source < 4 ? src[c->source] : "?"));
    json_object_object_add(e, "where", json_object_new_string(c->where));
    json_object_object_add(e, "size", json_object_new_int64((int64_t)c->size));
    json_object_object_add(e, "ways", json_object_new_int64(c->assoc));
    json_object_object_add(e, "ways_assumed", json_object_new_boolean(c->assoc_assumed));
    json_object_object_add(e, "line", json_object_new_int64(c->line));
    json_object_object_add(e, "shared_cpus", json_object_new_int64(c->shared_cpus));
    json_object_object_add(e, "shared_cpu_list", json_object_new_string(c->shared_cpu_list));
    json_object_array_add(a, e);
  }
  json_object_object_add(g, "levels", a);
  if (r->discover_n) {
    json_object *p = json_object_new_array();
    for (uint32_t i = 0; i < r->discover_n; i++) {
      json_object *e = json_object_new_object();
      json_object_object_add(e, "bytes", json_object_new_int64((int64_t)r->discover_bytes[i]));
      json_object_object_add(e, "latency_ns", json_object_new_double(r->discover_ns[i]));
      json_object_array_add(p, e);
    }
    json_object_object_add(g, "sweep", p);
  }
  return g;
}

/* The two CPUs of the two-core probes (coherence, contention), as a JSON array. */
static json_object *cpu_pair(const int cpus[2]) {
  json_object *a = json_object_new_array();
  for (int i = 0; i < 2; i++) json_object_array_add(a, json_object_new_int64(cpus[i]));
  return a;
}

/* measured_json's entry for level k (k == nlevels: DRAM). */
static json_object *level_json(const ppt_calib_result *r, uint32_t k) {
  uint32_t n = r->hw.nlevels;
  json_object *e = json_object_new_object();
  json_object_object_add(e, "name", json_object_new_string(k < n ? r->hw.levels[k].name : "DRAM"));
  json_object_object_add(e, "latency_bytes", json_object_new_int64((int64_t)r->lat_bytes[k]));
  json_object_object_add(e, "latency_ns", json_object_new_double(r->lat_ns[k]));
  if (k < n && r->lat_near_bytes[k]) {
    json_object_object_add(e, "near_bytes", json_object_new_int64((int64_t)r->lat_near_bytes[k]));
    json_object_object_add(e, "near_latency_ns", json_object_new_double(r->lat_near_ns[k]));
    json_object_object_add(e, "near_used", json_object_new_boolean(r->near[k]));
  }
  if (k < n && r->ret_n[k]) {
    /* One core's cyclic sweeps: what a stream keeps of the level (the retention stage). */
    json_object *sw = json_object_new_array();
    for (uint32_t i = 0; i < r->ret_n[k]; i++) {
      json_object *p = json_object_new_object();
      json_object_object_add(p, "bytes", json_object_new_int64((int64_t)r->ret_bytes[k][i]));
      json_object_object_add(p, "bytes_per_s", json_object_new_double(r->ret_bw[k][i]));
      json_object_object_add(p, "share", json_object_new_double(r->ret_share[k][i]));
      json_object_array_add(sw, p);
    }
    json_object_object_add(e, "stream_sweeps", sw);
    json_object_object_add(e, "stream_capacity_bytes", json_object_new_int64((int64_t)r->ret_capacity[k]));
  }
  if (k < n && r->share_evicted[k] >= 0) {
    /* Two CPUs of the instance chasing at once (calib_share.c). */
    json_object *sh = json_object_new_object();
    json_object *c = json_object_new_array();
    json_object_array_add(c, json_object_new_int64(r->share_cpus[k][0]));
    json_object_array_add(c, json_object_new_int64(r->share_cpus[k][1]));
    json_object_object_add(sh, "cpus", c);
    json_object_object_add(sh, "bytes", json_object_new_int64((int64_t)r->share_bytes[k]));
    json_object_object_add(sh, "alone_ns", json_object_new_double(r->share_alone_ns[k]));
    json_object_object_add(sh, "together_ns", json_object_new_double(r->share_together_ns[k]));
    json_object_object_add(sh, "evicted", json_object_new_double(r->share_evicted[k]));
    json_object_object_add(sh, "private", json_object_new_boolean(r->share_private[k]));
    json_object_object_add(e, "sharing", sh);
  }
  json_object_object_add(e, "bandwidth_bytes", json_object_new_int64((int64_t)r->bw_bytes[k]));
  json_object_object_add(e, "bandwidth_threads", json_object_new_int64(r->bw_threads[k]));
  json_object_object_add(e, "bandwidth_bytes_per_s", json_object_new_double(r->bw_bytes_per_s[k]));
  if (k == n) {
    json_object_object_add(e, "core_bandwidth_bytes", json_object_new_int64((int64_t)r->dram_core_bytes));
    json_object_object_add(e, "core_bandwidth_cpu", json_object_new_int64(r->dram_core_cpu));
    json_object_object_add(e, "core_bandwidth_bytes_per_s", json_object_new_double(r->dram_core_bytes_per_s));
    json_object_object_add(e, "core_triad_bytes_per_s",
                           json_object_new_double(r->dram_core_triad_bytes_per_s));
    json_object_object_add(e, "triad_bytes_per_s", json_object_new_double(r->dram_triad_bytes_per_s));
    json_object_object_add(e, "core_writeback_cost",
                           json_object_new_double(ppt_calib_writeback_cost(r->dram_core_bytes_per_s,
                                                                           r->dram_core_triad_bytes_per_s)));
    json_object_object_add(
        e, "writeback_cost",
        json_object_new_double(ppt_calib_writeback_cost(r->bw_bytes_per_s[k], r->dram_triad_bytes_per_s)));
  }
  return e;
}

static json_object *measured_json(const ppt_calib_result *r) {
  json_object *m = json_object_new_object();
  uint32_t n = r->hw.nlevels;
  json_object_object_add(m, "online_cpus", json_object_new_int64(r->online_cpus));
  json_object_object_add(m, "threads_per_core", json_object_new_int64(r->smt));
  json_object_object_add(
      m, "clock_method",
      json_object_new_string(r->clock_method == PPT_CALIB_CLOCK_CHAIN ? "add-chain" : "cpuinfo"));
  json_object_object_add(m, "clock_chain_hz", json_object_new_double(r->clock_chain_hz));
  json_object_object_add(m, "home_cpu", json_object_new_int64(r->home_cpu));
  json_object_object_add(m, "clock_cpuinfo_hz", json_object_new_double(r->clock_cpuinfo_hz));
  json_object_object_add(m, "huge_pages", json_object_new_boolean(r->huge_pages));
  json_object_object_add(m, "optimised", json_object_new_boolean(r->optimised));
  json_object_object_add(m, "seconds", json_object_new_double(r->seconds));
  json_object *lv = json_object_new_array();
  for (uint32_t k = 0; k <= n; k++) json_object_array_add(lv, level_json(r, k));
  json_object_object_add(m, "levels", lv);
  json_object_object_add(m, "geometry", geometry_json(r));
  json_object *ops = json_object_new_object();
  for (int k = 0; k < PPT_HW_NOPCLASS; k++) {
    json_object *e = json_object_new_object();
    json_object_object_add(e, "ns_per_op", json_object_new_double(r->op_ns[k]));
    json_object_object_add(e, "latency_ns", json_object_new_double(r->op_lat_ns[k]));
    json_object_object_add(ops, ppt_hwspec_opclass_name(k), e);
  }
  json_object_object_add(m, "ops", ops);
  json_object_object_add(m, "mlp", json_object_new_double(r->mlp));
  if (r->same_set_load_ns > 0) {
    json_object *ss = json_object_new_object();
    json_object_object_add(ss, "row_bytes", json_object_new_int64((int64_t)r->same_set_row_bytes));
    json_object_object_add(ss, "rows", json_object_new_int64(r->same_set_rows));
    json_object_object_add(ss, "matrices", json_object_new_int64(r->same_set_bufs));
    json_object_object_add(ss, "load_ns_per_line", json_object_new_double(r->same_set_load_ns));
    json_object_object_add(ss, "store_ns_per_line", json_object_new_double(r->same_set_store_ns));
    json_object_object_add(ss, "capped_at_mlp", json_object_new_boolean(r->same_set_capped));
    json_object_object_add(m, "same_set", ss);
  }
  json_object_object_add(m, "call_ns", json_object_new_double(r->call_ns));
  if (r->c2c_round_trip_ns > 0) {
    json_object *c = json_object_new_object();
    json_object_object_add(c, "cpus", cpu_pair(r->c2c_cpus));
    json_object_object_add(c, "round_trip_ns", json_object_new_double(r->c2c_round_trip_ns));
    json_object_object_add(c, "transfer_ns", json_object_new_double(0.5 * r->c2c_round_trip_ns));
    json_object_object_add(m, "coherence", c);
  }
  if (r->contend_one_ns > 0) {
    json_object *c = json_object_new_object();
    json_object_object_add(c, "cpus", cpu_pair(r->c2c_cpus));
    json_object_object_add(c, "one_core_ns_per_iteration", json_object_new_double(r->contend_one_ns));
    json_object_object_add(c, "two_cores_ns_per_iteration", json_object_new_double(r->contend_two_ns));
    json_object_object_add(c, "hash_rounds", json_object_new_int(r->contend_rounds));
    json_object *fs = json_object_new_array();
    for (int k = 0; k < PPT_CALIB_CONTEND_SHAPES; k++)
      json_object_array_add(fs, json_object_new_double(r->contend_factors[k]));
    json_object_object_add(c, "factors_by_rounds", fs);
    json_object_object_add(m, "contention", c);
  }
  json_object_object_add(m, "fork_join_ns", json_object_new_double(r->fork_join_ns));
  json_object_object_add(m, "fork_join_serial_ns", json_object_new_double(r->fork_join_serial_ns));
  json_object_object_add(m, "fork_join_threads", json_object_new_int64(r->fork_join_threads));
  json_object_object_add(m, "fork_join_timed_by",
                         json_object_new_string(r->fork_join_probe ? "ppt-ompcost" : "in-process"));
  if (!r->fork_join_probe)
    json_object_object_add(m, "fork_join_probe_error", json_object_new_string(r->fork_join_note));
  json_object *br = json_object_new_object();
  json_object_object_add(br, "random_ns_per_branch", json_object_new_double(r->branch_random_ns));
  json_object_object_add(br, "sorted_ns_per_branch", json_object_new_double(r->branch_sorted_ns));
  json_object_object_add(br, "ns_per_mispredict", json_object_new_double(r->branch_miss_ns));
  json_object_object_add(m, "branch_miss", br);
  if (r->busy_nc) {
    json_object *b = json_object_new_array();
    for (uint32_t j = 0; j < r->busy_nc; j++) {
      json_object *e = json_object_new_object();
      json_object_object_add(e, "cores", json_object_new_int64(r->busy_counts[j]));
      json_object_object_add(e, "speed", json_object_new_double(r->busy_at[j]));
      json_object_array_add(b, e);
    }
    json_object_object_add(m, "busy_speeds", b);
  }
  if (r->tlb_in_flight > 0) {
    json_object *w = json_object_new_object();
    json_object_object_add(w, "pages", json_object_new_int64((int64_t)r->tlb_pages[r->tlb_n - 1]));
    json_object_object_add(w, "chase_ns_per_walk", json_object_new_double(r->tlb_walk_chase_ns));
    json_object_object_add(w, "loads_ns_per_walk", json_object_new_double(r->tlb_walk_load_ns));
    json_object_object_add(w, "in_flight", json_object_new_double(r->tlb_in_flight));
    json_object_object_add(m, "tlb_walks", w);
  }
  json_object *fw = json_object_new_object();
  json_object *dep = json_object_new_array(), *ns = json_object_new_array();
  for (int j = 0; j < PPT_CALIB_FPWIN_N; j++) {
    json_object_array_add(dep, json_object_new_int64(r->fpwin_depth[j]));
    json_object_array_add(ns, json_object_new_double(r->fpwin_ns[j]));
  }
  json_object_object_add(fw, "depth_pairs", dep);
  json_object_object_add(fw, "ns_per_chain", ns);
  json_object_object_add(m, "fp_window", fw);
  json_object_object_add(m, "store_forward_ns_per_trip", json_object_new_double(r->forward_ns));
  json_object_object_add(m, "store_forward_fp_ns_per_trip", json_object_new_double(r->forward_fp_ns));
  return m;
}

/* The spec as a JSON file with a trailing newline, like every text file ppt writes;
 * atomically (ppt_io_write_file). */
static int write_spec(const char *path, const ppt_hwspec *hw, ppt_err *err) {
  char *text = ppt_hwspec_to_json(hw);
  if (!text) return ppt_err_set(err, PPT_ERUN, "%s: out of memory", path);
  size_t len = strlen(text);
  char *line = malloc(len + 2);
  int rc;
  if (!line) {
    rc = ppt_err_set(err, PPT_ERUN, "%s: out of memory", path);
  } else {
    memcpy(line, text, len);
    memcpy(line + len, "\n", 2);
    rc = ppt_io_write_file(path, line, err);
    free(line);
  }
  free(text);
  return rc;
}

/* --json: {"hwspec": the spec, "measured": ... (one calibration's, when given), "runs":
 * [the n specs it is the medians of] (when runs is given)}. */
static void print_json(const ppt_hwspec *spec, json_object *measured, const ppt_hwspec *runs, size_t n) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "hwspec", ppt_hwspec_to_json_object(spec));
  if (measured) json_object_object_add(o, "measured", measured);
  if (runs) {
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < n; i++) json_object_array_add(a, ppt_hwspec_to_json_object(&runs[i]));
    json_object_object_add(o, "runs", a);
  }
  printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
  json_object_put(o);
}

/* --combine: the per-figure medians of specs calibrated earlier (separate `ppt calibrate`
 * runs spread over time, e.g. between the measurement rounds of validation/run). */
static int combine(char **files, size_t n, const char *out_path, int json) {
  ppt_hwspec *runs = calloc(n, sizeof *runs), *med = calloc(1, sizeof *med);
  ppt_err err;
  int rc = runs && med ? 0 : ppt_err_set(&err, PPT_ERUN, "calibrate: out of memory");
  for (size_t i = 0; i < n && !rc; i++) rc = ppt_hwspec_load(files[i], &runs[i], &err);
  if (!rc && ppt_calib_median_spec(runs, n, med, &err)) {
    /* The message names no file: say which set disagreed. */
    char msg[sizeof err.msg];
    snprintf(msg, sizeof msg, "%s", err.msg);
    rc = ppt_err_set(&err, PPT_EINPUT, "%s..%s: %s", files[0], files[n - 1], msg);
  }
  if (!rc) {
    size_t len = strlen(med->source);
    snprintf(med->source + len, sizeof med->source - len, "; per-figure medians of %zu specs combined%s", n,
             strstr(med->notes, "left out") ? " (some left out: notes)" : "");
    if (out_path) rc = write_spec(out_path, med, &err);
  }
  int to_stdout = out_path && !strcmp(out_path, "-");
  if (!rc && json) {
    print_json(med, NULL, runs, n);
  } else if (!rc) {
    FILE *f = to_stdout ? stderr : stdout;
    fprintf(f, "spec: per-figure medians of %zu specs (%s .. %s)\n", n, files[0], files[n - 1]);
    ppt_calibrate_print_spread(f, runs, n, med);
    if (out_path && !to_stdout) printf("wrote %s\n", out_path);
  }
  free(runs);
  free(med);
  return rc ? ppt_cli_fail("calibrate", &err) : 0;
}

/* The command line, parsed (parse_args). */
typedef struct calib_args {
  const char *out_path, *name;
  int json;
  int combine;     /* --combine: specs[0..nspecs) are the files */
  uint64_t repeat; /* 1..99 */
  ppt_calib_config cfg;
  char **specs;
  size_t nspecs;
} calib_args;

/* parse_args's return when the command goes on; any other is the exit code (0 after
 * --help, PPT_EINPUT after a usage message). */
#define CALIB_GO_ON (-1)

/* --geometry SRC into cfg->geometry (enum ppt_calib_geo_choice, in the order of names). */
static int parse_geometry(const char *s, ppt_calib_config *cfg) {
  static const char *const names[] = {"auto", "cpuid", "sysfs", "sweep"};
  int g = -1;
  for (int i = 0; i < 4; i++)
    if (!strcmp(s, names[i])) g = i;
  if (g < 0) return ppt_cli_usage("calibrate", "--geometry wants auto, cpuid, sysfs or sweep, not '%s'", s);
  cfg->geometry = g;
  return CALIB_GO_ON;
}

/* The options, one at a time, in the order given: the first bad one is the message. */
static int parse_options(int argc, char **argv, calib_args *a) {
  static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                       {"quick", no_argument, 0, 'q'},
                                       {"json", no_argument, 0, 'j'},
                                       {"seed", required_argument, 0, 's'},
                                       {"name", required_argument, 0, 'n'},
                                       {"repeat", required_argument, 0, 'r'},
                                       {"best", no_argument, 0, 'b'},
                                       {"combine", no_argument, 0, 'c'},
                                       {"geometry", required_argument, 0, 'g'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  optind = 1;
  int c, rc = CALIB_GO_ON;
  opterr = 0; /* one message line, ours */
  while (rc == CALIB_GO_ON && (c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
    switch (c) {
      case 'o': a->out_path = optarg; break;
      case 'q': a->cfg.quick = 1; break;
      case 'b': a->cfg.best = 1; break;
      case 'c': a->combine = 1; break;
      case 'j': a->json = 1; break;
      case 's':
        if (ppt_cli_parse_u64(optarg, &a->cfg.seed))
          rc = ppt_cli_usage("calibrate", "--seed wants an unsigned integer, not '%s'", optarg);
        break;
      case 'n':
        if (!*optarg || strlen(optarg) >= sizeof((ppt_hwspec *)0)->name)
          rc = ppt_cli_usage("calibrate", "--name wants a non-empty name under 128 bytes");
        a->name = optarg;
        break;
      case 'r':
        if (ppt_cli_parse_u64(optarg, &a->repeat) || a->repeat < 1 || a->repeat > 99)
          rc = ppt_cli_usage("calibrate", "--repeat wants a count from 1 to 99, not '%s'", optarg);
        break;
      case 'g': rc = parse_geometry(optarg, &a->cfg); break;
      case 'h': help(); return 0;
      default: rc = ppt_cli_usage("calibrate", "unknown option or missing value in '%s'", argv[optind - 1]);
    }
  }
  return rc;
}

/* The command line into a: the options, then what may follow them and what may go
 * together. */
static int parse_args(int argc, char **argv, calib_args *a) {
  memset(a, 0, sizeof *a);
  a->name = "host";
  a->repeat = 1;
  ppt_calib_config_default(&a->cfg);
  int rc = parse_options(argc, argv, a);
  if (rc != CALIB_GO_ON) return rc;
  int to_stdout = a->out_path && !strcmp(a->out_path, "-");
  if (a->combine) {
    if (optind == argc) return ppt_cli_usage("calibrate", "--combine wants the spec files to combine");
    if (a->repeat > 1 || a->cfg.quick || a->cfg.best || a->cfg.geometry)
      return ppt_cli_usage("calibrate",
                           "--combine measures nothing: no --repeat, --quick, --best or --geometry");
    a->specs = argv + optind;
    a->nspecs = (size_t)(argc - optind);
  } else if (optind != argc) {
    return ppt_cli_usage("calibrate", "unexpected argument '%s'", argv[optind]);
  }
  if (to_stdout && a->json)
    return ppt_cli_usage("calibrate", "--json and -o - both write to stdout; pick one");
  return CALIB_GO_ON;
}

/* What calibrate is measuring (ppt_calib_config.on_stage): on a terminal, the stage on
 * one line that each next stage overwrites; on any stderr, a line when a stage has run
 * far longer than a whole calibration takes (the watchdog's call, seconds > 0): a stage
 * waiting on a CPU that the host does not run is then named, not silent. */
static void on_stage(const char *stage, double seconds, void *arg) {
  const int *tty = arg;
  if (seconds > 0)
    fprintf(stderr,
            "%sppt calibrate: still measuring %s after %.0f s (about 20 s in all on an idle machine: "
            "is another program using these CPUs, or is the host not running one of them?)\n",
            *tty ? "\n" : "", stage, seconds);
  else if (*tty)
    fprintf(stderr, "\r\033[Kppt calibrate: %s", stage);
}

/* Calibrates a->repeat times (seeds S..S+N-1): runs[i] is run i's spec, r the last run,
 * and with --repeat r->hw the per-figure medians of the runs. */
static int run(calib_args *a, ppt_calib_result *r, ppt_hwspec *runs, ppt_err *err) {
  int tty = isatty(STDERR_FILENO);
  a->cfg.on_stage = on_stage;
  a->cfg.stage_arg = &tty;
  char date[32] = "";
  time_t now = time(NULL);
  struct tm tm;
  if (gmtime_r(&now, &tm)) strftime(date, sizeof date, "%Y-%m-%d", &tm);
  uint64_t seed = a->cfg.seed, repeat = a->repeat;
  for (uint64_t i = 0; i < repeat; i++) {
    if (repeat > 1)
      fprintf(stderr, "ppt calibrate: run %llu of %llu\n", (unsigned long long)i + 1,
              (unsigned long long)repeat);
    a->cfg.seed = seed + i;
    int rc = ppt_calib_run(&a->cfg, a->name, date, r, err);
    if (tty) fprintf(stderr, "\r\033[K");
    if (rc) return 1;
    runs[i] = r->hw;
  }
  /* The table and the measured figures below are the last run's; the spec is the medians. */
  if (repeat > 1) {
    if (ppt_calib_median_spec(runs, repeat, &r->hw, err)) return 1;
    size_t len = strlen(r->hw.source);
    snprintf(r->hw.source + len, sizeof r->hw.source - len,
             "; per-figure medians of %llu runs, seeds %llu-%llu", (unsigned long long)repeat,
             (unsigned long long)seed, (unsigned long long)(seed + repeat - 1));
  }
  return 0;
}

/* The table (stderr when the spec goes to stdout) with, after --repeat, the spread of
 * the runs. */
static void write_table(const calib_args *a, const ppt_calib_result *r, const ppt_hwspec *runs) {
  FILE *f = a->out_path && !strcmp(a->out_path, "-") ? stderr : stdout;
  print_table(f, r);
  if (a->repeat > 1) {
    fprintf(f, "\nspec: per-figure medians of %llu runs (the table above is the last run)\n",
            (unsigned long long)a->repeat);
    ppt_calibrate_print_spread(f, runs, (size_t)a->repeat, &r->hw);
  }
}

/* -o's spec, then --json's object or the table. */
static int write_outputs(const calib_args *a, const ppt_calib_result *r, const ppt_hwspec *runs,
                         ppt_err *err) {
  int rc = a->out_path ? write_spec(a->out_path, &r->hw, err) : 0;
  if (rc) return rc;
  if (a->json) {
    print_json(&r->hw, measured_json(r), a->repeat > 1 ? runs : NULL, (size_t)a->repeat);
  } else {
    write_table(a, r, runs);
    if (a->out_path && strcmp(a->out_path, "-")) printf("wrote %s\n", a->out_path);
  }
  return 0;
}

int ppt_cmd_calibrate(int argc, char **argv) {
  /* OpenMP threads bound to CPUs, as HPC runs (and validation/run) use them: unbound,
   * libomp re-checks affinity in every region (a serialised region costs 0.8 µs instead
   * of 0.55 on the validation host). Only when the user has not chosen; libomp reads it
   * at its first use, which is later in this process. */
  setenv("OMP_PROC_BIND", "true", 0);
  calib_args a;
  int rc = parse_args(argc, argv, &a);
  if (rc != CALIB_GO_ON) return rc;
  if (a.combine) return combine(a.specs, a.nspecs, a.out_path, a.json);
  ppt_calib_result *r = calloc(1, sizeof *r);
  ppt_hwspec *runs = calloc(a.repeat, sizeof *runs);
  if (!r || !runs) {
    free(r);
    free(runs);
    fprintf(stderr, "ppt calibrate: out of memory\n");
    return 1;
  }
  ppt_err err;
  rc = run(&a, r, runs, &err);
  if (!rc) rc = write_outputs(&a, r, runs, &err);
  free(r);
  free(runs);
  return rc ? ppt_cli_fail("calibrate", &err) : 0;
}

/* calib.c — `ppt calibrate`: measure the host and describe it as a hwspec.
 *
 * Order of work: geometry (CPUID, sysfs or a chase sweep: calib_geo.c) -> clock -> latency per level and DRAM
 * -> bandwidth per level and DRAM -> op throughputs and latencies, FP window -> hwspec with a citation for
 * every figure (calib_spec.c). Everything measured in seconds is turned into cycles with the measured clock,
 * so a wrong clock would scale every cycle figure; that is why the clock's method and the /proc/cpuinfo
 * figure are both kept in the result. Each stage below is one function of ppt_calib_run, in the order it runs
 * them; they share a calib_run (calib_run.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calib/calib_run.h"

/* The DRAM working set's bounds (CALIB_DRAM_FACTOR x the last level in between). */
#define DRAM_MIN_BYTES (UINT64_C(64) << 20)
#define DRAM_MAX_BYTES (UINT64_C(1) << 30)
/* Same-set column walk (mlp_same_set): matrices of 512 rows of one L1 set stride, 4 of
 * them by default (8 MiB with 4 KiB rows: the walk of docs/hwspec.md's experiment),
 * more when that is under 4x the level inside the last, fewer when over half the last. */
#define SAME_SET_ROWS 512
#define SAME_SET_BUFS 4
#define SAME_SET_MAX_BUFS 64

void ppt_calib_config_default(ppt_calib_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->seed = 1;
}

/* "cpu MHz" and "model name" of the first CPU in /proc/cpuinfo (0 / "" when absent). */
static double cpuinfo(char *model, size_t model_size) {
  double mhz = 0;
  model[0] = '\0';
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return 0;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (!colon) continue;
    char *val = colon + 1 + strspn(colon + 1, " \t");
    val[strcspn(val, "\n")] = '\0';
    if (mhz == 0 && !strncmp(line, "cpu MHz", 7)) mhz = strtod(val, NULL);
    if (!model[0] && !strncmp(line, "model name", 10)) snprintf(model, model_size, "%s", val);
    if (mhz > 0 && model[0]) break;
  }
  fclose(f);
  return mhz > 0 && isfinite(mhz) ? mhz : 0;
}

/* The call's arguments and the trials' policy. */
static void run_init(calib_run *r, const ppt_calib_config *cfg, const char *name, const char *date,
                     ppt_calib_result *out, ppt_err *err) {
  memset(r, 0, sizeof *r);
  r->cfg = cfg;
  r->out = out;
  r->hw = &out->hw;
  r->err = err;
  r->name = name && *name ? name : "host";
  r->date = date ? date : "";
  /* Many short trials rather than a few long ones. The median trial by default: the
   * runtimes ppt predicts are a program's usual ones, and on a shared host (a virtual
   * machine whose neighbours come and go) the usual speed is well below the best one;
   * docs/calibrate.md ("Which trial") has the figures. --best keeps the fastest trial instead. */
  int typical = !cfg->best;
  r->t_ops = cfg->quick ? (calib_timing){0.001, 11, typical} : (calib_timing){0.002, 41, typical};
  r->t_mem = cfg->quick ? (calib_timing){0.001, 7, typical} : (calib_timing){0.002, 41, typical};
  /* Every cycle figure scales with the clock: measure it with more trials, now and
   * again at the end, and combine the two (calib_rounds). */
  r->t_clock = (calib_timing){r->t_ops.min_s, r->t_ops.trials < 21 ? 21 : r->t_ops.trials, typical};
  /* The two-core probes: short trials (a round trip is ~100 ns, and 1 ms trials keep
   * each probe under ~0.1 s), as many as the ops'. */
  r->t_pair = (calib_timing){0.001, r->t_ops.trials, typical};
}

/* ---- geometry: topology, the caches' sources, then what none of them sized ---- */
static int stage_geometry(calib_run *r) {
  ppt_calib_result *out = r->out;
  int rc = calib_find_geometry(r->cfg, &r->regs, &r->t_mem, out, r->cpu_dir, sizeof r->cpu_dir, r->pkg_list,
                               sizeof r->pkg_list, r->geo, sizeof r->geo, r->err);
  if (rc) return rc;
  r->cores = out->package_cpus / out->smt;
  if (r->cores == 0) r->cores = 1;
  r->mhz = cpuinfo(r->model, sizeof r->model);
  ppt_calib_geometry(&out->caches, r->cores, out->smt, r->hw, r->geo, sizeof r->geo);
  snprintf(r->hw->name, sizeof r->hw->name, "%s", r->name);
  r->n = r->hw->nlevels;
  uint32_t max_threads = r->cfg->max_threads ? r->cfg->max_threads : out->online_cpus;
  r->max_threads = calib_min_u32(max_threads, out->online_cpus);
  return 0;
}

/* The DRAM working set: CALIB_DRAM_FACTOR x the last level, within DRAM_MIN_BYTES,
 * DRAM_MAX_BYTES and a quarter of physical memory; the streams' at least
 * CALIB_DRAM_STREAM_MIN (within a quarter of physical memory too). The chases keep the
 * smaller set: over 512 MiB this guest's pointer chase read 405-415 ns against 210-260 at
 * 64 MiB, the host's page walks (its pages under the guest's huge ones) rather than DRAM. */
static void dram_working_set(calib_run *r) {
  r->llc = r->hw->levels[r->n - 1].size;
  uint64_t dram_bytes = r->llc * CALIB_DRAM_FACTOR;
  if (dram_bytes < DRAM_MIN_BYTES) dram_bytes = DRAM_MIN_BYTES;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  uint64_t phys = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
  if (dram_bytes > DRAM_MAX_BYTES) dram_bytes = DRAM_MAX_BYTES;
  uint64_t stream = dram_bytes < CALIB_DRAM_STREAM_MIN ? CALIB_DRAM_STREAM_MIN : dram_bytes;
  if (phys && dram_bytes > phys / 4) dram_bytes = phys / 4;
  if (phys && stream > phys / 4) stream = phys / 4;
  r->dram_bytes = dram_bytes;
  r->dram_stream_bytes = stream;
}

/* ---- latency: a chase over half of each level (and over a near set just past the level
 * above, a quarter of the level kept within 2-4x the level above, when the level is over
 * 4x it), and over the DRAM working set ---- */
static int stage_latencies(calib_run *r) {
  ppt_calib_result *out = r->out;
  const ppt_hwspec *hw = r->hw;
  uint32_t n = r->n;
  int rc = 0, huge = 0;
  for (uint32_t k = 0; k <= n && !rc; k++) {
    uint64_t sizes[2] = {k < n ? hw->levels[k].size / 2 : r->dram_bytes, 0};
    /* The near set down to 2x the level above: on a Zen 5 guest the chase sweep sizes
     * the L3 (no sysfs) at 5.5-11 MiB over a 1 MiB L2, and with a near set only past 16x
     * the L2 four of nine calibrations would have none to tell that the chase over half
     * the level, at 98-139 ns, missed. */
    uint64_t above = k > 0 && k < n ? hw->levels[k - 1].size : 0;
    if (above && sizes[0] > 2 * above) {
      sizes[1] = sizes[0] / 2;
      if (sizes[1] < 2 * above) sizes[1] = 2 * above;
      if (sizes[1] > 4 * above) sizes[1] = 4 * above;
    }
    for (int w = 0; w < 2 && sizes[w] && !rc; w++) {
      /* Two lines per pointer for DRAM: adjacent-line prefetchers fetch a line's buddy,
       * which would otherwise turn some misses into hits. */
      size_t stride = k < n ? hw->levels[0].line : 2 * (size_t)hw->levels[0].line;
      void *b = calib_buffer(sizes[w], &huge);
      r->any_huge |= huge;
      double ns = b ? calib_chase_ns(b, sizes[w], stride, k < n, r->rng, &r->t_mem) : 0;
      /* Cache levels get a second round (a fresh permutation) unless quick, as the ops
       * do: a burst of other load can spoil one stretch of trials but rarely both. */
      if (b && ns > 0 && k < n && !r->cfg->quick) {
        ns = calib_rounds(ns, calib_chase_ns(b, sizes[w], stride, 1, r->rng, &r->t_mem), &r->t_mem);
      }
      calib_buffer_free(b);
      if (!(ns > 0))
        rc = ppt_err_set(r->err, PPT_ERUN,
                         "calibrate: out of memory (%llu bytes for the %s "
                         "latency)",
                         (unsigned long long)sizes[w], k < n ? hw->levels[k].name : "DRAM");
      if (w == 0) {
        out->lat_bytes[k] = sizes[w];
        out->lat_ns[k] = ns;
      } else {
        out->lat_near_bytes[k] = sizes[w];
        out->lat_near_ns[k] = ns;
      }
    }
  }
  return rc;
}

/* Misses in flight: independent chases over the DRAM-sized buffer (calib_par.c). */
static void stage_mlp(calib_run *r) {
  calib_timing t_mlp = {r->t_mem.min_s, r->cfg->quick ? 3 : 7, r->t_mem.typical};
  int huge = 0;
  r->out->mlp = calib_mlp(r->cfg->quick ? (size_t)16 << 20 : (size_t)r->dram_bytes, r->rng, &t_mlp, &huge);
  r->any_huge |= huge;
}

/* One level smaller than its source says (level k, whose near latency is the level's):
 * a sweep of the chase finds how much it holds (calib_size.c), said in lat_notes. */
static int size_level(calib_run *r, uint32_t k) {
  ppt_calib_result *out = r->out;
  ppt_hwspec *hw = r->hw;
  double half = out->lat_ns[k], near = out->lat_near_ns[k], dram = out->lat_ns[r->n];
  char sz[32], sz2[32];
  out->near[k] = 1;
  calib_note(r->lat_notes, sizeof r->lat_notes,
             "%s behaves smaller than %s says: %.3g ns at %s "
             "(half of it; DRAM %.3g ns), but %.3g ns at %s, the latency the spec uses (a "
             "cache shared with other tenants?).",
             hw->levels[k].name, calib_geo_source_name(out->caches.levels[k].source), half,
             calib_human_bytes(out->lat_bytes[k], sz, sizeof sz), dram, near,
             calib_human_bytes(out->lat_near_bytes[k], sz2, sizeof sz2));
  uint64_t oom = 0, top = hw->levels[k].size;
  int huge = 0;
  uint32_t m =
      calib_size_sweep(out->lat_near_bytes[k], near, top, hw->levels[0].line, !r->cfg->quick, r->rng,
                       &r->t_mem, out->sweep_bytes[k], out->sweep_ns[k], PPT_CALIB_MAX_SWEEP, &huge, &oom);
  if (m)
    m = calib_size_refine(out->sweep_bytes[k], out->sweep_ns[k], m, PPT_CALIB_MAX_SWEEP, near, dram,
                          hw->levels[0].line, !r->cfg->quick, r->rng, &r->t_mem, &huge, &oom);
  r->any_huge |= huge;
  if (m == 0)
    return ppt_err_set(r->err, PPT_ERUN, "calibrate: out of memory (%llu bytes for the %s capacity sweep)",
                       (unsigned long long)oom, hw->levels[k].name);
  out->sweep_n[k] = m;
  uint32_t ways = hw->levels[k].assoc;
  uint64_t eff =
      calib_effective_size(out->sweep_bytes[k], out->sweep_ns[k], m, near, dram, hw->levels[k].line, &ways);
  /* Point 0 (the near set, read at the near latency) always qualifies, and it is 2-4x the
   * level above: only a degenerate sweep could leave the levels out of order. */
  if (eff == 0 || eff > top || eff < hw->levels[k - 1].size) return 0;
  out->eff_bytes[k] = eff;
  hw->levels[k].size = eff;
  hw->levels[k].assoc = ways;
  char pts[256] = "";
  for (uint32_t i = 0; i < m; i++)
    snprintf(pts + strlen(pts), sizeof pts - strlen(pts), "%s%.3g ns at %s", i ? ", " : "",
             out->sweep_ns[k][i], calib_human_bytes(out->sweep_bytes[k][i], sz, sizeof sz));
  calib_note(r->lat_notes, sizeof r->lat_notes,
             "Chase sweep: %s; %s is modelled as %s (%s: %s), the largest set read at most %.3g ns, "
             "midway between %.3g ns and DRAM's %.3g ns.",
             pts, hw->levels[k].name, calib_human_bytes(eff, sz, sizeof sz),
             calib_geo_source_name(out->caches.levels[k].source),
             calib_human_bytes(out->caches.levels[k].size, sz2, sizeof sz2), 0.5 * (near + dram), near, dram);
  return 0;
}

/* Levels smaller than their source says: the near latency is the level's, and a sweep of the
 * chase finds how much it holds (calib_size.c). After the MLP chases, so that their
 * permutations are the same whether or not a level needs a sweep. */
static int stage_level_sizes(calib_run *r) {
  const ppt_calib_result *out = r->out;
  int rc = 0;
  for (uint32_t k = 1; k < r->n && !rc; k++) {
    double half = out->lat_ns[k], near = out->lat_near_ns[k];
    /* Half the level at twice the near set's latency is a chase that already misses
     * (a level's own hits do not slow down twofold between the near set and half the
     * level), whether or not it reads close to DRAM: on a Zen 5 guest four of nine
     * calibrations chased half the L3 at 98-139 ns, under half of DRAM's 238-302, where
     * the chase read 14-16 ns up to 3-11 MiB; a half-of-DRAM test would price every L3
     * hit at 339-458 cycles instead of ~50. */
    /* The last level is swept whatever its half set read: on a guest it shares its
     * capacity with other tenants, and how much they leave changes by the minute. On a
     * Zen 5 guest a calibration may chase half the L3 at 129 ns or at 15.9-21.8 ns over
     * the near set's 12.2; any latency test then keeps the whole 32 MiB as LRU at 55-89
     * cycles in some runs and sweeps it at 49-52 in others, and `--combine` votes between
     * two kinds of spec. Swept every time, each run gives the level its hits' latency,
     * the chase's size (the demand size) and the stream's. */
    if (!(near > 0 && (k + 1 == r->n || half > 2 * near))) continue;
    calib_watch_stage(r->watch, "a level's capacity (chase sweep)");
    rc = size_level(r, k);
  }
  return rc;
}

/* Branch mispredictions: the last draws from rng, so that adding them changed none of
 * the permutations above. */
static int stage_branch(calib_run *r) {
  ppt_calib_result *out = r->out;
  int rc = 0;
  if (calib_branch_miss_s(r->rng, &r->t_ops, &out->branch_random_ns, &out->branch_sorted_ns,
                          &out->branch_miss_ns))
    rc = ppt_err_set(r->err, PPT_ERUN, "calibrate: out of memory (2 MiB for the branch kernel)");
  out->branch_random_ns *= 1e9;
  out->branch_sorted_ns *= 1e9;
  out->branch_miss_ns *= 1e9;
  return rc;
}

/* Data TLB: geometry from CPUID, then the cost of a miss at each level. After the
 * branch kernel, so that the permutations drawn above stay what they were. Twice
 * (calib_rounds): a page walk's figure moves most with other load. */
static void stage_tlb(calib_run *r) {
  ppt_calib_result *out = r->out;
  calib_tlb_geo tg;
  if (calib_tlb_geometry(&r->regs, &tg) <= 0) return;
  uint64_t l2 = out->caches.levels[r->n >= 2 ? 1 : 0].size;
  double ns[PPT_HW_MAX_TLB], ns2[PPT_HW_MAX_TLB];
  uint64_t pg[PPT_HW_MAX_TLB];
  if (calib_tlb_measure(&tg, l2, r->rng, &r->t_mem, ns, pg) != 0) return;
  int again = !r->cfg->quick && calib_tlb_measure(&tg, l2, r->rng, &r->t_mem, ns2, pg) == 0;
  out->tlb_n = tg.nlevels;
  snprintf(out->tlb_source, sizeof out->tlb_source, "%s", tg.source);
  for (uint32_t j = 0; j < tg.nlevels; j++)
    if (tg.grown[j])
      snprintf(out->tlb_source + strlen(out->tlb_source), sizeof out->tlb_source - strlen(out->tlb_source),
               "; DTLB%u larger than CPUID says, entries from a chase sweep", j + 1);
  for (uint32_t j = 0; j < tg.nlevels; j++) {
    out->tlb_entries[j] = tg.entries[j];
    out->tlb_assoc[j] = tg.assoc[j];
    out->tlb_pages[j] = pg[j];
    out->tlb_miss_ns[j] = again ? calib_rounds(ns[j], ns2[j], &r->t_mem) : ns[j];
  }
  /* Walks in flight where the last level misses every page (its chase's reach). */
  double c, l, k = calib_tlb_in_flight(pg[tg.nlevels - 1], r->rng, &r->t_mem, &c, &l);
  if (!isnan(k)) {
    out->tlb_walk_chase_ns = c;
    out->tlb_walk_load_ns = l;
    out->tlb_in_flight = k;
  }
}

/* Everything that draws from the seeded rng, in the order that keeps the permutations
 * of each what they were: latencies, misses in flight, level sizes, branches, TLB. */
static int stage_chases(calib_run *r) {
  r->rng = gsl_rng_alloc(gsl_rng_mt19937);
  if (!r->rng) return ppt_err_set(r->err, PPT_ERUN, "calibrate: out of memory");
  gsl_rng_set(r->rng, (unsigned long)r->cfg->seed);
  dram_working_set(r);
  calib_watch_stage(r->watch, "load-to-use latencies (pointer chases)");
  int rc = stage_latencies(r);
  if (!rc) calib_watch_stage(r->watch, "misses in flight (independent chases)");
  if (!rc) stage_mlp(r);
  if (!rc) rc = stage_level_sizes(r);
  if (!rc) calib_watch_stage(r->watch, "branch mispredictions");
  if (!rc) rc = stage_branch(r);
  if (!rc) calib_watch_stage(r->watch, "data TLB misses");
  if (!rc) stage_tlb(r);
  gsl_rng_free(r->rng);
  r->rng = NULL;
  return rc;
}

/* Cache-to-cache transfers: two cores of the package, as the bandwidth threads are
 * picked (SMT siblings share a core's caches, so a line would never leave it). */
static void stage_c2c(calib_run *r) {
  ppt_calib_result *out = r->out;
  out->c2c_cpus[0] = out->c2c_cpus[1] = -1;
  if (calib_cpus_primary(r->pkg_list, calib_sibling_dir(r), out->c2c_cpus, 2) != 2) {
    snprintf(r->c2c_note, sizeof r->c2c_note,
             "coherence_cycles not measured: one core only (%s), no cache-to-cache transfers.", r->pkg_list);
    return;
  }
  out->c2c_round_trip_ns = calib_c2c_round_trip_s(out->c2c_cpus, &r->t_pair) * 1e9;
  double dram_ns = out->lat_ns[r->n];
  if (!(out->c2c_round_trip_ns > 0)) {
    snprintf(r->c2c_note, sizeof r->c2c_note,
             "coherence_cycles not measured: the ping-pong threads could not be pinned to CPUs %d and %d.",
             out->c2c_cpus[0], out->c2c_cpus[1]);
  } else if (dram_ns > 0 && 0.5 * out->c2c_round_trip_ns > 10 * dram_ns) {
    /* No transfer takes ten memory accesses: a thread was waiting for its CPU (other
     * load on it), and the figure would be the scheduler's, not the caches'. */
    snprintf(r->c2c_note, sizeof r->c2c_note,
             "coherence_cycles not measured: %.3g ns per round trip on CPUs %d and %d, over 10x DRAM's "
             "latency per transfer (the CPUs were busy; calibrate an idle machine).",
             out->c2c_round_trip_ns, out->c2c_cpus[0], out->c2c_cpus[1]);
    out->c2c_round_trip_ns = 0;
  }
}

/* False sharing: the two CPUs of the ping-pong (calib_contend.c), right after it, with
 * its trials. Needs two cores as the transfers do: on one, nothing moves the line. */
static void stage_contend(calib_run *r) {
  ppt_calib_result *out = r->out;
  if (out->c2c_cpus[0] < 0 || out->c2c_cpus[1] < 0) {
    snprintf(r->contend_note, sizeof r->contend_note,
             "contention_factor not measured: one core only (%s), no line to share.", r->pkg_list);
    return;
  }
  double one_s, two_s;
  int rounds;
  if (calib_contend_s(out->c2c_cpus, &r->t_pair, &one_s, &two_s, &rounds, out->contend_factors)) {
    snprintf(
        r->contend_note, sizeof r->contend_note,
        "contention_factor not measured: the false-sharing threads could not be pinned to CPUs %d and %d.",
        out->c2c_cpus[0], out->c2c_cpus[1]);
    return;
  }
  out->contend_one_ns = one_s * 1e9;
  out->contend_two_ns = two_s * 1e9;
  out->contend_rounds = rounds;
}

/* Fork-join: timed by ppt-ompcost, a process without SimGrid (calib_ompcost.c says
 * why); here, as a fallback, when the probe cannot be run. Before the bandwidth
 * threads, and without libomp started in this process, so nothing of ours competes
 * with the probe for the CPUs. */
static void stage_fork_join(calib_run *r) {
  ppt_calib_result *out = r->out;
  char probe[4096];
  calib_ompcost oc;
  ppt_err perr;
  if (!calib_ompcost_path(probe, sizeof probe, &perr) &&
      !calib_ompcost_run(probe, 0, &r->t_ops, 60, &oc, &perr)) {
    out->fork_join_probe = 1;
    out->fork_join_threads = (uint32_t)oc.threads;
    out->fork_join_ns = oc.fork_join_s * 1e9;
    out->fork_join_serial_ns = oc.fork_join_serial_s * 1e9;
  } else {
    snprintf(out->fork_join_note, sizeof out->fork_join_note, "%s", perr.msg);
    out->fork_join_threads = (uint32_t)calib_omp_threads(0);
    out->fork_join_ns = calib_fork_join_s(0, &r->t_ops) * 1e9;
    out->fork_join_serial_ns = calib_fork_join_s(1, &r->t_ops) * 1e9;
  }
}

/* Levels that behave smaller than their source says, and levels only the chase sized:
 * the capacity a stream sees (calib_size.c says why it is not the chase's), from sweeps
 * of the level's size up to 8 times it, read by one core. A level the chase sweep sized
 * below its source's size is swept from the chase's size: past it the chase finds DRAM,
 * but a stream still finds the level (the Zen 3 guest: 3.3 MiB chased, ~10 MiB streamed),
 * and the spec keeps both (calib_spec.c). */
static void stage_retention(calib_run *r) {
  ppt_calib_result *out = r->out;
  for (uint32_t k = 1; k < r->n; k++) {
    if (!out->near[k] && out->caches.levels[k].source != PPT_CALIB_GEO_SWEEP) continue;
    double in = out->core_bw_bytes_per_s[k] > 0 ? out->core_bw_bytes_per_s[k] : out->bw_bytes_per_s[k];
    int cpu = -1, huge = 0;
    if (calib_cpus_primary(out->caches.levels[k].shared_cpu_list, calib_sibling_dir(r), &cpu, 1) != 1)
      cpu = -1;
    /* From twice the near set where that is smaller: the sweeps' plateau (the share the
     * level serves where it holds the whole sweep) must be among them, or every share
     * divided by it reads too high and the capacity with it. */
    uint64_t from = out->eff_bytes[k] ? out->eff_bytes[k] : out->caches.levels[k].size;
    if (out->lat_near_bytes[k] && 2 * out->lat_near_bytes[k] < from) from = 2 * out->lat_near_bytes[k];
    out->ret_capacity[k] =
        calib_retention(from, in, out->dram_core_bytes_per_s, cpu >= 0 ? &cpu : NULL, &r->t_mem,
                        out->ret_bytes[k], out->ret_bw[k], out->ret_share[k], &out->ret_n[k], &huge);
    r->any_huge |= huge;
  }
}

/* Largest set each CPU of the sharing probe chases: two such sets take a few seconds. */
#define SHARE_MAX_BYTES ((uint64_t)64 << 20)

/* Levels the sources say CPUs share: shared in practice, or one instance per CPU
 * (calib_share.c)? Two CPUs of the instance each chase three quarters of what the
 * chase says the level holds: a shared instance keeps at most two thirds of the two
 * sets, a private one each whole. */
static void stage_share(calib_run *r) {
  ppt_calib_result *out = r->out;
  /* Its own generator, seeded from --seed: the chases' stay what they were. */
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  if (rng) gsl_rng_set(rng, (unsigned long)r->cfg->seed + 1);
  for (uint32_t k = 0; k < r->n; k++) {
    out->share_evicted[k] = -1;
    out->share_private[k] = 0;
    if (!rng || k == 0 || r->hw->levels[k].shared_by < 2) continue;
    int cpus[2];
    if (calib_cpus_primary(out->caches.levels[k].shared_cpu_list, calib_sibling_dir(r), cpus, 2) != 2)
      continue;
    uint64_t holds = out->near[k] ? (out->eff_bytes[k] ? out->eff_bytes[k] : out->lat_near_bytes[k])
                                  : out->caches.levels[k].size;
    uint64_t bytes = holds / 4 * 3 / 4096 * 4096;
    if (bytes <= r->hw->levels[k - 1].size || bytes > SHARE_MAX_BYTES) continue;
    calib_watch_stage(r->watch, "shared or private caches (two chases at once)");
    out->share_cpus[k][0] = cpus[0];
    out->share_cpus[k][1] = cpus[1];
    out->share_bytes[k] = bytes;
    if (calib_share_ns(cpus, bytes, rng, &r->t_mem, &out->share_alone_ns[k], &out->share_together_ns[k]))
      continue;
    double dram = out->lat_ns[r->n], lat = out->near[k] ? out->lat_near_ns[k] : out->lat_ns[k];
    out->share_evicted[k] = calib_share_evicted(out->share_alone_ns[k], out->share_together_ns[k], dram);
    /* The set must fit alone (within a quarter of the way from the level's latency to
     * DRAM's), in a level clearly faster than DRAM, for the partner's effect to mean
     * anything. */
    out->share_private[k] = out->share_evicted[k] >= 0 && out->share_evicted[k] < 0.25 && lat < 0.5 * dram &&
                            out->share_alone_ns[k] <= lat + 0.25 * (dram - lat);
  }
  if (rng) gsl_rng_free(rng);
}

/* Misses queued on one first-level set (calib_par.c): column walks whose rows are the
 * L1 set stride, so every line of a column maps to one L1 set. The matrices together
 * are at least 4x the level inside the last (a column, revisited one whole walk
 * later, has left it) and at most half of what the last level holds, as the spec will
 * say (a stream's capacity when that replaces the size below): the last level serves
 * every miss, and its latency is the one the figure is set against. */
static int stage_same_set(calib_run *r) {
  ppt_calib_result *out = r->out;
  uint32_t n = r->n;
  if (n < 2) return 0;
  const ppt_hw_level *l1 = &r->hw->levels[0];
  uint64_t row = l1->size / l1->assoc, mat = row * SAME_SET_ROWS;
  uint64_t inner = r->hw->levels[n - 2].size, last = r->hw->levels[n - 1].size;
  uint64_t cap = out->ret_capacity[n - 1];
  if (cap > inner && cap < out->caches.levels[n - 1].size) last = cap;
  uint32_t nb = SAME_SET_BUFS;
  while ((uint64_t)nb * mat < 4 * inner && nb < SAME_SET_MAX_BUFS) nb++;
  while (nb > 1 && (uint64_t)nb * mat > last / 2) nb--;
  out->same_set_row_bytes = row;
  out->same_set_rows = SAME_SET_ROWS;
  out->same_set_bufs = nb;
  int rc = 0, huge = 0;
  if (calib_same_set_ns(row, l1->line, SAME_SET_ROWS, nb, &r->t_mem, &out->same_set_load_ns,
                        &out->same_set_store_ns, &huge))
    rc = ppt_err_set(r->err, PPT_ERUN, "calibrate: out of memory (%llu bytes for the same-set column walk)",
                     (unsigned long long)((uint64_t)nb * mat));
  r->any_huge |= huge;
  return rc;
}

/* Everything that runs threads, after the chases: coherence, false sharing, fork-join,
 * bandwidths, a stream's capacity, the same-set walk. */
static int stage_threads(calib_run *r) {
  calib_watch_stage(r->watch, "cache-to-cache transfers (two threads handing a line back and forth)");
  stage_c2c(r);
  calib_watch_stage(r->watch, "false sharing (two threads storing into one line)");
  stage_contend(r);
  calib_watch_stage(r->watch, "fork-join cost (ppt-ompcost)");
  stage_fork_join(r);
  calib_watch_stage(r->watch, "bandwidths (a streaming thread per core)");
  int rc = 0;
  for (uint32_t k = 0; k <= r->n && !rc; k++) rc = calib_stage_bandwidth(r, k);
  if (!rc) calib_watch_stage(r->watch, "a stream's capacity (retention sweeps)");
  if (!rc) stage_retention(r);
  if (!rc) stage_share(r);
  if (!rc) calib_watch_stage(r->watch, "misses on one set (column walks)");
  if (!rc) rc = stage_same_set(r);
  return rc;
}

/* ---- ops, then the clock again ---- */
static int stage_ops_and_clock(calib_run *r) {
  ppt_calib_result *out = r->out;
  /* Two rounds, each op's trials in one stretch: a burst of other load can cover one
   * stretch but rarely both (calib_rounds combines them). Each trial is paired with an
   * add-chain trial (calib_op_adds), so an op's cycles do not depend on the load or the
   * clock at the moment the clock itself was timed. */
  double thr_adds[PPT_HW_NOPCLASS], lat_adds[PPT_HW_NOPCLASS];
  double win_adds[PPT_CALIB_FPWIN_N], chain_adds = 0, fwd_adds = 0, fwd_fp_adds = 0;
  calib_watch_stage(r->watch, "op throughput and latency, FP window");
  for (int round = 0; round < (r->cfg->quick ? 1 : 2); round++) {
    for (int op = 0; op < PPT_HW_NOPCLASS; op++) {
      double thr, lat;
      calib_op_adds(op, &r->t_ops, &thr, &lat);
      thr_adds[op] = round == 0 ? thr : calib_rounds(thr_adds[op], thr, &r->t_ops);
      lat_adds[op] = round == 0 ? lat : calib_rounds(lat_adds[op], lat, &r->t_ops);
    }
    /* The FP window in the same rounds and against the same add chain as the fadd and
     * fmul latencies it is read with (calib_spec.c), so load or a clock change that
     * moves one moves the other alike. */
    double win[PPT_CALIB_FPWIN_N];
    calib_fp_window_adds(&r->t_ops, out->fpwin_depth, win);
    for (int j = 0; j < PPT_CALIB_FPWIN_N; j++)
      win_adds[j] = round == 0 ? win[j] : calib_rounds(win_adds[j], win[j], &r->t_ops);
    double ch = calib_fp_chains_adds(&r->t_ops, &out->fpchain_depth);
    chain_adds = round == 0 ? ch : calib_rounds(chain_adds, ch, &r->t_ops);
    double fw = calib_store_forward_adds(&r->t_ops);
    fwd_adds = round == 0 ? fw : calib_rounds(fwd_adds, fw, &r->t_ops);
    double ff = calib_store_forward_fp_adds(&r->t_ops);
    fwd_fp_adds = round == 0 ? ff : calib_rounds(fwd_fp_adds, ff, &r->t_ops);
  }

  /* ---- clock (second measurement) ---- */
  calib_watch_stage(r->watch, "clock (again)");
  double add_s = calib_rounds(r->add_s, calib_add_chain_s(&r->t_clock), &r->t_clock);
  r->add_s = add_s;
  for (int op = 0; op < PPT_HW_NOPCLASS; op++) {
    out->op_ns[op] = thr_adds[op] * add_s * 1e9;
    out->op_lat_ns[op] = lat_adds[op] * add_s * 1e9;
  }
  for (int j = 0; j < PPT_CALIB_FPWIN_N; j++) out->fpwin_ns[j] = win_adds[j] * add_s * 1e9;
  out->fpchain_ns = chain_adds * add_s * 1e9;
  out->forward_ns = fwd_adds * add_s * 1e9;
  out->forward_fp_ns = fwd_fp_adds * add_s * 1e9;
  out->clock_chain_hz = add_s > 0 ? 1.0 / add_s : 0;
  out->clock_cpuinfo_hz = r->mhz * 1e6;
  r->clock = out->clock_chain_hz;
  out->clock_method = PPT_CALIB_CLOCK_CHAIN;
  if (!out->optimised || !(r->clock >= 2e8 && r->clock <= 1e10)) {
    if (!(out->clock_cpuinfo_hz > 0))
      return ppt_err_set(r->err, PPT_ERUN,
                         "calibrate: add chain gives an implausible clock "
                         "(%.3g Hz) and /proc/cpuinfo has no 'cpu MHz'",
                         r->clock);
    r->clock = out->clock_cpuinfo_hz;
    out->clock_method = PPT_CALIB_CLOCK_CPUINFO;
  }
  return 0;
}

/* The one-thread stages run pinned to the first core of the package (out->home_cpu):
 * the core that times a program's first thread, and one core for every op and clock
 * figure. Unpinned, the clock chain and the op kernels run on whichever CPU the kernel
 * chooses, and one of a Zen 5 guest's vCPUs timed an integer add chain 18-40 % slower
 * than the other at one moment, so the figures would mix two cores. Not around
 * stages that start threads or processes: those inherit the CPU set. */
static void home_pin(calib_run *r) {
  if (r->out->home_cpu >= 0 && !r->home_pinned)
    r->home_pinned = calib_pin_self(r->out->home_cpu, &r->home_saved);
}

static void home_unpin(calib_run *r) {
  if (r->home_pinned) calib_unpin_self(&r->home_saved);
  r->home_pinned = 0;
}

static void home_find(calib_run *r) {
  int cpu = -1;
  cpu_set_t saved;
  if (calib_cpus_primary(r->pkg_list, calib_sibling_dir(r), &cpu, 1) != 1 || !calib_pin_self(cpu, &saved))
    cpu = -1;
  else
    calib_unpin_self(&saved);
  r->out->home_cpu = cpu;
}

/* Every stage, in the order that keeps each seeded permutation what it was. */
static int measure(calib_run *r) {
  calib_watch_stage(r->watch, "cache geometry and topology");
  int rc = stage_geometry(r);
  if (rc) return rc;
  home_find(r);
  home_pin(r);
  /* ---- clock (first measurement) ---- */
  calib_watch_stage(r->watch, "clock (dependent add chain)");
  r->out->optimised = calib_optimised();
  r->add_s = calib_add_chain_s(&r->t_clock);
  rc = stage_chases(r);
  if (!rc) calib_watch_stage(r->watch, "call cost");
  if (!rc) r->out->call_ns = calib_call_s(&r->t_ops) * 1e9;
  home_unpin(r);
  if (!rc) rc = stage_threads(r);
  if (rc) return rc;
  r->out->huge_pages = r->any_huge;
  home_pin(r);
  rc = stage_ops_and_clock(r);
  home_unpin(r);
  if (!rc) calib_stage_cores(r);
  return rc;
}

int ppt_calib_run(const ppt_calib_config *cfg, const char *name, const char *date, ppt_calib_result *out,
                  ppt_err *err) {
  ppt_calib_config def;
  if (!cfg) {
    ppt_calib_config_default(&def);
    cfg = &def;
  }
  memset(out, 0, sizeof *out);
  calib_run run, *r = &run;
  run_init(r, cfg, name, date, out, err);
  r->t_start = calib_now();
  r->watch = calib_watch_start(cfg->on_stage, cfg->stage_arg, cfg->stall_s);
  int rc = measure(r);
  calib_watch_stop(r->watch);
  r->watch = NULL;
  if (rc) return rc;
  calib_spec_build(r);
  out->seconds = calib_now() - r->t_start;
  rc = ppt_hwspec_validate(r->hw, r->name, err);
  if (!rc) rc = ppt_hwspec_has_timing(r->hw, r->name, err);
  if (rc) {
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg);
    return ppt_err_set(err, PPT_ERUN, "calibrate: measured spec is invalid: %s", why);
  }
  return 0;
}

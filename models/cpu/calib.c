/* calib.c — `ppt calibrate`: measure the host and describe it as a hwspec.
 *
 * Order of work: geometry (CPUID, sysfs or a chase sweep: calib_geo.c) -> clock -> latency per level and DRAM -> bandwidth
 * per level and DRAM -> op throughputs and latencies -> hwspec with a citation for every
 * figure. Everything measured in seconds is turned into cycles with the measured clock,
 * so a wrong clock would scale every cycle figure; that is why the clock's method and
 * the /proc/cpuinfo figure are both kept in the result. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu/calib_impl.h"

/* DRAM working set: 8x the last level, so (with random replacement, the worst case)
 * under 1/8 of the chase can hit in it; at least 64 MiB, at most 1 GiB or a quarter of
 * physical memory. */
#define DRAM_FACTOR 8
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

/* Three significant digits: measurements are not more precise, and the spec reads
 * better. */
static double sig3(double x) {
  if (!(x > 0) || !isfinite(x)) return x;
  double p = pow(10.0, 2 - floor(log10(x)));
  return round(x * p) / p;
}

static void cite(ppt_hwspec *hw, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cite(ppt_hwspec *hw, const char *key, const char *fmt, ...) {
  if (hw->nsources >= PPT_HW_MAX_SOURCES) return;
  ppt_hw_source *s = &hw->sources[hw->nsources++];
  snprintf(s->key, sizeof s->key, "%s", key);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->text, sizeof s->text, fmt, ap);
  va_end(ap);
}

/* The sources the levels came from, in order of first use ("CPUID and measured"). */
static const char *geo_sources(const ppt_calib_caches *c, char *buf, size_t size) {
  buf[0] = '\0';
  int seen[4] = {0};
  for (uint32_t k = 0; k < c->nlevels; k++) {
    int src = c->levels[k].source;
    if (src < 0 || src > 3 || seen[src]) continue;
    seen[src] = 1;
    snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", buf[0] ? " and " : "", calib_geo_source_name(src));
  }
  return buf;
}

static uint32_t min_u32(uint32_t a, uint32_t b) {
  return a < b ? a : b;
}

static int vector_bits(const char **what) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
  if (__builtin_cpu_supports("avx512f")) return *what = "avx512f", 512;
  if (__builtin_cpu_supports("avx")) return *what = "avx", 256;
  return *what = "sse2 (x86-64 baseline)", 128;
#elif defined(__aarch64__)
  return *what = "AArch64 Advanced SIMD", 128;
#else
  *what = NULL;
  return 0;
#endif
}

int ppt_calib_run(const ppt_calib_config *cfg, const char *name, const char *date, ppt_calib_result *out,
                  ppt_err *err) {
  ppt_calib_config def;
  if (!cfg) {
    ppt_calib_config_default(&def);
    cfg = &def;
  }
  memset(out, 0, sizeof *out);
  double t_start = calib_now();
  if (!name || !*name) name = "host";
  if (!date) date = "";
  /* Many short trials rather than a few long ones. The median trial by default: the
   * runtimes ppt predicts are a program's usual ones, and on a shared host (a virtual
   * machine whose neighbours come and go) the usual speed is well below the best one;
   * docs/hwspec.md has the figures. --best keeps the fastest trial instead. */
  int typical = !cfg->best;
  calib_timing t_ops = cfg->quick ? (calib_timing){0.001, 11, typical} : (calib_timing){0.002, 41, typical};
  calib_timing t_mem = cfg->quick ? (calib_timing){0.001, 7, typical} : (calib_timing){0.002, 41, typical};
  /* Every cycle figure scales with the clock: measure it with more trials, now and
   * again at the end, and combine the two (calib_rounds). */
  calib_timing t_clock = {t_ops.min_s, t_ops.trials < 21 ? 21 : t_ops.trials, typical};

  /* ---- geometry: topology, the caches' sources, then what none of them sized ---- */
  char cpu_dir[4096], pkg_list[256] = "", geo[1024] = "";
  calib_cpuid_regs regs;
  int rc = calib_find_geometry(cfg, &regs, &t_mem, out, cpu_dir, sizeof cpu_dir, pkg_list, sizeof pkg_list, geo,
                               sizeof geo, err);
  if (rc) return rc;
  uint32_t cores = out->package_cpus / out->smt;
  if (cores == 0) cores = 1;

  ppt_hwspec *hw = &out->hw;
  char model[128];
  double mhz = cpuinfo(model, sizeof model);
  ppt_calib_geometry(&out->caches, cores, out->smt, hw, geo, sizeof geo);
  snprintf(hw->name, sizeof hw->name, "%s", name);
  uint32_t n = hw->nlevels;
  uint32_t max_threads = cfg->max_threads ? cfg->max_threads : out->online_cpus;
  max_threads = min_u32(max_threads, out->online_cpus);

  /* ---- clock (first measurement) ---- */
  out->optimised = calib_optimised();
  double add_s = calib_add_chain_s(&t_clock);

  /* ---- latency ---- */
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  if (!rng) return ppt_err_set(err, PPT_ERUN, "calibrate: out of memory");
  gsl_rng_set(rng, (unsigned long)cfg->seed);
  uint64_t llc = hw->levels[n - 1].size;
  uint64_t dram_bytes = llc * DRAM_FACTOR;
  if (dram_bytes < DRAM_MIN_BYTES) dram_bytes = DRAM_MIN_BYTES;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  uint64_t phys = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
  if (dram_bytes > DRAM_MAX_BYTES) dram_bytes = DRAM_MAX_BYTES;
  if (phys && dram_bytes > phys / 4) dram_bytes = phys / 4;
  int huge = 0, any_huge = 0;
  char sz[32], sz2[32];
  for (uint32_t k = 0; k <= n && !rc; k++) {
    uint64_t sizes[2] = {k < n ? hw->levels[k].size / 2 : dram_bytes, 0};
    if (k > 0 && k < n && sizes[0] > 8 * hw->levels[k - 1].size) sizes[1] = 4 * hw->levels[k - 1].size;
    for (int w = 0; w < 2 && sizes[w] && !rc; w++) {
      /* Two lines per pointer for DRAM: adjacent-line prefetchers fetch a line's buddy,
       * which would otherwise turn some misses into hits. */
      size_t stride = k < n ? hw->levels[0].line : 2 * (size_t)hw->levels[0].line;
      void *b = calib_buffer(sizes[w], &huge);
      any_huge |= huge;
      double ns = b ? calib_chase_ns(b, sizes[w], stride, k < n, rng, &t_mem) : 0;
      /* Cache levels get a second round (a fresh permutation) unless quick, as the ops
       * do: a burst of other load can spoil one stretch of trials but rarely both. */
      if (b && ns > 0 && k < n && !cfg->quick) {
        ns = calib_rounds(ns, calib_chase_ns(b, sizes[w], stride, 1, rng, &t_mem), &t_mem);
      }
      calib_buffer_free(b);
      if (!(ns > 0))
        rc = ppt_err_set(err, PPT_ERUN,
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
  /* Misses in flight: independent chases over the DRAM-sized buffer (calib_par.c). */
  if (!rc) {
    calib_timing t_mlp = {t_mem.min_s, cfg->quick ? 3 : 7, typical};
    out->mlp = calib_mlp(cfg->quick ? (size_t)16 << 20 : (size_t)dram_bytes, rng, &t_mlp);
  }
  /* Levels smaller than their source says: the near latency is the level's, and a sweep of the
   * chase finds how much it holds (calib_size.c). After the MLP chases, so that their
   * permutations are the same whether or not a level needs a sweep. */
  char lat_notes[640] = "";
  for (uint32_t k = 1; k < n && !rc; k++) {
    double half = out->lat_ns[k], near = out->lat_near_ns[k], dram = out->lat_ns[n];
    if (!(near > 0 && half > 2 * near && half > 0.5 * dram)) continue;
    out->near[k] = 1;
    calib_note(lat_notes, sizeof lat_notes,
               "%s behaves smaller than %s says: %.3g ns at %s "
               "(half of it), near DRAM's %.3g ns, but %.3g ns at %s, the latency the spec uses (a "
               "cache shared with other tenants?).",
               hw->levels[k].name, calib_geo_source_name(out->caches.levels[k].source), half,
               calib_human_bytes(out->lat_bytes[k], sz, sizeof sz), dram, near,
               calib_human_bytes(out->lat_near_bytes[k], sz2, sizeof sz2));
    uint64_t oom = 0, top = hw->levels[k].size;
    uint32_t m =
        calib_size_sweep(out->lat_near_bytes[k], near, top, hw->levels[0].line, !cfg->quick, rng, &t_mem,
                         out->sweep_bytes[k], out->sweep_ns[k], PPT_CALIB_MAX_SWEEP, &huge, &oom);
    any_huge |= huge;
    if (m == 0) {
      rc = ppt_err_set(err, PPT_ERUN, "calibrate: out of memory (%llu bytes for the %s capacity sweep)",
                       (unsigned long long)oom, hw->levels[k].name);
      break;
    }
    out->sweep_n[k] = m;
    uint64_t eff = calib_effective_size(out->sweep_bytes[k], out->sweep_ns[k], m, near, dram,
                                        hw->levels[k].line, hw->levels[k].assoc);
    /* Point 0 (the near set, read at the near latency) always qualifies, and it is 4x the
     * level above: only a degenerate sweep could leave the levels out of order. */
    if (eff == 0 || eff > top || eff < hw->levels[k - 1].size) continue;
    out->eff_bytes[k] = eff;
    hw->levels[k].size = eff;
    char pts[256] = "";
    for (uint32_t i = 0; i < m; i++)
      snprintf(pts + strlen(pts), sizeof pts - strlen(pts), "%s%.3g ns at %s", i ? ", " : "",
               out->sweep_ns[k][i], calib_human_bytes(out->sweep_bytes[k][i], sz, sizeof sz));
    calib_note(lat_notes, sizeof lat_notes,
               "Chase sweep: %s; %s is modelled as %s (%s: %s), the largest set read at most %.3g ns, "
               "midway between %.3g ns and DRAM's %.3g ns.",
               pts, hw->levels[k].name, calib_human_bytes(eff, sz, sizeof sz),
               calib_geo_source_name(out->caches.levels[k].source),
               calib_human_bytes(out->caches.levels[k].size, sz2, sizeof sz2), 0.5 * (near + dram), near, dram);
  }
  /* Branch mispredictions: the last draws from rng, so that adding them changed none of
   * the permutations above. */
  if (!rc &&
      calib_branch_miss_s(rng, &t_ops, &out->branch_random_ns, &out->branch_sorted_ns, &out->branch_miss_ns))
    rc = ppt_err_set(err, PPT_ERUN, "calibrate: out of memory (2 MiB for the branch kernel)");
  out->branch_random_ns *= 1e9;
  out->branch_sorted_ns *= 1e9;
  out->branch_miss_ns *= 1e9;
  /* Data TLB: geometry from CPUID, then the cost of a miss at each level. After the
   * branch kernel, so that the permutations drawn above stay what they were. Twice
   * (calib_rounds): a page walk's figure moves most with other load. */
  calib_tlb_geo tg;
  if (!rc && calib_tlb_geometry(&regs, &tg) > 0) {
    uint64_t l2 = out->caches.levels[n >= 2 ? 1 : 0].size;
    double ns[PPT_HW_MAX_TLB], ns2[PPT_HW_MAX_TLB];
    uint64_t pg[PPT_HW_MAX_TLB];
    if (calib_tlb_measure(&tg, l2, rng, &t_mem, ns, pg) == 0) {
      int again = !cfg->quick && calib_tlb_measure(&tg, l2, rng, &t_mem, ns2, pg) == 0;
      out->tlb_n = tg.nlevels;
      snprintf(out->tlb_source, sizeof out->tlb_source, "%s", tg.source);
      for (uint32_t j = 0; j < tg.nlevels; j++) {
        out->tlb_entries[j] = tg.entries[j];
        out->tlb_assoc[j] = tg.assoc[j];
        out->tlb_pages[j] = pg[j];
        out->tlb_miss_ns[j] = again ? calib_rounds(ns[j], ns2[j], &t_mem) : ns[j];
      }
    }
  }
  gsl_rng_free(rng);
  if (rc) return rc;
  out->call_ns = calib_call_s(&t_ops) * 1e9;
  /* Cache-to-cache transfers: two cores of the package, as the bandwidth threads are
   * picked (SMT siblings share a core's caches, so a line would never leave it). Short
   * trials: a round trip is ~100 ns, and 1 ms trials keep the probe under ~0.1 s. */
  char c2c_note[160] = "";
  out->c2c_cpus[0] = out->c2c_cpus[1] = -1;
  if (calib_cpus_primary(pkg_list, cfg->sysfs_dir ? NULL : cpu_dir, out->c2c_cpus, 2) ==
      2) {
    calib_timing t_c2c = {0.001, cfg->quick ? 11 : 41, typical};
    out->c2c_round_trip_ns = calib_c2c_round_trip_s(out->c2c_cpus, &t_c2c) * 1e9;
    double dram_ns = out->lat_ns[n];
    if (!(out->c2c_round_trip_ns > 0)) {
      snprintf(c2c_note, sizeof c2c_note,
               "coherence_cycles not measured: the ping-pong threads could not be pinned to CPUs %d and %d.",
               out->c2c_cpus[0], out->c2c_cpus[1]);
    } else if (dram_ns > 0 && 0.5 * out->c2c_round_trip_ns > 10 * dram_ns) {
      /* No transfer takes ten memory accesses: a thread was waiting for its CPU (other
       * load on it), and the figure would be the scheduler's, not the caches'. */
      snprintf(c2c_note, sizeof c2c_note,
               "coherence_cycles not measured: %.3g ns per round trip on CPUs %d and %d, over 10x DRAM's "
               "latency per transfer (the CPUs were busy; calibrate an idle machine).",
               out->c2c_round_trip_ns, out->c2c_cpus[0], out->c2c_cpus[1]);
      out->c2c_round_trip_ns = 0;
    }
  } else {
    snprintf(c2c_note, sizeof c2c_note,
             "coherence_cycles not measured: one core only (%s), no cache-to-cache transfers.",
             pkg_list);
  }
  /* Fork-join: timed by ppt-ompcost, a process without SimGrid (calib_ompcost.c says
   * why); here, as a fallback, when the probe cannot be run. Before the bandwidth
   * threads, and without libomp started in this process, so nothing of ours competes
   * with the probe for the CPUs. */
  char probe[4096];
  calib_ompcost oc;
  ppt_err perr;
  if (!calib_ompcost_path(probe, sizeof probe, &perr) &&
      !calib_ompcost_run(probe, 0, &t_ops, 60, &oc, &perr)) {
    out->fork_join_probe = 1;
    out->fork_join_threads = (uint32_t)oc.threads;
    out->fork_join_ns = oc.fork_join_s * 1e9;
    out->fork_join_serial_ns = oc.fork_join_serial_s * 1e9;
  } else {
    snprintf(out->fork_join_note, sizeof out->fork_join_note, "%s", perr.msg);
    out->fork_join_threads = (uint32_t)calib_omp_threads(0);
    out->fork_join_ns = calib_fork_join_s(0, &t_ops) * 1e9;
    out->fork_join_serial_ns = calib_fork_join_s(1, &t_ops) * 1e9;
  }

  /* ---- bandwidth ---- */
  int cpus[1024];
  char pinned_note[64] = "";
  for (uint32_t k = 0; k <= n && !rc; k++) {
    /* One thread per core that shares the instance (every core, for DRAM), capped by
     * what is online and by the config, pinned to those cores when the list names them. */
    uint32_t nt = min_u32(k < n ? hw->levels[k].shared_by : cores, max_threads);
    nt = min_u32(nt, (uint32_t)(sizeof cpus / sizeof cpus[0]));
    const char *list = k < n ? out->caches.levels[k].shared_cpu_list : pkg_list;
    int pinned = calib_cpus_primary(list, cfg->sysfs_dir ? NULL : cpu_dir, cpus, nt) == nt;
    if (!pinned && nt > 1) snprintf(pinned_note, sizeof pinned_note, " (threads not pinned)");
    /* Half a cache level (its effective capacity when swept); the near set when a level
     * that behaves smaller could not be sized. */
    uint64_t total = k == n                               ? dram_bytes
                     : out->near[k] && !out->eff_bytes[k] ? out->lat_near_bytes[k]
                                                          : hw->levels[k].size / 2;
    size_t each = (size_t)(total / nt) / 64 * 64;
    /* DRAM is read 1 MiB at a time round the buffer so trials stay short. */
    size_t chunk = k == n && each > ((size_t)1 << 20) ? (size_t)1 << 20 : each;
    double bw = calib_stream_bw(each, chunk, nt, pinned ? cpus : NULL, &t_mem, &huge);
    any_huge |= huge;
    if (!(bw > 0))
      rc = ppt_err_set(err, PPT_ERUN,
                       "calibrate: cannot measure the %s bandwidth (out of "
                       "memory or threads)",
                       k < n ? hw->levels[k].name : "DRAM");
    out->bw_bytes[k] = (uint64_t)each * nt;
    out->bw_chunk[k] = chunk;
    out->bw_threads[k] = nt;
    out->bw_bytes_per_s[k] = bw;
    if (k < n && nt > 1 && !rc) {
      /* A shared level read by one core alone: like DRAM below, one core's misses in
       * flight cap what it draws (this VM's L3: ~75 of ~155 GB/s), and the models would
       * otherwise give one core the whole instance. The same buffer, one thread. */
      double one_bw = calib_stream_bw(each * nt, 0, 1, pinned ? cpus : NULL, &t_mem, &huge);
      any_huge |= huge;
      out->core_bw_bytes_per_s[k] = one_bw > 0 ? one_bw : 0;
    }
    if (k < n || rc) continue;
    /* DRAM again, one core alone: its misses in flight bound what it streams, often far
     * below the socket's figure (this VM: ~20-25 of ~45-49 GB/s), and without this the
     * models would let one core take the whole socket. The same buffer (all of it, one
     * thread) read in the same 1 MiB chunks, on the first core of the package. With one
     * thread above, that figure already is this one. */
    int one = -1;
    if (calib_cpus_primary(pkg_list, cfg->sysfs_dir ? NULL : cpu_dir, &one, 1) != 1) one = -1;
    size_t all = (size_t)dram_bytes / 64 * 64;
    size_t chunk1 = all > ((size_t)1 << 20) ? (size_t)1 << 20 : all;
    double core = nt == 1 ? bw : calib_stream_bw(all, chunk1, 1, one >= 0 ? &one : NULL, &t_mem, &huge);
    any_huge |= huge;
    if (!(core > 0))
      rc = ppt_err_set(err, PPT_ERUN,
                       "calibrate: cannot measure the one-core DRAM bandwidth (out of "
                       "memory)");
    out->dram_core_bytes = nt == 1 ? out->bw_bytes[n] : all;
    out->dram_core_cpu = nt == 1 ? (pinned ? cpus[0] : -1) : one;
    out->dram_core_bytes_per_s = core;
  }
  /* Levels that behave smaller: the capacity a stream sees (calib_size.c says why it is
   * not the chase's), from sweeps of the sysfs size and twice it, read by one core. */
  for (uint32_t k = 1; k < n && !rc; k++) {
    if (!out->near[k]) continue;
    double in = out->core_bw_bytes_per_s[k] > 0 ? out->core_bw_bytes_per_s[k] : out->bw_bytes_per_s[k];
    int cpu = -1;
    if (calib_cpus_primary(out->caches.levels[k].shared_cpu_list, cfg->sysfs_dir ? NULL : cpu_dir, &cpu, 1) != 1)
      cpu = -1;
    out->ret_capacity[k] = calib_retention(out->caches.levels[k].size, in, out->dram_core_bytes_per_s,
                                           cpu >= 0 ? &cpu : NULL, &t_mem, out->ret_bytes[k], out->ret_bw[k],
                                           out->ret_share[k], &huge);
    any_huge |= huge;
  }
  /* Misses queued on one first-level set (calib_par.c): column walks whose rows are the
   * L1 set stride, so every line of a column maps to one L1 set. The matrices together
   * are at least 4x the level inside the last (a column, revisited one whole walk
   * later, has left it) and at most half of what the last level holds, as the spec will
   * say (a stream's capacity when that replaces the size below): the last level serves
   * every miss, and its latency is the one the figure is set against. */
  if (!rc && n >= 2) {
    const ppt_hw_level *l1 = &hw->levels[0];
    uint64_t row = l1->size / l1->assoc, mat = row * SAME_SET_ROWS;
    uint64_t inner = hw->levels[n - 2].size, last = hw->levels[n - 1].size;
    uint64_t cap = out->ret_capacity[n - 1];
    if (cap > inner && cap < out->caches.levels[n - 1].size) last = cap;
    uint32_t nb = SAME_SET_BUFS;
    while ((uint64_t)nb * mat < 4 * inner && nb < SAME_SET_MAX_BUFS) nb++;
    while (nb > 1 && (uint64_t)nb * mat > last / 2) nb--;
    out->same_set_row_bytes = row;
    out->same_set_rows = SAME_SET_ROWS;
    out->same_set_bufs = nb;
    if (calib_same_set_ns(row, l1->line, SAME_SET_ROWS, nb, &t_mem, &out->same_set_load_ns,
                          &out->same_set_store_ns, &huge))
      rc = ppt_err_set(err, PPT_ERUN, "calibrate: out of memory (%llu bytes for the same-set column walk)",
                       (unsigned long long)((uint64_t)nb * mat));
    any_huge |= huge;
  }
  if (rc) return rc;
  out->huge_pages = any_huge;

  /* ---- ops ---- */
  /* Two rounds, each op's trials in one stretch: a burst of other load can cover one
   * stretch but rarely both (calib_rounds combines them). Each trial is paired with an
   * add-chain trial (calib_op_adds), so an op's cycles do not depend on the load or the
   * clock at the moment the clock itself was timed. */
  double thr_adds[PPT_HW_NOPCLASS], lat_adds[PPT_HW_NOPCLASS];
  for (int round = 0; round < (cfg->quick ? 1 : 2); round++)
    for (int op = 0; op < PPT_HW_NOPCLASS; op++) {
      double thr, lat;
      calib_op_adds(op, &t_ops, &thr, &lat);
      thr_adds[op] = round == 0 ? thr : calib_rounds(thr_adds[op], thr, &t_ops);
      lat_adds[op] = round == 0 ? lat : calib_rounds(lat_adds[op], lat, &t_ops);
    }

  /* ---- clock (second measurement) ---- */
  add_s = calib_rounds(add_s, calib_add_chain_s(&t_clock), &t_clock);
  for (int op = 0; op < PPT_HW_NOPCLASS; op++) {
    out->op_ns[op] = thr_adds[op] * add_s * 1e9;
    out->op_lat_ns[op] = lat_adds[op] * add_s * 1e9;
  }
  out->clock_chain_hz = add_s > 0 ? 1.0 / add_s : 0;
  out->clock_cpuinfo_hz = mhz * 1e6;
  double clock = out->clock_chain_hz;
  out->clock_method = PPT_CALIB_CLOCK_CHAIN;
  if (!out->optimised || !(clock >= 2e8 && clock <= 1e10)) {
    if (!(out->clock_cpuinfo_hz > 0))
      return ppt_err_set(err, PPT_ERUN,
                         "calibrate: add chain gives an implausible clock "
                         "(%.3g Hz) and /proc/cpuinfo has no 'cpu MHz'",
                         clock);
    clock = out->clock_cpuinfo_hz;
    out->clock_method = PPT_CALIB_CLOCK_CPUINFO;
  }

  /* ---- the spec ---- */
  char notes[1024] = "";
  const char *vec_what = NULL;
  hw->clock_hz = sig3(clock);
  double cyc_ns = clock * 1e-9;
  hw->vector_bits = (uint32_t)vector_bits(&vec_what);
  for (uint32_t k = 0; k < n; k++) {
    double lat = sig3((out->near[k] ? out->lat_near_ns[k] : out->lat_ns[k]) * cyc_ns);
    /* Noise (another process on the core) can invert two close levels; the schema wants
     * latencies to grow outwards, so a level never reads faster than the one above. */
    if (k > 0 && lat < hw->levels[k - 1].latency_cycles) {
      calib_note(notes, sizeof notes, "%s latency measured %.3g cycles, below %s; set equal.",
                 hw->levels[k].name, lat, hw->levels[k - 1].name);
      lat = hw->levels[k - 1].latency_cycles;
    }
    hw->levels[k].latency_cycles = lat;
    hw->levels[k].bw_bytes_per_cycle = sig3(out->bw_bytes_per_s[k] / clock);
    if (out->core_bw_bytes_per_s[k] > 0 && out->core_bw_bytes_per_s[k] < out->bw_bytes_per_s[k])
      hw->levels[k].core_bw_bytes_per_cycle = sig3(out->core_bw_bytes_per_s[k] / clock);
    /* A stream's capacity below sysfs and above the level above: the spec's size, with
     * random replacement (the share of sweeps larger than it the level still serves). */
    uint64_t cap = out->ret_capacity[k];
    if (k > 0 && cap > hw->levels[k - 1].size && cap < out->caches.levels[k].size) {
      uint32_t ways = hw->levels[k].assoc; /* the ways of the spec's geometry, at least */
      uint64_t size = calib_round_ways(cap, hw->levels[k].line, &ways);
      if (size > hw->levels[k - 1].size && size <= out->caches.levels[k].size) {
        hw->levels[k].size = size;
        hw->levels[k].assoc = ways;
        hw->levels[k].replacement = PPT_HW_REPL_RANDOM;
        calib_note(notes, sizeof notes,
                   "%s: one core still streams part of sweeps larger than the chase says it holds; "
                   "the spec takes the stream's view, %s with random replacement (chase: %s).",
                   hw->levels[k].name, calib_human_bytes(size, sz, sizeof sz),
                   out->eff_bytes[k] ? calib_human_bytes(out->eff_bytes[k], sz2, sizeof sz2) : "not sized");
      }
    }
  }
  hw->dram_latency_ns = sig3(out->lat_ns[n]);
  hw->dram_bw_bytes_per_s = sig3(out->bw_bytes_per_s[n] / 1e9) * 1e9;
  hw->dram_core_bw_bytes_per_s = sig3(out->dram_core_bytes_per_s / 1e9) * 1e9;
  for (int op = 0; op < PPT_HW_NOPCLASS; op++) {
    hw->ops[op].per_cycle = out->op_ns[op] > 0 ? sig3(1.0 / (out->op_ns[op] * cyc_ns)) : 0;
    hw->ops[op].latency = sig3(out->op_lat_ns[op] * cyc_ns);
  }
  /* Load-to-use latency is what the L1 pointer chase measured; a taken branch has no
   * result to wait for (0 = free, per docs/hwspec.md). */
  hw->ops[PPT_HW_LOADST].latency = hw->levels[0].latency_cycles;
  hw->mlp = sig3(out->mlp);
  /* mlp_same_set: the last level serves the column walk's misses, so the latency the
   * spec gives it over the cycles per line is how many of them overlap. Never more than
   * mlp (a walk queued on one set is no better than random misses: above it is noise)
   * nor less than 1. */
  if (out->same_set_load_ns > 0 && out->same_set_store_ns > 0) {
    const double ns[2] = {out->same_set_load_ns, out->same_set_store_ns};
    double *fig[2] = {&hw->mlp_same_set_load, &hw->mlp_same_set_store};
    for (int i = 0; i < 2; i++) {
      double x = hw->levels[n - 1].latency_cycles / (ns[i] * cyc_ns);
      if (x > hw->mlp) {
        calib_note(notes, sizeof notes, "mlp_same_set.%s measured %.3g, above mlp; capped at mlp.",
                   i ? "store" : "load", x);
        x = hw->mlp;
        out->same_set_capped = 1;
      }
      if (x < 1) x = 1;
      x = sig3(x);
      *fig[i] = x > hw->mlp ? hw->mlp : x;
    }
  }
  hw->call_cycles = out->call_ns > 0 ? sig3(out->call_ns * cyc_ns) : 0;
  /* A round trip is two transfers, one each way. */
  hw->coherence_cycles = out->c2c_round_trip_ns > 0 ? sig3(0.5 * out->c2c_round_trip_ns * cyc_ns) : 0;
  hw->fork_join_cycles = out->fork_join_ns > 0 ? sig3(out->fork_join_ns * cyc_ns) : 0;
  hw->fork_join_serial_cycles = out->fork_join_serial_ns > 0 ? sig3(out->fork_join_serial_ns * cyc_ns) : 0;
  hw->branch_miss_cycles = out->branch_miss_ns > 0 ? sig3(out->branch_miss_ns * cyc_ns) : 0;
  /* The TLB levels. Only a page walk (a miss in the last level) is charged: an L1 DTLB
   * miss that hits the next level costs a dependent chase its few cycles, but in running
   * code it overlaps with the independent loads around it (on the validation host, huge
   * pages sped adi up by 0.2-0.3 ms where charging those misses predicted 2.3 ms, and
   * jacobi by ~1 ms, what its page walks predict). So the upper levels' miss_cycles are
   * 0, and a walk costs everything the chase measured through every level. */
  hw->ntlb = out->tlb_n;
  double walk_ns = 0;
  for (uint32_t j = 0; j < out->tlb_n; j++) walk_ns += out->tlb_miss_ns[j] > 0 ? out->tlb_miss_ns[j] : 0;
  for (uint32_t j = 0; j < out->tlb_n; j++) {
    ppt_hw_tlb *tl = &hw->tlb[j];
    snprintf(tl->name, sizeof tl->name, "DTLB%u", j + 1);
    tl->entries = out->tlb_entries[j];
    tl->assoc = out->tlb_assoc[j];
    tl->page_bytes = 4096;
    tl->miss_cycles = j + 1 == out->tlb_n ? sig3(walk_ns * cyc_ns) : 0;
  }
  hw->ops[PPT_HW_BRANCH].latency = 0;

  char gsrc[96];
  snprintf(hw->source, sizeof hw->source,
           "measured on this machine by `ppt calibrate%s` (ppt 0.1.0)%s%s; cache geometry "
           "from %s",
           cfg->quick ? " --quick" : "", *date ? " on " : "", date, geo_sources(&out->caches, gsrc, sizeof gsrc));
  calib_note(notes, sizeof notes, "CPU: %s, %u online logical CPUs, %u per core.",
             model[0] ? model : "unknown", out->online_cpus, out->smt);
  if (geo[0]) calib_note(notes, sizeof notes, "%s", geo);
  if (lat_notes[0]) calib_note(notes, sizeof notes, "%s", lat_notes);
  if (c2c_note[0]) calib_note(notes, sizeof notes, "%s", c2c_note);
  if (!out->fork_join_probe)
    calib_note(notes, sizeof notes,
               "Fork-join costs timed in this process, which links SimGrid and runs OpenMP regions up to "
               "~2x slower than the programs predicted (the ppt-ompcost probe failed: %s).",
               out->fork_join_note);
  calib_note(notes, sizeof notes,
             "Bandwidths are read-only streams, all threads of an "
             "instance together (shared levels, DRAM), so one core alone gets less; "
             "dram.core_bandwidth_gbs is one core streaming DRAM alone. "
             "No level is marked inclusive. Only page walks are charged: an "
             "L1 DTLB miss that hits the L2 DTLB overlaps with independent loads in running code.%s%s",
             any_huge ? "" : " Huge pages were not available: latencies include TLB misses.",
             out->optimised ? "" : " Built without optimisation: op figures are unreliable.");
  snprintf(hw->notes, sizeof hw->notes, "%s", notes);

  char when[64] = "";
  if (*date) snprintf(when, sizeof when, " on %s", date);
  const char *stat = t_mem.typical ? "median" : "best";
  if (out->clock_method == PPT_CALIB_CLOCK_CHAIN)
    cite(hw, "clock_ghz",
         "ppt calibrate%s: timed dependent 64-bit add chain, 1 add per cycle, %s of %d trials, twice "
         "(%.4g GHz; /proc/cpuinfo cpu MHz: %.0f)",
         when, stat, t_clock.trials, out->clock_chain_hz / 1e9, mhz);
  else
    cite(hw, "clock_ghz", "/proc/cpuinfo cpu MHz%s (add chain gave %.4g GHz%s)", when,
         out->clock_chain_hz / 1e9, out->optimised ? ", implausible" : " in an unoptimised build");
  cite(hw, "cores", "%s; %u logical CPUs, %u per core, modelled", out->topology_source, out->package_cpus,
       out->smt);
  cite(hw, "mlp", "independent random pointer chases beyond the caches: k chains run %.3gx as many accesses/s as one (best k of 2..32)", out->mlp);
  for (int i = 0; i < 2 && hw->mlp_same_set_load > 0; i++) {
    char l1s[32], tot[32];
    double ns = i ? out->same_set_store_ns : out->same_set_load_ns;
    cite(hw, i ? "mlp_same_set.store" : "mlp_same_set.load",
         "ppt calibrate%s: column walk %s, %u x %u rows of %s (%s set stride: a column is one set; %s), "
         "%s of %d trials: %.3g ns per line (%s %.3g); %s latency %.3g ns",
         when, i ? "storing" : "loading", out->same_set_bufs, out->same_set_rows,
         calib_human_bytes(out->same_set_row_bytes, l1s, sizeof l1s), hw->levels[0].name,
         calib_human_bytes((uint64_t)out->same_set_bufs * out->same_set_rows * out->same_set_row_bytes, tot, sizeof tot),
         stat, t_mem.trials, ns, i ? "loaded" : "stored", i ? out->same_set_load_ns : out->same_set_store_ns,
         hw->levels[n - 1].name, hw->levels[n - 1].latency_cycles / cyc_ns);
  }
  if (hw->call_cycles > 0)
    cite(hw, "call_cycles", "timed libm exp/log calls on independent arguments: %.3g ns per call", out->call_ns);
  if (hw->coherence_cycles > 0)
    cite(hw, "coherence_cycles",
         "ppt calibrate%s: two threads pinned to CPUs %d and %d hand one 64 B line back and forth (atomic "
         "counter), %s of %d trials: %.3g ns per round trip, half of it per transfer",
         when, out->c2c_cpus[0], out->c2c_cpus[1], stat, cfg->quick ? 11 : 41, out->c2c_round_trip_ns);
  const char *bind = getenv("OMP_PROC_BIND") ? getenv("OMP_PROC_BIND") : "unset";
  const char *fj_how = out->fork_join_probe
                           ? "timed by ppt-ompcost (no SimGrid in the process)"
                           : "timed in the ppt process, which links SimGrid (ppt-ompcost failed, "
                             "see notes; up to ~2x high)";
  if (hw->fork_join_cycles > 0)
    cite(hw, "fork_join_cycles",
         "%s: empty OpenMP parallel-for regions on %u threads (OMP_PROC_BIND=%s): %.3g ns per region", fj_how,
         out->fork_join_threads, bind, out->fork_join_ns);
  if (hw->fork_join_serial_cycles > 0)
    cite(hw, "fork_join_serial_cycles",
         "%s: empty OpenMP parallel-for regions on 1 thread (serialised, OMP_PROC_BIND=%s): %.3g ns per "
         "region",
         fj_how, bind, out->fork_join_serial_ns);
  if (hw->branch_miss_cycles > 0)
    cite(hw, "branch_miss_cycles",
         "timed a loop branching on random vs predictable bytes: 1 MiB of random bytes %.3g ns per "
         "branch, the same sorted %.3g ns, half the random ones mispredicted: %.3g ns per mispredict",
         out->branch_random_ns, out->branch_sorted_ns, out->branch_miss_ns);
  if (hw->vector_bits)
    cite(hw, "vector_bits", "CPU feature flags (__builtin_cpu_supports): widest is %s (%u-bit registers)",
         vec_what, hw->vector_bits);
  for (uint32_t k = 0; k < n; k++) {
    const ppt_calib_cache *s = &out->caches.levels[k];
    char key[64], eff[160] = "";
    if (hw->levels[k].replacement == PPT_HW_REPL_RANDOM) {
      snprintf(eff, sizeof eff, "; size and ways from streaming sweeps (levels[%u].size), see notes", k);
    } else if (out->eff_bytes[k] && out->eff_bytes[k] < s->size) {
      /* The swept sizes on either side of the cut (the rule itself is in the notes). */
      int i = calib_effective_index(out->sweep_bytes[k], out->sweep_ns[k], out->sweep_n[k],
                                    out->lat_near_ns[k], out->lat_ns[n]);
      int up = -1;
      for (uint32_t j = 0; i >= 0 && j < out->sweep_n[k]; j++)
        if (out->sweep_bytes[k][j] > out->sweep_bytes[k][i] &&
            (up < 0 || out->sweep_bytes[k][j] < out->sweep_bytes[k][up]))
          up = (int)j;
      char s1[32], s2[32], s3[32];
      if (i >= 0 && up >= 0)
        snprintf(eff, sizeof eff,
                 "; size %s measured: chase %.3g ns at %s, %.3g ns at %s (cut %.3g ns), see notes",
                 calib_human_bytes(out->eff_bytes[k], s1, sizeof s1), out->sweep_ns[k][i],
                 calib_human_bytes(out->sweep_bytes[k][i], s2, sizeof s2), out->sweep_ns[k][up],
                 calib_human_bytes(out->sweep_bytes[k][up], s3, sizeof s3), 0.5 * (out->lat_near_ns[k] + out->lat_ns[n]));
      else
        snprintf(eff, sizeof eff, "; size %s measured, see notes", calib_human_bytes(out->eff_bytes[k], s1, sizeof s1));
    } else if (hw->levels[k].size != s->size || hw->levels[k].assoc != s->assoc) {
      snprintf(eff, sizeof eff, "; adjusted, see notes");
    }
    snprintf(key, sizeof key, "levels[%u]", k);
    cite(hw, key, "%s: level %u, %s, %u-way%s, %u B lines, shared by %s (%u CPU%s)%s", s->where, s->level,
         calib_human_bytes(s->size, sz, sizeof sz), s->assoc, s->assoc_assumed ? " (assumed)" : "", s->line,
         s->shared_cpu_list[0] ? s->shared_cpu_list : "?", s->shared_cpus, s->shared_cpus == 1 ? "" : "s", eff);
    snprintf(key, sizeof key, "levels[%u].latency_cycles", k);
    cite(hw, key,
         "ppt calibrate%s: pointer chase, random cyclic permutation of %u B lines over "
         "%s (%s), %s of %d: %.3g ns",
         when, hw->levels[0].line,
         calib_human_bytes(out->near[k] ? out->lat_near_bytes[k] : out->lat_bytes[k], sz, sizeof sz),
         out->near[k] ? "4x the level above; see notes" : "1/2 of the level", stat, t_mem.trials,
         out->near[k] ? out->lat_near_ns[k] : out->lat_ns[k]);
    snprintf(key, sizeof key, "levels[%u].bandwidth_bytes_per_cycle", k);
    cite(hw, key,
         "ppt calibrate%s: streaming 64-bit sum, %u thread(s) x %s%s, %s of %d: "
         "%.4g GB/s",
         when, out->bw_threads[k], calib_human_bytes(out->bw_bytes[k] / out->bw_threads[k], sz, sizeof sz), pinned_note,
         stat, t_mem.trials, out->bw_bytes_per_s[k] / 1e9);
    if (hw->levels[k].core_bw_bytes_per_cycle > 0) {
      snprintf(key, sizeof key, "levels[%u].core_bandwidth_bytes_per_cycle", k);
      cite(hw, key, "ppt calibrate%s: the same stream, 1 thread alone x %s, %s of %d: %.4g GB/s", when,
           calib_human_bytes(out->bw_bytes[k], sz, sizeof sz), stat, t_mem.trials, out->core_bw_bytes_per_s[k] / 1e9);
    }
    if (hw->levels[k].replacement == PPT_HW_REPL_RANDOM) {
      snprintf(key, sizeof key, "levels[%u].size", k);
      cite(hw, key,
           "ppt calibrate%s: 1 thread sweeping %s and %s: %.3g and %.3g GB/s (level %.3g, DRAM %.3g), "
           "so it served %.2f and %.2f; a random-replacement cache of %.3g MiB keeps that",
           when, calib_human_bytes(out->ret_bytes[k][0], sz, sizeof sz), calib_human_bytes(out->ret_bytes[k][1], sz2, sizeof sz2),
           out->ret_bw[k][0] / 1e9, out->ret_bw[k][1] / 1e9,
           (out->core_bw_bytes_per_s[k] > 0 ? out->core_bw_bytes_per_s[k] : out->bw_bytes_per_s[k]) / 1e9,
           out->dram_core_bytes_per_s / 1e9, out->ret_share[k][0], out->ret_share[k][1],
           (double)out->ret_capacity[k] / (1 << 20));
    }
  }
  if (hw->ntlb) {
    char tl[192] = "";
    for (uint32_t j = 0; j < hw->ntlb; j++)
      snprintf(tl + strlen(tl), sizeof tl - strlen(tl), "%s%s %u entries, %u ways", j ? "; " : "",
               hw->tlb[j].name, hw->tlb[j].entries, hw->tlb[j].assoc);
    cite(hw, "tlb", "%s: %s (4 KiB pages)", out->tlb_source, tl);
    char tm[192] = "";
    for (uint32_t j = 0; j < hw->ntlb; j++)
      snprintf(tm + strlen(tm), sizeof tm - strlen(tm), "%s%.3g ns over %llu pages", j ? ", " : "",
               out->tlb_miss_ns[j], (unsigned long long)out->tlb_pages[j]);
    char tkey[32];
    snprintf(tkey, sizeof tkey, "tlb[%u].miss_cycles", hw->ntlb - 1);
    cite(hw, tkey,
         "ppt calibrate%s: chase, one line per 4 KiB page, minus the same lines on huge pages, per level "
         "beyond the one above: %s; a walk pays their sum (upper levels: 0, see notes)",
         when, tm);
  }
  cite(hw, "dram.latency_ns",
       "ppt calibrate%s: pointer chase over %s (%dx %s), random order, "
       "%u B stride, %s pages, %s of %d",
       when, calib_human_bytes(out->lat_bytes[n], sz, sizeof sz), DRAM_FACTOR, calib_human_bytes(llc, sz2, sizeof sz2),
       2 * hw->levels[0].line, any_huge ? "huge" : "4 KiB", stat, t_mem.trials);
  cite(hw, "dram.bandwidth_gbs",
       "ppt calibrate%s: streaming 64-bit sum, %u thread(s) x %s read "
       "1 MiB at a time%s, %s of %d",
       when, out->bw_threads[n], calib_human_bytes(out->bw_bytes[n] / out->bw_threads[n], sz, sizeof sz), pinned_note,
       stat, t_mem.trials);
  char pin1[32] = "not pinned";
  if (out->dram_core_cpu >= 0) snprintf(pin1, sizeof pin1, "pinned to CPU %d", out->dram_core_cpu);
  cite(hw, "dram.core_bandwidth_gbs",
       "ppt calibrate%s: streaming 64-bit sum, 1 thread (%s) x %s read 1 MiB at a time, "
       "%s of %d: %.4g GB/s (all %u threads: %.4g GB/s)",
       when, pin1, calib_human_bytes(out->dram_core_bytes, sz, sizeof sz), stat, t_mem.trials, out->dram_core_bytes_per_s / 1e9,
       out->bw_threads[n], out->bw_bytes_per_s[n] / 1e9);
  cite(hw, "ops",
       "ppt calibrate%s: %d independent / 1 dependent scalar chains per class with asm "
       "barriers, each trial timed against an add-chain trial; idiv = 32-bit div; branch = taken loop branch (latency 0, not measured); "
       "loadst = L1 loads (latency: L1 chase)",
       when, 12);

  out->seconds = calib_now() - t_start;
  rc = ppt_hwspec_validate(hw, name, err);
  if (!rc) rc = ppt_hwspec_has_timing(hw, name, err);
  if (rc) {
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg);
    return ppt_err_set(err, PPT_ERUN, "calibrate: measured spec is invalid: %s", why);
  }
  return 0;
}

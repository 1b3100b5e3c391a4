/* calib_spec.c — the last stage of `ppt calibrate`: the measurements of calib.c as a
 * hwspec in cycles of the measured clock, its notes, and a citation for every figure
 * (docs/hwspec.md, `sources`; how each is measured: docs/calibrate.md). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>

#include "calib/calib_run.h"
#include "hwspec/hwspec_limits.h"
#include "ppt/cpu.h"

/* Three significant digits: measurements are not more precise, and the spec reads
 * better. */
double calib_sig3(double x) {
  if (!(x > 0) || !isfinite(x)) return x;
  double p = pow(10.0, 2 - floor(log10(x)));
  return round(x * p) / p;
}

void calib_cite(ppt_hwspec *hw, const char *key, const char *fmt, ...) {
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
    snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", buf[0] ? " and " : "",
             calib_geo_source_name(src));
  }
  return buf;
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

/* ---- the spec's figures ---- */

/* The retention sweeps of level k (calib_size.c), as "13 MiB 93.4 GB/s (0.96), ...". */
static void sweep_points(const ppt_calib_result *out, uint32_t k, char *pts, size_t size) {
  char sz[32];
  size_t len = 0;
  pts[0] = 0;
  for (uint32_t i = 0; i < out->ret_n[k] && len < size; i++)
    len += (size_t)snprintf(pts + len, size - len, "%s%s %.3g GB/s (%.2f)", i ? ", " : "",
                            calib_human_bytes(out->ret_bytes[k][i], sz, sizeof sz), out->ret_bw[k][i] / 1e9,
                            out->ret_share[k][i]);
}

/* A stream's view swept but not taken: the notes say what the sweeps read, so a spec
 * whose level stayed at the chase's size can be told from one the sweeps never ran for. */
static void note_sweeps_unused(calib_run *r, uint32_t k, uint64_t cap) {
  char pts[512], sz[32];
  if (!r->out->ret_n[k]) return;
  sweep_points(r->out, k, pts, sizeof pts);
  calib_note(r->notes, sizeof r->notes,
             "%s: streaming sweeps %s read a capacity of %s, outside the level inside and the sources' "
             "size; the size stays as the chase or the sources gave it.",
             r->hw->levels[k].name, pts, cap ? calib_human_bytes(cap, sz, sizeof sz) : "none");
}

/* Level k's latency, bandwidths and (when a stream's view replaces it) size. */
static void spec_level(calib_run *r, uint32_t k) {
  ppt_calib_result *out = r->out;
  ppt_hwspec *hw = r->hw;
  double clock = r->clock;
  double lat = calib_sig3((out->near[k] ? out->lat_near_ns[k] : out->lat_ns[k]) * r->cyc_ns);
  /* Noise (another process on the core) can invert two close levels; the schema wants
   * latencies to grow outwards, so a level never reads faster than the one above. */
  if (k > 0 && lat < hw->levels[k - 1].latency_cycles) {
    calib_note(r->notes, sizeof r->notes, "%s latency measured %.3g cycles, below %s; set equal.",
               hw->levels[k].name, lat, hw->levels[k - 1].name);
    lat = hw->levels[k - 1].latency_cycles;
  }
  hw->levels[k].latency_cycles = lat;
  hw->levels[k].bw_bytes_per_cycle = calib_sig3(out->bw_bytes_per_s[k] / clock);
  if (out->core_bw_bytes_per_s[k] > 0 && out->core_bw_bytes_per_s[k] < out->bw_bytes_per_s[k])
    hw->levels[k].core_bw_bytes_per_cycle = calib_sig3(out->core_bw_bytes_per_s[k] / clock);
  /* A stream's capacity above the level inside and at most the source's size: the
   * spec's size, with random replacement (the share of sweeps larger than it the level
   * still serves); calib_stream_size says the bounds. The ways start from the level's
   * own (CPUID's or sysfs'), not the spec geometry's: that one may already have been
   * rounded up to a power-of-two set count (a 19-way L3 modelled 38-way). */
  uint64_t cap = out->ret_capacity[k];
  if (k == 0) return;
  uint32_t ways = out->caches.levels[k].assoc ? out->caches.levels[k].assoc : hw->levels[k].assoc;
  int capped = 0;
  uint64_t size =
      calib_stream_size(cap, out->caches.levels[k].size, out->caches.levels[k].source == PPT_CALIB_GEO_SWEEP,
                        hw->levels[k - 1].size, k + 1 < r->n ? out->caches.levels[k + 1].size : 0,
                        hw->levels[k].line, &ways, &capped);
  if (!size) {
    note_sweeps_unused(r, k, cap);
    return;
  }
  /* The chase's size stays as the level's demand size: a pointer chase or a gather (an
   * access no prefetcher covers) finds its line only in that much of each set, the rest
   * of the stream's view serving streams. */
  uint64_t demand = out->eff_bytes[k] && out->eff_bytes[k] < size ? out->eff_bytes[k] : 0;
  hw->levels[k].size = size;
  hw->levels[k].assoc = ways;
  hw->levels[k].replacement = PPT_HW_REPL_RANDOM;
  hw->levels[k].demand_size = demand;
  char sz[32], sz2[32];
  calib_note(r->notes, sizeof r->notes,
             "%s: one core still streams part of sweeps larger than the chase says it holds; "
             "the spec takes the stream's view, %s%s with random replacement (chase: %s%s).",
             hw->levels[k].name, calib_human_bytes(size, sz, sizeof sz),
             capped ? " (the sources' size: the sweeps read more)" : "",
             out->eff_bytes[k] ? calib_human_bytes(out->eff_bytes[k], sz2, sizeof sz2)
             : out->caches.levels[k].source == PPT_CALIB_GEO_SWEEP
                 ? calib_human_bytes(out->caches.levels[k].size, sz2, sizeof sz2)
                 : "not sized",
             demand ? ", kept as its demand_size: what a gather or a chase finds" : "");
}

/* A level the sources call shared that two CPUs hold apart (calib_share.c): each core
 * (each instance of the level above) gets an instance of its own. With the chase's size
 * as the demand size and the stream's as the size, per-core instances price a Zen 3
 * guest's runtime validation at 16.2 % against 18.9 % shared on the same times
 * (docs/calibrate.md): jacobi's two halves each stream from their own L3. */
static void spec_sharing(calib_run *r, uint32_t k) {
  ppt_calib_result *out = r->out;
  ppt_hw_level *lv = &r->hw->levels[k];
  if (!out->share_private[k] || k == 0) return;
  uint32_t was = lv->shared_by;
  lv->shared_by = r->hw->levels[k - 1].shared_by;
  /* An instance per core: one core's stream measures the core's cap (the lines its fill
   * buffers bring in: core_bandwidth, kept), not the instance's, which also takes the
   * core's write-backs (a core moves more in and out than it streams in: on a Zen 5
   * host a copy moves 33 GB/s in + 17 out against a 26 GB/s read stream). The stream of
   * the CPUs together (two instances) is the most the level was seen to move and stays
   * the instance's figure. With the core's figure as the instance's, every write-back
   * would count against the core's read cap: on the Zen 5 guest that prices lu +18 to
   * +26 % where the L3 is voted private; with the stream of both CPUs lu is 39.4 ms
   * (1 thread) against 56.1, 44.4 measured (docs/calibrate.md). */
  char sz[32];
  calib_note(r->notes, sizeof r->notes,
             "%s acts as one instance per core (the sources: shared by %u): CPU %d chased %s at %.3g ns "
             "alone and %.3g ns while CPU %d chased as much of its own, %.0f %% of the way to DRAM's "
             "latency, where one shared instance would keep at most two thirds of the two sets; the spec "
             "gives each core its own.",
             lv->name, was, out->share_cpus[k][0], calib_human_bytes(out->share_bytes[k], sz, sizeof sz),
             out->share_alone_ns[k], out->share_together_ns[k], out->share_cpus[k][1],
             100 * out->share_evicted[k]);
}

/* v[0..n) to 3 digits into dst; n, or 0 when one of them is outside core_speed's range. */
static uint32_t spec_speeds(const double *v, uint32_t n, double *dst) {
  for (uint32_t i = 0; i < n && i < PPT_HW_MAX_SPEEDS; i++) {
    dst[i] = calib_sig3(v[i]);
    if (!(dst[i] >= HW_MIN_CORE_SPEED && dst[i] <= HW_MAX_CORE_SPEED)) return 0;
  }
  return n < PPT_HW_MAX_SPEEDS ? n : PPT_HW_MAX_SPEEDS;
}

/* mlp_same_set: the last level serves the column walk's misses, so the latency the
 * spec gives it over the cycles per line is how many of them overlap. Never more than
 * mlp (a walk queued on one set is no better than random misses: above it is noise)
 * nor less than 1. */
static void spec_same_set(calib_run *r) {
  ppt_calib_result *out = r->out;
  ppt_hwspec *hw = r->hw;
  if (!(out->same_set_load_ns > 0 && out->same_set_store_ns > 0)) return;
  const double ns[2] = {out->same_set_load_ns, out->same_set_store_ns};
  double *fig[2] = {&hw->mlp_same_set_load, &hw->mlp_same_set_store};
  for (int i = 0; i < 2; i++) {
    double x = hw->levels[r->n - 1].latency_cycles / (ns[i] * r->cyc_ns);
    if (x > hw->mlp) {
      calib_note(r->notes, sizeof r->notes, "mlp_same_set.%s measured %.3g, above mlp; capped at mlp.",
                 i ? "store" : "load", x);
      x = hw->mlp;
      out->same_set_capped = 1;
    }
    if (x < 1) x = 1;
    x = calib_sig3(x);
    *fig[i] = x > hw->mlp ? hw->mlp : x;
  }
}

/* The TLB levels. Only a page walk (a miss in the last level) is charged: an L1 DTLB
 * miss that hits the next level costs a dependent chase its few cycles, but in running
 * code it overlaps with the independent loads around it (on the validation host, huge
 * pages sped adi up by 0.2-0.3 ms where charging those misses predicted 2.3 ms, and
 * jacobi by ~1 ms, what its page walks predict). So the upper levels' miss_cycles are
 * 0, and a walk costs everything the chase measured through every level. */
static void spec_tlb(calib_run *r) {
  const ppt_calib_result *out = r->out;
  ppt_hwspec *hw = r->hw;
  hw->ntlb = out->tlb_n;
  double walk_ns = 0;
  for (uint32_t j = 0; j < out->tlb_n; j++) walk_ns += out->tlb_miss_ns[j] > 0 ? out->tlb_miss_ns[j] : 0;
  for (uint32_t j = 0; j < out->tlb_n; j++) {
    ppt_hw_tlb *tl = &hw->tlb[j];
    snprintf(tl->name, sizeof tl->name, "DTLB%u", j + 1);
    tl->entries = out->tlb_entries[j];
    tl->assoc = out->tlb_assoc[j];
    tl->page_bytes = 4096;
    tl->miss_cycles = j + 1 == out->tlb_n ? calib_sig3(walk_ns * r->cyc_ns) : 0;
    tl->in_flight = j + 1 == out->tlb_n && out->tlb_in_flight >= 1 ? calib_sig3(out->tlb_in_flight) : 0;
  }
}

/* The citation and the note name each depth's figure: three of them. */
_Static_assert(PPT_CALIB_FPWIN_N == 3, "fp_window's citation lists three depths");

/* FP ops waiting to issue, from the FP-window kernel (calib_window.c): at depth D an
 * element is a chain of D (fmul, fadd) pairs, F = 2D FP ops, and takes T cycles; S is
 * what the model's relation gives back for T (ppt_hwspec_window_size, the inverse of the
 * ppt_hwspec_window_cycles the program model prices such chains with), read with the
 * spec's own latencies and throughputs after rounding, so that the model gives back the
 * T timed. s[j] gets depth j's S (0 when not timed); returns their median, to 3 digits. */
static double fp_window_of(const calib_run *r, double s[PPT_CALIB_FPWIN_N]) {
  const ppt_calib_result *out = r->out;
  const ppt_hwspec *hw = r->hw;
  double v[PPT_CALIB_FPWIN_N];
  for (int j = 0; j < PPT_CALIB_FPWIN_N; j++) {
    double d = out->fpwin_depth[j], t = out->fpwin_ns[j] * r->cyc_ns;
    double chain[PPT_HW_NOPCLASS] = {0};
    chain[PPT_HW_FADD] = chain[PPT_HW_FMUL] = d;
    s[j] = v[j] = ppt_hwspec_window_size(hw, chain, chain, t);
  }
  gsl_sort(v, 1, PPT_CALIB_FPWIN_N);
  return calib_sig3(gsl_stats_median_from_sorted_data(v, 1, PPT_CALIB_FPWIN_N));
}

/* fp_window, or 0 (unknown: no bound) with a note when the median is outside the
 * schema's range (a kernel the ports bound, or a run spoiled by load). */
static void spec_fp_window(calib_run *r) {
  double s[PPT_CALIB_FPWIN_N], med = fp_window_of(r, s);
  r->hw->fp_window = med >= HW_MIN_FP_WINDOW && med <= HW_MAX_FP_WINDOW ? med : 0;
  if (r->hw->fp_window == 0)
    calib_note(r->notes, sizeof r->notes,
               "fp_window not measured: chains of dependent FP ops read %.3g ops waiting to issue "
               "(median of %.3g, %.3g, %.3g), outside %g-%g.",
               med, s[0], s[1], s[2], HW_MIN_FP_WINDOW, HW_MAX_FP_WINDOW);
}

/* fp_chains: the chains in flight the short kernel's time gives back (the model's
 * relation read backwards with the spec's latencies and throughputs), to 3 digits; 0
 * (no bound) with a note when outside the schema's range or when the window is not
 * known (the two are read together). */
static double fp_chains_of(const calib_run *r) {
  const ppt_calib_result *out = r->out;
  double d = out->fpchain_depth, chain[PPT_HW_NOPCLASS] = {0};
  chain[PPT_HW_FADD] = chain[PPT_HW_FMUL] = d;
  return calib_sig3(ppt_hwspec_window_chains(r->hw, chain, chain, out->fpchain_ns * r->cyc_ns));
}

static void spec_fp_chains(calib_run *r) {
  double e = r->hw->fp_window > 0 ? fp_chains_of(r) : 0;
  r->hw->fp_chains = e >= HW_MIN_FP_CHAINS && e <= HW_MAX_FP_CHAINS ? e : 0;
  if (r->hw->fp_window > 0 && r->hw->fp_chains == 0)
    calib_note(r->notes, sizeof r->notes,
               "fp_chains not measured: chains of %u (fmul, fadd) pairs read %.3g in flight, outside %g-%g.",
               r->out->fpchain_depth, e, HW_MIN_FP_CHAINS, HW_MAX_FP_CHAINS);
}

/* contention_factor: the false-sharing loop's wall time on two cores over one core's
 * (calib_contend.c), to 3 digits. 0 (not charged) when not measured, and with a note,
 * among the other notes of the two cores, when outside the schema's range: two cores
 * ahead of a perfect split of the work is a timing gone wrong, and 64 times one core's
 * time a thread waiting for its CPU (the CPUs were busy). */
static void spec_contention(calib_run *r) {
  const ppt_calib_result *out = r->out;
  double f = out->contend_one_ns > 0 && out->contend_two_ns > 0
                 ? calib_sig3(out->contend_two_ns / out->contend_one_ns)
                 : 0;
  r->hw->contention_factor = f >= HW_MIN_CONTENTION && f <= HW_MAX_CONTENTION ? f : 0;
  if (f > 0 && r->hw->contention_factor == 0)
    snprintf(r->contend_note, sizeof r->contend_note,
             "contention_factor not measured: the false-sharing loop read %.3gx one core's time (%.3g ns per "
             "iteration on CPUs %d and %d, %.3g ns on one), outside %g-%g.",
             f, out->contend_two_ns, out->c2c_cpus[0], out->c2c_cpus[1], out->contend_one_ns,
             HW_MIN_CONTENTION, HW_MAX_CONTENTION);
}

/* Every figure in cycles of r->clock, three significant digits. */
static void spec_figures(calib_run *r) {
  const ppt_calib_result *out = r->out;
  ppt_hwspec *hw = r->hw;
  double cyc_ns = r->cyc_ns;
  hw->clock_hz = calib_sig3(r->clock);
  hw->vector_bits = (uint32_t)vector_bits(&r->vec_what);
  for (uint32_t k = 0; k < r->n; k++) {
    spec_level(r, k);
    spec_sharing(r, k);
  }
  calib_spec_dram(r);
  for (int op = 0; op < PPT_HW_NOPCLASS; op++) {
    hw->ops[op].per_cycle = out->op_ns[op] > 0 ? calib_sig3(1.0 / (out->op_ns[op] * cyc_ns)) : 0;
    hw->ops[op].latency = calib_sig3(out->op_lat_ns[op] * cyc_ns);
  }
  /* Load-to-use latency is what the L1 pointer chase measured; a taken branch has no
   * result to wait for (0 = free, per docs/hwspec.md). */
  hw->ops[PPT_HW_LOADST].latency = hw->levels[0].latency_cycles;
  hw->mlp = calib_sig3(out->mlp);
  spec_same_set(r);
  hw->call_cycles = out->call_ns > 0 ? calib_sig3(out->call_ns * cyc_ns) : 0;
  /* A round trip is two transfers, one each way. */
  hw->coherence_cycles = out->c2c_round_trip_ns > 0 ? calib_sig3(0.5 * out->c2c_round_trip_ns * cyc_ns) : 0;
  hw->fork_join_cycles = out->fork_join_ns > 0 ? calib_sig3(out->fork_join_ns * cyc_ns) : 0;
  hw->fork_join_serial_cycles =
      out->fork_join_serial_ns > 0 ? calib_sig3(out->fork_join_serial_ns * cyc_ns) : 0;
  hw->branch_miss_cycles = out->branch_miss_ns > 0 ? calib_sig3(out->branch_miss_ns * cyc_ns) : 0;
  calib_spec_store_forward(r); /* after the op latencies: it takes the adds' off */
  spec_fp_window(r); /* after the op latencies: it reads the spec's */
  spec_fp_chains(r);
  /* Core and busy speeds to 3 digits, each list all or none (a core that could not be
   * timed, or a figure outside the schema's range, leaves its list out: 1 then). */
  hw->nspeeds = spec_speeds(out->speed, out->speed_n, hw->core_speed);
  hw->nbusy = spec_speeds(out->busy, out->busy_n, hw->busy_speed);
  spec_contention(r);
  spec_tlb(r);
  hw->ops[PPT_HW_BRANCH].latency = 0;
}

/* The spec's source line and notes: the figures' own notes first, then the CPU, the
 * geometry's, the latencies', coherence's and fork-join's, then what every spec says. */
static void spec_source_and_notes(calib_run *r) {
  const ppt_calib_result *out = r->out;
  ppt_hwspec *hw = r->hw;
  char gsrc[96];
  snprintf(hw->source, sizeof hw->source,
           "measured on this machine by `ppt calibrate%s` (ppt 0.1.0)%s%s; cache geometry "
           "from %s",
           r->cfg->quick ? " --quick" : "", *r->date ? " on " : "", r->date,
           geo_sources(&out->caches, gsrc, sizeof gsrc));
  calib_note(r->notes, sizeof r->notes, "CPU: %s, %u online logical CPUs, %u per core.",
             r->model[0] ? r->model : "unknown", out->online_cpus, out->smt);
  if (r->geo[0]) calib_note(r->notes, sizeof r->notes, "%s", r->geo);
  if (r->lat_notes[0]) calib_note(r->notes, sizeof r->notes, "%s", r->lat_notes);
  if (r->c2c_note[0]) calib_note(r->notes, sizeof r->notes, "%s", r->c2c_note);
  if (r->contend_note[0]) calib_note(r->notes, sizeof r->notes, "%s", r->contend_note);
  if (!out->fork_join_probe)
    calib_note(r->notes, sizeof r->notes,
               "Fork-join costs timed in this process, which links SimGrid and runs OpenMP regions up to "
               "~2x slower than the programs predicted (the ppt-ompcost probe failed: %s).",
               out->fork_join_note);
  calib_note(r->notes, sizeof r->notes,
             "Bandwidths are read-only streams, all threads of an "
             "instance together (shared levels, DRAM), so one core alone gets less; "
             "dram.core_bandwidth_gbs is one core streaming DRAM alone; dram.bandwidth_gbs is "
             "the triad's traffic where it moves more (its citation says). "
             "No level is marked inclusive. Only page walks are charged: an "
             "L1 DTLB miss that hits the L2 DTLB overlaps with independent loads in running code.%s%s",
             r->any_huge ? "" : " Huge pages were not available: latencies include TLB misses.",
             out->optimised ? "" : " Built without optimisation: op figures are unreliable.");
  snprintf(hw->notes, sizeof hw->notes, "%s", r->notes);
}

/* ---- citations, in the order the spec lists them ---- */

/* "pinned to CPU n" into buf, or "not pinned" for cpu -1. */
const char *calib_pinned_to(int cpu, char *buf, size_t size) {
  if (cpu >= 0)
    snprintf(buf, size, "pinned to CPU %d", cpu);
  else
    snprintf(buf, size, "not pinned");
  return buf;
}

/* The clock, the cores, the misses in flight. */
static void cite_clock_cores_mlp(calib_run *r) {
  const ppt_calib_result *out = r->out;
  ppt_hwspec *hw = r->hw;
  const char *when = r->when, *stat = r->stat;
  char home[32];
  calib_pinned_to(out->home_cpu, home, sizeof home);
  if (out->clock_method == PPT_CALIB_CLOCK_CHAIN)
    calib_cite(
        hw, "clock_ghz",
        "ppt calibrate%s: timed dependent 64-bit add chain, 1 add per cycle, %s of %d trials, twice, %s "
        "(%.4g GHz; /proc/cpuinfo cpu MHz: %.0f)",
        when, stat, r->t_clock.trials, home, out->clock_chain_hz / 1e9, r->mhz);
  else
    calib_cite(hw, "clock_ghz", "/proc/cpuinfo cpu MHz%s (add chain gave %.4g GHz%s)", when,
               out->clock_chain_hz / 1e9, out->optimised ? ", implausible" : " in an unoptimised build");
  calib_cite(hw, "cores", "%s; %u logical CPUs, %u per core, modelled", out->topology_source,
             out->package_cpus, out->smt);
  calib_cite(
      hw, "mlp",
      "independent random pointer chases beyond the caches (huge pages requested: the TLB does not bound "
      "them): k chains run %.3gx as many accesses/s as one (best k of 2..64)",
      out->mlp);
  for (int i = 0; i < 2 && hw->mlp_same_set_load > 0; i++) {
    char l1s[32], tot[32];
    double ns = i ? out->same_set_store_ns : out->same_set_load_ns;
    calib_cite(
        hw, i ? "mlp_same_set.store" : "mlp_same_set.load",
        "ppt calibrate%s: column walk %s, %u x %u rows of %s (%s set stride: a column is one set; %s), "
        "%s of %d trials: %.3g ns per line (%s %.3g); %s latency %.3g ns",
        when, i ? "storing" : "loading", out->same_set_bufs, out->same_set_rows,
        calib_human_bytes(out->same_set_row_bytes, l1s, sizeof l1s), hw->levels[0].name,
        calib_human_bytes((uint64_t)out->same_set_bufs * out->same_set_rows * out->same_set_row_bytes, tot,
                          sizeof tot),
        stat, r->t_mem.trials, ns, i ? "loaded" : "stored",
        i ? out->same_set_load_ns : out->same_set_store_ns, hw->levels[r->n - 1].name,
        hw->levels[r->n - 1].latency_cycles / r->cyc_ns);
  }
}

/* Calls, coherence, fork-join, branches, vectors. */
static void cite_scalars(calib_run *r) {
  const ppt_calib_result *out = r->out;
  ppt_hwspec *hw = r->hw;
  if (hw->call_cycles > 0)
    calib_cite(hw, "call_cycles", "timed libm exp/log calls on independent arguments: %.3g ns per call",
               out->call_ns);
  if (hw->coherence_cycles > 0)
    calib_cite(
        hw, "coherence_cycles",
        "ppt calibrate%s: two threads pinned to CPUs %d and %d hand one 64 B line back and forth (atomic "
        "counter), %s of %d trials: %.3g ns per round trip, half of it per transfer",
        r->when, out->c2c_cpus[0], out->c2c_cpus[1], r->stat, r->t_pair.trials, out->c2c_round_trip_ns);
  if (hw->contention_factor > 0)
    calib_cite(
        hw, "contention_factor",
        "ppt calibrate%s: loops adding a hash of each index into the thread's own 8 B word of one 64 B "
        "line, the one of five with the median factor (%d rounds), %s of %d: CPU %d alone %.3g ns per "
        "iteration, CPUs %d and %d together %.3g (wall); %.3g / %.3g",
        r->when, out->contend_rounds, r->stat, r->t_pair.trials, out->c2c_cpus[0], out->contend_one_ns,
        out->c2c_cpus[0], out->c2c_cpus[1], out->contend_two_ns, out->contend_two_ns, out->contend_one_ns);
  if (hw->nspeeds > 1)
    calib_cite(
        hw, "core_speed",
        "ppt calibrate%s: a mix of 8 op kernels (integer add chain and throughput, FP add and multiply "
        "throughput and latency, divides, loads), %s of %d trials each, pinned to CPUs %d, %d%s in turn; "
        "a core's speed is the geometric mean of CPU %d's time over its own",
        r->when, r->stat, r->t_ops.trials, out->speed_cpus[0], out->speed_cpus[1],
        out->speed_n > 2 ? ", ..." : "", out->speed_cpus[0]);
  if (hw->nbusy > 1) {
    char timed[160] = "";
    size_t len = 0;
    for (uint32_t j = 0; j < out->busy_nc && len < sizeof timed; j++)
      len += (size_t)snprintf(timed + len, sizeof timed - len, "%s%u: %.3g", j ? ", " : "",
                              out->busy_counts[j], out->busy_at[j]);
    calib_cite(
        hw, "busy_speed",
        "ppt calibrate%s: the core_speed mix on the first k of those CPUs at once, pinned, %s of %d trials "
        "each; at k, the slowest thread's speed (CPU %d alone over its time) over the slowest core_speed; "
        "timed at k = %s, straight lines between (above 1 taken as 1)",
        r->when, r->stat, r->t_ops.trials, out->speed_cpus[0], timed);
  }
  const char *bind = getenv("OMP_PROC_BIND") ? getenv("OMP_PROC_BIND") : "unset";
  const char *fj_how = out->fork_join_probe
                           ? "timed by ppt-ompcost (no SimGrid in the process)"
                           : "timed in the ppt process, which links SimGrid (ppt-ompcost failed, "
                             "see notes; up to ~2x high)";
  if (hw->fork_join_cycles > 0)
    calib_cite(hw, "fork_join_cycles",
               "%s: empty OpenMP parallel-for regions on %u threads (OMP_PROC_BIND=%s): %.3g ns per region",
               fj_how, out->fork_join_threads, bind, out->fork_join_ns);
  if (hw->fork_join_serial_cycles > 0)
    calib_cite(
        hw, "fork_join_serial_cycles",
        "%s: empty OpenMP parallel-for regions on 1 thread (serialised, OMP_PROC_BIND=%s): %.3g ns per "
        "region",
        fj_how, bind, out->fork_join_serial_ns);
  if (hw->branch_miss_cycles > 0)
    calib_cite(hw, "branch_miss_cycles",
               "timed a loop branching on random vs predictable bytes: 1 MiB of random bytes %.3g ns per "
               "branch, the same sorted %.3g ns, half the random ones mispredicted: %.3g ns per mispredict",
               out->branch_random_ns, out->branch_sorted_ns, out->branch_miss_ns);
  if (hw->fp_window > 0) {
    double s[PPT_CALIB_FPWIN_N];
    fp_window_of(r, s);
    double c = r->cyc_ns;
    calib_cite(
        hw, "fp_window",
        "ppt calibrate%s: 256 independent chains of D (fmul, fadd) pairs, D = %u/%u/%u: T = %.3g/%.3g/%.3g "
        "cycles each; F = 2D ops, P = D x %.3g cycles (spec latencies), T = (P + waits) F / (S + F): S = "
        "%.3g/%.3g/%.3g, median",
        r->when, out->fpwin_depth[0], out->fpwin_depth[1], out->fpwin_depth[2], out->fpwin_ns[0] * c,
        out->fpwin_ns[1] * c, out->fpwin_ns[2] * c,
        hw->ops[PPT_HW_FMUL].latency + hw->ops[PPT_HW_FADD].latency, s[0], s[1], s[2]);
  }
  if (hw->fp_chains > 0)
    calib_cite(
        hw, "fp_chains",
        "ppt calibrate%s: the same 256 chains at D = %u pairs: T = %.3g cycles each, E = (P + waits) / T "
        "chains in flight (the window alone would hold %.3g)",
        r->when, out->fpchain_depth, out->fpchain_ns * r->cyc_ns,
        1 + hw->fp_window / (2.0 * out->fpchain_depth));
  if (hw->store_forward_cycles > 0)
    calib_cite(
        hw, "store_forward_cycles",
        "ppt calibrate%s: `*p += i` on a volatile 8-byte word, each trip's load taking the last trip's "
        "store, timed against the add chain: %.3g cycles a trip, less the add's %.3g",
        r->when, out->forward_ns * r->cyc_ns, hw->ops[PPT_HW_IALU].latency);
  if (hw->store_forward_fp_cycles > 0)
    calib_cite(hw, "store_forward_fp_cycles",
               "ppt calibrate%s: `*p += 1.0` on a volatile double, each trip's load taking the last trip's "
               "store, timed against the add chain: %.3g cycles a trip, less the FP add's %.3g",
               r->when, out->forward_fp_ns * r->cyc_ns, hw->ops[PPT_HW_FADD].latency);
  if (hw->vector_bits)
    calib_cite(hw, "vector_bits",
               "CPU feature flags (__builtin_cpu_supports): widest is %s (%u-bit registers)", r->vec_what,
               hw->vector_bits);
}

/* What level k's geometry citation adds when the spec's size is not its source's:
 * into eff (size bytes), "" when it is. */
static void level_size_said(const calib_run *r, uint32_t k, char *eff, size_t size) {
  const ppt_calib_result *out = r->out;
  const ppt_calib_cache *s = &out->caches.levels[k];
  uint32_t n = r->n;
  eff[0] = '\0';
  if (r->hw->levels[k].replacement == PPT_HW_REPL_RANDOM) {
    char d[32];
    snprintf(
        eff, size, "; size and ways from streaming sweeps (levels[%u].size)%s%s, see notes", k,
        r->hw->levels[k].demand_size ? "; demand_size the chase's " : "",
        r->hw->levels[k].demand_size ? calib_human_bytes(r->hw->levels[k].demand_size, d, sizeof d) : "");
  } else if (out->eff_bytes[k] && out->eff_bytes[k] < s->size) {
    /* The swept sizes on either side of the cut (the rule itself is in the notes). */
    int i = calib_effective_index(out->sweep_bytes[k], out->sweep_ns[k], out->sweep_n[k], out->lat_near_ns[k],
                                  out->lat_ns[n]);
    int up = -1;
    for (uint32_t j = 0; i >= 0 && j < out->sweep_n[k]; j++)
      if (out->sweep_bytes[k][j] > out->sweep_bytes[k][i] &&
          (up < 0 || out->sweep_bytes[k][j] < out->sweep_bytes[k][up]))
        up = (int)j;
    char s1[32], s2[32], s3[32];
    if (i >= 0 && up >= 0)
      snprintf(eff, size,
               "; size %s (%u ways) measured: chase %.3g ns at %s, %.3g ns at %s (cut %.3g ns), see notes",
               calib_human_bytes(out->eff_bytes[k], s1, sizeof s1), r->hw->levels[k].assoc,
               out->sweep_ns[k][i], calib_human_bytes(out->sweep_bytes[k][i], s2, sizeof s2),
               out->sweep_ns[k][up], calib_human_bytes(out->sweep_bytes[k][up], s3, sizeof s3),
               0.5 * (out->lat_near_ns[k] + out->lat_ns[n]));
    else
      snprintf(eff, size, "; size %s measured, see notes",
               calib_human_bytes(out->eff_bytes[k], s1, sizeof s1));
  } else if (r->hw->levels[k].size != s->size || r->hw->levels[k].assoc != s->assoc) {
    snprintf(eff, size, "; adjusted, see notes");
  }
}

/* Level k: its geometry, latency, bandwidths and (random replacement) size. */
static void cite_level(calib_run *r, uint32_t k) {
  const ppt_calib_result *out = r->out;
  ppt_hwspec *hw = r->hw;
  const ppt_calib_cache *s = &out->caches.levels[k];
  const char *when = r->when, *stat = r->stat;
  int trials = r->t_mem.trials;
  char key[64], eff[160], sz[32];
  level_size_said(r, k, eff, sizeof eff);
  snprintf(key, sizeof key, "levels[%u]", k);
  calib_cite(
      hw, key, "%s: level %u, %s, %u-way%s, %u B lines, shared by %s (%u CPU%s)%s%s", s->where, s->level,
      calib_human_bytes(s->size, sz, sizeof sz), s->assoc, s->assoc_assumed ? " (assumed)" : "", s->line,
      s->shared_cpu_list[0] ? s->shared_cpu_list : "?", s->shared_cpus, s->shared_cpus == 1 ? "" : "s", eff,
      hw->levels[k].hashed_sets ? "; sets hashed (a sliced last level: a hash of the physical address picks "
                                  "the slice, 4 KiB frames scatter the set bits)"
                                : "");
  snprintf(key, sizeof key, "levels[%u].latency_cycles", k);
  calib_cite(hw, key,
             "ppt calibrate%s: pointer chase, random cyclic permutation of %u B lines over "
             "%s (%s), %s of %d: %.3g ns",
             when, hw->levels[0].line,
             calib_human_bytes(out->near[k] ? out->lat_near_bytes[k] : out->lat_bytes[k], sz, sizeof sz),
             out->near[k] ? "just past the level above; see notes" : "1/2 of the level", stat, trials,
             out->near[k] ? out->lat_near_ns[k] : out->lat_ns[k]);
  snprintf(key, sizeof key, "levels[%u].bandwidth_bytes_per_cycle", k);
  /* A level made one instance per core (spec_sharing) has one core's figure. */
  int one = out->share_private[k] && out->core_bw_bytes_per_s[k] > 0 &&
            out->core_bw_bytes_per_s[k] < out->bw_bytes_per_s[k];
  if (one)
    calib_cite(
        hw, key,
        "ppt calibrate%s: streaming 64-bit sum, 1 thread alone x %s, %s of %d: %.4g GB/s (one instance per "
        "core, see notes; %u threads together: %.4g GB/s)",
        when, calib_human_bytes(out->bw_bytes[k], sz, sizeof sz), stat, trials,
        out->core_bw_bytes_per_s[k] / 1e9, out->bw_threads[k], out->bw_bytes_per_s[k] / 1e9);
  else
    calib_cite(hw, key,
               "ppt calibrate%s: streaming 64-bit sum, %u thread(s) x %s%s, %s of %d: "
               "%.4g GB/s",
               when, out->bw_threads[k],
               calib_human_bytes(out->bw_bytes[k] / out->bw_threads[k], sz, sizeof sz), r->pinned_note, stat,
               trials, out->bw_bytes_per_s[k] / 1e9);
  if (hw->levels[k].core_bw_bytes_per_cycle > 0) {
    snprintf(key, sizeof key, "levels[%u].core_bandwidth_bytes_per_cycle", k);
    calib_cite(hw, key, "ppt calibrate%s: the same stream, 1 thread alone x %s, %s of %d: %.4g GB/s", when,
               calib_human_bytes(out->bw_bytes[k], sz, sizeof sz), stat, trials,
               out->core_bw_bytes_per_s[k] / 1e9);
  }
  if (hw->levels[k].replacement == PPT_HW_REPL_RANDOM) {
    snprintf(key, sizeof key, "levels[%u].size", k);
    char pts[512];
    sweep_points(out, k, pts, sizeof pts);
    calib_cite(hw, key,
               "ppt calibrate%s: 1 thread sweeping %s (level %.3g, DRAM %.3g GB/s: the share it served); "
               "divided by the best share, a random-replacement cache of %.3g MiB keeps those that fall",
               when, pts,
               (out->core_bw_bytes_per_s[k] > 0 ? out->core_bw_bytes_per_s[k] : out->bw_bytes_per_s[k]) / 1e9,
               out->dram_core_bytes_per_s / 1e9, (double)out->ret_capacity[k] / (1 << 20));
  }
}

/* The TLB levels and the walk's cost. */
static void cite_tlb(calib_run *r) {
  const ppt_calib_result *out = r->out;
  ppt_hwspec *hw = r->hw;
  if (!hw->ntlb) return;
  char tl[192] = "";
  for (uint32_t j = 0; j < hw->ntlb; j++)
    snprintf(tl + strlen(tl), sizeof tl - strlen(tl), "%s%s %u entries, %u ways", j ? "; " : "",
             hw->tlb[j].name, hw->tlb[j].entries, hw->tlb[j].assoc);
  calib_cite(hw, "tlb", "%s: %s (4 KiB pages)", out->tlb_source, tl);
  char tm[192] = "";
  for (uint32_t j = 0; j < hw->ntlb; j++)
    snprintf(tm + strlen(tm), sizeof tm - strlen(tm), "%s%.3g ns over %llu pages", j ? ", " : "",
             out->tlb_miss_ns[j], (unsigned long long)out->tlb_pages[j]);
  char tkey[32];
  snprintf(tkey, sizeof tkey, "tlb[%u].miss_cycles", hw->ntlb - 1);
  calib_cite(hw, tkey,
             "ppt calibrate%s: chase, one line per 4 KiB page, minus the same lines on huge pages, per level "
             "beyond the one above: %s; a walk pays their sum (upper levels: 0, see notes)",
             r->when, tm);
  if (hw->tlb[hw->ntlb - 1].in_flight > 0) {
    snprintf(tkey, sizeof tkey, "tlb[%u].in_flight", hw->ntlb - 1);
    calib_cite(hw, tkey,
               "ppt calibrate%s: over %llu pages, the chase's walk (%.3g ns more than on huge pages) over "
               "loads of the same lines in the same order, addresses from an array (%.3g ns more)",
               r->when, (unsigned long long)out->tlb_pages[hw->ntlb - 1], out->tlb_walk_chase_ns,
               out->tlb_walk_load_ns);
  }
}

/* DRAM's three figures (calib_spec_dram.c) and the ops. */
static void cite_dram_ops(calib_run *r) {
  const ppt_calib_result *out = r->out;
  char home[32];
  calib_pinned_to(out->home_cpu, home, sizeof home);
  calib_cite_dram(r);
  calib_cite(
      r->hw, "ops",
      "ppt calibrate%s: %d independent / 1 dependent scalar chains per class with asm "
      "barriers, each trial timed against an add-chain trial, %s; idiv = 32-bit div; branch = taken loop "
      "branch (latency 0, not measured); "
      "loadst = L1 loads (latency: L1 chase)",
      r->when, 12, home);
}

void calib_spec_build(calib_run *r) {
  r->cyc_ns = r->clock * 1e-9;
  r->notes[0] = '\0';
  r->vec_what = NULL;
  spec_figures(r);
  spec_source_and_notes(r);
  r->when[0] = '\0';
  if (*r->date) snprintf(r->when, sizeof r->when, " on %s", r->date);
  r->stat = r->t_mem.typical ? "median" : "best";
  cite_clock_cores_mlp(r);
  cite_scalars(r);
  for (uint32_t k = 0; k < r->n; k++) cite_level(r, k);
  cite_tlb(r);
  cite_dram_ops(r);
}

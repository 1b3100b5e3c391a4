/* cmd_predict.c — `ppt predict`: multicore runtime of a program from its sequential
 * trace. For each core count: SASMM mimics the cores (ppt/sasmm.h), the program model
 * turns phases into fork-join regions of tasklists (ppt/progmodel.h), and the SimGrid
 * engine simulates them on a node of the hwspec (ppt/engine.h). */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ppt/engine.h"
#include "ppt/hwspec.h"
#include "ppt/io.h"
#include "ppt/progmodel.h"
#include "ppt/trace.h"

/* part / of as a JSON number; null when of is 0. */
static json_object *share(uint64_t part, uint64_t of) {
  return of ? json_object_new_double((double)part / (double)of) : NULL;
}

static void help(void) {
  ppt_tc_policy def;
  ppt_tc_policy_default(&def);
  char frac[32] = "";
  if (def.overlap == PPT_OVERLAP_PARTIAL) snprintf(frac, sizeof frac, ",%.2f", def.fraction);
  printf(
      "usage: ppt predict TRACE --hw SPEC [--cores 1,2,4,8,16] [options]\n\n"
      "Predicts the runtime of the traced program on N cores of the CPU in SPEC (a hwspec with\n"
      "timing data: clock, latencies, bandwidths, op throughputs), with hit rates, speedup and\n"
      "a time breakdown per core count.\n\n"
      "  --hw SPEC             hwspec JSON with timing (e.g. hwspecs/host.json)\n" PPT_CLI_SET_HELP
      "  --cores LIST          core counts (default 1,2,4,8,16)\n"
      "  --overlap P           compute/memory overlap: sum, max, partial,F or stall (default %s%s)\n"
      "  --compute M           op classes: sum (PPT: one after the other) or ports (the busiest\n"
      "                        class, an out-of-order core's throughput bound) (default %s)\n"
      "  --memory M            hit rates to time: amm (AMM Eq. 4-5) or miss (per line moved\n"
      "                        beyond L1, latency unless prefetched) (default %s)\n"
      "  --schedule S          override every loop's schedule as the pragma would say it (static,\n"
      "                        static,C, [monotonic:]dynamic,C, guided[,C], auto)\n"
      "  --interleave rr|uniform  shared-cache interleaving (default rr)\n"
      "  --seed S              seed for uniform interleaving and random-replacement victims\n"
      "                        (default 1)\n"
      "  --coherence           write-invalidate coherence in the cache simulation: a core's\n"
      "                        store drops the line from the other cores' caches, so their\n"
      "                        next access is a cache-to-cache transfer (latency: the spec's\n"
      "                        coherence_cycles) (default off, as Cachegrind; costs one\n"
      "                        lookup per store and other instance)\n"
      "  --fork-cycles C       cost of a parallel region's fork and join, per thread\n"
      "                        (default: the spec's fork_join_cycles, else 0)\n" PPT_CLI_ONLY_HELP
      "  --models LIST         also the runtime under each core model in LIST, comma-separated\n"
      "                        COMPUTE/MEMORY/OVERLAP items (OVERLAP: sum, max, stall or\n"
      "                        partial:F), e.g. ports/miss/partial:0.25,sum/amm/max; one\n"
      "                        cache simulation per core count serves them all\n"
      "  --plot FILE.png       runtime and speedup against cores (gnuplot), and FILE-regions.png:\n"
      "                        per core count, a stacked bar per top region (6, then 'other'):\n"
      "                        compute and memory (the threads' mean busy time, split in the\n"
      "                        critical thread's ratio), imbalance, fork-join\n" PPT_CLI_NOSTACK_HELP
      "  --json                machine-readable results on stdout\n"
      "  -h, --help\n",
      ppt_tc_overlap_name(def.overlap), frac, ppt_tc_compute_name(def.compute),
      ppt_tc_memory_name(def.memory));
}

/* A site of the program model (ppt/progmodel.h) summed over its phases at one core
 * count: the engine's seconds and breakdown of its regions, its hit rates. */
typedef struct site_row {
  char function[128], file[256];
  uint32_t line;
  int parallel;
  uint64_t instances;
  double runtime_s, compute_s, memory_s, imbalance_s, fork_join_s;
  double seg_compute, seg_memory; /* --plot: mean busy time less fork-join, split */
  ppt_progmodel_site_info info;   /* counts and rates (its strings are not kept) */
} site_row;

typedef struct point {
  uint32_t n;
  double seconds, compute_s, memory_s, wait_s;
  size_t regions;
  ppt_tracesim_result rates;
  site_row *rows; /* sorted by runtime_s, largest first */
  size_t nrows;
} point;

/* A core model of --models: its name as given and its policy. */
typedef struct model {
  char name[64];
  ppt_tc_policy pol;
} model;

typedef struct args {
  ppt_cli_common c; /* --hw, --cores, --interleave, --seed, --only, --plot, --json; c.operand: the trace */
  ppt_sasmm_opts so;
  ppt_node_config cfg;
  model models[64]; /* --models */
  size_t nmodels;
  double fork_cycles; /* --fork-cycles, when fork_set */
  int fork_set;
} args;

typedef struct results {
  ppt_hwspec hw;
  double fork_cycles; /* of a region on more than one thread: --fork-cycles, else the spec's */
  point *pts;         /* one per core count */
  size_t npts;
  double *mrt; /* --models: runtime of model j on core count i at mrt[j * ncores + i] */
} results;

/* Largest runtime first; ties in source order, so that output does not depend on qsort. */
static int by_runtime(const void *a, const void *b) {
  const site_row *x = a, *y = b;
  if (x->runtime_s != y->runtime_s) return x->runtime_s < y->runtime_s ? 1 : -1;
  int c = strcmp(x->file, y->file);
  if (c) return c;
  if (x->line != y->line) return x->line < y->line ? -1 : 1;
  return x->parallel - y->parallel;
}

/* One row per site of m, with its counts and rates; 0 or -1 (memory). */
static int site_rows(const ppt_progmodel *m, point *pt) {
  size_t ns = ppt_progmodel_nsites(m);
  if (!(pt->rows = calloc(ns + 1, sizeof *pt->rows))) return -1;
  pt->nrows = ns;
  for (size_t i = 0; i < ns; i++) {
    site_row *w = &pt->rows[i];
    ppt_progmodel_site(m, i, PPT_PROGMODEL_ALL_CORES, &w->info);
    snprintf(w->function, sizeof w->function, "%s", w->info.function);
    snprintf(w->file, sizeof w->file, "%s", w->info.file);
    w->info.function = w->info.file = NULL;
    w->line = w->info.line;
    w->parallel = w->info.parallel;
    w->instances = w->info.instances;
  }
  return 0;
}

/* Critical-path breakdown: in every region, the thread that finished last; and the
 * same per site (region g of the engine is phase g of the program model). fj_s: the
 * fork-join cost the engine charges in a region that forks (sim.c). */
static int breakdown(const ppt_node_result *r, const ppt_progmodel *m, uint32_t n, double fj_s, point *pt,
                     ppt_err *err) {
  if (ppt_node_result_nregions(r) != ppt_progmodel_nregions(m))
    return ppt_err_set(err, PPT_ERUN, "predict: %zu regions simulated, %zu modelled",
                       ppt_node_result_nregions(r), ppt_progmodel_nregions(m));
  if (site_rows(m, pt)) return ppt_err_set(err, PPT_ERUN, "out of memory");
  for (size_t g = 0; g < ppt_node_result_nregions(r); g++) {
    ppt_region_stats rs;
    ppt_region reg;
    if (ppt_node_result_region(r, g, &rs) || ppt_program_region(ppt_progmodel_program(m), g, &reg)) continue;
    ppt_thread_stats best = {0}, ts;
    double busy_sum = 0;
    uint32_t nt = rs.parallel ? rs.nthreads : 1;
    for (uint32_t th = 0; th < nt && th < n; th++) {
      if (ppt_node_result_thread(r, g, th, &ts)) continue;
      busy_sum += ts.busy_s;
      if (ts.busy_s >= best.busy_s) best = ts;
    }
    pt->compute_s += best.compute_s;
    pt->memory_s += best.memory_s;
    double wait = rs.seconds - busy_sum / nt;
    wait = wait > 0 ? wait : 0; /* rounding can leave -1e-18 */
    pt->wait_s += wait;
    site_row *w = &pt->rows[ppt_progmodel_phase_site(m, g)];
    double mean = busy_sum / nt, fj = reg.kind == PPT_REGION_FORK ? fj_s : 0;
    fj = fj < mean ? fj : mean;
    double cm = best.compute_s + best.memory_s, work = mean - fj;
    w->runtime_s += rs.seconds;
    w->compute_s += best.compute_s;
    w->memory_s += best.memory_s;
    w->imbalance_s += wait;
    w->fork_join_s += fj;
    w->seg_compute += cm > 0 ? work * best.compute_s / cm : work;
    w->seg_memory += cm > 0 ? work * best.memory_s / cm : 0;
  }
  qsort(pt->rows, pt->nrows, sizeof *pt->rows, by_runtime);
  return 0;
}

/* One COMPUTE/MEMORY/OVERLAP item (OVERLAP partial:F is --overlap's partial,F, since
 * commas separate the items); 0 on success. */
static int parse_model(const char *item, model *out) {
  char buf[64], *mem, *ov, *colon;
  if (snprintf(buf, sizeof buf, "%s", item) >= (int)sizeof buf) return -1;
  snprintf(out->name, sizeof out->name, "%s", item);
  if (!(mem = strchr(buf, '/')) || !(ov = strchr(mem + 1, '/'))) return -1;
  *mem++ = 0;
  *ov++ = 0;
  if ((colon = strchr(ov, ':'))) *colon = ',';
  ppt_tc_policy_default(&out->pol);
  if (ppt_tc_compute_parse(buf, &out->pol.compute) || ppt_tc_memory_parse(mem, &out->pol.memory) ||
      ppt_tc_overlap_parse(ov, &out->pol))
    return -1;
  return 0;
}

/* Splits LIST at commas into models[0..*n); on a bad item, returns -1 with it in bad. */
static int parse_models(const char *list, model *models, size_t max, size_t *n, char *bad, size_t badsz) {
  *n = 0;
  for (const char *p = list;; p++) {
    size_t len = strcspn(p, ",");
    char item[64];
    snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item - 1 ? len : sizeof item - 1), p);
    if (len >= sizeof item || *n == max || parse_model(item, &models[*n])) {
      snprintf(bad, badsz, "%.*s", (int)len, p);
      return -1;
    }
    (*n)++;
    p += len;
    if (!*p) return 0;
  }
}

/* ---------------------------------------------------------------- options */

static int take(void *arg, int val, const char *value) {
  args *a = arg;
  char bad[256];
  switch (val) {
    case 'v':
      if (ppt_tc_overlap_parse(value, &a->cfg.policy))
        return ppt_cli_usage("predict", "--overlap wants sum, max, partial,F or stall, not '%s'", value);
      return 0;
    case 'C':
      if (ppt_tc_compute_parse(value, &a->cfg.policy.compute))
        return ppt_cli_usage("predict", "--compute wants sum or ports, not '%s'", value);
      return 0;
    case 'M':
      if (ppt_tc_memory_parse(value, &a->cfg.policy.memory))
        return ppt_cli_usage("predict", "--memory wants amm or miss, not '%s'", value);
      return 0;
    case 's': return ppt_cli_take_schedule("predict", value, &a->so.sched, &a->so.chunk);
    case 'f':
      if (ppt_cli_parse_double(value, &a->fork_cycles) || a->fork_cycles < 0)
        return ppt_cli_usage("predict", "--fork-cycles wants a number >= 0, not '%s'", value);
      a->fork_set = 1;
      return 0;
    case 'm':
      if (parse_models(value, a->models, sizeof a->models / sizeof *a->models, &a->nmodels, bad, sizeof bad))
        return ppt_cli_usage("predict", "--models: bad item '%s' (want COMPUTE/MEMORY/OVERLAP, e.g. %s)", bad,
                             "ports/miss/partial:0.25");
      return 0;
    default: a->so.coherence = 1; return 0; /* --coherence */
  }
}

static int parse_args(int argc, char **argv, void *va) {
  static const struct option own[] = {
      {"overlap", required_argument, 0, 'v'},     {"schedule", required_argument, 0, 's'},
      {"fork-cycles", required_argument, 0, 'f'}, {"compute", required_argument, 0, 'C'},
      {"memory", required_argument, 0, 'M'},      {"models", required_argument, 0, 'm'},
      {"coherence", no_argument, 0, 'K'},         {0, 0, 0, 0}};
  static const ppt_cli_spec spec = {.cmd = "predict",
                                    .shared = PPT_OPT_HW | PPT_OPT_SET | PPT_OPT_CORES | PPT_OPT_INTERLEAVE |
                                              PPT_OPT_SEED | PPT_OPT_ONLY | PPT_OPT_PLOT | PPT_OPT_JSON |
                                              PPT_OPT_NOSTACK,
                                    .own = own,
                                    .take = take,
                                    .help = help,
                                    .operand = "TRACE"};
  args *a = va;
  ppt_sasmm_opts_default(&a->so);
  ppt_node_config_default(&a->cfg);
  int rc = ppt_cli_parse(&spec, argc, argv, &a->c, a);
  a->so.interleave = a->c.interleave[0];
  a->so.seed = a->c.seed;
  return rc;
}

/* ---------------------------------------------------------------- run */

/* Runs m's program on a node configured by cfg. */
static int simulate(const ppt_hwspec *hw, const ppt_node_config *cfg, const ppt_progmodel *m,
                    ppt_node_result **res, ppt_err *err) {
  ppt_node *node = NULL;
  int rc = ppt_node_new(hw, cfg, &node, err);
  if (!rc) rc = ppt_node_run(node, ppt_progmodel_program(m), res, err);
  ppt_node_free(node);
  return rc;
}

/* The prediction for core count i, and the other core models' runtimes from the same
 * cache simulation (only the tasklists change). */
static int predict_point(const args *a, results *r, const ppt_trace *t, const uint8_t *counted, size_t i,
                         ppt_err *err) {
  uint32_t n = a->c.cores[i];
  ppt_sasmm_opts so = a->so;
  ppt_node_config cfg = a->cfg;
  so.ncores = cfg.cores = n;
  /* One thread runs a parallel region serialised: no threads to wake or join, but
   * libomp still enters and leaves the region and sets up its loops (measured by
   * ppt calibrate: fork_join_serial_cycles; 540 ns against ~1060 ns on 2 threads on
   * the validation host). --fork-cycles sets the multi-thread figure only. */
  cfg.fork_cycles = n > 1 ? r->fork_cycles : r->hw.fork_join_serial_cycles;
  ppt_progmodel *m = NULL;
  ppt_node_result *res = NULL;
  point *pt = &r->pts[i];
  int rc = ppt_progmodel_build(t, &r->hw, &so, &cfg.policy, counted, &m, err);
  if (!rc && !(rc = simulate(&r->hw, &cfg, m, &res, err))) {
    pt->n = n;
    pt->seconds = ppt_node_result_seconds(res);
    pt->regions = ppt_progmodel_nregions(m);
    pt->rates = *ppt_progmodel_hitrates(m);
    rc = breakdown(res, m, n, (cfg.fork_cycles + cfg.join_cycles) / r->hw.clock_hz, pt, err);
  }
  for (size_t j = 0; j < a->nmodels && !rc; j++) {
    ppt_node_result_free(res);
    res = NULL;
    cfg.policy = a->models[j].pol;
    if (!(rc = ppt_progmodel_set_policy(m, &cfg.policy, err)) && !(rc = simulate(&r->hw, &cfg, m, &res, err)))
      r->mrt[j * a->c.ncores + i] = ppt_node_result_seconds(res);
  }
  ppt_node_result_free(res);
  ppt_progmodel_free(m);
  return rc;
}

static int run(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  results *r = vr;
  ppt_trace *t = NULL;
  uint8_t *counted = NULL;
  int rc = ppt_cli_load_hw(&a->c, &r->hw, err);
  if (!rc) rc = ppt_hwspec_has_timing(&r->hw, a->c.hw, err);
  if (!rc) rc = ppt_cli_open_sequential(a->c.operand, &t, err);
  if (!rc) ppt_cli_stack_refs(&a->c, t);
  if (!rc) rc = ppt_cli_counted(&a->c, t, &counted, err);
  if (!rc) rc = ppt_cli_check_memory(&a->c, t, &r->hw, 1, 1, err);
  if (rc) {
    ppt_trace_close(t);
    return rc;
  }
  /* The fork-join cost of a region: --fork-cycles, else the spec's measured figure. */
  r->fork_cycles = a->fork_set ? a->fork_cycles : r->hw.fork_join_cycles;
  size_t nc = a->c.ncores;
  r->pts = calloc(nc, sizeof *r->pts);
  r->mrt = calloc(a->nmodels * nc + 1, sizeof *r->mrt);
  if (!r->pts || !r->mrt) rc = ppt_err_set(err, PPT_ERUN, "out of memory");
  if (r->pts) r->npts = nc;
  ppt_cli_progress *prog = ppt_cli_progress_start("predicting", nc);
  for (size_t i = 0; i < nc && !rc; i++) {
    rc = predict_point(a, r, t, counted, i, err);
    ppt_cli_progress_update(prog, i + 1);
  }
  ppt_cli_progress_end(prog);
  free(counted);
  ppt_trace_close(t);
  return rc;
}

/* ---------------------------------------------------------------- output */

static json_object *settings_json(const args *a, const results *r) {
  const ppt_tc_policy *pol = &a->cfg.policy;
  json_object *set = json_object_new_object();
  json_object_object_add(set, "overlap", json_object_new_string(ppt_tc_overlap_name(pol->overlap)));
  json_object_object_add(set, "overlap_fraction", json_object_new_double(ppt_tc_policy_fraction(pol)));
  json_object_object_add(set, "interleave", json_object_new_string(ppt_interleave_name(a->so.interleave)));
  json_object_object_add(set, "seed", json_object_new_int64((int64_t)a->c.seed));
  json_object_object_add(set, "coherence", json_object_new_boolean(a->so.coherence));
  json_object_object_add(set, "fork_cycles", json_object_new_double(r->fork_cycles));
  json_object_object_add(set, "compute", json_object_new_string(ppt_tc_compute_name(pol->compute)));
  json_object_object_add(set, "memory", json_object_new_string(ppt_tc_memory_name(pol->memory)));
  return set;
}

/* Per level: hit rates, and of the references the level served, the shares the
 * prefetcher model covered, whose first-level miss queued on one set (ppt/missq.h) and
 * that came from another core's cache. */
static json_object *levels_json(const ppt_hwspec *hw, const ppt_tracesim_result *q) {
  json_object *lv = json_object_new_array();
  for (uint32_t k = 0; k < q->nlevels; k++) {
    json_object *l = json_object_new_object();
    json_object_object_add(l, "name", json_object_new_string(hw->levels[k].name));
    json_object_object_add(l, "hit_rate", ppt_cli_json_rate(q->levels[k].ref_hit_rate));
    json_object_object_add(l, "local_hit_rate", ppt_cli_json_rate(q->levels[k].ref_local_hit_rate));
    if (k > 0) {
      json_object_object_add(l, "prefetched", share(q->prefetched[k], q->served[k]));
      json_object_object_add(l, "same_set", share(q->same_set[k], q->served[k]));
      json_object_object_add(l, "transfers", share(q->transfers[k], q->served[k]));
    }
    json_object_array_add(lv, l);
  }
  return lv;
}

static json_object *dram_json(const ppt_tracesim_result *q) {
  uint32_t d = q->nlevels;
  json_object *dr = json_object_new_object();
  json_object_object_add(dr, "served", json_object_new_int64((int64_t)q->served[d]));
  json_object_object_add(dr, "prefetched", share(q->prefetched[d], q->served[d]));
  json_object_object_add(dr, "same_set", share(q->same_set[d], q->served[d]));
  json_object_object_add(dr, "transfers", share(q->transfers[d], q->served[d]));
  return dr;
}

/* Data TLB: the share of references missing every TLB level up to this one. */
static json_object *tlb_json(const ppt_tracesim_result *q) {
  json_object *ta = json_object_new_array();
  uint64_t miss = q->counted_refs;
  for (uint32_t j = 0; j < q->ntlb; j++) {
    json_object *l = json_object_new_object();
    miss -= q->tlb_served[j];
    json_object_object_add(l, "name", json_object_new_string(q->tlb_names[j]));
    json_object_object_add(l, "miss_rate", json_object_new_double((double)miss / (double)q->counted_refs));
    json_object_array_add(ta, l);
  }
  return ta;
}

/* The sites, largest runtime first (docs/engine.md, "Regions in the output"). */
static json_object *regions_json(const ppt_hwspec *hw, const point *pt) {
  json_object *arr = json_object_new_array();
  for (size_t i = 0; i < pt->nrows; i++) {
    const site_row *w = &pt->rows[i];
    json_object *o = json_object_new_object(), *lv = json_object_new_array();
    json_object_object_add(o, "function", json_object_new_string(w->function));
    json_object_object_add(o, "file", json_object_new_string(w->file));
    json_object_object_add(o, "line", json_object_new_int64(w->line));
    json_object_object_add(o, "kind", json_object_new_string(w->parallel ? "parallel" : "serial"));
    json_object_object_add(o, "instances", json_object_new_int64((int64_t)w->instances));
    json_object_object_add(o, "runtime_s", json_object_new_double(w->runtime_s));
    json_object_object_add(o, "compute_s", json_object_new_double(w->compute_s));
    json_object_object_add(o, "memory_s", json_object_new_double(w->memory_s));
    json_object_object_add(o, "imbalance_s", json_object_new_double(w->imbalance_s));
    json_object_object_add(o, "fork_join_s", json_object_new_double(w->fork_join_s));
    for (uint32_t k = 0; k < w->info.nlevels; k++) {
      json_object *l = json_object_new_object();
      json_object_object_add(l, "name", json_object_new_string(hw->levels[k].name));
      json_object_object_add(l, "hit_rate", ppt_cli_json_rate(w->info.hit_rate[k]));
      json_object_object_add(l, "local_hit_rate", ppt_cli_json_rate(w->info.local_hit_rate[k]));
      json_object_object_add(l, "accesses", json_object_new_int64((int64_t)w->info.accesses[k]));
      json_object_object_add(l, "misses", json_object_new_int64((int64_t)w->info.misses[k]));
      json_object_array_add(lv, l);
    }
    json_object_object_add(o, "levels", lv);
    json_object_array_add(arr, o);
  }
  return arr;
}

static json_object *point_json(const ppt_hwspec *hw, const point *pt, const point *first) {
  json_object *e = json_object_new_object(), *bd = json_object_new_object();
  const ppt_tracesim_result *q = &pt->rates;
  json_object_object_add(e, "n", json_object_new_int((int)pt->n));
  json_object_object_add(e, "runtime_s", json_object_new_double(pt->seconds));
  json_object_object_add(e, "speedup", json_object_new_double(first->seconds / pt->seconds));
  json_object_object_add(e, "nregions", json_object_new_int64((int64_t)pt->regions));
  json_object_object_add(e, "levels", levels_json(hw, q));
  json_object_object_add(e, "dram", dram_json(q));
  if (q->ntlb && q->counted_refs) json_object_object_add(e, "tlb", tlb_json(q));
  json_object_object_add(bd, "compute_s", json_object_new_double(pt->compute_s));
  json_object_object_add(bd, "memory_s", json_object_new_double(pt->memory_s));
  json_object_object_add(bd, "imbalance_wait_s", json_object_new_double(pt->wait_s));
  json_object_object_add(e, "breakdown", bd);
  json_object_object_add(e, "regions", regions_json(hw, pt));
  return e;
}

static json_object *models_json(const args *a, const results *r) {
  json_object *ma = json_object_new_array();
  for (size_t j = 0; j < a->nmodels; j++) {
    json_object *me = json_object_new_object(), *ca = json_object_new_array();
    json_object_object_add(me, "model", json_object_new_string(a->models[j].name));
    for (size_t i = 0; i < a->c.ncores; i++) {
      json_object *e = json_object_new_object();
      json_object_object_add(e, "n", json_object_new_int((int)r->pts[i].n));
      json_object_object_add(e, "runtime_s", json_object_new_double(r->mrt[j * a->c.ncores + i]));
      json_object_array_add(ca, e);
    }
    json_object_object_add(me, "cores", ca);
    json_object_array_add(ma, me);
  }
  return ma;
}

static int write_json(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  const results *r = vr;
  json_object *o = ppt_cli_json_head(&a->c, settings_json(a, r)), *arr = json_object_new_array();
  for (size_t i = 0; i < a->c.ncores; i++)
    json_object_array_add(arr, point_json(&r->hw, &r->pts[i], &r->pts[0]));
  json_object_object_add(o, "cores", arr);
  if (a->nmodels) json_object_object_add(o, "models", models_json(a, r));
  return ppt_cli_put_json(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, err);
}

static void write_models_table(const args *a, const results *r) {
  printf("\n%-28s", "core model (runtime)");
  for (size_t i = 0; i < a->c.ncores; i++) {
    char h[32];
    snprintf(h, sizeof h, "%u cores", r->pts[i].n);
    printf(" %11s", h);
  }
  printf("\n");
  for (size_t j = 0; j < a->nmodels; j++) {
    printf("%-28s", a->models[j].name);
    for (size_t i = 0; i < a->c.ncores; i++) printf(" %9.4f s", r->mrt[j * a->c.ncores + i]);
    printf("\n");
  }
}

/* Index of the largest core count. */
static size_t largest(const point *pts, size_t np) {
  size_t b = 0;
  for (size_t i = 1; i < np; i++)
    if (pts[i].n > pts[b].n) b = i;
  return b;
}

/* The top regions (sites) at one core count, by runtime. */
static void write_regions_table(const ppt_hwspec *hw, const point *pt) {
  uint32_t last = hw->nlevels ? hw->nlevels - 1 : 0;
  printf("\ntop regions on %u cores %41s %7s %7s %7s\n", pt->n, "runtime", "share", hw->levels[0].name,
         hw->levels[last].name);
  for (size_t i = 0; i < pt->nrows && i < 10; i++) {
    const site_row *w = &pt->rows[i];
    char where[300];
    const char *base = strrchr(w->file, '/');
    snprintf(where, sizeof where, "%s %s:%u (%s)", w->parallel ? "par" : "ser", base ? base + 1 : w->file,
             w->line, w->function);
    printf("%2zu %-50.50s %10.4g s %6.2f%% %6.2f%% %6.2f%%\n", i + 1, where, w->runtime_s,
           pt->seconds > 0 ? 100 * w->runtime_s / pt->seconds : 0.0, 100 * w->info.hit_rate[0],
           100 * w->info.hit_rate[last]);
  }
}

static int write_table(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  const results *r = vr;
  (void)err;
  const ppt_tc_policy *pol = &a->cfg.policy;
  const ppt_hwspec *hw = &r->hw;
  const point *pts = r->pts;
  printf(
      "%s on %s (%s overlap %.2f, compute %s, memory %s, interleave %s, seed %llu, fork-join %.0f cycles)\n",
      a->c.operand, hw->name, ppt_tc_overlap_name(pol->overlap), ppt_tc_policy_fraction(pol),
      ppt_tc_compute_name(pol->compute), ppt_tc_memory_name(pol->memory),
      ppt_interleave_name(a->so.interleave), (unsigned long long)a->c.seed, r->fork_cycles);
  printf("%6s %12s %8s", "cores", "runtime", "speedup");
  for (uint32_t k = 0; k < hw->nlevels; k++) printf(" %7s", hw->levels[k].name);
  printf(" %10s %10s %10s\n", "compute", "memory", "imbalance");
  for (size_t i = 0; i < a->c.ncores; i++) {
    printf("%6u %10.4f s %7.2fx", pts[i].n, pts[i].seconds, pts[0].seconds / pts[i].seconds);
    for (uint32_t k = 0; k < hw->nlevels; k++) printf(" %6.2f%%", 100 * pts[i].rates.levels[k].ref_hit_rate);
    printf(" %8.4f s %8.4f s %8.4f s\n", pts[i].compute_s, pts[i].memory_s, pts[i].wait_s);
  }
  printf("(hit rates are global; compute/memory on the critical path; imbalance = barrier wait)\n");
  write_regions_table(hw, &pts[largest(pts, a->c.ncores)]);
  if (a->nmodels) write_models_table(a, r);
  return 0;
}

/* Is row w the site `of`? */
static int same_site(const site_row *w, const site_row *of) {
  return w->line == of->line && w->parallel == of->parallel && !strcmp(w->file, of->file) &&
         !strcmp(w->function, of->function);
}

/* FILE-regions.png's data: per core count (a gnuplot data set), one row per top site of
 * the largest core count (up to 6) and "other", segments compute memory imbalance fork-join. */
static void regions_data(FILE *d, const point *pts, size_t np) {
  const point *top = &pts[largest(pts, np)];
  size_t ntop = top->nrows < 6 ? top->nrows : 6;
  for (size_t i = 0; i < np; i++) {
    double seg[7][4] = {{0}};
    for (size_t j = 0; j < pts[i].nrows; j++) {
      const site_row *w = &pts[i].rows[j];
      size_t t = 0;
      while (t < ntop && !same_site(w, &top->rows[t])) t++;
      double add[4] = {w->seg_compute, w->seg_memory, w->imbalance_s, w->fork_join_s};
      for (int k = 0; k < 4; k++) seg[t][k] += add[k];
    }
    for (size_t t = 0; t <= ntop; t++) {
      if (t == ntop && top->nrows <= ntop) break; /* no "other" */
      const site_row *w = t < ntop ? &top->rows[t] : NULL;
      const char *base = w ? strrchr(w->file, '/') : NULL;
      char label[300];
      snprintf(label, sizeof label, "%s:%u%s", w ? (base ? base + 1 : w->file) : "other", w ? w->line : 0,
               w && !w->parallel ? " serial" : "");
      for (char *c = label; *c; c++)
        if (*c == '"' || *c == '\'') *c = '_';
      fprintf(d, "\"%s\" %.9g %.9g %.9g %.9g\n", w ? label : "other", seg[t][0], seg[t][1], seg[t][2],
              seg[t][3]);
    }
    fprintf(d, "\n\n");
  }
}

/* FILE-regions.png: stacked bars of the top regions, grouped by core count. */
static int write_regions_plot(const char *path, const char *title, const point *pts, size_t np,
                              ppt_err *err) {
  char png[4096], tmp[4200];
  size_t len = strlen(path);
  int ext = len > 4 && !strcmp(path + len - 4, ".png");
  snprintf(png, sizeof png, "%.*s-regions.png", (int)(ext ? len - 4 : len), path);
  snprintf(tmp, sizeof tmp, "%s.tmpdat%ld", png, (long)getpid());
  FILE *d = fopen(tmp, "w");
  if (!d) return ppt_err_set(err, PPT_ERUN, "%s: cannot write plot data: %s", png, strerror(errno));
  regions_data(d, pts, np);
  if (ppt_cli_close_data(d, tmp, png, err)) return PPT_ERUN;
  size_t cap = 1024 + np * (2 * sizeof tmp + 256);
  char *sc = malloc(cap);
  if (!sc) {
    remove(tmp);
    return ppt_err_set(err, PPT_ERUN, "out of memory");
  }
  int n = snprintf(
      sc, cap,
      "set style data histogram\nset style histogram rowstacked\nset style fill solid 0.8 border -1\n"
      "set boxwidth 0.8\nset ylabel 'seconds'\nset xtics rotate by -45\nset grid y\n"
      "set key outside right\nplot ");
  for (size_t i = 0; i < np; i++)
    n += snprintf(
        sc + n, cap - (size_t)n,
        "%snewhistogram '%u cores' lt 1, '%s' index %zu using 2:xtic(1) %s, '' index %zu using 3 %s, "
        "'' index %zu using 4 %s, '' index %zu using 5 %s",
        i ? ", " : "", pts[i].n, tmp, i, i ? "notitle" : "title 'compute'", i,
        i ? "notitle" : "title 'memory'", i, i ? "notitle" : "title 'imbalance'", i,
        i ? "notitle" : "title 'fork-join'");
  snprintf(sc + n, cap - (size_t)n, "\n");
  int rc = ppt_cli_gnuplot(png, tmp, sc, "ppt predict", title, err);
  free(sc);
  return rc;
}

/* --plot: runtime and speedup against cores, and the regions' breakdown, by gnuplot;
 * written atomically. */
static int write_plot(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  const char *path = a->c.plot, *title = a->c.operand;
  const point *pts = ((const results *)vr)->pts;
  size_t np = a->c.ncores;
  if (!path) return 0;
  char tmp[4096], script[9000];
  snprintf(tmp, sizeof tmp, "%s.tmpdat%ld", path, (long)getpid());
  FILE *d = fopen(tmp, "w");
  if (!d) return ppt_err_set(err, PPT_ERUN, "%s: cannot write plot data: %s", path, strerror(errno));
  for (size_t i = 0; i < np; i++)
    fprintf(d, "%u %.9g %.6g\n", pts[i].n, pts[i].seconds, pts[0].seconds / pts[i].seconds);
  if (ppt_cli_close_data(d, tmp, path, err)) return PPT_ERUN;
  snprintf(script, sizeof script,
           "set xlabel 'cores'\nset logscale x 2\n"
           "set ylabel 'runtime (s)'\nset y2label 'speedup'\nset y2tics\nset ytics nomirror\nset grid\n"
           "set key top center\n"
           "plot '%s' using 1:2 with linespoints lw 2 title 'runtime', '' using 1:3 axes x1y2 with "
           "linespoints lw 2 "
           "title 'speedup', '' using 1:1 axes x1y2 with lines dt 2 title 'ideal speedup'\n",
           tmp);
  int rc = ppt_cli_gnuplot(path, tmp, script, "ppt predict", title, err);
  return rc ? rc : write_regions_plot(path, title, pts, np, err);
}

static void release(void *vr) {
  results *r = vr;
  for (size_t i = 0; r->pts && i < r->npts; i++) free(r->pts[i].rows);
  free(r->pts);
  free(r->mrt);
}

int ppt_cmd_predict(int argc, char **argv) {
  static const ppt_cli_steps steps = {"predict",  parse_args, run,    write_table,
                                      write_json, write_plot, release};
  return ppt_cli_main(&steps, argc, argv, &(args){0}, &(results){0});
}

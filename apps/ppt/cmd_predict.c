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
#include "predict.h"
#include "ppt/engine.h"
#include "ppt/hwspec.h"
#include "ppt/io.h"
#include "ppt/progmodel.h"
#include "ppt/trace.h"

static void help(void) {
  ppt_tc_policy def;
  ppt_tc_policy_default(&def);
  char frac[32] = "", lbuf[32];
  if (def.overlap == PPT_OVERLAP_PARTIAL) snprintf(frac, sizeof frac, ",%.2f", def.fraction);
  printf(
      "usage: ppt predict TRACE --hw SPEC[,SPEC...] [--cores 1,2,4,8,16] [options]\n\n"
      "Predicts the runtime of the traced program on N cores of the CPU in SPEC (a hwspec with\n"
      "timing data: clock, latencies, bandwidths, op throughputs), with hit rates, speedup and\n"
      "a time breakdown per core count.\n\n"
      "  --hw SPEC[,SPEC...]   hwspec JSON with timing (e.g. hwspecs/host.json); several (up to 8)\n"
      "                        are compared: a table with a column group per spec, --plot's\n"
      "                        runtime lines together, and in --json a \"specs\" entry "
      "each\n" PPT_CLI_SET_HELP
      "  --cores LIST          core counts (default 1,2,4,8,16)\n"
      "  --overlap P           compute/memory overlap: sum, max, partial,F or stall (default %s%s)\n"
      "  --compute M           op classes: sum (PPT: one after the other) or ports (the busiest\n"
      "                        class, an out-of-order core's throughput bound) (default %s)\n"
      "  --memory M            hit rates to time: amm (AMM Eq. 4-5), miss (per line moved\n"
      "                        beyond L1, latency unless prefetched; the levels add up) or pipe\n"
      "                        (miss, the levels moving lines at the same time) (default %s)\n"
      "  --loops L             chain-bound loops (a loop-carried chain outlasts their ports):\n"
      "                        F in [0, 1] (their own misses priced apart, overlapping the\n"
      "                        chain by F: 1 takes max(chain, memory)) or plain (priced with\n"
      "                        their region's rates) (default %s)\n"
      "  --schedule S          override every loop's schedule as the pragma would say it (static,\n"
      "                        static,C, [monotonic:]dynamic,C, guided[,C], auto)\n"
      "  --interleave rr|uniform  shared-cache interleaving (default rr)\n"
      "  --seed S              seed for uniform interleaving and random-replacement victims\n"
      "                        (default 1)\n"
      "  --coherence           write-invalidate coherence in the cache simulation: a core's\n"
      "                        store drops the line from the other cores' caches, so their\n"
      "                        next access is a cache-to-cache transfer (latency: the spec's\n"
      "                        coherence_cycles) (default off, as Cachegrind; costs one\n"
      "                        lookup per store and other instance). Without it too, cores\n"
      "                        that store into one line take turns on it when SPEC has\n"
      "                        contention_factor and coherence_cycles (\"contention_s\")\n"
      "  --fork-cycles C       cost of a parallel region's fork and join, per thread\n"
      "                        (default: the spec's fork_join_cycles, else 0)\n" PPT_CLI_ONLY_HELP
      "  --models LIST         also the runtime under each core model in LIST, comma-separated\n"
      "                        COMPUTE/MEMORY/OVERLAP[/LOOPS] items (OVERLAP: sum, max, stall\n"
      "                        or partial:F; LOOPS: F or plain, else --loops'), e.g.\n"
      "                        ports/miss/partial:0.25,sum/amm/max/0.5; one\n"
      "                        cache simulation per core count serves them all\n"
      "  --plot FILE.png       runtime and speedup against cores (gnuplot), and FILE-regions.png:\n"
      "                        per core count, a stacked bar per top region (6, then 'other'):\n"
      "                        compute and memory (the threads' mean busy time, split in the\n"
      "                        critical thread's ratio), imbalance, fork-join\n" PPT_CLI_NOSTACK_HELP
      "  --json                machine-readable results on stdout\n"
      "  -h, --help\n",
      ppt_tc_overlap_name(def.overlap), frac, ppt_tc_compute_name(def.compute),
      ppt_tc_memory_name(def.memory), ppt_tc_loops_name(&def, lbuf, sizeof lbuf));
}

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
    pt->ops_s += best.ops_s;
    pt->memory_s += best.memory_s;
    pt->contention_s += best.contention_s;
    double wait = rs.seconds - busy_sum / nt;
    wait = wait > 0 ? wait : 0; /* rounding can leave -1e-18 */
    pt->wait_s += wait;
    site_row *w = &pt->rows[ppt_progmodel_phase_site(m, g)];
    double mean = busy_sum / nt, fj = reg.kind == PPT_REGION_FORK ? fj_s : 0;
    fj = fj < mean ? fj : mean;
    /* Turns on a contended line are the thread running its contended work: compute. */
    double cm = best.compute_s + best.contention_s + best.memory_s, work = mean - fj;
    w->runtime_s += rs.seconds;
    w->compute_s += best.compute_s;
    w->ops_s += best.ops_s;
    for (int c = 0; c < PPT_TC_NCPU; c++) {
      w->cpu_s[c] += best.cpu_s[c];
      pt->cpu_s[c] += best.cpu_s[c];
    }
    w->memory_s += best.memory_s;
    w->contention_s += best.contention_s;
    w->imbalance_s += wait;
    w->fork_join_s += fj;
    w->seg_compute += cm > 0 ? work * (best.compute_s + best.contention_s) / cm : work;
    w->seg_memory += cm > 0 ? work * best.memory_s / cm : 0;
  }
  qsort(pt->rows, pt->nrows, sizeof *pt->rows, by_runtime);
  return 0;
}

/* One COMPUTE/MEMORY/OVERLAP[/LOOPS] item (OVERLAP partial:F is --overlap's partial,F,
 * since commas separate the items; LOOPS absent: base's) over policy base; 0 on success. */
static int parse_model(const char *item, const ppt_tc_policy *base, model *out) {
  char buf[64], *mem, *ov, *colon, *loops;
  if (snprintf(buf, sizeof buf, "%s", item) >= (int)sizeof buf) return -1;
  snprintf(out->name, sizeof out->name, "%s", item);
  if (!(mem = strchr(buf, '/')) || !(ov = strchr(mem + 1, '/'))) return -1;
  *mem++ = 0;
  *ov++ = 0;
  if ((loops = strchr(ov, '/'))) *loops++ = 0;
  if ((colon = strchr(ov, ':'))) *colon = ',';
  out->pol = *base;
  if (ppt_tc_compute_parse(buf, &out->pol.compute) || ppt_tc_memory_parse(mem, &out->pol.memory) ||
      ppt_tc_overlap_parse(ov, &out->pol) || (loops && ppt_tc_loops_parse(loops, &out->pol)))
    return -1;
  return 0;
}

/* Splits LIST at commas into models[0..*n); on a bad item, returns -1 with it in bad. */
static int parse_models(const char *list, const ppt_tc_policy *base, model *models, size_t max, size_t *n,
                        char *bad, size_t badsz) {
  *n = 0;
  for (const char *p = list;; p++) {
    size_t len = strcspn(p, ",");
    char item[64];
    snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item - 1 ? len : sizeof item - 1), p);
    if (len >= sizeof item || *n == max || parse_model(item, base, &models[*n])) {
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
        return ppt_cli_usage("predict", "--memory wants amm, miss or pipe, not '%s'", value);
      return 0;
    case 'L':
      if (ppt_tc_loops_parse(value, &a->cfg.policy))
        return ppt_cli_usage("predict", "--loops wants plain or a fraction in [0, 1], not '%s'", value);
      return 0;
    case 's': return ppt_cli_take_schedule("predict", value, &a->so.sched, &a->so.chunk);
    case 'f':
      if (ppt_cli_parse_double(value, &a->fork_cycles) || a->fork_cycles < 0)
        return ppt_cli_usage("predict", "--fork-cycles wants a number >= 0, not '%s'", value);
      a->fork_set = 1;
      return 0;
    case 'm':
      if (parse_models(value, &a->cfg.policy, a->models, sizeof a->models / sizeof *a->models, &a->nmodels,
                       bad, sizeof bad))
        return ppt_cli_usage("predict",
                             "--models: bad item '%s' (want COMPUTE/MEMORY/OVERLAP[/LOOPS], e.g. %s)", bad,
                             "ports/miss/partial:0.25");
      return 0;
    default: a->so.coherence = 1; return 0; /* --coherence */
  }
}

static int parse_args(int argc, char **argv, void *va) {
  static const struct option own[] = {{"overlap", required_argument, 0, 'v'},
                                      {"schedule", required_argument, 0, 's'},
                                      {"fork-cycles", required_argument, 0, 'f'},
                                      {"compute", required_argument, 0, 'C'},
                                      {"memory", required_argument, 0, 'M'},
                                      {"models", required_argument, 0, 'm'},
                                      {"coherence", no_argument, 0, 'K'},
                                      {"loops", required_argument, 0, 'L'},
                                      {0, 0, 0, 0}};
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

/* The program model of t on hw at n cores, run on the engine: so and cfg are the
 * options, completed here with the core count and the fork-join cost of a region. One
 * thread runs a parallel region serialised: no threads to wake or join, but libomp still
 * enters and leaves the region and sets up its loops (measured by ppt calibrate:
 * fork_join_serial_cycles; 540 ns against ~1060 ns on 2 threads on the validation host).
 * fork_cycles (--fork-cycles, else the spec's) is the multi-thread figure only. */
static int run_model(const ppt_trace *t, const ppt_hwspec *hw, ppt_sasmm_opts *so, ppt_node_config *cfg,
                     double fork_cycles, const uint8_t *counted, uint32_t n, ppt_progmodel **m,
                     ppt_node_result **res, ppt_err *err) {
  so->ncores = cfg->cores = n;
  cfg->fork_cycles = n > 1 ? fork_cycles : hw->fork_join_serial_cycles;
  int rc = ppt_progmodel_build(t, hw, so, &cfg->policy, counted, m, err);
  return rc ? rc : simulate(hw, cfg, *m, res, err);
}

int ppt_cli_progmodel_seconds(const ppt_hwspec *hw, const ppt_progmodel *m, uint32_t n, double *seconds,
                              ppt_err *err) {
  ppt_node_config cfg;
  ppt_node_config_default(&cfg);
  cfg.cores = n;
  cfg.fork_cycles = n > 1 ? hw->fork_join_cycles : hw->fork_join_serial_cycles;
  ppt_node_result *res = NULL;
  int rc = simulate(hw, &cfg, m, &res, err);
  if (!rc) *seconds = ppt_node_result_seconds(res);
  ppt_node_result_free(res);
  return rc;
}

int ppt_cli_predict_seconds(const ppt_trace *t, const ppt_hwspec *hw, const ppt_sasmm_opts *base,
                            const uint8_t *counted, uint32_t n, double *seconds, ppt_err *err) {
  ppt_sasmm_opts so = *base;
  so.ncores = n;
  ppt_progmodel *m = NULL;
  int rc = ppt_progmodel_build(t, hw, &so, NULL, counted, &m, err);
  if (!rc) rc = ppt_cli_progmodel_seconds(hw, m, n, seconds, err);
  ppt_progmodel_free(m);
  return rc;
}

/* The prediction for core count i, and the other core models' runtimes from the same
 * cache simulation (only the tasklists change). */
static int predict_point(const args *a, spec_run *r, const ppt_trace *t, const uint8_t *counted, size_t i,
                         ppt_err *err) {
  uint32_t n = a->c.cores[i];
  ppt_sasmm_opts so = a->so;
  ppt_node_config cfg = a->cfg;
  ppt_progmodel *m = NULL;
  ppt_node_result *res = NULL;
  point *pt = &r->pts[i];
  int rc = run_model(t, &r->hw, &so, &cfg, r->fork_cycles, counted, n, &m, &res, err);
  if (!rc) {
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

/* Loads spec r->file (with --set) and predicts every core count on it. */
static int run_spec(const args *a, spec_run *r, const ppt_trace *t, const uint8_t *counted, ppt_err *err) {
  int rc = ppt_cli_load_hw_file(&a->c, r->file, &r->hw, err);
  if (!rc) rc = ppt_hwspec_has_timing(&r->hw, r->file, err);
  if (!rc) rc = ppt_cli_check_memory(&a->c, t, &r->hw, 1, 1, err);
  if (rc) return rc;
  /* The fork-join cost of a region: --fork-cycles, else the spec's measured figure. */
  r->fork_cycles = a->fork_set ? a->fork_cycles : r->hw.fork_join_cycles;
  size_t nc = a->c.ncores;
  r->pts = calloc(nc, sizeof *r->pts);
  r->mrt = calloc(a->nmodels * nc + 1, sizeof *r->mrt);
  if (!r->pts || !r->mrt) return ppt_err_set(err, PPT_ERUN, "out of memory");
  r->npts = nc;
  ppt_cli_progress *prog = ppt_cli_progress_start("predicting", nc);
  for (size_t i = 0; i < nc && !rc; i++) {
    rc = predict_point(a, r, t, counted, i, err);
    ppt_cli_progress_update(prog, i + 1);
  }
  ppt_cli_progress_end(prog);
  return rc;
}

static int run(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  results *r = vr;
  ppt_trace *t = NULL;
  uint8_t *counted = NULL;
  if (!(r->files_text = strdup(a->c.hw))) return ppt_err_set(err, PPT_ERUN, "out of memory");
  if (ppt_cli_split_list(r->files_text, r->files, PPT_PREDICT_MAX_SPECS, &r->nruns))
    return ppt_err_set(err, PPT_EINPUT,
                       "--hw wants spec files A.json,B.json,... (none empty, at most %d), not '%s'",
                       PPT_PREDICT_MAX_SPECS, a->c.hw);
  int rc = ppt_cli_open_sequential(a->c.operand, &t, err);
  if (!rc) ppt_cli_stack_refs(&a->c, t);
  if (!rc) rc = ppt_cli_counted(&a->c, t, &counted, err);
  for (size_t s = 0; s < r->nruns && !rc; s++) {
    r->runs[s].file = r->files[s];
    rc = run_spec(a, &r->runs[s], t, counted, err);
  }
  free(counted);
  ppt_trace_close(t);
  return rc;
}

static void release(void *vr) {
  results *r = vr;
  for (size_t s = 0; s < PPT_PREDICT_MAX_SPECS; s++) {
    spec_run *run = &r->runs[s];
    for (size_t i = 0; run->pts && i < run->npts; i++) free(run->pts[i].rows);
    free(run->pts);
    free(run->mrt);
  }
  free(r->files_text);
}

int ppt_cmd_predict(int argc, char **argv) {
  static const ppt_cli_steps steps = {
      "predict", parse_args, run, ppt_predict_write_table, ppt_predict_write_json, ppt_predict_write_plot,
      release};
  return ppt_cli_main(&steps, argc, argv, &(args){0}, &(results){0});
}

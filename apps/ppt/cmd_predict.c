/* cmd_predict.c — `ppt predict`: multicore runtime of a program from its sequential
 * trace. Parses the options, runs ppt/predict.h's pipeline on each --hw spec (for each
 * core count: SASMM mimics the cores, the program model turns phases into fork-join
 * regions of tasklists, and the SimGrid engine simulates them) and prints the results
 * (predict_out.c). */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "predict.h"
#include "ppt/hwspec.h"
#include "ppt/io.h"
#include "ppt/predict.h"
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
      "  --hw SPEC[,SPEC...]   hwspec JSON with timing (e.g. hwspecs/host.json); several (up to 10)\n"
      "                        are compared: per core count a ranking, fastest first (year,\n"
      "                        cores, clock, runtime, speedup over the spec's own run on the\n"
      "                        fewest cores and over the baseline), a table with a column\n"
      "                        group per spec (up to 4 specs, else with --detail), --plot's\n"
      "                        runtime lines together (log axis past a 10x spread), in --json\n"
      "                        a \"specs\" entry each and \"ranking\"; a note under the table\n"
      "                        for a spec of another ISA than the trace's (\"notes\")\n"
      "  --baseline NAME|FILE  the spec the ranking's speedups are over: its name, its --hw\n"
      "                        entry or that file's name without .json (default: the first)\n"
      "  --detail              with several specs, each spec's own tables too (hit rates,\n"
      "                        breakdown, top regions), before the ranking\n"
      "  --sensitivity[=PCT]   one spec: re-predict with each timing figure of SPEC (clock,\n"
      "                        latencies, bandwidths, DRAM, mlp, ops, fork-join, ...) scaled\n"
      "                        by -PCT %% and +PCT %% (default 20), one at a time; per core\n"
      "                        count a table sorted by the larger runtime change (--json:\n"
      "                        \"sensitivity\"). Figures the cache simulation does not read\n"
      "                        reuse its run; the others (ops, FP window, coherence, TLB)\n"
      "                        simulate again\n" PPT_CLI_SET_HELP
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
      "  --regions N           the N regions that take longest at each core count, a table\n"
      "                        each (default 10; 0: none); --json holds every region\n"
      "  --plot FILE.png       runtime and speedup against cores (gnuplot), and FILE-regions.png:\n"
      "                        per core count, a stacked bar per top region (6, then 'other'):\n"
      "                        compute and memory (the threads' mean busy time, split in the\n"
      "                        critical thread's ratio), imbalance, fork-join\n" PPT_CLI_NOSTACK_HELP
      "  --json                machine-readable results on stdout\n"
      "  -h, --help\n",
      ppt_tc_overlap_name(def.overlap), frac, ppt_tc_compute_name(def.compute),
      ppt_tc_memory_name(def.memory), ppt_tc_loops_name(&def, lbuf, sizeof lbuf));
}

/* One COMPUTE/MEMORY/OVERLAP[/LOOPS] item (OVERLAP partial:F is --overlap's partial,F,
 * since commas separate the items; LOOPS absent: base's) over policy base; 0 on success. */
static int parse_model(const char *item, const ppt_tc_policy *base, ppt_tc_policy *pol) {
  char buf[64], *mem, *ov, *colon, *loops;
  if (snprintf(buf, sizeof buf, "%s", item) >= (int)sizeof buf) return -1;
  if (!(mem = strchr(buf, '/')) || !(ov = strchr(mem + 1, '/'))) return -1;
  *mem++ = 0;
  *ov++ = 0;
  if ((loops = strchr(ov, '/'))) *loops++ = 0;
  if ((colon = strchr(ov, ':'))) *colon = ',';
  *pol = *base;
  if (ppt_tc_compute_parse(buf, &pol->compute) || ppt_tc_memory_parse(mem, &pol->memory) ||
      ppt_tc_overlap_parse(ov, pol) || (loops && ppt_tc_loops_parse(loops, pol)))
    return -1;
  return 0;
}

/* Splits LIST at commas into a's models; on a bad item, returns -1 with it in bad. */
static int parse_models(const char *list, args *a, char *bad, size_t badsz) {
  size_t *n = &a->nmodels, max = PPT_PREDICT_MAX_MODELS;
  *n = 0;
  for (const char *p = list;; p++) {
    size_t len = strcspn(p, ",");
    char item[64];
    snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item - 1 ? len : sizeof item - 1), p);
    if (len >= sizeof item || *n == max || parse_model(item, &a->po.policy, &a->models[*n])) {
      snprintf(bad, badsz, "%.*s", (int)len, p);
      return -1;
    }
    snprintf(a->model_names[*n], sizeof a->model_names[*n], "%s", item);
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
      if (ppt_tc_overlap_parse(value, &a->po.policy))
        return ppt_cli_usage("predict", "--overlap wants sum, max, partial,F or stall, not '%s'", value);
      return 0;
    case 'C':
      if (ppt_tc_compute_parse(value, &a->po.policy.compute))
        return ppt_cli_usage("predict", "--compute wants sum or ports, not '%s'", value);
      return 0;
    case 'M':
      if (ppt_tc_memory_parse(value, &a->po.policy.memory))
        return ppt_cli_usage("predict", "--memory wants amm, miss or pipe, not '%s'", value);
      return 0;
    case 'L':
      if (ppt_tc_loops_parse(value, &a->po.policy))
        return ppt_cli_usage("predict", "--loops wants plain or a fraction in [0, 1], not '%s'", value);
      return 0;
    case 's': return ppt_cli_take_schedule("predict", value, &a->po.sasmm.sched, &a->po.sasmm.chunk);
    case 'f':
      if (ppt_cli_parse_double(value, &a->po.fork_cycles) || a->po.fork_cycles < 0)
        return ppt_cli_usage("predict", "--fork-cycles wants a number >= 0, not '%s'", value);
      return 0;
    case 'm':
      if (parse_models(value, a, bad, sizeof bad))
        return ppt_cli_usage("predict",
                             "--models: bad item '%s' (want COMPUTE/MEMORY/OVERLAP[/LOOPS], e.g. %s)", bad,
                             "ports/miss/partial:0.25");
      return 0;
    case 'r':
      if (ppt_cli_parse_u64(value, &a->top_regions))
        return ppt_cli_usage("predict", "--regions wants a count, not '%s'", value);
      return 0;
    case 'b': a->baseline = value; return 0;
    case 'd': a->detail = 1; return 0;
    case 'S':
      a->sens_pct = 20;
      if (value && (ppt_cli_parse_double(value, &a->sens_pct) || !(a->sens_pct > 0 && a->sens_pct < 100)))
        return ppt_cli_usage("predict", "--sensitivity wants a percentage between 0 and 100, not '%s'", value);
      return 0;
    default: a->po.sasmm.coherence = 1; return 0; /* --coherence */
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
                                      {"regions", required_argument, 0, 'r'},
                                      {"baseline", required_argument, 0, 'b'},
                                      {"detail", no_argument, 0, 'd'},
                                      {"sensitivity", optional_argument, 0, 'S'},
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
  ppt_predict_opts_default(&a->po);
  a->top_regions = 10;
  int rc = ppt_cli_parse(&spec, argc, argv, &a->c, a);
  a->po.sasmm.interleave = a->c.interleave[0];
  a->po.sasmm.seed = a->c.seed;
  return rc;
}

/* ---------------------------------------------------------------- run */

/* Predicts every core count on spec r (loaded); with --sensitivity, each figure's
 * changes too (on the same simulations). */
static int run_spec(const args *a, spec_run *r, const ppt_trace *t, const uint8_t *counted, ppt_predict_sens **sens,
                    ppt_err *err) {
  int rc = ppt_cli_check_memory(&a->c, t, &r->hw, 1, 1, err);
  if (rc) return rc;
  ppt_predict_opts o = a->po;
  o.models = a->models;
  o.nmodels = a->nmodels;
  o.cores = a->c.cores;
  o.ncores = a->c.ncores;
  o.counted = counted;
  ppt_cli_progress *prog = ppt_cli_progress_start("predicting", a->c.ncores * PPT_PREDICT_PROGRESS_UNIT);
  o.progress = ppt_cli_progress_cb;
  o.progress_arg = prog;
  rc = sens ? ppt_predict_sensitivity(t, &r->hw, &o, a->sens_pct, &r->res, sens, err)
            : ppt_predict_run(t, &r->hw, &o, &r->res, err);
  ppt_cli_progress_end(prog);
  return rc;
}

/* Does --baseline `want` name run r: its spec's name, its --hw entry, or that file's
 * name without its folder and .json? */
static int names_run(const char *want, const spec_run *r) {
  const char *base = strrchr(r->file, '/');
  base = base ? base + 1 : r->file;
  size_t n = strlen(base);
  if (n > 5 && !strcmp(base + n - 5, ".json")) n -= 5;
  return !strcmp(want, r->hw.name) || !strcmp(want, r->file) || (strlen(want) == n && !strncmp(want, base, n));
}

/* The run --baseline names (every spec loaded), or PPT_EINPUT naming the choices. */
static int find_baseline(const args *a, results *r, ppt_err *err) {
  r->baseline = 0;
  if (!a->baseline) return 0;
  for (size_t s = 0; s < r->nruns; s++)
    if (names_run(a->baseline, &r->runs[s])) {
      r->baseline = s;
      return 0;
    }
  char names[PPT_PREDICT_MAX_SPECS * 130] = "";
  for (size_t s = 0, n = 0; s < r->nruns && n < sizeof names; s++)
    n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", s ? ", " : "", r->runs[s].hw.name);
  return ppt_err_set(err, PPT_EINPUT, "--baseline '%s' is none of the --hw specs (%s)", a->baseline, names);
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
  if (a->sens_pct > 0 && r->nruns > 1)
    return ppt_err_set(err, PPT_EINPUT, "--sensitivity takes one --hw spec, not %zu", r->nruns);
  int rc = 0;
  for (size_t s = 0; s < r->nruns && !rc; s++) { /* every spec checked before the long part */
    r->runs[s].file = r->files[s];
    rc = ppt_cli_load_hw_file(&a->c, r->files[s], &r->runs[s].hw, err);
    if (!rc) rc = ppt_hwspec_has_timing(&r->runs[s].hw, r->files[s], err);
  }
  if (!rc) rc = find_baseline(a, r, err);
  if (!rc) rc = ppt_cli_open_sequential(a->c.operand, &t, err);
  if (!rc) ppt_cli_stack_refs(&a->c, t);
  if (!rc) rc = ppt_cli_counted(&a->c, t, &counted, err);
  for (size_t s = 0; s < r->nruns && !rc; s++)
    rc = run_spec(a, &r->runs[s], t, counted, a->sens_pct > 0 ? &r->sens : NULL, err);
  free(counted);
  ppt_trace_close(t);
  return rc;
}

static void release(void *vr) {
  results *r = vr;
  for (size_t s = 0; s < PPT_PREDICT_MAX_SPECS; s++) ppt_predict_result_free(r->runs[s].res);
  ppt_predict_sens_free(r->sens);
  free(r->files_text);
}

int ppt_cmd_predict(int argc, char **argv) {
  static const ppt_cli_steps steps = {
      "predict", parse_args, run, ppt_predict_write_table, ppt_predict_write_json, ppt_predict_write_plot,
      release};
  return ppt_cli_main(&steps, argc, argv, &(args){0}, &(results){0});
}

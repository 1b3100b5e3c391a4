/* cmd_sweep.c — `ppt sweep`: hit rates at every point of a design space (specs x --set
 * values x core counts) from one sequential trace, one mimicking pass per core count
 * (ppt/sweep.h, docs/sweep.md). */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "ppt/io.h"
#include "ppt/predict.h"
#include "ppt/sweep.h"

#define MAX_FILES 16
#define MAX_VALUES 64
#define MAX_CONFIGS 4096
#define MAX_AUTO_THREADS 8

static void help(void) {
  printf(
      "usage: ppt sweep TRACE --hw SPEC[,SPEC...] [--cores LIST] [--set KEY=V1,V2,...]... [options]\n\n"
      "Hit rates of every cache level at every point of a design space: each SPEC, each\n"
      "combination of --set values and each core count, from one sequential TRACE. Per core\n"
      "count the cores are mimicked once (as 'ppt sasmm' does) and every hierarchy is simulated\n"
      "on that one stream, the levels they have in common once; each point equals\n"
      "'ppt sasmm TRACE --hw SPEC --set ... --cores N' exactly.\n\n"
      "  --hw SPEC[,SPEC...]    hwspec JSON files (up to 16)\n"
      "  --cores LIST           core counts, comma-separated (default 1,2,4,8,16)\n"
      "  --set KEY=V1,V2,...    values of one hwspec figure, repeatable: the sweep takes every\n"
      "                         combination; L1.size=16K,32K  L2.ways=4,8  L3.shared_by=4,8\n"
      "                         line=64,128 (every level); any key of the hwspec file\n"
      "                         (docs/hwspec.md, \"Settings\"); K, M, G suffixes\n"
      "  --schedule S           static | static,C | [monotonic:]dynamic,C | guided[,C] | auto\n"
      "                         for every loop, as the pragma would say it\n"
      "                         (default: each loop's recorded schedule)\n"
      "  --interleave rr|uniform  the cores' interleaving for shared levels (default rr)\n"
      "  --seed S               uniform interleaving and random-replacement victims (default "
      "1)\n" PPT_CLI_ONLY_HELP
      "  --threads T            worker threads, one core count each (default: one per core\n"
      "                         count, at most 8: the system shares the CPUs among them)\n"
      "  --sample-sets K        simulate 1/K of every level's sets (K a power of two; default\n"
      "                         1: all, exact). Each sampled set is exact; accesses and misses\n"
      "                         are scaled by K. Faster, with an error from the spread between\n"
      "                         sets (docs/sweep.md, \"Set sampling\")\n"
      "  --no-sieve             with --sample-sets: stream the whole trace at every core count\n"
      "                         instead of sieving out, once, the references no sampled set\n"
      "                         sees (same results, slower; docs/sweep.md, \"The sieve\")\n"
      "  -o, --output FILE.csv  every point as a CSV row\n"
      "  --plot FILE.png        heatmap: configurations x core counts, colour = misses per\n"
      "                         1000 references at --plot-level; and FILE-levels.png: each\n"
      "                         level's hit rate against cores, a line per configuration\n"
      "  --plot-level NAME      the level the heatmap shows (default: the last)\n"
      "  --runtime              also each point's runtime, as 'ppt predict --set ...' gives it\n"
      "                         (default core model; specs with timing data only): one program\n"
      "                         model per point, so far slower than the hit rates\n" PPT_CLI_NOSTACK_HELP
      "  --json                 machine-readable results on stdout\n"
      "  -h, --help\n");
}

/* One --set: its key and values (pointing into a copy of the option's text). */
typedef struct axis {
  char *text;
  const char *key;
  const char *vals[MAX_VALUES];
  size_t nvals;
} axis;

typedef struct args {
  ppt_cli_common c; /* c.hw: the comma-separated spec files */
  ppt_sasmm_opts base;
  uint64_t threads; /* 0: one per core count, at most MAX_AUTO_THREADS */
  uint64_t sample_sets;
  int no_sieve; /* --no-sieve */
  const char *plot_level;
  int runtime; /* --runtime */
} args;

/* A configuration: spec file and one value of each axis. */
typedef struct config {
  size_t file;
  size_t val[PPT_CLI_MAX_SET];
} config;

typedef struct results {
  char *files_text;
  const char *files[MAX_FILES];
  size_t nfiles;
  axis axes[PPT_CLI_MAX_SET];
  size_t naxes;
  config *cfg;
  ppt_hwspec *specs;
  size_t nspecs;
  ppt_trace *t;
  uint8_t *counted;
  ppt_tracesim_result *out; /* [core index * nspecs + spec] */
  double *runtime;          /* --runtime: the same layout; NaN where a spec has no timing */
  ppt_sweep_stats stats;
  double seconds;
} results;

/* The sieve's memory at most (docs/sweep.md, "The sieve"): 512 MiB, or a quarter of what
 * this process may still take when that is less (ppt_cli_check_memory did not count it). */
static uint64_t sieve_budget(void) {
  const char *what;
  uint64_t avail = ppt_cli_memory_available(&what) / 4, cap = (uint64_t)512 << 20;
  return avail < cap ? (avail ? avail : 1) : cap;
}

static int take(void *arg, int val, const char *value) {
  args *a = arg;
  switch (val) {
    case 's': return ppt_cli_take_schedule("sweep", value, &a->base.sched, &a->base.chunk);
    case 'L': a->plot_level = value; return 0;
    case 'R': a->runtime = 1; return 0;
    case 'N': a->no_sieve = 1; return 0;
    case 'S':
      if (ppt_cli_parse_u64(value, &a->sample_sets) || !a->sample_sets || a->sample_sets > 4096 ||
          (a->sample_sets & (a->sample_sets - 1)))
        return ppt_cli_usage("sweep", "--sample-sets wants a power of two from 1 to 4096, not '%s'", value);
      return 0;
    default: return ppt_cli_take_threads("sweep", value, &a->threads); /* --threads */
  }
}

static int parse_args(int argc, char **argv, void *va) {
  static const struct option own[] = {{"schedule", required_argument, 0, 's'},
                                      {"threads", required_argument, 0, 't'},
                                      {"plot-level", required_argument, 0, 'L'},
                                      {"runtime", no_argument, 0, 'R'},
                                      {"sample-sets", required_argument, 0, 'S'},
                                      {"no-sieve", no_argument, 0, 'N'},
                                      {0, 0, 0, 0}};
  static const ppt_cli_spec spec = {.cmd = "sweep",
                                    .shared = PPT_OPT_HW | PPT_OPT_CORES | PPT_OPT_INTERLEAVE | PPT_OPT_SEED |
                                              PPT_OPT_ONLY | PPT_OPT_OUTPUT | PPT_OPT_JSON | PPT_OPT_NOSTACK |
                                              PPT_OPT_PLOT | PPT_OPT_SETS,
                                    .own = own,
                                    .take = take,
                                    .help = help,
                                    .operand = "TRACE"};
  args *a = va;
  ppt_sasmm_opts_default(&a->base);
  a->sample_sets = 1;
  int rc = ppt_cli_parse(&spec, argc, argv, &a->c, a);
  if (rc) return rc;
  /* Core counts are few and unequal in cost; one worker each lets the system keep both
   * CPUs busy to the end instead of leaving the last core count to run alone. */
  if (!a->threads) a->threads = a->c.ncores < MAX_AUTO_THREADS ? a->c.ncores : MAX_AUTO_THREADS;
  a->base.seed = a->c.seed;
  a->base.interleave = a->c.interleave[0];
  return 0;
}

/* ---------------------------------------------------------------- run */

static int parse_axes(const args *a, results *r, ppt_err *err) {
  if (!(r->files_text = strdup(a->c.hw))) return ppt_err_set(err, PPT_ERUN, "out of memory");
  if (ppt_cli_split_list(r->files_text, r->files, MAX_FILES, &r->nfiles))
    return ppt_err_set(err, PPT_EINPUT,
                       "--hw wants spec files A.json,B.json,... (none empty, at most %d), not '%s'",
                       MAX_FILES, a->c.hw);
  for (size_t i = 0; i < a->c.nset; i++) {
    axis *x = &r->axes[r->naxes++];
    if (!(x->text = strdup(a->c.set[i]))) return ppt_err_set(err, PPT_ERUN, "out of memory");
    char *eq = strchr(x->text, '='); /* there is one: the option parser checked */
    *eq = '\0';
    x->key = x->text;
    if (ppt_cli_split_list(eq + 1, x->vals, MAX_VALUES, &x->nvals))
      return ppt_err_set(err, PPT_EINPUT, "--set %s: wants values V1,V2,... (none empty, at most %d)",
                         a->c.set[i], MAX_VALUES);
    for (size_t j = 0; j < i; j++)
      if (!strcmp(r->axes[j].key, x->key))
        return ppt_err_set(err, PPT_EINPUT, "--set %s is given twice", x->key);
  }
  return 0;
}

/* Every configuration: files outermost, then the axes in the order given (the last
 * varies fastest), each spec loaded and set (a point that is not a valid spec is bad
 * input, named with its settings). */
static int make_specs(results *r, ppt_err *err) {
  size_t n = r->nfiles;
  for (size_t i = 0; i < r->naxes; i++) {
    if (n * r->axes[i].nvals > MAX_CONFIGS)
      return ppt_err_set(err, PPT_EINPUT, "the sweep has more than %d configurations (specs x --set values)",
                         MAX_CONFIGS);
    n *= r->axes[i].nvals;
  }
  if (!(r->cfg = calloc(n, sizeof *r->cfg)) || !(r->specs = calloc(n, sizeof *r->specs)))
    return ppt_err_set(err, PPT_ERUN, "out of memory");
  ppt_hwspec base;
  for (size_t i = 0; i < n; i++) {
    config *c = &r->cfg[i];
    size_t rest = i;
    for (size_t k = r->naxes; k-- > 0;) {
      c->val[k] = rest % r->axes[k].nvals;
      rest /= r->axes[k].nvals;
    }
    c->file = rest;
    int rc = 0;
    if (i == 0 || r->cfg[i - 1].file != c->file) rc = ppt_hwspec_load(r->files[c->file], &base, err);
    if (rc) return rc;
    r->specs[i] = base;
    for (size_t k = 0; k < r->naxes; k++) {
      char setting[512];
      snprintf(setting, sizeof setting, "%s=%s", r->axes[k].key, r->axes[k].vals[c->val[k]]);
      if ((rc = ppt_cli_set_hw(r->files[c->file], &r->specs[i], setting, err))) return rc;
    }
  }
  r->nspecs = n;
  return 0;
}

static int plot_level(const args *a, const ppt_hwspec *hw);

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The runtimes' bar, advanced by ppt_predict_run's core counts of spec `done_specs`. */
typedef struct runtime_bar {
  ppt_cli_progress *bar;
  uint64_t before; /* points of the specs before */
} runtime_bar;

static void runtime_progress(uint64_t done, void *arg) {
  runtime_bar *b = arg;
  ppt_cli_progress_update(b->bar, b->before + done / PPT_PREDICT_PROGRESS_UNIT);
}

/* --runtime: ppt predict's runtime at every point whose spec has timing data (its
 * default core model and the spec's fork-join figures). */
static int runtimes(const args *a, results *r, ppt_err *err) {
  size_t n = a->c.ncores * r->nspecs;
  if (!(r->runtime = malloc(n * sizeof *r->runtime))) return ppt_err_set(err, PPT_ERUN, "out of memory");
  for (size_t i = 0; i < n; i++) r->runtime[i] = NAN;
  runtime_bar bar = {ppt_cli_progress_start("runtimes", n), 0};
  ppt_predict_opts o;
  ppt_predict_opts_default(&o);
  o.sasmm = a->base;
  o.cores = a->c.cores;
  o.ncores = a->c.ncores;
  o.counted = r->counted;
  o.progress = runtime_progress;
  o.progress_arg = &bar;
  int rc = 0;
  for (size_t s = 0; s < r->nspecs && !rc; s++, bar.before += a->c.ncores) {
    ppt_err skip;
    if (ppt_hwspec_has_timing(&r->specs[s], r->specs[s].name, &skip)) {
      runtime_progress(a->c.ncores * PPT_PREDICT_PROGRESS_UNIT, &bar);
      continue;
    }
    ppt_predict_result *res = NULL;
    rc = ppt_predict_run(r->t, &r->specs[s], &o, &res, err);
    for (size_t c = 0; c < a->c.ncores && !rc; c++)
      r->runtime[c * r->nspecs + s] = ppt_predict_result_point(res, c)->runtime_s;
    ppt_predict_result_free(res);
  }
  ppt_cli_progress_end(bar.bar);
  return rc;
}

static int run(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  results *r = vr;
  int rc = parse_axes(a, r, err);
  if (!rc) rc = make_specs(r, err);
  for (size_t s = 0; !rc && a->c.plot && s < r->nspecs; s++)
    if (plot_level(a, &r->specs[s]) < 0)
      rc = ppt_err_set(err, PPT_EINPUT, "--plot-level %s: %s has no such level", a->plot_level,
                       r->specs[s].name);
  if (!rc) rc = ppt_cli_open_sequential(a->c.operand, &r->t, err);
  if (!rc) ppt_cli_stack_refs(&a->c, r->t);
  if (!rc) rc = ppt_cli_counted(&a->c, r->t, &r->counted, err);
  if (!rc) rc = ppt_cli_check_memory(&a->c, r->t, r->specs, r->nspecs, (size_t)a->threads, err);
  if (rc) return rc;
  if (!(r->out = calloc(a->c.ncores * r->nspecs, sizeof *r->out)))
    return ppt_err_set(err, PPT_ERUN, "out of memory");
  ppt_cli_progress *bar = ppt_cli_progress_start("core counts", a->c.ncores);
  ppt_sweep_opts o = {.base = a->base,
                      .cores = a->c.cores,
                      .ncores = a->c.ncores,
                      .counted = r->counted,
                      .threads = (uint32_t)a->threads,
                      .sample_sets = (uint32_t)a->sample_sets,
                      .no_sieve = a->no_sieve,
                      .sieve_max_bytes = sieve_budget(),
                      .progress = ppt_cli_progress_cb,
                      .progress_arg = bar};
  double t0 = now();
  rc = ppt_sweep_run(r->t, r->specs, r->nspecs, &o, r->out, &r->stats, err);
  r->seconds = now() - t0;
  ppt_cli_progress_end(bar);
  return rc || !a->runtime ? rc : runtimes(a, r, err);
}

static void release(void *vr) {
  results *r = vr;
  for (size_t i = 0; i < r->naxes; i++) free(r->axes[i].text);
  free(r->files_text);
  free(r->cfg);
  free(r->specs);
  free(r->out);
  free(r->runtime);
  free(r->counted);
  ppt_trace_close(r->t);
}

/* ---------------------------------------------------------------- output */

static const ppt_tracesim_result *point(const args *a, const results *r, size_t spec, size_t core) {
  (void)a;
  return &r->out[core * r->nspecs + spec];
}

/* --runtime's prediction at a point; NaN without --runtime or timing data. */
static double runtime_of(const results *r, size_t spec, size_t core) {
  return r->runtime ? r->runtime[core * r->nspecs + spec] : NAN;
}

/* Misses per 1000 counted references at level k (Cachegrind's unit). */
static double mpki(const ppt_tracesim_result *p, uint32_t k) {
  return p->counted_refs ? 1000.0 * (double)p->levels[k].ref_misses / (double)p->counted_refs : NAN;
}

/* A --set value as a number when it is one, else its text. */
static json_object *value_json(const char *v) {
  double x;
  if (ppt_hwspec_parse_number(v, 1, &x) && ppt_hwspec_parse_number(v, 0, &x))
    return json_object_new_string(v);
  return x == floor(x) && fabs(x) < 9e15 ? json_object_new_int64((int64_t)x) : json_object_new_double(x);
}

static json_object *point_json(const results *r, size_t s, uint32_t cores, const ppt_tracesim_result *p,
                               double runtime_s) {
  json_object *e = json_object_new_object(), *set = json_object_new_object(), *lv = json_object_new_array();
  json_object_object_add(e, "hw", json_object_new_string(r->specs[s].name));
  json_object_object_add(e, "hwspec", json_object_new_string(r->files[r->cfg[s].file]));
  json_object_object_add(e, "n", json_object_new_int((int)cores));
  for (size_t k = 0; k < r->naxes; k++)
    json_object_object_add(set, r->axes[k].key, value_json(r->axes[k].vals[r->cfg[s].val[k]]));
  json_object_object_add(e, "set", set);
  for (uint32_t k = 0; k < p->nlevels; k++) {
    const ppt_tracesim_level *l = &p->levels[k];
    json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(l->name));
    json_object_object_add(o, "hit_rate", ppt_cli_json_rate(l->ref_hit_rate));
    json_object_object_add(o, "local_hit_rate", ppt_cli_json_rate(l->ref_local_hit_rate));
    json_object_object_add(o, "accesses", json_object_new_uint64(l->ref_accesses));
    json_object_object_add(o, "misses", json_object_new_uint64(l->ref_misses));
    json_object_object_add(o, "mpki", ppt_cli_json_rate(mpki(p, k)));
    json_object_array_add(lv, o);
  }
  json_object_object_add(e, "levels", lv);
  json_object_object_add(e, "counted_refs", json_object_new_uint64(p->counted_refs));
  if (!isnan(runtime_s)) json_object_object_add(e, "runtime_s", json_object_new_double(runtime_s));
  return e;
}

static int write_json(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  const results *r = vr;
  json_object *set = json_object_new_object(), *pts = json_object_new_array(), *st = json_object_new_object();
  json_object_object_add(set, "schedule", json_object_new_string(ppt_cli_schedule_name(a->base.sched)));
  json_object_object_add(set, "chunk", json_object_new_int64(a->base.chunk));
  json_object_object_add(set, "interleave", json_object_new_string(ppt_interleave_name(a->c.interleave[0])));
  json_object_object_add(set, "seed", json_object_new_int64((int64_t)a->c.seed));
  json_object_object_add(set, "sample_sets", json_object_new_int64((int64_t)a->sample_sets));
  json_object_object_add(set, "only", a->c.only_list ? json_object_new_string(a->c.only_list) : NULL);
  json_object_object_add(set, "unit", json_object_new_string("references"));
  json_object *o = ppt_cli_json_head(&a->c, set);
  for (size_t s = 0; s < r->nspecs; s++)
    for (size_t c = 0; c < a->c.ncores; c++)
      json_object_array_add(pts, point_json(r, s, a->c.cores[c], point(a, r, s, c), runtime_of(r, s, c)));
  json_object_object_add(o, "points", pts);
  json_object_object_add(st, "configurations", json_object_new_int64((int64_t)r->nspecs));
  json_object_object_add(st, "level_simulations", json_object_new_int64((int64_t)r->stats.nodes));
  json_object_object_add(st, "whole_simulations", json_object_new_int64((int64_t)r->stats.fallbacks));
  json_object_object_add(st, "sieved", json_object_new_boolean(r->stats.sieved));
  json_object_object_add(st, "sieve_kept", json_object_new_int64((int64_t)r->stats.sieve_kept));
  json_object_object_add(st, "sieve_records", json_object_new_int64((int64_t)r->stats.sieve_records));
  json_object_object_add(st, "seconds", json_object_new_double(r->seconds));
  json_object_object_add(o, "stats", st);
  return ppt_cli_put_json(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, err);
}

static int write_table(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  const results *r = vr;
  (void)err;
  char note[96] = "";
  if (a->sample_sets > 1 && r->stats.sieved)
    snprintf(
        note, sizeof note, ", sets sampled 1/%llu, sieve kept %.1f%% of the records",
        (unsigned long long)a->sample_sets,
        100.0 * (double)r->stats.sieve_kept / (double)(r->stats.sieve_records ? r->stats.sieve_records : 1));
  else if (a->sample_sets > 1)
    snprintf(note, sizeof note, ", sets sampled 1/%llu", (unsigned long long)a->sample_sets);
  printf(
      "# %s: %zu configurations x %zu core counts = %zu points; %zu level simulations%s in %.2f s; "
      "interleave %s, seed %llu%s%s%s\n",
      a->c.operand, r->nspecs, a->c.ncores, r->nspecs * a->c.ncores, r->stats.nodes,
      r->stats.fallbacks ? " (+ whole hierarchies)" : "", r->seconds, ppt_interleave_name(a->c.interleave[0]),
      (unsigned long long)a->c.seed, a->c.only_list ? ", only " : "", a->c.only_list ? a->c.only_list : "",
      note);
  printf("# hit rates are global, per reference; MPKI: misses per 1000 references at the last level\n");
  for (size_t s = 0; s < r->nspecs; s++) {
    const ppt_hwspec *hw = &r->specs[s];
    if (s == 0 || r->cfg[s].file != r->cfg[s - 1].file) {
      printf("%-16s", "hw");
      for (size_t k = 0; k < r->naxes; k++) printf(" %12s", r->axes[k].key);
      printf(" %6s", "cores");
      for (uint32_t k = 0; k < hw->nlevels; k++) printf(" %8s", hw->levels[k].name);
      printf(" %9s%s\n", "MPKI", a->runtime ? "     runtime" : "");
    }
    for (size_t c = 0; c < a->c.ncores; c++) {
      const ppt_tracesim_result *p = point(a, r, s, c);
      printf("%-16.16s", hw->name);
      for (size_t k = 0; k < r->naxes; k++) printf(" %12s", r->axes[k].vals[r->cfg[s].val[k]]);
      printf(" %6u", a->c.cores[c]);
      for (uint32_t k = 0; k < p->nlevels; k++) printf(" %7.2f%%", 100 * p->levels[k].ref_hit_rate);
      printf(" %9.3f", p->nlevels ? mpki(p, p->nlevels - 1) : NAN);
      if (a->runtime && isnan(runtime_of(r, s, c)))
        printf(" %12s", "-");
      else if (a->runtime)
        printf(" %10.4g s", runtime_of(r, s, c));
      printf("\n");
    }
  }
  return 0;
}

/* -o: one CSV row per point; the levels are named by position (L1 first) so that specs
 * with other level names still line up. */
static int write_csv(const args *a, const results *r, ppt_err *err) {
  size_t cap = 4096 + r->nspecs * a->c.ncores * 512, used = 0;
  char *buf = malloc(cap);
  if (!buf) return ppt_err_set(err, PPT_ERUN, "out of memory");
  uint32_t nl = 0;
  for (size_t s = 0; s < r->nspecs; s++)
    if (r->specs[s].nlevels > nl) nl = r->specs[s].nlevels;
  used += (size_t)snprintf(buf + used, cap - used, "hw,hwspec,cores");
  for (size_t k = 0; k < r->naxes; k++)
    used += (size_t)snprintf(buf + used, cap - used, ",%s", r->axes[k].key);
  for (uint32_t k = 0; k < nl; k++)
    used +=
        (size_t)snprintf(buf + used, cap - used, ",level%u,hit_rate%u,local_hit_rate%u,accesses%u,misses%u",
                         k + 1, k + 1, k + 1, k + 1, k + 1);
  used += (size_t)snprintf(buf + used, cap - used, ",counted_refs%s\n", a->runtime ? ",runtime_s" : "");
  for (size_t s = 0; s < r->nspecs; s++)
    for (size_t c = 0; c < a->c.ncores; c++) {
      const ppt_tracesim_result *p = point(a, r, s, c);
      used += (size_t)snprintf(buf + used, cap - used, "\"%s\",%s,%u", r->specs[s].name,
                               r->files[r->cfg[s].file], a->c.cores[c]);
      for (size_t k = 0; k < r->naxes; k++)
        used += (size_t)snprintf(buf + used, cap - used, ",%s", r->axes[k].vals[r->cfg[s].val[k]]);
      for (uint32_t k = 0; k < nl; k++) {
        if (k >= p->nlevels) {
          used += (size_t)snprintf(buf + used, cap - used, ",,,,,");
          continue;
        }
        const ppt_tracesim_level *l = &p->levels[k];
        used += (size_t)snprintf(buf + used, cap - used, ",%s,%.9g,%.9g,%llu,%llu", l->name, l->ref_hit_rate,
                                 l->ref_local_hit_rate, (unsigned long long)l->ref_accesses,
                                 (unsigned long long)l->ref_misses);
      }
      used += (size_t)snprintf(buf + used, cap - used, ",%llu", (unsigned long long)p->counted_refs);
      if (a->runtime && !isnan(runtime_of(r, s, c)))
        used += (size_t)snprintf(buf + used, cap - used, ",%.9g", runtime_of(r, s, c));
      else if (a->runtime)
        used += (size_t)snprintf(buf + used, cap - used, ",");
      used += (size_t)snprintf(buf + used, cap - used, "\n");
    }
  int rc = ppt_io_write_file(a->c.output, buf, err);
  free(buf);
  return rc;
}

/* A configuration's label on the heatmap: its spec's name when the sweep has several,
 * and its --set values. */
static void label(const results *r, size_t s, char *buf, size_t cap) {
  size_t used = 0;
  buf[0] = '\0';
  if (r->nfiles > 1) used += (size_t)snprintf(buf, cap, "%.40s", r->specs[s].name);
  for (size_t k = 0; k < r->naxes && used < cap; k++)
    used += (size_t)snprintf(buf + used, cap - used, "%s%s=%s", used ? " " : "", r->axes[k].key,
                             r->axes[k].vals[r->cfg[s].val[k]]);
  if (!buf[0]) snprintf(buf, cap, "%.60s", r->specs[s].name);
}

/* Which level the heatmap shows in spec s: --plot-level by name, else the last. */
static int plot_level(const args *a, const ppt_hwspec *hw) {
  if (!a->plot_level) return (int)hw->nlevels - 1;
  for (uint32_t k = 0; k < hw->nlevels; k++)
    if (!strcmp(hw->levels[k].name, a->plot_level)) return (int)k;
  return -1;
}

static int write_plot(const args *a, const results *r, ppt_err *err) {
  const char *path = a->c.plot;
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmpdat%ld", path, (long)getpid());
  FILE *d = fopen(tmp, "w");
  if (!d) return ppt_err_set(err, PPT_ERUN, "%s: cannot write plot data: %s", path, strerror(errno));
  for (size_t s = 0; s < r->nspecs; s++)
    for (size_t c = 0; c < a->c.ncores; c++)
      fprintf(d, "%zu %zu %.6g\n", c, s, mpki(point(a, r, s, c), (uint32_t)plot_level(a, &r->specs[s])));
  if (ppt_cli_close_data(d, tmp, path, err)) return PPT_ERUN;
  size_t cap = 2048 + (r->nspecs + a->c.ncores) * 200, used = 0;
  char *sc = malloc(cap);
  if (!sc) {
    remove(tmp);
    return ppt_err_set(err, PPT_ERUN, "out of memory");
  }
  used +=
      (size_t)snprintf(sc, cap,
                       "set xlabel 'cores'\nset cblabel '%s misses per 1000 references'\n"
                       "set palette defined (0 '#fff5eb', 1 '#fd8d3c', 2 '#7f2704')\n"
                       "set xrange [-0.5:%zu.5]\nset yrange [-0.5:%zu.5]\nset tics nomirror out\nset xtics (",
                       a->plot_level ? a->plot_level : "last-level", a->c.ncores - 1, r->nspecs - 1);
  for (size_t c = 0; c < a->c.ncores; c++)
    used += (size_t)snprintf(sc + used, cap - used, "%s'%u' %zu", c ? ", " : "", a->c.cores[c], c);
  used += (size_t)snprintf(sc + used, cap - used, ")\nset ytics (");
  for (size_t s = 0; s < r->nspecs; s++) {
    char lb[160];
    label(r, s, lb, sizeof lb);
    for (char *q = lb; *q; q++)
      if (*q == '\'') *q = '"';
    used += (size_t)snprintf(sc + used, cap - used, "%s'%s' %zu", s ? ", " : "", lb, s);
  }
  snprintf(sc + used, cap - used,
           ")\nplot '%s' using 1:2:3 with image notitle, '' using 1:2:(sprintf('%%.1f', $3)) "
           "with labels font ',8' notitle\n",
           tmp);
  int rc = ppt_cli_gnuplot(path, tmp, sc, "ppt sweep", a->c.operand, err);
  free(sc);
  return rc;
}

/* FILE-levels.png: each level's global hit rate against the core count, a panel per level
 * (of the first spec's levels), a line per configuration. */
static int write_levels_plot(const args *a, const results *r, ppt_err *err) {
  char png[4096], tmp[4200];
  ppt_cli_plot_sibling(a->c.plot, "levels", png, sizeof png);
  snprintf(tmp, sizeof tmp, "%s.tmpdat%ld", png, (long)getpid());
  FILE *d = fopen(tmp, "w");
  if (!d) return ppt_err_set(err, PPT_ERUN, "%s: cannot write plot data: %s", png, strerror(errno));
  uint32_t nl = r->specs[0].nlevels;
  for (size_t s = 0; s < r->nspecs; s++) { /* a data set per configuration: cores, then each level */
    for (size_t c = 0; c < a->c.ncores; c++) {
      const ppt_tracesim_result *p = point(a, r, s, c);
      fprintf(d, "%u", a->c.cores[c]);
      for (uint32_t k = 0; k < nl; k++)
        fprintf(d, " %.6g", k < p->nlevels ? 100 * p->levels[k].ref_hit_rate : NAN);
      fprintf(d, "\n");
    }
    fprintf(d, "\n\n");
  }
  if (ppt_cli_close_data(d, tmp, png, err)) return PPT_ERUN;
  size_t cap = 1024 + nl * (r->nspecs * 240 + 200), used = 0;
  char *sc = malloc(cap);
  if (!sc) {
    remove(tmp);
    return ppt_err_set(err, PPT_ERUN, "out of memory");
  }
  used += (size_t)snprintf(sc, cap,
                           "set multiplot layout 1,%u\nset logscale x 2\nset grid\nset xlabel 'cores'\n"
                           "set key bottom left font ',7'\n",
                           nl);
  for (uint32_t k = 0; k < nl; k++) {
    used += (size_t)snprintf(sc + used, cap - used, "set title '%s hit rate (%%, global)'\nplot ",
                             r->specs[0].levels[k].name);
    for (size_t s = 0; s < r->nspecs; s++) {
      char lb[160];
      label(r, s, lb, sizeof lb);
      for (char *q = lb; *q; q++)
        if (*q == '\'') *q = '"';
      used += (size_t)snprintf(sc + used, cap - used, "%s'%s' index %zu using 1:%u with linespoints %s '%s'",
                               s ? ", " : "", tmp, s, k + 2, k + 1 == nl ? "title" : "notitle", lb);
    }
    used += (size_t)snprintf(sc + used, cap - used, "\n");
  }
  snprintf(sc + used, cap - used, "unset multiplot\n");
  int rc = ppt_cli_gnuplot(png, tmp, sc, "ppt sweep", a->c.operand, err);
  free(sc);
  return rc;
}

static int write_files(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  const results *r = vr;
  int rc = a->c.output ? write_csv(a, r, err) : 0;
  if (!rc && a->c.plot) rc = write_plot(a, r, err);
  if (!rc && a->c.plot) rc = write_levels_plot(a, r, err);
  return rc;
}

int ppt_cmd_sweep(int argc, char **argv) {
  static const ppt_cli_steps steps = {"sweep",    parse_args,  run,    write_table,
                                      write_json, write_files, release};
  return ppt_cli_main(&steps, argc, argv, &(args){0}, &(results){0});
}

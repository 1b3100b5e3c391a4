/* cmd_sasmm.c — `ppt sasmm`: private and shared cache hit rates on N cores predicted
 * from one sequential trace (SASMM, see include/ppt/sasmm.h). Core counts and
 * interleavings run as independent tasks on --threads worker threads. */
#include <json-c/json.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ppt/hwspec.h"
#include "ppt/io.h"
#include "ppt/reuse.h"
#include "ppt/sasmm.h"
#include "ppt/sdcm.h"
#include "ppt/trace.h"
#include "ppt/tracesim.h"

static void help(void) {
  printf(
      "usage: ppt sasmm TRACE --hw SPEC [--cores 1,2,4,8,16] [options]\n\n"
      "Predicts private (PRD) and shared (CRD) cache hit rates of every level of SPEC on N cores\n"
      "from the sequential TRACE: worksharing-loop iterations are dealt to N mimicked cores as\n"
      "the OpenMP schedule would, and the cores' streams are interleaved for shared levels.\n\n"
      "  --hw SPEC              hwspec JSON (cache levels; e.g. hwspecs/sasmm-cachegrind.json)\n"
      "  --cores LIST           core counts, comma-separated (default 1,2,4,8,16)\n"
      "  --schedule S           static | static,C | dynamic,C | guided[,C] for every loop\n"
      "                         (default: each loop's recorded schedule)\n"
      "  --split iterations|instances  deal loop iterations (default) or, as the paper,\n"
      "                         each block's instances\n"
      "  --interleave LIST      rr, uniform or rr,uniform (default rr)\n"
      "  --model sim|sdcm       hit rates by exact LRU simulation of the mimicked streams\n"
      "                         (default: sees set conflicts) or by SDCM from the PRD/CRD\n"
      "                         profiles (the paper's model: one profile, any cache)\n"
      "  --mode exact|sampled   reuse measurement for --model sdcm (default exact)\n"
      "  --sample R             sampled mode: fraction of block instances (default 0.01)\n"
      "  --quantum Q            interleave Q block instances per turn instead of one reference\n"
      "                         (e.g. 100000, like Valgrind's scheduler, to compare with Cachegrind)\n"
      "  --seed S               seed for uniform interleaving, sampling and random-replacement\n"
      "                         victims (default 1)\n" PPT_CLI_ONLY_HELP
      "  --threads T            worker threads (default 2)\n"
      "  -o, --profiles FILE    write the PRD/CRD profiles (JSON, docs/sasmm.md)\n"
      "  --json                 machine-readable results on stdout\n"
      "  -h, --help\n");
}

typedef struct args {
  ppt_cli_common c; /* --hw, --cores, --interleave LIST, --seed, --only, -o, --json; c.operand: the trace */
  ppt_sasmm_opts base;
  int mode, model_sim;
  double rate;
  uint64_t threads;
} args;

typedef struct task {
  uint32_t n;
  ppt_interleave il;
  int shared_only; /* the private profiles come from the rr task of the same n */
  ppt_sasmm_profiles prof;
  ppt_sdcm_rates rates[PPT_HW_MAX_LEVELS];
  ppt_tracesim_result sim;
  double *per_core;
  int rc;
  ppt_err err;
} task;

typedef struct results {
  ppt_hwspec hw;
  ppt_trace *t;
  uint8_t *counted;
  ppt_reuse_opts ropts;
  task *tasks;
  size_t ntasks;
} results;

/* The tasks, shared by the worker threads: each takes the next one not started. */
typedef struct job {
  const args *a;
  results *r;
  size_t next, done;
  ppt_cli_progress *progress;
  pthread_mutex_t lock;
} job;

static void *worker(void *arg) {
  job *j = arg;
  const results *r = j->r;
  for (;;) {
    pthread_mutex_lock(&j->lock);
    size_t i = j->next++;
    pthread_mutex_unlock(&j->lock);
    if (i >= r->ntasks) return NULL;
    task *tk = &r->tasks[i];
    ppt_sasmm_opts o = j->a->base;
    o.ncores = tk->n;
    o.interleave = tk->il;
    o.shared_only = tk->shared_only;
    if (j->a->model_sim)
      tk->rc = ppt_tracesim_sasmm(r->t, &o, &r->hw, r->counted, &tk->sim, &tk->prof.stats, &tk->err);
    else
      tk->rc = ppt_sasmm_measure(r->t, &o, &r->ropts, r->counted, &tk->prof, &tk->err);
    pthread_mutex_lock(&j->lock);
    ppt_cli_progress_update(j->progress, ++j->done);
    pthread_mutex_unlock(&j->lock);
  }
}

/* ---------------------------------------------------------------- options */

/* One of the words in names[0..n), as its index; -1 if none. */
static int word(const char *s, const char *const *names, int n) {
  for (int i = 0; i < n; i++)
    if (!strcmp(s, names[i])) return i;
  return -1;
}

static int take(void *arg, int val, const char *value) {
  static const char *const split[] = {"iterations", "instances"}, *const mode[] = {"exact", "sampled"},
                           *const model[] = {"sdcm", "sim"};
  args *a = arg;
  int k = 0;
  switch (val) {
    case 's': return ppt_cli_take_schedule("sasmm", value, &a->base.sched, &a->base.chunk);
    case 'p':
      if ((k = word(value, split, 2)) < 0)
        return ppt_cli_usage("sasmm", "--split wants iterations or instances, not '%s'", value);
      a->base.split = k ? PPT_SPLIT_INSTANCES : PPT_SPLIT_ITERATIONS;
      return 0;
    case 'm':
      if ((k = word(value, mode, 2)) < 0)
        return ppt_cli_usage("sasmm", "--mode wants exact or sampled, not '%s'", value);
      a->mode = k ? PPT_REUSE_SAMPLED : PPT_REUSE_EXACT;
      return 0;
    case 'Q':
      if (ppt_cli_parse_u64(value, &a->base.quantum))
        return ppt_cli_usage("sasmm", "--quantum wants a count, not '%s'", value);
      return 0;
    case 'M':
      if ((a->model_sim = word(value, model, 2)) < 0)
        return ppt_cli_usage("sasmm", "--model wants sim or sdcm, not '%s'", value);
      return 0;
    case 'r': return ppt_cli_take_fraction("sasmm", "--sample", value, &a->rate);
    default: /* --threads */
      if (ppt_cli_parse_u64(value, &a->threads) || a->threads < 1 || a->threads > 256)
        return ppt_cli_usage("sasmm", "--threads wants 1..256, not '%s'", value);
      return 0;
  }
}

static int parse_args(int argc, char **argv, void *va) {
  static const struct option own[] = {{"schedule", required_argument, 0, 's'},
                                      {"split", required_argument, 0, 'p'},
                                      {"mode", required_argument, 0, 'm'},
                                      {"sample", required_argument, 0, 'r'},
                                      {"model", required_argument, 0, 'M'},
                                      {"quantum", required_argument, 0, 'Q'},
                                      {"threads", required_argument, 0, 't'},
                                      {"profiles", required_argument, 0, 'o'}, /* its name for -o */
                                      {0, 0, 0, 0}};
  static const ppt_cli_spec spec = {.cmd = "sasmm",
                                    .shared = PPT_OPT_HW | PPT_OPT_CORES | PPT_OPT_INTERLEAVES |
                                              PPT_OPT_SEED | PPT_OPT_ONLY | PPT_OPT_OUTPUT | PPT_OPT_JSON,
                                    .own = own,
                                    .take = take,
                                    .help = help,
                                    .operand = "TRACE"};
  args *a = va;
  ppt_sasmm_opts_default(&a->base);
  a->mode = PPT_REUSE_EXACT;
  a->model_sim = 1;
  a->rate = 0.01;
  a->threads = 2;
  int rc = ppt_cli_parse(&spec, argc, argv, &a->c, a);
  if (rc) return rc;
  a->base.seed = a->c.seed;
  if (a->model_sim && a->c.output) {
    ppt_cli_common_free(&a->c);
    return ppt_cli_usage("sasmm", "--profiles needs --model sdcm (the simulator builds no profiles)");
  }
  return 0;
}

/* ---------------------------------------------------------------- run */

/* One task per core count and interleaving, rr before uniform. */
static int make_tasks(const args *a, results *r, ppt_err *err) {
  int want_rr = 0, want_uni = 0;
  for (size_t i = 0; i < a->c.ninterleave; i++) {
    want_rr |= a->c.interleave[i] == PPT_INTERLEAVE_RR;
    want_uni |= a->c.interleave[i] == PPT_INTERLEAVE_UNIFORM;
  }
  if (!(r->tasks = calloc(a->c.ncores * 2, sizeof *r->tasks)))
    return ppt_err_set(err, PPT_ERUN, "out of memory");
  for (size_t i = 0; i < a->c.ncores; i++) {
    uint32_t n = a->c.cores[i];
    if (want_rr) r->tasks[r->ntasks++] = (task){.n = n, .il = PPT_INTERLEAVE_RR};
    if (want_uni)
      r->tasks[r->ntasks++] =
          (task){.n = n, .il = PPT_INTERLEAVE_UNIFORM, .shared_only = want_rr && !a->model_sim};
  }
  return 0;
}

/* Runs the tasks on --threads workers; the first failed task's error. */
static int run_tasks(const args *a, results *r, ppt_err *err) {
  job j = {.a = a, .r = r};
  pthread_t th[256];
  size_t nth = a->threads < r->ntasks ? a->threads : r->ntasks;
  pthread_mutex_init(&j.lock, NULL);
  j.progress = ppt_cli_progress_start("core counts", r->ntasks);
  for (size_t i = 0; i < nth; i++) pthread_create(&th[i], NULL, worker, &j);
  for (size_t i = 0; i < nth; i++) pthread_join(th[i], NULL);
  ppt_cli_progress_end(j.progress);
  pthread_mutex_destroy(&j.lock);
  for (size_t i = 0; i < r->ntasks; i++)
    if (r->tasks[i].rc) {
      *err = r->tasks[i].err;
      return r->tasks[i].rc;
    }
  return 0;
}

/* Hit rates of every task: the simulator's per reference, or SDCM on the profiles, where
 * a uniform task borrows the private profiles of the rr task of its n. */
static int hit_rates(const args *a, results *r, ppt_err *err) {
  uint32_t nl = r->hw.nlevels;
  for (size_t i = 0; i < r->ntasks; i++) {
    task *tk = &r->tasks[i];
    if (!(tk->per_core = calloc((size_t)tk->n * nl, sizeof *tk->per_core)))
      return ppt_err_set(err, PPT_ERUN, "out of memory");
    if (a->model_sim) {
      for (uint32_t k = 0; k < nl; k++) {
        tk->rates[k].hit_rate = tk->sim.levels[k].ref_hit_rate;
        tk->rates[k].local_hit_rate = tk->sim.levels[k].ref_local_hit_rate;
        for (uint32_t c = 0; c < tk->n; c++) tk->per_core[(size_t)c * nl + k] = NAN;
      }
      continue;
    }
    ppt_sasmm_profiles view = tk->prof;
    if (tk->shared_only) {
      view.prd = tk[-1].prof.prd;
      view.prd_all = tk[-1].prof.prd_all;
    }
    int rc = ppt_sdcm_sasmm_hitrates(&r->hw, &view, tk->rates, tk->per_core, err);
    if (rc) return rc;
  }
  return 0;
}

static int run(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  results *r = vr;
  int rc = ppt_hwspec_load(a->c.hw, &r->hw, err);
  if (!rc) rc = ppt_cli_open_sequential(a->c.operand, &r->t, err);
  if (!rc) rc = ppt_cli_counted(&a->c, r->t, &r->counted, err);
  if (!rc) rc = ppt_cli_check_memory(&a->c, r->t, &r->hw, (size_t)a->threads, err);
  if (rc) return rc;
  ppt_reuse_opts_default(&r->ropts);
  r->ropts.line = r->hw.levels[0].line;
  r->ropts.mode = (ppt_reuse_mode)a->mode;
  r->ropts.rate = a->rate;
  r->ropts.seed = (unsigned long)a->c.seed;
  if (!(rc = make_tasks(a, r, err)) && !(rc = run_tasks(a, r, err))) rc = hit_rates(a, r, err);
  return rc;
}

static void release(void *vr) {
  results *r = vr;
  for (size_t i = 0; i < r->ntasks; i++) {
    ppt_sasmm_profiles_free(&r->tasks[i].prof);
    free(r->tasks[i].per_core);
  }
  free(r->tasks);
  free(r->counted);
  ppt_trace_close(r->t);
}

/* ---------------------------------------------------------------- output */

static const char *schedule_name(int sched) {
  return sched < 0                           ? "recorded"
         : sched == PPT_SCHED_STATIC         ? "static"
         : sched == PPT_SCHED_STATIC_CHUNKED ? "static,C"
         : sched == PPT_SCHED_DYNAMIC        ? "dynamic,C"
                                             : "guided,C";
}

static json_object *settings_json(const args *a, const results *r) {
  json_object *set = json_object_new_object();
  char il[32];
  ppt_cli_interleave_text(&a->c, il, sizeof il);
  json_object_object_add(set, "schedule", json_object_new_string(schedule_name(a->base.sched)));
  json_object_object_add(set, "chunk", json_object_new_int64(a->base.chunk));
  json_object_object_add(set, "split", json_object_new_string(a->base.split ? "instances" : "iterations"));
  json_object_object_add(set, "interleave", json_object_new_string(il));
  json_object_object_add(set, "model", json_object_new_string(a->model_sim ? "sim" : "sdcm"));
  json_object_object_add(set, "mode", json_object_new_string(a->mode ? "sampled" : "exact"));
  json_object_object_add(set, "sample", json_object_new_double(a->rate));
  json_object_object_add(set, "seed", json_object_new_int64((int64_t)a->c.seed));
  json_object_object_add(set, "quantum", json_object_new_int64((int64_t)a->base.quantum));
  json_object_object_add(set, "only", a->c.only_list ? json_object_new_string(a->c.only_list) : NULL);
  json_object_object_add(set, "line", json_object_new_int((int)r->ropts.line));
  return set;
}

/* The denominators behind a level's rates, in references (Cachegrind's unit): with
 * --model sim the simulation's exact counts; with sdcm the expected ones, SDCM's global
 * rates applied to the counted references of the profiles (the level is reached by the
 * references that missed every level before it). */
static void add_counts(json_object *l, const args *a, const task *tk, uint32_t k) {
  if (a->model_sim) {
    json_object_object_add(l, "accesses", json_object_new_uint64(tk->sim.levels[k].ref_accesses));
    json_object_object_add(l, "misses", json_object_new_uint64(tk->sim.levels[k].ref_misses));
    return;
  }
  if (!tk->prof.prd_all) return;
  double refs = ppt_rdhist_total(tk->prof.prd_all);
  double reach = k ? refs * (1.0 - tk->rates[k - 1].hit_rate) : refs;
  json_object_object_add(l, "accesses", json_object_new_double(reach));
  json_object_object_add(l, "misses", json_object_new_double(refs * (1.0 - tk->rates[k].hit_rate)));
}

static json_object *task_json(const args *a, const ppt_hwspec *hw, const task *tk) {
  json_object *e = json_object_new_object(), *lv = json_object_new_array();
  json_object_object_add(e, "n", json_object_new_int((int)tk->n));
  json_object_object_add(e, "interleave", json_object_new_string(ppt_interleave_name(tk->il)));
  json_object_object_add(e, "iterations", json_object_new_int64((int64_t)tk->prof.stats.iterations));
  for (uint32_t k = 0; k < hw->nlevels; k++) {
    json_object *l = json_object_new_object();
    json_object_object_add(l, "name", json_object_new_string(hw->levels[k].name));
    json_object_object_add(l, "shared", json_object_new_boolean(hw->levels[k].shared_by > 1));
    json_object_object_add(l, "hit_rate", ppt_cli_json_rate(tk->rates[k].hit_rate));
    json_object_object_add(l, "local_hit_rate", ppt_cli_json_rate(tk->rates[k].local_hit_rate));
    add_counts(l, a, tk, k);
    if (hw->levels[k].shared_by == 1 && !a->model_sim) {
      json_object *pc = json_object_new_array();
      for (uint32_t c = 0; c < tk->n; c++)
        json_object_array_add(pc, ppt_cli_json_rate(tk->per_core[(size_t)c * hw->nlevels + k]));
      json_object_object_add(l, "per_core", pc);
    }
    json_object_array_add(lv, l);
  }
  json_object_object_add(e, "levels", lv);
  return e;
}

static int write_json(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  const results *r = vr;
  json_object *o = ppt_cli_json_head(&a->c, settings_json(a, r)), *arr = json_object_new_array();
  for (size_t i = 0; i < r->ntasks; i++) json_object_array_add(arr, task_json(a, &r->hw, &r->tasks[i]));
  json_object_object_add(o, "cores", arr);
  return ppt_cli_put_json(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, err);
}

static int write_table(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  const results *r = vr;
  (void)err;
  const ppt_hwspec *hw = &r->hw;
  const char *only = a->c.only_list;
  char il[32];
  ppt_cli_interleave_text(&a->c, il, sizeof il);
  printf("# %s on %s: model %s%s, split %s, interleave %s, quantum %llu, seed %llu%s%s\n", a->c.operand,
         hw->name, a->model_sim ? "sim" : "sdcm",
         a->model_sim ? "" : (a->mode ? " (sampled reuse)" : " (exact reuse)"),
         a->base.split ? "instances" : "iterations", il, (unsigned long long)a->base.quantum,
         (unsigned long long)a->c.seed, only ? ", only " : "", only ? only : "");
  printf("%-6s %-8s", "cores", "il");
  for (uint32_t k = 0; k < hw->nlevels; k++)
    printf(" %8s %s", hw->levels[k].name,
           hw->levels[k].shared_by > 1 ? "(shared,global/local)" : "(private)");
  printf("\n");
  for (size_t i = 0; i < r->ntasks; i++) {
    const task *tk = &r->tasks[i];
    printf("%-6u %-8s", tk->n, ppt_interleave_name(tk->il));
    for (uint32_t k = 0; k < hw->nlevels; k++) {
      if (hw->levels[k].shared_by > 1)
        printf(" %7.2f%% / %6.2f%%      ", 100 * tk->rates[k].hit_rate, 100 * tk->rates[k].local_hit_rate);
      else
        printf(" %7.2f%%          ", 100 * tk->rates[k].hit_rate);
    }
    printf("\n");
  }
  return 0;
}

/* One task's profiles; a uniform task that borrowed rr's private profiles has only its
 * CRD (docs/sasmm.md). */
static json_object *task_profiles(const task *tk, ppt_err *err) {
  json_object *e = json_object_new_object(), *prd = json_object_new_array(), *h;
  json_object_object_add(e, "n", json_object_new_int((int)tk->n));
  json_object_object_add(e, "interleave", json_object_new_string(ppt_interleave_name(tk->il)));
  json_object_object_add(e, "prd", prd);
  int rc = 0;
  for (uint32_t c = 0; tk->prof.prd && !tk->shared_only && c < tk->n && !rc; c++)
    if (!(rc = ppt_rdhist_to_json(tk->prof.prd[c], &h, err))) json_object_array_add(prd, h);
  if (!rc && tk->prof.crd && !(rc = ppt_rdhist_to_json(tk->prof.crd, &h, err)))
    json_object_object_add(e, "crd", h);
  if (rc) {
    json_object_put(e);
    return NULL;
  }
  return e;
}

/* -o: the PRD/CRD profiles (docs/sasmm.md, "Profiles file"). */
static int write_profiles(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  const results *r = vr;
  if (!a->c.output) return 0;
  json_object *o = json_object_new_object(), *arr = json_object_new_array();
  json_object_object_add(o, "schema", json_object_new_string("ppt-sasmm-profiles/1"));
  json_object_object_add(o, "trace", json_object_new_string(a->c.operand));
  json_object_object_add(o, "line", json_object_new_int((int)r->ropts.line));
  json_object_object_add(o, "profiles", arr);
  int rc = 0;
  for (size_t i = 0; i < r->ntasks && !rc; i++) {
    json_object *e = task_profiles(&r->tasks[i], err);
    if (e)
      json_object_array_add(arr, e);
    else
      rc = err->status ? (int)err->status : PPT_ERUN;
  }
  if (!rc)
    rc = ppt_io_write_file(a->c.output, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), err);
  json_object_put(o);
  return rc;
}

int ppt_cmd_sasmm(int argc, char **argv) {
  static const ppt_cli_steps steps = {"sasmm",    parse_args,     run,    write_table,
                                      write_json, write_profiles, release};
  return ppt_cli_main(&steps, argc, argv, &(args){0}, &(results){0});
}

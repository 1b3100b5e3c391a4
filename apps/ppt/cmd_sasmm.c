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
#include "ppt/rdscale.h"
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
      "  --hw SPEC              hwspec JSON (cache levels; e.g. "
      "hwspecs/sasmm-cachegrind.json)\n" PPT_CLI_SET_HELP
      "  --cores LIST           core counts, comma-separated (default 1,2,4,8,16)\n"
      "  --schedule S           static | static,C | [monotonic:]dynamic,C | guided[,C] | auto\n"
      "                         for every loop, as the pragma would say it\n"
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
      "  --coherence            with --model sim: write-invalidate coherence (a core's store\n"
      "                         drops the line from the other cores' caches), as 'ppt cachesim\n"
      "                         --coherence' and 'ppt predict --coherence'\n"
      "  --seed S               seed for uniform interleaving, sampling and random-replacement\n"
      "                         victims (default 1)\n" PPT_CLI_ONLY_HELP
      "  --scale-from A,B       with --model sdcm: mimic A and B cores (and the counts below B)\n"
      "                         and predict the larger counts' PRD/CRD profiles from them\n"
      "                         (Wu & Yeung, reference groups; docs/sasmm.md)\n"
      "  --threads T            worker threads (default 2)\n"
      "  -o, --profiles FILE    write the PRD/CRD profiles (JSON, docs/sasmm.md)\n" PPT_CLI_NOSTACK_HELP
      "  --json                 machine-readable results on stdout\n"
      "  -h, --help\n");
}

typedef struct args {
  ppt_cli_common c; /* --hw, --cores, --interleave LIST, --seed, --only, -o, --json; c.operand: the trace */
  ppt_sasmm_opts base;
  int mode, model_sim;
  double rate;
  uint64_t threads;
  uint32_t scale[2]; /* --scale-from A,B; {0, 0} when not given */
} args;

typedef struct task {
  uint32_t n;
  ppt_interleave il;
  int shared_only;        /* the private profiles come from the rr task of the same n */
  int predicted;          /* --scale-from: profiles predicted, not mimicked */
  double c_core, c_share; /* Wu & Yeung §5, in lines (NAN: not known; c_share INFINITY: none) */
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
  const ppt_sasmm_plan *plan; /* the trace's two passes, shared by the tasks (NULL: each makes its own) */
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
    if (tk->predicted) continue;
    ppt_sasmm_opts o = j->a->base;
    o.ncores = tk->n;
    o.interleave = tk->il;
    o.shared_only = tk->shared_only;
    o.plan = j->plan;
    o.crd_group = ppt_sdcm_crd_group(&r->hw);
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
    case 'K': a->base.coherence = 1; return 0;
    case 'S': {
      size_t n = 0;
      if (ppt_sasmm_cores_parse(value, a->scale, 2, &n) || n != 2 || a->scale[0] >= a->scale[1])
        return ppt_cli_usage("sasmm", "--scale-from wants two core counts A,B with A < B, not '%s'", value);
      return 0;
    }
    default: return ppt_cli_take_threads("sasmm", value, &a->threads); /* --threads */
  }
}

static int parse_args(int argc, char **argv, void *va) {
  static const struct option own[] = {{"schedule", required_argument, 0, 's'},
                                      {"split", required_argument, 0, 'p'},
                                      {"mode", required_argument, 0, 'm'},
                                      {"sample", required_argument, 0, 'r'},
                                      {"model", required_argument, 0, 'M'},
                                      {"quantum", required_argument, 0, 'Q'},
                                      {"coherence", no_argument, 0, 'K'},
                                      {"threads", required_argument, 0, 't'},
                                      {"scale-from", required_argument, 0, 'S'},
                                      {"profiles", required_argument, 0, 'o'}, /* its name for -o */
                                      {0, 0, 0, 0}};
  static const ppt_cli_spec spec = {.cmd = "sasmm",
                                    .shared = PPT_OPT_HW | PPT_OPT_SET | PPT_OPT_CORES | PPT_OPT_INTERLEAVES |
                                              PPT_OPT_SEED | PPT_OPT_ONLY | PPT_OPT_OUTPUT | PPT_OPT_JSON |
                                              PPT_OPT_NOSTACK,
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
  if (a->model_sim && a->scale[1]) {
    ppt_cli_common_free(&a->c);
    return ppt_cli_usage("sasmm", "--scale-from needs --model sdcm (it predicts profiles)");
  }
  return 0;
}

/* ---------------------------------------------------------------- run */

/* The core counts mimicked: all of --cores, or with --scale-from A,B, A and B (first, when
 * --cores lacks them) and the counts up to B. */
static size_t measured_counts(const args *a, uint32_t *out) {
  size_t n = 0;
  for (int s = 0; a->scale[1] && s < 2; s++) {
    int listed = 0;
    for (size_t i = 0; i < a->c.ncores; i++) listed |= a->c.cores[i] == a->scale[s];
    if (!listed) out[n++] = a->scale[s];
  }
  for (size_t i = 0; i < a->c.ncores; i++)
    if (!a->scale[1] || a->c.cores[i] <= a->scale[1]) out[n++] = a->c.cores[i];
  return n;
}

/* The task mimicked at n cores with interleaving il whose private profiles are its own. */
static const task *find_task(const results *r, uint32_t n, ppt_interleave il, int want_prd) {
  for (size_t i = 0; i < r->ntasks; i++) {
    const task *tk = &r->tasks[i];
    if (tk->n == n && !tk->predicted && (want_prd ? !tk->shared_only : tk->il == il)) return tk;
  }
  return NULL;
}

/* --scale-from: each predicted task's CRD from the measured CRDs of its interleaving and
 * its PRD from the measured summed PRDs (Wu & Yeung §4.1.1, whole-program profiles as in
 * §4.2's last paragraph), then C_core and C_share of every task (§5). */
static int scale_tasks(const args *a, results *r, ppt_err *err) {
  ppt_rdscale_opts so;
  ppt_rdscale_opts_default(&so);
  for (size_t i = 0; i < r->ntasks; i++) {
    task *tk = &r->tasks[i];
    if (!tk->predicted) continue;
    const task *ca = find_task(r, a->scale[0], tk->il, 0), *cb = find_task(r, a->scale[1], tk->il, 0);
    const task *pa = find_task(r, a->scale[0], tk->il, 1), *pb = find_task(r, a->scale[1], tk->il, 1);
    if (!ca || !cb || !pa || !pb)
      return ppt_err_set(err, PPT_ERUN, "--scale-from: a measured profile is missing");
    tk->prof.ncores = tk->n;
    int rc = ppt_rdscale_predict(pa->prof.prd_all, pa->n, pb->prof.prd_all, pb->n, tk->n, PPT_RDSCALE_PRD,
                                 &so, &tk->prof.prd_all, err);
    if (!rc)
      rc = ppt_rdscale_predict(ca->prof.crd, ca->n, cb->prof.crd, cb->n, tk->n, PPT_RDSCALE_CRD, &so,
                               &tk->prof.crd, err);
    if (rc) return rc;
  }
  for (size_t i = 0; i < r->ntasks; i++) {
    task *tk = &r->tasks[i];
    const task *one = find_task(r, 1, tk->il, 0), *own = tk->shared_only ? tk - 1 : tk;
    tk->c_core = tk->c_share = NAN;
    if (!tk->prof.crd || !own->prof.prd_all) continue;
    if (one && one->prof.crd && ppt_rdscale_c_core(tk->prof.crd, one->prof.crd, &tk->c_core))
      return ppt_err_set(err, PPT_ERUN, "C_core: empty profile or out of memory");
    if (ppt_rdscale_c_share(tk->prof.crd, own->prof.prd_all, tk->n, &tk->c_share))
      return ppt_err_set(err, PPT_ERUN, "C_share: empty profile or out of memory");
  }
  return 0;
}

/* One task per core count and interleaving, rr before uniform. */
static int make_tasks(const args *a, results *r, ppt_err *err) {
  int want_rr = 0, want_uni = 0;
  for (size_t i = 0; i < a->c.ninterleave; i++) {
    want_rr |= a->c.interleave[i] == PPT_INTERLEAVE_RR;
    want_uni |= a->c.interleave[i] == PPT_INTERLEAVE_UNIFORM;
  }
  if (!(r->tasks = calloc(a->c.ncores * 2 + 4, sizeof *r->tasks)))
    return ppt_err_set(err, PPT_ERUN, "out of memory");
  uint32_t all[PPT_CLI_MAX_CORES + 2];
  size_t nall = measured_counts(a, all);
  for (size_t i = 0; i < a->c.ncores; i++)
    if (a->scale[1] && a->c.cores[i] > a->scale[1]) all[nall++] = a->c.cores[i];
  for (size_t i = 0; i < nall; i++) {
    uint32_t n = all[i];
    int pred = a->scale[1] && n > a->scale[1];
    if (want_rr) r->tasks[r->ntasks++] = (task){.n = n, .il = PPT_INTERLEAVE_RR, .predicted = pred};
    if (want_uni)
      r->tasks[r->ntasks++] = (task){.n = n,
                                     .il = PPT_INTERLEAVE_UNIFORM,
                                     .shared_only = want_rr && !a->model_sim && !pred,
                                     .predicted = pred};
  }
  return 0;
}

/* Runs the tasks on --threads workers; the first failed task's error. */
static int run_tasks(const args *a, results *r, ppt_err *err) {
  job j = {.a = a, .r = r};
  pthread_t th[256];
  size_t nth = a->threads < r->ntasks ? a->threads : r->ntasks;
  /* Several mimics of one trace: its two passes before any dealing, made once. */
  ppt_sasmm_plan *plan = NULL;
  if (r->ntasks > 1 && ppt_sasmm_plan_new(r->t, &plan, err)) return err->status ? (int)err->status : PPT_ERUN;
  j.plan = plan;
  pthread_mutex_init(&j.lock, NULL);
  j.progress = ppt_cli_progress_start("core counts", r->ntasks);
  for (size_t i = 0; i < nth; i++) pthread_create(&th[i], NULL, worker, &j);
  for (size_t i = 0; i < nth; i++) pthread_join(th[i], NULL);
  ppt_cli_progress_end(j.progress);
  pthread_mutex_destroy(&j.lock);
  ppt_sasmm_plan_free(plan);
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
    if (tk->predicted) { /* only the cores' summed PRD is predicted */
      for (uint32_t k = 0; k < tk->n * nl; k++) tk->per_core[k] = NAN;
      int rc = ppt_sdcm_sasmm_hitrates(&r->hw, &view, tk->rates, NULL, err);
      if (rc) return rc;
      continue;
    }
    if (tk->shared_only) {
      view.prd = tk[-1].prof.prd;
      view.prd_all = tk[-1].prof.prd_all;
    }
    int rc = ppt_sdcm_sasmm_hitrates(&r->hw, &view, tk->rates, tk->per_core, err);
    if (rc) return rc;
  }
  return 0;
}

/* Regions that split their work by thread number were divided among the cores rather
 * than run whole on each (docs/sasmm.md, "Hand-split regions"): said once, on stderr. */
static void divided_notice(const args *a, const results *r) {
  for (size_t i = 0; i < r->ntasks; i++) {
    uint64_t n = r->tasks[i].prof.stats.divided_phases;
    if (!n || r->tasks[i].n < 2) continue;
    fprintf(stderr,
            "ppt sasmm: %s: %llu parallel phase%s without a worksharing loop ask%s for the thread number: "
            "divided among the cores in contiguous shares (docs/sasmm.md, \"Hand-split regions\")\n",
            a->c.operand, (unsigned long long)n, n == 1 ? "" : "s", n == 1 ? "s" : "");
    return;
  }
}

static int run(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  results *r = vr;
  int rc = ppt_cli_load_hw(&a->c, &r->hw, err);
  if (!rc) rc = ppt_cli_open_sequential(a->c.operand, &r->t, err);
  if (!rc) ppt_cli_stack_refs(&a->c, r->t);
  if (!rc) rc = ppt_cli_counted(&a->c, r->t, &r->counted, err);
  if (!rc) { /* only the mimicked counts cost memory */
    ppt_cli_common mc = a->c;
    uint32_t meas[PPT_CLI_MAX_CORES + 2];
    mc.ncores = measured_counts(a, meas);
    mc.ncores = mc.ncores > PPT_CLI_MAX_CORES ? PPT_CLI_MAX_CORES : mc.ncores;
    memcpy(mc.cores, meas, mc.ncores * sizeof *meas);
    rc = ppt_cli_check_memory(&mc, r->t, &r->hw, 1, (size_t)a->threads, err);
  }
  if (rc) return rc;
  ppt_reuse_opts_default(&r->ropts);
  r->ropts.line = r->hw.levels[0].line;
  r->ropts.mode = (ppt_reuse_mode)a->mode;
  r->ropts.rate = a->rate;
  r->ropts.seed = (unsigned long)a->c.seed;
  if (!(rc = make_tasks(a, r, err))) rc = run_tasks(a, r, err);
  if (!rc && !a->model_sim) rc = scale_tasks(a, r, err);
  if (!rc) rc = hit_rates(a, r, err);
  if (!rc) divided_notice(a, r);
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

static json_object *settings_json(const args *a, const results *r) {
  json_object *set = json_object_new_object();
  char il[32];
  ppt_cli_interleave_text(&a->c, il, sizeof il);
  json_object_object_add(set, "schedule", json_object_new_string(ppt_cli_schedule_name(a->base.sched)));
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
  json_object *sf = NULL;
  if (a->scale[1]) {
    sf = json_object_new_array();
    for (int s = 0; s < 2; s++) json_object_array_add(sf, json_object_new_int((int)a->scale[s]));
  }
  json_object_object_add(set, "scale_from", sf);
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
  json_object_object_add(e, "divided_phases", json_object_new_int64((int64_t)tk->prof.stats.divided_phases));
  if (!a->model_sim) { /* Wu & Yeung §4.1.1 and §5.1-5.2, in bytes (null: unknown / none) */
    double line = hw->levels[0].line;
    json_object_object_add(e, "predicted", json_object_new_boolean(tk->predicted));
    json_object_object_add(e, "c_core_bytes",
                           isfinite(tk->c_core) ? json_object_new_double(tk->c_core * line) : NULL);
    json_object_object_add(e, "c_share_bytes",
                           isfinite(tk->c_share) ? json_object_new_double(tk->c_share * line) : NULL);
  }
  for (uint32_t k = 0; k < hw->nlevels; k++) {
    json_object *l = json_object_new_object();
    json_object_object_add(l, "name", json_object_new_string(hw->levels[k].name));
    json_object_object_add(l, "shared", json_object_new_boolean(hw->levels[k].shared_by > 1));
    json_object_object_add(l, "hit_rate", ppt_cli_json_rate(tk->rates[k].hit_rate));
    json_object_object_add(l, "local_hit_rate", ppt_cli_json_rate(tk->rates[k].local_hit_rate));
    add_counts(l, a, tk, k);
    if (hw->levels[k].shared_by == 1 && !a->model_sim && !tk->predicted) {
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
  if (!a->model_sim) printf(" %12s %12s", "C_core(KiB)", "C_share(KiB)");
  printf("\n");
  for (size_t i = 0; i < r->ntasks; i++) {
    const task *tk = &r->tasks[i];
    printf("%-5u%c %-8s", tk->n, tk->predicted ? '*' : ' ', ppt_interleave_name(tk->il));
    for (uint32_t k = 0; k < hw->nlevels; k++) {
      if (hw->levels[k].shared_by > 1)
        printf(" %7.2f%% / %6.2f%%      ", 100 * tk->rates[k].hit_rate, 100 * tk->rates[k].local_hit_rate);
      else
        printf(" %7.2f%%          ", 100 * tk->rates[k].hit_rate);
    }
    if (!a->model_sim)
      for (int c = 0; c < 2; c++) {
        double v = c ? tk->c_share : tk->c_core;
        if (isfinite(v))
          printf(" %12.1f", v * hw->levels[0].line / 1024);
        else
          printf(" %12s", isnan(v) ? "-" : "none");
      }
    printf("\n");
  }
  if (a->scale[1]) {
    printf("# * predicted from the %u- and %u-core profiles (Wu & Yeung §4.1.1, reference groups):",
           a->scale[0], a->scale[1]);
    for (size_t i = 0; i < r->ntasks; i++)
      if (r->tasks[i].predicted && r->tasks[i].il == r->tasks[0].il) printf(" %u", r->tasks[i].n);
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
  if (tk->predicted) { /* only the summed PRD is predicted */
    json_object_object_add(e, "predicted", json_object_new_boolean(1));
    if (!(rc = ppt_rdhist_to_json(tk->prof.prd_all, &h, err))) json_object_object_add(e, "prd_all", h);
  }
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

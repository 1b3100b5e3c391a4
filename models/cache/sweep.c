/* sweep.c — the design-space engine (ppt/sweep.h): per core count, one SASMM mimic whose
 * interleaved stream feeds the sweep's whole tree of hierarchies (cache/sweepsim.h). */
#include "ppt/sweep.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cache/sweepsim.h"
#include "sasmm/sieve.h"

typedef struct task {
  uint32_t ncores;
  ppt_tracesim_result *out; /* [nspecs] */
  size_t nodes, fallbacks;
  int rc;
  ppt_err err;
} task;

typedef struct job {
  const ppt_trace *t;
  const ppt_hwspec *specs;
  size_t nspecs;
  const ppt_sweep_opts *o;
  const ppt_sasmm_plan *plan; /* the mimic's first pass, made once for every core count */
  const ppt_sieve *sieve;     /* set sampling: the stream without what no sampled set sees */
  task *tasks;
  size_t ntasks, next, done;
  pthread_mutex_t lock;
} job;

static void on_shared(void *arg, const ppt_trace_rec *r, const uint32_t *cores, size_t n) {
  cache_sweepsim_access_batch(arg, r, cores, n);
}

static void on_dropped(void *arg, uint32_t core, uint64_t refs, uint64_t loads, uint64_t stores) {
  (void)core;
  cache_sweepsim_count_dropped(arg, refs, loads, stores);
}

static int droppable(const void *arg, const ppt_trace_rec *r) {
  return cache_sweepsim_droppable(arg, r);
}

/* The plan, and for a sampled sweep the sieve made in the same pass (sasmm/sieve.h), or
 * NULL where it does not apply. The droppable references depend on the specs, sample
 * and seed only, so a one-thread sweepsim answers for every core count. */
static int make_plan(const ppt_trace *t, const ppt_hwspec *specs, size_t nspecs, const ppt_sweep_opts *o,
                     ppt_sasmm_plan **plan, ppt_sieve **sieve, ppt_err *err) {
  *plan = NULL;
  *sieve = NULL;
  const ppt_sasmm_opts *b = &o->base;
  if (b->plan) return 0; /* the caller's plan: streamed */
  if (o->no_sieve || o->sample_sets <= 1 || b->split != PPT_SPLIT_ITERATIONS ||
      b->interleave != PPT_INTERLEAVE_RR || b->quantum > 1)
    return ppt_sasmm_plan_new(t, plan, err);
  cache_sweepsim *probe;
  int rc = cache_sweepsim_new(specs, nspecs, 1, o->counted, ppt_trace_nbbs(t), o->sample_sets, b->seed,
                              &probe, err);
  if (rc) return rc;
  if (cache_sweepsim_fallbacks(probe))
    rc = ppt_sasmm_plan_new(t, plan, err);
  else
    rc = sasmm_plan_sieve(t, droppable, probe, o->counted,
                          o->sieve_max_bytes ? o->sieve_max_bytes : (uint64_t)512 << 20, plan, sieve, err);
  cache_sweepsim_free(probe);
  return rc;
}

static int run_task(const job *j, task *tk) {
  cache_sweepsim *s;
  int rc = cache_sweepsim_new(j->specs, j->nspecs, tk->ncores, j->o->counted, ppt_trace_nbbs(j->t),
                              j->o->sample_sets, j->o->base.seed, &s, &tk->err);
  if (rc) return rc;
  ppt_sasmm_opts so = j->o->base;
  so.ncores = tk->ncores;
  so.plan = j->plan;
  so.sieve = j->sieve;
  so.private_only = so.shared_only = 0;
  ppt_sasmm_sink sink = {.shared = on_shared, .dropped = on_dropped, .arg = s};
  if (!(rc = ppt_sasmm_mimic(j->t, &so, &sink, NULL, &tk->err))) {
    for (size_t i = 0; i < j->nspecs; i++) cache_sweepsim_result(s, i, tk->ncores, &tk->out[i]);
    tk->nodes = cache_sweepsim_nodes(s);
    tk->fallbacks = cache_sweepsim_fallbacks(s);
  }
  cache_sweepsim_free(s);
  return rc;
}

static void *worker(void *arg) {
  job *j = arg;
  for (;;) {
    pthread_mutex_lock(&j->lock);
    size_t i = j->next++;
    pthread_mutex_unlock(&j->lock);
    if (i >= j->ntasks) return NULL;
    j->tasks[i].rc = run_task(j, &j->tasks[i]);
    pthread_mutex_lock(&j->lock);
    j->done++;
    if (j->o->progress) j->o->progress(j->done, j->o->progress_arg);
    pthread_mutex_unlock(&j->lock);
  }
}

int ppt_sweep_run(const ppt_trace *t, const ppt_hwspec *specs, size_t nspecs, const ppt_sweep_opts *o,
                  ppt_tracesim_result *out, ppt_sweep_stats *stats, ppt_err *err) {
  if (!o->ncores || !nspecs || !o->threads) return ppt_err_set(err, PPT_EINPUT, "sweep: nothing to run");
  for (size_t c = 0; c < o->ncores; c++)
    if (!o->cores[c]) return ppt_err_set(err, PPT_EINPUT, "sweep: a core count of 0");
  job j = {.t = t, .specs = specs, .nspecs = nspecs, .o = o, .ntasks = o->ncores};
  ppt_sasmm_plan *plan;
  ppt_sieve *sieve;
  int rc = make_plan(t, specs, nspecs, o, &plan, &sieve, err);
  if (rc) return rc;
  j.plan = o->base.plan ? o->base.plan : plan;
  j.sieve = sieve;
  if (!(j.tasks = calloc(o->ncores, sizeof *j.tasks))) {
    sasmm_sieve_free(sieve);
    ppt_sasmm_plan_free(plan);
    return ppt_err_set(err, PPT_ERUN, "sweep: out of memory");
  }
  /* The largest core counts first: the longest tasks start early, so the workers finish
   * together. Results still land in o->cores order. */
  size_t *order = malloc(o->ncores * sizeof *order);
  if (!order) {
    free(j.tasks);
    sasmm_sieve_free(sieve);
    ppt_sasmm_plan_free(plan);
    return ppt_err_set(err, PPT_ERUN, "sweep: out of memory");
  }
  for (size_t c = 0; c < o->ncores; c++) order[c] = c;
  for (size_t a = 1; a < o->ncores; a++)
    for (size_t b = a; b > 0 && o->cores[order[b]] > o->cores[order[b - 1]]; b--) {
      size_t x = order[b];
      order[b] = order[b - 1];
      order[b - 1] = x;
    }
  for (size_t c = 0; c < o->ncores; c++)
    j.tasks[c] = (task){.ncores = o->cores[order[c]], .out = out + order[c] * nspecs};
  pthread_mutex_init(&j.lock, NULL);
  size_t nw = o->threads < o->ncores ? o->threads : o->ncores, started = 0;
  pthread_t *th = calloc(nw, sizeof *th);
  if (th)
    for (; started < nw; started++)
      if (pthread_create(&th[started], NULL, worker, &j)) break;
  if (!started) worker(&j); /* no thread could start: do it all here */
  for (size_t w = 0; w < started; w++) pthread_join(th[w], NULL);
  pthread_mutex_destroy(&j.lock);
  ppt_sweep_stats st = {0};
  for (size_t c = 0; c < o->ncores; c++) {
    if (j.tasks[c].rc && !rc) {
      rc = j.tasks[c].rc;
      *err = j.tasks[c].err;
    }
    st.nodes += j.tasks[c].nodes;
    if (j.tasks[c].fallbacks > st.fallbacks) st.fallbacks = j.tasks[c].fallbacks;
  }
  if (sieve) {
    st.sieved = 1;
    st.sieve_kept = sasmm_sieve_size(sieve);
    st.sieve_records = sasmm_sieve_stream_records(sieve);
  }
  if (stats) *stats = st;
  free(th);
  free(order);
  free(j.tasks);
  sasmm_sieve_free(sieve);
  ppt_sasmm_plan_free(plan);
  return rc;
}

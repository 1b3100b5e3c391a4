/* models/predict/predict.c — the prediction pipeline (ppt/predict.h): per core count, the
 * program model of the trace run on the engine, under the core model and, on the same
 * cache simulation, under each other core model asked for. */
#include "ppt/predict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ppt/engine.h"
#include "predict/predict_impl.h"

void ppt_predict_opts_default(ppt_predict_opts *o) {
  memset(o, 0, sizeof *o);
  ppt_sasmm_opts_default(&o->sasmm);
  ppt_tc_policy_default(&o->policy);
  o->fork_cycles = -1;
}

double ppt_predict_fork_cycles(const ppt_hwspec *hw, const ppt_predict_opts *o, uint32_t n) {
  if (n <= 1) return hw->fork_join_serial_cycles;
  return o->fork_cycles >= 0 ? o->fork_cycles : hw->fork_join_cycles;
}

/* Runs m's program on a node of hw configured by cfg. */
static int simulate(const ppt_hwspec *hw, const ppt_node_config *cfg, const ppt_progmodel *m,
                    ppt_node_result **res, ppt_err *err) {
  ppt_node *node = NULL;
  int rc = ppt_node_new(hw, cfg, &node, err);
  if (!rc) rc = ppt_node_run(node, ppt_progmodel_program(m), res, err);
  ppt_node_free(node);
  return rc;
}

static int alloc_result(const ppt_hwspec *hw, const ppt_predict_opts *o, size_t npts,
                        ppt_predict_result **out, ppt_err *err) {
  ppt_predict_result *r = calloc(1, sizeof *r);
  if (r) {
    r->npts = npts;
    r->nmodels = o->nmodels;
    r->fork_cycles = ppt_predict_fork_cycles(hw, o, 2);
    r->pts = calloc(npts ? npts : 1, sizeof *r->pts);
    r->mrt = calloc(o->nmodels * npts + 1, sizeof *r->mrt);
  }
  if (!r || !r->pts || !r->mrt) {
    ppt_predict_result_free(r);
    return ppt_err_set(err, PPT_ERUN, "out of memory");
  }
  for (size_t i = 0; i < o->nmodels * npts; i++) r->mrt[i] = NAN;
  *out = r;
  return 0;
}

/* Point i of r from m, built for n cores with o->policy: the engine's run and its
 * breakdown, then each of o->models on the same simulation (only the tasklists change).
 * sites: whether m's phases are the program's regions one for one. */
static int predict_point(ppt_progmodel *m, const ppt_hwspec *hw, uint32_t n, const ppt_predict_opts *o,
                         int sites, ppt_predict_result *r, size_t i, ppt_err *err) {
  ppt_node_config cfg;
  ppt_node_config_default(&cfg);
  cfg.cores = n;
  cfg.policy = o->policy;
  cfg.fork_cycles = ppt_predict_fork_cycles(hw, o, n);
  ppt_node_result *res = NULL;
  pred_point *pt = &r->pts[i];
  int rc = simulate(hw, &cfg, m, &res, err);
  if (!rc) {
    pt->pub.n = n;
    pt->pub.runtime_s = ppt_node_result_seconds(res);
    pt->pub.fork_cycles = cfg.fork_cycles;
    pt->pub.rates = *ppt_progmodel_hitrates(m);
    pt->pub.divided_phases = ppt_progmodel_mimic_stats(m)->divided_phases;
    rc = pred_breakdown(res, m, n, (cfg.fork_cycles + cfg.join_cycles) / hw->clock_hz, sites, pt, err);
  }
  for (size_t j = 0; j < o->nmodels && !rc; j++) {
    ppt_node_result_free(res);
    res = NULL;
    cfg.policy = o->models[j];
    if (!(rc = ppt_progmodel_set_policy(m, &cfg.policy, err)) && !(rc = simulate(hw, &cfg, m, &res, err)))
      r->mrt[j * r->npts + i] = ppt_node_result_seconds(res);
  }
  ppt_node_result_free(res);
  return rc;
}

/* What both entry points do first: *o the defaults (in *def) when NULL, *res NULL, the
 * arguments checked (input: the trace or the program model). */
static int start(const void *input, const ppt_hwspec *hw, const ppt_predict_opts **o, ppt_predict_opts *def,
                 ppt_predict_result **res, ppt_err *err) {
  if (!*o) {
    ppt_predict_opts_default(def);
    *o = def;
  }
  if (!res || !input || !hw) return ppt_err_set(err, PPT_EINPUT, "predict: NULL argument");
  *res = NULL;
  if ((*o)->nmodels && !(*o)->models)
    return ppt_err_set(err, PPT_EINPUT, "predict: %zu models, none given", (*o)->nmodels);
  return ppt_hwspec_has_timing(hw, hw->name[0] ? hw->name : "hwspec", err);
}

/* r into *res on success; freed on failure. */
static int finish(int rc, ppt_predict_result *r, ppt_predict_result **res) {
  if (rc) ppt_predict_result_free(r);
  *res = rc ? NULL : r;
  return rc;
}

/* The mimic's progress within core count i (records streamed of about `per`) as the
 * caller's (PPT_PREDICT_PROGRESS_UNIT per core count). */
typedef struct point_progress {
  const ppt_predict_opts *o;
  uint64_t before, per;
} point_progress;

static void on_records(uint64_t done, void *arg) {
  const point_progress *p = arg;
  uint64_t part = p->per ? done * PPT_PREDICT_PROGRESS_UNIT / p->per : 0;
  /* a replicated region streams more than the trace holds: the core count is not done yet */
  if (part >= PPT_PREDICT_PROGRESS_UNIT) part = PPT_PREDICT_PROGRESS_UNIT - 1;
  p->o->progress(p->before + part, p->o->progress_arg);
}

int pred_run(const ppt_trace *t, const ppt_hwspec *hw, const ppt_predict_opts *o, pred_each each, void *arg,
             ppt_predict_result **res, ppt_err *err) {
  ppt_predict_opts def;
  int rc = start(t, hw, &o, &def, res, err);
  if (rc) return rc;
  uint32_t one = hw->cores;
  const uint32_t *cores = o->ncores ? o->cores : &one;
  size_t nc = o->ncores ? o->ncores : 1;
  for (size_t i = 0; i < nc; i++)
    if (cores[i] < 1) return ppt_err_set(err, PPT_EINPUT, "predict: core count %zu is 0", i);
  ppt_predict_result *r = NULL;
  if ((rc = alloc_result(hw, o, nc, &r, err))) return rc;
  for (size_t i = 0; i < nc && !rc; i++) {
    ppt_sasmm_opts so = o->sasmm;
    so.ncores = cores[i];
    point_progress pp = {o, i * PPT_PREDICT_PROGRESS_UNIT, ppt_trace_nrecs(t, UINT32_MAX)};
    if (o->progress) {
      so.progress = on_records;
      so.progress_arg = &pp;
    }
    ppt_progmodel *m = NULL;
    rc = ppt_progmodel_build(t, hw, &so, &o->policy, o->counted, &m, err);
    if (!rc) rc = predict_point(m, hw, cores[i], o, 1, r, i, err);
    /* the other core models left m's tasklists on the last of them */
    if (!rc && each && o->nmodels) rc = ppt_progmodel_set_policy(m, &o->policy, err);
    if (!rc && each) rc = each(m, &so, i, arg, err);
    ppt_progmodel_free(m);
    if (o->progress) o->progress((i + 1) * PPT_PREDICT_PROGRESS_UNIT, o->progress_arg);
  }
  return finish(rc, r, res);
}

int ppt_predict_run(const ppt_trace *t, const ppt_hwspec *hw, const ppt_predict_opts *o,
                    ppt_predict_result **res, ppt_err *err) {
  return pred_run(t, hw, o, NULL, NULL, res, err);
}

int ppt_predict_run_progmodel(ppt_progmodel *m, const ppt_hwspec *hw, uint32_t n, const ppt_predict_opts *o,
                              ppt_predict_result **res, ppt_err *err) {
  ppt_predict_opts def;
  int rc = start(m, hw, &o, &def, res, err);
  if (!rc && n < 1) rc = ppt_err_set(err, PPT_EINPUT, "predict: core count 0");
  ppt_predict_result *r = NULL;
  if (!rc) rc = alloc_result(hw, o, 1, &r, err);
  int sites = !rc && ppt_program_nregions(ppt_progmodel_program(m)) == ppt_progmodel_nregions(m);
  if (!rc) rc = predict_point(m, hw, n, o, sites, r, 0, err);
  return r ? finish(rc, r, res) : rc;
}

/* models/predict/result.c — a prediction's breakdown (the critical path, per region and
 * per site) and the result's accessors (ppt/predict.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict/predict_impl.h"

/* Largest runtime first; ties in source order, so that output does not depend on qsort. */
static int by_runtime(const void *a, const void *b) {
  const ppt_predict_site *x = a, *y = b;
  if (x->runtime_s != y->runtime_s) return x->runtime_s < y->runtime_s ? 1 : -1;
  int c = strcmp(x->file, y->file);
  if (c) return c;
  if (x->line != y->line) return x->line < y->line ? -1 : 1;
  return x->parallel - y->parallel;
}

/* One row per site of m, with its counts and rates; 0 or -1 (memory). */
static int site_rows(const ppt_progmodel *m, pred_point *pt) {
  size_t ns = ppt_progmodel_nsites(m);
  if (!(pt->sites = calloc(ns + 1, sizeof *pt->sites))) return -1;
  pt->pub.nsites = ns;
  for (size_t i = 0; i < ns; i++) {
    ppt_predict_site *w = &pt->sites[i];
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

/* Region g's critical-path time into its site's row w. */
static void add_site(ppt_predict_site *w, const ppt_thread_stats *best, double seconds, double wait,
                     double mean, double fj) {
  fj = fj < mean ? fj : mean;
  /* Turns on a contended line are the thread running its contended work: compute. */
  double cm = best->compute_s + best->contention_s + best->memory_s, work = mean - fj;
  w->runtime_s += seconds;
  w->compute_s += best->compute_s;
  w->ops_s += best->ops_s;
  for (int c = 0; c < PPT_TC_NCPU; c++) w->cpu_s[c] += best->cpu_s[c];
  w->memory_s += best->memory_s;
  w->contention_s += best->contention_s;
  w->imbalance_s += wait;
  w->fork_join_s += fj;
  w->seg_compute += cm > 0 ? work * (best->compute_s + best->contention_s) / cm : work;
  w->seg_memory += cm > 0 ? work * best->memory_s / cm : 0;
}

int pred_breakdown(const ppt_node_result *r, const ppt_progmodel *m, uint32_t n, double fj_s, int sites,
                   pred_point *pt, ppt_err *err) {
  size_t nreg = ppt_node_result_nregions(r);
  if (sites && nreg != ppt_progmodel_nregions(m))
    return ppt_err_set(err, PPT_ERUN, "predict: %zu regions simulated, %zu modelled", nreg,
                       ppt_progmodel_nregions(m));
  if (sites && site_rows(m, pt)) return ppt_err_set(err, PPT_ERUN, "out of memory");
  ppt_predict_point *p = &pt->pub;
  p->nregions = nreg;
  for (size_t g = 0; g < nreg; g++) {
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
    p->compute_s += best.compute_s;
    p->ops_s += best.ops_s;
    p->memory_s += best.memory_s;
    p->contention_s += best.contention_s;
    for (int c = 0; c < PPT_TC_NCPU; c++) p->cpu_s[c] += best.cpu_s[c];
    double wait = rs.seconds - busy_sum / nt;
    wait = wait > 0 ? wait : 0; /* rounding can leave -1e-18 */
    p->imbalance_wait_s += wait;
    if (sites)
      add_site(&pt->sites[ppt_progmodel_phase_site(m, g)], &best, rs.seconds, wait, busy_sum / nt,
               reg.kind == PPT_REGION_FORK ? fj_s : 0);
  }
  if (sites) qsort(pt->sites, p->nsites, sizeof *pt->sites, by_runtime);
  return 0;
}

size_t ppt_predict_result_npoints(const ppt_predict_result *r) {
  return r ? r->npts : 0;
}

const ppt_predict_point *ppt_predict_result_point(const ppt_predict_result *r, size_t i) {
  return r && i < r->npts ? &r->pts[i].pub : NULL;
}

const ppt_predict_site *ppt_predict_result_site(const ppt_predict_result *r, size_t i, size_t j) {
  return r && i < r->npts && j < r->pts[i].pub.nsites ? &r->pts[i].sites[j] : NULL;
}

double ppt_predict_result_model_seconds(const ppt_predict_result *r, size_t i, size_t j) {
  return r && i < r->npts && j < r->nmodels ? r->mrt[j * r->npts + i] : NAN;
}

double ppt_predict_result_fork_cycles(const ppt_predict_result *r) {
  return r ? r->fork_cycles : NAN;
}

void ppt_predict_result_free(ppt_predict_result *r) {
  if (!r) return;
  for (size_t i = 0; r->pts && i < r->npts; i++) free(r->pts[i].sites);
  free(r->pts);
  free(r->mrt);
  free(r);
}

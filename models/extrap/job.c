/* job.c — ppt_extrap_run (ppt/extrapolate.h): the options checked, the traces of other
 * binaries matched onto the first's blocks, the traces ordered by size, then the stages
 * in turn (extrap/job.h): measure, align, walks, the irregular-access rule, the check,
 * the prediction and, with a timed spec, the runtime. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "extrap/job.h"
#include "ppt/extrap.h"
#include "ppt/extrapolate.h"
#include "ppt/reuse.h"
#include "ppt/sasmm.h"

void ppt_extrap_job_opts_default(ppt_extrap_job_opts *o) {
  static const uint32_t cores[] = {1, 2, 4, 8, 16};
  memset(o, 0, sizeof *o);
  o->cores = cores;
  o->ncores = sizeof cores / sizeof cores[0];
  o->seed = 1;
  o->param = "size";
}

double ext_size(const ext_job *r, size_t i) {
  return r->o->traces[i].size;
}

const char *ext_path(const ext_job *r, size_t i) {
  return r->o->traces[i].path ? r->o->traces[i].path : "-";
}

size_t ext_largest(const ext_job *r) {
  return r->res->order[r->ntr - 1];
}

void ext_progress(const ext_job *r, const char *stage, uint64_t done, uint64_t total) {
  if (r->o->progress) r->o->progress(stage, done, total, r->o->progress_arg);
}

static int check_opts(const ppt_extrap_job_opts *o, ppt_err *err) {
  if (!o || !o->hw || !o->traces || o->ntraces < 2 || o->ntraces > MAX_TRACES)
    return ppt_err_set(err, PPT_EINPUT, "extrapolation: needs a hwspec and 2 to %d traces", MAX_TRACES);
  if (!o->param) return ppt_err_set(err, PPT_EINPUT, "extrapolation: no name for the size parameter");
  if (!o->cores || !o->ncores || o->ncores > PPT_EXTRAP_MAX_CORES)
    return ppt_err_set(err, PPT_EINPUT, "extrapolation: needs 1 to %d core counts", PPT_EXTRAP_MAX_CORES);
  for (size_t c = 0; c < o->ncores; c++)
    if (!o->cores[c]) return ppt_err_set(err, PPT_EINPUT, "extrapolation: a core count of 0");
  if (!(o->target > 0) || !isfinite(o->target))
    return ppt_err_set(err, PPT_EINPUT, "extrapolation: the target size must be > 0");
  for (size_t i = 0; i < o->ntraces; i++) {
    const ppt_extrap_job_trace *t = &o->traces[i];
    if (!t->trace || !(t->size > 0) || !isfinite(t->size))
      return ppt_err_set(err, PPT_EINPUT, "extrapolation: trace %zu: no trace or a size not > 0", i);
    for (size_t j = 0; j < i; j++)
      if (o->traces[j].size == t->size)
        return ppt_err_set(err, PPT_EINPUT, "extrapolation: size %g is given twice", t->size);
  }
  return 0;
}

/* Traces of one binary have one block table: the same blocks, sources and op mixes. */
static int same_binary(const ppt_trace *a, const ppt_trace *b) {
  uint32_t n = ppt_trace_nbbs(a);
  if (n != ppt_trace_nbbs(b)) return 0;
  for (uint32_t id = 1; id <= n; id++) {
    const ppt_trace_bb *x = ppt_trace_bb_get(a, id), *y = ppt_trace_bb_get(b, id);
    if (x->flags != y->flags || x->line != y->line || strcmp(x->func, y->func) || strcmp(x->file, y->file) ||
        memcmp(x->ops, y->ops, sizeof x->ops))
      return 0;
  }
  return 1;
}

/* The block maps of traces of other binaries, and the traces' order by size. */
static int open_traces(ext_job *r, ppt_err *err) {
  ppt_extrap_job_result *res = r->res;
  for (size_t i = 0; i < r->ntr; i++) {
    r->t[i] = r->o->traces[i].trace;
    if (!i || same_binary(r->t[0], r->t[i])) continue; /* the fast path: ids are the ids */
    if (!(r->map[i] = malloc(((size_t)ppt_trace_nbbs(r->t[i]) + 1) * sizeof *r->map[i])))
      return ppt_err_set(err, PPT_ERUN, "out of memory");
    int rc = ppt_extrap_match_blocks(r->t[0], r->t[i], r->map[i], err);
    if (rc) return rc;
    res->matched_by_key = 1;
  }
  r->counted = r->o->traces[0].counted;
  for (size_t i = 0; i < r->ntr; i++) res->order[i] = i;
  for (size_t i = 1; i < r->ntr; i++) /* insertion sort by size */
    for (size_t j = i; j > 0 && ext_size(r, res->order[j]) < ext_size(r, res->order[j - 1]); j--) {
      size_t s = res->order[j];
      res->order[j] = res->order[j - 1];
      res->order[j - 1] = s;
    }
  return 0;
}

static int stages(ext_job *r, ppt_err *err) {
  ppt_extrap_job_result *res = r->res;
  size_t nc = r->o->ncores;
  int rc = open_traces(r, err);
  for (size_t c = 0; c < nc; c++) {
    ppt_extrap_job_point *pt = &res->points[c];
    pt->n = r->o->cores[c];
    for (uint32_t k = 0; k < NL; k++) pt->check_err[k] = NAN;
    pt->runtime_s = pt->runtime_s_lo = pt->runtime_s_hi = NAN;
  }
  ppt_err quiet;
  res->timed = !rc && !ppt_hwspec_has_timing(r->hw, r->hw->name, &quiet);
  if (!rc) rc = ext_measure(r, err);
  if (!rc) rc = ext_align_blocks(r, err);
  if (!rc) rc = ext_walks_measure(r, err);
  if (!rc) rc = ext_check_irregular(r, err);
  res->checked = r->ntr >= 3;
  for (size_t c = 0; c < nc && !rc && res->checked; c++) rc = ext_check(r, c, err);
  for (size_t c = 0; c < nc && !rc; c++) rc = ext_predict(r, c, err);
  if (!rc && res->timed) rc = ext_block_weights(r, err);
  if (!rc && res->timed) ext_progress(r, "runtime", 0, nc);
  for (size_t c = 0; c < nc && !rc && res->timed; c++) {
    rc = ext_runtime(r, c, err);
    ext_progress(r, "runtime", c + 1, nc);
  }
  res->irregular = r->walks.irregular;
  for (size_t i = 0; i < r->ntr && !rc; i++) res->refs[i] = ppt_rdhist_total(r->prof[i][0].prd_all);
  return rc;
}

static void job_free(ext_job *r) {
  for (size_t i = 0; i < MAX_TRACES; i++) {
    for (size_t c = 0; c < PPT_EXTRAP_MAX_CORES; c++) ppt_sasmm_profiles_free(&r->prof[i][c]);
    free(r->map[i]);
    free(r->blk_inst[i]);
    free(r->blk_refs[i]);
  }
  free(r->w_inst);
  free(r->w_refs);
  ext_walks_free(&r->walks);
  for (size_t c = 0; c < PPT_EXTRAP_MAX_CORES; c++) {
    free(r->px[c].blk_traced);
    free(r->px[c].blk_target);
  }
  free(r);
}

int ppt_extrap_run(const ppt_extrap_job_opts *o, ppt_extrap_job_result **out, ppt_err *err) {
  *out = NULL;
  int rc = check_opts(o, err);
  if (rc) return rc;
  ext_job *r = calloc(1, sizeof *r);
  ppt_extrap_job_result *res = calloc(1, sizeof *res);
  ppt_extrap_job_point *pts = calloc(o->ncores, sizeof *pts);
  if (!r || !res || !pts) {
    free(r);
    free(res);
    free(pts);
    return ppt_err_set(err, PPT_ERUN, "out of memory");
  }
  *r = (ext_job){.o = o, .hw = o->hw, .res = res, .ntr = o->ntraces};
  *res = (ppt_extrap_job_result){.ntraces = o->ntraces, .npoints = o->ncores, .points = pts};
  rc = stages(r, err);
  job_free(r);
  if (rc)
    ppt_extrap_job_result_free(res);
  else
    *out = res;
  return rc;
}

void ppt_extrap_job_result_free(ppt_extrap_job_result *r) {
  if (!r) return;
  free(r->points);
  free(r);
}

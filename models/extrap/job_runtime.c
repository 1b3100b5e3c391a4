/* job_runtime.c — ppt_extrap_run's runtime at the target (docs/extrapolate.md,
 * "Runtime"): the program model of the largest trace (as `ppt predict` builds it), each
 * block weighted to its fitted counts at the target, every site's misses moved so that
 * the run's become the predicted rates (and the band's ends), run on the engine as `ppt
 * predict` runs it (ppt_predict_run_progmodel). */
#include <math.h>
#include <stdlib.h>

#include "extrap/job.h"
#include "ppt/extrap.h"
#include "ppt/predict.h"
#include "ppt/progmodel.h"
#include "ppt/sasmm.h"
#include "ppt/tracesim.h"

/* What each block of the largest trace weighs at the target: its instances (references)
 * fitted across the traced sizes and taken at the target, over its count in the largest
 * trace. A block the others lack (no partner) weighs what the whole program does. */
static void weigh(const double *fit, const double *big, uint32_t nref, const uint32_t *map, uint32_t nbig,
                  double *w) {
  double sf = 0, sb = 0;
  for (uint32_t id = 0; id <= nref; id++)
    if (big[id] > 0) {
      sf += fit[id];
      sb += big[id];
    }
  double all = sb > 0 ? sf / sb : 1.0;
  for (uint32_t b = 0; b <= nbig; b++) {
    uint32_t id = map ? map[b] : b;
    w[b] = (id || !b) && big[id] > 0 ? fit[id] / big[id] : all;
  }
}

int ext_block_weights(ext_job *r, ppt_err *err) {
  uint32_t nref = ppt_trace_nbbs(r->t[0]);
  size_t n = r->ntr, big = ext_largest(r);
  uint32_t nbig = ppt_trace_nbbs(r->t[big]);
  double sizes[MAX_TRACES];
  const double *ci[MAX_TRACES], *cr[MAX_TRACES];
  double *fi = malloc(((size_t)nref + 1) * sizeof *fi), *fr = malloc(((size_t)nref + 1) * sizeof *fr);
  r->w_inst = malloc(((size_t)nbig + 1) * sizeof *r->w_inst);
  r->w_refs = malloc(((size_t)nbig + 1) * sizeof *r->w_refs);
  int rc = fi && fr && r->w_inst && r->w_refs ? 0 : ppt_err_set(err, PPT_ERUN, "out of memory");
  for (size_t i = 0; i < n && !rc; i++) { /* the counts of ext_walks_measure's pass */
    size_t t = r->res->order[i];
    sizes[i] = ext_size(r, t);
    ci[i] = r->blk_inst[t];
    cr[i] = r->blk_refs[t];
  }
  if (!rc) rc = ppt_extrap_counts_at(sizes, ci, n, nref + 1, r->o->target, fi, err);
  if (!rc) rc = ppt_extrap_counts_at(sizes, cr, n, nref + 1, r->o->target, fr, err);
  if (!rc) {
    weigh(fi, r->blk_inst[big], nref, r->map[big], nbig, r->w_inst);
    weigh(fr, r->blk_refs[big], nref, r->map[big], nbig, r->w_refs);
  }
  free(fi);
  free(fr);
  return rc;
}

/* The blocks' miss ratios of px (first trace's ids) on the block ids of trace big, as
 * ppt_progmodel_shift_sites takes them: bt[k] (traced) and bx[k] (target) point into the
 * malloc'd *mt and *mx; both NULL when px has none. */
static int block_ratios(const ext_job *r, const ext_point *px, size_t big, double **mt, double **mx,
                        const double **bt, const double **bx, ppt_err *err) {
  uint32_t nl = r->hw->nlevels, nbig = ppt_trace_nbbs(r->t[big]);
  *mt = *mx = NULL;
  if (!px->blk_traced) return 0;
  *mt = malloc((size_t)nl * (nbig + 1) * sizeof **mt);
  *mx = malloc((size_t)nl * (nbig + 1) * sizeof **mx);
  if (!*mt || !*mx) return ppt_err_set(err, PPT_ERUN, "out of memory");
  for (uint32_t k = 0; k < nl; k++) {
    for (uint32_t b = 0; b <= nbig; b++) {
      uint32_t id = r->map[big] ? r->map[big][b] : b;
      int in = id && id < px->nblocks;
      (*mt)[(size_t)k * (nbig + 1) + b] = in ? px->blk_traced[(size_t)k * px->nblocks + id] : NAN;
      (*mx)[(size_t)k * (nbig + 1) + b] = in ? px->blk_target[(size_t)k * px->nblocks + id] : NAN;
    }
    bt[k] = *mt + (size_t)k * (nbig + 1);
    bx[k] = *mx + (size_t)k * (nbig + 1);
  }
  return 0;
}

/* The run's miss ratios (from) and the three targets (to: the rates with the set
 * conflicts, then the band's fast and slow ends moved with them), and per level served
 * the share of its gain from walks whose first-level misses bunch on one set. */
static void shift_targets(const ext_job *r, const ppt_extrap_job_point *pt, const ext_point *px,
                          const ppt_tracesim_result *sim, double *from, double (*to)[NL], double *bunched) {
  uint32_t nl = r->hw->nlevels;
  for (uint32_t k = 0; k < nl; k++) {
    /* From the simulation's own run-wide miss ratio (not SDCM's at that size): the
     * extrapolated rates are then the run's rates at the target, as reported. */
    from[k] = 1 - sim->levels[k].ref_hit_rate;
    /* The rates with the target's set conflicts, which the simulation of a trace taken
     * there would see; the band moved with them. */
    double conflict = pt->pred[k].hit_rate - pt->sets[k];
    to[0][k] = 1 - pt->sets[k];
    to[1][k] = fmin(1, fmax(0, 1 - pt->hi[k] + conflict)); /* fewest misses: the band's fast end */
    to[2][k] = fmin(1, fmax(0, 1 - pt->lo[k] + conflict));
    for (int j = 0; j < 3; j++)
      if (!isfinite(from[k]) || !isfinite(to[j][k])) to[j][k] = from[k] = isfinite(from[k]) ? from[k] : 0;
  }
  /* The accesses a level gains through folded walks whose first-level misses queue on one
   * set: their share of all it gains (served at the target beyond the trace's). */
  for (uint32_t j = 1; j <= nl; j++) {
    double gained = (to[0][j - 1] - (j < nl ? to[0][j] : 0)) - (from[j - 1] - (j < nl ? from[j] : 0));
    bunched[j] = gained > 0 && px->bunched_lost[j - 1] > 0 ? fmin(1, px->bunched_lost[j - 1] / gained) : NAN;
  }
}

int ext_runtime(ext_job *r, size_t c, ppt_err *err) {
  ppt_extrap_job_point *pt = &r->res->points[c];
  const ext_point *px = &r->px[c];
  size_t big = ext_largest(r);
  ppt_sasmm_opts o;
  ppt_sasmm_opts_default(&o);
  o.ncores = pt->n;
  o.seed = r->o->seed;
  ppt_progmodel_weights w = {r->w_inst, r->w_refs};
  ppt_progmodel *m = NULL;
  int rc = ppt_progmodel_build_weighted(r->t[big], r->hw, &o, NULL, r->o->traces[big].counted, &w, &m, err);
  double from[NL], to[3][NL], bunched[NL + 1];
  const ppt_tracesim_result *sim = rc ? NULL : ppt_progmodel_hitrates(m);
  if (sim) shift_targets(r, pt, px, sim, from, to, bunched);
  if (!rc) rc = ppt_progmodel_shift_gains(m, px->gain_prefetched, bunched, err);
  /* Each site as its own blocks move. */
  const double *bt[NL], *bx[NL];
  double *mt = NULL, *mx = NULL;
  if (!rc) rc = block_ratios(r, px, big, &mt, &mx, bt, bx, err);
  double *out[3] = {&pt->runtime_s, &pt->runtime_s_lo, &pt->runtime_s_hi};
  for (int j = 0; j < 3 && !rc; j++) {
    rc = ppt_progmodel_shift_misses(m, from, to[j], err);
    if (!rc && mt) rc = ppt_progmodel_shift_sites(m, bt, bx, err);
    ppt_predict_result *res = NULL;
    if (!rc) rc = ppt_predict_run_progmodel(m, r->hw, pt->n, NULL, &res, err);
    if (!rc) *out[j] = ppt_predict_result_point(res, 0)->runtime_s;
    ppt_predict_result_free(res);
  }
  free(mt);
  free(mx);
  ppt_progmodel_free(m);
  return rc;
}

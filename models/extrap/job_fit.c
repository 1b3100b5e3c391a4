/* job_fit.c — ppt_extrap_run's model per core count (extrap/job.h): fitted on the traces
 * (ppt_extrap_fit), its profiles at a size judged by SDCM (ppt_sdcm_sasmm_hitrates, the
 * same call as `ppt sasmm --model sdcm`); with 3 traces or more the check (the model of
 * all but the largest must predict the largest), and the prediction at the target with
 * its band (docs/extrapolate.md, "Band"). */
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "extrap/job.h"
#include "ppt/extrap.h"
#include "ppt/reuse.h"
#include "ppt/sasmm.h"
#include "ppt/sdcm.h"

#define DRAWS PPT_EXTRAP_DRAWS

/* Fits the model of core count c on the traces order[0..n) (by size). */
static int fit(const ext_job *r, size_t c, size_t n, ppt_extrap_model **m, ppt_err *err) {
  double sizes[MAX_TRACES];
  const ppt_sasmm_profiles *profs[MAX_TRACES];
  for (size_t i = 0; i < n; i++) {
    sizes[i] = ext_size(r, r->res->order[i]);
    profs[i] = &r->prof[r->res->order[i]][c];
  }
  ppt_extrap_opts o;
  ppt_extrap_opts_default(&o);
  return ppt_extrap_fit(sizes, profs, n, &o, m, err);
}

/* SDCM of the model's profiles at size (draw 0: the fit; k: the k-th bootstrap draw). */
static int rates_at(const ext_job *r, const ppt_extrap_model *m, double size, unsigned draw,
                    ppt_sdcm_rates *rates, double *refs, ppt_err *err) {
  ppt_sasmm_profiles p;
  int rc = ppt_extrap_predict(m, size, r->counted, r->o->seed, draw, &p, err);
  if (rc) return rc;
  if (ppt_rdhist_total(p.prd_all) <= 0)
    rc = ppt_err_set(err, PPT_EINPUT, "%s=%g: no references predicted", r->o->param, size);
  if (!rc) rc = ppt_sdcm_sasmm_hitrates(r->hw, &p, rates, NULL, err);
  if (refs) *refs = ppt_rdhist_total(p.prd_all);
  ppt_sasmm_profiles_free(&p);
  return rc;
}

/* The traces but the largest, named for the refusal's message. */
static void smaller_names(const ext_job *r, char *buf, size_t cap) {
  size_t len = 0;
  buf[0] = 0;
  for (size_t i = 0; i + 1 < r->ntr && len < cap; i++) {
    size_t t = r->res->order[i];
    len += (size_t)snprintf(buf + len, cap - len, "%s%s=%g:%s", i ? ", " : "", r->o->param, ext_size(r, t),
                            ext_path(r, t));
  }
}

int ext_check(ext_job *r, size_t c, ppt_err *err) {
  ppt_extrap_job_point *pt = &r->res->points[c];
  size_t last = ext_largest(r);
  double big = ext_size(r, last);
  const char *param = r->o->param, *path = ext_path(r, last);
  ppt_extrap_model *m;
  int rc = fit(r, c, r->ntr - 1, &m, err);
  ppt_sdcm_rates pred[NL];
  if (!rc) rc = rates_at(r, m, big, 0, pred, NULL, err);
  uint32_t bb = 0;
  double berr = 0;
  if (!rc)
    rc = ppt_extrap_block_error(m, big, &r->prof[last][c], r->counted, PPT_EXTRAP_CHECK_BLOCK_SHARE, &bb,
                                &berr, err);
  ppt_extrap_model_free(m);
  if (rc) return rc;
  char names[1024];
  smaller_names(r, names, sizeof names);
  for (uint32_t k = 0; k < r->hw->nlevels; k++) {
    pt->check_err[k] = 100 * (pred[k].hit_rate - pt->measured[last][k].hit_rate);
    if (fabs(pt->check_err[k]) > PPT_EXTRAP_CHECK_POINTS)
      return ppt_err_set(err, PPT_ERUN,
                         "%s predict %s=%g:%s with %s off by %.2f points at %u cores (measured %.2f %%, "
                         "threshold %.0f): the behaviour changes with %s between the traced sizes: not "
                         "extrapolated",
                         names, param, big, path, r->hw->levels[k].name, pt->check_err[k], pt->n,
                         100 * pt->measured[last][k].hit_rate, PPT_EXTRAP_CHECK_POINTS, param);
  }
  if (berr > PPT_EXTRAP_CHECK_BLOCK) {
    const ppt_trace_bb *b = bb ? ppt_trace_bb_get(r->t[0], bb) : NULL;
    return ppt_err_set(
        err, PPT_ERUN,
        "%s predict %s=%g:%s with the references of block %u (%s, %s:%u) off by %.1f %% at %u "
        "cores (threshold %.0f %%): the behaviour changes with %s between the traced sizes: not "
        "extrapolated",
        names, param, big, path, bb, b ? b->func : "-", b ? b->file : "-", b ? b->line : 0, 100 * berr, pt->n,
        100 * PPT_EXTRAP_CHECK_BLOCK, param);
  }
  return 0;
}

/* The band: the 5th-95th percentiles of the draws v[k * DRAWS + d], widened by the
 * check's error. */
static void band(const ext_job *r, ppt_extrap_job_point *pt, double *v) {
  /* The draws see only the fits' scatter, none for a fit through every point; the
   * check's error (the largest size predicted from the others) is the model's error
   * one step out, grown with how much further out the target is (in log size). The
   * band is the wider of the two. */
  double f = 1;
  if (r->res->checked) {
    double smax = ext_size(r, ext_largest(r)), sprev = ext_size(r, r->res->order[r->ntr - 2]);
    f = log(r->o->target / smax) / log(smax / sprev);
    f = f > 1 ? f : 1;
  }
  for (uint32_t k = 0; k < r->hw->nlevels; k++) {
    gsl_sort(v + k * DRAWS, 1, DRAWS);
    pt->lo[k] = gsl_stats_quantile_from_sorted_data(v + k * DRAWS, 1, DRAWS, 0.05);
    pt->hi[k] = gsl_stats_quantile_from_sorted_data(v + k * DRAWS, 1, DRAWS, 0.95);
    double w = f * fabs(pt->check_err[k]) / 100;
    if (r->res->checked && isfinite(w)) {
      pt->lo[k] = fmax(0, fmin(pt->lo[k], pt->pred[k].hit_rate - w));
      pt->hi[k] = fmin(1, fmax(pt->hi[k], pt->pred[k].hit_rate + w));
    }
  }
}

int ext_predict(ext_job *r, size_t c, ppt_err *err) {
  ppt_extrap_job_point *pt = &r->res->points[c];
  ppt_extrap_model *m;
  int rc = fit(r, c, r->ntr, &m, err);
  if (rc) return rc;
  r->res->blocks = ppt_extrap_model_blocks(m);
  ppt_extrap_model_degrees(m, r->res->degrees);
  rc = rates_at(r, m, r->o->target, 0, pt->pred, &pt->refs, err);
  if (!rc) rc = ext_block_rates(r, m, c, pt, &r->px[c], err);
  double *v = rc ? NULL : malloc((size_t)r->hw->nlevels * DRAWS * sizeof *v);
  if (!rc && !v) rc = ppt_err_set(err, PPT_ERUN, "out of memory");
  for (unsigned d = 1; d <= DRAWS && !rc; d++) {
    ppt_sdcm_rates dr[NL];
    if (!(rc = rates_at(r, m, r->o->target, d, dr, NULL, err)))
      for (uint32_t k = 0; k < r->hw->nlevels; k++) v[k * DRAWS + d - 1] = dr[k].hit_rate;
  }
  if (!rc) band(r, pt, v);
  free(v);
  ppt_extrap_model_free(m);
  return rc;
}

/* models/predict/sens.c — the sensitivity of a prediction to each timing figure of its
 * spec (ppt_predict_sensitivity, `ppt predict --sensitivity`): every figure scaled down
 * and up by a percentage with the --set machinery (ppt_hwspec_set), and the program
 * re-predicted on each changed spec. A core count's cache simulation serves every
 * figure it does not read (ppt_progmodel_set_hwspec remakes the tasklists on the changed
 * spec); the figures it or the model's build reads get a model built anew. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppt/predict.h"
#include "predict/predict_impl.h"

struct ppt_predict_sens {
  double pct;
  size_t npts, nrows, rebuilds;
  ppt_predict_sens_row *rows; /* rows[i * nrows + j]: core count i, sorted */
};

/* What the per-core-count step needs: the spec, its changed copies (2 per figure:
 * minus, plus; refused[v] when the spec takes no such value) and the options. */
typedef struct sens_run {
  const ppt_trace *t;
  const ppt_hwspec *hw;
  ppt_predict_opts o; /* the caller's, without other core models or progress */
  const ppt_predict_result *base;
  ppt_hwspec *var;
  int *refused;
  ppt_predict_sens *s;
} sens_run;

/* The engine's seconds for variant v on n cores: on m when its simulation serves, else
 * on a model built for the variant. */
static int variant_seconds(sens_run *sr, ppt_progmodel *m, const ppt_sasmm_opts *so, size_t v, uint32_t n,
                           double *sec, int *rebuilt, ppt_err *err) {
  const ppt_hwspec *hw = &sr->var[v];
  ppt_progmodel *own = NULL;
  ppt_err e;
  int rc = ppt_progmodel_set_hwspec(m, hw, &e);
  *rebuilt = rc == PPT_EINPUT;
  if (rc && rc != PPT_EINPUT) return ppt_err_set(err, (ppt_status)rc, "%s", e.msg);
  ppt_sasmm_opts quiet = *so; /* the caller's progress is the base run's */
  quiet.progress = NULL;
  quiet.progress_arg = NULL;
  if (*rebuilt && (rc = ppt_progmodel_build(sr->t, hw, &quiet, &sr->o.policy, sr->o.counted, &own, err))) return rc;
  ppt_predict_result *r = NULL;
  rc = ppt_predict_run_progmodel(own ? own : m, hw, n, &sr->o, &r, err);
  if (!rc) *sec = ppt_predict_result_point(r, 0)->runtime_s;
  ppt_predict_result_free(r);
  ppt_progmodel_free(own);
  return rc;
}


static int on_point(ppt_progmodel *m, const ppt_sasmm_opts *so, size_t i, void *arg, ppt_err *err) {
  sens_run *sr = arg;
  ppt_predict_sens *s = sr->s;
  uint32_t n = so->ncores;
  ppt_predict_sens_row *row = &s->rows[i * s->nrows];
  int rc = 0;
  for (size_t j = 0; j < s->nrows && !rc; j++) {
    double sec[2] = {NAN, NAN};
    for (int side = 0; side < 2 && !rc; side++) {
      int rebuilt = 0;
      if (sr->refused[2 * j + (size_t)side]) continue;
      rc = variant_seconds(sr, m, so, 2 * j + (size_t)side, n, &sec[side], &rebuilt, err);
      row[j].rebuilt |= rebuilt;
      s->rebuilds += (size_t)rebuilt;
    }
    row[j].minus_s = sec[0];
    row[j].plus_s = sec[1];
  }
  /* back to the spec's own figures before m goes (it points at a variant now) */
  ppt_err e;
  if (!rc) ppt_progmodel_set_hwspec(m, sr->hw, &e);
  return rc;
}

/* Fills the variants of every figure; a value the spec refuses is noted in its row. */
static void make_variants(sens_run *sr, const ppt_hw_figure *fig) {
  ppt_predict_sens *s = sr->s;
  for (size_t j = 0; j < s->nrows; j++)
    for (int side = 0; side < 2; side++) {
      size_t v = 2 * j + (size_t)side;
      char set[128];
      snprintf(set, sizeof set, "%s=%.15g", fig[j].key, fig[j].value * (1 + (side ? 1 : -1) * s->pct / 100));
      sr->var[v] = *sr->hw;
      ppt_err e;
      if (ppt_hwspec_set(&sr->var[v], set, &e)) {
        sr->refused[v] = 1;
        for (size_t i = 0; i < s->npts; i++)
          if (!s->rows[i * s->nrows + j].why[0])
            snprintf(s->rows[i * s->nrows + j].why, sizeof s->rows[0].why, "%s", e.msg);
      }
    }
}

/* The changes against each core count's base runtime, then each core count's rows sorted. */
static void finish_rows(ppt_predict_sens *s, const ppt_predict_result *base) {
  for (size_t i = 0; i < s->npts; i++) {
    double b = ppt_predict_result_point(base, i)->runtime_s;
    ppt_predict_sens_row *row = &s->rows[i * s->nrows];
    for (size_t j = 0; j < s->nrows; j++) {
      row[j].minus_change = row[j].minus_s / b - 1;
      row[j].plus_change = row[j].plus_s / b - 1;
      double a = fabs(row[j].minus_change), c = fabs(row[j].plus_change);
      row[j].change = isnan(a) ? (isnan(c) ? 0 : c) : isnan(c) ? a : fmax(a, c);
    }
    /* a stable sort by change: insertion, the rows are few */
    for (size_t j = 1; j < s->nrows; j++) {
      ppt_predict_sens_row x = row[j];
      size_t k = j;
      while (k > 0 && row[k - 1].change < x.change) {
        row[k] = row[k - 1];
        k--;
      }
      row[k] = x;
    }
  }
}

int ppt_predict_sensitivity(const ppt_trace *t, const ppt_hwspec *hw, const ppt_predict_opts *o, double pct,
                            ppt_predict_result **base, ppt_predict_sens **out, ppt_err *err) {
  if (!base || !out || !t || !hw) return ppt_err_set(err, PPT_EINPUT, "predict: NULL argument");
  *base = NULL;
  *out = NULL;
  if (!(pct > 0 && pct < 100))
    return ppt_err_set(err, PPT_EINPUT, "predict: sensitivity wants a percentage in (0, 100), not %g", pct);
  ppt_predict_opts def;
  if (!o) {
    ppt_predict_opts_default(&def);
    o = &def;
  }
  ppt_predict_sens *s = calloc(1, sizeof *s);
  size_t nfig = ppt_hwspec_timing_figures(hw, NULL, 0);
  ppt_hw_figure *fig = calloc(nfig + 1, sizeof *fig);
  sens_run sr = {t, hw, *o, NULL, calloc(2 * nfig + 1, sizeof *sr.var), calloc(2 * nfig + 1, sizeof *sr.refused), s};
  sr.o.models = NULL;
  sr.o.nmodels = 0;
  sr.o.progress = NULL;
  size_t npts = o->ncores ? o->ncores : 1;
  if (s) {
    s->pct = pct;
    s->npts = npts;
    s->nrows = nfig;
    s->rows = calloc(npts * nfig + 1, sizeof *s->rows);
  }
  int rc = s && fig && sr.var && sr.refused && s->rows ? 0 : ppt_err_set(err, PPT_ERUN, "out of memory");
  if (!rc) {
    ppt_hwspec_timing_figures(hw, fig, nfig);
    for (size_t i = 0; i < npts; i++)
      for (size_t j = 0; j < nfig; j++) {
        snprintf(s->rows[i * nfig + j].key, sizeof s->rows[0].key, "%s", fig[j].key);
        s->rows[i * nfig + j].value = fig[j].value;
      }
    make_variants(&sr, fig);
    rc = pred_run(t, hw, o, on_point, &sr, base, err);
  }
  if (!rc) finish_rows(s, *base);
  free(fig);
  free(sr.var);
  free(sr.refused);
  if (rc) {
    ppt_predict_sens_free(s);
    return rc;
  }
  *out = s;
  return 0;
}

size_t ppt_predict_sens_nrows(const ppt_predict_sens *s) {
  return s ? s->nrows : 0;
}

const ppt_predict_sens_row *ppt_predict_sens_get(const ppt_predict_sens *s, size_t i, size_t j) {
  return s && i < s->npts && j < s->nrows ? &s->rows[i * s->nrows + j] : NULL;
}

double ppt_predict_sens_pct(const ppt_predict_sens *s) {
  return s ? s->pct : NAN;
}

size_t ppt_predict_sens_rebuilds(const ppt_predict_sens *s) {
  return s ? s->rebuilds : 0;
}

void ppt_predict_sens_free(ppt_predict_sens *s) {
  if (!s) return;
  free(s->rows);
  free(s);
}

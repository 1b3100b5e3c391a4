/* models/extrap/model.c — the problem-size model of one core count (ppt/extrap.h): per
 * block and per profile (summed PRD, CRD), its reference count, first touches and slice
 * distances fitted across the traced sizes (AMM §3: block counts as functions of the
 * input size; §3.2.1: the per-block profiles P(D|BB)), and the profiles rebuilt at any
 * size from the fits. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "extrap/slices.h"
#include "ppt/extrap.h"
#include "ppt/reuse.h"

enum { KIND_PRD = 0, KIND_CRD = 1, NKIND = 2 };

/* One block's profile of one kind across the sizes. */
typedef struct qfit {
  ppt_extrap_poly refs, inf;
  ppt_extrap_poly *slice; /* [q]; NULL when no size had a finite distance */
} qfit;

typedef struct bmodel {
  int present; /* a reference at some traced size */
  qfit kind[NKIND];
} bmodel;

struct ppt_extrap_model {
  unsigned q;
  unsigned line;
  uint32_t nblocks;
  bmodel *b;
};

void ppt_extrap_opts_default(ppt_extrap_opts *o) {
  *o = (ppt_extrap_opts){.quantiles = 512, .rtol = 1e-3};
}

static const ppt_rdhist *block_hist(const ppt_sasmm_profiles *p, int kind, uint32_t b) {
  ppt_rdhist **v = kind == KIND_PRD ? p->prd_bb : p->crd_bb;
  return v && b < p->nblocks ? v[b] : NULL;
}

/* Fits one block's profile of one kind; work holds n x (q + 3) doubles. */
static int fit_block(const double *sizes, const ppt_sasmm_profiles *const *profs, size_t n, int kind,
                     uint32_t b, const ppt_extrap_opts *o, double *work, qfit *out, ppt_err *err) {
  unsigned q = o->quantiles;
  double *refs = work, *inf = refs + n, *xs = inf + n, *means = xs + n; /* means: n x q */
  size_t nfin = 0;
  for (size_t i = 0; i < n; i++) {
    const ppt_rdhist *h = block_hist(profs[i], kind, b);
    refs[i] = h ? ppt_rdhist_total(h) : 0;
    inf[i] = h ? ppt_rdhist_infinite(h) : 0;
    double fin = ext_slices_of(h, q, means + nfin * q);
    if (fin < 0) return ppt_err_set(err, PPT_ERUN, "out of memory");
    if (fin > 0) xs[nfin++] = sizes[i]; /* slices only where the block has finite distances */
  }
  int rc = ppt_extrap_fit_poly(sizes, refs, n, o->rtol, &out->refs, err);
  if (!rc) rc = ppt_extrap_fit_poly(sizes, inf, n, o->rtol, &out->inf, err);
  if (rc || !nfin) return rc;
  if (!(out->slice = calloc(q, sizeof *out->slice))) return ppt_err_set(err, PPT_ERUN, "out of memory");
  double y[64];
  for (unsigned k = 0; k < q && !rc; k++) {
    for (size_t i = 0; i < nfin; i++) y[i] = means[i * q + k];
    rc = o->interpolate_distances ? ppt_extrap_fit_poly(xs, y, nfin, o->rtol, &out->slice[k], err)
                                  : ppt_extrap_fit_poly_judged(xs, y, nfin, o->rtol, &out->slice[k], err);
  }
  return rc;
}

int ppt_extrap_fit(const double *sizes, const ppt_sasmm_profiles *const *profs, size_t n,
                   const ppt_extrap_opts *o, ppt_extrap_model **out, ppt_err *err) {
  *out = NULL;
  if (n < 2 || n > PPT_EXTRAP_MAX_SIZES)
    return ppt_err_set(err, PPT_EINPUT, "extrapolation needs 2 to %d sizes, not %zu", PPT_EXTRAP_MAX_SIZES,
                       n);
  if (o->quantiles < 1 || o->quantiles > 4096)
    return ppt_err_set(err, PPT_EINPUT, "quantiles: %u is not in 1..4096", o->quantiles);
  uint32_t nb = 0;
  for (size_t i = 0; i < n; i++) {
    if (!profs[i]->prd_bb || !profs[i]->crd_bb)
      return ppt_err_set(err, PPT_EINPUT, "extrapolation needs per-block profiles (keep_blocks)");
    if (profs[i]->nblocks > nb) nb = profs[i]->nblocks;
  }
  ppt_extrap_model *m = calloc(1, sizeof *m);
  double *work = malloc(n * (o->quantiles + 3) * sizeof *work);
  if (!m || !work || !(m->b = calloc(nb, sizeof *m->b))) {
    free(work);
    ppt_extrap_model_free(m);
    return ppt_err_set(err, PPT_ERUN, "out of memory");
  }
  m->q = o->quantiles;
  m->nblocks = nb;
  m->line = ppt_rdhist_line(profs[0]->prd_all);
  int rc = 0;
  for (uint32_t b = 0; b < nb && !rc; b++) {
    for (size_t i = 0; i < n; i++)
      m->b[b].present |= block_hist(profs[i], KIND_PRD, b) || block_hist(profs[i], KIND_CRD, b);
    for (int k = 0; k < NKIND && !rc && m->b[b].present; k++)
      rc = fit_block(sizes, profs, n, k, b, o, work, &m->b[b].kind[k], err);
  }
  free(work);
  if (rc) {
    ppt_extrap_model_free(m);
    return rc;
  }
  *out = m;
  return 0;
}

void ppt_extrap_model_free(ppt_extrap_model *m) {
  if (!m) return;
  for (uint32_t b = 0; m->b && b < m->nblocks; b++)
    for (int k = 0; k < NKIND; k++) free(m->b[b].kind[k].slice);
  free(m->b);
  free(m);
}

uint32_t ppt_extrap_model_blocks(const ppt_extrap_model *m) {
  uint32_t n = 0;
  for (uint32_t b = 0; b < m->nblocks; b++) n += m->b[b].present != 0;
  return n;
}

void ppt_extrap_model_degrees(const ppt_extrap_model *m, uint64_t counts[PPT_EXTRAP_NFORMS]) {
  for (uint32_t b = 0; b < m->nblocks; b++) {
    if (!m->b[b].present) continue;
    for (int k = 0; k < NKIND; k++) {
      const qfit *f = &m->b[b].kind[k];
      counts[f->refs.degree]++;
      counts[f->inf.degree]++;
      for (unsigned j = 0; f->slice && j < m->q; j++) counts[f->slice[j].degree]++;
    }
  }
}

/* A fitted quantity at size: its value, or with rng a draw from its gaussian. */
static double value(const ppt_extrap_poly *f, double size, gsl_rng *rng) {
  double v = ppt_extrap_fit_eval(f, size);
  if (rng) {
    double sd = ppt_extrap_fit_sd(f, size);
    if (sd > 0) v += gsl_ran_gaussian(rng, sd);
  }
  return ext_snap(v);
}

/* Block b's profile of one kind at size: the share `tail` of its references with the
 * longest distances (first touches, then the slices from the last down) added to ht,
 * the rest to h (either may be NULL: not wanted). */
static int add_block(const ppt_extrap_model *m, const qfit *f, double size, gsl_rng *rng, double *dist,
                     double tail, ppt_rdhist *h, ppt_rdhist *ht) {
  double refs = fmax(0.0, value(&f->refs, size, rng)), inf = value(&f->inf, size, rng);
  inf = fmin(fmax(inf, 0.0), refs);
  double left = fmin(fmax(tail, 0.0), 1.0) * refs; /* references still owed to the tail */
  double ti = fmin(inf, left);
  left -= ti;
  if (ti > 0 && ht && ppt_rdhist_add(ht, PPT_RD_INF, ti)) return -1;
  if (inf - ti > 0 && h && ppt_rdhist_add(h, PPT_RD_INF, inf - ti)) return -1;
  if (!f->slice) return 0; /* no finite distance at any traced size: none here either */
  for (unsigned k = 0; k < m->q; k++) dist[k] = value(&f->slice[k], size, rng);
  if (!(left > 0)) return h ? ext_slices_add(h, dist, m->q, refs - inf) : 0;
  double w = (refs - inf) / m->q;
  for (unsigned k = m->q; k-- > 0;) { /* slices ascend with the distance */
    double t = fmin(w, left);
    left -= t;
    if ((ht && ext_add_at(ht, dist[k], t)) || (h && ext_add_at(h, dist[k], w - t))) return -1;
  }
  return 0;
}

int ppt_extrap_predict(const ppt_extrap_model *m, double size, const uint8_t *counted, uint64_t seed,
                       unsigned draw, ppt_sasmm_profiles *out, ppt_err *err) {
  return ppt_extrap_predict_split(m, size, counted, seed, draw, NULL, out, NULL, err);
}

int ppt_extrap_predict_split(const ppt_extrap_model *m, double size, const uint8_t *counted, uint64_t seed,
                             unsigned draw, const double *tail, ppt_sasmm_profiles *out,
                             ppt_sasmm_profiles *tail_out, ppt_err *err) {
  memset(out, 0, sizeof *out);
  if (tail_out) memset(tail_out, 0, sizeof *tail_out);
  gsl_rng *rng = NULL;
  double *dist = malloc(m->q * sizeof *dist);
  int rc = 0;
  if (draw) { /* each draw its own stream: draw k is the same whatever was drawn before */
    if ((rng = gsl_rng_alloc(gsl_rng_mt19937)))
      gsl_rng_set(rng, (unsigned long)(seed * 0x9E3779B97F4A7C15ull + draw));
  }
  out->prd_all = ppt_rdhist_new(m->line);
  out->crd = ppt_rdhist_new(m->line);
  if (tail_out) {
    tail_out->prd_all = ppt_rdhist_new(m->line);
    tail_out->crd = ppt_rdhist_new(m->line);
  }
  if (!dist || (draw && !rng) || !out->prd_all || !out->crd ||
      (tail_out && (!tail_out->prd_all || !tail_out->crd)))
    rc = -1;
  for (uint32_t b = 0; b < m->nblocks && !rc; b++) {
    if (!m->b[b].present || (counted && !counted[b])) continue;
    double t = tail && tail_out ? tail[b] : 0;
    if (add_block(m, &m->b[b].kind[KIND_PRD], size, rng, dist, t, out->prd_all,
                  tail_out ? tail_out->prd_all : NULL) ||
        add_block(m, &m->b[b].kind[KIND_CRD], size, rng, dist, t, out->crd, tail_out ? tail_out->crd : NULL))
      rc = -1;
  }
  free(dist);
  gsl_rng_free(rng);
  if (rc) {
    ppt_sasmm_profiles_free(out);
    if (tail_out) ppt_sasmm_profiles_free(tail_out);
    return ppt_err_set(err, PPT_ERUN, "out of memory");
  }
  return 0;
}

int ppt_extrap_block_error(const ppt_extrap_model *m, double size, const ppt_sasmm_profiles *meas,
                           const uint8_t *counted, double min_share, uint32_t *worst_bb, double *worst_err,
                           ppt_err *err) {
  double total = 0;
  uint32_t nb = m->nblocks > meas->nblocks ? m->nblocks : meas->nblocks;
  *worst_bb = 0;
  *worst_err = 0;
  if (!meas->prd_bb)
    return ppt_err_set(err, PPT_EINPUT, "the measured profiles have no per-block histograms");
  for (uint32_t b = 0; b < meas->nblocks; b++)
    if ((!counted || counted[b]) && meas->prd_bb[b]) total += ppt_rdhist_total(meas->prd_bb[b]);
  for (uint32_t b = 0; b < nb; b++) {
    if (counted && !counted[b]) continue;
    double want = b < meas->nblocks && meas->prd_bb[b] ? ppt_rdhist_total(meas->prd_bb[b]) : 0;
    double got = b < m->nblocks && m->b[b].present ? value(&m->b[b].kind[KIND_PRD].refs, size, NULL) : 0;
    if (fmax(want, got) < min_share * total || fmax(want, got) <= 0) continue;
    double e = fabs(got - want) / (want > 0 ? want : got);
    if (e > *worst_err) {
      *worst_err = e;
      *worst_bb = b;
    }
  }
  return 0;
}

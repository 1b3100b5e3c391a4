/* profile.c — reuse profiles of the mimicked streams and their hit rates.
 *
 * Private levels see each core's own stream: its reuse histogram is the PRD (SASMM
 * §3.3). The shared level sees the interleaved stream: the CRD. Hit rates follow from
 * SDCM (§3.6 Eq. 5-7) per level; SDCM is linear in the histogram, so the hit rate of
 * the summed per-core PRDs is the reference-weighted mean of the cores' hit rates. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ppt/hwspec.h"
#include "ppt/reuse.h"
#include "ppt/sasmm.h"
#include "ppt/sdcm.h"
#include "ppt/tracesim.h"

typedef struct feed {
  ppt_reuse **prd;
  ppt_reuse *crd;
  ppt_err err;
  int failed;
} feed;

static void on_priv(void *arg, uint32_t core, const ppt_trace_rec *r, size_t n) {
  feed *f = arg;
  if (!f->failed && ppt_reuse_feed(f->prd[core], r, n, &f->err)) f->failed = 1;
}

static void on_shared(void *arg, const ppt_trace_rec *r, const uint32_t *cores, size_t n) {
  (void)cores;
  feed *f = arg;
  if (!f->failed && ppt_reuse_feed(f->crd, r, n, &f->err)) f->failed = 1;
}

/* The histogram of the counted blocks only (or a copy of the whole). */
static int counted_hist(const ppt_reuse *r, const uint8_t *counted, uint32_t nbbs, ppt_rdhist **out,
                        ppt_err *err) {
  if (!counted) {
    *out = ppt_rdhist_clone(ppt_reuse_hist(r));
    return *out ? 0 : ppt_err_set(err, PPT_ERUN, "out of memory");
  }
  uint32_t *group = malloc(((size_t)nbbs + 1) * sizeof *group);
  if (!group) return ppt_err_set(err, PPT_ERUN, "out of memory");
  for (uint32_t b = 0; b <= nbbs; b++) group[b] = counted[b] ? 0 : 1;
  int rc = ppt_reuse_group_hists(r, group, (size_t)nbbs + 1, 1, out, err);
  free(group);
  return rc;
}

int ppt_sasmm_measure(const ppt_trace *t, const ppt_sasmm_opts *o, const ppt_reuse_opts *ropts,
                      const uint8_t *counted, ppt_sasmm_profiles *out, ppt_err *err) {
  memset(out, 0, sizeof *out);
  uint32_t n = o->ncores, nbbs = ppt_trace_nbbs(t);
  feed f = {0};
  int rc = 0;
  out->ncores = n;
  f.prd = calloc(n, sizeof *f.prd);
  out->prd = calloc(n, sizeof *out->prd);
  if (!f.prd || !out->prd) {
    rc = ppt_err_set(err, PPT_ERUN, "out of memory");
    goto out;
  }
  for (uint32_t c = 0; c < n && !rc && !o->shared_only; c++) rc = ppt_reuse_new(ropts, &f.prd[c], err);
  if (!rc && !o->private_only) rc = ppt_reuse_new(ropts, &f.crd, err);
  if (rc) goto out;
  ppt_sasmm_sink sink = {.priv = o->shared_only ? NULL : on_priv, .shared = o->private_only ? NULL : on_shared, .arg = &f};
  if ((rc = ppt_sasmm_mimic(t, o, &sink, &out->stats, err))) goto out;
  if (f.failed) {
    *err = f.err;
    rc = err->status ? (int)err->status : PPT_ERUN;
    goto out;
  }
  out->prd_all = ppt_rdhist_new(ropts->line);
  if (!out->prd_all) {
    rc = ppt_err_set(err, PPT_ERUN, "out of memory");
    goto out;
  }
  for (uint32_t c = 0; c < n && !rc && !o->shared_only; c++) {
    if ((rc = ppt_reuse_finish(f.prd[c], err))) break;
    if ((rc = counted_hist(f.prd[c], counted, nbbs, &out->prd[c], err))) break;
    if (ppt_rdhist_merge(out->prd_all, out->prd[c], 1.0)) rc = ppt_err_set(err, PPT_ERUN, "out of memory");
  }
  if (!rc && f.crd && !(rc = ppt_reuse_finish(f.crd, err))) rc = counted_hist(f.crd, counted, nbbs, &out->crd, err);
out:
  if (f.prd)
    for (uint32_t c = 0; c < n; c++) ppt_reuse_free(f.prd[c]);
  free(f.prd);
  ppt_reuse_free(f.crd);
  if (rc) ppt_sasmm_profiles_free(out);
  return rc;
}

void ppt_sasmm_profiles_free(ppt_sasmm_profiles *p) {
  if (p->prd)
    for (uint32_t c = 0; c < p->ncores; c++) ppt_rdhist_free(p->prd[c]);
  free(p->prd);
  ppt_rdhist_free(p->prd_all);
  ppt_rdhist_free(p->crd);
  memset(p, 0, sizeof *p);
}

/* A histogram as SDCM's plain arrays (owned by the caller). */
typedef struct arrays {
  uint64_t *d;
  double *count;
  size_t n, cap;
} arrays;

static int collect(int64_t d, double count, void *arg) {
  arrays *a = arg;
  if (a->n == a->cap) {
    size_t nc = a->cap ? 2 * a->cap : 256;
    uint64_t *nd = realloc(a->d, nc * sizeof *nd);
    if (!nd) return -1;
    a->d = nd;
    double *ncnt = realloc(a->count, nc * sizeof *ncnt);
    if (!ncnt) return -1;
    a->count = ncnt;
    a->cap = nc;
  }
  a->d[a->n] = (uint64_t)d;
  a->count[a->n++] = count;
  return 0;
}

static int to_profile(const ppt_rdhist *h, arrays *a, ppt_sdcm_profile *p) {
  memset(a, 0, sizeof *a);
  if (ppt_rdhist_foreach(h, collect, a)) return -1;
  *p = (ppt_sdcm_profile){.d = a->d, .count = a->count, .n = a->n, .infinite = ppt_rdhist_infinite(h)};
  return 0;
}

int ppt_sasmm_hitrates(const ppt_hwspec *hw, const ppt_sasmm_profiles *p, ppt_sdcm_rates *rates,
                       double *per_core, ppt_err *err) {
  if (!p->crd)
    for (uint32_t k = 0; k < hw->nlevels; k++)
      if (hw->levels[k].shared_by > 1)
        return ppt_err_set(err, PPT_EINPUT, "%s: level %s is shared but no shared stream was built", hw->name,
                           hw->levels[k].name);
  arrays priv, shared = {0};
  ppt_sdcm_profile pp, ps = {0}, prof[PPT_HW_MAX_LEVELS];
  int rc = 0;
  if (to_profile(p->prd_all, &priv, &pp) || (p->crd && to_profile(p->crd, &shared, &ps))) {
    rc = ppt_err_set(err, PPT_ERUN, "out of memory");
    goto out;
  }
  for (uint32_t k = 0; k < hw->nlevels; k++) prof[k] = hw->levels[k].shared_by > 1 ? ps : pp;
  if ((rc = ppt_sdcm_hierarchy_hw(hw, prof, rates, err))) goto out;
  if (per_core) {
    for (uint32_t c = 0; c < p->ncores && !rc; c++) {
      arrays a;
      ppt_sdcm_profile pc;
      if (to_profile(p->prd[c], &a, &pc)) {
        rc = ppt_err_set(err, PPT_ERUN, "out of memory");
        break;
      }
      for (uint32_t k = 0; k < hw->nlevels && !rc; k++) {
        double h = rates[k].hit_rate;
        if (hw->levels[k].shared_by == 1) {
          const ppt_hw_level *lv = &hw->levels[k];
          rc = ppt_sdcm_hit_rate(&pc, lv->assoc, lv->size / lv->line, &h, err);
        }
        per_core[(size_t)c * hw->nlevels + k] = h;
      }
      free(a.d);
      free(a.count);
    }
  }
out:
  free(priv.d);
  free(priv.count);
  free(shared.d);
  free(shared.count);
  return rc;
}

static void on_sim(void *arg, const ppt_trace_rec *r, const uint32_t *cores, size_t n) {
  ppt_tracesim_tally *tally = arg;
  for (size_t i = 0; i < n; i++) ppt_tracesim_tally_access(tally, cores[i], &r[i]);
}

int ppt_sasmm_simulate(const ppt_trace *t, const ppt_sasmm_opts *o, const ppt_hwspec *hw, const uint8_t *counted,
                       ppt_tracesim_result *out, ppt_sasmm_stats *stats, ppt_err *err) {
  ppt_tracesim_tally *tally;
  int rc = ppt_tracesim_tally_new(hw, o->ncores, counted, ppt_trace_nbbs(t), o->seed, &tally, err);
  if (rc) return rc;
  ppt_sasmm_opts so = *o;
  so.private_only = so.shared_only = 0;
  ppt_sasmm_sink sink = {.shared = on_sim, .arg = tally};
  if (!(rc = ppt_sasmm_mimic(t, &so, &sink, stats, err))) ppt_tracesim_tally_result(tally, o->ncores, out);
  ppt_tracesim_tally_free(tally);
  return rc;
}

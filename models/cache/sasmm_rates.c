/* models/cache/sasmm_rates.c — hit rates of SASMM's mimicked cores (ppt/sasmm.h), by
 * the two cache models:
 *
 *  - ppt_sdcm_sasmm_hitrates (ppt/sdcm.h): SDCM (SASMM §3.6 Eq. 5-7) per level, on the
 *    PRD of the private levels and the CRD of the shared ones (§3.3-3.4). SDCM is linear
 *    in the histogram, so the hit rate of the summed per-core PRDs is the
 *    reference-weighted mean of the cores' hit rates.
 *  - ppt_tracesim_sasmm (ppt/tracesim.h): the interleaved stream of the mimicked cores
 *    through the exact simulation of the hierarchy, which sees the set conflicts SDCM's
 *    random placement cannot.
 *
 * They live here, not in models/sasmm, so that the mimic and its profiles do not depend
 * on the cache models that judge them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ppt/hwspec.h"
#include "ppt/reuse.h"
#include "ppt/sasmm.h"
#include "ppt/sdcm.h"
#include "ppt/tracesim.h"

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

int ppt_sdcm_sasmm_hitrates(const ppt_hwspec *hw, const ppt_sasmm_profiles *p, ppt_sdcm_rates *rates,
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
      /* A core that ran nothing (no parallel loop, or fewer iterations than cores) has no
       * references and so no hit rate: NaN, which the commands print as "-" and null. */
      if (!p->prd[c] || !(ppt_rdhist_total(p->prd[c]) > 0)) {
        for (uint32_t k = 0; k < hw->nlevels; k++) per_core[(size_t)c * hw->nlevels + k] = NAN;
        continue;
      }
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
          rc = lv->replacement == PPT_HW_REPL_RANDOM
                   ? ppt_sdcm_hit_rate_random(&pc, lv->assoc, lv->size / lv->line, &h, err)
                   : ppt_sdcm_hit_rate(&pc, lv->assoc, lv->size / lv->line, &h, err);
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

uint32_t ppt_sdcm_crd_group(const ppt_hwspec *hw) {
  uint32_t g = 0;
  for (uint32_t k = 0; k < hw->nlevels; k++) {
    uint32_t s = hw->levels[k].shared_by;
    if (s <= 1) continue;
    if (g && s != g) return 0;
    g = s;
  }
  return g;
}

static void on_sim(void *arg, const ppt_trace_rec *r, const uint32_t *cores, size_t n) {
  ppt_tracesim_tally *tally = arg;
  for (size_t i = 0; i < n; i++) ppt_tracesim_tally_access(tally, cores[i], &r[i]);
}

int ppt_tracesim_sasmm(const ppt_trace *t, const ppt_sasmm_opts *o, const ppt_hwspec *hw,
                       const uint8_t *counted, ppt_tracesim_result *out, ppt_sasmm_stats *stats,
                       ppt_err *err) {
  ppt_tracesim_tally *tally;
  int rc = ppt_tracesim_tally_new(hw, o->ncores, counted, ppt_trace_nbbs(t), o->seed, &tally, err);
  if (rc) return rc;
  ppt_tracesim_tally_coherence(tally, o->coherence);
  ppt_sasmm_opts so = *o;
  so.private_only = so.shared_only = 0;
  ppt_sasmm_sink sink = {.shared = on_sim, .arg = tally};
  if (!(rc = ppt_sasmm_mimic(t, &so, &sink, stats, err))) ppt_tracesim_tally_result(tally, o->ncores, out);
  ppt_tracesim_tally_free(tally);
  return rc;
}

/* sdcm_hier.c — global and local hit rates of a cache hierarchy from one profile per
 * level (inclusion assumption and clamp: include/ppt/sdcm.h, docs/cache.md). */
#include "ppt/sdcm.h"

#include <math.h>

int ppt_sdcm_hierarchy(const ppt_sdcm_level *levels, size_t n, ppt_sdcm_rates *out, ppt_err *err) {
  double above = 0.0; /* global hit rate of the level above; 0 above L1 */
  for (size_t k = 0; k < n; k++) {
    double raw;
    const ppt_sdcm_level *l = &levels[k];
    int rc = l->random ? ppt_sdcm_hit_rate_random(&l->profile, l->assoc, l->blocks, &raw, err)
                       : ppt_sdcm_hit_rate(&l->profile, l->assoc, l->blocks, &raw, err);
    if (rc) return rc;
    ppt_sdcm_rates *r = &out[k];
    r->raw_hit_rate = raw;
    /* Inclusion makes global rates non-decreasing outwards; PRD/CRD mixing may not. */
    r->clamped = raw < above;
    r->hit_rate = r->clamped ? above : raw;
    r->local_hit_rate = above < 1.0 ? (r->hit_rate - above) / (1.0 - above) : NAN;
    above = r->hit_rate;
  }
  return 0;
}

int ppt_sdcm_hierarchy_hw(const ppt_hwspec *hw, const ppt_sdcm_profile *profiles, ppt_sdcm_rates *out,
                          ppt_err *err) {
  ppt_sdcm_level lv[PPT_HW_MAX_LEVELS];
  if (hw->nlevels == 0 || hw->nlevels > PPT_HW_MAX_LEVELS)
    return ppt_err_set(err, PPT_EINPUT, "%s: no cache levels", hw->name);
  for (uint32_t k = 0; k < hw->nlevels; k++) {
    const ppt_hw_level *h = &hw->levels[k];
    if (!h->line) return ppt_err_set(err, PPT_EINPUT, "%s: levels[%u].line is 0", hw->name, k);
    lv[k].assoc = h->assoc;
    lv[k].blocks = h->size / h->line; /* one instance: what one stream competes for */
    lv[k].profile = profiles[k];
    lv[k].random = h->replacement == PPT_HW_REPL_RANDOM;
  }
  return ppt_sdcm_hierarchy(lv, hw->nlevels, out, err);
}

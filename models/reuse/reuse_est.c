/* reuse_est.c — turning raw per-block counts into results: SASMM/AMM reweighting of
 * sampled profiles (SASMM §3.4-3.5 Eq. 1 and 4, AMM §3.2.2 Eq. 2), SHARDS scaling
 * (Waldspurger et al., FAST'15 §3-4) and sums over groups of blocks (regions). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reuse_impl.h"

/* APPROX: a hashed-in line stands for 1/R lines, so a distance d' among sampled lines
 * estimates d'/R lines and each sampled reference stands for 1/R references. */
static ppt_rdhist *shards_scale(const ppt_reuse *r, const ppt_rdhist *raw) {
  ppt_rdhist *h = ppt_rdhist_new(raw->line);
  uint64_t *k;
  double *v;
  long n = h ? rdh_bins(raw, &k, &v) : -1;
  if (n < 0) {
    ppt_rdhist_free(h);
    return NULL;
  }
  double inv = ldexp(1.0, RD_SHARDS_BITS) / r->thresh;
  int bad = 0;
  for (long i = 0; i < n && !bad; i++) {
    /* round(d' / R) with R = thresh / 2^24, in integers */
    uint64_t d = ((k[i] << RD_SHARDS_BITS) + r->thresh / 2) / r->thresh; /* k < 2^32 */
    bad = rdh_add(h, d, v[i] * inv) != 0;
  }
  if (!bad && raw->inf != 0) bad = rdh_add(h, RD_INF, raw->inf * inv) != 0;
  free(k);
  free(v);
  if (bad) {
    ppt_rdhist_free(h);
    return NULL;
  }
  return h;
}

/* SHARDS_adj: the scaled total misses the true reference count by the sampling noise of
 * how many references the hashed-in lines received; the paper puts the difference in
 * the smallest-distance bin. If that would make the bin negative we instead empty it
 * and rescale the other bins, keeping every count non-negative. */
static int shards_adjust(ppt_rdhist **ph, double refs) {
  ppt_rdhist *h = *ph;
  double c0 = ppt_rdhist_count(h, 0), adj = refs - h->total;
  if (c0 + adj >= 0) return rdh_add(h, 0, adj);
  double rest = h->total - c0;
  if (rest <= 0) return 0;
  ppt_rdhist *n = ppt_rdhist_new(h->line);
  if (!n || rdh_add(h, 0, -c0) != 0 || ppt_rdhist_merge(n, h, refs / rest) != 0) {
    ppt_rdhist_free(n);
    return -1;
  }
  ppt_rdhist_free(h);
  *ph = n;
  return 0;
}

int rd_group_sum(const ppt_reuse *r, ppt_reuse_weighting wt, const uint32_t *group_of_bb,
                 size_t nbb, uint32_t ngroups, ppt_rdhist **out, ppt_err *err) {
  size_t nb = group_of_bb ? (nbb < r->nfin ? nbb : r->nfin) : r->nfin;
  double *tot = calloc(ngroups ? ngroups : 1, 3 * sizeof *tot);
  if (!tot) return ppt_err_set(err, PPT_ERUN, "reuse: out of memory");
  double *base_all = tot + ngroups, *base_smp = base_all + ngroups;
  for (uint32_t g = 0; g < ngroups; g++) out[g] = NULL;
  /* Per group: all refs, and the weight base (refs or instances) of all blocks and of
   * the blocks that have sampled references. */
  for (size_t bb = 0; bb < nb; bb++) {
    uint32_t g = group_of_bb ? group_of_bb[bb] : 0;
    if (g >= ngroups) continue;
    double base = wt == PPT_REUSE_WEIGHT_INSTANCES ? (double)r->inst[bb] : (double)r->refs[bb];
    tot[g] += (double)r->refs[bb];
    base_all[g] += base;
    if (r->sampled[bb]) base_smp[g] += base;
  }
  for (uint32_t g = 0; g < ngroups; g++)
    if (!(out[g] = ppt_rdhist_new(r->o.line))) goto oom;
  for (size_t bb = 0; bb < nb; bb++) {
    uint32_t g = group_of_bb ? group_of_bb[bb] : 0;
    if (g >= ngroups || !r->fin[bb]) continue;
    double w = 1.0;
    if (r->o.mode == PPT_REUSE_SAMPLED) {
      /* P(D) = sum_i P(BB_i) P(D|BB_i) (SASMM Eq. 4), P(BB_i) over the blocks that were
       * sampled, scaled to the group's reference count. P(D|BB_i) = counts/sampled_i. */
      if (!r->sampled[bb] || base_smp[g] == 0) continue;
      double base = wt == PPT_REUSE_WEIGHT_INSTANCES ? (double)r->inst[bb] : (double)r->refs[bb];
      /* Fully sampled blocks of a fully sampled group keep their exact integer counts. */
      if (!(base_smp[g] == base_all[g] && tot[g] == base_all[g] && base == (double)r->sampled[bb]))
        w = (tot[g] / base_smp[g]) * (base / (double)r->sampled[bb]);
    }
    if (ppt_rdhist_merge(out[g], r->fin[bb], w) != 0) goto oom;
  }
  free(tot);
  return 0;
oom:
  free(tot);
  for (uint32_t g = 0; g < ngroups; g++) {
    ppt_rdhist_free(out[g]);
    out[g] = NULL;
  }
  return ppt_err_set(err, PPT_ERUN, "reuse: out of memory");
}

int rd_finish_results(ppt_reuse *r, ppt_err *err) {
  size_t n = r->hs.n;
  if (r->nbb < n && rd_ctx_bb_room(r, (uint32_t)(n - 1)) != 0) goto oom;
  r->nfin = n;
  if (!(r->sampled = calloc(n ? n : 1, sizeof *r->sampled))) goto oom;
  r->nsampled = 0;
  for (size_t bb = 0; bb < n; bb++) {
    r->sampled[bb] = r->hs.h[bb] ? (uint64_t)r->hs.h[bb]->total : 0;
    r->nsampled += r->sampled[bb];
  }
  if (r->o.mode == PPT_REUSE_APPROX) {
    if (!(r->fin = calloc(n ? n : 1, sizeof *r->fin))) goto oom;
    for (size_t bb = 0; bb < n; bb++)
      if (r->hs.h[bb] && !(r->fin[bb] = shards_scale(r, r->hs.h[bb]))) goto oom;
  } else {
    r->fin = r->hs.h;
  }
  if (r->o.mode == PPT_REUSE_SAMPLED) {
    ppt_rdhist *w;
    int rc = rd_group_sum(r, PPT_REUSE_WEIGHT_REFS, NULL, 0, 1, &w, err);
    if (rc) return rc;
    r->whole = w;
    return 0;
  }
  if (!(r->whole = ppt_rdhist_new(r->o.line))) goto oom;
  for (size_t bb = 0; bb < n; bb++)
    if (r->fin[bb] && ppt_rdhist_merge(r->whole, r->fin[bb], 1.0) != 0) goto oom;
  if (r->o.mode == PPT_REUSE_APPROX && shards_adjust(&r->whole, (double)r->nrefs) != 0) goto oom;
  return 0;
oom:
  return ppt_err_set(err, PPT_ERUN, "reuse: out of memory");
}

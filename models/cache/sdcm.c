/* sdcm.c — SDCM hit probability of one reuse distance (SASMM §3.6 Eq. 5–6) and the
 * hit rate of a whole profile (Eq. 7). */
#include "ppt/sdcm.h"

#include <gsl/gsl_cdf.h>
#include <limits.h>
#include <math.h>

double ppt_sdcm_hit_prob(uint64_t d, uint64_t assoc, uint64_t blocks) {
  if (assoc == 0 || assoc > blocks) return NAN;
  if (d == PPT_SDCM_INF) return 0.0; /* a first touch always misses */
  /* Fewer distinct lines than ways can never push the line out, whatever the mapping;
   * this also covers D = 0 and makes the fully associative case below exact. */
  if (d < assoc) return 1.0;
  if (assoc == blocks) return 0.0; /* fully associative LRU: hit iff D < B */
  if (assoc == 1) {
    /* Eq. 6, in log form so that large D neither overflows nor loses precision. */
    return exp((double)d * log1p(-1.0 / (double)blocks));
  }
  /* Eq. 5 = F(A−1; D, A/B). GSL takes unsigned n; beyond that use the identity it is
   * built on, F(k; n, p) = Q_beta(p; k+1, n−k), with n as a double. */
  double p = (double)assoc / (double)blocks;
  if (d <= UINT_MAX) return gsl_cdf_binomial_P((unsigned)(assoc - 1), p, (unsigned)d);
  return gsl_cdf_beta_Q(p, (double)assoc, (double)d - (double)assoc + 1.0);
}

int ppt_sdcm_hit_rate(const ppt_sdcm_profile *p, uint64_t assoc, uint64_t blocks, double *hit,
                      ppt_err *err) {
  if (assoc == 0 || assoc > blocks)
    return ppt_err_set(err, PPT_EINPUT, "sdcm: impossible geometry: assoc %llu, %llu blocks",
                       (unsigned long long)assoc, (unsigned long long)blocks);
  if (!isfinite(p->infinite) || p->infinite < 0)
    return ppt_err_set(err, PPT_EINPUT, "sdcm: profile: infinite-distance weight %g is invalid",
                       p->infinite);
  double total = p->infinite, hits = 0.0;
  for (size_t i = 0; i < p->n; i++) {
    double w = p->count[i];
    if (!isfinite(w) || w < 0)
      return ppt_err_set(err, PPT_EINPUT, "sdcm: profile: weight %g at index %zu is invalid", w,
                         i);
    total += w;
    if (w > 0) hits += w * ppt_sdcm_hit_prob(p->d[i], assoc, blocks);
  }
  if (!(total > 0) || !isfinite(total))
    return ppt_err_set(err, PPT_EINPUT, "sdcm: profile is empty (total weight %g)", total);
  double h = hits / total;
  *hit = h > 1.0 ? 1.0 : h; /* rounding only: every term is ≤ its weight */
  return 0;
}

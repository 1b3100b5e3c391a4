/* ppt/sdcm.h — hit rates from reuse-distance profiles: the stack distance based cache
 * model (SDCM) as used by SASMM (§3.6, Eq. 5–7) and AMM, for one level and for a
 * hierarchy. Semantics and assumptions: docs/cache.md.
 *
 * A profile is passed as plain arrays (ppt_sdcm_profile) so this module does not depend
 * on how the reuse engine stores its histograms. Distances are in cache lines of the
 * level's line size; "blocks" is the capacity of one cache instance in lines (size/line). */
#ifndef PPT_SDCM_H
#define PPT_SDCM_H

#include <stddef.h>
#include <stdint.h>

#include "ppt/err.h"
#include "ppt/hwspec.h"

/* The infinite reuse distance of a first touch (files write it as -1). */
#define PPT_SDCM_INF UINT64_MAX

/* P(h|D), SASMM Eq. 5: the binomial CDF F(A−1; D, A/B) — the probability that fewer
 * than A of the D distinct lines touched since the last use fell into the reused line's
 * set, each landing there with probability A/B. Exact special cases: D = ∞ → 0,
 * D < A → 1 (D = 0 included), A = B (fully associative LRU) → 0 for D ≥ B, A = 1
 * (direct mapped, Eq. 6) → ((B−1)/B)^D. Requires 1 ≤ assoc ≤ blocks, else NaN. */
double ppt_sdcm_hit_prob(uint64_t d, uint64_t assoc, uint64_t blocks);

/* A reuse profile as arrays: weight count[i] at distance d[i] (counts or probabilities;
 * only ratios matter), plus the weight of first touches. d[i] may be PPT_SDCM_INF. */
typedef struct ppt_sdcm_profile {
  const uint64_t *d;
  const double *count;
  size_t n;
  double infinite;
} ppt_sdcm_profile;

/* P(h), SASMM Eq. 7: Σ P(D_i) P(h|D_i), with P(D_i) = count[i] / (Σ count + infinite).
 * PPT_EINPUT for a negative or non-finite weight, an empty profile (total weight 0), or
 * an impossible geometry (assoc 0 or > blocks). */
int ppt_sdcm_hit_rate(const ppt_sdcm_profile *p, uint64_t assoc, uint64_t blocks, double *hit, ppt_err *err);

/* The same for a level with random replacement (a miss in a full set evicts a way drawn
 * uniformly), which LRU's Eq. 5 does not describe: a line reused at stack distance D
 * survives every miss that lands in its set meanwhile with probability 1 − 1/A each.
 * The D distinct lines touched in between miss, each, with the level's miss ratio μ per
 * access that is not an immediate repeat (D = 0), and land in one of B/A sets, so
 *   P(h|D) = (1 − 1/A)^(D μ A / B),
 * and μ is the fixed point of the profile's miss ratio under that P(h|D) (the
 * StatCache approach, Berg & Hagersten 2004, with stack distances; docs/cache.md,
 * "Random replacement"). Iterated from μ = 1, which converges monotonically to the
 * largest fixed point. A = 1 is LRU's direct-mapped case. Same errors as
 * ppt_sdcm_hit_rate. */
int ppt_sdcm_hit_rate_random(const ppt_sdcm_profile *p, uint64_t assoc, uint64_t blocks, double *hit,
                             ppt_err *err);

/* One level of a hierarchy: its geometry and the profile of the stream it sees — the
 * private-stack (PRD) profile for a private level, the concurrent (CRD) profile of the
 * interleaved stream for a shared one (docs/design.md, "PRD / CRD"; SASMM §3.4–3.6). */
typedef struct ppt_sdcm_level {
  uint64_t assoc;
  uint64_t blocks;
  ppt_sdcm_profile profile;
  int random; /* random replacement (ppt_sdcm_hit_rate_random); 0: LRU */
} ppt_sdcm_level;

typedef struct ppt_sdcm_rates {
  double hit_rate;       /* global: 1 − P(a reference misses at every level ≤ k) */
  double local_hit_rate; /* hits at k / references reaching k; NaN if none reach k */
  double raw_hit_rate;   /* SDCM of this level's own profile, before the monotone clamp */
  int clamped;           /* 1 when hit_rate was raised to the level above's (see below) */
} ppt_sdcm_rates;

/* Hit rates of levels ordered from the core outwards (capacity non-decreasing).
 *
 * Inclusion assumption: a line held at level k−1 is also held at level k, so "miss at
 * every level ≤ k" = "miss at level k", and the global rate of level k is SDCM of level
 * k alone on the profile it sees. With a private L1 (PRD) and a shared L2 (CRD), the
 * global L2 rate is SDCM(L2 capacity, CRD profile).
 *
 * Under inclusion global rates cannot decrease outwards. Mixing profiles (PRD above, CRD
 * below) and the approximation in Eq. 5 can still give raw_k < global_{k−1}; then
 * global_k is clamped to global_{k−1} (local rate 0, clamped = 1) so that rates stay
 * physically possible and local rates stay in [0, 1].
 *
 * local_k = (global_k − global_{k−1}) / (1 − global_{k−1}), with global_0 = 0 — the
 * probability AMM's nested Eq. 5 needs at each level. */
int ppt_sdcm_hierarchy(const ppt_sdcm_level *levels, size_t n, ppt_sdcm_rates *out, ppt_err *err);

/* Same with the geometry of hw's levels: profiles[k] is the profile level k sees. */
int ppt_sdcm_hierarchy_hw(const ppt_hwspec *hw, const ppt_sdcm_profile *profiles, ppt_sdcm_rates *out,
                          ppt_err *err);

/* SASMM's hit rates (§3.6) from the profiles of its mimicked cores (ppt/sasmm.h):
 * private levels (shared_by == 1) from the PRD, shared levels from the CRD (one CRD for
 * every instance: the cores' common one, or with ppt_sasmm_opts.crd_group the instances'
 * own, summed, as each instance serves its group's stream). rates holds hw->nlevels entries;
 * per_core (optional, ncores x nlevels) gets each core's own private-level rates (shared
 * levels: the common value). PPT_EINPUT when hw has a shared level and p no CRD. */
struct ppt_sasmm_profiles;
/* The cores that share one instance of hw's shared levels (their shared_by, when they all
 * agree and exceed 1), for ppt_sasmm_opts.crd_group: the CRD is then measured per
 * instance, as the simulation has them. 0 (one CRD for all cores): no shared level, or
 * shared levels of different sharing. */
uint32_t ppt_sdcm_crd_group(const ppt_hwspec *hw);
int ppt_sdcm_sasmm_hitrates(const ppt_hwspec *hw, const struct ppt_sasmm_profiles *p, ppt_sdcm_rates *rates,
                            double *per_core, ppt_err *err);

struct json_object;

/* {"levels": [{"name", "hit_rate", "local_hit_rate"[, "raw_hit_rate", "clamped"]}, ...]}
 * — the shape ppt_cache_levels_json (ppt/cachesim.h) uses, without counters since a model
 * has none. NaN is written as null. NULL when out of memory. */
struct json_object *ppt_sdcm_rates_json(const char *const *names, const ppt_sdcm_rates *r, size_t n);

#endif

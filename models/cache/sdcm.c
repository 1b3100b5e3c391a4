/* sdcm.c — SDCM hit probability of one reuse distance (SASMM §3.6 Eq. 5–6) and the
 * hit rate of a whole profile (Eq. 7). */
#include "ppt/sdcm.h"

#include <gsl/gsl_cdf.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

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

/* The checks both models make of a profile and a geometry; *total: the profile's weight. */
static int check_profile(const ppt_sdcm_profile *p, uint64_t assoc, uint64_t blocks, double *total,
                         ppt_err *err) {
  if (assoc == 0 || assoc > blocks)
    return ppt_err_set(err, PPT_EINPUT, "sdcm: impossible geometry: assoc %llu, %llu blocks",
                       (unsigned long long)assoc, (unsigned long long)blocks);
  if (!isfinite(p->infinite) || p->infinite < 0)
    return ppt_err_set(err, PPT_EINPUT, "sdcm: profile: infinite-distance weight %g is invalid", p->infinite);
  double t = p->infinite;
  for (size_t i = 0; i < p->n; i++) {
    double w = p->count[i];
    if (!isfinite(w) || w < 0)
      return ppt_err_set(err, PPT_EINPUT, "sdcm: profile: weight %g at index %zu is invalid", w, i);
    t += w;
  }
  if (!(t > 0) || !isfinite(t))
    return ppt_err_set(err, PPT_EINPUT, "sdcm: profile is empty (total weight %g)", t);
  *total = t;
  return 0;
}

int ppt_sdcm_hit_rate(const ppt_sdcm_profile *p, uint64_t assoc, uint64_t blocks, double *hit, ppt_err *err) {
  double total, hits = 0.0;
  int rc = check_profile(p, assoc, blocks, &total, err);
  if (rc) return rc;
  for (size_t i = 0; i < p->n; i++)
    if (p->count[i] > 0) hits += p->count[i] * ppt_sdcm_hit_prob(p->d[i], assoc, blocks);
  double h = hits / total;
  *hit = h > 1.0 ? 1.0 : h; /* rounding only: every term is ≤ its weight */
  return 0;
}

/* Iterations of the fixed point at most, and the change that ends them. */
#define RANDOM_ITERS 1000
#define RANDOM_TOL 1e-12

typedef struct dw {
  uint64_t d;
  double w;
} dw;

static int cmp_dw(const void *a, const void *b) {
  uint64_t x = ((const dw *)a)->d, y = ((const dw *)b)->d;
  return x < y ? -1 : x > y;
}

int ppt_sdcm_hit_rate_random(const ppt_sdcm_profile *p, uint64_t assoc, uint64_t blocks, double *hit,
                             ppt_err *err) {
  if (assoc == 1) return ppt_sdcm_hit_rate(p, assoc, blocks, hit, err); /* one way: no choice */
  double total;
  int rc = check_profile(p, assoc, blocks, &total, err);
  if (rc) return rc;
  /* The reuses by distance, and for each the accesses its interval spans: while the k
   * most recent lines are all an interval has touched, the next access touches a new one
   * with probability P(D >= k) (first touches included), so an interval of D distinct
   * lines spans t(D) = sum_{k<D} 1 / P(D >= k) accesses (exact for sweeps and uniform
   * draws alike). */
  dw *v = malloc((p->n ? p->n : 1) * sizeof *v);
  double *t = malloc((p->n ? p->n : 1) * sizeof *t);
  if (!v || !t) {
    free(v);
    free(t);
    return ppt_err_set(err, PPT_ERUN, "sdcm: out of memory");
  }
  size_t n = 0;
  for (size_t i = 0; i < p->n; i++)
    if (p->count[i] > 0 && p->d[i] != PPT_SDCM_INF) v[n++] = (dw){p->d[i], p->count[i]};
  double inf = p->infinite;
  for (size_t i = 0; i < p->n; i++)
    if (p->count[i] > 0 && p->d[i] == PPT_SDCM_INF) inf += p->count[i];
  qsort(v, n, sizeof *v, cmp_dw);
  /* un: the weight at distances not yet passed (first touches included), prev: the
   * previous distance's own weight, at: that distance */
  double un = total, prev = 0, tt = 0;
  uint64_t at = 0;
  for (size_t i = 0; i < n; i++) {
    if (i == 0)
      tt = (double)v[i].d; /* P(D >= k) = 1 below the smallest distance */
    else if (v[i].d > at)
      tt += total / (un + prev) + (double)(v[i].d - at - 1) * total / un;
    if (i > 0 && v[i].d == at) {
      prev += v[i].w;
    } else {
      prev = v[i].w;
      at = v[i].d;
    }
    t[i] = tt;
    un -= v[i].w;
    if (un < inf) un = inf > 0 ? inf : 1e-300; /* rounding */
  }
  /* Evictions come from misses into a full set: the first min(blocks, first touches)
   * misses fill the cache and evict nothing. A reuse spanning t accesses survives the
   * e t misses among them that evict, each landing in its set with probability A/B and
   * taking it with 1/A: P(h) = (1 - 1/A)^(e t A / B); e is the fixed point, iterated
   * from every access evicting (e = 1), down to the largest fixed point. */
  double kexp = log1p(-1.0 / (double)assoc) * (double)assoc / (double)blocks;
  double fill = inf < (double)blocks ? inf : (double)blocks, e = 1.0, miss = inf;
  for (int it = 0; it < RANDOM_ITERS; it++) {
    miss = inf;
    for (size_t i = 0; i < n; i++) miss += v[i].w * -expm1(kexp * t[i] * e);
    double next = miss > fill ? (miss - fill) / total : 0.0;
    int done = fabs(next - e) < RANDOM_TOL;
    e = next;
    if (done) break;
  }
  free(v);
  free(t);
  double h = 1.0 - miss / total;
  *hit = h < 0.0 ? 0.0 : h > 1.0 ? 1.0 : h;
  return 0;
}

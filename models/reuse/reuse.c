/* reuse.c — the reuse-distance analysis context: options, the sequential feed loop and
 * the getters (the algorithms are in rdstack.c; parallel feed in reuse_par.c; sampled
 * estimates and SHARDS scaling in reuse_est.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reuse_impl.h"

/* ------------------------------------------------------------ per-block tables */

int rd_hset_grow(rd_hset *hs, uint32_t bb) {
  if (bb >= hs->n) {
    size_t n = hs->n ? hs->n : 64;
    while (n <= bb) n *= 2;
    ppt_rdhist **h = realloc(hs->h, n * sizeof *h);
    if (!h) return -1;
    memset(h + hs->n, 0, (n - hs->n) * sizeof *h);
    hs->h = h;
    hs->n = n;
  }
  if (!hs->h[bb] && !(hs->h[bb] = ppt_rdhist_new(hs->line))) return -1;
  return 0;
}

void rd_hset_free(rd_hset *hs) {
  for (size_t i = 0; i < hs->n; i++) ppt_rdhist_free(hs->h[i]);
  free(hs->h);
  hs->h = NULL;
  hs->n = 0;
}

int rd_hset_merge(rd_hset *dst, const rd_hset *src) {
  for (size_t bb = 0; bb < src->n; bb++) {
    if (!src->h[bb]) continue;
    ppt_rdhist *h = rd_hset_get(dst, (uint32_t)bb);
    if (!h || ppt_rdhist_merge(h, src->h[bb], 1.0) != 0) return -1;
  }
  return 0;
}

int rd_ctx_bb_room(ppt_reuse *r, uint32_t bb) {
  if (bb < r->nbb) return 0;
  size_t n = r->nbb ? r->nbb : 64;
  while (n <= bb) n *= 2;
  uint64_t *i = realloc(r->inst, n * sizeof *i);
  if (!i) return -1;
  r->inst = i;
  uint64_t *f = realloc(r->refs, n * sizeof *f);
  if (!f) return -1;
  r->refs = f;
  memset(r->inst + r->nbb, 0, (n - r->nbb) * sizeof *r->inst);
  memset(r->refs + r->nbb, 0, (n - r->nbb) * sizeof *r->refs);
  r->nbb = n;
  return 0;
}

/* ------------------------------------------------------------ life cycle */

void ppt_reuse_opts_default(ppt_reuse_opts *o) {
  memset(o, 0, sizeof *o);
  o->line = 64;
  o->mode = PPT_REUSE_EXACT;
  o->rate = 0.01;
  o->seed = 1;
  o->piece = (size_t)1 << 20;
}

int ppt_reuse_new(const ppt_reuse_opts *o, ppt_reuse **out, ppt_err *err) {
  ppt_reuse_opts d;
  if (!o) {
    ppt_reuse_opts_default(&d);
    o = &d;
  }
  unsigned line = o->line ? o->line : 64;
  if (line & (line - 1))
    return ppt_err_set(err, PPT_EINPUT, "reuse: line size %u is not a power of two", line);
  if (o->mode != PPT_REUSE_EXACT && o->mode != PPT_REUSE_SAMPLED && o->mode != PPT_REUSE_APPROX)
    return ppt_err_set(err, PPT_EINPUT, "reuse: unknown mode %d", (int)o->mode);
  if (o->mode != PPT_REUSE_EXACT && !(o->rate > 0 && o->rate <= 1))
    return ppt_err_set(err, PPT_EINPUT, "reuse: sampling rate %g is not in (0, 1]", o->rate);
  /* gsl_ran_geometric returns an unsigned int: keep the mean gap far below 2^32. */
  if (o->mode == PPT_REUSE_SAMPLED && o->rate < 1e-6)
    return ppt_err_set(err, PPT_EINPUT, "reuse: sampling rate %g is below 1e-6", o->rate);
  ppt_reuse *r = calloc(1, sizeof *r);
  if (!r) return ppt_err_set(err, PPT_ERUN, "reuse: out of memory");
  r->o = *o;
  r->o.line = line;
  if (!r->o.piece) r->o.piece = (size_t)1 << 20;
  r->shift = (unsigned)__builtin_ctz(line);
  r->hs.line = line;
  /* Sampled mode queries a few references only: cheap updates matter more there. */
  if (rd_stack_init(&r->st, o->mode == PPT_REUSE_SAMPLED) != 0 || rd_ctx_bb_room(r, 0) != 0)
    goto oom;
  if (o->mode == PPT_REUSE_SAMPLED) {
    if (!(r->rng = gsl_rng_alloc(gsl_rng_mt19937))) goto oom;
    gsl_rng_set(r->rng, o->seed);
    r->gap = gsl_ran_geometric(r->rng, o->rate) - 1;
  } else if (o->mode == PPT_REUSE_APPROX) {
    double t = ldexp(o->rate, RD_SHARDS_BITS);
    r->thresh = t < 1 ? 1 : (uint32_t)llround(t);
    r->salt = rd_mix(o->seed + 0x9E3779B97F4A7C15ull);
  }
  /* References before the first block record form instance 0 of block 0. */
  if (rd_ctx_instance(r, 0) != 0) goto oom;
  *out = r;
  return 0;
oom:
  ppt_reuse_free(r);
  return ppt_err_set(err, PPT_ERUN, "reuse: out of memory");
}

void ppt_reuse_free(ppt_reuse *r) {
  if (!r) return;
  rd_stack_free(&r->st);
  if (r->fin && r->fin != r->hs.h) {
    for (size_t i = 0; i < r->nfin; i++) ppt_rdhist_free(r->fin[i]);
    free(r->fin);
  }
  rd_hset_free(&r->hs);
  free(r->inst);
  free(r->refs);
  free(r->sampled);
  ppt_rdhist_free(r->whole);
  if (r->rng) gsl_rng_free(r->rng);
  free(r);
}

/* ------------------------------------------------------------ feed */

static int feed_fail(ppt_reuse *r, ppt_err *err) {
  r->broken = 1;
  return ppt_err_set(err, PPT_ERUN, "reuse: out of memory");
}

/* One loop per mode keeps the per-reference work free of mode tests. The current
 * block's histogram and counter are cached: references arrive in runs per instance. */
#define FEED_LOOP(KEEP, WANT, AHEAD)                                             \
  for (size_t i = 0; i < n; i++) {                                               \
    const ppt_trace_rec *x = &recs[i];                                           \
    if ((AHEAD) && i + RD_AHEAD < n) rd_stack_prefetch(st, recs[i + RD_AHEAD].addr >> shift); \
    if (x->kind == PPT_REC_BB) {                                                 \
      if (rd_ctx_instance(r, x->bb) != 0) return feed_fail(r, err);             \
      continue;                                                                  \
    }                                                                            \
    if (x->kind == PPT_REC_EVENT) continue; /* OpenMP events carry no reference */ \
    if (x->kind > PPT_REC_STORE) {                                               \
      r->broken = 1;                                                             \
      return ppt_err_set(err, PPT_EINPUT, "reuse: record kind %u", x->kind);     \
    }                                                                            \
    if (x->bb != cbb) {                                                          \
      if (x->bb >= r->nbb && rd_ctx_bb_room(r, x->bb) != 0) return feed_fail(r, err); \
      if (!(ch = rd_hset_get(&r->hs, x->bb))) return feed_fail(r, err);         \
      if (x->bb > r->maxbb) r->maxbb = x->bb;                                    \
      cbb = x->bb;                                                               \
    }                                                                            \
    r->refs[cbb]++;                                                              \
    nm++;                                                                        \
    uint64_t line = x->addr >> shift;                                            \
    if (!(KEEP)) continue;                                                       \
    uint64_t d = rd_touch(st, line, (WANT));                                     \
    if (d == RD_ERR) return feed_fail(r, err);                                   \
    if ((WANT) && rdh_queue_push(&q, ch, d) != 0) return feed_fail(r, err);     \
  }

int ppt_reuse_feed(ppt_reuse *r, const ppt_trace_rec *recs, size_t n, ppt_err *err) {
  if (rd_ctx_closed(r)) return rd_ctx_closed_err(r, err);
  rd_stack *st = &r->st;
  const unsigned shift = r->shift;
  uint32_t cbb = UINT32_MAX;
  ppt_rdhist *ch = NULL;
  uint64_t nm = 0;
  rdh_queue q = {{0}, {0}, 0};
  switch (r->o.mode) {
  case PPT_REUSE_EXACT:
    FEED_LOOP(1, 1, 1)
    break;
  case PPT_REUSE_SAMPLED:
    FEED_LOOP(1, r->cur_sampled, 1)
    break;
  case PPT_REUSE_APPROX:
    FEED_LOOP(rd_keep_line(r, line), 1, 0)
    break;
  }
  r->nrefs += nm;
  if (rdh_queue_flush(&q) != 0) return feed_fail(r, err);
  return 0;
}

/* ------------------------------------------------------------ results */

int ppt_reuse_finish(ppt_reuse *r, ppt_err *err) {
  if (r->broken) return ppt_err_set(err, PPT_ERUN, "reuse: context is broken");
  if (r->finished) return 0;
  int rc = rd_finish_results(r, err);
  if (rc == 0) r->finished = 1;
  else r->broken = 1;
  return rc;
}

const ppt_rdhist *ppt_reuse_hist(const ppt_reuse *r) { return r->finished ? r->whole : NULL; }

const ppt_rdhist *ppt_reuse_bb_hist(const ppt_reuse *r, uint32_t bb) {
  return r->finished && bb < r->nfin ? r->fin[bb] : NULL;
}

uint32_t ppt_reuse_max_bb(const ppt_reuse *r) { return r->maxbb; }
uint64_t ppt_reuse_bb_instances(const ppt_reuse *r, uint32_t bb) {
  return bb < r->nbb ? r->inst[bb] : 0;
}
uint64_t ppt_reuse_bb_refs(const ppt_reuse *r, uint32_t bb) {
  return bb < r->nbb ? r->refs[bb] : 0;
}
uint64_t ppt_reuse_bb_sampled(const ppt_reuse *r, uint32_t bb) {
  return r->finished && bb < r->nfin ? r->sampled[bb] : 0;
}
uint64_t ppt_reuse_refs(const ppt_reuse *r) { return r->nrefs; }
uint64_t ppt_reuse_sampled_refs(const ppt_reuse *r) { return r->nsampled; }
uint64_t ppt_reuse_lines(const ppt_reuse *r) { return rd_stack_lines(&r->st) + r->dev_lines; }

int ppt_reuse_group_hists(const ppt_reuse *r, const uint32_t *group_of_bb, size_t nbb,
                          uint32_t ngroups, ppt_rdhist **out, ppt_err *err) {
  if (!r->finished) return ppt_err_set(err, PPT_ERUN, "reuse: context not finished");
  return rd_group_sum(r, PPT_REUSE_WEIGHT_REFS, group_of_bb, nbb, ngroups, out, err);
}

int ppt_reuse_estimate(const ppt_reuse *r, ppt_reuse_weighting w, ppt_rdhist **out,
                       ppt_err *err) {
  if (!r->finished) return ppt_err_set(err, PPT_ERUN, "reuse: context not finished");
  if (r->o.mode != PPT_REUSE_SAMPLED) {
    if (!(*out = ppt_rdhist_clone(r->whole)))
      return ppt_err_set(err, PPT_ERUN, "reuse: out of memory");
    return 0;
  }
  return rd_group_sum(r, w, NULL, 0, 1, out, err);
}

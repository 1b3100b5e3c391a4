/* reuse_impl.h — the analysis context shared by reuse.c (sequential feed, getters),
 * reuse_par.c (parallel feed) and reuse_est.c (sampled estimates, groups, SHARDS
 * scaling). */
#ifndef PPT_REUSE_REUSE_IMPL_H
#define PPT_REUSE_REUSE_IMPL_H

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "ppt/reuse.h"
#include "rdhist_impl.h"
#include "rdstack.h"

/* Per-block histograms indexed by block id, grown on demand. */
typedef struct rd_hset {
  ppt_rdhist **h;
  size_t n;
  unsigned line;
} rd_hset;

int rd_hset_grow(rd_hset *hs, uint32_t bb);
void rd_hset_free(rd_hset *hs);
/* Histogram of block bb, NULL when out of memory. */
static inline ppt_rdhist *rd_hset_get(rd_hset *hs, uint32_t bb) {
  if (bb < hs->n && hs->h[bb]) return hs->h[bb];
  if (rd_hset_grow(hs, bb) != 0) return NULL;
  return hs->h[bb];
}
/* dst[bb] += src[bb] for every block. 0 or -1. */
int rd_hset_merge(rd_hset *dst, const rd_hset *src);

struct ppt_reuse {
  ppt_reuse_opts o;
  unsigned shift;   /* log2(line) */
  rd_stack st;      /* the stream's LRU stack */
  rd_hset hs;       /* raw per-block counts: every ref (EXACT), sampled refs (SAMPLED),
                       hashed-in refs at unscaled distances (APPROX) */
  uint64_t *inst, *refs; /* per block: instances, memory refs */
  size_t nbb;            /* allocated entries of inst/refs */
  uint32_t maxbb;
  uint64_t nrefs;
  /* SAMPLED: instances are sampled iid with probability rate; instead of one draw per
   * instance we draw the geometric gap to the next sampled one (same distribution). */
  gsl_rng *rng;
  uint64_t gap;
  int cur_sampled;
  /* APPROX: keep line iff top 24 bits of mix(line ^ salt) < thresh; rate = thresh/2^24 */
  uint32_t thresh;
  uint64_t salt;
  int broken, finished;
  /* fed by the OpenCL device (rd_opencl_feed.c): its distinct lines, since st is empty */
  int dev_fed;
  uint64_t dev_lines;
  /* after finish */
  ppt_rdhist **fin;     /* per-block results (EXACT/SAMPLED: hs.h; APPROX: scaled) */
  size_t nfin;
  uint64_t *sampled;    /* per block: raw refs analysed */
  uint64_t nsampled;
  ppt_rdhist *whole;
};

#define RD_SHARDS_BITS 24

static inline uint64_t rd_mix(uint64_t x) {
  /* splitmix64's finaliser: a well-mixed hash, independent of the stack's table hash */
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

static inline int rd_keep_line(const ppt_reuse *r, uint64_t line) {
  return (rd_mix(line ^ r->salt) >> (64 - RD_SHARDS_BITS)) < r->thresh;
}

/* Makes room for block bb in inst/refs. 0 or -1. */
int rd_ctx_bb_room(ppt_reuse *r, uint32_t bb);

/* A block record: counts the instance and (SAMPLED) decides whether it is sampled. */
static inline int rd_ctx_instance(ppt_reuse *r, uint32_t bb) {
  if (bb >= r->nbb && rd_ctx_bb_room(r, bb) != 0) return -1;
  r->inst[bb]++;
  if (bb > r->maxbb) r->maxbb = bb;
  if (r->rng) {
    if (r->gap == 0) {
      r->cur_sampled = 1;
      r->gap = gsl_ran_geometric(r->rng, r->o.rate) - 1;
    } else {
      r->cur_sampled = 0;
      r->gap--;
    }
  }
  return 0;
}

/* Whether the context takes no more feed: broken, finished, or fed by a device (whose
 * stream state is not in st). */
static inline int rd_ctx_closed(const ppt_reuse *r) { return r->broken || r->finished || r->dev_fed; }
static inline int rd_ctx_closed_err(const ppt_reuse *r, ppt_err *err) {
  return ppt_err_set(err, PPT_ERUN, "reuse: context is %s",
                     r->broken ? "broken" : r->finished ? "finished" : "fed by a device");
}

/* reuse_est.c: results built at finish. */
int rd_finish_results(ppt_reuse *r, ppt_err *err);
/* Weighted sum of per-block results: out[group_of_bb[bb]] += w_bb * fin[bb]. */
int rd_group_sum(const ppt_reuse *r, ppt_reuse_weighting wt, const uint32_t *group_of_bb,
                 size_t nbb, uint32_t ngroups, ppt_rdhist **out, ppt_err *err);

#endif

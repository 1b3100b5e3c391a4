/* rdhist_impl.h — the layout of ppt_rdhist, shared by the reuse engine's hot loops.
 *
 * Small distances (the vast majority in real traces) live in a dense array indexed by
 * distance, grown on demand (see RDH_DENSE_*); the others in an open-addressing table
 * keyed by distance, so a histogram costs memory in proportion to the distances it has
 * actually seen and to its count, not to the largest distance. */
#ifndef PPT_REUSE_RDHIST_IMPL_H
#define PPT_REUSE_RDHIST_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "common/u64map.h"
#include "ppt/reuse.h"

/* Internal distance of a first touch (the API's PPT_RD_INF). */
#define RD_INF UINT64_MAX
/* The dense part covers d < RDH_DENSE_MIN from the start (as needed), and grows further,
 * up to RDH_DENSE_MAX bins (4 MiB), only while it stays within twice the histogram's
 * total count: per-block histograms that see few references keep few bins. */
#define RDH_DENSE_MIN ((uint64_t)1 << 12)
#define RDH_DENSE_MAX ((uint64_t)1 << 19)

struct ppt_rdhist {
  unsigned line;
  double total, inf;
  double *dense;   /* counts for d < ndense */
  uint64_t ndense;
  u64map sparse; /* the other bins: distance -> count (val.d); no table until needed */
};

/* Slow path of rdh_add: infinite, growth of the dense part, sparse table. */
int rdh_add_slow(ppt_rdhist *h, uint64_t d, double c);

/* Adds c references at internal distance d (RD_INF = first touch). 0 or -1 (no memory). */
static inline int rdh_add(ppt_rdhist *h, uint64_t d, double c) {
  if (d < h->ndense) {
    h->dense[d] += c;
    h->total += c;
    return 0;
  }
  return rdh_add_slow(h, d, c);
}

/* A short delay line in front of rdh_add: each add is issued RDH_QUEUE distances after
 * its bin was prefetched, so that adds to large histograms with scattered distances
 * (random access patterns) overlap their cache misses. */
#define RDH_QUEUE 8
typedef struct rdh_queue {
  ppt_rdhist *h[RDH_QUEUE];
  uint64_t d[RDH_QUEUE];
  unsigned i;
} rdh_queue;

static inline int rdh_queue_push(rdh_queue *q, ppt_rdhist *h, uint64_t d) {
  unsigned k = q->i++ & (RDH_QUEUE - 1);
  if (q->h[k] && rdh_add(q->h[k], q->d[k], 1.0) != 0) return -1;
  q->h[k] = h;
  q->d[k] = d;
  if (d < h->ndense) __builtin_prefetch(&h->dense[d], 1);
  return 0;
}

/* Performs the pending adds; the queue is empty afterwards. 0 or -1. */
static inline int rdh_queue_flush(rdh_queue *q) {
  int rc = 0;
  for (unsigned k = 0; k < RDH_QUEUE; k++) {
    if (q->h[k] && rdh_add(q->h[k], q->d[k], 1.0) != 0) rc = -1;
    q->h[k] = NULL;
  }
  return rc;
}

/* Sorted copy of the nonzero finite bins: keys and vals malloc'ed (NULL when n == 0).
 * Returns the number of bins or -1 when out of memory. */
long rdh_bins(const ppt_rdhist *h, uint64_t **keys, double **vals);

#endif

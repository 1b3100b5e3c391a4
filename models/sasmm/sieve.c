/* sieve.c — see sieve.h.
 *
 * Kept records live in 2 MiB segments asked to be backed by huge pages: tens of MB are
 * written once, and on a VM a page fault per 4 KiB page cost more than the writing. */
#include "sasmm/sieve.h"

#include <stdlib.h>
#include <sys/mman.h>

#define SEG_SHIFT 16 /* records per segment: 2^16 of 32 B = 2 MiB */
#define SEG_RECS ((size_t)1 << SEG_SHIFT)
#define SEG_BYTES (SEG_RECS * sizeof(sasmm_sieve_rec))

struct ppt_sieve {
  const ppt_trace *t;
  sasmm_sieve_rec **seg;
  size_t nseg, capseg;
  size_t n, max_n;
  sasmm_sieve_drop_fn drop;
  const void *arg;
  const uint8_t *counted;
  uint32_t nbbs;
  int stack;
  sasmm_sieve_rec *last; /* the record runs are added to */
};

ppt_sieve *sasmm_sieve_new(const ppt_trace *t, sasmm_sieve_drop_fn drop, const void *arg,
                           const uint8_t *counted, uint64_t max_bytes) {
  ppt_sieve *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->t = t;
  s->drop = drop;
  s->arg = arg;
  s->counted = counted;
  s->nbbs = ppt_trace_nbbs(t);
  s->stack = ppt_trace_stack_refs(t);
  s->max_n = (size_t)(max_bytes / sizeof(sasmm_sieve_rec));
  return s;
}

static int grow(ppt_sieve *s) {
  if (s->nseg == s->capseg) {
    size_t nc = s->capseg ? 2 * s->capseg : 16;
    sasmm_sieve_rec **ns = realloc(s->seg, nc * sizeof *ns);
    if (!ns) return -1;
    s->seg = ns;
    s->capseg = nc;
  }
  sasmm_sieve_rec *p = aligned_alloc(SEG_BYTES, SEG_BYTES);
  if (!p) return -1;
  (void)madvise(p, SEG_BYTES, MADV_HUGEPAGE); /* a hint: no huge pages is fine too */
  s->seg[s->nseg++] = p;
  return 0;
}

int sasmm_sieve_add(ppt_sieve *s, uint64_t pos, const ppt_trace_rec *x, int forced) {
  int ref = x->kind == PPT_REC_LOAD || x->kind == PPT_REC_STORE;
  int keep = forced || !s->last;
  if (!keep) {
    if (x->kind == PPT_REC_BB) {
      const ppt_trace_bb *bb = s->stack ? ppt_trace_bb_get(s->t, x->bb) : NULL;
      keep = bb && bb->stack_loads + bb->stack_stores > 0; /* the reader adds them */
    } else if (ref) {
      const sasmm_sieve_rec *l = s->last;
      keep = l->run == UINT32_MAX || l->run_loads == UINT16_MAX || l->run_stores == UINT16_MAX ||
             !s->drop(s->arg, x);
    }
  }
  if (keep) {
    if (s->n >= s->max_n) return 1;
    if ((s->n & (SEG_RECS - 1)) == 0) {
      int rc = grow(s);
      if (rc) return rc;
    }
    sasmm_sieve_rec *o = &s->seg[s->n >> SEG_SHIFT][s->n & (SEG_RECS - 1)];
    *o = (sasmm_sieve_rec){.r = *x, .pos = pos};
    s->n++;
    s->last = o;
  } else if (ref) {
    sasmm_sieve_rec *l = s->last;
    int count = !s->counted || (x->bb <= s->nbbs && s->counted[x->bb]);
    l->run++;
    l->run_stores += (uint16_t)(count && x->kind == PPT_REC_STORE);
    l->run_loads += (uint16_t)(count && x->kind == PPT_REC_LOAD);
  }
  return 0;
}

void sasmm_sieve_free(ppt_sieve *s) {
  if (!s) return;
  for (size_t i = 0; i < s->nseg; i++) free(s->seg[i]);
  free(s->seg);
  free(s);
}

size_t sasmm_sieve_size(const ppt_sieve *s) {
  return s->n;
}

const sasmm_sieve_rec *sasmm_sieve_at(const ppt_sieve *s, size_t i) {
  return &s->seg[i >> SEG_SHIFT][i & (SEG_RECS - 1)];
}

size_t sasmm_sieve_find(const ppt_sieve *s, uint64_t pos) {
  size_t lo = 0, hi = s->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (sasmm_sieve_at(s, mid)->pos < pos)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

uint64_t sasmm_sieve_stream_records(const ppt_sieve *s) {
  return ppt_trace_nrecs(s->t, 0);
}

const ppt_trace *sasmm_sieve_trace(const ppt_sieve *s) {
  return s->t;
}

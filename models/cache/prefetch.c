/* prefetch.c — the prefetcher model of cache/prefetch.h. Tables are tiny and fixed, so
 * the stream table is scanned linearly and the site table is direct mapped. */
#include "cache/prefetch.h"

#include <stdlib.h>

typedef struct stream {
  uint64_t line;  /* last missing line of the stream; UINT64_MAX: unused */
  uint64_t stamp; /* when it last advanced (LRU) */
} stream;

typedef struct site {
  uint64_t key;   /* (bb << 16 | k) + 1; 0: unused */
  uint64_t line;  /* last line */
  int64_t stride; /* last stride in lines (0: none yet) */
  int confirmed;  /* the last two strides were equal */
} site;

typedef struct thread_pf {
  stream st[PPT_STREAMS];
  site sites[PPT_PF_SITES];
  uint32_t bb, k; /* current block and the index of its next reference */
} thread_pf;

struct cache_prefetch {
  uint32_t nthreads, line_bits, page_shift;
  uint64_t clock;
  thread_pf *th;
};

cache_prefetch *cache_prefetch_new(uint32_t nthreads, uint32_t line_bits) {
  if (nthreads == 0) nthreads = 1;
  cache_prefetch *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->nthreads = nthreads;
  p->line_bits = line_bits;
  p->page_shift = line_bits < PPT_PF_PAGE_BITS ? PPT_PF_PAGE_BITS - line_bits : 0;
  p->th = calloc(nthreads, sizeof *p->th);
  if (!p->th) {
    free(p);
    return NULL;
  }
  for (uint32_t t = 0; t < nthreads; t++)
    for (int i = 0; i < PPT_STREAMS; i++) p->th[t].st[i].line = UINT64_MAX;
  return p;
}

void cache_prefetch_block(cache_prefetch *p, uint32_t thread, uint32_t bb) {
  thread_pf *t = &p->th[thread % p->nthreads];
  t->bb = bb;
  t->k = 0;
}

/* Trains the site's entry on every access; 1 if the line is the one its stride predicted. */
static int stride_covers(const cache_prefetch *p, thread_pf *t, uint64_t line) {
  if (t->bb == 0) return 0; /* no block entries: no sites */
  uint64_t key = ((uint64_t)t->bb << 16 | (t->k & 0xFFFFu)) + 1;
  t->k++;
  /* Fibonacci hashing spreads neighbouring blocks and sites over the table. */
  site *s = &t->sites[(key * 0x9E3779B97F4A7C15ull) >> (64 - 8)];
  _Static_assert(PPT_PF_SITES == 256, "the hash takes 8 bits");
  if (s->key != key) {
    *s = (site){.key = key, .line = line};
    return 0;
  }
  int64_t d = (int64_t)(line - s->line);
  int covered = d != 0 && s->confirmed && d == s->stride && line >> p->page_shift == s->line >> p->page_shift;
  if (d != 0) {
    s->confirmed = d == s->stride;
    s->stride = d;
    s->line = line;
  }
  return covered;
}

static int stream_covers(cache_prefetch *p, thread_pf *t, uint64_t line) {
  uint64_t page = line >> p->page_shift;
  stream *lru = &t->st[0];
  p->clock++;
  for (int i = 0; i < PPT_STREAMS; i++) {
    stream *e = &t->st[i];
    if (e->line != UINT64_MAX && e->line >> p->page_shift == page && e->line != line) {
      uint64_t gap = line > e->line ? line - e->line : e->line - line;
      if (gap <= PPT_STREAM_REACH) {
        e->line = line;
        e->stamp = p->clock;
        return 1;
      }
    }
    if (e->stamp < lru->stamp) lru = e;
  }
  *lru = (stream){line, p->clock};
  return 0;
}

int cache_prefetch_access(cache_prefetch *p, uint32_t thread, uint64_t addr, int l1_miss) {
  thread_pf *t = &p->th[thread % p->nthreads];
  uint64_t line = addr >> p->line_bits;
  int by_stride = stride_covers(p, t, line);
  if (!l1_miss) return 0;
  /* Both prefetchers see the miss: the stream table trains on it either way. */
  int by_stream = stream_covers(p, t, line);
  return by_stride || by_stream;
}

void cache_prefetch_free(cache_prefetch *p) {
  if (!p) return;
  free(p->th);
  free(p);
}

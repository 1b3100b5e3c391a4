/* prefetch.c — the stream-prefetch detector of ppt/prefetch.h. The table is tiny and
 * only L1 misses reach it, so a linear scan is cheaper than any index. */
#include "ppt/prefetch.h"

#include <stdlib.h>

typedef struct stream {
  uint64_t line;  /* last missing line of the stream; UINT64_MAX: unused */
  uint64_t stamp; /* when it last advanced (LRU) */
} stream;

struct ppt_streams {
  uint32_t nthreads;
  uint64_t clock;
  stream *tab; /* [nthreads * PPT_STREAMS] */
};

ppt_streams *ppt_streams_new(uint32_t nthreads) {
  if (nthreads == 0) nthreads = 1;
  ppt_streams *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->nthreads = nthreads;
  s->tab = malloc((size_t)nthreads * PPT_STREAMS * sizeof *s->tab);
  if (!s->tab) {
    free(s);
    return NULL;
  }
  for (size_t i = 0; i < (size_t)nthreads * PPT_STREAMS; i++) s->tab[i] = (stream){UINT64_MAX, 0};
  return s;
}

int ppt_streams_miss(ppt_streams *s, uint32_t thread, uint64_t line, uint32_t line_bits) {
  stream *t = &s->tab[(size_t)(thread % s->nthreads) * PPT_STREAMS];
  uint32_t page_shift = line_bits < PPT_STREAM_PAGE_BITS ? PPT_STREAM_PAGE_BITS - line_bits : 0;
  uint64_t page = line >> page_shift;
  stream *lru = &t[0];
  s->clock++;
  for (int i = 0; i < PPT_STREAMS; i++) {
    stream *e = &t[i];
    if (e->line != UINT64_MAX && e->line >> page_shift == page && e->line != line) {
      uint64_t gap = line > e->line ? line - e->line : e->line - line;
      if (gap <= PPT_STREAM_REACH) {
        e->line = line;
        e->stamp = s->clock;
        return 1;
      }
    }
    if (e->stamp < lru->stamp) lru = e;
  }
  *lru = (stream){line, s->clock};
  return 0;
}

void ppt_streams_free(ppt_streams *s) {
  if (!s) return;
  free(s->tab);
  free(s);
}

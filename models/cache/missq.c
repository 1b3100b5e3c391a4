/* missq.c — the last few first-level miss sets of each thread (cache/missq.h). A ring of
 * PPT_MISSQ_WINDOW set numbers per thread, scanned on every miss: misses are rare next
 * to hits, and eight compares cost less than keeping per-set counts up to date. */
#include "cache/missq.h"

#include <stdlib.h>

typedef struct missq_thread {
  uint64_t set[PPT_MISSQ_WINDOW];
  uint32_t next, n; /* slot the next miss goes to; misses remembered (<= window) */
} missq_thread;

struct cache_missq {
  uint64_t mask;
  uint32_t nthreads;
  missq_thread *t;
};

cache_missq *cache_missq_new(uint32_t nthreads, uint64_t sets) {
  if (nthreads == 0 || sets == 0 || (sets & (sets - 1))) return NULL;
  cache_missq *q = malloc(sizeof *q);
  if (!q) return NULL;
  q->t = calloc(nthreads, sizeof *q->t);
  if (!q->t) {
    free(q);
    return NULL;
  }
  q->mask = sets - 1;
  q->nthreads = nthreads;
  return q;
}

int cache_missq_push(cache_missq *q, uint32_t thread, uint64_t line) {
  missq_thread *t = &q->t[thread];
  uint64_t set = line & q->mask;
  uint32_t same = 0;
  for (uint32_t i = 0; i < t->n; i++) same += t->set[i] == set;
  t->set[t->next] = set;
  t->next = (t->next + 1) % PPT_MISSQ_WINDOW;
  if (t->n < PPT_MISSQ_WINDOW) t->n++;
  return same >= PPT_MISSQ_BUNCH;
}

void cache_missq_free(cache_missq *q) {
  if (!q) return;
  free(q->t);
  free(q);
}

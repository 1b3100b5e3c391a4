/* owner.c — last writer of each stored line (cache/owner.h): a direct-mapped table of
 * (line, writer + 1) pairs, writer 0 meaning nobody. */
#include "cache/owner.h"

#include <stdlib.h>

typedef struct entry {
  uint64_t line;
  uint32_t writer; /* thread + 1; 0: no owner */
} entry;

struct cache_owner {
  uint64_t mask;
  entry *e;
};

cache_owner *cache_owner_new(uint32_t bits) {
  if (bits < 1 || bits > 30) return NULL;
  cache_owner *o = malloc(sizeof *o);
  if (!o) return NULL;
  o->e = calloc((size_t)1 << bits, sizeof *o->e);
  if (!o->e) {
    free(o);
    return NULL;
  }
  o->mask = ((uint64_t)1 << bits) - 1;
  return o;
}

void cache_owner_store(cache_owner *o, uint64_t line, uint32_t thread) {
  entry *e = &o->e[line & o->mask];
  e->line = line;
  e->writer = thread + 1;
}

int cache_owner_take(cache_owner *o, uint64_t line, uint32_t thread, uint32_t *writer) {
  entry *e = &o->e[line & o->mask];
  if (e->writer == 0 || e->line != line || e->writer == thread + 1) return 0;
  *writer = e->writer - 1;
  e->writer = 0;
  return 1;
}

void cache_owner_free(cache_owner *o) {
  if (!o) return;
  free(o->e);
  free(o);
}

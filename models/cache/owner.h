/* models/cache/owner.h — which thread wrote a cache line last, for cache-to-cache transfers.
 *
 * With write-invalidate coherence (ppt_cachesim_set_coherence) a store leaves the line
 * only in its writer's caches, modified. The next thread to touch it misses its own
 * private levels and, in the hardware, gets the line from the writer's cache: a
 * cache-to-cache transfer, priced by hwspec `coherence_cycles` (docs/engine.md,
 * "Cache-to-cache transfers"). This table remembers the last writer of each stored line
 * so that tracesim can tell such a miss from an ordinary one.
 *
 * Direct mapped on the line number's low bits, 2^bits entries: a line whose entry
 * another line took since its store is forgotten (that miss then counts as ordinary),
 * so the count is a lower bound on large footprints. */
#ifndef PPT_OWNER_H
#define PPT_OWNER_H

#include <stdint.h>

typedef struct cache_owner cache_owner;

/* 2^bits entries (1 <= bits <= 30); NULL when out of memory or bits is out of range. */
cache_owner *cache_owner_new(uint32_t bits);
/* `thread` stored into `line`: it is now the line's owner. */
void cache_owner_store(cache_owner *o, uint64_t line, uint32_t thread);
/* `thread` touches `line`. Returns 1 and sets *writer when another thread owns it (the
 * line is then shared, owned by nobody); 0 when nobody or `thread` itself does. */
int cache_owner_take(cache_owner *o, uint64_t line, uint32_t thread, uint32_t *writer);
void cache_owner_free(cache_owner *o);

#endif

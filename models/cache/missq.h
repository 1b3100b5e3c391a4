/* models/cache/missq.h — do a thread's cache misses queue on one first-level set?
 *
 * A core keeps several misses in flight (hwspec `mlp`), but the lines they bring in all
 * go into their sets: when a thread's misses keep landing in the same first-level set,
 * as in a column walk of a row-major array whose rows are a multiple of the set stride
 * (4 KiB rows on a 32 KiB 8-way L1), each fill must evict a line of that one set, often
 * one just filled, and far fewer of them overlap. On the validation host a walk like
 * that costs 15.5 cycles per stored line and 9.4 per loaded one where random lines cost
 * 6.2 and 6.9 (docs/engine.md, "Misses queued on one set"); hwspec `mlp_same_set`
 * holds what does overlap.
 *
 * The test, per thread: a first-level miss is *bunched* when at least
 * PPT_MISSQ_BUNCH of the thread's previous PPT_MISSQ_WINDOW first-level misses went to
 * its set. A stride of the set stride bunches every miss after the first few; a
 * sequential sweep or random lines (1/sets of them per set) almost never do. */
#ifndef PPT_MISSQ_H
#define PPT_MISSQ_H

#include <stdint.h>

#define PPT_MISSQ_WINDOW 8 /* misses remembered per thread */
#define PPT_MISSQ_BUNCH 4  /* of those, in the same set: bunched */

typedef struct cache_missq cache_missq;

/* nthreads >= 1; sets: the first level's set count (a power of two). NULL when out of
 * memory or sets is not a power of two. */
cache_missq *cache_missq_new(uint32_t nthreads, uint64_t sets);
/* Thread `thread` missed the first level on line number `line` (address >> line bits).
 * Returns 1 when the miss is bunched, and remembers it. */
int cache_missq_push(cache_missq *q, uint32_t thread, uint64_t line);
void cache_missq_free(cache_missq *q);

#endif

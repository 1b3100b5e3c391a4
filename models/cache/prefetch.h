/* models/cache/prefetch.h — which cache misses a core's hardware prefetchers would have covered.
 *
 * Out-of-order cores hide the latency of predictable misses with two kinds of
 * prefetcher (Intel's optimization manual §2.x "Data prefetching"; AMD's software
 * optimization guides for Zen, "Hardware prefetching"):
 *  - a stream prefetcher watches the lines that miss the first-level cache, and once a
 *    page sees a miss next to an earlier one it fetches the lines ahead of the demand;
 *  - a stride (instruction-pointer) prefetcher remembers, per load or store
 *    instruction, its last address and stride, and once an instruction repeats a
 *    stride it fetches the next one: a column walk of a matrix with short rows.
 * Both work within a 4 KiB page (they run on physical addresses, or must not touch a
 * page the program has not). So row sweeps, stencils and streams pay only the
 * transfer of their misses; a walk with a stride of a page or more, pointer chasing
 * and random gathers pay the latency too.
 *
 * The model, per thread:
 *  - sites: the k-th memory reference after the entry of block b is site (b, k), ppt's
 *    stand-in for an instruction; a table of PPT_PF_SITES sites (direct mapped) holds
 *    each one's last line and stride, trained on every access. An access whose line is
 *    its site's last line plus the site's stride (non-zero, the same twice in a row,
 *    same page) is stride-covered;
 *  - streams: PPT_STREAMS streams, each the last line of a page that missed the first
 *    level. A miss within PPT_STREAM_REACH lines of one, in the same page, continues it
 *    (covered); any other miss replaces the least recently used stream.
 * An access is covered if either prefetcher covered it. Without block entries (a plain
 * reference stream) only the stream prefetcher is modelled. */
#ifndef PPT_PREFETCH_H
#define PPT_PREFETCH_H

#include <stdint.h>

#define PPT_STREAMS 16     /* streams tracked per thread (Intel's streamer: 32 pages; AMD: 16+) */
#define PPT_STREAM_REACH 2 /* lines between two misses of one stream */
#define PPT_PF_SITES 256   /* stride-prefetcher entries per thread (Intel: 256) */
#define PPT_PF_PAGE_BITS 12

typedef struct cache_prefetch cache_prefetch;

/* A model for `nthreads` threads (>= 1) with `line_bits`-bit cache lines; NULL when out
 * of memory. */
cache_prefetch *cache_prefetch_new(uint32_t nthreads, uint32_t line_bits);
/* Thread `thread` entered block `bb`: its next references are sites (bb, 0), (bb, 1), ... */
void cache_prefetch_block(cache_prefetch *p, uint32_t thread, uint32_t bb);
/* Thread `thread` accessed byte address `addr`; l1_miss: the first level missed. Returns
 * 1 if a prefetcher had covered the access (only meaningful for a miss), else 0. */
int cache_prefetch_access(cache_prefetch *p, uint32_t thread, uint64_t addr, int l1_miss);
void cache_prefetch_free(cache_prefetch *p);

#endif

/* ppt/prefetch.h — which cache misses a hardware stream prefetcher would have covered.
 *
 * Out-of-order cores hide the latency of sequential misses: a stream prefetcher
 * (Intel's L2 streamer, AMD's L2 stream/region prefetchers) watches the lines that miss
 * the first-level cache, and once a page sees a miss next to an earlier one it fetches
 * the following lines ahead of the demand. Prefetchers work on physical addresses, so
 * they stop at 4 KiB page boundaries. Column walks of a row-major matrix (one line per
 * row, a row or more apart), pointer chasing and random gathers are not covered and
 * pay the full latency; row sweeps, stencils and streams are, and pay only transfer.
 *
 * The model: per thread, a table of PPT_STREAMS streams, each the last line of a 4 KiB
 * page that missed. A miss within PPT_STREAM_REACH lines of a tracked stream, in the
 * same page, continues it (covered); any other miss starts a stream in place of the
 * least recently used one (not covered). A miss on the very line a stream last missed
 * is not covered (a conflict miss re-fetching a line the stream has passed). */
#ifndef PPT_PREFETCH_H
#define PPT_PREFETCH_H

#include <stdint.h>

#define PPT_STREAMS 16     /* streams tracked per thread (Intel's streamer: 32 pages; AMD: 16+) */
#define PPT_STREAM_REACH 2 /* lines between two misses of one stream */
#define PPT_STREAM_PAGE_BITS 12

typedef struct ppt_streams ppt_streams;

/* A detector for `nthreads` threads (>= 1); NULL when out of memory. */
ppt_streams *ppt_streams_new(uint32_t nthreads);
/* Thread `thread` missed the first level on line `line` (address / line size) of a
 * `line_bits`-bit line; 1 if a stream covered it, 0 if it waits the latency. */
int ppt_streams_miss(ppt_streams *s, uint32_t thread, uint64_t line, uint32_t line_bits);
void ppt_streams_free(ppt_streams *s);

#endif

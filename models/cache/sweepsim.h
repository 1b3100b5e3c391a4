/* sweepsim.h — many cache hierarchies simulated on one stream at once (internal to the
 * cache module; the design-space sweep of ppt/sweep.h drives it).
 *
 * In a non-inclusive hierarchy without coherence (ppt/cachesim.h) level k+1 sees exactly
 * the line accesses level k missed, in order, and nothing it does changes level k. So the
 * hierarchies of a sweep form a tree: the specs whose first levels have the same geometry
 * share one simulation of that level, and each distinct second level under it is fed
 * only its misses, and so on. Thirty points that differ in L2 and L3 cost about one L1
 * simulation of the whole stream plus simulations of the (much shorter) miss streams.
 * Every node is a one-level ppt_cachesim, so the replacement code is the simulator's own
 * and each point's counts equal ppt_tracesim_sasmm's at that point exactly.
 *
 * Specs the tree cannot reproduce exactly get a full ppt_tracesim_tally of their own on
 * the same stream: an inclusive level (its evictions reach back up), more than one
 * random-replacement level (the simulator draws their victims from one generator, in
 * access order across the levels), or a level below the first whose demand_size is
 * smaller than itself (what it serves depends on the prefetchers' coverage). */
#ifndef PPT_CACHE_SWEEPSIM_H
#define PPT_CACHE_SWEEPSIM_H

#include <stddef.h>
#include <stdint.h>

#include "ppt/err.h"
#include "ppt/hwspec.h"
#include "ppt/trace.h"
#include "ppt/tracesim.h"

typedef struct cache_sweepsim cache_sweepsim;

/* Simulators for specs[0..n) (each valid) with `nthreads` threads; counted and seed as in
 * ppt_tracesim_tally_new (counted must outlive the sweepsim).
 *
 * sample > 1 (a power of two) simulates the tree's levels on 1/sample of their sets
 * only (set sampling; Kessler, Hill & Wood 1991): a line is simulated when its address
 * bits just above the widest line of the tree fall in a seeded random subset of their
 * values. Those bits index the sets of every level, so each sampled set sees exactly the
 * accesses it sees unsampled and its hits and misses are exact; accesses and misses are
 * reported times `sample`, and the rates are the sampled sets' rates. The error is the
 * spread between sets (docs/sweep.md gives it measured). PPT_EINPUT when a level has
 * fewer than `sample` sets above the widest line. Specs simulated whole stay exact.
 * sample 0 or 1: every set (exact). */
int cache_sweepsim_new(const ppt_hwspec *specs, size_t n, uint32_t nthreads, const unsigned char *counted,
                       uint32_t nbbs, uint32_t sample, uint64_t seed, cache_sweepsim **out, ppt_err *err);
/* Records recs[0..n) in order, record i of thread threads[i] (the mimic's shared stream):
 * loads and stores are simulated, others ignored. */
void cache_sweepsim_access_batch(cache_sweepsim *s, const ppt_trace_rec *recs, const uint32_t *threads,
                                 size_t n);
/* Spec i's counts: nlevels, levels (accesses, misses and rates in both units), refs,
 * line_refs, counted refs, loads and stores; the other fields 0. */
void cache_sweepsim_result(const cache_sweepsim *s, size_t i, uint32_t threads, ppt_tracesim_result *out);
/* Whether the line holding byte addr is in the sampled sets (always, without sampling). */
int cache_sweepsim_sampled(const cache_sweepsim *s, uint64_t addr);
/* The sieve of a sampled sweep (docs/sweep.md, "The sieve"): 1 when reference r would
 * only be counted, never simulated, by cache_sweepsim_access_batch: a load or store that
 * lies in one line of every first level and in no sampled set, with no spec simulated
 * whole. Such references can be dropped from the stream before the mimic deals it and
 * counted in bulk with cache_sweepsim_count_dropped, with the same results. Depends only on
 * the specs, the sample and the seed, not on the thread count. */
int cache_sweepsim_droppable(const cache_sweepsim *s, const ppt_trace_rec *r);
/* Counts `refs` dropped references (droppable ones) of which `loads` and `stores` were
 * counted (cache_sweepsim_new's `counted`) exactly as access_batch would have counted them. */
void cache_sweepsim_count_dropped(cache_sweepsim *s, uint64_t refs, uint64_t loads, uint64_t stores);
/* Distinct level simulations (tree nodes) and specs simulated whole (fallbacks). */
size_t cache_sweepsim_nodes(const cache_sweepsim *s);
size_t cache_sweepsim_fallbacks(const cache_sweepsim *s);
void cache_sweepsim_free(cache_sweepsim *s);

#endif

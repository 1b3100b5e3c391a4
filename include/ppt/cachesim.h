/* ppt/cachesim.h — exact trace-driven simulation of a multi-level, multi-core cache
 * hierarchy described by a hwspec: the ground truth the SDCM predictions are checked
 * against. Semantics in full: docs/cache.md.
 *
 *  - Every level is set-associative with true LRU (or, for a level whose hwspec says
 *    "replacement": "random", a uniformly drawn victim way; seeded, see
 *    ppt_cachesim_seed); set = line & (sets − 1).
 *  - Write-allocate: a store looks up and fills exactly like a load (no write-back
 *    traffic is modelled, as in Cachegrind).
 *  - A reference that misses at level k goes on to level k+1 and is filled into every
 *    level it missed in, top-down. A hit at level k does not touch levels below it.
 *  - A level with `inclusive` set back-invalidates, in the instances above it that it
 *    serves, every line it evicts; other levels are non-inclusive (no back-invalidation,
 *    as Cachegrind's LL).
 *  - Level k has ceil(nthreads / shared_by) instances; thread t uses instance
 *    t / shared_by. The caller supplies the interleaving of the threads' streams by the
 *    order of its calls. No coherence by default (as Cachegrind): a store does not
 *    invalidate other cores' copies; ppt_cachesim_set_coherence turns write-invalidate
 *    on (a store removes the line from every instance its thread does not use, counted
 *    as invalidations there).
 *  - An access of `size` bytes touching several lines counts one line access per line
 *    (Cachegrind counts a two-line access once, missing if either line misses): counters
 *    are in line accesses, the unit reuse distances are measured in.
 */
#ifndef PPT_CACHESIM_H
#define PPT_CACHESIM_H

#include <stddef.h>
#include <stdint.h>

#include "ppt/err.h"
#include "ppt/hwspec.h"

typedef struct ppt_cachesim ppt_cachesim;

typedef struct ppt_cachesim_counts {
  uint64_t accesses;       /* line accesses that reached this level (loads + stores) */
  uint64_t misses;         /* of those, misses = line accesses missing at every level <= this */
  uint64_t store_accesses; /* the stores among accesses */
  uint64_t store_misses;
  uint64_t invalidations; /* lines removed here by back-invalidation from an inclusive level,
                             or by another thread's store (ppt_cachesim_set_coherence) */
  uint64_t writebacks;    /* dirty lines the level above evicted that were written back here
                             (ppt_cachesim_writebacks) */
} ppt_cachesim_counts;

/* A simulator with empty caches for `nthreads` threads (1..65536). The hwspec must be
 * valid (ppt_hwspec_validate); PPT_EINPUT otherwise, PPT_ERUN when out of memory. */
int ppt_cachesim_new(const ppt_hwspec *hw, uint32_t nthreads, ppt_cachesim **out, ppt_err *err);
/* Bytes ppt_cachesim_new(hw, nthreads) allocates: 8 per line of every private copy and
 * shared instance (docs/sasmm.md, "Memory"), so a command can refuse a run that would not
 * fit before it starts. */
uint64_t ppt_cachesim_bytes(const ppt_hwspec *hw, uint32_t nthreads);
void ppt_cachesim_free(ppt_cachesim *sim);
/* Restarts the victim draws of random-replacement levels from `seed` (the simulator
 * starts from PPT_CACHESIM_DEFAULT_SEED). No effect when every level is LRU. */
#define PPT_CACHESIM_DEFAULT_SEED 1u
void ppt_cachesim_seed(ppt_cachesim *sim, uint64_t seed);
/* Write-invalidate coherence on (1) or off (0, the default). */
void ppt_cachesim_set_coherence(ppt_cachesim *sim, int on);

/* Simulates one access of `size` bytes (0 counts as 1) at `addr` by `thread`. Returns the
 * deepest level that served one of its lines: 0 = all hit in L1, nlevels = some line
 * came from memory; -1 when thread >= nthreads (nothing simulated). */
int ppt_cachesim_access(ppt_cachesim *sim, uint32_t thread, uint64_t addr, uint32_t size, int is_store);

/* The way (0: the most recent) in which the last ppt_cachesim_access found its deepest
 * line, at the level it returned, before that line moved to the front; for memory, the
 * last level's ways. */
uint32_t ppt_cachesim_last_way(const ppt_cachesim *sim);
uint32_t ppt_cachesim_nlevels(const ppt_cachesim *sim);
uint32_t ppt_cachesim_instances(const ppt_cachesim *sim, uint32_t level);
const char *ppt_cachesim_level_name(const ppt_cachesim *sim, uint32_t level);
/* Number of ppt_cachesim_access calls simulated (references, not line accesses). */
uint64_t ppt_cachesim_refs(const ppt_cachesim *sim);
/* Counters of one instance, or of a level summed over its instances. 0, or PPT_EINPUT
 * for an index out of range. */
int ppt_cachesim_instance_counts(const ppt_cachesim *sim, uint32_t level, uint32_t inst,
                                 ppt_cachesim_counts *out, ppt_err *err);
int ppt_cachesim_level_counts(const ppt_cachesim *sim, uint32_t level, ppt_cachesim_counts *out,
                              ppt_err *err);
/* Whether instance `inst` of `level` holds the line of addr (1/0; -1 out of range). */
int ppt_cachesim_contains(const ppt_cachesim *sim, uint32_t level, uint32_t inst, uint64_t addr);
/* Write-backs: a store leaves its line dirty in the first level; a dirty line evicted
 * from level k is written into the first level below that still holds it (marking it
 * dirty there), or into memory. Returns the dirty lines written back into `level` (1 to
 * nlevels - 1; nlevels: memory) since the counters were reset, or with level UINT32_MAX
 * into all of them together (a cheap test that an access wrote something back). */
uint64_t ppt_cachesim_writebacks(const ppt_cachesim *sim, uint32_t level);
/* Zeroes every counter and keeps the cache contents (end of a warm-up phase). */
void ppt_cachesim_reset_counts(ppt_cachesim *sim);

/* Counters of one level, input to ppt_cache_levels_json. */
typedef struct ppt_cache_level_counts {
  const char *name;
  uint64_t accesses;
  uint64_t misses;
} ppt_cache_level_counts;

struct json_object;

/* {"levels": [{"name", "accesses", "misses", "hit_rate", "local_hit_rate"}, ...]} with
 * levels ordered from the core outwards. hit_rate is global, 1 − misses_k / accesses_0
 * (levels[0].accesses = all line references); local_hit_rate is 1 − misses_k / accesses_k.
 * A rate whose denominator is 0 is null. NULL when out of memory. */
struct json_object *ppt_cache_levels_json(const ppt_cache_level_counts *lv, size_t n);

/* The simulator's counters in that shape, each level with an added "instances" array of
 * {"accesses", "misses"} per instance. NULL when out of memory. */
struct json_object *ppt_cachesim_json(const ppt_cachesim *sim);

#endif

/* lruset.h — one set of a set-associative cache, the replacement step that the exact
 * simulator (cachesim.c) and the sweep's level simulations (sweepsim.c) share (internal
 * to the cache module).
 *
 * A set is an array of `a` line numbers in recency order, most recent first
 * (move-to-front); empty ways hold PPT_LRUSET_EMPTY and always form the tail, so a fill
 * takes an empty way before it evicts anything. With a generator, a miss in a full set
 * evicts a uniformly drawn way of the `victims` least recent instead of the least recent
 * (random replacement; victims == a: any way, victims == 1: LRU again). */
#ifndef PPT_CACHE_LRUSET_H
#define PPT_CACHE_LRUSET_H

#include <gsl/gsl_rng.h>
#include <stdint.h>

#define PPT_LRUSET_EMPTY UINT64_MAX /* never a line number: lines are addr >> line_bits, line >= 8 */
/* A way's top bit: the line was written since it came in (a store, or a dirty line
 * written back from the level above). Line numbers never reach it; EMPTY has it set,
 * so a victim is dirty only when it is not EMPTY. Simulations that do not track
 * write-backs pass the mask ~0 and never set it. */
#define PPT_LRUSET_DIRTY ((uint64_t)1 << 63)

/* Makes `line` the most recent of the set: returns the way it was found in (0: the most
 * recent), or a on a miss, with *victim the way's entry the miss evicted
 * (PPT_LRUSET_EMPTY: it took an empty way). rng: NULL for LRU; victims (1..a): how many
 * of the least recent ways a drawn victim comes from. mask: ~PPT_LRUSET_DIRTY where the
 * ways carry dirty bits (a hit keeps its bit, a fill comes in clean), ~0 otherwise (the
 * compiler drops it where it is a constant). */
static inline uint32_t cache_lruset_touch_masked(uint64_t *set, uint32_t a, uint64_t line, gsl_rng *rng,
                                                 uint32_t victims, uint64_t *victim, uint64_t mask) {
  if ((set[0] & mask) == line) return 0; /* the common case: same line as last time in this set */
  /* Where the line sits decides hit or miss, and that is random in real traces, so the
   * search and the shift are written without data-dependent branches (cmov); a miss
   * shifts the whole set, dropping the LRU way (or an empty one). */
  uint32_t pos = a;
  for (uint32_t i = 1; i < a; i++) pos = (set[i] & mask) == line ? i : pos;
  uint64_t front = pos < a ? set[pos] : line;
  uint32_t top = pos < a ? pos : a - 1;
  if (pos == a && rng && set[a - 1] != PPT_LRUSET_EMPTY) { /* full set: evict a drawn way */
    uint32_t u = (uint32_t)gsl_rng_uniform_int(rng, victims);
    top = victims < a ? a - 1 - u : u; /* u itself when any way may go: runs repeat as before */
  }
  *victim = set[top];
  for (uint32_t j = a - 1; j > 0; j--) {
    uint64_t keep = (uint64_t)0 - (j > top); /* all ones: way j stays */
    set[j] = (set[j] & keep) | (set[j - 1] & ~keep);
  }
  set[0] = front;
  return pos;
}

static inline uint32_t cache_lruset_touch_at(uint64_t *set, uint32_t a, uint64_t line, gsl_rng *rng,
                                             uint32_t victims, uint64_t *victim) {
  return cache_lruset_touch_masked(set, a, line, rng, victims, victim, ~(uint64_t)0);
}

/* cache_lruset_touch_at as hit (1) or miss (0). */
static inline int cache_lruset_touch(uint64_t *set, uint32_t a, uint64_t line, gsl_rng *rng, uint32_t victims,
                                     uint64_t *victim) {
  return cache_lruset_touch_at(set, a, line, rng, victims, victim) < a;
}

/* The set of `line` in a level of mask + 1 sets: its low bits (modulo placement), or
 * with fold = log2(sets) > 0 every fold-bit slice of the line number XORed together
 * (hashed placement). A random-replacement level of a spec is the stream's view of a
 * level whose placement and replacement the calibration cannot see (a hashed slice
 * index, other tenants): it places by the hash, so that power-of-two strides spread
 * over its sets as SDCM's random placement assumes, rather than folding onto a few. */
static inline uint64_t cache_lruset_index(uint64_t line, uint64_t mask, uint32_t fold) {
  if (!fold) return line & mask;
  uint64_t h = line;
  for (uint64_t x = line >> fold; x; x >>= fold) h ^= x;
  return h & mask;
}

/* fold for cache_lruset_index: log2(sets) for a hashed level, 0 for modulo. */
static inline uint32_t cache_lruset_fold(uint64_t sets, int hashed) {
  uint32_t b = 0;
  while (hashed && ((uint64_t)1 << b) < sets) b++;
  return b;
}

#endif

/* rdstack.h — the LRU stack of cache lines behind every reuse distance in ppt.
 *
 * The stack is kept in two parts:
 *  - the front: the RD_FRONT most recently used distinct lines, most recent first. A
 *    reference to the line at front position p has distance p; the immediate re-touch
 *    (p = 0) costs one compare and no state change. Loops that stream a few arrays
 *    hit here almost always.
 *  - the rest: a hash table line -> "time" of its latest access (a u64map, see
 *    common/u64map.h, whose slot indices the time axis keeps), and a time axis with
 *    a mark at the latest access of every line not in the front. The distance of a
 *    line with mark t is (front size) + (marks after t): the marks after t are exactly
 *    the distinct lines touched since (Bennett & Kruskal's counting view of Mattson's
 *    stack). Time advances only when a line leaves the front, and the axis is
 *    renumbered (compacted) when it fills, so memory stays O(M) for M distinct lines
 *    whatever the trace length.
 *
 * Marks are counted either by a Fenwick tree over 64-bit words of the mark bitmap
 * (query and update O(log M): the exact mode) or by flat per-block counts (update
 * O(1), query O(sqrt-ish): the sampled mode, where most references only update). */
#ifndef PPT_REUSE_RDSTACK_H
#define PPT_REUSE_RDSTACK_H

#include <stddef.h>
#include <stdint.h>

#include "common/u64map.h"
#include "rdhist_impl.h"

#define RD_FRONT 8
#define RD_EMPTY U64MAP_EMPTY   /* unused front entry (never a line) */
#define RD_ERR (UINT64_MAX - 1) /* out of memory (stack unusable afterwards) */
#define RD_TNONE UINT32_MAX     /* line has no mark (in the front, or taken) */

typedef struct rd_stack {
  uint64_t fline[RD_FRONT]; /* front, most recent first; RD_EMPTY beyond nfront */
  uint32_t fslot[RD_FRONT]; /* their hash slots */
  unsigned nfront;
  int flat;   /* flat block counts instead of the Fenwick tree */
  int broken; /* an allocation failed mid-update */
  /* line -> time (val.u32; RD_TNONE while in the front). Grown only by hash_room,
   * which renews the slot numbers kept in owner[] and fslot[] as it does. */
  u64map map;
  /* time axis */
  uint64_t *bits;  /* cap/64 + 1 words (the extra word keeps the open-word read in range) */
  uint32_t *owner; /* time -> hash slot of the line whose mark it is */
  size_t cap, now, nlive;
  /* Fenwick tree over words [0, cur_word); the word being filled is left out so that
   * appending a mark costs no tree update */
  uint32_t *fen; /* 1-based, cap/64 entries */
  size_t cur_word;
  uint64_t fen_total;
  /* flat counts: marks per 2^12-bit block and per 2^18-bit super-block */
  uint32_t *bcnt, *scnt;
} rd_stack;

int rd_stack_init(rd_stack *s, int flat);
void rd_stack_free(rd_stack *s);
/* Empties the stack, keeping its allocations. */
void rd_stack_reset(rd_stack *s);

/* Starts loading the hash slot a future reference to `line` will probe first: the
 * feed loops call it some references ahead, so that on large working sets the table's
 * cache misses overlap instead of stalling one after the other. */
static inline void rd_stack_prefetch(const rd_stack *s, uint64_t line) {
  __builtin_prefetch(&s->map.ents[u64map_home(&s->map, line)]);
}

/* How far ahead the loops prefetch. */
#define RD_AHEAD 16

/* Front miss: the general case of rd_touch. want = 0 skips the distance query and
 * returns 0 for a line seen before (RD_INF still reports a first touch). */
uint64_t rd_stack_miss(rd_stack *s, uint64_t line, int want);

/* References `line`: returns its reuse distance, RD_INF for a first touch, RD_ERR when
 * out of memory. */
static inline uint64_t rd_touch(rd_stack *s, uint64_t line, int want) {
  uint64_t *f = s->fline;
  if (f[0] == line) return 0;
  for (unsigned p = 1; p < RD_FRONT; p++) {
    if (f[p] == line) {
      uint32_t sl = s->fslot[p];
      for (unsigned q = p; q > 0; q--) {
        f[q] = f[q - 1];
        s->fslot[q] = s->fslot[q - 1];
      }
      f[0] = line;
      s->fslot[0] = sl;
      return p;
    }
  }
  return rd_stack_miss(s, line, want);
}

/* Distinct lines seen. */
static inline size_t rd_stack_lines(const rd_stack *s) { return s->map.count; }

/* --- operations of the parallel merge (see reuse_par.c) --- */
/* Moves the front into the time axis (least recent first); the front becomes empty. */
int rd_stack_flush_front(rd_stack *s);
/* Removes the mark of `line` and returns the number of marks after it; RD_INF if the
 * line was never seen (nothing changes then). Needs an empty front. */
uint64_t rd_stack_take(rd_stack *s, uint64_t line);
/* Gives `line` the newest mark (inserting it if new). 0 or -1 (out of memory). */
int rd_stack_append(rd_stack *s, uint64_t line);
/* Writes every line, least recently used first, to out (rd_stack_lines(s) entries). */
size_t rd_stack_recency(const rd_stack *s, uint64_t *out);

#endif

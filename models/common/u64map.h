/* u64map.h — the hash table of ppt: 64-bit keys to 64-bit values (or a set).
 *
 * One design for every table in the project: the reuse-distance stack (cache line ->
 * time of its latest access, the hot path), the sparse bins of a reuse histogram
 * (distance -> count), the distinct lines of a trace (4 KiB run -> bitmap of its lines)
 * and the engine's distinct tasklists (pointer -> index).
 *
 *  - Open addressing with linear probing over a power-of-two table kept at most half
 *    full: a lookup reads one or two neighbouring keys, usually in one cache line.
 *  - Fibonacci hashing (multiply by 2^64 / golden ratio, keep the top bits): keys that
 *    differ only in their low bits (consecutive cache lines, small distances, aligned
 *    pointers) land far apart, so runs of keys do not form long probe clusters.
 *  - The key U64MAP_EMPTY (UINT64_MAX) marks a free slot and cannot be stored. No user
 *    needs it: cache lines and distances are below it and a pointer cast to uintptr_t
 *    never is all ones. A caller whose keys can take every value keeps that one key
 *    out of band.
 *  - Each slot holds the key and a 64-bit value side by side (16 bytes): a hit reads
 *    its value from the cache line it found the key in. On the reuse stack's hot path
 *    that is what keeps the map as fast as the stack's former own table: keys and
 *    values in two parallel arrays were tried and cost a second cache line per lookup,
 *    16% (both prefetched) to 40% (keys prefetched) more time on reuse_bench's loops.
 *    A plain set wastes the 8 value bytes of each slot; the value can often carry
 *    something useful instead (the trace summary packs 64 lines into one key).
 *  - Callers address entries by slot index: ents[i].key and ents[i].val, and may keep
 *    more per entry in arrays of their own indexed by slot. A slot index stays valid
 *    until the table is rehashed (u64map_reserve, u64map_grow and u64map_insert
 *    returning or reporting it) or an entry is erased; u64map_reserve and u64map_erase
 *    report every entry they move. Callers that keep slot indices elsewhere (the
 *    reuse stack's time axis) therefore grow the table explicitly with
 *    u64map_reserve, before they probe for the slot they are about to fill.
 *
 * A map that has never held a key has no table (cap 0) and costs no memory: many
 * small histograms never need one.
 *
 * Header only: every target that compiles one of the users from a hand-picked list of
 * sources (the fuzzers) gets the map without naming another source file. */
#ifndef PPT_COMMON_U64MAP_H
#define PPT_COMMON_U64MAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define U64MAP_EMPTY UINT64_MAX /* key of a free slot */
#define U64MAP_NONE SIZE_MAX    /* "no slot": key absent, or out of memory */
#define U64MAP_MIN_BITS 6       /* smallest table: 64 slots (1 KiB) */

typedef struct u64map_ent {
  uint64_t key; /* U64MAP_EMPTY where the slot is free */
  union {
    uint64_t u;   /* an index */
    double d;     /* a count */
    uint32_t u32; /* a 32-bit value (the reuse stack's times): a 32-bit store takes
                   * their sentinel UINT32_MAX as an immediate, a 64-bit one would need
                   * a register on the hot path */
  } val;          /* each user reads back the member it writes */
} u64map_ent;

typedef struct u64map {
  u64map_ent *ents; /* cap slots */
  size_t mask;      /* cap - 1 (0 with no table) */
  unsigned bits;    /* cap = 2^bits; 0 with no table */
  size_t count;     /* keys stored */
} u64map;

static inline size_t u64map_cap(const u64map *m) {
  return m->bits ? m->mask + 1 : 0;
}

/* An empty map. Allocates nothing. */
static inline void u64map_init(u64map *m) {
  memset(m, 0, sizeof *m);
}

static inline void u64map_free(u64map *m) {
  free(m->ents);
  u64map_init(m);
}

/* Removes every key, keeping the table. */
static inline void u64map_clear(u64map *m) {
  /* All-ones bytes make every key U64MAP_EMPTY. */
  if (m->ents) memset(m->ents, 0xff, u64map_cap(m) * sizeof *m->ents);
  m->count = 0;
}

/* Home slot of key (the table must exist). */
static inline size_t u64map_home(const u64map *m, uint64_t key) {
  return (size_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - m->bits));
}

/* Slot holding key, or else the free slot that ends its probe run, where an insert
 * puts it. The table must exist; check ents[slot].key == key to tell which. */
static inline size_t u64map_probe(const u64map *m, uint64_t key) {
  size_t i = u64map_home(m, key);
  while (m->ents[i].key != key && m->ents[i].key != U64MAP_EMPTY) i = (i + 1) & m->mask;
  return i;
}

/* Slot holding key, or U64MAP_NONE. */
static inline size_t u64map_find(const u64map *m, uint64_t key) {
  if (!m->count) return U64MAP_NONE;
  size_t i = u64map_probe(m, key);
  return m->ents[i].key == key ? i : U64MAP_NONE;
}

/* Makes the table big enough for n keys at load <= 1/2. Returns 0 when it already
 * was, 1 when it was rehashed, -1 when out of memory (the map is unchanged). A rehash
 * moves every entry, old slot -> new slot, and reports each move to moved (when not
 * NULL) right after the entry lands, m showing the new table: callers that keep slot
 * indices renew theirs there, at no extra pass (a constant callback is inlined). */
static inline int u64map_reserve(u64map *m, size_t n, void (*moved)(void *arg, size_t from, size_t to),
                                 void *arg) {
  if (n <= u64map_cap(m) / 2) return 0;
  unsigned nb = m->bits > U64MAP_MIN_BITS ? m->bits : U64MAP_MIN_BITS;
  while (nb < 63 && ((size_t)1 << nb) / 2 < n) nb++;
  size_t cap = (size_t)1 << nb;
  if (cap / 2 < n) return -1;
  u64map_ent *ents = malloc(cap * sizeof *ents);
  if (!ents) return -1;
  memset(ents, 0xff, cap * sizeof *ents);
  /* Reinserting in old slot order makes the layout a function of the insert history
   * alone, so runs are reproducible (and so are sums over the table in slot order). */
  u64map old = *m;
  m->ents = ents;
  m->bits = nb;
  m->mask = cap - 1;
  for (size_t i = 0; i < u64map_cap(&old); i++) {
    if (old.ents[i].key == U64MAP_EMPTY) continue;
    size_t j = u64map_home(m, old.ents[i].key);
    while (ents[j].key != U64MAP_EMPTY) j = (j + 1) & m->mask;
    ents[j] = old.ents[i];
    if (moved) moved(arg, i, j);
  }
  free(old.ents);
  return 1;
}

/* Whether one more key would push the load over 1/2 (or there is no table yet: mask is
 * 0 then, which reads as one slot, too few for any key). On the reuse stack's hot path,
 * so it is kept to one compare. */
static inline int u64map_full(const u64map *m) {
  return 2 * (m->count + 1) > m->mask + 1;
}

/* Room for one more key: 0, 1 (rehashed: every slot index changed) or -1 (out of
 * memory). */
static inline int u64map_grow(u64map *m) {
  return u64map_full(m) ? u64map_reserve(m, m->count + 1, NULL, NULL) : 0;
}

/* Stores key in `slot`, a free slot returned by u64map_probe(m, key) after room was
 * made (u64map_grow or u64map_reserve). Its value is left as it was: the caller sets
 * it. */
static inline void u64map_claim(u64map *m, size_t slot, uint64_t key) {
  m->ents[slot].key = key;
  m->count++;
}

/* Inserts key when absent and returns its slot; *added (when not NULL) says whether it
 * was new; a new key's value is zero. U64MAP_NONE when out of memory. For callers
 * that keep no slot indices across inserts: the insert may rehash. */
static inline size_t u64map_insert(u64map *m, uint64_t key, int *added) {
  size_t i = m->count ? u64map_probe(m, key) : U64MAP_NONE;
  if (i != U64MAP_NONE && m->ents[i].key == key) {
    if (added) *added = 0;
    return i;
  }
  int grown = u64map_grow(m);
  if (grown < 0) return U64MAP_NONE;
  if (grown || i == U64MAP_NONE) i = u64map_probe(m, key);
  u64map_claim(m, i, key);
  m->ents[i].val.u = 0;
  if (added) *added = 1;
  return i;
}

/* Backward-shift deletion of the entry in `slot`: the entries after it in its probe
 * run move back so that no lookup needs a tombstone. Each move, from -> to, is
 * reported to moved (when not NULL) right after it is done. */
static inline void u64map_erase(u64map *m, size_t slot, void (*moved)(void *arg, size_t from, size_t to),
                                void *arg) {
  size_t hole = slot;
  for (size_t j = (slot + 1) & m->mask; m->ents[j].key != U64MAP_EMPTY; j = (j + 1) & m->mask) {
    /* The entry at j may fill the hole only if its home is not in (hole, j]
     * cyclically: otherwise a lookup starting at its home would no longer pass
     * through it. */
    size_t home = u64map_home(m, m->ents[j].key);
    if (((j - home) & m->mask) < ((j - hole) & m->mask)) continue;
    m->ents[hole] = m->ents[j];
    if (moved) moved(arg, j, hole);
    hole = j;
  }
  m->ents[hole].key = U64MAP_EMPTY;
  m->count--;
}

#endif

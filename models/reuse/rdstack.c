/* rdstack.c — hash table, time axis and mark counting of the LRU stack (rdstack.h). */
#include "rdstack.h"

#include <stdlib.h>
#include <string.h>

#define RD_INIT_LINES ((size_t)1 << 11) /* lines before the first growth */
#define RD_INIT_CAP ((size_t)1 << 12)
#define BLK_SHIFT 12 /* flat counts: bits per block */
#define SUP_SHIFT 18 /* flat counts: bits per super-block */


static inline int popc(uint64_t x) { return __builtin_popcountll(x); }

/* ------------------------------------------------------------ Fenwick tree */

static inline void fen_add(rd_stack *s, size_t w, int32_t v) {
  size_t n = s->cap >> 6;
  for (size_t i = w + 1; i <= n; i += i & (~i + 1)) s->fen[i] += (uint32_t)v;
}

/* Sum of the committed word counts of words [0, w). */
static inline uint64_t fen_prefix(const rd_stack *s, size_t w) {
  uint64_t c = 0;
  for (size_t i = w; i > 0; i &= i - 1) c += s->fen[i];
  return c;
}

/* Rebuilds the tree (or the flat counts) from the bitmap in O(cap). */
static void counts_rebuild(rd_stack *s) {
  size_t nw = s->cap >> 6;
  if (s->flat) {
    memset(s->bcnt, 0, ((s->cap >> BLK_SHIFT) + 1) * sizeof *s->bcnt);
    memset(s->scnt, 0, ((s->cap >> SUP_SHIFT) + 1) * sizeof *s->scnt);
    for (size_t w = 0; w < nw; w++) {
      int c = popc(s->bits[w]);
      s->bcnt[w >> (BLK_SHIFT - 6)] += c;
      s->scnt[w >> (SUP_SHIFT - 6)] += c;
    }
    return;
  }
  s->cur_word = s->now >> 6;
  s->fen_total = 0;
  s->fen[0] = 0;
  for (size_t i = 1; i <= nw; i++) {
    uint32_t c = i - 1 < s->cur_word ? (uint32_t)popc(s->bits[i - 1]) : 0;
    s->fen[i] = c;
    s->fen_total += c;
  }
  for (size_t i = 1; i <= nw; i++) {
    size_t j = i + (i & (~i + 1));
    if (j <= nw) s->fen[j] += s->fen[i];
  }
}

/* ------------------------------------------------------------ life cycle */

static int axis_alloc(rd_stack *s, size_t cap) {
  size_t nw = cap >> 6;
  uint64_t *bits = realloc(s->bits, (nw + 1) * sizeof *bits);
  if (bits) s->bits = bits;
  uint32_t *owner = realloc(s->owner, cap * sizeof *owner);
  if (owner) s->owner = owner;
  uint32_t *fen = NULL, *bcnt = NULL, *scnt = NULL;
  if (s->flat) {
    bcnt = realloc(s->bcnt, ((cap >> BLK_SHIFT) + 1) * sizeof *bcnt);
    if (bcnt) s->bcnt = bcnt;
    scnt = realloc(s->scnt, ((cap >> SUP_SHIFT) + 1) * sizeof *scnt);
    if (scnt) s->scnt = scnt;
    if (!bits || !owner || !bcnt || !scnt) return -1;
  } else {
    fen = realloc(s->fen, (nw + 1) * sizeof *fen);
    if (fen) s->fen = fen;
    if (!bits || !owner || !fen) return -1;
  }
  /* New words are zero; the caller rebuilds the counts. */
  size_t old = s->cap ? (s->cap >> 6) + 1 : 0;
  if (nw + 1 > old) memset(s->bits + old, 0, (nw + 1 - old) * sizeof *s->bits);
  s->cap = cap;
  return 0;
}

int rd_stack_init(rd_stack *s, int flat) {
  memset(s, 0, sizeof *s);
  s->flat = flat;
  u64map_init(&s->map);
  if (u64map_reserve(&s->map, RD_INIT_LINES, NULL, NULL) < 0 || axis_alloc(s, RD_INIT_CAP) != 0) {
    rd_stack_free(s);
    return -1;
  }
  rd_stack_reset(s);
  return 0;
}

void rd_stack_free(rd_stack *s) {
  u64map_free(&s->map);
  free(s->bits);
  free(s->owner);
  free(s->fen);
  free(s->bcnt);
  free(s->scnt);
  memset(s, 0, sizeof *s);
}

void rd_stack_reset(rd_stack *s) {
  u64map_clear(&s->map);
  memset(s->bits, 0, ((s->cap >> 6) + 1) * sizeof *s->bits);
  s->now = s->nlive = 0;
  counts_rebuild(s);
  for (unsigned p = 0; p < RD_FRONT; p++) s->fline[p] = RD_EMPTY;
  s->nfront = 0;
  s->broken = 0;
}

/* ------------------------------------------------------------ hash table */

/* A line moved to another hash slot while the table grew: its mark, if it has one,
 * follows it. */
static void slot_moved(void *arg, size_t from, size_t to) {
  rd_stack *s = arg;
  (void)from;
  uint32_t t = s->map.ents[to].val.u32;
  if (t != RD_TNONE) s->owner[t] = (uint32_t)to;
}

/* Doubles the table; slot numbers change, so the owner array (as each line moves) and
 * the front's slots (after) are renewed. */
static int hash_grow(rd_stack *s) {
  /* Slot indices and times are 32-bit. */
  if (s->map.bits >= 32 || u64map_reserve(&s->map, s->map.count + 1, slot_moved, s) < 0) return -1;
  for (unsigned p = 0; p < s->nfront; p++) s->fslot[p] = (uint32_t)u64map_probe(&s->map, s->fline[p]);
  return 0;
}

/* Room for one more line. */
static inline int hash_room(rd_stack *s) {
  return u64map_full(&s->map) ? hash_grow(s) : 0;
}

/* ------------------------------------------------------------ time axis */

/* Renumbers the live marks 0..nlive-1 in order, growing the axis so that at least as
 * many free positions as live marks remain: O(cap) work every >= cap/2 appends. */
static int compact(rd_stack *s) {
  size_t live = s->nlive, cap = s->cap;
  if (2 * live + 64 > cap) {
    size_t ncap = cap;
    while (2 * live + 64 > ncap) ncap *= 2;
    /* times are uint32_t below RD_TNONE */
    if (ncap > ((size_t)1 << 31) || axis_alloc(s, ncap) != 0) {
      /* Without growth the compaction still frees positions, unless none are free. */
      if (live >= cap) return -1;
    }
  }
  size_t nw_old = cap >> 6, j = 0;
  /* Local copies: a store into the map's value union may alias any field of s for the
   * compiler, which would reload both pointers on every mark. */
  uint32_t *owner = s->owner;
  u64map_ent *ents = s->map.ents;
  for (size_t w = 0; w < nw_old; w++) {
    uint64_t x = s->bits[w];
    while (x) {
      size_t t = (w << 6) | (size_t)__builtin_ctzll(x);
      uint32_t sl = owner[t];
      owner[j] = sl;
      ents[sl].val.u32 = (uint32_t)j;
      j++;
      x &= x - 1;
    }
  }
  memset(s->bits, 0, ((s->cap >> 6) + 1) * sizeof *s->bits);
  for (size_t w = 0; w < (live >> 6); w++) s->bits[w] = ~0ull;
  if (live & 63) s->bits[live >> 6] = (1ull << (live & 63)) - 1;
  s->now = live;
  counts_rebuild(s);
  return 0;
}

static inline void mark_clear(rd_stack *s, size_t t) {
  size_t w = t >> 6;
  s->bits[w] &= ~(1ull << (t & 63));
  s->nlive--;
  if (s->flat) {
    s->bcnt[t >> BLK_SHIFT]--;
    s->scnt[t >> SUP_SHIFT]--;
  } else if (w < s->cur_word) {
    fen_add(s, w, -1);
    s->fen_total--;
  }
}

static inline int mark_append(rd_stack *s, uint32_t slot) {
  if (s->now == s->cap && compact(s) != 0) return -1;
  size_t t = s->now++, w = t >> 6;
  if (s->flat) {
    s->bcnt[t >> BLK_SHIFT]++;
    s->scnt[t >> SUP_SHIFT]++;
  } else {
    /* Commit the words left behind (normally just the previous one). */
    for (; s->cur_word < w; s->cur_word++) {
      uint32_t c = (uint32_t)popc(s->bits[s->cur_word]);
      if (c) {
        fen_add(s, s->cur_word, (int32_t)c);
        s->fen_total += c;
      }
    }
  }
  s->bits[w] |= 1ull << (t & 63);
  s->owner[t] = slot;
  s->map.ents[slot].val.u32 = (uint32_t)t;
  s->nlive++;
  return 0;
}

/* Marks strictly after time t (t < now). */
static uint64_t suffix(const rd_stack *s, size_t t) {
  size_t w = t >> 6;
  uint64_t c = (uint64_t)popc((s->bits[w] >> (t & 63)) >> 1);
  if (!s->flat) {
    if (w < s->cur_word)
      c += s->fen_total - fen_prefix(s, w + 1) + (uint64_t)popc(s->bits[s->cur_word]);
    return c;
  }
  /* Flat: rest of the block word by word, rest of the super-block block by block,
   * then whole super-blocks, all bounded by the newest mark. */
  size_t last = s->now - 1;
  size_t wend = w | ((1u << (BLK_SHIFT - 6)) - 1);
  if (wend > (last >> 6)) wend = last >> 6;
  for (size_t k = w + 1; k <= wend; k++) c += (uint64_t)popc(s->bits[k]);
  size_t b = t >> BLK_SHIFT, bend = b | ((1u << (SUP_SHIFT - BLK_SHIFT)) - 1);
  if (bend > (last >> BLK_SHIFT)) bend = last >> BLK_SHIFT;
  for (size_t k = b + 1; k <= bend; k++) c += s->bcnt[k];
  for (size_t k = (t >> SUP_SHIFT) + 1; k <= (last >> SUP_SHIFT); k++) c += s->scnt[k];
  return c;
}

/* ------------------------------------------------------------ operations */

uint64_t rd_stack_miss(rd_stack *s, uint64_t line, int want) {
  if (s->broken || hash_room(s) != 0) return RD_ERR;
  size_t i = u64map_probe(&s->map, line);
  u64map_ent *e = &s->map.ents[i];
  uint64_t d;
  if (e->key == line) {
    uint32_t t = e->val.u32;
    d = want ? s->nfront + suffix(s, t) : 0;
    mark_clear(s, t);
  } else {
    u64map_claim(&s->map, i, line);
    d = RD_INF;
  }
  e->val.u32 = RD_TNONE;
  /* The least recent front line moves into the axis as its newest mark: it is more
   * recent than every line already there. */
  if (s->nfront == RD_FRONT) {
    if (mark_append(s, s->fslot[RD_FRONT - 1]) != 0) {
      s->broken = 1;
      return RD_ERR;
    }
  } else {
    s->nfront++;
  }
  for (unsigned q = s->nfront - 1; q > 0; q--) {
    s->fline[q] = s->fline[q - 1];
    s->fslot[q] = s->fslot[q - 1];
  }
  s->fline[0] = line;
  s->fslot[0] = (uint32_t)i;
  return d;
}

int rd_stack_flush_front(rd_stack *s) {
  while (s->nfront > 0) {
    unsigned p = s->nfront - 1;
    if (mark_append(s, s->fslot[p]) != 0) {
      s->broken = 1;
      return -1;
    }
    s->fline[p] = RD_EMPTY;
    s->nfront = p;
  }
  return 0;
}

uint64_t rd_stack_take(rd_stack *s, uint64_t line) {
  size_t i = u64map_probe(&s->map, line);
  u64map_ent *e = &s->map.ents[i];
  if (e->key != line) return RD_INF;
  uint32_t t = e->val.u32;
  uint64_t d = suffix(s, t);
  mark_clear(s, t);
  e->val.u32 = RD_TNONE;
  return d;
}

int rd_stack_append(rd_stack *s, uint64_t line) {
  if (hash_room(s) != 0) return -1;
  size_t i = u64map_probe(&s->map, line);
  if (s->map.ents[i].key != line) {
    u64map_claim(&s->map, i, line);
    s->map.ents[i].val.u32 = RD_TNONE;
  }
  if (mark_append(s, (uint32_t)i) != 0) {
    s->broken = 1;
    return -1;
  }
  return 0;
}

size_t rd_stack_recency(const rd_stack *s, uint64_t *out) {
  size_t j = 0;
  for (size_t w = 0; w <= (s->now ? (s->now - 1) >> 6 : 0) && s->now; w++) {
    uint64_t x = s->bits[w];
    while (x) {
      size_t t = (w << 6) | (size_t)__builtin_ctzll(x);
      out[j++] = s->map.ents[s->owner[t]].key;
      x &= x - 1;
    }
  }
  for (unsigned p = s->nfront; p > 0; p--) out[j++] = s->fline[p - 1];
  return j;
}

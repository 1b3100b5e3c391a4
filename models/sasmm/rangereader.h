/* rangereader.h — random access into one thread's stream by record index: a reader walks
 * a list of record ranges [s, e), decoding chunks as needed, optionally keeping only the
 * block instances dealt to one core (the paper's per-instance split). */
#ifndef PPT_SASMM_RANGEREADER_H
#define PPT_SASMM_RANGEREADER_H

#include <stddef.h>
#include <stdint.h>

#include "ppt/err.h"
#include "ppt/trace.h"

typedef struct ppt_range {
  uint64_t s, e;
} ppt_range;

/* Heap addresses [lo, hi) that are private to the executing core from record index pos
 * on: blocks allocated inside a parallel region (PPT_EV_ALLOC). A region's segments are
 * sorted by lo and disjoint. */
typedef struct sasmm_privseg {
  uint64_t lo, hi, pos;
} sasmm_privseg;

/* A decoded chunk the readers of one map share (refs: readers on it; 0: idle, reusable). */
typedef struct ppt_chunkslot {
  size_t chunk; /* index among the thread's chunks; SIZE_MAX: none */
  uint32_t refs;
  ppt_trace_batch *b;
  const ppt_trace_rec *recs;
} ppt_chunkslot;

/* Record index of the first record of each chunk of a thread (n+1 entries), and the
 * decoded chunks its readers share: N mimicked cores reading one chunk (a small trace,
 * or cores working near each other) hold one decoded copy, not N (docs/sasmm.md,
 * "Memory"). Slots are never more than the distinct chunks in use at once. */
typedef struct sasmm_chunkmap {
  const ppt_trace *t;
  uint32_t thread;
  size_t n;
  uint64_t *first;
  ppt_chunkslot *slots;
  size_t nslots;
} sasmm_chunkmap;

int sasmm_chunkmap_init(sasmm_chunkmap *m, const ppt_trace *t, uint32_t thread, ppt_err *err);
void sasmm_chunkmap_free(sasmm_chunkmap *m);

typedef struct sasmm_rreader sasmm_rreader;

sasmm_rreader *sasmm_rreader_new(sasmm_chunkmap *m);
struct ppt_sieve;
/* A reader of the sieve's kept records (sasmm/sieve.h) instead of m's chunks; ranges as
 * before (each starts and ends at a kept record), without the per-instance split. The
 * references dropped from the ranges it read are counted (sasmm_rreader_dropped) and
 * each record it returns has an ordinal (sasmm_rreader_key). */
sasmm_rreader *sasmm_rreader_new_sieved(sasmm_chunkmap *m, const struct ppt_sieve *sv);
/* The record last returned: the number of references (dropped ones included) before it
 * in the current ranges; a block entry has the ordinal of the reference after it.
 * Readers without a sieve: 0. */
uint64_t sasmm_rreader_key(const sasmm_rreader *r);
/* References dropped from every range read since the reader was made, and the counted
 * loads and stores among them. */
void sasmm_rreader_dropped(const sasmm_rreader *r, uint64_t *refs, uint64_t *loads, uint64_t *stores);
void sasmm_rreader_free(sasmm_rreader *r);
/* Starts over on ranges (copied). core/privatise: stack references get core's private
 * address. quota/ncores: when quota != NULL, only instance j of block b with
 * j / quota[b] == core (clamped to ncores-1) is kept; references before the first block
 * entry go to core 0. */
int sasmm_rreader_reset(sasmm_rreader *r, const ppt_range *ranges, size_t nranges, uint32_t core, int privatise,
                      const uint32_t *quota, uint32_t ncores);
/* While privatising (sasmm_rreader_reset), references at record index p to an address
 * of seg[k] with p >= seg[k].pos get the core's private address too, as the stack's.
 * seg (not copied; NULL: none) stays valid until the next call or reset. */
void sasmm_rreader_set_private(sasmm_rreader *r, const sasmm_privseg *seg, size_t nseg);
/* The record indices of block entries number nth[0] < nth[1] < ... < nth[k-1] (from 0)
 * among the records [s, e) of m's stream, into pos[] (e where there are fewer). 0, or
 * -1 with err set. */
int sasmm_chunkmap_find_blocks(sasmm_chunkmap *m, uint64_t s, uint64_t e, const uint64_t *nth, size_t k,
                             uint64_t *pos, ppt_err *err);
/* 1: *out filled; 0: end; -1: error (err set). Event records are skipped. */
int sasmm_rreader_next(sasmm_rreader *r, ppt_trace_rec *out, ppt_err *err);

#endif

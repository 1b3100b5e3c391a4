/* writer.h — trace writing: per-thread record encoders feeding one shared file writer.
 *
 * Used by the runtime linked into traced programs (one encoder per program thread) and by
 * tests and tools that synthesise traces. Memory is bounded: an encoder holds one raw
 * chunk; the writer holds only the chunk table (48 B per chunk). */
#ifndef PPT_TRACE_WRITER_H
#define PPT_TRACE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "trace/codec.h"
#include "trace/format.h"

typedef struct ppt_trace_writer ppt_trace_writer;

/* Creates `path` and writes the header. Returns NULL with errno set on failure. */
ppt_trace_writer *ppt_trace_writer_open(const char *path, int zstd_level);
/* Allocates the next thread index (0, 1, ...); thread-safe. */
uint32_t ppt_trace_writer_new_thread(ppt_trace_writer *w);
/* Writes the block table, chunk table and footer, marks the header complete and closes.
 * `bbtab` is the raw block table (format.h). Frees w. Returns 0 or -1 (errno). */
int ppt_trace_writer_close(ppt_trace_writer *w, const unsigned char *bbtab, uint32_t bbtab_size);
/* Closes and deletes an unfinished trace. */
void ppt_trace_writer_abort(ppt_trace_writer *w);
/* Forgets every chunk written so far (the file back to its header): a trace that starts
 * over. No encoder may flush meanwhile (the caller holds them still). Returns 0 or -1. */
int ppt_trace_writer_reset(ppt_trace_writer *w);

/* Per-thread encoder. Fields are public to this module only so the hot path inlines. */
typedef struct ppt_trace_enc {
  unsigned char *pos, *lim;
  uint32_t bb, k;          /* current block instance and reference index within it */
  uint64_t nrecs, nrefs;   /* in the current chunk (nrefs is set at flush: nrecs - nother) */
  uint64_t nother;         /* block and event records in the current chunk */
  uint32_t start_bb, start_k, thread, seq;
  int failed;              /* a write failed: the trace is lost, stop encoding */
  int err;                 /* errno of that failure (ENOSPC: a full disk) */
  ppt_trace_writer *w;
  void *cctx;              /* ZSTD_CCtx */
  unsigned char *cbuf;
  size_t ccap;
  ppt_codec_site sites[PPT_CODEC_SITES];
  unsigned char buf[PPT_TRACE_CHUNK_RAW_TARGET];
} ppt_trace_enc;

/* Allocates an encoder for a new thread of w (NULL on out of memory). */
ppt_trace_enc *ppt_trace_enc_new(ppt_trace_writer *w);
/* Compresses and appends the pending records as one chunk (no-op when empty). */
int ppt_trace_enc_flush(ppt_trace_enc *e);
void ppt_trace_enc_free(ppt_trace_enc *e);
/* The encoder as new: its pending records and its place in its thread's stream gone. */
void ppt_trace_enc_reset(ppt_trace_enc *e);

/* Room kept free at the end of a chunk: the largest record (an event) is 52 bytes. */
#define PPT_TRACE_ENC_SLACK 64u

static inline void ppt_trace_enc_bb(ppt_trace_enc *e, uint32_t id) {
  *e->pos++ = 0;
  e->pos = ppt_codec_put_varint(e->pos, id);
  e->bb = id;
  e->k = 0;
  e->nrecs++;
  e->nother++;
  if (__builtin_expect(e->pos >= e->lim, 0)) ppt_trace_enc_flush(e);
}

/* kind: PPT_REC_LOAD or PPT_REC_STORE; lg: log2(size) 0..PPT_CODEC_LG_MAX. */
static inline void ppt_trace_enc_mem(ppt_trace_enc *e, unsigned kind, unsigned lg, unsigned stack,
                                     uint64_t addr) {
  ppt_codec_site *s = &e->sites[ppt_codec_site_of(e->bb, e->k++)];
  e->pos = ppt_codec_put_mem(e->pos, s, kind, lg, stack, addr);
  e->nrecs++; /* the hot path keeps one counter; references are derived at flush */
  if (__builtin_expect(e->pos >= e->lim, 0)) ppt_trace_enc_flush(e);
}

/* Marks the trace as holding fork-join events (header flag PPT_TRACE_FLAG_FORKJOIN). */
void ppt_trace_writer_note_forkjoin(ppt_trace_writer *w);

/* type: ppt_event_type; n <= 5 values. */
static inline void ppt_trace_enc_event(ppt_trace_enc *e, unsigned type, const int64_t *v, unsigned n) {
  if (type == 0 /* PPT_EV_PAR_BEGIN */) ppt_trace_writer_note_forkjoin(e->w);
  e->pos = ppt_codec_put_event(e->pos, type, v, n);
  e->nrecs++;
  e->nother++;
  if (__builtin_expect(e->pos >= e->lim, 0)) ppt_trace_enc_flush(e);
}

#endif

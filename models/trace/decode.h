/* decode.h — the raw record decoder, exposed inside ppt for the fuzzer. */
#ifndef PPT_TRACE_DECODE_H
#define PPT_TRACE_DECODE_H

#include "ppt/trace.h"

/* Decodes the raw (decompressed) bytes [p, end) of chunk c into r, which must hold
 * c->nrecs records. Returns 0, or -1 when the bytes do not decode to exactly c->nrecs
 * records and c->nrefs references with block ids in 1..nbbs. Event values go to
 * *events (grown with realloc; *ev_cap is its capacity). */
int ppt_trace_decode_records(uint32_t nbbs, const ppt_trace_chunk_info *c, const unsigned char *p,
                             const unsigned char *end, ppt_trace_rec *r, ppt_trace_event **events,
                             size_t *ev_cap);

/* ppt_trace_chunk_decode in two steps: reading and decompressing chunk i into b, then
 * decoding its records (models/trace/cursor.c does the first on its helper thread: the
 * compressed and raw bytes are a fraction of the decoded records, which a helper would
 * otherwise hand to the reader through another CPU's cache). */
int ppt_trace_chunk_load(const ppt_trace *t, size_t i, ppt_trace_batch *b, ppt_err *err);
int ppt_trace_chunk_records(const ppt_trace *t, size_t i, ppt_trace_batch *b, const ppt_trace_rec **recs,
                            size_t *n, ppt_err *err);

#endif

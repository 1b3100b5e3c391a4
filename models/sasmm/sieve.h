/* sieve.h — a sampled sweep's stream, with the references no sampled set sees taken out
 * (docs/sweep.md, "The sieve").
 *
 * Under set sampling (cache/sweepsim.h) most references are only counted: they touch no
 * sampled set, so no simulated level sees them. Yet the mimic would decode, deal and
 * interleave every one of them at every core count. The sieve is made once, in the same
 * pass as the plan (sasmm_plan_sieve), and keeps only what a mimic needs to
 * reproduce the sampled sweep exactly: the references the simulation may see, the block
 * entries that carry machine-level stack references, and every record where one of the
 * plan's phases or iterations may start or end. Every other record is dropped; the
 * references among them are kept as counts on the record before them (a run), so that
 *  - the counted totals (references, loads, stores, first-level line accesses) are
 *    added in bulk (cache_sweepsim_count_dropped), and
 *  - each core knows the ordinal of every reference it streams, dropped ones included:
 *    round-robin interleaving of one reference per turn puts a core's i-th reference in
 *    turn i, so the interleaved order of the kept records is their order by (ordinal,
 *    core's place in the round), the same as in the full stream (mimic.c,
 *    interleave_keyed).
 * No range of the plan starts or ends inside a run, so a run belongs wholly to the range
 * of the record before it. */
#ifndef PPT_SASMM_SIEVE_H
#define PPT_SASMM_SIEVE_H

#include <stddef.h>
#include <stdint.h>

#include "ppt/err.h"
#include "ppt/sasmm.h"
#include "ppt/trace.h"

/* A kept record of thread 0's stream, at file record index pos, and the run of
 * references dropped after it: `run` of them, of which run_loads loads and run_stores
 * stores are counted. */
typedef struct sasmm_sieve_rec {
  ppt_trace_rec r;
  uint64_t pos;
  uint32_t run;
  uint16_t run_loads, run_stores;
} sasmm_sieve_rec;

/* 1: the reference may be dropped (cache_sweepsim_droppable). */
typedef int (*sasmm_sieve_drop_fn)(const void *arg, const ppt_trace_rec *r);

/* ppt_sasmm_plan_new, sieving the stream with `drop` during the plan's second pass;
 * counted[nbbs + 1] (or NULL: all) says whose references are counted. *sieve is NULL
 * when the plan keeps no steps or the kept records would take more than max_bytes (the
 * sweep then streams the trace). */
int sasmm_plan_sieve(const ppt_trace *t, sasmm_sieve_drop_fn drop, const void *arg, const uint8_t *counted,
                     uint64_t max_bytes, ppt_sasmm_plan **plan, ppt_sieve **sieve, ppt_err *err);

/* Building (the plan's pass): a sieve that drops what `drop` allows. */
ppt_sieve *sasmm_sieve_new(const ppt_trace *t, sasmm_sieve_drop_fn drop, const void *arg,
                           const uint8_t *counted, uint64_t max_bytes);
/* The stream's record at index pos (called for every record, in order); forced: keep
 * it (a range may start or end there). 0, or -1 when out of memory, 1 when over the
 * budget (the sieve is then of no use). */
int sasmm_sieve_add(ppt_sieve *s, uint64_t pos, const ppt_trace_rec *x, int forced);
void sasmm_sieve_free(ppt_sieve *s);

/* Reading. Kept records, and the index of the first one at or after record index pos. */
size_t sasmm_sieve_size(const ppt_sieve *s);
const sasmm_sieve_rec *sasmm_sieve_at(const ppt_sieve *s, size_t i);
size_t sasmm_sieve_find(const ppt_sieve *s, uint64_t pos);
/* Records of the stream it was made from, kept or not; the trace. */
uint64_t sasmm_sieve_stream_records(const ppt_sieve *s);
const ppt_trace *sasmm_sieve_trace(const ppt_sieve *s);

#endif

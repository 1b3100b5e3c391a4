/* rdtest.h — helpers of the reuse tests: a brute-force oracle and trace generators. */
#ifndef PPT_TESTS_REUSE_RDTEST_H
#define PPT_TESTS_REUSE_RDTEST_H

#include <gsl/gsl_rng.h>
#include <stddef.h>
#include <stdint.h>

#include "ppt/reuse.h"

/* Brute force (Mattson's stack as an array, O(N*M)): the distance of every record
 * (-1 for first touches; 0 and unused for block records) for lines of `line` bytes. */
int64_t *rdt_oracle(const ppt_trace_rec *recs, size_t n, unsigned line);

/* Per-block histograms of the oracle: out[bb] for bb <= maxbb (NULL if no refs). Only
 * records with keep[i] != 0 count when keep is not NULL. */
ppt_rdhist **rdt_oracle_bb(const ppt_trace_rec *recs, size_t n, unsigned line,
                           const int64_t *dist, uint32_t maxbb);
ppt_rdhist *rdt_oracle_whole(const ppt_trace_rec *recs, size_t n, unsigned line,
                             const int64_t *dist);
void rdt_free_bb(ppt_rdhist **h, uint32_t maxbb);

typedef struct rdt_gen {
  size_t nrefs;      /* memory references */
  uint64_t lines;    /* working set in lines */
  unsigned nbbs;     /* block ids 1..nbbs */
  unsigned max_inst; /* refs per instance: 1..max_inst */
  double p_seq;      /* probability a ref continues a sequential 8-byte stream */
  double p_repeat;   /* probability a ref repeats the previous address */
  double p_hot;      /* probability a ref goes to a small hot set of 16 lines */
  unsigned line;     /* line size the addresses are laid out for */
} rdt_gen;

/* Random records (block records included) following g; *n gets the record count. */
ppt_trace_rec *rdt_generate(const rdt_gen *g, gsl_rng *rng, size_t *n);

/* A test case: a seeded mt19937 generator, the records it drew for g and the oracle's
 * whole-trace histogram of them. */
typedef struct rdt_case {
  gsl_rng *rng;
  ppt_trace_rec *recs;
  size_t n;
  ppt_rdhist *whole;
} rdt_case;
void rdt_case_make(rdt_case *c, const rdt_gen *g, unsigned long seed);
void rdt_case_free(rdt_case *c);

/* Runs a whole record array through a new context in batches of `batch` records. */
ppt_reuse *rdt_run(const ppt_reuse_opts *o, const ppt_trace_rec *recs, size_t n, size_t batch);
/* Same with ppt_reuse_feed_parallel on T threads. */
ppt_reuse *rdt_run_parallel(const ppt_reuse_opts *o, const ppt_trace_rec *recs, size_t n,
                            size_t batch, unsigned T);

/* Chunk sources: the records cut into fixed-size chunks (a trace file's chunks). */
typedef struct rdt_chunks {
  const ppt_trace_rec *recs;
  size_t n, csize;
  size_t fail_at; /* decoding this chunk fails (SIZE_MAX: never) */
} rdt_chunks;
uint64_t rdt_chunk_size(void *arg, size_t i);
int rdt_chunk_decode(void *arg, unsigned slot, size_t i, const ppt_trace_rec **recs, size_t *n, ppt_err *err);

/* Feeds a chunked stream into r (ppt_reuse_feed_chunks on some threads, the device...). */
typedef int (*rdt_feed_fn)(void *arg, ppt_reuse *r, const ppt_reuse_chunks *src, ppt_err *err);
/* A new context fed the records in chunks of csize (sized: the source gives their sizes)
 * by feed, then finished; fails the test on error. */
ppt_reuse *rdt_run_chunks(const ppt_reuse_opts *o, const ppt_trace_rec *recs, size_t n, size_t csize, int sized,
                          rdt_feed_fn feed, void *arg);

/* Every per-block histogram and the whole one equal (bitwise counts). */
int rdt_same_results(const ppt_reuse *a, const ppt_reuse *b);

#endif

/* ppt/reuse.h — reuse-distance histograms of a memory trace (issue 3).
 *
 * Definitions (docs/design.md, "Definitions every module must agree on"):
 *  - A memory reference touches the cache line addr >> log2(line). An access that
 *    straddles two lines counts for its first line only (the traced programs' accesses
 *    are at most 16 bytes and almost always aligned, so this changes very few refs).
 *  - Its reuse distance D is the number of distinct lines touched since the previous
 *    reference to the same line; a first touch has D = infinity (written -1).
 *  - Each memory record carries the block instance it belongs to (trace.h); distances
 *    are attributed to that block, giving the conditional profiles P(D|BB) of AMM §3.2.1
 *    and SASMM Algorithm 3.
 *
 * Modes:
 *  - PPT_REUSE_EXACT: every reference, exact. O(N log M) time, O(M) memory (M distinct
 *    lines), streaming: records are fed batch by batch.
 *  - PPT_REUSE_SAMPLED: AMM/SASMM window sampling. Each block instance (window) is
 *    sampled with probability `rate` (gsl_rng seeded with `seed`); every reference of a
 *    sampled instance gets its exact distance against the whole trace (the papers'
 *    semantics, without their backward scan); the other references only keep the
 *    state up to date. Per-block histograms hold the sampled references' counts, i.e.
 *    P(D|BB) after normalising; the whole-trace histogram is the reweighted estimate
 *    of SASMM Eq. 1-4 (see ppt_reuse_weighting).
 *  - PPT_REUSE_APPROX: SHARDS (Waldspurger et al., FAST'15) spatial sampling: only lines
 *    with hash(line) mod 2^24 < rate * 2^24 are analysed, exactly, among themselves;
 *    distances and counts are scaled by 1/rate, and the whole histogram's total is
 *    corrected to the true reference count (SHARDS_adj: the difference goes to
 *    distance 0). Stated error, for the hit rate of a fully associative LRU cache of
 *    C >= 5/rate lines when >= 2000 lines are analysed: at most 2.5 points, about 1
 *    point on average (tests/reuse/test_approx.c checks both); caches smaller than
 *    ~1/rate lines are not resolved (distances are multiples of ~1/rate). The noise
 *    grows as 1/sqrt(lines analysed) and with heavy-hitter lines that are in or out of
 *    the sample; validation/bench/reuse_bench measures it per capacity.
 *
 * Histogram counts are doubles so that exact and estimated histograms share one type;
 * exact histograms hold integers, represented exactly up to 2^53 references. */
#ifndef PPT_REUSE_H
#define PPT_REUSE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ppt/err.h"
#include "ppt/trace.h"

struct json_object;

/* Distance value of a first touch in the histogram API and in PPT's text files. */
#define PPT_RD_INF ((int64_t)-1)

/* ---------------------------------------------------------------- histograms */

typedef struct ppt_rdhist ppt_rdhist;

/* New empty histogram for lines of `line` bytes (metadata only; 0 means 64). */
ppt_rdhist *ppt_rdhist_new(unsigned line);
void ppt_rdhist_free(ppt_rdhist *h);
ppt_rdhist *ppt_rdhist_clone(const ppt_rdhist *h);
unsigned ppt_rdhist_line(const ppt_rdhist *h);

/* Adds `count` references at distance d (PPT_RD_INF for a first touch; other negative
 * d are rejected). Returns 0, or -1 on bad d / out of memory. */
int ppt_rdhist_add(ppt_rdhist *h, int64_t d, double count);
/* dst += weight * src. Returns 0 or -1 (out of memory). */
int ppt_rdhist_merge(ppt_rdhist *dst, const ppt_rdhist *src, double weight);

double ppt_rdhist_total(const ppt_rdhist *h);            /* all references, infinite included */
double ppt_rdhist_infinite(const ppt_rdhist *h);         /* first touches */
double ppt_rdhist_count(const ppt_rdhist *h, int64_t d); /* d = PPT_RD_INF allowed */
/* P(D = d) = count(d) / total (0 for an empty histogram). */
double ppt_rdhist_prob(const ppt_rdhist *h, int64_t d);
/* Mean of the finite distances (0 if none). */
double ppt_rdhist_mean(const ppt_rdhist *h);
/* Largest finite distance with a nonzero count, or -1 if none. */
int64_t ppt_rdhist_max(const ppt_rdhist *h);
/* References with finite D < c: the hits of a fully associative LRU cache of c lines. */
double ppt_rdhist_below(const ppt_rdhist *h, uint64_t c);
/* Number of distinct finite distances with a nonzero count. */
size_t ppt_rdhist_nbins(const ppt_rdhist *h);
/* Calls fn for every finite distance with a nonzero count, in increasing order; stops
 * early and returns fn's value when it is nonzero. Returns -1 if out of memory. */
int ppt_rdhist_foreach(const ppt_rdhist *h, int (*fn)(int64_t d, double count, void *arg), void *arg);
/* Exactly the same counts (bitwise-equal doubles) and line size. */
int ppt_rdhist_equal(const ppt_rdhist *a, const ppt_rdhist *b);

/* PPT's text format: one line "sd count p(sd)" per nonzero bin, increasing sd, then
 * "-1 count p" for first touches (if any). */
int ppt_rdhist_write_text(const ppt_rdhist *h, FILE *f, ppt_err *err);
/* Reads that format (lines starting with '#' and blank lines are skipped; the p column
 * is optional and ignored). `name` is used in error messages. */
int ppt_rdhist_read_text(FILE *f, const char *name, unsigned line, ppt_rdhist **out, ppt_err *err);
/* {"line":64,"refs":N,"infinite":I,"histogram":[[d,count],...]} (finite bins only). */
int ppt_rdhist_to_json(const ppt_rdhist *h, struct json_object **out, ppt_err *err);
int ppt_rdhist_from_json(struct json_object *j, const char *name, ppt_rdhist **out, ppt_err *err);
/* Writes the text (json = 0) or JSON (json = 1) form to path atomically ("-" = stdout). */
int ppt_rdhist_save(const ppt_rdhist *h, const char *path, int json, ppt_err *err);

/* ---------------------------------------------------------------- analysis */

typedef enum ppt_reuse_mode {
  PPT_REUSE_EXACT = 0,
  PPT_REUSE_SAMPLED = 1,
  PPT_REUSE_APPROX = 2,
} ppt_reuse_mode;

typedef struct ppt_reuse_opts {
  unsigned line;       /* line size in bytes, a power of two; default 64 */
  ppt_reuse_mode mode; /* default PPT_REUSE_EXACT */
  double rate;         /* SAMPLED: fraction of block instances, in [1e-6, 1];
                          APPROX: fraction of lines, in (0, 1]; default 0.01 */
  unsigned long seed;  /* SAMPLED: gsl_rng (mt19937) seed; APPROX: hash salt */
  size_t piece;        /* parallel analysis: memory refs per piece; default 1<<20 */
} ppt_reuse_opts;

void ppt_reuse_opts_default(ppt_reuse_opts *o);

typedef struct ppt_reuse ppt_reuse;

/* One context analyses one reference stream (one thread of a trace: per-thread
 * histograms are one context per thread). Errors: PPT_EINPUT for bad options. */
int ppt_reuse_new(const ppt_reuse_opts *o, ppt_reuse **out, ppt_err *err);
void ppt_reuse_free(ppt_reuse *r);

/* Feeds the next batch of records of the stream, in order. Block records start a new
 * block instance; load and store records are analysed. PPT_ERUN on out of memory
 * (the context can then only be freed). */
int ppt_reuse_feed(ppt_reuse *r, const ppt_trace_rec *recs, size_t n, ppt_err *err);

/* Source of batches for the parallel analysis: same contract as
 * ppt_trace_cursor_next (0 with *n > 0: a batch; 0 with *n == 0: end; else error). */
typedef int (*ppt_reuse_next_fn)(void *arg, const ppt_trace_rec **recs, size_t *n, ppt_err *err);

/* Feeds the whole rest of a stream using `nthreads` threads: the stream is cut into
 * contiguous pieces of opts.piece references, analysed concurrently, and each piece's
 * first touches and last accesses are resolved against the global state in order
 * (HP-RDA §III-A/D in spirit, but exact: no probabilistic adjustment). The result is
 * identical to feeding the same records with ppt_reuse_feed. nthreads <= 1 feeds
 * sequentially. Works in every mode. The merge costs O(distinct lines per piece), so
 * this only pays when pieces revisit their lines; trace files should use
 * ppt_reuse_feed_chunks, whose pieces are as long as the stream allows. */
int ppt_reuse_feed_parallel(ppt_reuse *r, unsigned nthreads, ppt_reuse_next_fn next, void *arg, ppt_err *err);

/* A stream whose chunks decode independently (a trace file: ppt_trace_chunk_decode over
 * ppt_trace_thread_chunk(t, thread, 0..n-1)). */
typedef struct ppt_reuse_chunks {
  size_t n; /* chunks, in stream order */
  /* Records in chunk i, to balance the pieces (NULL: chunks count as equal). */
  uint64_t (*size)(void *arg, size_t i);
  /* Decodes chunk i for worker `slot` (0 .. nthreads-1). Called concurrently for
   * distinct slots; the records stay valid until the next call with the same slot. */
  int (*decode)(void *arg, unsigned slot, size_t i, const ppt_trace_rec **recs, size_t *n, ppt_err *err);
  void *arg;
} ppt_reuse_chunks;

/* Feeds a whole chunked stream using `nthreads` threads: the chunks are split into one
 * contiguous piece per thread, each decoded and analysed by its thread, then the pieces
 * are merged in order as in ppt_reuse_feed_parallel. Memory O(nthreads x distinct
 * lines), whatever the stream length; the speed-up approaches nthreads when references
 * outnumber distinct lines. Identical results to ppt_reuse_feed. SAMPLED mode (whose
 * window sampling follows the stream order) decodes and feeds sequentially. */
int ppt_reuse_feed_chunks(ppt_reuse *r, unsigned nthreads, const ppt_reuse_chunks *src, ppt_err *err);

/* Ends the stream: scales APPROX histograms, builds the whole-trace histogram. No feed
 * afterwards. The getters below need a finished context. */
int ppt_reuse_finish(ppt_reuse *r, ppt_err *err);

/* How SAMPLED per-block profiles are combined into a whole-trace profile
 * (SASMM Eq. 4 / AMM Eq. 2: P(D) = sum_i P(BB_i) P(D|BB_i)). */
typedef enum ppt_reuse_weighting {
  /* P(BB_i) = refs of BB_i / all refs: unbiased for the distribution of the trace's
   * references. The default, used by ppt_reuse_hist. */
  PPT_REUSE_WEIGHT_REFS = 0,
  /* P(BB_i) = instances of BB_i / all instances: SASMM Eq. 1 literally. Differs from the
   * above when blocks make different numbers of references per instance. */
  PPT_REUSE_WEIGHT_INSTANCES = 1,
} ppt_reuse_weighting;

/* Whole-stream histogram (owned by the context). EXACT: the exact counts. SAMPLED: the
 * PPT_REUSE_WEIGHT_REFS estimate, scaled to the stream's reference count. APPROX: the
 * scaled SHARDS histogram. NULL before finish. */
const ppt_rdhist *ppt_reuse_hist(const ppt_reuse *r);
/* SAMPLED estimate with a chosen weighting: a new histogram whose total is the stream's
 * reference count. Blocks without any sampled reference are left out and the weights
 * of the others renormalised (as SASMM, which skips blocks without windows). Other
 * modes: a copy of ppt_reuse_hist. */
int ppt_reuse_estimate(const ppt_reuse *r, ppt_reuse_weighting w, ppt_rdhist **out, ppt_err *err);
/* Per-block histogram (owned by the context), NULL if the block has none. EXACT: exact
 * counts (they sum to the whole histogram). SAMPLED: counts of the sampled references
 * only (normalise for P(D|BB)). APPROX: scaled by 1/rate (the SHARDS_adj correction
 * is applied to the whole histogram only). Block 0 holds references seen before any
 * block record. */
const ppt_rdhist *ppt_reuse_bb_hist(const ppt_reuse *r, uint32_t bb);
/* Largest block id seen (0 if none). */
uint32_t ppt_reuse_max_bb(const ppt_reuse *r);
uint64_t ppt_reuse_bb_instances(const ppt_reuse *r, uint32_t bb); /* block records */
uint64_t ppt_reuse_bb_refs(const ppt_reuse *r, uint32_t bb);      /* all its memory refs */
uint64_t ppt_reuse_bb_sampled(const ppt_reuse *r, uint32_t bb);   /* refs analysed */
uint64_t ppt_reuse_refs(const ppt_reuse *r);                      /* memory refs fed */
uint64_t ppt_reuse_sampled_refs(const ppt_reuse *r);              /* refs analysed */
/* Distinct lines analysed (APPROX: among the hashed-in lines, unscaled). */
uint64_t ppt_reuse_lines(const ppt_reuse *r);

/* Histograms of groups of blocks, e.g. per region: group_of_bb[bb] in [0, ngroups) for
 * bb < nbb (blocks >= nbb, or mapped to a group >= ngroups, are left out). out[g] gets a
 * new histogram per group, each block weighted as in ppt_reuse_hist (SAMPLED: scaled
 * by refs/sampled refs of the block). Serial/parallel regions: group = the block's
 * PPT_BB_PARALLEL flag. */
int ppt_reuse_group_hists(const ppt_reuse *r, const uint32_t *group_of_bb, size_t nbb, uint32_t ngroups,
                          ppt_rdhist **out, ppt_err *err);

#endif

/* ppt/sweep.h — the design-space engine: hit rates of every (core count, hierarchy) point
 * of a sweep from one sequential trace, one mimicking pass per core count
 * (docs/sweep.md).
 *
 * For each core count, SASMM mimics the cores once (ppt/sasmm.h) and the interleaved
 * stream feeds every hierarchy of the sweep together, the levels they share simulated
 * once (models/cache/sweepsim.h). Each point's counts are exactly those of
 * ppt_tracesim_sasmm (what `ppt sasmm --set ...` prints) at that point. Core counts run
 * as independent tasks on `threads` worker threads. */
#ifndef PPT_SWEEP_H
#define PPT_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "ppt/err.h"
#include "ppt/hwspec.h"
#include "ppt/sasmm.h"
#include "ppt/trace.h"
#include "ppt/tracesim.h"

typedef struct ppt_sweep_opts {
  ppt_sasmm_opts base;   /* schedule, split, interleave, seed, quantum; ncores unused */
  const uint32_t *cores; /* core counts, each >= 1 */
  size_t ncores;
  const unsigned char *counted; /* [nbbs + 1] blocks counted, or NULL (all) */
  uint32_t threads;             /* worker threads, >= 1 */
  uint32_t sample_sets;         /* 1 (or 0): exact; K > 1: set sampling (cache/sweepsim.h) */
  /* Set sampling: the references no sampled set sees are sieved out once, before any core
   * count is mimicked (docs/sweep.md, "The sieve"; same results). no_sieve: stream the
   * whole trace at every core count instead. sieve_max_bytes: the sieve's memory at
   * most (0: 512 MiB); a larger one is not made and the sweep streams. */
  int no_sieve;
  uint64_t sieve_max_bytes;
  /* Called after each core count with the number done; may be NULL. Serialised. */
  void (*progress)(uint64_t done, void *arg);
  void *progress_arg;
} ppt_sweep_opts;

/* Statistics of a sweep, for reports and benchmarks. */
typedef struct ppt_sweep_stats {
  size_t nodes;                       /* level simulations per core count, summed over core counts */
  size_t fallbacks;                   /* specs simulated whole (sweepsim.h says which) */
  int sieved;                         /* the sieve was used */
  uint64_t sieve_kept, sieve_records; /* its kept records, of the stream's records */
} ppt_sweep_stats;

/* Runs specs[0..nspecs) at every core count: out[c * nspecs + s] gets spec s at
 * o->cores[c] (as cache_sweepsim_result: levels in both units, refs, counted refs). Errors:
 * PPT_EINPUT for an invalid spec or a corrupt trace, PPT_ERUN when out of memory. */
int ppt_sweep_run(const ppt_trace *t, const ppt_hwspec *specs, size_t nspecs, const ppt_sweep_opts *o,
                  ppt_tracesim_result *out, ppt_sweep_stats *stats, ppt_err *err);

#endif

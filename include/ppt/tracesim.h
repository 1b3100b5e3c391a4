/* ppt/tracesim.h — the exact cache simulator (ppt/cachesim.h) driven by a trace: the
 * ground-truth hit rates of a traced run on a hwspec, what `ppt cachesim` prints.
 *
 *  - Thread t of the trace is the simulator's thread t: it gets its own instance of
 *    every private level, and shares the shared levels with the threads the hwspec's
 *    shared_by puts with it (thread t uses instance t / shared_by).
 *  - The threads' streams are interleaved reference by reference into the one stream
 *    the simulator sees (that order decides what the shared levels hold):
 *    round-robin (one reference of thread 0, one of thread 1, ...; a thread whose
 *    stream has ended drops out) or uniform random (each next reference comes from a
 *    thread drawn uniformly among those not yet finished, gsl_rng mt19937 seeded).
 *    This is SASMM's interleaving of per-core streams (§3.4).
 *  - Only loads and stores are simulated; block-entry and event records are skipped.
 *    Memory is bounded: one ppt_trace_cursor (one decoded chunk) per thread.
 *  - Counting filter: with function-name prefixes given, every reference is still
 *    simulated (other code's references shape the cache contents), but only references
 *    whose block's function starts with one of the prefixes are counted. Cachegrind
 *    attributes each access to the function of its instruction, so this is how its
 *    per-function figures are compared (e.g. prefix ".omp_outlined.").
 *  - Two units, both reported: line accesses (an access touching two lines counts
 *    twice, each line missing or hitting on its own: the simulator's and the reuse
 *    distances' unit), and references (Cachegrind's unit: one per load/store; it
 *    reaches level k if one of its lines missed every level above k, and misses at k
 *    if one of its lines missed every level up to k).
 *  - misses at level k = counted accesses missing at every level <= k, so the global
 *    hit rate of level k is 1 − misses_k / accesses_0 and the local one
 *    1 − misses_k / accesses_k (docs/design.md, "Global and local hit rates"). */
#ifndef PPT_TRACESIM_H
#define PPT_TRACESIM_H

#include <stddef.h>
#include <stdint.h>

#include "ppt/err.h"
#include "ppt/hwspec.h"
#include "ppt/trace.h"

typedef struct ppt_tracesim_opts {
  ppt_interleave interleave;
  uint64_t seed;           /* PPT_INTERLEAVE_UNIFORM: gsl_rng seed */
  const char *const *only; /* function-name prefixes to count; NULL: count all */
  size_t nonly;
  /* Called now and then with the number of references simulated so far; may be NULL. */
  void (*progress)(uint64_t done, void *arg);
  void *progress_arg;
  int coherence; /* write-invalidate coherence (ppt_cachesim_set_coherence); 0: none */
} ppt_tracesim_opts;

typedef struct ppt_tracesim_level {
  char name[16];
  uint64_t accesses, misses;               /* counted line accesses reaching / missing here */
  uint64_t ref_accesses, ref_misses;       /* the same in references (Cachegrind's unit) */
  double hit_rate, local_hit_rate;         /* global and local, in line accesses; NaN: 0/0 */
  double ref_hit_rate, ref_local_hit_rate; /* the same in references */
} ppt_tracesim_level;

typedef struct ppt_tracesim_result {
  uint32_t nlevels;
  uint32_t threads; /* threads of the trace */
  ppt_tracesim_level levels[PPT_HW_MAX_LEVELS];
  uint64_t refs;         /* references simulated (all of them) */
  uint64_t line_refs;    /* line accesses simulated at the first level */
  uint64_t counted_refs; /* references counted (= refs without a filter) */
  uint64_t counted_loads, counted_stores;
  /* Counted references by the level that served them (index nlevels: DRAM), and of
   * those beyond the first level, how many a stream prefetcher covered (models/cache/prefetch.h:
   * misses continuing a sequential stream within a 4 KiB page). */
  uint64_t served[PPT_HW_MAX_LEVELS + 1], prefetched[PPT_HW_MAX_LEVELS + 1];
  uint64_t served_stores[PPT_HW_MAX_LEVELS + 1]; /* of `served`, the stores */
  /* Dirty lines written back into level k (1..nlevels - 1; nlevels: DRAM) by evictions
   * that counted references caused (ppt_cachesim_writebacks: a store dirties its line in
   * the first level, an evicted dirty line goes to the first level below that holds it). */
  uint64_t writebacks[PPT_HW_MAX_LEVELS + 1];
  /* Of `served` beyond the first level, the references whose first-level miss queued on
   * one set behind the thread's earlier misses (models/cache/missq.h), and of those the stores. */
  uint64_t same_set[PPT_HW_MAX_LEVELS + 1], same_set_stores[PPT_HW_MAX_LEVELS + 1];
  /* Of `served` (every level, the first too), the loads that wait for loads, in
   * 1/PPT_TRACESIM_CHASE_UNIT of a reference: each load of a block adds its block's
   * chased share (ppt_trace_bb_chase) to chased, and that share over the chains of its
   * loop to chased_wait (ppt_tracesim_tally_chase; 0 without the table). */
  uint64_t chased[PPT_HW_MAX_LEVELS + 1], chased_wait[PPT_HW_MAX_LEVELS + 1];
  /* Of `served`, the cache-to-cache transfers (models/cache/owner.h): references that missed
   * every private level on a line another thread had stored last and still held. */
  uint64_t transfers[PPT_HW_MAX_LEVELS + 1];
  /* Data TLB (hwspec "tlb"; ntlb 0: the spec has none and nothing was simulated): each
   * thread's own TLB levels, LRU caches of pages, looked up once per reference with its
   * first byte. Counted references by the TLB level that held the translation (index
   * ntlb: none did, a page walk). */
  uint32_t ntlb;
  char tlb_names[PPT_HW_MAX_TLB][16];
  uint64_t tlb_served[PPT_HW_MAX_TLB + 1];
  /* Of the page walks (tlb_served[ntlb]), those to a page whose page-table line one of
   * the thread's last 16 other walks had read (a stream entering its next page): the
   * entry is then in the data caches. */
  uint64_t tlb_near;
} ppt_tracesim_result;

/* Simulates the whole trace on hw (validated: PPT_EINPUT on a bad spec) with opts (NULL:
 * round-robin, count everything). Errors: PPT_EINPUT for a corrupt chunk ("PATH:
 * problem") or bad options, PPT_ERUN when out of memory. */
int ppt_tracesim_run(const ppt_trace *t, const ppt_hwspec *hw, const ppt_tracesim_opts *opts,
                     ppt_tracesim_result *out, ppt_err *err);

/* The counting core of ppt_tracesim_run, for any producer of per-thread references (e.g.
 * SASMM's mimicked cores): references go through an exact simulation of hw with
 * `nthreads` threads; counted (NULL = all; else [nbbs + 1], nonzero = counted) selects
 * the blocks whose references are counted. `counted` must outlive the tally. `seed`
 * seeds the victim draws of random-replacement levels (ppt_cachesim_seed). When hw has
 * TLB levels, every reference is also looked up in its thread's TLB (result.tlb_*). */
typedef struct ppt_tracesim_tally ppt_tracesim_tally;
int ppt_tracesim_tally_new(const ppt_hwspec *hw, uint32_t nthreads, const unsigned char *counted,
                           uint32_t nbbs, uint64_t seed, ppt_tracesim_tally **out, ppt_err *err);
/* Loads and stores are simulated; block entries tell the prefetcher model which
 * instruction (site) the next references are (models/cache/prefetch.h); other records are
 * ignored. Returns the level that served a load or store (0 = first level, nlevels =
 * memory; for an access over two lines, the farther), -1 for any other record: callers
 * that attribute misses (ppt annotate) count them from it. */
int ppt_tracesim_tally_access(ppt_tracesim_tally *t, uint32_t thread, const ppt_trace_rec *rec);
/* Whether a prefetcher covered the last load or store ppt_tracesim_tally_access took
 * (its line was on its way: the level it returned served it, but its latency was hidden). */
int ppt_tracesim_tally_prefetched(const ppt_tracesim_tally *t);
/* The run's totals (`threads` goes to out->threads), whatever was taken. */
void ppt_tracesim_tally_result(const ppt_tracesim_tally *t, uint32_t threads, ppt_tracesim_result *out);
/* Takes thread `thread`'s counters since its last take (or since the start): out gets
 * every counted statistic of that thread alone (levels, served, prefetched, same_set,
 * transfers, tlb_served, counted refs/loads/stores; refs and line_refs of all its
 * references) with its rates, and the thread's counters restart from zero. The takes
 * over all threads plus what is left sum exactly to ppt_tracesim_tally_result, which
 * takes do not change. A thread out of range gives all zeros. Callers cut the run into
 * parts with it (the program model: per phase and core). */
void ppt_tracesim_tally_take(ppt_tracesim_tally *t, uint32_t thread, ppt_tracesim_result *out);
/* Splits every thread's counters into nslots slots by block: the references of block b
 * count in slot slot_of[b] (slot_of: nbbs + 1 entries, each < nslots; it must outlive
 * the tally). ppt_tracesim_tally_take_slot takes one slot of a thread alone (zeros out
 * of range); ppt_tracesim_tally_take still takes all of the thread's. The program model
 * keeps apart the misses of loops that run at a recurrence's pace (progmodel.c). Only
 * before the first access (PPT_EINPUT after it, or on a slot out of range; PPT_ERUN
 * when out of memory). */
int ppt_tracesim_tally_split(ppt_tracesim_tally *t, uint32_t nslots, const uint32_t *slot_of, ppt_err *err);
void ppt_tracesim_tally_take_slot(ppt_tracesim_tally *t, uint32_t thread, uint32_t slot,
                                  ppt_tracesim_result *out);
void ppt_tracesim_tally_free(ppt_tracesim_tally *t);
/* Write-invalidate coherence in the tally's simulation (ppt_cachesim_set_coherence). */
void ppt_tracesim_tally_coherence(ppt_tracesim_tally *t, int on);
/* The unit of ppt_tracesim_result.chased and chased_wait: a reference's 1/256. */
#define PPT_TRACESIM_CHASE_UNIT 256u
/* Counts the loads that wait for loads of the blocks of t's table (ppt_trace_bb.chase;
 * nothing for a trace without them); trace's blocks must be the ones the tally was made
 * for. Only before the first access; PPT_ERUN when out of memory. */
int ppt_tracesim_tally_chase(ppt_tracesim_tally *t, const ppt_trace *trace, ppt_err *err);

/* The alternative to SDCM for SASMM (ppt/sasmm.h): the mimicked cores' interleaved
 * stream goes through an exact simulation of hw (private levels per core, shared levels
 * shared), so set conflicts, which SDCM's random-placement assumption cannot see, are
 * counted. Rates are per reference (Cachegrind's unit). `counted` as in
 * ppt_sasmm_measure; stats (may be NULL) gets the mimic's statistics; o->coherence turns
 * on write-invalidate coherence. */
struct ppt_sasmm_opts;
struct ppt_sasmm_stats;
int ppt_tracesim_sasmm(const ppt_trace *t, const struct ppt_sasmm_opts *o, const ppt_hwspec *hw,
                       const uint8_t *counted, ppt_tracesim_result *out, struct ppt_sasmm_stats *stats,
                       ppt_err *err);

struct json_object;

/* {"levels": [{"name", "accesses", "misses", "hit_rate", "local_hit_rate"}, ...]} in line
 * accesses (ppt_cache_levels_json's shape), "ref_levels" the same in references, and
 * "threads", "refs", "line_refs", "counted_refs", "counted_loads", "counted_stores";
 * with a TLB, "tlb_levels" in the shape of "ref_levels" (lookups and misses per level).
 * NULL when out of memory. */
struct json_object *ppt_tracesim_json(const ppt_tracesim_result *r);

#endif

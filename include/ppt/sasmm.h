/* ppt/sasmm.h — SASMM: mimic N cores from one sequential trace (SASMM §3.1–3.2).
 *
 * The sequential trace (thread 0 of a `ppt trace` run) is cut into phases: serial code
 * (core 0), parallel-region code outside worksharing loops (every core runs a copy), and
 * worksharing-loop instances whose iterations are dealt to the cores as the OpenMP
 * schedule would (Algorithm 1, by iteration rather than the paper's per-block-instance
 * split, which stays available). A reference to the executing thread's own stack inside
 * a parallel region is private: core c > 0 sees it at addr | c << 52, which no user
 * address and no other core can alias. Each phase's per-core streams are then
 * interleaved reference by reference, round-robin or uniformly at random (Algorithm 2),
 * into the shared stream. Everything streams: memory is one phase's iteration map plus
 * one decoded chunk per core. */
#ifndef PPT_SASMM_H
#define PPT_SASMM_H

#include <stddef.h>
#include <stdint.h>

#include "ppt/err.h"
#include "ppt/trace.h"

enum ppt_sasmm_split { PPT_SPLIT_ITERATIONS = 0, PPT_SPLIT_INSTANCES = 1 };

/* Core c's private stack copy lives at addr | c << PPT_SASMM_CORE_SHIFT
 * (ppt_sasmm_private_addr): the 12 bits above a user-space address hold the core, so at
 * most PPT_SASMM_MAX_CORES cores can be mimicked (and --cores takes no more). */
#define PPT_SASMM_CORE_SHIFT 52
#define PPT_SASMM_MAX_CORES ((1u << (64 - PPT_SASMM_CORE_SHIFT)) - 1)

/* What the mimic's two passes over a trace learn before any dealing, the same for every
 * core count: each worksharing-loop instance and the block that starts its iterations,
 * and the sequence of phases with each loop instance's iteration boundaries (kept while
 * they number under 4M; beyond, each mimic walks the trace again). A sweep over core
 * counts computes it once (ppt_sasmm_plan_new) and hands it to every mimic. */
typedef struct ppt_sasmm_plan ppt_sasmm_plan;
int ppt_sasmm_plan_new(const ppt_trace *t, ppt_sasmm_plan **out, ppt_err *err);
void ppt_sasmm_plan_free(ppt_sasmm_plan *p);

/* A sampled sweep's sieved stream (models/sasmm/sieve.h), made once for every core count. */
typedef struct ppt_sieve ppt_sieve;

typedef struct ppt_sasmm_opts {
  uint32_t ncores; /* mimicked cores, >= 1 */
  int split;       /* ppt_sasmm_split */
  int sched;       /* -1: the schedule each loop recorded; else a ppt_sched for all loops */
  int64_t chunk;   /* chunk for an overriding schedule (0 = OpenMP's default) */
  ppt_interleave interleave;
  uint64_t seed;              /* PPT_INTERLEAVE_UNIFORM interleaving; victims of random-replacement levels */
  uint64_t quantum;           /* interleaving turn: 0/1 = one reference (Algorithm 2); Q > 1 =
                                 Q block instances, a coarse time slice like Valgrind's */
  int private_only;           /* skip building the shared stream */
  int shared_only;            /* ppt_sasmm_measure: measure the CRD only (prd stays NULL) */
  int keep_blocks;            /* ppt_sasmm_measure: also keep each block's histograms (prd_bb,
                                 crd_bb), for models that work per block (ppt/extrap.h) */
  int coherence;              /* ppt_progmodel: write-invalidate coherence in the simulation
                                 (a core's store drops the line from the other cores' caches) */
  const ppt_sasmm_plan *plan; /* the trace's plan (ppt_sasmm_plan_new), or NULL: the mimic
                                 makes its own (one more pass over the trace) */
  uint32_t crd_group;         /* ppt_sasmm_measure: cores that share one instance of the shared
                                 level (a spec's shared_by; ppt_sdcm_crd_group): the CRD is each
                                 group's interleaved stream's, summed; 0: all cores share one */
  const ppt_sieve *sieve;     /* stream the sieve's kept records instead of the trace (made from
                                 this trace and plan); the dropped references reach the sink's
                                 `dropped`. Used with the plan's steps, the iteration split and
                                 round-robin turns of one reference; otherwise ignored. */
  /* Called now and then with the records handed to the sink so far (the shared stream's,
   * or the private streams' for a sink without one): a progress bar's pace; NULL: none. */
  void (*progress)(uint64_t done, void *arg);
  void *progress_arg;
} ppt_sasmm_opts;

void ppt_sasmm_opts_default(ppt_sasmm_opts *o);

/* A list of core counts as the commands take it ("1,2,4,8"): up to max of them, each in
 * 1..PPT_SASMM_MAX_CORES, into v[0..*n). 0, or -1 (empty, a trailing comma, a count
 * out of range, more than max). */
int ppt_sasmm_cores_parse(const char *s, uint32_t *v, size_t max, size_t *n);

/* Receives the mimicked streams in batches. Block-entry records are passed along so
 * per-block analyses work; event records are not. `cores[i]` is the core of shared[i]. */
typedef struct ppt_sasmm_sink {
  void (*priv)(void *arg, uint32_t core, const ppt_trace_rec *recs, size_t n);
  void (*shared)(void *arg, const ppt_trace_rec *recs, const uint32_t *cores, size_t n);
  /* After each phase, once all its records were delivered: PPT_REGION_SERIAL for serial
   * code (core 0 alone); for parallel code PPT_REGION_FORK when the phase is the first
   * of its parallel region (the threads fork), PPT_REGION_BARRIER when it follows an
   * earlier phase of the same region (a worksharing loop ends at a barrier). */
  void (*phase_end)(void *arg, ppt_region_kind kind);
  /* With a sieve, once at the end: per core, the references that were dropped from its
   * stream and the counted loads and stores among them. */
  void (*dropped)(void *arg, uint32_t core, uint64_t refs, uint64_t loads, uint64_t stores);
  void *arg;
} ppt_sasmm_sink;

/* Statistics of one mimicking run. */
typedef struct ppt_sasmm_stats {
  uint64_t phases, serial_phases, replicated_phases, loop_phases;
  uint64_t loops_without_marker; /* loops split by reference count (no iteration block found) */
  uint64_t iterations;
  /* parallel phases of regions that divide their work by thread number, dealt to the
   * cores in contiguous shares (docs/sasmm.md, "Hand-split regions") */
  uint64_t divided_phases;
} ppt_sasmm_stats;

int ppt_sasmm_mimic(const ppt_trace *t, const ppt_sasmm_opts *o, const ppt_sasmm_sink *sink,
                    ppt_sasmm_stats *stats, ppt_err *err);

/* OpenMP's distribution of iterations 0..trip-1 over ncores as libomp 14 runs it (sched
 * is a ppt_sched, PPT_SCHED_NONMONOTONIC flag included): writes core_of[i] for each
 * iteration. Where libomp depends on timing (dynamic, guided, static_steal) every core
 * starts together and each runs at the speed work[] gives (work[i] = references of
 * iteration i; NULL = equal work): the next chunk goes to the core that has done the
 * least work so far. */
void ppt_sasmm_schedule(int sched, int64_t chunk, uint64_t trip, uint32_t ncores, const uint64_t *work,
                        uint32_t *core_of);

/* ---- profiles and hit rates (SASMM §3.3-3.6) ---- */
struct ppt_rdhist;
struct ppt_reuse_opts;

/* PRD of every mimicked core and CRD of the interleaved stream for one core count. */
typedef struct ppt_sasmm_profiles {
  uint32_t ncores;
  struct ppt_rdhist **prd;    /* [ncores] */
  struct ppt_rdhist *prd_all; /* sum over cores (SDCM of it = refs-weighted mean of the cores') */
  struct ppt_rdhist *crd;     /* NULL when opts.private_only */
  ppt_sasmm_stats stats;
  /* With opts.keep_blocks: per block b < nblocks (= nbbs + 1; block 0 holds references
   * before the first block entry), the cores' summed PRD and the CRD of b's references,
   * of every block whatever `counted` says; NULL where b has no reference. */
  uint32_t nblocks;
  struct ppt_rdhist **prd_bb, **crd_bb;
} ppt_sasmm_profiles;

/* Mimics and measures reuse (exact or sampled, per ropts). When counted != NULL, only
 * references of blocks b with counted[b] != 0 (b < nbbs + 1) enter the histograms, but
 * every reference still shapes the distances: how Cachegrind is compared over the
 * kernel functions only. */
int ppt_sasmm_measure(const ppt_trace *t, const ppt_sasmm_opts *o, const struct ppt_reuse_opts *ropts,
                      const uint8_t *counted, ppt_sasmm_profiles *out, ppt_err *err);
void ppt_sasmm_profiles_free(ppt_sasmm_profiles *p);

/* Their hit rates are the cache models': ppt_sdcm_sasmm_hitrates (ppt/sdcm.h) and, by
 * exact simulation of the mimicked stream, ppt_tracesim_sasmm (ppt/tracesim.h). */

/* Stack privatisation of SASMM §3.1 (see above). */
static inline uint64_t ppt_sasmm_private_addr(uint64_t addr, uint32_t core) {
  return core ? addr | ((uint64_t)core << PPT_SASMM_CORE_SHIFT) : addr;
}

#endif

/* ppt/progmodel.h — the program model PPT simulates, built from one sequential trace.
 *
 * The trace is mimicked on N cores (ppt/sasmm.h). Every phase becomes a region of the
 * program: serial code a serial region on core 0, parallel code a fork-join region with
 * one tasklist per core. A core's tasklist carries the op mix of the blocks it executed
 * in that phase (block counts x the block table ppt-cc recorded) and its memory
 * accesses with the per-level local hit rates of the mimicked streams (exact LRU
 * simulation of the hwspec's hierarchy, private levels per core, shared levels shared),
 * so AMM Eq. 4-5 turns them into time when the engine runs the program (ppt/program.h).
 * The rates are per site and core (docs/design.md, "Regions"): a site is the phases of
 * one kind whose first counted block has one source position, and every phase of a
 * site gets, on each core, the rates that core's references of all the site's phases
 * met (a level none of them reached: the whole run's rate).
 * When the hwspec lists data-TLB levels, the same simulation runs each core's TLB, and
 * the tasklists carry the misses' cycles as a CPU item (docs/engine.md, "Data-TLB
 * misses"). */
#ifndef PPT_PROGMODEL_H
#define PPT_PROGMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "ppt/err.h"
#include "ppt/hwspec.h"
#include "ppt/program.h"
#include "ppt/sasmm.h"
#include "ppt/tasklist.h"
#include "ppt/trace.h"
#include "ppt/tracesim.h"

typedef struct ppt_progmodel ppt_progmodel;

/* Builds the model of `t` on o->ncores cores of hw. counted (NULL = all; else
 * [nbbs + 1]) restricts the model to the work of the blocks with counted[b] != 0 (e.g.
 * a program's kernel functions, to compare with a timer around the kernel); every
 * reference still passes through the caches. */
/* policy (NULL = default) is the core model the engine will use: its compute model
 * decides how much of a recurrence's latency the block's own issue time already
 * covers. The simulation itself does not depend on it. t, hw and counted must outlive m. */
int ppt_progmodel_build(const ppt_trace *t, const ppt_hwspec *hw, const ppt_sasmm_opts *o,
                        const ppt_tc_policy *policy, const uint8_t *counted, ppt_progmodel **out,
                        ppt_err *err);
/* Problem-size scaling (ppt/extrap.h, `ppt extrapolate`): the model of a larger input
 * from the trace of a smaller one. Block id b's instances count instances[b] times in
 * the tasklists (its ops, recurrences and mispredicted branches) and its references
 * refs[b] times (loads/stores, bytes, memory accesses); arrays of nbbs + 1 entries, NULL
 * for all 1 (then the model is ppt_progmodel_build's, bit for bit). The cache
 * simulation and the phases are the trace's; a site whose first block (the one that
 * opens its phases, once per phase) weighs R > 1 runs R times as many regions (an outer
 * loop of one parallel region per iteration: lu, durbin), its phases' work spread over
 * them, each region paying its fork-join. */
typedef struct ppt_progmodel_weights {
  const double *instances, *refs;
} ppt_progmodel_weights;
int ppt_progmodel_build_weighted(const ppt_trace *t, const ppt_hwspec *hw, const ppt_sasmm_opts *o,
                                 const ppt_tc_policy *policy, const uint8_t *counted,
                                 const ppt_progmodel_weights *w, ppt_progmodel **out, ppt_err *err);
/* Moves every site's and core's global miss ratio of level k (misses of level k per
 * counted reference) as the whole run's moves from from[k] to to[k] (each in [0, 1], as
 * some model gives them at the traced size and at another): scaled by to/from where from
 * >= 1e-3, else shifted by to - from, then kept between 0 and the level above's ratio.
 * The tasklists are remade (current policy). from or to NULL: back to the simulated
 * rates. The hit rates of ppt_progmodel_hitrates and the sites stay the simulated ones.
 * On failure m is left as it was. */
int ppt_progmodel_shift_misses(ppt_progmodel *m, const double *from, const double *to, ppt_err *err);
/* After ppt_progmodel_shift_misses: each site moves by its own blocks instead of the
 * run's ratio. traced[k][b] and target[k][b] (k < nlevels, b <= the trace's nbbs; NaN:
 * not known) are block b's global miss ratios of level k at the traced size and at the
 * target; a site's ratio moves as its blocks' do (weighted by its references in them,
 * the target's by the block weights of ppt_progmodel_build_weighted), and every site
 * then by the one factor that gives the run the ratio ppt_progmodel_shift_misses moved
 * it to. A site with no known block moves by the run's ratio. NULL: back to the run's.
 * PPT_EINPUT when the run's misses were not moved. */
int ppt_progmodel_shift_sites(ppt_progmodel *m, const double *const *traced, const double *const *target,
                              ppt_err *err);
/* For ppt_progmodel_shift_misses: of the accesses a site gains at the level serving k
 * (k = 1..nlevels; nlevels is memory; [0] unused), beyond the trace's, the share a
 * prefetcher covered (prefetched[k]) and the share that queued on one set (bunched[k],
 * "Misses queued on one set", docs/engine.md), where the caller knows them from the
 * walks at the target (`ppt extrapolate`); NaN, or the array NULL: the trace's shares
 * over the site's first-level misses. Values outside [0, 1]: PPT_EINPUT. Remakes the
 * tasklists; on failure m is left as it was. */
int ppt_progmodel_shift_gains(ppt_progmodel *m, const double *prefetched, const double *bunched,
                              ppt_err *err);
/* The same for the data-TLB levels of the spec (ntlb of ppt_progmodel_hitrates): level
 * k's global miss ratio is the share of counted references whose translation missed TLB
 * levels 0..k; the TLB cycles of every site and core follow. Nothing to do without TLB
 * levels. */
int ppt_progmodel_shift_tlb(ppt_progmodel *m, const double *from, const double *to, ppt_err *err);
/* Remakes the tasklists and the program for another core model (NULL = default) from
 * the same simulation, much cheaper than a new build and bit-identical to a build with
 * that policy. Programs and tasklists obtained before are freed. On failure m is left
 * as it was. */
int ppt_progmodel_set_policy(ppt_progmodel *m, const ppt_tc_policy *policy, ppt_err *err);
/* Makes m a model of the same trace on hw, a spec that differs from the one m was built
 * on only in timing figures that neither the cache simulation nor the build reads
 * (clock, cache and DRAM latencies and bandwidths, mlp, fork-join, branch_miss_cycles,
 * call_cycles, contention_factor; models/progmodel/respec.c lists what the build reads):
 * the tasklists are remade on hw, bit-identical to a new build on it, at the cost of a
 * remake. hw must outlive m (or the next call). PPT_EINPUT when hw differs in anything
 * else (geometry, op figures, FP window, coherence_cycles, TLB figures): build a new
 * model then. On failure m is left as it was. */
int ppt_progmodel_set_hwspec(ppt_progmodel *m, const ppt_hwspec *hw, ppt_err *err);
void ppt_progmodel_free(ppt_progmodel *m);

/* The program for the engine (valid while m lives). */
const ppt_program *ppt_progmodel_program(const ppt_progmodel *m);
/* Hit rates of the mimicked streams (per level, in references). */
const ppt_tracesim_result *ppt_progmodel_hitrates(const ppt_progmodel *m);
/* What the mimic did building m (ppt/sasmm.h: phases, regions split by thread number
 * and divided among the cores, ...); zero for a model not built from a trace. */
const ppt_sasmm_stats *ppt_progmodel_mimic_stats(const ppt_progmodel *m);
/* Phases kept = regions of the program: region i of ppt_progmodel_program (and of the
 * engine's result) is phase i. */
size_t ppt_progmodel_nregions(const ppt_progmodel *m);

/* ---- sites (docs/design.md, "Regions") ---- */

#define PPT_PROGMODEL_ALL_CORES UINT32_MAX

typedef struct ppt_progmodel_site_info {
  /* where the site's references mostly are: the block that holds most of them, else its
   * first block ("" unknown; the function: the innermost one its code was inlined from,
   * if any); valid while the trace is open */
  const char *function, *file;
  uint32_t line;               /* 0: unknown */
  uint32_t bb;                 /* the block (0: the phase entered no counted block) */
  int parallel;                /* 0: serial code */
  uint64_t instances;          /* phases of the site */
  uint32_t nlevels;
  /* In counted references, over the site's phases, on the core asked for or summed over
   * all: reaching level k, missing every level up to k; hit_rate is global (1 −
   * misses / accesses[0]), local_hit_rate 1 − misses / accesses (NaN: 0/0). */
  uint64_t accesses[PPT_HW_MAX_LEVELS], misses[PPT_HW_MAX_LEVELS];
  double hit_rate[PPT_HW_MAX_LEVELS], local_hit_rate[PPT_HW_MAX_LEVELS];
  uint64_t counted_refs;
  /* One core only: the local hit rates its tasklists use (the run's where it had none),
   * and per level k = 1..nlevels that serves an access (nlevels: memory) the shares of
   * those accesses a prefetcher covered and that queued on one set. */
  double used_local[PPT_HW_MAX_LEVELS];
  double used_prefetched[PPT_HW_MAX_LEVELS + 1], used_same_set[PPT_HW_MAX_LEVELS + 1];
} ppt_progmodel_site_info;

size_t ppt_progmodel_nsites(const ppt_progmodel *m);
/* Site i on core `core` (PPT_PROGMODEL_ALL_CORES: summed over the cores); 0, or
 * PPT_EINPUT when i or core is out of range. */
int ppt_progmodel_site(const ppt_progmodel *m, size_t i, uint32_t core, ppt_progmodel_site_info *out);
/* The site of phase (= program region) `phase`; UINT32_MAX when out of range. */
uint32_t ppt_progmodel_phase_site(const ppt_progmodel *m, size_t phase);

#endif

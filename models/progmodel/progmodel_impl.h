/* models/progmodel/progmodel_impl.h — the program model's insides, shared by
 * progmodel.c (the build, the shares, the tasklists) and shift.c (problem-size scaling:
 * moved miss ratios, ppt_progmodel_shift_misses and _shift_tlb). Not installed. */
#ifndef PPT_PROGMODEL_IMPL_H
#define PPT_PROGMODEL_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "common/u64map.h"
#include "ppt/progmodel.h"
#include "progmodel/bpred.h"
#include "progmodel/contend.h"

/* The compute models (ppt_compute_model) a block's recurrence extra is kept for. */
#define NCOMPUTE (PPT_COMPUTE_PORTS + 1)

/* Per phase and core: ops by hw class, references and bytes, calls into untraced code. */
typedef struct counts {
  double ops[PPT_HW_NOPCLASS];
  double refs, bytes, xcalls;
  /* cycles by which recurrences outlast their blocks' throughput, per compute model
   * (ppt_compute_model): kept for both so that the simulation serves every policy */
  double chain_extra[NCOMPUTE];
  /* cycles by which the blocks' llvm-mca cycles outlast their ports and chains (the
   * ports model only; hwspec block_cycles) */
  double core_extra;
  /* Branches the predictor model got wrong (progmodel/bpred.h): [0] branches on data,
   * [1] self-looping blocks' (PPT_BPRED_LOOP_MISS, a loop's exit). */
  double mispredicts[2];
  /* Of mispredicts[0], those whose block's last load was served at level k >= 1 (k =
   * nlevels: memory), the load the branch waited for (bpred.h) */
  double miss_waits[PPT_HW_MAX_LEVELS + 1];
  /* Stores (off the thread's stack), and of them those into a line another core stored
   * into earlier in the same phase (progmodel/contend.h). */
  double stores, contended;
} counts;

/* A chain-bound loop's share of a phase on one core (docs/engine.md, "Chain-bound
 * loops"): the block in loop slot `slot` (ppt_progmodel.slot_of) ran `inst` times, made
 * `refs` counted references of `bytes` bytes in all and mispredicted its exit `exits`
 * times (of counts.mispredicts[1]; all weighted as counts are). */
typedef struct loop_seg {
  uint32_t core, slot;
  double inst, refs, bytes, exits;
} loop_seg;

typedef struct phase {
  ppt_region_kind kind;
  uint32_t site; /* index into ppt_progmodel.sites */
  counts *c;     /* [ncores] (serial phases: core 0 only is used) */
  loop_seg *seg; /* the chain-bound loops' shares, nseg of them, every core */
  uint32_t nseg;
} phase;

/* A site's counted statistics on one core, summed over the site's phases: the fields of
 * ppt_tracesim_result the tasklists need, in references, from ppt_tracesim_tally_take. */
typedef struct site_counts {
  uint64_t racc[PPT_HW_MAX_LEVELS], rmiss[PPT_HW_MAX_LEVELS];
  uint64_t served[PPT_HW_MAX_LEVELS + 1], served_stores[PPT_HW_MAX_LEVELS + 1];
  uint64_t writebacks[PPT_HW_MAX_LEVELS + 1];
  uint64_t prefetched[PPT_HW_MAX_LEVELS + 1], transfers[PPT_HW_MAX_LEVELS + 1];
  uint64_t same_set[PPT_HW_MAX_LEVELS + 1], same_set_stores[PPT_HW_MAX_LEVELS + 1];
  uint64_t chased[PPT_HW_MAX_LEVELS + 1], chased_wait[PPT_HW_MAX_LEVELS + 1]; /* 1/PPT_TRACESIM_CHASE_UNIT */
  uint64_t tlb_served[PPT_HW_MAX_TLB + 1];
  uint64_t tlb_near; /* of the page walks, those whose page-table line was cached */
  uint64_t counted_refs;
} site_counts;

/* What a tasklist's memory item and TLB cycles are made of (make_tasklist). */
typedef struct shares {
  double local[PPT_HW_MAX_LEVELS], prefetched[PPT_HW_MAX_LEVELS + 1], writeback[PPT_HW_MAX_LEVELS + 1];
  double same_set_loads[PPT_HW_MAX_LEVELS + 1], same_set_stores[PPT_HW_MAX_LEVELS + 1];
  double transfers[PPT_HW_MAX_LEVELS + 1];
  double chased[PPT_HW_MAX_LEVELS + 1], chased_wait[PPT_HW_MAX_LEVELS + 1]; /* ppt_mem_access's */
  double tlb_cycles; /* mean data-TLB miss cycles per reference (0: the spec has no TLB) */
} shares;

/* A chain-bound loop's counters on one core at one site, and its shares from them. */
typedef struct loop_counts {
  site_counts c;
  shares sh;
} loop_counts;

/* A site (docs/design.md, "Regions"): the phases of one kind (serial or parallel) whose
 * first counted block has one source position (function, file, line). Repeated phases
 * of a site, the time steps of one loop, pool their counters per core, so memory grows
 * with the sites and the cores, not with the phases: a program of 10^5 phases on 16
 * cores keeps one site_counts per site and core, and each phase only its op counts. */
typedef struct site {
  int parallel;
  uint32_t bb;        /* the first counted block of the site's first phase (0: none) */
  uint64_t instances; /* phases */
  site_counts *c;     /* [ncores] */
  u64map blocks;      /* block id -> the site's counted references in it, every core (val.d) */
  u64map loops;       /* core * nloops + loop slot -> index into ppt_progmodel.lc (val.u) */
  /* Its global miss ratio of each level at the target, over its cores (shift.sites_on;
   * NaN: the run's move) */
  double target[PPT_HW_MAX_LEVELS];
} site;

/* Miss ratios moved for problem-size scaling: every site's global miss ratio of cache
 * level k (of TLB level k) moves as the run's does, from from[k] to to[k]. */
typedef struct shift {
  int on, tlb_on, gains_on;
  int sites_on; /* sites move to their own site.target (ppt_progmodel_shift_sites) */
  double from[PPT_HW_MAX_LEVELS], to[PPT_HW_MAX_LEVELS];
  double tlb_from[PPT_HW_MAX_TLB], tlb_to[PPT_HW_MAX_TLB];
  /* [k], k = 1..nlevels (the level that serves, nlevels: memory): the shares of the
   * accesses served there beyond the trace's that a prefetcher covered and that queued
   * on one set (NaN: the trace's shares over its first-level misses; read when
   * gains_on; ppt_progmodel_shift_gains) */
  double gain_prefetched[PPT_HW_MAX_LEVELS + 1], gain_bunched[PPT_HW_MAX_LEVELS + 1];
} shift;

/* What problem-size scaling does to the shares derived from a site's counters, as hooks
 * the base model calls where set (NULL: the counters' own shares): shift.c sets them with
 * every shift it applies, so the base model needs nothing of the scaling built on it.
 * site: counters c's local rates, shares and write-backs in o moved (c->racc[0] > 0;
 * pool: the same site summed over its cores, c itself for the run; s NULL for the run);
 * tlb: the shares share[0..ntlb] of the references whose translation TLB level k held
 * (ntlb: a page walk) moved. */
typedef struct progmodel_hooks {
  void (*site)(const ppt_progmodel *m, const site *s, const site_counts *c, const site_counts *pool,
               shares *o);
  void (*tlb)(const ppt_progmodel *m, double *share);
} progmodel_hooks;

struct ppt_progmodel {
  uint32_t ncores, nlevels;
  ppt_sasmm_stats mimic_stats; /* the mimic's account of the build (ppt_progmodel_mimic_stats) */
  phase *ph;
  size_t nph, cap;
  counts *cur; /* counters of the phase being streamed */
  const ppt_trace *t;
  const uint8_t *counted;
  ppt_tracesim_tally *tally;
  ppt_tracesim_result rates;
  ppt_tasklist **tl; /* all tasklists, nph * ncores (NULL where unused) */
  ppt_program *prog;
  double line, call_cycles;
  const ppt_hwspec *hw;
  int fork_pending;          /* a parallel region forked, and none of its phases was kept yet */
  double *extra[NCOMPUTE];   /* per compute model, per block id: recurrence latency beyond
                              * the block's throughput, cycles */
  double *core;              /* per block id: its llvm-mca cycles beyond its ports and
                              * chains (the ports model), cycles */
  /* Per block id: how many executions at the start of each entry into its loop run
   * under the last entry's recurrence (fresh_lead); 0 for most blocks. Per core: the
   * block of its current run of executions of one block, and the run's length. */
  uint32_t *lead, *run_bb;
  uint64_t *run_len;
  ppt_compute_model compute; /* the policy's compute model the tasklists were made for */
  ppt_tc_policy policy;      /* ... and the policy (ppt_progmodel_shift_misses remakes them) */
  /* What the tasklists are made of, from the simulation (ppt_progmodel_set_policy
   * remakes them): per site and core (sh[site * ncores + core]), and over the whole run
   * (all, the fallback of a site and core whose references never reached a level). */
  site *sites;
  size_t nsites, scap;
  int32_t *site_of; /* [2 * (nbbs + 1)]: site of (first block, parallel), -1: not yet */
  uint32_t *first;  /* [ncores]: first counted block of the phase being streamed, 0: none */
  shares *sh, all;
  /* The same per site and core without the chain-bound loops' references (rest[site *
   * ncores + core]): what the phase's other accesses are priced with when each such
   * loop's own are priced apart (ppt_tc_policy.loop_hide). */
  shares *rest;
  /* Chain-bound loops (docs/engine.md): blocks that loop to themselves at a recurrence's
   * pace get a loop slot 1..nloops-1 (slot_of[bb]; 0: every other block), and the cache
   * simulation keeps their references' counters apart (ppt_tracesim_tally_split).
   * loop_chain[slot] is the block's cycles per execution. */
  uint32_t nloops, *slot_of;
  double *loop_chain;
  loop_counts *lc; /* nlc of them, found through site.loops */
  size_t nlc, lccap;
  /* The current phase's loops per core: seg_acc[core * nloops + slot], and the slots
   * each core touched (seg_hit[core * nloops + i], seg_n[core] of them). */
  loop_seg *seg_acc;
  uint32_t *seg_hit, *seg_n;
  progmodel_bpred *bp;   /* each core's branch predictor, over its block sequence */
  progmodel_contend *ct; /* the last writer of each line in the phase (NULL on one core) */
  uint32_t line_bits;
  uint64_t pos;     /* references of the interleaved stream so far (contended lines' clock) */
  uint8_t *branchy; /* per block id: it ends in a branch (the predictor judges its exits) */
  /* Per block id, what an instance and a reference of the block count for (problem-size
   * scaling, ppt_progmodel_build_weighted; all 1 otherwise: 1.0 * x is x, so the
   * unweighted model is unchanged bit for bit). */
  double *w_inst, *w_refs;
  int weighted; /* built with weights: phases may stand for several regions (copies) */
  shift sh_now; /* the moved miss ratios (ppt_progmodel_shift_misses, _shift_tlb) */
  progmodel_hooks hooks; /* shift.c's, for sh_now */
  /* The current phase's counted references per block id, every core, and the ids it
   * touched (take_phase adds them to the phase's site). */
  double *phase_refs;
  uint32_t *touched;
  size_t ntouched;
  int failed;
};

/* The run-wide shares, then every site's on every core (into a new m->sh); -1 when out
 * of memory (progmodel.c). */
int progmodel_derive_all(ppt_progmodel *m);

/* The counters of a take into c (progmodel.c). */
void progmodel_add_take(site_counts *c, const ppt_tracesim_result *r);

/* A phase's chain-bound loops on one core, for its tasklist: the phase's loops (every
 * core's: those of `core` count), each one's counters (lc[i] for seg[i]; NULL: none
 * kept), the shares of the rest, and the scale of a copy (ppt_progmodel copies). */
typedef struct progmodel_loop_part {
  const loop_seg *seg;
  const loop_counts *const *lc;
  uint32_t nseg, core;
  const shares *rest;
  double scale;
} progmodel_loop_part;

/* Chain-bound loops (loops.c): the counters of loop slot `slot` on core `core` at site
 * st (new ones the first time; NULL when out of memory); the current phase's loop shares
 * into *out (NULL: dropped) with the accumulators back to zero (-1 when out of memory);
 * the memory items of counts c into tl (lp NULL: one item with sh). */
loop_counts *progmodel_loop_counts_for(ppt_progmodel *m, site *st, uint32_t core, uint32_t slot);
int progmodel_take_segs(ppt_progmodel *m, loop_seg **out, uint32_t *nout);
int progmodel_add_memory(const ppt_progmodel *m, ppt_tasklist *tl, const counts *c, const shares *sh,
                         const progmodel_loop_part *lp, ppt_err *err);

/* Core `core`'s share of chain-bound loop slot s in the current phase. */
static inline loop_seg *progmodel_seg_of(ppt_progmodel *m, uint32_t core, uint32_t s) {
  loop_seg *g = &m->seg_acc[(size_t)core * m->nloops + s];
  if (!g->slot) {
    *g = (loop_seg){.core = core, .slot = s};
    m->seg_hit[(size_t)core * m->nloops + m->seg_n[core]++] = s;
  }
  return g;
}

#endif

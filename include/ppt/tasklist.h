/* ppt/tasklist.h — PPT tasklists and the core model ppt_time_compute (docs/engine.md).
 *
 * A tasklist is PPT's unordered bag of work for one thread of one region: operation
 * counts by class, memory accesses described by per-level hit rates or reuse profiles,
 * direct per-level access counts, allocations. It is independent of any CPU; the
 * hardware enters only in ppt_time_compute, which turns it into cycles on one core of
 * a hwspec with nothing else running (the engine, ppt/engine.h, adds contention).
 *
 * Memory time follows AMM (WSC 2017) §3.3: Eq. 5 nests *local* hit rates over all
 * levels to an effective latency λ and reciprocal throughput β per access, and Eq. 4
 * turns them into T_mem = (λ + (b−1)β)/b × accesses. How compute and memory time
 * overlap is a policy (ppt_tc_policy). */
#ifndef PPT_TASKLIST_H
#define PPT_TASKLIST_H

#include <stddef.h>
#include <stdint.h>

#include "ppt/err.h"
#include "ppt/hwspec.h"

typedef struct ppt_tasklist ppt_tasklist;

/* One memory-access item: `accesses` loads+stores of `bytes_per_access` bytes (the
 * word, AMM's unit of total_mem), in contiguous runs of `block_bytes` (AMM's block
 * size b = block_bytes / bytes_per_access, >= 1). */
typedef struct ppt_mem_access {
  double accesses;
  double bytes_per_access;
  double block_bytes;
  /* MISS memory model only: per memory level (caches, then DRAM at nlevels), the
   * fraction in [0, 1] of the accesses served there that a hardware stream prefetcher
   * had already requested, so they pay the transfer and not the latency
   * (ppt_tracesim_result's prefetched counts). All 0 (the default): every one waits. */
  double prefetched[PPT_HW_MAX_LEVELS + 1];
  /* MISS memory model only: per memory level k >= 1 (DRAM at nlevels), the fraction of
   * all the item's accesses that later write a dirty line back into level k. A store
   * whose line came from level j dirties it in L1; the line goes back down the way it
   * came, written into every level 1..j as it is evicted from the one above (in the
   * steady state it is next found at j again). So writeback[k] is the share of stores
   * served at level k or beyond. Write-backs cost level k's bandwidth, not latency: the
   * core does not wait for them. All 0 (the default): no write-back traffic. */
  double writeback[PPT_HW_MAX_LEVELS + 1];
  /* MISS memory model only: per memory level k >= 1, the fraction of the accesses
   * served there whose first-level miss queued on one set behind the thread's earlier
   * misses (models/cache/missq.h), loads and stores apart (their sum <= 1): they wait out the
   * latency with hwspec mlp_same_set_load / _store misses in flight instead of mlp
   * (ppt_tracesim_result's same_set counts). All 0 (the default): none. */
  double same_set_loads[PPT_HW_MAX_LEVELS + 1];
  double same_set_stores[PPT_HW_MAX_LEVELS + 1];
  /* MISS memory model only: per memory level k >= 1, the fraction of the accesses served
   * there that were cache-to-cache transfers (a line another core held modified,
   * models/cache/owner.h). With hwspec coherence_cycles that is their latency instead of level
   * k's (misses in flight and prefetchers overlap them as any other); without it they
   * are priced like the rest. All 0 (the default): none. */
  double transfers[PPT_HW_MAX_LEVELS + 1];
  /* MISS and PIPE memory models: per memory level k (the first too), the fraction of the
   * accesses served there that are loads waiting for loads (a loop-carried chain through
   * memory, ppt_trace_bb.chase: pointer chasing, searches), and that fraction over the
   * chains in flight (chased_wait <= chased). Their latency overlaps only across
   * independent chains: each waits lat x chased_wait / chased per access instead of
   * lat / mlp, hits in the first level included (load to use). All 0 (the default): none. */
  double chased[PPT_HW_MAX_LEVELS + 1], chased_wait[PPT_HW_MAX_LEVELS + 1];
  /* Cycles of the loop-carried chain (recurrence) that the loop making these accesses
   * runs at (a part of the tasklist's compute): the loads of its later iterations issue
   * while the chain runs (their addresses do not wait for it), so the loop's chain and
   * its own memory time overlap each other by the policy's loop_fraction, and neither
   * overlaps the rest of the tasklist (ppt_tc_policy_cycles' `loop`). 0 (the default):
   * the item's memory overlaps compute by the policy's overlap alone. */
  double under_cycles;
  /* Of the tasklist's mispredicted loop exits (PPT_CPU_LOOP_EXIT), the cycles of this
   * loop's own: they overlap its misses first, not the rest's. */
  double under_exit_cycles;
} ppt_mem_access;

/* A reuse-distance histogram (distances in cache lines; see docs/design.md): count[i]
 * references at distance dist[i], plus inf_count first touches (distance ∞). The
 * tasklist copies the arrays. */
typedef struct ppt_rd_profile {
  const uint64_t *dist;
  const double *count;
  size_t n;
  double inf_count;
} ppt_rd_profile;

/* Memory levels in stats: 0..nlevels-1 are the hwspec's caches, nlevels is DRAM. */
#define PPT_TC_MAX_MEM (PPT_HW_MAX_LEVELS + 1)

/* Empty tasklist; NULL when out of memory. */
ppt_tasklist *ppt_tasklist_new(void);
void ppt_tasklist_free(ppt_tasklist *tl);
/* Deep copy; NULL when out of memory. */
ppt_tasklist *ppt_tasklist_clone(const ppt_tasklist *tl);
size_t ppt_tasklist_nitems(const ppt_tasklist *tl);

/* Adders return 0, or PPT_EINPUT for a negative/non-finite count, PPT_ERUN when out of
 * memory. Counts are doubles so averages over threads stay exact. */

/* n operations of a hwspec op class, at ops[cls].per_cycle. */
int ppt_tasklist_add_op(ppt_tasklist *tl, enum ppt_hw_opclass cls, double n, ppt_err *err);
/* PPT's iALU (integer ops: PPT_HW_IALU), fALU (FP add/mul: PPT_HW_FADD), fDIV. */
int ppt_tasklist_add_ialu(ppt_tasklist *tl, double n, ppt_err *err);
int ppt_tasklist_add_falu(ppt_tasklist *tl, double n, ppt_err *err);
int ppt_tasklist_add_fdiv(ppt_tasklist *tl, double n, ppt_err *err);
/* PPT's INTVEC / VECTOR: n vector ops of width_bits each (0: the core's own width). A
 * vector wider than hwspec.vector_bits issues ceil(width_bits / vector_bits) times;
 * each issue costs one integer (INTVEC) or FP-add (VECTOR) issue slot. */
int ppt_tasklist_add_intvec(ppt_tasklist *tl, double n, uint32_t width_bits, ppt_err *err);
int ppt_tasklist_add_vector(ppt_tasklist *tl, double n, uint32_t width_bits, ppt_err *err);
/* PPT's CPU item: n plain cycles. */
int ppt_tasklist_add_cycles(ppt_tasklist *tl, double n, ppt_err *err);

/* What a CPU item's cycles stand for, so that a prediction can say what its compute
 * time is made of (ppt_tc_stats.cpu_by, `ppt predict --json` "compute"). */
typedef enum ppt_tc_cpu {
  PPT_CPU_PLAIN = 0,     /* PPT's CPU item as given */
  PPT_CPU_CHAIN = 1,     /* a loop-carried dependence chain beyond what the ports need */
  PPT_CPU_CALLS = 2,     /* calls into untraced library code */
  PPT_CPU_BRANCH = 3,    /* mispredicted branches */
  PPT_CPU_TLB = 4,       /* data-TLB misses and page walks */
  PPT_CPU_LOOP_EXIT = 5, /* mispredicted exits of self-looping blocks: overlap memory waits */
  PPT_CPU_CORE = 6,      /* what the core's own model (llvm-mca, per block) needs beyond
                            the ports and the chains (hwspec block_cycles) */
} ppt_tc_cpu;
#define PPT_TC_NCPU 7
/* A CPU item of n cycles standing for `what` (ppt_tasklist_add_cycles: PPT_CPU_PLAIN). */
int ppt_tasklist_add_cycles_as(ppt_tasklist *tl, double n, ppt_tc_cpu what, ppt_err *err);

/* A contended line (docs/engine.md, "Contended lines"): `share` (0..1) of the core's
 * stores go to lines other cores store into at the same time, so that share of its work
 * runs by turns with theirs. Several items add up (at most 1). Time alone is unchanged
 * (ppt_tc_stats.contended_share reports it): the turns are the engine's, which shares
 * the line between the cores of a region. */
int ppt_tasklist_add_contended(ppt_tasklist *tl, double share, ppt_err *err);

/* PPT's HITRATES: a memory-access item with the LOCAL hit rate of every cache level
 * given (hits at level k / references reaching level k), nrates == hwspec nlevels
 * (checked by ppt_time_compute). Rates in [0, 1]. */
int ppt_tasklist_add_hitrates(ppt_tasklist *tl, const ppt_mem_access *m, size_t nrates,
                              const double *local_hit, ppt_err *err);
/* AMM's MEM_ACCESS: a memory-access item with reuse profiles. profiles[k] serves cache
 * level k (pass a PRD for private levels and a CRD for shared ones); when nprofiles is
 * smaller than the hierarchy, the last profile serves the remaining levels. Hit rates
 * come from the SDCM at time_compute (ppt/sdcm.h: global rates under inclusion, turned
 * into the local rates Eq. 5 needs). A distance of UINT64_MAX is ∞, like inf_count. */
int ppt_tasklist_add_mem_access(ppt_tasklist *tl, const ppt_mem_access *m, size_t nprofiles,
                                const ppt_rd_profile *profiles, ppt_err *err);
/* PPT's direct L1 / L2 / L3 / RAM items: n accesses served at memory level `level`
 * (0-based cache index; level == hwspec nlevels means DRAM), each costing that level's
 * latency (a block of one access in Eq. 4). */
int ppt_tasklist_add_level_accesses(ppt_tasklist *tl, uint32_t level, double n, ppt_err *err);
/* PPT's alloc / unalloc: alloc costs one DRAM latency; both track the footprint. */
int ppt_tasklist_add_alloc(ppt_tasklist *tl, double bytes, ppt_err *err);
int ppt_tasklist_add_unalloc(ppt_tasklist *tl, double bytes, ppt_err *err);

/* How compute time Tc and memory time Tm combine (docs/engine.md):
 *   T = Tc + Tm − f · min(Tc, Tm)
 * SUM (f = 0) is AMM §3.3 (T_pred = T_avg_mem + T_CPU_ops, no overlap); MAX (f = 1) is
 * perfect overlap; PARTIAL uses `fraction` in [0, 1]. STALL splits Tm into its two
 * terms: transfers (bytes / bandwidth, the bw_cycles) run beside compute, as a
 * prefetched stream does, while the latency the core waits out (latency_cycles, misses
 * nothing had asked for) stalls it: T = max(Tc, Tm_bw) + Tm_lat. */
typedef enum ppt_overlap {
  PPT_OVERLAP_SUM = 0,
  PPT_OVERLAP_MAX = 1,
  PPT_OVERLAP_PARTIAL = 2,
  PPT_OVERLAP_STALL = 3,
} ppt_overlap;

/* How op counts become compute cycles Tc:
 *   SUM   each class costs count / per_cycle and the classes add up (PPT's processor
 *         models: one op at a time);
 *   PORTS the classes issue on their own execution ports in parallel, so Tc is the
 *         busiest class's count / per_cycle (the throughput bound of an out-of-order
 *         core). CPU items (recurrence latency, calls) add to either. */
typedef enum ppt_compute_model {
  PPT_COMPUTE_SUM = 0,
  PPT_COMPUTE_PORTS = 1,
} ppt_compute_model;

/* How hit rates become memory cycles Tm:
 *   AMM   AMM §3.3 Eq. 4-5 as published: every access pays the effective latency λ and
 *         throughput β of the levels serving it, the latency once per block of b;
 *   MISS  an access served by L1 costs nothing beyond its load/store op; one served by
 *         level k >= 1 moves a line and costs max(latency_k / mlp, block_bytes /
 *         bandwidth_k) (Little's law: mlp misses in flight, or the bandwidth, whichever
 *         binds), the latency term left out where a prefetcher had asked for the line
 *         (ppt_mem_access.prefetched), and with mlp_same_set misses in flight instead
 *         of mlp for misses queued on one first-level set (ppt_mem_access.same_set_*);
 *         cache-to-cache transfers have hwspec coherence_cycles as their latency
 *         (ppt_mem_access.transfers).
 *         Hit rates are per line access already, so nothing is divided by b. The
 *         levels add up: each level's cost is max(its waits, its transfers).
 *   PIPE  MISS's waits and transfers, but the levels work at the same time: an item
 *         costs max(Σ_k waits_k, max_k transfers_k), the waits sharing one pool of
 *         misses in flight and each level moving lines over its own port (a stream from
 *         DRAM also moves its write-backs into L2 and L3 meanwhile). */
typedef enum ppt_memory_model {
  PPT_MEMORY_AMM = 0,
  PPT_MEMORY_MISS = 1,
  PPT_MEMORY_PIPE = 2,
} ppt_memory_model;

typedef struct ppt_tc_policy {
  ppt_overlap overlap;
  double fraction; /* PARTIAL only */
  ppt_compute_model compute;
  ppt_memory_model memory;
  /* The program model prices each chain-bound loop's accesses apart, with the loop's own
   * hit rates and shares, under the loop's chain (ppt_mem_access.under_cycles;
   * docs/engine.md, "Chain-bound loops"); 0: a region's accesses are one memory item
   * with the region's rates. */
  int loop_hide;
  /* How much of min(chain, its own memory) a chain-bound loop overlaps, in [0, 1]
   * (1: the loop takes max(chain, memory)). */
  double loop_fraction;
} ppt_tc_policy;

/* The default policy, chosen by validation/run runtime over overlap x compute x memory
 * models (validation/results/runtime-policies.csv, docs/engine.md). */
void ppt_tc_policy_default(ppt_tc_policy *p);
/* f of the policy (0 for SUM, 1 for MAX, fraction for PARTIAL; STALL: 1, which it
 * applies to the transfers only). */
double ppt_tc_policy_fraction(const ppt_tc_policy *p);
/* T of one core under policy p, from its compute cycles tc, of which `hide` can run
 * while the core waits for memory (ppt_tc_hide_cycles: a mispredicted loop exit
 * resolves on its induction variable, and the refill overlaps the misses already in
 * flight; interval analysis, Eyerman et al., TOCS 2009), its memory cycles tm and, of those,
 * the transfers. SUM: tc + tm (PPT's classic model, nothing overlaps). Otherwise memory
 * first covers `hide` (hidden = min(hide, tm)) and the rest overlaps the other compute
 * cycles by the policy's f: T = tc + tm − hidden − f·min(tc − hide, tm − hidden) (MAX:
 * max(tc, tm) still); STALL: max(tc, transfers) + the waits beyond `hide`. */
/* What the chain-bound loops of a tasklist take (ppt_tc_stats.loops): Σ chain cycles
 * and Σ mispredicted exits (of Tc; the exits of Tx too), Σ memory and transfer cycles
 * (of Tm), Σ overlap: per loop, its memory first covers its exits (hidden = min(exits,
 * memory)), then the rest overlaps the chain by loop_fraction: hidden + loop_fraction ·
 * min(chain, memory − hidden). Each loop takes chain + exits + memory − overlap, beside
 * the rest of the tasklist. */
typedef struct ppt_tc_loops {
  double chain, exits, memory, transfers, overlap;
} ppt_tc_loops;
double ppt_tc_policy_cycles(const ppt_tc_policy *p, double tc, double hide, double tm, double transfers);
/* T with chain-bound loops apart: each loop takes its chain + exits + memory − overlap
 * (loop may be NULL: none), and the rest of tc, hide and tm combine by
 * ppt_tc_policy_cycles. */
double ppt_tc_policy_loop_cycles(const ppt_tc_policy *p, double tc, double hide, double tm, double transfers,
                                 const ppt_tc_loops *loop);
/* Of a core's CPU cycles by kind (ppt_tc_stats.cpu_by), those its memory waits run
 * under: mispredicted loop exits (PPT_CPU_LOOP_EXIT), the `hide` above. */
double ppt_tc_hide_cycles(const double cpu_by[PPT_TC_NCPU]);
/* "sum", "max", "partial,F" or "stall" into p's overlap and fraction (the other fields are left
 * alone); 0 on success, -1 when s is none of them. And the overlap's name. */
int ppt_tc_overlap_parse(const char *s, ppt_tc_policy *p);
const char *ppt_tc_overlap_name(ppt_overlap o);
/* Names ("sum"/"ports", "amm"/"miss"/"pipe") and back (0 on success, -1 unknown). */
const char *ppt_tc_compute_name(ppt_compute_model m);
const char *ppt_tc_memory_name(ppt_memory_model m);
int ppt_tc_compute_parse(const char *s, ppt_compute_model *out);
int ppt_tc_memory_parse(const char *s, ppt_memory_model *out);
/* ppt_tc_policy's loops, loop_hide and loop_fraction, as a name: "plain" (no hiding) or
 * the fraction ("0.5"), into buf; and back (0 on success, -1 when s is neither; the
 * policy is left alone then). */
const char *ppt_tc_loops_name(const ppt_tc_policy *p, char *buf, size_t n);
int ppt_tc_loops_parse(const char *s, ppt_tc_policy *p);
/* Compute cycles of an op mix (counts per ppt_hw_opclass) under the policy's compute
 * model; classes the hwspec has no throughput for are left out. */
double ppt_tc_ops_cycles(const ppt_hwspec *hw, const ppt_tc_policy *p, const double ops[PPT_HW_NOPCLASS]);

/* Per memory level (caches, then DRAM at index nlevels). */
typedef struct ppt_tc_level_stats {
  double accesses;       /* accesses served here (hits at this level) */
  double latency_cycles; /* Eq. 4 latency term charged to this level */
  double bw_cycles;      /* Eq. 4 throughput term charged to this level (= bytes / bw) */
  double bytes;          /* bytes streamed at this level's bandwidth (the instance's) */
  double fill_bytes;     /* bytes as one core's cap (core bandwidth) counts them: the lines
                            its own misses bring in, plus its write-backs at their cost to
                            the core (DRAM: hwspec dram.core_writeback_cost; caches: none,
                            they leave through write buffers); may exceed bytes */
  double local_hit;      /* access-weighted mean local hit rate over memory items */
  double global_hit;     /* fraction of memory-item accesses served at levels <= this */
} ppt_tc_level_stats;

typedef struct ppt_tc_stats {
  double seconds;                                  /* cycles / clock_hz */
  double cycles;                                   /* T under the policy */
  double compute_cycles;                           /* Tc: every op item */
  double op_cycles[PPT_HW_NOPCLASS];               /* Tc split by op class (vector items included) */
  double intvec_cycles, vector_cycles, cpu_cycles; /* the INTVEC, VECTOR, CPU items */
  double cpu_by[PPT_TC_NCPU];                      /* cpu_cycles by what they stand for */
  /* Chain-bound loops (memory items with under_cycles, ppt_tc_policy_loop_cycles): their
   * chains and exits (of Tc), their memory cycles and transfers (of Tm), and the cycles
   * these overlap (ppt_tc_loops). */
  ppt_tc_loops loops;
  double memory_cycles;                            /* Tm: Σ levels (latency + bw) + alloc */
  /* Of Tm, the waits of loads that wait for loads (ppt_mem_access.chased) outside
   * chain-bound loops: the core's next step needs their value, so no compute overlaps them. */
  double chased_cycles;
  double transfer_cycles;                          /* of Tm, the transfers: Σ levels bw_cycles */
  double alloc_cycles;
  double overlap_cycles;  /* hidden by overlap: Tc + Tm − cycles (ppt_tc_policy_cycles) */
  double stall_cycles;    /* cycles − compute_cycles: the core waiting on memory */
  double mem_accesses;    /* accesses of memory items (HITRATES, MEM_ACCESS) */
  double lambda_avg;      /* access-weighted Eq. 5 effective latency, cycles/access */
  double beta_avg;        /* access-weighted effective reciprocal throughput, cycles/access */
  double footprint_peak;  /* bytes, from alloc / unalloc in item order */
  double contended_share; /* of the core's work, the share that takes turns on a line (0..1) */
  uint32_t nlevels;       /* cache levels; level[nlevels] is DRAM */
  ppt_tc_level_stats level[PPT_TC_MAX_MEM];
} ppt_tc_stats;

/* Time of tasklist `tl` on one core of `hw`, alone. policy NULL = default. Fills *out
 * (required). Errors (PPT_EINPUT): the hwspec lacks a figure the tasklist needs (clock,
 * an op throughput, a level latency/bandwidth, DRAM), or a HITRATES item's level count
 * differs from the hierarchy's. */
int ppt_time_compute(const ppt_hwspec *hw, const ppt_tasklist *tl, const ppt_tc_policy *policy,
                     ppt_tc_stats *out, ppt_err *err);

#endif

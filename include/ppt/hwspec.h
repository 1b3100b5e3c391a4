/* ppt/hwspec.h — a CPU described from its spec sheet (schema: docs/hwspec.md).
 *
 * A hwspec is plain data: the JSON file is parsed and validated strictly into this
 * struct (ppt_hwspec_load), and models read its fields directly. Levels are ordered
 * from the core outwards (L1 first); DRAM follows the last level. */
#ifndef PPT_HWSPEC_H
#define PPT_HWSPEC_H

#include <stddef.h>
#include <stdint.h>

#include "ppt/err.h"

#define PPT_HW_MAX_LEVELS 6
#define PPT_HW_MAX_TLB 4

typedef struct ppt_hw_level {
  char name[16];        /* "L1", "L2", ... */
  uint64_t size;        /* bytes */
  uint32_t assoc;       /* ways; assoc == size/line means fully associative */
  uint32_t line;        /* bytes, power of two */
  uint32_t shared_by;   /* cores sharing one instance: 1 = private */
  int inclusive;        /* 1: inclusive of the levels above it (evictions back-invalidate) */
  int replacement;      /* enum ppt_hw_replacement: which way of a full set a miss evicts */
  uint32_t victim_ways; /* random: a miss evicts one of this many least recent ways (0: any) */
  int hashed_sets;      /* 1: a line's set is a hash of its line number, not its low bits
                           (sliced last levels; random replacement implies it) */
  double latency_cycles;        /* load-to-use latency of a hit at this level (0: absent) */
  double bw_bytes_per_cycle;    /* sustained bandwidth of one instance, bytes/cycle (0: absent) */
  double core_bw_bytes_per_cycle; /* shared level: what one core alone gets of it (its own
                                     misses in flight cap it), bytes/cycle (0: the instance's) */
  uint64_t demand_size; /* bytes of the level an access no prefetcher covered finds its line
                           in: the most recent demand_size / size of each set's ways (0: all;
                           ppt_hwspec_demand_ways). A pointer chase and a stream see one
                           cloud guest's L3 as 3 and 10 MiB (docs/hwspec.md) */
} ppt_hw_level;

/* One level of the data TLB (docs/hwspec.md, "tlb"): a cache of page translations, so
 * the simulator models it as a cache whose lines are pages (LRU, one per core). A
 * reference that misses level j pays miss_cycles on top of its load: the translation
 * comes from level j+1, or from a page walk after the last level. */
typedef struct ppt_hw_tlb {
  char name[16];        /* "DTLB1", "STLB", ... */
  uint32_t entries;     /* translations held */
  uint32_t assoc;       /* ways; assoc == entries means fully associative */
  uint32_t page_bytes;  /* page size it translates, power of two >= 4096, one for all levels */
  double miss_cycles;   /* extra cycles of a miss here (0 allowed: a free level) */
  double in_flight;     /* misses here one core resolves at once (file key "in_flight",
                           1-64; 0 = unknown: one at a time): independent loads' walks
                           overlap, so each costs miss_cycles / in_flight */
} ppt_hw_tlb;

/* Replacement policy of a level. LRU is what the reuse-distance models (SDCM) assume and
 * what Cachegrind simulates. RANDOM evicts a uniformly drawn way (seeded): a cyclic sweep
 * larger than the level then still hits on part of it, as measured on hosts whose last
 * level is not LRU or is shared with other tenants (docs/hwspec.md, "replacement"). */
enum ppt_hw_replacement { PPT_HW_REPL_LRU = 0, PPT_HW_REPL_RANDOM = 1 };

/* "lru" / "random"; NULL for an unknown value. */
const char *ppt_hw_replacement_name(int replacement);

/* Op classes of the core (match PPT's tasklist items). FSQRT (FP square roots) runs on
 * the divider with FDIV: its ops take that port's cycles at their own rate, and a spec
 * without it prices them as divides (it is optional; docs/hwspec.md). */
enum ppt_hw_opclass {
  PPT_HW_IALU, PPT_HW_IDIV, PPT_HW_FADD, PPT_HW_FMUL, PPT_HW_FDIV, PPT_HW_BRANCH,
  PPT_HW_LOADST, PPT_HW_FSQRT, PPT_HW_NOPCLASS
};

typedef struct ppt_hw_op {
  double per_cycle;     /* sustained issue throughput, ops per cycle per core */
  double latency;       /* cycles */
} ppt_hw_op;

/* A calibrated spec of three cache levels cites about 30 figures (each level's size,
 * latency and bandwidths, DRAM, the ops, the core figures); room for twice that. */
#define PPT_HW_MAX_SOURCES 64
/* Cores whose speed a spec can give apart (hwspec core_speed). */
#define PPT_HW_MAX_SPEEDS 256

typedef struct ppt_hw_source {
  char key[64];         /* path of the cited field, e.g. "dram.latency_ns" */
  char text[256];       /* the citation */
} ppt_hw_source;

typedef struct ppt_hwspec {
  char name[128];
  /* What `ppt hwspec --list` sorts and shows a library of spec sheets by: the year the
   * part came out (0: not given) and its instruction set ("x86-64", "aarch64"; empty: not
   * given). The models read neither. */
  uint32_t year;
  char isa[16];
  double clock_hz;               /* 0 when the file has no clock_ghz (cache-only spec) */
  uint32_t cores;
  uint32_t vector_bits;          /* widest SIMD register, bits (128, 256, 512) */
  double call_cycles;            /* a call into an untraced library (libm exp, log, ...), cycles;
                                    0 = unknown (not charged) */
  double fork_join_cycles;       /* one OpenMP parallel region's fork + join barrier, cycles;
                                    0 = unknown (not charged) */
  double fork_join_serial_cycles; /* the same region when OpenMP runs it on one thread (the
                                    runtime still enters, sets up the loop, leaves); 0 =
                                    unknown (not charged) */
  double branch_miss_cycles;     /* a mispredicted conditional branch: pipeline flush and
                                    refill, cycles; the runtime model charges it per
                                    misprediction of a predictor simulated over each
                                    thread's block sequence; 0 = unknown (not charged) */
  /* Cycles from a store to a load of the same address that takes its data from the store
   * (store-to-load forwarding): a loop-carried recurrence through memory (`*p += x` on a
   * volatile or possibly aliased p) waits this long per trip besides its ops. 0 =
   * unknown: the load-to-use latency (ops.loadst.latency) stands in. Cores that rename
   * memory (Zen 3 to 5) forward an integer register's store at once, and an FP
   * register's only through the store queue: */
  double store_forward_cycles;
  /* the same for a value stored from and loaded into an FP register (`p[j] = f(p[j-1])`
   * on doubles: adi's row sweeps), which a recurrence with FP ops on it waits for
   * instead. 0 = unknown: store_forward_cycles (or the load latency) stands in. */
  double store_forward_fp_cycles;
  /* FP ops one core holds dispatched but not yet issued (its FP schedulers and the queue
   * before them): it bounds how many executions of a block with a long in-block chain of
   * dependent FP ops overlap (docs/engine.md "Chains inside a block"). 0 = unknown: no
   * bound. */
  double fp_window;
  /* The most executions of such a block a core works on at once, whatever the window
   * holds (short chains: a Zen 3 guest overlaps ~4.9 chains of 8 or 4 (fmul, fadd)
   * pairs while its window holds ~100 ops). 0 = unknown: no bound. */
  double fp_chains;
  /* 1: this spec describes the core the traced program was built on, so the cycles
   * ppt-cc recorded per block with llvm-mca's model of that core (ppt_trace_bb
   * core_cycles16) bound each core's compute (docs/engine.md "Block cycles"). 0 (the
   * default; a spec sheet, another machine): they are not used. Opt-in: on the Zen 5
   * validation host it makes the runtime MAPE worse (docs/engine.md "Block cycles"). */
  int block_cycles;
  /* How much longer the cores of a worksharing loop take, together, for iterations that
   * store into one cache line (each core its own word: false sharing, or a shared
   * counter) than one core takes for all of them alone: the line can be written by one
   * core at a time, so those iterations run by turns, and each turn also waits for the
   * line to move. Measured with two cores (ppt calibrate); the program model charges it
   * to the share of a core's stores that go to lines another core stored into in the
   * same phase (docs/engine.md "Contended lines"). 0 = unknown: not charged. */
  double contention_factor;
  double mlp;                    /* memory-level parallelism: cache misses one core keeps in
                                    flight (L1 miss / line-fill buffers); 0 = unknown, taken as 1 */
  /* Misses in flight when a thread's misses queue on one first-level set (a column walk
   * whose stride is a multiple of the set stride, e.g. 4 KiB rows on a 32 KiB 8-way L1):
   * file key "mlp_same_set": {"load": x, "store": y}. 0 = unknown: mlp applies. */
  double mlp_same_set_load, mlp_same_set_store;
  /* Cycles a core waits for a line another core holds modified (a cache-to-cache
   * transfer: false sharing, data written by one thread and read by another). Misses in
   * flight overlap transfers like any other miss (divided by mlp; docs/engine.md).
   * 0 = unknown: priced like a hit in the level serving them. */
  double coherence_cycles;
  /* Relative compute speed of core i (file key "core_speed": [1, 0.9, ...]): the time its
   * ops and CPU items take is divided by it. Core i runs thread i of a region, as
   * OMP_PROC_BIND=true places them; 1 is the core the op figures describe. Cores are not
   * always equal: hybrid CPUs, and virtual CPUs whose host cores are shared (the
   * validation guest's second CPU runs compute 8-15 % slower than its first). nspeeds = 0
   * or a core past the list: 1. */
  uint32_t nspeeds;
  double core_speed[PPT_HW_MAX_SPEEDS];
  /* Compute speed of the busy cores when k of them compute at once, relative to the same
   * cores computing alone (file key "busy_speed": [1, 0.98, ...], entry k - 1): cores
   * that share what the guest cannot see (a host core's SMT sibling, one power budget
   * whose clock drops as more cores run) slow each other, and a static schedule waits
   * for the slowest. The engine divides a thread's compute time by its core's core_speed
   * times this at the region's thread count. nbusy = 0: 1 at every count; a count past
   * the list: its last entry. */
  uint32_t nbusy;
  double busy_speed[PPT_HW_MAX_SPEEDS];
  uint32_t nlevels;
  ppt_hw_level levels[PPT_HW_MAX_LEVELS];
  uint32_t ntlb;                 /* data-TLB levels, 0: none given (no TLB is modelled) */
  ppt_hw_tlb tlb[PPT_HW_MAX_TLB]; /* from the core outwards, entries growing */
  double dram_latency_ns;        /* 0 when the file has no "dram" */
  double dram_bw_bytes_per_s;    /* whole socket; file gives GB/s (1e9 bytes/s) */
  double dram_core_bw_bytes_per_s; /* what one core alone can stream (its misses in flight
                                      bound it); 0: not given, the socket's figure */
  /* What one dirty line written back to DRAM costs, in line fills: of one core's own
   * DRAM bandwidth (file key dram.core_writeback_cost) and of the socket's
   * (dram.writeback_cost). A core's fills are bounded by its misses in flight, and its
   * write-backs may hold the same buffers or leave beside them; a socket may carry them
   * on the read path or on a write path of its own (AMD's CCD link: reads and writes on
   * separate lanes). ppt calibrate measures both from a triad (two arrays read, one
   * written) against the read stream. dram_wb_given bit 1: the core's cost given, bit 2:
   * the socket's; not given, 0 for the core and 1 for the socket
   * (ppt_hwspec_dram_wb_cost). */
  double dram_core_wb_cost, dram_wb_cost;
  unsigned dram_wb_given;
  ppt_hw_op ops[PPT_HW_NOPCLASS]; /* all 0 when the file has no "ops" */
  /* Provenance (optional in the file, empty when absent). `sources` cites a figure:
   * key is the field's path in the file ("levels[1].latency_cycles"), text the citation. */
  char source[256];              /* where the figures come from overall */
  /* ppt calibrate's notes reach ~1.5 KiB on a host whose L3 CPUID, the chase and the
   * stream disagree on. */
  char notes[4096];
  uint32_t nsources;
  ppt_hw_source sources[PPT_HW_MAX_SOURCES];
} ppt_hwspec;

/* Parses and validates a hwspec file: unknown keys, missing required keys, impossible
 * sizes, non-power-of-two line sizes or set counts, ... fail with PPT_EINPUT and
 * "PATH: problem". */
int ppt_hwspec_load(const char *path, ppt_hwspec *out, ppt_err *err);
/* Same from a JSON string; `name` is used in messages. */
int ppt_hwspec_parse(const char *json, const char *name, ppt_hwspec *out, ppt_err *err);
/* Serialises to JSON (malloc'd string, caller frees). */
char *ppt_hwspec_to_json(const ppt_hwspec *hw);
/* Number of sets of level k. */
uint64_t ppt_hwspec_sets(const ppt_hw_level *lv);
/* How many of a full set's least recent ways a miss of a random-replacement level draws
 * its victim from: victim_ways, or every way when the spec leaves it out. */
uint32_t ppt_hwspec_victim_ways(const ppt_hw_level *lv);
/* The most recent ways of a set in which an access no prefetcher covered finds its line
 * (demand_size over the size of one way, rounded, at least 1): every way without
 * demand_size. */
uint32_t ppt_hwspec_demand_ways(const ppt_hw_level *lv);

struct json_object;

/* Strict parse of an already-parsed JSON document (the caller keeps ownership of obj). */
int ppt_hwspec_from_json_object(struct json_object *obj, const char *name, ppt_hwspec *out,
                                ppt_err *err);
/* The spec as a new JSON object (caller puts it), or NULL when out of memory. Fields that
 * are 0 / empty (absent optional data) are left out, so to_json -> parse round-trips. */
struct json_object *ppt_hwspec_to_json_object(const ppt_hwspec *hw);
/* Semantic checks of a struct (what ppt_hwspec_parse runs after reading the fields), for
 * specs built or modified in code ("what if L2 were twice as big"). Optional data that is
 * 0 counts as absent. Errors: PPT_EINPUT, "NAME: levels[1].size: problem". */
int ppt_hwspec_validate(const ppt_hwspec *hw, const char *name, ppt_err *err);
/* Changes one setting, "KEY=VALUE" (docs/hwspec.md, "Settings"): KEY is a path into the
 * file format with a level's name first ("L2.size=256K", "L1.ways=4", "L3.shared_by=8",
 * "L2.latency_cycles=14", "DTLB1.entries=96", "dram.latency_ns=90", "clock_ghz=3.5");
 * "ways" is "assoc"; "line=128" sets every level's line. Integer keys take K, M, G (binary)
 * suffixes. The changed spec is parsed and validated as a file would be; on any error
 * (PPT_EINPUT, one line naming the setting) *hw is unchanged. */
int ppt_hwspec_set(ppt_hwspec *hw, const char *setting, ppt_err *err);
/* A timing figure of a spec (ppt_hwspec_timing_figures): its key as ppt_hwspec_set takes
 * it ("clock_ghz", "L2.latency_cycles", "dram.bandwidth_gbs", "ops.fadd.per_cycle") and
 * its value in the file's unit. */
typedef struct ppt_hw_figure {
  char key[64];
  double value;
} ppt_hw_figure;
/* The timing figures hw gives (not 0), in file order: clock, each level's latency and
 * bandwidths, DRAM, mlp, each op class's throughput and latency, the core figures
 * (fork-join, calls, branch misses, store forwarding, coherence, FP window), the TLB
 * levels' miss cycles. Writes at most max into out (NULL: none) and returns how many
 * there are. Cache geometry is not timing and is left out. */
size_t ppt_hwspec_timing_figures(const ppt_hwspec *hw, ppt_hw_figure *out, size_t max);
/* A setting's value: "256K", "1M", "1.5", "64"; binary suffixes (K, M, G, also KiB, MiB,
 * GiB) only when `integer`. 0 and *v, or -1. */
int ppt_hwspec_parse_number(const char *s, int integer, double *v);
/* Whether the spec carries everything the runtime model needs (clock, per-level latency
 * and bandwidth, DRAM latency and bandwidth, every op class's throughput). Cache-only
 * specs (hit-rate work) need none of it. 0 if complete, else PPT_EINPUT naming the first
 * missing field: "NAME: no timing data: levels[0].latency_cycles is missing". */
int ppt_hwspec_has_timing(const ppt_hwspec *hw, const char *name, ppt_err *err);
/* Instances of level lv serving `nthreads` threads, one thread per core:
 * ceil(nthreads / shared_by). Thread t uses instance t / shared_by. */
uint32_t ppt_hwspec_instances(const ppt_hw_level *lv, uint32_t nthreads);

/* Bandwidth in bytes/cycle of one instance of memory level k (k == nlevels: DRAM, the
 * socket's). Inline so that the core model need not link the hwspec module. */
static inline double ppt_hwspec_level_bw(const ppt_hwspec *hw, uint32_t k) {
  return k == hw->nlevels ? hw->dram_bw_bytes_per_s / hw->clock_hz : hw->levels[k].bw_bytes_per_cycle;
}
/* Load-to-use latency in cycles of a hit in memory level k (k == nlevels: DRAM's
 * latency_ns at the clock). */
static inline double ppt_hwspec_level_latency(const ppt_hwspec *hw, uint32_t k) {
  return k == hw->nlevels ? hw->dram_latency_ns * 1e-9 * hw->clock_hz : hw->levels[k].latency_cycles;
}
/* Bandwidth in bytes/cycle of memory level k as one core sees it: the instance's,
 * capped by what one core alone can draw when the spec says so. */
static inline double ppt_hwspec_core_bw(const ppt_hwspec *hw, uint32_t k) {
  double all = ppt_hwspec_level_bw(hw, k);
  double one = k == hw->nlevels ? hw->dram_core_bw_bytes_per_s / hw->clock_hz : hw->levels[k].core_bw_bytes_per_cycle;
  return one > 0 && one < all ? one : all;
}
/* What a line written back to DRAM costs in line fills of one core's DRAM bandwidth
 * (core != 0) or of the socket's (core == 0): the spec's figure, else 0 for the core (its
 * write buffers drain beside its fills) and 1 for the socket (every line crosses it). */
static inline double ppt_hwspec_dram_wb_cost(const ppt_hwspec *hw, int core) {
  if (core) return hw->dram_wb_given & 1u ? hw->dram_core_wb_cost : 0.0;
  return hw->dram_wb_given & 2u ? hw->dram_wb_cost : 1.0;
}
/* Relative compute speed of core `core` (hwspec.core_speed; 1 past the list). */
static inline double ppt_hwspec_core_speed(const ppt_hwspec *hw, uint32_t core) {
  return core < hw->nspeeds && hw->core_speed[core] > 0 ? hw->core_speed[core] : 1.0;
}
/* Compute speed of each busy core when `busy` cores compute at once (hwspec.busy_speed;
 * 1 without the list, the last entry past it). */
static inline double ppt_hwspec_busy_speed(const ppt_hwspec *hw, uint32_t busy) {
  if (hw->nbusy == 0 || busy == 0) return 1.0;
  uint32_t i = busy <= hw->nbusy ? busy - 1 : hw->nbusy - 1;
  return hw->busy_speed[i] > 0 ? hw->busy_speed[i] : 1.0;
}
/* JSON key of an op class ("ialu", ..., "loadst"); NULL when out of range. */
const char *ppt_hwspec_opclass_name(int opclass);
/* 1 when `isa` is an instruction set a spec may name (docs/hwspec.md, "isa"). */
int ppt_hwspec_isa_known(const char *isa);

#endif

/* ppt/calib.h — measure the host CPU and describe it as a hwspec (`ppt calibrate`).
 *
 * Cache geometry comes from CPUID (Intel leaf 4, AMD Fn8000_001D or its older leaves),
 * else Linux sysfs, and what neither sizes from a pointer-chase sweep; topology from
 * sysfs, else CPUID (docs/calibrate.md, "Where ppt calibrate gets the geometry"). The timing
 * figures are measured with small kernels:
 *   clock       a dependent chain of integer adds (one add per cycle on every core we
 *               know of), checked against /proc/cpuinfo "cpu MHz";
 *   latency     pointer chasing through a random cyclic permutation (seeded gsl_rng) of
 *               the lines of a buffer about half the size of each level, 8x the last
 *               level for DRAM, so hardware prefetchers cannot help;
 *   capacity    for a level that reads near DRAM at half its described size, the same chase
 *               over doubling sizes: the largest that reads closer to the level than to
 *               DRAM is the spec's size;
 *   bandwidth   streaming reads (a sum) over a buffer per level, with as many threads as
 *               cores share the level (the schema's figure is per instance) and all
 *               cores for DRAM; DRAM again with one thread alone (one core's misses in
 *               flight bound what it streams, often well under the socket's figure);
 *   same set    column walks over matrices whose rows are the first level's set
 *               stride (every line of a column in one L1 set), storing and loading: the
 *               last level's latency over ns per line is mlp_same_set;
 *   ops         independent chains (throughput) and one dependent chain (latency) of
 *               each op class, kept alive with empty asm barriers.
 *   branch miss a loop branching on random bytes against the same loop on the same
 *               bytes sorted: the difference over the mispredicted half of the branches.
 *   FP window   independent elements, each a long chain of dependent FP ops: how many
 *               chains overlap tells how many ops wait to issue.
 *   fork-join   empty OpenMP parallel-for regions on all CPUs and on one thread, timed
 *               by the ppt-ompcost probe in a process without SimGrid (see below).
 *   coherence   two threads pinned to two cores hand one cache line back and forth (an
 *               atomic counter each increments in turn): half a round trip is one
 *               cache-to-cache transfer.
 *   contention  a loop of a few integer ops an iteration, each storing into its thread's
 *               own word of one cache line, on those two cores against one core alone:
 *               how much longer false sharing makes it.
 * Timings are the best of many short trials (1-2 ms, shorter than a scheduler time
 * slice): other load on the machine only ever makes a kernel slower, so the minimum is
 * the least disturbed estimate. */
#ifndef PPT_CALIB_H
#define PPT_CALIB_H

#include <stdint.h>

#include "ppt/err.h"
#include "ppt/hwspec.h"

/* Sweeps of the retention stage (ppt_calib_result.ret_bytes): the level's size, then
 * half-octave steps up to 8 times it. */
#define PPT_CALIB_RET_POINTS 7

/* Loop shapes the false-sharing probe times (ppt_calib_result.contend_factors): 1 to 5
 * rounds of hashing an iteration. */
#define PPT_CALIB_CONTEND_SHAPES 5

/* Chain depths the FP window is timed at (ppt_calib_result.fpwin_depth). */
#define PPT_CALIB_FPWIN_N 3

/* Most working-set sizes timed when sweeping one level's effective capacity. */
#define PPT_CALIB_MAX_SWEEP 16
/* Most counts of busy cores timed (2, 4, ..., 256 and the package's count). */
#define PPT_CALIB_BUSY_MAX 9

/* Most working-set sizes timed when looking for levels no source describes (half
 * octaves from 4 KiB to 256 MiB and a few more). */
#define PPT_CALIB_MAX_DISCOVER 40

/* How the clock was obtained. */
enum ppt_calib_clock {
  PPT_CALIB_CLOCK_CHAIN = 0,   /* timed dependent-add chain (the default) */
  PPT_CALIB_CLOCK_CPUINFO = 1, /* /proc/cpuinfo "cpu MHz" (chain implausible or unoptimised build) */
};

typedef struct ppt_calib_config {
  uint64_t seed;         /* seeds the gsl_rng that shuffles the pointer-chase permutations */
  int quick;             /* short trials and smaller DRAM buffer: under ~5 s, for tests */
  const char *sysfs_dir; /* cache directory of cpu0; NULL: /sys/devices/system/cpu/cpu0/cache.
                          * Set (a fake tree, in tests): the geometry comes from it alone. */
  int geometry;          /* enum ppt_calib_geo_choice */
  uint32_t max_threads;  /* cap on bandwidth threads; 0: the online CPUs */
  int best;              /* 1: every figure the fastest trial (the machine at its best);
                          * 0 (default): the median trial, the machine as it usually runs */
  /* Told each stage as it begins (seconds 0, from the calling thread), and, from a
   * watchdog thread, every stall_s seconds a stage goes on (seconds: its time so far),
   * so that a stage stuck on a CPU the host does not run is named, not silent. NULL:
   * nothing is told and no thread is started. stall_s <= 0: 60 s. */
  void (*on_stage)(const char *stage, double seconds, void *arg);
  void *stage_arg;
  double stall_s;
} ppt_calib_config;

void ppt_calib_config_default(ppt_calib_config *cfg);

/* Where a cache level's geometry came from (ppt_calib_cache.source). */
enum ppt_calib_geo_source {
  PPT_CALIB_GEO_CPUID = 0,  /* CPUID's deterministic cache leaf: Intel leaf 4, AMD 0x8000001D */
  PPT_CALIB_GEO_LEGACY = 1, /* AMD's older leaves 0x80000005/6 (no sharing, no set count) */
  PPT_CALIB_GEO_SYSFS = 2,  /* Linux sysfs cpuN/cache/indexM (what the kernel read from CPUID) */
  PPT_CALIB_GEO_SWEEP = 3,  /* measured: a pointer-chase sweep over growing working sets */
};

/* Which source `ppt calibrate` takes the geometry from (ppt_calib_config.geometry). */
enum ppt_calib_geo_choice {
  PPT_CALIB_GEO_AUTO = 0, /* CPUID, else sysfs, else AMD's legacy leaves, then a sweep for the rest */
  PPT_CALIB_GEO_ONLY_CPUID = 1,
  PPT_CALIB_GEO_ONLY_SYSFS = 2,
  PPT_CALIB_GEO_ONLY_SWEEP = 3,
};

/* One data or unified cache level as its source describes it, before anything is
 * adjusted to the schema. */
typedef struct ppt_calib_cache {
  uint32_t level;            /* 1, 2, 3, ... */
  uint64_t size;             /* bytes; for a level still to be swept, 0 */
  uint32_t assoc;            /* ways (0: fully associative, read as size/line) */
  uint32_t line;             /* coherency line size */
  uint32_t shared_cpus;      /* logical CPUs sharing one instance (CPUID: the ID count, an upper bound) */
  char shared_cpu_list[128]; /* sysfs shared_cpu_list ("0-3,64-67"); empty when unknown or too long */
  int source;                /* enum ppt_calib_geo_source */
  /* PPT_CALIB_GEO_SWEEP: the most the level can hold (a legacy leaf's package-wide size;
   * 0: no bound). The sweep sets size and assumes the ways (assoc_assumed). */
  uint64_t size_bound;
  int assoc_assumed;
  char where[48]; /* the leaf and sub-leaf, or sysfs folder, it was read from */
} ppt_calib_cache;

typedef struct ppt_calib_caches {
  uint32_t nlevels; /* data/unified caches, by level, instruction caches left out */
  ppt_calib_cache levels[PPT_HW_MAX_LEVELS];
} ppt_calib_caches;

/* Reads the data and unified caches of one CPU from `dir` (a .../cpuN/cache folder with
 * indexN subfolders). Instruction caches are skipped. PPT_EINPUT when the folder has no
 * usable cache or a file is malformed: "DIR/index2/size: problem". */
int ppt_calib_read_sysfs(const char *dir, ppt_calib_caches *out, ppt_err *err);

/* Parses a Linux CPU list ("0-3,8,10-11") and returns how many CPUs it names, or 0 when
 * malformed. */
uint32_t ppt_calib_cpulist_count(const char *list);

/* Turns the geometry read (any source) into valid hwspec levels: SMT siblings folded into one core,
 * shared_by made to divide `cores` and to cover the level above, and a non-power-of-two
 * set count (sliced L3s hashed over a non-power-of-two number of slices) rounded to the
 * nearest power of two below with the capacity kept by raising the ways (or, when that
 * is not an integer, the size lowered). Each change is described in `notes` (appended,
 * truncated to fit). Returns the number of changes. */
int ppt_calib_geometry(const ppt_calib_caches *sys, uint32_t cores, uint32_t smt, ppt_hwspec *hw, char *notes,
                       size_t notes_size);

/* Everything measured, in the units of the measurement (the hwspec holds the same in
 * its own units). Index k < nlevels is cache level k; k == nlevels is DRAM. */
typedef struct ppt_calib_result {
  ppt_hwspec hw;             /* the spec written (validated) */
  ppt_calib_caches caches;   /* geometry as read (each level names its source) */
  uint32_t online_cpus, smt; /* sysconf and threads per core */
  uint32_t package_cpus;     /* logical CPUs of the package modelled */
  char topology_source[200]; /* where smt and package_cpus came from */
  /* The chase sweep for levels no source sized (calib_discover.c): discover_n points
   * (0: not run), and the levels it found after those the sources gave. */
  uint32_t discover_n;
  uint64_t discover_bytes[PPT_CALIB_MAX_DISCOVER];
  double discover_ns[PPT_CALIB_MAX_DISCOVER];
  int clock_method;                          /* enum ppt_calib_clock */
  /* The CPU the one-thread stages (clock, chases, call cost, ops) ran pinned to: the
   * first core of the package, the one a program's first thread gets under
   * OMP_PROC_BIND=true; -1 when the thread could not be pinned. */
  int home_cpu;
  double clock_chain_hz;                     /* from the add chain (0 when not measured) */
  double clock_cpuinfo_hz;                   /* from /proc/cpuinfo (0 when unavailable) */
  uint64_t lat_bytes[PPT_HW_MAX_LEVELS + 1]; /* pointer-chase working set (1/2 level) */
  double lat_ns[PPT_HW_MAX_LEVELS + 1];      /* load-to-use latency */
  /* Second working set just past the level above (a quarter of the level, kept within
   * 2-4x the level above), for levels over 4x the level above; 0 when not measured.
   * When half the level reads over twice as slow as this one, the level behaves smaller
   * than its source says (a virtual machine sharing the L3 with other tenants): `near`
   * is then set and the spec's latency of the level comes from this working set, with
   * a note. */
  uint64_t lat_near_bytes[PPT_HW_MAX_LEVELS];
  double lat_near_ns[PPT_HW_MAX_LEVELS];
  int near[PPT_HW_MAX_LEVELS];
  /* For a `near` level, the chase swept from lat_near_bytes (point 0, the figure above)
   * through doublings up to the level's size (the last point): sweep_n points. The
   * level's effective capacity eff_bytes (0 when not swept) is the largest of those read
   * at most midway between the near latency and DRAM's, rounded down to a power-of-two
   * set count; it is the spec's size of the level, and its bandwidth is streamed over
   * half of it (see calib_size.c). */
  uint32_t sweep_n[PPT_HW_MAX_LEVELS];
  uint64_t sweep_bytes[PPT_HW_MAX_LEVELS][PPT_CALIB_MAX_SWEEP];
  double sweep_ns[PPT_HW_MAX_LEVELS][PPT_CALIB_MAX_SWEEP];
  uint64_t eff_bytes[PPT_HW_MAX_LEVELS];
  uint64_t bw_bytes[PPT_HW_MAX_LEVELS + 1]; /* streaming working set, all threads */
  uint64_t bw_chunk[PPT_HW_MAX_LEVELS + 1]; /* bytes read per timed unit and thread */
  uint32_t bw_threads[PPT_HW_MAX_LEVELS + 1];
  double bw_bytes_per_s[PPT_HW_MAX_LEVELS + 1];
  /* DRAM streamed by one thread alone (the spec's dram.core_bandwidth_gbs): the same
   * buffer size and 1 MiB chunks as the all-core figure, pinned to dram_core_cpu (-1:
   * not pinned). Recorded even when it reaches the all-core figure; the models take
   * the smaller. */
  uint64_t dram_core_bytes;
  int dram_core_cpu;
  double dram_core_bytes_per_s;
  /* DRAM triads a = b + 3c (the same working set, 1 MiB of each array at a time): bytes
   * of a written per second by one thread on dram_core_cpu, and by the all-core figure's
   * threads together. Each byte of a is read for ownership and written back, b and c are
   * read: against the read streams they give the write-back costs. 0: not measured. */
  double dram_core_triad_bytes_per_s, dram_triad_bytes_per_s;
  /* Shared cache levels: the same stream read by one thread alone, on the first CPU of
   * the instance (the spec's levels[k].core_bandwidth_bytes_per_cycle); 0: not measured
   * (private levels, whose figure is one core's already). */
  double core_bw_bytes_per_s[PPT_HW_MAX_LEVELS];
  /* For a `near` level: one core streams cyclic sweeps over ret_bytes[k][i], i <
   * ret_n[k] (the sysfs or chase size, then half-octave steps up to 8 times it, stopping
   * after two sweeps the level no longer serves) at ret_bw[k][i] bytes/s; ret_share[k][i]
   * is the share the level served (between its own one-core rate and DRAM's; -1:
   * unusable). ret_capacity[k] is the random-replacement capacity that keeps those
   * shares (calib_size.c): when it is below the sysfs size it is the spec's size of the
   * level, with "replacement": "random". 0: not measured or no size. */
  uint64_t ret_bytes[PPT_HW_MAX_LEVELS][PPT_CALIB_RET_POINTS];
  double ret_bw[PPT_HW_MAX_LEVELS][PPT_CALIB_RET_POINTS];
  double ret_share[PPT_HW_MAX_LEVELS][PPT_CALIB_RET_POINTS];
  uint32_t ret_n[PPT_HW_MAX_LEVELS];
  uint64_t ret_capacity[PPT_HW_MAX_LEVELS];
  /* Sharing (calib_share.c), for a level the sources say two or more CPUs share: CPU
   * share_cpus[k][0]'s chase over share_bytes[k] alone (share_alone_ns) and while CPU
   * share_cpus[k][1] chases as much of its own (share_together_ns); share_evicted[k] is
   * how far the partner moved it from alone towards DRAM's latency, 0-1 (-1: not
   * measured). share_private[k]: under a quarter, with the set fitting alone: each CPU
   * has an instance of its own in practice, and the spec says shared_by 1. */
  int share_cpus[PPT_HW_MAX_LEVELS][2];
  uint64_t share_bytes[PPT_HW_MAX_LEVELS];
  double share_alone_ns[PPT_HW_MAX_LEVELS], share_together_ns[PPT_HW_MAX_LEVELS];
  double share_evicted[PPT_HW_MAX_LEVELS];
  int share_private[PPT_HW_MAX_LEVELS];
  /* Data TLB: levels from CPUID (tlb_source names the leaves; tlb_n 0: unknown), and
   * per level the extra ns of a pointer chase over tlb_pages[j] 4 KiB pages (one line
   * each) against the same lines on huge pages, beyond the levels above (calib_tlb.c). */
  uint32_t tlb_n;
  uint32_t tlb_entries[PPT_HW_MAX_TLB], tlb_assoc[PPT_HW_MAX_TLB];
  uint64_t tlb_pages[PPT_HW_MAX_TLB];
  double tlb_miss_ns[PPT_HW_MAX_TLB];
  /* Walks in flight at the last level's reach: the chase's extra ns per walk and that of
   * independent loads of the same lines (calib_tlb_in_flight); their ratio, clamped to
   * [1, 64], is the spec's last tlb level in_flight. 0: not measured. */
  double tlb_walk_chase_ns, tlb_walk_load_ns, tlb_in_flight;
  char tlb_source[96];
  double op_ns[PPT_HW_NOPCLASS];     /* ns per op, independent chains */
  double op_lat_ns[PPT_HW_NOPCLASS]; /* ns per op, dependent chain */
  int huge_pages;                    /* transparent huge pages were requested for buffers */
  double mlp;                        /* misses in flight (chases over DRAM: best speedup of k chains) */
  /* Misses queued on one first-level set (calib_par.c): column walks over
   * same_set_bufs matrices of same_set_rows rows of same_set_row_bytes (L1 size / ways,
   * so a column maps to one L1 set), served by the last cache level; ns per line stored
   * and loaded. The spec's mlp_same_set.{load,store} is the last level's latency over
   * these, clamped to [1, mlp] (same_set_capped: 1 when a figure had to be). 0: not
   * measured. */
  uint64_t same_set_row_bytes;
  uint32_t same_set_rows, same_set_bufs;
  double same_set_load_ns, same_set_store_ns;
  int same_set_capped;
  double call_ns; /* one libm call (exp/log) */
  /* Cache-to-cache transfers (calib_par.c): threads pinned to c2c_cpus[0] and [1] (the
   * first two cores of the package, SMT siblings skipped) take turns writing one 64 B
   * line; ns per round trip, two transfers. The spec's coherence_cycles is half of it.
   * 0: not measured (one core, or the threads could not be pinned: see notes). */
  int c2c_cpus[2];
  double c2c_round_trip_ns;
  /* False sharing (calib_contend.c), on the same two CPUs: loops whose iterations each
   * hash their own index (contend_rounds rounds of xorshift and multiply, 1-5: the
   * shape of the five with the median factor) and add a byte of it to their thread's
   * own 8-byte word of one 64 B line. contend_one_ns: ns per iteration with the thread
   * on c2c_cpus[0] running them all alone; contend_two_ns: wall ns per iteration of the
   * same loop split between both CPUs, started together, until both are done. The
   * spec's contention_factor is contend_two_ns / contend_one_ns. 0: not measured (one
   * core, or the threads could not be pinned: see notes). */
  double contend_one_ns, contend_two_ns;
  int contend_rounds;
  /* Every shape's factor (two cores' time over one core's), shape k with k + 1 rounds:
   * how much the factor depends on the loop, which the one kept does not show. */
  double contend_factors[PPT_CALIB_CONTEND_SHAPES];
  /* Core speeds (calib_speed.c): the op mix timed pinned to each of speed_cpus[0..speed_n)
   * (the package's cores, SMT siblings skipped, in the order OMP_PROC_BIND=true fills
   * them), speed[i] relative to speed_cpus[0]; 0 where the thread could not be pinned. */
  uint32_t speed_n;
  int speed_cpus[PPT_HW_MAX_SPEEDS];
  double speed[PPT_HW_MAX_SPEEDS];
  /* Busy cores (calib_busy.c): the mix on the first busy_counts[j] of speed_cpus at once,
   * busy_at[j] the slowest one's speed over the slowest's alone; busy[k - 1] for k = 1 ..
   * busy_n cores, filled between the counts timed (1 at one core). busy_n = 0: not
   * measured (one core, or threads that could not be pinned). */
  uint32_t busy_nc, busy_n;
  uint32_t busy_counts[PPT_CALIB_BUSY_MAX];
  double busy_at[PPT_CALIB_BUSY_MAX];
  double busy[PPT_HW_MAX_SPEEDS];
  double fork_join_ns;        /* one OpenMP region on fork_join_threads (all CPUs) */
  double fork_join_serial_ns; /* the same region run by one thread (serialised) */
  uint32_t fork_join_threads;
  /* Where both fork-join figures were timed: 1 by ppt-ompcost (next to the running
   * executable, or $PPT_OMPCOST), a process without SimGrid, like the programs ppt
   * predicts; 0 in this process, the fallback when the probe cannot be run
   * (fork_join_note says why): a process linked with SimGrid, as ppt is, runs OpenMP
   * regions up to ~2x slower, so those figures overstate a region's cost. */
  int fork_join_probe;
  char fork_join_note[512];
  /* Branch mispredictions (calib_branch.c): a loop branching on each byte of 1 MiB of
   * random bytes, and on the same bytes sorted; ns per iteration of each, and the
   * difference per mispredicted branch (half the random ones): ns per mispredict, 0 when
   * the difference was not positive (then not in the spec). */
  double branch_random_ns, branch_sorted_ns;
  double branch_miss_ns;
  /* FP ops waiting to issue (calib_window.c): 256 independent elements of an L1 array,
   * each a chain of fpwin_depth[j] dependent (fmul, fadd) pairs; ns per element. The
   * spec's fp_window is the median over j of P x F / T - F, with T these in cycles,
   * F = 2 x depth ops and P = depth x (the spec's fmul + fadd latency) cycles; 0 (not in
   * the spec) when that median is outside the schema's range. */
  uint32_t fpwin_depth[PPT_CALIB_FPWIN_N];
  double fpwin_ns[PPT_CALIB_FPWIN_N];
  /* The same at fpchain_depth pairs (8): the spec's fp_chains is (P + waits) / T there,
   * the chains in flight, when in the schema's range. */
  uint32_t fpchain_depth;
  double fpchain_ns;
  /* Store-to-load forwarding (calib_forward.c): ns per trip of `*p += i` on a volatile
   * word, each trip's load taking the last trip's store; the spec's
   * store_forward_cycles is that less one add's latency. */
  double forward_ns;
  /* The same for `*p += 1.0` on a volatile double (an FP register's store forwarded):
   * store_forward_fp_cycles is that less one FP add's latency. */
  double forward_fp_ns;
  int optimised;  /* the kernels were compiled with optimisation */
  double seconds; /* wall time of the whole calibration */
} ppt_calib_result;

/* Measures this machine. The result's hw passes ppt_hwspec_validate and carries every
 * timing figure (ppt_hwspec_has_timing). `name` names the spec ("host" when NULL);
 * `date` (YYYY-MM-DD, may be NULL) goes into the citations. */
int ppt_calib_run(const ppt_calib_config *cfg, const char *name, const char *date, ppt_calib_result *out,
                  ppt_err *err);

/* What a line written back to DRAM costs, in line fills (the hwspec's
 * dram.writeback_cost, dram.core_writeback_cost), from a triad whose threads wrote
 * `triad` bytes of a per second (ppt_calib_result.dram_*triad_bytes_per_s) where the
 * same threads read `read` bytes per second: read / triad - 3, within [0, 16]; -1 when
 * either is not measured. Calibrate reports it; a spec takes it with --set. */
double ppt_calib_writeback_cost(double read, double triad);
/* The socket's DRAM bandwidth in bytes per second (the hwspec's dram.bandwidth_gbs before
 * rounding): every core's read stream, or every core's triad traffic (4 bytes per byte of
 * a: b, c and a's read for ownership in, a back) where that is more; *from_triad (may be
 * NULL) says which (models/calib/spec/calib_spec_dram.c). */
double ppt_calib_socket_bw(const ppt_calib_result *r, int *from_triad);

/* One spec from n runs' specs (`ppt calibrate --repeat`): every figure the median of the
 * runs' (the lower middle one for even n), each taken whole from the run that gave it
 * together with its citation; a cache level's size, ways and replacement come together
 * from the run with that level's median size (calib_median.c). Runs whose number of cache
 * levels, TLB levels or cores differs from the one most runs share are left out (named in
 * the notes: a chase that missed a level in one run); PPT_EINPUT when n is 0 or no shape
 * is shared by more than half the runs (another machine). */
int ppt_calib_median_spec(const ppt_hwspec *runs, size_t n, ppt_hwspec *out, ppt_err *err);

#endif

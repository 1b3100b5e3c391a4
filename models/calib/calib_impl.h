/* calib_impl.h — internals shared by the calib*.c files of `ppt calibrate`.
 *
 * The measuring kernels live in calib_mem.c (pointer chasing, streaming reads),
 * calib_ops.c (op chains, clock), calib_branch.c (branch mispredictions),
 * calib_window.c (FP ops waiting to issue) and calib_contend.c (false sharing), all timed
 * by calib_time.c; calib_omp.c times OpenMP regions, normally through the ppt-ompcost
 * probe run by calib_ompcost.c;
 * calib_sysfs.c reads the cache geometry, calib_tlb.c the data TLB's (CPUID) and times
 * its misses, calib_size.c finds the effective capacity of a level smaller than sysfs
 * says, and calib.c puts it all together (calib_spec.c writes the hwspec and its
 * citations; calib_run.h is what the two share; include/ppt/calib.h). Each file sits in
 * the folder of its kind of measurement (geometry/, memory/, core/, parallel/, spec/;
 * docs/calibrate.md, "Layout"); this header stays at the top, one section per file. */
#ifndef PPT_CALIB_IMPL_H
#define PPT_CALIB_IMPL_H

#include <gsl/gsl_rng.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#include "ppt/calib.h"

/* Kernels are measured as they run, not as the sanitizers rewrite them: a shadow check
 * per load would be part of what a pointer chase times. */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 8)
#define CALIB_KERNEL __attribute__((noinline, no_sanitize("address", "undefined")))
#else
#define CALIB_KERNEL __attribute__((noinline))
#endif

/* Optimisation barriers: the value must be in a register here and may have changed, so
 * the compiler can neither fold a chain of ops (x+y+y+... into x+n*y) nor vectorise
 * independent chains into one SIMD op. The asm itself emits no instruction. */
#define CALIB_KEEP_INT(x) __asm__ volatile("" : "+r"(x))
#if defined(__x86_64__) || defined(__i386__)
#define CALIB_KEEP_FP(x) __asm__ volatile("" : "+x"(x))
#elif defined(__aarch64__)
#define CALIB_KEEP_FP(x) __asm__ volatile("" : "+w"(x))
#else
#define CALIB_KEEP_FP(x) __asm__ volatile("" : "+r"(x))
#endif
#define CALIB_CLOBBER_MEMORY() __asm__ volatile("" ::: "memory")

/* A kernel runs `n` units of work (loads, ops, passes); `arg` is its own state. */
typedef void (*calib_kernel)(void *arg, uint64_t n);

/* Timing policy: each trial lasts at least min_s; the best of `trials` is kept. */
typedef struct calib_timing {
  double min_s;
  int trials;
  int typical; /* 1: the median trial (the machine as it usually runs); 0: the fastest */
} calib_timing;

/* ---- calib_time.c ---- */
double calib_now(void);
/* Grows n until one run of k lasts min_s, then returns the seconds per unit of the
 * fastest trial, or of the median one when t->typical. `unit` is the granularity n
 * must be a multiple of. */
double calib_measure(calib_kernel k, void *arg, uint64_t unit, const calib_timing *t);
/* Time per unit of k over time per unit of the reference kernel `ref` (with its own
 * arg), from trials that time the two back to back: the median pair's ratio when
 * t->typical, else fastest over fastest. 0 when out of memory. */
double calib_measure_vs(calib_kernel k, void *arg, uint64_t unit, calib_kernel ref, void *ref_arg,
                        uint64_t ref_unit, const calib_timing *t);
/* The figure of n trial times: the smallest, or the median when t->typical (sorts
 * trials in place). 0 when n is 0. */
double calib_statistic(double *trials, size_t n, const calib_timing *t);
/* Two rounds of the same figure in one: the smaller when best-of, their mean when
 * typical (a round spoiled by a burst of load is as likely as one that missed it).
 * A value <= 0 (failed) yields the other. */
double calib_rounds(double a, double b, const calib_timing *t);

/* ---- calib_sysfs.c ---- */

/* The CPUs of a Linux CPU list, skipping every SMT sibling but the first of its core
 * (per cpu_dir/cpuN/topology/thread_siblings_list; all kept when cpu_dir is NULL or the
 * file is missing). Stores at most max ids in out; returns how many. */
uint32_t calib_cpus_primary(const char *list, const char *cpu_dir, int *out, uint32_t max);
/* "32 MiB", "48 KiB", "100 B": a byte count for notes and citations (buf returned). */
const char *calib_human_bytes(uint64_t bytes, char *buf, size_t size);
/* Appends a sentence (space-separated) to notes, truncating quietly: notes are prose. */
void calib_note(char *notes, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* First line of DIR/SUB/NAME (newline removed); 0 on success. */
int calib_read_line(const char *dir, const char *sub, const char *name, char *buf, size_t size);

/* ---- calib_cpuid.c ---- */

/* The CPUID leaves ppt reads, as the processor answered them (regs[i] = {EAX, EBX, ECX,
 * EDX} of sub-leaf i). All zero, vendor "", where there is no CPUID (not x86). */
#define CALIB_CPUID_MAX_SUB 16
typedef struct calib_cpuid_regs {
  char vendor[13];
  uint32_t max_basic, max_ext;
  uint32_t l1[4];
  uint32_t l4[CALIB_CPUID_MAX_SUB][4], n4;   /* leaf 4 (Intel caches) */
  uint32_t lb[CALIB_CPUID_MAX_SUB][4], nb;   /* leaf 0BH (Intel topology) */
  uint32_t l1f[CALIB_CPUID_MAX_SUB][4], n1f; /* leaf 1FH (Intel topology, with dies) */
  uint32_t l18[CALIB_CPUID_MAX_SUB][4], n18; /* leaf 18H (Intel TLBs) */
  uint32_t x1[4], x5[4], x6[4], x8[4], x1e[4];
  uint32_t x1d[CALIB_CPUID_MAX_SUB][4], n1d; /* Fn8000_001D (AMD caches) */
} calib_cpuid_regs;

/* Reads this CPU's leaves; 0 (r zeroed) where there is no CPUID instruction. */
int calib_cpuid_read(calib_cpuid_regs *r);
/* AuthenticAMD or HygonGenuine. */
int calib_cpuid_is_amd(const calib_cpuid_regs *r);
/* Data and unified caches from the n sub-leaves of a deterministic cache leaf (`leaf` 4
 * or 0x8000001D, named in each level's `where`), by level; instruction caches left out.
 * Returns the number of levels. */
uint32_t calib_cpuid_decode_caches(const uint32_t (*regs)[4], uint32_t n, uint32_t leaf,
                                   ppt_calib_caches *out);
/* AMD's older leaves: ECX of Fn8000_0005 (L1 data), ECX and EDX of Fn8000_0006 (L2, L3).
 * L1 and L2 come whole (source PPT_CALIB_GEO_LEGACY, private); an L3 is listed with
 * source PPT_CALIB_GEO_SWEEP, size 0 and its reported size as size_bound. */
uint32_t calib_cpuid_decode_amd_legacy(uint32_t ecx5, uint32_t ecx6, uint32_t edx6, ppt_calib_caches *out);
/* AMD's 4-bit associativity code of L2/L3 caches and TLBs as a way count (`entries` for
 * Fh, fully associative); 0 for codes that give none. */
uint32_t calib_amd_ways(uint32_t code, uint32_t entries);
/* The caches CPUID describes: Intel leaf 4 (and vendors that follow it); AMD Fn8000_001D,
 * else the legacy leaves. Returns the number of levels (0: CPUID says nothing). */
uint32_t calib_cpuid_caches(const calib_cpuid_regs *r, ppt_calib_caches *out);
/* Threads per core and logical CPUs per package: Intel leaf 1FH or 0BH, AMD Fn8000_0008
 * and Fn8000_001E. 1 with src naming the leaves, 0 when CPUID has no topology. */
int calib_cpuid_topology(const calib_cpuid_regs *r, uint32_t *smt, uint32_t *pkg, char *src, size_t src_size);

/* ---- calib_mem.c ---- */

/* A buffer for a measurement: 2 MiB aligned, transparent huge pages requested (so that
 * TLB misses do not add to cache latencies), every page written once. NULL when out of
 * memory. *huge says whether huge pages were asked for and accepted by madvise. */
void *calib_buffer(size_t bytes, int *huge);
void calib_buffer_free(void *p);

/* Mean load-to-use latency, in ns, of a pointer chase over `bytes` of `buf` with one
 * pointer every `stride` bytes, visited in the order of a random cyclic permutation.
 * `warm`: run one lap first (for sets meant to sit in a cache). 0 when out of memory. */
double calib_chase_ns(void *buf, size_t bytes, size_t stride, int warm, gsl_rng *rng, const calib_timing *t);

/* A random cyclic permutation of 0..n-1 (Sattolo's shuffle driven by rng): following
 * i -> perm[i] from any slot visits all n before returning. malloc'd; NULL when out of
 * memory. */
size_t *calib_cyclic_perm(size_t n, gsl_rng *rng);
/* Mean ns per load of a pointer chase that starts at `start`, where the caller has
 * written a cycle of `n` pointers (each slot holds the address of the next). `warm`:
 * one lap first. calib_chase_ns is this over a permutation of equal strides. */
double calib_chase_cycle_ns(void *start, size_t n, int warm, const calib_timing *t);

/* Read bandwidth in bytes/s of `nthreads` threads each summing its own `bytes_each`
 * buffer, `chunk_bytes` at a time (0: the whole buffer), chunks in turn round the
 * buffer; threads are pinned to cpus[i] when cpus is non-NULL (one thread runs in the
 * caller, pinned for the trials only). 0 when out of memory or when threads cannot be
 * started. */
double calib_stream_bw(size_t bytes_each, size_t chunk_bytes, uint32_t nthreads, const int *cpus,
                       const calib_timing *t, int *huge);
/* The same for a triad a = b + 3c over three arrays of bytes_each / 3 per thread, chunk
 * by chunk (chunk_bytes of each array): bytes of a written per second, all threads
 * together (each byte of a is also read for ownership, and b and c are read: three
 * bytes come in and one goes back per byte). */
double calib_triad_bw(size_t bytes_each, size_t chunk_bytes, uint32_t nthreads, const int *cpus,
                      const calib_timing *t, int *huge);

/* ---- calib_ops.c ---- */

/* The kernels of the core-speed mix: the integer add chain, integer add, FP add and
 * multiply throughput, FP add and multiply latency, divide throughput, loads. */
#define CALIB_MIX_N 8
/* Seconds per unit of each kernel of the mix, on the CPU the caller runs on. */
void calib_ops_mix_s(const calib_timing *t, double s[CALIB_MIX_N]);
/* How fast each of cpus[0..n) computes relative to cpus[0] (hwspec core_speed): the
 * calling thread is pinned to each in turn (its CPU set put back after) and times the
 * mix, in three rounds; a CPU's speed is the median over the rounds of the geometric mean
 * over the mix of that round's cpus[0] time over its own. speed[i] = 0 where the thread
 * could not be pinned. Returns the CPUs measured. */
uint32_t calib_core_speeds(const int *cpus, uint32_t n, const calib_timing *t, double *speed);
/* The geometric mean over the mix of ref[j] / s[j] (how much faster s ran than ref); 0
 * when no kernel was timed in both. */
double calib_mix_speed(const double *ref, const double *s);

/* ---- calib_busy.c ---- */

/* The compute speed of the slowest of cpus[0..k) while all k run the mix at once,
 * relative to the slowest alone (speed[i]: cpus[i]'s core_speed, NULL or 0: 1), the
 * first CPU alone timed here as the reference (hwspec busy_speed at k). 0 when the
 * threads could not be started or pinned. */
double calib_busy_speed(const int *cpus, uint32_t k, const double *speed, const calib_timing *t);
/* The counts of busy cores the stage times on n cores: 2, 4, 8, ... below n, then n
 * (none for one core); at most max of them. Returns how many. */
uint32_t calib_busy_counts(uint32_t n, uint32_t *counts, uint32_t max);
/* busy[0..n): 1 at one core, at[j] at counts[j] (ascending, m of them), a straight
 * line between two timed counts, the last timed figure past the last. */
void calib_busy_fill(const uint32_t *counts, const double *at, uint32_t m, uint32_t n, double *busy);
/* Seconds per op: the dependent integer-add chain (one cycle per add), 1/clock. */
double calib_add_chain_s(const calib_timing *t);
/* Cycles per op of op class `op` (enum ppt_hw_opclass): independent chains
 * (throughput) and one dependent chain (latency), each timed against the add chain
 * (calib_measure_vs), so in adds, which are cycles where that chain runs at one add per
 * cycle. PPT_HW_LOADST has no latency kernel here (the L1 pointer chase gives it):
 * *lat is 0. */
void calib_op_adds(int op, const calib_timing *t, double *thr, double *lat);
/* Whether the kernels were compiled with optimisation (unoptimised code spills every
 * chain to the stack and times store forwarding instead). */
int calib_optimised(void);

/* ---- calib_size.c ---- */

/* Index of the largest of sizes[0..n) whose latency ns[i] is at most midway between
 * near_ns (the level's own latency) and dram_ns; entries with ns <= 0 (not measured) are
 * skipped. -1 when none qualifies. */
int calib_effective_index(const uint64_t *sizes, const double *ns, size_t n, double near_ns, double dram_ns);
/* Effective capacity: sizes[calib_effective_index(...)] after calib_round_ways (*assoc
 * gets the ways); 0 when no size qualifies. */
uint64_t calib_effective_size(const uint64_t *sizes, const double *ns, size_t n, double near_ns,
                              double dram_ns, uint32_t line, uint32_t *assoc);
/* Chase latency over near_bytes (point 0: near_ns, measured before), doublings of it
 * below `top`, then `top`, at most max points into sizes/ns; `again`: a second round per
 * size, the better kept. Returns the number of points, or 0 when a buffer cannot be had
 * (*oom_bytes: its size). *huge: whether any buffer got huge pages. */
uint32_t calib_size_sweep(uint64_t near_bytes, double near_ns, uint64_t top, size_t stride, int again,
                          gsl_rng *rng, const calib_timing *t, uint64_t *sizes, double *ns, uint32_t max,
                          int *huge, uint64_t *oom_bytes);
/* Bisects (up to 3 steps, geometric midpoints on 4 KiB) between the largest of the m
 * points that qualifies (calib_effective_index) and the next larger point swept,
 * appending each new point (up to max), then sorts all by size. Returns the new count
 * (m when nothing qualifies or nothing larger was swept), or 0 when a buffer cannot be
 * had (*oom_bytes: its size). */
uint32_t calib_size_refine(uint64_t *sizes, double *ns, uint32_t m, uint32_t max, double near_ns,
                           double dram_ns, size_t stride, int again, gsl_rng *rng, const calib_timing *t,
                           int *huge, uint64_t *oom_bytes);

/* Share in [0, 1] of a sweep that a level serves, from the sweep's streaming rate bw and
 * the rates of the level alone (bw_in) and of what lies beyond it (bw_out); -1 when the
 * rates are not positive or bw_in <= bw_out. */
double calib_sweep_hit_share(double bw, double bw_in, double bw_out);
/* Bytes of a random-replacement cache that keeps share h of a cyclic sweep over w_bytes
 * (mean field, see calib_size.c); 0 when h is not strictly between 0 and 1. */
double calib_random_capacity(double w_bytes, double h);
/* `bytes` as a power-of-two set count of at least *assoc ways of `line` bytes, the ways
 * raised (below 2·assoc) to fill it; *assoc gets the ways. 0 when line or assoc is 0. */
uint64_t calib_round_ways(uint64_t bytes, uint32_t line, uint32_t *assoc);

/* The size a stream's capacity `cap` gives a level (calib_spec.c): rounded to whole ways
 * (calib_round_ways, *ways in and out), above `inner` (the level inside) and at most
 * the source's size `source` (8x it when `from_sweep`: the chase sized the level) and
 * below `outer` (the next level's size, 0: none). A capacity above the source's size is
 * capped there (*capped = 1) unless `outer` bounds it first. 0 when none fits. */
uint64_t calib_stream_size(uint64_t cap, uint64_t source, int from_sweep, uint64_t inner, uint64_t outer,
                           uint32_t line, uint32_t *ways, int *capped);

/* One thread (pinned to *cpu when cpu is non-NULL) streams cyclic sweeps over
 * sysfs_bytes and half-octave steps up to 8 times it, *n of them (at most
 * PPT_CALIB_RET_POINTS; two that the level no longer serves end it): bytes[i], bw[i]
 * (bytes/s; 0 when out of memory) and share[i] (calib_sweep_hit_share against bw_in, the
 * level's one-core rate, and bw_out, DRAM's). Returns the random-replacement capacity the
 * shares give once divided by the best of them (the plateau other tenants leave):
 * the geometric mean over the sweeps where that is between 0.05 and 0.95; 0 when none
 * is. */
uint64_t calib_retention(uint64_t sysfs_bytes, double bw_in, double bw_out, const int *cpu,
                         const calib_timing *t, uint64_t *bytes, double *bw, double *share, uint32_t *n,
                         int *huge);

/* ---- calib_discover.c ---- */
/* The cache levels a chase sweep shows: bytes[0..n) growing, ns[i] the latency there.
 * The (median-of-3 smoothed) curve is cut where a step multiplies the latency by 1.4 or
 * more and by more than the steps beside it (cuts between stretches whose fastest
 * readings differ by less than 1.8x are dropped); each cut ends a level, until a stretch
 * reads 60 ns or slower (memory). A level's size (sizes[j]) is the largest point read at
 * most midway between the fastest readings of the stretches before and after the cut,
 * lat_ns[j] the one before. At most max levels; returns how many (0 when a point
 * failed, ns <= 0). */
uint32_t calib_discover_levels(const uint64_t *bytes, const double *ns, uint32_t n, uint64_t *sizes,
                               double *lat_ns, uint32_t max);
/* Times the chase (calib_chase_ns, one pointer per `stride` bytes) over `from` (at least
 * 4 KiB) x 2^(i/2) bytes up to `top`, at most max points into bytes/ns; stops early at
 * the first buffer that cannot be had. Returns the number of points. */
uint32_t calib_discover_sweep(uint64_t from, uint64_t top, size_t stride, gsl_rng *rng, const calib_timing *t,
                              uint64_t *bytes, double *ns, uint32_t max, int *huge);

/* Completes out->caches by measuring: when a level is still to be sized (source
 * PPT_CALIB_GEO_SWEEP, after the described ones) or none is known, a chase sweep
 * (calib_discover_sweep, its own gsl_rng seeded with `seed`, so the figures measured
 * later draw the same permutations whether or not it ran) from twice the last known
 * level finds the rest; each level found is described in notes. A level the sweep does
 * not find is left out (noted); with nothing known and nothing found, one 32 KiB L1 is
 * assumed (noted). 0, or -1 when out of memory. */
int calib_discover_caches(ppt_calib_result *out, uint64_t seed, const calib_timing *t, int quick, char *notes,
                          size_t notes_size);

/* ---- calib_geo.c ---- */
/* The name of an enum ppt_calib_geo_source for notes ("CPUID", "sysfs", ...). */
const char *calib_geo_source_name(int source);
/* Compares two descriptions of the same caches level by level (size, ways, line; the
 * sharing, where one side is CPUID's count of IDs, as an upper bound on the other's
 * CPUs) and appends a sentence per disagreement to notes. Returns their number. */
uint32_t calib_geo_compare(const ppt_calib_caches *a, const ppt_calib_caches *b, char *notes, size_t size);
/* Threads per core (out->smt) and CPUs per package (out->package_cpus) from sysfs's
 * cpu0/topology under cpu_dir (NULL: none), else from CPUID (regs; NULL: none; capped at
 * out->online_cpus, which must be set), else sysconf; out->topology_source says which.
 * pkg_list gets the package's CPU list (sysfs's, else "0-N" assumed). */
void calib_find_topology(const calib_cpuid_regs *regs, const char *cpu_dir, ppt_calib_result *out,
                         char *pkg_list, size_t list_size, char *notes, size_t notes_size);
/* CPU lists for levels that came without one (cpu0's instance): a level shared by the
 * whole package gets pkg_list, one private to a single CPU "0"; the others stay
 * unknown (their bandwidth threads are not pinned). */
void calib_fill_cpu_lists(ppt_calib_caches *c, uint32_t package_cpus, const char *pkg_list);
/* out->caches from the sources cfg->geometry allows (cfg->sysfs_dir set: that tree
 * alone, and an error reading it is returned): CPUID's deterministic leaf (regs),
 * compared with sysfs under cache_dir and given sysfs's CPU lists; else sysfs; else
 * AMD's legacy leaves; else nothing (calib_discover_caches then measures). Needs the
 * topology (calib_find_topology) for CPU lists. 0, or the error reading cfg->sysfs_dir. */
int calib_find_caches(const ppt_calib_config *cfg, const calib_cpuid_regs *regs, const char *cache_dir,
                      const char *pkg_list, ppt_calib_result *out, char *notes, size_t notes_size,
                      ppt_err *err);

/* The whole geometry step of `ppt calibrate`: this CPU's CPUID into regs (also read for
 * the TLBs later), out->online_cpus, the topology (calib_find_topology, from cpu_dir:
 * /sys/devices/system/cpu, or above cfg->sysfs_dir), the caches (calib_find_caches),
 * what no source sized (calib_discover_caches, timed with t) and the CPU lists of the
 * levels found. pkg_list gets the package's CPUs; notes the sentences on the way. 0, or
 * the error of calib_find_caches, or PPT_ERUN when the sweep runs out of memory. */
int calib_find_geometry(const ppt_calib_config *cfg, calib_cpuid_regs *regs, const calib_timing *t,
                        ppt_calib_result *out, char *cpu_dir, size_t cpu_dir_size, char *pkg_list,
                        size_t list_size, char *notes, size_t notes_size, ppt_err *err);

/* ---- calib_branch.c ---- */
/* A branch on random bytes against the same loop on the same bytes sorted, 1 MiB drawn
 * from rng: seconds per iteration of each (best of two rounds of trials) and seconds per
 * mispredicted branch (the difference over half the iterations; 0 when the difference
 * is not positive). -1 when out of memory. */
int calib_branch_miss_s(gsl_rng *rng, const calib_timing *t, double *random_s, double *sorted_s,
                        double *miss_s);

/* ---- calib_window.c ---- */
/* One dependent 64-bit add per cycle (calib_ops.c): the chain the op kernels are timed
 * against, so that their time over its time is cycles. */
void calib_k_add_chain(void *arg, uint64_t n);
/* Cycles per element (timed against the add chain, calib_measure_vs) of the FP-window
 * kernel at each of its PPT_CALIB_FPWIN_N chain depths (depth[j] dependent (fmul, fadd)
 * pairs per element, elements independent): how many chains overlap is bound by the FP
 * ops the core holds waiting to issue. 0 when out of memory. */
void calib_fp_window_adds(const calib_timing *t, uint32_t depth[PPT_CALIB_FPWIN_N],
                          double adds[PPT_CALIB_FPWIN_N]);
/* The same kernel at a short depth (*depth pairs, 8): add-chain adds per element, from
 * which the spec reads fp_chains. */
double calib_fp_chains_adds(const calib_timing *t, uint32_t *depth);

/* ---- calib_forward.c ---- */
/* Add-chain adds (cycles) per trip of `*p += i` on a volatile word: store-to-load
 * forwarding plus one add. 0 when out of memory. */
double calib_store_forward_adds(const calib_timing *t);
/* The same for `*p += 1.0` on a volatile double: forwarding plus one FP add. */
double calib_store_forward_fp_adds(const calib_timing *t);

/* ---- calib_tlb.c ---- */
/* Data-TLB levels for 4 KiB pages, from the core outwards with entries growing, each a
 * power-of-two set count of assoc ways (assoc == entries: fully associative), as the
 * hwspec's "tlb" levels need them. */
typedef struct calib_tlb_geo {
  uint32_t nlevels;
  uint32_t entries[PPT_HW_MAX_TLB];
  uint32_t assoc[PPT_HW_MAX_TLB];
  uint8_t grown[PPT_HW_MAX_TLB]; /* entries measured larger than CPUID said (calib_tlb_measure) */
  char source[96];               /* the CPUID leaves they came from, for the citation */
} calib_tlb_geo;

/* Pure decoders of CPUID register values (unit-tested with known CPUs):
 *  AMD: EBX of leaf 0x80000005 (L1 DTLB, 4 KiB pages) and of 0x80000006 (L2 DTLB);
 *  Intel: the sub-leaves 0..n-1 of leaf 0x18, regs[i] = {EAX, EBX, ECX, EDX}.
 * A level whose set count is not a power of two keeps its ways and the largest
 * power-of-two set count below; a level not larger than the one before is left out.
 * Both return g->nlevels. */
uint32_t calib_tlb_decode_amd(uint32_t ebx_80000005, uint32_t ebx_80000006, calib_tlb_geo *g);
uint32_t calib_tlb_decode_intel(const uint32_t (*regs)[4], uint32_t n, calib_tlb_geo *g);
/* The data TLB of the CPU whose leaves r holds (AMD / Hygon: leaves 0x80000005-6;
 * Intel: leaf 0x18). Returns the number of levels: 0 on other architectures, other
 * vendors, or Intel CPUs without leaf 0x18 (before Skylake they describe TLBs by leaf 2
 * descriptors only). */
int calib_tlb_geometry(const calib_cpuid_regs *r, calib_tlb_geo *g);
/* Extra ns per load that TLB misses add at a reach of `pages` 4 KiB pages: a random
 * cyclic pointer chase touching one 64 B line in each page (line offsets rotating
 * through the page, so the lines spread over the cache sets) in a buffer without huge
 * pages, minus the same chase over as many consecutive lines of a compact buffer (huge
 * pages requested: *huge, when non-NULL, says whether madvise accepted). Same lines,
 * same order, same caches: the difference is the translations. Best of two interleaved
 * rounds of calib_measure each. NaN when out of memory or pages < 2. */
double calib_tlb_miss_ns(size_t pages, int *huge, gsl_rng *rng, const calib_timing *t);
/* miss_ns[j] for each level of g: the chase at 4 x entries of level j (so every access
 * misses levels 0..j), at most cache_bytes / 2 of lines (0: no cap; the L2 size keeps
 * both chases in L2) but never under 2 x entries, minus what levels < j already
 * explain; clamped at 0 (noise). A level j > 0 whose chase costs at most a quarter of
 * what the levels above explain (or 0.25 ns, whichever is more) is larger than CPUID says: the
 * reach doubles CALIB_TLB_MAX_SWEEP times, g->entries[j] becomes the reach
 * calib_tlb_held picks (g->grown[j] = 1) and miss_ns[j] the chase at 4x that.
 * pages_used[j] (when non-NULL) gets the chase's pages. -1 when out of memory, else 0. */
#define CALIB_TLB_MAX_SWEEP 6
int calib_tlb_measure(calib_tlb_geo *g, uint64_t cache_bytes, gsl_rng *rng, const calib_timing *t,
                      double miss_ns[], uint64_t pages_used[]);
/* Page walks one core keeps in flight, at a reach of `pages` 4 KiB pages (the last
 * level's chase): the chase of calib_tlb_miss_ns gives a walk's latency (*chase_ns, its
 * extra over the dense lines); loads of the same lines in the same order whose
 * addresses come from an array, not from the load before, give the time per walk when
 * walks overlap (*load_ns, their extra over the same loads of the dense lines). Best of
 * two interleaved rounds each. Returns calib_tlb_overlap of the two; NaN when out of
 * memory, pages < 2 or the chase shows no walk. */
#define CALIB_TLB_MAX_IN_FLIGHT 64.0
double calib_tlb_in_flight(size_t pages, gsl_rng *rng, const calib_timing *t, double *chase_ns,
                           double *load_ns);
/* chase_ns / load_ns clamped to [1, CALIB_TLB_MAX_IN_FLIGHT] (load_ns <= 0: the top);
 * NaN when chase_ns <= 0 or either is NaN. */
double calib_tlb_overlap(double chase_ns, double load_ns);
/* The last reach of a doubling sweep that level holds: the largest index i with
 * extra_ns[i] at most half the sweep's largest extra (the walk); n when n == 0. */
uint32_t calib_tlb_held(const double *extra_ns, uint32_t n);

/* ---- calib_par.c, calib_omp.c ---- */
/* Misses one core keeps in flight: accesses/s of up to 64 independent random chases over
 * `bytes` (beyond the caches; a calib_buffer, huge pages requested: *huge says whether
 * madvise accepted) divided by one chase's. */
double calib_mlp(size_t bytes, gsl_rng *rng, const calib_timing *t, int *huge);
/* Misses queued on one first-level set: ns per line of column walks over `nbuf`
 * row-major matrices of `rows` rows of `row_bytes` (the first level's set stride, so a
 * column maps to one L1 set), one 64-bit word per `line` of each column, columns left
 * to right, matrix after matrix; timed once storing (*store_ns) and once loading and
 * summing (*load_ns). Buffers from calib_buffer (*huge: huge pages accepted). -1 when
 * out of memory or the geometry is unusable (row_bytes not a multiple of line), else 0. */
int calib_same_set_ns(uint64_t row_bytes, uint32_t line, size_t rows, size_t nbuf, const calib_timing *t,
                      double *load_ns, double *store_ns, int *huge);
/* Seconds per libm call (exp and log alternating, results used). */
double calib_call_s(const calib_timing *t);
/* Seconds per round trip of one 64 B line between two cores: the caller (pinned to
 * cpus[0] for the trials, its CPU set put back after) and a thread pinned to cpus[1]
 * take turns writing one atomic counter (release stores, acquire loads, spinning); each
 * turn waits for the line from the other core's cache, so half a round trip is one
 * cache-to-cache transfer. 0 when the CPUs are unusable (equal, negative) or a thread
 * cannot be started or pinned. */
double calib_c2c_round_trip_s(const int cpus[2], const calib_timing *t);
/* Pins the calling thread to `cpu`, its CPU set kept in *saved for calib_unpin_self:
 * 1 when pinned, 0 (nothing to put back) when the CPU is out of range or refused. */
int calib_pin_self(int cpu, cpu_set_t *saved);
void calib_unpin_self(const cpu_set_t *saved);
/* Runs body(body_arg) on the calling thread pinned to cpus[0] while a thread pinned to
 * cpus[1] runs partner(partner_arg), started and pinned before body begins and joined
 * after it ends (body must make partner return); the caller's CPU set is put back
 * after. -1 (body not run) when the CPUs are unusable (equal, negative) or a thread
 * cannot be started or pinned, else 0. */
int calib_on_two_cpus(const int cpus[2], void *(*partner)(void *), void *partner_arg, void (*body)(void *),
                      void *body_arg);

/* ---- calib_share.c ---- */
/* CPU cpus[0]'s pointer chase over `bytes` (one line per step, a random cyclic
 * permutation, huge pages) alone (*alone_ns) and while CPU cpus[1] chases another
 * `bytes` of its own (*together_ns). -1 (both 0) when out of memory or the CPUs cannot
 * be used, else 0. */
int calib_share_ns(const int cpus[2], size_t bytes, gsl_rng *rng, const calib_timing *t, double *alone_ns,
                   double *together_ns);
/* How far the partner moved the chase from its latency alone towards DRAM's, in [0, 1];
 * -1 when the figures cannot say (DRAM not slower than alone, a figure missing). */
double calib_share_evicted(double alone_ns, double together_ns, double dram_ns);

/* ---- calib_contend.c ---- */
/* False sharing in a worksharing loop: iterations of a few integer ops (a hash of the
 * iteration's index, 1-5 rounds) each adding to the thread's own 8-byte word of one
 * 64 B line, with plain (volatile) loads and stores; of the five loops, the one with the
 * median ratio (*rounds: its rounds). *one_s: seconds per iteration on the caller
 * alone, pinned to cpus[0]; *two_s: wall seconds per iteration of the same loop split between the caller and
 * a thread pinned to cpus[1], started together (until both are done). Both timed by calib_measure while the
 * partner runs (spinning between batches), so both cores are busy in each. -1 (both 0) as calib_on_two_cpus
 * fails, else 0. */
int calib_contend_s(const int cpus[2], const calib_timing *t, double *one_s, double *two_s, int *rounds,
                    double factors[PPT_CALIB_CONTEND_SHAPES]);
/* The threads calib_fork_join_s runs for `threads`: itself when positive, else
 * omp_get_num_procs() (the CPUs this process may run on). */
int calib_omp_threads(int threads);
/* Seconds per OpenMP parallel region (fork, empty loop, join) with
 * calib_omp_threads(threads) threads, timed in this process. */
double calib_fork_join_s(int threads, const calib_timing *t);

/* ---- calib_ompcost.c ---- */
/* The same two figures timed by ppt-ompcost (apps/ompcost) in a process of its own,
 * which links no SimGrid (see calib_omp.c for why that matters). */
typedef struct calib_ompcost {
  int threads;               /* threads of the multi-threaded region */
  double fork_join_s;        /* seconds per region on `threads` threads */
  double fork_join_serial_s; /* seconds per region on one thread (serialised) */
} calib_ompcost;

/* The probe to run: $PPT_OMPCOST when set and non-empty, else ppt-ompcost in the folder
 * of the running executable (/proc/self/exe), where the build and the install put it
 * next to `ppt`. Error when the file is not executable. */
int calib_ompcost_path(char *path, size_t size, ppt_err *err);
/* Parses the probe's output (one JSON object with positive finite "fork_join_s" and
 * "fork_join_serial_s" and a positive "threads"); `probe` names it in messages. */
int calib_ompcost_parse(const char *text, const char *probe, calib_ompcost *out, ppt_err *err);
/* Runs `probe --trials T --min-s S [--threads N]` (T, S from t; threads 0: the probe's
 * default, all CPUs) with this process's environment (so OMP_PROC_BIND set by calibrate
 * holds there too), waits at most timeout_s seconds (then kills it) and parses what it
 * printed. Error (naming the probe, with the first line it wrote to stderr) when it cannot
 * be started, fails, times out or prints something else. */
int calib_ompcost_run(const char *probe, int threads, const calib_timing *t, double timeout_s,
                      calib_ompcost *out, ppt_err *err);

/* ---- calib_watch.c: the stage being measured, and a watchdog over it ---- */
/* Seconds a stage may run before the watchdog first says so (then again every as many):
 * a whole calibration takes ~20 s on the machines of docs/calibrate.md. */
#define CALIB_STALL_S 60.0
typedef struct calib_watch calib_watch;
/* NULL when on_stage is NULL (nobody to tell) or out of memory. Else a watchdog thread
 * that calls on_stage(stage, seconds, arg) every stall_s seconds (<= 0: CALIB_STALL_S)
 * one stage goes on, seconds being its time so far; without a thread (none could be
 * started) stages are still announced. */
calib_watch *calib_watch_start(void (*on_stage)(const char *stage, double seconds, void *arg), void *arg,
                               double stall_s);
/* A new stage begins: on_stage(stage, 0, arg) from the caller's thread, and the
 * watchdog's clock restarts. stage must outlive the watch (a string literal). */
void calib_watch_stage(calib_watch *w, const char *stage);
/* Stops and frees the watchdog (NULL: nothing). */
void calib_watch_stop(calib_watch *w);

#endif

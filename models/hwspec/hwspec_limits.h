/* hwspec_limits.h — the physical range of every figure of a hwspec (docs/hwspec.md,
 * "Ranges"), shared by the parser (integers are range-checked before they are narrowed
 * to the struct's width) and the semantic checks (hwspec_check.c).
 *
 * The ranges are generous: they catch a figure in the wrong unit, a typo of several
 * digits or an absurd value (clock 1e-300 GHz, DRAM latency 1e300 ns: runtimes of 300
 * digits), not a merely unusual machine. */
#ifndef PPT_HWSPEC_LIMITS_H
#define PPT_HWSPEC_LIMITS_H

#define HW_MAX_CORES 65536u /* the largest shared-memory systems; models keep per-core state */
/* year: the first microprocessors to the end of any roadmap; catches a two-digit year. */
#define HW_MIN_YEAR 1971u
#define HW_MAX_YEAR 2100u
#define HW_MIN_CLOCK_GHZ 0.1
#define HW_MAX_CLOCK_GHZ 10.0
#define HW_MIN_VECTOR_BITS 32u
#define HW_MAX_VECTOR_BITS 4096u
#define HW_MIN_MLP 1.0
#define HW_MAX_MLP 1024.0
/* Cycle figures measured by ppt calibrate as differences of two timings: a noisy host
 * can give a small figure, so the floor only rejects a figure in the wrong unit. */
#define HW_MIN_SMALL_CYCLES 0.01
#define HW_MAX_CALL_CYCLES 1e6           /* a libm call: tens of cycles, thousands at worst */
/* FP ops waiting in one core's schedulers: tens on small cores, ~100-200 on wide ones. */
#define HW_MIN_FP_WINDOW 1.0
#define HW_MAX_FP_WINDOW 4096.0
/* Chains in flight: at least the one being drained; no core holds a thousand. */
#define HW_MIN_FP_CHAINS 1.0
#define HW_MAX_FP_CHAINS 1024.0
/* contention_factor: turns cannot make the loop faster than half its one-core time (two
 * cores, no contention at all would be 0.5), and no measured machine comes near 64. */
#define HW_MIN_CONTENTION 0.5
/* A core's compute speed relative to the one the op figures describe (core_speed). */
#define HW_MIN_CORE_SPEED 0.05
#define HW_MAX_CORE_SPEED 20.0
#define HW_MAX_CONTENTION 64.0
#define HW_MAX_FORK_JOIN_CYCLES 1e9      /* a fork-join: thousands of cycles, ~1e6 on huge machines */
/* A store forwarded to a load of the same address: a few cycles (4-8 on x86 cores). */
#define HW_MAX_STORE_FORWARD_CYCLES 100.0
#define HW_MAX_BRANCH_MISS_CYCLES 1000.0 /* a pipeline refill: 10-30 cycles */
#define HW_MAX_COHERENCE_CYCLES 100000.0 /* a cache-to-cache transfer: under 1000 across sockets */
/* Cache levels. */
/* No real cache is below a few hundred bytes, but hand-worked test hierarchies use levels
 * of two 64 B lines, and a tiny level is cheap to simulate: the floor is one 64 B line. */
#define HW_MIN_LEVEL_SIZE 64ull
#define HW_MAX_LEVEL_SIZE (1ull << 32) /* 4 GiB per instance: above any SRAM or eDRAM cache */
/* Real lines are 32-256 B. 4096 because TLB levels are simulated as caches whose 4 KiB
 * lines stand for pages (models/cache/tracesim.c, tlb_create). */
#define HW_MIN_LINE 16u
#define HW_MAX_LINE 4096u
/* The simulator scans a set's ways on every access that misses its first way, so a fully
 * associative 1 GiB level (16M ways) takes seconds per million references; 65536 ways
 * (fully associative 4 MiB of 64 B lines) is far above any real cache (<= 32 ways). */
#define HW_MAX_ASSOC 65536u
#define HW_MIN_LATENCY_CYCLES 0.5
#define HW_MAX_LATENCY_CYCLES 10000.0
#define HW_MIN_BW_BYTES_PER_CYCLE 0.01
#define HW_MAX_BW_BYTES_PER_CYCLE 4096.0 /* 64 lines of 64 B per cycle */
/* TLB levels. */
#define HW_MAX_TLB_ENTRIES (1u << 20) /* far above any real TLB; bounds the simulator's memory */
#define HW_MIN_PAGE 4096u
#define HW_MAX_PAGE (1u << 30)          /* 1 GiB pages */
#define HW_MAX_TLB_MISS_CYCLES 100000.0 /* a nested page walk: hundreds to a few thousand */
#define HW_MIN_TLB_IN_FLIGHT 1.0
#define HW_MAX_TLB_IN_FLIGHT 64.0 /* page walkers: 2-16 on current cores */
/* DRAM. */
#define HW_MIN_DRAM_LATENCY_NS 1.0
#define HW_MAX_DRAM_LATENCY_NS 10000.0
#define HW_MIN_DRAM_BW_GBS 0.01
#define HW_MAX_DRAM_BW_GBS 10000.0 /* 10 TB/s */
#define HW_MAX_WRITEBACK_COST 16.0 /* line fills a write-back costs: 0-2 measured */
/* Op classes. */
#define HW_MIN_OPS_PER_CYCLE 0.001 /* one op per 1000 cycles: slower than any divider */
#define HW_MAX_OPS_PER_CYCLE 1024.0
#define HW_MAX_OP_LATENCY 10000.0

#endif

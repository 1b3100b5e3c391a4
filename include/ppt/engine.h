/* ppt/engine.h — a multicore node simulated with SimGrid (docs/engine.md).
 *
 * A node is built from a hwspec and a core count: one SimGrid host and actor per core,
 * one SimGrid link per instance of every shared cache level (shared_by > 1) and one for
 * DRAM, so cores that stream from the same shared level at the same time split its
 * bandwidth (SimGrid's max-min sharing). It runs a program (ppt/program.h): a serial
 * region runs one tasklist on core 0; a parallel region runs one tasklist per thread
 * on cores 0..n−1, fork-join, ending at a barrier. Each thread's time is the core
 * model's (ppt/tasklist.h: AMM Eq. 4–5 plus the overlap policy) with the streamed bytes
 * of shared levels taking as long as the contended link lets them.
 *
 * SimGrid's engine is a process-wide singleton that cannot be reset, so every
 * ppt_node_run simulates in a forked child process and returns the results through
 * shared memory: runs are independent and the caller's process stays clean. */
#ifndef PPT_ENGINE_H
#define PPT_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "ppt/err.h"
#include "ppt/hwspec.h"
#include "ppt/program.h"
#include "ppt/tasklist.h"

typedef struct ppt_node ppt_node;
typedef struct ppt_node_result ppt_node_result;

typedef struct ppt_node_config {
  uint32_t cores;       /* cores of the node; 0 = hwspec cores */
  ppt_tc_policy policy; /* compute/memory overlap of every thread */
  double fork_cycles;   /* charged to every thread of a parallel region (thread start) */
  double join_cycles;   /* charged to every thread of a parallel region (barrier cost) */
} ppt_node_config;

/* cores 0 (all), the default policy, no fork/join overhead. */
void ppt_node_config_default(ppt_node_config *cfg);

/* Copies hw and cfg. cfg NULL = defaults; cores may exceed hw->cores ("what if it had
 * more cores"): shared levels then get more instances. Errors: PPT_EINPUT (no clock, a
 * shared level or DRAM without bandwidth, bad overlap fraction or overheads);
 * PPT_ERUN (memory). */
int ppt_node_new(const ppt_hwspec *hw, const ppt_node_config *cfg, ppt_node **out, ppt_err *err);
void ppt_node_free(ppt_node *node);
uint32_t ppt_node_cores(const ppt_node *node);

/* Simulates prog, reading it through ppt/program.h; each distinct tasklist of the
 * program goes through the core model once per run. Errors: PPT_EINPUT (a region wants
 * more threads than the node has cores, a tasklist the core model rejects: the message
 * names region and thread); PPT_ERUN (fork, memory, or the simulation failed). */
int ppt_node_run(const ppt_node *node, const ppt_program *prog, ppt_node_result **out, ppt_err *err);

typedef struct ppt_region_stats {
  int parallel; /* 0: serial region */
  uint32_t nthreads;
  double start_s; /* simulated time at which the region starts */
  double seconds; /* fork to the release of the barrier */
} ppt_region_stats;

typedef struct ppt_thread_stats {
  double busy_s;             /* the thread's time: its T plus fork/join overhead */
  double compute_s;          /* Tc of its tasklist: ops_s + Σ cpu_s */
  double ops_s;              /* of Tc, the op items' issue (the busiest port class under ports) */
  double cpu_s[PPT_TC_NCPU]; /* of Tc, the CPU items by what they stand for (ppt_tc_cpu) */
  double memory_s;           /* Tm as simulated (shared-level streams contended) */
  double memory_alone_s;     /* Tm had the thread been alone on the node (= time_compute) */
  double wait_s;             /* idle at the barrier: region seconds − busy_s */
  double contention_s;       /* of busy_s, the time beyond its own work spent waiting for its
                                turns on a contended line (docs/engine.md "Contended lines") */
} ppt_thread_stats;

double ppt_node_result_seconds(const ppt_node_result *r);
size_t ppt_node_result_nregions(const ppt_node_result *r);
/* 0, or PPT_EINPUT when the index is out of range. */
int ppt_node_result_region(const ppt_node_result *r, size_t region, ppt_region_stats *out);
int ppt_node_result_thread(const ppt_node_result *r, size_t region, size_t thread, ppt_thread_stats *out);
void ppt_node_result_free(ppt_node_result *r);

#endif

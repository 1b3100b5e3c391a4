/* engine/engine_internal.h — what the engine's files share (not a public header).
 *
 * Time inside the simulation is measured in core cycles: a SimGrid "second" is one
 * cycle and link bandwidths are bytes per cycle. Events are then spaced by many
 * orders of magnitude more than SimGrid's timing precision (1e-9) even for regions of
 * a few cycles; results are converted to seconds at the end. */
#ifndef PPT_ENGINE_INTERNAL_H
#define PPT_ENGINE_INTERNAL_H

#include <stdio.h>

#include "ppt/engine.h"
#include "ppt/program.h"
#include "ppt/trace.h"

struct ppt_node {
  ppt_hwspec hw;
  ppt_node_config cfg;
  uint32_t cores;
};

/* A program as the engine walks it, read once per run through ppt/program.h's
 * accessors: every (region, thread) pair is one slot, numbered region by region, and
 * the results (eng_out, ppt_node_result) are indexed by slot. */
typedef struct eng_region {
  ppt_region_kind kind;
  uint32_t nthreads;
  size_t first; /* index of thread 0's slot in eng_program.tls */
} eng_region;

typedef struct eng_program {
  eng_region *regions;
  size_t nregions;
  const ppt_tasklist **tls; /* one slot per (region, thread) */
  size_t nslots;
} eng_program;

/* Reads prog into *out (engine/progview.c); eng_program_free releases it. */
int eng_program_read(const ppt_program *prog, eng_program *out, ppt_err *err);
void eng_program_free(eng_program *p);

/* A tasklist as the node sees it, in cycles and bytes (from ppt_time_compute). */
typedef struct eng_demand {
  double compute;               /* Tc */
  double ops;                   /* of Tc, the op items' issue */
  double cpu_by[PPT_TC_NCPU];   /* of Tc, the CPU items by kind */
  ppt_tc_loops loops;           /* the chain-bound loops' chains and memory (ppt_tc_stats.loops) */
  double mem_alone;             /* Tm alone on the node */
  double chased;                /* of it, the chased loads' waits (ppt_tc_stats.chased_cycles) */
  double mem_private;           /* Tm minus the streaming time of shared levels (contention-free) */
  double mem_wait;              /* of mem_private, the latency the core waits out (STALL policy) */
  double bytes[PPT_TC_MAX_MEM]; /* bytes streamed from each shared level; 0 for private */
  double fill[PPT_TC_MAX_MEM];  /* bytes as the core's cap counts them (ppt_tc_level_stats.fill_bytes) */
  /* A contended line (docs/engine.md, "Contended lines"): the share of the thread's
   * time that takes turns on it, and the cycles those turns cost on the line host,
   * contention_factor x share x its time alone (0: none, or the spec has no factor). */
  double contended, turns;
} eng_demand;

/* Results, in cycles, written by the simulating child into shared memory. */
typedef struct eng_out {
  int status; /* 0: the child finished */
  char msg[256];
  double *region_start, *region_len; /* [nregions] */
  double *busy, *mem;                /* [nslots] */
  double *turns;                     /* [nslots]: time spent taking turns on a contended line */
} eng_out;

/* Whether memory level k (k == nlevels: DRAM) is a SimGrid resource on this node. */
int eng_level_shared(const ppt_node *node, uint32_t k);
/* Whether cores have their own link in front of level k (the spec caps what one core
 * draws from it below the instance's bandwidth), and that link's name for core c. */
int eng_core_link(const ppt_node *node, uint32_t k);
void eng_core_link_name(char *buf, size_t n, uint32_t k, uint32_t c);
/* Writes the node's SimGrid platform (XML) to f. */
int eng_platform_write(const ppt_node *node, FILE *f);
/* The host a node's contended lines are: the cores' turns on them share its speed. */
#define ENG_LINE_HOST "line"
/* A core link carrying only write-backs is widened this many times: nothing of the
 * core's caps them, only the instance (engine/sim.c). */
#define ENG_UNCAPPED 1e6
/* Names used in the platform: core c's host, level k instance i's host. */
void eng_core_name(char *buf, size_t n, uint32_t c);
void eng_level_host_name(char *buf, size_t n, uint32_t k, uint32_t i);
/* Instance of level k that core c uses (DRAM: 0). */
uint32_t eng_level_instance(const ppt_node *node, uint32_t k, uint32_t c);

/* Runs the simulation in the current (child) process; fills out. demand_of[slot] indexes
 * demands. Returns 0 or nonzero with out->msg set. */
int eng_simulate(const ppt_node *node, const eng_program *prog, const eng_demand *demands,
                 const uint32_t *demand_of, eng_out *out);

#endif

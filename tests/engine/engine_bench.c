/* tests/engine/engine_bench.c — how fast the engine simulates a big node.
 *
 * Usage: engine_bench [cores [regions [l3_shared_by]]]   (default 256 × 1000, L3 per 16)
 *
 * Every thread of every region runs a tasklist with compute and memory traffic that
 * reaches the shared L3 (16 cores per instance) and DRAM, so each thread-region costs
 * SimGrid two contended streams, a sleep and a barrier: the engine's worst common case.
 * Prints the wall time of ppt_node_run (fork, simulation, results) and the simulated
 * time. Not a test: timings depend on the machine. The target is < 2 s by default. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cpu/tc_fixture.h"
#include "ppt/engine.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  uint32_t cores = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 256;
  size_t regions = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000;
  uint32_t l3_shared_by = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 16;
  if (cores == 0 || regions == 0 || l3_shared_by == 0) {
    fprintf(stderr, "usage: engine_bench [cores [regions [l3_shared_by]]]\n");
    return 2;
  }
  ppt_hwspec hw;
  fx_hwspec(&hw, 3);
  hw.cores = cores;
  hw.levels[2].shared_by = l3_shared_by;
  hw.dram_bw_bytes_per_s = 200e9;

  ppt_err err;
  ppt_tasklist *tl = ppt_tasklist_new();
  const ppt_mem_access m = {.accesses = 1000, .bytes_per_access = 8, .block_bytes = 64};
  const double h[] = {0.9, 0.6, 0.5};
  if (!tl || ppt_tasklist_add_ialu(tl, 2000, &err) || ppt_tasklist_add_falu(tl, 1000, &err) ||
      ppt_tasklist_add_hitrates(tl, &m, 3, h, &err)) {
    fprintf(stderr, "engine_bench: tasklist: %s\n", err.msg);
    return 1;
  }
  const ppt_tasklist **tls = malloc(cores * sizeof *tls);
  ppt_program *prog = ppt_program_new();
  if (!tls || !prog) return 1;
  for (uint32_t c = 0; c < cores; c++) tls[c] = tl;
  for (size_t r = 0; r < regions; r++)
    if (ppt_program_add_parallel(prog, cores, tls, &err)) {
      fprintf(stderr, "engine_bench: %s\n", err.msg);
      return 1;
    }
  ppt_node *node;
  if (ppt_node_new(&hw, NULL, &node, &err)) {
    fprintf(stderr, "engine_bench: %s\n", err.msg);
    return 1;
  }
  double t0 = now();
  ppt_node_result *res;
  if (ppt_node_run(node, prog, &res, &err)) {
    fprintf(stderr, "engine_bench: %s\n", err.msg);
    return 1;
  }
  double wall = now() - t0;
  printf("engine_bench: %u cores x %zu parallel regions: wall %.3f s, simulated %.6g s\n", cores, regions,
         wall, ppt_node_result_seconds(res));
  ppt_node_result_free(res);
  ppt_node_free(node);
  ppt_program_free(prog);
  free(tls);
  ppt_tasklist_free(tl);
  return 0;
}

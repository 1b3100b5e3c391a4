/* tests/cpu/tc_fixture.h — hwspecs built in code for the core-model and engine tests.
 *
 * Round figures so that expected times can be worked out by hand in the tests'
 * comments: 1 GHz (1 cycle = 1 ns), DRAM 100 ns = 100 cycles. */
#ifndef PPT_TESTS_TC_FIXTURE_H
#define PPT_TESTS_TC_FIXTURE_H

#include <string.h>

#include "ppt/hwspec.h"
#include "ppt/tasklist.h"

static inline void fx_level(ppt_hw_level *lv, const char *name, uint64_t size, uint32_t assoc,
                            uint32_t shared_by, double lat, double bw) {
  memset(lv, 0, sizeof *lv);
  strcpy(lv->name, name);
  lv->size = size;
  lv->assoc = assoc;
  lv->line = 64;
  lv->shared_by = shared_by;
  lv->latency_cycles = lat;
  lv->bw_bytes_per_cycle = bw;
}

/* nlevels of: L1 32 KiB 8-way private (4 cycles, 64 B/cycle), L2 1 MiB 16-way private
 * (14, 32), L3 32 MiB 16-way shared by 8 (50, 16); DRAM 100 cycles, 8 B/cycle.
 * Ops per cycle: ialu 4, idiv 0.1, fadd 2, fmul 2, fdiv 0.25, branch 1, loadst 2. */
static inline void fx_hwspec(ppt_hwspec *hw, uint32_t nlevels) {
  memset(hw, 0, sizeof *hw);
  strcpy(hw->name, "fixture");
  hw->clock_hz = 1e9;
  hw->cores = 8;
  hw->vector_bits = 256;
  hw->nlevels = nlevels;
  fx_level(&hw->levels[0], "L1", 32 << 10, 8, 1, 4, 64);
  fx_level(&hw->levels[1], "L2", 1 << 20, 16, 1, 14, 32);
  fx_level(&hw->levels[2], "L3", 32 << 20, 16, 8, 50, 16);
  hw->dram_latency_ns = 100;
  hw->dram_bw_bytes_per_s = 8e9;
  const double pc[PPT_HW_NOPCLASS] = {4, 0.1, 2, 2, 0.25, 1, 2};
  for (int k = 0; k < PPT_HW_NOPCLASS; k++) {
    hw->ops[k].per_cycle = pc[k];
    hw->ops[k].latency = 1;
  }
}

/* 1000 accesses of 64 B lines, each served by level `served` of an `nlevels`-level
 * hierarchy (nlevels: DRAM) with local hit rates 0 above it and 1 there, the share
 * `prefetched` of them already asked for, and `writeback` lines per access written back
 * into level `wb_level`: the fills-and-write-backs item of the core-cap tests. NULL when
 * the tasklist refuses it. */
static inline ppt_tasklist *fx_fill_wb(uint32_t nlevels, uint32_t served, double prefetched,
                                       uint32_t wb_level, double writeback) {
  ppt_mem_access m = {.accesses = 1000, .bytes_per_access = 64, .block_bytes = 64};
  double h[PPT_HW_MAX_LEVELS] = {0};
  if (served < nlevels) h[served] = 1;
  m.prefetched[served] = prefetched;
  m.writeback[wb_level] = writeback;
  ppt_err err;
  ppt_tasklist *tl = ppt_tasklist_new();
  if (tl && ppt_tasklist_add_hitrates(tl, &m, nlevels, h, &err)) {
    ppt_tasklist_free(tl);
    return NULL;
  }
  return tl;
}

#endif

/* tests/models/models_fixture.h — hwspecs and helpers for the proxy-model tests.
 *
 * Specs are built in code with round figures (1 GHz: 1 cycle = 1 ns) so that the
 * expected answers can be worked out by hand in the tests' comments. Fully associative
 * levels (assoc = lines) make the SDCM exact LRU: a reference hits iff D < lines, so
 * hit rates are plain counting. */
#ifndef PPT_TESTS_MODELS_FIXTURE_H
#define PPT_TESTS_MODELS_FIXTURE_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "ppt/hwspec.h"
#include "ppt/tasklist.h"

static inline void mf_level(ppt_hw_level *lv, const char *name, uint64_t size, uint32_t assoc,
                            uint32_t shared_by, double lat, double bw) {
  memset(lv, 0, sizeof *lv);
  strcpy(lv->name, name);
  lv->size = size;
  lv->assoc = assoc ? assoc : (uint32_t)(size / 64); /* 0: fully associative */
  lv->line = 64;
  lv->shared_by = shared_by;
  lv->latency_cycles = lat;
  lv->bw_bytes_per_cycle = bw;
}

/* 1 GHz, 8 cores, 256-bit vectors; L1 32 KiB 8-way (4 cycles, 64 B/c), L2 1 MiB 16-way
 * (14, 32), L3 4 MiB 16-way shared by 8 (50, 16); DRAM 100 ns, 8 GB/s. Ops per cycle:
 * ialu 4, idiv 0.1, fadd 2, fmul 2, fdiv 0.25, branch 1, loadst 2. */
static inline void mf_spec(ppt_hwspec *hw) {
  memset(hw, 0, sizeof *hw);
  strcpy(hw->name, "models-fixture");
  hw->clock_hz = 1e9;
  hw->cores = 8;
  hw->vector_bits = 256;
  hw->nlevels = 3;
  mf_level(&hw->levels[0], "L1", 32 << 10, 8, 1, 4, 64);
  mf_level(&hw->levels[1], "L2", 1 << 20, 16, 1, 14, 32);
  mf_level(&hw->levels[2], "L3", 4 << 20, 16, 8, 50, 16);
  hw->dram_latency_ns = 100;
  hw->dram_bw_bytes_per_s = 8e9;
  const double pc[PPT_HW_NOPCLASS] = {4, 0.1, 2, 2, 0.25, 1, 2};
  for (int k = 0; k < PPT_HW_NOPCLASS; k++) {
    hw->ops[k].per_cycle = pc[k];
    hw->ops[k].latency = 1;
  }
}

/* Ops of class cls in a tasklist: its cycles times the class's throughput. */
static inline double mf_ops(const ppt_hwspec *hw, const ppt_tc_stats *st, int cls) {
  return st->op_cycles[cls] * hw->ops[cls].per_cycle;
}

static inline ppt_tc_stats mf_time(const ppt_hwspec *hw, const ppt_tasklist *tl) {
  ppt_tc_stats st;
  ppt_err err;
  ppt_tc_policy pol;
  mdl_policy_default(&pol);
  ck_assert_msg(ppt_time_compute(hw, tl, &pol, &st, &err) == 0, "%s", err.msg);
  return st;
}

/* Builds and runs a model's program on `cores` cores. */
static inline mdl_result mf_run(const ppt_hwspec *hw,
                                int (*build)(const ppt_hwspec *, const void *, uint32_t, mdl_prog **,
                                             ppt_err *),
                                const void *params, uint32_t cores, mdl_prog **keep) {
  mdl_prog *p;
  ppt_err err;
  ck_assert_msg(build(hw, params, cores, &p, &err) == 0, "%s", err.msg);
  mdl_result r;
  ck_assert_msg(mdl_prog_run(p, hw, cores, NULL, &r, &err) == 0, "%s", err.msg);
  if (keep)
    *keep = p;
  else
    mdl_prog_free(p);
  return r;
}

/* hwspecs/NAME from the source tree. */
static inline void mf_load(const char *name, ppt_hwspec *hw) {
  const char *src = getenv("PPT_SOURCE_DIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/hwspecs/%s", src ? src : ".", name);
  ppt_err err;
  ck_assert_msg(ppt_hwspec_load(path, hw, &err) == 0, "%s", err.msg);
}

#define ck_rel(a, b, tol)                                                   \
  ck_assert_msg(fabs((double)(a) - (double)(b)) <= (tol)*fabs((double)(b)), \
                "%s = %.12g, expected %.12g (±%g)", #a, (double)(a), (double)(b), (double)(tol))

#endif

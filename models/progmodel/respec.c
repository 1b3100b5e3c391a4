/* respec.c — the program model run on a spec whose timing figures differ from the one it
 * was built on (ppt_progmodel_set_hwspec): what `ppt predict --sensitivity` re-predicts
 * with, one cache simulation for every figure the simulation and the build do not read.
 *
 * What the build reads of a spec, and so cannot change afterwards: the cache geometry
 * (the simulation), the op figures, FP window and chains, store forwarding and block
 * cycles (each block's recurrence bound, which blocks are chain-bound loops whose
 * references the simulation counts apart, progmodel.c), coherence_cycles (the window
 * of the contended-line table), the TLB levels' figures and, with TLB levels, the
 * latency a near page walk pays (the derived shares, shares.c). Everything else is read
 * when the tasklists are made (branch_miss_cycles, call_cycles, the latencies a
 * mispredicted data branch waits for) or by the engine alone (clock, latencies,
 * bandwidths, DRAM, mlp, fork-join, contention_factor). */
#include <stdlib.h>
#include <string.h>

#include "ppt/progmodel.h"
#include "progmodel/progmodel_impl.h"

/* hw with every figure the build does not read taken from `from`: equal to `from`
 * exactly when hw differs from it only in figures a remake of the tasklists and the
 * engine take in. */
static void keep_build_figures(ppt_hwspec *hw, const ppt_hwspec *from) {
  /* the level whose latency a page walk served from the caches pays (shares.c) */
  uint32_t walk = from->ntlb && from->nlevels ? (from->nlevels > 1 ? 1 : 0) : UINT32_MAX;
  memcpy(hw->name, from->name, sizeof hw->name);
  memcpy(hw->source, from->source, sizeof hw->source);
  memcpy(hw->notes, from->notes, sizeof hw->notes);
  hw->nsources = from->nsources;
  memcpy(hw->sources, from->sources, sizeof hw->sources);
  hw->year = from->year;
  memcpy(hw->isa, from->isa, sizeof hw->isa);
  hw->clock_hz = from->clock_hz;
  for (uint32_t k = 0; k < hw->nlevels && k < from->nlevels; k++) {
    if (k != walk) hw->levels[k].latency_cycles = from->levels[k].latency_cycles;
    hw->levels[k].bw_bytes_per_cycle = from->levels[k].bw_bytes_per_cycle;
    hw->levels[k].core_bw_bytes_per_cycle = from->levels[k].core_bw_bytes_per_cycle;
  }
  hw->dram_latency_ns = from->dram_latency_ns;
  hw->dram_bw_bytes_per_s = from->dram_bw_bytes_per_s;
  hw->dram_core_bw_bytes_per_s = from->dram_core_bw_bytes_per_s;
  hw->dram_core_wb_cost = from->dram_core_wb_cost;
  hw->dram_wb_cost = from->dram_wb_cost;
  hw->dram_wb_given = from->dram_wb_given;
  hw->mlp = from->mlp;
  hw->mlp_same_set_load = from->mlp_same_set_load;
  hw->mlp_same_set_store = from->mlp_same_set_store;
  hw->fork_join_cycles = from->fork_join_cycles;
  hw->fork_join_serial_cycles = from->fork_join_serial_cycles;
  /* read when the tasklists are made; the build asks only whether they are given */
  if ((hw->branch_miss_cycles > 0) == (from->branch_miss_cycles > 0)) hw->branch_miss_cycles = from->branch_miss_cycles;
  if ((hw->call_cycles > 0) == (from->call_cycles > 0)) hw->call_cycles = from->call_cycles;
  if ((hw->contention_factor > 0) == (from->contention_factor > 0)) hw->contention_factor = from->contention_factor;
}

int ppt_progmodel_set_hwspec(ppt_progmodel *m, const ppt_hwspec *hw, ppt_err *err) {
  if (!m || !hw) return ppt_err_set(err, PPT_EINPUT, "progmodel: NULL argument");
  ppt_hwspec *norm = malloc(sizeof *norm);
  if (!norm) return ppt_err_set(err, PPT_ERUN, "out of memory");
  *norm = *hw;
  keep_build_figures(norm, m->hw);
  char *a = ppt_hwspec_to_json(norm), *b = ppt_hwspec_to_json(m->hw);
  free(norm);
  int rc = !a || !b ? ppt_err_set(err, PPT_ERUN, "out of memory")
           : strcmp(a, b)
               ? ppt_err_set(err, PPT_EINPUT, "progmodel: %s differs from the spec the model was built on in a "
                                              "figure the simulation or the build reads",
                             hw->name)
               : 0;
  free(a);
  free(b);
  if (rc) return rc;
  const ppt_hwspec *was = m->hw;
  double was_calls = m->call_cycles;
  m->hw = hw;
  m->call_cycles = hw->call_cycles;
  if ((rc = ppt_progmodel_set_policy(m, &m->policy, err))) {
    m->hw = was;
    m->call_cycles = was_calls;
  }
  return rc;
}

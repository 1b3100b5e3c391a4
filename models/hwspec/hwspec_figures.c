/* hwspec_figures.c — the timing figures a spec gives, each as the key `--set` changes it
 * by (docs/hwspec.md, "Settings") with its value in the file's unit: what `ppt predict
 * --sensitivity` scales one at a time (ppt_hwspec_timing_figures). Cache geometry is
 * left out: it is no timing figure, and most of its values scaled by 20 % make no valid
 * spec (set counts are powers of two). */
#include <stdio.h>
#include <string.h>

#include "ppt/hwspec.h"

typedef struct fig_list {
  ppt_hw_figure *out;
  size_t n, max;
} fig_list;

/* Appends key (printf-formatted) = v when the spec gives it (v > 0: 0 is "not given"). */
static void add(fig_list *l, double v, const char *fmt, const char *a, const char *b) {
  if (!(v > 0)) return;
  if (l->n < l->max) {
    snprintf(l->out[l->n].key, sizeof l->out[l->n].key, fmt, a, b);
    l->out[l->n].value = v;
  }
  l->n++;
}

size_t ppt_hwspec_timing_figures(const ppt_hwspec *hw, ppt_hw_figure *out, size_t max) {
  fig_list l = {out, 0, out ? max : 0};
  add(&l, hw->clock_hz / 1e9, "clock_ghz", "", "");
  for (uint32_t k = 0; k < hw->nlevels; k++) {
    const ppt_hw_level *lv = &hw->levels[k];
    add(&l, lv->latency_cycles, "%s.latency_cycles", lv->name, "");
    add(&l, lv->bw_bytes_per_cycle, "%s.bandwidth_bytes_per_cycle", lv->name, "");
    add(&l, lv->core_bw_bytes_per_cycle, "%s.core_bandwidth_bytes_per_cycle", lv->name, "");
  }
  add(&l, hw->dram_latency_ns, "dram.latency_ns", "", "");
  add(&l, hw->dram_bw_bytes_per_s / 1e9, "dram.bandwidth_gbs", "", "");
  add(&l, hw->dram_core_bw_bytes_per_s / 1e9, "dram.core_bandwidth_gbs", "", "");
  if (hw->dram_wb_given & 2u) add(&l, hw->dram_wb_cost, "dram.writeback_cost", "", "");
  if (hw->dram_wb_given & 1u) add(&l, hw->dram_core_wb_cost, "dram.core_writeback_cost", "", "");
  add(&l, hw->mlp, "mlp", "", "");
  add(&l, hw->mlp_same_set_load, "mlp_same_set.load", "", "");
  add(&l, hw->mlp_same_set_store, "mlp_same_set.store", "", "");
  for (int c = 0; c < PPT_HW_NOPCLASS; c++) {
    add(&l, hw->ops[c].per_cycle, "ops.%s.per_cycle", ppt_hwspec_opclass_name(c), "");
    add(&l, hw->ops[c].latency, "ops.%s.latency", ppt_hwspec_opclass_name(c), "");
  }
  const struct {
    double v;
    const char *key;
  } core[] = {{hw->fork_join_cycles, "fork_join_cycles"},
              {hw->fork_join_serial_cycles, "fork_join_serial_cycles"},
              {hw->call_cycles, "call_cycles"},
              {hw->branch_miss_cycles, "branch_miss_cycles"},
              {hw->store_forward_cycles, "store_forward_cycles"},
              {hw->store_forward_fp_cycles, "store_forward_fp_cycles"},
              {hw->coherence_cycles, "coherence_cycles"},
              {hw->contention_factor, "contention_factor"},
              {hw->fp_window, "fp_window"},
              {hw->fp_chains, "fp_chains"}};
  for (size_t i = 0; i < sizeof core / sizeof core[0]; i++) add(&l, core[i].v, "%s", core[i].key, "");
  for (uint32_t j = 0; j < hw->ntlb; j++) {
    add(&l, hw->tlb[j].miss_cycles, "%s.miss_cycles", hw->tlb[j].name, "");
    add(&l, hw->tlb[j].in_flight, "%s.in_flight", hw->tlb[j].name, "");
  }
  return l.n;
}

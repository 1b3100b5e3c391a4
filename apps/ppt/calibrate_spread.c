/* calibrate_spread.c — the spread over several calibrations of the figures that move
 * most on a shared host, next to the median the spec took (calibrate_spread.h).
 *
 * Why these: on the validation VMs the memory figures move with the neighbours' load
 * (mlp, the last level's size, DRAM), and the core's own throughput moves with the host's
 * state: on a Zen 5 guest a libm call takes 12.3-13 cycles in some calibrations and
 * 19.2-21.6 in others, with ialu 3.4 against 4.1 per cycle and loadst 2.4 against 2.6
 * (docs/calibrate.md, "Which trial"). A median hides such a split; the range shows it. */
#include "calibrate_spread.h"

#include <stddef.h>
#include <stdint.h>

/* A figure: a double of the spec at `at` times `scale`; at SIZE_MAX, the last level's
 * size in MiB. */
typedef struct figure {
  const char *what;
  size_t at;
  double scale;
} figure;

static double value(const ppt_hwspec *h, const figure *g) {
  if (g->at == SIZE_MAX) return h->nlevels ? (double)h->levels[h->nlevels - 1].size / (1 << 20) : 0;
  return *(const double *)(const void *)((const char *)h + g->at) * g->scale;
}

#define FIG(what, field, scale) \
  { what, offsetof(ppt_hwspec, field), scale }
static const figure figs[] = {
    FIG("clock GHz", clock_hz, 1e-9),
    {"last level MiB", SIZE_MAX, 1},
    FIG("mlp", mlp, 1),
    FIG("mlp_same_set load", mlp_same_set_load, 1),
    FIG("mlp_same_set store", mlp_same_set_store, 1),
    FIG("coherence cycles", coherence_cycles, 1),
    FIG("fork_join cycles", fork_join_cycles, 1),
    FIG("fork_join_serial cycles", fork_join_serial_cycles, 1),
    FIG("fp_window ops", fp_window, 1),
    FIG("contention_factor", contention_factor, 1),
    FIG("DRAM one core GB/s", dram_core_bw_bytes_per_s, 1e-9),
    FIG("call cycles", call_cycles, 1),
    FIG("store_forward cycles", store_forward_cycles, 1),
    FIG("store_forward_fp cycles", store_forward_fp_cycles, 1),
    FIG("ialu per cycle", ops[PPT_HW_IALU].per_cycle, 1),
    FIG("loadst per cycle", ops[PPT_HW_LOADST].per_cycle, 1),
    FIG("branch per cycle", ops[PPT_HW_BRANCH].per_cycle, 1),
};
#undef FIG

void ppt_calibrate_print_spread(FILE *f, const ppt_hwspec *runs, size_t n, const ppt_hwspec *med) {
  for (size_t i = 0; n && i < sizeof figs / sizeof *figs; i++) {
    double lo = value(&runs[0], &figs[i]), hi = lo;
    for (size_t r = 1; r < n; r++) {
      double v = value(&runs[r], &figs[i]);
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    fprintf(f, "  %-24s %10.4g  (runs: %.4g to %.4g)\n", figs[i].what, value(med, &figs[i]), lo, hi);
  }
}

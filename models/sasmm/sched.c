/* sched.c — how libomp deals worksharing-loop iterations to threads.
 *
 * static (no chunk): libomp's static schedule is "balanced": with q = trip / n and
 * r = trip % n, thread t gets q + (t < r) consecutive iterations starting at
 * t*q + min(t, r) (when trip < n, thread t < trip gets iteration t). Observed on the
 * real N-thread traces (PPT_EV_LOOP_CHUNK events); tests/sasmm checks it that way.
 * static,c: chunks of c dealt round-robin. dynamic,c: each chunk goes to the first free
 * thread; guided,c: chunk = max(c, ceil(remaining / (2n))) (libomp's guided_iterative
 * uses remaining/(2n)), also to the first free thread. "First free" is modelled as the
 * thread with the least accumulated work, ties to the lowest id. */
#include <stdlib.h>

#include "ppt/sasmm.h"

static void deal_to_least_loaded(uint64_t trip, uint32_t n, const uint64_t *work, uint32_t *core_of,
                                 int guided, int64_t chunk) {
  uint64_t *load = calloc(n, sizeof *load);
  if (!load) {
    for (uint64_t i = 0; i < trip; i++) core_of[i] = (uint32_t)(i % n);
    return;
  }
  uint64_t c = chunk > 0 ? (uint64_t)chunk : 1;
  for (uint64_t i = 0; i < trip;) {
    uint64_t size = c;
    if (guided) {
      uint64_t g = (trip - i + 2 * n - 1) / (2 * (uint64_t)n);
      if (g > size) size = g;
    }
    if (size > trip - i) size = trip - i;
    uint32_t best = 0;
    for (uint32_t k = 1; k < n; k++)
      if (load[k] < load[best]) best = k;
    for (uint64_t j = i; j < i + size; j++) {
      core_of[j] = best;
      load[best] += work ? work[j] : 1;
    }
    i += size;
  }
  free(load);
}

void ppt_sasmm_schedule(int sched, int64_t chunk, uint64_t trip, uint32_t n, const uint64_t *work,
                        uint32_t *core_of) {
  if (n == 0) n = 1;
  switch (sched) {
    case PPT_SCHED_STATIC_CHUNKED: {
      uint64_t c = chunk > 0 ? (uint64_t)chunk : 1;
      for (uint64_t i = 0; i < trip; i++) core_of[i] = (uint32_t)((i / c) % n);
      return;
    }
    case PPT_SCHED_DYNAMIC:
      deal_to_least_loaded(trip, n, work, core_of, 0, chunk);
      return;
    case PPT_SCHED_GUIDED:
      deal_to_least_loaded(trip, n, work, core_of, 1, chunk);
      return;
    default: { /* static, and anything unknown */
      uint64_t q = trip / n, r = trip % n, i = 0;
      for (uint32_t t = 0; t < n; t++)
        for (uint64_t k = 0; k < q + (t < r); k++) core_of[i++] = t;
      return;
    }
  }
}

void ppt_sasmm_opts_default(ppt_sasmm_opts *o) {
  *o = (ppt_sasmm_opts){.ncores = 1, .split = PPT_SPLIT_ITERATIONS, .sched = -1, .chunk = 0,
                        .interleave = PPT_INTERLEAVE_RR, .seed = 1, .private_only = 0};
}

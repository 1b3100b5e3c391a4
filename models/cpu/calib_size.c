/* calib_size.c — effective capacity of a cache level that behaves smaller than sysfs
 * says (a virtual machine whose L3 is shared with other tenants: their lines take part of
 * it, so a working set of half the level already streams from DRAM).
 *
 * The pointer chase is timed over doubling working sets from just past the level above
 * (where the level still answers at its own latency) up to the level's size. The level
 * is taken to hold the largest working set that reads at most midway between its own
 * latency and DRAM's: a chase over a set that fits reads near the former, one that does
 * not reads near the latter (random replacement spreads the transition, the midpoint
 * puts the cut where half the loads still hit). That size, rounded down to a
 * power-of-two set count (the models index sets with a mask), is what the spec uses: the
 * runtime model then sends a working set between it and the sysfs size to DRAM, as the
 * host does. */
#include <math.h>

#include "cpu/calib_impl.h"

int calib_effective_index(const uint64_t *sizes, const double *ns, size_t n, double near_ns, double dram_ns) {
  double mid = 0.5 * (near_ns + dram_ns);
  int best = -1;
  /* The largest qualifying size, not the first before a rise: every figure is the best of
   * many trials, and other load only ever slows a trial, so a fast reading at a larger
   * size is evidence that the capacity is there while a slow one may be a disturbance. */
  for (size_t i = 0; i < n; i++) {
    if (!(ns[i] > 0) || !isfinite(ns[i]) || !(ns[i] <= mid)) continue; /* failed or too slow */
    if (best < 0 || sizes[i] > sizes[best]) best = (int)i;
  }
  return best;
}

uint64_t calib_round_sets(uint64_t bytes, uint32_t line, uint32_t assoc) {
  if (!line || !assoc) return 0;
  uint64_t sets = bytes / line / assoc, p = 1;
  while (p * 2 <= sets) p *= 2;
  return p * assoc * (uint64_t)line; /* at least one set */
}

uint64_t calib_effective_size(const uint64_t *sizes, const double *ns, size_t n, double near_ns,
                              double dram_ns, uint32_t line, uint32_t assoc) {
  int i = calib_effective_index(sizes, ns, n, near_ns, dram_ns);
  return i < 0 ? 0 : calib_round_sets(sizes[i], line, assoc);
}

uint32_t calib_size_sweep(uint64_t near_bytes, double near_ns, uint64_t top, size_t stride, int again,
                          gsl_rng *rng, const calib_timing *t, uint64_t *sizes, double *ns, uint32_t max,
                          int *huge, uint64_t *oom_bytes) {
  uint32_t m = 0;
  if (huge) *huge = 0;
  if (max == 0) return 0;
  sizes[m] = near_bytes;
  ns[m++] = near_ns;
  for (uint64_t b = 2 * near_bytes; m < max; b *= 2) {
    /* Doublings below the level's size, then the size itself (25 MiB after 16 MiB). */
    if (b >= top) b = top;
    int h = 0;
    void *buf = calib_buffer((size_t)b, &h);
    if (huge) *huge |= h;
    double x = buf ? calib_chase_ns(buf, (size_t)b, stride, 1, rng, t) : 0;
    /* A second round on a fresh permutation, as the latency code does: a burst of other
     * load can spoil one stretch of trials but rarely both. */
    if (buf && x > 0 && again) {
      double y = calib_chase_ns(buf, (size_t)b, stride, 1, rng, t);
      if (y > 0 && y < x) x = y;
    }
    calib_buffer_free(buf);
    if (!(x > 0)) {
      if (oom_bytes) *oom_bytes = b;
      return 0;
    }
    sizes[m] = b;
    ns[m++] = x;
    if (b == top) break;
  }
  return m;
}

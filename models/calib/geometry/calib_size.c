/* calib_size.c — effective capacity of a cache level that behaves smaller than sysfs
 * says (a virtual machine whose L3 is shared with other tenants: their lines take part of
 * it, so a working set of half the level already streams from DRAM).
 *
 * The pointer chase is timed over doubling working sets from just past the level above
 * (where the level still answers at its own latency) up to the level's size. The level
 * is taken to hold the largest working set that reads at most midway between its own
 * latency and DRAM's: a chase over a set that fits reads near the former, one that does
 * not reads near the latter (random replacement spreads the transition, the midpoint
 * puts the cut where half the loads still hit). Bisection between that set and the next
 * one swept finds the edge to an eighth of an octave; that size, as a power-of-two set
 * count (the models index sets with a mask) and the ways that fill it, is what the spec uses: the
 * runtime model then sends a working set between it and the sysfs size to DRAM, as the
 * host does. */
#include <math.h>

#include "calib/calib_impl.h"

int calib_effective_index(const uint64_t *sizes, const double *ns, size_t n, double near_ns, double dram_ns) {
  double mid = 0.5 * (near_ns + dram_ns);
  int best = -1;
  /* The largest qualifying size, not the first before a rise: other load only ever slows
   * a trial, so a fast reading at a larger size is evidence that the capacity is there
   * while a slow one may be a disturbance. */
  for (size_t i = 0; i < n; i++) {
    if (!(ns[i] > 0) || !isfinite(ns[i]) || !(ns[i] <= mid)) continue; /* failed or too slow */
    if (best < 0 || sizes[i] > sizes[best]) best = (int)i;
  }
  return best;
}

uint64_t calib_effective_size(const uint64_t *sizes, const double *ns, size_t n, double near_ns,
                              double dram_ns, uint32_t line, uint32_t *assoc) {
  int i = calib_effective_index(sizes, ns, n, near_ns, dram_ns);
  /* Ways raised rather than sets halved: a halving would throw away up to half of what
   * the bisection below resolved to an eighth of an octave (a 3.4 MiB L3 is 26 ways of
   * 2048 sets, not 2 MiB). */
  return i < 0 ? 0 : calib_round_ways(sizes[i], line, assoc);
}

/* One point of a sweep: the chase over a fresh buffer of b bytes, twice when `again`
 * (on fresh permutations, the better kept, as the latency code does), appended as point
 * *m. Its latency, or 0 (and *oom_bytes = b) when there is no buffer. */
static double chase_point(uint64_t b, size_t stride, int again, gsl_rng *rng, const calib_timing *t,
                          int *huge, uint64_t *sizes, double *ns, uint32_t *m, uint64_t *oom_bytes) {
  int h = 0;
  void *buf = calib_buffer((size_t)b, &h);
  if (huge) *huge |= h;
  double x = buf ? calib_chase_ns(buf, (size_t)b, stride, 1, rng, t) : 0;
  if (buf && x > 0 && again) x = calib_rounds(x, calib_chase_ns(buf, (size_t)b, stride, 1, rng, t), t);
  calib_buffer_free(buf);
  if (!(x > 0)) {
    if (oom_bytes) *oom_bytes = b;
    return 0;
  }
  sizes[*m] = b;
  ns[(*m)++] = x;
  return x;
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
    if (!chase_point(b, stride, again, rng, t, huge, sizes, ns, &m, oom_bytes)) return 0;
    if (b == top) break;
  }
  return m;
}

/* Bisection steps between the largest set that fits and the next one swept: 3 halve the
 * octave three times, so the capacity is known to 2^(1/8) = 9 %, not to a factor 2. On
 * a Zen 3 guest (an L3 of 32 MiB that its chase sees ~3 MiB of) the doublings read 18 ns
 * at 2 MiB and 169 ns at 4 MiB, and doublings alone would say 2 MiB. */
#define REFINE_STEPS 3

uint32_t calib_size_refine(uint64_t *sizes, double *ns, uint32_t m, uint32_t max, double near_ns,
                           double dram_ns, size_t stride, int again, gsl_rng *rng, const calib_timing *t,
                           int *huge, uint64_t *oom_bytes) {
  double mid = 0.5 * (near_ns + dram_ns);
  int best = calib_effective_index(sizes, ns, m, near_ns, dram_ns);
  if (best < 0) return m;
  uint64_t lo = sizes[best], hi = 0;
  for (uint32_t i = 0; i < m; i++)
    if (sizes[i] > lo && ns[i] > 0 && (hi == 0 || sizes[i] < hi)) hi = sizes[i];
  for (int step = 0; step < REFINE_STEPS && hi && m < max; step++) {
    uint64_t b = (uint64_t)sqrt((double)lo * (double)hi) / 4096 * 4096;
    if (b <= lo || b >= hi) break;
    double x = chase_point(b, stride, again, rng, t, huge, sizes, ns, &m, oom_bytes);
    if (!(x > 0)) return 0;
    if (x <= mid)
      lo = b;
    else
      hi = b;
  }
  /* In size order again, for the notes. */
  for (uint32_t i = 1; i < m; i++)
    for (uint32_t j = i; j > 0 && sizes[j - 1] > sizes[j]; j--) {
      uint64_t sb = sizes[j];
      double sn = ns[j];
      sizes[j] = sizes[j - 1];
      ns[j] = ns[j - 1];
      sizes[j - 1] = sb;
      ns[j - 1] = sn;
    }
  return m;
}

/* ---- capacity from streaming: a cyclic sweep through a random-replacement cache ----
 *
 * The chase above finds where a level stops answering at its own latency, but on a host
 * whose L3 is shared with other tenants a slow chase (one miss per ~100 ns) gives the
 * tenants time to evict its lines, and it sees a smaller cache than a stream does: on
 * the machine this was written on the chase's L3 ends at 4-8 MiB, while one core still
 * streams a 12 MiB sweep at L3 rates and a 32 MiB one partly so. Programs stream, so
 * the spec takes the stream's view: the share h of a sweep over W bytes that the level
 * serves, read off its streaming rate, and the capacity C of a random-replacement cache
 * that keeps that share (the spec then says "replacement": "random"; an LRU cache keeps
 * nothing of a sweep larger than itself, which is not what the host does). */

double calib_sweep_hit_share(double bw, double bw_in, double bw_out) {
  /* Time per byte is the mix of the two rates: 1/bw = h/bw_in + (1 − h)/bw_out. */
  if (!(bw > 0 && bw_in > bw_out && bw_out > 0)) return -1;
  double h = (1 / bw - 1 / bw_out) / (1 / bw_in - 1 / bw_out);
  return h < 0 ? 0 : h > 1 ? 1 : h;
}

double calib_random_capacity(double w_bytes, double h) {
  /* Mean field (checked against the simulator in tests/cache/test_cachesim.c): between
   * two uses of a line the other W − 1 lines miss at rate 1 − h, and each miss evicts it
   * with probability line/C, so h = (1 − line/C)^((1 − h)(W/line − 1)) ≈
   * exp(−(1 − h) W / C), i.e. C = (1 − h) W / (−ln h). Shares of 0 or 1 carry no size. */
  if (!(h > 0 && h < 1 && w_bytes > 0)) return 0;
  return (1 - h) * w_bytes / -log(h);
}

uint64_t calib_round_ways(uint64_t bytes, uint32_t line, uint32_t *assoc) {
  if (!line || !assoc || !*assoc) return 0;
  uint64_t sets = bytes / line / *assoc, p = 1;
  while (p * 2 <= sets) p *= 2;
  /* The power-of-two set count the models index with, then as many ways as fill the
   * bytes (between assoc and 2·assoc − 1): within one way of the size, not a halving. */
  uint64_t ways = bytes / line / p;
  if (ways < *assoc) ways = *assoc;
  if (ways > UINT32_MAX) ways = UINT32_MAX;
  *assoc = (uint32_t)ways;
  return p * ways * (uint64_t)line;
}

uint64_t calib_stream_size(uint64_t cap, uint64_t source, int from_sweep, uint64_t inner, uint64_t outer,
                           uint32_t line, uint32_t *ways, int *capped) {
  *capped = 0;
  if (!source) return 0;
  /* A level only the chase sized has no source to stay below: a shared L3's slow chase
   * sees as little as a quarter of what a stream keeps, so the stream's view is taken up
   * to the largest sweep, 8x the chase's. Never as large as a level further out: levels
   * grow outwards (a noisy run's chase can find a fourth level inside the stream's view
   * of the third). */
  uint64_t most = from_sweep ? 8 * source : source - 1;
  if (outer > 0 && most >= outer) most = outer - 1;
  /* Sweeps that read more than the source's size (the other tenants quiet): the level
   * holds all of it, with the replacement the sweeps show. Dropping such capacities
   * would lose the stream's view, the spec falling back to the chase's 13-16 MiB as LRU
   * (on a Zen 5 guest: jacobi +46/+95 %, validation/results/zen5-s36e/). */
  if (cap > most && !from_sweep && most == source - 1) {
    cap = source;
    most = source;
    *capped = 1;
  }
  if (!(cap > inner && cap <= most)) return 0;
  uint64_t size = calib_round_ways(cap, line, ways);
  /* Rounding to whole ways may reach `most + 1` (the source's size) from below, never
   * past the cap. */
  return size > inner && size <= (*capped ? most : most + 1) ? size : 0;
}

uint64_t calib_retention(uint64_t sysfs_bytes, double bw_in, double bw_out, const int *cpu,
                         const calib_timing *t, uint64_t *bytes, double *bw, double *share, uint32_t *n,
                         int *huge) {
  /* Half-octave sweeps from the level's size up: past the size an LRU cache keeps
   * nothing, so any share read there is the replacement's. A shared host's L3 also
   * loses lines to the other tenants at every size: the shares start below 1 (0.86-0.93
   * at 4-9 MiB on the development VM) and fall where the capacity ends (0.54 at 28 MiB,
   * 0 at 42). The level's best share is that plateau, and each share below it, divided
   * by it, is a random-replacement cache's: the capacity is the geometric mean of those
   * the falling sweeps give. Two sweeps the level no longer serves end the stage. */
  uint32_t m = 0, zero = 0;
  double plateau = 0;
  for (uint32_t i = 0; i < PPT_CALIB_RET_POINTS && zero < 2; i++) {
    bytes[i] = (uint64_t)((double)sysfs_bytes * pow(2.0, i / 2.0)) / 4096 * 4096;
    int h = 0;
    bw[i] = calib_stream_bw((size_t)bytes[i], 0, 1, cpu, t, &h);
    if (huge) *huge |= h;
    share[i] = calib_sweep_hit_share(bw[i], bw_in, bw_out);
    zero = share[i] == 0 ? zero + 1 : 0;
    if (share[i] > plateau) plateau = share[i];
    m = i + 1;
  }
  *n = m;
  double log_sum = 0;
  int used = 0;
  for (uint32_t i = 0; i < m && plateau > 0; i++) {
    double h = share[i] / plateau;
    if (!(h > 0.05 && h < 0.95)) continue;
    double c = calib_random_capacity((double)bytes[i], h);
    if (c > 0) {
      log_sum += log(c);
      used++;
    }
  }
  return used ? (uint64_t)exp(log_sum / used) : 0;
}

/* sched.c — how libomp (LLVM 14, the one ppt-cc links) deals worksharing-loop iterations.
 *
 * Each rule below was checked on real 4-thread traces (ppt trace -t 4, the
 * PPT_EV_LOOP_CHUNK events of every thread; tests/sasmm/test_sched.c) and read off
 * kmp_dispatch.cpp (__kmp_dispatch_init_algorithm, __kmp_dispatch_next_algorithm):
 *
 * static (no chunk): "balanced": with q = trip / n and r = trip % n, thread t gets q + (t < r)
 *   consecutive iterations starting at t*q + min(t, r).
 * static,c: chunks of c dealt round-robin (also schedule(runtime) with OMP_SCHEDULE=static,c).
 * monotonic dynamic,c: one shared chunk counter; each thread's chunks ascend.
 * nonmonotonic dynamic,c (clang 14's plain schedule(dynamic[,c])): static_steal. The
 *   ntc = ceil(trip/c) chunks are cut into balanced blocks (thread t: ntc/n + (t < ntc%n)
 *   chunks); a thread runs its block front to back, and when it is empty steals from the
 *   tail of a victim's remaining chunks (a quarter of them when more than 7 remain, else
 *   one), victims searched from its right neighbour on, starting from its last victim.
 *   The traces show it: threads start at the block starts (3008 = 376*8 for 4004
 *   iterations, c = 8) and then run descending pieces of another block's tail. With fewer
 *   chunks than threads libomp falls back to the shared counter.
 * guided,c (guided_iterative): the next chunk is floor(remaining / 2n) while remaining >=
 *   2n(c+1), then c (trace: 500, 437, 382, ... for 4000 iterations on 4 threads).
 * auto (guided_analytical): chunk k ends where ceil(trip * x^(k+1)) iterations remain,
 *   x = 1 - 1/(2n), up to the first k with x^k <= (2c+1)n/trip; chunks of c after that
 *   (trace: 500, 437, 383, 335, ... then 1s).
 * guided and auto with (2c+1)n >= trip fall back to the shared counter.
 *
 * Which thread runs a shared-counter chunk, and when a thief steals, depends on timing.
 * The model lets every core start together and run at the speed work[] gives: the next
 * request comes from the core with the least work done (ties to the lowest id). With
 * equal work static_steal then reproduces its initial blocks exactly (no steals). */
#include <stdlib.h>

#include "ppt/sasmm.h"

typedef struct deal {
  uint64_t trip;
  uint32_t n;
  const uint64_t *work;
  uint32_t *core_of;
  uint64_t *load; /* [n] work done by each core */
} deal;

static uint32_t least_loaded(const deal *d, const uint8_t *done) {
  uint32_t best = UINT32_MAX;
  for (uint32_t k = 0; k < d->n; k++)
    if (!(done && done[k]) && (best == UINT32_MAX || d->load[k] < d->load[best])) best = k;
  return best;
}

static void give(deal *d, uint32_t core, uint64_t lo, uint64_t hi) {
  if (hi > d->trip) hi = d->trip;
  for (uint64_t j = lo; j < hi; j++) {
    d->core_of[j] = core;
    d->load[core] += d->work ? d->work[j] : 1;
  }
}

/* x^k by squaring in long double, as libomp's __kmp_pow does. */
static long double pow_sq(long double x, uint64_t k) {
  long double s = 1.0L;
  for (; k; k >>= 1, x *= x)
    if (k & 1) s *= x;
  return s;
}

/* Iterations left before guided_analytical's chunk k: ceil(trip * x^k). */
static uint64_t analytical_left(uint64_t trip, double x, uint64_t k) {
  long double v = (long double)trip * pow_sq(x, k);
  uint64_t r = (uint64_t)v;
  return (long double)r == v ? r : r + 1;
}

/* The shared-counter schedules: chunks in iteration order, each to the least-loaded core.
 * kind: PPT_SCHED_DYNAMIC, PPT_SCHED_GUIDED (iterative) or PPT_SCHED_AUTO (analytical). */
static void deal_shared(deal *d, int kind, uint64_t c) {
  uint64_t trip = d->trip, n = d->n;
  if (kind != PPT_SCHED_DYNAMIC && (2 * c + 1) * n >= trip) kind = PPT_SCHED_DYNAMIC;
  double x = 1.0 - 0.5 / (double)n;
  uint64_t cross = 0;
  if (kind == PPT_SCHED_AUTO) { /* first k with x^k <= (2c+1)n/trip */
    long double target = (long double)(2 * c + 1) * (long double)n / (long double)trip;
    while (pow_sq(x, cross) > target) cross++;
  }
  for (uint64_t i = 0, k = 0; i < trip; k++) {
    uint64_t size = c, rem = trip - i;
    if (kind == PPT_SCHED_GUIDED && rem >= 2 * n * (c + 1))
      size = (uint64_t)((double)rem * (0.5 / (double)n));
    else if (kind == PPT_SCHED_AUTO && k < cross)
      size = trip - analytical_left(trip, x, k + 1) - i;
    if (size == 0) continue;
    if (size > rem) size = rem;
    give(d, least_loaded(d, NULL), i, i + size);
    i += size;
  }
}

/* libomp's static_steal with n >= 2 and ntc >= n chunks of c. Per core: its range of
 * chunks [lo, hi) and where its victim search starts. */
static int deal_steal(deal *d, uint64_t c) {
  uint32_t n = d->n;
  uint64_t ntc = (d->trip + c - 1) / c, small = ntc / n, extras = ntc % n;
  uint64_t *lo = malloc(2 * (size_t)n * sizeof *lo);
  uint32_t *victim = malloc(n * sizeof *victim);
  uint8_t *done = calloc(n, 1);
  if (!lo || !victim || !done) {
    free(lo), free(victim), free(done);
    return -1;
  }
  uint64_t *hi = lo + n;
  for (uint32_t t = 0; t < n; t++) {
    lo[t] = t * small + (t < extras ? t : extras);
    hi[t] = lo[t] + small + (t < extras);
    victim[t] = (t + 1) % n;
  }
  for (uint32_t t; (t = least_loaded(d, done)) != UINT32_MAX;) {
    if (lo[t] == hi[t]) { /* own range empty: steal from the first victim with chunks */
      uint32_t v = victim[t], k = 0;
      for (; k < n; k++, v = (v + 1) % n)
        if (v != t && lo[v] < hi[v]) break;
      if (k == n) {
        done[t] = 1;
        continue;
      }
      uint64_t rem = hi[v] - lo[v], take = rem > 7 ? rem >> 2 : 1;
      hi[t] = hi[v];
      lo[t] = hi[v] -= take;
      victim[t] = v;
    }
    uint64_t k = lo[t]++;
    give(d, t, k * c, (k + 1) * c);
  }
  free(lo), free(victim), free(done);
  return 0;
}

void ppt_sasmm_schedule(int sched, int64_t chunk, uint64_t trip, uint32_t n, const uint64_t *work,
                        uint32_t *core_of) {
  if (n == 0) n = 1;
  uint64_t c = chunk > 0 ? (uint64_t)chunk : 1; /* libomp's KMP_DEFAULT_CHUNK is 1 */
  int kind = sched & PPT_SCHED_KIND_MASK;
  if (kind == PPT_SCHED_STATIC_CHUNKED) {
    for (uint64_t i = 0; i < trip; i++) core_of[i] = (uint32_t)((i / c) % n);
    return;
  }
  if (kind == PPT_SCHED_DYNAMIC || kind == PPT_SCHED_GUIDED || kind == PPT_SCHED_AUTO) {
    deal d = {trip, n, work, core_of, calloc(n, sizeof(uint64_t))};
    int steal =
        kind == PPT_SCHED_DYNAMIC && (sched & PPT_SCHED_NONMONOTONIC) && n > 1 && (trip + c - 1) / c >= n;
    if (!d.load || (steal ? deal_steal(&d, c) : (deal_shared(&d, kind, c), 0)))
      for (uint64_t i = 0; i < trip; i++) core_of[i] = (uint32_t)(i % n); /* out of memory */
    free(d.load);
    return;
  }
  /* static, and anything unknown */
  uint64_t q = trip / n, r = trip % n, i = 0;
  for (uint32_t t = 0; t < n; t++)
    for (uint64_t k = 0; k < q + (t < r); k++) core_of[i++] = t;
}

void ppt_sasmm_opts_default(ppt_sasmm_opts *o) {
  *o = (ppt_sasmm_opts){.ncores = 1,
                        .split = PPT_SPLIT_ITERATIONS,
                        .sched = -1,
                        .chunk = 0,
                        .interleave = PPT_INTERLEAVE_RR,
                        .seed = 1,
                        .private_only = 0};
}

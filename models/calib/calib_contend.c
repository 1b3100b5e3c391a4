/* calib_contend.c — what false sharing costs a worksharing loop (hwspec contention_factor):
 * the same iterations run by one core alone, and split between two cores whose stores
 * all go to one cache line, each core its own word of it.
 *
 * A store needs the line in its core's cache, held exclusively: with two cores storing
 * into one line, the line moves back and forth between them, each core's stores wait
 * for it, and the iterations of the two cores run largely by turns. The loop is the
 * pattern a program falls into when each thread of a parallel loop accumulates into its
 * own element of a small array (`sum[omp_get_thread_num()] += ...`): ordinary loads and
 * stores, no atomic read-modify-write. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "calib/calib_impl.h"

typedef struct contend {
  /* The contended line: slot[0] is the caller's word, slot[1] the partner's. */
  _Alignas(64) volatile int64_t slot[8];
  /* The go flag, on a line of its own so that waiting for it costs the stores nothing:
   * the partner starts a batch of `iters` iterations when gen changes. */
  _Alignas(64) _Atomic uint64_t gen;
  uint64_t iters; /* written before gen is bumped, read after it is seen */
  _Atomic int stop;
  /* The partner's last finished batch, the line the caller waits on. */
  _Alignas(64) _Atomic uint64_t done;
  /* The caller's own: the trials' policy and what they gave. */
  _Alignas(64) const calib_timing *t;
  double one_s, two_s;
} contend;

/* n iterations: a step of a 32-bit hash (xorshift, multiply: 5 cycles of latency on
 * the cores we know, the loop's register work) and its top byte added to *slot, a load
 * and a store the compiler must keep (volatile), as a loop accumulating into memory
 * does. Each step hashes the last one's value, so the work is that chain's latency
 * whatever the core's width and however the compiler unrolls: ~5 cycles an iteration
 * on one core (4.9 on the Zen 5 VM of docs/calibrate.md). */
CALIB_KERNEL static void iterate(volatile int64_t *slot, uint64_t n) {
  uint32_t v = 1;
  for (uint64_t i = 0; i < n; i++) {
    v = (v ^ (v >> 16)) * 0x7feb352dU;
    *slot += (int64_t)(v >> 24);
  }
}

/* The partner: spins on the go flag (no pause instruction: it would delay each start),
 * runs each batch into slot[1], says so in done; returns once stopped. */
static void *partner(void *arg) {
  contend *c = arg;
  uint64_t seen = 0;
  for (;;) {
    uint64_t g = atomic_load_explicit(&c->gen, memory_order_acquire);
    if (g != seen) {
      iterate(&c->slot[1], c->iters);
      seen = g;
      atomic_store_explicit(&c->done, g, memory_order_release);
    } else if (atomic_load_explicit(&c->stop, memory_order_relaxed)) {
      return NULL;
    }
  }
}

/* One unit is two iterations of the loop, both on the caller's core. */
CALIB_KERNEL static void one_core(void *arg, uint64_t n) {
  contend *c = arg;
  iterate(&c->slot[0], 2 * n);
}

/* One unit is two iterations of the loop, one on each core: the partner is let go, the
 * caller runs its half, then waits for the partner's (the loop's end is the later of the
 * two, as at a worksharing loop's barrier). */
CALIB_KERNEL static void two_cores(void *arg, uint64_t n) {
  contend *c = arg;
  c->iters = n;
  uint64_t g = atomic_load_explicit(&c->gen, memory_order_relaxed) + 1;
  atomic_store_explicit(&c->gen, g, memory_order_release);
  iterate(&c->slot[0], n);
  while (atomic_load_explicit(&c->done, memory_order_acquire) != g) {
  }
}

/* The caller's side. The partner is already spinning on its own CPU while one core
 * runs alone: both cores are busy in both timings, so a clock that depends on how many
 * cores are active (turbo) is the same in each and the ratio is the line's alone. */
static void trials(void *arg) {
  contend *c = arg;
  c->one_s = 0.5 * calib_measure(one_core, c, 1, c->t);
  c->two_s = 0.5 * calib_measure(two_cores, c, 1, c->t);
  atomic_store_explicit(&c->stop, 1, memory_order_relaxed);
}

int calib_contend_s(const int cpus[2], const calib_timing *t, double *one_s, double *two_s) {
  *one_s = *two_s = 0;
  contend *c = aligned_alloc(64, sizeof *c);
  if (!c) return -1;
  for (int i = 0; i < 8; i++) c->slot[i] = 0;
  atomic_init(&c->gen, 0);
  atomic_init(&c->stop, 0);
  atomic_init(&c->done, 0);
  c->iters = 0;
  c->t = t;
  c->one_s = c->two_s = 0;
  int rc = calib_on_two_cpus(cpus, partner, c, trials, c);
  if (rc == 0 && c->one_s > 0 && c->two_s > 0) {
    *one_s = c->one_s;
    *two_s = c->two_s;
  } else {
    rc = -1;
  }
  free(c);
  return rc;
}

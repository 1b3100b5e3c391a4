/* calib_contend.c — what false sharing costs a worksharing loop (hwspec contention_factor):
 * the same iterations run by one core alone, and split between two cores whose stores
 * all go to one cache line, each core its own word of it.
 *
 * A store needs the line in its core's cache, held exclusively: with two cores storing
 * into one line, the line moves back and forth between them, each core's stores wait
 * for it, and the iterations of the two cores run largely by turns. The loop is the
 * pattern a program falls into when each thread of a parallel loop accumulates into its
 * own element of a small array (`sum[omp_get_thread_num()] += ...`): ordinary loads and
 * stores, no atomic read-modify-write.
 *
 * How much the turns cost depends on the loop's own work as well as on the line's moves
 * (on a Zen 5 VM, pinned to two vCPUs): a loop whose steps hash the last step's value,
 * one latency chain, takes 1.4-1.7x one core's time on two; loops whose iterations hash
 * their own index (independent work, as a loop over an array's elements has) 2.2-4.7x,
 * from 0 to 6 rounds of hashing (one two-round variant 1.4-1.7x); the validation's
 * falseshare kernel 2.4-4.7x. The probe runs five such loops (1 to 5 rounds a step) and
 * keeps the one with the median factor: a typical accumulating loop, not the least
 * contended. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "calib/calib_impl.h"

#define SHAPES PPT_CALIB_CONTEND_SHAPES

typedef struct contend {
  /* The contended line: slot[0] is the caller's word, slot[1] the partner's. */
  _Alignas(64) volatile int64_t slot[8];
  /* The go flag, on a line of its own so that waiting for it costs the stores nothing:
   * the partner starts a batch of `iters` iterations of loop `shape` when gen changes. */
  _Alignas(64) _Atomic uint64_t gen;
  uint64_t iters; /* written before gen is bumped, read after it is seen */
  int shape;      /* likewise */
  _Atomic int stop;
  /* The partner's last finished batch, the line the caller waits on. */
  _Alignas(64) _Atomic uint64_t done;
  /* The caller's own: the trials' policy and what they gave. */
  _Alignas(64) const calib_timing *t;
  double one_s, two_s, f[SHAPES];
} contend;

/* Iterations [i0, i0 + n): each hashes its own index in `rounds` rounds of xorshift and
 * multiply (independent of the other iterations: the core overlaps as many as its
 * window holds) and adds the low byte to *slot, a load and a store the compiler must
 * keep (volatile), as a loop accumulating into memory does. Inlined with a constant
 * `rounds` into each of the shapes below, so each unrolls its rounds. */
static inline void iterate(volatile int64_t *slot, uint64_t i0, uint64_t n, int rounds) {
  for (uint64_t i = i0; i < i0 + n; i++) {
    uint32_t v = (uint32_t)i;
    for (int r = 0; r < rounds; r++) {
      v ^= v >> 15;
      v *= 0x846ca68bU;
    }
    *slot += (int64_t)(v & 0xffU);
  }
}

#define SHAPE(k)                                                                       \
  CALIB_KERNEL static void shape##k(volatile int64_t *slot, uint64_t i0, uint64_t n) { \
    iterate(slot, i0, n, k);                                                           \
  }
SHAPE(1)
SHAPE(2)
SHAPE(3)
SHAPE(4)
SHAPE(5)
static void (*const shape_fn[SHAPES])(volatile int64_t *, uint64_t, uint64_t) = {shape1, shape2, shape3,
                                                                                 shape4, shape5};

/* The partner: spins on the go flag (no pause instruction: it would delay each start),
 * runs each batch into slot[1], says so in done; returns once stopped. */
static void *partner(void *arg) {
  contend *c = arg;
  uint64_t seen = 0;
  for (;;) {
    uint64_t g = atomic_load_explicit(&c->gen, memory_order_acquire);
    if (g != seen) {
      shape_fn[c->shape](&c->slot[1], c->iters, c->iters);
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
  shape_fn[c->shape](&c->slot[0], 0, 2 * n);
}

/* One unit is two iterations of the loop, one on each core: the partner is let go, the
 * caller runs its half, then waits for the partner's (the loop's end is the later of the
 * two, as at a worksharing loop's barrier). */
CALIB_KERNEL static void two_cores(void *arg, uint64_t n) {
  contend *c = arg;
  c->iters = n;
  uint64_t g = atomic_load_explicit(&c->gen, memory_order_relaxed) + 1;
  atomic_store_explicit(&c->gen, g, memory_order_release);
  shape_fn[c->shape](&c->slot[0], 0, n);
  while (atomic_load_explicit(&c->done, memory_order_acquire) != g) {
  }
}

/* The caller's side. The partner is already spinning on its own CPU while one core
 * runs alone: both cores are busy in both timings, so a clock that depends on how many
 * cores are active (turbo) is the same in each and the ratio is the line's alone. Each
 * shape in turn; the one with the median ratio is kept. */
static void trials(void *arg) {
  contend *c = arg;
  double one[SHAPES], two[SHAPES], *f = c->f;
  for (int k = 0; k < SHAPES; k++) {
    c->shape = k;
    one[k] = 0.5 * calib_measure(one_core, c, 1, c->t);
    two[k] = 0.5 * calib_measure(two_cores, c, 1, c->t);
    f[k] = one[k] > 0 ? two[k] / one[k] : 0;
  }
  atomic_store_explicit(&c->stop, 1, memory_order_relaxed);
  /* the median of five: the shape with two ratios at or below it and two at or above */
  for (int k = 0; k < SHAPES; k++) {
    int below = 0, above = 0;
    for (int j = 0; j < SHAPES; j++) {
      below += j != k && f[j] <= f[k];
      above += j != k && f[j] >= f[k];
    }
    if (below >= SHAPES / 2 && above >= SHAPES / 2) {
      c->one_s = one[k];
      c->two_s = two[k];
      c->shape = k;
      return;
    }
  }
}

int calib_contend_s(const int cpus[2], const calib_timing *t, double *one_s, double *two_s, int *rounds,
                    double factors[SHAPES]) {
  *one_s = *two_s = 0;
  *rounds = 0;
  for (int k = 0; k < SHAPES; k++) factors[k] = 0;
  contend *c = aligned_alloc(64, sizeof *c);
  if (!c) return -1;
  for (int i = 0; i < 8; i++) c->slot[i] = 0;
  atomic_init(&c->gen, 0);
  atomic_init(&c->stop, 0);
  atomic_init(&c->done, 0);
  c->iters = 0;
  c->shape = 0;
  c->t = t;
  c->one_s = c->two_s = 0;
  for (int k = 0; k < SHAPES; k++) c->f[k] = 0;
  int rc = calib_on_two_cpus(cpus, partner, c, trials, c);
  if (rc == 0 && c->one_s > 0 && c->two_s > 0) {
    *one_s = c->one_s;
    *two_s = c->two_s;
    *rounds = c->shape + 1;
    for (int k = 0; k < SHAPES; k++) factors[k] = c->f[k];
  } else {
    rc = -1;
  }
  free(c);
  return rc;
}

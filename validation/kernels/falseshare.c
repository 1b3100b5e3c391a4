/* falseshare.c — per-thread counters in adjacent slots of one cache line, updated on
 * every iteration (the false-sharing kernel).
 *
 * A `parallel for` over NBLK fixed blocks of an integer array (NBLK does not depend on the
 * thread count, so a sequential trace has the same iterations as a parallel run). The
 * thread that runs a block adds the low byte of a hash of each element (a few integer
 * multiplies, kernel_mix) into slot[omp_get_thread_num()]
 * of a 64-byte aligned array of 8 longs: one line holds every thread's counter. The slot
 * is `volatile`, so each iteration loads and stores it (the compiler may not keep it in
 * a register). On one thread the slot stays in L1 and the loop runs at store-to-load
 * forwarding speed; on two threads both cores write the same line on every iteration,
 * and the line moves between their caches (coherence misses) although no datum is
 * shared. In a sequential trace every block writes slot[0]: a model that splits the
 * blocks between cores sees both cores write one line, which is the same traffic at line
 * granularity; whether the model charges it is what this kernel tests.
 * The counters are integers and their sum does not depend on which thread ran which
 * block, so the checksum line is the same for every thread count.
 *
 * Sizes: -DN=1048576 -DREPS=2 (REPS passes over N ints, 4 MiB; NBLK = 64). */
#include "kcommon.h"

#include <stdint.h>

#ifndef N
#define N 1048576
#endif
#ifndef REPS
#define REPS 2
#endif
#define NBLK 64
#define SLOTS 8 /* 8 longs: one 64-byte line */

/* A few multiplies and shifts per element (register work, no memory references), so that
 * the runtime sizes reach tens of milliseconds without hundreds of millions of references. */
static inline uint32_t kernel_mix(uint32_t v) {
  v ^= v >> 16;
  v *= 0x7feb352dU;
  v ^= v >> 15;
  v *= 0x846ca68bU;
  v ^= v >> 16;
  v *= 0x9e3779b1U;
  v ^= v >> 13;
  return v;
}

static KC_NOINLINE void kernel_falseshare(const uint32_t *restrict data, volatile long *slot) {
  for (int r = 0; r < REPS; r++) {
#pragma omp parallel for
    for (int b = 0; b < NBLK; b++) {
      volatile long *c = &slot[omp_get_thread_num() % SLOTS];
      long lo = (long)N * b / NBLK, hi = (long)N * (b + 1) / NBLK;
      for (long i = lo; i < hi; i++) *c += (long)(kernel_mix(data[i] + (uint32_t)r) & 0xffU);
    }
  }
}

int main(int argc, char **argv) {
  int timing = kc_parse("falseshare", argc, argv);
  uint32_t *data = kc_alloc("falseshare", sizeof(uint32_t) * (size_t)N);
  long *slot = kc_alloc("falseshare", sizeof(long) * SLOTS);
  for (long i = 0; i < N; i++) data[i] = (uint32_t)(i * 2654435761U) ^ (uint32_t)(i >> 7);
  memset(slot, 0, sizeof(long) * SLOTS);
  double t0 = kc_start();
  kernel_falseshare(data, slot);
  double t1 = omp_get_wtime();
  long s = 0;
  for (int k = 0; k < SLOTS; k++) s += slot[k];
  printf("falseshare N=%ld REPS=%d: sum %ld\n", (long)N, REPS, s);
  kc_report_time("falseshare", timing, t1 - t0);
  free(data);
  free(slot);
  return 0;
}

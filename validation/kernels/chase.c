/* chase.c — pointer chasing (the latency-bound kernel: each step's address is the value
 * the last step loaded, so one miss is in flight per ring whatever the core's buffers).
 *
 * NODES nodes of one cache line each are linked into RINGS rings in a fixed-seed random
 * order (the kernels' LCG, Knuth's MMIX constants): ring r holds the nodes whose
 * position in one random permutation is r modulo RINGS, so every ring spans the whole
 * array. A `parallel for` over the rings walks each one PASSES times round, adding up
 * its nodes' payload; the rings split evenly between the threads (static schedule), and
 * each ring's sum is taken in ring order, so the checksum does not depend on the thread
 * count.
 *
 * Sizes: -DNODES=65536 -DRINGS=16 -DPASSES=2. */
#include "kcommon.h"

#include <stdint.h>

#ifndef NODES
#define NODES 65536
#endif
#ifndef RINGS
#define RINGS 16
#endif
#ifndef PASSES
#define PASSES 2
#endif

typedef struct node {
  struct node *next;
  long payload[7]; /* one 64-byte line a node */
} node;

static uint64_t lcg_state = 0x2545f4914f6cdd1dULL;

static uint32_t lcg_next(void) {
  return kc_lcg_next(&lcg_state);
}

/* Links the nodes into the rings and returns each ring's first node in heads. */
static void build_rings(node *nodes, long *perm, node **heads) {
  for (long i = 0; i < NODES; i++) perm[i] = i;
  for (long i = NODES - 1; i > 0; i--) {
    long j = (long)(((uint64_t)lcg_next() << 32 | lcg_next()) % (uint64_t)(i + 1)), t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  long len = NODES / RINGS;
  for (long r = 0; r < RINGS; r++) {
    for (long k = 0; k < len; k++) {
      node *n = &nodes[perm[r + RINGS * k]];
      n->next = &nodes[perm[r + RINGS * ((k + 1) % len)]];
    }
    heads[r] = &nodes[perm[r]];
  }
  for (long i = 0; i < NODES; i++) nodes[i].payload[0] = i % 1009;
}

static KC_NOINLINE void kernel_chase(node *const *heads, long *sums) {
#pragma omp parallel for schedule(static)
  for (int r = 0; r < RINGS; r++) {
    const node *p = heads[r];
    long s = 0;
    for (long k = 0; k < (long)PASSES * (NODES / RINGS); k++) {
      p = p->next;
      s += p->payload[0];
    }
    sums[r] = s;
  }
}

int main(int argc, char **argv) {
  int timing = kc_parse("chase", argc, argv);
  node *nodes = kc_alloc("chase", sizeof(node) * NODES);
  long *perm = kc_alloc("chase", sizeof(long) * NODES), *sums = kc_alloc("chase", sizeof(long) * RINGS);
  node **heads = kc_alloc("chase", sizeof(node *) * RINGS);
  build_rings(nodes, perm, heads);
  double t0 = kc_start();
  kernel_chase(heads, sums);
  double t1 = omp_get_wtime();
  long total = 0;
  for (int r = 0; r < RINGS; r++) total += sums[r];
  printf("chase: checksum %ld\n", total);
  kc_report_time("chase", timing, t1 - t0);
  free(heads);
  free(sums);
  free(perm);
  free(nodes);
  return 0;
}

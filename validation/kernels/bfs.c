/* bfs.c — level-synchronous breadth-first search from node 0 (the Rodinia formulation:
 * frontier / next-frontier / visited masks over all nodes, no queue).
 *
 * Each level is two `parallel for` sweeps over all nodes: the first expands every node in
 * the frontier (its neighbours not yet visited get cost = cost + 1 and are marked for the
 * next frontier), the second turns the marks into the new frontier and tells whether any
 * node was added. Several frontier nodes may mark the same neighbour in the same level;
 * they all write the same values (level numbers are equal within a frontier), and the
 * writes are `omp atomic write` so the program is race-free — on x86 these are plain
 * stores, so the memory references are those of the Rodinia code.
 *
 * The graph is CSR: node i owns edges [start[i], start[i+1]). It is directed, degree
 * 2..10 (mean 6), and the destinations come from a multiplicative hash of (node, edge):
 * a fixed, irregular graph with no locality between a node and its neighbours.
 *
 * Size: -DNODES=65536 (SASMM Table 3: 64K nodes). */
#include "kcommon.h"

#include <stdint.h>

#ifndef NODES
#define NODES 65536
#endif

static uint32_t hash32(uint32_t x) {
  /* A fixed integer mixing function (xorshift-multiply), used only to lay out the graph. */
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

static int degree_of(int i) { return 2 + (int)(hash32((uint32_t)i * 2U + 1U) % 9U); }

static int count_edges(void) {
  int m = 0;
  for (int i = 0; i < NODES; i++) m += degree_of(i);
  return m;
}

static void build_graph(int *start, int *edges) {
  int m = 0;
  for (int i = 0; i < NODES; i++) {
    start[i] = m;
    int d = degree_of(i);
    for (int k = 0; k < d; k++) edges[m++] = (int)(hash32((uint32_t)i * 16U + (uint32_t)k + 0x9e3779b9U) % NODES);
  }
  start[NODES] = m;
}

/* Returns the number of levels expanded. */
static KC_NOINLINE int kernel_bfs(const int *restrict start, const int *restrict edges,
                                  unsigned char *restrict frontier, unsigned char *restrict next,
                                  unsigned char *restrict visited, int *restrict cost) {
  int levels = 0;
  int more = 1;
  while (more) {
    more = 0;
#pragma omp parallel for
    for (int v = 0; v < NODES; v++) {
      if (frontier[v]) {
        frontier[v] = 0;
        int c = cost[v] + 1;
        for (int e = start[v]; e < start[v + 1]; e++) {
          int w = edges[e];
          if (!visited[w]) {
#pragma omp atomic write
            cost[w] = c;
#pragma omp atomic write
            next[w] = 1;
          }
        }
      }
    }
    /* `more` is an integer OR: its value does not depend on the reduction order. */
#pragma omp parallel for reduction(| : more)
    for (int v = 0; v < NODES; v++) {
      if (next[v]) {
        frontier[v] = 1;
        visited[v] = 1;
        next[v] = 0;
        more |= 1;
      }
    }
    levels++;
  }
  return levels;
}

int main(int argc, char **argv) {
  int timing = kc_parse("bfs", argc, argv);
  int m = count_edges();
  int *start = kc_alloc("bfs", sizeof(int) * (NODES + 1));
  int *edges = kc_alloc("bfs", sizeof(int) * (size_t)m);
  unsigned char *frontier = kc_alloc("bfs", NODES), *next = kc_alloc("bfs", NODES);
  unsigned char *visited = kc_alloc("bfs", NODES);
  int *cost = kc_alloc("bfs", sizeof(int) * NODES);
  build_graph(start, edges);
  memset(frontier, 0, NODES);
  memset(next, 0, NODES);
  memset(visited, 0, NODES);
  for (int i = 0; i < NODES; i++) cost[i] = -1;
  frontier[0] = 1;
  visited[0] = 1;
  cost[0] = 0;
  double t0 = kc_start();
  int levels = kernel_bfs(start, edges, frontier, next, visited, cost);
  double t1 = omp_get_wtime();
  long sum = 0;
  int reached = 0, maxc = 0;
  for (int i = 0; i < NODES; i++)
    if (cost[i] >= 0) {
      reached++;
      sum += cost[i];
      if (cost[i] > maxc) maxc = cost[i];
    }
  printf("bfs NODES=%d EDGES=%d: levels %d reached %d max-cost %d checksum %ld\n", NODES, m, levels, reached,
         maxc, sum);
  kc_report_time("bfs", timing, t1 - t0);
  free(start);
  free(edges);
  free(frontier);
  free(next);
  free(visited);
  free(cost);
  return 0;
}

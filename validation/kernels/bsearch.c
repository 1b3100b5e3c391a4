/* bsearch.c — binary searches in a sorted table (the lookup kernel of cross-section codes:
 * each step's address depends on the comparison of the last step's load, so a search's
 * misses come one at a time; the searches themselves are independent).
 *
 * A table of GRID ascending doubles (each the last plus a fixed-seed pseudo-random step,
 * the kernels' LCG) and QUERIES keys drawn from its range; a `parallel for` over the
 * queries (static schedule) finds for each the last entry not above it; the indices
 * found are summed serially afterwards, so the checksum does not depend on the thread
 * count.
 *
 * Sizes: -DGRID=262144 -DQUERIES=65536. */
#include "kcommon.h"

#include <stdint.h>

#ifndef GRID
#define GRID 262144
#endif
#ifndef QUERIES
#define QUERIES 65536
#endif

static uint64_t lcg_state = 0x2545f4914f6cdd1dULL;

static uint32_t lcg_next(void) {
  return kc_lcg_next(&lcg_state);
}

static KC_NOINLINE void kernel_bsearch(const double *restrict grid, const double *restrict keys,
                                       long *restrict found) {
#pragma omp parallel for schedule(static)
  for (long q = 0; q < QUERIES; q++) {
    double key = keys[q];
    long lo = 0, hi = GRID;
    while (hi - lo > 1) {
      long mid = lo + (hi - lo) / 2;
      if (grid[mid] <= key)
        lo = mid;
      else
        hi = mid;
    }
    found[q] = lo;
  }
}

int main(int argc, char **argv) {
  int timing = kc_parse("bsearch", argc, argv);
  double *grid = kc_alloc("bsearch", sizeof(double) * GRID), *keys = kc_alloc("bsearch", sizeof(double) * QUERIES);
  long *found = kc_alloc("bsearch", sizeof(long) * QUERIES);
  double x = 0.0;
  for (long i = 0; i < GRID; i++) grid[i] = x += 1.0 + (double)(lcg_next() % 1000U) / 1000.0;
  for (long q = 0; q < QUERIES; q++) keys[q] = x * (double)lcg_next() / 4294967296.0;
  double t0 = kc_start();
  kernel_bsearch(grid, keys, found);
  double t1 = omp_get_wtime();
  long total = 0;
  for (long q = 0; q < QUERIES; q++) total += found[q];
  printf("bsearch: checksum %ld\n", total);
  kc_report_time("bsearch", timing, t1 - t0);
  free(found);
  free(keys);
  free(grid);
  return 0;
}

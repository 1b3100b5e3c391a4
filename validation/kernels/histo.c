/* histo.c — integer histograms and counts with OpenMP reductions (the reduction-heavy
 * kernel).
 *
 * ROUNDS rounds over an array of N 32-bit keys. Each round is two `parallel for` loops:
 *  1. a histogram of the keys' top BITS bits with an array-section reduction
 *     `reduction(+ : hist[:BINS])` (each thread fills a private BINS-long copy, the
 *     copies are added at the end) together with two scalar `reduction(+ : long)` counts
 *     (keys below a threshold, and a checksum of the keys);
 *  2. an update of every key by an integer hash step, so the next round's histogram differs.
 * The loop's private bins are updated with load-add-store on a bin chosen by the data
 * (BINS = 1024 longs: 8 KB per thread, L1-resident), and the reductions' combining step
 * runs once per loop and thread. All reductions are over integers, so the results (and
 * the checksum line) are the same for every thread count and every combining order.
 *
 * Sizes: -DN=1048576 -DROUNDS=2 (4 MiB of keys). */
#include "kcommon.h"

#include <stdint.h>

#ifndef N
#define N 1048576
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif
#define BITS 10
#define BINS (1 << BITS)

static KC_NOINLINE long kernel_histo(uint32_t *restrict key, long *restrict hist, long *restrict below) {
  long total = 0, nbelow = 0;
  for (int r = 0; r < ROUNDS; r++) {
    long sum = 0, cnt = 0;
#pragma omp parallel for reduction(+ : hist[:BINS]) reduction(+ : sum, cnt)
    for (long i = 0; i < N; i++) {
      uint32_t k = key[i];
      hist[k >> (32 - BITS)]++;
      cnt += k < 0x40000000U;
      sum += (long)(k & 0xffffU);
    }
    total += sum;
    nbelow += cnt;
#pragma omp parallel for
    for (long i = 0; i < N; i++) {
      uint32_t k = key[i] * 0x9e3779b1U + 0x7f4a7c15U;
      key[i] = k ^ (k >> 15);
    }
  }
  *below = nbelow;
  return total;
}

int main(int argc, char **argv) {
  int timing = kc_parse("histo", argc, argv);
  uint32_t *key = kc_alloc("histo", sizeof(uint32_t) * (size_t)N);
  long *hist = kc_alloc("histo", sizeof(long) * BINS);
  uint32_t h = 12345U;
  for (long i = 0; i < N; i++) {
    h = h * 1664525U + 1013904223U; /* fixed-seed LCG (Numerical Recipes) */
    key[i] = h;
  }
  memset(hist, 0, sizeof(long) * BINS);
  long below = 0;
  double t0 = kc_start();
  long total = kernel_histo(key, hist, &below);
  double t1 = omp_get_wtime();
  long hs = 0;
  for (int b = 0; b < BINS; b++) hs += hist[b] * (long)(1 + b % 13);
  printf("histo N=%ld ROUNDS=%d: total %ld below %ld checksum %ld\n", (long)N, ROUNDS, total, below, hs);
  kc_report_time("histo", timing, t1 - t0);
  free(key);
  free(hist);
  return 0;
}

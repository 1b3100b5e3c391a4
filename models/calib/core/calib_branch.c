/* calib_branch.c — what a mispredicted conditional branch costs (hwspec
 * branch_miss_cycles): the pipeline flush and refill after the core finds it fetched
 * down the wrong path.
 *
 * One loop walks a byte array and branches on each byte's top bit, the two sides doing
 * the same work (one add on a counter of their own). It runs twice over the same bytes:
 * in random order (each direction 50 %, no history helps: about every second branch is
 * mispredicted) and sorted (one switch of direction per pass over the array: almost
 * none is). Same loads, same ops, same branches, so the difference is the mispredictions:
 *   cost per mispredict = (t_random - t_sorted) / (0.5 x iterations).
 * The array (1 MiB) is far longer than any predictor's history, so it cannot be learnt
 * from one pass to the next; it is read in order, so the prefetchers stream it in ahead
 * of use and the loads cost the same in both runs.
 *
 * The branch must stay a branch: an if/else that only adds to a counter is what
 * compilers turn into a conditional move (no misprediction, nothing to measure). Each
 * side therefore ends in an empty asm statement of its own on its own counter: a
 * volatile asm is a side effect that may run only on its own path, so it can be neither
 * speculated (a select) nor merged with the other side. The calibration test checks the
 * result lies in the range real cores have (a select would read ~0). */
#include <stdlib.h>
#include <string.h>

#include "calib/calib_impl.h"

#define BRANCH_BYTES ((size_t)1 << 20)

typedef struct branch_walk {
  const uint8_t *bytes; /* BRANCH_BYTES of them */
  uint64_t pos;         /* where the next run starts, so runs do not replay one stretch */
  uint64_t sink;
} branch_walk;

/* n bytes from pos on, wrapping round the array. */
CALIB_KERNEL static void k_branch_walk(void *arg, uint64_t n) {
  branch_walk *w = arg;
  const uint8_t *b = w->bytes;
  uint64_t pos = w->pos, up = 0, down = 0;
  for (uint64_t i = 0; i < n; i++) {
    if (b[(pos + i) & (BRANCH_BYTES - 1)] & 0x80) {
      up++;
      __asm__ volatile("" : "+r"(up));
    } else {
      down++;
      __asm__ volatile("" : "+r"(down));
    }
  }
  w->pos = (pos + n) & (BRANCH_BYTES - 1);
  w->sink += up * 3 + down;
}

/* Counting sort by value: the sorted run branches on the very bytes of the random run. */
static void sort_bytes(const uint8_t *in, uint8_t *out, size_t n) {
  size_t count[256] = {0};
  for (size_t i = 0; i < n; i++) count[in[i]]++;
  size_t k = 0;
  for (int v = 0; v < 256; v++)
    for (size_t c = 0; c < count[v]; c++) out[k++] = (uint8_t)v;
}

int calib_branch_miss_s(gsl_rng *rng, const calib_timing *t, double *random_s, double *sorted_s,
                        double *miss_s) {
  *random_s = *sorted_s = *miss_s = 0;
  uint8_t *rnd = malloc(BRANCH_BYTES), *srt = malloc(BRANCH_BYTES);
  if (!rnd || !srt) {
    free(rnd);
    free(srt);
    return -1;
  }
  for (size_t i = 0; i < BRANCH_BYTES; i++) rnd[i] = (uint8_t)gsl_rng_uniform_int(rng, 256);
  sort_bytes(rnd, srt, BRANCH_BYTES);
  branch_walk r = {.bytes = rnd}, s = {.bytes = srt};
  /* Interleaved, so that a burst of other load spoils both runs' trials alike. */
  for (int round = 0; round < 2; round++) {
    double tr = calib_measure(k_branch_walk, &r, 64, t);
    double ts = calib_measure(k_branch_walk, &s, 64, t);
    *random_s = round == 0 ? tr : calib_rounds(*random_s, tr, t);
    *sorted_s = round == 0 ? ts : calib_rounds(*sorted_s, ts, t);
  }
  free(rnd);
  free(srt);
  /* Every second random branch is mispredicted (the best a predictor can do on coin
   * flips); a difference at or below 0 is noise, reported as not measured. */
  double d = *random_s - *sorted_s;
  *miss_s = d > 0 ? d / 0.5 : 0;
  return 0;
}

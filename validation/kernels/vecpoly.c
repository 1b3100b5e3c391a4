/* vecpoly.c — y[i] += p(x[i]) for a degree-8 polynomial (Horner), over a block of x and
 * y that stays in L1, REPS times per block (the vectorisation pair).
 *
 * clang -O2 vectorises the i loop (independent elements, no reduction): two doubles per
 * SSE2 instruction, half the loads, stores and arithmetic instructions. validation/kernels/
 * list.txt builds this file twice, as `vecpoly` (normal) and `vecpoly-novec`
 * (-fno-vectorize -fno-slp-vectorize): the same memory addresses and the same results,
 * different instruction counts, so the pair shows whether a prediction sees the
 * vectoriser's work. The results are bit-identical between the builds too (no
 * reassociation: each element's Horner chain is computed in the same order).
 *
 * A `parallel for` over NBLK blocks of BS doubles (x and y of one block: 2 * 2 KB), each
 * block updated REPS times in a row, so the data come from L1 and the kernel is bound by
 * arithmetic (16 flops per 3 memory references per element).
 *
 * Sizes: -DNBLK=64 -DBS=256 -DREPS=64. */
#include "kcommon.h"

#ifndef NBLK
#define NBLK 64
#endif
#ifndef BS
#define BS 256
#endif
#ifndef REPS
#define REPS 64
#endif

static KC_NOINLINE void kernel_vecpoly(const double *restrict x, double *restrict y) {
  const double c0 = 0.5, c1 = -0.25, c2 = 0.125, c3 = -0.0625, c4 = 0.03125, c5 = -0.015625, c6 = 0.0078125,
               c7 = -0.00390625, c8 = 0.001953125;
#pragma omp parallel for
  for (int b = 0; b < NBLK; b++) {
    const double *xb = x + (long)b * BS;
    double *yb = y + (long)b * BS;
    for (int r = 0; r < REPS; r++)
      for (int i = 0; i < BS; i++) {
        double v = xb[i];
        yb[i] += c0 + v * (c1 + v * (c2 + v * (c3 + v * (c4 + v * (c5 + v * (c6 + v * (c7 + v * c8)))))));
      }
  }
}

int main(int argc, char **argv) {
  int timing = kc_parse("vecpoly", argc, argv);
  size_t bytes = sizeof(double) * (size_t)NBLK * BS;
  double *x = kc_alloc("vecpoly", bytes), *y = kc_alloc("vecpoly", bytes);
  for (long i = 0; i < (long)NBLK * BS; i++) {
    x[i] = (double)(i % 199) / 199.0 - 0.5;
    y[i] = 0.0;
  }
  double t0 = kc_start();
  kernel_vecpoly(x, y);
  double t1 = omp_get_wtime();
  double s = 0.0;
  for (long i = 0; i < (long)NBLK * BS; i++) s += y[i] * (double)(1 + i % 3);
  printf("vecpoly NBLK=%d BS=%d REPS=%d: checksum %.12e\n", NBLK, BS, REPS, s);
  kc_report_time("vecpoly", timing, t1 - t0);
  free(x);
  free(y);
  return 0;
}

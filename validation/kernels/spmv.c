/* spmv.c — repeated sparse matrix-vector products y = A x, x = A y in CSR format (the
 * irregular kernel: indirect loads x[col[k]] whose addresses the matrix decides).
 *
 * The sparsity pattern comes from a fixed-seed linear congruential generator written
 * here (Knuth's MMIX constants), so every run and every thread count sees the same
 * matrix: row i has 4..20 nonzeros (mean 12); a quarter of them lie in a band of +-64
 * around the diagonal (reuse in L1/L2), the rest anywhere in the row (a miss in every
 * cache once x outgrows it). Each row's values sum to at most 1 in absolute value, so the
 * iterates stay bounded. Each product is a `parallel for` over rows with the default
 * static schedule; a row's dot product is summed in index order by one thread, so the
 * result does not depend on the thread count. Rows have unequal lengths, so the static
 * halves carry slightly different work.
 *
 * Sizes: -DNROWS=65536 -DITERS=4 (ITERS products, alternating x -> y and y -> x). */
#include "kcommon.h"

#include <stdint.h>

#ifndef NROWS
#define NROWS 65536
#endif
#ifndef ITERS
#define ITERS 4
#endif

static uint64_t lcg_state = 0x2545f4914f6cdd1dULL;

static uint32_t lcg_next(void) {
  return kc_lcg_next(&lcg_state);
}

static long build_pattern(int *rowptr, int *col, double *val, long cap) {
  long k = 0;
  for (int i = 0; i < NROWS; i++) {
    rowptr[i] = (int)k;
    int nnz = 4 + (int)(lcg_next() % 17U);
    for (int e = 0; e < nnz; e++) {
      uint32_t r = lcg_next();
      int c;
      if (r % 4U == 0) {
        c = i - 64 + (int)((r >> 8) % 129U);
        if (c < 0) c += NROWS;
        if (c >= NROWS) c -= NROWS;
      } else {
        c = (int)((r >> 8) % (uint32_t)NROWS);
      }
      if (k >= cap) {
        fprintf(stderr, "spmv: pattern overflow\n");
        exit(1);
      }
      col[k] = c;
      val[k] = ((double)(lcg_next() % 2001U) - 1000.0) / (1000.0 * nnz);
      k++;
    }
  }
  rowptr[NROWS] = (int)k;
  return k;
}

static KC_NOINLINE void kernel_spmv(const int *restrict rowptr, const int *restrict col,
                                    const double *restrict val, double *restrict x, double *restrict y) {
  for (int it = 0; it < ITERS; it++) {
    const double *src = (it % 2 == 0) ? x : y;
    double *dst = (it % 2 == 0) ? y : x;
#pragma omp parallel for
    for (int i = 0; i < NROWS; i++) {
      double s = 0.0;
      for (int k = rowptr[i]; k < rowptr[i + 1]; k++) s += val[k] * src[col[k]];
      dst[i] = s + 0.5 * src[i];
    }
  }
}

int main(int argc, char **argv) {
  int timing = kc_parse("spmv", argc, argv);
  long cap = (long)NROWS * 20;
  int *rowptr = kc_alloc("spmv", sizeof(int) * (NROWS + 1));
  int *col = kc_alloc("spmv", sizeof(int) * (size_t)cap);
  double *val = kc_alloc("spmv", sizeof(double) * (size_t)cap);
  double *x = kc_alloc("spmv", sizeof(double) * NROWS), *y = kc_alloc("spmv", sizeof(double) * NROWS);
  long nnz = build_pattern(rowptr, col, val, cap);
  for (int i = 0; i < NROWS; i++) {
    x[i] = 1.0 + (double)(i % 37) / 37.0;
    y[i] = 0.0;
  }
  double t0 = kc_start();
  kernel_spmv(rowptr, col, val, x, y);
  double t1 = omp_get_wtime();
  const double *res = (ITERS % 2 == 0) ? x : y;
  double s = 0.0;
  for (int i = 0; i < NROWS; i++) s += res[i] * (double)(1 + i % 5);
  printf("spmv NROWS=%d NNZ=%ld ITERS=%d: checksum %.12e\n", NROWS, nnz, ITERS, s);
  kc_report_time("spmv", timing, t1 - t0);
  free(rowptr);
  free(col);
  free(val);
  free(x);
  free(y);
  return 0;
}

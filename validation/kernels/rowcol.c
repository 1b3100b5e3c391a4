/* rowcol.c — a two-phase program whose parallel regions behave differently: per time step
 * a row sweep that hits in L1 and a column walk that misses.
 *
 *   phase 1 (rows):    B[i][j] = 0.5 * (A[i][j] + A[i][j+1])      parallel for over rows
 *   phase 2 (columns): B[i][j] += 0.5 * B[i-1][j], i = 1..N-1     parallel for over columns
 *   phase 3 (rows):    A[i][j] = 0.5 * B[i][j]                    parallel for over rows
 *
 * Phase 1 walks rows of row-major arrays (unit stride: 8 doubles per line, 7 of 8
 * references hit L1). Phase 2 is a recurrence down each column, so the inner loop strides
 * by a whole row (N doubles, 8 KB at the default N = 1024): every reference touches a new
 * line and a new 4 KiB page; the lines of column j are needed again for
 * column j+1, by which time a column's N lines (64 KB at N = 1024) have left the L1. The
 * row and column phases run the same number of iterations over the same data, so the program's
 * average hides a hit-heavy and a miss-heavy region: a model must get both.
 * Phase 3 copies B back into A (a row sweep), so that each step starts from the last one.
 *
 * Sizes: -DN=1024 -DTSTEPS=2. -DPAD=k pads every row by k doubles. At N = 1024 a row is
 * 128 lines, so a column's lines all fall in one L1 set (set conflicts on top of
 * capacity); the runtime validation's N = 3000 (375 lines per row, an odd count) spreads
 * them over every set, so the column walk's L1 misses are capacity misses, served by L2. */
#include "kcommon.h"

#ifndef N
#define N 1024
#endif
#ifndef TSTEPS
#define TSTEPS 2
#endif
#ifndef PAD
#define PAD 0
#endif
#define LD (N + PAD)

typedef double row_t[LD];

static KC_NOINLINE void kernel_rowcol(row_t *restrict a, row_t *restrict b) {
  for (int t = 0; t < TSTEPS; t++) {
#pragma omp parallel for
    for (int i = 0; i < N; i++) {
      for (int j = 0; j < N - 1; j++) b[i][j] = 0.5 * (a[i][j] + a[i][j + 1]);
      b[i][N - 1] = a[i][N - 1];
    }
#pragma omp parallel for
    for (int j = 0; j < N; j++)
      for (int i = 1; i < N; i++) b[i][j] += 0.5 * b[i - 1][j];
#pragma omp parallel for
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) a[i][j] = 0.5 * b[i][j];
  }
}

int main(int argc, char **argv) {
  int timing = kc_parse("rowcol", argc, argv);
  size_t bytes = sizeof(row_t) * (size_t)N;
  row_t *a = kc_alloc("rowcol", bytes), *b = kc_alloc("rowcol", bytes);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < LD; j++) a[i][j] = (double)((i * 11 + j * 19) % 103) / 103.0;
  memset(b, 0, bytes);
  double t0 = kc_start();
  kernel_rowcol(a, b);
  double t1 = omp_get_wtime();
  double s = 0.0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) s += a[i][j] * (double)(1 + (i * 3 + j) % 7);
  printf("rowcol N=%d TSTEPS=%d: checksum %.12e\n", N, TSTEPS, s);
  kc_report_time("rowcol", timing, t1 - t0);
  free(a);
  free(b);
  return 0;
}

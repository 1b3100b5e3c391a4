/* jacobi.c — 2-D Jacobi relaxation: the five-point average
 *   B[i][j] = (A[i][j] + A[i-1][j] + A[i+1][j] + A[i][j-1] + A[i][j+1]) / 5
 * over the interior of an N x N grid, then the same from B back into A, TSTEPS times; each
 * sweep is a `parallel for` over rows. A row is N doubles (8 KB at N = 1024), so the three
 * input rows of a sweep overflow the 8 KB L1 and the L2 carries the row-to-row reuse; the
 * two 8 MB grids are streamed from memory on every sweep.
 *
 * Sizes: -DN=1024 -DTSTEPS=8. SASMM Table 3 ran N = 1024 for 1024 iterations (a 3 GB
 * trace); every sweep has the same access pattern, so 8 iterations give the same hit rates
 * at 1/128 of the cost. -DPAD=k pads every row by k doubles. */
#include "kcommon.h"

#ifndef N
#define N 1024
#endif
#ifndef TSTEPS
#define TSTEPS 8
#endif
#ifndef PAD
#define PAD 0
#endif
#define LD (N + PAD)

typedef double row_t[LD];

static KC_NOINLINE void kernel_jacobi(row_t *restrict a, row_t *restrict b) {
  for (int t = 0; t < TSTEPS; t++) {
#pragma omp parallel for
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        b[i][j] = 0.2 * (a[i][j] + a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1]);
#pragma omp parallel for
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        a[i][j] = 0.2 * (b[i][j] + b[i - 1][j] + b[i + 1][j] + b[i][j - 1] + b[i][j + 1]);
  }
}

int main(int argc, char **argv) {
  int timing = kc_parse("jacobi", argc, argv);
  size_t bytes = sizeof(row_t) * (size_t)N;
  row_t *a = kc_alloc("jacobi", bytes), *b = kc_alloc("jacobi", bytes);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < LD; j++) {
      a[i][j] = (double)((i * 3 + j * 5) % 97) / 97.0;
      b[i][j] = a[i][j];
    }
  double t0 = kc_start();
  kernel_jacobi(a, b);
  double t1 = omp_get_wtime();
  double s = 0.0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) s += a[i][j] * (double)(1 + (i + j) % 3);
  printf("jacobi N=%d TSTEPS=%d: checksum %.12e\n", N, TSTEPS, s);
  kc_report_time("jacobi", timing, t1 - t0);
  free(a);
  free(b);
  return 0;
}

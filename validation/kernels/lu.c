/* lu.c — in-place LU decomposition without pivoting, A = L U with L unit lower triangular
 * (its multipliers stored below the diagonal) and U upper triangular.
 *
 * Right-looking (kij) order: for each pivot k, every row i > k computes its multiplier
 * l = A[i][k] / A[k][k] and subtracts l times pivot row k from its trailing part. The k
 * loop is sequential (kernel_lu); the rows below the pivot are independent, so each step
 * is one `parallel for` over i. Every row reads the pivot row, which is therefore shared by
 * all threads, and the trailing matrix shrinks step by step, so with the static schedule
 * the late steps leave most threads idle.
 *
 * Size: -DN=256 (SASMM Table 3). The matrix is made strictly diagonally dominant, so no
 * pivoting is needed. -DPAD=k pads every row by k doubles. */
#include "kcommon.h"

#ifndef N
#define N 256
#endif
#ifndef PAD
#define PAD 0
#endif
#define LD (N + PAD)

typedef double row_t[LD];

static KC_NOINLINE void kernel_lu(row_t *restrict a) {
  for (int k = 0; k < N - 1; k++) {
#pragma omp parallel for
    for (int i = k + 1; i < N; i++) {
      double l = a[i][k] / a[k][k];
      a[i][k] = l;
      for (int j = k + 1; j < N; j++) a[i][j] -= l * a[k][j];
    }
  }
}

int main(int argc, char **argv) {
  int timing = kc_parse("lu", argc, argv);
  row_t *a = kc_alloc("lu", sizeof(row_t) * (size_t)N);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < LD; j++) a[i][j] = (i == j ? (double)N : 0.0) + (double)((i * 11 + j * 19) % 23) / 23.0;
  double t0 = kc_start();
  kernel_lu(a);
  double t1 = omp_get_wtime();
  double s = 0.0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) s += a[i][j] * (double)(1 + (i * 3 + j) % 7);
  printf("lu N=%d: checksum %.12e\n", N, s);
  kc_report_time("lu", timing, t1 - t0);
  free(a);
  return 0;
}

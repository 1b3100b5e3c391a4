/* gramschmidt.c — QR decomposition of an M x N matrix A (M >= N) by modified Gram–Schmidt:
 * A = Q R with Q (M x N) orthonormal columns and R (N x N) upper triangular. A is
 * overwritten by the successive residuals.
 *
 *   for k: R[k][k] = ||A[:,k]||;  Q[:,k] = A[:,k] / R[k][k]
 *          for j > k: R[k][j] = Q[:,k] . A[:,j];  A[:,j] -= Q[:,k] R[k][j]
 *
 * The k loop is sequential (kernel_gramschmidt); the column scaling and the projection of
 * the remaining columns (one iteration per column j, as in PolyBench/OpenMP) are
 * `parallel for` loops; the norm, M multiply-adds per k, stays sequential. All inner loops
 * walk columns of row-major arrays (stride N doubles), and the static schedule over
 * j = k+1..N-1 gives the threads shrinking, unequal column ranges.
 *
 * Sizes: -DM=192 -DN=192 (SASMM Table 3: 192). -DPAD=k pads every row by k doubles. */
#include "kcommon.h"

#include <math.h>

#ifndef N
#define N 192
#endif
#ifndef M
#define M N
#endif
#ifndef PAD
#define PAD 0
#endif
#define LD (N + PAD)

typedef double row_t[LD];

static KC_NOINLINE void kernel_gramschmidt(row_t *restrict a, row_t *restrict q, row_t *restrict r) {
  for (int k = 0; k < N; k++) {
    double nrm = 0.0;
    for (int i = 0; i < M; i++) nrm += a[i][k] * a[i][k];
    double rkk = sqrt(nrm);
    r[k][k] = rkk;
#pragma omp parallel for
    for (int i = 0; i < M; i++) q[i][k] = a[i][k] / rkk;
#pragma omp parallel for
    for (int j = k + 1; j < N; j++) {
      double s = 0.0;
      for (int i = 0; i < M; i++) s += q[i][k] * a[i][j];
      r[k][j] = s;
      for (int i = 0; i < M; i++) a[i][j] -= q[i][k] * s;
    }
  }
}

int main(int argc, char **argv) {
  int timing = kc_parse("gramschmidt", argc, argv);
  row_t *a = kc_alloc("gramschmidt", sizeof(row_t) * (size_t)M);
  row_t *q = kc_alloc("gramschmidt", sizeof(row_t) * (size_t)M);
  row_t *r = kc_alloc("gramschmidt", sizeof(row_t) * (size_t)N);
  /* A well-conditioned matrix: a strong diagonal plus a deterministic pattern. */
  for (int i = 0; i < M; i++)
    for (int j = 0; j < LD; j++) a[i][j] = (i == j ? 4.0 : 0.0) + (double)((i * 13 + j * 7) % 29) / 29.0;
  memset(q, 0, sizeof(row_t) * (size_t)M);
  memset(r, 0, sizeof(row_t) * (size_t)N);
  double t0 = kc_start();
  kernel_gramschmidt(a, q, r);
  double t1 = omp_get_wtime();
  double s = 0.0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) s += r[i][j] * (double)(1 + (i + 2 * j) % 5);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) s += q[i][j] * (double)(1 + (2 * i + j) % 3);
  printf("gramschmidt M=%d N=%d: checksum %.12e\n", M, N, s);
  kc_report_time("gramschmidt", timing, t1 - t0);
  free(a);
  free(q);
  free(r);
  return 0;
}

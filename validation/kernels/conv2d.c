/* conv2d.c — 2-D convolution of an N x N image with a fixed 3 x 3 filter:
 *   B[i][j] = sum_{di,dj in -1..1} w[di][dj] * A[i+di][j+dj]   for interior points,
 * one `parallel for` over image rows. Each output row reads three input rows; at N = 1024
 * (8 KB per row of doubles) the three rows already overflow the 8 KB L1, so L1 sees
 * reuse only within a row and the L2 catches the reuse between neighbouring rows.
 *
 * Size: -DN=1024 (SASMM Table 3). -DPAD=k pads every row by k doubles. */
#include "kcommon.h"

#ifndef N
#define N 1024
#endif
#ifndef PAD
#define PAD 0
#endif
#define LD (N + PAD)

typedef double row_t[LD];

static KC_NOINLINE void kernel_conv2d(const row_t *restrict a, row_t *restrict b) {
  /* An asymmetric filter, so that a transposed or shifted access would change the result. */
  const double w00 = 0.20, w01 = -0.30, w02 = 0.40;
  const double w10 = 0.50, w11 = 0.60, w12 = 0.70;
  const double w20 = -0.80, w21 = -0.90, w22 = 0.10;
#pragma omp parallel for
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < N - 1; j++)
      b[i][j] = w00 * a[i - 1][j - 1] + w01 * a[i - 1][j] + w02 * a[i - 1][j + 1] + w10 * a[i][j - 1] +
                w11 * a[i][j] + w12 * a[i][j + 1] + w20 * a[i + 1][j - 1] + w21 * a[i + 1][j] +
                w22 * a[i + 1][j + 1];
}

int main(int argc, char **argv) {
  int timing = kc_parse("conv2d", argc, argv);
  size_t bytes = sizeof(row_t) * (size_t)N;
  row_t *a = kc_alloc("conv2d", bytes), *b = kc_alloc("conv2d", bytes);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < LD; j++) a[i][j] = (double)((i * 31 + j * 17) % 257) / 257.0;
  memset(b, 0, bytes);
  double t0 = kc_start();
  kernel_conv2d(a, b);
  double t1 = omp_get_wtime();
  double s = 0.0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) s += b[i][j] * (double)(1 + (i ^ j) % 5);
  printf("conv2d N=%d: checksum %.12e\n", N, s);
  kc_report_time("conv2d", timing, t1 - t0);
  free(a);
  free(b);
  return 0;
}

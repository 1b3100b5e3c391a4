/* durbin.c — Levinson–Durbin recursion solving the Yule–Walker equations T y = -r, where T
 * is the symmetric Toeplitz matrix with first column (1, r[0], ..., r[N-2]).
 *
 * Step k (1 <= k < N) extends the order-k solution y^(k-1) to order k+1:
 *   beta_k  = (1 - alpha_{k-1}^2) beta_{k-1}
 *   alpha_k = -(r[k] + sum_{i<k} r[k-1-i] y^(k-1)_i) / beta_k
 *   y^(k)_i = y^(k-1)_i + alpha_k y^(k-1)_{k-1-i}   (i < k),   y^(k)_k = alpha_k
 * The k loop is inherently sequential and stays in kernel_durbin(); the dot product and
 * the update are `parallel for` loops. As in PolyBench 3.x's durbin (the trace sizes of
 * SASMM Table 3 suggest that generation), every intermediate solution is kept: row k of
 * the N x N array Y holds y^(k) (row-major, so a step reads row k-1 and writes row k).
 * The footprint therefore grows as N^2/2 and each step writes fresh lines, which is
 * where durbin's misses come from.
 *
 * The dot product is a reduction; to keep the result independent of the thread count it
 * is cut into DBLOCKS fixed blocks (not one per thread), each summed in index order by
 * one iteration of the parallel loop, and the partial sums are added in block order.
 *
 * Size: -DN=2048 (SASMM Table 3). */
#include "kcommon.h"

#include <math.h>

#ifndef N
#define N 2048
#endif
#define DBLOCKS 64

typedef double row_t[N];

static KC_NOINLINE double kernel_durbin(const double *restrict r, row_t *restrict y,
                                        double *restrict part) {
  double alpha = -r[0], beta = 1.0;
  y[0][0] = -r[0];
  for (int k = 1; k < N; k++) {
    beta = (1.0 - alpha * alpha) * beta;
    const double *prev = y[k - 1];
#pragma omp parallel for
    for (int b = 0; b < DBLOCKS; b++) {
      int lo = (int)((long)k * b / DBLOCKS), hi = (int)((long)k * (b + 1) / DBLOCKS);
      double s = 0.0;
      for (int i = lo; i < hi; i++) s += r[k - 1 - i] * prev[i];
      part[b] = s;
    }
    double dot = 0.0;
    for (int b = 0; b < DBLOCKS; b++) dot += part[b];
    alpha = -(r[k] + dot) / beta;
    double *cur = y[k];
#pragma omp parallel for
    for (int i = 0; i < k; i++) cur[i] = prev[i] + alpha * prev[k - 1 - i];
    cur[k] = alpha;
  }
  return beta;
}

int main(int argc, char **argv) {
  int timing = kc_parse("durbin", argc, argv);
  double *r = kc_alloc("durbin", sizeof(double) * N);
  row_t *y = kc_alloc("durbin", sizeof(row_t) * (size_t)N);
  double *part = kc_alloc("durbin", sizeof(double) * DBLOCKS);
  /* T = (I + C) / 2 with C the autocorrelation matrix of 0.99^h cos(0.3 h), a positive
   * definite Toeplitz matrix: then |alpha_k| < 1 and beta_k > 0 at every step, and the values
   * decay slowly enough that nothing becomes denormal (which would slow the timed run). */
  for (int i = 0; i < N; i++) r[i] = 0.5 * pow(0.99, i + 1) * cos(0.3 * (i + 1));
  memset(y, 0, sizeof(row_t) * (size_t)N); /* page faults before, not inside, the timed kernel */
  double t0 = kc_start();
  double beta = kernel_durbin(r, y, part);
  double t1 = omp_get_wtime();
  double s = 0.0;
  for (int i = 0; i < N; i++) s += y[N - 1][i] * (double)(1 + i % 7);
  printf("durbin N=%d: checksum %.12e beta %.12e\n", N, s, beta);
  kc_report_time("durbin", timing, t1 - t0);
  free(r);
  free(y);
  free(part);
  return 0;
}

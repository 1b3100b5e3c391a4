/* adi.c — Alternating Direction Implicit (Peaceman–Rachford) time stepping of the 2-D heat
 * equation u_t = u_xx + u_yy on an N x N grid with Dirichlet boundary value 1.
 *
 * Each time step is two half steps. The first is implicit along the first index (one
 * tridiagonal system per grid column, solved with the Thomas algorithm) and explicit
 * along the second; the second half step swaps the roles. Lines are independent, so each
 * half step is a `parallel for` over lines. The first half step walks columns of the
 * row-major arrays u and v (stride N doubles), the second walks rows: the mix of strided
 * and unit-stride sweeps is what makes ADI a hard case for cache models (SASMM §4).
 * The Thomas coefficients are kept in N x N scratch arrays p, q (one row per line), so
 * threads never share scratch.
 *
 * Sizes: -DN=512 -DTSTEPS=2 (SASMM Table 3). -DPAD=k pads every row by k doubles, to
 * switch off the set conflicts of power-of-two row strides when studying them. */
#include "kcommon.h"

#ifndef N
#define N 512
#endif
#ifndef TSTEPS
#define TSTEPS 2
#endif
#ifndef PAD
#define PAD 0
#endif
#define LD (N + PAD)

typedef double row_t[LD];

static void init(row_t *u) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      u[i][j] = (i == 0 || j == 0 || i == N - 1 || j == N - 1) ? 1.0
                                                             : (double)((i * 7 + j * 13) % 101) / 101.0;
}

/* r = dt / h^2 of each half step; any r > 0 keeps the implicit systems diagonally dominant. */
#define R_COEF 0.75

static KC_NOINLINE void kernel_adi(row_t *restrict u, row_t *restrict v, row_t *restrict p,
                                   row_t *restrict q) {
  const double r = R_COEF;
  const double lo = -r, diag = 1.0 + 2.0 * r; /* tridiagonal: lo, diag, lo */
  for (int t = 0; t < TSTEPS; t++) {
    /* Half step 1: implicit along i for every column j, explicit along j. */
#pragma omp parallel for
    for (int j = 1; j < N - 1; j++) {
      p[j][0] = 0.0;
      q[j][0] = 1.0; /* v[0][j], the boundary value */
      for (int i = 1; i < N - 1; i++) {
        double rhs = r * u[i][j - 1] + (1.0 - 2.0 * r) * u[i][j] + r * u[i][j + 1];
        double den = diag - lo * p[j][i - 1];
        p[j][i] = lo / den;
        q[j][i] = (rhs - lo * q[j][i - 1]) / den;
      }
      v[0][j] = 1.0;
      v[N - 1][j] = 1.0;
      for (int i = N - 2; i >= 1; i--) v[i][j] = q[j][i] - p[j][i] * v[i + 1][j];
    }
    /* Half step 2: implicit along j for every row i, explicit along i. */
#pragma omp parallel for
    for (int i = 1; i < N - 1; i++) {
      p[i][0] = 0.0;
      q[i][0] = 1.0; /* u[i][0] */
      for (int j = 1; j < N - 1; j++) {
        double rhs = r * v[i - 1][j] + (1.0 - 2.0 * r) * v[i][j] + r * v[i + 1][j];
        double den = diag - lo * p[i][j - 1];
        p[i][j] = lo / den;
        q[i][j] = (rhs - lo * q[i][j - 1]) / den;
      }
      u[i][0] = 1.0;
      u[i][N - 1] = 1.0;
      for (int j = N - 2; j >= 1; j--) u[i][j] = q[i][j] - p[i][j] * u[i][j + 1];
    }
  }
}

static double checksum(row_t *u) {
  double s = 0.0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) s += u[i][j] * (double)(1 + (i + j) % 7);
  return s;
}

int main(int argc, char **argv) {
  int timing = kc_parse("adi", argc, argv);
  size_t bytes = sizeof(row_t) * (size_t)N;
  row_t *u = kc_alloc("adi", bytes), *v = kc_alloc("adi", bytes);
  row_t *p = kc_alloc("adi", bytes), *q = kc_alloc("adi", bytes);
  init(u);
  memset(v, 0, bytes);
  memset(p, 0, bytes);
  memset(q, 0, bytes);
  double t0 = kc_start();
  kernel_adi(u, v, p, q);
  double t1 = omp_get_wtime();
  printf("adi N=%d TSTEPS=%d: checksum %.12e\n", N, TSTEPS, checksum(u));
  kc_report_time("adi", timing, t1 - t0);
  free(u);
  free(v);
  free(p);
  free(q);
  return 0;
}

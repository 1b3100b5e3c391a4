/* mm2.c — "2mm": two chained matrix products, D = alpha A B C + beta D, computed as
 *   tmp = alpha A B        (NI x NK times NK x NJ)
 *   D   = beta D + tmp C   (NI x NJ times NJ x NL)
 * with the plain i-j-k loop order and one `parallel for` over the rows i of each product
 * (PolyBench/OpenMP's parallelisation). The innermost k loop reads a row of the left
 * operand and a column of the right one: at 128 columns of doubles that column has a
 * 1 KB stride, so all its elements fall in the same L1 set.
 *
 * Sizes: -DNI=128 -DNJ=128 -DNK=128 -DNL=128 (SASMM Table 3: 128); -DSIZE=n sets all four.
 * -DPAD=k pads every row by k doubles. */
#include "kcommon.h"

#ifndef SIZE
#define SIZE 128
#endif
#ifndef NI
#define NI SIZE
#endif
#ifndef NJ
#define NJ SIZE
#endif
#ifndef NK
#define NK SIZE
#endif
#ifndef NL
#define NL SIZE
#endif
#ifndef PAD
#define PAD 0
#endif

typedef double rowk_t[NK + PAD]; /* rows of A */
typedef double rowj_t[NJ + PAD]; /* rows of B and tmp */
typedef double rowl_t[NL + PAD]; /* rows of C and D */

static KC_NOINLINE void kernel_2mm(double alpha, double beta, const rowk_t *restrict a,
                                   const rowj_t *restrict b, rowj_t *restrict tmp,
                                   const rowl_t *restrict c, rowl_t *restrict d) {
#pragma omp parallel for
  for (int i = 0; i < NI; i++)
    for (int j = 0; j < NJ; j++) {
      double s = 0.0;
      for (int k = 0; k < NK; k++) s += alpha * a[i][k] * b[k][j];
      tmp[i][j] = s;
    }
#pragma omp parallel for
  for (int i = 0; i < NI; i++)
    for (int l = 0; l < NL; l++) {
      double s = beta * d[i][l];
      for (int j = 0; j < NJ; j++) s += tmp[i][j] * c[j][l];
      d[i][l] = s;
    }
}

int main(int argc, char **argv) {
  int timing = kc_parse("mm2", argc, argv);
  rowk_t *a = kc_alloc("mm2", sizeof(rowk_t) * NI);
  rowj_t *b = kc_alloc("mm2", sizeof(rowj_t) * NK);
  rowj_t *tmp = kc_alloc("mm2", sizeof(rowj_t) * NI);
  rowl_t *c = kc_alloc("mm2", sizeof(rowl_t) * NJ);
  rowl_t *d = kc_alloc("mm2", sizeof(rowl_t) * NI);
  for (int i = 0; i < NI; i++)
    for (int k = 0; k < NK + PAD; k++) a[i][k] = (double)((i * k + 1) % NI) / NI;
  for (int k = 0; k < NK; k++)
    for (int j = 0; j < NJ + PAD; j++) b[k][j] = (double)(k * (j + 1) % NJ) / NJ;
  for (int j = 0; j < NJ; j++)
    for (int l = 0; l < NL + PAD; l++) c[j][l] = (double)((j * (l + 3) + 1) % NL) / NL;
  for (int i = 0; i < NI; i++)
    for (int l = 0; l < NL + PAD; l++) d[i][l] = (double)(i * (l + 2) % NK) / NK;
  memset(tmp, 0, sizeof(rowj_t) * NI);
  double t0 = kc_start();
  kernel_2mm(1.5, 1.2, a, b, tmp, c, d);
  double t1 = omp_get_wtime();
  double s = 0.0;
  for (int i = 0; i < NI; i++)
    for (int l = 0; l < NL; l++) s += d[i][l] * (double)(1 + (i + l) % 4);
  printf("mm2 NI=%d NJ=%d NK=%d NL=%d: checksum %.12e\n", NI, NJ, NK, NL, s);
  kc_report_time("mm2", timing, t1 - t0);
  free(a);
  free(b);
  free(tmp);
  free(c);
  free(d);
  return 0;
}

/* matmul.c — the bundled example kernel: C = A x B on N x N doubles, OpenMP parallel
 * over rows of C. `ppt trace` runs it sequentially (OMP_NUM_THREADS=1) and the models
 * predict its behaviour on N cores. Usage: matmul [N] (default 128). */
#include <stdio.h>
#include <stdlib.h>

static void init(double *m, int n, double seed) {
  for (int i = 0; i < n * n; i++) m[i] = seed + (double)(i % 17) * 0.25;
}

static void matmul(const double *a, const double *b, double *c, int n) {
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) {
      double s = 0.0;
      for (int k = 0; k < n; k++) s += a[i * n + k] * b[k * n + j];
      c[i * n + j] = s;
    }
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 128;
  if (n <= 0 || n > 8192) {
    fprintf(stderr, "matmul: N must be 1..8192\n");
    return 2;
  }
  double *a = malloc(sizeof(double) * (size_t)n * (size_t)n);
  double *b = malloc(sizeof(double) * (size_t)n * (size_t)n);
  double *c = malloc(sizeof(double) * (size_t)n * (size_t)n);
  if (!a || !b || !c) return 1;
  init(a, n, 1.0);
  init(b, n, 2.0);
  matmul(a, b, c, n);
  double sum = 0;
  for (int i = 0; i < n * n; i++) sum += c[i];
  printf("matmul %d: checksum %.6e\n", n, sum);
  free(a);
  free(b);
  free(c);
  return 0;
}

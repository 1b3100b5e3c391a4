/* nbody.c — direct-sum gravitational N-body steps (the compute-bound kernel).
 *
 * Per step, every body's acceleration is summed over all others with Plummer softening,
 *   a_i = sum_j m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^{3/2},
 * a `parallel for` over bodies i (the j loop in index order inside one thread, so the sums
 * do not depend on the thread count), then velocities and positions are advanced
 * (leapfrog, a second `parallel for`). The pair loop does ~20 floating-point operations,
 * one sqrt and one division per 4 loads (x, y, z, m of body j) from arrays that stay in
 * L1/L2 (32 bytes per body): time goes to the arithmetic, the divider and the three
 * dependent accumulations, not to memory. clang -O2 does not vectorise the j loop (its
 * sums are floating-point reductions, which it may not reorder).
 *
 * Sizes: -DNBODY=512 -DSTEPS=4. */
#include "kcommon.h"

#include <math.h>

#ifndef NBODY
#define NBODY 512
#endif
#ifndef STEPS
#define STEPS 4
#endif

#define EPS2 1e-3
#define DT 1e-3

static KC_NOINLINE void kernel_nbody(double *restrict x, double *restrict y, double *restrict z,
                                     const double *restrict m, double *restrict vx, double *restrict vy,
                                     double *restrict vz, double *restrict ax, double *restrict ay,
                                     double *restrict az) {
  for (int s = 0; s < STEPS; s++) {
#pragma omp parallel for
    for (int i = 0; i < NBODY; i++) {
      double xi = x[i], yi = y[i], zi = z[i];
      double sx = 0.0, sy = 0.0, sz = 0.0;
      for (int j = 0; j < NBODY; j++) {
        double dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi;
        double r2 = dx * dx + dy * dy + dz * dz + EPS2;
        double w = m[j] / (r2 * sqrt(r2));
        sx += w * dx;
        sy += w * dy;
        sz += w * dz;
      }
      ax[i] = sx;
      ay[i] = sy;
      az[i] = sz;
    }
#pragma omp parallel for
    for (int i = 0; i < NBODY; i++) {
      vx[i] += DT * ax[i];
      vy[i] += DT * ay[i];
      vz[i] += DT * az[i];
      x[i] += DT * vx[i];
      y[i] += DT * vy[i];
      z[i] += DT * vz[i];
    }
  }
}

int main(int argc, char **argv) {
  int timing = kc_parse("nbody", argc, argv);
  size_t bytes = sizeof(double) * NBODY;
  double *x = kc_alloc("nbody", bytes), *y = kc_alloc("nbody", bytes), *z = kc_alloc("nbody", bytes);
  double *m = kc_alloc("nbody", bytes);
  double *vx = kc_alloc("nbody", bytes), *vy = kc_alloc("nbody", bytes), *vz = kc_alloc("nbody", bytes);
  double *ax = kc_alloc("nbody", bytes), *ay = kc_alloc("nbody", bytes), *az = kc_alloc("nbody", bytes);
  /* Bodies on a deterministic lattice-like cloud in the unit cube. */
  for (int i = 0; i < NBODY; i++) {
    x[i] = (double)((i * 37) % 101) / 101.0;
    y[i] = (double)((i * 53) % 103) / 103.0;
    z[i] = (double)((i * 71) % 107) / 107.0;
    m[i] = 1.0 / NBODY * (1.0 + (double)(i % 7) / 7.0);
    vx[i] = vy[i] = vz[i] = 0.0;
    ax[i] = ay[i] = az[i] = 0.0;
  }
  double t0 = kc_start();
  kernel_nbody(x, y, z, m, vx, vy, vz, ax, ay, az);
  double t1 = omp_get_wtime();
  double s = 0.0;
  for (int i = 0; i < NBODY; i++) s += (x[i] + 2.0 * y[i] + 3.0 * z[i]) * (double)(1 + i % 3) + vx[i] - vz[i];
  printf("nbody NBODY=%d STEPS=%d: checksum %.12e\n", NBODY, STEPS, s);
  kc_report_time("nbody", timing, t1 - t0);
  free(x);
  free(y);
  free(z);
  free(m);
  free(vx);
  free(vy);
  free(vz);
  free(ax);
  free(ay);
  free(az);
  return 0;
}

/* calib_omp.c — cost of an OpenMP parallel region (fork, empty worksharing loop, join
 * barrier) with the threads this machine offers; compiled with -fopenmp.
 *
 * `ppt calibrate` normally has this timed by ppt-ompcost (apps/ompcost), a process that
 * links this file and calib_time.c but not SimGrid: libomp's regions run about twice as
 * slow in any process linked with SimGrid (and what it pulls in), while the programs
 * being predicted are plain executables. In-process timing is the fallback (calib.c). */
#include <omp.h>

#include "calib/calib_impl.h"

typedef struct region {
  int threads;
  volatile int sink;
} region;

/* A plain worksharing loop, one iteration per thread, as most regions are: no
 * reduction (its combining step costs as much again and is the program's own work). */
static void run_regions(void *arg, uint64_t n) {
  region *r = arg;
  for (uint64_t i = 0; i < n; i++) {
#pragma omp parallel for num_threads(r->threads)
    for (int j = 0; j < r->threads; j++)
      if (j == 0) r->sink = (int)i;
  }
}

int calib_omp_threads(int threads) {
  return threads > 0 ? threads : omp_get_num_procs();
}

double calib_fork_join_s(int threads, const calib_timing *t) {
  region r = {.threads = calib_omp_threads(threads)};
  return calib_measure(run_regions, &r, 1, t);
}

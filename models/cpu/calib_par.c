/* calib_par.c — what the core model needs beyond latencies and bandwidths: how many
 * misses a core keeps in flight (memory-level parallelism), what a call into an
 * untraced library costs, and what an OpenMP parallel region's fork and join cost. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "cpu/calib_impl.h"

/* ---- memory-level parallelism ---- */
typedef struct chains {
  const uint64_t *next; /* next[i] = index of the line after line i (8 words per line) */
  uint64_t start[32];
  int k;
  uint64_t sink;
} chains;

static void run_chains(void *arg, uint64_t n) {
  chains *c = arg;
  uint64_t p[32];
  for (int j = 0; j < c->k; j++) p[j] = c->start[j];
  for (uint64_t s = 0; s < n; s += (uint64_t)c->k)
    for (int j = 0; j < c->k; j++) p[j] = c->next[p[j]];
  for (int j = 0; j < c->k; j++) c->sink += p[j];
}

double calib_mlp(size_t bytes, gsl_rng *rng, const calib_timing *t) {
  size_t lines = bytes / 64;
  uint64_t *buf = aligned_alloc(64, lines * 64);
  uint64_t *perm = malloc(lines * sizeof *perm);
  if (!buf || !perm) {
    free(buf);
    free(perm);
    return 0;
  }
  /* One random cycle through every line (a chase the prefetchers cannot follow); k
   * chains start evenly spaced on it, so their misses are independent. */
  for (size_t i = 0; i < lines; i++) perm[i] = i;
  for (size_t i = lines - 1; i > 0; i--) {
    size_t j = gsl_rng_uniform_int(rng, i + 1);
    uint64_t x = perm[i];
    perm[i] = perm[j];
    perm[j] = x;
  }
  for (size_t i = 0; i < lines; i++) buf[perm[i] * 8] = perm[(i + 1) % lines] * 8;
  chains c = {.next = buf};
  double one = 0, best = 0;
  for (int k = 1; k <= 32; k *= 2) {
    c.k = k;
    for (int j = 0; j < k; j++) c.start[j] = perm[(lines / (size_t)k) * (size_t)j] * 8;
    double s = calib_measure(run_chains, &c, (uint64_t)k, t);
    if (k == 1) one = s;
    else if (s > 0 && one / s > best) best = one / s;
  }
  free(buf);
  free(perm);
  return best > 1 ? best : 1;
}

/* ---- a call into libm ---- */
typedef struct calls {
  volatile double sink;
} calls;

static void run_calls(void *arg, uint64_t n) {
  calls *c = arg;
  double s = 0;
  /* exp and log alternate on independent arguments, as in a loop over options: the
   * core overlaps consecutive calls as it would there. */
  for (uint64_t i = 0; i < n; i += 2) {
    double x = 0.5 + 1e-9 * (double)i;
    s += exp(x);
    s += log(x + 1.0);
  }
  c->sink = s;
}

double calib_call_s(const calib_timing *t) {
  calls c = {0};
  return calib_measure(run_calls, &c, 2, t);
}

/* test_sdcm_random.c — SDCM for random replacement (ppt_sdcm_hit_rate_random,
 * docs/cache.md "Random replacement") against its oracle: the simulator's own
 * replacement step (cache/lruset.h with a generator, as ppt_cachesim runs a random level)
 * on generated streams whose exact stack distances are counted here with a Fenwick tree
 * over access times. Streams: cyclic sweeps larger than the cache (LRU's Eq. 5 says 0 %
 * hits; random replacement keeps some), uniform random lines, and a hot set inside a cold
 * one; fully and set associative. */
#include <check.h>

#include "ppt_test.h"
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/lruset.h"
#include "ppt/sdcm.h"

/* A stream of line numbers and its profile: exact stack distances (distinct other lines
 * since the line's last access), first touches as infinite. */
typedef struct stream {
  uint64_t *line;
  size_t n;
  uint64_t nlines; /* lines are 0..nlines-1 */
} stream;

static void bit_add(double *t, size_t n, size_t i, double v) {
  for (i++; i <= n; i += i & (0 - i)) t[i - 1] += v;
}
static double bit_sum(const double *t, size_t i) { /* sum of [0, i) */
  double s = 0;
  for (; i > 0; i -= i & (0 - i)) s += t[i - 1];
  return s;
}

/* The profile as arrays with one entry per distinct distance (dense up to nlines). */
static void profile_of(const stream *s, uint64_t **d, double **count, size_t *n, double *inf) {
  double *bit = calloc(s->n, sizeof *bit);
  size_t *last = malloc(s->nlines * sizeof *last);
  double *hist = calloc(s->nlines, sizeof *hist);
  ck_assert(bit && last && hist);
  for (uint64_t l = 0; l < s->nlines; l++) last[l] = SIZE_MAX;
  *inf = 0;
  for (size_t t = 0; t < s->n; t++) {
    uint64_t l = s->line[t];
    if (last[l] == SIZE_MAX) {
      *inf += 1;
    } else {
      /* lines whose latest access lies after l's: each marks its latest time with 1 */
      double between = bit_sum(bit, t) - bit_sum(bit, last[l] + 1);
      hist[(size_t)between] += 1;
      bit_add(bit, s->n, last[l], -1);
    }
    bit_add(bit, s->n, t, 1);
    last[l] = t;
  }
  *d = malloc(s->nlines * sizeof **d);
  *count = malloc(s->nlines * sizeof **count);
  *n = 0;
  for (uint64_t k = 0; k < s->nlines; k++)
    if (hist[k] > 0) {
      (*d)[*n] = k;
      (*count)[(*n)++] = hist[k];
    }
  free(bit);
  free(last);
  free(hist);
}

/* Hit rate of the stream on a random-replacement cache of `blocks` lines, `assoc` ways
 * (bit-selection sets), first touches included, as ppt_cachesim counts them. */
static double simulate(const stream *s, uint64_t assoc, uint64_t blocks, unsigned long seed) {
  uint64_t sets = blocks / assoc;
  uint64_t *ways = malloc(blocks * sizeof *ways);
  for (uint64_t i = 0; i < blocks; i++) ways[i] = PPT_LRUSET_EMPTY;
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_taus2);
  gsl_rng_set(rng, seed);
  uint64_t hits = 0, victim;
  for (size_t t = 0; t < s->n; t++)
    hits += (uint64_t)cache_lruset_touch(ways + (s->line[t] % sets) * assoc, (uint32_t)assoc, s->line[t], rng,
                                         (uint32_t)assoc, &victim);
  gsl_rng_free(rng);
  free(ways);
  return (double)hits / (double)s->n;
}

/* Model against simulation, within tol; and, where lru_worse, closer to it than LRU's
 * Eq. 5 on the same profile. */
static void check(const stream *s, uint64_t assoc, uint64_t blocks, double tol, int lru_worse,
                  const char *what) {
  uint64_t *d;
  double *count, inf, model, lru;
  size_t n;
  ppt_err err;
  profile_of(s, &d, &count, &n, &inf);
  ppt_sdcm_profile p = {d, count, n, inf};
  ck_assert_msg(ppt_sdcm_hit_rate_random(&p, assoc, blocks, &model, &err) == 0, "%s", err.msg);
  ck_assert_msg(ppt_sdcm_hit_rate(&p, assoc, blocks, &lru, &err) == 0, "%s", err.msg);
  double sim = simulate(s, assoc, blocks, 7);
  fprintf(stderr, "%-34s A=%-4llu B=%-5llu simulated %.4f  random SDCM %.4f  LRU SDCM %.4f\n", what,
          (unsigned long long)assoc, (unsigned long long)blocks, sim, model, lru);
  ck_assert_msg(fabs(model - sim) <= tol, "%s, A=%llu: model %.4f, simulated %.4f (tolerance %.3f)", what,
                (unsigned long long)assoc, model, sim, tol);
  if (lru_worse) ck_assert_msg(fabs(model - sim) < fabs(lru - sim), "%s: LRU's Eq. 5 is closer", what);
  free(d);
  free(count);
}

static stream cyclic(uint64_t nlines, size_t rounds) {
  stream s = {malloc(nlines * rounds * sizeof(uint64_t)), nlines * rounds, nlines};
  for (size_t r = 0; r < rounds; r++)
    for (uint64_t l = 0; l < nlines; l++) s.line[r * nlines + l] = l;
  return s;
}

/* hot: share of accesses to the first `nhot` lines (0: uniform over all) */
static stream drawn(uint64_t nlines, uint64_t nhot, double hot, size_t n, unsigned long seed) {
  stream s = {malloc(n * sizeof(uint64_t)), n, nlines};
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, seed);
  for (size_t t = 0; t < n; t++)
    s.line[t] = nhot && gsl_rng_uniform(rng) < hot ? gsl_rng_uniform_int(rng, nhot)
                                                   : gsl_rng_uniform_int(rng, nlines);
  gsl_rng_free(rng);
  return s;
}

/* Tolerances: the measured error with room. The model is a mean field over the sets; with
 * 8 ways a set's own fluctuations matter and a sweep keeps a few points more than it says
 * (1.25x: simulated 60.7 %, model 54.7 %, LRU's Eq. 5 21.6 %); fully associative it is
 * within a point. */
START_TEST(cyclic_sweeps) {
  /* LRU keeps nothing of a sweep larger than the cache; random replacement keeps part */
  static const double factor[] = {1.25, 1.5, 2.0, 4.0};
  for (size_t i = 0; i < 4; i++) {
    stream s = cyclic((uint64_t)(1024 * factor[i]), 60);
    char what[64];
    snprintf(what, sizeof what, "cyclic sweep, %.2fx the cache", factor[i]);
    check(&s, 8, 1024, 0.07, 1, what);
    check(&s, 1024, 1024, 0.015, 1, what);
    free(s.line);
  }
}
END_TEST

START_TEST(drawn_lines) {
  stream u = drawn(3072, 0, 0, 300000, 3);
  check(&u, 8, 1024, 0.03, 0, "uniform over 3x the cache");
  check(&u, 16, 1024, 0.03, 0, "uniform over 3x the cache");
  free(u.line);
  stream h = drawn(8192, 512, 0.8, 300000, 5);
  check(&h, 8, 1024, 0.04, 1, "80 % to a hot half-cache, 8x cold");
  check(&h, 1024, 1024, 0.015, 1, "80 % to a hot half-cache, 8x cold");
  free(h.line);
}
END_TEST

START_TEST(fits_and_errors) {
  /* everything fits: only first touches miss, as with LRU */
  stream s = cyclic(500, 20);
  check(&s, 8, 1024, 1e-9, 1, "cyclic sweep that fits");
  free(s.line);
  uint64_t d[] = {0};
  double c[] = {5};
  ppt_sdcm_profile p = {d, c, 1, 0}, empty = {d, c, 0, 0};
  double h;
  ppt_err err;
  ck_assert_int_eq(ppt_sdcm_hit_rate_random(&p, 8, 64, &h, &err), 0);
  ck_assert(h == 1.0);
  ck_assert_int_eq(ppt_sdcm_hit_rate_random(&empty, 8, 64, &h, &err), PPT_EINPUT);
  ck_assert_int_eq(ppt_sdcm_hit_rate_random(&p, 0, 64, &h, &err), PPT_EINPUT);
  ck_assert_int_eq(ppt_sdcm_hit_rate_random(&p, 128, 64, &h, &err), PPT_EINPUT);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("sdcm_random");
  TCase *tc = tcase_create("sdcm_random");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, cyclic_sweeps);
  tcase_add_test(tc, drawn_lines);
  tcase_add_test(tc, fits_and_errors);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return ppt_test_run(suite());
}

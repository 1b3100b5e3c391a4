/* test_missq.c — misses queued on one first-level set (cache/missq.h).
 *
 * Oracles: a brute-force replay that keeps every miss of every thread and counts, for
 * each new one, how many of that thread's last PPT_MISSQ_WINDOW went to its set; and
 * the walks worked out by hand (a column walk of set-stride rows bunches every miss
 * after the first PPT_MISSQ_BUNCH, a sequential sweep none). */
#include <check.h>

#include "ppt_test.h"
#include <gsl/gsl_rng.h>
#include <stdlib.h>

#include "cache/missq.h"

START_TEST(matches_brute_force) {
  enum { THREADS = 3, N = 20000 };
  gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
  gsl_rng_set(r, 5);
  /* few sets, so that bunching happens by chance as well as by pattern */
  const uint64_t sets = 4;
  cache_missq *q = cache_missq_new(THREADS, sets);
  ck_assert_ptr_nonnull(q);
  uint64_t *hist[THREADS];
  size_t nh[THREADS] = {0};
  for (int t = 0; t < THREADS; t++) hist[t] = malloc(N * sizeof *hist[t]);
  size_t bunched = 0;
  for (int i = 0; i < N; i++) {
    uint32_t t = (uint32_t)gsl_rng_uniform_int(r, THREADS);
    /* thread 0 favours set 1; the others draw uniformly */
    uint64_t line = gsl_rng_uniform_int(r, 1000) * sets + (t == 0 && gsl_rng_uniform(r) < 0.5 ? 1 : gsl_rng_uniform_int(r, sets));
    size_t same = 0;
    for (size_t j = nh[t] > PPT_MISSQ_WINDOW ? nh[t] - PPT_MISSQ_WINDOW : 0; j < nh[t]; j++)
      same += (hist[t][j] % sets) == (line % sets);
    hist[t][nh[t]++] = line;
    int want = same >= PPT_MISSQ_BUNCH;
    ck_assert_int_eq(cache_missq_push(q, t, line), want);
    bunched += (size_t)want;
  }
  /* both answers occur, so the comparison above tested something */
  ck_assert_uint_gt(bunched, N / 20);
  ck_assert_uint_lt(bunched, N - N / 20);
  for (int t = 0; t < THREADS; t++) free(hist[t]);
  cache_missq_free(q);
  gsl_rng_free(r);
}
END_TEST

START_TEST(walks_by_hand) {
  /* 64 sets of 64 B lines (32 KiB, 8-way): rows of 4 KiB are 64 lines apart */
  cache_missq *q = cache_missq_new(2, 64);
  int col = 0, row = 0;
  for (uint64_t i = 0; i < 512; i++) col += cache_missq_push(q, 0, 1000 + i * 64);
  ck_assert_int_eq(col, 512 - PPT_MISSQ_BUNCH);
  for (uint64_t i = 0; i < 512; i++) row += cache_missq_push(q, 1, 5000 + i);
  ck_assert_int_eq(row, 0);
  /* rows of 2 KiB: two sets in turn, still bunched once each holds 4 of the last 8 */
  cache_missq_free(q);
  q = cache_missq_new(1, 64);
  col = 0;
  for (uint64_t i = 0; i < 100; i++) col += cache_missq_push(q, 0, i * 32);
  ck_assert_int_eq(col, 100 - 2 * PPT_MISSQ_BUNCH);
  cache_missq_free(q);
  ck_assert_ptr_null(cache_missq_new(1, 48)); /* not a power of two */
  ck_assert_ptr_null(cache_missq_new(0, 64));
}
END_TEST

int main(void) {
  Suite *s = suite_create("missq");
  TCase *c = tcase_create("missq");
  tcase_add_test(c, matches_brute_force);
  tcase_add_test(c, walks_by_hand);
  suite_add_tcase(s, c);
  return ppt_test_run(s);
}

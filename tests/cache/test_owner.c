/* test_owner.c — last writer of each line (cache/owner.h), against a brute-force replay
 * that keeps every line's owner in a plain array (lines below the table size, so the
 * direct-mapped table never has to forget one), and a collision worked out by hand. */
#include <check.h>

#include "ppt_test.h"
#include <gsl/gsl_rng.h>
#include <stdlib.h>

#include "cache/owner.h"

START_TEST(matches_brute_force) {
  enum { BITS = 10, LINES = 1 << BITS, THREADS = 4, N = 50000 };
  cache_owner *o = cache_owner_new(BITS);
  ck_assert_ptr_nonnull(o);
  int owner[LINES]; /* -1: nobody */
  for (int i = 0; i < LINES; i++) owner[i] = -1;
  gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
  gsl_rng_set(r, 9);
  size_t taken = 0;
  for (int i = 0; i < N; i++) {
    uint32_t t = (uint32_t)gsl_rng_uniform_int(r, THREADS);
    uint64_t line = gsl_rng_uniform_int(r, 64); /* a small footprint: lines get shared */
    int store = gsl_rng_uniform(r) < 0.3;
    uint32_t w = 99;
    int want = owner[line] >= 0 && owner[line] != (int)t;
    int got = cache_owner_take(o, line, t, &w);
    ck_assert_int_eq(got, want);
    if (want) {
      ck_assert_uint_eq(w, (uint32_t)owner[line]);
      owner[line] = -1;
      taken++;
    }
    if (store) {
      cache_owner_store(o, line, t);
      owner[line] = (int)t;
    }
  }
  ck_assert_uint_gt(taken, N / 20);
  gsl_rng_free(r);
  cache_owner_free(o);
}
END_TEST

START_TEST(collisions_forget) {
  cache_owner *o = cache_owner_new(4); /* 16 entries: lines 3 and 19 share one */
  uint32_t w;
  cache_owner_store(o, 3, 0);
  ck_assert_int_eq(cache_owner_take(o, 3, 0, &w), 0); /* its own line */
  cache_owner_store(o, 19, 1);                        /* takes line 3's entry */
  ck_assert_int_eq(cache_owner_take(o, 3, 2, &w), 0); /* forgotten: ordinary miss */
  ck_assert_int_eq(cache_owner_take(o, 19, 2, &w), 1);
  ck_assert_uint_eq(w, 1);
  ck_assert_int_eq(cache_owner_take(o, 19, 0, &w), 0); /* shared now: nobody owns it */
  cache_owner_free(o);
  ck_assert_ptr_null(cache_owner_new(0));
  ck_assert_ptr_null(cache_owner_new(31));
}
END_TEST

int main(void) {
  Suite *s = suite_create("owner");
  TCase *c = tcase_create("owner");
  tcase_add_test(c, matches_brute_force);
  tcase_add_test(c, collisions_forget);
  suite_add_tcase(s, c);
  return ppt_test_run(s);
}

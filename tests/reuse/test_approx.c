/* test_approx.c — SHARDS spatial sampling: rate 1 is exact; on a big random trace the
 * hit rates of fully associative LRU caches of C >= 5/R lines stay within the stated
 * error (reuse.h: <= 2.5 points each, <= 1 point on average over seeds). */
#include <check.h>

#include "ppt_test.h"
#include <math.h>
#include <stdlib.h>

#include "rdtest.h"

START_TEST(rate_one_is_exact) {
  rdt_gen g = {50000, 4000, 30, 8, 0.3, 0.05, 0.2, 64};
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  size_t n;
  ppt_trace_rec *recs = rdt_generate(&g, rng, &n);
  ppt_reuse_opts e, s;
  ppt_reuse_opts_default(&e);
  ppt_reuse_opts_default(&s);
  s.mode = PPT_REUSE_APPROX;
  s.rate = 1.0;
  ppt_reuse *a = rdt_run(&e, recs, n, 4000), *b = rdt_run(&s, recs, n, 333);
  ck_assert(rdt_same_results(a, b));
  ppt_reuse_free(a);
  ppt_reuse_free(b);
  free(recs);
  gsl_rng_free(rng);
}
END_TEST

static const struct {
  size_t nrefs;
  uint64_t lines;
  double rate;
} cases[] = {{1000000, 100000, 0.05}, {4000000, 200000, 0.01}};

START_TEST(within_stated_error) {
  rdt_gen g = {cases[_i].nrefs, cases[_i].lines, 40, 8, 0.4, 0.05, 0.2, 64};
  double R = cases[_i].rate;
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 31337);
  size_t n;
  ppt_trace_rec *recs = rdt_generate(&g, rng, &n);
  ppt_reuse_opts e;
  ppt_reuse_opts_default(&e);
  ppt_reuse *a = rdt_run(&e, recs, n, 65536);
  const ppt_rdhist *x = ppt_reuse_hist(a);
  const uint64_t caps[] = {512, 1024, 4096, 16384, 65536};
  double sum = 0;
  int cnt = 0;
  for (unsigned long seed = 1; seed <= 6; seed++) {
    ppt_reuse_opts s;
    ppt_reuse_opts_default(&s);
    s.mode = PPT_REUSE_APPROX;
    s.rate = R;
    s.seed = seed;
    ppt_reuse *b = rdt_run(&s, recs, n, 65536);
    const ppt_rdhist *y = ppt_reuse_hist(b);
    /* SHARDS_adj: the estimate accounts for every reference */
    ck_assert_double_eq_tol(ppt_rdhist_total(y), (double)ppt_reuse_refs(a), 1e-6 * ppt_reuse_refs(a));
    /* roughly R of the lines are analysed */
    double lines = (double)ppt_reuse_lines(a), got = (double)ppt_reuse_lines(b);
    ck_assert_msg(fabs(got - R * lines) < 5 * sqrt(R * lines), "%g of %g lines", got, lines);
    for (int i = 0; i < 5; i++) {
      if (caps[i] < 5 / R) continue;
      double hx = ppt_rdhist_below(x, caps[i]) / ppt_rdhist_total(x);
      double hy = ppt_rdhist_below(y, caps[i]) / ppt_rdhist_total(y);
      ck_assert_msg(fabs(hx - hy) <= 0.025, "R=%g seed %lu C=%llu exact %.4f approx %.4f", R, seed,
                    (unsigned long long)caps[i], hx, hy);
      sum += fabs(hx - hy);
      cnt++;
    }
    ppt_reuse_free(b);
  }
  ck_assert_msg(sum / cnt <= 0.01, "mean error %.4f", sum / cnt);
  ppt_reuse_free(a);
  free(recs);
  gsl_rng_free(rng);
}
END_TEST

int main(void) {
  Suite *s = suite_create("reuse_approx");
  TCase *tc = tcase_create("approx");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, rate_one_is_exact);
  tcase_add_loop_test(tc, within_stated_error, 0, 2);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

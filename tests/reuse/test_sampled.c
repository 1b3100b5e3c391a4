/* test_sampled.c — AMM/SASMM window sampling: rate 1 is exact, every sampled reference
 * has its exact distance against the full trace, the weightings of SASMM Eq. 1/4. */
#include <check.h>

#include "ppt_test.h"
#include <math.h>
#include <stdlib.h>

#include "rdtest.h"

static ppt_reuse_opts sampled(double rate, unsigned long seed) {
  ppt_reuse_opts o;
  ppt_reuse_opts_default(&o);
  o.mode = PPT_REUSE_SAMPLED;
  o.rate = rate;
  o.seed = seed;
  return o;
}

/* The last case spans several 2^18-mark super-blocks of the sampled mode's counts. */
static const rdt_gen rate_one[] = {
    {50000, 3000, 30, 8, 0.3, 0.05, 0.2, 64},
    {50000, 5000, 30, 8, 0.3, 0.05, 0.2, 64},
    {1500000, 300000, 30, 8, 0.1, 0.05, 0.1, 64},
};

START_TEST(rate_one_is_exact) {
  rdt_gen g = rate_one[_i];
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 11 + (unsigned long)_i);
  size_t n;
  ppt_trace_rec *recs = rdt_generate(&g, rng, &n);
  ppt_reuse_opts e;
  ppt_reuse_opts_default(&e);
  ppt_reuse_opts s = sampled(1.0, 3);
  ppt_reuse *a = rdt_run(&e, recs, n, 4000), *b = rdt_run(&s, recs, n, 333);
  ck_assert(rdt_same_results(a, b));
  ck_assert_uint_eq(ppt_reuse_sampled_refs(b), ppt_reuse_refs(b));
  ppt_rdhist *est;
  ppt_err err;
  ck_assert_int_eq(ppt_reuse_estimate(b, PPT_REUSE_WEIGHT_REFS, &est, &err), 0);
  ck_assert(ppt_rdhist_equal(est, ppt_reuse_hist(a)));
  ppt_rdhist_free(est);
  ppt_reuse_free(a);
  ppt_reuse_free(b);
  free(recs);
  gsl_rng_free(rng);
}
END_TEST

/* Every instance gets its own block id, so a block's histogram is exactly the sampled
 * instance's references: they must carry the oracle's distances (measured against the
 * full trace, including the unsampled references), and unsampled ones nothing. */
START_TEST(sampled_refs_are_exact) {
  rdt_gen g = {40000, 2500, 1, 6, 0.3, 0.05, 0.2, 64};
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 99 + (unsigned long)_i);
  size_t n;
  ppt_trace_rec *recs = rdt_generate(&g, rng, &n);
  uint32_t id = 0;
  for (size_t i = 0; i < n; i++) {
    if (recs[i].kind == PPT_REC_BB) id++;
    recs[i].bb = id;
  }
  int64_t *dist = rdt_oracle(recs, n, 64);
  ppt_rdhist **want = rdt_oracle_bb(recs, n, 64, dist, id);
  const double rate = _i ? 0.1 : 0.02;
  ppt_reuse_opts s = sampled(rate, 1234 + (unsigned long)_i);
  ppt_reuse *r = rdt_run(&s, recs, n, 1000);
  uint32_t nsampled = 0;
  uint64_t refs = 0;
  for (uint32_t bb = 1; bb <= id; bb++) {
    const ppt_rdhist *h = ppt_reuse_bb_hist(r, bb);
    ck_assert_ptr_nonnull(h);
    ck_assert_uint_eq(ppt_reuse_bb_instances(r, bb), 1);
    if (ppt_rdhist_total(h) == 0) continue;
    nsampled++;
    refs += ppt_reuse_bb_sampled(r, bb);
    ck_assert_msg(ppt_rdhist_equal(h, want[bb]), "instance %u", bb);
  }
  ck_assert_uint_eq(refs, ppt_reuse_sampled_refs(r));
  /* Bernoulli(rate) per instance: within 5 standard deviations */
  double sd = sqrt(id * rate * (1 - rate));
  ck_assert_msg(fabs(nsampled - id * rate) < 5 * sd, "%u of %u sampled", nsampled, id);
  rdt_free_bb(want, id);
  free(dist);
  free(recs);
  ppt_reuse_free(r);
  gsl_rng_free(rng);
}
END_TEST

START_TEST(seeded) {
  rdt_gen g = {30000, 2000, 20, 6, 0.3, 0.05, 0.2, 64};
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  size_t n;
  ppt_trace_rec *recs = rdt_generate(&g, rng, &n);
  ppt_reuse_opts s = sampled(0.05, 77);
  ppt_reuse *a = rdt_run(&s, recs, n, 1000), *b = rdt_run(&s, recs, n, 17);
  ck_assert(rdt_same_results(a, b));
  s.seed = 78;
  ppt_reuse *c = rdt_run(&s, recs, n, 1000);
  ck_assert(!ppt_rdhist_equal(ppt_reuse_hist(a), ppt_reuse_hist(c)));
  ppt_reuse_free(a);
  ppt_reuse_free(b);
  ppt_reuse_free(c);
  free(recs);
  gsl_rng_free(rng);
}
END_TEST

/* SASMM Eq. 1 (instances) vs reference weighting, by hand: block 1 = 10 instances of
 * one reference to X (inf, then 9 x D=0); block 2 = 10 instances of 3 new lines (30 inf).
 * Instances: P(BB1) = P(BB2) = 1/2 -> P(inf) = .5*.1 + .5*1 = .55 -> 22 of 40 refs.
 * References: the exact 31 inf and 9 zeros. */
START_TEST(weightings) {
  ppt_trace_rec recs[60];
  size_t k = 0;
  for (int i = 0; i < 10; i++) {
    recs[k++] = (ppt_trace_rec){.bb = 1, .kind = PPT_REC_BB};
    recs[k++] = (ppt_trace_rec){.addr = 0x100000, .bb = 1, .kind = PPT_REC_LOAD};
  }
  for (int i = 0; i < 10; i++) {
    recs[k++] = (ppt_trace_rec){.bb = 2, .kind = PPT_REC_BB};
    for (int j = 0; j < 3; j++)
      recs[k++] = (ppt_trace_rec){.addr = 0x200000 + 64 * (uint64_t)(3 * i + j), .bb = 2, .kind = PPT_REC_STORE};
  }
  ppt_reuse_opts s = sampled(1.0, 1);
  ppt_reuse *r = rdt_run(&s, recs, k, 7);
  ppt_rdhist *h;
  ppt_err err;
  ck_assert_int_eq(ppt_reuse_estimate(r, PPT_REUSE_WEIGHT_INSTANCES, &h, &err), 0);
  ck_assert_double_eq_tol(ppt_rdhist_infinite(h), 22, 1e-9);
  ck_assert_double_eq_tol(ppt_rdhist_count(h, 0), 18, 1e-9);
  ck_assert_double_eq_tol(ppt_rdhist_total(h), 40, 1e-9);
  ppt_rdhist_free(h);
  ck_assert_int_eq(ppt_reuse_estimate(r, PPT_REUSE_WEIGHT_REFS, &h, &err), 0);
  ck_assert_double_eq(ppt_rdhist_infinite(h), 31);
  ck_assert_double_eq(ppt_rdhist_count(h, 0), 9);
  ppt_rdhist_free(h);
  ppt_reuse_free(r);
}
END_TEST

/* The reweighted estimate tracks the exact profile: fully associative LRU hit rates
 * (D < C) within 2 points at a 5% instance rate on 400k references. */
START_TEST(estimate_accuracy) {
  rdt_gen g = {400000, 20000, 40, 8, 0.4, 0.05, 0.2, 64};
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 2024);
  size_t n;
  ppt_trace_rec *recs = rdt_generate(&g, rng, &n);
  ppt_reuse_opts e;
  ppt_reuse_opts_default(&e);
  ppt_reuse_opts s = sampled(0.05, 5);
  ppt_reuse *a = rdt_run(&e, recs, n, 65536), *b = rdt_run(&s, recs, n, 65536);
  const ppt_rdhist *x = ppt_reuse_hist(a), *y = ppt_reuse_hist(b);
  ck_assert_double_eq_tol(ppt_rdhist_total(y), ppt_rdhist_total(x), 1e-6 * ppt_rdhist_total(x));
  const uint64_t caps[] = {8, 64, 512, 4096, 16384};
  for (int i = 0; i < 5; i++) {
    double hx = ppt_rdhist_below(x, caps[i]) / ppt_rdhist_total(x);
    double hy = ppt_rdhist_below(y, caps[i]) / ppt_rdhist_total(y);
    ck_assert_msg(fabs(hx - hy) < 0.02, "C=%llu exact %.4f sampled %.4f", (unsigned long long)caps[i], hx, hy);
  }
  ppt_reuse_free(a);
  ppt_reuse_free(b);
  free(recs);
  gsl_rng_free(rng);
}
END_TEST

int main(void) {
  Suite *s = suite_create("reuse_sampled");
  TCase *tc = tcase_create("sampled");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, rate_one_is_exact, 0, 3);
  tcase_add_loop_test(tc, sampled_refs_are_exact, 0, 2);
  tcase_add_test(tc, seeded);
  tcase_add_test(tc, weightings);
  tcase_add_test(tc, estimate_accuracy);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

/* test_sweepsim.c — set sampling in the sweep's simulator (cache/sweepsim.h) against its
 * oracle: the exact simulator fed only the references to the sampled sets. Each sampled
 * set sees exactly what it sees unsampled, so the sampled misses (and the accesses below
 * the first level) must be the oracle's times K, level by level, for every spec of the
 * tree (a shared L2 under two L1s), while the first level's accesses are every
 * reference's. Also:
 * the refusals (K not a power of two, K above what the smallest level's sets allow). */
#include <check.h>

#include "ppt_test.h"
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

#include "cache/sweepsim.h"

#define NTHREADS 4
#define NRECS 200000

static void spec(ppt_hwspec *hw, uint64_t l1_size) {
  const char *txt =
      "{\"name\": \"t\", \"cores\": 4, \"levels\": ["
      "{\"name\": \"L1\", \"size\": 4096, \"assoc\": 4, \"line\": 64, \"shared_by\": 1},"
      "{\"name\": \"L2\", \"size\": 65536, \"assoc\": 8, \"line\": 64, \"shared_by\": 4}]}";
  ppt_err err;
  ck_assert_msg(ppt_hwspec_parse(txt, "t", hw, &err) == 0, "%s", err.msg);
  hw->levels[0].size = l1_size;
}

/* A stream with reuse at every distance: each thread walks its own array with a stride
 * that changes now and then, and all touch a shared table at random. Aligned 8-byte
 * references, so each touches one line. */
static void stream(ppt_trace_rec *r, uint32_t *th, size_t n) {
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(g, 42);
  uint64_t pos[NTHREADS] = {0}, stride = 8;
  for (size_t i = 0; i < n; i++) {
    uint32_t t = (uint32_t)gsl_rng_uniform_int(g, NTHREADS);
    if (gsl_rng_uniform(g) < 0.001) stride = 8u << gsl_rng_uniform_int(g, 8);
    uint64_t a;
    if (gsl_rng_uniform(g) < 0.3)
      a = 0x100000 + 8 * gsl_rng_uniform_int(g, 4096); /* shared table, 32 KiB */
    else {
      pos[t] = (pos[t] + stride) % (1 << 17);
      a = 0x1000000 * (t + 1) + pos[t];
    }
    r[i] = (ppt_trace_rec){
        .addr = a, .bb = 1, .kind = gsl_rng_uniform(g) < 0.25 ? PPT_REC_STORE : PPT_REC_LOAD, .size = 8};
    th[i] = t;
  }
  gsl_rng_free(g);
}

START_TEST(sampled_equals_exact_on_sampled_sets) {
  ppt_hwspec specs[2];
  spec(&specs[0], 4096);
  spec(&specs[1], 8192);
  ppt_trace_rec *r = malloc(NRECS * sizeof *r), *kept = malloc(NRECS * sizeof *kept);
  uint32_t *th = malloc(NRECS * sizeof *th), *kth = malloc(NRECS * sizeof *kth);
  ck_assert(r && kept && th && kth);
  stream(r, th, NRECS);
  static const uint32_t ks[] = {2, 4, 16};
  for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ki++) {
    cache_sweepsim *sampled, *exact;
    ppt_err err;
    ck_assert_msg(cache_sweepsim_new(specs, 2, NTHREADS, NULL, 0, ks[ki], 7, &sampled, &err) == 0, "%s",
                  err.msg);
    ck_assert_msg(cache_sweepsim_new(specs, 2, NTHREADS, NULL, 0, 1, 7, &exact, &err) == 0, "%s", err.msg);
    size_t nk = 0;
    for (size_t i = 0; i < NRECS; i++)
      if (cache_sweepsim_sampled(sampled, r[i].addr)) {
        kept[nk] = r[i];
        kth[nk++] = th[i];
      }
    /* about 1/K of the references, and not all or none */
    ck_assert_uint_gt(nk * ks[ki] * 2, NRECS / 2);
    ck_assert_uint_lt(nk, NRECS);
    cache_sweepsim_access_batch(sampled, r, th, NRECS);
    cache_sweepsim_access_batch(exact, kept, kth, nk);
    for (size_t s = 0; s < 2; s++) {
      ppt_tracesim_result a, b;
      cache_sweepsim_result(sampled, s, NTHREADS, &a);
      cache_sweepsim_result(exact, s, NTHREADS, &b);
      ck_assert_uint_eq(a.refs, NRECS);
      /* the first level's accesses are every reference's, not estimated */
      ck_assert_uint_eq(a.levels[0].accesses, NRECS);
      ck_assert_uint_eq(a.levels[0].ref_accesses, NRECS);
      ck_assert_uint_eq(a.levels[1].accesses, b.levels[1].accesses * ks[ki]);
      for (uint32_t k = 0; k < 2; k++) {
        ck_assert_uint_gt(b.levels[k].misses, 100); /* the oracle's counts are not trivial */
        ck_assert_uint_eq(a.levels[k].misses, b.levels[k].misses * ks[ki]);
        ck_assert_uint_eq(a.levels[k].ref_misses, b.levels[k].ref_misses * ks[ki]);
        ck_assert_double_eq_tol(a.levels[k].hit_rate, 1.0 - (double)a.levels[k].misses / NRECS, 1e-12);
      }
    }
    cache_sweepsim_free(sampled);
    cache_sweepsim_free(exact);
  }
  free(r);
  free(kept);
  free(th);
  free(kth);
}
END_TEST

START_TEST(sampling_refusals) {
  ppt_hwspec hw;
  spec(&hw, 4096); /* L1: 16 sets of 64 B */
  cache_sweepsim *s;
  ppt_err err;
  ck_assert_int_eq(cache_sweepsim_new(&hw, 1, 2, NULL, 0, 3, 1, &s, &err), PPT_EINPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "power of two"));
  ck_assert_int_eq(cache_sweepsim_new(&hw, 1, 2, NULL, 0, 32, 1, &s, &err), PPT_EINPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "at most 16"));
  ck_assert_int_eq(cache_sweepsim_new(&hw, 1, 2, NULL, 0, 16, 1, &s, &err), 0);
  cache_sweepsim_free(s);
  /* Specs with other line sizes in one sweep: the sampled bits sit above the widest
   * line (128 B), where the 64 B spec's 4 KiB L1 has only 3 of its 4 set bits left. */
  ppt_hwspec two[2] = {hw, hw};
  two[1].levels[0].line = two[1].levels[1].line = 128;
  two[1].levels[0].size = 8192; /* 16 sets of 128 B: 4 bits above 128 B */
  ck_assert_int_eq(cache_sweepsim_new(two, 2, 2, NULL, 0, 16, 1, &s, &err), PPT_EINPUT);
  ck_assert_msg(strstr(err.msg, "at most 8"), "%s", err.msg);
  ck_assert_int_eq(cache_sweepsim_new(two, 2, 2, NULL, 0, 8, 1, &s, &err), 0);
  cache_sweepsim_free(s);
}
END_TEST

int main(void) {
  Suite *s = suite_create("sweepsim");
  TCase *tc = tcase_create("sampling");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, sampled_equals_exact_on_sampled_sets);
  tcase_add_test(tc, sampling_refusals);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

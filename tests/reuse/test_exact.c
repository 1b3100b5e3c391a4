/* test_exact.c — exact reuse distances against the papers' examples, analytic sweeps and
 * a brute-force oracle on random traces. */
#include <check.h>

#include "ppt_test.h"
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdtest.h"

static json_object *load_examples(void) {
  const char *dir = getenv("PPT_TEST_DATA_DIR");
  ck_assert_msg(dir != NULL, "PPT_TEST_DATA_DIR not set (run through ctest)");
  char path[4096];
  snprintf(path, sizeof path, "%s/rd-examples.json", dir);
  json_object *j = json_object_from_file(path);
  ck_assert_msg(j != NULL, "cannot read %s", path);
  return j;
}

/* Symbolic line names -> line-aligned addresses. */
static uint64_t addr_of(const char *name, int k) { return 0x1000 + 64 * (uint64_t)name[0] + 8 * (uint64_t)k; }

/* Each reference in its own block, so each per-block histogram is one distance. */
static void check_each(const ppt_trace_rec *recs, size_t n, const int64_t *want) {
  ppt_reuse_opts o;
  ppt_reuse_opts_default(&o);
  ppt_reuse *r = rdt_run(&o, recs, n, 3);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (recs[i].kind == PPT_REC_BB) continue;
    const ppt_rdhist *h = ppt_reuse_bb_hist(r, recs[i].bb);
    ck_assert_ptr_nonnull(h);
    ck_assert_double_eq(ppt_rdhist_total(h), 1);
    ck_assert_msg(ppt_rdhist_count(h, want[k]) == 1, "ref %zu: want %lld", k, (long long)want[k]);
    k++;
  }
  ppt_reuse_free(r);
}

START_TEST(paper_sequential) {
  json_object *j = load_examples(), *seq, *ex, *tr, *rd;
  ck_assert(json_object_object_get_ex(j, "sequential", &seq));
  for (size_t e = 0; e < json_object_array_length(seq); e++) {
    ex = json_object_array_get_idx(seq, e);
    ck_assert(json_object_object_get_ex(ex, "trace", &tr));
    ck_assert(json_object_object_get_ex(ex, "rd", &rd));
    size_t n = json_object_array_length(tr);
    ppt_trace_rec *recs = calloc(2 * n, sizeof *recs);
    int64_t *want = calloc(n, sizeof *want);
    for (size_t i = 0; i < n; i++) {
      const char *name = json_object_get_string(json_object_array_get_idx(tr, i));
      recs[2 * i] = (ppt_trace_rec){.bb = (uint32_t)i + 1, .kind = PPT_REC_BB};
      /* a different word of the same line each time: granularity is the line */
      recs[2 * i + 1] = (ppt_trace_rec){.addr = addr_of(name, (int)(i % 8)), .bb = (uint32_t)i + 1,
                                        .kind = PPT_REC_LOAD, .size = 8};
      want[i] = json_object_get_int64(json_object_array_get_idx(rd, i));
    }
    check_each(recs, 2 * n, want);
    free(recs);
    free(want);
  }
  json_object_put(j);
}
END_TEST

/* SASMM Table 2 and Wu & Yeung Fig. 2: the CRD is the plain reuse distance of the
 * interleaved stream; the PRD that of one core's stream (one context per thread). */
START_TEST(paper_concurrent) {
  json_object *j = load_examples(), *conc;
  ck_assert(json_object_object_get_ex(j, "concurrent", &conc));
  for (size_t e = 0; e < json_object_array_length(conc); e++) {
    json_object *ex = json_object_array_get_idx(conc, e), *acc, *exp;
    int timed = json_object_object_get_ex(ex, "accesses", &acc);
    if (!timed) ck_assert(json_object_object_get_ex(ex, "accesses_in_order", &acc));
    ck_assert(json_object_object_get_ex(ex, "expect", &exp));
    size_t n = json_object_array_length(acc);
    ppt_trace_rec *all = calloc(2 * n, sizeof *all), *core[3] = {calloc(2 * n, sizeof(ppt_trace_rec)),
                                                                 calloc(2 * n, sizeof(ppt_trace_rec)),
                                                                 calloc(2 * n, sizeof(ppt_trace_rec))};
    size_t nc[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++) {
      json_object *a = json_object_array_get_idx(acc, i), *jc, *jl;
      ck_assert(json_object_object_get_ex(a, "core", &jc) && json_object_object_get_ex(a, "line", &jl));
      int c = json_object_get_int(jc);
      ck_assert(c >= 1 && c <= 2);
      uint32_t bb = (uint32_t)i + 1; /* the access's index identifies it */
      ppt_trace_rec b = {.bb = bb, .kind = PPT_REC_BB};
      ppt_trace_rec m = {.addr = addr_of(json_object_get_string(jl), 0), .bb = bb, .kind = PPT_REC_LOAD, .size = 8};
      all[2 * i] = b;
      all[2 * i + 1] = m;
      core[c][nc[c]++] = b;
      core[c][nc[c]++] = m;
    }
    ppt_reuse_opts o;
    ppt_reuse_opts_default(&o);
    ppt_reuse *crd = rdt_run(&o, all, 2 * n, 64);
    ppt_reuse *prd[3] = {NULL, rdt_run(&o, core[1], nc[1], 64), rdt_run(&o, core[2], nc[2], 64)};
    for (size_t k = 0; k < json_object_array_length(exp); k++) {
      json_object *x = json_object_array_get_idx(exp, k), *v;
      uint32_t bb;
      if (timed) {
        ck_assert(json_object_object_get_ex(x, "t", &v));
        bb = (uint32_t)json_object_get_int(v); /* t is 1-based: index t-1, block t */
      } else {
        ck_assert(json_object_object_get_ex(x, "index", &v));
        bb = (uint32_t)json_object_get_int(v) + 1;
      }
      json_object *a = json_object_array_get_idx(acc, bb - 1), *jc;
      json_object_object_get_ex(a, "core", &jc);
      int c = json_object_get_int(jc);
      if (json_object_object_get_ex(x, "crd", &v))
        ck_assert_double_eq(ppt_rdhist_count(ppt_reuse_bb_hist(crd, bb), json_object_get_int(v)), 1);
      if (json_object_object_get_ex(x, "prd", &v))
        ck_assert_double_eq(ppt_rdhist_count(ppt_reuse_bb_hist(prd[c], bb), json_object_get_int(v)), 1);
    }
    ppt_reuse_free(crd);
    ppt_reuse_free(prd[1]);
    ppt_reuse_free(prd[2]);
    free(all);
    free(core[0]);
    free(core[1]);
    free(core[2]);
  }
  json_object_put(j);
}
END_TEST

/* Sweeping M lines K times with 8-byte elements: M first touches, (K-1)*M reuses at
 * distance M-1, and 7 re-touches per line visit at distance 0. */
static const uint64_t sweep_m[] = {1, 9, 100, 2047, 2049, 4095, 4097, 5000, 70000};

START_TEST(cyclic_sweep) {
  uint64_t M = sweep_m[_i];
  const unsigned K = M > 10000 ? 3 : 5;
  size_t n = (size_t)M * K * 8 + 1;
  ppt_trace_rec *recs = calloc(n, sizeof *recs);
  size_t k = 0;
  recs[k++] = (ppt_trace_rec){.bb = 1, .kind = PPT_REC_BB};
  for (unsigned p = 0; p < K; p++)
    for (uint64_t a = 0; a < M * 64; a += 8)
      recs[k++] = (ppt_trace_rec){.addr = 0x40000000 + a, .bb = 1, .kind = PPT_REC_LOAD, .size = 8};
  ppt_reuse_opts o;
  ppt_reuse_opts_default(&o);
  ppt_reuse *r = rdt_run(&o, recs, n, 4096);
  const ppt_rdhist *h = ppt_reuse_hist(r);
  ck_assert_double_eq(ppt_rdhist_infinite(h), (double)M);
  if (M > 1) {
    ck_assert_double_eq(ppt_rdhist_count(h, 0), 7.0 * K * M);
    ck_assert_double_eq(ppt_rdhist_count(h, (int64_t)M - 1), (double)(K - 1) * M);
    ck_assert_uint_eq(ppt_rdhist_nbins(h), 2);
  } else {
    ck_assert_double_eq(ppt_rdhist_count(h, 0), 7.0 * K + (K - 1));
  }
  ck_assert_double_eq(ppt_rdhist_total(h), (double)(n - 1));
  ck_assert_uint_eq(ppt_reuse_lines(r), M);
  ppt_reuse_free(r);
  free(recs);
}
END_TEST

/* Working sets around the stack's internal thresholds (front size 8, hash growth at
 * 2048/4096 lines, time-axis compaction at 4096 marks) and beyond. */
static const rdt_gen gens[] = {
    {20000, 5, 3, 4, 0.2, 0.1, 0.1, 64},       {20000, 12, 7, 6, 0.1, 0.3, 0.2, 64},
    {30000, 300, 20, 8, 0.3, 0.1, 0.2, 64},    {40000, 2100, 50, 8, 0.2, 0.05, 0.2, 64},
    {40000, 4200, 50, 8, 0.5, 0.05, 0.1, 64},  {40000, 9000, 100, 12, 0.3, 0.05, 0.3, 64},
    {30000, 3000, 10, 4, 0.1, 0.05, 0.05, 32}, {30000, 3000, 10, 4, 0.1, 0.05, 0.05, 128},
    {200000, 1500, 30, 8, 0.2, 0.05, 0.2, 64}, /* many compactions at a steady state */
};
#define NGENS (sizeof gens / sizeof *gens)

START_TEST(random_vs_oracle) {
  const rdt_gen *g = &gens[_i % NGENS];
  unsigned long seed = 1000 + (unsigned long)_i;
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, seed);
  size_t n;
  ppt_trace_rec *recs = rdt_generate(g, rng, &n);
  int64_t *dist = rdt_oracle(recs, n, g->line);
  ppt_reuse_opts o;
  ppt_reuse_opts_default(&o);
  o.line = g->line;
  ppt_reuse *r = rdt_run(&o, recs, n, 1 + _i * 997);
  uint32_t maxbb = ppt_reuse_max_bb(r);
  ck_assert_uint_eq(maxbb, g->nbbs);
  ppt_rdhist **want = rdt_oracle_bb(recs, n, g->line, dist, maxbb);
  ppt_rdhist *sum = ppt_rdhist_new(g->line), *whole = rdt_oracle_whole(recs, n, g->line, dist);
  for (uint32_t bb = 0; bb <= maxbb; bb++) {
    const ppt_rdhist *h = ppt_reuse_bb_hist(r, bb);
    ck_assert_msg(!h == !want[bb], "block %u presence", bb);
    if (!h) continue;
    ck_assert_msg(ppt_rdhist_equal(h, want[bb]), "seed %lu block %u differs from the oracle", seed, bb);
    ck_assert_uint_eq(ppt_reuse_bb_refs(r, bb), (uint64_t)ppt_rdhist_total(h));
    ppt_rdhist_merge(sum, h, 1);
  }
  ck_assert(ppt_rdhist_equal(ppt_reuse_hist(r), whole));
  ck_assert(ppt_rdhist_equal(sum, whole)); /* per-block sum == whole */
  ck_assert_uint_eq(ppt_reuse_refs(r), (uint64_t)ppt_rdhist_total(whole));
  ck_assert_uint_eq(ppt_reuse_lines(r), (uint64_t)ppt_rdhist_infinite(whole));
  ck_assert_uint_eq(ppt_reuse_sampled_refs(r), ppt_reuse_refs(r));
  rdt_free_bb(want, maxbb);
  ppt_rdhist_free(sum);
  ppt_rdhist_free(whole);
  free(dist);
  free(recs);
  ppt_reuse_free(r);
  gsl_rng_free(rng);
}
END_TEST

/* Regions: per-group sums of blocks; blocks mapped outside [0, ngroups) are left out. */
START_TEST(groups) {
  rdt_gen g = {20000, 500, 9, 5, 0.3, 0.1, 0.1, 64};
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 7);
  size_t n;
  ppt_trace_rec *recs = rdt_generate(&g, rng, &n);
  ppt_reuse_opts o;
  ppt_reuse_opts_default(&o);
  ppt_reuse *r = rdt_run(&o, recs, n, 500);
  uint32_t grp[10] = {0, 0, 1, 0, 1, 1, 0, 1, 0, 2}; /* block 9 -> group 2: dropped */
  ppt_rdhist *out[2];
  ppt_err err;
  ck_assert_int_eq(ppt_reuse_group_hists(r, grp, 10, 2, out, &err), 0);
  ppt_rdhist *want[2] = {ppt_rdhist_new(64), ppt_rdhist_new(64)};
  for (uint32_t bb = 0; bb < 9; bb++)
    if (ppt_reuse_bb_hist(r, bb)) ppt_rdhist_merge(want[grp[bb]], ppt_reuse_bb_hist(r, bb), 1);
  for (int k = 0; k < 2; k++) {
    ck_assert(ppt_rdhist_equal(out[k], want[k]));
    ppt_rdhist_free(out[k]);
    ppt_rdhist_free(want[k]);
  }
  double t = ppt_rdhist_total(ppt_reuse_hist(r)) - ppt_rdhist_total(ppt_reuse_bb_hist(r, 9));
  ck_assert_int_eq(ppt_reuse_group_hists(r, grp, 10, 1, out, &err), 0);
  ck_assert_double_lt(ppt_rdhist_total(out[0]), t);
  ppt_rdhist_free(out[0]);
  ppt_reuse_free(r);
  free(recs);
  gsl_rng_free(rng);
}
END_TEST

/* A straddling access counts for its first line only; line size is honoured. */
START_TEST(line_granularity) {
  ppt_trace_rec recs[] = {
      {.addr = 0x1000 + 60, .kind = PPT_REC_LOAD, .size = 8}, /* straddles 0x1000 and 0x1040 */
      {.addr = 0x1040, .kind = PPT_REC_LOAD, .size = 8},      /* first touch of 0x1040 */
      {.addr = 0x1000, .kind = PPT_REC_LOAD, .size = 8},      /* D = 1 */
      {.addr = 0x1080, .kind = PPT_REC_LOAD, .size = 8},      /* new line (64 or 128 B) */
  };
  ppt_reuse_opts o;
  ppt_reuse_opts_default(&o);
  ppt_reuse *r = rdt_run(&o, recs, 4, 4);
  const ppt_rdhist *h = ppt_reuse_hist(r);
  ck_assert_double_eq(ppt_rdhist_infinite(h), 3);
  ck_assert_double_eq(ppt_rdhist_count(h, 1), 1);
  ck_assert_ptr_nonnull(ppt_reuse_bb_hist(r, 0)); /* refs before any block: block 0 */
  ppt_reuse_free(r);
  o.line = 128;
  r = rdt_run(&o, recs, 4, 1);
  h = ppt_reuse_hist(r);
  ck_assert_double_eq(ppt_rdhist_infinite(h), 2); /* 0x1000-0x107f, 0x1080 */
  ck_assert_double_eq(ppt_rdhist_count(h, 0), 2);
  ppt_reuse_free(r);
}
END_TEST

START_TEST(bad_options) {
  ppt_reuse_opts o;
  ppt_reuse *r = NULL;
  ppt_err err;
  ppt_reuse_opts_default(&o);
  o.line = 48;
  ck_assert_int_eq(ppt_reuse_new(&o, &r, &err), PPT_EINPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "48"));
  ppt_reuse_opts_default(&o);
  o.mode = PPT_REUSE_SAMPLED;
  o.rate = 0;
  ck_assert_int_eq(ppt_reuse_new(&o, &r, &err), PPT_EINPUT);
  o.rate = 1.5;
  o.mode = PPT_REUSE_APPROX;
  ck_assert_int_eq(ppt_reuse_new(&o, &r, &err), PPT_EINPUT);
  ppt_reuse_opts_default(&o);
  ck_assert_int_eq(ppt_reuse_new(&o, &r, &err), 0);
  ppt_trace_rec bad = {.addr = 64, .kind = 7};
  ck_assert_int_eq(ppt_reuse_feed(r, &bad, 1, &err), PPT_EINPUT);
  ck_assert_ptr_null(ppt_reuse_hist(r)); /* not finished */
  ppt_reuse_free(r);
}
END_TEST

int main(void) {
  Suite *s = suite_create("reuse_exact");
  TCase *tc = tcase_create("exact");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, paper_sequential);
  tcase_add_test(tc, paper_concurrent);
  tcase_add_loop_test(tc, cyclic_sweep, 0, sizeof sweep_m / sizeof *sweep_m);
  tcase_add_loop_test(tc, random_vs_oracle, 0, 2 * NGENS);
  tcase_add_test(tc, groups);
  tcase_add_test(tc, line_granularity);
  tcase_add_test(tc, bad_options);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

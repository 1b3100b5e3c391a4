/* test_parallel.c — the parallel analysis gives exactly the sequential results (every
 * mode, several thread counts, piece and batch sizes), and both equal the oracle. */
#include <check.h>

#include "ppt_test.h"
#include <stdint.h>
#include <stdlib.h>

#include "rdtest.h"

static const rdt_gen gens[] = {
    {30000, 7, 5, 6, 0.2, 0.1, 0.1, 64},     /* fits the front */
    {60000, 600, 20, 8, 0.3, 0.1, 0.2, 64},  /* pieces revisit their lines */
    {60000, 5000, 40, 8, 0.2, 0.05, 0.2, 64}, /* lines spread over many pieces */
    {60000, 40000, 40, 8, 0.6, 0.0, 0.0, 64}, /* mostly streaming, many first touches */
};
#define NGENS (sizeof gens / sizeof *gens)

static const size_t pieces[] = {97, 1000, 4096, 20000};

START_TEST(parallel_equals_sequential) {
  const rdt_gen *g = &gens[_i % NGENS];
  rdt_case tc;
  rdt_case_make(&tc, g, 42 + (unsigned long)_i);
  for (int mode = 0; mode < 3; mode++) {
    ppt_reuse_opts o;
    ppt_reuse_opts_default(&o);
    o.mode = (ppt_reuse_mode)mode;
    o.rate = mode == PPT_REUSE_SAMPLED ? 0.3 : 0.25;
    o.seed = 5;
    ppt_reuse *seq = rdt_run(&o, tc.recs, tc.n, 1000);
    if (mode == PPT_REUSE_EXACT) ck_assert(ppt_rdhist_equal(ppt_reuse_hist(seq), tc.whole));
    for (unsigned T = 2; T <= 4; T++) {
      o.piece = pieces[(_i + T + (unsigned)mode) % (sizeof pieces / sizeof *pieces)];
      size_t batch = 1 + (size_t)gsl_rng_uniform_int(tc.rng, 3000);
      ppt_reuse *par = rdt_run_parallel(&o, tc.recs, tc.n, batch, T);
      ck_assert_msg(rdt_same_results(seq, par), "mode %d T %u piece %zu batch %zu differ", mode, T,
                    o.piece, batch);
      ck_assert_uint_eq(ppt_reuse_lines(seq), ppt_reuse_lines(par));
      ppt_reuse_free(par);
    }
    ppt_reuse_free(seq);
  }
  rdt_case_free(&tc);
}
END_TEST

static int feed_threads(void *arg, ppt_reuse *r, const ppt_reuse_chunks *src, ppt_err *err) {
  return ppt_reuse_feed_chunks(r, *(unsigned *)arg, src, err);
}

static ppt_reuse *run_chunks(const ppt_reuse_opts *o, const ppt_trace_rec *recs, size_t n,
                             size_t csize, unsigned T, int sized) {
  return rdt_run_chunks(o, recs, n, csize, sized, feed_threads, &T);
}

START_TEST(chunks_equal_sequential) {
  const rdt_gen *g = &gens[_i % NGENS];
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 4242 + (unsigned long)_i);
  size_t n;
  ppt_trace_rec *recs = rdt_generate(g, rng, &n);
  for (int mode = 0; mode < 3; mode++) {
    ppt_reuse_opts o;
    ppt_reuse_opts_default(&o);
    o.mode = (ppt_reuse_mode)mode;
    o.rate = 0.25;
    ppt_reuse *seq = rdt_run(&o, recs, n, 1000);
    for (unsigned T = 2; T <= 5; T++) {
      size_t csize = 1 + (size_t)gsl_rng_uniform_int(rng, 20000);
      ppt_reuse *par = run_chunks(&o, recs, n, csize, T, (T + (unsigned)_i) & 1);
      ck_assert_msg(rdt_same_results(seq, par), "mode %d T %u chunk %zu differ", mode, T, csize);
      ck_assert_uint_eq(ppt_reuse_lines(seq), ppt_reuse_lines(par));
      ppt_reuse_free(par);
    }
    ppt_reuse_free(seq);
  }
  free(recs);
  gsl_rng_free(rng);
}
END_TEST

START_TEST(chunks_errors) {
  rdt_gen g = {20000, 300, 5, 4, 0.3, 0.1, 0.1, 64};
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  size_t n;
  ppt_trace_rec *recs = rdt_generate(&g, rng, &n);
  ppt_reuse_opts o;
  ppt_reuse_opts_default(&o);
  for (unsigned T = 1; T <= 3; T++) {
    rdt_chunks c = {recs, n, 1000, 7};
    ppt_reuse_chunks src = {(n + 999) / 1000, rdt_chunk_size, rdt_chunk_decode, &c};
    ppt_reuse *r;
    ppt_err err;
    ck_assert_int_eq(ppt_reuse_new(&o, &r, &err), 0);
    ck_assert_int_eq(ppt_reuse_feed_chunks(r, T, &src, &err), PPT_EINPUT);
    ck_assert_str_eq(err.msg, "t.ppt: chunk 7: bad checksum");
    ck_assert_int_ne(ppt_reuse_finish(r, &err), 0);
    ppt_reuse_free(r);
  }
  /* more threads than chunks */
  ppt_reuse *a = run_chunks(&o, recs, n, n / 2 + 1, 8, 1), *b = rdt_run(&o, recs, n, 512);
  ck_assert(rdt_same_results(a, b));
  ppt_reuse_free(a);
  ppt_reuse_free(b);
  free(recs);
  gsl_rng_free(rng);
}
END_TEST

/* One thread, or an empty stream, also work. */
START_TEST(parallel_edges) {
  ppt_reuse_opts o;
  ppt_reuse_opts_default(&o);
  ppt_reuse *a = rdt_run_parallel(&o, NULL, 0, 10, 3);
  ck_assert_double_eq(ppt_rdhist_total(ppt_reuse_hist(a)), 0);
  ppt_reuse_free(a);
  rdt_gen g = {5000, 100, 5, 4, 0.3, 0.1, 0.1, 64};
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  size_t n;
  ppt_trace_rec *recs = rdt_generate(&g, rng, &n);
  a = rdt_run_parallel(&o, recs, n, 100, 1);
  ppt_reuse *b = rdt_run(&o, recs, n, 77);
  ck_assert(rdt_same_results(a, b));
  ppt_reuse_free(a);
  o.piece = 1; /* a piece per reference: everything goes through the merge */
  a = rdt_run_parallel(&o, recs, n, 100, 2);
  ck_assert(rdt_same_results(a, b));
  ppt_reuse_free(a);
  ppt_reuse_free(b);
  free(recs);
  gsl_rng_free(rng);
}
END_TEST

static int fail_next(void *arg, const ppt_trace_rec **recs, size_t *n, ppt_err *err) {
  int *calls = arg;
  static const ppt_trace_rec r[2] = {{.bb = 1, .kind = PPT_REC_BB}, {.addr = 64, .bb = 1, .kind = PPT_REC_LOAD}};
  if ((*calls)++ < 3) {
    *recs = r;
    *n = 2;
    return 0;
  }
  return ppt_err_set(err, PPT_EINPUT, "trace.ppt: corrupt chunk");
}

START_TEST(parallel_source_error) {
  ppt_reuse_opts o;
  ppt_reuse_opts_default(&o);
  o.piece = 1;
  ppt_reuse *r;
  ppt_err err;
  ck_assert_int_eq(ppt_reuse_new(&o, &r, &err), 0);
  int calls = 0;
  ck_assert_int_eq(ppt_reuse_feed_parallel(r, 2, fail_next, &calls, &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "trace.ppt: corrupt chunk");
  ck_assert_int_ne(ppt_reuse_finish(r, &err), 0); /* the stream is incomplete */
  ppt_reuse_free(r);
}
END_TEST

int main(void) {
  Suite *s = suite_create("reuse_parallel");
  TCase *tc = tcase_create("parallel");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, parallel_equals_sequential, 0, 2 * NGENS);
  tcase_add_test(tc, parallel_edges);
  tcase_add_loop_test(tc, chunks_equal_sequential, 0, 2 * NGENS);
  tcase_add_test(tc, chunks_errors);
  tcase_add_test(tc, parallel_source_error);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

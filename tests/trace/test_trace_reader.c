/* test_trace_reader.c — the trace format end to end through the real writer and reader:
 * exact round trip, independent chunk decoding, summary totals against a brute-force
 * count, and every kind of bad file giving PPT_EINPUT with the path in the message. */
#include <check.h>

#include "ppt_test.h"
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ppt/trace.h"
#include "synth.h"
#include "trace/bbtab.h"
#include "trace/format.h"
#include "trace/writer.h"

#define SEED 12345u
#define NBBS 37u

static char path[256];

static void setup(void) {
  snprintf(path, sizeof path, "/tmp/ppt_test_trace_%ld.trace", (long)getpid());
  ck_assert_int_eq(synth_write(path, SEED, 2, 600000, NBBS), 0);
}
static void teardown(void) {
  unlink(path);
}

/* Compares a decoded record with the synthetic one; events are compared by value. */
static int same_rec(ppt_trace_rec a, const ppt_trace_event *evs, uint32_t th, uint64_t i) {
  ppt_trace_rec b = synth_rec(SEED, th, i, NBBS);
  if (b.kind != PPT_REC_BB) b.bb = synth_rec(SEED, th, i - i % 8, NBBS).bb;
  if (b.kind == PPT_REC_EVENT) {
    if (a.kind != PPT_REC_EVENT || a.bb != b.bb) return 0;
    ppt_trace_event want = synth_event(SEED, th, i), got = evs[a.addr];
    if (got.type != want.type || got.nvals != want.nvals || a.size != want.type) return 0;
    for (uint32_t k = 0; k < want.nvals; k++)
      if (got.v[k] != want.v[k]) return 0;
    return 1;
  }
  return a.addr == b.addr && a.bb == b.bb && a.kind == b.kind && a.size == b.size && a.flags == b.flags;
}

START_TEST(round_trip_cursor) {
  ppt_trace *t;
  ppt_err err;
  ck_assert_int_eq(ppt_trace_open(path, &t, &err), 0);
  ck_assert_uint_eq(ppt_trace_nthreads(t), 2);
  ck_assert_uint_eq(ppt_trace_nbbs(t), NBBS);
  ck_assert_uint_eq(ppt_trace_nrecs(t, UINT32_MAX), 1200000);
  ck_assert_uint_gt(ppt_trace_thread_nchunks(t, 0), 1); /* the test must cross chunks */
  /* every record, with and without the next chunk decoded ahead on a second thread */
  for (uint32_t th = 0; th < 4; th++) {
    ppt_trace_cursor *c;
    ck_assert_int_eq(ppt_trace_cursor_open(t, th % 2, &c, &err), 0);
    ck_assert_int_eq(ppt_trace_cursor_set_ahead(c, th >= 2), 0);
    uint64_t i = 0;
    const ppt_trace_rec *r;
    size_t n;
    while (ppt_trace_cursor_next(c, &r, &n, &err) == 0 && n) {
      for (size_t j = 0; j < n; j++, i++)
        ck_assert_msg(same_rec(r[j], ppt_trace_cursor_events(c), th % 2, i), "thread %u record %llu differs",
                      th % 2, (unsigned long long)i);
    }
    ck_assert_uint_eq(i, 600000);
    ppt_trace_cursor_close(c);
  }
  const ppt_trace_bb *bb = ppt_trace_bb_get(t, 4);
  ck_assert_str_eq(bb->func, "func3");
  ck_assert_str_eq(bb->file, "synth.c");
  ck_assert_uint_eq(bb->line, 13);
  ck_assert_uint_eq(bb->flags, PPT_BB_PARALLEL);
  ck_assert_uint_eq(bb->ops[PPT_OP_LOAD], 3);
  ck_assert_ptr_null(ppt_trace_bb_get(t, 0));
  ck_assert_ptr_null(ppt_trace_bb_get(t, NBBS + 1));
  ppt_trace_close(t);
}
END_TEST

/* Chunks decode on their own, in any order: what parallel passes rely on. */
START_TEST(chunks_decode_independently) {
  ppt_trace *t;
  ppt_err err;
  ck_assert_int_eq(ppt_trace_open(path, &t, &err), 0);
  ppt_trace_batch *b = ppt_trace_batch_new();
  uint32_t th = 1;
  size_t nk = ppt_trace_thread_nchunks(t, th);
  uint64_t *first = calloc(nk + 1, sizeof *first);
  for (size_t k = 0; k < nk; k++)
    first[k + 1] = first[k] + ppt_trace_chunk(t, ppt_trace_thread_chunk(t, th, k))->nrecs;
  for (size_t k = nk; k-- > 0;) {
    const ppt_trace_rec *r;
    size_t n;
    ck_assert_int_eq(ppt_trace_chunk_decode(t, ppt_trace_thread_chunk(t, th, k), b, &r, &n, &err), 0);
    for (size_t j = 0; j < n; j++) ck_assert(same_rec(r[j], ppt_trace_batch_events(b), th, first[k] + j));
  }
  free(first);
  ppt_trace_batch_free(b);
  ppt_trace_close(t);
}
END_TEST

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

START_TEST(summary_matches_brute_force) {
  ppt_trace *t;
  ppt_err err;
  ck_assert_int_eq(ppt_trace_open(path, &t, &err), 0);
  ppt_trace_summary s;
  ck_assert_int_eq(ppt_trace_summarize(t, &s, NULL, NULL, &err), 0);
  uint64_t loads = 0, stores = 0, insts = 0, par = 0, stack = 0, regions = 0, loops = 0;
  /* Distinct lines by sorting every referenced line: independent of the hash table
   * the summary counts them with. */
  uint64_t *lines = malloc(2 * 600000 * sizeof *lines);
  size_t nlines = 0;
  ck_assert_ptr_nonnull(lines);
  uint64_t called = 0;
  for (uint32_t th = 0; th < 2; th++) {
    uint32_t bb = 0;
    /* in a region: thread 0 between fork and join events, thread 1 throughout */
    long open = th == 1;
    for (uint64_t i = 0; i < 600000; i++) {
      ppt_trace_rec r = synth_rec(SEED, th, i, NBBS);
      if (r.kind == PPT_REC_BB) {
        insts++;
        bb = r.bb;
        continue;
      }
      if (r.kind == PPT_REC_EVENT) {
        regions += r.size == PPT_EV_PAR_BEGIN;
        loops += r.size == PPT_EV_LOOP_BEGIN;
        if (th == 0 && r.size == PPT_EV_PAR_BEGIN) open++;
        if (th == 0 && r.size == PPT_EV_PAR_END) open--;
        continue;
      }
      loads += r.kind == PPT_REC_LOAD;
      stores += r.kind == PPT_REC_STORE;
      stack += r.flags;
      par += open > 0;
      called += open > 0 && (bb - 1) % 3 != 0; /* synth.c flags every third block parallel */
      lines[nlines++] = r.addr >> 6;
    }
  }
  ck_assert_uint_eq(s.loads, loads);
  ck_assert_uint_eq(s.stores, stores);
  ck_assert_uint_eq(s.refs, loads + stores);
  ck_assert_uint_eq(s.bb_instances, insts);
  ck_assert_uint_eq(s.parallel_refs, par);
  ck_assert_uint_eq(s.parallel_called_refs, called);
  ck_assert_uint_eq(s.stack_refs, stack);
  qsort(lines, nlines, sizeof *lines, cmp_u64);
  size_t distinct = 0;
  for (size_t i = 0; i < nlines; i++) distinct += i == 0 || lines[i] != lines[i - 1];
  ck_assert_uint_eq(s.lines64, distinct);
  ck_assert_uint_eq(s.parallel_bbs, (NBBS + 2) / 3);
  ck_assert_uint_eq(s.parallel_regions, regions);
  ck_assert_uint_eq(s.loops, loops);
  ck_assert_uint_gt(loops, 0);
  free(lines);
  ppt_trace_summary_free(&s);
  ppt_trace_close(t);
}
END_TEST

static unsigned char *slurp(const char *p, size_t *n) {
  FILE *f = fopen(p, "rb");
  ck_assert_ptr_nonnull(f);
  fseek(f, 0, SEEK_END);
  *n = (size_t)ftell(f);
  rewind(f);
  unsigned char *buf = malloc(*n);
  ck_assert_uint_eq(fread(buf, 1, *n, f), *n);
  fclose(f);
  return buf;
}

static void spit(const char *p, const unsigned char *buf, size_t n) {
  FILE *f = fopen(p, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(buf, 1, n, f), n);
  fclose(f);
}

/* Opens and fully decodes; returns the status. */
static int open_and_read(const char *p, ppt_err *err) {
  ppt_trace *t;
  int rc = ppt_trace_open(p, &t, err);
  if (rc) return rc;
  ppt_trace_batch *b = ppt_trace_batch_new();
  for (size_t i = 0; i < ppt_trace_nchunks(t) && !rc; i++) {
    const ppt_trace_rec *r;
    size_t n;
    rc = ppt_trace_chunk_decode(t, i, b, &r, &n, err);
  }
  ppt_trace_batch_free(b);
  /* the same through a read-ahead cursor: the same error, from the helper thread */
  for (uint32_t th = 0; th < ppt_trace_nthreads(t); th++) {
    ppt_err e2;
    ppt_trace_cursor *c;
    if (ppt_trace_cursor_open(t, th, &c, &e2)) continue;
    ck_assert_int_eq(ppt_trace_cursor_set_ahead(c, 1), 0);
    const ppt_trace_rec *r;
    size_t n;
    int rc2;
    while ((rc2 = ppt_trace_cursor_next(c, &r, &n, &e2)) == 0 && n) {
    }
    ppt_trace_cursor_close(c);
    if (rc2) ck_assert_msg(rc, "the cursor failed (%s) where chunk decoding did not", e2.msg);
    if (rc2 && !rc) break;
  }
  ppt_trace_close(t);
  return rc;
}

static void expect_input_error(const char *p, const char *needle) {
  ppt_err err;
  ck_assert_int_eq(open_and_read(p, &err), PPT_EINPUT);
  ck_assert_msg(strstr(err.msg, p) != NULL, "message lacks the path: %s", err.msg);
  ck_assert_msg(strstr(err.msg, needle) != NULL, "message '%s' lacks '%s'", err.msg, needle);
  ck_assert_ptr_null(strchr(err.msg, '\n'));
}

START_TEST(bad_files_are_input_errors) {
  char bad[300];
  snprintf(bad, sizeof bad, "%s.bad", path);
  expect_input_error("/nonexistent/dir/x.trace", "cannot open");
  size_t n;
  unsigned char *buf = slurp(path, &n);
  spit(bad, buf, 0);
  expect_input_error(bad, "truncated");
  spit(bad, buf, 100);
  expect_input_error(bad, "truncated");
  spit(bad, buf, n - 1);
  expect_input_error(bad, "truncated");
  unsigned char *m = malloc(n);
  memcpy(m, buf, n);
  m[0] = 'X';
  spit(bad, m, n);
  expect_input_error(bad, "not a ppt trace");
  memcpy(m, buf, n);
  m[8] = 9;
  spit(bad, m, n);
  expect_input_error(bad, "version 9");
  memcpy(m, buf, n);
  m[16] = 0; /* the COMPLETE flag */
  spit(bad, m, n);
  expect_input_error(bad, "incomplete");
  memcpy(m, buf, n);
  m[PPT_TRACE_HEADER_SIZE + 40] ^= 0x55; /* inside the first chunk's zstd frame */
  spit(bad, m, n);
  expect_input_error(bad, "corrupt");
  memcpy(m, buf, n);
  m[n - PPT_TRACE_FOOTER_SIZE - 20] ^= 1; /* chunk table: caught by range checks or checksum */
  spit(bad, m, n);
  expect_input_error(bad, "corrupt");
  free(m);
  free(buf);
  unlink(bad);
}
END_TEST

/* Recomputes the footer's checksum after a test changed the chunk table, so that the
 * change reaches the consistency checks behind it. */
static void fix_checksum(unsigned char *m, size_t n) {
  unsigned char *f = m + n - PPT_TRACE_FOOTER_SIZE;
  uint64_t tab = ppt_fmt_get64(f + 8), nch = ppt_fmt_get64(f + 16), bboff = ppt_fmt_get64(f + 24);
  uint64_t sum = ppt_fmt_fnv1a(PPT_FMT_FNV_INIT, m + tab, nch * PPT_TRACE_CHUNK_ENTRY_SIZE);
  ppt_fmt_put64(f + 48, ppt_fmt_fnv1a(sum, m + bboff, ppt_fmt_get32(f + 32)));
}

/* Fields outside the checksum (header, footer) and chunk-table fields with a checksum
 * made to match: each one changed is caught by a check of what it describes. */
START_TEST(every_field_checked) {
  char bad[300];
  snprintf(bad, sizeof bad, "%s.fld", path);
  size_t n;
  unsigned char *buf = slurp(path, &n);
  unsigned char *m = malloc(n);
  unsigned char *foot = m + n - PPT_TRACE_FOOTER_SIZE;
  ck_assert_uint_eq(ppt_fmt_get32(buf + n - PPT_TRACE_FOOTER_SIZE + 40), 2);
  /* The audit's case: one byte of the thread count (2 -> 4096), checksum untouched. */
  memcpy(m, buf, n);
  foot[41] = 0x10;
  spit(bad, m, n);
  expect_input_error(bad, "corrupt trace: footer says 4098 threads but the chunk table uses 2");
  memcpy(m, buf, n);
  ppt_fmt_put32(foot + 40, 3);
  spit(bad, m, n);
  expect_input_error(bad, "footer says 3 threads but the chunk table uses 2");
  memcpy(m, buf, n);
  ppt_fmt_put32(foot + 40, 1); /* a chunk of thread 1 is then out of range */
  spit(bad, m, n);
  expect_input_error(bad, "corrupt trace: chunk");
  memcpy(m, buf, n);
  foot[60] = 1;
  spit(bad, m, n);
  expect_input_error(bad, "corrupt trace: reserved footer bytes 60..63 are not zero");
  memcpy(m, buf, n);
  m[16] |= 4;
  spit(bad, m, n);
  expect_input_error(bad, "corrupt trace: unknown header flags 0x4");
  memcpy(m, buf, n);
  m[50] = 7;
  spit(bad, m, n);
  expect_input_error(bad, "corrupt trace: reserved header bytes 40..63 are not zero");
  /* pid and creation time are informational: any value opens. */
  memcpy(m, buf, n);
  memset(m + 24, 0xff, 16);
  spit(bad, m, n);
  ppt_err err;
  ck_assert_int_eq(open_and_read(bad, &err), 0);
  /* The first chunk (thread 0, seq 0) claiming an open block, checksum made to match. */
  memcpy(m, buf, n);
  unsigned char *e0 = m + ppt_fmt_get64(foot + 8);
  ck_assert_uint_eq(ppt_fmt_get32(e0 + 20), 0);
  ppt_fmt_put32(e0 + 40, 1);
  fix_checksum(m, n);
  spit(bad, m, n);
  expect_input_error(bad, "corrupt trace: chunk 0 starts thread 0 inside a block");
  memcpy(m, buf, n);
  ppt_fmt_put32(e0 + 44, 3);
  fix_checksum(m, n);
  spit(bad, m, n);
  expect_input_error(bad, "inside a block");
  /* fix_checksum itself leaves a good file good. */
  memcpy(m, buf, n);
  fix_checksum(m, n);
  spit(bad, m, n);
  ck_assert_int_eq(open_and_read(bad, &err), 0);
  free(m);
  free(buf);
  unlink(bad);
}
END_TEST

/* Threads are numbered in the order they first record, and the footer counts up to the
 * highest one with a chunk: a thread below it without chunks is an empty stream, and a
 * thread above it that never wrote a chunk is not counted (every_field_checked: a
 * footer counting threads beyond it is rejected). */
START_TEST(thread_count_matches_chunks) {
  char p2[300];
  snprintf(p2, sizeof p2, "%s.thr", path);
  for (int trailing = 0; trailing < 2; trailing++) {
    ppt_trace_writer *w = ppt_trace_writer_open(p2, 1);
    ck_assert_ptr_nonnull(w);
    ppt_trace_enc *e0 = ppt_trace_enc_new(w), *e1 = ppt_trace_enc_new(w);
    ck_assert_ptr_nonnull(e0);
    ck_assert_ptr_nonnull(e1);
    ppt_trace_enc *rec = trailing ? e0 : e1; /* the other thread records nothing */
    ppt_trace_enc_bb(rec, 1);
    ppt_trace_enc_mem(rec, PPT_REC_LOAD, 3, 0, 0x1000);
    ck_assert_int_eq(ppt_trace_enc_flush(e0), 0);
    ck_assert_int_eq(ppt_trace_enc_flush(e1), 0);
    ppt_trace_enc_free(e0);
    ppt_trace_enc_free(e1);
    ppt_trace_bb bb = {.id = 1, .line = 1, .func = "f", .file = "t.c"};
    unsigned char *raw;
    uint32_t size;
    ck_assert_int_eq(ppt_bbtab_build(&bb, 1, &raw, &size), 0);
    ck_assert_int_eq(ppt_trace_writer_close(w, raw, size), 0);
    free(raw);
    ppt_trace *t;
    ppt_err err;
    if (trailing) {
      /* The writer counts threads up to the highest with a chunk, not the encoders it
       * handed out: a thread numbered as the program exits and never recording leaves
       * no trace of itself (a footer that counted it would be rejected). */
      ck_assert_int_eq(ppt_trace_open(p2, &t, &err), 0);
      ck_assert_uint_eq(ppt_trace_nthreads(t), 1);
      ck_assert_uint_eq(ppt_trace_thread_nchunks(t, 0), 1);
      ppt_trace_close(t);
    } else {
      ck_assert_int_eq(ppt_trace_open(p2, &t, &err), 0);
      ck_assert_uint_eq(ppt_trace_nthreads(t), 2);
      ck_assert_uint_eq(ppt_trace_thread_nchunks(t, 0), 0);
      ck_assert_uint_eq(ppt_trace_thread_nchunks(t, 1), 1);
      ck_assert_uint_eq(ppt_trace_nrefs(t, 1), 1);
      ppt_trace_close(t);
    }
  }
  /* No chunks at all: no threads. */
  ck_assert_int_eq(synth_write(p2, 3, 0, 0, 4), 0);
  ppt_trace *t;
  ppt_err err;
  ck_assert_int_eq(ppt_trace_open(p2, &t, &err), 0);
  ck_assert_uint_eq(ppt_trace_nthreads(t), 0);
  ppt_trace_close(t);
  unlink(p2);
}
END_TEST

/* Random damage anywhere: never a crash, and either a clean read or PPT_EINPUT. */
START_TEST(random_damage_never_crashes) {
  char bad[300];
  snprintf(bad, sizeof bad, "%s.dmg", path);
  char small[300];
  snprintf(small, sizeof small, "%s.small", path);
  ck_assert_int_eq(synth_write(small, 7, 1, 3000, 5), 0);
  size_t n;
  unsigned char *buf = slurp(small, &n);
  unsigned char *m = malloc(n);
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 99);
  for (int trial = 0; trial < 300; trial++) {
    memcpy(m, buf, n);
    int flips = 1 + (int)gsl_rng_uniform_int(rng, 4);
    for (int f = 0; f < flips; f++)
      m[gsl_rng_uniform_int(rng, n)] ^= (unsigned char)(1 + gsl_rng_uniform_int(rng, 255));
    size_t len = trial % 5 == 4 ? gsl_rng_uniform_int(rng, n) : n;
    spit(bad, m, len);
    ppt_err err;
    int rc = open_and_read(bad, &err);
    ck_assert(rc == 0 || rc == PPT_EINPUT);
  }
  gsl_rng_free(rng);
  free(m);
  free(buf);
  unlink(bad);
  unlink(small);
}
END_TEST

int main(void) {
  Suite *s = suite_create("trace_reader");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, round_trip_cursor);
  tcase_add_test(tc, chunks_decode_independently);
  tcase_add_test(tc, summary_matches_brute_force);
  tcase_add_test(tc, bad_files_are_input_errors);
  tcase_add_test(tc, every_field_checked);
  tcase_add_test(tc, thread_count_matches_chunks);
  tcase_add_test(tc, random_damage_never_crashes);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

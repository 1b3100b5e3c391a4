/* test_prefetch.c — the prefetcher model (cache/prefetch.h) on access patterns whose
 * covered misses can be counted by hand, and the served/streamed counts the trace
 * simulator derives from it. */
#include "cache/prefetch.h"

#include <stdint.h>

#include "../ppt_test.h"

enum { LB = 6 }; /* 64-byte lines */

/* A row sweep: every line of 4 pages missing in order. Each page's first miss starts a
 * stream (not covered), the other 63 continue it. */
START_TEST(stream_sweep_is_covered_but_first_of_each_page) {
  cache_prefetch *p = cache_prefetch_new(1, LB);
  ck_assert_ptr_nonnull(p);
  int covered = 0;
  for (uint64_t a = 0x100000; a < 0x100000 + 4 * 4096; a += 64) covered += cache_prefetch_access(p, 0, a, 1);
  ck_assert_int_eq(covered, 4 * 63);
  cache_prefetch_free(p);
}
END_TEST

/* Descending sweeps are streams too; a line two lines on is within reach. */
START_TEST(stream_descending_and_skip_one) {
  cache_prefetch *p = cache_prefetch_new(1, LB);
  int covered = 0;
  for (int64_t a = 0x200000 + 4096 - 64; a >= 0x200000; a -= 128)
    covered += cache_prefetch_access(p, 0, (uint64_t)a, 1);
  ck_assert_int_eq(covered, 31); /* 32 misses, every other line, one page */
  cache_prefetch_free(p);
}
END_TEST

/* Hits train nothing in the stream table: a sweep whose lines all hit is never
 * "covered", and neither is a miss on the very line a stream last missed. */
START_TEST(hits_and_repeats_are_not_covered) {
  cache_prefetch *p = cache_prefetch_new(1, LB);
  int covered = 0;
  for (uint64_t a = 0; a < 4096; a += 64) covered += cache_prefetch_access(p, 0, 0x300000 + a, 0);
  ck_assert_int_eq(covered, 0);
  ck_assert_int_eq(cache_prefetch_access(p, 0, 0x400000, 1), 0);
  ck_assert_int_eq(cache_prefetch_access(p, 0, 0x400000, 1), 0);
  cache_prefetch_free(p);
}
END_TEST

/* A column walk from one instruction (site): rows of 1 KiB, so 4 rows per page. The
 * site needs two equal strides before it predicts, and it never predicts across a page:
 * in the first page rows 0-2 train (first address, first stride, stride confirmed) and
 * row 3 is covered; in every later page row 0 crosses (not covered) and rows 1..3 are.
 * The stream table never covers (16 lines apart). 8 pages = 32 rows: 1 + 7 * 3 = 22. */
START_TEST(site_stride_within_page) {
  cache_prefetch *p = cache_prefetch_new(1, LB);
  int covered = 0;
  for (int r = 0; r < 32; r++) {
    cache_prefetch_block(p, 0, 7);
    covered += cache_prefetch_access(p, 0, 0x800000 + (uint64_t)r * 1024, 1);
  }
  ck_assert_int_eq(covered, 22);
  cache_prefetch_free(p);
}
END_TEST

/* A column walk with a page-sized stride (adi's 512 doubles per row) is never covered;
 * neither is the same walk without block entries (no sites known). */
START_TEST(page_stride_and_no_sites_not_covered) {
  cache_prefetch *p = cache_prefetch_new(1, LB);
  int covered = 0;
  for (int r = 0; r < 64; r++) {
    cache_prefetch_block(p, 0, 3);
    covered += cache_prefetch_access(p, 0, 0x900000 + (uint64_t)r * 4096, 1);
  }
  ck_assert_int_eq(covered, 0);
  cache_prefetch *q = cache_prefetch_new(1, LB);
  for (int r = 0; r < 32; r++) covered += cache_prefetch_access(q, 0, 0xA00000 + (uint64_t)r * 1024, 1);
  ck_assert_int_eq(covered, 0);
  cache_prefetch_free(p);
  cache_prefetch_free(q);
}
END_TEST

/* Two sites of one block keep their own strides (k-th reference after the entry), and
 * threads have their own tables: thread 1's walk does not train thread 0's. */
START_TEST(sites_and_threads_are_separate) {
  cache_prefetch *p = cache_prefetch_new(2, LB);
  int c0 = 0, c1 = 0;
  for (int r = 0; r < 4; r++) { /* one page for each site: only row 3 is covered */
    cache_prefetch_block(p, 0, 9);
    c0 += cache_prefetch_access(p, 0, 0xB00000 + (uint64_t)r * 1024, 1);
    c1 += cache_prefetch_access(p, 0, 0xC00000 + (uint64_t)r * 512, 1);
  }
  ck_assert_int_eq(c0, 1);
  ck_assert_int_eq(c1, 1);
  /* Thread 1 walks on from there: its table is empty, so the row is not covered. */
  cache_prefetch_block(p, 1, 9);
  ck_assert_int_eq(cache_prefetch_access(p, 1, 0xB00000 + 4 * 1024, 1), 0);
  cache_prefetch_free(p);
}
END_TEST

/* More pages in flight than streams: 17 interleaved sweeps evict each other (LRU), so
 * only the 16 most recent survive; 16 interleaved sweeps are all covered after their
 * first line. */
START_TEST(stream_table_capacity) {
  for (int nstreams = PPT_STREAMS; nstreams <= PPT_STREAMS + 1; nstreams++) {
    cache_prefetch *p = cache_prefetch_new(1, LB);
    int covered = 0;
    for (int l = 0; l < 8; l++)
      for (int s = 0; s < nstreams; s++)
        covered += cache_prefetch_access(p, 0, 0x1000000 + (uint64_t)s * 8192 + (uint64_t)l * 64, 1);
    ck_assert_int_eq(covered, nstreams == PPT_STREAMS ? PPT_STREAMS * 7 : 0);
    cache_prefetch_free(p);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("prefetch");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, stream_sweep_is_covered_but_first_of_each_page);
  tcase_add_test(tc, stream_descending_and_skip_one);
  tcase_add_test(tc, hits_and_repeats_are_not_covered);
  tcase_add_test(tc, site_stride_within_page);
  tcase_add_test(tc, page_stride_and_no_sites_not_covered);
  tcase_add_test(tc, sites_and_threads_are_separate);
  tcase_add_test(tc, stream_table_capacity);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

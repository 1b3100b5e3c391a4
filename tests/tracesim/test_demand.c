/* test_demand.c — a level's demand size (hwspec levels[k].demand_size): an access that no
 * prefetcher covered finds its line only in the most recent demand ways of its set, and
 * is served by the next level from deeper in the set. Oracles, worked by hand on a
 * 1-set L1 of 8 ways and a 1-set L2 of 64 ways whose demand size is 16 ways:
 *  - irregular: 32 lines in 32 pages, twice in the same order, with no block entries (so
 *    only the stream prefetcher, which works within a page, could cover them: it never
 *    does). The second pass finds each line 31 deep in the L2 set: 32 L2 hits without a
 *    demand size, 32 misses to memory with one. 12 lines instead sit 11 deep: hits both ways;
 *  - stream: 32 consecutive lines of one page, twice. On the second pass line 0 starts
 *    a new stream (31 lines from the page's last miss, beyond the 2-line reach): it is a
 *    demand access 31 deep, so memory serves it; lines 1-31 continue that stream, are
 *    covered, and hit the L2 at any depth;
 *  - the spec: demand ways by hand, the limit refused over the size, the round trip. */
#include <check.h>

#include "ppt_test.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppt/tracesim.h"

#define PAGE 4096ull
#define BASE 0x7f0000000000ull

static void load_hw(const char *demand, ppt_hwspec *hw) {
  char json[1024];
  snprintf(json, sizeof json,
           "{\"name\": \"t\", \"cores\": 1, \"levels\": [{\"name\": \"L1\", \"size\": 512, \"assoc\": 8,"
           " \"line\": 64}, {\"name\": \"L2\", \"size\": 4096, \"assoc\": 64, \"line\": 64%s}]}",
           demand ? demand : "");
  ppt_err err;
  ck_assert_msg(ppt_hwspec_parse(json, "test-hw", hw, &err) == 0, "%s", err.msg);
}

/* Two passes over n lines, line i at BASE + i * stride; the counts of the whole run. */
static void two_passes(const char *demand, uint32_t n, uint64_t stride, ppt_tracesim_result *out) {
  ppt_hwspec hw;
  load_hw(demand, &hw);
  ppt_tracesim_tally *t;
  ppt_err err;
  ck_assert_msg(ppt_tracesim_tally_new(&hw, 1, NULL, 4, 1, &t, &err) == 0, "%s", err.msg);
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t i = 0; i < n; i++) {
      ppt_trace_rec r = {.addr = BASE + i * stride, .bb = 1, .kind = PPT_REC_LOAD, .size = 8};
      ppt_tracesim_tally_access(t, 0, &r);
    }
  ppt_tracesim_tally_result(t, 1, out);
  ppt_tracesim_tally_free(t);
}

#define DEMAND16 ", \"demand_size\": 1024"

START_TEST(irregular_lines_beyond_demand_ways) {
  ppt_tracesim_result r;
  two_passes(NULL, 32, PAGE + 64, &r);
  ck_assert_uint_eq(r.served[0], 0);
  ck_assert_uint_eq(r.served[1], 32);
  ck_assert_uint_eq(r.served[2], 32);
  two_passes(DEMAND16, 32, PAGE + 64, &r);
  ck_assert_uint_eq(r.served[1], 0);
  ck_assert_uint_eq(r.served[2], 64);
  /* the line counts say the same: every L2 access missed */
  ck_assert_uint_eq(r.levels[1].accesses, 64);
  ck_assert_uint_eq(r.levels[1].misses, 64);
  ck_assert_uint_eq(r.prefetched[2], 0);
  /* 12 lines: 11 deep, within the 16 demand ways */
  two_passes(DEMAND16, 12, PAGE + 64, &r);
  ck_assert_uint_eq(r.served[1], 12);
  ck_assert_uint_eq(r.served[2], 12);
}
END_TEST

START_TEST(stream_lines_use_every_way) {
  ppt_tracesim_result r;
  two_passes(NULL, 32, 64, &r);
  ck_assert_uint_eq(r.served[1], 32);
  ck_assert_uint_eq(r.served[2], 32);
  two_passes(DEMAND16, 32, 64, &r);
  ck_assert_uint_eq(r.served[1], 31);
  ck_assert_uint_eq(r.served[2], 33);
  ck_assert_uint_eq(r.levels[1].accesses, 64);
  ck_assert_uint_eq(r.levels[1].misses, 33);
}
END_TEST

START_TEST(demand_ways_and_spec) {
  ppt_hw_level lv = {.size = 76 * 131072, .assoc = 76, .line = 64};
  ck_assert_uint_eq(ppt_hwspec_demand_ways(&lv), 76); /* none given: every way */
  lv.demand_size = 26 * 131072;
  ck_assert_uint_eq(ppt_hwspec_demand_ways(&lv), 26);
  lv.demand_size = 26 * 131072 + 60000; /* rounds to the nearer way */
  ck_assert_uint_eq(ppt_hwspec_demand_ways(&lv), 26);
  lv.demand_size = 26 * 131072 + 70000;
  ck_assert_uint_eq(ppt_hwspec_demand_ways(&lv), 27);
  lv.demand_size = 1000; /* less than a way: one */
  ck_assert_uint_eq(ppt_hwspec_demand_ways(&lv), 1);
  lv.demand_size = lv.size;
  ck_assert_uint_eq(ppt_hwspec_demand_ways(&lv), 76);

  ppt_hwspec hw;
  load_hw(DEMAND16, &hw);
  ck_assert_uint_eq(hw.levels[1].demand_size, 1024);
  ck_assert_uint_eq(hw.levels[0].demand_size, 0);
  char *j = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_nonnull(strstr(j, "\"demand_size\": 1024"));
  ppt_hwspec back;
  ppt_err err;
  ck_assert_msg(ppt_hwspec_parse(j, "round-trip", &back, &err) == 0, "%s", err.msg);
  ck_assert_uint_eq(back.levels[1].demand_size, 1024);
  free(j);

  const char *bad =
      "{\"name\": \"t\", \"cores\": 1, \"levels\": [{\"name\": \"L1\", \"size\": 4096, \"assoc\": 8,"
      " \"line\": 64, \"demand_size\": 8192}]}";
  ck_assert_int_eq(ppt_hwspec_parse(bad, "bad-hw", &hw, &err), PPT_EINPUT);
  ck_assert_msg(strstr(err.msg, "bad-hw") && strstr(err.msg, "levels[0].demand_size") &&
                    strstr(err.msg, "8192 is more than the level's size (4096)") && !strchr(err.msg, '\n'),
                "%s", err.msg);
  const char *neg =
      "{\"name\": \"t\", \"cores\": 1, \"levels\": [{\"name\": \"L1\", \"size\": 4096, \"assoc\": 8,"
      " \"line\": 64, \"demand_size\": \"big\"}]}";
  ck_assert_int_eq(ppt_hwspec_parse(neg, "bad-hw", &hw, &err), PPT_EINPUT);
  ck_assert_msg(strstr(err.msg, "demand_size"), "%s", err.msg);
}
END_TEST

int main(void) {
  Suite *s = suite_create("tracesim_demand");
  TCase *tc = tcase_create("demand");
  tcase_add_test(tc, irregular_lines_beyond_demand_ways);
  tcase_add_test(tc, stream_lines_use_every_way);
  tcase_add_test(tc, demand_ways_and_spec);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

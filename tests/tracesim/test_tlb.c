/* test_tlb.c — the data-TLB simulation of the tally (ppt/tracesim.h, hwspec "tlb"),
 * against oracles:
 *  - analytic: a cyclic page-strided walk over P pages in an LRU TLB of E entries
 *    misses P times (compulsory) when every set holds its pages, and on every
 *    reference when P > E (fully associative) or a set gets more pages than ways;
 *  - brute force: a random stream through two TLB levels against a list-based LRU
 *    model written here (move-to-front, a miss fills every level it missed in);
 *  - per-thread TLBs, the counting filter, huge pages, the JSON counts. */
#include <check.h>

#include "ppt_test.h"
#include <gsl/gsl_rng.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "ppt/tracesim.h"

#define PAGE 4096ull
#define BASE 0x7f0000000000ull

static void load_hw(const char *tlb, ppt_hwspec *hw) {
  char json[1024];
  snprintf(json, sizeof json,
           "{\"name\": \"t\", \"cores\": 2, \"levels\": [{\"name\": \"L1\", \"size\": 32768, \"assoc\": 8,"
           " \"line\": 64}]%s%s}", tlb ? ", \"tlb\": " : "", tlb ? tlb : "");
  ppt_err err;
  ck_assert_msg(ppt_hwspec_parse(json, "test-hw", hw, &err) == 0, "%s", err.msg);
}

static ppt_tracesim_tally *tally(const ppt_hwspec *hw, uint32_t nthreads, const unsigned char *counted) {
  ppt_tracesim_tally *t;
  ppt_err err;
  ck_assert_msg(ppt_tracesim_tally_new(hw, nthreads, counted, 4, 1, &t, &err) == 0, "%s", err.msg);
  return t;
}

static void ref(ppt_tracesim_tally *t, uint32_t thread, uint32_t bb, uint64_t addr, uint8_t size) {
  ppt_trace_rec r = {.addr = addr, .bb = bb, .kind = PPT_REC_LOAD, .size = size};
  ppt_tracesim_tally_access(t, thread, &r);
}

/* K passes over P pages, one 8-byte load per page at a line offset that changes from
 * page to page (the TLB must not care where in the page). */
static void walk(const char *tlb, uint32_t pages, uint32_t passes, uint64_t hit0, uint64_t walks) {
  ppt_hwspec hw;
  load_hw(tlb, &hw);
  ppt_tracesim_tally *t = tally(&hw, 1, NULL);
  for (uint32_t k = 0; k < passes; k++)
    for (uint32_t p = 0; p < pages; p++) ref(t, 0, 1, BASE + p * PAGE + 64 * ((p * 7 + k) % 64), 8);
  ppt_tracesim_result r;
  ppt_tracesim_tally_result(t, 1, &r);
  ck_assert_uint_eq(r.ntlb, 1);
  ck_assert_str_eq(r.tlb_names[0], "DTLB1");
  ck_assert_uint_eq(r.tlb_served[0], hit0);
  ck_assert_uint_eq(r.tlb_served[1], walks);
  ck_assert_uint_eq(r.tlb_served[0] + r.tlb_served[1], r.counted_refs);
  ppt_tracesim_tally_free(t);
}

#define FA64 "[{\"name\": \"DTLB1\", \"entries\": 64, \"assoc\": 64, \"page_bytes\": 4096, \"miss_cycles\": 7}]"
#define SA64 "[{\"name\": \"DTLB1\", \"entries\": 64, \"assoc\": 4, \"page_bytes\": 4096, \"miss_cycles\": 7}]"

START_TEST(walk_within_reach) {
  walk(FA64, 64, 5, 64 * 4, 64); /* P <= E: only the P compulsory misses */
  walk(FA64, 10, 3, 20, 10);
  /* 16 sets of 4 ways: consecutive pages spread evenly, 4 per set, all held */
  walk(SA64, 64, 5, 64 * 4, 64);
}
END_TEST

START_TEST(walk_beyond_reach) {
  walk(FA64, 65, 5, 0, 65 * 5); /* LRU keeps nothing of a cyclic walk one page too long */
  walk(FA64, 300, 4, 0, 1200);
  /* 80 pages: 5 per set of 4 ways, every reference misses although 80 < 2 x 64 */
  walk(SA64, 80, 3, 0, 240);
}
END_TEST

/* Independent model: per level a list of pages, most recent first, one list per set. */
typedef struct lru {
  uint32_t sets, ways;
  uint64_t *p; /* sets * ways, 0 = empty (page numbers here are never 0) */
} lru;

static int lru_access(lru *c, uint64_t page) {
  uint64_t *s = c->p + (page % c->sets) * c->ways;
  uint32_t i = 0;
  while (i < c->ways && s[i] != page) i++;
  int hit = i < c->ways;
  if (!hit) i = c->ways - 1;
  memmove(s + 1, s, i * sizeof *s);
  s[0] = page;
  return hit;
}

START_TEST(two_levels_vs_brute_force) {
  ppt_hwspec hw;
  load_hw("[{\"name\": \"DTLB1\", \"entries\": 16, \"assoc\": 4, \"page_bytes\": 4096, \"miss_cycles\": 7},"
          " {\"name\": \"DTLB2\", \"entries\": 128, \"assoc\": 8, \"page_bytes\": 4096, \"miss_cycles\": 30}]",
          &hw);
  ppt_tracesim_tally *t = tally(&hw, 1, NULL);
  lru l1 = {4, 4, calloc(16, 8)}, l2 = {16, 8, calloc(128, 8)};
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 3);
  uint64_t want[3] = {0};
  for (int i = 0; i < 200000; i++) {
    /* mostly a hot set of 12 pages, then a warm set of 100, then a cold range of 1000 */
    double u = gsl_rng_uniform(rng);
    uint64_t span = u < 0.5 ? 12 : u < 0.85 ? 100 : 1000;
    uint64_t page = (BASE / PAGE) + gsl_rng_uniform_int(rng, span);
    ref(t, 0, 1, page * PAGE + gsl_rng_uniform_int(rng, PAGE - 8), 8);
    want[lru_access(&l1, page) ? 0 : lru_access(&l2, page) ? 1 : 2]++;
  }
  ppt_tracesim_result r;
  ppt_tracesim_tally_result(t, 1, &r);
  ck_assert_uint_eq(r.ntlb, 2);
  for (int j = 0; j < 3; j++) ck_assert_uint_eq(r.tlb_served[j], want[j]);
  ck_assert_uint_gt(want[1], 10000); /* the stream exercises both levels and the walks */
  ck_assert_uint_gt(want[2], 10000);
  gsl_rng_free(rng);
  free(l1.p);
  free(l2.p);
  ppt_tracesim_tally_free(t);
}
END_TEST

START_TEST(threads_filter_pages) {
  ppt_hwspec hw;
  load_hw(FA64, &hw);
  /* Each thread has its own TLB: the same 10 pages miss once per thread. Block 2 is not
   * counted, but its references still fill the TLB (thread 1's first pass). */
  unsigned char counted[5] = {0, 1, 0, 1, 1};
  ppt_tracesim_tally *t = tally(&hw, 2, counted);
  for (int k = 0; k < 3; k++)
    for (uint64_t p = 0; p < 10; p++) {
      ref(t, 0, 1, BASE + p * PAGE, 8);
      ref(t, 1, k == 0 ? 2 : 1, BASE + p * PAGE + 8, 8);
    }
  ppt_tracesim_result r;
  ppt_tracesim_tally_result(t, 2, &r);
  ck_assert_uint_eq(r.counted_refs, 50);
  ck_assert_uint_eq(r.tlb_served[1], 10); /* thread 0's compulsory misses only */
  ck_assert_uint_eq(r.tlb_served[0], 40);
  ppt_tracesim_tally_free(t);

  /* 2 MiB pages: 512 loads 4 KiB apart lie in one page; a straddling access counts once */
  load_hw("[{\"name\": \"DTLB1\", \"entries\": 32, \"assoc\": 4, \"page_bytes\": 2097152, \"miss_cycles\": 7}]",
          &hw);
  t = tally(&hw, 1, NULL);
  for (uint64_t i = 0; i < 512; i++) ref(t, 0, 1, BASE + i * PAGE, 8);
  ref(t, 0, 1, BASE + (2ull << 20) - 4, 8); /* last bytes of the page and first of the next */
  ppt_tracesim_tally_result(t, 1, &r);
  ck_assert_uint_eq(r.tlb_served[1], 1);
  ck_assert_uint_eq(r.tlb_served[0], 512);
  ppt_tracesim_tally_free(t);
}
END_TEST

START_TEST(no_tlb_and_json) {
  ppt_hwspec hw;
  load_hw(NULL, &hw);
  ppt_tracesim_tally *t = tally(&hw, 1, NULL);
  for (uint64_t p = 0; p < 100; p++) ref(t, 0, 1, BASE + p * PAGE, 8);
  ppt_tracesim_result r;
  ppt_tracesim_tally_result(t, 1, &r);
  ck_assert_uint_eq(r.ntlb, 0);
  ck_assert_uint_eq(r.tlb_served[0] + r.tlb_served[1], 0);
  json_object *j = ppt_tracesim_json(&r);
  ck_assert(!json_object_object_get_ex(j, "tlb_levels", NULL));
  json_object_put(j);
  ppt_tracesim_tally_free(t);

  /* 100 pages twice through 64 entries: 200 lookups, all miss */
  load_hw(FA64, &hw);
  t = tally(&hw, 1, NULL);
  for (int k = 0; k < 2; k++)
    for (uint64_t p = 0; p < 100; p++) ref(t, 0, 1, BASE + p * PAGE, 8);
  ppt_tracesim_tally_result(t, 1, &r);
  j = ppt_tracesim_json(&r);
  json_object *tl, *l0, *v;
  ck_assert(json_object_object_get_ex(j, "tlb_levels", &tl));
  ck_assert_uint_eq(json_object_array_length(tl), 1);
  l0 = json_object_array_get_idx(tl, 0);
  ck_assert(json_object_object_get_ex(l0, "name", &v) && !strcmp(json_object_get_string(v), "DTLB1"));
  ck_assert(json_object_object_get_ex(l0, "accesses", &v) && json_object_get_int64(v) == 200);
  ck_assert(json_object_object_get_ex(l0, "misses", &v) && json_object_get_int64(v) == 200);
  json_object_put(j);
  ppt_tracesim_tally_free(t);
}
END_TEST

int main(void) {
  Suite *s = suite_create("tracesim_tlb");
  TCase *tc = tcase_create("tlb");
  tcase_add_test(tc, walk_within_reach);
  tcase_add_test(tc, walk_beyond_reach);
  tcase_add_test(tc, two_levels_vs_brute_force);
  tcase_add_test(tc, threads_filter_pages);
  tcase_add_test(tc, no_tlb_and_json);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

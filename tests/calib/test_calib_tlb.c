/* test_calib_tlb.c — the data-TLB probe of `ppt calibrate` (models/calib/memory/calib_tlb.c).
 *
 * Oracles: CPUID register values of known CPUs with the TLBs their vendors document
 *  - AMD Zen 3 (EPYC 7003, family 19h; the values this validation host returns):
 *    Fn8000_0005 EBX = FF40FF40h, Fn8000_0006 EBX = 68004200h; AMD's Software
 *    Optimization Guide for family 19h: L1 DTLB 64 entries, fully associative; L2 DTLB
 *    2048 entries (code 6h: 8 ways in the APM's encoding table);
 *  - Intel Ice Lake (Core i7-1068NG7), leaf 18H sub-leaves as decoded in a public
 *    write-up (github.com/urd00m/System-Projects, cache_timer/i7_writeup.md): a 4-way,
 *    16-set load-only TLB for 4 KiB pages at level 1 (64 entries), a fully associative
 *    16-entry store-only one, an 8-way 128-set unified STLB at level 2 (1024 entries);
 * and for the timing only what any host obeys: a TLB miss costs a positive, finite time
 * (the VM is noisy, so no tighter bounds). */
#include <check.h>

#include "ppt_test.h"
#include <gsl/gsl_rng.h>
#include <math.h>
#include <string.h>

#include "calib/calib_impl.h"

START_TEST(amd_zen3) {
  calib_tlb_geo g;
  ck_assert_uint_eq(calib_tlb_decode_amd(0xFF40FF40u, 0x68004200u, &g), 2);
  ck_assert_uint_eq(g.entries[0], 64);
  ck_assert_uint_eq(g.assoc[0], 64);
  ck_assert_uint_eq(g.entries[1], 2048);
  ck_assert_uint_eq(g.assoc[1], 8);
  ck_assert_ptr_nonnull(strstr(g.source, "Fn8000_0005"));
}
END_TEST

START_TEST(amd_encodings) {
  calib_tlb_geo g;
  /* Zen 2 era: L1 64 fully associative, L2 1536 entries code 5h = 6 ways (256 sets) */
  ck_assert_uint_eq(calib_tlb_decode_amd(0xFF40FF40u, 0x56004200u, &g), 2);
  ck_assert_uint_eq(g.entries[1], 1536);
  ck_assert_uint_eq(g.assoc[1], 6);
  /* 3072 entries in 8 ways is 384 sets: kept as 256 sets of 8 ways */
  calib_tlb_decode_amd(0xFF40FF40u, 0x6C000000u, &g);
  ck_assert_uint_eq(g.entries[1], 2048);
  ck_assert_uint_eq(g.assoc[1], 8);
  /* code Fh: fully associative; code 0: no L2 TLB; a reserved code (7h): none either */
  calib_tlb_decode_amd(0x04200000u, 0xF4000000u, &g); /* L1 32 entries 4 ways, L2 1024 fully */
  ck_assert_uint_eq(g.nlevels, 2);
  ck_assert_uint_eq(g.assoc[0], 4);
  ck_assert_uint_eq(g.entries[1], 1024);
  ck_assert_uint_eq(g.assoc[1], 1024);
  ck_assert_uint_eq(calib_tlb_decode_amd(0xFF40FF40u, 0x08004200u, &g), 1);
  ck_assert_uint_eq(calib_tlb_decode_amd(0xFF40FF40u, 0x78004200u, &g), 1);
  /* an L2 not larger than L1 is left out; nothing at all gives no level */
  ck_assert_uint_eq(calib_tlb_decode_amd(0xFF40FF40u, 0xF0400000u, &g), 1); /* 64 fully: not larger */
  ck_assert_uint_eq(calib_tlb_decode_amd(0, 0, &g), 0);
}
END_TEST

/* EBX: bit 0 4 KiB, bit 1 2 MiB, bit 2 4 MiB, bit 3 1 GiB, ways in 31:16; ECX sets;
 * EDX: type 4:0, level 7:5, fully associative bit 8. */
#define SUB(pages, ways, sets, type, level, fa) \
  { 0, (pages) | ((uint32_t)(ways) << 16), (sets), (type) | ((level) << 5) | ((uint32_t)(fa) << 8) }

START_TEST(intel_ice_lake) {
  const uint32_t regs[8][4] = {
      {7, 0, 0, 0},              /* sub-leaf 0: max sub-leaf 7, no TLB described */
      SUB(0x7, 8, 1, 2, 1, 1),   /* instruction TLB */
      SUB(0xF, 16, 1, 5, 1, 1),  /* store-only, all page sizes */
      SUB(0x1, 4, 16, 4, 1, 0),  /* load-only, 4 KiB */
      SUB(0x6, 4, 8, 4, 1, 0),   /* load-only, 2/4 MiB */
      SUB(0x8, 8, 1, 4, 1, 1),   /* load-only, 1 GiB */
      SUB(0x7, 8, 128, 3, 2, 0), /* STLB, 4 KiB/2 MiB/4 MiB */
      SUB(0x9, 8, 128, 3, 2, 0), /* STLB, 4 KiB/1 GiB */
  };
  calib_tlb_geo g;
  ck_assert_uint_eq(calib_tlb_decode_intel(regs, 8, &g), 2);
  ck_assert_uint_eq(g.entries[0], 64);
  ck_assert_uint_eq(g.assoc[0], 4);
  ck_assert_uint_eq(g.entries[1], 1024);
  ck_assert_uint_eq(g.assoc[1], 8);
  ck_assert_ptr_nonnull(strstr(g.source, "18H"));
  /* without the load-only 4 KiB entry, level 1 has no data TLB for small pages */
  ck_assert_uint_eq(calib_tlb_decode_intel(regs, 3, &g), 0);
  const uint32_t only_stlb[2][4] = {{1, 0, 0, 0}, SUB(0x1, 12, 128, 3, 2, 0)};
  ck_assert_uint_eq(calib_tlb_decode_intel(only_stlb, 2, &g), 1);
  ck_assert_uint_eq(g.entries[0], 1536);
  ck_assert_uint_eq(g.assoc[0], 12);
}
END_TEST

/* Whatever this host is, what it reports is a valid hwspec "tlb" array. */
/* The reach a level holds: the last one costing at most half the sweep's largest extra.
 * The validation VM's L2 DTLB (CPUID: 128 entries) beyond the L1 DTLB's 2.6 ns: ~0 at
 * 512-1024 pages, 0.7 ns at 2048, then walks of ~12 ns. */
START_TEST(held_reach) {
  double vm[] = {0.02, 0.1, 0.7, 12.3, 12.0, 12.5, 12.4};
  ck_assert_uint_eq(calib_tlb_held(vm, 7), 2); /* 2048 of 512 << i pages */
  double lru[] = {0, 0, 0, 8, 8};              /* an LRU level: all or nothing */
  ck_assert_uint_eq(calib_tlb_held(lru, 5), 2);
  double slope[] = {1, 2, 3, 4, 5, 6, 7, 8}; /* half of 8: the 4 at index 3 */
  ck_assert_uint_eq(calib_tlb_held(slope, 8), 3);
  ck_assert_uint_eq(calib_tlb_held(vm, 0), 0);
}
END_TEST

START_TEST(host_geometry_valid) {
  calib_tlb_geo g;
  calib_cpuid_regs regs;
  calib_cpuid_read(&regs);
  int n = calib_tlb_geometry(&regs, &g);
  ck_assert_int_ge(n, 0);
  ck_assert_int_le(n, PPT_HW_MAX_TLB);
  ppt_hwspec hw;
  memset(&hw, 0, sizeof hw);
  snprintf(hw.name, sizeof hw.name, "host");
  hw.cores = 1;
  hw.nlevels = 1;
  hw.levels[0] = (ppt_hw_level){.name = "L1", .size = 32768, .assoc = 8, .line = 64, .shared_by = 1};
  hw.ntlb = (uint32_t)n;
  for (int j = 0; j < n; j++) {
    snprintf(hw.tlb[j].name, sizeof hw.tlb[j].name, "DTLB%d", j + 1);
    hw.tlb[j].entries = g.entries[j];
    hw.tlb[j].assoc = g.assoc[j];
    hw.tlb[j].page_bytes = 4096;
  }
  ppt_err err;
  ck_assert_msg(ppt_hwspec_validate(&hw, "host", &err) == 0, "%s", err.msg);
}
END_TEST

START_TEST(miss_cost_positive) {
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 11);
  calib_timing t = {0.001, 5, 0};
  /* 1024 pages: beyond any first-level DTLB (64-96 entries), within the second */
  int huge = -1;
  double ns = calib_tlb_miss_ns(1024, &huge, rng, &t);
  ck_assert_msg(isfinite(ns) && ns > 0 && ns < 1000, "%g ns per miss", ns);
  ck_assert(huge == 0 || huge == 1);
  ck_assert(isnan(calib_tlb_miss_ns(1, NULL, rng, &t)));
  calib_tlb_geo g = {.nlevels = 1, .entries = {64}, .assoc = {64}};
  double miss[PPT_HW_MAX_TLB];
  uint64_t pages[PPT_HW_MAX_TLB];
  ck_assert_int_eq(calib_tlb_measure(&g, 32768, rng, &t, miss, pages), 0);
  ck_assert_uint_eq(pages[0], 256); /* 4 x 64 pages; a 32 KiB cap would allow 256 lines */
  ck_assert_msg(isfinite(miss[0]) && miss[0] >= 0, "%g", miss[0]);
  gsl_rng_free(rng);
}
END_TEST

/* The ratio and its clamps, by hand. */
START_TEST(overlap_ratio) {
  ck_assert(calib_tlb_overlap(40.0, 8.0) == 5.0);
  ck_assert(calib_tlb_overlap(40.0, 80.0) == 1.0); /* loads no faster than the chase: one at a time */
  ck_assert(calib_tlb_overlap(40.0, 0.5) == CALIB_TLB_MAX_IN_FLIGHT);
  ck_assert(calib_tlb_overlap(40.0, 0.0) == CALIB_TLB_MAX_IN_FLIGHT); /* loads show no walk at all */
  ck_assert(calib_tlb_overlap(40.0, -1.0) == CALIB_TLB_MAX_IN_FLIGHT);
  ck_assert(isnan(calib_tlb_overlap(0.0, 5.0))); /* the chase shows no walk: nothing to divide */
  ck_assert(isnan(calib_tlb_overlap(-2.0, 5.0)));
  ck_assert(isnan(calib_tlb_overlap(NAN, 5.0)));
  ck_assert(isnan(calib_tlb_overlap(40.0, NAN)));
}
END_TEST

/* On this host: 16384 pages (64 MiB of small pages) is beyond any core's second-level
 * DTLB (2048-4096 entries), so every access walks. An out-of-order core issues the
 * independent loads' walks while earlier ones are pending, so per access they cost less
 * than the chase's (on the Zen 3 guest: ~37 ns chased, ~7 ns independent). */
START_TEST(walks_overlap) {
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 13);
  calib_timing t = {0.002, 5, 0};
  double c = 0, l = 0;
  double k = calib_tlb_in_flight(16384, rng, &t, &c, &l);
  ck_assert_msg(isfinite(c) && c > 0 && c < 2000, "chase %g ns per walk", c);
  ck_assert_msg(isfinite(l) && l < c, "loads %g ns per walk, chase %g", l, c);
  ck_assert_msg(k == calib_tlb_overlap(c, l), "%g in flight from %g / %g", k, c, l);
  ck_assert_msg(k > 1 && k <= CALIB_TLB_MAX_IN_FLIGHT, "%g walks in flight", k);
  ck_assert(isnan(calib_tlb_in_flight(1, rng, &t, &c, &l)) && isnan(c) && isnan(l));
  gsl_rng_free(rng);
}
END_TEST

int main(void) {
  Suite *s = suite_create("calib_tlb");
  TCase *d = tcase_create("decode");
  tcase_add_test(d, amd_zen3);
  tcase_add_test(d, amd_encodings);
  tcase_add_test(d, intel_ice_lake);
  tcase_add_test(d, host_geometry_valid);
  tcase_add_test(d, held_reach);
  tcase_add_test(d, overlap_ratio);
  suite_add_tcase(s, d);
  TCase *m = tcase_create("measure");
  tcase_set_timeout(m, 60);
  tcase_add_test(m, miss_cost_positive);
  tcase_add_test(m, walks_overlap);
  suite_add_tcase(s, m);
  return ppt_test_run(s);
}

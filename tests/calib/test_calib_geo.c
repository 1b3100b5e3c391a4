/* test_calib_geo.c — where `ppt calibrate` gets the cache geometry and topology from
 * (models/calib/geometry/calib_cpuid.c, calib_geo.c, calib_discover.c).
 *
 * Oracles, none of them the code under test:
 *  - CPUID register values recorded on real CPUs, decoded here by hand from the field
 *    definitions of the Intel SDM (Vol. 2A, CPUID leaves 4 and 0BH) and the AMD APM
 *    (Vol. 3, Appendix E: Fn8000_0005/6/8/1D/1E); every expected number is a literal with
 *    its arithmetic beside it:
 *      (a) Intel Kaby Lake, CPUID 1 EAX 000906E9, 2 cores / 4 threads (Google's EXEgesis
 *          test data);
 *      (b) Intel Nehalem-EP, 000106A2 (InstLatx64 dump);
 *      (c) AMD Ryzen 7 1700, Zen, 00800F11 (the Bochs CPU database);
 *      (d) this project's CI machine, an AMD EPYC (family 1Ah) KVM guest, read with
 *          cpuid: no deterministic cache leaf, no topology leaves, only the legacy ones;
 *  - fake sysfs trees written as Linux writes them for CPU (a);
 *  - latency curves whose levels are known by construction (an analytic hierarchy), and
 *    the curve recorded on the CI machine, cut by hand under the rule of calib_impl.h. */
#include <check.h>

#include "ppt_test.h"
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calib/calib_impl.h"
#include "fake_sysfs.h"
#include "ppt/calib.h"

/* ---- recorded CPUID values ---- */

/* (a) Kaby Lake. Leaf 4 sub-leaves 0-3 (sub-leaf 4 has type 0, the end) and leaf 0BH
 * sub-leaves 0-1 (sub-leaf 2 has level type 0), as calib_cpuid_read would keep them. */
static void rec_kaby_lake(calib_cpuid_regs *r) {
  static const uint32_t l4[4][4] = {
      {0x1C004121, 0x01C0003F, 0x0000003F, 0x00000000},
      {0x1C004122, 0x01C0003F, 0x0000003F, 0x00000000},
      {0x1C004143, 0x00C0003F, 0x000003FF, 0x00000000},
      {0x1C03C163, 0x02C0003F, 0x00000FFF, 0x00000006},
  };
  static const uint32_t lb[2][4] = {
      {0x00000001, 0x00000002, 0x00000100, 0x00000000},
      {0x00000004, 0x00000004, 0x00000201, 0x00000000},
  };
  memset(r, 0, sizeof *r);
  strcpy(r->vendor, "GenuineIntel");
  r->max_basic = 0x16;
  r->max_ext = 0x80000008;
  r->l1[0] = 0x000906E9;
  memcpy(r->l4, l4, sizeof l4);
  r->n4 = 4;
  memcpy(r->lb, lb, sizeof lb);
  r->nb = 2;
}

/* (b) Nehalem-EP. */
static void rec_nehalem(calib_cpuid_regs *r) {
  static const uint32_t l4[4][4] = {
      {0x1C004121, 0x01C0003F, 0x0000003F, 0x00000000},
      {0x1C004122, 0x00C0003F, 0x0000007F, 0x00000000},
      {0x1C004143, 0x01C0003F, 0x000001FF, 0x00000000},
      {0x1C03C163, 0x03C0003F, 0x00001FFF, 0x00000002},
  };
  static const uint32_t lb[2][4] = {
      {0x00000001, 0x00000002, 0x00000100, 0x00000000},
      {0x00000004, 0x00000008, 0x00000201, 0x00000000},
  };
  memset(r, 0, sizeof *r);
  strcpy(r->vendor, "GenuineIntel");
  r->max_basic = 0x0B;
  r->max_ext = 0x80000008;
  r->l1[0] = 0x000106A2;
  memcpy(r->l4, l4, sizeof l4);
  r->n4 = 4;
  memcpy(r->lb, lb, sizeof lb);
  r->nb = 2;
}

/* (c) Ryzen 7 1700: Fn8000_001D sub-leaves 0-3; TopologyExtensions (Fn8000_0001
 * ECX[22] = 0x00400000); Fn8000_0008 ECX 0000000F (16 threads - 1) and Fn8000_001E EBX
 * 00000100 (2 threads per core - 1 in [15:8]). No leaf 0BH (max basic leaf 0DH, and Zen
 * 1 answers none). The record's legacy EDX of Fn8000_0006 is not a real CPU's: 0 here. */
static void rec_zen1(calib_cpuid_regs *r) {
  static const uint32_t x1d[4][4] = {
      {0x00004121, 0x01C0003F, 0x0000003F, 0x00000000},
      {0x00004122, 0x00C0003F, 0x000000FF, 0x00000000},
      {0x00004143, 0x01C0003F, 0x000003FF, 0x00000002},
      {0x0001C163, 0x03C0003F, 0x00001FFF, 0x00000001},
  };
  memset(r, 0, sizeof *r);
  strcpy(r->vendor, "AuthenticAMD");
  r->max_basic = 0x0D;
  r->max_ext = 0x8000001F;
  r->l1[0] = 0x00800F11;
  r->x1[2] = 0x00400000;
  r->x5[2] = 0x20080140;
  r->x6[2] = 0x02006140;
  r->x8[2] = 0x0000000F;
  r->x1e[1] = 0x00000100;
  memcpy(r->x1d, x1d, sizeof x1d);
  r->n1d = 4;
}

/* (d) The CI guest (values read again with the cpuid instruction on it). Fn8000_001D
 * sub-leaf 0 is all zero, so calib_cpuid_read keeps no sub-leaf (n1d 0), and leaf 0BH
 * sub-leaf 0 is all zero (nb 0). Note: Fn8000_0001 ECX = 440001F1 has bits 30, 26, 8,
 * 7, 6, 5, 4 and 0 set; bit 22 (0x00400000, TopologyExtensions) is CLEAR, although
 * Linux's /proc/cpuinfo lists "topoext" there. Nothing below depends on it: the
 * deterministic leaf is empty and Fn8000_001E is all zero either way (a variant with the
 * bit set is tested as well). */
static void rec_ci(calib_cpuid_regs *r) {
  memset(r, 0, sizeof *r);
  strcpy(r->vendor, "AuthenticAMD");
  r->max_basic = 0x0D;
  r->max_ext = 0x80000021;
  r->l1[0] = 0x00B00F21;
  r->x1[2] = 0x440001F1;
  r->x5[2] = 0x300C0140;
  r->x6[2] = 0x04006140;
  r->x6[3] = 0x0FE09140;
  r->x8[2] = 0x00000000;
}

/* One level's fields, checked at the caller's line. */
#define CHECK_LEVEL(c, lv, sz, ways, ln, shr, src) \
  do {                                             \
    const ppt_calib_cache *c_ = (c);               \
    ck_assert_uint_eq(c_->level, (lv));            \
    ck_assert_uint_eq(c_->size, (sz));             \
    ck_assert_uint_eq(c_->assoc, (ways));          \
    ck_assert_uint_eq(c_->line, (ln));             \
    ck_assert_uint_eq(c_->shared_cpus, (shr));     \
    ck_assert_int_eq(c_->source, (src));           \
  } while (0)

/* ---- 1. the deterministic cache leaf ---- */

/* (a) leaf 4, decoded by hand:
 *  sub0 EAX 1C004121: type 0x21 & 0x1F = 1 (data); level (0x121 >> 5) & 7 = 9 & 7 = 1;
 *       [25:14] = (0x1C004121 >> 14) & 0xFFF = 0x7001 & 0xFFF = 1 -> 2 sharing;
 *       EBX 01C0003F: line 0x3F + 1 = 64, partitions (0x01C0003F >> 12) & 0x3FF = 0 -> 1,
 *       ways 0x01C0003F >> 22 = 7 -> 8; ECX 3F -> 64 sets: 8 x 1 x 64 x 64 = 32768.
 *  sub1 EAX 1C004122: type 2, instruction: left out.
 *  sub2 EAX 1C004143: type 3 (unified), level (0x143 >> 5) & 7 = 10 & 7 = 2, 2 sharing;
 *       EBX 00C0003F: ways 0x00C0003F >> 22 = 3 -> 4, line 64; ECX 3FF -> 1024 sets:
 *       4 x 64 x 1024 = 262144 (256 KiB).
 *  sub3 EAX 1C03C163: type 3, level (0x163 >> 5) & 7 = 11 & 7 = 3;
 *       [25:14] = (0x1C03C163 >> 14) & 0xFFF = 0x700F & 0xFFF = 15 -> 16 sharing;
 *       EBX 02C0003F: ways 0x02C0003F >> 22 = 0xB -> 12; ECX FFF -> 4096 sets:
 *       12 x 64 x 4096 = 3145728 (3 MiB, sysfs "3072K"). */
START_TEST(cpuid_kaby_lake) {
  calib_cpuid_regs r;
  rec_kaby_lake(&r);
  ppt_calib_caches c;
  ck_assert_uint_eq(calib_cpuid_decode_caches((const uint32_t(*)[4])r.l4, r.n4, 4, &c), 3);
  ck_assert_uint_eq(c.nlevels, 3);
  CHECK_LEVEL(&c.levels[0], 1, 32768, 8, 64, 2, PPT_CALIB_GEO_CPUID);
  CHECK_LEVEL(&c.levels[1], 2, 262144, 4, 64, 2, PPT_CALIB_GEO_CPUID);
  CHECK_LEVEL(&c.levels[2], 3, 3145728, 12, 64, 16, PPT_CALIB_GEO_CPUID);
  ck_assert_ptr_nonnull(strstr(c.levels[0].where, "leaf 4"));
  for (uint32_t k = 0; k < 3; k++) {
    ck_assert_uint_eq(c.levels[k].size_bound, 0);
    ck_assert_str_eq(c.levels[k].shared_cpu_list, ""); /* CPUID knows no CPU list */
  }
  /* The same through the vendor dispatch. */
  ppt_calib_caches d;
  ck_assert_uint_eq(calib_cpuid_caches(&r, &d), 3);
  CHECK_LEVEL(&d.levels[0], 1, 32768, 8, 64, 2, PPT_CALIB_GEO_CPUID);
  CHECK_LEVEL(&d.levels[1], 2, 262144, 4, 64, 2, PPT_CALIB_GEO_CPUID);
  CHECK_LEVEL(&d.levels[2], 3, 3145728, 12, 64, 16, PPT_CALIB_GEO_CPUID);
}
END_TEST

/* (b) leaf 4:
 *  sub0 1C004121 01C0003F 3F: L1 data, 2 sharing, 8 ways, 64 B, 64 sets: 32768.
 *  sub1 1C004122: instruction, left out.
 *  sub2 1C004143 01C0003F 1FF: L2 unified, 2 sharing; ways 0x01C0003F >> 22 = 7 -> 8;
 *       ECX 1FF -> 512 sets: 8 x 64 x 512 = 262144.
 *  sub3 1C03C163 03C0003F 1FFF: L3 unified, 16 sharing (as in (a));
 *       ways 0x03C0003F >> 22 = 0xF -> 16; ECX 1FFF -> 8192 sets:
 *       16 x 64 x 8192 = 8388608 (8 MiB). */
START_TEST(cpuid_nehalem) {
  calib_cpuid_regs r;
  rec_nehalem(&r);
  ppt_calib_caches c;
  ck_assert_uint_eq(calib_cpuid_caches(&r, &c), 3);
  CHECK_LEVEL(&c.levels[0], 1, 32768, 8, 64, 2, PPT_CALIB_GEO_CPUID);
  CHECK_LEVEL(&c.levels[1], 2, 262144, 8, 64, 2, PPT_CALIB_GEO_CPUID);
  CHECK_LEVEL(&c.levels[2], 3, 8388608, 16, 64, 16, PPT_CALIB_GEO_CPUID);
}
END_TEST

/* (c) Fn8000_001D:
 *  sub0 00004121 01C0003F 3F: L1 data; [25:14] = 0x4121 >> 14 = 1 -> 2 sharing;
 *       8 ways x 64 B x 64 sets = 32768.
 *  sub1 00004122: instruction (a 64 KiB one: 4 ways x 64 x 256), left out.
 *  sub2 00004143 01C0003F 3FF: L2 unified, 2 sharing, 8 ways x 64 x 1024 = 524288.
 *  sub3 0001C163 03C0003F 1FFF: L3 unified; [25:14] = 0x1C163 >> 14 = 7 -> 8 sharing
 *       (one core complex: 4 cores x 2 threads); 16 ways x 64 x 8192 = 8388608. */
START_TEST(cpuid_zen1) {
  calib_cpuid_regs r;
  rec_zen1(&r);
  ppt_calib_caches c;
  ck_assert_uint_eq(calib_cpuid_decode_caches((const uint32_t(*)[4])r.x1d, r.n1d, 0x8000001D, &c), 3);
  CHECK_LEVEL(&c.levels[0], 1, 32768, 8, 64, 2, PPT_CALIB_GEO_CPUID);
  CHECK_LEVEL(&c.levels[1], 2, 524288, 8, 64, 2, PPT_CALIB_GEO_CPUID);
  CHECK_LEVEL(&c.levels[2], 3, 8388608, 16, 64, 8, PPT_CALIB_GEO_CPUID);
  ck_assert_ptr_nonnull(strstr(c.levels[2].where, "8000_001D"));
  /* Through the dispatch: the deterministic leaf, not the legacy ones (those would give
   * no sharing: 1 CPU). */
  ppt_calib_caches d;
  ck_assert_uint_eq(calib_cpuid_caches(&r, &d), 3);
  CHECK_LEVEL(&d.levels[0], 1, 32768, 8, 64, 2, PPT_CALIB_GEO_CPUID);
  CHECK_LEVEL(&d.levels[1], 2, 524288, 8, 64, 2, PPT_CALIB_GEO_CPUID);
  CHECK_LEVEL(&d.levels[2], 3, 8388608, 16, 64, 8, PPT_CALIB_GEO_CPUID);
  /* Without TopologyExtensions (ECX[22] clear) the APM gives Fn8000_001D no meaning:
   * the legacy leaves answer. Fn8000_0005 ECX 20080140: 0x20 = 32 KiB, 0x08 = 8 ways,
   * 0x40 = 64 B; Fn8000_0006 ECX 02006140: 0x0200 = 512 KiB, code 6 -> 8 ways, 64 B; EDX
   * 0: no L3. */
  r.x1[2] = 0;
  ck_assert_uint_eq(calib_cpuid_caches(&r, &d), 2);
  CHECK_LEVEL(&d.levels[0], 1, 32768, 8, 64, 1, PPT_CALIB_GEO_LEGACY);
  CHECK_LEVEL(&d.levels[1], 2, 524288, 8, 64, 1, PPT_CALIB_GEO_LEGACY);
}
END_TEST

/* Orders a dump may list caches in, and the fully associative bit. */
START_TEST(cpuid_decode_order) {
  /* Zen's sub-leaves with the 64 KiB L1 instruction cache first: still one L1, the data
   * cache (32768), not the instruction cache (4 x 64 x 256 = 65536). */
  const uint32_t instr_first[4][4] = {
      {0x00004122, 0x00C0003F, 0x000000FF, 0},
      {0x00004121, 0x01C0003F, 0x0000003F, 0},
      {0x00004143, 0x01C0003F, 0x000003FF, 0},
      {0x0001C163, 0x03C0003F, 0x00001FFF, 0},
  };
  ppt_calib_caches c;
  ck_assert_uint_eq(calib_cpuid_decode_caches(instr_first, 4, 0x8000001D, &c), 3);
  CHECK_LEVEL(&c.levels[0], 1, 32768, 8, 64, 2, PPT_CALIB_GEO_CPUID);
  CHECK_LEVEL(&c.levels[1], 2, 524288, 8, 64, 2, PPT_CALIB_GEO_CPUID);
  CHECK_LEVEL(&c.levels[2], 3, 8388608, 16, 64, 8, PPT_CALIB_GEO_CPUID);
  /* Listed L3, L2, L1: kept by level number. Then a type-0 sub-leaf ends the list (the
   * L2 after it is not read). */
  const uint32_t reversed[5][4] = {
      {0x1C03C163, 0x02C0003F, 0x00000FFF, 0}, {0x1C004143, 0x00C0003F, 0x000003FF, 0},
      {0x1C004121, 0x01C0003F, 0x0000003F, 0}, {0, 0, 0, 0},
      {0x1C004143, 0x01C0003F, 0x000001FF, 0},
  };
  ck_assert_uint_eq(calib_cpuid_decode_caches(reversed, 5, 4, &c), 3);
  CHECK_LEVEL(&c.levels[0], 1, 32768, 8, 64, 2, PPT_CALIB_GEO_CPUID);
  CHECK_LEVEL(&c.levels[1], 2, 262144, 4, 64, 2, PPT_CALIB_GEO_CPUID);
  CHECK_LEVEL(&c.levels[2], 3, 3145728, 12, 64, 16, PPT_CALIB_GEO_CPUID);
  /* Fully associative (EAX[9]): EAX 00000221 = type 1, level 1, bit 9; EBX 0FC0003F:
   * ways 0x0FC0003F >> 22 = 0x3F -> 64, 64 B; ECX 0 -> 1 set: 64 x 64 = 4096 B, assoc 0
   * (the schema's "fully associative"). */
  const uint32_t full[1][4] = {{0x00000221, 0x0FC0003F, 0x00000000, 0}};
  ck_assert_uint_eq(calib_cpuid_decode_caches(full, 1, 4, &c), 1);
  CHECK_LEVEL(&c.levels[0], 1, 4096, 0, 64, 1, PPT_CALIB_GEO_CPUID);
  /* Nothing: no level. */
  ck_assert_uint_eq(calib_cpuid_decode_caches(full, 0, 4, &c), 0);
}
END_TEST

/* ---- 2. AMD's legacy leaves ---- */

/* (d): Fn8000_0005 ECX 300C0140: [31:24] 0x30 = 48 KiB = 49152, [23:16] 0x0C = 12 ways,
 * [7:0] 0x40 = 64 B. Fn8000_0006 ECX 04006140: [31:16] 0x0400 = 1024 KiB = 1048576,
 * [15:12] 6 -> 8 ways, [7:0] 64 B. EDX 0FE09140: [31:18] = 0x0FE09140 >> 18 =
 * 0b00_0011_1111_1000 = 0x3F8 = 1016 (1016 << 18 = 0x0FE00000, the rest 0x9140 <
 * 0x40000), so 1016 x 512 KiB = 1016 x 524288 = 532676608 B (508 MiB, the package's:
 * not one instance's), [15:12] = 9 (no way count: "see Fn8000_001D"), [7:0] 64 B. */
START_TEST(legacy_ci) {
  ppt_calib_caches c;
  ck_assert_uint_eq(calib_cpuid_decode_amd_legacy(0x300C0140, 0x04006140, 0x0FE09140, &c), 3);
  CHECK_LEVEL(&c.levels[0], 1, 49152, 12, 64, 1, PPT_CALIB_GEO_LEGACY);
  CHECK_LEVEL(&c.levels[1], 2, 1048576, 8, 64, 1, PPT_CALIB_GEO_LEGACY);
  ck_assert_uint_eq(c.levels[2].level, 3);
  ck_assert_int_eq(c.levels[2].source, PPT_CALIB_GEO_SWEEP);
  ck_assert_uint_eq(c.levels[2].size, 0);
  ck_assert_uint_eq(c.levels[2].size_bound, 532676608); /* 1016 x 524288 */
  ck_assert_uint_eq(c.levels[2].line, 64);
  ck_assert_ptr_nonnull(strstr(c.levels[1].where, "8000_0006"));

  /* The whole record through the dispatch: AMD, no Fn8000_001D sub-leaf -> legacy. */
  calib_cpuid_regs r;
  rec_ci(&r);
  ppt_calib_caches d;
  ck_assert_uint_eq(calib_cpuid_caches(&r, &d), 3);
  CHECK_LEVEL(&d.levels[0], 1, 49152, 12, 64, 1, PPT_CALIB_GEO_LEGACY);
  CHECK_LEVEL(&d.levels[1], 2, 1048576, 8, 64, 1, PPT_CALIB_GEO_LEGACY);
  ck_assert_int_eq(d.levels[2].source, PPT_CALIB_GEO_SWEEP);
  ck_assert_uint_eq(d.levels[2].size, 0);
  ck_assert_uint_eq(d.levels[2].size_bound, 532676608);
  /* With TopologyExtensions set and Fn8000_001D sub-leaf 0 kept as an all-zero entry
   * (type 0): the deterministic leaf says nothing, the legacy leaves still answer. */
  r.x1[2] |= 0x00400000;
  r.n1d = 1;
  ck_assert_uint_eq(calib_cpuid_caches(&r, &d), 3);
  CHECK_LEVEL(&d.levels[0], 1, 49152, 12, 64, 1, PPT_CALIB_GEO_LEGACY);
  CHECK_LEVEL(&d.levels[1], 2, 1048576, 8, 64, 1, PPT_CALIB_GEO_LEGACY);
  ck_assert_uint_eq(d.levels[2].size_bound, 532676608);
  /* A vendor-less record (no CPUID): nothing. */
  calib_cpuid_regs z;
  memset(&z, 0, sizeof z);
  ck_assert_uint_eq(calib_cpuid_caches(&z, &d), 0);
}
END_TEST

/* The APM's associativity codes: 0 none, 1-4 -> 1-4, 5 -> 6, 6 -> 8, 7 reserved,
 * 8 -> 16, 9 "see Fn8000_001D", A -> 32, B -> 48, C -> 64, D -> 96, E -> 128,
 * F fully associative (the entry count passed). */
START_TEST(amd_ways_codes) {
  const uint32_t want[15] = {0, 1, 2, 3, 4, 6, 8, 0, 16, 0, 32, 48, 64, 96, 128};
  for (uint32_t code = 0; code < 15; code++)
    ck_assert_msg(calib_amd_ways(code, 2048) == want[code], "code %X: %u ways, want %u", code,
                  calib_amd_ways(code, 2048), want[code]);
  ck_assert_uint_eq(calib_amd_ways(0xF, 2048), 2048);
  ck_assert_uint_eq(calib_amd_ways(0xF, 64), 64);
}
END_TEST

/* ---- 3. topology ---- */

/* (a) 0BH: sub0 ECX 100 -> type 1 (SMT), EBX 2 -> 2 threads per core; sub1 ECX 201 ->
 * type 2 (core), EBX 4 -> 4 logical processors in the package.
 * (b) the same with sub1 EBX 8 -> 8.
 * (c) Fn8000_0008 ECX[7:0] 0x0F -> 16; Fn8000_001E EBX[15:8] 0x01 -> 2.
 * (d) Fn8000_0008 ECX 0 -> 1; Fn8000_001E all zero (and TopologyExtensions clear) -> 1. */
START_TEST(cpuid_topology) {
  calib_cpuid_regs r;
  uint32_t smt = 99, pkg = 99;
  char src[64];
  rec_kaby_lake(&r);
  ck_assert_int_eq(calib_cpuid_topology(&r, &smt, &pkg, src, sizeof src), 1);
  ck_assert_uint_eq(smt, 2);
  ck_assert_uint_eq(pkg, 4);
  ck_assert_ptr_nonnull(strstr(src, "0BH"));
  rec_nehalem(&r);
  ck_assert_int_eq(calib_cpuid_topology(&r, &smt, &pkg, src, sizeof src), 1);
  ck_assert_uint_eq(smt, 2);
  ck_assert_uint_eq(pkg, 8);
  rec_zen1(&r);
  ck_assert_int_eq(calib_cpuid_topology(&r, &smt, &pkg, src, sizeof src), 1);
  ck_assert_uint_eq(smt, 2);
  ck_assert_uint_eq(pkg, 16);
  ck_assert_ptr_nonnull(strstr(src, "8000_0008"));
  rec_ci(&r);
  smt = pkg = 99;
  ck_assert_int_eq(calib_cpuid_topology(&r, &smt, &pkg, src, sizeof src), 1);
  ck_assert_uint_eq(smt, 1);
  ck_assert_uint_eq(pkg, 1);
  memset(&r, 0, sizeof r);
  ck_assert_int_eq(calib_cpuid_topology(&r, &smt, &pkg, src, sizeof src), 0);
}
END_TEST

/* ---- fake sysfs trees ---- */

/* CPU (a) as Linux lists it, cpu0 sharing its core with cpu1; l2_size "256K" is the
 * real one. */
static void kaby_lake_tree(const char *root, const char *l2_size) {
  fake_put_cache(root, 0, "1", "Data", "32K", "8", "0-1");
  fake_put_cache(root, 1, "1", "Instruction", "32K", "8", "0-1");
  fake_put_cache(root, 2, "2", "Unified", l2_size, "4", "0-1");
  fake_put_cache(root, 3, "3", "Unified", "3072K", "12", "0-3");
}

/* ---- 4. CPUID against sysfs ---- */

START_TEST(geo_compare) {
  calib_cpuid_regs r;
  rec_kaby_lake(&r);
  ppt_calib_caches cp, sy;
  ck_assert_uint_eq(calib_cpuid_caches(&r, &cp), 3);
  char *root = fake_root();
  kaby_lake_tree(root, "256K");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/cpu0/cache", root);
  ppt_err err;
  ck_assert_msg(ppt_calib_read_sysfs(dir, &sy, &err) == 0, "%s", err.msg);
  ck_assert_uint_eq(sy.nlevels, 3);
  /* Same sizes, ways and lines; sysfs's CPUs 2, 2, 4 are within CPUID's ID counts 2, 2,
   * 16: no difference, either way round. */
  char notes[1024] = "";
  ck_assert_uint_eq(calib_geo_compare(&cp, &sy, notes, sizeof notes), 0);
  ck_assert_uint_eq(calib_geo_compare(&sy, &cp, notes, sizeof notes), 0);
  ck_assert_str_eq(notes, "");

  /* sysfs with a 512 KiB L2: one difference, on L2. */
  kaby_lake_tree(root, "512K");
  ppt_calib_caches sy2;
  ck_assert_msg(ppt_calib_read_sysfs(dir, &sy2, &err) == 0, "%s", err.msg);
  ck_assert_uint_eq(sy2.levels[1].size, 524288);
  notes[0] = '\0';
  ck_assert_uint_eq(calib_geo_compare(&cp, &sy2, notes, sizeof notes), 1);
  ck_assert_msg(strstr(notes, "L2") != NULL, "%s", notes);
  ck_assert_msg(strstr(notes, "L1") == NULL && strstr(notes, "L3") == NULL, "%s", notes);

  /* A level one side lacks: one difference, naming it, whichever side lacks it. */
  ppt_calib_caches sy3 = sy;
  sy3.nlevels = 2;
  notes[0] = '\0';
  ck_assert_uint_eq(calib_geo_compare(&cp, &sy3, notes, sizeof notes), 1);
  ck_assert_msg(strstr(notes, "L3") != NULL, "%s", notes);
  notes[0] = '\0';
  ck_assert_uint_eq(calib_geo_compare(&sy3, &cp, notes, sizeof notes), 1);
  ck_assert_msg(strstr(notes, "L3") != NULL, "%s", notes);

  /* sysfs naming more CPUs on an L1 than CPUID has IDs for it (4 > 2): a difference. */
  ppt_calib_caches sy4 = sy;
  sy4.levels[0].shared_cpus = 4;
  notes[0] = '\0';
  ck_assert_uint_eq(calib_geo_compare(&cp, &sy4, notes, sizeof notes), 1);
  ck_assert_msg(strstr(notes, "L1") != NULL, "%s", notes);
  fake_rm_rf(root);
  free(root);
}
END_TEST

/* ---- 5. topology sources ---- */

START_TEST(find_topology) {
  char *root = fake_root();
  fake_put(root, "cpu0/topology/thread_siblings_list", "0,4");
  fake_put(root, "cpu0/topology/package_cpus_list", "0-7");
  ppt_calib_result *out = calloc(1, sizeof *out);
  ck_assert_ptr_nonnull(out);
  char list[128], notes[1024] = "";
  /* sysfs: "0,4" names 2 CPUs, "0-7" 8. */
  out->online_cpus = 8;
  calib_find_topology(NULL, root, out, list, sizeof list, notes, sizeof notes);
  ck_assert_uint_eq(out->smt, 2);
  ck_assert_uint_eq(out->package_cpus, 8);
  ck_assert_str_eq(list, "0-7");
  ck_assert_ptr_nonnull(strstr(out->topology_source, "sysfs"));
  ck_assert_str_eq(notes, "");
  /* sysfs wins over CPUID (a) (2 and 4), with a note. */
  calib_cpuid_regs r;
  rec_kaby_lake(&r);
  calib_find_topology(&r, root, out, list, sizeof list, notes, sizeof notes);
  ck_assert_uint_eq(out->smt, 2);
  ck_assert_uint_eq(out->package_cpus, 8);
  ck_assert_str_eq(list, "0-7");
  ck_assert_ptr_nonnull(strstr(out->topology_source, "sysfs"));
  ck_assert_msg(strstr(notes, "Topology") != NULL, "%s", notes);
  fake_rm_rf(root);
  free(root);

  /* No sysfs, CPUID (d): 1 thread per core, 1 per package (below the 2 online: kept). */
  memset(out, 0, sizeof *out);
  out->online_cpus = 2;
  notes[0] = '\0';
  rec_ci(&r);
  calib_find_topology(&r, NULL, out, list, sizeof list, notes, sizeof notes);
  ck_assert_uint_eq(out->smt, 1);
  ck_assert_uint_eq(out->package_cpus, 1);
  ck_assert_ptr_nonnull(strstr(out->topology_source, "CPUID"));
  ck_assert_msg(!strcmp(list, "0") || !strcmp(list, "0-0"), "'%s'", list); /* CPU 0 alone */

  /* Neither: one thread per core, every online CPU in the package, "0-1". */
  memset(out, 0, sizeof *out);
  out->online_cpus = 2;
  calib_find_topology(NULL, NULL, out, list, sizeof list, notes, sizeof notes);
  ck_assert_uint_eq(out->smt, 1);
  ck_assert_uint_eq(out->package_cpus, 2);
  ck_assert_str_eq(list, "0-1");
  free(out);
}
END_TEST

/* ---- 6. the caches' source ---- */

START_TEST(find_caches) {
  ppt_calib_config cfg;
  ppt_calib_config_default(&cfg);
  cfg.geometry = PPT_CALIB_GEO_AUTO;
  calib_cpuid_regs r;
  rec_kaby_lake(&r);
  char *root = fake_root();
  kaby_lake_tree(root, "256K");
  char dir[4096], missing[4096];
  snprintf(dir, sizeof dir, "%s/cpu0/cache", root);
  snprintf(missing, sizeof missing, "%s/no-such-folder", root);
  ppt_calib_result *out = calloc(1, sizeof *out);
  ck_assert_ptr_nonnull(out);
  char notes[1024] = "";
  ppt_err err;

  /* CPUID (a) and its sysfs tree: CPUID's levels, sysfs's CPU lists and counts, and no
   * disagreement to note. */
  out->online_cpus = 4, out->smt = 2, out->package_cpus = 4;
  ck_assert_int_eq(calib_find_caches(&cfg, &r, dir, "0-3", out, notes, sizeof notes, &err), 0);
  ck_assert_uint_eq(out->caches.nlevels, 3);
  CHECK_LEVEL(&out->caches.levels[0], 1, 32768, 8, 64, 2, PPT_CALIB_GEO_CPUID);
  CHECK_LEVEL(&out->caches.levels[1], 2, 262144, 4, 64, 2, PPT_CALIB_GEO_CPUID);
  CHECK_LEVEL(&out->caches.levels[2], 3, 3145728, 12, 64, 4, PPT_CALIB_GEO_CPUID);
  ck_assert_str_eq(out->caches.levels[0].shared_cpu_list, "0-1");
  ck_assert_str_eq(out->caches.levels[1].shared_cpu_list, "0-1");
  ck_assert_str_eq(out->caches.levels[2].shared_cpu_list, "0-3");
  ck_assert_str_eq(notes, "");

  /* CPUID (d), no sysfs: the legacy levels and the L3 left to the sweep. The private L1
   * and L2 (one CPU each) get cpu0's own list, "0"; the L3 placeholder (sharing not
   * known yet) none. */
  rec_ci(&r);
  memset(out, 0, sizeof *out);
  out->online_cpus = 2, out->smt = 1, out->package_cpus = 2;
  ck_assert_int_eq(calib_find_caches(&cfg, &r, missing, "0-1", out, notes, sizeof notes, &err), 0);
  ck_assert_uint_eq(out->caches.nlevels, 3);
  CHECK_LEVEL(&out->caches.levels[0], 1, 49152, 12, 64, 1, PPT_CALIB_GEO_LEGACY);
  CHECK_LEVEL(&out->caches.levels[1], 2, 1048576, 8, 64, 1, PPT_CALIB_GEO_LEGACY);
  ck_assert_str_eq(out->caches.levels[0].shared_cpu_list, "0");
  ck_assert_str_eq(out->caches.levels[1].shared_cpu_list, "0");
  ck_assert_str_eq(out->caches.levels[2].shared_cpu_list, "");
  ck_assert_uint_eq(out->caches.levels[2].level, 3);
  ck_assert_int_eq(out->caches.levels[2].source, PPT_CALIB_GEO_SWEEP);
  ck_assert_uint_eq(out->caches.levels[2].size, 0);
  ck_assert_uint_eq(out->caches.levels[2].size_bound, 532676608); /* 1016 x 512 KiB */

  /* A tree named in the config that is not there: an input error. */
  cfg.sysfs_dir = missing;
  memset(out, 0, sizeof *out);
  out->online_cpus = 2, out->smt = 1, out->package_cpus = 2;
  ck_assert_int_eq(calib_find_caches(&cfg, &r, missing, "0-1", out, notes, sizeof notes, &err), PPT_EINPUT);
  ck_assert_int_eq(err.status, PPT_EINPUT);
  free(out);
  fake_rm_rf(root);
  free(root);
}
END_TEST

/* ---- 7. levels from a latency curve ---- */

/* 4096 x 2^(i/2) bytes rounded to whole 64 B lines, i = 0..34 (4 KiB to 512 MiB), as
 * calib_discover_sweep samples: even i are powers of two; e.g. i = 7: 4096 x 2^3.5 =
 * 46340.95 B = 724.08 lines -> 724 x 64 = 46336; i = 15: 741455.2 / 64 = 11585.24 ->
 * 741440; i = 19: 2965820.9 / 64 = 46340.95 -> 46341 x 64 = 2965824. */
static const uint64_t sweep_bytes[35] = {
    4096,     5824,     8192,     11584,     16384,     23168,     32768,     46336,     65536,
    92672,    131072,   185344,   262144,    370752,    524288,    741440,    1048576,   1482880,
    2097152,  2965824,  4194304,  5931648,   8388608,   11863296,  16777216,  23726592,  33554432,
    47453120, 67108864, 94906240, 134217728, 189812544, 268435456, 379625088, 536870912,
};

/* The model hierarchy: a working set that fits a level reads its latency. */
static double model_ns(uint64_t b, double dram_ns) {
  return b <= 32768 ? 1.0 : b <= 262144 ? 4.0 : b <= 8388608 ? 12.0 : dram_ns;
}

/* 4 KiB to 256 MiB: i = 0..32, 33 points. Levels by construction: 1.0 ns to i = 6
 * (32 KiB), 4.0 from i = 7 to 12 (256 KiB), 12 from i = 13 to 22 (8 MiB), 90 beyond.
 * Steps: 4.0 / 1.0 at i = 7, 12 / 4 at 13, 90 / 12 at 23, all >= 1.4 and larger than the
 * flat steps beside them: three cuts. Midpoints 2.5, 8 and 51 ns: the largest points at
 * or under them are i = 6, 12, 22. The fourth stretch reads 90 ns (memory): no level. */
START_TEST(discover_model) {
  double ns[33];
  uint64_t sizes[8];
  double lat[8];
  for (int i = 0; i < 33; i++) ns[i] = model_ns(sweep_bytes[i], 90.0);
  ck_assert_uint_eq(calib_discover_levels(sweep_bytes, ns, 33, sizes, lat, 8), 3);
  ck_assert_uint_eq(sizes[0], 32768);
  ck_assert_uint_eq(sizes[1], 262144);
  ck_assert_uint_eq(sizes[2], 8388608);
  ck_assert_double_eq_tol(lat[0], 1.0, 1e-12);
  ck_assert_double_eq_tol(lat[1], 4.0, 1e-12);
  ck_assert_double_eq_tol(lat[2], 12.0, 1e-12);
  /* At most max levels. */
  ck_assert_uint_eq(calib_discover_levels(sweep_bytes, ns, 33, sizes, lat, 2), 2);
  ck_assert_uint_eq(sizes[1], 262144);

  /* One disturbed trial inside the L3 stretch (i = 17, 1448 KiB: 12 -> 60 ns): the
   * running median of three gives 12 there, so no cut; it lies over the 51 ns midpoint
   * but is not the largest point of the stretch: the same three levels. */
  ns[17] *= 5;
  ck_assert_uint_eq(calib_discover_levels(sweep_bytes, ns, 33, sizes, lat, 8), 3);
  ck_assert_uint_eq(sizes[0], 32768);
  ck_assert_uint_eq(sizes[1], 262144);
  ck_assert_uint_eq(sizes[2], 8388608);
  ck_assert_double_eq_tol(lat[2], 12.0, 1e-12);

  /* Memory that rises again (90 ns to 64 MiB, i = 28; 200 ns beyond): a cut at i = 29
   * (200 / 90 = 2.2), but the stretch before it reads 90 >= 60 ns: still three levels,
   * and the L3's midpoint (12 + 90) / 2 = 51 is unchanged. */
  for (int i = 0; i < 33; i++) ns[i] = sweep_bytes[i] <= 67108864 ? model_ns(sweep_bytes[i], 90.0) : 200.0;
  ck_assert_uint_eq(calib_discover_levels(sweep_bytes, ns, 33, sizes, lat, 8), 3);
  ck_assert_uint_eq(sizes[0], 32768);
  ck_assert_uint_eq(sizes[1], 262144);
  ck_assert_uint_eq(sizes[2], 8388608);

  /* Flat: no rise, no level. */
  for (int i = 0; i < 33; i++) ns[i] = 1.0;
  ck_assert_uint_eq(calib_discover_levels(sweep_bytes, ns, 33, sizes, lat, 8), 0);
  /* A failed point (0 ns) in an otherwise good curve: no reading at all. */
  for (int i = 0; i < 33; i++) ns[i] = model_ns(sweep_bytes[i], 90.0);
  ns[10] = 0;
  ck_assert_uint_eq(calib_discover_levels(sweep_bytes, ns, 33, sizes, lat, 8), 0);
}
END_TEST

/* The chase recorded on the CI machine (Zen 5 guest: L1 48 KiB, L2 1 MiB), 35 points.
 * By hand, under calib_impl.h's rule:
 *  smoothed (median of 3, ends raw) around the rises: s7 = med(1.25, 1.23, 4.44) = 1.25,
 *  s8 = med(1.23, 4.44, 4.74) = 4.44; s15 = med(5.01, 5.38, 9.37) = 5.38,
 *  s16 = med(5.38, 9.37, 13.83) = 9.37, s17 = 13.83, s18 = 17.22, s19 = 21.08,
 *  s20 = med(21.08, 136.40, 150.02) = 136.40; s30 = 270.03, s31 = med(270.03, 439.20,
 *  270.53) = 270.53, s32 = med(439.20, 270.53, 389.24) = 389.24, s33 = 389.24, s34 = 645.02.
 *  Steps >= 1.4 that are >= the step before and > the one after: i = 8 (4.44 / 1.25 =
 *  3.55), 16 (9.37 / 5.38 = 1.74; i = 17's 13.83 / 9.37 = 1.48 is smaller than it),
 *  20 (136.40 / 21.08 = 6.47), 32 (389.24 / 270.53 = 1.44) and 34 (645.02 / 389.24 =
 *  1.66, the last). Stretches [0,8) [8,16) [16,20) [20,32) ...
 *  Level 1: fastest of [0,8) 1.22 (8 KiB), of [8,16) 4.41 (128 KiB); midpoint 2.815:
 *    the largest point at or under it is i = 7, 45.2 KiB (1.23 ns); 64 KiB reads 4.44.
 *    The L1 is 48 KiB, and 45.2 KiB is the last sampled size below it.
 *  Level 2: 4.41 and the fastest of [16,20), 9.37; midpoint 6.89: i = 15, 724.1 KiB
 *    (5.38 ns). The 1 MiB point reads 9.37: a 1 MiB set in a 1 MiB L2 already misses a
 *    part (page colouring of the guest's memory, the L1 lines' copies), so the level
 *    ends at the last point that still reads like it.
 *  Level 3: 9.37 (< 60 ns, a cache) and the fastest of [20,32), 136.40; midpoint
 *    72.885: i = 19, 2896.3 KiB (21.08 ns); 4 MiB reads 136.40.
 *  Next stretch [20,32) reads 136.40 >= 60 ns: memory; its later rises (guest page
 *  walks) end no level. */
START_TEST(discover_ci) {
  const double ns[35] = {
      1.34,   1.35,   1.22,   1.26,   1.35,   1.44,   1.25,   1.23,   4.44,   4.74,   4.41,   4.55,
      5.13,   4.50,   5.01,   5.38,   9.37,   13.83,  17.22,  21.08,  136.40, 150.02, 157.59, 165.96,
      158.84, 163.93, 174.53, 173.33, 182.78, 211.99, 270.03, 439.20, 270.53, 389.24, 645.02,
  };
  uint64_t sizes[8];
  double lat[8];
  ck_assert_uint_eq(calib_discover_levels(sweep_bytes, ns, 35, sizes, lat, 8), 3);
  ck_assert_uint_eq(sizes[0], 46336);   /* i = 7, 45.2 KiB */
  ck_assert_uint_eq(sizes[1], 741440);  /* i = 15, 724.1 KiB */
  ck_assert_uint_eq(sizes[2], 2965824); /* i = 19, 2896.3 KiB */
  ck_assert_double_eq_tol(lat[0], 1.22, 1e-9);
  ck_assert_double_eq_tol(lat[1], 4.41, 1e-9);
  ck_assert_double_eq_tol(lat[2], 9.37, 1e-9);
}
END_TEST

int main(void) {
  Suite *s = suite_create("calib_geo");
  TCase *c = tcase_create("cpuid");
  tcase_add_test(c, cpuid_kaby_lake);
  tcase_add_test(c, cpuid_nehalem);
  tcase_add_test(c, cpuid_zen1);
  tcase_add_test(c, cpuid_decode_order);
  tcase_add_test(c, legacy_ci);
  tcase_add_test(c, amd_ways_codes);
  tcase_add_test(c, cpuid_topology);
  suite_add_tcase(s, c);
  TCase *g = tcase_create("sources");
  tcase_add_test(g, geo_compare);
  tcase_add_test(g, find_topology);
  tcase_add_test(g, find_caches);
  suite_add_tcase(s, g);
  TCase *d = tcase_create("discover");
  tcase_add_test(d, discover_model);
  tcase_add_test(d, discover_ci);
  suite_add_tcase(s, d);
  return ppt_test_run(s);
}

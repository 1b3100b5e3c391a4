/* test_hwspec_tlb.c — the optional "tlb" array of a hwspec (docs/hwspec.md): exact
 * values, the absent default, strict rejection of bad levels (one-line messages naming
 * the field), validation of structs built in code, and JSON round trips. */
#include <check.h>

#include "ppt_test.h"
#include <stdlib.h>
#include <string.h>

#include "ppt/hwspec.h"

#include "hwspec_q.h"

#define LV1 "{'name': 'L1', 'size': 8192, 'assoc': 8, 'line': 64}"
#define T1 "{'name': 'DTLB1', 'entries': 64, 'assoc': 64, 'page_bytes': 4096, 'miss_cycles': 7}"
#define T2 "{'name': 'DTLB2', 'entries': 2048, 'assoc': 8, 'page_bytes': 4096, 'miss_cycles': 30.5}"
#define WITH_TLB(tlb) "{'name': 'x', 'cores': 2, 'levels': [" LV1 "], 'tlb': " tlb "}"

START_TEST(values_and_default) {
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(parse_q(WITH_TLB("[" T1 ", " T2 "]"), &hw, &err) == 0, "%s", err.msg);
  ck_assert_uint_eq(hw.ntlb, 2);
  ck_assert_str_eq(hw.tlb[0].name, "DTLB1");
  ck_assert_uint_eq(hw.tlb[0].entries, 64);
  ck_assert_uint_eq(hw.tlb[0].assoc, 64);
  ck_assert_uint_eq(hw.tlb[0].page_bytes, 4096);
  ck_assert(hw.tlb[0].miss_cycles == 7);
  ck_assert_str_eq(hw.tlb[1].name, "DTLB2");
  ck_assert_uint_eq(hw.tlb[1].entries, 2048);
  ck_assert_uint_eq(hw.tlb[1].assoc, 8);
  ck_assert(hw.tlb[1].miss_cycles == 30.5);
  ck_assert(hw.tlb[0].in_flight == 0 && hw.tlb[1].in_flight == 0); /* left out: unknown */
  /* walks in flight, and a citation of them */
  ck_assert_msg(
      parse_q("{'name': 'x', 'cores': 2, 'levels': [" LV1 "], 'tlb': [" T1 ", {'name': 'DTLB2',"
              " 'entries': 2048, 'assoc': 8, 'page_bytes': 4096, 'miss_cycles': 30.5, 'in_flight': 5.5}],"
              " 'sources': {'tlb[1].in_flight': 'independent loads'}}",
              &hw, &err) == 0,
      "%s", err.msg);
  ck_assert(hw.tlb[1].in_flight == 5.5 && hw.tlb[0].in_flight == 0);
  ck_assert_str_eq(hw.sources[0].key, "tlb[1].in_flight");
  /* absent: no TLB at all */
  ck_assert_int_eq(parse_q("{'name': 'x', 'cores': 2, 'levels': [" LV1 "]}", &hw, &err), 0);
  ck_assert_uint_eq(hw.ntlb, 0);
  /* a free level (0 cycles) is a valid figure, and huge pages are allowed */
  ck_assert_msg(parse_q(WITH_TLB("[{'name': 'T', 'entries': 32, 'assoc': 4, 'page_bytes': 2097152,"
                                 " 'miss_cycles': 0}]"),
                        &hw, &err) == 0,
                "%s", err.msg);
  ck_assert_uint_eq(hw.tlb[0].page_bytes, 2097152);
  ck_assert(hw.tlb[0].miss_cycles == 0);
  /* citations may name TLB fields */
  ck_assert_msg(parse_q("{'name': 'x', 'cores': 2, 'levels': [" LV1 "], 'tlb': [" T1 "],"
                        " 'sources': {'tlb[0].miss_cycles': 'a chase'}}",
                        &hw, &err) == 0,
                "%s", err.msg);
  ck_assert_str_eq(hw.sources[0].key, "tlb[0].miss_cycles");
}
END_TEST

static void round_trip(const ppt_hwspec *hw) {
  char *json = ppt_hwspec_to_json(hw);
  ck_assert_ptr_nonnull(json);
  ppt_hwspec back;
  ppt_err err;
  memset(&back, 0, sizeof back);
  ck_assert_msg(ppt_hwspec_parse(json, "rt", &back, &err) == 0, "%s\n%s", err.msg, json);
  ck_assert_uint_eq(back.ntlb, hw->ntlb);
  for (uint32_t i = 0; i < hw->ntlb; i++) {
    ck_assert_str_eq(back.tlb[i].name, hw->tlb[i].name);
    ck_assert_uint_eq(back.tlb[i].entries, hw->tlb[i].entries);
    ck_assert_uint_eq(back.tlb[i].assoc, hw->tlb[i].assoc);
    ck_assert_uint_eq(back.tlb[i].page_bytes, hw->tlb[i].page_bytes);
    ck_assert(back.tlb[i].miss_cycles == hw->tlb[i].miss_cycles);
    ck_assert(back.tlb[i].in_flight == hw->tlb[i].in_flight);
  }
  char *json2 = ppt_hwspec_to_json(&back);
  ck_assert_str_eq(json, json2);
  free(json);
  free(json2);
}

START_TEST(round_trips) {
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_int_eq(parse_q(WITH_TLB("[" T1 ", " T2 "]"), &hw, &err), 0);
  round_trip(&hw);
  hw.tlb[1].miss_cycles = 0; /* written as 0, read back as 0 */
  round_trip(&hw);
  hw.tlb[0].miss_cycles = 1.0 / 3.0; /* shortest exact form */
  round_trip(&hw);
  hw.tlb[1].in_flight = 5.25; /* written when known, left out when not */
  round_trip(&hw);
  char *j1 = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_nonnull(strstr(j1, "\"in_flight\""));
  free(j1);
  hw.tlb[1].in_flight = 0;
  j1 = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_null(strstr(j1, "in_flight"));
  free(j1);
  hw.ntlb = 0; /* no "tlb" key at all */
  char *json = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_null(strstr(json, "tlb"));
  free(json);
}
END_TEST

static const struct bad {
  const char *what, *json, *key;
} bad_specs[] = {
    {"not an array", WITH_TLB(T1), "bad.json: tlb: must be an array"},
    {"empty array", WITH_TLB("[]"), "bad.json: tlb: must list 1 to 4 TLB levels (got 0)"},
    {"too many levels", WITH_TLB("[" T1 ", " T1 ", " T1 ", " T1 ", " T1 "]"),
     "bad.json: tlb: must list 1 to 4 TLB levels (got 5)"},
    {"level not an object", WITH_TLB("[7]"), "bad.json: tlb[0]: must be an object"},
    {"unknown key",
     WITH_TLB("[{'name': 'T', 'entries': 64, 'asoc': 4, 'page_bytes': 4096, 'miss_cycles': 7}]"),
     "bad.json: tlb[0].asoc: unknown key (allowed here: name, entries, assoc, page_bytes, miss_cycles, "
     "in_flight)"},
    {"missing miss_cycles", WITH_TLB("[{'name': 'T', 'entries': 64, 'assoc': 4, 'page_bytes': 4096}]"),
     "bad.json: tlb[0].miss_cycles: required key is missing"},
    {"missing page size", WITH_TLB("[{'name': 'T', 'entries': 64, 'assoc': 4, 'miss_cycles': 7}]"),
     "bad.json: tlb[0].page_bytes: required key is missing"},
    {"negative cost",
     WITH_TLB("[{'name': 'T', 'entries': 64, 'assoc': 4, 'page_bytes': 4096, 'miss_cycles': -1}]"),
     "bad.json: tlb[0].miss_cycles: must be a number >= 0 (got -1)"},
    {"cost as a string",
     WITH_TLB("[{'name': 'T', 'entries': 64, 'assoc': 4, 'page_bytes': 4096, 'miss_cycles': '7'}]"),
     "bad.json: tlb[0].miss_cycles: must be a number"},
    {"entries as a float",
     WITH_TLB("[{'name': 'T', 'entries': 64.0, 'assoc': 4, 'page_bytes': 4096, 'miss_cycles': 7}]"),
     "bad.json: tlb[0].entries: must be an integer"},
    {"zero entries",
     WITH_TLB("[{'name': 'T', 'entries': 0, 'assoc': 4, 'page_bytes': 4096, 'miss_cycles': 7}]"),
     "bad.json: tlb[0].entries: 0 is out of range [1, 1048576] entries"},
    {"assoc above entries",
     WITH_TLB("[{'name': 'T', 'entries': 64, 'assoc': 128, 'page_bytes': 4096, 'miss_cycles': 7}]"),
     "bad.json: tlb[0].assoc: 128 is not between 1 and entries (64)"},
    {"set count not a power of two",
     WITH_TLB("[{'name': 'T', 'entries': 1536, 'assoc': 4, 'page_bytes': 4096, 'miss_cycles': 7}]"),
     "bad.json: tlb[0].entries: 1536 entries in 4 ways is not a power-of-two set count"},
    {"entries not a multiple of assoc",
     WITH_TLB("[{'name': 'T', 'entries': 64, 'assoc': 6, 'page_bytes': 4096, 'miss_cycles': 7}]"),
     "bad.json: tlb[0].entries: 64 entries in 6 ways"},
    {"page below 4 KiB",
     WITH_TLB("[{'name': 'T', 'entries': 64, 'assoc': 4, 'page_bytes': 2048, 'miss_cycles': 7}]"),
     "bad.json: tlb[0].page_bytes: 2048 is out of range [4096, 1073741824] bytes"},
    {"page not a power of two",
     WITH_TLB("[{'name': 'T', 'entries': 64, 'assoc': 4, 'page_bytes': 12288, 'miss_cycles': 7}]"),
     "bad.json: tlb[0].page_bytes: 12288 is not a power of two"},
    {"outer level not larger",
     WITH_TLB("[" T1 ", {'name': 'T2', 'entries': 64, 'assoc': 4, 'page_bytes': 4096, 'miss_cycles': 9}]"),
     "bad.json: tlb[1].entries: 64 is not above tlb[0].entries (64)"},
    {"mixed page sizes",
     WITH_TLB("[" T1 ", {'name': 'T2', 'entries': 1024, 'assoc': 4, 'page_bytes': 8192, 'miss_cycles': 9}]"),
     "bad.json: tlb[1].page_bytes: 8192 differs from tlb[0].page_bytes (4096)"},
    {"duplicate name",
     WITH_TLB("[" T1
              ", {'name': 'DTLB1', 'entries': 1024, 'assoc': 4, 'page_bytes': 4096, 'miss_cycles': 9}]"),
     "bad.json: tlb[1].name: \"DTLB1\" is also the name of tlb[0]"},
    {"empty name",
     WITH_TLB("[{'name': '', 'entries': 64, 'assoc': 4, 'page_bytes': 4096, 'miss_cycles': 7}]"),
     "bad.json: tlb[0].name: must be a non-empty string"},
    {"too many entries",
     WITH_TLB("[{'name': 'T', 'entries': 2097152, 'assoc': 4, 'page_bytes': 4096, 'miss_cycles': 7}]"),
     "bad.json: tlb[0].entries: 2097152 is out of range [1, 1048576] entries"},
    {"fully associative beyond the cap",
     WITH_TLB("[{'name': 'T', 'entries': 131072, 'assoc': 131072, 'page_bytes': 4096, 'miss_cycles': 7}]"),
     "bad.json: tlb[0].assoc: 131072 is out of range [1, 65536] ways"},
    {"page above 1 GiB",
     WITH_TLB("[{'name': 'T', 'entries': 64, 'assoc': 4, 'page_bytes': 2147483648, 'miss_cycles': 7}]"),
     "bad.json: tlb[0].page_bytes: 2147483648 is out of range [4096, 1073741824] bytes"},
    {"walk cost in the wrong unit",
     WITH_TLB("[{'name': 'T', 'entries': 64, 'assoc': 4, 'page_bytes': 4096, 'miss_cycles': 100001}]"),
     "bad.json: tlb[0].miss_cycles: 100001 is out of range [0, 100000] cycles"},
    {"fewer than one walk in flight",
     WITH_TLB("[{'name': 'T', 'entries': 64, 'assoc': 4, 'page_bytes': 4096, 'miss_cycles': 7, 'in_flight': "
              "0.5}]"),
     "bad.json: tlb[0].in_flight: 0.5 is out of range [1, 64] misses"},
    {"more walks in flight than any core has",
     WITH_TLB(
         "[{'name': 'T', 'entries': 64, 'assoc': 4, 'page_bytes': 4096, 'miss_cycles': 7, 'in_flight': 65}]"),
     "bad.json: tlb[0].in_flight: 65 is out of range [1, 64] misses"},
    {"walks in flight as a string",
     WITH_TLB("[{'name': 'T', 'entries': 64, 'assoc': 4, 'page_bytes': 4096, 'miss_cycles': 7, 'in_flight': "
              "'4'}]"),
     "bad.json: tlb[0].in_flight: must be a number"},
    {"citation of an absent level",
     "{'name': 'x', 'cores': 2, 'levels': [" LV1 "], 'tlb': [" T1 "],"
     " 'sources': {'tlb[1].miss_cycles': 'a chase'}}",
     "bad.json: sources.tlb[1].miss_cycles: names no field of this spec"},
};

START_TEST(bad_spec) {
  check_bad_spec(bad_specs[_i].what, bad_specs[_i].json, bad_specs[_i].key);
}
END_TEST

/* The bounds of every TLB range are themselves accepted (docs/hwspec.md, "Ranges"). */
START_TEST(range_bounds_accepted) {
  static const char *const ok[] = {
      WITH_TLB("[{'name': 'T', 'entries': 1048576, 'assoc': 16, 'page_bytes': 1073741824, 'miss_cycles': "
               "100000, 'in_flight': 64}]"),
      WITH_TLB("[{'name': 'T', 'entries': 65536, 'assoc': 65536, 'page_bytes': 4096, 'miss_cycles': 0,"
               " 'in_flight': 1}]"),
      WITH_TLB("[{'name': 'T', 'entries': 1, 'assoc': 1, 'page_bytes': 4096, 'miss_cycles': 0}]"),
  };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    ppt_hwspec hw;
    ppt_err err;
    ck_assert_msg(parse_q(ok[i], &hw, &err) == 0, "case %zu: %s", i, err.msg);
  }
}
END_TEST

START_TEST(validate_struct) {
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_int_eq(parse_q(WITH_TLB("[" T1 ", " T2 "]"), &hw, &err), 0);
  hw.tlb[1].assoc = 3; /* 2048 entries do not split into 3 ways */
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "mod: tlb[1].entries: 2048 entries in 3 ways is not a power-of-two set count");
  hw.tlb[1].assoc = 8;
  hw.tlb[1].miss_cycles = -2;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "mod: tlb[1].miss_cycles: -2 is out of range [0, 100000] cycles");
  hw.tlb[1].miss_cycles = 30;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), 0);
  hw.ntlb = PPT_HW_MAX_TLB + 1;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "mod: tlb: must list 1 to 4 TLB levels (got 5)");
}
END_TEST

int main(void) {
  Suite *s = suite_create("hwspec_tlb");
  TCase *tc = tcase_create("tlb");
  tcase_add_test(tc, values_and_default);
  tcase_add_test(tc, round_trips);
  tcase_add_loop_test(tc, bad_spec, 0, (int)(sizeof bad_specs / sizeof bad_specs[0]));
  tcase_add_test(tc, range_bounds_accepted);
  tcase_add_test(tc, validate_struct);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

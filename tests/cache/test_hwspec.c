/* test_hwspec.c — hwspec parsing: exact values of a shipped file, strict rejection of bad
 * specs (each with a one-line message naming the file and the key), round trips. */
#include <check.h>

#include "ppt_test.h"
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ppt/hwspec.h"

#include "hwspec_q.h"

static char *source_path(const char *rel) {
  const char *dir = getenv("PPT_SOURCE_DIR");
  ck_assert_msg(dir != NULL, "PPT_SOURCE_DIR not set (run through ctest)");
  char *p = malloc(strlen(dir) + strlen(rel) + 2);
  sprintf(p, "%s/%s", dir, rel);
  return p;
}

#define FULL                                                                                     \
  "{'name': 'test-cpu', 'source': 'made up', 'clock_ghz': 2.1, 'cores': 8, 'vector_bits': 256,"  \
  " 'levels': ["                                                                                 \
  "  {'name': 'L1', 'size': 32768, 'assoc': 8, 'line': 64, 'latency_cycles': 4,"                 \
  "   'bandwidth_bytes_per_cycle': 64},"                                                         \
  "  {'name': 'L2', 'size': 1048576, 'assoc': 16, 'line': 64, 'shared_by': 2,"                   \
  "   'latency_cycles': 14.5, 'bandwidth_bytes_per_cycle': 32},"                                 \
  "  {'name': 'L3', 'size': 16777216, 'assoc': 16, 'line': 64, 'shared_by': 8,"                  \
  "   'inclusive': true, 'latency_cycles': 50, 'bandwidth_bytes_per_cycle': 16.25}],"            \
  " 'dram': {'latency_ns': 85.3, 'bandwidth_gbs': 12.8},"                                        \
  " 'ops': {'ialu': {'per_cycle': 4, 'latency': 1}, 'idiv': {'per_cycle': 0.04, 'latency': 26}," \
  "  'fadd': {'per_cycle': 2, 'latency': 4}, 'fmul': {'per_cycle': 2, 'latency': 4},"            \
  "  'fdiv': {'per_cycle': 0.25, 'latency': 13.5}, 'branch': {'per_cycle': 2, 'latency': 0},"    \
  "  'loadst': {'per_cycle': 3, 'latency': 5}},"                                                 \
  " 'sources': {'levels[1].latency_cycles': 'some manual, table 2', 'dram': 'STREAM run'}}"

START_TEST(shipped_file_exact) {
  char *path = source_path("hwspecs/sasmm-cachegrind.json");
  ppt_hwspec hw;
  ppt_err err;
  int rc = ppt_hwspec_load(path, &hw, &err);
  ck_assert_msg(rc == 0, "%s", err.msg);
  ck_assert_str_eq(hw.name, "sasmm-cachegrind");
  ck_assert_uint_eq(hw.cores, 16);
  ck_assert_uint_eq(hw.nlevels, 2);
  ck_assert_str_eq(hw.levels[0].name, "L1");
  ck_assert_uint_eq(hw.levels[0].size, 8192);
  ck_assert_uint_eq(hw.levels[0].assoc, 8);
  ck_assert_uint_eq(hw.levels[0].line, 64);
  ck_assert_uint_eq(hw.levels[0].shared_by, 1);
  ck_assert_int_eq(hw.levels[0].inclusive, 0);
  ck_assert_str_eq(hw.levels[1].name, "L2");
  ck_assert_uint_eq(hw.levels[1].size, 131072);
  ck_assert_uint_eq(hw.levels[1].assoc, 16);
  ck_assert_uint_eq(hw.levels[1].line, 64);
  ck_assert_uint_eq(hw.levels[1].shared_by, 16);
  ck_assert_int_eq(hw.levels[1].inclusive, 0);
  ck_assert_uint_eq(ppt_hwspec_sets(&hw.levels[0]), 16);
  ck_assert_uint_eq(ppt_hwspec_sets(&hw.levels[1]), 128);
  ck_assert_uint_eq(ppt_hwspec_instances(&hw.levels[0], 4), 4);
  ck_assert_uint_eq(ppt_hwspec_instances(&hw.levels[1], 4), 1);
  ck_assert_uint_eq(ppt_hwspec_instances(&hw.levels[1], 17), 2);
  ck_assert(hw.clock_hz == 0 && hw.dram_latency_ns == 0 && hw.ops[PPT_HW_FADD].per_cycle == 0);
  ck_assert_uint_eq(hw.nsources, 4);
  ck_assert_str_eq(hw.sources[0].key, "levels[0]");
  /* a cache-only spec has no timing data, and says which figure is missing */
  ck_assert_int_eq(ppt_hwspec_has_timing(&hw, path, &err), PPT_EINPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "clock_ghz"));

  free(path);
  path = source_path("hwspecs/sasmm-inclusive.json");
  rc = ppt_hwspec_load(path, &hw, &err);
  ck_assert_msg(rc == 0, "%s", err.msg);
  ck_assert_int_eq(hw.levels[1].inclusive, 1);
  free(path);
}
END_TEST

START_TEST(full_spec_values) {
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(parse_q(FULL, &hw, &err) == 0, "%s", err.msg);
  ck_assert(hw.clock_hz == 2.1e9);
  ck_assert_uint_eq(hw.vector_bits, 256);
  ck_assert_uint_eq(hw.nlevels, 3);
  ck_assert(hw.levels[1].latency_cycles == 14.5);
  ck_assert(hw.levels[2].bw_bytes_per_cycle == 16.25);
  ck_assert_int_eq(hw.levels[2].inclusive, 1);
  ck_assert_uint_eq(hw.levels[1].shared_by, 2);
  ck_assert(hw.dram_latency_ns == 85.3);
  ck_assert(hw.dram_bw_bytes_per_s == 12.8e9);
  ck_assert(hw.ops[PPT_HW_IDIV].per_cycle == 0.04 && hw.ops[PPT_HW_IDIV].latency == 26);
  ck_assert(hw.ops[PPT_HW_FDIV].latency == 13.5);
  ck_assert(hw.ops[PPT_HW_BRANCH].latency == 0);
  ck_assert(hw.ops[PPT_HW_LOADST].per_cycle == 3);
  ck_assert_str_eq(hw.source, "made up");
  ck_assert_uint_eq(hw.nsources, 2);
  ck_assert_str_eq(hw.sources[1].key, "dram");
  ck_assert_str_eq(hw.sources[1].text, "STREAM run");
  ck_assert_int_eq(ppt_hwspec_has_timing(&hw, "x", &err), 0);
  /* removing one op class makes the timing data incomplete, naming the class */
  hw.ops[PPT_HW_FMUL].per_cycle = 0;
  hw.ops[PPT_HW_FMUL].latency = 0;
  ck_assert_int_eq(ppt_hwspec_has_timing(&hw, "x", &err), PPT_EINPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "ops.fmul.per_cycle"));
}
END_TEST

/* Whether hw written as JSON contains `text` (a key written back, or left out). */
static int json_says(const ppt_hwspec *hw, const char *text) {
  char *json = ppt_hwspec_to_json(hw);
  ck_assert_ptr_nonnull(json);
  int has = strstr(json, text) != NULL;
  free(json);
  return has;
}

static void assert_same(const ppt_hwspec *a, const ppt_hwspec *b) {
  ck_assert_str_eq(a->name, b->name);
  ck_assert_str_eq(a->source, b->source);
  ck_assert_str_eq(a->notes, b->notes);
  ck_assert(a->clock_hz == b->clock_hz);
  ck_assert_uint_eq(a->cores, b->cores);
  ck_assert_uint_eq(a->vector_bits, b->vector_bits);
  ck_assert_uint_eq(a->nlevels, b->nlevels);
  for (uint32_t i = 0; i < a->nlevels; i++) {
    const ppt_hw_level *x = &a->levels[i], *y = &b->levels[i];
    ck_assert_str_eq(x->name, y->name);
    ck_assert(x->size == y->size && x->assoc == y->assoc && x->line == y->line);
    ck_assert(x->shared_by == y->shared_by && x->inclusive == y->inclusive);
    ck_assert(x->latency_cycles == y->latency_cycles);
    ck_assert(x->bw_bytes_per_cycle == y->bw_bytes_per_cycle);
  }
  ck_assert(a->dram_latency_ns == b->dram_latency_ns);
  ck_assert(a->year == b->year);
  ck_assert_str_eq(a->isa, b->isa);
  ck_assert(a->dram_bw_bytes_per_s == b->dram_bw_bytes_per_s);
  ck_assert(a->dram_core_bw_bytes_per_s == b->dram_core_bw_bytes_per_s);
  ck_assert(a->mlp == b->mlp);
  ck_assert(a->call_cycles == b->call_cycles);
  ck_assert(a->fork_join_cycles == b->fork_join_cycles);
  ck_assert(a->fork_join_serial_cycles == b->fork_join_serial_cycles);
  ck_assert(a->branch_miss_cycles == b->branch_miss_cycles);
  ck_assert(a->coherence_cycles == b->coherence_cycles);
  ck_assert(a->fp_window == b->fp_window);
  ck_assert(a->fp_chains == b->fp_chains);
  for (int k = 0; k < PPT_HW_NOPCLASS; k++)
    ck_assert(a->ops[k].per_cycle == b->ops[k].per_cycle && a->ops[k].latency == b->ops[k].latency);
  ck_assert_uint_eq(a->nsources, b->nsources);
  for (uint32_t i = 0; i < a->nsources; i++) {
    ck_assert_str_eq(a->sources[i].key, b->sources[i].key);
    ck_assert_str_eq(a->sources[i].text, b->sources[i].text);
  }
}

static void round_trip(const ppt_hwspec *a) {
  ppt_err err;
  char *json = ppt_hwspec_to_json(a);
  ck_assert_ptr_nonnull(json);
  ppt_hwspec b;
  memset(&b, 0, sizeof b);
  int rc = ppt_hwspec_parse(json, "roundtrip", &b, &err);
  ck_assert_msg(rc == 0, "%s\n%s", err.msg, json);
  assert_same(a, &b);
  /* and a second trip gives the same text */
  char *json2 = ppt_hwspec_to_json(&b);
  ck_assert_str_eq(json, json2);
  free(json);
  free(json2);
}

START_TEST(round_trips) {
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(parse_q(FULL, &hw, &err) == 0, "%s", err.msg);
  round_trip(&hw);
  char *json = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_nonnull(strstr(json, "\"clock_ghz\": 2.1,")); /* shortest exact form */
  free(json);
  char *path = source_path("hwspecs/sasmm-cachegrind.json");
  ck_assert_msg(ppt_hwspec_load(path, &hw, &err) == 0, "%s", err.msg);
  round_trip(&hw);
  free(path);
  /* a spec modified in code ("what if L2 were twice as big") still round-trips */
  hw.levels[1].size *= 2;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), 0);
  round_trip(&hw);
  /* Every clock ppt calibrate can write (three digits, whole Hz) reads back to the Hz:
   * GHz x 1e9 alone reads 4.02 GHz as 4019999999.9999995 Hz (a Zen 5 guest at 4.02 GHz
   * would fail test_calib's round trip), as do 14 of 300..499 x 10 MHz. */
  for (int mhz10 = 100; mhz10 < 1000; mhz10++) {
    hw.clock_hz = mhz10 * 1e7;
    round_trip(&hw);
  }
}
END_TEST

/* dram.core_bandwidth_gbs (one core streaming alone): optional, GB/s into bytes/s,
 * written back only when given, citable, and checked like the other DRAM figures. */
#define CORE_BW(dram, src)                                                                      \
  "{'name': 'x', 'cores': 4, 'levels': [{'name': 'L1', 'size': 8192, 'assoc': 8, 'line': 64}]," \
  " 'dram': " dram src "}"
START_TEST(dram_core_bandwidth) {
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(parse_q(CORE_BW("{'latency_ns': 80, 'bandwidth_gbs': 45.5, 'core_bandwidth_gbs': 19.25}",
                                ", 'sources': {'dram.core_bandwidth_gbs': 'one thread'}"),
                        &hw, &err) == 0,
                "%s", err.msg);
  ck_assert(hw.dram_core_bw_bytes_per_s == 19.25e9);
  ck_assert(hw.dram_bw_bytes_per_s == 45.5e9);
  ck_assert_uint_eq(hw.nsources, 1);
  ck_assert_str_eq(hw.sources[0].key, "dram.core_bandwidth_gbs");
  char *json = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_nonnull(strstr(json, "\"core_bandwidth_gbs\": 19.25"));
  free(json);
  round_trip(&hw);
  /* a figure at or above the socket's is allowed (one core saturates it) */
  ck_assert_msg(parse_q(CORE_BW("{'bandwidth_gbs': 10, 'core_bandwidth_gbs': 12}", ""), &hw, &err) == 0, "%s",
                err.msg);
  ck_assert(hw.dram_core_bw_bytes_per_s == 12e9);
  round_trip(&hw);
  /* the only DRAM key given */
  ck_assert_msg(parse_q(CORE_BW("{'core_bandwidth_gbs': 7}", ""), &hw, &err) == 0, "%s", err.msg);
  ck_assert(hw.dram_core_bw_bytes_per_s == 7e9 && hw.dram_bw_bytes_per_s == 0);
  /* absent: 0 in the struct and no key written back */
  ck_assert_msg(parse_q(CORE_BW("{'bandwidth_gbs': 10}", ""), &hw, &err) == 0, "%s", err.msg);
  ck_assert(hw.dram_core_bw_bytes_per_s == 0);
  json = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_null(strstr(json, "core_bandwidth_gbs"));
  free(json);
  round_trip(&hw);
  /* the struct checks: any number >= 0, not negative or NaN */
  hw.dram_core_bw_bytes_per_s = -1e9;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "mod: dram.core_bandwidth_gbs: -1 is out of range [0.01, 10000] GB/s");
  hw.dram_core_bw_bytes_per_s = NAN;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "mod: dram.core_bandwidth_gbs"));
}
END_TEST

/* dram.writeback_cost and dram.core_writeback_cost (line fills a written-back line
 * costs, of the socket's and of one core's bandwidth): optional, 0 a cost like any other
 * (kept apart from absent), written back only when given, settable with --set, within
 * [0, 16]; absent, ppt_hwspec_dram_wb_cost gives 1 for the socket and 0 for the core. */
START_TEST(dram_writeback_costs) {
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(parse_q(CORE_BW("{'bandwidth_gbs': 40, 'writeback_cost': 0, 'core_writeback_cost': 1.25}",
                                ", 'sources': {'dram.writeback_cost': 'triads'}"),
                        &hw, &err) == 0,
                "%s", err.msg);
  ck_assert_uint_eq(hw.dram_wb_given, 3);
  ck_assert(ppt_hwspec_dram_wb_cost(&hw, 0) == 0 && ppt_hwspec_dram_wb_cost(&hw, 1) == 1.25);
  ck_assert_str_eq(hw.sources[0].key, "dram.writeback_cost");
  char *json = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_nonnull(strstr(json, "\"writeback_cost\": 0,"));
  ck_assert_ptr_nonnull(strstr(json, "\"core_writeback_cost\": 1.25"));
  free(json);
  round_trip(&hw);
  ck_assert_int_eq(ppt_hwspec_set(&hw, "dram.writeback_cost=0.5", &err), 0);
  ck_assert(ppt_hwspec_dram_wb_cost(&hw, 0) == 0.5 && ppt_hwspec_dram_wb_cost(&hw, 1) == 1.25);
  /* one given: the other keeps its default */
  ck_assert_msg(parse_q(CORE_BW("{'bandwidth_gbs': 40, 'core_writeback_cost': 2}", ""), &hw, &err) == 0, "%s",
                err.msg);
  ck_assert_uint_eq(hw.dram_wb_given, 1);
  ck_assert(ppt_hwspec_dram_wb_cost(&hw, 0) == 1 && ppt_hwspec_dram_wb_cost(&hw, 1) == 2);
  json = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_null(strstr(json, "\"writeback_cost\""));
  free(json);
  round_trip(&hw);
  /* none: the defaults, nothing written */
  ck_assert_msg(parse_q(CORE_BW("{'bandwidth_gbs': 40}", ""), &hw, &err) == 0, "%s", err.msg);
  ck_assert(hw.dram_wb_given == 0 && ppt_hwspec_dram_wb_cost(&hw, 0) == 1 &&
            ppt_hwspec_dram_wb_cost(&hw, 1) == 0);
  /* refused: negative in the file, above 16, NaN in the struct */
  ck_assert_int_eq(parse_q(CORE_BW("{'bandwidth_gbs': 40, 'writeback_cost': -0.5}", ""), &hw, &err),
                   PPT_EINPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "dram.writeback_cost: must be a number >= 0"));
  ck_assert_int_eq(parse_q(CORE_BW("{'bandwidth_gbs': 40, 'core_writeback_cost': 17}", ""), &hw, &err),
                   PPT_EINPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "dram.core_writeback_cost: 17 is out of range [0, 16] line fills"));
  ck_assert_msg(parse_q(CORE_BW("{'bandwidth_gbs': 40, 'writeback_cost': 1}", ""), &hw, &err) == 0, "%s",
                err.msg);
  hw.dram_wb_cost = NAN;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "mod: dram.writeback_cost"));
}
END_TEST

/* branch_miss_cycles (a mispredicted branch): optional top-level number > 0 in the file,
 * written back only when given, citable; in the struct 0 means unknown and any finite
 * number >= 0 passes validation. */
#define BRANCH(extra) \
  "{'name': 'x', 'cores': 4, 'levels': [{'name': 'L1', 'size': 8192, 'assoc': 8, 'line': 64}]" extra "}"
START_TEST(branch_miss) {
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(parse_q(BRANCH(", 'branch_miss_cycles': 16.5, 'call_cycles': 20,"
                               " 'sources': {'branch_miss_cycles': 'random vs sorted bytes'}"),
                        &hw, &err) == 0,
                "%s", err.msg);
  ck_assert(hw.branch_miss_cycles == 16.5);
  ck_assert(hw.call_cycles == 20);
  ck_assert_uint_eq(hw.nsources, 1);
  ck_assert_str_eq(hw.sources[0].key, "branch_miss_cycles");
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), 0);
  char *json = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_nonnull(strstr(json, "\"branch_miss_cycles\": 16.5"));
  free(json);
  round_trip(&hw);
  /* an integer is a number too */
  ck_assert_msg(parse_q(BRANCH(", 'branch_miss_cycles': 13"), &hw, &err) == 0, "%s", err.msg);
  ck_assert(hw.branch_miss_cycles == 13);
  round_trip(&hw);
  /* absent: 0 in the struct and no key written back */
  ck_assert_msg(parse_q(BRANCH(""), &hw, &err) == 0, "%s", err.msg);
  ck_assert(hw.branch_miss_cycles == 0);
  json = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_null(strstr(json, "branch_miss"));
  free(json);
  round_trip(&hw);
  /* set in code (what calibrate does): written, and read back the same */
  hw.branch_miss_cycles = 20.9;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), 0);
  json = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_nonnull(strstr(json, "\"branch_miss_cycles\": 20.9"));
  free(json);
  round_trip(&hw);
  /* the struct checks: 0 (absent) or within 0.01..1000 cycles */
  hw.branch_miss_cycles = -1;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "mod: branch_miss_cycles: -1 is out of range [0.01, 1000] cycles");
  hw.branch_miss_cycles = NAN;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "mod: branch_miss_cycles: nan is out of range [0.01, 1000] cycles");
  hw.branch_miss_cycles = INFINITY;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "mod: branch_miss_cycles: inf is out of range [0.01, 1000] cycles");
}
END_TEST

/* store_forward_cycles (a store forwarded to a load) and store_forward_fp_cycles (the
 * same through an FP register): optional top-level numbers in [0.01, 100] cycles,
 * written back only when given, citable; 0 in the struct = unknown. */
START_TEST(store_forward) {
  static const char *const keys[2] = {"store_forward_cycles", "store_forward_fp_cycles"};
  const char *key = keys[_i];
  ppt_hwspec hw;
  ppt_err err;
  char doc[512], want[128];
#define FWD_DOC(val, more) (snprintf(doc, sizeof doc, BRANCH(", '%s': %s%s"), key, val, more), doc)
  char cite[96];
  snprintf(cite, sizeof cite, ", 'sources': {'%s': '*p += i'}", key);
  ck_assert_msg(parse_q(FWD_DOC("6.3", cite), &hw, &err) == 0, "%s", err.msg);
  const double *got = _i ? &hw.store_forward_fp_cycles : &hw.store_forward_cycles;
  const double *other = _i ? &hw.store_forward_cycles : &hw.store_forward_fp_cycles;
  ck_assert(*got == 6.3 && *other == 0);
  ck_assert_str_eq(hw.sources[0].key, key);
  char *json = ppt_hwspec_to_json(&hw);
  snprintf(want, sizeof want, "\"%s\": 6.3", key);
  ck_assert_ptr_nonnull(strstr(json, want));
  free(json);
  round_trip(&hw);
  ck_assert_msg(parse_q(BRANCH(""), &hw, &err) == 0, "%s", err.msg);
  ck_assert(hw.store_forward_cycles == 0 && hw.store_forward_fp_cycles == 0);
  json = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_null(strstr(json, "store_forward"));
  free(json);
  ck_assert_int_eq(parse_q(FWD_DOC("0", ""), &hw, &err), PPT_EINPUT);
  snprintf(want, sizeof want, "bad.json: %s: must be a positive number (got 0); leave the key out if unknown",
           key);
  ck_assert_str_eq(err.msg, want);
  ck_assert_int_eq(parse_q(FWD_DOC("101", ""), &hw, &err), PPT_EINPUT);
  snprintf(want, sizeof want, "bad.json: %s: 101 is out of range [0.01, 100] cycles", key);
  ck_assert_str_eq(err.msg, want);
  ck_assert_int_eq(parse_q(FWD_DOC("'6'", ""), &hw, &err), PPT_EINPUT);
  snprintf(want, sizeof want, "bad.json: %s: must be a number, got a string", key);
  ck_assert_str_eq(err.msg, want);
#undef FWD_DOC
}
END_TEST

/* fp_window (FP ops waiting to issue in one core): optional top-level number in [1, 4096],
 * written back only when given, citable; 0 in the struct means unknown. */
START_TEST(fp_window) {
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(
      parse_q(BRANCH(", 'fp_window': 96.5, 'sources': {'fp_window': 'Horner chains'}"), &hw, &err) == 0, "%s",
      err.msg);
  ck_assert(hw.fp_window == 96.5);
  ck_assert_str_eq(hw.sources[0].key, "fp_window");
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), 0);
  char *json = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_nonnull(strstr(json, "\"fp_window\": 96.5"));
  free(json);
  round_trip(&hw);
  ck_assert_msg(parse_q(BRANCH(""), &hw, &err) == 0, "%s", err.msg);
  ck_assert(hw.fp_window == 0);
  json = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_null(strstr(json, "fp_window"));
  free(json);
  ck_assert_int_eq(parse_q(BRANCH(", 'fp_window': 0"), &hw, &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg,
                   "bad.json: fp_window: must be a positive number (got 0); leave the key out if unknown");
  ck_assert_int_eq(parse_q(BRANCH(", 'fp_window': 5000"), &hw, &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "bad.json: fp_window: 5000 is out of range [1, 4096] FP ops");
  ck_assert_int_eq(parse_q(BRANCH(", 'fp_window': '96'"), &hw, &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "bad.json: fp_window: must be a number, got a string");
  ck_assert_msg(parse_q(BRANCH(", 'fp_window': 96.5"), &hw, &err) == 0, "%s", err.msg);
  hw.fp_window = NAN;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "mod: fp_window: nan is out of range [1, 4096] FP ops");
  /* fp_chains beside it: optional, in [1, 1024], written back only when given */
  ck_assert_msg(parse_q(BRANCH(", 'fp_window': 96.5, 'fp_chains': 4.9"), &hw, &err) == 0, "%s", err.msg);
  ck_assert(hw.fp_chains == 4.9);
  ck_assert(json_says(&hw, "\"fp_chains\": 4.9"));
  round_trip(&hw);
  ck_assert_int_eq(parse_q(BRANCH(", 'fp_chains': 0.5"), &hw, &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "bad.json: fp_chains: 0.5 is out of range [1, 1024] chains");
  ck_assert_int_eq(parse_q(BRANCH(", 'fp_chains': 'x'"), &hw, &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "bad.json: fp_chains: must be a number, got a string");
}
END_TEST

START_TEST(contention_factor) {
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(parse_q(BRANCH(", 'contention_factor': 1.5, 'sources': {'contention_factor': 'two threads'}"),
                        &hw, &err) == 0,
                "%s", err.msg);
  ck_assert(hw.contention_factor == 1.5);
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), 0);
  char *json = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_nonnull(strstr(json, "\"contention_factor\": 1.5"));
  free(json);
  round_trip(&hw);
  ck_assert_msg(parse_q(BRANCH(""), &hw, &err) == 0, "%s", err.msg);
  ck_assert(hw.contention_factor == 0);
  json = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_null(strstr(json, "contention_factor"));
  free(json);
  ck_assert_int_eq(parse_q(BRANCH(", 'contention_factor': 0"), &hw, &err), PPT_EINPUT);
  ck_assert_str_eq(
      err.msg,
      "bad.json: contention_factor: must be a positive number (got 0); leave the key out if unknown");
  ck_assert_int_eq(parse_q(BRANCH(", 'contention_factor': 0.4"), &hw, &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "bad.json: contention_factor: 0.4 is out of range [0.5, 64] x");
  ck_assert_int_eq(parse_q(BRANCH(", 'contention_factor': 65"), &hw, &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "bad.json: contention_factor: 65 is out of range [0.5, 64] x");
  ck_assert_int_eq(parse_q(BRANCH(", 'contention_factor': '2'"), &hw, &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "bad.json: contention_factor: must be a number, got a string");
}
END_TEST

/* core_speed: a list of positive speeds, one per core from core 0, each in [0.05, 20];
 * written back as given; cores past the list (and a spec without it) run at 1. */
START_TEST(core_speed) {
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(parse_q(BRANCH(", 'core_speed': [1, 0.9, 1.25]"), &hw, &err) == 0, "%s", err.msg);
  ck_assert_uint_eq(hw.nspeeds, 3);
  ck_assert(hw.core_speed[1] == 0.9 && hw.core_speed[2] == 1.25);
  ck_assert(ppt_hwspec_core_speed(&hw, 1) == 0.9);
  ck_assert(ppt_hwspec_core_speed(&hw, 3) == 1);
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), 0);
  ck_assert(json_says(&hw, "\"core_speed\""));
  round_trip(&hw);
  ck_assert_msg(parse_q(BRANCH(""), &hw, &err) == 0, "%s", err.msg);
  ck_assert_uint_eq(hw.nspeeds, 0);
  ck_assert(ppt_hwspec_core_speed(&hw, 0) == 1);
  ck_assert(!json_says(&hw, "core_speed"));
  ck_assert_int_eq(parse_q(BRANCH(", 'core_speed': 0.9"), &hw, &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg,
                   "bad.json: core_speed: must be an array, got a number with a fraction or exponent");
  ck_assert_int_eq(parse_q(BRANCH(", 'core_speed': []"), &hw, &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "bad.json: core_speed: must list 1 to 256 speeds (got 0)");
  ck_assert_int_eq(parse_q(BRANCH(", 'core_speed': [1, 0]"), &hw, &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "bad.json: core_speed[1]: must be a positive number (got 0)");
  ck_assert_int_eq(parse_q(BRANCH(", 'core_speed': [1, 'x']"), &hw, &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "bad.json: core_speed[1]: must be a number, got a string");
  ck_assert_int_eq(parse_q(BRANCH(", 'core_speed': [1, 25]"), &hw, &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "bad.json: core_speed[1]: 25 is out of range [0.05, 20] x");
}
END_TEST

/* busy_speed: each busy core's speed with 1, 2, ... cores computing at once, parsed and
 * checked as core_speed is; a count past the list takes its last entry, a spec without
 * it 1 at every count. */
START_TEST(busy_speed) {
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(parse_q(BRANCH(", 'busy_speed': [1, 0.95, 0.8]"), &hw, &err) == 0, "%s", err.msg);
  ck_assert_uint_eq(hw.nbusy, 3);
  ck_assert(ppt_hwspec_busy_speed(&hw, 1) == 1);
  ck_assert(ppt_hwspec_busy_speed(&hw, 2) == 0.95);
  ck_assert(ppt_hwspec_busy_speed(&hw, 3) == 0.8);
  ck_assert(ppt_hwspec_busy_speed(&hw, 16) == 0.8);
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), 0);
  ck_assert(json_says(&hw, "\"busy_speed\""));
  round_trip(&hw);
  ck_assert_msg(parse_q(BRANCH(""), &hw, &err) == 0, "%s", err.msg);
  ck_assert_uint_eq(hw.nbusy, 0);
  ck_assert(ppt_hwspec_busy_speed(&hw, 8) == 1);
  ck_assert(!json_says(&hw, "busy_speed"));
  ck_assert_int_eq(parse_q(BRANCH(", 'busy_speed': {}"), &hw, &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "bad.json: busy_speed: must be an array, got an object");
  ck_assert_int_eq(parse_q(BRANCH(", 'busy_speed': [1, -0.5]"), &hw, &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "bad.json: busy_speed[1]: must be a positive number (got -0.5)");
  ck_assert_int_eq(parse_q(BRANCH(", 'busy_speed': [1, 0.01]"), &hw, &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "bad.json: busy_speed[1]: 0.01 is out of range [0.05, 20] x");
}
END_TEST

/* FULL with `extra` added to its L3 (after "'inclusive': true,"). */
static int parse_l3(const char *extra, ppt_hwspec *hw, ppt_err *err) {
  static const char at[] = "'inclusive': true,";
  const char *full = FULL, *p = strstr(full, at) + strlen(at);
  char buf[4096];
  snprintf(buf, sizeof buf, "%.*s %s%s", (int)(p - full), full, extra, p);
  return parse_q(buf, hw, err);
}

/* victim_ways: parsed, written back, its default (every way), and the errors a user sees. */
START_TEST(victim_ways_key) {
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(parse_l3("'replacement': 'random', 'victim_ways': 8,", &hw, &err) == 0, "%s", err.msg);
  ck_assert_uint_eq(hw.levels[2].victim_ways, 8);
  ck_assert_uint_eq(ppt_hwspec_victim_ways(&hw.levels[2]), 8);
  char *json = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_nonnull(strstr(json, "\"victim_ways\": 8"));
  free(json);
  round_trip(&hw);
  ck_assert_msg(parse_l3("'replacement': 'random',", &hw, &err) == 0, "%s", err.msg);
  ck_assert_uint_eq(hw.levels[2].victim_ways, 0);
  ck_assert_uint_eq(ppt_hwspec_victim_ways(&hw.levels[2]), 16);
  json = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_null(strstr(json, "victim_ways"));
  free(json);
  ck_assert_int_eq(parse_l3("'victim_ways': 8,", &hw, &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg,
                   "bad.json: levels[2].victim_ways: needs \"replacement\": \"random\" (an LRU level "
                   "evicts the least recent way)");
  ck_assert_int_eq(parse_l3("'replacement': 'random', 'victim_ways': 17,", &hw, &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "bad.json: levels[2].victim_ways: 17 is more than the level's 16 ways");
  ck_assert_int_eq(parse_l3("'replacement': 'random', 'victim_ways': 0,", &hw, &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "bad.json: levels[2].victim_ways: 0 is out of range [1, 65536] ways");
  ck_assert_int_eq(parse_l3("'replacement': 'random', 'victim_ways': 2.5,", &hw, &err), PPT_EINPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "levels[2].victim_ways"));
}
END_TEST

/* hashed_sets: parsed, written back only when true, absent is false, and a non-boolean
 * is refused with the key named. */
START_TEST(hashed_sets_key) {
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(parse_l3("'hashed_sets': true,", &hw, &err) == 0, "%s", err.msg);
  ck_assert_int_eq(hw.levels[2].hashed_sets, 1);
  ck_assert_int_eq(hw.levels[1].hashed_sets, 0);
  ck_assert(json_says(&hw, "\"hashed_sets\": true"));
  round_trip(&hw);
  ck_assert_msg(parse_l3("'hashed_sets': false,", &hw, &err) == 0, "%s", err.msg);
  ck_assert_int_eq(hw.levels[2].hashed_sets, 0);
  ck_assert(!json_says(&hw, "hashed_sets"));
  ck_assert_int_eq(parse_l3("'hashed_sets': 1,", &hw, &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "bad.json: levels[2].hashed_sets: must be true or false, got an integer");
}
END_TEST

/* coherence_cycles (a cache-to-cache transfer): optional top-level number in
 * (0, 100000] in the file, written back only when given, citable; in the struct 0 means
 * unknown, and validation takes 0..100000. */
START_TEST(coherence) {
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(parse_q(BRANCH(", 'coherence_cycles': 187.5, 'sources': {'coherence_cycles': 'ping-pong'}"),
                        &hw, &err) == 0,
                "%s", err.msg);
  ck_assert(hw.coherence_cycles == 187.5);
  ck_assert_uint_eq(hw.nsources, 1);
  ck_assert_str_eq(hw.sources[0].key, "coherence_cycles");
  ck_assert_str_eq(hw.sources[0].text, "ping-pong");
  char *json = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_nonnull(strstr(json, "\"coherence_cycles\": 187.5"));
  free(json);
  round_trip(&hw);
  /* the bound itself is accepted; an integer is a number too */
  ck_assert_msg(parse_q(BRANCH(", 'coherence_cycles': 100000"), &hw, &err) == 0, "%s", err.msg);
  ck_assert(hw.coherence_cycles == 100000);
  round_trip(&hw);
  /* absent: 0 in the struct and no key written back */
  ck_assert_msg(parse_q(BRANCH(""), &hw, &err) == 0, "%s", err.msg);
  ck_assert(hw.coherence_cycles == 0);
  json = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_null(strstr(json, "coherence"));
  free(json);
  /* set in code (what calibrate does): written, and read back the same */
  hw.coherence_cycles = 66.3;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), 0);
  round_trip(&hw);
  const double bad[] = {-1, 100001, NAN, INFINITY};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    hw.coherence_cycles = bad[i];
    ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
    ck_assert_msg(strncmp(err.msg, "mod: coherence_cycles: ", 23) == 0, "got %s", err.msg);
  }
}
END_TEST

/* mlp_same_set (misses in flight when they queue on one first-level set): optional
 * object with both "load" and "store", each 1..1024 like mlp; written back only when
 * given; citable as a whole or per figure; in the struct 0 is absent, and one figure
 * without the other is refused. */
#define SAME_SET(extra)                   \
  "{'name': 'x', 'cores': 4, 'mlp': 7.5," \
  " 'levels': [{'name': 'L1', 'size': 32768, 'assoc': 8, 'line': 64}]" extra "}"
START_TEST(mlp_same_set) {
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(parse_q(SAME_SET(", 'mlp_same_set': {'load': 5.7, 'store': 3}, 'sources': {'mlp_same_set': "
                                 "'column walk', 'mlp_same_set.store': '15.5 cycles per line'}"),
                        &hw, &err) == 0,
                "%s", err.msg);
  ck_assert(hw.mlp_same_set_load == 5.7);
  ck_assert(hw.mlp_same_set_store == 3);
  ck_assert(hw.mlp == 7.5);
  ck_assert_uint_eq(hw.nsources, 2);
  ck_assert_str_eq(hw.sources[0].key, "mlp_same_set");
  ck_assert_str_eq(hw.sources[1].key, "mlp_same_set.store");
  char *json = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_nonnull(strstr(json, "\"mlp_same_set\": {"));
  ck_assert_ptr_nonnull(strstr(json, "\"load\": 5.7"));
  ck_assert_ptr_nonnull(strstr(json, "\"store\": 3"));
  free(json);
  round_trip(&hw);
  ppt_hwspec back;
  json = ppt_hwspec_to_json(&hw);
  ck_assert_int_eq(ppt_hwspec_parse(json, "rt", &back, &err), 0);
  free(json);
  ck_assert(back.mlp_same_set_load == 5.7 && back.mlp_same_set_store == 3);
  /* the bounds themselves are allowed */
  ck_assert_msg(parse_q(SAME_SET(", 'mlp_same_set': {'load': 1, 'store': 1024}"), &hw, &err) == 0, "%s",
                err.msg);
  ck_assert(hw.mlp_same_set_load == 1 && hw.mlp_same_set_store == 1024);
  /* absent: 0 in the struct and no key written back */
  ck_assert_msg(parse_q(SAME_SET(""), &hw, &err) == 0, "%s", err.msg);
  ck_assert(hw.mlp_same_set_load == 0 && hw.mlp_same_set_store == 0);
  json = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_null(strstr(json, "mlp_same_set"));
  free(json);
  round_trip(&hw);
  /* set in code (what calibrate does): written, and read back the same */
  hw.mlp_same_set_load = 5.53;
  hw.mlp_same_set_store = 3.41;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), 0);
  round_trip(&hw);
  /* the struct checks: 1..1024 or 0, finite, both or neither */
  hw.mlp_same_set_store = 0.5;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "mod: mlp_same_set.store: 0.5 is out of range [1, 1024] misses in flight");
  hw.mlp_same_set_store = NAN;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "mod: mlp_same_set.store: nan is out of range"));
  hw.mlp_same_set_store = 2000;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "mod: mlp_same_set.store: 2000 is out of range [1, 1024] misses in flight");
  hw.mlp_same_set_store = 0;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "mod: mlp_same_set.store: missing while the other mlp_same_set figure is given");
  /* and to_json does not drop the lone figure quietly: the parser names the missing one */
  json = ppt_hwspec_to_json(&hw);
  ck_assert_int_eq(ppt_hwspec_parse(json, "one.json", &back, &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "one.json: mlp_same_set.store: required key is missing");
  free(json);
  hw.mlp_same_set_load = 0;
  hw.mlp_same_set_store = 4;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "mod: mlp_same_set.load: missing while the other mlp_same_set figure is given");
  hw.mlp_same_set_store = 0;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), 0);
}
END_TEST

/* Each bad spec must fail with PPT_EINPUT and "bad.json: <key path>...: ..." on one line. */
static const struct bad {
  const char *what, *json, *key;
} bad_specs[] = {
#define LV1 "{'name': 'L1', 'size': 8192, 'assoc': 8, 'line': 64}"
#define LV2 "{'name': 'L2', 'size': 131072, 'assoc': 16, 'line': 64, 'shared_by': 4}"
#define SPEC(lv1, lv2) "{'name': 'x', 'cores': 4, 'levels': [" lv1 ", " lv2 "]}"
    {"unknown top-level key", "{'name': 'x', 'cores': 4, 'clock_mhz': 3000, 'levels': [" LV1 "]}",
     "bad.json: clock_mhz: unknown key"},
    {"unknown level key", SPEC(LV1, "{'name': 'L2', 'size': 131072, 'assco': 16, 'line': 64}"),
     "bad.json: levels[1].assco: unknown key"},
    {"missing required key", SPEC("{'name': 'L1', 'size': 8192, 'assoc': 8}", LV2),
     "bad.json: levels[0].line: required key is missing"},
    {"missing cores", "{'name': 'x', 'levels': [" LV1 "]}", "bad.json: cores: required key"},
    {"size 0", SPEC("{'name': 'L1', 'size': 0, 'assoc': 8, 'line': 64}", LV2),
     "bad.json: levels[0].size: 0 is out of range [64, 4294967296] bytes"},
    {"size not a multiple of line*assoc", SPEC("{'name': 'L1', 'size': 8256, 'assoc': 8, 'line': 64}", LV2),
     "bad.json: levels[0].size: 8256 is not a multiple of line*assoc (512)"},
    {"size not a multiple of line", SPEC("{'name': 'L1', 'size': 8200, 'assoc': 8, 'line': 64}", LV2),
     "bad.json: levels[0].size: 8200 is not a multiple of line"},
    {"set count not a power of two", SPEC(LV1, "{'name': 'L2', 'size': 196608, 'assoc': 16, 'line': 64}"),
     "bad.json: levels[1].size: set count 192"},
    {"line not a power of two", SPEC("{'name': 'L1', 'size': 6144, 'assoc': 8, 'line': 48}", LV2),
     "bad.json: levels[0].line: 48 is not a power of two"},
    {"assoc above the number of lines", SPEC("{'name': 'L1', 'size': 256, 'assoc': 8, 'line': 64}", LV2),
     "bad.json: levels[0].assoc: 8 exceeds the number of lines"},
    {"assoc given as a string", SPEC("{'name': 'L1', 'size': 8192, 'assoc': '8', 'line': 64}", LV2),
     "bad.json: levels[0].assoc: must be an integer"},
    {"size given as a float", SPEC("{'name': 'L1', 'size': 8192.0, 'assoc': 8, 'line': 64}", LV2),
     "bad.json: levels[0].size: must be an integer"},
    {"negative size", SPEC("{'name': 'L1', 'size': -8192, 'assoc': 8, 'line': 64}", LV2),
     "bad.json: levels[0].size: -8192 is out of range [64, 4294967296] bytes"},
    {"shared_by not dividing cores",
     SPEC(LV1, "{'name': 'L2', 'size': 131072, 'assoc': 16, 'line': 64, 'shared_by': 3}"),
     "bad.json: levels[1].shared_by: 3 must be between 1 and cores (4)"},
    {"outer level smaller", SPEC(LV1, "{'name': 'L2', 'size': 4096, 'assoc': 4, 'line': 64}"),
     "bad.json: levels[1].size: 4096 is smaller than levels[0].size"},
    {"mixed line sizes", SPEC(LV1, "{'name': 'L2', 'size': 131072, 'assoc': 16, 'line': 128}"),
     "bad.json: levels[1].line: 128 differs from levels[0].line"},
    {"duplicate level name", SPEC(LV1, "{'name': 'L1', 'size': 131072, 'assoc': 16, 'line': 64}"),
     "bad.json: levels[1].name: \"L1\" is also the name of levels[0]"},
    {"inclusive first level",
     SPEC("{'name': 'L1', 'size': 8192, 'assoc': 8, 'line': 64, 'inclusive': true}", LV2),
     "bad.json: levels[0].inclusive: the first level"},
    {"inclusive not a boolean",
     SPEC(LV1, "{'name': 'L2', 'size': 131072, 'assoc': 16, 'line': 64, 'inclusive': 1}"),
     "bad.json: levels[1].inclusive: must be true or false"},
    {"no levels", "{'name': 'x', 'cores': 4, 'levels': []}", "bad.json: levels: must list 1 to"},
    {"zero clock", "{'name': 'x', 'cores': 4, 'clock_ghz': 0, 'levels': [" LV1 "]}",
     "bad.json: clock_ghz: must be a positive number"},
    {"unknown dram key", "{'name': 'x', 'cores': 4, 'dram': {'latency': 80}, 'levels': [" LV1 "]}",
     "bad.json: dram.latency: unknown key"},
    {"negative per-core DRAM bandwidth",
     "{'name': 'x', 'cores': 4, 'dram': {'bandwidth_gbs': 40, 'core_bandwidth_gbs': -20}, 'levels': [" LV1
     "]}",
     "bad.json: dram.core_bandwidth_gbs: must be a positive number (got -20)"},
    {"zero per-core DRAM bandwidth",
     "{'name': 'x', 'cores': 4, 'dram': {'core_bandwidth_gbs': 0}, 'levels': [" LV1 "]}",
     "bad.json: dram.core_bandwidth_gbs: must be a positive number"},
    {"per-core DRAM bandwidth as a string",
     "{'name': 'x', 'cores': 4, 'dram': {'core_bandwidth_gbs': '20'}, 'levels': [" LV1 "]}",
     "bad.json: dram.core_bandwidth_gbs: must be a number"},
    {"citation of an absent per-core DRAM bandwidth",
     "{'name': 'x', 'cores': 4, 'dram': {'bandwidth_gbs': 40}, 'levels': [" LV1 "],"
     " 'sources': {'dram.core_bandwidth_gbs': 'one thread'}}",
     "bad.json: sources.dram.core_bandwidth_gbs: names no field of this spec"},
    {"negative branch miss cost", "{'name': 'x', 'cores': 4, 'branch_miss_cycles': -15, 'levels': [" LV1 "]}",
     "bad.json: branch_miss_cycles: must be a positive number (got -15)"},
    {"zero branch miss cost", "{'name': 'x', 'cores': 4, 'branch_miss_cycles': 0, 'levels': [" LV1 "]}",
     "bad.json: branch_miss_cycles: must be a positive number (got 0); leave the key out if unknown"},
    {"branch miss cost as a string",
     "{'name': 'x', 'cores': 4, 'branch_miss_cycles': '15', 'levels': [" LV1 "]}",
     "bad.json: branch_miss_cycles: must be a number"},
    {"branch miss cost as null", "{'name': 'x', 'cores': 4, 'branch_miss_cycles': null, 'levels': [" LV1 "]}",
     "bad.json: branch_miss_cycles: must be a number"},
    {"branch miss cost inside dram",
     "{'name': 'x', 'cores': 4, 'dram': {'branch_miss_cycles': 15}, 'levels': [" LV1 "]}",
     "bad.json: dram.branch_miss_cycles: unknown key"},
    {"citation of an absent branch miss cost",
     "{'name': 'x', 'cores': 4, 'levels': [" LV1 "], 'sources': {'branch_miss_cycles': 'a loop'}}",
     "bad.json: sources.branch_miss_cycles: names no field of this spec"},
    {"unknown op class",
     "{'name': 'x', 'cores': 4, 'ops': {'fma': {'per_cycle': 2, 'latency': 4}}, 'levels': [" LV1 "]}",
     "bad.json: ops.fma: unknown key"},
    {"op without latency",
     "{'name': 'x', 'cores': 4, 'ops': {'fadd': {'per_cycle': 2}}, 'levels': [" LV1 "]}",
     "bad.json: ops.fadd.latency: required key is missing"},
    {"citation of a field that does not exist",
     "{'name': 'x', 'cores': 4, 'levels': [" LV1 "], 'sources': {'levels[1].size': 'a book'}}",
     "bad.json: sources.levels[1].size: names no field of this spec"},
    {"trailing comma (not JSON)", "{'name': 'x', 'cores': 4, 'levels': [" LV1 "],}",
     "bad.json: not valid JSON at line 1"},
    {"truncated file", "{'name': 'x', 'cores': 4, 'levels': [", "bad.json: not valid JSON: unexpected end"},
    {"top level not an object", "[1, 2]", "bad.json: top level must be a JSON object"},
#define SS(obj) "{'name': 'x', 'cores': 4, 'mlp_same_set': " obj ", 'levels': [" LV1 "]}"
    {"zero same-set load", SS("{'load': 0, 'store': 3}"),
     "bad.json: mlp_same_set.load: must be a positive number (got 0); leave the key out if unknown"},
    {"negative same-set store", SS("{'load': 5, 'store': -1}"),
     "bad.json: mlp_same_set.store: must be a positive number (got -1)"},
    {"same-set load as a string", SS("{'load': 'x', 'store': 3}"),
     "bad.json: mlp_same_set.load: must be a number"},
    {"same-set load as null", SS("{'load': null, 'store': 3}"),
     "bad.json: mlp_same_set.load: must be a number"},
    {"same-set store missing", SS("{'load': 5}"), "bad.json: mlp_same_set.store: required key is missing"},
    {"same-set load missing", SS("{'store': 3}"), "bad.json: mlp_same_set.load: required key is missing"},
    {"same-set empty object", SS("{}"), "bad.json: mlp_same_set.load: required key is missing"},
    {"unknown same-set key", SS("{'load': 5, 'store': 3, 'stores': 2}"),
     "bad.json: mlp_same_set.stores: unknown key (allowed here: load, store)"},
    {"same-set as a number", SS("5"), "bad.json: mlp_same_set: must be an object"},
    {"same-set load below 1", SS("{'load': 0.5, 'store': 3}"),
     "bad.json: mlp_same_set.load: 0.5 is out of range [1, 1024] misses in flight"},
    {"same-set store above 1024", SS("{'load': 5, 'store': 1025}"),
     "bad.json: mlp_same_set.store: 1025 is out of range [1, 1024] misses in flight"},
    {"same-set figure at the top level",
     "{'name': 'x', 'cores': 4, 'mlp_same_set_load': 5, 'levels': [" LV1 "]}",
     "bad.json: mlp_same_set_load: unknown key"},
    {"citation of an absent same-set figure",
     "{'name': 'x', 'cores': 4, 'levels': [" LV1 "], 'sources': {'mlp_same_set.load': 'a walk'}}",
     "bad.json: sources.mlp_same_set.load: names no field of this spec"},
    {"citation of a same-set figure that does not exist",
     "{'name': 'x', 'cores': 4, 'mlp_same_set': {'load': 5, 'store': 3}, 'levels': [" LV1 "],"
     " 'sources': {'mlp_same_set.copy': 'a walk'}}",
     "bad.json: sources.mlp_same_set.copy: names no field of this spec"},
    {"zero coherence cost", "{'name': 'x', 'cores': 4, 'coherence_cycles': 0, 'levels': [" LV1 "]}",
     "bad.json: coherence_cycles: must be a positive number (got 0)"},
    {"negative coherence cost", "{'name': 'x', 'cores': 4, 'coherence_cycles': -1, 'levels': [" LV1 "]}",
     "bad.json: coherence_cycles: must be a positive number (got -1)"},
    {"coherence cost as a string", "{'name': 'x', 'cores': 4, 'coherence_cycles': 'x', 'levels': [" LV1 "]}",
     "bad.json: coherence_cycles: must be a number"},
    {"null coherence cost", "{'name': 'x', 'cores': 4, 'coherence_cycles': null, 'levels': [" LV1 "]}",
     "bad.json: coherence_cycles: must be a number"},
    {"coherence cost in the wrong unit",
     "{'name': 'x', 'cores': 4, 'coherence_cycles': 100001, 'levels': [" LV1 "]}",
     "bad.json: coherence_cycles: 100001 is out of range [0.01, 100000] cycles"},
    {"citation of an absent coherence cost",
     "{'name': 'x', 'cores': 4, 'levels': [" LV1 "], 'sources': {'coherence_cycles': 'ping-pong'}}",
     "bad.json: sources.coherence_cycles: names no field of this spec"},
    {"zero vector width", "{'name': 'x', 'cores': 4, 'vector_bits': 0, 'levels': [" LV1 "]}",
     "bad.json: vector_bits: 0 is out of range [32, 4096] bits"},
    {"odd vector width", "{'name': 'x', 'cores': 4, 'vector_bits': 384, 'levels': [" LV1 "]}",
     "bad.json: vector_bits: 384 is not a power of two"},
/* Physical ranges (docs/hwspec.md, "Ranges"): the message names the key, the value and
 * the range. */
#define TOPX(kv) "{'name': 'x', 'cores': 4, " kv ", 'levels': [" LV1 "]}"
#define LVX(kv) "{'name': 'x', 'cores': 4, 'levels': [{'name': 'L1', " kv "}]}"
#define L1X(kv) LVX("'size': 8192, 'assoc': 8, 'line': 64, " kv)
    {"no cores", "{'name': 'x', 'cores': 0, 'levels': [" LV1 "]}",
     "bad.json: cores: 0 is out of range [1, 65536] cores"},
    {"cores above the limit", "{'name': 'x', 'cores': 65537, 'levels': [" LV1 "]}",
     "bad.json: cores: 65537 is out of range [1, 65536] cores"},
    {"cores above 32 bits (the real limit is named)",
     "{'name': 'x', 'cores': 4294967296, 'levels': [" LV1 "]}",
     "bad.json: cores: 4294967296 is out of range [1, 65536] cores"},
    {"clock 1e-300 GHz", TOPX("'clock_ghz': 1e-300"),
     "bad.json: clock_ghz: 1e-300 is out of range [0.1, 10] GHz"},
    {"clock below 0.1 GHz", TOPX("'clock_ghz': 0.09"),
     "bad.json: clock_ghz: 0.09 is out of range [0.1, 10] GHz"},
    {"clock in MHz", TOPX("'clock_ghz': 3000"), "bad.json: clock_ghz: 3000 is out of range [0.1, 10] GHz"},
    {"mlp below 1", TOPX("'mlp': 0.5"), "bad.json: mlp: 0.5 is out of range [1, 1024] misses in flight"},
    {"mlp above 1024", TOPX("'mlp': 1025"), "bad.json: mlp: 1025 is out of range [1, 1024] misses in flight"},
    {"call cost too small", TOPX("'call_cycles': 0.001"),
     "bad.json: call_cycles: 0.001 is out of range [0.01, 1e+06] cycles"},
    {"call cost too large", TOPX("'call_cycles': 2e6"),
     "bad.json: call_cycles: 2e+06 is out of range [0.01, 1e+06] cycles"},
    {"fork-join too large", TOPX("'fork_join_cycles': 2e9"),
     "bad.json: fork_join_cycles: 2e+09 is out of range [0.01, 1e+09] cycles"},
    {"serial fork-join too small", TOPX("'fork_join_serial_cycles': 0.001"),
     "bad.json: fork_join_serial_cycles: 0.001 is out of range [0.01, 1e+09] cycles"},
    {"branch miss too large", TOPX("'branch_miss_cycles': 1001"),
     "bad.json: branch_miss_cycles: 1001 is out of range [0.01, 1000] cycles"},
    {"coherence too small", TOPX("'coherence_cycles': 0.001"),
     "bad.json: coherence_cycles: 0.001 is out of range [0.01, 100000] cycles"},
    {"vector width above 4096", TOPX("'vector_bits': 8192"),
     "bad.json: vector_bits: 8192 is out of range [32, 4096] bits"},
    {"level of 8 GiB", LVX("'size': 8589934592, 'assoc': 16, 'line': 64"),
     "bad.json: levels[0].size: 8589934592 is out of range [64, 4294967296] bytes"},
    {"level below one 64 B line", LVX("'size': 32, 'assoc': 1, 'line': 16"),
     "bad.json: levels[0].size: 32 is out of range [64, 4294967296] bytes"},
    {"line of 8 B", LVX("'size': 8192, 'assoc': 8, 'line': 8"),
     "bad.json: levels[0].line: 8 is out of range [16, 4096] bytes"},
    {"line of 8 KiB", LVX("'size': 65536, 'assoc': 8, 'line': 8192"),
     "bad.json: levels[0].line: 8192 is out of range [16, 4096] bytes"},
    {"fully associative 1 GiB", LVX("'size': 1073741824, 'assoc': 16777216, 'line': 64"),
     "bad.json: levels[0].assoc: 16777216 is out of range [1, 65536] ways"},
    {"no ways", LVX("'size': 8192, 'assoc': 0, 'line': 64"),
     "bad.json: levels[0].assoc: 0 is out of range [1, 65536] ways"},
    {"latency below half a cycle", L1X("'latency_cycles': 0.4"),
     "bad.json: levels[0].latency_cycles: 0.4 is out of range [0.5, 10000] cycles"},
    {"latency in ns * 1000", L1X("'latency_cycles': 10001"),
     "bad.json: levels[0].latency_cycles: 10001 is out of range [0.5, 10000] cycles"},
    {"level bandwidth too large", L1X("'bandwidth_bytes_per_cycle': 5000"),
     "bad.json: levels[0].bandwidth_bytes_per_cycle: 5000 is out of range [0.01, 4096] bytes/cycle"},
    {"core bandwidth too small", L1X("'core_bandwidth_bytes_per_cycle': 0.001"),
     "bad.json: levels[0].core_bandwidth_bytes_per_cycle: 0.001 is out of range [0.01, 4096] bytes/cycle"},
    {"shared by more than the core limit", L1X("'shared_by': 65537"),
     "bad.json: levels[0].shared_by: 65537 is out of range [1, 65536] cores"},
    {"DRAM latency 1e300 ns", TOPX("'dram': {'latency_ns': 1e300}"),
     "bad.json: dram.latency_ns: 1e+300 is out of range [1, 10000] ns"},
    {"DRAM latency below 1 ns", TOPX("'dram': {'latency_ns': 0.5}"),
     "bad.json: dram.latency_ns: 0.5 is out of range [1, 10000] ns"},
    {"DRAM bandwidth above 10 TB/s", TOPX("'dram': {'bandwidth_gbs': 10001}"),
     "bad.json: dram.bandwidth_gbs: 10001 is out of range [0.01, 10000] GB/s"},
    {"per-core DRAM bandwidth too small", TOPX("'dram': {'core_bandwidth_gbs': 0.001}"),
     "bad.json: dram.core_bandwidth_gbs: 0.001 is out of range [0.01, 10000] GB/s"},
    {"op throughput too small", TOPX("'ops': {'fadd': {'per_cycle': 0.0001, 'latency': 4}}"),
     "bad.json: ops.fadd.per_cycle: 0.0001 is out of range [0.001, 1024] ops/cycle"},
    {"op throughput too large", TOPX("'ops': {'ialu': {'per_cycle': 2000, 'latency': 1}}"),
     "bad.json: ops.ialu.per_cycle: 2000 is out of range [0.001, 1024] ops/cycle"},
    {"op latency too large", TOPX("'ops': {'fdiv': {'per_cycle': 0.25, 'latency': 10001}}"),
     "bad.json: ops.fdiv.latency: 10001 is out of range [0, 10000] cycles"},
    /* A JSON null is a value of the wrong type, never a syntax error or a missing key. */
    {"null document", "null", "bad.json: top level must be a JSON object, got null"},
    {"number document", "5", "bad.json: top level must be a JSON object, got an integer"},
    {"null cores", "{'name': 'x', 'cores': null, 'levels': [" LV1 "]}",
     "bad.json: cores: must be an integer, got null"},
    {"null clock", TOPX("'clock_ghz': null"), "bad.json: clock_ghz: must be a number, got null"},
    {"null dram", TOPX("'dram': null"), "bad.json: dram: must be an object, got null"},
    {"null levels", "{'name': 'x', 'cores': 4, 'levels': null}",
     "bad.json: levels: must be an array, got null"},
    {"null level", "{'name': 'x', 'cores': 4, 'levels': [null]}",
     "bad.json: levels[0]: must be an object, got null"},
    {"null name", "{'name': null, 'cores': 4, 'levels': [" LV1 "]}",
     "bad.json: name: must be a string, got null"},
    {"null size", LVX("'size': null, 'assoc': 8, 'line': 64"),
     "bad.json: levels[0].size: must be an integer, got null"},
    {"null inclusive",
     SPEC(LV1, "{'name': 'L2', 'size': 131072, 'assoc': 16, 'line': 64, 'inclusive': null}"),
     "bad.json: levels[1].inclusive: must be true or false, got null"},
    {"fractional cores", "{'name': 'x', 'cores': 4.5, 'levels': [" LV1 "]}",
     "bad.json: cores: must be an integer, got a number with a fraction or exponent"},
};

/* The bounds of every range are themselves accepted. */
static const char *const range_bounds[] = {
    "{'name': 'x', 'cores': 1, 'levels': [" LV1 "]}",
    "{'name': 'x', 'cores': 65536, 'levels': [" LV1 "]}",
    TOPX("'clock_ghz': 0.1, 'mlp': 1, 'call_cycles': 0.01, 'fork_join_cycles': 0.01, "
         "'fork_join_serial_cycles': 0.01,"
         " 'branch_miss_cycles': 0.01, 'coherence_cycles': 0.01, 'vector_bits': 32, 'fp_window': 1"),
    TOPX("'clock_ghz': 10, 'mlp': 1024, 'call_cycles': 1e6, 'fork_join_cycles': 1e9, "
         "'fork_join_serial_cycles': 1e9,"
         " 'branch_miss_cycles': 1000, 'coherence_cycles': 100000, 'vector_bits': 4096, 'fp_window': 4096"),
    LVX("'size': 64, 'assoc': 1, 'line': 64"),
    LVX("'size': 64, 'assoc': 4, 'line': 16"),
    LVX("'size': 4294967296, 'assoc': 16, 'line': 4096"),
    LVX("'size': 4194304, 'assoc': 65536, 'line': 64"),
    L1X("'shared_by': 4, 'latency_cycles': 0.5, 'bandwidth_bytes_per_cycle': 0.01, "
        "'core_bandwidth_bytes_per_cycle': 0.01"),
    L1X("'latency_cycles': 10000, 'bandwidth_bytes_per_cycle': 4096, 'core_bandwidth_bytes_per_cycle': 4096"),
    TOPX("'dram': {'latency_ns': 1, 'bandwidth_gbs': 0.01, 'core_bandwidth_gbs': 0.01}"),
    TOPX("'dram': {'latency_ns': 10000, 'bandwidth_gbs': 10000, 'core_bandwidth_gbs': 10000}"),
    TOPX(
        "'ops': {'fadd': {'per_cycle': 0.001, 'latency': 0}, 'fmul': {'per_cycle': 1024, 'latency': 10000}}"),
};

START_TEST(range_bound_accepted) {
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(parse_q(range_bounds[_i], &hw, &err) == 0, "bound %d: %s", _i, err.msg);
  round_trip(&hw);
}
END_TEST

/* The same ranges hold for a spec built or modified in code (ppt_hwspec_validate). */
START_TEST(validate_ranges) {
  ppt_hwspec hw, base;
  ppt_err err;
  ck_assert_int_eq(parse_q(FULL, &base, &err), 0);
  hw = base;
  hw.clock_hz = 1e-291;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "mod: clock_ghz: 1e-300 is out of range [0.1, 10] GHz");
  hw = base;
  hw.dram_latency_ns = 1e300;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "mod: dram.latency_ns: 1e+300 is out of range [1, 10000] ns");
  hw = base;
  hw.dram_bw_bytes_per_s = 2e13;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "mod: dram.bandwidth_gbs: 20000 is out of range [0.01, 10000] GB/s");
  hw = base;
  hw.levels[2].size = 1ull << 30;
  hw.levels[2].assoc = 1u << 24;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "mod: levels[2].assoc: 16777216 is out of range [1, 65536] ways");
  hw = base;
  hw.cores = 70000;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "mod: cores: 70000 is out of range [1, 65536] cores");
  hw = base;
  hw.ops[PPT_HW_IDIV].latency = -1;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "mod: ops.idiv.latency: -1 is out of range [0, 10000] cycles");
  hw = base;
  hw.levels[0].latency_cycles = NAN;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "mod: levels[0].latency_cycles: nan is out of range [0.5, 10000] cycles");
  /* 0 stays "absent" for optional figures */
  hw = base;
  hw.clock_hz = 0;
  hw.dram_latency_ns = 0;
  hw.levels[1].bw_bytes_per_cycle = 0;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), 0);
}
END_TEST

START_TEST(bad_spec) {
  check_bad_spec(bad_specs[_i].what, bad_specs[_i].json, bad_specs[_i].key);
}
END_TEST

START_TEST(the_good_base_is_good) {
  /* the bad specs are single edits of these; make sure the base itself parses */
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(parse_q(SPEC(LV1, LV2), &hw, &err) == 0, "%s", err.msg);
  ck_assert_uint_eq(hw.levels[1].shared_by, 4);
}
END_TEST

START_TEST(file_errors_name_the_file) {
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_int_eq(ppt_hwspec_load("/nonexistent/cpu.json", &hw, &err), PPT_EINPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/cpu.json: cannot open"));
  char path[] = "/tmp/ppt_hwspec_XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  char *j = dq(SPEC(LV1, "{'name': 'L2', 'size': 131072, 'assoc': 16, 'line': 64, 'shared_by': 8}"));
  ck_assert_int_eq(write(fd, j, strlen(j)), (ssize_t)strlen(j));
  close(fd);
  free(j);
  ck_assert_int_eq(ppt_hwspec_load(path, &hw, &err), PPT_EINPUT);
  char want[128];
  snprintf(want, sizeof want, "%s: levels[1].shared_by: 8", path);
  ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0, "got %s", err.msg);
  unlink(path);
}
END_TEST

START_TEST(validate_struct) {
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_int_eq(parse_q(FULL, &hw, &err), 0);
  hw.levels[2].assoc = 3; /* 16 MiB / 64 B = 262144 lines, not a multiple of 3 */
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "mod: levels[2].size"));
  hw.levels[2].assoc = 16;
  hw.levels[1].shared_by = 4; /* L3 shared_by 8 is a multiple; L2 4 divides 8 cores: fine */
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), 0);
  hw.levels[1].shared_by = 8;
  hw.levels[2].shared_by = 4; /* an outer level shared by fewer cores than the inner one */
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "mod: levels[2].shared_by"));
}
END_TEST

int main(void) {
  Suite *s = suite_create("hwspec");
  TCase *tc = tcase_create("hwspec");
  tcase_add_test(tc, shipped_file_exact);
  tcase_add_test(tc, full_spec_values);
  tcase_add_test(tc, round_trips);
  tcase_add_test(tc, dram_core_bandwidth);
  tcase_add_test(tc, dram_writeback_costs);
  tcase_add_test(tc, branch_miss);
  tcase_add_test(tc, fp_window);
  tcase_add_loop_test(tc, store_forward, 0, 2);
  tcase_add_test(tc, contention_factor);
  tcase_add_test(tc, core_speed);
  tcase_add_test(tc, busy_speed);
  tcase_add_test(tc, victim_ways_key);
  tcase_add_test(tc, hashed_sets_key);
  tcase_add_test(tc, mlp_same_set);
  tcase_add_test(tc, coherence);
  tcase_add_test(tc, the_good_base_is_good);
  tcase_add_loop_test(tc, bad_spec, 0, (int)(sizeof bad_specs / sizeof bad_specs[0]));
  tcase_add_loop_test(tc, range_bound_accepted, 0, (int)(sizeof range_bounds / sizeof range_bounds[0]));
  tcase_add_test(tc, validate_ranges);
  tcase_add_test(tc, file_errors_name_the_file);
  tcase_add_test(tc, validate_struct);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

/* test_hwspec_library.c — the shipped spec sheets (the JSON files of hwspecs/) as a library: every
 * file parses, is named after itself, gives its year and instruction set, and cites every
 * figure group it gives (docs/hwspec.md, "Shipped specs"); and the `year` and `isa` keys
 * that `ppt hwspec --list` sorts and shows by. */
#include <check.h>

#include "ppt_test.h"
#include <dirent.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppt/hwspec.h"

#include "hwspec_q.h"

/* Specs that describe no CPU of a spec sheet, so there is nothing to cite: the SASMM
 * paper's synthetic hierarchies and the calibrated build host (its figures are
 * measurements, cited by `ppt calibrate` as it wants). Every other file must cite. */
static const char *const exempt[] = {"host.json", "sasmm-cachegrind.json", "sasmm-inclusive.json", NULL};

/* Keys that are no figure: provenance and the listing's labels. */
static const char *const not_figures[] = {"name", "source", "notes", "sources", "year", "isa", NULL};

static int listed(const char *s, const char *const *list) {
  for (const char *const *k = list; *k; k++)
    if (strcmp(s, *k) == 0) return 1;
  return 0;
}

/* A `sources` key covers a group when it is the group or a field inside it: "levels[2]"
 * is covered by "levels[2]" and by "levels[2].latency_cycles", "ops" by "ops.fdiv". */
static int covered(json_object *sources, const char *group) {
  size_t n = strlen(group);
  json_object_object_foreach(sources, key, val) {
    (void)val;
    if (strncmp(key, group, n) == 0 && (key[n] == '\0' || key[n] == '.' || key[n] == '[')) return 1;
  }
  return 0;
}

/* The figure groups of a spec file that are not cited, appended to `missing`: each
 * top-level figure (clock_ghz, cores, mlp, dram, ops, ...), and each element of the
 * levels and tlb arrays on its own, since a level's size and its latency come from
 * different pages as often as not. */
static void uncited(json_object *root, char *missing, size_t cap) {
  json_object *sources = NULL;
  json_object_object_get_ex(root, "sources", &sources);
  json_object_object_foreach(root, key, val) {
    if (listed(key, not_figures)) continue;
    size_t n = (strcmp(key, "levels") == 0 || strcmp(key, "tlb") == 0) ? json_object_array_length(val) : 0;
    for (size_t i = 0; i < (n ? n : 1); i++) {
      char group[64];
      if (n)
        snprintf(group, sizeof group, "%s[%zu]", key, i);
      else
        snprintf(group, sizeof group, "%s", key);
      if (!sources || !covered(sources, group)) {
        strncat(missing, " ", cap - strlen(missing) - 1);
        strncat(missing, group, cap - strlen(missing) - 1);
      }
    }
  }
}

typedef struct files {
  char dir[4096];
  char name[256][256];
  int n;
} files;

static void shipped(files *f) {
  const char *src = getenv("PPT_SOURCE_DIR");
  ck_assert_msg(src != NULL, "PPT_SOURCE_DIR not set (run through ctest)");
  snprintf(f->dir, sizeof f->dir, "%s/hwspecs", src);
  DIR *d = opendir(f->dir);
  ck_assert_msg(d != NULL, "cannot open %s", f->dir);
  struct dirent *e;
  f->n = 0;
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (e->d_name[0] == '.' || len < 6 || strcmp(e->d_name + len - 5, ".json") != 0) continue;
    ck_assert_int_lt(f->n, 256);
    snprintf(f->name[f->n++], sizeof f->name[0], "%s", e->d_name);
  }
  closedir(d);
}

/* Every file parses, its name is its file name, and the real CPUs cite every figure
 * group and give year and isa. At least 30 real CPUs ship (docs/hwspec.md). */
START_TEST(shipped_specs_cited) {
  files *f = calloc(1, sizeof *f);
  shipped(f);
  int real = 0;
  char report[8192] = "";
  for (int i = 0; i < f->n; i++) {
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", f->dir, f->name[i]);
    ppt_hwspec *hw = calloc(1, sizeof *hw);
    ppt_err err;
    ck_assert_msg(ppt_hwspec_load(path, hw, &err) == 0, "%s", err.msg);
    char stem[256];
    snprintf(stem, sizeof stem, "%.*s", (int)(strlen(f->name[i]) - 5), f->name[i]);
    ck_assert_msg(strcmp(hw->name, stem) == 0, "%s: name \"%s\" is not the file's name", f->name[i], hw->name);
    if (!listed(f->name[i], exempt)) {
      real++;
      json_object *root = json_object_from_file(path);
      ck_assert_ptr_nonnull(root);
      char missing[2048] = "";
      uncited(root, missing, sizeof missing);
      if (!hw->source[0]) strncat(missing, " source", sizeof missing - strlen(missing) - 1);
      if (!hw->year) strncat(missing, " year", sizeof missing - strlen(missing) - 1);
      if (!hw->isa[0]) strncat(missing, " isa", sizeof missing - strlen(missing) - 1);
      if (missing[0]) {
        size_t at = strlen(report);
        snprintf(report + at, sizeof report - at, "\n  %s: missing%s", f->name[i], missing);
      }
      json_object_put(root);
    }
    free(hw);
  }
  ck_assert_msg(report[0] == '\0', "shipped specs lacking a citation (or source, year, isa):%s", report);
  ck_assert_msg(real >= 30, "%d real-CPU specs in hwspecs/, at least 30 expected", real);
  for (const char *const *x = exempt; *x; x++) {
    int found = 0;
    for (int i = 0; i < f->n; i++) found |= strcmp(f->name[i], *x) == 0;
    ck_assert_msg(found, "exempt spec %s is not shipped: drop it from the list", *x);
  }
  free(f);
}
END_TEST

/* The coverage rule itself, by hand: a field inside a group covers it, a sibling or a
 * key that only starts with the same letters does not. */
START_TEST(coverage_rule) {
  json_object *s = json_tokener_parse(
      "{\"levels[1].latency_cycles\": \"a\", \"ops.fdiv\": \"b\", \"dram\": \"c\", \"clock_ghz\": \"d\"}");
  ck_assert(covered(s, "levels[1]"));
  ck_assert(!covered(s, "levels[0]"));
  ck_assert(!covered(s, "levels[10]"));
  ck_assert(covered(s, "ops"));
  ck_assert(covered(s, "dram"));
  ck_assert(!covered(s, "cores"));
  ck_assert(covered(s, "clock_ghz"));
  json_object_put(s);
  json_object *root = json_tokener_parse(
      "{\"name\": \"x\", \"year\": 2020, \"cores\": 2, \"levels\": [{}, {}], \"ops\": {},"
      " \"sources\": {\"levels[1]\": \"a\", \"ops.fadd\": \"b\"}}");
  char missing[256] = "";
  uncited(root, missing, sizeof missing);
  ck_assert_str_eq(missing, " cores levels[0]");
  json_object_put(root);
}
END_TEST

#define BASE                                                                   \
  "{'name': 'y', 'cores': 4, 'levels': [{'name': 'L1', 'size': 32768, "        \
  "'assoc': 8, 'line': 64}, {'name': 'L2', 'size': 1048576, 'assoc': 16, "     \
  "'line': 64, 'shared_by': 4}]"

/* year and isa: optional, read and written back as given, out-of-range years and
 * unknown ISA names rejected with a one-line message. */
START_TEST(year_and_isa) {
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(parse_q(BASE ", 'year': 2024, 'isa': 'aarch64'}", &hw, &err) == 0, "%s", err.msg);
  ck_assert_uint_eq(hw.year, 2024);
  ck_assert_str_eq(hw.isa, "aarch64");
  char *json = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_nonnull(strstr(json, "\"year\": 2024"));
  ck_assert_ptr_nonnull(strstr(json, "\"isa\": \"aarch64\""));
  ppt_hwspec back;
  ck_assert_msg(ppt_hwspec_parse(json, "back", &back, &err) == 0, "%s", err.msg);
  ck_assert_uint_eq(back.year, 2024);
  ck_assert_str_eq(back.isa, "aarch64");
  free(json);
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), 0);
  ck_assert_msg(parse_q(BASE ", 'isa': 'x86-64'}", &hw, &err) == 0, "%s", err.msg);
  ck_assert_uint_eq(hw.year, 0);
  json = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_null(strstr(json, "year"));
  free(json);
  ck_assert_msg(parse_q(BASE "}", &hw, &err) == 0, "%s", err.msg);
  ck_assert_str_eq(hw.isa, "");
  json = ppt_hwspec_to_json(&hw);
  ck_assert_ptr_null(strstr(json, "isa"));
  free(json);
  check_bad_spec("two-digit year", BASE ", 'year': 24}", "bad.json: year: 24 is out of range [1971, 2100] (year)");
  check_bad_spec("year as text", BASE ", 'year': '2024'}", "bad.json: year: must be an integer, got a string");
  check_bad_spec("unknown isa", BASE ", 'isa': 'arm64'}",
                 "bad.json: isa: must be one of x86-64, aarch64, riscv64, ppc64le");
  check_bad_spec("isa as number", BASE ", 'isa': 64}", "bad.json: isa: must be a string, got an integer");
  ck_assert_msg(parse_q(BASE "}", &hw, &err) == 0, "%s", err.msg);
  hw.year = 1900;
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "mod: year: 1900 is out of range [1971, 2100] (year)");
  hw.year = 0;
  snprintf(hw.isa, sizeof hw.isa, "x86_64");
  ck_assert_int_eq(ppt_hwspec_validate(&hw, "mod", &err), PPT_EINPUT);
  ck_assert(ppt_hwspec_isa_known("riscv64") && !ppt_hwspec_isa_known("x86_64"));
}
END_TEST

int main(void) {
  Suite *s = suite_create("hwspec_library");
  TCase *tc = tcase_create("hwspec_library");
  tcase_add_test(tc, shipped_specs_cited);
  tcase_add_test(tc, coverage_rule);
  tcase_add_test(tc, year_and_isa);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

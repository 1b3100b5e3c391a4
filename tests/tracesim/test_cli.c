/* test_cli.c — `ppt cachesim` and `ppt hwspec` (and sasmm's refusal of N-thread traces) as a user runs them
 * (build/bin/ppt via PPT_BINARY_DIR): JSON keys and values (the values against the library run in-process),
 * exit status 0 / 2, and one-line messages naming the bad file. */
#include <check.h>

#include "ppt_test.h"
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "ppt/tracesim.h"
#include "tsynth.h"

static const char *dir;
static char trace[700], trace1[700], spec[700], badspec[700], corrupt[700];

static const char *HW =
    "{\"name\": \"cli-hw\", \"cores\": 2, \"levels\": ["
    "{\"name\": \"L1\", \"size\": 1024, \"assoc\": 2, \"line\": 64},"
    "{\"name\": \"L2\", \"size\": 8192, \"assoc\": 8, \"line\": 64, \"shared_by\": 2}]}";
static const char *const funcs[] = {"main", ".omp_outlined.", ".omp_outlined..1"};

static void put(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
}

/* Runs `ppt ARGS > dir/out 2> dir/err`; returns the exit status. */
static int ppt(const char *fmt, ...) {
  char args[2048], cmd[4096];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  snprintf(cmd, sizeof cmd, "'%s/bin/ppt' %s > '%s/out' 2> '%s/err'", getenv("PPT_BINARY_DIR"), args, dir,
           dir);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static char *slurp(const char *name) {
  char p[800];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  FILE *f = fopen(p, "r");
  ck_assert_ptr_nonnull(f);
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

/* stderr holds exactly one line, starting with `prefix` and containing `needle`. */
static void one_line_error(const char *prefix, const char *needle) {
  const char *e = slurp("err");
  ck_assert_msg(!strncmp(e, prefix, strlen(prefix)), "stderr: %s", e);
  ck_assert_msg(strstr(e, needle) != NULL, "stderr lacks '%s': %s", needle, e);
  const char *nl = strchr(e, '\n');
  ck_assert_msg(nl && nl[1] == '\0', "not one line: %s", e);
}

static void setup(void) {
  ck_assert_ptr_nonnull(getenv("PPT_BINARY_DIR"));
  dir = ts_dir("cli");
  snprintf(trace, sizeof trace, "%s/k.trace", dir);
  snprintf(trace1, sizeof trace1, "%s/k1.trace", dir);
  snprintf(spec, sizeof spec, "%s/hw.json", dir);
  snprintf(badspec, sizeof badspec, "%s/bad.json", dir);
  snprintf(corrupt, sizeof corrupt, "%s/corrupt.trace", dir);
  ts_stream s[2] = {{0}, {0}};
  for (int th = 0; th < 2; th++) {
    if (th == 0) {
      ts_bb(&s[0], 1);
      for (int i = 0; i < 500; i++) ts_mem(&s[0], 1, 0x900000 + 8 * (uint64_t)i, 8);
    }
    for (int rep = 0; rep < 3; rep++) {
      ts_bb(&s[th], 2 + (uint32_t)th);
      for (int i = 0; i < 400; i++) ts_mem(&s[th], 0, 0x100000 + 40 * (uint64_t)i + 4096 * (uint64_t)th, 16);
    }
  }
  ck_assert_int_eq(ts_write(trace, s, 2, funcs, 3), 0);
  ck_assert_int_eq(ts_write(trace1, s, 1, funcs, 3), 0); /* thread 0 alone: a sequential trace */
  ts_free(&s[0]);
  ts_free(&s[1]);
  put(spec, HW);
  put(badspec,
      "{\"name\": \"x\", \"cores\": 2, \"levels\": [{\"name\": \"L1\", \"size\": 1000, \"assoc\": 2, "
      "\"line\": 64}]}");
  char cmd[2000];
  snprintf(cmd, sizeof cmd, "head -c 300 '%s' > '%s'", trace, corrupt);
  ck_assert_int_eq(system(cmd), 0);
}

static json_object *get(json_object *o, const char *key) {
  json_object *v = NULL;
  ck_assert_msg(json_object_object_get_ex(o, key, &v), "no key '%s'", key);
  return v;
}

/* The library's result for the same trace, spec and options. */
static void lib_run(const ppt_tracesim_opts *o, ppt_tracesim_result *r) {
  ppt_hwspec hw;
  ppt_trace *t;
  ppt_err err;
  ck_assert_int_eq(ppt_hwspec_load(spec, &hw, &err), 0);
  ck_assert_int_eq(ppt_trace_open(trace, &t, &err), 0);
  ck_assert_msg(ppt_tracesim_run(t, &hw, o, r, &err) == 0, "%s", err.msg);
  ppt_trace_close(t);
}

static void check_levels(json_object *root, const ppt_tracesim_result *r) {
  json_object *lv = get(root, "levels");
  ck_assert_int_eq((int)json_object_array_length(lv), 2);
  for (size_t k = 0; k < 2; k++) {
    json_object *l = json_object_array_get_idx(lv, k);
    ck_assert_str_eq(json_object_get_string(get(l, "name")), k ? "L2" : "L1");
    ck_assert_uint_eq((uint64_t)json_object_get_uint64(get(l, "accesses")), r->levels[k].accesses);
    ck_assert_uint_eq((uint64_t)json_object_get_uint64(get(l, "misses")), r->levels[k].misses);
    ck_assert_double_eq_tol(json_object_get_double(get(l, "hit_rate")), r->levels[k].hit_rate, 1e-12);
    ck_assert_double_eq_tol(json_object_get_double(get(l, "local_hit_rate")), r->levels[k].local_hit_rate,
                            1e-12);
  }
}

START_TEST(cachesim_json) {
  ck_assert_int_eq(ppt("cachesim '%s' --hw '%s' --json", trace, spec), 0);
  json_object *root = json_tokener_parse(slurp("out"));
  ck_assert_ptr_nonnull(root);
  ppt_tracesim_result r;
  lib_run(NULL, &r);
  check_levels(root, &r);
  /* 1200 16-byte loads at stride 40 per thread: some straddle, so lines > references */
  ck_assert_uint_eq(r.refs, 500 + 2400);
  ck_assert_uint_gt(r.levels[0].accesses, r.refs);
  ck_assert_str_eq(json_object_get_string(get(root, "trace")), trace);
  ck_assert_str_eq(json_object_get_string(get(root, "hwspec")), spec);
  ck_assert_int_eq(json_object_get_int(get(root, "threads")), 2);
  ck_assert_str_eq(json_object_get_string(get(root, "interleave")), "rr");
  ck_assert_ptr_null(get(root, "seed"));
  ck_assert_ptr_null(get(root, "only"));
  ck_assert_int_eq((int)json_object_array_length(get(root, "ref_levels")), 2);
  /* write-backs into L2 and DRAM, as the library counts them (loads only here: none) */
  json_object *wb = get(root, "writebacks");
  ck_assert_int_eq((int)json_object_array_length(wb), 2);
  for (size_t k = 0; k < 2; k++) {
    json_object *e = json_object_array_get_idx(wb, k);
    ck_assert_str_eq(json_object_get_string(get(e, "into")), k ? "DRAM" : "L2");
    ck_assert_uint_eq((uint64_t)json_object_get_uint64(get(e, "lines")), r.writebacks[k + 1]);
  }
  json_object_put(root);

  const char *only[] = {".omp_outlined."};
  ppt_tracesim_opts o = {.interleave = PPT_INTERLEAVE_UNIFORM, .seed = 5, .only = only, .nonly = 1};
  ck_assert_int_eq(
      ppt("cachesim --interleave uniform --seed 5 --only .omp_outlined. '%s' --hw '%s' --json", trace, spec),
      0);
  root = json_tokener_parse(slurp("out"));
  ck_assert_ptr_nonnull(root);
  lib_run(&o, &r);
  ck_assert_uint_eq(r.counted_refs, 2400);
  check_levels(root, &r);
  ck_assert_str_eq(json_object_get_string(get(root, "interleave")), "uniform");
  ck_assert_int_eq(json_object_get_int(get(root, "seed")), 5);
  json_object *jo = get(root, "only");
  ck_assert_int_eq((int)json_object_array_length(jo), 1);
  ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(jo, 0)), ".omp_outlined.");
  ck_assert_uint_eq((uint64_t)json_object_get_uint64(get(root, "counted_refs")), 2400);
  json_object_put(root);

  /* a list of prefixes: 'main' and the second outlined function only */
  ck_assert_int_eq(ppt("cachesim '%s' --hw '%s' --json --only main,.omp_outlined..1", trace, spec), 0);
  root = json_tokener_parse(slurp("out"));
  ck_assert_ptr_nonnull(root);
  ck_assert_uint_eq((uint64_t)json_object_get_uint64(get(root, "counted_refs")), 500 + 1200);
  json_object_put(root);
}
END_TEST

/* ppt sasmm --json gives each level's references and misses, not only rates: at one core
 * the mimicked stream of a sequential trace is the trace, so the counts are cachesim's
 * (in references) exactly; with sdcm they are the expected ones, consistent with the rates. */
START_TEST(sasmm_json_counts) {
  ppt_tracesim_result r;
  ppt_hwspec hw;
  ppt_trace *t;
  ppt_err err;
  ck_assert_int_eq(ppt_hwspec_load(spec, &hw, &err), 0);
  ck_assert_int_eq(ppt_trace_open(trace1, &t, &err), 0);
  ck_assert_int_eq(ppt_tracesim_run(t, &hw, NULL, &r, &err), 0);
  ppt_trace_close(t);
  ck_assert_int_eq(ppt("sasmm '%s' --hw '%s' --cores 1 --json", trace1, spec), 0);
  json_object *root = json_tokener_parse(slurp("out"));
  ck_assert_ptr_nonnull(root);
  json_object *lv = get(json_object_array_get_idx(get(root, "cores"), 0), "levels");
  for (size_t k = 0; k < 2; k++) {
    json_object *l = json_object_array_get_idx(lv, k);
    ck_assert_uint_eq((uint64_t)json_object_get_uint64(get(l, "accesses")), r.levels[k].ref_accesses);
    ck_assert_uint_eq((uint64_t)json_object_get_uint64(get(l, "misses")), r.levels[k].ref_misses);
  }
  ck_assert_uint_eq(r.levels[0].ref_accesses, 500 + 1200);
  json_object_put(root);
  ck_assert_int_eq(ppt("sasmm '%s' --hw '%s' --cores 1 --model sdcm --json", trace1, spec), 0);
  root = json_tokener_parse(slurp("out"));
  ck_assert_ptr_nonnull(root);
  lv = get(json_object_array_get_idx(get(root, "cores"), 0), "levels");
  double refs = json_object_get_double(get(json_object_array_get_idx(lv, 0), "accesses"));
  ck_assert_double_eq_tol(refs, 1700.0, 1e-9);
  for (size_t k = 0; k < 2; k++) {
    json_object *l = json_object_array_get_idx(lv, k);
    double h = json_object_get_double(get(l, "hit_rate"));
    ck_assert_double_eq_tol(json_object_get_double(get(l, "misses")), refs * (1 - h), 1e-6);
  }
  json_object_put(root);
}
END_TEST

START_TEST(cachesim_table_and_help) {
  ck_assert_int_eq(ppt("cachesim '%s' --hw '%s'", trace, spec), 0);
  const char *out = slurp("out");
  ck_assert_ptr_nonnull(strstr(out, "L1"));
  ck_assert_ptr_nonnull(strstr(out, "L2"));
  ck_assert_ptr_nonnull(strstr(out, "hit rate"));
  ck_assert_int_eq(ppt("cachesim --help"), 0);
  ck_assert_ptr_nonnull(strstr(slurp("out"), "usage: ppt cachesim"));
  ck_assert_int_eq(ppt("--help"), 0);
  out = slurp("out");
  ck_assert_ptr_nonnull(strstr(out, "cachesim"));
  ck_assert_ptr_nonnull(strstr(out, "hwspec"));
}
END_TEST

START_TEST(cachesim_bad_input) {
  ck_assert_int_eq(ppt("cachesim '%s/none.trace' --hw '%s'", dir, spec), 2);
  one_line_error("ppt cachesim: ", "none.trace");
  ck_assert_int_eq(ppt("cachesim '%s' --hw '%s'", corrupt, spec), 2);
  one_line_error("ppt cachesim: ", "corrupt.trace");
  ck_assert_int_eq(ppt("cachesim '%s' --hw '%s'", trace, badspec), 2);
  one_line_error("ppt cachesim: ", "bad.json");
  ck_assert_int_eq(ppt("cachesim '%s' --hw '%s/none.json'", trace, dir), 2);
  one_line_error("ppt cachesim: ", "none.json");
  ck_assert_int_eq(ppt("cachesim '%s' --hw '%s' --interleave zigzag", trace, spec), 2);
  one_line_error("ppt cachesim: ", "zigzag");
  ck_assert_int_eq(ppt("cachesim '%s' --hw '%s' --seed -3", trace, spec), 2);
  one_line_error("ppt cachesim: ", "--seed");
  ck_assert_int_eq(ppt("cachesim '%s' --hw '%s' --seed x1", trace, spec), 2);
  one_line_error("ppt cachesim: ", "--seed");
  ck_assert_int_eq(ppt("cachesim '%s' --hw '%s' --only ,", trace, spec), 2);
  one_line_error("ppt cachesim: ", "--only");
  ck_assert_int_eq(ppt("cachesim '%s'", trace), 2);
  one_line_error("ppt cachesim: ", "--hw");
  ck_assert_int_eq(ppt("cachesim --hw '%s'", spec), 2);
  one_line_error("ppt cachesim: ", "TRACE");
  ck_assert_int_eq(ppt("cachesim '%s' --hw '%s' --frobnicate", trace, spec), 2);
  one_line_error("ppt cachesim: ", "--frobnicate");
  ck_assert_int_eq(ppt("cachesim '%s' --hw", trace), 2);
  one_line_error("ppt cachesim: ", "--hw");
  /* a list is a union: a selector that matches nothing is named in one line and the
   * rest counted; a selection that matches nothing at all is bad input, not counted as
   * 0 references */
  ck_assert_int_eq(ppt("cachesim '%s' --hw '%s' --only main,typo_kernel", trace, spec), 0);
  one_line_error("ppt: ", "'typo_kernel' matches no block");
  ck_assert_int_eq(ppt("cachesim '%s' --hw '%s' --only nosuch,typo_kernel", trace, spec), 2);
  one_line_error("ppt cachesim: ", "'nosuch,typo_kernel' matches no block");
  ck_assert_int_eq(ppt("cachesim '%s' --hw '%s' --only .omp_outlined.,main --json", trace, spec), 0);
  /* this trace has 2 threads: ground truth for cachesim, not something to mimic cores from */
  ck_assert_int_eq(ppt("sasmm '%s' --hw '%s' --cores 2", trace, spec), 2);
  one_line_error("ppt sasmm: ", "a trace of 2 threads");
  ck_assert_int_eq(ppt("sasmm '%s/none.trace' --hw '%s' --cores 2", dir, spec), 2);
  one_line_error("ppt sasmm: ", "none.trace");
  /* a run that cannot fit is refused before it starts, naming --cores and the estimate,
   * instead of an OOM kill (docs/sasmm.md "Memory"): 4095 private 4 GiB levels are 2 TB
   * of cache state, beyond any machine's MemAvailable (no ulimit -v: AddressSanitizer's
   * shadow reservation would not start under one) */
  char big[800];
  snprintf(big, sizeof big, "%s/big.json", dir);
  put(big,
      "{\"name\": \"big-l2\", \"cores\": 4095, \"levels\": ["
      "{\"name\": \"L1\", \"size\": 1024, \"assoc\": 2, \"line\": 64},"
      "{\"name\": \"L2\", \"size\": 4294967296, \"assoc\": 16, \"line\": 64}]}");
  ck_assert_int_eq(ppt("sasmm '%s' --hw '%s' --cores 4095", trace1, big), 2);
  one_line_error("ppt sasmm: ", "--cores 4095 needs about");
  ck_assert_ptr_nonnull(strstr(slurp("err"), "GB of cache state"));
}
END_TEST

START_TEST(hwspec_cmd) {
  ck_assert_int_eq(ppt("hwspec '%s' --json", spec), 0);
  json_object *root = json_tokener_parse(slurp("out"));
  ck_assert_ptr_nonnull(root);
  ck_assert(json_object_get_boolean(get(root, "valid")));
  ck_assert(!json_object_get_boolean(get(root, "has_timing")));
  json_object *lv = get(root, "levels");
  ck_assert_int_eq((int)json_object_array_length(lv), 2);
  /* derived geometry: L1 1024/64/2 = 8 sets, L2 8192/64/8 = 16 sets, one L2 on 2 cores */
  ck_assert_int_eq(json_object_get_int(get(json_object_array_get_idx(lv, 0), "sets")), 8);
  ck_assert_int_eq(json_object_get_int(get(json_object_array_get_idx(lv, 1), "sets")), 16);
  ck_assert_int_eq(json_object_get_int(get(json_object_array_get_idx(lv, 0), "instances")), 2);
  ck_assert_int_eq(json_object_get_int(get(json_object_array_get_idx(lv, 1), "instances")), 1);
  /* "spec" parses back to the same spec */
  ppt_hwspec a, b;
  ppt_err err;
  ck_assert_int_eq(ppt_hwspec_load(spec, &a, &err), 0);
  ck_assert_int_eq(ppt_hwspec_parse(json_object_to_json_string(get(root, "spec")), "echo", &b, &err), 0);
  ck_assert_int_eq(b.nlevels, a.nlevels);
  ck_assert_uint_eq(b.levels[1].size, a.levels[1].size);
  ck_assert_uint_eq(b.levels[1].shared_by, 2);
  json_object_put(root);

  ck_assert_int_eq(ppt("hwspec '%s'", spec), 0);
  const char *out = slurp("out");
  ck_assert_ptr_nonnull(strstr(out, "cli-hw"));
  ck_assert_ptr_nonnull(strstr(out, "8 KiB"));
  /* The calibrated host spec: its misses in flight and region costs, as the file has them. */
  const char *src = getenv("PPT_SOURCE_DIR");
  ck_assert_ptr_nonnull(src);
  char host[1024], want[160];
  snprintf(host, sizeof host, "%s/hwspecs/host.json", src);
  ck_assert_int_eq(ppt_hwspec_load(host, &a, &err), 0);
  ck_assert(a.mlp_same_set_load > 0);
  ck_assert_int_eq(ppt("hwspec '%s'", host), 0);
  out = slurp("out");
  snprintf(want, sizeof want, "mlp         %g misses in flight; on one L1 set: %g loads, %g stores", a.mlp,
           a.mlp_same_set_load, a.mlp_same_set_store);
  ck_assert_msg(strstr(out, want) != NULL, "no '%s' in:\n%s", want, out);
  snprintf(want, sizeof want, "regions     fork-join %g cycles (serialised %g)", a.fork_join_cycles,
           a.fork_join_serial_cycles);
  ck_assert_msg(strstr(out, want) != NULL, "no '%s' in:\n%s", want, out);
  /* the DRAM write-back costs: the defaults, named so (the spec gives none) */
  ck_assert_uint_eq(a.dram_wb_given, 0);
  ck_assert_ptr_nonnull(
      strstr(out, "write-back  1 line fills of the socket's bandwidth (default), 0 of one core's (default)"));
  ck_assert_int_eq(ppt("hwspec '%s'", badspec), 2);
  one_line_error("ppt hwspec: ", "bad.json: levels[0].size");
  ck_assert_int_eq(ppt("hwspec '%s/none.json'", dir), 2);
  one_line_error("ppt hwspec: ", "none.json");
  ck_assert_int_eq(ppt("hwspec"), 2);
  ck_assert_int_eq(ppt("hwspec --help"), 0);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("tracesim_cli");
  TCase *tc = tcase_create("cli");
  tcase_add_unchecked_fixture(tc, setup, NULL);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, cachesim_json);
  tcase_add_test(tc, cachesim_table_and_help);
  tcase_add_test(tc, cachesim_bad_input);
  tcase_add_test(tc, sasmm_json_counts);
  tcase_add_test(tc, hwspec_cmd);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return ppt_test_run(suite());
}

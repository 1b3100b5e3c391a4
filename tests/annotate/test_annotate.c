/* test_annotate.c — `ppt annotate` and ppt/annotate.h on programs built with ppt-cc whose
 * misses are known: volatile data at -O1, so every access in the source is one access in
 * the program (tests/e2e/test_e2e_trace.c), on a one-level spec (8 KiB, 8 ways, 64 B lines,
 * then memory). The oracles: the analytic counts, and the simulator's own totals
 * (ppt_tracesim_sasmm, ppt_tracesim_run / `ppt cachesim`), which the per-line counts must
 * add up to. */
#include <check.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"
#include "ppt/annotate.h"
#include "ppt/hwspec.h"
#include "ppt/sasmm.h"
#include "ppt/tracesim.h"
#include "ppt_test.h"

/* Loop A (line 5) sums 64 KiB of doubles once: 8192 references, one miss per 64 B line,
 * 1024. Loop B (line 6) reads a 1 KiB array 100 times: 12800 references, 16 cold misses,
 * then the array stays in the 8 KiB L1. Each loop is on one line, so every block of it is
 * charged there. */
#define LINE_A 5
#define LINE_B 6
static const char *k_two_loops =
    "volatile double a[8192] __attribute__((aligned(64)));\n"
    "volatile double b[128] __attribute__((aligned(64)));\n"
    "int main(void) {\n"
    "  double s = 0.0;\n"
    "  for (int i = 0; i < 8192; i++) s += a[i];\n"
    "  for (int r = 0; r < 100; r++) for (int i = 0; i < 128; i++) s += b[i];\n"
    "  return s == 0.0 ? 0 : 1;\n"
    "}\n";

static const char *k_spec =
    "{\"name\": \"l1-only\", \"cores\": 16, \"levels\": [\n"
    "  {\"name\": \"L1\", \"size\": 8192, \"assoc\": 8, \"line\": 64, \"shared_by\": 1}]}\n";

/* Two levels, the second shared by 4 cores: a parallel loop on 4 mimicked cores. */
static const char *k_spec2 =
    "{\"name\": \"l1-l2\", \"cores\": 4, \"levels\": [\n"
    "  {\"name\": \"L1\", \"size\": 8192, \"assoc\": 8, \"line\": 64, \"shared_by\": 1},\n"
    "  {\"name\": \"L2\", \"size\": 65536, \"assoc\": 16, \"line\": 64, \"shared_by\": 4}]}\n";

/* 4096 loads and 4096 stores of x, dealt statically: 1024 iterations, 128 lines per core. */
#define LINE_P 4
static const char *k_par =
    "volatile double x[4096] __attribute__((aligned(64)));\n"
    "int main(void) {\n"
    "#pragma omp parallel for schedule(static)\n"
    "  for (int i = 0; i < 4096; i++) x[i] = x[i] + 1.0;\n"
    "  return 0;\n"
    "}\n";

static const char *build_two_loops(void) {
  const char *d = e2e_dir("annotate");
  e2e_write(d, "k.c", k_two_loops);
  e2e_write(d, "l1.json", k_spec);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 k.c -o k && $PPT trace -o k.trace -- ./k 2>/dev/null"), 0);
  return d;
}

static void load_spec(const char *d, const char *file, ppt_hwspec *hw) {
  char p[1024];
  ppt_err err;
  snprintf(p, sizeof p, "%s/%s", d, file);
  ck_assert_msg(ppt_hwspec_load(p, hw, &err) == 0, "%s", err.msg);
}

static void run_annotate(ppt_trace *t, const ppt_hwspec *hw, uint32_t cores, ppt_interleave il,
                         const uint8_t *counted, ppt_annotate_result *res) {
  ppt_annotate_opts o;
  ppt_annotate_opts_default(&o);
  o.sasmm.ncores = cores;
  o.sasmm.interleave = il;
  o.counted = counted;
  ppt_err err;
  ck_assert_msg(ppt_annotate_run(t, hw, &o, res, &err) == 0, "%s", err.msg);
}

/* The line rows' sums equal r's totals (refs and misses at every level). */
static void assert_sums(const ppt_annotate_row *rows, size_t n, const ppt_tracesim_result *r) {
  ppt_annotate_counts s = {0};
  for (size_t i = 0; i < n; i++) {
    s.refs += rows[i].c.refs;
    for (uint32_t k = 0; k < r->nlevels; k++) s.misses[k] += rows[i].c.misses[k];
  }
  ck_assert_uint_eq(s.refs, r->counted_refs);
  for (uint32_t k = 0; k < r->nlevels; k++) ck_assert_uint_eq(s.misses[k], r->levels[k].ref_misses);
}

static const ppt_annotate_row *find_line(const ppt_annotate_row *rows, size_t n, uint32_t line) {
  const ppt_annotate_row *found = NULL;
  for (size_t i = 0; i < n; i++)
    if (rows[i].line == line && strstr(rows[i].file, ".c")) {
      ck_assert_msg(!found, "line %u has two rows", line);
      found = &rows[i];
    }
  ck_assert_msg(found != NULL, "no row for line %u", line);
  return found;
}

START_TEST(known_misses_one_core) {
  const char *d = build_two_loops();
  ppt_trace *t = e2e_open(d, "k.trace");
  ppt_hwspec hw;
  load_spec(d, "l1.json", &hw);
  ppt_annotate_result res;
  run_annotate(t, &hw, 1, PPT_INTERLEAVE_RR, NULL, &res);
  ppt_annotate_row *rows;
  size_t n;
  ppt_err err;
  ck_assert_int_eq(ppt_annotate_group(t, &res, PPT_ANNOTATE_BY_LINE, &rows, &n, &err), 0);
  const ppt_annotate_row *a = find_line(rows, n, LINE_A), *b = find_line(rows, n, LINE_B);
  ck_assert_str_eq(a->function, "main");
  ck_assert_uint_eq(a->c.refs, 8192);
  ck_assert_uint_eq(a->c.misses[0], 8192 / 8);
  ck_assert_uint_eq(b->c.refs, 100 * 128);
  ck_assert_uint_eq(b->c.misses[0], 16);
  /* Against the tally's totals, and against the same run simulated on its own. */
  assert_sums(rows, n, &res.totals);
  ppt_sasmm_opts so;
  ppt_sasmm_opts_default(&so);
  ppt_tracesim_result sim;
  ck_assert_int_eq(ppt_tracesim_sasmm(t, &so, &hw, NULL, &sim, NULL, &err), 0);
  assert_sums(rows, n, &sim);
  /* cachesim of a one-thread trace is the one-core mimic. */
  ck_assert_int_eq(ppt_tracesim_run(t, &hw, NULL, &sim, &err), 0);
  assert_sums(rows, n, &sim);
  /* By function: all in main. */
  free(rows);
  ck_assert_int_eq(ppt_annotate_group(t, &res, PPT_ANNOTATE_BY_FUNCTION, &rows, &n, &err), 0);
  ck_assert_uint_eq(n, 1);
  ck_assert_str_eq(rows[0].function, "main");
  ck_assert_uint_eq(rows[0].c.refs, res.totals.counted_refs);
  free(rows);
  ppt_annotate_result_free(&res);
  ppt_trace_close(t);
}
END_TEST

/* Four mimicked cores of a parallel loop, both interleavings: the per-line sums are the
 * simulator's totals, and the loop's line has what static scheduling predicts. --only
 * counts the outlined body alone and still adds up. */
START_TEST(parallel_four_cores) {
  const char *d = e2e_dir("annotate-par");
  e2e_write(d, "p.c", k_par);
  e2e_write(d, "l2.json", k_spec2);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 -fopenmp p.c -o p && $PPT trace -o p.trace -- ./p 2>/dev/null"), 0);
  ppt_trace *t = e2e_open(d, "p.trace");
  ppt_hwspec hw;
  load_spec(d, "l2.json", &hw);
  static const char *const outlined[] = {".omp_outlined."};
  uint8_t *counted = ppt_trace_blocks_of_functions(t, outlined, 1);
  ck_assert_ptr_nonnull(counted);
  for (int il = 0; il < 2; il++)
    for (int filter = 0; filter < 2; filter++) {
      ppt_annotate_result res;
      ppt_interleave mode = il ? PPT_INTERLEAVE_UNIFORM : PPT_INTERLEAVE_RR;
      run_annotate(t, &hw, 4, mode, filter ? counted : NULL, &res);
      ppt_annotate_row *rows;
      size_t n;
      ppt_err err;
      ck_assert_int_eq(ppt_annotate_group(t, &res, PPT_ANNOTATE_BY_LINE, &rows, &n, &err), 0);
      assert_sums(rows, n, &res.totals);
      ppt_sasmm_opts so;
      ppt_sasmm_opts_default(&so);
      so.ncores = 4;
      so.interleave = mode;
      ppt_tracesim_result sim;
      ck_assert_int_eq(ppt_tracesim_sasmm(t, &so, &hw, filter ? counted : NULL, &sim, NULL, &err), 0);
      assert_sums(rows, n, &sim);
      /* The loop's line: 8192 references of x, a load miss per line per core in L1 and
       * in L2, cold (the loop bounds' few stack references may share the line). */
      const ppt_annotate_row *p = find_line(rows, n, LINE_P);
      ck_assert_uint_ge(p->c.refs, 8192);
      ck_assert_uint_le(p->c.refs, 8192 + 64);
      ck_assert_uint_ge(p->c.misses[0], 512);
      ck_assert_uint_le(p->c.misses[0], 512 + 16);
      ck_assert_uint_ge(p->c.misses[1], 512);
      ck_assert_uint_le(p->c.misses[1], 512 + 16);
      free(rows);
      ppt_annotate_result_free(&res);
    }
  free(counted);
  ppt_trace_close(t);
  /* The cores are mimicked from the sequential trace: a 4-thread one is bad input. */
  ck_assert_int_eq(e2e_sh(d, "$PPT trace --threads 4 -o p4.trace -- ./p 2>/dev/null"), 0);
  ck_assert_int_eq(e2e_sh(d, "$PPT annotate p4.trace --hw l2.json --cores 4 2>err.txt >/dev/null"), 2);
  ck_assert_int_eq(e2e_sh(d, "grep -q 'p4.trace' err.txt"), 0);
}
END_TEST

/* ---------------------------------------------------------------- the command */

static json_object *jget(json_object *o, const char *key) {
  json_object *v = NULL;
  ck_assert_msg(json_object_object_get_ex(o, key, &v), "missing key %s", key);
  return v;
}

static uint64_t jmisses(json_object *row, size_t k) {
  return (uint64_t)json_object_get_int64(jget(json_object_array_get_idx(jget(row, "levels"), k), "misses"));
}

static json_object *annotate_json(const char *d, const char *opts) {
  ck_assert_int_eq(e2e_sh(d, "$PPT annotate k.trace --hw l1.json --json %s >out.json", opts), 0);
  char p[1024];
  snprintf(p, sizeof p, "%s/out.json", d);
  json_object *o = json_object_from_file(p);
  ck_assert_ptr_nonnull(o);
  return o;
}

START_TEST(cli_json) {
  const char *d = build_two_loops();
  json_object *o = annotate_json(d, "--cores 1 --top 0");
  static const char *const keys[] = {"trace",  "hw",     "cores",     "interleave", "seed",
                                     "levels", "totals", "functions", "lines"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) jget(o, keys[i]);
  ck_assert_int_eq(json_object_get_int(jget(o, "cores")), 1);
  ck_assert_str_eq(json_object_get_string(jget(o, "interleave")), "rr");
  ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(jget(o, "levels"), 0)), "L1");
  json_object *tot = jget(o, "totals"), *lines = jget(o, "lines");
  uint64_t refs = 0, miss = 0;
  int seen = 0;
  for (size_t i = 0; i < json_object_array_length(lines); i++) {
    json_object *l = json_object_array_get_idx(lines, i);
    jget(l, "file");
    jget(l, "function");
    refs += (uint64_t)json_object_get_int64(jget(l, "refs"));
    miss += jmisses(l, 0);
    int line = json_object_get_int(jget(l, "line"));
    if (line == LINE_A || line == LINE_B) {
      seen++;
      ck_assert_uint_eq(json_object_get_int64(jget(l, "refs")), line == LINE_A ? 8192 : 12800);
      ck_assert_uint_eq(jmisses(l, 0), line == LINE_A ? 1024 : 16);
    }
  }
  ck_assert_int_eq(seen, 2);
  ck_assert_uint_eq(refs, (uint64_t)json_object_get_int64(jget(tot, "refs")));
  ck_assert_uint_eq(miss, jmisses(tot, 0));
  json_object *f = json_object_array_get_idx(jget(o, "functions"), 0);
  ck_assert_str_eq(json_object_get_string(jget(f, "function")), "main");
  jget(f, "file");
  /* `ppt cachesim` on the same (one-thread) trace: the same totals, in references. */
  ck_assert_int_eq(e2e_sh(d, "$PPT cachesim k.trace --hw l1.json --json >cs.json"), 0);
  char p[1024];
  snprintf(p, sizeof p, "%s/cs.json", d);
  json_object *cs = json_object_from_file(p);
  ck_assert_ptr_nonnull(cs);
  ck_assert_uint_eq(refs, (uint64_t)json_object_get_int64(jget(cs, "counted_refs")));
  json_object *l1 = json_object_array_get_idx(jget(cs, "ref_levels"), 0);
  ck_assert_uint_eq(miss, (uint64_t)json_object_get_int64(jget(l1, "misses")));
  json_object_put(cs);
  json_object_put(o);
  /* --only takes the selectors of the other commands: FILE:LINE counts loop A alone. */
  o = annotate_json(d, "--cores 1 --only k.c:5");
  tot = jget(o, "totals");
  ck_assert_uint_eq(json_object_get_int64(jget(tot, "refs")), 8192);
  ck_assert_uint_eq(jmisses(tot, 0), 1024);
  ck_assert_uint_eq(json_object_array_length(jget(o, "lines")), 1);
  json_object_put(o);
}
END_TEST

START_TEST(cli_sort_top) {
  const char *d = build_two_loops();
  /* Default: by the last level's misses; loop A has the most. */
  json_object *o = annotate_json(d, "--cores 1 --top 1");
  ck_assert_uint_eq(json_object_array_length(jget(o, "lines")), 1);
  ck_assert_int_eq(json_object_get_int(jget(json_object_array_get_idx(jget(o, "lines"), 0), "line")), LINE_A);
  json_object_put(o);
  /* By references: loop B first, then A. */
  o = annotate_json(d, "--cores 1 --sort refs --top 2");
  json_object *lines = jget(o, "lines");
  ck_assert_uint_eq(json_object_array_length(lines), 2);
  ck_assert_int_eq(json_object_get_int(jget(json_object_array_get_idx(lines, 0), "line")), LINE_B);
  ck_assert_int_eq(json_object_get_int(jget(json_object_array_get_idx(lines, 1), "line")), LINE_A);
  json_object_put(o);
  /* Level names are case-insensitive. */
  o = annotate_json(d, "--cores 1 --sort l1 --top 2");
  ck_assert_int_eq(json_object_get_int(jget(json_object_array_get_idx(jget(o, "lines"), 0), "line")), LINE_A);
  json_object_put(o);
  /* The table shows the source of the top lines, found here or under --source-dir. */
  ck_assert_int_eq(
      e2e_sh(d,
             "$PPT annotate k.trace --hw l1.json --cores 1 >t.txt && grep -q 's += a\\[i\\]' t.txt"
             " && grep -q 'TOTAL' t.txt && grep -q 'k.c:5 main' t.txt"),
      0);
  ck_assert_int_eq(e2e_sh(d,
                          "mkdir -p sub && cd sub && $PPT annotate ../k.trace --hw ../l1.json --cores 1"
                          " --source-dir .. >t.txt && grep -q 's += b\\[i\\]' t.txt"),
                   0);
}
END_TEST

/* Exit 2 and one line on stderr that names the culprit. */
static void assert_usage(const char *d, const char *opts, const char *needle) {
  int rc = e2e_sh(d,
                  "$PPT annotate %s >/dev/null 2>err.txt; s=$?; test $(wc -l <err.txt) -eq 1 &&"
                  " grep -q -- '%s' err.txt && exit $s",
                  opts, needle);
  ck_assert_msg(rc == 2, "'%s': exit %d, want 2 naming '%s'", opts, rc, needle);
}

START_TEST(cli_bad_usage) {
  const char *d = build_two_loops();
  assert_usage(d, "k.trace --hw l1.json --cores 1 --bogus", "--bogus");
  assert_usage(d, "k.trace --hw l1.json", "--cores");
  assert_usage(d, "k.trace --hw l1.json --cores 1,2", "--cores");
  assert_usage(d, "k.trace --hw l1.json --cores 1 --top x", "--top");
  assert_usage(d, "k.trace --hw l1.json --cores 1 --sort L9", "L9");
  assert_usage(d, "k.trace --hw l1.json --cores 1 --only nosuch_", "nosuch_");
  assert_usage(d, "k.trace --hw l1.json --cores 1 --interleave zigzag", "--interleave");
  assert_usage(d, "missing.trace --hw l1.json --cores 1", "missing.trace");
  assert_usage(d, "k.trace --hw missing.json --cores 1", "missing.json");
  assert_usage(d, "k.trace --cores 1", "--hw");
  ck_assert_int_eq(e2e_sh(d, "$PPT annotate --help | grep -q 'first source line\\|first line'"), 0);
  ck_assert_int_eq(e2e_sh(d, "$PPT --help | grep -q annotate"), 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("annotate");
  TCase *tc = tcase_create("annotate");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, known_misses_one_core);
  tcase_add_test(tc, parallel_four_cores);
  tcase_add_test(tc, cli_json);
  tcase_add_test(tc, cli_sort_top);
  tcase_add_test(tc, cli_bad_usage);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

/* test_reuse_cli.c — `ppt reuse` and `ppt hitrate` end to end on programs whose reuse
 * distances are known analytically.
 *
 * The sweep program reads a[64*i] for i < M, K times over, from a volatile array: at -O1
 * the loop counters live in registers and the reads are its only memory references, so
 * with 64-byte lines the trace holds M first touches and (K-1)*M references at distance
 * M-1 (every other line of the array is touched between two reads of one line); with
 * 128-byte lines, M/2 lines each read twice in a row: M/2 first touches, K*M/2 at
 * distance 0 and (K-1)*M/2 at distance M/2-1. Hit rates of that profile follow from SDCM
 * by hand: a fully associative LRU cache of C lines hits iff D < C; an A-way cache of B
 * lines hits with the binomial probability F(A-1; D, A/B) (GSL, the oracle here).
 * Every command runs with --no-stack-refs: these are the IR's references, without the
 * machine code's own stack references (main's call, the prologue) that ppt adds. */
#include <check.h>
#include <gsl/gsl_cdf.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e/e2e.h"
#include "ppt/trace.h"

#define M 4096
#define K 200

static char dir[512]; /* scratch folder shared by the tests, made once by the fixture */

/* Aligned to a page, not just a line: the --line 128 test counts 128-byte lines, and where
 * a 64-byte-aligned array falls depends on the other globals of the binary (the runtime's). */
static const char *k_sweep =
    "volatile char a[4096 * 64] __attribute__((aligned(4096)));\n"
    "int main(void) {\n"
    "  int s = 0;\n"
    "  for (int k = 0; k < 200; k++)\n"
    "    for (int i = 0; i < 4096; i++) s += a[64 * i];\n"
    "  return s;\n"
    "}\n";

/* A serial store, then a parallel loop reading and writing each element once. */
static const char *k_par =
    "volatile double x[1000] __attribute__((aligned(64)));\n"
    "int main(void) {\n"
    "  x[0] = 1.0;\n"
    "#pragma omp parallel for schedule(static)\n"
    "  for (int i = 0; i < 1000; i++) x[i] = x[i] + 1.0;\n"
    "  return 0;\n"
    "}\n";

/* Fully associative 2048 lines (the sweep's M-1 = 4095 always misses), 16-way 8192 lines
 * (binomial), fully associative 8192 lines (always hits a reuse). */
static const char *k_hw =
    "{\"name\": \"test-fa\", \"cores\": 1, \"levels\": [\n"
    " {\"name\": \"L1\", \"size\": 131072, \"assoc\": 2048, \"line\": 64, \"shared_by\": 1},\n"
    " {\"name\": \"L2\", \"size\": 524288, \"assoc\": 16, \"line\": 64, \"shared_by\": 1},\n"
    " {\"name\": \"L3\", \"size\": 524288, \"assoc\": 8192, \"line\": 64, \"shared_by\": 1}]}\n";

static void setup(void) {
  snprintf(dir, sizeof dir, "%s", e2e_dir("reuse_cli"));
  e2e_write(dir, "sweep.c", k_sweep);
  e2e_write(dir, "par.c", k_par);
  e2e_write(dir, "fa.json", k_hw);
  ck_assert_int_eq(
      e2e_sh(dir,
             "$PPTCC -O1 sweep.c -o sweep && $PPT trace -o sweep.trace -- ./sweep 2>/dev/null"
             " && $PPTCC -O1 -fopenmp par.c -o par && $PPT trace -o p1.trace -- ./par 2>/dev/null"
             " && $PPT trace --threads 2 -o p2.trace -- ./par 2>/dev/null"),
      0);
}

/* Runs a ppt command line (exit 0 expected) and parses its stdout as JSON. */
static json_object *run_json(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static json_object *run_json(const char *fmt, ...) {
  char cmd[2048], path[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  ck_assert_msg(e2e_sh(dir, "%s >out.json", cmd) == 0, "failed: %s", cmd);
  snprintf(path, sizeof path, "%s/out.json", dir);
  json_object *j = json_object_from_file(path);
  ck_assert_msg(j != NULL, "no JSON from: %s", cmd);
  return j;
}

static json_object *get(json_object *o, const char *key) {
  json_object *v = NULL;
  ck_assert_msg(json_object_object_get_ex(o, key, &v), "no key %s", key);
  return v;
}

static double num(json_object *o, const char *key) {
  return json_object_get_double(get(o, key));
}

/* Count at finite distance d in a {"histogram": [[d, count], ...]} object (0 if absent). */
static double count_at(json_object *o, int64_t d) {
  json_object *h = get(o, "histogram");
  for (size_t i = 0; i < json_object_array_length(h); i++) {
    json_object *p = json_object_array_get_idx(h, i);
    if (json_object_get_int64(json_object_array_get_idx(p, 0)) == d)
      return json_object_get_double(json_object_array_get_idx(p, 1));
  }
  return 0;
}

static size_t nbins(json_object *o) {
  return json_object_array_length(get(o, "histogram"));
}

/* Exit status 2 and exactly one line on stderr that starts with `prefix`. */
static void fails(const char *prefix, const char *cmd) {
  ck_assert_msg(e2e_sh(dir, "%s >/dev/null 2>err.txt", cmd) == 2, "not exit 2: %s", cmd);
  char p[1024], line[1024];
  snprintf(p, sizeof p, "%s/err.txt", dir);
  FILE *f = fopen(p, "r");
  ck_assert_ptr_nonnull(f);
  int lines = 0;
  while (fgets(line, sizeof line, f)) {
    if (lines++ == 0) ck_assert_msg(!strncmp(line, prefix, strlen(prefix)), "%s: stderr '%s'", cmd, line);
  }
  fclose(f);
  ck_assert_msg(lines == 1, "%s: %d lines on stderr", cmd, lines);
}

/* Sum of the counts in a PPT text file ("sd count p" lines). */
static double text_total(const char *file) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", dir, file);
  FILE *f = fopen(p, "r");
  ck_assert_msg(f != NULL, "missing %s", file);
  long long d;
  double c, pr, t = 0;
  while (fscanf(f, "%lld %lf %lf", &d, &c, &pr) == 3) t += c;
  fclose(f);
  return t;
}

START_TEST(sweep_exact) {
  json_object *j = run_json("$PPT reuse --no-stack-refs --json sweep.trace");
  ck_assert_double_eq(num(j, "refs"), (double)K * M);
  ck_assert_double_eq(num(j, "infinite"), M);
  ck_assert_double_eq(count_at(j, M - 1), (double)(K - 1) * M);
  ck_assert_uint_eq(nbins(j), 1);
  ck_assert_int_eq(json_object_get_int(get(j, "line")), 64);
  ck_assert_str_eq(json_object_get_string(get(j, "mode")), "exact");
  ck_assert_double_eq(num(j, "rate"), 1.0);
  ck_assert_ptr_null(get(j, "seed"));
  ck_assert_int_eq(json_object_get_int(get(j, "thread")), 0);
  ck_assert_int_eq(json_object_get_int(get(j, "lines")), M);
  json_object_put(j);
  /* The text summary and the log2 table: M-1 = 4095 falls in the 2048-4095 bin. */
  ck_assert_int_eq(e2e_sh(dir,
                          "$PPT reuse --no-stack-refs sweep.trace >sum.txt && grep -q '^refs  *819200$' sum.txt"
                          " && grep -q '^infinite  *4096 ' sum.txt"
                          " && grep -Eq '^2048-4095  *815104 ' sum.txt"),
                   0);
}
END_TEST

START_TEST(sweep_line_128) {
  json_object *j = run_json("$PPT reuse --no-stack-refs --line 128 --json sweep.trace");
  ck_assert_double_eq(num(j, "refs"), (double)K * M);
  ck_assert_double_eq(num(j, "infinite"), M / 2);
  ck_assert_double_eq(count_at(j, 0), (double)K * M / 2);
  ck_assert_double_eq(count_at(j, M / 2 - 1), (double)(K - 1) * M / 2);
  ck_assert_uint_eq(nbins(j), 2);
  ck_assert_int_eq(json_object_get_int(get(j, "line")), 128);
  json_object_put(j);
}
END_TEST

START_TEST(threads_identical) {
  /* Several chunks, or two workers would not split anything. */
  ppt_trace *t = e2e_open(dir, "sweep.trace");
  ck_assert_uint_ge(ppt_trace_thread_nchunks(t, 0), 3);
  ppt_trace_close(t);
  ck_assert_int_eq(e2e_sh(dir,
                          "$PPT reuse --no-stack-refs -o t1.txt --ppt-text d1 sweep.trace >/dev/null"
                          " && $PPT reuse --no-stack-refs --threads 2 -o t2.txt --ppt-text d2 sweep.trace >/dev/null"
                          " && cmp t1.txt t2.txt && diff -r d1 d2"),
                   0);
  for (int p = 0; p < 2; p++) { /* also on a trace with serial and parallel blocks */
    const char *tr = p ? "p1.trace" : "sweep.trace";
    json_object *a = run_json("$PPT reuse --no-stack-refs --per-bb --json %s", tr);
    json_object *b = run_json("$PPT reuse --no-stack-refs --per-bb --threads 2 --json %s", tr);
    ck_assert_int_eq(json_object_get_int(get(b, "workers")), 2);
    static const char *keys[] = {"refs", "infinite", "histogram", "regions", "blocks", "lines"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
      ck_assert_msg(json_object_equal(get(a, keys[i]), get(b, keys[i])), "%s differs on %s", keys[i], tr);
    json_object_put(a);
    json_object_put(b);
  }
}
END_TEST

START_TEST(full_sampling_equals_exact) {
  ck_assert_int_eq(e2e_sh(dir,
                          "$PPT reuse --no-stack-refs -o e.txt --ppt-text de sweep.trace >/dev/null"
                          " && $PPT reuse --no-stack-refs --sample 1.0 -o s.txt --ppt-text ds sweep.trace >/dev/null"
                          " && $PPT reuse --no-stack-refs --approx 1 -o a.txt sweep.trace >/dev/null"
                          " && cmp e.txt s.txt && cmp e.txt a.txt && diff -r de ds"),
                   0);
  ck_assert_int_eq(e2e_sh(dir,
                          "$PPT reuse --no-stack-refs -o pe.txt --ppt-text dpe p1.trace >/dev/null"
                          " && $PPT reuse --no-stack-refs --sample 1 -o ps.txt --ppt-text dps p1.trace >/dev/null"
                          " && cmp pe.txt ps.txt && diff -r dpe dps"),
                   0);
}
END_TEST

START_TEST(sampled_estimate) {
  json_object *j = run_json("$PPT reuse --no-stack-refs --sample 0.01 --seed 7 --json -o s7.txt sweep.trace");
  ck_assert_str_eq(json_object_get_string(get(j, "mode")), "sampled");
  ck_assert_int_eq(json_object_get_int(get(j, "seed")), 7);
  ck_assert_double_eq(num(j, "rate"), 0.01);
  /* The estimate is scaled to the stream's reference count and can only see the two
   * distances the stream has. */
  ck_assert_double_eq_tol(num(j, "refs"), (double)K * M, 1e-6);
  ck_assert_uint_eq(nbins(j), 1);
  ck_assert_double_gt(count_at(j, M - 1), 0);
  /* Each instance of the loop block holds one reference: ~1% of them are analysed
   * (8192 expected, standard deviation ~90). */
  double an = num(j, "analysed");
  ck_assert_double_gt(an, 0.005 * K * M);
  ck_assert_double_lt(an, 0.015 * K * M);
  json_object_put(j);
  ck_assert_int_eq(
      e2e_sh(dir,
             "$PPT reuse --no-stack-refs --sample 0.01 --seed 7 -o s7b.txt sweep.trace >/dev/null && cmp s7.txt s7b.txt"),
      0);
  /* SHARDS keeps the stream's reference count as the total (SHARDS_adj). */
  j = run_json("$PPT reuse --no-stack-refs --approx 0.1 --json sweep.trace");
  ck_assert_str_eq(json_object_get_string(get(j, "mode")), "approx");
  ck_assert_double_eq_tol(num(j, "refs"), (double)K * M, 1e-6);
  json_object_put(j);
}
END_TEST

START_TEST(per_bb_regions_and_ppt_text) {
  json_object *j = run_json("$PPT reuse --no-stack-refs --per-bb --json -o whole.txt --ppt-text pt p1.trace");
  double refs = num(j, "refs");
  json_object *reg = get(j, "regions"), *par = get(reg, "parallel"), *ser = get(reg, "serial");
  ck_assert_double_eq(num(par, "refs") + num(ser, "refs"), refs);
  /* Parallel loop: 1000 loads and 1000 stores of x; each store reuses the line its load
   * just touched (D = 0), and 7 of 8 loads the line of the previous element's store. */
  ck_assert_double_ge(num(par, "refs"), 2000);
  ck_assert_double_ge(count_at(par, 0), 1000 + 875);
  ck_assert_double_ge(num(ser, "refs"), 1); /* x[0] = 1.0 */
  json_object *blocks = get(j, "blocks");
  double sum = 0, psum = 0;
  for (size_t i = 0; i < json_object_array_length(blocks); i++) {
    json_object *b = json_object_array_get_idx(blocks, i);
    sum += num(b, "refs");
    int parallel = json_object_get_boolean(get(b, "parallel"));
    if (parallel) {
      psum += num(b, "refs");
      ck_assert_ptr_nonnull(strstr(json_object_get_string(get(b, "function")), "omp_outlined"));
    }
    ck_assert_double_eq(num(b, "analysed"), num(b, "refs")); /* exact: all analysed */
    char f[64];
    snprintf(f, sizeof f, "pt/bb%d.txt", json_object_get_int(get(b, "id")));
    ck_assert_double_eq(text_total(f), num(b, "refs"));
  }
  ck_assert_double_eq(sum, refs);
  ck_assert_double_eq(psum, num(par, "refs"));
  json_object_put(j);
  ck_assert_double_eq(text_total("pt/whole.txt"), refs);
  ck_assert_int_eq(e2e_sh(dir, "cmp whole.txt pt/whole.txt"), 0);
}
END_TEST

START_TEST(all_threads) {
  ppt_trace *t = e2e_open(dir, "p2.trace");
  ck_assert_uint_eq(ppt_trace_nthreads(t), 2);
  json_object *j = run_json("$PPT reuse --no-stack-refs --all-threads --json -o th.json p2.trace");
  json_object *th = get(j, "threads");
  ck_assert_uint_eq(json_object_array_length(th), 2);
  for (uint32_t k = 0; k < 2; k++) {
    json_object *e = json_object_array_get_idx(th, k);
    ck_assert_int_eq(json_object_get_int(get(e, "thread")), (int)k);
    ck_assert_double_eq(num(e, "refs"), (double)ppt_trace_nrefs(t, k));
  }
  json_object *one = run_json("$PPT reuse --no-stack-refs --thread 1 --json p2.trace");
  ck_assert(json_object_equal(get(one, "histogram"), get(json_object_array_get_idx(th, 1), "histogram")));
  ck_assert_double_eq(num(one, "infinite"), num(json_object_array_get_idx(th, 1), "infinite"));
  json_object_put(one);
  json_object_put(j);
  /* -o with --all-threads: one file per thread, the extension kept. */
  one = run_json("cat th.t1.json");
  ck_assert_double_eq(num(one, "refs"), (double)ppt_trace_nrefs(t, 1));
  ck_assert_int_eq(json_object_get_int(get(one, "thread")), 1);
  json_object_put(one);
  ck_assert_int_eq(e2e_sh(dir, "test -s th.t0.json"), 0);
  ppt_trace_close(t);
}
END_TEST

static void check_level(json_object *lv, const char *name, double hit, double local, double acc,
                        double miss) {
  ck_assert_str_eq(json_object_get_string(get(lv, "name")), name);
  ck_assert_double_eq_tol(num(lv, "hit_rate"), hit, 1e-12);
  ck_assert_double_eq_tol(num(lv, "local_hit_rate"), local, 1e-12);
  ck_assert_double_eq_tol(num(lv, "accesses"), acc, 1e-6);
  ck_assert_double_eq_tol(num(lv, "misses"), miss, 1e-6);
}

START_TEST(hitrate_trace_and_profiles) {
  ck_assert_int_eq(
      e2e_sh(
          dir,
          "$PPT reuse --no-stack-refs -o prof.txt sweep.trace >/dev/null && $PPT reuse --no-stack-refs -o prof.json sweep.trace >/dev/null"),
      0);
  json_object *a = run_json("$PPT hitrate --no-stack-refs --json sweep.trace --hw fa.json");
  json_object *b = run_json("$PPT hitrate --no-stack-refs --json prof.txt --hw fa.json");
  json_object *c = run_json("$PPT hitrate --no-stack-refs --json --hw fa.json prof.json");
  ck_assert(json_object_equal(get(a, "levels"), get(b, "levels")));
  ck_assert(json_object_equal(get(a, "levels"), get(c, "levels")));
  ck_assert_str_eq(json_object_get_string(get(a, "source_kind")), "trace");
  ck_assert_str_eq(json_object_get_string(get(b, "source_kind")), "profile");
  ck_assert_str_eq(json_object_get_string(get(a, "hwspec")), "fa.json");
  /* By hand: all references at D = M-1 or first touches. */
  double n = (double)K * M, reuse = (double)(K - 1) / K;
  double g1 = 0;                                                  /* 4095 >= 2048 lines, FA */
  double g2 = reuse * gsl_cdf_binomial_P(15, 16.0 / 8192, M - 1); /* 16-way, 8192 lines */
  double g3 = reuse;                                              /* 4095 < 8192 lines, FA */
  json_object *lv = get(a, "levels");
  ck_assert_uint_eq(json_object_array_length(lv), 3);
  check_level(json_object_array_get_idx(lv, 0), "L1", g1, g1, n, n * (1 - g1));
  check_level(json_object_array_get_idx(lv, 1), "L2", g2, (g2 - g1) / (1 - g1), n * (1 - g1), n * (1 - g2));
  check_level(json_object_array_get_idx(lv, 2), "L3", g3, (g3 - g2) / (1 - g2), n * (1 - g2), n * (1 - g3));
  json_object_put(a);
  json_object_put(b);
  json_object_put(c);
  /* The text table agrees. */
  ck_assert_int_eq(e2e_sh(dir, "$PPT hitrate --no-stack-refs prof.txt --hw fa.json | grep -Eq '^L3 .* 0\\.995000 '"), 0);
}
END_TEST

START_TEST(bad_inputs) {
  e2e_write(dir, "garbage.trace", "not a trace at all\n");
  e2e_write(dir, "bad.txt", "0 10 0.5\n12 x\n");
  e2e_write(dir, "bad.json", "{\"line\": 64, \"refs\": 5");
  e2e_write(dir, "wrongrefs.json", "{\"line\": 64, \"refs\": 9, \"infinite\": 1, \"histogram\": [[3, 4]]}");
  e2e_write(dir, "line32.json", "{\"line\": 32, \"refs\": 5, \"infinite\": 1, \"histogram\": [[3, 4]]}");
  e2e_write(dir, "empty.txt", "");
  ck_assert_int_eq(e2e_sh(dir, "head -c 200 sweep.trace >trunc.trace"), 0);
  fails("ppt reuse: missing.trace: ", "$PPT reuse --no-stack-refs missing.trace");
  fails("ppt reuse: garbage.trace: ", "$PPT reuse --no-stack-refs garbage.trace");
  fails("ppt reuse: trunc.trace: ", "$PPT reuse --no-stack-refs trunc.trace");
  fails("ppt reuse: sweep.trace: ", "$PPT reuse --no-stack-refs --thread 1 sweep.trace");
  fails("ppt reuse: ", "$PPT reuse --no-stack-refs --sample 0 sweep.trace");
  fails("ppt reuse: ", "$PPT reuse --no-stack-refs --sample 1.5 sweep.trace");
  fails("ppt reuse: ", "$PPT reuse --no-stack-refs --approx x sweep.trace");
  fails("ppt reuse: ", "$PPT reuse --no-stack-refs --sample 0.1 --approx 0.1 sweep.trace");
  fails("ppt reuse: ", "$PPT reuse --no-stack-refs --line 48 sweep.trace");
  fails("ppt reuse: ", "$PPT reuse --no-stack-refs --threads 0 sweep.trace");
  fails("ppt reuse: ", "$PPT reuse --no-stack-refs --thread 0 --all-threads sweep.trace");
  fails("ppt reuse: ", "$PPT reuse --no-stack-refs --bogus sweep.trace");
  fails("ppt reuse: ", "$PPT reuse");
  fails("ppt hitrate: bad.txt:2: ", "$PPT hitrate --no-stack-refs bad.txt --hw fa.json");
  fails("ppt hitrate: bad.json: ", "$PPT hitrate --no-stack-refs bad.json --hw fa.json");
  fails("ppt hitrate: wrongrefs.json: ", "$PPT hitrate --no-stack-refs wrongrefs.json --hw fa.json");
  fails("ppt hitrate: line32.json: ", "$PPT hitrate --no-stack-refs line32.json --hw fa.json");
  fails("ppt hitrate: empty.txt: ", "$PPT hitrate --no-stack-refs empty.txt --hw fa.json");
  fails("ppt hitrate: missing.txt: ", "$PPT hitrate --no-stack-refs missing.txt --hw fa.json");
  fails("ppt hitrate: trunc.trace: ", "$PPT hitrate --no-stack-refs trunc.trace --hw fa.json");
  fails("ppt hitrate: nohw.json: ", "$PPT hitrate --no-stack-refs prof.txt --hw nohw.json");
  fails("ppt hitrate: fa.json: ", "$PPT hitrate --no-stack-refs sweep.trace --hw fa.json --line 32");
  fails("ppt hitrate: ", "$PPT hitrate --no-stack-refs sweep.trace");
  /* Nothing was written under a failed -o. */
  fails("ppt reuse: ", "$PPT reuse --no-stack-refs --sample 2 -o never.txt sweep.trace");
  ck_assert_int_ne(e2e_sh(dir, "test -e never.txt"), 0);
}
END_TEST

/* -o onto something that is not a regular file (a FIFO here, /dev/null in practice) writes
 * through it: an atomic rename would replace the device or pipe with a plain file. */
START_TEST(output_through_fifo) {
  ck_assert_int_eq(
      e2e_sh(dir,
             "rm -f ff ff.json && mkfifo ff ff.json && $PPT reuse --no-stack-refs -o reg.txt sweep.trace >/dev/null"
             " && $PPT reuse --no-stack-refs -o reg.json sweep.trace >/dev/null"
             " && { cat ff >got.txt & } && $PPT reuse --no-stack-refs -o ff sweep.trace >/dev/null && wait"
             " && { cat ff.json >got.json & } && $PPT reuse --no-stack-refs -o ff.json sweep.trace >/dev/null && wait"
             " && test -p ff && test -p ff.json && cmp got.txt reg.txt && cmp got.json reg.json"),
      0);
  fails("ppt reuse: ", "mkdir -p adir && $PPT reuse --no-stack-refs -o adir sweep.trace");
}
END_TEST

int main(void) {
  Suite *s = suite_create("reuse_cli");
  TCase *tc = tcase_create("cli");
  tcase_add_unchecked_fixture(tc, setup, NULL);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, sweep_exact);
  tcase_add_test(tc, sweep_line_128);
  tcase_add_test(tc, threads_identical);
  tcase_add_test(tc, full_sampling_equals_exact);
  tcase_add_test(tc, sampled_estimate);
  tcase_add_test(tc, per_bb_regions_and_ppt_text);
  tcase_add_test(tc, all_threads);
  tcase_add_test(tc, hitrate_trace_and_profiles);
  tcase_add_test(tc, bad_inputs);
  tcase_add_test(tc, output_through_fifo);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}

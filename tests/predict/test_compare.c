/* test_compare.c — `ppt predict --hw A,B,C`'s comparison of several specs, end to end, on
 * the trace of a small OpenMP program and three shipped sheets:
 *  - --json's "ranking" lists, per core count, every spec once, sorted by runtime_s,
 *    fastest first; each runtime_s is the one that spec's own "specs" entry holds, and
 *    vs_baseline and speedup are the ratios of those entries' runtimes (the baseline's
 *    over the spec's; the spec's on the fewest cores over this count's);
 *  - --baseline by file name without .json picks that spec ("ranking"."baseline", the
 *    table's header); a name that is none of the specs exits 2 with one line on stderr
 *    naming the option, before anything is predicted; --sensitivity with two specs
 *    exits 2;
 *  - the table prints one ranking per core count, its first row the JSON's fastest;
 *  - on an x86-64 build, the aarch64 sheet gets one note (table and "notes") naming it,
 *    and the x86-64 ones none. */
#include <check.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"
#include "ppt_test.h"

static const char *k_prog =
    "#include <stdlib.h>\n"
    "__attribute__((noinline)) void scale(double *a, const double *b, int n) {\n"
    "#pragma omp parallel for\n"
    "  for (int i = 0; i < n; i++) a[i] = 2.5 * b[i] + a[i];\n"
    "}\n"
    "int main(void) {\n"
    "  int n = 1 << 15;\n"
    "  double *a = calloc((size_t)n, sizeof *a), *b = calloc((size_t)n, sizeof *b);\n"
    "  for (int r = 0; r < 4; r++) scale(a, b, n);\n"
    "  int bad = a[0] != 0;\n"
    "  free(a);\n"
    "  free(b);\n"
    "  return bad;\n"
    "}\n";

#define SPECS "$PPT_SOURCE_DIR/hwspecs/host.json,$PPT_SOURCE_DIR/hwspecs/aws-graviton4.json," \
              "$PPT_SOURCE_DIR/hwspecs/intel-xeon-6980p.json"
#define RUN "$PPT predict prog.trace --hw " SPECS " --cores 1,2,4"

static const char *dir;

static void setup(void) {
  dir = e2e_dir("compare");
  e2e_build_trace(dir, "prog", k_prog, "-fopenmp");
}

static json_object *get(json_object *o, const char *key) {
  json_object *v = NULL;
  ck_assert_msg(json_object_object_get_ex(o, key, &v), "no \"%s\"", key);
  return v;
}

/* The runtime at core-count index i of the "specs" entry named hw. */
static double spec_seconds(json_object *o, const char *hw, size_t i) {
  json_object *specs = get(o, "specs");
  for (size_t s = 0; s < json_object_array_length(specs); s++) {
    json_object *e = json_object_array_get_idx(specs, s);
    if (!strcmp(json_object_get_string(get(e, "hw")), hw))
      return json_object_get_double(get(json_object_array_get_idx(get(e, "cores"), i), "runtime_s"));
  }
  ck_abort_msg("no spec %s", hw);
  return NAN;
}

START_TEST(ranking_json_and_table) {
  ck_assert_int_eq(e2e_sh(dir, RUN " --baseline intel-xeon-6980p --json > rank.json"), 0);
  ck_assert_int_eq(e2e_sh(dir, RUN " --baseline intel-xeon-6980p > rank.txt"), 0);
  char p[1024];
  snprintf(p, sizeof p, "%s/rank.json", dir);
  json_object *o = json_object_from_file(p);
  ck_assert_msg(o != NULL, "%s: not JSON", p);
  json_object *rk = get(o, "ranking"), *per = get(rk, "cores");
  ck_assert_str_eq(json_object_get_string(get(rk, "baseline")), "intel-xeon-6980p");
  ck_assert_uint_eq(json_object_array_length(per), 3);
  for (size_t i = 0; i < 3; i++) {
    json_object *specs = get(json_object_array_get_idx(per, i), "specs");
    ck_assert_uint_eq(json_object_array_length(specs), 3);
    double prev = 0, base = spec_seconds(o, "intel-xeon-6980p", i);
    int seen = 0;
    for (size_t k = 0; k < 3; k++) {
      json_object *x = json_object_array_get_idx(specs, k);
      const char *hw = json_object_get_string(get(x, "hw"));
      double sec = json_object_get_double(get(x, "runtime_s"));
      ck_assert_msg(sec >= prev, "%zu: %s at %zu is slower than the one before", i, hw, k);
      prev = sec;
      ck_assert(sec == spec_seconds(o, hw, i));
      ck_assert_double_eq_tol(json_object_get_double(get(x, "vs_baseline")), base / sec, 1e-12 * base / sec);
      double first = spec_seconds(o, hw, 0);
      ck_assert_double_eq_tol(json_object_get_double(get(x, "speedup")), first / sec, 1e-12 * first / sec);
      seen |= !strcmp(hw, "host") << 0 | !strcmp(hw, "aws-graviton4") << 1 | !strcmp(hw, "intel-xeon-6980p") << 2;
    }
    ck_assert_int_eq(seen, 7);
    /* the table's ranking on this core count starts with the JSON's fastest */
    const char *fast = json_object_get_string(get(json_object_array_get_idx(specs, 0), "hw"));
    int n = json_object_get_int(get(json_object_array_get_idx(per, i), "n"));
    ck_assert_int_eq(e2e_sh(dir,
                            "grep -A2 '^ranking on %d cores, fastest first (baseline intel-xeon-6980p)' rank.txt"
                            " | tail -1 | grep -q '^ 1\\. %s '",
                            n, fast),
                     0);
  }
  ck_assert_int_eq(e2e_sh(dir, "test $(grep -c '^ranking on' rank.txt) = 3"), 0);
  json_object *notes = get(o, "notes");
#if defined(__x86_64__)
  ck_assert_uint_eq(json_object_array_length(notes), 1);
  const char *note = json_object_get_string(json_object_array_get_idx(notes, 0));
  ck_assert_msg(!strncmp(note, "aws-graviton4 is aarch64", 24), "%s", note);
  ck_assert_int_eq(e2e_sh(dir, "test $(grep -c '^note: ' rank.txt) = 1 && grep -q '^note: aws-graviton4 is' rank.txt"),
                   0);
#else
  (void)notes;
#endif
  json_object_put(o);
}
END_TEST

START_TEST(bad_baseline_and_sensitivity) {
  ck_assert_int_eq(e2e_sh(dir, RUN " --baseline no-such-cpu > out.txt 2> err.txt"), 2);
  ck_assert_int_eq(e2e_sh(dir, "test $(wc -l < err.txt) = 1 && grep -q \"^ppt predict: --baseline 'no-such-cpu'\" "
                               "err.txt && test ! -s out.txt"),
                   0);
  ck_assert_int_eq(e2e_sh(dir, RUN " --sensitivity > out.txt 2> err.txt"), 2);
  ck_assert_int_eq(e2e_sh(dir, "test $(wc -l < err.txt) = 1 && grep -q 'sensitivity' err.txt"), 0);
  ck_assert_int_eq(
      e2e_sh(dir, "$PPT predict prog.trace --hw $PPT_SOURCE_DIR/hwspecs/host.json --sensitivity=0 2> err.txt"), 2);
  ck_assert_int_eq(e2e_sh(dir, "test $(wc -l < err.txt) = 1"), 0);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("compare");
  TCase *tc = tcase_create("compare");
  tcase_add_unchecked_fixture(tc, setup, NULL);
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, ranking_json_and_table);
  tcase_add_test(tc, bad_baseline_and_sensitivity);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return ppt_test_run(suite());
}

/* test_tables.c — the committed validation tables are reproduced by the current code
 * (docs/validation.md): a row group of each, recomputed from a fresh trace with the very
 * command validation/run uses.
 *
 *  - hitrates_rows: mm2 at its default size, `ppt sasmm` on sasmm-cachegrind.json at 1
 *    and 2 cores, round-robin and uniform: every predicted L1 and L2 hit rate within 0.1
 *    points of validation/results/hitrates.csv (a trace's heap and stack addresses move
 *    a little from run to run).
 *  - runtime_rows: adi at its runtime size, `ppt predict` on host-runtime.json at 1 and
 *    2 threads: within 3 % of runtime.csv's predicted_s (the block cycles llvm-mca gives
 *    at build time depend on the host's core). */
#include <check.h>

#include "ppt_test.h"
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

#define ONLY "kernel_,.omp_outlined."

/* Field `col` (0-based) of the CSV line of results/FILE whose first fields are key
 * (comma-separated, e.g. "mm2,2,L1,rr"); NAN when no line matches. */
static double csv_value(const char *file, const char *key, int col) {
  char path[700], line[512];
  snprintf(path, sizeof path, "%s/validation/results/%s", getenv("PPT_SOURCE_DIR"), file);
  FILE *f = fopen(path, "r");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  double v = NAN;
  size_t n = strlen(key);
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, key, n) && line[n] == ',') {
      char *p = line;
      for (int i = 0; i < col && p; i++) p = strchr(p + 1, ',');
      if (p) v = strtod(p + 1, NULL);
      break;
    }
  fclose(f);
  return v;
}

static json_object *load_json(const char *dir, const char *file) {
  char path[800];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  json_object *j = json_object_from_file(path);
  ck_assert_msg(j != NULL, "cannot read %s", path);
  return j;
}

static json_object *get(json_object *o, const char *key) {
  json_object *v = NULL;
  ck_assert_msg(json_object_object_get_ex(o, key, &v), "no key %s", key);
  return v;
}

START_TEST(hitrates_rows) {
  const char *d = e2e_dir("tables_hitrates");
  ck_assert_int_eq(e2e_sh(d,
                          "$PPTCC -O2 -fopenmp $PPT_SOURCE_DIR/validation/kernels/mm2.c -o mm2 -lm && "
                          "$PPT trace -o mm2.trace -- ./mm2 > /dev/null 2>&1 && "
                          "$PPT sasmm mm2.trace --hw $PPT_SOURCE_DIR/hwspecs/sasmm-cachegrind.json --cores 1,2 "
                          "--interleave rr,uniform --only " ONLY " --json > s.json"),
                   0);
  json_object *j = load_json(d, "s.json"), *cores = get(j, "cores");
  int checked = 0;
  for (size_t i = 0; i < json_object_array_length(cores); i++) {
    json_object *c = json_object_array_get_idx(cores, i), *lv = get(c, "levels");
    int n = json_object_get_int(get(c, "n"));
    const char *il = json_object_get_string(get(c, "interleave"));
    for (size_t k = 0; k < json_object_array_length(lv); k++) {
      json_object *l = json_object_array_get_idx(lv, k);
      char key[64];
      snprintf(key, sizeof key, "mm2,%d,%s,%s", n, json_object_get_string(get(l, "name")), il);
      double want = csv_value("hitrates.csv", key, 4), got = 100 * json_object_get_double(get(l, "hit_rate"));
      ck_assert_msg(!isnan(want), "hitrates.csv has no row %s", key);
      ck_assert_msg(fabs(got - want) <= 0.1, "%s: %.4f %% now, %.4f %% in hitrates.csv", key, got, want);
      checked++;
    }
  }
  ck_assert_int_eq(checked, 8); /* 2 core counts x 2 interleavings x L1, L2 */
  json_object_put(j);
}
END_TEST

START_TEST(runtime_rows) {
  const char *d = e2e_dir("tables_runtime");
  ck_assert_int_eq(e2e_sh(d,
                          "$PPTCC -O2 -fopenmp -DN=1024 -DTSTEPS=3 $PPT_SOURCE_DIR/validation/kernels/adi.c -o adi -lm && "
                          "$PPT trace -o adi.trace -- ./adi > /dev/null 2>&1 && "
                          "$PPT predict adi.trace --hw $PPT_SOURCE_DIR/validation/results/host-runtime.json "
                          "--cores 1,2 --only " ONLY " --json > p.json 2>/dev/null"),
                   0);
  json_object *j = load_json(d, "p.json"), *cores = get(j, "cores");
  ck_assert_int_eq(json_object_array_length(cores), 2);
  for (int i = 0; i < 2; i++) {
    json_object *c = json_object_array_get_idx(cores, i);
    int n = json_object_get_int(get(c, "n"));
    char key[32];
    snprintf(key, sizeof key, "adi,%d", n);
    double want = csv_value("runtime.csv", key, 4), got = json_object_get_double(get(c, "runtime_s"));
    ck_assert_msg(!isnan(want), "runtime.csv has no row %s", key);
    ck_assert_msg(fabs(got - want) <= 0.03 * want, "%s: %.6f s now, %.6f s in runtime.csv", key, got, want);
  }
  json_object_put(j);
}
END_TEST

int main(void) {
  Suite *s = suite_create("tables");
  TCase *tc = tcase_create("rows");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, hitrates_rows);
  tcase_add_test(tc, runtime_rows);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

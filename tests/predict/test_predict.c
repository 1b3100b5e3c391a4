/* test_predict.c — ppt/predict.h, the pipeline behind `ppt predict`, called from a
 * program that links libppt and nothing of apps/:
 *  - on the trace of a small OpenMP program (a parallel sweep and a serial tail), at 1
 *    and 2 cores on hwspecs/host.json, ppt_predict_run's runtime, region count and
 *    site count are the very numbers `ppt predict --json` prints; so are a second core
 *    model's runtimes (--models) and a fork-join cost given (--fork-cycles);
 *  - the fork-join rule: one thread pays the spec's serial figure, more threads the
 *    option's, else the spec's;
 *  - a spec without timing data is refused (PPT_EINPUT) with no result. */
#include <check.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "e2e.h"
#include "ppt/hwspec.h"
#include "ppt/predict.h"
#include "ppt_test.h"

static const char *k_prog =
    "#include <stdlib.h>\n"
    "__attribute__((noinline)) double sweep(double *a, int n) {\n"
    "  double s = 0;\n"
    "#pragma omp parallel for reduction(+ : s)\n"
    "  for (int i = 0; i < n; i++) s += a[i] * 0.5;\n"
    "  return s;\n"
    "}\n"
    "int main(void) {\n"
    "  int n = 1 << 16;\n"
    "  double *a = calloc((size_t)n, sizeof *a), s = 0;\n"
    "  for (int i = 0; i < n; i++) a[i] = i;\n"
    "  for (int r = 0; r < 3; r++) s += sweep(a, n);\n"
    "  free(a);\n"
    "  return s < 0;\n"
    "}\n";

static const char *dir;

static void setup(void) {
  dir = e2e_dir("predict");
  e2e_build_trace(dir, "prog", k_prog, "-fopenmp");
}

static void load_hw(const char *name, ppt_hwspec *hw) {
  char p[1024];
  ppt_err err;
  snprintf(p, sizeof p, "%s/hwspecs/%s", getenv("PPT_SOURCE_DIR"), name);
  ck_assert_msg(ppt_hwspec_load(p, hw, &err) == 0, "%s", err.msg);
}

static json_object *load_json(const char *file) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", dir, file);
  json_object *o = json_object_from_file(p);
  ck_assert_msg(o != NULL, "%s: not JSON", p);
  return o;
}

static json_object *get(json_object *o, const char *key) {
  json_object *v = NULL;
  ck_assert_msg(json_object_object_get_ex(o, key, &v), "no \"%s\"", key);
  return v;
}

/* ppt predict's JSON and the library's result on the same trace (stack references off in
 * both), spec and options. */
static void compare(const ppt_predict_result *res, json_object *o, size_t nmodels) {
  json_object *cores = get(o, "cores");
  ck_assert_uint_eq(json_object_array_length(cores), ppt_predict_result_npoints(res));
  for (size_t i = 0; i < ppt_predict_result_npoints(res); i++) {
    const ppt_predict_point *pt = ppt_predict_result_point(res, i);
    json_object *c = json_object_array_get_idx(cores, i);
    ck_assert_int_eq(json_object_get_int(get(c, "n")), (int)pt->n);
    /* json-c writes a double with 17 significant digits: it reads back the same double */
    ck_assert_msg(json_object_get_double(get(c, "runtime_s")) == pt->runtime_s,
                  "%u cores: %.17g s, CLI %.17g s", pt->n, pt->runtime_s,
                  json_object_get_double(get(c, "runtime_s")));
    ck_assert_int_eq(json_object_get_int64(get(c, "nregions")), (int64_t)pt->nregions);
    ck_assert_uint_eq(json_object_array_length(get(c, "regions")), pt->nsites);
    ck_assert(pt->runtime_s > 0 && pt->nregions > 0 && pt->nsites > 0);
    json_object *bd = get(c, "breakdown");
    ck_assert(json_object_get_double(get(bd, "compute_s")) == pt->compute_s);
    ck_assert(json_object_get_double(get(bd, "memory_s")) == pt->memory_s);
    for (size_t j = 0; j < nmodels; j++) {
      json_object *m =
          json_object_array_get_idx(get(json_object_array_get_idx(get(o, "models"), j), "cores"), i);
      ck_assert(json_object_get_double(get(m, "runtime_s")) == ppt_predict_result_model_seconds(res, i, j));
    }
  }
}

typedef struct progress_log {
  uint64_t last, calls;
  int backwards, ends_seen; /* ends_seen: calls at a whole core count */
} progress_log;

static void on_progress(uint64_t done, void *arg) {
  progress_log *l = arg;
  l->backwards |= done < l->last;
  l->ends_seen += done > 0 && done % PPT_PREDICT_PROGRESS_UNIT == 0;
  l->last = done;
  l->calls++;
}

START_TEST(same_as_cli) {
  ck_assert_int_eq(e2e_sh(dir,
                          "$PPT predict prog.trace --hw $PPT_SOURCE_DIR/hwspecs/host.json --cores 1,2"
                          " --no-stack-refs --models ports/miss/max --json > p.json"
                          " && $PPT predict prog.trace --hw $PPT_SOURCE_DIR/hwspecs/host.json --cores 2"
                          " --no-stack-refs --fork-cycles 5000 --json > f.json"),
                   0);
  ppt_trace *t = e2e_open(dir, "prog.trace");
  ppt_hwspec hw;
  load_hw("host.json", &hw);
  ppt_predict_opts o;
  ppt_predict_opts_default(&o);
  uint32_t cores[] = {1, 2};
  ppt_tc_policy other = o.policy;
  ck_assert_int_eq(ppt_tc_compute_parse("ports", &other.compute), 0);
  ck_assert_int_eq(ppt_tc_memory_parse("miss", &other.memory), 0);
  ck_assert_int_eq(ppt_tc_overlap_parse("max", &other), 0);
  o.cores = cores;
  o.ncores = 2;
  o.models = &other;
  o.nmodels = 1;
  ppt_predict_result *res = NULL;
  ppt_err err;
  ck_assert_msg(ppt_predict_run(t, &hw, &o, &res, &err) == 0, "%s", err.msg);
  json_object *p = load_json("p.json");
  compare(res, p, 1);
  /* one thread is not the two threads' speed, and the sites' runtimes add up */
  ck_assert(ppt_predict_result_point(res, 0)->runtime_s != ppt_predict_result_point(res, 1)->runtime_s);
  double sum = 0;
  for (size_t j = 0; ppt_predict_result_site(res, 1, j); j++)
    sum += ppt_predict_result_site(res, 1, j)->runtime_s;
  ck_assert_double_eq_tol(sum, ppt_predict_result_point(res, 1)->runtime_s, 1e-9 * sum);
  ck_assert_ptr_null(ppt_predict_result_point(res, 2));
  ck_assert(isnan(ppt_predict_result_model_seconds(res, 0, 1)));
  ppt_predict_result_free(res);
  json_object_put(p);

  /* progress: never backwards, a whole unit per core count at its end */
  ppt_predict_opts_default(&o);
  o.cores = cores;
  o.ncores = 2;
  progress_log log = {0};
  o.progress = on_progress;
  o.progress_arg = &log;
  ck_assert_msg(ppt_predict_run(t, &hw, &o, &res, &err) == 0, "%s", err.msg);
  ck_assert_int_eq(log.backwards, 0);
  ck_assert_uint_ge(log.calls, 2);
  ck_assert_uint_eq(log.last, 2 * PPT_PREDICT_PROGRESS_UNIT);
  ck_assert_int_eq(log.ends_seen, 2);
  ppt_predict_result_free(res);

  ppt_predict_opts_default(&o);
  o.cores = &cores[1];
  o.ncores = 1;
  o.fork_cycles = 5000;
  ck_assert_msg(ppt_predict_run(t, &hw, &o, &res, &err) == 0, "%s", err.msg);
  json_object *f = load_json("f.json");
  compare(res, f, 0);
  ck_assert(json_object_get_double(get(get(f, "settings"), "fork_cycles")) ==
            ppt_predict_result_fork_cycles(res));
  ck_assert(ppt_predict_result_point(res, 0)->fork_cycles == 5000);
  ppt_predict_result_free(res);
  json_object_put(f);
  ppt_trace_close(t);
}
END_TEST

/* The table of top regions: one per core count, --regions rows at most each, none with 0;
 * each row ends with its function's short name. */
START_TEST(regions_table_per_core_count) {
  const char *base = "$PPT predict prog.trace --hw $PPT_SOURCE_DIR/hwspecs/host.json --cores 1,2";
  ck_assert_int_eq(e2e_sh(dir, "%s --regions 1 > r1.txt && %s --regions 0 > r0.txt", base, base), 0);
  ck_assert_int_eq(e2e_sh(dir, "test $(grep -c '^top regions on' r1.txt) = 2 && grep -q '^top regions on 1 cores' r1.txt"
                               " && grep -q '^top regions on 2 cores' r1.txt && test $(grep -c '^ 1\\. ' r1.txt) = 2"
                               " && ! grep -q '^ 2\\. ' r1.txt && ! grep -q '^top regions' r0.txt"),
                   0);
  ck_assert_int_eq(e2e_sh(dir, "%s --regions x >/dev/null 2>err.txt", base), 2);
}
END_TEST

START_TEST(fork_rule_and_refusal) {
  ppt_hwspec hw;
  load_hw("host.json", &hw);
  ppt_predict_opts o;
  ppt_predict_opts_default(&o);
  ck_assert(ppt_predict_fork_cycles(&hw, &o, 1) == hw.fork_join_serial_cycles);
  ck_assert(ppt_predict_fork_cycles(&hw, &o, 4) == hw.fork_join_cycles);
  o.fork_cycles = 123;
  ck_assert(ppt_predict_fork_cycles(&hw, &o, 1) == hw.fork_join_serial_cycles);
  ck_assert(ppt_predict_fork_cycles(&hw, &o, 4) == 123);

  ppt_hwspec untimed;
  load_hw("sasmm-cachegrind.json", &untimed);
  ppt_trace *t = e2e_open(dir, "prog.trace");
  ppt_predict_result *res = (ppt_predict_result *)&o; /* must come back NULL */
  ppt_err err;
  ck_assert_int_eq(ppt_predict_run(t, &untimed, NULL, &res, &err), PPT_EINPUT);
  ck_assert_ptr_null(res);
  ppt_trace_close(t);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("predict");
  TCase *tc = tcase_create("predict");
  tcase_add_unchecked_fixture(tc, setup, NULL);
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, same_as_cli);
  tcase_add_test(tc, regions_table_per_core_count);
  tcase_add_test(tc, fork_rule_and_refusal);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return ppt_test_run(suite());
}

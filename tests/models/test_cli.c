/* tests/models/test_cli.c — the ppt-model-* programs: JSON shape, text table, -o,
 * exit codes and messages. */
#include <check.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/ppt-models-cli-XXXXXX";

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  size_t got = fread(s, 1, (size_t)n, f);
  s[got] = 0;
  fclose(f);
  return s;
}

/* Runs bin/ppt-model-MODEL ARGS (spec paths relative to the source tree); returns the
 * exit code, stdout and stderr (caller frees). */
static int run(const char *model, const char *args, char **out, char **err) {
  const char *bin = getenv("PPT_BINARY_DIR"), *src = getenv("PPT_SOURCE_DIR");
  char cmd[8192], o[512], e[512];
  snprintf(o, sizeof o, "%s/out", dir);
  snprintf(e, sizeof e, "%s/err", dir);
  snprintf(cmd, sizeof cmd, "cd '%s' && '%s/bin/ppt-model-%s' %s >'%s' 2>'%s'", src ? src : ".",
           bin ? bin : ".", model, args, o, e);
  int st = system(cmd);
  ck_assert(st != -1 && WIFEXITED(st));
  *out = slurp(o);
  *err = slurp(e);
  ck_assert(*out && *err);
  return WEXITSTATUS(st);
}

static json_object *field(json_object *o, const char *key) {
  json_object *v = NULL;
  ck_assert_msg(json_object_object_get_ex(o, key, &v), "no \"%s\"", key);
  return v;
}

#define XEON "--hw hwspecs/intel-xeon-e5-2650v3.json"

START_TEST(matmul_json) {
  char *out, *err;
  ck_assert_int_eq(run("matmul", XEON " --n 64 --cores 1,2 --json", &out, &err), 0);
  json_object *o = json_tokener_parse(out);
  ck_assert_ptr_nonnull(o);
  ck_assert_str_eq(json_object_get_string(field(o, "model")), "matmul");
  ck_assert_str_eq(json_object_get_string(field(o, "hwspec")), "intel-xeon-e5-2650v3");
  ck_assert_int_eq(json_object_get_int(field(field(o, "params"), "n")), 64);
  json_object *cores = field(o, "cores");
  ck_assert_uint_eq(json_object_array_length(cores), 2);
  json_object *c1 = json_object_array_get_idx(cores, 0), *c2 = json_object_array_get_idx(cores, 1);
  ck_assert_int_eq(json_object_get_int(field(c1, "n")), 1);
  ck_assert_int_eq(json_object_get_int(field(c2, "n")), 2);
  ck_assert_double_eq(json_object_get_double(field(c1, "speedup")), 1.0);
  double t1 = json_object_get_double(field(c1, "runtime_s")),
         t2 = json_object_get_double(field(c2, "runtime_s"));
  ck_assert(t1 > 0 && t2 > 0 && t2 < t1);
  ck_assert_double_eq_tol(json_object_get_double(field(c2, "speedup")), t1 / t2, 1e-12);
  json_object *lv = field(c1, "levels");
  ck_assert_uint_eq(json_object_array_length(lv), 3);
  const char *names[] = {"L1", "L2", "L3"};
  double prev = 0;
  for (size_t k = 0; k < 3; k++) {
    json_object *l = json_object_array_get_idx(lv, k);
    ck_assert_str_eq(json_object_get_string(field(l, "name")), names[k]);
    double h = json_object_get_double(field(l, "hit_rate"));
    ck_assert(h >= prev && h <= 1);
    prev = h;
  }
  ck_assert(json_object_get_double(field(c1, "compute_s")) > 0 &&
            json_object_get_double(field(c1, "memory_s")) > 0);
  json_object_put(o);
  free(out);
  free(err);
}
END_TEST

/* STREAM's kernel rates; one Xeon core streams more than half the socket's 68 GB/s in
 * this model, so two cores are less than twice as fast. */
START_TEST(stream_kernels) {
  char *out, *err;
  ck_assert_int_eq(run("stream", XEON " --n 2000000 --ntimes 3 --cores 1,2 --json", &out, &err), 0);
  json_object *o = json_tokener_parse(out);
  ck_assert_ptr_nonnull(o);
  json_object *cores = field(o, "cores");
  double triad[2];
  for (size_t i = 0; i < 2; i++) {
    json_object *ks = field(json_object_array_get_idx(cores, i), "kernels");
    ck_assert_uint_eq(json_object_array_length(ks), 4);
    const char *names[] = {"copy", "scale", "add", "triad"};
    for (size_t k = 0; k < 4; k++) {
      json_object *kk = json_object_array_get_idx(ks, k);
      ck_assert_str_eq(json_object_get_string(field(kk, "name")), names[k]);
      double gbs = json_object_get_double(field(kk, "gb_s")),
             bytes = json_object_get_double(field(kk, "bytes"));
      ck_assert_double_eq(bytes, (k < 2 ? 16.0 : 24.0) * 2000000);
      ck_assert(gbs > 0 && gbs <= 68.0);
      if (k == 3) triad[i] = gbs;
    }
  }
  ck_assert(triad[1] > triad[0] && triad[1] < 2 * triad[0]);
  json_object_put(o);
  free(out);
  free(err);
}
END_TEST

START_TEST(text_and_output_file) {
  char *out, *err;
  ck_assert_int_eq(run("blackscholes", XEON " --n 4096 --runs 3 --cores 1,4", &out, &err), 0);
  ck_assert_ptr_nonnull(strstr(out, "ppt-model-blackscholes n=4096 runs=3 on intel-xeon-e5-2650v3"));
  ck_assert_ptr_nonnull(strstr(out, "cores"));
  ck_assert_ptr_nonnull(strstr(out, "L3"));
  free(out);
  free(err);

  /* -o writes the same JSON as stdout. */
  char path[600], args[1024];
  snprintf(path, sizeof path, "%s/2mm.json", dir);
  snprintf(args, sizeof args, XEON " --ni 50 --nj 60 --nk 70 --nl 80 --cores 2 --json -o '%s'", path);
  ck_assert_int_eq(run("2mm", args, &out, &err), 0);
  ck_assert_str_eq(out, "");
  char *file = slurp(path);
  free(out);
  free(err);
  ck_assert_int_eq(run("2mm", XEON " --ni 50 --nj 60 --nk 70 --nl 80 --cores 2 --json", &out, &err), 0);
  ck_assert_ptr_nonnull(file);
  ck_assert_str_eq(file, out);
  json_object *o = json_tokener_parse(file);
  ck_assert_int_eq(json_object_get_int(field(field(o, "params"), "nl")), 80);
  json_object_put(o);
  free(file);
  free(out);
  free(err);
}
END_TEST

START_TEST(errors) {
  const struct {
    const char *model, *args, *msg;
    int rc;
  } cases[] = {
      {"matmul", "--hw /nonexistent/spec.json", "ppt-model-matmul: /nonexistent/spec.json: ", 2},
      {"matmul", "--hw hwspecs/sasmm-cachegrind.json", "no timing data", 2},
      {"matmul", XEON " --n 0", "ppt-model-matmul: --n wants an integer", 2},
      {"matmul", XEON " --n 12x", "--n wants an integer", 2},
      {"stream", XEON " --ntimes 1", "ppt-model-stream: --ntimes", 2},
      {"stream", XEON " --vector 96", "not a power of two", 2},
      {"2mm", XEON " --cores 0", "ppt-model-2mm: --cores", 2},
      {"blackscholes", XEON " --overlap most", "ppt-model-blackscholes: --overlap", 2},
      {"blackscholes", "--n 10", "--hw SPEC is required", 2},
      {"matmul", XEON " --frobnicate", "unknown option", 2},
      {"matmul", XEON " extra", "unexpected argument", 2},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char *out, *err;
    int rc = run(cases[i].model, cases[i].args, &out, &err);
    ck_assert_msg(rc == cases[i].rc, "%s %s: exit %d", cases[i].model, cases[i].args, rc);
    ck_assert_msg(strstr(err, cases[i].msg), "%s %s: stderr '%s'", cases[i].model, cases[i].args, err);
    ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "one line: '%s'", err);
    ck_assert_str_eq(out, "");
    free(out);
    free(err);
  }
  char *out, *err;
  ck_assert_int_eq(run("stream", "--help", &out, &err), 0);
  ck_assert_ptr_nonnull(strstr(out, "usage: ppt-model-stream --hw SPEC"));
  ck_assert_ptr_nonnull(strstr(out, "--ntimes"));
  free(out);
  free(err);
}
END_TEST

int main(void) {
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return EXIT_FAILURE;
  }
  Suite *s = suite_create("models_cli");
  TCase *tc = tcase_create("cli");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, matmul_json);
  tcase_add_test(tc, stream_kernels);
  tcase_add_test(tc, text_and_output_file);
  tcase_add_test(tc, errors);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

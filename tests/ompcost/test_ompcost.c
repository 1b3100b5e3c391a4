/* test_ompcost.c — ppt-ompcost (apps/ompcost), the OpenMP region probe, and the side of
 * `ppt calibrate` that runs it (models/calib/parallel/calib_ompcost.c).
 *
 * Oracles: the probe's output read here with json-c directly (not through the runner);
 * the CPUs this process may run on (sched_getaffinity), which libomp's default thread
 * count follows; fake probes, small shell scripts in a fresh folder that print known
 * JSON (or garbage, or fail), so the runner is tested against real subprocesses with
 * answers known in advance, also through a whole quick calibration, whose spec must hold
 * the fake figures and cite how they were timed. */
#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "calib/calib_impl.h"
#include "ppt/calib.h"
#include "ppt_test.h"

#ifndef PPT_OMPCOST_EXE
#error "PPT_OMPCOST_EXE must name the built probe (tests/ompcost/CMakeLists.txt)"
#endif

/* Short trials: the tests check the plumbing and plausibility, not the figure. */
static const calib_timing k_fast = {0.0005, 3, 0};

/* ---- helpers ---- */

/* Runs a shell command, returns its stdout (malloc'd) and exit status. */
static char *run_capture(const char *cmd, int *status) {
  FILE *p = popen(cmd, "r");
  ck_assert_msg(p != NULL, "popen %s: %s", cmd, strerror(errno));
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  ck_assert_ptr_nonnull(buf);
  size_t n;
  while ((n = fread(buf + len, 1, cap - 1 - len, p)) > 0) {
    len += n;
    if (len + 1 == cap) {
      cap *= 2;
      buf = realloc(buf, cap);
      ck_assert_ptr_nonnull(buf);
    }
  }
  buf[len] = '\0';
  int st = pclose(p);
  ck_assert_msg(WIFEXITED(st), "%s did not exit normally", cmd);
  *status = WEXITSTATUS(st);
  return buf;
}

static double get_num(json_object *o, const char *key) {
  json_object *v;
  ck_assert_msg(json_object_object_get_ex(o, key, &v), "probe output lacks \"%s\"", key);
  ck_assert_msg(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int),
                "\"%s\" is not a number", key);
  return json_object_get_double(v);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb, (void)flag, (void)ftw;
  return remove(path);
}

/* A fresh folder for fake probes; removed with rm_dir. */
static char *make_dir(void) {
  const char *tmp = getenv("TMPDIR");
  char *d = malloc(PATH_MAX);
  ck_assert_ptr_nonnull(d);
  snprintf(d, PATH_MAX, "%s/ppt-ompcost-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  ck_assert_msg(mkdtemp(d) != NULL, "mkdtemp: %s", strerror(errno));
  return d;
}

static void rm_dir(char *d) {
  nftw(d, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
  free(d);
}

/* DIR/NAME: an executable /bin/sh script with `body`; returns its path (malloc'd). */
static char *fake_probe(const char *dir, const char *name, const char *body) {
  char *path = malloc(PATH_MAX);
  ck_assert_ptr_nonnull(path);
  snprintf(path, PATH_MAX, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
  fprintf(f, "#!/bin/sh\n%s\n", body);
  ck_assert_int_eq(fclose(f), 0);
  ck_assert_int_eq(chmod(path, 0755), 0);
  return path;
}

/* ---- the probe itself ---- */

START_TEST(probe_prints_plausible_json) {
  int st;
  char *out = run_capture("'" PPT_OMPCOST_EXE "' --threads 2 --trials 3 --min-s 0.0005", &st);
  ck_assert_int_eq(st, 0);
  json_object *o = json_tokener_parse(out);
  ck_assert_msg(o && json_object_is_type(o, json_type_object), "not a JSON object: %s", out);
  ck_assert_double_eq(get_num(o, "threads"), 2);
  ck_assert_double_eq(get_num(o, "trials"), 3);
  ck_assert_double_eq_tol(get_num(o, "min_s"), 0.0005, 1e-12);
  double fj = get_num(o, "fork_join_s"), serial = get_num(o, "fork_join_serial_s");
  /* A region costs at least a few instructions and, on any machine ppt targets, far
   * less than a millisecond on one thread. */
  ck_assert_msg(fj > 0 && isfinite(fj) && fj < 0.01, "fork_join_s %g", fj);
  ck_assert_msg(serial > 1e-9 && isfinite(serial) && serial < 1e-3, "fork_join_serial_s %g", serial);
  /* The runner reads the same text to the same figures. */
  calib_ompcost r;
  ppt_err err;
  ck_assert_msg(calib_ompcost_parse(out, "probe", &r, &err) == 0, "%s", err.msg);
  ck_assert_int_eq(r.threads, 2);
  ck_assert_double_eq(r.fork_join_s, fj);
  ck_assert_double_eq(r.fork_join_serial_s, serial);
  json_object_put(o);
  free(out);
}
END_TEST

START_TEST(probe_defaults_to_the_cpus_it_may_use) {
  cpu_set_t set;
  ck_assert_int_eq(sched_getaffinity(0, sizeof set, &set), 0);
  int st;
  char *out = run_capture("'" PPT_OMPCOST_EXE "' --trials 2 --min-s 0.0002", &st);
  ck_assert_int_eq(st, 0);
  json_object *o = json_tokener_parse(out);
  ck_assert_ptr_nonnull(o);
  ck_assert_double_eq(get_num(o, "threads"), CPU_COUNT(&set));
  json_object_put(o);
  free(out);
}
END_TEST

/* Bad usage: exit 2, nothing on stdout, one line on stderr naming the program. */
static const char *const k_bad_args[] = {
    "--threads 0", "--threads -1", "--threads x", "--threads 2x", "--threads",
    "--trials 0",  "--min-s 0",    "--min-s nan", "--bogus",      "extra",
};

START_TEST(probe_rejects_bad_usage) {
  char cmd[512];
  int st;
  snprintf(cmd, sizeof cmd, "'%s' %s 2>/dev/null", PPT_OMPCOST_EXE, k_bad_args[_i]);
  char *out = run_capture(cmd, &st);
  ck_assert_msg(st == 2, "%s: exit %d, want 2", k_bad_args[_i], st);
  ck_assert_str_eq(out, "");
  free(out);
  snprintf(cmd, sizeof cmd, "'%s' %s 2>&1 >/dev/null", PPT_OMPCOST_EXE, k_bad_args[_i]);
  char *msg = run_capture(cmd, &st);
  ck_assert_int_eq(st, 2);
  ck_assert_msg(!strncmp(msg, "ppt-ompcost: ", 13), "%s: stderr '%s'", k_bad_args[_i], msg);
  char *nl = strchr(msg, '\n');
  ck_assert_msg(nl && nl[1] == '\0', "%s: want one line on stderr, got '%s'", k_bad_args[_i], msg);
  free(msg);
}
END_TEST

START_TEST(probe_help) {
  int st;
  char *out = run_capture("'" PPT_OMPCOST_EXE "' --help", &st);
  ck_assert_int_eq(st, 0);
  ck_assert_msg(!strncmp(out, "usage: ppt-ompcost", 18), "%s", out);
  free(out);
}
END_TEST

/* ---- the runner, with the real probe ---- */

START_TEST(runner_runs_the_real_probe) {
  calib_ompcost r;
  ppt_err err;
  ck_assert_msg(calib_ompcost_run(PPT_OMPCOST_EXE, 1, &k_fast, 60, &r, &err) == 0, "%s", err.msg);
  ck_assert_int_eq(r.threads, 1);
  ck_assert(r.fork_join_s > 0 && r.fork_join_s < 1e-3);
  ck_assert(r.fork_join_serial_s > 0 && r.fork_join_serial_s < 1e-3);
}
END_TEST

/* calibrate finds the probe next to its own executable; this test program is built
 * into the same bin/ folder as the probe. */
START_TEST(path_next_to_executable_and_env_override) {
  unsetenv("PPT_OMPCOST");
  char path[PATH_MAX], want[PATH_MAX], got[PATH_MAX];
  ppt_err err;
  ck_assert_msg(calib_ompcost_path(path, sizeof path, &err) == 0, "%s", err.msg);
  ck_assert_ptr_nonnull(realpath(PPT_OMPCOST_EXE, want));
  ck_assert_ptr_nonnull(realpath(path, got));
  ck_assert_str_eq(got, want);

  char *dir = make_dir();
  char *fake = fake_probe(dir, "other-probe", "exit 0");
  setenv("PPT_OMPCOST", fake, 1);
  ck_assert_msg(calib_ompcost_path(path, sizeof path, &err) == 0, "%s", err.msg);
  ck_assert_str_eq(path, fake);
  /* A missing override is an error naming the file and where it came from, not a
   * silent fall back to the default. */
  char missing[PATH_MAX];
  snprintf(missing, sizeof missing, "%s/no-such-probe", dir);
  setenv("PPT_OMPCOST", missing, 1);
  ck_assert_int_ne(calib_ompcost_path(path, sizeof path, &err), 0);
  ck_assert_msg(
      strstr(err.msg, missing) && strstr(err.msg, "PPT_OMPCOST") && strstr(err.msg, strerror(ENOENT)), "%s",
      err.msg);
  unsetenv("PPT_OMPCOST");
  free(fake);
  rm_dir(dir);
}
END_TEST

/* ---- the runner, with fake probes ---- */

START_TEST(runner_parses_fake_probe_and_passes_args_and_env) {
  char *dir = make_dir();
  char body[2 * PATH_MAX];
  /* Records its arguments and one variable of its environment, then answers. */
  snprintf(body, sizeof body,
           "printf '%%s\\n' \"$*\" > '%s/args'\n"
           "printf '%%s\\n' \"$PPT_OMPCOST_TEST_MARK\" > '%s/env'\n"
           "echo '{\"threads\": 3, \"fork_join_s\": 2.5e-06, \"fork_join_serial_s\": 6e-07, \"extra\": [1]}'",
           dir, dir);
  char *probe = fake_probe(dir, "probe", body);
  setenv("PPT_OMPCOST_TEST_MARK", "inherited-42", 1);
  calib_timing t = {0.0005, 7, 0};
  calib_ompcost r;
  ppt_err err;
  ck_assert_msg(calib_ompcost_run(probe, 3, &t, 30, &r, &err) == 0, "%s", err.msg);
  ck_assert_int_eq(r.threads, 3);
  ck_assert_double_eq(r.fork_join_s, 2.5e-6);
  ck_assert_double_eq(r.fork_join_serial_s, 6e-7);

  char path[PATH_MAX + 8], line[512];
  snprintf(path, sizeof path, "%s/args", dir);
  FILE *f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
  fclose(f);
  double min_s = 0;
  int trials = 0, threads = 0, used = 0;
  ck_assert_msg(sscanf(line, "--trials %d --min-s %lf --threads %d%n", &trials, &min_s, &threads, &used) == 3,
                "args '%s'", line);
  ck_assert_int_eq(trials, 7);
  ck_assert_double_eq(min_s, 0.0005);
  ck_assert_int_eq(threads, 3);
  ck_assert_str_eq(line + used, "\n");
  snprintf(path, sizeof path, "%s/env", dir);
  f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
  fclose(f);
  ck_assert_str_eq(line, "inherited-42\n");

  /* threads 0: the probe's own default, so no --threads at all. */
  ck_assert_msg(calib_ompcost_run(probe, 0, &t, 30, &r, &err) == 0, "%s", err.msg);
  snprintf(path, sizeof path, "%s/args", dir);
  f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
  fclose(f);
  ck_assert_msg(!strstr(line, "--threads"), "args '%s'", line);
  free(probe);
  rm_dir(dir);
}
END_TEST

START_TEST(runner_reports_missing_probe) {
  char *dir = make_dir();
  char missing[PATH_MAX];
  snprintf(missing, sizeof missing, "%s/no-such-probe", dir);
  calib_ompcost r = {0};
  ppt_err err;
  ck_assert_int_ne(calib_ompcost_run(missing, 0, &k_fast, 30, &r, &err), 0);
  ck_assert_msg(
      strstr(err.msg, missing) && strstr(err.msg, "cannot start") && strstr(err.msg, strerror(ENOENT)), "%s",
      err.msg);
  ck_assert_int_eq(r.threads, 0); /* untouched */
  rm_dir(dir);
}
END_TEST

/* Output a probe must not be believed, and the words the message must contain. */
static const struct {
  const char *body, *want;
} k_bad_output[] = {
    {"echo 'fork_join_s = 1e-6'", "not JSON"},
    {"printf '{\"threads\": 2, \"fork_join_s\": 1e-6'", "not JSON (incomplete)"},
    {"true", "printed nothing"},
    {"echo '[1e-6, 5e-7]'", "not a JSON object"},
    {"echo '{\"threads\": 2, \"fork_join_s\": 1e-6}'", "\"fork_join_serial_s\""},
    {"echo '{\"threads\": 2, \"fork_join_s\": -1e-6, \"fork_join_serial_s\": 5e-7}'", "\"fork_join_s\""},
    {"echo '{\"threads\": 2, \"fork_join_s\": \"1e-6\", \"fork_join_serial_s\": 5e-7}'", "\"fork_join_s\""},
    {"echo '{\"threads\": 0, \"fork_join_s\": 1e-6, \"fork_join_serial_s\": 5e-7}'", "\"threads\""},
    {"echo '{\"threads\": 1.5, \"fork_join_s\": 1e-6, \"fork_join_serial_s\": 5e-7}'", "\"threads\""},
    {"echo '{\"threads\": 2, \"fork_join_s\": 1e-6, \"fork_join_serial_s\": 5e-7} {}'", "more than one"},
    {"echo 'ppt-ompcost: no OpenMP here' >&2; exit 3", "exit status 3: ppt-ompcost: no OpenMP here"},
    {"kill -9 $$", "killed by signal 9"},
};

START_TEST(runner_rejects_bad_output) {
  char *dir = make_dir();
  char *probe = fake_probe(dir, "probe", k_bad_output[_i].body);
  calib_ompcost r = {0};
  ppt_err err;
  ck_assert_msg(calib_ompcost_run(probe, 0, &k_fast, 30, &r, &err) != 0, "accepted output of: %s",
                k_bad_output[_i].body);
  ck_assert_msg(strstr(err.msg, probe) && strstr(err.msg, k_bad_output[_i].want),
                "%s: message '%s' lacks '%s'", k_bad_output[_i].body, err.msg, k_bad_output[_i].want);
  ck_assert_msg(!strchr(err.msg, '\n'), "message is not one line: '%s'", err.msg);
  ck_assert_int_eq(r.threads, 0);
  free(probe);
  rm_dir(dir);
}
END_TEST

START_TEST(runner_kills_a_hung_probe) {
  char *dir = make_dir();
  char *probe = fake_probe(dir, "probe", "exec sleep 30");
  calib_ompcost r;
  ppt_err err;
  double t0 = calib_now();
  ck_assert_int_ne(calib_ompcost_run(probe, 0, &k_fast, 0.3, &r, &err), 0);
  double dt = calib_now() - t0;
  ck_assert_msg(strstr(err.msg, "no result within"), "%s", err.msg);
  ck_assert_msg(dt >= 0.3 && dt < 10, "took %g s", dt);
  free(probe);
  rm_dir(dir);
}
END_TEST

/* ---- calibrate itself ---- */

static const char *citation(const ppt_hwspec *hw, const char *key) {
  for (uint32_t i = 0; i < hw->nsources; i++)
    if (!strcmp(hw->sources[i].key, key)) return hw->sources[i].text;
  return NULL;
}

/* A quick calibration with the probe at `probe`; the two fork-join citations must say
 * how the figures were timed. */
static void calibrate_with(const char *probe, ppt_calib_result *r) {
  setenv("PPT_OMPCOST", probe, 1);
  ppt_calib_config cfg;
  ppt_calib_config_default(&cfg);
  cfg.quick = 1;
  ppt_err err;
  ck_assert_msg(ppt_calib_run(&cfg, "t", "2000-01-01", r, &err) == 0, "%s", err.msg);
  unsetenv("PPT_OMPCOST");
  ck_assert(r->fork_join_ns > 0 && r->fork_join_serial_ns > 0 && r->fork_join_threads >= 1);
  ck_assert(r->hw.fork_join_cycles > 0 && r->hw.fork_join_serial_cycles > 0);
}

START_TEST(calibrate_uses_the_probe_and_falls_back) {
  ppt_calib_result *r = calloc(1, sizeof *r);
  ck_assert_ptr_nonnull(r);
  /* A fake probe with figures no real region gives: they must be what the spec holds. */
  char *dir = make_dir();
  char *probe = fake_probe(
      dir, "probe", "echo '{\"threads\": 5, \"fork_join_s\": 1.25e-05, \"fork_join_serial_s\": 7.5e-06}'");
  calibrate_with(probe, r);
  ck_assert_int_eq(r->fork_join_probe, 1);
  ck_assert_str_eq(r->fork_join_note, "");
  ck_assert_int_eq(r->fork_join_threads, 5);
  ck_assert_double_eq_tol(r->fork_join_ns, 12500, 1e-6);
  ck_assert_double_eq_tol(r->fork_join_serial_ns, 7500, 1e-6);
  /* cycles = ns x GHz, to the three digits the spec keeps; the spec's clock is rounded to
   * three digits too, and each rounding moves a value by up to 0.5 % */
  double ghz = r->hw.clock_hz * 1e-9;
  ck_assert_double_eq_tol(r->hw.fork_join_serial_cycles, 7500 * ghz, 0.01 * 7500 * ghz);
  const char *c = citation(&r->hw, "fork_join_cycles"), *cs = citation(&r->hw, "fork_join_serial_cycles");
  ck_assert_msg(
      c && strstr(c, "timed by ppt-ompcost (no SimGrid in the process)") && strstr(c, "on 5 threads"), "%s",
      c ? c : "(none)");
  ck_assert_msg(cs && strstr(cs, "timed by ppt-ompcost") && strstr(cs, "7.5e+03 ns"), "%s",
                cs ? cs : "(none)");
  ck_assert_msg(!strstr(r->hw.notes, "ppt-ompcost"), "%s", r->hw.notes);

  /* No probe: timed in this process, and the spec says so and why. */
  char missing[PATH_MAX];
  snprintf(missing, sizeof missing, "%s/no-such-probe", dir);
  memset(r, 0, sizeof *r);
  calibrate_with(missing, r);
  ck_assert_int_eq(r->fork_join_probe, 0);
  ck_assert_msg(strstr(r->fork_join_note, missing), "%s", r->fork_join_note);
  c = citation(&r->hw, "fork_join_cycles");
  cs = citation(&r->hw, "fork_join_serial_cycles");
  ck_assert_msg(c && strstr(c, "timed in the ppt process, which links SimGrid"), "%s", c ? c : "(none)");
  ck_assert_msg(cs && strstr(cs, "timed in the ppt process"), "%s", cs ? cs : "(none)");
  ck_assert_msg(strstr(r->hw.notes, "ppt-ompcost probe failed") && strstr(r->hw.notes, "no-such-probe"), "%s",
                r->hw.notes);
  free(probe);
  rm_dir(dir);
  free(r);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("ompcost");
  TCase *tc = tcase_create("probe");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, probe_prints_plausible_json);
  tcase_add_test(tc, probe_defaults_to_the_cpus_it_may_use);
  tcase_add_loop_test(tc, probe_rejects_bad_usage, 0, (int)(sizeof k_bad_args / sizeof *k_bad_args));
  tcase_add_test(tc, probe_help);
  suite_add_tcase(s, tc);
  tc = tcase_create("runner");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, runner_runs_the_real_probe);
  tcase_add_test(tc, path_next_to_executable_and_env_override);
  tcase_add_test(tc, runner_parses_fake_probe_and_passes_args_and_env);
  tcase_add_test(tc, runner_reports_missing_probe);
  tcase_add_loop_test(tc, runner_rejects_bad_output, 0, (int)(sizeof k_bad_output / sizeof *k_bad_output));
  tcase_add_test(tc, runner_kills_a_hung_probe);
  suite_add_tcase(s, tc);
  tc = tcase_create("calibrate");
  /* Two quick calibrations: ~10 s each on a Zen 3 guest, 35-70 s on an Intel Xeon guest
   * with a 480 MiB L3 by CPUID (swept to its end). */
  tcase_set_timeout(tc, 400);
  tcase_add_test(tc, calibrate_uses_the_probe_and_falls_back);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return ppt_test_run(suite());
}

/* test_hist.c — histogram arithmetic and the text / JSON formats (round trips, errors). */
#include <check.h>

#include "ppt_test.h"
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ppt/reuse.h"

/* Dense (< 4096) and sparse (>= 4096) bins, first touches and a fractional count. */
static ppt_rdhist *sample_hist(int fractional) {
  ppt_rdhist *h = ppt_rdhist_new(64);
  ck_assert_int_eq(ppt_rdhist_add(h, 0, 10), 0);
  ck_assert_int_eq(ppt_rdhist_add(h, 3, 2), 0);
  ck_assert_int_eq(ppt_rdhist_add(h, 4095, 1), 0);
  ck_assert_int_eq(ppt_rdhist_add(h, 4096, 4), 0);
  ck_assert_int_eq(ppt_rdhist_add(h, 1000000007, 3), 0);
  ck_assert_int_eq(ppt_rdhist_add(h, PPT_RD_INF, 5), 0);
  if (fractional) ck_assert_int_eq(ppt_rdhist_add(h, 77, 0.1), 0);
  return h;
}

START_TEST(arithmetic) {
  ppt_rdhist *h = sample_hist(0);
  ck_assert_int_eq(ppt_rdhist_add(h, -2, 1), -1);
  ck_assert_double_eq(ppt_rdhist_total(h), 25);
  ck_assert_double_eq(ppt_rdhist_infinite(h), 5);
  ck_assert_double_eq(ppt_rdhist_count(h, 4096), 4);
  ck_assert_double_eq(ppt_rdhist_count(h, 5000), 0);
  ck_assert_double_eq(ppt_rdhist_count(h, PPT_RD_INF), 5);
  ck_assert_double_eq(ppt_rdhist_prob(h, 0), 0.4);
  ck_assert_int_eq(ppt_rdhist_max(h), 1000000007);
  ck_assert_uint_eq(ppt_rdhist_nbins(h), 5);
  ck_assert_double_eq(ppt_rdhist_below(h, 4), 12);
  ck_assert_double_eq(ppt_rdhist_below(h, 4097), 17);
  ck_assert_double_eq(ppt_rdhist_below(h, UINT64_MAX), 20);
  double mean = (0 * 10 + 3 * 2 + 4095 + 4096 * 4 + 1000000007.0 * 3) / 20;
  ck_assert_double_eq_tol(ppt_rdhist_mean(h), mean, 1e-6);
  ppt_rdhist *c = ppt_rdhist_clone(h);
  ck_assert(ppt_rdhist_equal(c, h));
  ck_assert_int_eq(ppt_rdhist_merge(c, h, 2), 0);
  ck_assert_double_eq(ppt_rdhist_count(c, 1000000007), 9);
  ck_assert_double_eq(ppt_rdhist_total(c), 75);
  ck_assert(!ppt_rdhist_equal(c, h));
  ppt_rdhist *e = ppt_rdhist_new(0);
  ck_assert_uint_eq(ppt_rdhist_line(e), 64);
  ck_assert_double_eq(ppt_rdhist_prob(e, 0), 0);
  ck_assert_int_eq(ppt_rdhist_max(e), -1);
  ppt_rdhist_free(e);
  ppt_rdhist_free(c);
  ppt_rdhist_free(h);
}
END_TEST

typedef struct seen {
  int64_t last;
  int n;
} seen;
static int visit(int64_t d, double c, void *arg) {
  seen *s = arg;
  ck_assert_int_gt(d, s->last);
  ck_assert_double_gt(c, 0);
  s->last = d;
  return ++s->n == 4 ? 42 : 0;
}

START_TEST(foreach_order) {
  ppt_rdhist *h = sample_hist(0);
  seen s = {-1, 0};
  ck_assert_int_eq(ppt_rdhist_foreach(h, visit, &s), 42); /* stopped at the 4th bin */
  ck_assert_int_eq(s.last, 4096);
  ppt_rdhist_free(h);
}
END_TEST

START_TEST(text_round_trip) {
  for (int frac = 0; frac < 2; frac++) {
    ppt_rdhist *h = sample_hist(frac), *back;
    FILE *f = tmpfile();
    ppt_err err;
    ck_assert_int_eq(ppt_rdhist_write_text(h, f, &err), 0);
    rewind(f);
    char line[128];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    if (!frac) ck_assert_str_eq(line, "0 10 0.40000000000000002\n"); /* sd count p(sd) */
    rewind(f);
    ck_assert_int_eq(ppt_rdhist_read_text(f, "h.txt", 64, &back, &err), 0);
    ck_assert(ppt_rdhist_equal(h, back));
    fclose(f);
    ppt_rdhist_free(back);
    ppt_rdhist_free(h);
  }
  /* the last line is the first-touch bin, written -1 */
  ppt_rdhist *h = sample_hist(0);
  char *buf;
  size_t len;
  FILE *m = open_memstream(&buf, &len);
  ppt_rdhist_write_text(h, m, NULL);
  fclose(m);
  ck_assert_ptr_nonnull(strstr(buf, "\n-1 5 0.2000000"));
  free(buf);
  ppt_rdhist_free(h);
}
END_TEST

START_TEST(text_errors) {
  const char *bad[] = {"0 10 0.5\nx 1\n", "-3 1\n", "4 -1\n", "5 1 0.1 junk\n"};
  for (int i = 0; i < 4; i++) {
    FILE *f = fmemopen((void *)bad[i], strlen(bad[i]), "r");
    ppt_rdhist *h = NULL;
    ppt_err err;
    ck_assert_int_eq(ppt_rdhist_read_text(f, "p.rd", 64, &h, &err), PPT_EINPUT);
    ck_assert_ptr_null(h);
    ck_assert_msg(strncmp(err.msg, "p.rd:", 5) == 0, "%s", err.msg);
    fclose(f);
  }
  const char *ok = "# PPT reuse profile\n\n0 3\n2 1 0.25\n";
  FILE *f = fmemopen((void *)ok, strlen(ok), "r");
  ppt_rdhist *h;
  ck_assert_int_eq(ppt_rdhist_read_text(f, "ok.rd", 32, &h, NULL), 0);
  ck_assert_double_eq(ppt_rdhist_total(h), 4);
  ck_assert_uint_eq(ppt_rdhist_line(h), 32);
  fclose(f);
  ppt_rdhist_free(h);
}
END_TEST

START_TEST(json_round_trip) {
  for (int frac = 0; frac < 2; frac++) {
    ppt_rdhist *h = sample_hist(frac), *back;
    json_object *j;
    ppt_err err;
    ck_assert_int_eq(ppt_rdhist_to_json(h, &j, &err), 0);
    json_object *v;
    ck_assert(json_object_object_get_ex(j, "infinite", &v) && json_object_get_int(v) == 5);
    ck_assert(json_object_object_get_ex(j, "histogram", &v) && json_object_array_length(v) == 5u + frac);
    /* through text, as a file would be */
    json_object *p = json_tokener_parse(json_object_to_json_string(j));
    ck_assert_int_eq(ppt_rdhist_from_json(p, "h.json", &back, &err), 0);
    ck_assert(ppt_rdhist_equal(h, back));
    json_object_put(p);
    json_object_put(j);
    ppt_rdhist_free(back);
    ppt_rdhist_free(h);
  }
  const char *bad[] = {"[]", "{\"line\":64,\"refs\":1,\"infinite\":0}",
                       "{\"line\":64,\"refs\":2,\"infinite\":0,\"histogram\":[[0,1]]}",
                       "{\"line\":64,\"refs\":1,\"infinite\":0,\"histogram\":[[-1,1]]}",
                       "{\"line\":0,\"refs\":0,\"infinite\":0,\"histogram\":[]}"};
  for (int i = 0; i < 5; i++) {
    json_object *p = json_tokener_parse(bad[i]);
    ppt_rdhist *h = NULL;
    ppt_err err;
    ck_assert_int_eq(ppt_rdhist_from_json(p, "b.json", &h, &err), PPT_EINPUT);
    ck_assert_ptr_null(h);
    json_object_put(p);
  }
}
END_TEST

START_TEST(save_atomic) {
  char dir[] = "/tmp/ppt-rdhist-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[256];
  snprintf(path, sizeof path, "%s/h.json", dir);
  ppt_rdhist *h = sample_hist(1), *back;
  ppt_err err;
  ck_assert_int_eq(ppt_rdhist_save(h, path, 1, &err), 0);
  json_object *j = json_object_from_file(path);
  ck_assert_int_eq(ppt_rdhist_from_json(j, path, &back, &err), 0);
  ck_assert(ppt_rdhist_equal(h, back));
  json_object_put(j);
  ppt_rdhist_free(back);
  snprintf(path, sizeof path, "%s/h.rd", dir);
  ck_assert_int_eq(ppt_rdhist_save(h, path, 0, &err), 0);
  FILE *f = fopen(path, "r");
  ck_assert_int_eq(ppt_rdhist_read_text(f, path, 64, &back, &err), 0);
  fclose(f);
  ck_assert(ppt_rdhist_equal(h, back));
  ppt_rdhist_free(back);
  unlink(path);
  snprintf(path, sizeof path, "%s/h.json", dir);
  unlink(path);
  rmdir(dir);
  snprintf(path, sizeof path, "%s/missing/h.rd", dir);
  ck_assert_int_eq(ppt_rdhist_save(h, path, 0, &err), PPT_ERUN);
  ppt_rdhist_free(h);
}
END_TEST

int main(void) {
  Suite *s = suite_create("reuse_hist");
  TCase *tc = tcase_create("hist");
  tcase_add_test(tc, arithmetic);
  tcase_add_test(tc, foreach_order);
  tcase_add_test(tc, text_round_trip);
  tcase_add_test(tc, text_errors);
  tcase_add_test(tc, json_round_trip);
  tcase_add_test(tc, save_atomic);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

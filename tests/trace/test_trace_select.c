/* test_trace_select.c — --only's block selectors (ppt_trace_select) on a trace whose block
 * table has several files, functions (two `.omp_outlined.` bodies in different files),
 * lines and blocks of code inlined into main from two levels of functions: each
 * selector's block set against a brute-force reading of its definition in ppt/trace.h;
 * a list is a union that names its selectors matching nothing, and a selection that
 * matches nothing at all is bad input naming it. */
#include <check.h>

#include "ppt_test.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ppt/trace.h"
#include "trace/bbtab.h"
#include "trace/writer.h"

#define NBBS 12u

/* id: function, file, line */
static const struct {
  const char *func, *file;
  uint32_t line;
} k_bbs[NBBS] = {
    {"main", "/src/app/main.c", 10},          {"kernel_a", "/src/app/a.c", 20},
    {".omp_outlined.", "/src/app/a.c", 22},   {".omp_outlined.", "/src/app/b.c", 30},
    {".omp_outlined..1", "/src/app/b.c", 35}, {"kernel_b", "/src/app/b.c", 40},
    {"helper", "/src/lib/a.c", 5},            {"kernel_ab", "", 0},
    {"main", "/src/app/k.h", 3},              {"main", "/src/app/k.h", 7},
    {"void run<double>(double*, int)", "/src/app/r.cc", 50},
    {"ns::run(float*)", "/src/app/r.cc", 60},
};

/* Blocks 9 and 10 are main's, from code inlined there: 9 from kernel_inl (in k.h, called
 * at main.c:12), 10 from inner (in k.h, called by kernel_inl at k.h:4), itself inlined
 * at main.c:13. */
static const ppt_trace_inl k_inl9[1] = {{"kernel_inl", "/src/app/main.c", 12}};
static const ppt_trace_inl k_inl10[2] = {{"inner", "/src/app/k.h", 4}, {"kernel_inl", "/src/app/main.c", 13}};

static char path[256];

static void setup(void) {
  snprintf(path, sizeof path, "/tmp/ppt_test_select_%ld.trace", (long)getpid());
  ppt_trace_writer *w = ppt_trace_writer_open(path, 1);
  ck_assert_ptr_nonnull(w);
  ppt_trace_enc *e = ppt_trace_enc_new(w);
  for (uint32_t b = 1; b <= NBBS; b++) {
    ppt_trace_enc_bb(e, b);
    ppt_trace_enc_mem(e, PPT_REC_LOAD, 3, 0, 0x1000u * b);
  }
  ck_assert_int_eq(ppt_trace_enc_flush(e), 0);
  ppt_trace_enc_free(e);
  ppt_trace_bb bbs[NBBS];
  memset(bbs, 0, sizeof bbs);
  for (uint32_t i = 0; i < NBBS; i++)
    bbs[i] = (ppt_trace_bb){.id = i + 1, .line = k_bbs[i].line, .func = k_bbs[i].func, .file = k_bbs[i].file};
  bbs[8].ninl = 1;
  bbs[8].inl = k_inl9;
  bbs[9].ninl = 2;
  bbs[9].inl = k_inl10;
  unsigned char *raw;
  uint32_t size;
  ck_assert_int_eq(ppt_bbtab_build(bbs, NBBS, &raw, &size), 0);
  ck_assert_int_eq(ppt_trace_writer_close(w, raw, size), 0);
  free(raw);
}
static void teardown(void) {
  unlink(path);
}

/* The selected block ids as a bit mask (bit id-1). */
static unsigned select_mask(const char *sel) {
  ppt_trace *t;
  ppt_err err;
  ck_assert_int_eq(ppt_trace_open(path, &t, &err), 0);
  uint8_t *c;
  const char *sels[] = {sel};
  int rc = ppt_trace_select(t, sels, 1, &c, NULL, &err);
  unsigned m = 0;
  if (rc == 0) {
    for (uint32_t id = 1; id <= NBBS; id++) m |= c[id] ? 1u << (id - 1) : 0u;
    ck_assert_int_eq(c[0], 0);
    free(c);
  } else {
    ck_assert_int_eq(rc, PPT_EINPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, sel));
    ck_assert_ptr_nonnull(strstr(err.msg, path));
    ck_assert_ptr_null(strchr(err.msg, '\n'));
  }
  ppt_trace_close(t);
  return m;
}

#define B(id) (1u << ((id) - 1))

START_TEST(function_prefixes_and_globs) {
  ck_assert_uint_eq(select_mask("kernel_"), B(2) | B(6) | B(8) | B(9) | B(10)); /* kernel_inl inlined */
  ck_assert_uint_eq(select_mask("kernel_a"), B(2) | B(8)); /* a prefix, as --only always was */
  ck_assert_uint_eq(select_mask(".omp_outlined."), B(3) | B(4) | B(5));
  ck_assert_uint_eq(select_mask("*_b"), B(6));
  ck_assert_uint_eq(select_mask("kernel_?"), B(2) | B(6));
  ck_assert_uint_eq(select_mask("[mh]*"), B(1) | B(7) | B(9) | B(10));
}
END_TEST

START_TEST(files_tell_outlined_bodies_apart) {
  ck_assert_uint_eq(select_mask("a.c:.omp_outlined."), B(3));
  ck_assert_uint_eq(select_mask("b.c:.omp_outlined."), B(4) | B(5));
  ck_assert_uint_eq(select_mask("b.c:*outlined."), B(4));
  ck_assert_uint_eq(select_mask("a.c:*"), B(2) | B(3) | B(7)); /* both a.c, any folder */
  ck_assert_uint_eq(select_mask("app/a.c:*"), B(2) | B(3));
  ck_assert_uint_eq(select_mask("/src/lib/a.c:helper"), B(7));
  ck_assert_uint_eq(select_mask("*.c:main"), B(1) | B(9) | B(10)); /* main's code is in main.c */
  ck_assert_uint_eq(select_mask("/src/app/*:kernel_"), B(2) | B(6) | B(9) | B(10));
  ck_assert_uint_eq(select_mask("pp/a.c:*"), 0); /* a trailing part must start after a '/' */
}
END_TEST

START_TEST(line_ranges) {
  ck_assert_uint_eq(select_mask("a.c:20"), B(2));
  ck_assert_uint_eq(select_mask("a.c:1-22"), B(2) | B(3) | B(7));
  ck_assert_uint_eq(select_mask("b.c:30-39"), B(4) | B(5));
  ck_assert_uint_eq(select_mask("b.c:36-39"), 0);
}
END_TEST

/* A C++ function by its name alone: every instance and overload, any namespace; a
 * template's arguments narrow it; a longer name is not a match. */
START_TEST(cxx_base_names) {
  ck_assert_uint_eq(select_mask("run"), B(11) | B(12));
  ck_assert_uint_eq(select_mask("run<double>"), B(11));
  ck_assert_uint_eq(select_mask("ns::run"), B(12));
  ck_assert_uint_eq(select_mask("ru"), 0);
  ck_assert_uint_eq(select_mask("r.cc:run"), B(11) | B(12));
}
END_TEST

START_TEST(short_names) {
  char b[64];
  ck_assert_str_eq(ppt_trace_func_short("void axpy<double>(std::vector<double, std::allocator<double> >&, double)",
                                        b, sizeof b),
                   "axpy<double>");
  ck_assert_str_eq(ppt_trace_func_short("ns::S::operator()(int) const", b, sizeof b), "ns::S::operator()");
  ck_assert_str_eq(ppt_trace_func_short("bool operator<<T>(T const&, T const&)", b, sizeof b), "operator<<T>");
  ck_assert_str_eq(ppt_trace_func_short("std::vector<int, std::allocator<int> > make(int)", b, sizeof b), "make");
  ck_assert_str_eq(ppt_trace_func_short("main::$_0::operator()() const", b, sizeof b), "main::$_0::operator()");
  ck_assert_str_eq(ppt_trace_func_short("kernel_2mm", b, sizeof b), "kernel_2mm");
  ck_assert_str_eq(ppt_trace_func_short(".omp_outlined..3", b, sizeof b), ".omp_outlined..3");
  ck_assert_str_eq(ppt_trace_func_short("kern(double*, int)", b, 3), "ke");
}
END_TEST

START_TEST(inlined_functions) {
  ck_assert_uint_eq(select_mask("main"), B(1) | B(9) | B(10));
  ck_assert_uint_eq(select_mask("kernel_inl"), B(9) | B(10));
  ck_assert_uint_eq(select_mask("inner"), B(10));
  ck_assert_uint_eq(select_mask("k.h:kernel_inl"), B(9) | B(10)); /* its code is in k.h */
  ck_assert_uint_eq(select_mask("main.c:kernel_inl"), 0);
  ck_assert_uint_eq(select_mask("k.h:main"), 0); /* main's own code is in main.c */
  ck_assert_uint_eq(select_mask("main.c:main"), B(1) | B(9) | B(10));
  ck_assert_uint_eq(select_mask("k.h:1-5"), B(9)); /* lines are the block's own */
}
END_TEST

START_TEST(no_match_is_bad_input) {
  const char *bad[] = {"nosuch", "c.c:main", "a.c:", ":main", "", "a.c:0", "a.c:9-3", "a.c:12x"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) ck_assert_uint_eq(select_mask(bad[i]), 0);
  ppt_trace *t;
  ppt_err err;
  ck_assert_int_eq(ppt_trace_open(path, &t, &err), 0);
  /* a list is a union: the selector that matches nothing is named, the rest counted */
  const char *two[] = {"typo_kernel", "main"};
  uint8_t *c, missed[2];
  ck_assert_int_eq(ppt_trace_select(t, two, 2, &c, missed, &err), 0);
  ck_assert_int_eq(missed[0], 1);
  ck_assert_int_eq(missed[1], 0);
  ck_assert_int_eq(c[1] + c[9] + c[10], 3);
  ck_assert_int_eq(c[2] + c[3] + c[4] + c[5] + c[6] + c[7] + c[8], 0);
  free(c);
  /* a list that matches nothing at all is bad input naming it */
  const char *none[] = {"typo_kernel", "b.c:99"};
  ck_assert_int_eq(ppt_trace_select(t, none, 2, &c, missed, &err), PPT_EINPUT);
  ck_assert_ptr_nonnull(strstr(err.msg, "'typo_kernel,b.c:99'"));
  ck_assert_ptr_null(c);
  /* ppt_trace_blocks_of_functions keeps the good part */
  c = ppt_trace_blocks_of_functions(t, two, 2);
  ck_assert_int_eq(c[1], 1);
  ck_assert_int_eq(c[2] + c[3] + c[4] + c[5] + c[6] + c[7] + c[8], 0);
  free(c);
  ppt_trace_close(t);
}
END_TEST

int main(void) {
  Suite *s = suite_create("trace_select");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, function_prefixes_and_globs);
  tcase_add_test(tc, files_tell_outlined_bodies_apart);
  tcase_add_test(tc, line_ranges);
  tcase_add_test(tc, cxx_base_names);
  tcase_add_test(tc, short_names);
  tcase_add_test(tc, inlined_functions);
  tcase_add_test(tc, no_match_is_bad_input);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

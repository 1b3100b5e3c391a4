/* test_e2e_cxx.c — ppt-c++ (ppt-cc run as a C++ driver): OpenMP parallel loops in function
 * templates and lambdas traced with exact counts and flagged parallel, a C++ main linked
 * with a C kernel from ppt-cc, CXX=ppt-c++ through make and CMake, and bad usage. */
#include <check.h>

#include "ppt_test.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../apps/ppt-cc/args.h"
#include "e2e.h"
#include "ppt/trace.h"

/* Runs a command with PPTCXX (the built ppt-c++) set as well as PPT and PPTCC. */
#define SH(d, cmd) e2e_sh(d, "PPTCXX=\"$(dirname \"$PPTCC\")/ppt-c++\" && " cmd)

/* The template's loop body is on line 6, the lambda's on line 20. axpy is kept out of
 * line so the table has its mangled instances; the outlined regions are .omp_outlined.*
 * whatever encloses them (clang 14). -O1 without vectorisation: one load or store per
 * element access. The lambda indexes a pointer: a block whose first instruction is an
 * inlined std::vector::operator[] is charged to stl_vector.h, as its debug line says. */
static const char *k_tmpl =
    "#include <cstdio>\n"
    "#include <vector>\n"
    "template <typename T> __attribute__((noinline)) void axpy(std::vector<T> &y, const std::vector<T> &x, T "
    "a) {\n"
    "  long n = (long)y.size();\n"
    "#pragma omp parallel for schedule(static)\n"
    "  for (long i = 0; i < n; i++) y[i] += a * x[i];\n"
    "}\n"
    "int main() {\n"
    "  const int n = 1000;\n"
    "  std::vector<double> yd(n, 1.0), xd(n, 2.0);\n"
    "  std::vector<float> yf(n, 1.0f), xf(n, 2.0f);\n"
    "  std::vector<int> z(n, 3);\n"
    "  axpy(yd, xd, 3.0);\n"
    "  axpy(yd, xd, 1.0);\n"
    "  axpy(yf, xf, 3.0f);\n"
    "  int k = 2;\n"
    "  auto scale = [&z, k]() {\n"
    "    int m = (int)z.size(), *zp = z.data();\n"
    "#pragma omp parallel for schedule(static)\n"
    "    for (int i = 0; i < m; i++) zp[i] = zp[i] * k + i;\n"
    "  };\n"
    "  scale();\n"
    "  std::printf(\"%lu %lu %lu %lu %lu\\n\", (unsigned long)yd.data(), (unsigned long)xd.data(),\n"
    "              (unsigned long)yf.data(), (unsigned long)xf.data(), (unsigned long)z.data());\n"
    "  return yd[0] == 9.0 && yf[0] == 7.0f && z[1] == 7 ? 0 : 1;\n"
    "}\n";

/* References to one vector's elements. The runtime charges a reference to the block whose
 * guard ran last on that thread, so main's own loads right after __kmpc_fork_call returns
 * (before main's next block) land on the outlined function's last block (line 5 or 19):
 * those are counted apart, and only the loop body's line gives exact counts. */
typedef struct range {
  uint64_t lo, len;
  uint32_t body;          /* the loop body's line */
  uint64_t loads, stores; /* in parallel blocks of that line */
  uint64_t par_other;     /* in other parallel blocks */
  uint64_t serial;        /* elsewhere (the vectors' constructors) */
} range;

static void count_ranges(ppt_trace *t, range *rg, int nr) {
  for (uint32_t th = 0; th < ppt_trace_nthreads(t); th++) {
    ppt_trace_cursor *c;
    ppt_err err;
    ck_assert_int_eq(ppt_trace_cursor_open(t, th, &c, &err), 0);
    const ppt_trace_rec *r;
    size_t n;
    while (ppt_trace_cursor_next(c, &r, &n, &err) == 0 && n)
      for (size_t i = 0; i < n; i++) {
        if (r[i].kind != PPT_REC_LOAD && r[i].kind != PPT_REC_STORE) continue;
        for (int k = 0; k < nr; k++) {
          if (r[i].addr - rg[k].lo >= rg[k].len) continue;
          const ppt_trace_bb *bb = ppt_trace_bb_get(t, r[i].bb);
          if (!(bb->flags & PPT_BB_PARALLEL)) {
            rg[k].serial++;
            continue;
          }
          /* Every parallel reference comes from an outlined region of k.cpp. */
          ck_assert_msg(strncmp(bb->func, ".omp_outlined.", 14) == 0, "%s", bb->func);
          ck_assert_ptr_nonnull(strstr(bb->file, "k.cpp"));
          if (bb->line != rg[k].body)
            rg[k].par_other++;
          else if (r[i].kind == PPT_REC_LOAD)
            rg[k].loads++;
          else
            rg[k].stores++;
        }
      }
    ppt_trace_cursor_close(c);
  }
}

/* Does the block table hold a block of a function with this exact (mangled) name? */
static int has_func(ppt_trace *t, const ppt_trace_summary *s, const char *name) {
  for (uint32_t id = 1; id <= s->bbs; id++)
    if (strcmp(ppt_trace_bb_get(t, id)->func, name) == 0) return 1;
  return 0;
}

START_TEST(template_and_lambda_regions) {
  const char *d = e2e_dir("cxx-template");
  e2e_write(d, "k.cpp", k_tmpl);
  ck_assert_int_eq(SH(d,
                      "$PPTCXX -O1 -fno-vectorize -fno-slp-vectorize -fopenmp k.cpp -o k"
                      " && $PPT trace -o k.trace -- ./k >addr.txt 2>/dev/null"
                      " && $PPT sasmm k.trace --hw \"$PPT_SOURCE_DIR/hwspecs/sasmm-cachegrind.json\" --cores "
                      "2 >sasmm.txt 2>&1"),
                   0);
  unsigned long a[5];
  char p[1024];
  snprintf(p, sizeof p, "%s/addr.txt", d);
  FILE *f = fopen(p, "r");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(fscanf(f, "%lu %lu %lu %lu %lu", &a[0], &a[1], &a[2], &a[3], &a[4]), 5);
  fclose(f);
  const uint64_t n = 1000;
  range rg[5] = {{a[0], 8 * n, 6, 0, 0, 0, 0},
                 {a[1], 8 * n, 6, 0, 0, 0, 0},
                 {a[2], 4 * n, 6, 0, 0, 0, 0},
                 {a[3], 4 * n, 6, 0, 0, 0, 0},
                 {a[4], 4 * n, 20, 0, 0, 0, 0}};
  ppt_trace *t = e2e_open(d, "k.trace");
  ppt_trace_summary s;
  e2e_summarize(t, &s);
  count_ranges(t, rg, 5);
  /* axpy<double> twice: y loaded and stored, x loaded, once per element per call. */
  ck_assert_uint_eq(rg[0].loads, 2 * n);
  ck_assert_uint_eq(rg[0].stores, 2 * n);
  ck_assert_uint_eq(rg[1].loads, 2 * n);
  ck_assert_uint_eq(rg[1].stores, 0);
  /* axpy<float> once. */
  ck_assert_uint_eq(rg[2].loads, n);
  ck_assert_uint_eq(rg[2].stores, n);
  ck_assert_uint_eq(rg[3].loads, n);
  ck_assert_uint_eq(rg[3].stores, 0);
  /* The lambda's loop. */
  ck_assert_uint_eq(rg[4].loads, n);
  ck_assert_uint_eq(rg[4].stores, n);
  /* Nearly all references to the vectors are the loops' (main's few checks aside). */
  uint64_t other = 0;
  for (int k = 0; k < 5; k++) other += rg[k].par_other;
  ck_assert_uint_le(other, 8);
  /* Four regions ran: axpy<double> twice, axpy<float>, the lambda. */
  ck_assert_uint_eq(s.parallel_regions, 4);
  ck_assert_uint_gt(s.parallel_bbs, 0);
  /* C++ names are recorded demangled (ppt-cc's irtab.c), the template instances apart. */
  ck_assert(has_func(t, &s,
                     "void axpy<double>(std::vector<double, std::allocator<double> >&, "
                     "std::vector<double, std::allocator<double> > const&, double)"));
  ck_assert(has_func(t, &s,
                     "void axpy<float>(std::vector<float, std::allocator<float> >&, "
                     "std::vector<float, std::allocator<float> > const&, float)"));
  ppt_trace_summary_free(&s);
  ppt_trace_close(t);
}
END_TEST

/* A C++ main (ppt-c++) calling a C kernel (ppt-cc) through extern "C", linked by ppt-c++. */
START_TEST(mixed_c_and_cxx) {
  const char *d = e2e_dir("cxx-mixed");
  e2e_write(
      d, "kern.c",
      "void kern(volatile double *a, int n) { for (int i = 0; i < n; i++) a[i] = a[i] * 2.0 + 1.0; }\n");
  e2e_write(d, "main.cpp",
            "#include <vector>\n"
            "extern \"C\" void kern(volatile double *a, int n);\n"
            "int main() {\n"
            "  std::vector<double> v(64, 1.0);\n"
            "  kern(v.data(), 64);\n"
            "  volatile double *p = v.data();\n"
            "  double s = 0;\n"
            "  for (int i = 0; i < 64; i++) s += p[i];\n"
            "  return s == 192.0 ? 0 : 1;\n"
            "}\n");
  ck_assert_int_eq(SH(d,
                      "$PPTCC -O1 -c kern.c -o kern.o && $PPTCXX -O1 -c main.cpp -o main.o"
                      " && $PPTCXX -O1 main.o kern.o -o mixed"
                      " && $PPT trace -o m.trace -- ./mixed 2>/dev/null"),
                   0);
  ppt_trace *t = e2e_open(d, "m.trace");
  ppt_trace_summary s;
  e2e_summarize(t, &s);
  uint64_t kern = 0, mainrefs = 0;
  for (uint32_t id = 1; id <= s.bbs; id++) {
    if (!s.bb_refs[id]) continue;
    const ppt_trace_bb *bb = ppt_trace_bb_get(t, id);
    if (strstr(bb->file, "kern.c")) {
      ck_assert_str_eq(bb->func, "kern");
      kern += s.bb_refs[id];
    } else if (strstr(bb->file, "main.cpp"))
      mainrefs += s.bb_refs[id];
  }
  ck_assert_uint_eq(kern, 128); /* 64 volatile loads and stores */
  ck_assert_uint_ge(mainrefs, 64);
  ppt_trace_summary_free(&s);
  ppt_trace_close(t);
}
END_TEST

/* CXX=ppt-c++ through a Makefile (separate compile and link), and through CMake. */
START_TEST(make_and_cmake) {
  const char *d = e2e_dir("cxx-make");
  e2e_write(d, "Makefile",
            "CXXFLAGS = -O1 -Wall\n"
            "prog: main.o util.o\n\t$(CXX) $(CXXFLAGS) -o $@ main.o util.o\n"
            "%.o: %.cpp util.h\n\t$(CXX) $(CXXFLAGS) -c $< -o $@\n");
  e2e_write(d, "util.h",
            "template <int K> void touch(volatile int *p, int n) { for (int i = 0; i < n; i++) p[i] += K; }\n"
            "void run(volatile int *p, int n);\n");
  e2e_write(d, "util.cpp", "#include \"util.h\"\nvoid run(volatile int *p, int n) { touch<1>(p, n); }\n");
  e2e_write(d, "main.cpp",
            "#include \"util.h\"\nvolatile int g[32];\nint main() { run(g, 32); run(g, 16); return "
            "g[0] == 2 ? 0 : 1; }\n");
  e2e_write(d, "CMakeLists.txt",
            "cmake_minimum_required(VERSION 3.16)\nproject(p CXX)\n"
            "add_executable(prog main.cpp util.cpp)\n");
  ck_assert_int_eq(SH(d, "make -s CXX=\"$PPTCXX\" >/dev/null && $PPT trace -o m.trace -- ./prog 2>/dev/null"),
                   0);
  ppt_trace *t = e2e_open(d, "m.trace");
  ppt_trace_summary s;
  e2e_summarize(t, &s);
  ck_assert_uint_eq(s.loads, 48 + 1);
  ck_assert_uint_eq(s.stores, 48);
  ppt_trace_summary_free(&s);
  ppt_trace_close(t);
  ck_assert_int_eq(SH(d,
                      "cmake -S . -B cm -DCMAKE_CXX_COMPILER=\"$PPTCXX\" -DCMAKE_BUILD_TYPE=Release"
                      " >cm.log 2>&1 && cmake --build cm >>cm.log 2>&1"
                      " && $PPT trace -o c.trace -- cm/prog 2>/dev/null"),
                   0);
  t = e2e_open(d, "c.trace");
  e2e_summarize(t, &s);
  ck_assert_uint_eq(s.stores, 48);
  ppt_trace_summary_free(&s);
  ppt_trace_close(t);
}
END_TEST

/* No inputs: as clang++. A failing compile: clang++'s status, no object, no temporaries. */
START_TEST(bad_usage) {
  const char *d = e2e_dir("cxx-bad");
  ck_assert_int_eq(
      SH(d,
         "mkdir tmp && CLANGXX=$($PPTCXX --ppt-help | head -1 | sed -n 's/.* runs \\([^ ]*\\) .*/\\1/p')"
         " && test -x \"$CLANGXX\""
         " && { $PPTCXX 2>ours.txt; echo $? >ours.rc; }"
         " ; { $CLANGXX 2>theirs.txt; echo $? >theirs.rc; }"
         " ; cmp ours.rc theirs.rc && ! test \"$(cat ours.rc)\" = 0"
         " && grep -q 'no input files' ours.txt"),
      0);
  ck_assert_int_eq(SH(d, "$PPTCXX --help | head -1 | grep -q 'ppt-c++: the help of .*clang++'"), 0);
  e2e_write(d, "bad.cpp", "#include <vector>\nint main() { std::vector<int> v; return v.nope(); }\n");
  ck_assert_int_eq(SH(d,
                      "TMPDIR=\"$PWD/tmp\" $PPTCXX -c bad.cpp -o bad.o 2>err.txt; rc=$?;"
                      " test $rc -ne 0 && ! test -e bad.o && test -z \"$(ls -A tmp)\""
                      " && grep -q nope err.txt"),
                   0);
  ck_assert_int_eq(SH(d,
                      "TMPDIR=\"$PWD/tmp\" $PPTCXX bad.cpp -o bad 2>/dev/null; rc=$?;"
                      " test $rc -ne 0 && ! test -e bad && test -z \"$(ls -A tmp)\""),
                   0);
}
END_TEST

/* ppt-c++'s view of a command line: C and C++ sources are instrumented, the rest is not. */
START_TEST(cxx_classification) {
  char *argv[] = {"ppt-c++", "a.cpp", "b.cc", "c.c",  "d.C", "e.cxx", "f.c++",       "g.h", "-x",
                  "c++",     "h.h",   "-x",   "none", "i.o", "-x",    "objective-c", "j.m", NULL};
  enum pcc_role want[] = {PCC_R_IN_C,    PCC_R_IN_C,   PCC_R_IN_C,  PCC_R_IN_C, PCC_R_IN_C,
                          PCC_R_IN_C,    PCC_R_IN_SRC, PCC_R_LANG,  PCC_R_IN_C, PCC_R_LANG,
                          PCC_R_IN_LINK, PCC_R_LANG,   PCC_R_IN_SRC};
  int argc = (int)(sizeof argv / sizeof *argv) - 1;
  pcc_cmdline cl;
  ppt_err err;
  ck_assert_int_eq(pcc_args_parse_lang(argc, argv, 1, &cl, &err), 0);
  ck_assert_uint_eq(cl.n, sizeof want / sizeof *want);
  for (size_t i = 0; i < cl.n; i++) ck_assert_msg(cl.a[i].role == want[i], "%s", cl.a[i].s[0]);
  pcc_args_free(&cl);
  /* ppt-cc leaves C++ to clang, uninstrumented, as before. */
  ck_assert_int_eq(pcc_args_parse(argc, argv, &cl, &err), 0);
  ck_assert_int_eq(cl.a[0].role, PCC_R_IN_SRC);
  ck_assert_int_eq(cl.a[2].role, PCC_R_IN_C);
  ck_assert_int_eq(cl.a[8].role, PCC_R_IN_SRC);
  pcc_args_free(&cl);
}
END_TEST

int main(void) {
  Suite *s = suite_create("e2e_cxx");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 240);
  tcase_add_test(tc, cxx_classification);
  tcase_add_test(tc, template_and_lambda_regions);
  tcase_add_test(tc, mixed_c_and_cxx);
  tcase_add_test(tc, make_and_cmake);
  tcase_add_test(tc, bad_usage);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

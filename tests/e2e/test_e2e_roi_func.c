/* test_e2e_roi_func.c — ppt trace --roi FUNCTION: from the function's first call to its
 * last return, recursion, names that match nothing or are never called, C++ functions by
 * their demangled names, and functions the compiler inlined into their caller (selected
 * by --roi and by --only through the blocks' inlining chains). The oracles are reference counts known from the programs' loops
 * over volatile arrays (references to the threads' own stacks are left out: they depend
 * on the optimiser). */
#include <check.h>
#include <stdio.h>

#include "e2e.h"
#include "ppt/trace.h"
#include "ppt_test.h"

/* kernel is called 3 times (100, 200, 300 iterations: 600 loads and 600 stores); 10 loads
 * and 10 stores follow each call, 20 of each between calls (inside the region) and 10
 * after the last (outside); set-up and report, 1000 and 2000 references, are outside.
 * fact recurses 5 deep (argc 1), storing b[5..1]. */
static const char *k_func =
    "#include <stdio.h>\n"
    "volatile double a[1000], b[1000];\n"
    "__attribute__((noinline)) void kernel(int n) {\n"
    "#pragma omp parallel for\n"
    "  for (int i = 0; i < n; i++) a[i] = b[i] + 1.0;\n"
    "}\n"
    "__attribute__((noinline)) int fact(int n) {\n"
    "  b[n] = n;\n"
    "  return n <= 1 ? 1 : n * fact(n - 1);\n"
    "}\n"
    "__attribute__((noinline)) void never(void) { a[0] = 2; }\n"
    "int main(int argc, char **argv) {\n"
    "  (void)argv;\n"
    "  for (int i = 0; i < 1000; i++) b[i] = i;\n"
    "  for (int r = 0; r < 3; r++) {\n"
    "    kernel(100 * (r + 1));\n"
    "    for (int i = 0; i < 10; i++) b[i] += 1.0;\n"
    "  }\n"
    "  for (int i = 0; i < 1000; i++) b[i] = a[i];\n"
    "  int f = fact(argc + 4);\n"
    "  if (argc > 5) never();\n"
    "  printf(\"%d %g\\n\", f, b[5]);\n"
    "  return 0;\n"
    "}\n";

/* Traces ./f in d with `ppt trace OPTS` and counts the trace's loads and stores off the
 * threads' stacks and its parallel regions. */
static void trace_counts(const char *d, const char *opts, uint64_t *l, uint64_t *s, uint64_t *regions) {
  ck_assert_int_eq(e2e_sh(d, "$PPT trace %s -o c.trace -- ./f >out.txt 2>err.txt", opts), 0);
  ppt_trace *t = e2e_open(d, "c.trace");
  e2e_count_heap(t, l, s);
  ppt_trace_summary sum;
  e2e_summarize(t, &sum);
  *regions = sum.parallel_regions;
  ppt_trace_summary_free(&sum);
  ppt_trace_close(t);
}

/* kernel's region on 1 and 2 threads: its three calls and `between` loads and stores
 * each between them. The outlined body also loads its thread id (*gtid, libomp's
 * memory): one per thread and region. */
static void check_kernel_region(const char *d, uint64_t between) {
  for (int threads = 1; threads <= 2; threads++) {
    char opts[64];
    snprintf(opts, sizeof opts, "-t %d --roi kernel", threads);
    uint64_t l, s, regions;
    trace_counts(d, opts, &l, &s, &regions);
    ck_assert_uint_ge(l, 600 + between);
    ck_assert_uint_le(l, 600 + between + 3 * (uint64_t)threads);
    ck_assert_uint_eq(s, 600 + between);
    ck_assert_uint_eq(regions, 3);
  }
}

START_TEST(roi_function_calls_and_between) {
  const char *d = e2e_dir("e2e_roi_func");
  e2e_write(d, "f.c", k_func);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 -fopenmp f.c -o f"), 0);
  check_kernel_region(d, 20);
  /* recursion: the region is the outermost call */
  ck_assert_int_eq(e2e_sh(d, "$PPT trace --roi fact -o r.trace -- ./f >out.txt 2>err.txt"), 0);
  ppt_trace *t = e2e_open(d, "r.trace");
  uint64_t l, s;
  e2e_count_heap(t, &l, &s);
  ck_assert_uint_eq(l, 0);
  ck_assert_uint_eq(s, 5);
  ppt_trace_close(t);
}
END_TEST

/* A name no block has: exit 2 naming it, before the program runs (no output). A function
 * never called: exit 2, no trace. */
START_TEST(roi_function_errors) {
  const char *d = e2e_dir("e2e_roi_func_err");
  e2e_write(d, "f.c", k_func);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 -fopenmp f.c -o f"), 0);
  ck_assert_int_eq(e2e_sh(d, "$PPT trace --roi kernal -o n.trace -- ./f >out.txt 2>err.txt"), 2);
  ck_assert_int_eq(e2e_sh(d, "grep -q 'kernal' err.txt && ! test -s out.txt && ! test -e n.trace"), 0);
  ck_assert_int_eq(e2e_sh(d, "$PPT trace --roi never -o v.trace -- ./f >out.txt 2>err.txt"), 2);
  ck_assert_int_eq(e2e_sh(d, "grep -q 'never called' err.txt && ! test -e v.trace && ls | grep -vq tmp"), 0);
}
END_TEST

/* C++: the table shows demangled names, --roi takes the function part of one. */
START_TEST(roi_function_cxx_demangled) {
  const char *d = e2e_dir("e2e_roi_func_cxx");
  e2e_write(d, "x.cpp",
            "#include <cstdio>\n"
            "#include <vector>\n"
            "template <class T>\n"
            "__attribute__((noinline)) void axpy(std::vector<T> &y, const std::vector<T> &x, T a) {\n"
            "#pragma omp parallel for\n"
            "  for (long i = 0; i < (long)y.size(); i++) y[i] += a * x[i];\n"
            "}\n"
            "int main() {\n"
            "  std::vector<double> x(300, 1.0), y(300, 2.0);\n"
            "  std::vector<float> xf(100, 1.0f), yf(100, 2.0f);\n"
            "  axpy(y, x, 3.0);\n"
            "  axpy(yf, xf, 3.0f);\n"
            "  std::printf(\"%g %g\\n\", y[7], yf[7]);\n"
            "  return 0;\n"
            "}\n");
  ck_assert_int_eq(e2e_sh(d,
                          "\"$(dirname \"$PPTCC\")/ppt-c++\" -O1 -fopenmp x.cpp -o x && $PPT trace -o "
                          "all.trace -- ./x >/dev/null"),
                   0);
  ck_assert_int_eq(e2e_sh(d,
                          "$PPT info --blocks all.trace | grep -q 'void axpy<double>(std::vector<double' && "
                          "! $PPT info --blocks all.trace | grep -q '_Z4axpy' && "
                          /* the library headers' paths normalised (no DIR/../ from include paths) */
                          "$PPT info --blocks all.trace | grep -q 'c++/[0-9]*/bits/' && "
                          "! $PPT info --blocks all.trace | grep -q '/\\.\\./'"),
                   0);
  ck_assert_int_eq(e2e_sh(d, "$PPT trace --roi 'axpy<double>' -o a.trace -- ./x >/dev/null 2>err.txt"), 0);
  ppt_trace *t = e2e_open(d, "a.trace");
  uint64_t l, s;
  e2e_count_heap(t, &l, &s);
  ck_assert_uint_ge(l, 600);
  ck_assert_uint_le(l, 600 + 1); /* + *gtid, as above */
  ck_assert_uint_eq(s, 300);
  ppt_trace_close(t);
  /* the template's name alone: both instances, named on stderr, --only likewise */
  ck_assert_int_eq(e2e_sh(d, "$PPT trace --roi axpy -o b.trace -- ./x >/dev/null 2>err.txt && "
                             "grep -q '2 functions of that name.*axpy<double>.*axpy<float>' err.txt"),
                   0);
  t = e2e_open(d, "b.trace");
  e2e_count_heap(t, &l, &s);
  ck_assert_uint_ge(l, 800);
  ck_assert_uint_le(l, 800 + 2);
  ck_assert_uint_eq(s, 400);
  ppt_trace_close(t);
  ck_assert_int_eq(e2e_sh(d, "$PPT info --blocks --json all.trace >b.json && "
                             "$PPT cachesim all.trace --no-stack-refs --only axpy --json "
                             "--hw \"$PPT_SOURCE_DIR/hwspecs/sasmm-cachegrind.json\" >c.json && "
                             "test \"$(jq '[.blocks[] | select(.function | test(\"^void axpy<\")) | .refs] | add' "
                             "b.json)\" -gt 0"),
                   0);
}
END_TEST

/* The same shape with both kernels `static` at -O2, so clang inlines them into main: a
 * parallel one (its fork inlined, its body outlined) called 3 times (100, 200, 300
 * iterations), and a serial one, scale, after each call (50 iterations), then 10 loads
 * and stores; set-up and report (1000 and 2000 references) are outside both. */
static const char *k_inlined =
    "#include <stdio.h>\n"
    "volatile double a[1000], b[1000];\n"
    "static void kernel(int n) {\n"
    "#pragma omp parallel for\n"
    "  for (int i = 0; i < n; i++) a[i] = b[i] + 1.0;\n"
    "}\n"
    "static void scale(int n) {\n"
    "  for (int i = 0; i < n; i++) b[i] = b[i] * 2.0;\n"
    "}\n"
    "int main(void) {\n"
    "  for (int i = 0; i < 1000; i++) b[i] = i;\n"
    "  for (int r = 0; r < 3; r++) {\n"
    "    kernel(100 * (r + 1));\n"
    "    scale(50);\n"
    "    for (int i = 0; i < 10; i++) b[i] += 1.0;\n"
    "  }\n"
    "  for (int i = 0; i < 1000; i++) b[i] = a[i];\n"
    "  printf(\"%g\\n\", b[5]);\n"
    "  return 0;\n"
    "}\n";

START_TEST(roi_and_only_of_inlined_functions) {
  const char *d = e2e_dir("e2e_roi_inlined");
  e2e_write(d, "f.c", k_inlined);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O2 -fopenmp f.c -o f && $PPT trace -o all.trace -- ./f >/dev/null"), 0);
  /* both were inlined: no block of their own, blocks of main inlined from each */
  ck_assert_int_eq(e2e_sh(d,
                          "$PPT info --blocks --json all.trace >b.json && "
                          "test \"$(jq '[.blocks[] | select(.function == \"kernel\" or .function == "
                          "\"scale\")] | length' b.json)\" = 0 && "
                          "test \"$(jq '[.blocks[] | select(.function == \"main\" and .inlined[0].function == "
                          "\"scale\" and .inlined[0].call_line == 14)] | length' b.json)\" -ge 1 && "
                          "$PPT info --blocks all.trace | grep -q 'in kernel (inlined at .*f.c:13)'"),
                   0);
  /* kernel's three calls, and between them scale and the 10-loop twice: 120 each */
  check_kernel_region(d, 120);
  /* scale: its three calls, and between them the 10-loop and kernel's last two calls
   * (clang unrolls main's loop: the block that ends kernel's first call begins scale's
   * first, yet kernel's first region is not part of scale's) */
  uint64_t l, s, regions;
  trace_counts(d, "--roi scale", &l, &s, &regions);
  ck_assert_uint_ge(l, 150 + 20 + 500);
  ck_assert_uint_le(l, 150 + 20 + 500 + 2);
  ck_assert_uint_eq(s, 150 + 20 + 500);
  ck_assert_uint_eq(regions, 2);
  /* --only scale counts exactly scale's references; a list's name that matches nothing is
   * named on stderr and the rest counted; a list that matches nothing is bad input */
  ck_assert_int_eq(e2e_sh(d,
                          "$PPT cachesim all.trace --no-stack-refs --hw \"$PPT_SOURCE_DIR/hwspecs/sasmm-cachegrind.json\" "
                          "--only scale,nosuch --json >c.json 2>c.err && "
                          "test \"$(jq '.levels[0].accesses' c.json)\" = 300 && grep -q \"'nosuch' matches no block\" c.err"),
                   0);
  ck_assert_int_eq(e2e_sh(d,
                          "$PPT cachesim all.trace --hw \"$PPT_SOURCE_DIR/hwspecs/sasmm-cachegrind.json\" "
                          "--only nosuch,nothing >/dev/null 2>n.err"),
                   2);
}
END_TEST

/* sweep is called inside parallel regions only (an orphaned worksharing loop): the regions
 * that call it are the unit. The first region does not (dropped), the next two do (2 x
 * 1000 loads and stores of x), with 10 loads and stores of y after each (the first
 * between them, inside; the second after the last, outside), then a region that does
 * not (outside). */
static const char *k_orphan =
    "volatile double x[1000], y[1000];\n"
    "__attribute__((noinline)) void sweep(int n) {\n"
    "#pragma omp for schedule(static)\n"
    "  for (int i = 0; i < n; i++) x[i] = x[i] + 1.0;\n"
    "}\n"
    "int main(void) {\n"
    "#pragma omp parallel for\n"
    "  for (int i = 0; i < 1000; i++) y[i] = i;\n"
    "  for (int r = 0; r < 2; r++) {\n"
    "#pragma omp parallel\n"
    "    sweep(1000);\n"
    "    for (int i = 0; i < 10; i++) y[i] += 1.0;\n"
    "  }\n"
    "#pragma omp parallel for\n"
    "  for (int i = 0; i < 1000; i++) y[i] = y[i] * 2.0;\n"
    "  return x[0] == 2.0 ? 0 : 1;\n"
    "}\n";

START_TEST(roi_function_called_in_regions) {
  const char *d = e2e_dir("e2e_roi_orphan");
  e2e_write(d, "f.c", k_orphan);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 -fopenmp f.c -o f"), 0);
  for (int threads = 1; threads <= 2; threads++) {
    char opts[64];
    snprintf(opts, sizeof opts, "-t %d --roi sweep", threads);
    uint64_t l, s, regions;
    trace_counts(d, opts, &l, &s, &regions);
    ck_assert_uint_eq(regions, 2);
    ck_assert_uint_ge(l, 2000 + 10);
    ck_assert_uint_le(l, 2000 + 10 + 2 * (uint64_t)threads); /* + *gtid per thread and region */
    ck_assert_uint_eq(s, 2000 + 10);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("e2e_roi_func");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, roi_function_calls_and_between);
  tcase_add_test(tc, roi_function_errors);
  tcase_add_test(tc, roi_function_cxx_demangled);
  tcase_add_test(tc, roi_and_only_of_inlined_functions);
  tcase_add_test(tc, roi_function_called_in_regions);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

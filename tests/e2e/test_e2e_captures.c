/* test_e2e_captures.c — parallel regions that capture many variables: the runtime's
 * fork wrapper forwards any number of them (models/trace/runtime/rt_omp.c). A C region
 * capturing 65 variables and a C++ lambda's region capturing 42, each built with ppt-cc /
 * ppt-c++, run untraced and traced on 1 and 2 threads: the program checks its own result
 * (every captured pointer arrived), and the trace holds exactly the references the loop
 * makes to the captured arrays. clang's IR is the oracle for how many arguments the fork
 * passes, so the test cannot silently stop exercising the case. */
#include <check.h>

#include "ppt_test.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"
#include "ppt/trace.h"

enum { N = 1000 };

/* Appends to the text at s (k bytes of cap used so far). */
static void put(char *s, size_t *k, size_t cap, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void put(char *s, size_t *k, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  *k += (size_t)vsnprintf(s + *k, cap - *k, fmt, ap);
  va_end(ap);
  ck_assert_uint_lt(*k, cap);
}

/* The source of a program whose parallel loop sums `arrays` arrays, each through its own
 * local pointer (one captured variable each, plus the result's), into s[i]; it prints
 * the addresses of the arrays' buffer and of s, and exits 0 only if every sum is right.
 * cxx: the region sits in a lambda that captures the pointers by reference. */
static char *gen_source(int arrays, int cxx) {
  size_t cap = 64u * 1024u;
  char *s = malloc(cap);
  ck_assert_ptr_nonnull(s);
  size_t k = 0;
#define PUT(...) put(s, &k, cap, __VA_ARGS__)
  PUT("#include <stdio.h>\n#include <stdlib.h>\n");
  PUT("int main(void) {\n  const long n = %d;\n", N);
  PUT("  double *buf = (double *)malloc(%d * n * sizeof(double)), *s = (double *)malloc(n * sizeof(double));\n",
      arrays);
  PUT("  for (long i = 0; i < %d * n; i++) buf[i] = (double)(i %% 7);\n", arrays);
  for (int a = 0; a < arrays; a++) PUT("  double *p%d = buf + %d * n;\n", a, a);
  if (cxx) PUT("  auto run = [&]() {\n");
  PUT("#pragma omp parallel for schedule(static)\n  for (long i = 0; i < n; i++) s[i] = ");
  for (int a = 0; a < arrays; a++) PUT("%sp%d[i]", a ? " + " : "", a);
  PUT(";\n");
  if (cxx) PUT("  };\n  run();\n");
  PUT("  int bad = 0;\n  for (long i = 0; i < n; i++) {\n    double e = 0;\n");
  PUT("    for (long a = 0; a < %d; a++) e += (double)((a * n + i) %% 7);\n", arrays);
  PUT("    bad += s[i] != e;\n  }\n");
  PUT("  printf(\"%%lu %%lu\\n\", (unsigned long)buf, (unsigned long)s);\n  return bad != 0;\n}\n");
#undef PUT
  return s;
}

typedef struct counts {
  const ppt_trace *t;       /* whose block table tells parallel blocks */
  uint64_t buf, s;          /* the two buffers' addresses */
  uint64_t arrays;          /* how many arrays buf holds */
  uint64_t par_loads_buf;   /* loads of buf in parallel blocks */
  uint64_t par_stores_s;    /* stores to s in parallel blocks */
  uint64_t par_other_buf_s; /* anything else to buf or s in parallel blocks */
} counts;

/* The arguments clang's fork call passes after the body (its captured variables). */
static int fork_args(const char *dir, const char *compiler, const char *file) {
  ck_assert_int_eq(e2e_sh(dir,
                          "%s -O1 -fopenmp -S -emit-llvm %s -o - | grep -o '__kmpc_fork_call(.*' | "
                          "sed -n 's/^[^,]*, i32 \\([0-9]*\\).*/\\1/p' | head -1 >argc.txt",
                          compiler, file),
                   0);
  return (int)e2e_read_ulong(dir, "argc.txt");
}

static void count_one(uint32_t thread, const ppt_trace_rec *r, void *arg) {
  counts *c = arg;
  (void)thread;
  if (r->kind != PPT_REC_LOAD && r->kind != PPT_REC_STORE) return;
  int in_buf = r->addr - c->buf < c->arrays * N * sizeof(double);
  int in_s = r->addr - c->s < N * sizeof(double);
  if (!in_buf && !in_s) return;
  if (!(ppt_trace_bb_get(c->t, r->bb)->flags & PPT_BB_PARALLEL)) return;
  if (in_buf && r->kind == PPT_REC_LOAD)
    c->par_loads_buf++;
  else if (in_s && r->kind == PPT_REC_STORE)
    c->par_stores_s++;
  else
    c->par_other_buf_s++;
}

/* Builds the program, checks clang passes at least min_args to the fork, runs it untraced,
 * traces it on 1 and 2 threads and counts the loop's references in each trace. */
static void check_program(const char *name, int arrays, int cxx, int min_args) {
  const char *d = e2e_dir(name);
  char *src = gen_source(arrays, cxx);
  const char *file = cxx ? "prog.cpp" : "prog.c";
  e2e_write(d, file, src);
  free(src);
  ck_assert_int_ge(fork_args(d, cxx ? "clang++" : "clang", file), min_args);
  const char *cc = cxx ? "\"$(dirname \"$PPTCC\")/ppt-c++\"" : "$PPTCC";
  ck_assert_int_eq(e2e_sh(d, "%s -O1 -fno-vectorize -fno-slp-vectorize -fopenmp %s -o prog", cc, file), 0);
  /* untraced: the wrapper is linked into every ppt-cc binary, traced or not */
  ck_assert_int_eq(e2e_sh(d, "OMP_NUM_THREADS=3 ./prog >plain.txt 2>plain.err"), 0);
  for (int threads = 1; threads <= 2; threads++) {
    ck_assert_int_eq(e2e_sh(d, "$PPT trace --threads %d -o t%d.trace -- ./prog >addr%d.txt 2>trace%d.err", threads,
                            threads, threads, threads),
                     0);
    char p[1024], tf[64];
    snprintf(p, sizeof p, "%s/addr%d.txt", d, threads);
    FILE *f = fopen(p, "r");
    ck_assert_ptr_nonnull(f);
    unsigned long b, s;
    ck_assert_int_eq(fscanf(f, "%lu %lu", &b, &s), 2);
    fclose(f);
    snprintf(tf, sizeof tf, "t%d.trace", threads);
    ppt_trace *t = e2e_open(d, tf);
    ck_assert_uint_eq(ppt_trace_nthreads(t), (unsigned)threads);
    counts c = {t, b, s, (uint64_t)arrays, 0, 0, 0};
    e2e_foreach_rec(t, count_one, &c);
    ck_assert_uint_eq(c.par_loads_buf, (uint64_t)arrays * N);
    ck_assert_uint_eq(c.par_stores_s, N);
    ck_assert_uint_eq(c.par_other_buf_s, 0);
    ppt_trace_close(t);
  }
}

START_TEST(c_region_of_65_variables) {
  check_program("captures-c", 64, 0, 65);
}
END_TEST

START_TEST(cxx_lambda_region_of_42_variables) {
  check_program("captures-cxx", 40, 1, 41);
}
END_TEST

int main(void) {
  Suite *s = suite_create("e2e_captures");
  TCase *tc = tcase_create("captures");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, c_region_of_65_variables);
  tcase_add_test(tc, cxx_lambda_region_of_42_variables);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

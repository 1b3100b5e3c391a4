/* test_e2e_stack.c — machine-level stack references (issue 13): ppt-cc measures, per
 * block, the stack loads and stores of its machine code beyond the IR's (spills, stack
 * arguments, push/pop, call/ret); every pass over the trace counts them. With them, the
 * references `ppt cachesim` counts are within 10 % of Cachegrind's D refs on the
 * uninstrumented build; without them (--no-stack-refs) far below. */
#include <check.h>

#include "ppt_test.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"
#include "ppt/trace.h"

/* Stack-passed arguments (9 integers, 11 doubles), a loop with 20 live accumulators that
 * spills, and a recursive function. */
static const char *k_prog =
    "#include <stdio.h>\n#include <stdlib.h>\n"
    "__attribute__((noinline)) long many_int(long a, long b, long c, long d, long e, long f,\n"
    "    long g, long h, long i) { return a + 2 * b + 3 * c + d * e + f - g + h * i; }\n"
    "__attribute__((noinline)) double many_fp(double a, double b, double c, double d, double e,\n"
    "    double f, double g, double h, double i, double j, double k) {\n"
    "  return a * b + c * d + e * f + g * h + i * j + k; }\n"
    "__attribute__((noinline)) long fib(long n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n"
    "__attribute__((noinline)) long pressure(const long *x, long n) {\n"
    "  long a0 = 0, a1 = 1, a2 = 2, a3 = 3, a4 = 4, a5 = 5, a6 = 6, a7 = 7, a8 = 8, a9 = 9;\n"
    "  long b0 = 0, b1 = 1, b2 = 2, b3 = 3, b4 = 4, b5 = 5, b6 = 6, b7 = 7, b8 = 8, b9 = 9;\n"
    "  for (long i = 0; i < n; i++) {\n"
    "    long v = x[i];\n"
    "    a0 += v; a1 ^= v * 3; a2 += a0 * v; a3 -= a1 + v; a4 += a2 ^ v; a5 *= v | 1;\n"
    "    a6 += a5 >> 3; a7 ^= a6 + v; a8 += a7 * 5; a9 -= a8 ^ a0; b0 += a9 + v; b1 ^= b0 * 7;\n"
    "    b2 += b1 - a3; b3 *= (b2 | 1); b4 += b3 >> 2; b5 ^= b4 + a4; b6 += b5 * 9;\n"
    "    b7 -= b6 ^ a5; b8 += b7 + a6; b9 ^= b8 * 11 + a7;\n"
    "  }\n"
    "  return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + b0 + b1 + b2 + b3 + b4 + b5 + b6\n"
    "         + b7 + b8 + b9;\n"
    "}\n"
    "__attribute__((noinline)) long kernel_calls(long n) {\n"
    "  long s = 0;\n  double d = 0;\n"
    "  for (long i = 0; i < n; i++) {\n"
    "    s += many_int(i, i + 1, i + 2, i + 3, i + 4, i + 5, i + 6, i + 7, i + 8);\n"
    "    d += many_fp(i, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5);\n"
    "  }\n"
    "  return s + (long)d;\n"
    "}\n"
    "int main(int argc, char **argv) {\n"
    "  long n = argc > 1 ? atol(argv[1]) : 1000;\n"
    "  long *x = malloc(n * sizeof *x);\n"
    "  for (long i = 0; i < n; i++) x[i] = i * 7 + 1;\n"
    "  printf(\"%ld\\n\", kernel_calls(n) + pressure(x, n) + fib(20));\n"
    "  free(x);\n  return 0;\n}\n";

/* Dr + Dw of a cachegrind.out file: of function fn, or of the whole run (fn NULL). */
static uint64_t cg_refs(const char *d, const char *fn) {
  char cmd[1024];
  if (fn)
    snprintf(cmd, sizeof cmd,
             "awk '/^events:/{for(i=2;i<=NF;i++)e[i]=$i} /^fn=/{f=substr($0,4)}"
             " /^[0-9]/&&f==\"%s\"{for(i=2;i<=NF;i++)if(e[i]==\"Dr\"||e[i]==\"Dw\")s+=$i}"
             " END{print s+0}' %s/cg.out > %s/cg.txt",
             fn, d, d);
  else
    snprintf(cmd, sizeof cmd,
             "awk '/^events:/{for(i=2;i<=NF;i++)e[i]=$i} /^summary:/{for(i=2;i<=NF;i++)"
             "if(e[i]==\"Dr\"||e[i]==\"Dw\")s+=$i} END{print s+0}' %s/cg.out > %s/cg.txt",
             d, d);
  ck_assert_int_eq(system(cmd), 0);
  return e2e_read_ulong(d, "cg.txt");
}

/* References `ppt cachesim` counted ("counted     all N references"). */
static uint64_t sim_refs(const char *d, const char *opts) {
  ck_assert_int_eq(e2e_sh(d,
                          "$PPT cachesim %s s.trace --hw \"$PPT_SOURCE_DIR/hwspecs/sasmm-cachegrind.json\""
                          " | awk '/^counted/{print $3}' > sim.txt",
                          opts),
                   0);
  return e2e_read_ulong(d, "sim.txt");
}

static int within(uint64_t a, uint64_t b, unsigned pct) {
  return a * 100 >= b * (100 - pct) && a * 100 <= b * (100 + pct);
}

START_TEST(cachegrind_total) {
  if (system("valgrind --version >/dev/null 2>&1") != 0) {
    fprintf(stderr, "cachegrind_total: skipped (no valgrind)\n");
    return;
  }
  const char *d = e2e_dir("stack-cg");
  e2e_write(d, "s.c", k_prog);
  ck_assert_int_eq(e2e_sh(d,
                          "$PPTCC -O2 s.c -o s && $PPT trace -o s.trace -- ./s 200000 >/dev/null 2>&1"
                          " && $($PPTCC -print-prog-name=clang) -O2 -g -gdwarf-4 s.c -o plain"
                          " && valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=cg.out"
                          " ./plain 200000 >/dev/null 2>&1"),
                   0);
  uint64_t cg = cg_refs(d, NULL), with = sim_refs(d, ""), without = sim_refs(d, "--no-stack-refs");
  fprintf(stderr, "cachegrind_total: Cachegrind %llu, ppt cachesim %llu (IR only: %llu)\n",
          (unsigned long long)cg, (unsigned long long)with, (unsigned long long)without);
  ck_assert_msg(within(with, cg, 10), "cachesim %llu vs Cachegrind %llu", (unsigned long long)with,
                (unsigned long long)cg);
  ck_assert_uint_lt(without * 2, cg);
  /* Per function too (kernel_calls loads 7 FP constants from the constant pool per
   * iteration: machine-level references ppt-cc counts with the stack ones). */
  ppt_trace *t = e2e_open(d, "s.trace");
  ppt_trace_set_stack_refs(t, 1);
  ppt_trace_summary s;
  e2e_summarize(t, &s);
  static const char *const fns[] = {"pressure", "fib", "many_int", "many_fp", "kernel_calls"};
  for (int i = 0; i < 5; i++) {
    uint64_t refs = 0;
    for (uint32_t b = 1; b <= ppt_trace_nbbs(t); b++)
      if (strcmp(ppt_trace_bb_get(t, b)->func, fns[i]) == 0) refs += s.bb_refs[b];
    uint64_t c = cg_refs(d, fns[i]);
    fprintf(stderr, "cachegrind_total: %s: trace %llu, Cachegrind %llu\n", fns[i], (unsigned long long)refs,
            (unsigned long long)c);
    ck_assert_msg(within(refs, c, 10), "%s: trace %llu vs Cachegrind %llu", fns[i], (unsigned long long)refs,
                  (unsigned long long)c);
  }
  ck_assert_uint_gt(s.mcstack_refs, s.refs / 2);
  ppt_trace_summary_free(&s);
  ppt_trace_close(t);
  /* ppt info shows them; the SASMM mimic runs with them (private to each core). */
  ck_assert_int_eq(e2e_sh(d,
                          "$PPT info s.trace | grep -q '^stack refs  *[1-9]'"
                          " && $PPT sasmm s.trace --hw \"$PPT_SOURCE_DIR/hwspecs/sasmm-cachegrind.json\""
                          " --cores 1,2 >/dev/null"),
                   0);
}
END_TEST

/* Traces of objects built before issue 13 (no counts in the table) still read 0 and add
 * nothing: the -O0 build, whose stack traffic is nearly all IR (allocas), adds little. */
START_TEST(opmix_counts_them) {
  const char *d = e2e_dir("stack-opmix");
  e2e_write(d, "s.c", k_prog);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O2 s.c -o s && $PPT trace -o s.trace -- ./s 1000 >/dev/null 2>&1"), 0);
  ppt_trace *t = e2e_open(d, "s.trace");
  ppt_trace_set_stack_refs(t, 1);
  ppt_trace_summary s;
  e2e_summarize(t, &s);
  /* LOAD + STORE of the op mix equal each block instance's records, stack ones included. */
  uint64_t opmix = 0, mc = 0;
  for (uint32_t b = 1; b <= ppt_trace_nbbs(t); b++) {
    const ppt_trace_bb *bb = ppt_trace_bb_get(t, b);
    opmix += s.bb_count[b] * (bb->ops[PPT_OP_LOAD] + bb->ops[PPT_OP_STORE]);
    mc += s.bb_count[b] * (bb->stack_loads + bb->stack_stores);
  }
  ck_assert_uint_gt(mc, 0);
  ck_assert_uint_eq(mc, s.mcstack_refs);
  ck_assert_uint_eq(opmix, s.refs);
  ppt_trace_summary_free(&s);
  ppt_trace_set_stack_refs(t, 0);
  e2e_summarize(t, &s);
  ck_assert_uint_eq(s.mcstack_refs, 0);
  ck_assert_uint_eq(s.refs + mc, opmix);
  ppt_trace_summary_free(&s);
  ppt_trace_close(t);
}
END_TEST

int main(void) {
  Suite *s = suite_create("e2e-stack");
  TCase *tc = tcase_create("e2e-stack");
  tcase_set_timeout(tc, 240);
  tcase_add_test(tc, cachegrind_total);
  tcase_add_test(tc, opmix_counts_them);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

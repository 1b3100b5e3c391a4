/* test_e2e_trace.c — ppt-cc + ppt trace + the reader on small programs whose loads and
 * stores are known exactly (volatile data at -O1: every access in the source is one
 * access in the program, and nothing else in compiled code touches memory). */
#include <check.h>

#include "ppt_test.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "e2e.h"
#include "ppt/trace.h"

/* 100 stores + 100 loads of a, 3 x 50 loads and stores of b: 250 loads, 250 stores,
 * on 7 + 7 lines (400-byte arrays, 64-byte aligned). */
static const char *k_counts =
    "volatile int a[100] __attribute__((aligned(64)));\n"
    "volatile double b[50] __attribute__((aligned(64)));\n"
    "int main(void) {\n"
    "  for (int i = 0; i < 100; i++) a[i] = i;\n"
    "  int s = 0;\n"
    "  for (int i = 0; i < 100; i++) s += a[i];\n"
    "  for (int r = 0; r < 3; r++)\n"
    "    for (int i = 0; i < 50; i++) b[i] = b[i] * 2.0;\n"
    "  return s == 4950 ? 0 : 1;\n"
    "}\n";

START_TEST(exact_counts_volatile) {
  const char *d = e2e_dir("counts");
  e2e_write(d, "k.c", k_counts);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 k.c -o k && $PPT trace -o k.trace -- ./k 2>/dev/null"), 0);
  ppt_trace *t = e2e_open(d, "k.trace");
  ppt_trace_summary s;
  e2e_summarize(t, &s);
  ck_assert_uint_eq(s.loads, 250);
  ck_assert_uint_eq(s.stores, 250);
  ck_assert_uint_eq(s.lines64, 14);
  ck_assert_uint_eq(s.threads, 1);
  ck_assert_uint_eq(s.parallel_refs, 0);
  /* The block table names main in k.c for the blocks that touched memory. */
  for (uint32_t id = 1; id <= s.bbs; id++) {
    if (!s.bb_refs[id]) continue;
    const ppt_trace_bb *bb = ppt_trace_bb_get(t, id);
    ck_assert_str_eq(bb->func, "main");
    ck_assert_ptr_nonnull(strstr(bb->file, "k.c"));
    ck_assert_uint_gt(bb->line, 3);
    ck_assert_uint_lt(bb->line, 9);
    ck_assert_uint_gt(bb->ops[PPT_OP_LOAD] + bb->ops[PPT_OP_STORE], 0);
  }
  ppt_trace_summary_free(&s);
  ppt_trace_close(t);
  /* one count of references everywhere: ppt trace's is ppt info's (the IR's and the
   * machine code's stack references), each part named */
  ck_assert_int_eq(e2e_sh(d, "$PPT trace --json -o j.trace -- ./k >t.json 2>/dev/null; $PPT info --json j.trace >i.json"
                             " && test \"$(jq .refs t.json)\" = \"$(jq .refs i.json)\""
                             " && test \"$(jq .mcstack_refs t.json)\" = \"$(jq .mcstack_refs i.json)\""
                             " && test \"$(jq '.refs - .ir_refs - .mcstack_refs' t.json)\" = 0"),
                   0);
}
END_TEST

/* A parallel loop: with 1 thread every reference to x is in the parallel region; with 4
 * threads each thread's stream holds exactly its static share. The outlined function's
 * own bookkeeping (loop bounds passed to libomp) lives on the thread's stack. */
static const char *k_par =
    "#include <stdio.h>\n"
    "volatile double x[1000];\n"
    "int main(void) {\n"
    "  printf(\"%lu\\n\", (unsigned long)x);\n"
    "  x[0] = 1.0;\n"
    "#pragma omp parallel for schedule(static)\n"
    "  for (int i = 0; i < 1000; i++) x[i] = x[i] + 1.0;\n"
    "  return 0;\n"
    "}\n";

/* Counts, per thread, references to [lo, lo + len): in parallel blocks, and in all;
 * and references elsewhere that are not on the thread's stack. */
typedef struct x_count {
  uint64_t lo, len;
  uint64_t *par, *all, *other;
  const ppt_trace *t;
} x_count;

static void count_x_rec(uint32_t th, const ppt_trace_rec *r, void *arg) {
  x_count *x = arg;
  if (r->kind != PPT_REC_LOAD && r->kind != PPT_REC_STORE) return;
  if (r->addr - x->lo >= x->len) {
    *x->other += !(r->flags & PPT_REC_STACK);
    return;
  }
  x->all[th]++;
  x->par[th] += (ppt_trace_bb_get(x->t, r->bb)->flags & PPT_BB_PARALLEL) != 0;
}

static void count_x(ppt_trace *t, uint64_t lo, uint64_t len, uint64_t *par, uint64_t *all, uint64_t *other) {
  for (uint32_t th = 0; th < ppt_trace_nthreads(t); th++) par[th] = all[th] = 0;
  x_count x = {lo, len, par, all, other, t};
  e2e_foreach_rec(t, count_x_rec, &x);
}

START_TEST(parallel_region) {
  const char *d = e2e_dir("parallel");
  e2e_write(d, "p.c", k_par);
  ck_assert_int_eq(
      e2e_sh(d,
             "$PPTCC -O1 -fopenmp p.c -o p && $PPT trace -o p1.trace -- ./p >addr.txt 2>/dev/null"
             " && $PPT trace --threads 4 -o p4.trace -- ./p >addr4.txt 2>/dev/null"),
      0);
  unsigned long x = e2e_read_ulong(d, "addr.txt");
  ppt_trace *t = e2e_open(d, "p1.trace");
  ppt_trace_summary s;
  e2e_summarize(t, &s);
  uint64_t par[4], all[4], other = 0;
  count_x(t, x, 8000, par, all, &other);
  ck_assert_uint_eq(all[0], 2001);
  ck_assert_uint_eq(par[0], 2000);
  ck_assert_uint_eq(other, 0);
  ck_assert_uint_gt(s.parallel_bbs, 0);
  ck_assert_uint_eq(s.parallel_regions, 1);
  ck_assert_uint_eq(s.loops, 1);
  ppt_trace_summary_free(&s);
  ppt_trace_close(t);

  x = e2e_read_ulong(d, "addr4.txt"); /* position-independent: x moves between runs */
  t = e2e_open(d, "p4.trace");
  e2e_summarize(t, &s);
  ck_assert_uint_eq(s.threads, 4);
  count_x(t, x, 8000, par, all, &other);
  ck_assert_uint_eq(par[0] + par[1] + par[2] + par[3], 2000);
  ck_assert_uint_eq(all[0] + all[1] + all[2] + all[3], 2001);
  /* 250 iterations of one load and one store each. */
  for (int th = 0; th < 4; th++) ck_assert_uint_eq(par[th], 500);
  ppt_trace_summary_free(&s);
  ppt_trace_close(t);
}
END_TEST

/* Orphaned worksharing: the loop's pragma sits in a function the region calls, whose
 * blocks are not an outlined body, yet run in parallel. */
static const char *k_orphan =
    "#include <stdio.h>\n"
    "volatile double x[1000];\n"
    "__attribute__((noinline)) void sweep(int n) {\n"
    "#pragma omp for schedule(static)\n"
    "  for (int i = 0; i < n; i++) x[i] = x[i] + 1.0;\n"
    "}\n"
    "int main(void) {\n"
    "  x[0] = 1.0;\n"
    "#pragma omp parallel\n"
    "  sweep(1000);\n"
    "  return x[0] == 2.0 ? 0 : 1;\n"
    "}\n";

START_TEST(orphaned_worksharing_is_parallel) {
  const char *d = e2e_dir("orphan");
  e2e_write(d, "o.c", k_orphan);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 -fopenmp o.c -o o && $PPT trace -o o.trace -- ./o 2>/dev/null"), 0);
  ppt_trace *t = e2e_open(d, "o.trace");
  ppt_trace_summary s;
  e2e_summarize(t, &s);
  uint64_t in_sweep = 0;
  for (uint32_t id = 1; id <= s.bbs; id++)
    if (!strcmp(ppt_trace_bb_get(t, id)->func, "sweep")) in_sweep += s.bb_refs[id];
  ck_assert_uint_ge(in_sweep, 2000); /* the loop's loads and stores of x, and bookkeeping */
  ck_assert_uint_eq(s.parallel_regions, 1);
  ck_assert_uint_eq(s.loops, 1);
  /* the loop's references are inside the region, none of them in an outlined body (main's
   * x[0] after the join is charged to sweep's last block, the last that ran: serial) */
  ck_assert_uint_ge(s.parallel_called_refs, 2000);
  ck_assert_uint_le(s.parallel_called_refs, in_sweep);
  ck_assert_uint_ge(s.parallel_refs, s.parallel_called_refs);
  ck_assert_uint_lt(s.parallel_refs, s.refs); /* main's own x[0] = 1.0 is serial */
  ppt_trace_summary_free(&s);
  ppt_trace_close(t);
  ck_assert_int_eq(e2e_sh(d, "$PPT info o.trace | grep -q 'of them in functions the regions call'"), 0);
}
END_TEST

/* The runtime takes no memory from the program's heap (models/trace/ownheap.h,
 * rt_stack.c): glibc's own account of it (arena, bytes in use, free, including its
 * caches of freed blocks) is the same traced as untraced, on 1 and 2 threads, before main's
 * first allocation, after a parallel region and after enough references to flush chunks
 * (zstd's contexts, the chunk table); and a block the program allocates after freeing
 * another lands where it would untraced. */
static const char *k_heap =
    "#include <malloc.h>\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "volatile double v[4096];\n"
    "static void show(const char *when) {\n"
    "  struct mallinfo2 m = mallinfo2();\n"
    "  printf(\"%s %zu %zu %zu\\n\", when, m.arena, m.uordblks, m.fordblks);\n"
    "}\n"
    "int main(void) {\n"
    "  show(\"start\");\n"
    "  double *a = malloc(1000 * sizeof *a);\n"
    "#pragma omp parallel for\n"
    "  for (int i = 0; i < 1000; i++) a[i] = i;\n"
    "  show(\"region\");\n"
    "  for (int r = 0; r < 100; r++)\n"
    "    for (int i = 0; i < 4096; i++) v[i] = v[i] + a[i % 1000];\n"
    "  char *before = (char *)a;\n"
    "  free(a);\n"
    "  show(\"flushed\");\n"
    "  char *p = malloc(472);\n"
    "  printf(\"block %td\\n\", p - before);\n"
    "  return 0;\n"
    "}\n";

START_TEST(heap_left_alone) {
  const char *d = e2e_dir("heap");
  e2e_write(d, "h.c", k_heap);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 -fopenmp h.c -o h"), 0);
  for (int threads = 1; threads <= 2; threads++)
    ck_assert_int_eq(e2e_sh(d,
                            "OMP_NUM_THREADS=%d ./h >plain.txt && $PPT trace -t %d -o h.trace -- ./h >traced.txt "
                            "2>/dev/null && grep -q flushed plain.txt && cmp plain.txt traced.txt",
                            threads, threads),
                     0);
}
END_TEST

/* Separate compilation and link; the table names each block's own file. */
START_TEST(multi_file_build) {
  const char *d = e2e_dir("multifile");
  e2e_write(d, "a.c",
            "extern volatile long v[8];\nvoid fill(void) { for (int i = 0; i < 8; i++) v[i] = i; }\n");
  e2e_write(d, "b.c",
            "volatile long v[8];\nvoid fill(void);\nlong sum(void) { long s = 0; for (int i = 0; i < 8; i++) "
            "s += v[i]; return s; }\n"
            "int main(void) { fill(); return sum() == 28 ? 0 : 1; }\n");
  ck_assert_int_eq(e2e_sh(d,
                          "$PPTCC -O1 -c a.c -o a.o && $PPTCC -O1 -c b.c && $PPTCC a.o b.o -o ab"
                          " && $PPT trace -o ab.trace -- ./ab 2>/dev/null"),
                   0);
  ppt_trace *t = e2e_open(d, "ab.trace");
  ppt_trace_summary s;
  e2e_summarize(t, &s);
  ck_assert_uint_eq(s.stores, 8);
  ck_assert_uint_eq(s.loads, 8);
  int seen_a = 0, seen_b = 0;
  for (uint32_t id = 1; id <= s.bbs; id++) {
    const ppt_trace_bb *bb = ppt_trace_bb_get(t, id);
    if (!s.bb_refs[id]) continue;
    if (!strcmp(bb->func, "fill")) {
      ck_assert_ptr_nonnull(strstr(bb->file, "a.c"));
      ck_assert_uint_gt(bb->ops[PPT_OP_STORE], 0);
      seen_a = 1;
    } else if (!strcmp(bb->func, "sum") || !strcmp(bb->func, "main")) {
      ck_assert_ptr_nonnull(strstr(bb->file, "b.c"));
      seen_b = 1;
    }
  }
  ck_assert(seen_a && seen_b);
  ppt_trace_summary_free(&s);
  ppt_trace_close(t);
}
END_TEST

/* `make CC=ppt-cc` on a small project with its own Makefile. */
START_TEST(make_build) {
  const char *d = e2e_dir("make");
  e2e_write(d, "Makefile",
            "CFLAGS = -O1 -Wall\n"
            "prog: main.o util.o\n\t$(CC) $(CFLAGS) -o $@ main.o util.o\n"
            "%.o: %.c util.h\n\t$(CC) $(CFLAGS) -c $< -o $@\n");
  e2e_write(d, "util.h", "void touch(volatile int *p, int n);\n");
  e2e_write(
      d, "util.c",
      "#include \"util.h\"\nvoid touch(volatile int *p, int n) { for (int i = 0; i < n; i++) p[i] += 1; }\n");
  e2e_write(d, "main.c",
            "#include \"util.h\"\nvolatile int g[32];\nint main(void) { touch(g, 32); touch(g, 16); return "
            "g[0] == 2 ? 0 : 1; }\n");
  ck_assert_int_eq(
      e2e_sh(d, "make -s CC=\"$PPTCC\" >/dev/null && $PPT trace -o m.trace -- ./prog 2>/dev/null"), 0);
  ppt_trace *t = e2e_open(d, "m.trace");
  ppt_trace_summary s;
  e2e_summarize(t, &s);
  ck_assert_uint_eq(s.loads, 48 + 1);
  ck_assert_uint_eq(s.stores, 48);
  ppt_trace_summary_free(&s);
  ppt_trace_close(t);
}
END_TEST

/* References to a thread's own stack carry the stack flag. */
START_TEST(stack_flag) {
  const char *d = e2e_dir("stack");
  e2e_write(d, "s.c",
            "volatile int g[4];\n"
            "__attribute__((noinline)) int f(void) { volatile int loc[16]; for (int i = 0; i < 16; i++) "
            "loc[i] = i;\n"
            "  int s = 0; for (int i = 0; i < 16; i++) s += loc[i]; return s; }\n"
            "int main(void) { g[0] = f(); return g[0] == 120 ? 0 : 1; }\n");
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 s.c -o s && $PPT trace -o s.trace -- ./s 2>/dev/null"), 0);
  ppt_trace *t = e2e_open(d, "s.trace");
  ppt_trace_summary s;
  e2e_summarize(t, &s);
  ck_assert_uint_eq(s.refs, 33 + 1);
  ck_assert_uint_eq(s.stack_refs, 32);
  ppt_trace_summary_free(&s);
  ppt_trace_close(t);
}
END_TEST

/* ppt-cc marks loop-carried FP recurrences (a sum) and not independent iterations (a
 * scale), and counts calls into libm as calls to untraced code. A recurrence that starts
 * afresh at each entry into its loop is marked so (PPT_CHAIN_FRESH: dot's s = 0, and
 * each row's sum of rows()), one that an outer loop carries on is not (total()'s s runs
 * over every row). */
START_TEST(recurrences_and_library_calls) {
  const char *d = e2e_dir("recurrence");
  e2e_write(
      d, "r.c",
      "#include <math.h>\n"
      "volatile double sink;\n"
      "__attribute__((noinline)) double dot(const double *a, int n) {\n"
      "  double s = 0; for (int i = 0; i < n; i++) s += a[i] * a[i]; return s; }\n"
      "__attribute__((noinline)) void scale(double *a, int n) { for (int i = 0; i < n; i++) a[i] *= 2.0; }\n"
      "__attribute__((noinline)) double harmonic(int n) {\n"
      "  double s = 1; for (int i = 1; i < n; i++) s = 1.0 / (s + i); return s; }\n"
      "__attribute__((noinline)) double norms(const double *a, int n) {\n"
      "  double s = 0; for (int i = 0; i < n; i++) s += __builtin_sqrt(a[i]); return s; }\n"
      "__attribute__((noinline)) void pair(double *restrict p, double *restrict q, const double *restrict "
      "r,\n"
      "                                    int n) {\n"
      "  double pp = 0, qq = 1;\n"
      "  for (int j = 1; j < n; j++) {\n"
      "    double den = 2.5 + 0.75 * pp; pp = -0.75 / den; qq = (r[j] + 0.75 * qq) / den; p[j] = pp; q[j] = "
      "qq;\n"
      "  } }\n"
      "__attribute__((noinline)) double damp(int n) {\n"
      "  double s = 1; for (int i = 0; i < n; i++) s = 0.5 - 0.25 * s; return s; }\n"
      "__attribute__((noinline)) void rows(const double *a, double *out, int m, int n) {\n"
      "  for (int r = 0; r < m; r++) { double s = 0; for (int i = 0; i < n; i++) s += a[r * n + i];\n"
      "    out[r] = s; } }\n"
      "__attribute__((noinline)) double total(const double *a, int m, int n) {\n"
      "  double s = 0; for (int r = 0; r < m; r++) for (int i = 0; i < n; i++) s += a[r * n + i];\n"
      "  return s; }\n"
      "int main(void) { double a[64]; for (int i = 0; i < 64; i++) a[i] = i;\n"
      "  double p[64], q[64]; pair(p, q, a, 64);\n"
      "  double o[8]; rows(a, o, 8, 8);\n"
      "  scale(a, 64); sink = p[9] + q[9] + dot(a, 64) + harmonic(100) + damp(50) + exp(a[3]) + norms(a, "
      "64) + o[3] + total(a, 8, 8); return 0; "
      "}\n");
  ck_assert_int_eq(
      e2e_sh(d, "$PPTCC -O2 -fno-unroll-loops r.c -o r -lm && $PPT trace -o r.trace -- ./r 2>/dev/null"), 0);
  ppt_trace *t = e2e_open(d, "r.trace");
  int dot = 0, scale = 0, harm = 0, xcall = 0, damp = 0, roots = 0, pair = 0, rows = 0, total = 0;
  for (uint32_t id = 1; id <= ppt_trace_nbbs(t); id++) {
    const ppt_trace_bb *bb = ppt_trace_bb_get(t, id);
    /* s += a*a is fmuladd(a, a, s): only the add is on the cycle. s = 0.5 - 0.25*s is
     * fmuladd(-0.25, s, 0.5): without FMA (the default target) the multiply and the
     * add both are. */
    /* Of those, the multiplies (priced at the multiply's latency): none in dot's, one
     * in damp's; harmonic's add is an add. */
    if (!strcmp(bb->func, "dot") && bb->ops[PPT_OP_CHAIN_FP] == 1 && ppt_trace_bb_chain_muls(bb) == 0 &&
        ppt_trace_bb_chain_fresh(bb))
      dot = 1;
    if (!strcmp(bb->func, "rows") && bb->ops[PPT_OP_CHAIN_FP] == 1)
      rows += ppt_trace_bb_chain_fresh(bb) ? 1 : 100;
    if (!strcmp(bb->func, "total") && bb->ops[PPT_OP_CHAIN_FP] == 1)
      total += ppt_trace_bb_chain_fresh(bb) ? 100 : 1;
    if (!strcmp(bb->func, "damp") && bb->ops[PPT_OP_CHAIN_FP] == 2 && ppt_trace_bb_chain_muls(bb) == 1)
      damp = 1;
    if (!strcmp(bb->func, "scale")) scale += bb->ops[PPT_OP_CHAIN_FP] + bb->ops[PPT_OP_CHAIN_DIV];
    if (!strcmp(bb->func, "harmonic") && ppt_trace_bb_chain_divs(bb) == 1 && bb->ops[PPT_OP_CHAIN_FP] == 1 &&
        ppt_trace_bb_chain_muls(bb) == 0 && ppt_trace_bb_chain_moves(bb) == 0)
      harm = 1;
    /* pair(): SLP carries pp and qq as one vector and divides both by den at once
     * (divpd): the cycle reads lane 1 (unpckhpd), multiplies and adds, broadcasts den
     * (unpcklpd) and divides; reading lane 0 and writing lane 0 of an undefined vector
     * cost nothing. */
    if (!strcmp(bb->func, "pair") && ppt_trace_bb_chain_divs(bb) == 1 && ppt_trace_bb_chain_moves(bb) == 2)
      pair = 1;
    if (!strcmp(bb->func, "main")) xcall += bb->ops[PPT_OP_XCALL];
    /* norms(): its loop's divider op is a square root, counted apart (PPT_BB_EXT);
     * harmonic's divide is none. */
    if (!strcmp(bb->func, "norms") && ppt_trace_bb_sqrts(bb) == 1 && bb->ops[PPT_OP_FDIV] >= 1) roots = 1;
    if (!strcmp(bb->func, "harmonic")) ck_assert_uint_eq(ppt_trace_bb_sqrts(bb), 0);
  }
  ck_assert_msg(dot, "the sum in dot() is a recurrence of one add, fresh at each entry");
  ck_assert_msg(rows == 1, "rows(): one inner loop with a fresh recurrence (%d)", rows);
  ck_assert_msg(total == 1, "total(): one inner loop whose recurrence the outer loop carries on (%d)", total);
  ck_assert_msg(damp, "damp(): multiply and add on the cycle");
  ck_assert_int_eq(scale, 0);
  ck_assert_msg(harm, "harmonic(): one add and one divide per iteration on the cycle");
  ck_assert_msg(pair, "pair(): a divide and two lane moves on the cycle");
  ck_assert_int_eq(xcall, 1); /* exp; the runtime's own calls are not in main */
  ck_assert_msg(roots, "norms(): one square root per iteration");
  ppt_trace_close(t);
}
END_TEST

/* A recurrence whose trip spans two blocks: clang unrolls the 299-trip inner loop twice
 * and, 299 being odd, keeps an exit between the copies, so one trip is two blocks and
 * neither loops to itself (rowcol's column walk at N = 3000 compiles so). The cycle runs
 * from a PHI of the first block through both copies of b[i][j] += 0.5 * b[i-1][j] (the
 * previous value stays in a register) and back: 2 multiplies and 2 adds, recorded on the
 * block with the PHI, none on the other. At 1024 rows (1023 = 3 x 341) the same loop
 * unrolls three times into one self-looping block: 3 and 3, as before. Each column's
 * recurrence starts afresh (b[0][j] is loaded); it is marked so (PPT_CHAIN_FRESH) only
 * on the self-looping block: the program model counts an entry's trips as a block's
 * consecutive executions, which the two-block trip does not have. */
START_TEST(recurrence_across_blocks) {
  const char *d = e2e_dir("recurrence2");
  static const char src[] =
      "volatile double sink;\n"
      "__attribute__((noinline)) void colrec(double (*b)[N]) {\n"
      "  for (int j = 0; j < N; j++)\n"
      "    for (int i = 1; i < N; i++) b[i][j] += 0.5 * b[i - 1][j];\n"
      "}\n"
      "static double b[N][N];\n"
      "int main(void) { for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) b[i][j] = i + j;\n"
      "  colrec(b); sink = b[N - 1][N - 1]; return 0; }\n";
  e2e_write(d, "c.c", src);
  static const int rows[2] = {300, 1024};
  for (int v = 0; v < 2; v++) {
    ck_assert_int_eq(
        e2e_sh(d, "$PPTCC -O2 -DN=%d c.c -o c && $PPT trace -o c.trace -- ./c 2>/dev/null", rows[v]), 0);
    ppt_trace *t = e2e_open(d, "c.trace");
    unsigned copies = 0, chained = 0, fp = 0, muls = 0, fresh = 0;
    for (uint32_t id = 1; id <= ppt_trace_nbbs(t); id++) {
      const ppt_trace_bb *bb = ppt_trace_bb_get(t, id);
      if (strcmp(bb->func, "colrec") || bb->line != 4 || !bb->ops[PPT_OP_FMUL]) continue;
      copies++;
      if (bb->ops[PPT_OP_CHAIN_FP]) {
        chained++;
        fp = bb->ops[PPT_OP_CHAIN_FP];
        muls = ppt_trace_bb_chain_muls(bb);
        fresh = ppt_trace_bb_chain_fresh(bb);
      }
    }
    ppt_trace_close(t);
    if (v == 0) {
      ck_assert_msg(copies == 2,
                    "%u blocks of the inner loop: clang no longer unrolls it as this test expects", copies);
      ck_assert_uint_eq(chained, 1);
      ck_assert_uint_eq(fp, 4);
      ck_assert_uint_eq(muls, 2);
      ck_assert_uint_eq(fresh, 0);
    } else {
      ck_assert_msg(copies == 1, "%u blocks of the inner loop", copies);
      ck_assert_uint_eq(chained, 1);
      ck_assert_uint_eq(fp, 6);
      ck_assert_uint_eq(muls, 3);
      ck_assert_uint_eq(fresh, 1);
    }
  }
}
END_TEST

/* ppt trace and ppt info: bad usage and bad input exit 2 with one line naming the file. */
START_TEST(cli_errors) {
  const char *d = e2e_dir("cli");
  e2e_write(d, "junk.trace", "this is not a trace\n");
  ck_assert_int_eq(e2e_sh(d, "$PPT info junk.trace 2>err.txt"), 2);
  ck_assert_int_eq(e2e_sh(d, "test $(wc -l < err.txt) -eq 1 && grep -q 'junk.trace' err.txt"), 0);
  ck_assert_int_eq(e2e_sh(d, "$PPT info missing.trace 2>/dev/null"), 2);
  ck_assert_int_eq(e2e_sh(d, "$PPT info 2>/dev/null"), 2);
  ck_assert_int_eq(e2e_sh(d, "$PPT trace --threads 0 -- true 2>/dev/null"), 2);
  ck_assert_int_eq(e2e_sh(d, "$PPT trace -o x.trace -- /bin/true 2>/dev/null"), 2); /* not ppt-cc built */
  ck_assert_int_eq(e2e_sh(d, "test ! -e x.trace"), 0);
  ck_assert_int_eq(e2e_sh(d, "$PPT info --help | grep -q usage && $PPT trace --help | grep -q usage"), 0);
  /* A program that crashes leaves no trace behind. */
  e2e_write(d, "crash.c", "#include <stdlib.h>\nvolatile int z;\nint main(void) { z = 1; abort(); }\n");
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 crash.c -o crash && $PPT trace -o c.trace -- ./crash 2>/dev/null"),
                   1);
  ck_assert_int_eq(e2e_sh(d, "test -z \"$(ls | grep c.trace)\""), 0);
  /* An output that cannot be written is found before the program runs (it would leave
   * ran.txt): a directory is bad input, a folder that does not exist a failure; one line
   * each, naming the output. */
  e2e_write(d, "mark.c",
            "#include <stdio.h>\nint main(void) { return fclose(fopen(\"ran.txt\", \"w\")); }\n");
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 mark.c -o mark && mkdir -p outdir"), 0);
  ck_assert_int_eq(e2e_sh(d, "$PPT trace -o outdir -- ./mark 2>err.txt"), 2);
  ck_assert_int_eq(e2e_sh(d, "test $(wc -l < err.txt) -eq 1 && grep -q 'outdir: is a directory' err.txt"), 0);
  ck_assert_int_eq(e2e_sh(d, "$PPT trace -o nodir/m.trace -- ./mark 2>err.txt"), 1);
  ck_assert_int_eq(
      e2e_sh(d, "test $(wc -l < err.txt) -eq 1 && grep -q 'nodir/m.trace: cannot create' err.txt"), 0);
  ck_assert_int_eq(e2e_sh(d, "test ! -e ran.txt"), 0);
  ck_assert_int_eq(e2e_sh(d, "$PPT trace -o m.trace -- ./mark 2>/dev/null && test -e ran.txt"), 0);
}
END_TEST

/* A trace that cannot be written (here a file-size limit, EFBIG, as a full disk gives
 * ENOSPC) is a failure with the system's reason, in one line, exit 1, nothing left
 * behind; a program that leaves through _exit (no exit handlers) is named as such:
 * neither is "not built with ppt-cc". */
START_TEST(write_failures_named) {
  const char *d = e2e_dir("e2e_write_fail");
  e2e_write(d, "big.c",
            "#include <stdio.h>\n"
            "#include <unistd.h>\n"
            "static volatile unsigned a[1 << 20];\n"
            "int main(int argc, char **argv) {\n"
            "  unsigned x = 1;\n"
            "  for (int i = 0; i < 2000000; i++) {\n"
            "    x = x * 1103515245u + 12345u;\n"
            "    a[(x >> 8) & ((1u << 20) - 1)] += 1;\n"
            "  }\n"
            "  printf(\"%u\\n\", a[5]);\n"
            "  if (argc > 1) { fflush(stdout); _exit(0); }\n"
            "  return argv[0][0] == 0;\n"
            "}\n");
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 big.c -o big"), 0);
  ck_assert_int_eq(
      e2e_sh(d, "ulimit -f 200; trap '' XFSZ; $PPT trace -o b.trace -- ./big >/dev/null 2>err.txt"), 1);
  ck_assert_int_eq(
      e2e_sh(d,
             "test $(wc -l < err.txt) -eq 1 && grep -q 'b.trace: the trace of ./big could not be "
             "written: File too large' err.txt && ! ls b.trace* 2>/dev/null"),
      0);
  /* A real full disk: a 1 MiB tmpfs (needs root and mount; skipped where it cannot be made). */
  if (e2e_sh(d, "mkdir -p small && mount -t tmpfs -o size=1m tmpfs small 2>/dev/null") == 0) {
    int rc = e2e_sh(d, "$PPT trace -o small/b.trace -- ./big >/dev/null 2>err.txt");
    int ok = e2e_sh(d,
                    "test $(wc -l < err.txt) -eq 1 && grep -q 'small/b.trace: the trace of ./big could not "
                    "be written: No space left on device' err.txt && test -z \"$(ls small)\"");
    ck_assert_int_eq(e2e_sh(d, "umount small"), 0);
    ck_assert_int_eq(rc, 1);
    ck_assert_int_eq(ok, 0);
  } else {
    fprintf(stderr, "write_failures_named: no tmpfs (not root?): full-disk case not run\n");
  }
  ck_assert_int_eq(e2e_sh(d, "$PPT trace -o q.trace -- ./big quick >/dev/null 2>err.txt"), 1);
  ck_assert_int_eq(e2e_sh(d,
                          "test $(wc -l < err.txt) -eq 1 && grep -q 'ended without finishing its trace' "
                          "err.txt && ! ls q.trace* 2>/dev/null"),
                   0);
  ck_assert_int_eq(e2e_sh(d, "$PPT trace -o ok.trace -- ./big >/dev/null 2>err.txt && test -s ok.trace"), 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("e2e_trace");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, exact_counts_volatile);
  tcase_add_test(tc, write_failures_named);
  tcase_add_test(tc, parallel_region);
  tcase_add_test(tc, orphaned_worksharing_is_parallel);
  tcase_add_test(tc, heap_left_alone);
  tcase_add_test(tc, multi_file_build);
  tcase_add_test(tc, make_build);
  tcase_add_test(tc, stack_flag);
  tcase_add_test(tc, cli_errors);
  tcase_add_test(tc, recurrences_and_library_calls);
  tcase_add_test(tc, recurrence_across_blocks);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

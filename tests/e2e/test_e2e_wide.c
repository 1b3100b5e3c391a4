/* test_e2e_wide.c — accesses SanitizerCoverage does not report (apps/ppt-cc/widemem.c):
 * 32-byte AVX2 vectors, masked loads/stores, gathers, memcpy, atomics and long double
 * are traced as apps/ppt-cc/memop.h says, and Cachegrind agrees on the references of an
 * AVX2 kernel. Kernels are noinline functions counted by the blocks of their own name. */
#include <check.h>

#include "ppt_test.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"
#include "ppt/trace.h"
#include "trace/decode.h"

enum { N = 4096 }; /* a multiple of the vectorised loops' 16 elements: no scalar tail */

/* A sum over N longs (clang vectorises the integer reduction: 4 x 8 bytes per load with
 * AVX2, 2 x 8 without), and a scaled copy, which loads and stores. */
static const char *k_sum =
    "#include <stdio.h>\n#include <stdlib.h>\n"
    "__attribute__((noinline)) long kernel_sum(const long *a, int n) {\n"
    "  long s = 0;\n  for (int i = 0; i < n; i++) s += a[i];\n  return s;\n}\n"
    "__attribute__((noinline)) void kernel_scale(double *restrict b, const double *restrict a, int n) {\n"
    "  for (int i = 0; i < n; i++) b[i] = 2.0 * a[i];\n}\n"
    "int main(int argc, char **argv) {\n"
    "  int n = argc > 1 ? atoi(argv[1]) : 4096, reps = argc > 2 ? atoi(argv[2]) : 1;\n"
    "  long *a = aligned_alloc(64, n * sizeof *a);\n"
    "  double *x = aligned_alloc(64, n * sizeof *x), *y = aligned_alloc(64, n * sizeof *y);\n"
    "  for (int i = 0; i < n; i++) { a[i] = i; x[i] = i; }\n"
    "  long s = 0;\n"
    "  for (int r = 0; r < reps; r++) { s += kernel_sum(a, n); kernel_scale(y, x, n); }\n"
    "  printf(\"%ld %g\\n\", s, y[n - 1]);\n  return 0;\n}\n";

typedef struct fstat {
  uint64_t refs, loads, stores, by_lg[8], lines, instances, opmix_refs;
  uint64_t lo, hi; /* lowest and highest address referenced */
  uint32_t vwidth; /* widest VWIDTH of its blocks */
} fstat;

/* When rhi > rlo, only references to [rlo, rhi) count (block instances still do): a
 * kernel's block stays current after it returns, until the caller's next block. */
static uint64_t rlo, rhi;

/* References of the blocks of function `fn`, and the op mix's LOAD + STORE summed over
 * the same block instances (which must equal them: the table counts what is traced). */
static void func_stats(ppt_trace *t, const char *fn, fstat *f) {
  memset(f, 0, sizeof *f);
  f->lo = UINT64_MAX;
  uint8_t *line_seen = calloc(1u << 20, 1); /* 64 MiB of address space around lo */
  uint64_t base = UINT64_MAX;
  for (uint32_t th = 0; th < ppt_trace_nthreads(t); th++) {
    ppt_trace_cursor *c;
    ppt_err err;
    ck_assert_int_eq(ppt_trace_cursor_open(t, th, &c, &err), 0);
    const ppt_trace_rec *r;
    size_t n;
    while (ppt_trace_cursor_next(c, &r, &n, &err) == 0 && n)
      for (size_t i = 0; i < n; i++) {
        const ppt_trace_bb *bb = ppt_trace_bb_get(t, r[i].bb);
        if (strcmp(bb->func, fn) != 0) continue;
        if (r[i].kind == PPT_REC_BB) {
          f->instances++;
          f->opmix_refs += bb->ops[PPT_OP_LOAD] + bb->ops[PPT_OP_STORE];
          if (bb->ops[PPT_OP_VWIDTH] > f->vwidth) f->vwidth = bb->ops[PPT_OP_VWIDTH];
          continue;
        }
        if (r[i].kind != PPT_REC_LOAD && r[i].kind != PPT_REC_STORE) continue;
        if (rhi > rlo && (r[i].addr < rlo || r[i].addr >= rhi)) continue;
        f->refs++;
        f->loads += r[i].kind == PPT_REC_LOAD;
        f->stores += r[i].kind == PPT_REC_STORE;
        f->by_lg[__builtin_ctz(r[i].size)]++;
        if (r[i].addr < f->lo) f->lo = r[i].addr;
        if (r[i].addr > f->hi) f->hi = r[i].addr;
        if (base == UINT64_MAX) base = (r[i].addr >> 6) - (1u << 19);
        uint64_t l = (r[i].addr >> 6) - base;
        if (l < (1u << 20) && !line_seen[l]) {
          line_seen[l] = 1;
          f->lines++;
        }
      }
    ppt_trace_cursor_close(c);
  }
  free(line_seen);
}

static int have_avx2(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
}

/* (a) -O2 -mavx2: N/4 loads of 32 bytes for the sum, N/4 + N/4 for the scaled copy. */
START_TEST(avx2_sum_counts) {
  if (!have_avx2()) {
    fprintf(stderr, "avx2_sum_counts: skipped, this CPU has no AVX2\n");
    return;
  }
  const char *d = e2e_dir("wide-avx2");
  e2e_write(d, "s.c", k_sum);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O2 -mavx2 s.c -o s && $PPT trace -o s.trace -- ./s >/dev/null 2>&1"),
                   0);
  ppt_trace *t = e2e_open(d, "s.trace");
  fstat f;
  func_stats(t, "kernel_sum", &f);
  ck_assert_uint_eq(f.refs, N * 8 / 32);
  ck_assert_uint_eq(f.by_lg[5], N * 8 / 32);
  ck_assert_uint_eq(f.lines, N * 8 / 64);
  ck_assert_uint_eq(f.vwidth, 4);
  ck_assert_uint_eq(f.opmix_refs, f.refs);
  func_stats(t, "kernel_scale", &f);
  ck_assert_uint_eq(f.loads, N * 8 / 32);
  ck_assert_uint_eq(f.stores, N * 8 / 32);
  ck_assert_uint_eq(f.by_lg[5], 2 * N * 8 / 32);
  ck_assert_uint_eq(f.lines, 2 * N * 8 / 64);
  ck_assert_uint_eq(f.opmix_refs, f.refs);
  ppt_trace_close(t);
  /* ppt info shows the width: vector lanes 4 and widest reference 32 bytes. */
  ck_assert_int_eq(e2e_sh(d,
                          "$PPT info s.trace --top 3 | grep -E '^ +[0-9]+ +[0-9]+ +[0-9]+ +4 +32 +[-0-9/]+ "
                          "+[-0-9.]+ +[-0-9%%x]+  kernel_'"),
                   0);
}
END_TEST

/* (b) the same source at -O2 without AVX: 16-byte SSE vectors, same lines. */
START_TEST(sse_sum_counts) {
  const char *d = e2e_dir("wide-sse");
  e2e_write(d, "s.c", k_sum);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O2 s.c -o s && $PPT trace -o s.trace -- ./s >/dev/null 2>&1"), 0);
  ppt_trace *t = e2e_open(d, "s.trace");
  fstat f;
  func_stats(t, "kernel_sum", &f);
  ck_assert_uint_eq(f.refs, N * 8 / 16);
  ck_assert_uint_eq(f.by_lg[4], N * 8 / 16);
  ck_assert_uint_eq(f.lines, N * 8 / 64);
  ck_assert_uint_eq(f.vwidth, 2);
  ck_assert_uint_eq(f.opmix_refs, f.refs);
  ppt_trace_close(t);
}
END_TEST

/* Dr + Dw of function fn in a cachegrind.out file (summed over its source lines). */
static uint64_t cg_refs(const char *d, const char *file, const char *fn) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "awk '/^events:/{for(i=2;i<=NF;i++)e[i]=$i} /^fn=/{f=substr($0,4)}"
           " /^[0-9]/&&f==\"%s\"{for(i=2;i<=NF;i++)if(e[i]==\"Dr\"||e[i]==\"Dw\")s+=$i}"
           " END{print s+0}' %s/%s > %s/cg.txt",
           fn, d, file, d);
  ck_assert_int_eq(system(cmd), 0);
  return e2e_read_ulong(d, "cg.txt");
}

/* (c) Cachegrind counts the data references of the uninstrumented `clang -O2 -mavx2`
 * build; the trace's references of each kernel are within 10 % of them. (Without -mfma:
 * valgrind 3.19 reads a 256-bit FMA's memory operand as 4 loads, the CPU as one.) */
START_TEST(cachegrind_oracle) {
  if (!have_avx2() || system("valgrind --version >/dev/null 2>&1") != 0) {
    fprintf(stderr, "cachegrind_oracle: skipped (no AVX2 or no valgrind)\n");
    return;
  }
  const char *d = e2e_dir("wide-cg");
  e2e_write(d, "s.c", k_sum);
  ck_assert_int_eq(e2e_sh(d,
                          "$PPTCC -O2 -mavx2 s.c -o s && $PPT trace -o s.trace -- ./s 65536 8 >/dev/null 2>&1"
                          " && $($PPTCC -print-prog-name=clang) -O2 -mavx2 -g -gdwarf-4 s.c -o plain"
                          " && valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=cg.out"
                          " ./plain 65536 8 >/dev/null 2>&1"),
                   0);
  ppt_trace *t = e2e_open(d, "s.trace");
  static const char *const fns[] = {"kernel_sum", "kernel_scale"};
  for (int i = 0; i < 2; i++) {
    fstat f;
    func_stats(t, fns[i], &f);
    uint64_t cg = cg_refs(d, "cg.out", fns[i]);
    fprintf(stderr, "cachegrind_oracle: %s: trace %llu references, Cachegrind %llu\n", fns[i],
            (unsigned long long)f.refs, (unsigned long long)cg);
    ck_assert_uint_gt(cg, 0);
    ck_assert_msg(f.refs * 10 >= cg * 9 && f.refs * 10 <= cg * 11, "%s: trace %llu vs Cachegrind %llu",
                  fns[i], (unsigned long long)f.refs, (unsigned long long)cg);
  }
  ppt_trace_close(t);
}
END_TEST

/* (d) what memop.h says each access records. */
static const char *k_kinds =
    "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
    "__attribute__((noinline)) void kernel_cond(double *restrict y, const double *restrict x,\n"
    "    const int *restrict c, int n) { for (int i = 0; i < n; i++) if (c[i]) y[i] = 2.0 * x[i]; }\n"
    "__attribute__((noinline)) long kernel_gather(const long *a, const int *idx, int n) {\n"
    "  long s = 0;\n  for (int i = 0; i < n; i++) s += a[idx[i]];\n  return s;\n}\n"
    "__attribute__((noinline)) void kernel_copy(char *d, const char *s, int n) { memcpy(d, s, n); }\n"
    "struct S { double v[5]; };\n"
    "__attribute__((noinline)) void kernel_struct(struct S *d, const struct S *s) { *d = *s; }\n"
    "__attribute__((noinline)) int kernel_atomic(int *p) { return __atomic_fetch_add(p, 1, 5); }\n"
    "__attribute__((noinline)) long double kernel_ld(const long double *p) { return p[0] * p[1]; }\n"
    "int main(void) {\n"
    "  int n = 4096;\n"
    "  double *x = aligned_alloc(64, n * 8), *y = aligned_alloc(64, n * 8);\n"
    "  int *c = aligned_alloc(64, n * 4);\n  long *a = aligned_alloc(64, n * 8);\n"
    "  for (int i = 0; i < n; i++) { x[i] = i; y[i] = 0; c[i] = (i / 64) & 1; a[i] = i; }\n"
    "  kernel_cond(y, x, c, n);\n"
    "  for (int i = 0; i < n; i++) c[i] = (i * 7) % n;\n"
    "  long s = kernel_gather(a, c, n);\n"
    "  static char src[1000], dst[1000];\n  kernel_copy(dst, src, 1000);\n"
    "  struct S p = {{1}}, q;\n  kernel_struct(&q, &p);\n"
    "  int z = 0;\n  int old = kernel_atomic(&z);\n"
    "  long double l[2] = {1, 2};\n"
    "  printf(\"%g %ld %d %g %d %g\\n\", y[64], s, dst[0], q.v[0], old, (double)kernel_ld(l));\n"
    "  FILE *f = fopen(\"addr.txt\", \"w\");\n"
    "  fprintf(f, \"%lu %lu %lu %lu %lu %lu\\n\", (unsigned long)src, (unsigned long)dst, (unsigned "
    "long)&p,\n"
    "          (unsigned long)&q, (unsigned long)&z, (unsigned long)l);\n"
    "  return fclose(f);\n"
    "}\n";

static void range(uint64_t lo, uint64_t len) {
  rlo = lo;
  rhi = lo + len;
}

START_TEST(access_kinds) {
  if (!have_avx2()) {
    fprintf(stderr, "access_kinds: skipped, this CPU has no AVX2\n");
    return;
  }
  const char *d = e2e_dir("wide-kinds");
  e2e_write(d, "k.c", k_kinds);
  /* -mtune=skylake: clang 14 only vectorises a[idx[i]] with llvm.masked.gather where the
   * tuning says gathers are fast; plain -mavx2 (generic tuning) loads lane by lane. */
  ck_assert_int_eq(
      e2e_sh(d, "$PPTCC -O2 -mavx2 -mtune=skylake k.c -o k && $PPT trace -o k.trace -- ./k >/dev/null 2>&1"),
      0);
  ppt_trace *t = e2e_open(d, "k.trace");
  fstat f;
  /* 16 elements per iteration: 4 loads of c (<4 x i32>, 16 bytes, SanitizerCoverage's),
   * 4 masked loads of x and 4 masked stores of y (32 bytes), recorded only for groups of 4
   * with an active lane: half of them (c is 0 on every other run of 64). */
  func_stats(t, "kernel_cond", &f);
  ck_assert_uint_eq(f.by_lg[4], N / 4);
  ck_assert_uint_eq(f.by_lg[5], N / 4);
  ck_assert_uint_eq(f.stores, N / 8);
  ck_assert_uint_eq(f.refs, N / 2);
  /* Gathers: one 8-byte reference per lane, plus the 16-byte loads of idx. */
  func_stats(t, "kernel_gather", &f);
  ck_assert_uint_eq(f.by_lg[3], N);
  ck_assert_uint_eq(f.by_lg[4], N / 4);
  ck_assert_uint_eq(f.opmix_refs, f.refs);
  /* memcpy of 1000 bytes: 63 16-byte loads and stores, at src + 16k and dst + 16k; a
   * 40-byte struct copy: 3 + 3 (the op mix counts the same for a known length). */
  unsigned long ad[6];
  char path[512];
  snprintf(path, sizeof path, "%s/addr.txt", d);
  FILE *af = fopen(path, "r");
  ck_assert_ptr_nonnull(af);
  ck_assert_int_eq(fscanf(af, "%lu %lu %lu %lu %lu %lu", &ad[0], &ad[1], &ad[2], &ad[3], &ad[4], &ad[5]), 6);
  fclose(af);
  range(ad[0], 1000);
  func_stats(t, "kernel_copy", &f);
  ck_assert_uint_eq(f.loads, 63);
  ck_assert_uint_eq(f.stores, 0);
  ck_assert_uint_eq(f.by_lg[4], 63);
  ck_assert_uint_eq(f.lo, ad[0]);
  ck_assert_uint_eq(f.hi, ad[0] + 62 * 16);
  range(ad[1], 1000);
  func_stats(t, "kernel_copy", &f);
  ck_assert_uint_eq(f.stores, 63);
  ck_assert_uint_eq(f.loads, 0);
  range(ad[2], 40);
  func_stats(t, "kernel_struct", &f);
  ck_assert_uint_eq(f.loads, 3);
  ck_assert_uint_eq(f.stores, 0);
  range(ad[3], 40);
  func_stats(t, "kernel_struct", &f);
  ck_assert_uint_eq(f.stores, 3);
  ck_assert_uint_eq(f.opmix_refs, 6);
  /* An atomic add: a 4-byte load and store; long double: 10 bytes, rounded to 16. */
  range(ad[4], 4);
  func_stats(t, "kernel_atomic", &f);
  ck_assert_uint_eq(f.loads, 1);
  ck_assert_uint_eq(f.stores, 1);
  ck_assert_uint_eq(f.by_lg[2], 2);
  range(ad[5], 32);
  func_stats(t, "kernel_ld", &f);
  ck_assert_uint_eq(f.loads, 2);
  ck_assert_uint_eq(f.by_lg[4], 2);
  range(0, 0);
  ppt_trace_close(t);
}
END_TEST

/* The decoder takes sizes up to 64 bytes (lg 6) and rejects lg 7 as corrupt. */
START_TEST(decode_lg) {
  for (unsigned lg = 5; lg <= 7; lg++) {
    /* block 1, then a load of 2^lg bytes at 0x40 (address mode 2: zigzag delta 0x80). */
    unsigned char raw[] = {0, 1, (unsigned char)(1u | (lg << 2) | (2u << 6)), 0x80, 0x01};
    ppt_trace_chunk_info c = {.nrecs = 2, .nrefs = 1};
    ppt_trace_rec r[2];
    ppt_trace_event *ev = NULL;
    size_t cap = 0;
    int rc = ppt_trace_decode_records(1, &c, raw, raw + sizeof raw, r, &ev, &cap);
    free(ev);
    if (lg == 7) {
      ck_assert_int_eq(rc, -1);
      continue;
    }
    ck_assert_int_eq(rc, 0);
    ck_assert_uint_eq(r[1].size, 1u << lg);
    ck_assert_uint_eq(r[1].addr, 0x40);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("e2e_wide");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 180);
  tcase_add_test(tc, decode_lg);
  tcase_add_test(tc, avx2_sum_counts);
  tcase_add_test(tc, sse_sum_counts);
  tcase_add_test(tc, cachegrind_oracle);
  tcase_add_test(tc, access_kinds);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

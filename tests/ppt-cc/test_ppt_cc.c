/* test_ppt_cc.c — ppt-cc compiles small C files into objects whose ppt_bbtab section is
 * checked against the object itself (one descriptor per SanitizerCoverage guard) and
 * against op mixes read by hand from `clang -S -emit-llvm` with the same flags (clang 14).
 * Runs the built build/bin/ppt-cc (PPT_BINARY_DIR) in a fresh folder per test. */
#include <check.h>

#include "ppt_test.h"
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../apps/ppt-cc/args.h"
#include "elfobj.h"
#include "ppt/trace.h"
#include "trace/bbdesc.h"

extern char **environ;

static char dir[256];    /* this test's folder (and cwd) */
static char tmpdir[300]; /* TMPDIR given to ppt-cc: must be empty after every run */

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb, (void)flag, (void)ftw;
  return remove(p);
}

static void setup(void) {
  snprintf(dir, sizeof dir, "/tmp/ppt-cc-test.XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  ck_assert_int_eq(chdir(dir), 0);
  ck_assert_ptr_nonnull(getcwd(dir, sizeof dir)); /* resolved, as clang will see it */
  snprintf(tmpdir, sizeof tmpdir, "%s/tmp", dir);
  ck_assert_int_eq(mkdir(tmpdir, 0700), 0);
  setenv("TMPDIR", tmpdir, 1);
  unsetenv("PPT_CC_VERBOSE");
  unsetenv("PPT_CC_KEEP_TEMPS");
}

static void teardown(void) {
  if (chdir("/") == 0)
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void write_file(const char *name, const char *text) {
  FILE *f = fopen(name, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
}

static char *read_file(const char *name) {
  FILE *f = fopen(name, "rb");
  if (!f)
    return NULL;
  char *buf = calloc(1, 1 << 20);
  size_t n = fread(buf, 1, (1 << 20) - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

/* ppt-cc's temporary folders must all be gone after each run. */
static int tmpdir_empty(void) {
  DIR *d = opendir(tmpdir);
  if (!d)
    return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
  closedir(d);
  return n == 0;
}

/* Runs argv (argv[0] resolved through PATH), stdout+stderr to `log`; the exit status. */
static int run_logged(char *const argv[], const char *log) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  ck_assert_msg(rc == 0, "cannot run %s", argv[0]);
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static const char *ppt_cc_path(void) {
  static char p[512];
  const char *b = getenv("PPT_BINARY_DIR");
  ck_assert_msg(b != NULL, "PPT_BINARY_DIR not set (run through ctest)");
  snprintf(p, sizeof p, "%s/bin/ppt-cc", b);
  return p;
}

/* ppt-cc ARGS... (NULL-terminated); output in "ppt-cc.log". */
static int ppt_cc(const char *first, ...) {
  char *argv[64];
  int n = 0;
  argv[n++] = (char *)ppt_cc_path();
  va_list ap;
  va_start(ap, first);
  for (const char *a = first; a && n < 63; a = va_arg(ap, const char *))
    argv[n++] = (char *)a;
  va_end(ap);
  argv[n] = NULL;
  return run_logged(argv, "ppt-cc.log");
}

static const char *log_text(void) {
  static char *t;
  free(t);
  t = read_file("ppt-cc.log");
  return t ? t : "";
}

/* Loads an object's descriptors (strings point into *keep, which the caller closes) and
 * checks the invariant every table must meet: one descriptor per SanitizerCoverage guard,
 * each guard claimed by exactly one descriptor, magic and stack fields sane. */
static elfdesc *table_keep(const char *obj, size_t *n, elfobj **keep) {
  elfobj *o = elfobj_open(obj);
  ck_assert_msg(o != NULL, "%s is not an x86-64 ELF object", obj);
  uint64_t gbytes = elfobj_bytes(o, "__sancov_guards");
  elfdesc *d = elfobj_descs(o, n);
  ck_assert_msg(d != NULL, "%s: no ppt_bbtab section", obj);
  ck_assert_uint_eq(elfobj_bytes(o, "ppt_bbtab"), *n * sizeof(struct ppt_bbdesc));
  ck_assert_uint_eq(gbytes % 4, 0);
  ck_assert_uint_eq(*n, gbytes / 4);
  for (size_t i = 0; i < *n; i++) {
    ck_assert_uint_eq(d[i].magic, PPT_BBDESC_MAGIC);
    /* machine-level stack references: a handful per block, never garbage */
    ck_assert_uint_lt(d[i].stack & 0xFFFFu, 1024);
    ck_assert_uint_lt(d[i].stack >> 16, 1024);
    ck_assert_ptr_nonnull(d[i].func);
    ck_assert_ptr_nonnull(d[i].file);
    ck_assert_str_eq(elfobj_secname(o, d[i].guard_sec), "__sancov_guards");
    ck_assert_uint_eq(d[i].guard_off % 4, 0);
    ck_assert_uint_lt(d[i].guard_off, elfobj_secsize(o, d[i].guard_sec));
    for (size_t k = 0; k < i; k++)
      ck_assert_msg(d[k].guard_sec != d[i].guard_sec || d[k].guard_off != d[i].guard_off,
                    "two descriptors for one guard");
    for (int k = PPT_OP_COUNT; k < PPT_BBDESC_NOPS; k++)
      ck_assert_uint_eq(d[i].ops[k], 0);
    ck_assert_uint_ge(d[i].ops[PPT_OP_VWIDTH], 1);
  }
  /* n distinct 4-byte slots inside guard sections of n*4 bytes: every guard is described. */
  *keep = o;
  return d;
}

static size_t count_func(const elfdesc *d, size_t n, const char *func) {
  size_t c = 0;
  for (size_t i = 0; i < n; i++)
    c += strcmp(d[i].func, func) == 0;
  return c;
}

static const char k_fg_src[] =
    "double f(double *a, double *b) { return a[0] * b[0] + a[1] / b[1]; }\n"
    "int g(int *x, int n) { int s = 0; for (int i = 0; i < n; i++) s += x[i]; return s; }\n";

START_TEST(straight_line_op_mix) {
  write_file("fg.c", k_fg_src);
  ck_assert_msg(ppt_cc("-O1", "-c", "fg.c", "-o", "fg.o", NULL) == 0, "%s", log_text());
  ck_assert(tmpdir_empty());
  size_t n;
  elfobj *o;
  elfdesc *d = table_keep("fg.o", &n, &o);
  char want_file[400];
  snprintf(want_file, sizeof want_file, "%s/fg.c", dir); /* relative name + DW_AT_comp_dir */
  ck_assert_uint_eq(n, 5);
  ck_assert_uint_eq(count_func(d, n, "f"), 1);
  ck_assert_uint_eq(count_func(d, n, "g"), 4);
  /* f at -O1 (clang -S -emit-llvm): 4 loads, fdiv, llvm.fmuladd (= 1 FMUL + 1 FADD),
   * 2 GEPs and ret (OTHER); the sancov calls and their address casts are not counted. */
  const uint16_t want_f[PPT_BBDESC_NOPS] = {[PPT_OP_FADD] = 1,  [PPT_OP_FMUL] = 1,
                                            [PPT_OP_FDIV] = 1,  [PPT_OP_LOAD] = 4,
                                            [PPT_OP_VWIDTH] = 1, [PPT_OP_OTHER] = 3};
  /* g's blocks: entry (icmp, br), preheader (zext, br), exit (phi, ret), loop body
   * (gep, load, add, add, icmp, br). */
  const uint16_t want_g[4][PPT_BBDESC_NOPS] = {
      {[PPT_OP_IALU] = 1, [PPT_OP_BRANCH] = 1, [PPT_OP_VWIDTH] = 1},
      {[PPT_OP_BRANCH] = 1, [PPT_OP_VWIDTH] = 1, [PPT_OP_OTHER] = 1},
      {[PPT_OP_VWIDTH] = 1, [PPT_OP_OTHER] = 1},
      {[PPT_OP_IALU] = 3, [PPT_OP_LOAD] = 1, [PPT_OP_BRANCH] = 1, [PPT_OP_VWIDTH] = 1,
       [PPT_OP_OTHER] = 1}};
  int seen_g[4] = {0}, returns = 0;
  for (size_t i = 0; i < n; i++) {
    ck_assert_str_eq(d[i].file, want_file);
    if (strcmp(d[i].func, "f") == 0) {
      ck_assert_mem_eq(d[i].ops, want_f, sizeof want_f);
      /* One block: enters and returns. Its longest FP chain is a[1]/b[1] into the
       * fmuladd's addend: one divide then one add (the multiply is off the path,
       * without FMA), weight 14 + 4 against the factors' 4 + 4. No roots. */
      ck_assert_uint_eq(d[i].flags, PPT_BB_FUNC_ENTRY | PPT_BB_RETURN | PPT_BB_EXT | PPT_BB_PATH |
                                        1u << PPT_BB_PATH_ADD_SHIFT | 1u << PPT_BB_PATH_DIV_SHIFT);
      ck_assert_uint_eq(d[i].line, 1);
      continue;
    }
    ck_assert_uint_eq(d[i].line, 2);
    int k = 0;
    while (k < 4 && memcmp(d[i].ops, want_g[k], sizeof want_g[k]) != 0)
      k++;
    ck_assert_msg(k < 4, "unexpected op mix in g");
    seen_g[k]++;
    /* g: integer only, so its path holds no FP op (PPT_BB_PATH with zero counts). */
    ck_assert_uint_eq(d[i].flags & ~(uint32_t)PPT_BB_RETURN,
                      (k == 0 ? PPT_BB_FUNC_ENTRY : 0) | PPT_BB_EXT | PPT_BB_PATH);
    returns += (d[i].flags & PPT_BB_RETURN) != 0;
  }
  for (int k = 0; k < 4; k++)
    ck_assert_int_eq(seen_g[k], 1);
  ck_assert_int_eq(returns, 1); /* g's loop exits to one block that returns */
  free(d);
  elfobj_close(o);
}
END_TEST

static const char k_omp_src[] =
    "void axpy(int n, double a, double *x, double *y) {\n"
    "#pragma omp parallel for\n"
    "  for (int i = 0; i < n; i++) y[i] += a * x[i];\n"
    "}\n";

static void check_parallel_flags(const char *olevel) {
  write_file("omp.c", k_omp_src);
  ck_assert_msg(ppt_cc(olevel, "-fopenmp", "-c", "omp.c", "-o", "omp.o", NULL) == 0, "%s",
                log_text());
  size_t n, npar = 0, body = 0, entries = 0;
  elfobj *o;
  elfdesc *d = table_keep("omp.o", &n, &o);
  for (size_t i = 0; i < n; i++) {
    int outlined = strncmp(d[i].func, ".omp_outlined.", 14) == 0;
    ck_assert_msg(outlined == !!(d[i].flags & PPT_BB_PARALLEL), "%s: flags %u", d[i].func,
                  d[i].flags);
    if (!outlined) {
      ck_assert_str_eq(d[i].func, "axpy");
      continue;
    }
    npar++;
    entries += (d[i].flags & PPT_BB_FUNC_ENTRY) != 0;
    /* the loop body: y[i] += a * x[i] is an fmuladd: FMUL and FADD, two loads, a store */
    body += d[i].ops[PPT_OP_FMUL] >= 1 && d[i].ops[PPT_OP_FADD] == d[i].ops[PPT_OP_FMUL] &&
            d[i].ops[PPT_OP_STORE] >= 1 && d[i].line == 3;
  }
  ck_assert_uint_ge(npar, 3);
  ck_assert_uint_ge(entries, 1);
  ck_assert_uint_ge(body, 1);
  ck_assert_uint_ge(count_func(d, n, "axpy"), 1);
  free(d);
  elfobj_close(o);
}

START_TEST(openmp_parallel_flag_O2) { check_parallel_flags("-O2"); }
END_TEST

START_TEST(openmp_parallel_flag_O0) { check_parallel_flags("-O0"); }
END_TEST

/* OpenMP pragmas without -fopenmp: a serial build of a parallel source is named (one
 * warning per ignored pragma, never an error even under -Werror); with -fopenmp, or
 * without pragmas, ppt-cc adds nothing. */
START_TEST(pragmas_without_openmp_warn) {
  write_file("omp.c", k_omp_src);
  ck_assert_msg(ppt_cc("-O2", "-Werror", "-c", "omp.c", "-o", "omp.o", NULL) == 0, "%s", log_text());
  ck_assert_msg(strstr(log_text(), "omp.c:2:") && strstr(log_text(), "source-uses-openmp"), "%s", log_text());
  ck_assert_msg(ppt_cc("-O2", "-Werror", "-fopenmp", "-c", "omp.c", "-o", "omp.o", NULL) == 0, "%s", log_text());
  ck_assert_msg(!strstr(log_text(), "source-uses-openmp"), "%s", log_text());
  ck_assert_msg(ppt_cc("-O2", "-fopenmp", "-fno-openmp", "-c", "omp.c", "-o", "omp.o", NULL) == 0, "%s",
                log_text());
  ck_assert_msg(strstr(log_text(), "source-uses-openmp"), "%s", log_text());
  write_file("plain.c", k_fg_src);
  ck_assert_msg(ppt_cc("-O2", "-Werror", "-c", "plain.c", "-o", "plain.o", NULL) == 0, "%s", log_text());
  ck_assert_msg(!strstr(log_text(), "warning"), "%s", log_text());
  ck_assert(tmpdir_empty());
}
END_TEST

START_TEST(vector_width_and_classes) {
  write_file("v.c", "void vmul(float *restrict a, const float *restrict b,\n"
                    "          const float *restrict c, int n) {\n"
                    "  for (int i = 0; i < n; i++) a[i] = b[i] * c[i];\n"
                    "}\n"
                    "void iadd(int *restrict a, const int *restrict b, int n) {\n"
                    "  for (int i = 0; i < n; i++) a[i] += b[i];\n"
                    "}\n");
  ck_assert_msg(ppt_cc("-O2", "-mavx2", "-c", "v.c", "-o", "v.o", NULL) == 0, "%s", log_text());
  size_t n, fvec = 0, ivec = 0;
  elfobj *o;
  elfdesc *d = table_keep("v.o", &n, &o);
  for (size_t i = 0; i < n; i++) {
    const uint16_t *k = d[i].ops;
    if (k[PPT_OP_VWIDTH] != 8)
      continue;
    /* AVX2 vector loop bodies (<8 x float>, <8 x i32>, unrolled by the vectorizer): every
     * load, store and arithmetic op is on vectors; the induction add and the exit compare
     * are the block's only scalar ops. */
    if (strcmp(d[i].func, "vmul") == 0 && k[PPT_OP_FMUL] >= 1) {
      ck_assert_uint_eq(k[PPT_OP_LOAD], 2 * k[PPT_OP_FMUL]);
      ck_assert_uint_eq(k[PPT_OP_STORE], k[PPT_OP_FMUL]);
      ck_assert_uint_eq(k[PPT_OP_VFP], k[PPT_OP_LOAD] + k[PPT_OP_STORE] + k[PPT_OP_FMUL]);
      ck_assert_uint_eq(k[PPT_OP_VINT], 0);
      ck_assert_uint_eq(k[PPT_OP_IALU], 2);
      fvec++;
    }
    if (strcmp(d[i].func, "iadd") == 0 && k[PPT_OP_LOAD] >= 2) {
      ck_assert_uint_eq(k[PPT_OP_LOAD], 2 * k[PPT_OP_STORE]);
      ck_assert_uint_eq(k[PPT_OP_VINT], k[PPT_OP_LOAD] + k[PPT_OP_STORE] + k[PPT_OP_IALU] - 2);
      ck_assert_uint_eq(k[PPT_OP_IALU] - 2, k[PPT_OP_STORE]); /* one vector add per store */
      ck_assert_uint_eq(k[PPT_OP_VFP], 0);
      ivec++;
    }
  }
  ck_assert_uint_eq(fvec, 1);
  ck_assert_uint_eq(ivec, 1);
  free(d);
  elfobj_close(o);
}
END_TEST

START_TEST(dependency_files_name_the_object) {
  write_file("hdr.h", "#define K 3\n");
  write_file("dep.c", "#include \"hdr.h\"\nint k(void) { return K; }\n");
  ck_assert_int_eq(mkdir("sub", 0755), 0);
  ck_assert_msg(ppt_cc("-MD", "-c", "dep.c", "-o", "sub/dep.o", NULL) == 0, "%s", log_text());
  char *t = read_file("sub/dep.d");
  ck_assert_msg(t != NULL, "no sub/dep.d");
  ck_assert_msg(strncmp(t, "sub/dep.o:", 10) == 0, "dep file: %s", t);
  ck_assert_ptr_nonnull(strstr(t, "dep.c"));
  ck_assert_ptr_nonnull(strstr(t, "hdr.h"));
  free(t);
  /* -MMD without -o: clang's defaults, dep.o and dep.d in the current folder */
  ck_assert_msg(ppt_cc("-MMD", "-c", "dep.c", NULL) == 0, "%s", log_text());
  t = read_file("dep.d");
  ck_assert_msg(t && strncmp(t, "dep.o:", 6) == 0, "dep file: %s", t ? t : "(none)");
  free(t);
  ck_assert_int_eq(access("dep.o", R_OK), 0);
  /* the user's -MF/-MT are kept */
  ck_assert_msg(ppt_cc("-MD", "-MF", "x.dep", "-MT", "tgt", "-c", "dep.c", "-o", "y.o", NULL) == 0,
                "%s", log_text());
  t = read_file("x.dep");
  ck_assert_msg(t && strncmp(t, "tgt:", 4) == 0, "dep file: %s", t ? t : "(none)");
  free(t);
  ck_assert(tmpdir_empty());
}
END_TEST

START_TEST(failures_exit_nonzero_and_clean_up) {
  write_file("bad.c", "int x = ;\n");
  ck_assert_int_ne(ppt_cc("-c", "bad.c", "-o", "bad.o", NULL), 0);
  ck_assert_ptr_nonnull(strstr(log_text(), "error"));
  ck_assert_int_ne(access("bad.o", F_OK), 0);
  ck_assert(tmpdir_empty());
  write_file("ok.c", "int ok(void) { return 1; }\n");
  setenv("PPT_CC_CLANG", "/nonexistent/clang", 1);
  ck_assert_int_ne(ppt_cc("-c", "ok.c", NULL), 0);
  ck_assert_ptr_nonnull(strstr(log_text(), "ppt-cc: cannot run /nonexistent/clang"));
  unsetenv("PPT_CC_CLANG");
  setenv("PPT_CC_RUNTIME", "/nonexistent/libppt_rt.a", 1);
  ck_assert_int_ne(ppt_cc("ok.c", "-o", "ok", NULL), 0);
  ck_assert_ptr_nonnull(strstr(log_text(), "PPT_CC_RUNTIME"));
  unsetenv("PPT_CC_RUNTIME");
  ck_assert(tmpdir_empty());
}
END_TEST

START_TEST(passthrough_modes) {
  write_file("p.c", "int marker_token;\nint use(void) { return marker_token; }\n");
  ck_assert_int_eq(ppt_cc("-E", "p.c", NULL), 0);
  ck_assert_ptr_nonnull(strstr(log_text(), "int marker_token;"));
  ck_assert_int_eq(ppt_cc("-S", "p.c", "-o", "p.s", NULL), 0);
  char *s = read_file("p.s");
  ck_assert_ptr_nonnull(s);
  ck_assert_ptr_null(strstr(s, "__sanitizer_cov")); /* -S is plain clang */
  free(s);
  ck_assert_int_eq(ppt_cc("--version", NULL), 0);
  ck_assert_ptr_nonnull(strstr(log_text(), "clang version"));
  ck_assert_int_eq(ppt_cc("--ppt-help", NULL), 0);
  ck_assert_ptr_nonnull(strstr(log_text(), "PPT_CC_CLANG"));
}
END_TEST

/* Separate compile, compile-and-link, and the link itself, against a stand-in runtime
 * that checks the linked table (fixture_rt.c). */
START_TEST(separate_compile_and_link) {
  const char *src = getenv("PPT_SOURCE_DIR");
  ck_assert_ptr_nonnull(src);
  char fixture[512], inc[512];
  snprintf(fixture, sizeof fixture, "%s/tests/ppt-cc/fixture_rt.c", src);
  snprintf(inc, sizeof inc, "-I%s/models", src);
  char *cc[] = {"clang", "-O1", "-c", inc, fixture, "-o", "fixture.o", NULL};
  ck_assert_int_eq(run_logged(cc, "clang.log"), 0);
  write_file("lib.c", k_fg_src);
  write_file("main.c", "#include <stdio.h>\n"
                       "double f(double *a, double *b); int g(int *x, int n);\n"
                       "int main(void) { double a[2] = {1, 2}, b[2] = {3, 4};\n"
                       "  int x[4] = {1, 2, 3, 4};\n"
                       "  printf(\"%g %d\\n\", f(a, b), g(x, 4)); return 0; }\n");
  setenv("PPT_CC_RUNTIME", "fixture.o", 1);
  ck_assert_msg(ppt_cc("-O2", "-Wall", "-Werror", "-c", "lib.c", "-o", "lib.o", NULL) == 0, "%s",
                log_text());
  ck_assert_msg(ppt_cc("-O2", "-Wall", "-Werror", "main.c", "lib.o", "-o", "prog", "-lm", NULL) ==
                    0,
                "%s", log_text());
  unsetenv("PPT_CC_RUNTIME");
  ck_assert(tmpdir_empty());
  char *run[] = {"./prog", NULL};
  ck_assert_int_eq(run_logged(run, "prog.log"), 0);
  char *out = read_file("prog.log");
  ck_assert_ptr_nonnull(out);
  ck_assert_ptr_nonnull(strstr(out, "3.5 10\n"));
  size_t descs, guards, bad, dup;
  unsigned long hits;
  const char *rep = strstr(out, "fixture:");
  ck_assert_ptr_nonnull(rep);
  ck_assert_int_eq(sscanf(rep, "fixture: descs=%zu guards=%zu bad=%zu dup=%zu hits=%lu", &descs,
                          &guards, &bad, &dup, &hits),
                   5);
  ck_assert_uint_gt(guards, 5); /* lib.o's 5 blocks and main's */
  ck_assert_uint_eq(descs, guards);
  ck_assert_uint_eq(bad, 0);
  ck_assert_uint_eq(dup, 0);
  ck_assert_uint_gt(hits, 0);
  free(out);
}
END_TEST

START_TEST(argument_roles) {
  char *argv[] = {"ppt-cc", "-O2", "-pthread", "-o", "out", "-I", "inc", "-DX=1", "-fopenmp",
                  "-march=native", "-MD", "-MF", "a.d", "-x", "c", "in.txt", "-x", "none",
                  "asm.S", "lib.a", "-lm", "-Wl,-z,now", "-flto", "-mllvm", "-foo", NULL};
  int argc = (int)(sizeof argv / sizeof *argv) - 1;
  pcc_cmdline cl;
  ppt_err err;
  ck_assert_int_eq(pcc_args_parse(argc, argv, &cl, &err), 0);
  ck_assert_ptr_null(cl.passthrough);
  ck_assert(!cl.compile_only && cl.deps && cl.dep_file_given && !cl.dep_target_given && cl.lto);
  ck_assert_str_eq(cl.output, "out");
  ck_assert_str_eq(cl.olevel, "-O2");
  ck_assert_uint_eq(cl.n_c, 1);
  ck_assert_uint_eq(cl.n_src, 1);
  ck_assert_uint_eq(cl.n_link, 1);
  const enum pcc_role want[] = {PCC_R_OLEVEL,   PCC_R_OTHER,   PCC_R_OUTPUT,  PCC_R_OTHER,
                                PCC_R_OTHER,    PCC_R_CODEGEN, PCC_R_CODEGEN, PCC_R_OTHER,
                                PCC_R_DEPFILE,  PCC_R_LANG,    PCC_R_IN_C,    PCC_R_LANG,
                                PCC_R_IN_SRC,   PCC_R_IN_LINK, PCC_R_LINK,    PCC_R_LINK,
                                PCC_R_LTO,      PCC_R_CODEGEN};
  ck_assert_uint_eq(cl.n, sizeof want / sizeof *want);
  for (size_t i = 0; i < cl.n; i++)
    ck_assert_msg(cl.a[i].role == want[i], "arg %zu (%s): role %d", i, cl.a[i].s[0],
                  (int)cl.a[i].role);
  ck_assert_str_eq(cl.a[10].xlang, "c");
  ck_assert_ptr_null(cl.a[12].xlang);
  ck_assert_str_eq(cl.a[17].s[1], "-foo"); /* -mllvm's value is not an option */
  ck_assert_ptr_null(cl.final_xlang);
  pcc_args_free(&cl);

  char *one[] = {"ppt-cc", "-c", "a.c", "-o", "x.o", NULL};
  ck_assert_int_eq(pcc_args_parse(5, one, &cl, &err), 0);
  ck_assert(cl.compile_only && !cl.passthrough && cl.n_c == 1);
  pcc_args_free(&cl);
  char *two[] = {"ppt-cc", "-c", "a.c", "b.S", "-o", "x.o", NULL};
  ck_assert_int_eq(pcc_args_parse(6, two, &cl, &err), 0);
  ck_assert_ptr_nonnull(cl.passthrough); /* clang reports -o with several outputs */
  pcc_args_free(&cl);
  char *pass[] = {"ppt-cc", "-E", "a.c", NULL};
  ck_assert_int_eq(pcc_args_parse(3, pass, &cl, &err), 0);
  ck_assert_ptr_nonnull(cl.passthrough);
  pcc_args_free(&cl);
  char *none[] = {"ppt-cc", "-v", NULL};
  ck_assert_int_eq(pcc_args_parse(2, none, &cl, &err), 0);
  ck_assert_ptr_nonnull(cl.passthrough);
  pcc_args_free(&cl);

  char *s = pcc_path_stem("dir.x/foo.tar.gz");
  ck_assert_str_eq(s, "foo.tar");
  free(s);
  s = pcc_path_replace_ext("dir.x/prog", "d");
  ck_assert_str_eq(s, "dir.x/prog.d");
  free(s);
  s = pcc_path_replace_ext("b/x.obj", "d");
  ck_assert_str_eq(s, "b/x.d");
  free(s);
}
END_TEST

int main(void) {
  Suite *s = suite_create("ppt-cc");
  TCase *tc = tcase_create("ppt-cc");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, argument_roles);
  tcase_add_test(tc, straight_line_op_mix);
  tcase_add_test(tc, openmp_parallel_flag_O2);
  tcase_add_test(tc, openmp_parallel_flag_O0);
  tcase_add_test(tc, vector_width_and_classes);
  tcase_add_test(tc, dependency_files_name_the_object);
  tcase_add_test(tc, failures_exit_nonzero_and_clean_up);
  tcase_add_test(tc, passthrough_modes);
  tcase_add_test(tc, separate_compile_and_link);
  tcase_add_test(tc, pragmas_without_openmp_warn);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

/* test_e2e_children.c — `ppt trace` loses nothing and says nothing false: a traced
 * program that runs or forks other programs keeps its own trace intact (only the process
 * ppt trace started records, docs/ppt-cc.md), a trace with a bad chunk is refused, and a
 * signalled ppt trace takes its program and its temporary file with it. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"
#include "ppt/trace.h"
#include "ppt_test.h"

/* A ppt-cc program that, run on its own, makes 50 x 1000 loads and stores: enough for a
 * chunk of its own had it been traced into the parent's file. */
static const char *k_other =
    "volatile int z[1000];\n"
    "int main(void) { for (int r = 0; r < 50; r++) for (int i = 0; i < 1000; i++) z[i] += i; return 0; }\n";

/* The parent alone: N stores, then the child, then N loads and N stores. */
enum { N = 200000 };

static void expect_refs(const char *d, const char *file, uint64_t loads, uint64_t stores) {
  ppt_trace *t = e2e_open(d, file);
  ppt_trace_summary s;
  ppt_err err;
  ck_assert_msg(ppt_trace_summarize(t, &s, NULL, NULL, &err) == 0, "%s", err.msg);
  ck_assert_uint_eq(s.loads, loads);
  ck_assert_uint_eq(s.stores, stores);
  ck_assert_uint_eq(s.threads, 1);
  ppt_trace_summary_free(&s);
  ppt_trace_close(t);
  ck_assert_int_eq(e2e_sh(d, "$PPT info %s >/dev/null", file), 0);
}

START_TEST(system_child_not_traced) {
  const char *d = e2e_dir("children-system");
  e2e_write(d, "other.c", k_other);
  e2e_write(d, "sys.c",
            "#include <stdlib.h>\n"
            "volatile int a[200000];\n"
            "int main(void) {\n"
            "  for (int i = 0; i < 200000; i++) a[i] = i;\n"
            "  if (system(\"./other\") != 0) return 3;\n"
            "  for (int i = 0; i < 200000; i++) a[i] += 1;\n"
            "  return 0;\n"
            "}\n");
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 other.c -o other && $PPTCC -O1 sys.c -o sys"), 0);
  /* Several runs: the corruption this guards against came and went with timing. */
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(e2e_sh(d, "$PPT trace -o s.trace -- ./sys 2>/dev/null"), 0);
    expect_refs(d, "s.trace", N, 2 * N);
  }
  /* The child still traces when it is the program ppt trace runs. */
  ck_assert_int_eq(e2e_sh(d, "$PPT trace -o o.trace -- ./other 2>/dev/null"), 0);
  expect_refs(d, "o.trace", 50000, 50000);
}
END_TEST

START_TEST(fork_child_not_traced) {
  const char *d = e2e_dir("children-fork");
  /* The child works and leaves through exit(), running every exit handler, while the
   * parent has flushed chunks behind it and an unflushed one in memory. */
  e2e_write(d, "fk.c",
            "#include <stdlib.h>\n"
            "#include <sys/wait.h>\n"
            "#include <unistd.h>\n"
            "volatile int a[200000];\n"
            "volatile int z[100000];\n"
            "int main(void) {\n"
            "  for (int i = 0; i < 200000; i++) a[i] = i;\n"
            "  pid_t p = fork();\n"
            "  if (p == 0) {\n"
            "    for (int r = 0; r < 10; r++) for (int i = 0; i < 100000; i++) z[i] += i;\n"
            "    exit(0);\n"
            "  }\n"
            "  for (int i = 0; i < 200000; i++) a[i] += 1;\n"
            "  return p > 0 && waitpid(p, NULL, 0) == p ? 0 : 3;\n"
            "}\n");
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 fk.c -o fk"), 0);
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(e2e_sh(d, "$PPT trace -o f.trace -- ./fk 2>/dev/null"), 0);
    expect_refs(d, "f.trace", N, 2 * N);
  }
}
END_TEST

/* A wrapper that is not ppt-cc-built and runs two ppt-cc programs: the first records,
 * the second finds the trace file taken and runs untraced. */
START_TEST(wrapper_first_program_records) {
  const char *d = e2e_dir("children-wrapper");
  e2e_write(d, "other.c", k_other);
  e2e_write(d, "one.c",
            "volatile int a[10];\nint main(void) { for (int i = 0; i < 10; i++) a[i] = i; return 0; }\n");
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 other.c -o other && $PPTCC -O1 one.c -o one"), 0);
  ck_assert_int_eq(e2e_sh(d, "$PPT trace -o w.trace -- sh -c './one; ./other' 2>/dev/null"), 0);
  expect_refs(d, "w.trace", 0, 10);
}
END_TEST

/* The program damages its own finished trace from an ELF destructor, which runs after the
 * runtime's exit handler has closed the file: ppt trace's temporary is OUT.tmp<its pid>. */
START_TEST(corrupt_chunk_refused) {
  const char *d = e2e_dir("children-corrupt");
  e2e_write(d, "bad.c",
            "#include <fcntl.h>\n"
            "#include <stdio.h>\n"
            "#include <unistd.h>\n"
            "volatile int a[5000];\n"
            "__attribute__((destructor)) static void spoil(void) {\n"
            "  char p[256];\n"
            "  snprintf(p, sizeof p, \"b.trace.tmp%ld\", (long)getppid());\n"
            "  int fd = open(p, O_RDWR);\n"
            "  unsigned char c;\n"
            "  /* byte 20 of chunk 0 (the header is 64 bytes): inside its compressed data */\n"
            "  if (fd < 0 || pread(fd, &c, 1, 84) != 1) _exit(5);\n"
            "  c ^= 0x5a;\n"
            "  if (pwrite(fd, &c, 1, 84) != 1) _exit(6);\n"
            "  close(fd);\n"
            "}\n"
            "int main(void) { for (int i = 0; i < 5000; i++) a[i] = i * 7; return 0; }\n");
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 bad.c -o bad"), 0);
  ck_assert_int_eq(e2e_sh(d, "$PPT trace -o b.trace -- ./bad 2>err.txt"), 1);
  ck_assert_int_eq(e2e_sh(d, "test $(wc -l < err.txt) -eq 1 && grep -q 'corrupt trace' err.txt"), 0);
  ck_assert_int_eq(e2e_sh(d, "test -z \"$(ls | grep b.trace)\""), 0);
}
END_TEST

/* ---- signals ---- */

/* Runs long enough to be interrupted (at most 60 s), after writing its pid to pid.txt. */
static const char *k_loop =
    "#include <stdio.h>\n"
    "#include <unistd.h>\n"
    "volatile int z[1000];\n"
    "int main(void) {\n"
    "  FILE *f = fopen(\"pid.tmp\", \"w\");\n"
    "  fprintf(f, \"%ld\\n\", (long)getpid());\n"
    "  fclose(f);\n"
    "  rename(\"pid.tmp\", \"pid.txt\");\n"
    "  for (int r = 0; r < 60000; r++) { for (int i = 0; i < 1000; i++) z[i] += r; usleep(1000); }\n"
    "  return 0;\n"
    "}\n";

/* Starts `ppt trace -o l.trace -- ./loop` in d (not through a shell, so the signal goes
 * to ppt alone) and waits until the program runs; returns ppt's pid, *prog the program's. */
static pid_t start_traced_loop(const char *d, long *prog) {
  char ppt[1024];
  snprintf(ppt, sizeof ppt, "%s/bin/ppt", getenv("PPT_BINARY_DIR"));
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    if (chdir(d) != 0) _exit(120);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    execl(ppt, ppt, "trace", "-o", "l.trace", "--", "./loop", (char *)NULL);
    _exit(121);
  }
  char p[1024];
  snprintf(p, sizeof p, "%s/pid.txt", d);
  for (int i = 0; i < 2000 && access(p, F_OK) != 0; i++) usleep(10000);
  *prog = (long)e2e_read_ulong(d, "pid.txt");
  usleep(100000); /* some references recorded: a temporary file exists */
  return pid;
}

/* The process is gone: no such pid, or a zombie waiting for init to reap it. */
static int gone(long pid) {
  for (int i = 0; i < 500; i++) {
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) return 1;
    char p[64], buf[256] = "";
    snprintf(p, sizeof p, "/proc/%ld/stat", pid);
    FILE *f = fopen(p, "r");
    if (f) {
      size_t n = fread(buf, 1, sizeof buf - 1, f);
      fclose(f);
      buf[n] = 0;
      const char *rp = strrchr(buf, ')');
      if (rp && rp[1] == ' ' && rp[2] == 'Z') return 1;
    }
    usleep(10000);
  }
  return 0;
}

static void interrupted_by(int sig) {
  const char *d = e2e_dir(sig == SIGINT ? "children-sigint" : "children-sigterm");
  e2e_write(d, "loop.c", k_loop);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 loop.c -o loop"), 0);
  long prog;
  pid_t pid = start_traced_loop(d, &prog);
  ck_assert_int_eq(e2e_sh(d, "ls | grep -q 'l.trace.tmp'"), 0);
  ck_assert_int_eq(kill(pid, sig), 0);
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  /* ppt trace dies from the same signal (shell status 128 + sig) after cleaning up. */
  ck_assert(WIFSIGNALED(st));
  ck_assert_int_eq(WTERMSIG(st), sig);
  ck_assert(gone(prog));
  ck_assert_int_eq(e2e_sh(d, "test -z \"$(ls | grep l.trace)\""), 0);
}

START_TEST(sigint_cleans_up) {
  interrupted_by(SIGINT);
}
END_TEST

START_TEST(sigterm_cleans_up) {
  interrupted_by(SIGTERM);
}
END_TEST

/* SIGKILL cannot be passed on: the program dies with ppt (PR_SET_PDEATHSIG) instead of
 * running on; its unfinished temporary file, named after the dead ppt, stays until the
 * next ppt trace of the same output. */
START_TEST(sigkill_takes_the_program) {
  const char *d = e2e_dir("children-sigkill");
  e2e_write(d, "loop.c", k_loop);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 loop.c -o loop"), 0);
  long prog;
  pid_t pid = start_traced_loop(d, &prog);
  ck_assert_int_eq(kill(pid, SIGKILL), 0);
  int st;
  ck_assert_int_eq(waitpid(pid, &st, 0), pid);
  ck_assert(gone(prog));
  ck_assert_int_eq(e2e_sh(d, "test ! -e l.trace && ls | grep -q 'l.trace.tmp%ld'", (long)pid), 0);
  /* the next ppt trace of that output removes it (its ppt is dead); a live one's stays */
  e2e_write(d, "one.c", "int main(void) { return 0; }\n");
  ck_assert_int_eq(e2e_sh(d,
                          "$PPTCC -O1 one.c -o one && : > l.trace.tmp1 && $PPT trace -o l.trace -- ./one "
                          ">/dev/null 2>&1 && test -e l.trace && test -e l.trace.tmp1 && ! ls l.trace.tmp%ld",
                          (long)pid),
                   0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("e2e_children");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, system_child_not_traced);
  tcase_add_test(tc, fork_child_not_traced);
  tcase_add_test(tc, wrapper_first_program_records);
  tcase_add_test(tc, corrupt_chunk_refused);
  tcase_add_test(tc, sigint_cleans_up);
  tcase_add_test(tc, sigterm_cleans_up);
  tcase_add_test(tc, sigkill_takes_the_program);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

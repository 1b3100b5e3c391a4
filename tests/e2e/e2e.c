/* e2e.c — see e2e.h. */
#include "e2e.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

const char *e2e_dir(const char *name) {
  static char dir[512];
  const char *bin = getenv("PPT_BINARY_DIR");
  ck_assert_ptr_nonnull(bin);
  snprintf(dir, sizeof dir, "%s/e2e-work/%s", bin, name);
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
  ck_assert_int_eq(system(cmd), 0);
  return dir;
}

void e2e_write(const char *dir, const char *file, const char *text) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", dir, file);
  FILE *f = fopen(p, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
}

int e2e_sh(const char *dir, const char *fmt, ...) {
  char body[4096], cmd[6000];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(body, sizeof body, fmt, ap);
  va_end(ap);
  const char *bin = getenv("PPT_BINARY_DIR");
  snprintf(cmd, sizeof cmd, "cd '%s' && PPT='%s/bin/ppt' PPTCC='%s/bin/ppt-cc' && export PPT PPTCC && %s",
           dir, bin, bin, body);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

void e2e_summarize(const ppt_trace *t, ppt_trace_summary *s) {
  ppt_err err;
  ck_assert_msg(ppt_trace_summarize(t, s, NULL, NULL, &err) == 0, "%s", err.msg);
}

ppt_trace *e2e_open(const char *dir, const char *file) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", dir, file);
  ppt_trace *t;
  ppt_err err;
  ck_assert_msg(ppt_trace_open(p, &t, &err) == 0, "%s", err.msg);
  /* The tests count the IR's references exactly; the machine code's stack references
   * (issue 13) are test_e2e_stack's, which turns them back on. */
  ppt_trace_set_stack_refs(t, 0);
  return t;
}

unsigned long e2e_read_ulong(const char *dir, const char *file) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", dir, file);
  FILE *f = fopen(p, "r");
  unsigned long x = 0;
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(fscanf(f, "%lu", &x), 1);
  fclose(f);
  return x;
}

/* e2e.c — see e2e.h. */
#include "e2e.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

void e2e_build_trace(const char *dir, const char *prog, const char *src, const char *cflags) {
  char file[256];
  snprintf(file, sizeof file, "%s.c", prog);
  e2e_write(dir, file, src);
  ck_assert_int_eq(e2e_sh(dir, "$PPTCC -O2 %s %s -o %s && $PPT trace -o %s.trace -- ./%s >/dev/null 2>&1",
                          cflags, file, prog, prog, prog),
                   0);
}

const ppt_trace_bb *e2e_busiest_block(const ppt_trace *t, const char *func, uint64_t *instances) {
  ppt_trace_summary s;
  e2e_summarize(t, &s);
  const ppt_trace_bb *best = NULL;
  *instances = 0;
  for (uint32_t b = 1; b <= ppt_trace_nbbs(t); b++) {
    const ppt_trace_bb *bb = ppt_trace_bb_get(t, b);
    if (strcmp(bb->func, func) || s.bb_count[b] <= *instances) continue;
    best = bb;
    *instances = s.bb_count[b];
  }
  ppt_trace_summary_free(&s);
  ck_assert_ptr_nonnull(best);
  return best;
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

void e2e_foreach_rec(const ppt_trace *t, void (*fn)(uint32_t thread, const ppt_trace_rec *r, void *arg),
                     void *arg) {
  for (uint32_t th = 0; th < ppt_trace_nthreads(t); th++) {
    ppt_trace_cursor *c;
    ppt_err err;
    ck_assert_msg(ppt_trace_cursor_open(t, th, &c, &err) == 0, "%s", err.msg);
    const ppt_trace_rec *r;
    size_t n;
    int rc;
    while ((rc = ppt_trace_cursor_next(c, &r, &n, &err)) == 0 && n)
      for (size_t i = 0; i < n; i++) fn(th, &r[i], arg);
    ck_assert_msg(rc == 0, "%s", err.msg);
    ppt_trace_cursor_close(c);
  }
}

typedef struct heap_count {
  uint64_t loads, stores;
} heap_count;

static void count_heap_rec(uint32_t thread, const ppt_trace_rec *r, void *arg) {
  heap_count *h = arg;
  (void)thread;
  if (r->kind == PPT_REC_EVENT || (r->flags & PPT_REC_STACK)) return;
  h->loads += r->kind == PPT_REC_LOAD;
  h->stores += r->kind == PPT_REC_STORE;
}

void e2e_count_heap(const ppt_trace *t, uint64_t *loads, uint64_t *stores) {
  heap_count h = {0, 0};
  e2e_foreach_rec(t, count_heap_rec, &h);
  *loads = h.loads;
  *stores = h.stores;
}

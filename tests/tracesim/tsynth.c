/* tsynth.c — see tsynth.h. */
#include "tsynth.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "trace/bbtab.h"
#include "trace/writer.h"

static ppt_trace_rec *push(ts_stream *s) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 1024;
    s->r = realloc(s->r, s->cap * sizeof *s->r);
    ck_assert_ptr_nonnull(s->r);
  }
  return &s->r[s->n++];
}

/* Records keep the block they belong to, as the reader reports them. */
static uint32_t cur_bb(const ts_stream *s) {
  return s->n ? s->r[s->n - 1].bb : 0;
}

void ts_bb(ts_stream *s, uint32_t id) {
  *push(s) = (ppt_trace_rec){.bb = id, .kind = PPT_REC_BB};
}

void ts_mem(ts_stream *s, int store, uint64_t addr, uint8_t size) {
  uint32_t bb = cur_bb(s);
  *push(s) =
      (ppt_trace_rec){.addr = addr, .bb = bb, .kind = store ? PPT_REC_STORE : PPT_REC_LOAD, .size = size};
}

void ts_event(ts_stream *s, uint32_t type) {
  uint32_t bb = cur_bb(s);
  *push(s) = (ppt_trace_rec){.bb = bb, .kind = PPT_REC_EVENT, .size = (uint8_t)type};
}

void ts_free(ts_stream *s) {
  free(s->r);
  *s = (ts_stream){0};
}

int ts_write(const char *path, const ts_stream *s, uint32_t nthreads, const char *const *funcs,
             uint32_t nbbs) {
  ppt_trace_writer *w = ppt_trace_writer_open(path, 1);
  if (!w) return -1;
  for (uint32_t th = 0; th < nthreads; th++) {
    ppt_trace_enc *e = ppt_trace_enc_new(w);
    if (!e) return -1;
    for (size_t i = 0; i < s[th].n; i++) {
      const ppt_trace_rec *r = &s[th].r[i];
      if (r->kind == PPT_REC_BB) {
        ppt_trace_enc_bb(e, r->bb);
      } else if (r->kind == PPT_REC_EVENT) {
        int64_t v[2] = {1, 2};
        ppt_trace_enc_event(e, r->size, v, 2);
      } else {
        ppt_trace_enc_mem(e, r->kind, (unsigned)__builtin_ctz(r->size), 0, r->addr);
      }
    }
    int bad = ppt_trace_enc_flush(e) || e->failed;
    ppt_trace_enc_free(e);
    if (bad) return -1;
  }
  ppt_trace_bb *bbs = calloc(nbbs, sizeof *bbs);
  if (!bbs) return -1;
  for (uint32_t i = 0; i < nbbs; i++)
    bbs[i] = (ppt_trace_bb){.id = i + 1, .line = 1 + i, .func = funcs[i], .file = "tsynth.c"};
  unsigned char *raw;
  uint32_t size;
  int rc = ppt_bbtab_build(bbs, nbbs, &raw, &size);
  free(bbs);
  if (rc) return -1;
  rc = ppt_trace_writer_close(w, raw, size);
  free(raw);
  return rc;
}

const char *ts_dir(const char *name) {
  static char dir[512];
  const char *bin = getenv("PPT_BINARY_DIR");
  snprintf(dir, sizeof dir, "%s/tracesim-work/%s", bin ? bin : "/tmp", name);
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
  ck_assert_int_eq(system(cmd), 0);
  return dir;
}

/* test_trace_stackrefs.c — the block table's extensions: the machine-level stack
 * references, the memory recurrences, the block cycles, the inlining chains and the
 * chased loads are read when present and 0 without them (version 1 tables may end before
 * any of the first three and never hold the fourth; version 2 tables hold four, version 3
 * all five), and the reader adds
 * each block's stack stores and loads after its entry, flagged and at the thread's own
 * window, unless turned off or asked for raw records. */
#include <check.h>

#include "ppt_test.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ppt/trace.h"
#include "trace/bbtab.h"
#include "trace/format.h"
#include "trace/writer.h"

static const ppt_trace_inl k_inl[2] = {{"kern", "k.h", 9}, {"outer", "t.c", 20}};

static const ppt_trace_bb k_bbs[2] = {
    {.id = 1,
     .line = 3,
     .func = "f",
     .file = "t.c",
     .ops = {[PPT_OP_LOAD] = 1},
     .stack_loads = 2,
     .stack_stores = 1},
    {.id = 2,
     .line = 4,
     .func = "g",
     .file = "t.c",
     .ops = {[PPT_OP_STORE] = 1},
     .mem_chain = 0x03020101u,
     .core_cycles16 = 75,
     .chase = 0x010302u,
     .ninl = 2,
     .inl = k_inl},
};

START_TEST(table_with_and_without_extension) {
  unsigned char *raw;
  uint32_t size;
  ck_assert_int_eq(ppt_bbtab_build(k_bbs, 2, &raw, &size), 0);
  ppt_trace_bb *bbs;
  uint32_t n;
  char *strings;
  ppt_err err;
  /* Each extension: a tag and 4 bytes a block; the inlining chains 12 bytes a level more. */
  uint32_t ext = 4 + 2 * 4, inl = ext + 2 * 12;
  /* Version 3 holds the chased loads (2 of 3 loads, one chain); version 2 ends before. */
  ck_assert_int_eq(ppt_bbtab_parse(raw, size, 3, "x", &bbs, &n, &strings, &err), 0);
  unsigned chains;
  ck_assert_double_eq_tol(ppt_trace_bb_chase(&bbs[1], &chains), 2.0 / 3.0, 1e-12);
  ck_assert_uint_eq(chains, 1);
  ck_assert_double_eq(ppt_trace_bb_chase(&bbs[0], &chains), 0.0);
  free(bbs);
  free(strings);
  ck_assert_int_ne(ppt_bbtab_parse(raw, size, 2, "x", &bbs, &n, &strings, &err), 0);
  ck_assert_int_ne(ppt_bbtab_parse(raw, size - ext, 3, "x", &bbs, &n, &strings, &err), 0);
  size -= ext; /* the version 2 layout */
  ck_assert_int_eq(ppt_bbtab_parse(raw, size, 2, "x", &bbs, &n, &strings, &err), 0);
  ck_assert_uint_eq(bbs[1].chase, 0);
  ck_assert_uint_eq(bbs[0].stack_loads, 2);
  ck_assert_uint_eq(bbs[0].stack_stores, 1);
  ck_assert_uint_eq(bbs[1].stack_loads + bbs[1].stack_stores, 0);
  ck_assert_str_eq(bbs[1].func, "g");
  ck_assert_uint_eq(bbs[0].mem_chain, 0);
  unsigned loads, ialu, fadd, fmul;
  ck_assert_int_eq(ppt_trace_bb_mem_chain(&bbs[1], &loads, &ialu, &fadd, &fmul), 1);
  ck_assert_uint_eq(loads, 1);
  ck_assert_uint_eq(ialu, 1);
  ck_assert_uint_eq(fadd, 2);
  ck_assert_uint_eq(fmul, 3);
  ck_assert_uint_eq(bbs[0].core_cycles16, 0);
  ck_assert_uint_eq(bbs[1].core_cycles16, 75);
  ck_assert_uint_eq(bbs[0].ninl, 0);
  ck_assert_uint_eq(bbs[1].ninl, 2);
  ck_assert_str_eq(bbs[1].inl[0].func, "kern");
  ck_assert_str_eq(bbs[1].inl[0].file, "k.h");
  ck_assert_uint_eq(bbs[1].inl[0].line, 9);
  ck_assert_str_eq(bbs[1].inl[1].func, "outer");
  ck_assert_uint_eq(bbs[1].inl[1].line, 20);
  ck_assert_str_eq(ppt_trace_bb_inl_file(&bbs[1], 1), "k.h");
  free(bbs);
  free(strings);
  /* A version 1 table ends before the chains; a version 2 table must hold them. */
  ck_assert_int_ne(ppt_bbtab_parse(raw, size, 1, "x", &bbs, &n, &strings, &err), 0);
  ck_assert_int_ne(ppt_bbtab_parse(raw, size - inl, 2, "x", &bbs, &n, &strings, &err), 0);
  ck_assert_int_eq(ppt_bbtab_parse(raw, size - inl, 1, "x", &bbs, &n, &strings, &err), 0);
  ck_assert_uint_eq(bbs[1].ninl, 0);
  ck_assert_uint_eq(bbs[1].core_cycles16, 75);
  free(bbs);
  free(strings);
  /* A level naming a string past the table is corrupt. */
  raw[size - 12 + 4] = 0xff;
  ck_assert_int_ne(ppt_bbtab_parse(raw, size, 2, "x", &bbs, &n, &strings, &err), 0);
  size -= inl; /* the version 1 layouts below */
  /* The layout before the block cycles: theirs 0, the memory recurrences read. */
  ck_assert_int_eq(ppt_bbtab_parse(raw, size - ext, 1, "x", &bbs, &n, &strings, &err), 0);
  ck_assert_uint_eq(bbs[1].mem_chain, 0x03020101u);
  ck_assert_uint_eq(bbs[1].core_cycles16, 0);
  free(bbs);
  free(strings);
  /* The layout before the memory recurrences: their counts 0, the stack's read. */
  ck_assert_int_eq(ppt_bbtab_parse(raw, size - 2 * ext, 1, "x", &bbs, &n, &strings, &err), 0);
  ck_assert_uint_eq(bbs[0].stack_loads, 2);
  ck_assert_uint_eq(bbs[1].mem_chain, 0);
  free(bbs);
  free(strings);
  /* The layout before all three extensions: entries and strings only, all counts 0. */
  ck_assert_int_eq(ppt_bbtab_parse(raw, size - 3 * ext, 1, "x", &bbs, &n, &strings, &err), 0);
  ck_assert_uint_eq(n, 2);
  ck_assert_uint_eq(bbs[0].stack_loads + bbs[0].stack_stores, 0);
  ck_assert_uint_eq(bbs[1].mem_chain, 0);
  ck_assert_str_eq(bbs[0].func, "f");
  free(bbs);
  free(strings);
  /* A wrong tag on any extension, or a size that is no layout, is corrupt. */
  for (uint32_t at = size - 3 * ext; at < size; at += ext) {
    raw[at] ^= 1;
    ck_assert_int_ne(ppt_bbtab_parse(raw, size, 1, "x", &bbs, &n, &strings, &err), 0);
    raw[at] ^= 1;
  }
  ck_assert_int_ne(ppt_bbtab_parse(raw, size - 1, 1, "x", &bbs, &n, &strings, &err), 0);
  ck_assert_int_ne(ppt_bbtab_parse(raw, size - ext - 1, 1, "x", &bbs, &n, &strings, &err), 0);
  free(raw);
}
END_TEST

/* Thread 0: f, a load, g, f. */
static ppt_trace *write_trace(const char *p) {
  ppt_trace_writer *w = ppt_trace_writer_open(p, 1);
  ck_assert_ptr_nonnull(w);
  ppt_trace_enc *e = ppt_trace_enc_new(w);
  ck_assert_ptr_nonnull(e);
  ppt_trace_enc_bb(e, 1);
  ppt_trace_enc_mem(e, PPT_REC_LOAD, 3, 0, 0x1000);
  ppt_trace_enc_bb(e, 2);
  ppt_trace_enc_bb(e, 1);
  ck_assert_int_eq(ppt_trace_enc_flush(e), 0);
  ppt_trace_enc_free(e);
  unsigned char *raw;
  uint32_t size;
  ck_assert_int_eq(ppt_bbtab_build(k_bbs, 2, &raw, &size), 0);
  ck_assert_int_eq(ppt_trace_writer_close(w, raw, size), 0);
  free(raw);
  ppt_trace *t;
  ppt_err err;
  ck_assert_msg(ppt_trace_open(p, &t, &err) == 0, "%s", err.msg);
  return t;
}

START_TEST(reader_adds_them) {
  char p[64];
  snprintf(p, sizeof p, "/tmp/ppt-stackrefs-%d.trace", (int)getpid());
  ppt_trace *t = write_trace(p);
  ck_assert_int_eq(ppt_trace_stack_refs(t), 1);
  /* the op mix counts them */
  ck_assert_uint_eq(ppt_trace_bb_get(t, 1)->ops[PPT_OP_LOAD], 3);
  ck_assert_uint_eq(ppt_trace_bb_get(t, 1)->ops[PPT_OP_STORE], 1);
  ppt_trace_cursor *c;
  ppt_err err;
  ck_assert_int_eq(ppt_trace_cursor_open(t, 0, &c, &err), 0);
  const ppt_trace_rec *r;
  size_t n;
  ck_assert_int_eq(ppt_trace_cursor_next(c, &r, &n, &err), 0);
  /* f, its store and 2 loads, the program's load, g, f and its 3 again */
  static const uint8_t kinds[] = {PPT_REC_BB, PPT_REC_STORE, PPT_REC_LOAD,  PPT_REC_LOAD, PPT_REC_LOAD,
                                  PPT_REC_BB, PPT_REC_BB,    PPT_REC_STORE, PPT_REC_LOAD, PPT_REC_LOAD};
  ck_assert_uint_eq(n, sizeof kinds);
  for (size_t i = 0; i < n; i++) ck_assert_uint_eq(r[i].kind, kinds[i]);
  for (int k = 0; k < 3; k++) {
    ck_assert_uint_eq(r[1 + k].flags, PPT_REC_STACK | PPT_REC_MCSTACK);
    ck_assert_uint_eq(r[1 + k].addr, ppt_trace_mcstack_addr(0, (uint32_t)k));
    ck_assert_uint_eq(r[1 + k].bb, 1);
    ck_assert_uint_eq(r[1 + k].size, 8);
    ck_assert_uint_eq(r[7 + k].addr, r[1 + k].addr);
  }
  ck_assert_uint_eq(r[4].addr, 0x1000);
  ck_assert_uint_eq(r[4].flags, 0);
  /* threads have windows of their own */
  ck_assert_uint_ne(ppt_trace_mcstack_addr(1, 0) >> 6, ppt_trace_mcstack_addr(0, 31) >> 6);
  /* a raw cursor: the file's records only */
  ppt_trace_cursor *raw;
  ck_assert_int_eq(ppt_trace_cursor_open(t, 0, &raw, &err), 0);
  ppt_trace_cursor_set_raw(raw, 1);
  ck_assert_int_eq(ppt_trace_cursor_next(raw, &r, &n, &err), 0);
  ck_assert_uint_eq(n, 4);
  ppt_trace_cursor_close(raw);
  ppt_trace_cursor_close(c);
  /* off: the IR's view, op mix included */
  ppt_trace_set_stack_refs(t, 0);
  ck_assert_int_eq(ppt_trace_stack_refs(t), 0);
  ck_assert_uint_eq(ppt_trace_bb_get(t, 1)->ops[PPT_OP_LOAD], 1);
  ck_assert_uint_eq(ppt_trace_bb_get(t, 1)->ops[PPT_OP_STORE], 0);
  ppt_trace_summary s;
  ck_assert_int_eq(ppt_trace_summarize(t, &s, NULL, NULL, &err), 0);
  ck_assert_uint_eq(s.refs, 1);
  ppt_trace_summary_free(&s);
  ppt_trace_set_stack_refs(t, 1);
  ck_assert_int_eq(ppt_trace_summarize(t, &s, NULL, NULL, &err), 0);
  ck_assert_uint_eq(s.refs, 7);
  ck_assert_uint_eq(s.mcstack_refs, 6);
  ck_assert_uint_eq(s.stack_refs, 6);
  ppt_trace_summary_free(&s);
  ppt_trace_close(t);
  unlink(p);
}
END_TEST

int main(void) {
  Suite *s = suite_create("trace_stackrefs");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, table_with_and_without_extension);
  tcase_add_test(tc, reader_adds_them);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

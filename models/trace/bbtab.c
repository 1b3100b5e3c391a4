/* bbtab.c — parse and validate the block table section of a trace. */
#include <stdlib.h>
#include <string.h>

#include "trace/bbtab.h"
#include "trace/format.h"

/* Where each extension of the table starts (format.h), NULL for one the table lacks. */
typedef struct exts {
  const unsigned char *stack, *memchain, *cycles;
  const unsigned char *ninl, *levels; /* INL1: the counts, then the levels */
  const unsigned char *chase;         /* CHS1 */
  uint64_t nlevels;
} exts;

/* Finds the extensions after the strings (need: where they end) and checks that the
 * table ends exactly after the last. Version 1 tables may end after any of the first
 * three (older ones end with the strings); version 2 tables have the first four, version
 * 3 all five. */
static int find_exts(const unsigned char *raw, uint32_t size, uint32_t version, uint32_t nb, uint64_t need,
                     exts *x) {
  memset(x, 0, sizeof *x);
  const uint32_t tags[3] = {PPT_TRACE_BBX_STACK, PPT_TRACE_BBX_MEMCHAIN, PPT_TRACE_BBX_CYCLES};
  const unsigned char **at[3] = {&x->stack, &x->memchain, &x->cycles};
  uint64_t xs = 4 + (uint64_t)nb * 4;
  for (int k = 0; k < 3 && need + xs <= size && ppt_fmt_get32(raw + need) == tags[k]; k++) {
    *at[k] = raw + need + 4;
    need += xs;
  }
  if (version >= 2) {
    if (!x->cycles || need + xs > size || ppt_fmt_get32(raw + need) != PPT_TRACE_BBX_INLINED) return -1;
    x->ninl = raw + need + 4;
    need += xs;
    for (uint32_t i = 0; i < nb; i++) x->nlevels += ppt_fmt_get32(x->ninl + 4 * (uint64_t)i);
    x->levels = raw + need;
    if (x->nlevels > (size - need) / PPT_TRACE_INL_ENTRY_SIZE) return -1;
    need += x->nlevels * PPT_TRACE_INL_ENTRY_SIZE;
  }
  if (version >= 3) {
    if (need + xs > size || ppt_fmt_get32(raw + need) != PPT_TRACE_BBX_CHASE) return -1;
    x->chase = raw + need + 4;
    need += xs;
  }
  return need == size ? 0 : -1;
}

/* The inlining levels of every block into lv (x->nlevels of them), each block's run
 * pointed at; -1 when a level names a string out of range. */
static int read_levels(const exts *x, ppt_trace_bb *out, uint32_t nb, ppt_trace_inl *lv, const char *s,
                       uint32_t slen) {
  uint64_t k = 0;
  for (uint32_t i = 0; i < nb && x->ninl; i++) {
    out[i].ninl = ppt_fmt_get32(x->ninl + 4 * (uint64_t)i);
    out[i].inl = out[i].ninl ? lv + k : NULL;
    for (uint32_t j = 0; j < out[i].ninl; j++, k++) {
      const unsigned char *e = x->levels + k * PPT_TRACE_INL_ENTRY_SIZE;
      uint32_t fo = ppt_fmt_get32(e), fi = ppt_fmt_get32(e + 4);
      if (fo >= slen || fi >= slen) return -1;
      lv[k] = (ppt_trace_inl){s + fo, s + fi, ppt_fmt_get32(e + 8)};
    }
  }
  return 0;
}

static void read_entry(const unsigned char *raw, const exts *x, uint32_t i, const char *s, ppt_trace_bb *b) {
  const unsigned char *e = raw + 8 + (uint64_t)i * PPT_TRACE_BB_ENTRY_SIZE;
  b->id = i + 1;
  b->flags = ppt_fmt_get32(e);
  b->line = ppt_fmt_get32(e + 4);
  b->func = s + ppt_fmt_get32(e + 8);
  b->file = s + ppt_fmt_get32(e + 12);
  for (int k = 0; k < PPT_OP_COUNT; k++) b->ops[k] = (uint16_t)(e[16 + 2 * k] | (e[17 + 2 * k] << 8));
  if (x->stack) {
    const unsigned char *q = x->stack + 4 * (uint64_t)i;
    b->stack_loads = (uint16_t)(q[0] | (q[1] << 8));
    b->stack_stores = (uint16_t)(q[2] | (q[3] << 8));
  }
  if (x->memchain) b->mem_chain = ppt_fmt_get32(x->memchain + 4 * (uint64_t)i);
  if (x->cycles) b->core_cycles16 = ppt_fmt_get32(x->cycles + 4 * (uint64_t)i);
  if (x->chase) b->chase = ppt_fmt_get32(x->chase + 4 * (uint64_t)i);
}

int ppt_bbtab_parse(const unsigned char *raw, uint32_t size, uint32_t version, const char *path,
                    ppt_trace_bb **bbs, uint32_t *n, char **strings, ppt_err *err) {
  if (size < 8) return ppt_err_set(err, PPT_EINPUT, "%s: corrupt trace: block table too short", path);
  uint32_t nb = ppt_fmt_get32(raw), slen = ppt_fmt_get32(raw + 4);
  uint64_t need = 8 + (uint64_t)nb * PPT_TRACE_BB_ENTRY_SIZE + slen;
  exts x;
  if (need > size || find_exts(raw, size, version, nb, need, &x))
    return ppt_err_set(err, PPT_EINPUT, "%s: corrupt trace: block table size mismatch", path);
  const char *tab = (const char *)raw + 8 + (uint64_t)nb * PPT_TRACE_BB_ENTRY_SIZE;
  if (slen && tab[slen - 1] != '\0')
    return ppt_err_set(err, PPT_EINPUT, "%s: corrupt trace: unterminated block table strings", path);
  /* the blocks, then their inlining levels, in one allocation the reader frees */
  size_t bsize = (nb ? nb : 1) * sizeof(ppt_trace_bb);
  ppt_trace_bb *out = calloc(1, bsize + (size_t)x.nlevels * sizeof(ppt_trace_inl));
  char *s = malloc((size_t)slen + 1);
  if (!out || !s) {
    free(out);
    free(s);
    return ppt_err_set(err, PPT_ERUN, "%s: out of memory reading block table", path);
  }
  memcpy(s, tab, slen);
  s[slen] = '\0';
  for (uint32_t i = 0; i < nb; i++) {
    const unsigned char *e = raw + 8 + (uint64_t)i * PPT_TRACE_BB_ENTRY_SIZE;
    if (ppt_fmt_get32(e + 8) >= slen || ppt_fmt_get32(e + 12) >= slen) {
      free(out);
      free(s);
      return ppt_err_set(err, PPT_EINPUT, "%s: corrupt trace: block %u names a string out of range", path,
                         i + 1);
    }
    read_entry(raw, &x, i, s, &out[i]);
  }
  if (read_levels(&x, out, nb, (ppt_trace_inl *)((char *)out + bsize), s, slen)) {
    free(out);
    free(s);
    return ppt_err_set(err, PPT_EINPUT, "%s: corrupt trace: an inlining level names a string out of range",
                       path);
  }
  *bbs = out;
  *n = nb;
  *strings = s;
  return 0;
}

/* bbtab_build.c — serialise the block table (layout in format.h). Shared by the runtime
 * and by tools that write traces, so it depends on nothing but libc. */
#include <stdlib.h>
#include <string.h>

#include "trace/bbtab.h"
#include "trace/format.h"

/* Appends s to the string table unless it equals the previous string (blocks of one
 * function are consecutive, so this removes nearly all repeats without a hash). */
static int strtab_add(char **tab, uint32_t *len, uint32_t *cap, const char *s, uint32_t *last,
                      uint32_t *off) {
  if (!s) s = "";
  if (*last != UINT32_MAX && strcmp(*tab + *last, s) == 0) {
    *off = *last;
    return 0;
  }
  size_t n = strlen(s) + 1;
  if (n > UINT32_MAX / 2) return -1;
  while (*len + n > *cap) {
    uint32_t ncap = *cap ? 2 * *cap : 4096;
    char *t = realloc(*tab, ncap);
    if (!t) return -1;
    *tab = t;
    *cap = ncap;
  }
  memcpy(*tab + *len, s, n);
  *off = *last = *len;
  *len += (uint32_t)n;
  return 0;
}

/* The strings of the table: each block's function and file, and its inlining levels'
 * functions and files. offs gets 2 offsets per block, then 2 per level in block order. */
static int build_strings(const ppt_trace_bb *bbs, uint32_t n, char **tab, uint32_t *len, uint32_t *offs) {
  uint32_t cap = 0, lastf = UINT32_MAX, lastfile = UINT32_MAX;
  uint64_t k = 2 * (uint64_t)n;
  for (uint32_t i = 0; i < n; i++) {
    /* Function names and file names interleave, so each keeps its own "previous". */
    if (strtab_add(tab, len, &cap, bbs[i].func, &lastf, &offs[2 * (uint64_t)i]) ||
        strtab_add(tab, len, &cap, bbs[i].file, &lastfile, &offs[2 * (uint64_t)i + 1]))
      return -1;
  }
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t j = 0; j < bbs[i].ninl; j++, k += 2)
      if (strtab_add(tab, len, &cap, bbs[i].inl[j].func, &lastf, &offs[k]) ||
          strtab_add(tab, len, &cap, bbs[i].inl[j].file, &lastfile, &offs[k + 1]))
        return -1;
  return 0;
}

/* The five extensions after the strings (format.h), always written: the stack
 * references, memory recurrences and block cycles (4 bytes a block each), the inlining
 * chains (4 bytes a block and 12 a level), then the chased loads (4 bytes a block). */
static void put_exts(const ppt_trace_bb *bbs, uint32_t n, const uint32_t *offs, unsigned char *x) {
  ppt_fmt_put32(x, PPT_TRACE_BBX_STACK);
  for (uint32_t i = 0; i < n; i++) {
    unsigned char *e = x + 4 + 4 * (uint64_t)i;
    e[0] = (unsigned char)bbs[i].stack_loads;
    e[1] = (unsigned char)(bbs[i].stack_loads >> 8);
    e[2] = (unsigned char)bbs[i].stack_stores;
    e[3] = (unsigned char)(bbs[i].stack_stores >> 8);
  }
  unsigned char *m = x + 4 + 4 * (uint64_t)n;
  ppt_fmt_put32(m, PPT_TRACE_BBX_MEMCHAIN);
  for (uint32_t i = 0; i < n; i++) ppt_fmt_put32(m + 4 + 4 * (uint64_t)i, bbs[i].mem_chain);
  unsigned char *cy = m + 4 + 4 * (uint64_t)n;
  ppt_fmt_put32(cy, PPT_TRACE_BBX_CYCLES);
  for (uint32_t i = 0; i < n; i++) ppt_fmt_put32(cy + 4 + 4 * (uint64_t)i, bbs[i].core_cycles16);
  unsigned char *in = cy + 4 + 4 * (uint64_t)n;
  ppt_fmt_put32(in, PPT_TRACE_BBX_INLINED);
  for (uint32_t i = 0; i < n; i++) ppt_fmt_put32(in + 4 + 4 * (uint64_t)i, bbs[i].ninl);
  unsigned char *lv = in + 4 + 4 * (uint64_t)n;
  uint64_t k = 2 * (uint64_t)n;
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t j = 0; j < bbs[i].ninl; j++, k += 2, lv += PPT_TRACE_INL_ENTRY_SIZE) {
      ppt_fmt_put32(lv, offs[k]);
      ppt_fmt_put32(lv + 4, offs[k + 1]);
      ppt_fmt_put32(lv + 8, bbs[i].inl[j].line);
    }
  ppt_fmt_put32(lv, PPT_TRACE_BBX_CHASE);
  for (uint32_t i = 0; i < n; i++) ppt_fmt_put32(lv + 4 + 4 * (uint64_t)i, bbs[i].chase);
}

int ppt_bbtab_build(const ppt_trace_bb *bbs, uint32_t n, unsigned char **raw, uint32_t *size) {
  uint64_t nlev = 0;
  for (uint32_t i = 0; i < n; i++) nlev += bbs[i].ninl;
  uint64_t esize = 8 + (uint64_t)n * PPT_TRACE_BB_ENTRY_SIZE;
  uint64_t xsize = 5 * (4 + (uint64_t)n * 4) + nlev * PPT_TRACE_INL_ENTRY_SIZE;
  char *tab = NULL;
  uint32_t len = 0;
  uint32_t *offs = malloc((2 * ((uint64_t)n + nlev) + 1) * sizeof *offs);
  unsigned char *out = NULL;
  if (!offs || build_strings(bbs, n, &tab, &len, offs) || esize + len + xsize > UINT32_MAX ||
      !(out = calloc(1, esize + len + xsize))) {
    free(offs);
    free(tab);
    return -1;
  }
  ppt_fmt_put32(out, n);
  ppt_fmt_put32(out + 4, len);
  for (uint32_t i = 0; i < n; i++) {
    unsigned char *e = out + 8 + (uint64_t)i * PPT_TRACE_BB_ENTRY_SIZE;
    ppt_fmt_put32(e + 0, bbs[i].flags);
    ppt_fmt_put32(e + 4, bbs[i].line);
    ppt_fmt_put32(e + 8, offs[2 * (uint64_t)i]);
    ppt_fmt_put32(e + 12, offs[2 * (uint64_t)i + 1]);
    for (int k = 0; k < PPT_OP_COUNT; k++) {
      e[16 + 2 * k] = (unsigned char)bbs[i].ops[k];
      e[17 + 2 * k] = (unsigned char)(bbs[i].ops[k] >> 8);
    }
  }
  if (len) memcpy(out + esize, tab, len);
  put_exts(bbs, n, offs, out + esize + len);
  free(tab);
  free(offs);
  *raw = out;
  *size = (uint32_t)(esize + len + xsize);
  return 0;
}

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

int ppt_bbtab_build(const ppt_trace_bb *bbs, uint32_t n, unsigned char **raw, uint32_t *size) {
  char *tab = NULL;
  uint32_t len = 0, cap = 0, lastf = UINT32_MAX, lastfile = UINT32_MAX;
  uint64_t esize = 8 + (uint64_t)n * PPT_TRACE_BB_ENTRY_SIZE;
  unsigned char *ent = calloc(1, esize);
  if (!ent) return -1;
  ppt_fmt_put32(ent, n);
  for (uint32_t i = 0; i < n; i++) {
    unsigned char *e = ent + 8 + (uint64_t)i * PPT_TRACE_BB_ENTRY_SIZE;
    uint32_t fo, fi;
    /* Function names and file names interleave, so each keeps its own "previous". */
    if (strtab_add(&tab, &len, &cap, bbs[i].func, &lastf, &fo) ||
        strtab_add(&tab, &len, &cap, bbs[i].file, &lastfile, &fi)) {
      free(tab);
      free(ent);
      return -1;
    }
    ppt_fmt_put32(e + 0, bbs[i].flags);
    ppt_fmt_put32(e + 4, bbs[i].line);
    ppt_fmt_put32(e + 8, fo);
    ppt_fmt_put32(e + 12, fi);
    for (int k = 0; k < PPT_OP_COUNT; k++) {
      e[16 + 2 * k] = (unsigned char)bbs[i].ops[k];
      e[17 + 2 * k] = (unsigned char)(bbs[i].ops[k] >> 8);
    }
  }
  ppt_fmt_put32(ent + 4, len);
  /* The stack-reference, memory-recurrence and block-cycle extensions (format.h),
   * always written: 4 bytes a block each. */
  uint64_t xsize = 3 * (4 + (uint64_t)n * 4);
  unsigned char *out = malloc(esize + len + xsize + 1);
  if (!out) {
    free(tab);
    free(ent);
    return -1;
  }
  memcpy(out, ent, esize);
  if (len) memcpy(out + esize, tab, len);
  unsigned char *x = out + esize + len;
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
  free(tab);
  free(ent);
  *raw = out;
  *size = (uint32_t)(esize + len + xsize);
  return 0;
}

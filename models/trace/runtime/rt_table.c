/* rt_table.c — turn the linked ppt_bbtab descriptors into the trace's block table.
 *
 * The linker concatenates every module's descriptor array into the section ppt_bbtab and
 * defines __start_/__stop_ symbols for it (weak here: a program with no ppt-cc object
 * still links). Each descriptor names its block's guard, whose value is the block id the
 * runtime assigned in __sanitizer_cov_trace_pc_guard_init, so the table lines up with the
 * ids in the trace by construction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppt/trace.h"
#include "trace/bbdesc.h"
#include "trace/bbtab.h"
#include "trace/names.h"
#include "trace/ownheap.h"
#include "trace/runtime/rt.h"

extern const struct ppt_bbdesc __start_ppt_bbtab[] __attribute__((weak));
extern const struct ppt_bbdesc __stop_ppt_bbtab[] __attribute__((weak));
/* The blocks that carry a value through memory (bbdesc.h), none in older objects. */
extern const struct ppt_bbmrc __start_ppt_bbmrc[] __attribute__((weak));
extern const struct ppt_bbmrc __stop_ppt_bbmrc[] __attribute__((weak));
/* The blocks inlined from other functions (bbdesc.h), none in older objects. */
extern const struct ppt_bbinl __start_ppt_bbinl[] __attribute__((weak));
extern const struct ppt_bbinl __stop_ppt_bbinl[] __attribute__((weak));

/* The block id of an inlining entry, 0 when it names no block of this run. */
static uint32_t inl_block(const struct ppt_bbinl *d, uint32_t nguards) {
  if (d->magic != PPT_BBINL_MAGIC || !d->guard || !d->chain) return 0;
  uint32_t id = *d->guard;
  return id <= nguards ? id : 0;
}

/* Splits a chain ("FUNC\tFILE\tLINE\n" a level, bbdesc.h) in place into at most max
 * levels; returns how many it held (the "FUNC\n" lines after them are not levels). */
static uint32_t split_chain(char *c, ppt_trace_inl *lv, uint32_t max) {
  uint32_t n = 0;
  while (n < max && *c) {
    char *nl = strchr(c, '\n');
    if (!nl) break;
    *nl = '\0';
    char *t1 = strchr(c, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
    if (!t2) break;
    *t1 = *t2 = '\0';
    lv[n++] = (ppt_trace_inl){c, t1 + 1, (uint32_t)strtoul(t2 + 1, NULL, 10)};
    c = nl + 1;
  }
  return n;
}

/* The inlining levels of every inlined block of bbs into one allocation (*keep, to free
 * after the table is built): the levels, then copies of the chains they point into. */
static int add_inlined(ppt_trace_bb *bbs, uint32_t nguards, void **keep) {
  *keep = NULL;
  if (!__start_ppt_bbinl || !__stop_ppt_bbinl) return 0;
  size_t nlev = 0, chars = 0;
  for (const struct ppt_bbinl *d = __start_ppt_bbinl; d < __stop_ppt_bbinl; d++)
    if (inl_block(d, nguards)) {
      nlev += d->nlevels;
      chars += strlen(d->chain) + 1;
    }
  ppt_trace_inl *lv = malloc(nlev * sizeof *lv + chars + 1);
  if (!lv) return -1;
  *keep = lv;
  char *text = (char *)(lv + nlev);
  for (const struct ppt_bbinl *d = __start_ppt_bbinl; d < __stop_ppt_bbinl; d++) {
    uint32_t id = inl_block(d, nguards);
    if (!id) continue;
    size_t len = strlen(d->chain) + 1;
    memcpy(text, d->chain, len);
    bbs[id - 1].inl = lv;
    bbs[id - 1].ninl = split_chain(text, lv, d->nlevels);
    lv += d->nlevels;
    text += len;
  }
  return 0;
}

int ppt_rt_build_bbtab(uint32_t nguards, unsigned char **raw, uint32_t *size) {
  ppt_trace_bb *bbs = calloc(nguards ? nguards : 1, sizeof *bbs);
  if (!bbs) return -1;
  for (uint32_t i = 0; i < nguards; i++) {
    bbs[i].id = i + 1;
    bbs[i].func = "?"; /* a guard without descriptor: object not built by ppt-cc */
    bbs[i].file = "";
  }
  if (__start_ppt_bbtab && __stop_ppt_bbtab) {
    for (const struct ppt_bbdesc *d = __start_ppt_bbtab; d < __stop_ppt_bbtab; d++) {
      if ((d->magic != PPT_BBDESC_MAGIC && d->magic != PPT_BBDESC_MAGIC_V1) || !d->guard) continue;
      uint32_t id = *d->guard;
      if (id == 0 || id > nguards) continue;
      ppt_trace_bb *b = &bbs[id - 1];
      b->flags = d->flags;
      b->line = d->line;
      b->func = d->func;
      b->file = d->file;
      for (int k = 0; k < PPT_OP_COUNT; k++) b->ops[k] = d->ops[k];
      if (d->magic == PPT_BBDESC_MAGIC) {
        b->stack_loads = (uint16_t)(d->stack & 0xFFFFu);
        b->stack_stores = (uint16_t)(d->stack >> 16);
      }
    }
  }
  if (__start_ppt_bbmrc && __stop_ppt_bbmrc) {
    for (const struct ppt_bbmrc *d = __start_ppt_bbmrc; d < __stop_ppt_bbmrc; d++) {
      if (!d->guard) continue;
      uint32_t id = *d->guard;
      if (id == 0 || id > nguards) continue;
      if (d->magic == PPT_BBMRC_MAGIC)
        bbs[id - 1].mem_chain = d->chain;
      else if (d->magic == PPT_BBCYC_MAGIC)
        bbs[id - 1].core_cycles16 = d->chain;
      else if (d->magic == PPT_BBCHS_MAGIC)
        bbs[id - 1].chase = d->chain;
    }
  }
  void *levels;
  int rc = add_inlined(bbs, nguards, &levels) ? -1 : ppt_bbtab_build(bbs, nguards, raw, size);
  free(levels);
  free(bbs);
  return rc;
}


/* Whether an inlining chain (bbdesc.h) names the function `want`: 2 as one of its
 * levels (the block's first located instruction is its code), 1 as a function whose code
 * the block holds further on, 0 not at all. */
static int chain_has(const char *chain, const char *want) {
  int found = 0;
  for (const char *p = chain; *p && found < 2;) {
    const char *nl = strchr(p, '\n');
    if (!nl) break;
    const char *tab = memchr(p, '\t', (size_t)(nl - p));
    char *name = strndup(p, (size_t)((tab ? tab : nl) - p));
    if (name && ppt_trace_name_is(name, want)) found = tab ? 2 : 1;
    free(name);
    p = nl + 1;
  }
  return found;
}

/* A name without its template arguments or overload may stand for several functions:
 * they are named on stderr, so that a region over all of them is no surprise. */
static void note_matches(const char *func, const char **names, size_t n, size_t more) {
  if (n + more < 2) return;
  fprintf(stderr, "ppt runtime: --roi %s: %zu functions of that name, one region over all:", func, n + more);
  for (size_t i = 0; i < n; i++) fprintf(stderr, "%s %s", i ? ";" : "", names[i]);
  fprintf(stderr, "%s\n", more ? "; ..." : "");
}

unsigned char *ppt_rt_roi_kinds(uint32_t nguards, const char *func, uint32_t *nblocks) {
  *nblocks = 0;
  unsigned char *kind = ppt_own_alloc((size_t)nguards + 1);
  if (!kind || !__start_ppt_bbtab || !__stop_ppt_bbtab) return kind;
  enum { SHOWN = 8 };
  const char *names[SHOWN];
  size_t nnames = 0, more = 0;
  for (const struct ppt_bbdesc *d = __start_ppt_bbtab; d < __stop_ppt_bbtab; d++) {
    if (d->magic != PPT_BBDESC_MAGIC || !d->guard) continue;
    uint32_t id = *d->guard;
    if (id == 0 || id > nguards) continue;
    if (d->line == 0) kind[id] |= PPT_RT_ROI_NOLINE;
    if (!d->func || !ppt_trace_name_is(d->func, func)) continue;
    kind[id] |= (unsigned char)(PPT_RT_ROI_OWN | (d->flags & (PPT_BB_FUNC_ENTRY | PPT_BB_RETURN)));
    ++*nblocks;
    size_t k = 0;
    while (k < nnames && strcmp(names[k], d->func)) k++;
    if (k == nnames && (d->flags & PPT_BB_FUNC_ENTRY)) {
      if (nnames < SHOWN)
        names[nnames++] = d->func;
      else
        more++;
    }
  }
  note_matches(func, names, nnames, more);
  if (!__start_ppt_bbinl || !__stop_ppt_bbinl) return kind;
  for (const struct ppt_bbinl *d = __start_ppt_bbinl; d < __stop_ppt_bbinl; d++) {
    uint32_t id = inl_block(d, nguards);
    int has = id ? chain_has(d->chain, func) : 0;
    if (!has) continue;
    /* a block of FUNCTION's own code is counted above, not again */
    if (!(kind[id] & (PPT_RT_ROI_OWN | PPT_RT_ROI_INLINED | PPT_RT_ROI_ALSO))) ++*nblocks;
    kind[id] |= has == 2 ? PPT_RT_ROI_INLINED : PPT_RT_ROI_ALSO;
  }
  return kind;
}

/* rt_table.c — turn the linked ppt_bbtab descriptors into the trace's block table.
 *
 * The linker concatenates every module's descriptor array into the section ppt_bbtab and
 * defines __start_/__stop_ symbols for it (weak here: a program with no ppt-cc object
 * still links). Each descriptor names its block's guard, whose value is the block id the
 * runtime assigned in __sanitizer_cov_trace_pc_guard_init, so the table lines up with the
 * ids in the trace by construction. */
#include <stdlib.h>
#include <string.h>

#include "ppt/trace.h"
#include "trace/bbdesc.h"
#include "trace/bbtab.h"
#include "trace/runtime/rt.h"

extern const struct ppt_bbdesc __start_ppt_bbtab[] __attribute__((weak));
extern const struct ppt_bbdesc __stop_ppt_bbtab[] __attribute__((weak));
/* The blocks that carry a value through memory (bbdesc.h), none in older objects. */
extern const struct ppt_bbmrc __start_ppt_bbmrc[] __attribute__((weak));
extern const struct ppt_bbmrc __stop_ppt_bbmrc[] __attribute__((weak));

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
    }
  }
  int rc = ppt_bbtab_build(bbs, nguards, raw, size);
  free(bbs);
  return rc;
}

/* Whether the table's name `have` is the function `want`: the same, or a demangled C++
 * name whose function part is `want` (`axpy<double>` or `axpy<double>(...)` in
 * `void axpy<double>(std::vector<double>&)`, `kern` in `kern(double*, int)`): `want`
 * then starts the name or follows a space, and a '(' follows it. */
static int func_is(const char *have, const char *want) {
  if (strcmp(have, want) == 0) return 1;
  size_t n = strlen(want);
  if (!n) return 0;
  for (const char *p = strstr(have, want); p; p = strstr(p + 1, want))
    if ((p == have || p[-1] == ' ') && p[n] == '(') return 1;
  return 0;
}

unsigned char *ppt_rt_roi_kinds(uint32_t nguards, const char *func, uint32_t *nblocks) {
  *nblocks = 0;
  unsigned char *kind = calloc((size_t)nguards + 1, 1);
  if (!kind || !__start_ppt_bbtab || !__stop_ppt_bbtab) return kind;
  for (const struct ppt_bbdesc *d = __start_ppt_bbtab; d < __stop_ppt_bbtab; d++) {
    if (d->magic != PPT_BBDESC_MAGIC || !d->guard || !d->func || !func_is(d->func, func)) continue;
    uint32_t id = *d->guard;
    if (id == 0 || id > nguards) continue;
    kind[id] = (unsigned char)(d->flags & (PPT_BB_FUNC_ENTRY | PPT_BB_RETURN));
    ++*nblocks;
  }
  return kind;
}

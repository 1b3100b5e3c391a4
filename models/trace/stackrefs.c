/* stackrefs.c — see stackrefs.h. */
#include "trace/stackrefs.h"

#include <stdlib.h>

/* Above the 47-bit user address space (no real reference has it) and below bit 52, which
 * SASMM's stack privatisation sets per mimicked core (ppt_sasmm_private_addr). */
#define MCSTACK_BASE (1ull << 51)
#define MCSTACK_THREAD_STRIDE 4096u /* per thread: its own 64 lines */
#define MCSTACK_SLOTS 32u           /* 8-byte slots: a window of 4 64-byte lines */

uint64_t ppt_trace_mcstack_addr(uint32_t thread, uint32_t k) {
  return MCSTACK_BASE + (uint64_t)thread * MCSTACK_THREAD_STRIDE + 8u * (k % MCSTACK_SLOTS);
}

void ppt_trace_mcstack_recs(const ppt_trace_bb *bb, uint32_t thread, ppt_trace_rec *out) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < bb->stack_stores; i++, k++)
    out[k] = (ppt_trace_rec){.addr = ppt_trace_mcstack_addr(thread, k),
                             .bb = bb->id,
                             .kind = PPT_REC_STORE,
                             .size = 8,
                             .flags = PPT_REC_STACK | PPT_REC_MCSTACK};
  for (uint32_t i = 0; i < bb->stack_loads; i++, k++)
    out[k] = (ppt_trace_rec){.addr = ppt_trace_mcstack_addr(thread, k),
                             .bb = bb->id,
                             .kind = PPT_REC_LOAD,
                             .size = 8,
                             .flags = PPT_REC_STACK | PPT_REC_MCSTACK};
}

size_t ppt_stackrefs_expand(const ppt_trace *t, uint32_t thread, const ppt_trace_rec *in, size_t n,
                            ppt_trace_rec **out, size_t *cap) {
  size_t total = n;
  for (size_t i = 0; i < n; i++)
    if (in[i].kind == PPT_REC_BB) {
      const ppt_trace_bb *bb = ppt_trace_bb_get(t, in[i].bb);
      if (bb) total += (size_t)bb->stack_loads + bb->stack_stores;
    }
  if (total > *cap) {
    ppt_trace_rec *o = realloc(*out, total * sizeof *o);
    if (!o) return SIZE_MAX;
    *out = o;
    *cap = total;
  }
  ppt_trace_rec *o = *out;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    o[k++] = in[i];
    if (in[i].kind != PPT_REC_BB) continue;
    const ppt_trace_bb *bb = ppt_trace_bb_get(t, in[i].bb);
    if (!bb || !(bb->stack_loads | bb->stack_stores)) continue;
    ppt_trace_mcstack_recs(bb, thread, o + k);
    k += (size_t)bb->stack_loads + bb->stack_stores;
  }
  return k;
}

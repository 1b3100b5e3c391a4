/* stackrefs.h — the machine-level stack references of block instances (issue 13).
 *
 * ppt-cc measures, per block, the stack loads and stores its machine code makes beyond
 * the IR's (ppt_trace_bb.stack_loads/stack_stores). The trace holds no records for them:
 * the reader adds them when it decodes a chunk, right after each block entry, as loads
 * and stores flagged PPT_REC_STACK | PPT_REC_MCSTACK at a small window of addresses of
 * their own per thread (ppt_trace_mcstack_addr), so every pass counts them as private
 * references of the thread that runs the block, which nearly always hit L1 as a real
 * stack's spill slots do. */
#ifndef PPT_TRACE_STACKREFS_H
#define PPT_TRACE_STACKREFS_H

#include <stddef.h>

#include "ppt/trace.h"

/* Copies in[0..n) to *out (grown with realloc, *cap its capacity), with each block
 * entry followed by its block's stack references. Returns the number of records out,
 * SIZE_MAX when out of memory. */
size_t ppt_stackrefs_expand(const ppt_trace *t, uint32_t thread, const ppt_trace_rec *in, size_t n,
                            ppt_trace_rec **out, size_t *cap);

#endif

/* chase.h — loads that wait for loads: the loop-carried chains of dependent loads of a
 * function (pointer chasing, searches), for the block table (ppt_trace_bb.chase).
 *
 * A loop's header PHI is memory-chained when its next value depends on a load whose
 * address depends on the PHI itself (p = p->next; a binary search's lo and hi, moved by
 * the comparison of a[mid]; a tree walk's n = key < n->key ? n->left : n->right): each
 * trip's load cannot issue before the last trip's load returned, so its misses do not
 * overlap, whatever the core's line-fill buffers. A load of the loop whose address
 * depends on a memory-chained PHI is chased. A gather a[idx[i]] is not (idx[i]'s address
 * moves with i alone: the gathers of successive trips are independent), nor is a
 * reduction over loaded values (no address depends on the sum), nor a linear search
 * (i++ whatever a[i] held). Independent chains of one loop (two lists walked in step)
 * are counted apart: that many of its misses are in flight.
 *
 * Dependence is data dependence through the operands of instructions, and the control
 * dependence of a PHI inside the loop on the branches that choose its incoming value
 * (a branchy search's lo = mid + 1 or lo). Loops are natural loops (a back edge's target
 * dominates its source); a load is judged in its innermost loop only, so an inner loop
 * that streams through the node an outer chase reached is not chased. */
#ifndef PCC_CHASE_H
#define PCC_CHASE_H

#include <stdint.h>

#include <llvm-c/Core.h>

typedef struct pcc_chase pcc_chase;

/* Analyses fn (a definition); NULL when out of memory. A function too large for the
 * bounded search (its loops are then not looked at) gives an analysis of no chains. */
pcc_chase *pcc_chase_new(LLVMValueRef fn);
void pcc_chase_free(pcc_chase *c);

/* bb's chased loads, its loads and the independent chains of its innermost loop, packed
 * as ppt_chase_pack (ppt/trace.h) does; 0 for a block without chased loads. */
uint32_t pcc_chase_block(const pcc_chase *c, LLVMBasicBlockRef bb);

#endif

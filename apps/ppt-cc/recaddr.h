/* recaddr.h — which loads of a self-looping block read what one of its stores wrote the
 * trip before: the memory half of a loop-carried recurrence (opmix.c
 * pcc_opmix_mem_recurrence, ppt_trace_bb.mem_chain). */
#ifndef PCC_RECADDR_H
#define PCC_RECADDR_H

#include <llvm-c/Core.h>

/* 1 when, in bb (a block that branches back to itself), a load from `lp` reads the
 * address a store to `sp` wrote on the trip before:
 *  - the same loop-invariant pointer (`*sum += x[i]` through a volatile or possibly
 *    aliased pointer), or
 *  - two addresses into one loop-invariant base whose indices are the same
 *    loop-invariant values except one, which the store takes one trip further along an
 *    induction variable of bb than the load does (`p[j] = f(p[j - 1])` where the
 *    compiler cannot prove p apart from the other arrays stored: adi's forward sweep
 *    has such a version, which clang keeps beside one with p[j-1] in a register and
 *    picks at run time). */
int pcc_recaddr_carried(LLVMValueRef lp, LLVMValueRef sp, LLVMBasicBlockRef bb);

#endif

/* fresh.h — whether a recurrence starts afresh at each entry into its loop, for the
 * recurrences ppt-cc records (opmix.c, PPT_CHAIN_FRESH): a dot product's s = 0 does, a
 * sum that an outer loop carries on does not. */
#ifndef PCC_FRESH_H
#define PCC_FRESH_H

#include <stddef.h>

#include <llvm-c/Core.h>

/* 1 when no value the PHI `phi` takes on entering its loop (an incoming value from a
 * block outside loop[0..nloop), the blocks its back edges come from) depends on the PHI
 * itself, through the operands of instructions, PHIs' incoming values included; 0 when
 * one does, when out of memory, or when the search passes its bound (the cautious
 * answer: no overlap between entries is then assumed). */
int pcc_fresh_at_entry(LLVMValueRef phi, const LLVMBasicBlockRef *loop, size_t nloop);

#endif

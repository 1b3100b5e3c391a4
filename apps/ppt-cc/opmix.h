/* opmix.h — the op mix of one LLVM instruction, in the classes of enum ppt_op.
 *
 * ppt-cc counts, per instrumented basic block, what the block's own instructions do
 * (integer ALU, FP add/mul/divide, loads, stores, branches, calls, vector use), from the
 * exact IR it hands to the backend. SanitizerCoverage's own calls, the casts that only
 * feed them, debug intrinsics and PHIs are not the program's work and are not counted. */
#ifndef PCC_OPMIX_H
#define PCC_OPMIX_H

#include <stdint.h>

#include <llvm-c/Core.h>

#include "trace/bbdesc.h"

/* 1 for instructions that are not part of the program's work (see above). */
int pcc_opmix_ignored(LLVMValueRef inst);
/* 1 if inst is a call to the SanitizerCoverage function `name` (e.g.
 * "__sanitizer_cov_trace_pc_guard"). */
int pcc_opmix_is_call_to(LLVMValueRef inst, const char *name);
/* Adds inst's contribution to ops (indexed by enum ppt_op; counts saturate at 65535;
 * ops[PPT_OP_VWIDTH] is the widest vector seen, to be started at 1 by the caller). */
void pcc_opmix_add(LLVMValueRef inst, uint16_t ops[PPT_BBDESC_NOPS]);

/* For a block that branches back to itself (a loop body after rotation), the longest
 * loop-carried dependence cycle through one of its PHIs: its FP ops go to
 * ops[PPT_OP_CHAIN_FP], its divides and lane moves (lanes.h) to ops[PPT_OP_CHAIN_DIV]
 * (ppt_chain_div_pack), with PPT_CHAIN_FRESH when the cycle starts afresh at each entry
 * into the loop. An iteration cannot start that cycle
 * before the previous one finished it, whatever the core's throughput. Returns how
 * many of the cycle's FP ops are multiplies (fmul, fma; a split fmuladd entered
 * through a factor), which a core may run at another latency than adds. */
unsigned pcc_opmix_recurrence(LLVMBasicBlockRef bb,
                              uint16_t ops[PPT_BBDESC_NOPS]);

/* For a block that branches back to itself, the longest loop-carried cycle through
 * memory: a load and a later store, the load reading what the store wrote the trip
 * before (recaddr.h: one loop-invariant address, `*sum += x` through a volatile or
 * possibly aliased pointer, or p[j] = f(p[j - 1])), the stored value depending on the
 * loaded one. Its counts packed as ppt_trace_bb.mem_chain (ppt_memchain_pack: one load,
 * the integer ops, FP adds, multiplies and divides on the way from the load to the
 * store); 0 when the block has no such cycle. */
uint32_t pcc_opmix_mem_recurrence(LLVMBasicBlockRef bb);

/* The longest chain of dependent FP ops inside one execution of bb (values from PHIs
 * and other blocks taken as ready): how many adds, multiplies (fmul, fma) and divides
 * or roots it holds. Independent executions of the block overlap only as far as the
 * core's scheduler holds their ops, so a long chain bounds the block's rate even
 * without a loop-carried recurrence (a Horner polynomial per element). */
void pcc_opmix_path(LLVMBasicBlockRef bb, unsigned *adds, unsigned *muls,
                    unsigned *divs);

/* How many of bb's FDIV ops are square roots (llvm.sqrt, sqrt, sqrtf, sqrtl): a core's
 * divider runs them at another rate than divides. */
unsigned pcc_opmix_sqrts(LLVMBasicBlockRef bb);

#endif

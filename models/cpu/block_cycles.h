/* models/cpu/block_cycles.h — the core model's bounds on one block's execution besides
 * its ops' throughput, for the program model that charges what they add beyond the
 * block's issue time (models/progmodel/progmodel.c). Not installed: they read a trace's
 * block record (ppt_trace_bb), which a tasklist does not carry. */
#ifndef PPT_CPU_BLOCK_CYCLES_H
#define PPT_CPU_BLOCK_CYCLES_H

#include "ppt/hwspec.h"
#include "ppt/trace.h"

/* Cycles per execution of block bb bounded by its loop-carried recurrence through
 * registers, through memory (ppt_trace_bb.mem_chain), and by its longest FP chain
 * through the core's window (ops: the block's ops by class); 0 where the block has none
 * or the spec does not say (block_cycles.c). */
double cpu_chain_cycles(const ppt_hwspec *hw, const ppt_trace_bb *bb);
double cpu_mem_chain_cycles(const ppt_hwspec *hw, const ppt_trace_bb *bb);
double cpu_window_cycles(const ppt_hwspec *hw, const ppt_trace_bb *bb, const double ops[PPT_HW_NOPCLASS]);

#endif

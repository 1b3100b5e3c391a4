/* models/cpu/block_cycles.c — what bounds one block's execution besides its
 * ops' throughput: recurrences through registers and through memory, and the FP
 * window over long in-block chains (progmodel.c charges what they add beyond the
 * block's issue time, per compute model). */
#include <math.h>

#include "cpu/block_cycles.h"
#include "ppt/cpu.h"

/* Cycles of one trip round a block's loop-carried recurrence: its adds at the FP add
 * latency, its multiplies at the multiply's, its divides and roots at the divide's. A
 * block that does not say which of its FP ops are multiplies (older traces) takes the
 * slower latency for all of them. Lane moves on the cycle (adi's forward sweeps, which
 * carry p[j-1] and q[j-1] as one SLP pair: unpckhpd, unpcklpd round divpd) add theirs. */
double cpu_chain_cycles(const ppt_hwspec *hw, const ppt_trace_bb *bb) {
  double fp = bb->ops[PPT_OP_CHAIN_FP], add = hw->ops[PPT_HW_FADD].latency,
         mul = hw->ops[PPT_HW_FMUL].latency;
  int muls = ppt_trace_bb_chain_muls(bb);
  double lat = muls < 0 ? fp * fmax(add, mul) : (fp - fmin(muls, fp)) * add + fmin(muls, fp) * mul;
  /* A lane move (a shuffle, unpack or blend) takes a simple op's latency: one cycle on
   * the FP pipes of every x86 core, as an integer add does. */
  return lat + ppt_trace_bb_chain_divs(bb) * hw->ops[PPT_HW_FDIV].latency +
         ppt_trace_bb_chain_moves(bb) * hw->ops[PPT_HW_IALU].latency;
}

/* Cycles of one trip round a block's recurrence through memory (ppt_trace_bb.mem_chain):
 * the load waits for the last iteration's store (hwspec store_forward_cycles, which
 * `ppt calibrate` times on this very loop shape; without it the load-to-use latency,
 * which on one Zen 5 host gives falseshare's `*c += f(x)` 4.31 + 1 = 5.31 cycles against
 * 5.18 measured; on a Zen 3 guest falseshare's one-thread trip takes ~8.0 cycles against
 * 4.27 + 1, and `ppt calibrate` reads 6.35 + 1 on an Intel Xeon guest), then the cycle's
 * ops at their latencies (adi's p[j] = -c / (a * p[j-1] + b): a multiply, an add and a
 * divide). 0 for a block without one. */
double cpu_mem_chain_cycles(const ppt_hwspec *hw, const ppt_trace_bb *bb) {
  unsigned loads, ialu, fadd, fmul;
  if (!ppt_trace_bb_mem_chain(bb, &loads, &ialu, &fadd, &fmul)) return 0;
  double fwd = hw->store_forward_cycles > 0 ? hw->store_forward_cycles : hw->ops[PPT_HW_LOADST].latency;
  /* A cycle with FP ops on it carries its value in an FP register, which a core that
   * renames memory still forwards through the store queue (hwspec.h). */
  if (fadd + fmul + ppt_trace_bb_mem_chain_divs(bb) > 0 && hw->store_forward_fp_cycles > 0)
    fwd = hw->store_forward_fp_cycles;
  return loads * fwd + ialu * hw->ops[PPT_HW_IALU].latency + fadd * hw->ops[PPT_HW_FADD].latency +
         fmul * hw->ops[PPT_HW_FMUL].latency + ppt_trace_bb_mem_chain_divs(bb) * hw->ops[PPT_HW_FDIV].latency;
}

/* Cycles per execution of a block whose longest in-block chain of dependent FP ops
 * (PPT_BB_PATH) bounds it through the core's FP window (hwspec fp_window): the window
 * holds S / F whole executions of the block's F FP ops, each advancing one op per P / F
 * cycles, and the chain's ops wait for their pipes (ppt_hwspec_window_cycles). Long
 * chains over independent elements (a Horner polynomial per element) run at this bound;
 * 0 where the spec or the trace does not say. ops: the block's ops by class, one
 * execution (add_block). The path counts roots among its divides; it holds at least
 * those the block's other divides cannot account for (nbody's pair: 2 on the path, 2 in
 * the block, 1 a root), and those take the root's latency (23.5 cycles on the
 * validation host against the divide's 13.1). */
double cpu_window_cycles(const ppt_hwspec *hw, const ppt_trace_bb *bb, const double ops[PPT_HW_NOPCLASS]) {
  unsigned adds, muls, divs;
  if (!(hw->fp_window > 0) || !ppt_trace_bb_path(bb, &adds, &muls, &divs)) return 0;
  unsigned all = bb->ops[PPT_OP_FDIV], roots = ppt_trace_bb_sqrts(bb);
  unsigned plain = all - roots, path_roots = divs > plain ? divs - plain : 0;
  if (path_roots > roots) path_roots = roots;
  double path[PPT_HW_NOPCLASS] = {0};
  path[PPT_HW_FADD] = adds;
  path[PPT_HW_FMUL] = muls;
  path[PPT_HW_FDIV] = divs - path_roots;
  path[PPT_HW_FSQRT] = path_roots;
  return ppt_hwspec_window_cycles(hw, path, ops);
}

/* ppt/cpu.h — the parts of the core model that read a hwspec's figures into time beside
 * the tasklists of ppt/tasklist.h: the FP window's relation (what hwspec.fp_window means,
 * for the program model that prices chains with it and for `ppt calibrate` that measures
 * it) and the compute speed a region's thread gets from hwspec.core_speed. They live in
 * the core model, not in the spec format: the format says what a figure is, the model
 * what it costs. */
#ifndef PPT_CPU_H
#define PPT_CPU_H

#include <stdint.h>

#include "ppt/hwspec.h"

/* The FP window (hwspec.fp_window, models/cpu/fp_window.c): cycles per execution
 * of a block whose executions each run a chain of dependent FP ops, path[c] of them of
 * class c (PPT_HW_FADD, FMUL, FDIV, FSQRT), the block holding ops[c] FP ops of class c:
 * T = (P + W(T))·F / (S + F), P the chain's latency, F the FP ops, S the window and W
 * the chain's ops' waits for their pipes at T; at least (P + W(T)) / fp_chains where the
 * spec gives fp_chains. 0 when the spec has no window or the block no chain. */
double ppt_hwspec_window_cycles(const ppt_hwspec *hw, const double path[PPT_HW_NOPCLASS],
                                const double ops[PPT_HW_NOPCLASS]);
/* The same relation read backwards: the window S with which such a block takes t
 * cycles (what `ppt calibrate` writes from the chains it times); 0 when undefined. */
double ppt_hwspec_window_size(const ppt_hwspec *hw, const double path[PPT_HW_NOPCLASS],
                              const double ops[PPT_HW_NOPCLASS], double t);
/* The chains in flight E = (P + W(t)) / t with which such a block takes t cycles (what
 * `ppt calibrate` writes as fp_chains from short chains); 0 when undefined. */
double ppt_hwspec_window_chains(const ppt_hwspec *hw, const double path[PPT_HW_NOPCLASS],
                                const double ops[PPT_HW_NOPCLASS], double t);
/* Compute speed of thread `thread` of a region of `nthreads` threads
 * (models/cpu/thread_speed.c): core `thread`'s when the region has at least as many
 * threads as core_speed lists; with fewer, for every thread the mean over the listed
 * cores its first thread may start on (the OS chooses; OpenMP places the others on the
 * next cores) of the slowest thread's time: one thread gets the harmonic mean. */
double ppt_hwspec_thread_speed(const ppt_hwspec *hw, uint32_t thread, uint32_t nthreads);

#endif

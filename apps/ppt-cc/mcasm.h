/* mcasm.h — stack loads and stores per block, read from x86-64 assembly text.
 *
 * The trace sees the IR's memory accesses; the machine code also touches the stack on its
 * own: register spills and reloads, stack-passed arguments, push/pop, the return address
 * that call writes and ret reads, callee-saved registers. mcrefs.c generates assembly for
 * a copy of the module in which each instrumented block starts with an inline-asm marker
 * line "# ppt-bb K" (K: the block's index), and this parser counts, between a marker and
 * the next, the instructions' memory operands based on %rsp (or %rbp in a function that
 * set it up as frame pointer) without an index register, and constant-pool loads
 * (".LCPI*(%rip)"), plus the implicit stack access of push, pop, call, ret and leave. It
 * depends on nothing but libc (unit-tested alone). */
#ifndef PCC_MCASM_H
#define PCC_MCASM_H

#include <stddef.h>
#include <stdint.h>

typedef struct pcc_mcstack {
  uint32_t loads, stores; /* summed over every copy of the marker */
  uint32_t copies;        /* how many times the marker appears (tail duplication: > 1) */
} pcc_mcstack;

/* Adds the stack accesses of AT&T-syntax assembly `text` (len bytes) to out[K] (K < n;
 * other markers are ignored), per machine block (a ".LBB" label or, in verbose assembly,
 * a "# %bb.N:" comment starts one): a block's accesses go to its marker, wherever in the
 * block (the prologue, spill code at its top); those of a block without a marker to the
 * last marked block of the function at the same loop depth ("Depth=N" in the label's
 * comment), else to the next marker. out must be zeroed by the caller. */
void pcc_mcasm_count(const char *text, size_t len, pcc_mcstack *out, size_t n);

/* pcc_mcasm_count, and fn(arg, K, lines, len) for each machine block (or part of one, where
 * a block holds two markers) that marker K's counts came from: its lines after its label,
 * instructions, directives and comments as they are in text. */
typedef void (*pcc_mcasm_block_fn)(void *arg, size_t marker, const char *lines, size_t len);
void pcc_mcasm_walk(const char *text, size_t len, pcc_mcstack *out, size_t n, pcc_mcasm_block_fn fn,
                    void *arg);

/* Stack loads and stores of one instruction line (no label, no comment), as above;
 * *fp says whether %rbp is the frame pointer (and becomes 1 at "movq %rsp, %rbp"). */
void pcc_mcasm_insn(const char *s, size_t len, int *fp, uint32_t *loads, uint32_t *stores);

#endif

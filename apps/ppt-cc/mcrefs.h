/* mcrefs.h — stack references of each instrumented block's machine code (issue 13).
 *
 * The IR ppt-cc analyses does not show what the backend adds: spills and reloads, stack
 * arguments, push/pop, return addresses, callee-saved registers. For one module (after
 * widemem.h's pass, before the block table is added) this clones it, replaces each
 * block's SanitizerCoverage guard call by an inline-asm marker and deletes the
 * load/store callbacks, so the clone is register-allocated as the user's uninstrumented
 * build would be, generates x86-64 assembly for it in memory at the optimisation level
 * the functions' attributes imply (optnone: -O0, else the default level), and counts
 * per block the stack loads and stores (mcasm.h) beyond those the IR already has
 * (loads and stores whose pointer is an alloca at a constant offset). A marker that
 * codegen duplicated (tail duplication) counts the rounded mean over its copies, since
 * each execution of the block runs one of them. Other targets: all counts are 0. */
#ifndef PCC_MCREFS_H
#define PCC_MCREFS_H

#include <stdint.h>

#include <llvm-c/Core.h>

#include "mca.h"
#include "ppt/err.h"

typedef struct pcc_mcrefs pcc_mcrefs;

/* Measures module m (left unchanged). src names the source in messages. With mca (may
 * be NULL), also each block's core cycles from the same assembly (mca.h). */
int pcc_mcrefs_measure(LLVMModuleRef m, const char *src, const pcc_mca_cfg *mca, pcc_mcrefs **out,
                       ppt_err *err);
/* Stack loads and stores of the block whose guard call is `guard_call` (an instruction
 * of the measured module), and its cycles (x PCC_MCA_SCALE); 0s for one not measured.
 * mc may be NULL. */
void pcc_mcrefs_get(const pcc_mcrefs *mc, LLVMValueRef guard_call, uint16_t *loads, uint16_t *stores,
                    uint16_t *cycles);
void pcc_mcrefs_free(pcc_mcrefs *mc);

#endif

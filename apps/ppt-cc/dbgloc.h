/* dbgloc.h — what a block's debug information says about where its code comes from: the
 * source file and line of its first located instruction, the functions that code was
 * inlined from (the inlinedAt chain, as cg_annotate and debuggers read it), and the names
 * the block table shows for functions. */
#ifndef PCC_DBGLOC_H
#define PCC_DBGLOC_H

#include <stdio.h>

#include <llvm-c/Core.h>

/* The first instruction of bb with a real (nonzero) debug line, or NULL. */
LLVMValueRef pcc_dbgloc_first(LLVMBasicBlockRef bb);

/* "directory/filename" of at's debug location (an instruction, or a function for its
 * DISubprogram's file); "" without one. malloc'ed, NULL when out of memory. */
char *pcc_dbgloc_file(LLVMValueRef at);

/* The name the table shows for a function: C++ names demangled
 * (`void axpy<double>(std::vector<...>&)`), so that ppt info, annotate and --only speak
 * the source's language; everything else (C names, clang's `.omp_outlined.`) as it is.
 * A name the demangler refuses stays mangled. malloc'ed, NULL when out of memory. */
char *pcc_dbgloc_name(const char *name);

/* The inlining chain of inst's debug location, innermost first: one line per function
 * the code was inlined from, "FUNC\tFILE\tLINE\n" with FUNC as pcc_dbgloc_name shows it
 * and FILE:LINE the call site it was inlined at (in the next level's function, or the
 * IR function for the last). *chain is malloc'ed (NULL and *nlevels 0 when inst's code
 * is its own function's); returns -1 when out of memory. */
int pcc_dbgloc_chain(LLVMValueRef inst, char **chain, unsigned *nlevels);

/* A block's chain: pcc_dbgloc_chain of its first located instruction (first, may be
 * NULL), then "FUNC\n" (no tabs) for each other function whose inlined code the block
 * holds further on (a block can begin in the caller's code and go on in a callee's, or
 * hold the end of one inlined call and the start of the next): the block belongs to
 * those too where a region is concerned (ppt trace --roi), but its references are
 * charged to its first instruction's chain, as its line is. *nlevels counts the first
 * part only; *chain is NULL when the block holds no inlined code. */
int pcc_dbgloc_block_chain(LLVMBasicBlockRef bb, LLVMValueRef first, char **chain, unsigned *nlevels);

/* Writes " inlined=FUNC@FILE:LINE" for each level of a chain and " also=FUNC" for each
 * other function (ppt-cc's log). */
void pcc_dbgloc_print_chain(FILE *f, const char *chain);

#endif

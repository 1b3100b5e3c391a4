/* bbdesc.h — the per-block descriptor that ppt-cc embeds in each instrumented object.
 *
 * ppt-cc adds to every module a constant array of these in the ELF section "ppt_bbtab".
 * The linker concatenates the arrays and defines __start_ppt_bbtab/__stop_ppt_bbtab, so
 * the runtime finds the table of exactly the code that was compiled and linked: each
 * descriptor points at its block's SanitizerCoverage guard, whose value the runtime set
 * to the block id. The layout is shared by ppt-cc (which emits it as LLVM IR) and the
 * runtime (which reads it); both static-assert it. */
#ifndef PPT_BBDESC_H
#define PPT_BBDESC_H

#include <stdint.h>

/* Layout version 2 gives `stack` a meaning; version 1 (objects built before it) had 0
 * there, which the runtime still reads, as "no machine-level stack references". */
#define PPT_BBDESC_MAGIC 0x50504202u    /* "PPB" + layout version 2 */
#define PPT_BBDESC_MAGIC_V1 0x50504201u /* "PPB" + layout version 1 */
#define PPT_BBDESC_NOPS 16              /* room for PPT_OP_COUNT (16) */

struct ppt_bbdesc {
  uint32_t magic; /* PPT_BBDESC_MAGIC */
  uint32_t line;  /* first source line of the block, 0 if none */
  uint32_t flags; /* PPT_BB_* from ppt/trace.h */
  /* Stack references the block's machine code makes beyond the IR's (spills, stack
   * arguments, push/pop, call/ret): loads in the low 16 bits, stores in the high 16. */
  uint32_t stack;
  const uint32_t *guard;         /* the block's SanitizerCoverage guard */
  const char *func;              /* NUL-terminated function name */
  const char *file;              /* NUL-terminated source file name ("" if none) */
  uint16_t ops[PPT_BBDESC_NOPS]; /* indexed by enum ppt_op; unused slots 0 */
};

_Static_assert(sizeof(struct ppt_bbdesc) == 72, "ppt_bbdesc layout is part of the ABI");

/* A block whose loop carries a value through memory (ppt_trace_bb.mem_chain): one of
 * these in the ELF section "ppt_bbmrc", beside its ppt_bbdesc, found by the runtime the
 * same way (__start_ppt_bbmrc/__stop_ppt_bbmrc). A section of its own, so that
 * ppt_bbdesc keeps its size and objects built before it still link and trace. */
#define PPT_BBMRC_MAGIC 0x504d4301u /* "PMC" + layout version 1 */
struct ppt_bbmrc {
  const uint32_t *guard; /* the block's SanitizerCoverage guard, as in its ppt_bbdesc */
  uint32_t magic;        /* PPT_BBMRC_MAGIC */
  uint32_t chain;        /* PPT_MEMCHAIN_* fields (ppt/trace.h) */
};

_Static_assert(sizeof(struct ppt_bbmrc) == 16, "ppt_bbmrc layout is part of the ABI");

/* The same struct and section, magic PPT_BBCYC_MAGIC: `chain` holds instead the block's
 * cycles per execution on the build host's core as llvm-mca models it, in 1/16 cycle
 * (ppt_trace_bb.core_cycles16; apps/ppt-cc/mca.h). Objects built before it have none. */
#define PPT_BBCYC_MAGIC 0x50435901u /* "PCY" + layout version 1 */

/* The same struct and section, magic PPT_BBCHS_MAGIC: `chain` holds instead the block's
 * loads that wait for loads (ppt_trace_bb.chase; apps/ppt-cc/chase.h). Objects built
 * before it have none. */
#define PPT_BBCHS_MAGIC 0x53484301u /* "CHS" + layout version 1 */

/* A block whose code was inlined from other functions (ppt_trace_bb.inl): one of these in
 * the ELF section "ppt_bbinl", found like the others. chain: nlevels lines, innermost
 * function first, each "FUNC\tFILE\tLINE\n" with FILE:LINE the call site the function
 * was inlined at, then "FUNC\n" for each other function whose inlined code the block
 * holds further on (apps/ppt-cc/dbgloc.h: a region's bounds count those; the trace's
 * table keeps the levels). Objects built before it have none. */
#define PPT_BBINL_MAGIC 0x504e4c01u /* "PNL" + layout version 1 */
struct ppt_bbinl {
  const uint32_t *guard; /* the block's SanitizerCoverage guard, as in its ppt_bbdesc */
  uint32_t magic;        /* PPT_BBINL_MAGIC */
  uint32_t nlevels;
  const char *chain;
};

_Static_assert(sizeof(struct ppt_bbinl) == 24, "ppt_bbinl layout is part of the ABI");

#endif

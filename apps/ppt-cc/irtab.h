/* irtab.h — adds the basic-block table to a SanitizerCoverage-instrumented module.
 *
 * Input: the bitcode clang produced for one C source with
 * -fsanitize-coverage=bb,no-prune,trace-pc-guard,... Every instrumented block calls
 * __sanitizer_cov_trace_pc_guard with a constant pointer to its own guard (element k of
 * a __sancov_gen_ array). For each such block this appends a struct ppt_bbdesc
 * (models/trace/bbdesc.h) to a constant array in section "ppt_bbtab": the guard
 * pointer, function, source file and line, flags and the op mix of the block's other
 * instructions. Before that, widemem.h's pass adds runtime callbacks for the memory
 * accesses SanitizerCoverage does not report. The module is written back unchanged otherwise, and clang compiles it
 * with -disable-llvm-passes, so the table describes exactly the IR that became code. */
#ifndef PCC_IRTAB_H
#define PCC_IRTAB_H

#include <stddef.h>
#include <stdio.h>

#include "mca.h"
#include "ppt/err.h"

typedef struct pcc_irtab_stats {
  size_t nblocks;    /* descriptors written (= guards in the module) */
  size_t nfunctions; /* functions with at least one instrumented block */
  size_t nparallel;  /* descriptors flagged PPT_BB_PARALLEL */
  size_t ncallbacks; /* accesses given a ppt callback (widemem.h) */
} pcc_irtab_stats;

/* Reads bitcode `in`, adds the table and writes bitcode `out`. `src` names the C source
 * in messages. If `log` is non-NULL, one line per descriptor is written to it. */
int pcc_irtab_rewrite(const char *in, const char *out, const char *src, const pcc_mca_cfg *mca, FILE *log,
                      pcc_irtab_stats *st, ppt_err *err);

#endif

/* ppt/program.h — a program as PPT runs it: a sequence of regions of tasklists.
 *
 * The program model (ppt/progmodel.h) builds one from a trace, the proxy models of
 * apps/models build one by hand, and the engine (ppt/engine.h) runs it on a node. A
 * serial region runs one tasklist on core 0; a parallel region runs one tasklist per
 * thread on cores 0..n−1, fork-join, ending at a barrier (docs/engine.md).
 *
 * A program only records which tasklist each thread of each region runs: tasklists are
 * borrowed (they must outlive the program), and the same tasklist may appear in many
 * regions and threads, so a 1000-region program that repeats one loop body costs one
 * pointer per thread per region. */
#ifndef PPT_PROGRAM_H
#define PPT_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "ppt/err.h"
#include "ppt/tasklist.h"
#include "ppt/trace.h"

typedef struct ppt_program ppt_program;

/* An empty program; NULL when out of memory. */
ppt_program *ppt_program_new(void);
void ppt_program_free(ppt_program *prog);
int ppt_program_add_serial(ppt_program *prog, const ppt_tasklist *tl, ppt_err *err);
/* Thread t of the region runs tls[t] on core t; nthreads >= 1. */
int ppt_program_add_parallel(ppt_program *prog, size_t nthreads, const ppt_tasklist *const *tls,
                             ppt_err *err);
/* The next part of the parallel region before it, after a barrier (a worksharing loop's
 * end): the same threads go on, so the part pays no fork/join overhead. */
int ppt_program_add_after_barrier(ppt_program *prog, size_t nthreads, const ppt_tasklist *const *tls,
                                  ppt_err *err);

/* ---- reading a program ---- */

size_t ppt_program_nregions(const ppt_program *prog);

/* One region: PPT_REGION_SERIAL (nthreads 1), PPT_REGION_FORK (a parallel region starts)
 * or PPT_REGION_BARRIER (a parallel region goes on after a barrier); tls[t] is thread
 * t's tasklist. tls points into the program: valid until its next add or free. */
typedef struct ppt_region {
  ppt_region_kind kind;
  uint32_t nthreads;
  const ppt_tasklist *const *tls;
} ppt_region;

/* 0, or PPT_EINPUT when the index is out of range. */
int ppt_program_region(const ppt_program *prog, size_t region, ppt_region *out);

#endif

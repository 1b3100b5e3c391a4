/* bbtab.h — the block table section: build (runtime, tests) and parse (reader). */
#ifndef PPT_TRACE_BBTAB_H
#define PPT_TRACE_BBTAB_H

#include <stddef.h>
#include <stdint.h>

#include "ppt/err.h"
#include "ppt/trace.h"

/* Serialises bbs[0..n) (ids must be 1..n in order) into a malloc'd raw table. Returns 0 or -1. */
int ppt_bbtab_build(const ppt_trace_bb *bbs, uint32_t n, unsigned char **raw, uint32_t *size);

/* Parses a raw table of a trace of the given format version into a malloc'd array of n
 * entries (their inlining levels in the same allocation) whose strings point into
 * *strings (also malloc'd). Validates every offset. */
int ppt_bbtab_parse(const unsigned char *raw, uint32_t size, uint32_t version, const char *path,
                    ppt_trace_bb **bbs, uint32_t *n, char **strings, ppt_err *err);

#endif

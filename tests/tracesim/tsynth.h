/* tsynth.h — traces for the tracesim tests, written through the real trace writer from
 * records held in memory (so a brute-force oracle can replay exactly the same records). */
#ifndef PPT_TESTS_TSYNTH_H
#define PPT_TESTS_TSYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "ppt/trace.h"

/* A growable record list (one thread's stream). */
typedef struct ts_stream {
  ppt_trace_rec *r;
  size_t n, cap;
} ts_stream;

void ts_bb(ts_stream *s, uint32_t id);
void ts_mem(ts_stream *s, int store, uint64_t addr, uint8_t size);
void ts_event(ts_stream *s, uint32_t type);
void ts_free(ts_stream *s);

/* Writes streams s[0..nthreads) as threads 0..nthreads−1 and a block table of nbbs blocks,
 * block id i+1 belonging to function funcs[i]. Returns 0 on success. */
int ts_write(const char *path, const ts_stream *s, uint32_t nthreads, const char *const *funcs,
             uint32_t nbbs);

/* A fresh scratch folder for this test program (under $PPT_BINARY_DIR or /tmp). */
const char *ts_dir(const char *name);

#endif

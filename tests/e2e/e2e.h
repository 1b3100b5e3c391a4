/* e2e.h — helpers for end-to-end tests: a scratch folder, files written into it, and
 * commands run through the built ppt-cc and ppt (found via PPT_BINARY_DIR). */
#ifndef PPT_TESTS_E2E_H
#define PPT_TESTS_E2E_H

#include "ppt/trace.h"

/* Creates a fresh scratch folder for this test; returns its path (static storage). */
const char *e2e_dir(const char *name);
/* Writes text to dir/file. */
void e2e_write(const char *dir, const char *file, const char *text);
/* Runs a shell command line in dir with PPT (ppt) and PPTCC (ppt-cc) in the
 * environment; returns the exit status. */
int e2e_sh(const char *dir, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Opens dir/file as a trace (fails the test on error), with the machine code's stack
 * references off (ppt_trace_set_stack_refs): the IR's references only. */
ppt_trace *e2e_open(const char *dir, const char *file);

/* Writes src to dir/prog.c, builds it with `ppt-cc -O2 cflags` into dir/prog and traces
 * one run into dir/prog.trace (its output discarded); fails the test if either step does. */
void e2e_build_trace(const char *dir, const char *prog, const char *src, const char *cflags);

/* ppt_trace_summarize of t (fails the test on error; release with ppt_trace_summary_free). */
void e2e_summarize(const ppt_trace *t, ppt_trace_summary *s);

/* The block of function func with the most instances (a kernel's inner loop) and, in
 * *instances, how many; fails the test when func has no block. */
const ppt_trace_bb *e2e_busiest_block(const ppt_trace *t, const char *func, uint64_t *instances);

/* Calls fn on every record of every thread of t, thread by thread, in stream order (fails
 * the test on a read error). */
void e2e_foreach_rec(const ppt_trace *t, void (*fn)(uint32_t thread, const ppt_trace_rec *r, void *arg),
                     void *arg);
/* Loads and stores of every thread that are not on the threads' own stacks. */
void e2e_count_heap(const ppt_trace *t, uint64_t *loads, uint64_t *stores);

/* Reads the first number in dir/file (e.g. an address a test program printed). */
unsigned long e2e_read_ulong(const char *dir, const char *file);

#endif

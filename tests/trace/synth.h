/* synth.h — synthetic traces for tests: a seeded generator whose records can be
 * regenerated for comparison, written through the real trace writer. */
#ifndef PPT_TESTS_SYNTH_H
#define PPT_TESTS_SYNTH_H

#include <stdint.h>

#include "ppt/trace.h"

/* Record i of thread th of the synthetic stream for `seed` (deterministic, no state). */
ppt_trace_rec synth_rec(uint64_t seed, uint32_t th, uint64_t i, uint32_t nbbs);
/* The values of an event record i (synth_rec(...).kind == PPT_REC_EVENT). */
ppt_trace_event synth_event(uint64_t seed, uint32_t th, uint64_t i);
/* Writes nthreads streams of nrecs records each; returns 0 on success. */
int synth_write(const char *path, uint64_t seed, uint32_t nthreads, uint64_t nrecs, uint32_t nbbs);

#endif

/* ppt/progmodel.h — the program model PPT simulates, built from one sequential trace.
 *
 * The trace is mimicked on N cores (ppt/sasmm.h). Every phase becomes a region of the
 * program: serial code a serial region on core 0, parallel code a fork-join region with
 * one tasklist per core. A core's tasklist carries the op mix of the blocks it executed
 * in that phase (block counts x the block table ppt-cc recorded) and its memory
 * accesses with the per-level local hit rates of the mimicked streams (exact LRU
 * simulation of the hwspec's hierarchy, private levels per core, shared levels shared),
 * so AMM Eq. 4-5 turns them into time when the engine runs the program (ppt/program.h).
 * When the hwspec lists data-TLB levels, the same simulation runs each core's TLB, and
 * the tasklists carry the misses' cycles as a CPU item (docs/engine.md, "Data-TLB
 * misses"). */
#ifndef PPT_PROGMODEL_H
#define PPT_PROGMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "ppt/err.h"
#include "ppt/hwspec.h"
#include "ppt/program.h"
#include "ppt/sasmm.h"
#include "ppt/tasklist.h"
#include "ppt/trace.h"
#include "ppt/tracesim.h"

typedef struct ppt_progmodel ppt_progmodel;

/* Builds the model of `t` on o->ncores cores of hw. counted (NULL = all; else
 * [nbbs + 1]) restricts the model to the work of the blocks with counted[b] != 0 (e.g.
 * a program's kernel functions, to compare with a timer around the kernel); every
 * reference still passes through the caches. */
/* policy (NULL = default) is the core model the engine will use: its compute model
 * decides how much of a recurrence's latency the block's own issue time already
 * covers. The simulation itself does not depend on it. t, hw and counted must outlive m. */
int ppt_progmodel_build(const ppt_trace *t, const ppt_hwspec *hw, const ppt_sasmm_opts *o,
                        const ppt_tc_policy *policy, const uint8_t *counted, ppt_progmodel **out,
                        ppt_err *err);
/* Remakes the tasklists and the program for another core model (NULL = default) from
 * the same simulation, much cheaper than a new build and bit-identical to a build with
 * that policy. Programs and tasklists obtained before are freed. On failure m is left
 * as it was. */
int ppt_progmodel_set_policy(ppt_progmodel *m, const ppt_tc_policy *policy, ppt_err *err);
void ppt_progmodel_free(ppt_progmodel *m);

/* The program for the engine (valid while m lives). */
const ppt_program *ppt_progmodel_program(const ppt_progmodel *m);
/* Hit rates of the mimicked streams (per level, in references). */
const ppt_tracesim_result *ppt_progmodel_hitrates(const ppt_progmodel *m);
size_t ppt_progmodel_nregions(const ppt_progmodel *m);

#endif

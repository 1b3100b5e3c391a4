/* passes.h — SASMM's two passes over a trace before any dealing (internal to the sasmm
 * module): pass 1 finds every worksharing-loop instance and the block that starts its
 * iterations (sasmm_find_markers), pass 2 cuts the trace into phases and hands each
 * step to its caller (sasmm_walk): the mimic streams them (mimic.c), a plan records
 * them (plan.c), and a sampled sweep's sieve is fed in the same pass (sieve.h). */
#ifndef PPT_SASMM_PASSES_H
#define PPT_SASMM_PASSES_H

#include <stddef.h>
#include <stdint.h>

#include "ppt/sasmm.h"
#include "sasmm/rangereader.h"
#include "sasmm/sieve.h"

typedef struct loop_info {
  uint64_t begin, end; /* record indices of LOOP_BEGIN and LOOP_END */
  int sched;
  int64_t chunk;
  uint64_t trip;
  uint32_t marker; /* 0: none found */
  uint64_t marker_count;
} loop_info;

/* A parallel region as pass 1 saw it (outermost regions only; nested ones are part of
 * theirs). Blocks the thread allocated inside it are private to each mimicked core
 * (seg[s0, s0 + ns) of its loops: sasmm_privseg, rangereader.h); a region whose thread
 * asked for its number and that has no worksharing loop divides its work by hand and
 * is dealt to the cores in contiguous shares of its block instances (mimic.c). */
typedef struct region_info {
  uint64_t begin, end; /* record indices of PAR_BEGIN and PAR_END */
  uint64_t blocks;     /* block instances in between */
  unsigned asked;      /* bit PPT_TEAM_THREAD_NUM, bit PPT_TEAM_NUM_THREADS: PPT_EV_TEAM_QUERY seen */
  int has_loop;        /* a worksharing loop ran inside */
  size_t s0, ns;
} region_info;

typedef struct loops {
  loop_info *v;
  size_t n, cap;
  region_info *reg; /* in fork order: the walk's k-th fork is reg[k] */
  size_t nreg, capreg;
  sasmm_privseg *seg;
  size_t nseg, capseg;
} loops;

/* Whether region r is divided by hand: the thread asked for its number, and no
 * worksharing loop deals its work. */
static inline int ppt_region_hand_split(const region_info *r) {
  return (r->asked & (1u << PPT_TEAM_THREAD_NUM)) && !r->has_loop;
}
/* Releases what pass 1 allocated into L. */
void ppt_sasmm_loops_free(loops *L);

/* One step of pass 2 (walk), as the plan records it: a plain phase, a parallel region's
 * fork, or a worksharing-loop instance with its iteration boundaries (bnd[b0, b0+nb)). */
typedef struct step {
  enum { STEP_PLAIN, STEP_FORK, STEP_LOOP } kind;
  int parallel;
  uint64_t s, e;   /* STEP_PLAIN: records [s, e) */
  size_t loop;     /* STEP_LOOP: index in L */
  uint64_t b0, nb; /* STEP_LOOP: its boundaries in the plan's bnd */
} step;

/* Pass 2's steps are the same at every core count (only the dealing differs): a plan
 * keeps them so that each mimic of a sweep streams its phases without walking the trace
 * once more. Kept while the boundaries stay under PLAN_MAX_BOUNDS (a trace with more loop
 * iterations than that walks again in every mimic: memory stays bounded). */
#define PLAN_MAX_BOUNDS ((uint64_t)1 << 22)

struct ppt_sasmm_plan {
  const ppt_trace *t; /* the trace it was made from */
  loops L;
  step *steps; /* NULL: not kept (too many boundaries) */
  size_t nsteps, capsteps;
  uint64_t *bnd;
  uint64_t nbnd, capbnd;
  int dropped; /* the steps outgrew PLAN_MAX_BOUNDS */
};

/* What pass 2 does with each step it finds (the mimic streams it, a plan records it). */
typedef struct step_ops {
  int (*plain)(void *arg, uint64_t s, uint64_t e, int parallel, ppt_err *err);
  void (*fork)(void *arg);
  /* b[0..nb): the instance's iteration boundaries; bcount: each block's entries in it */
  int (*loop)(void *arg, size_t li, const uint64_t *b, uint64_t nb, const uint64_t *bcount, ppt_err *err);
} step_ops;

/* What pass 2 feeds a sieve (sieve.h) as it goes: every record, those where a range may
 * start or end forced in. Those are, by walk and run_loop: the first record, every event
 * (phases end at PAR_BEGIN, PAR_END and LOOP_BEGIN; a loop instance starts at its
 * LOOP_BEGIN), the record after every event (phases start after PAR_BEGIN, PAR_END and
 * LOOP_END), every entry of a block that is some loop's iteration marker (iterations
 * start there), and the equal pieces run_loop cuts a loop without a marker into. */
typedef struct feed {
  ppt_sieve *sv;
  uint8_t *marker; /* [nbbs + 1] */
  uint64_t *cuts;  /* sorted */
  size_t ncuts, ci;
  int after_event, over;
} feed;

/* Pass 1. */
int sasmm_find_markers(const ppt_trace *t, loops *out, ppt_err *err);
/* f's marks from pass 1's loops (-1 when out of memory); feed_free releases them. */
int sasmm_feed_init(feed *f, const ppt_trace *t, const loops *L, ppt_sieve *sv);
void sasmm_feed_free(feed *f);
/* Pass 2: cut the trace into phases in order and hand each to ops (and each record to
 * f's sieve, when f is not NULL). */
int sasmm_walk(const ppt_trace *t, const loops *L, const step_ops *ops, void *arg, feed *f, ppt_err *err);

#endif

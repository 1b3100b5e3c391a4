/* models/progmodel/bpred.c — the bimodal target predictor of progmodel/bpred.h. One
 * entry per (thread, block): the table is small (blocks of one program) and indexed
 * directly, no aliasing. */
#include "progmodel/bpred.h"

#include <stdlib.h>
#include <string.h>

typedef struct entry {
  uint32_t target;   /* predicted successor block; 0: none yet */
  uint32_t conf;     /* 0..3 */
  uint32_t other;    /* the successor that last broke a run of `target` (a loop's exit) */
  uint32_t run;      /* `target`s in a row since then */
  uint32_t last_run; /* length of the run before */
  uint32_t loop;     /* two runs in a row had the same length: a counted loop */
} entry;

struct progmodel_bpred {
  uint32_t nthreads, nbbs;
  uint32_t *cur; /* [thread]: current block */
  /* [thread]: the level that served the last load of the current block's instance, and
   * of the instance it left (-1: it loaded nothing) */
  int8_t *load, *left;
  entry *tab;    /* [thread * (nbbs + 1) + block] */
};

progmodel_bpred *progmodel_bpred_new(uint32_t nthreads, uint32_t nbbs) {
  if (nthreads == 0) nthreads = 1;
  progmodel_bpred *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->nthreads = nthreads;
  p->nbbs = nbbs;
  p->cur = calloc(nthreads, sizeof *p->cur);
  p->tab = calloc((size_t)nthreads * ((size_t)nbbs + 1), sizeof *p->tab);
  p->load = malloc(nthreads);
  p->left = malloc(nthreads);
  if (!p->cur || !p->tab || !p->load || !p->left) {
    progmodel_bpred_free(p);
    return NULL;
  }
  memset(p->load, -1, nthreads);
  memset(p->left, -1, nthreads);
  return p;
}

int progmodel_bpred_enter(progmodel_bpred *p, uint32_t thread, uint32_t bb, int judged) {
  if (thread >= p->nthreads || bb == 0 || bb > p->nbbs) return 0;
  uint32_t prev = p->cur[thread];
  p->cur[thread] = bb;
  p->left[thread] = p->load[thread];
  p->load[thread] = -1;
  if (prev == 0 || !judged) return 0;
  entry *e = &p->tab[(size_t)thread * ((size_t)p->nbbs + 1) + prev];
  /* Loop component (the "L" of TAGE-SC-L): a loop whose trip count repeats exits
   * exactly when the run reaches the last run's length. */
  uint32_t guess = e->loop && e->run == e->last_run && e->other ? e->other : e->target;
  int missed = e->target != 0 && guess != bb; /* the first sighting trains, it is not judged */
  if (missed) missed = guess == prev || bb == prev ? PPT_BPRED_LOOP_MISS : PPT_BPRED_MISS;
  if (e->target == bb) {
    if (e->conf < 3) e->conf++;
    e->run++;
    return missed;
  }
  if (e->target != 0) { /* the run of `target` ends here */
    e->loop = e->run == e->last_run && e->run > 0;
    e->last_run = e->run;
    e->run = 0;
    e->other = bb;
  }
  if (e->conf > 0)
    e->conf--;
  else
    e->target = bb;
  if (e->target == 0) e->target = bb;
  return missed;
}

uint32_t progmodel_bpred_current(const progmodel_bpred *p, uint32_t thread) {
  return thread < p->nthreads ? p->cur[thread] : 0;
}

void progmodel_bpred_load(progmodel_bpred *p, uint32_t thread, int level) {
  if (thread < p->nthreads && level >= 0) p->load[thread] = (int8_t)(level > 127 ? 127 : level);
}

int progmodel_bpred_waited(const progmodel_bpred *p, uint32_t thread) {
  return thread < p->nthreads ? p->left[thread] : -1;
}

void progmodel_bpred_free(progmodel_bpred *p) {
  if (!p) return;
  free(p->load);
  free(p->left);
  free(p->cur);
  free(p->tab);
  free(p);
}

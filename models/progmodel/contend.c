/* models/progmodel/contend.c — the last writer of each line in the current phase
 * (progmodel/contend.h). An entry keeps the line, the phase and the core of the line's
 * last store; a new phase only bumps the phase number, so nothing is cleared between
 * phases (durbin-like programs have tens of thousands). */
#include "progmodel/contend.h"

#include <stdlib.h>

typedef struct entry {
  uint64_t line;  /* line number + 1; 0: empty */
  uint64_t pos;   /* the stream position of the last store */
  uint32_t phase; /* its phase */
  uint32_t core;  /* the core that made it */
} entry;

struct progmodel_contend {
  entry *tab;
  uint64_t mask, window;
  uint32_t phase;
};

progmodel_contend *progmodel_contend_new(uint32_t bits, uint64_t window) {
  if (bits < 1 || bits > 30) return NULL;
  progmodel_contend *c = malloc(sizeof *c);
  if (!c) return NULL;
  c->mask = ((uint64_t)1 << bits) - 1;
  c->window = window;
  c->phase = 1; /* entries start at phase 0: none is of the current phase */
  c->tab = calloc(c->mask + 1, sizeof *c->tab);
  if (!c->tab) {
    free(c);
    return NULL;
  }
  return c;
}

void progmodel_contend_next_phase(progmodel_contend *c) {
  /* After 2^32 phases the numbers come round; an entry left from 2^32 phases ago could
   * then pass for the current phase's once, which costs at most one store's count. */
  if (++c->phase == 0) c->phase = 1;
}

int progmodel_contend_store(progmodel_contend *c, uint64_t line, uint32_t core, uint64_t pos) {
  /* Lines of one page differ in their low bits: the low bits index, spreading a
   * contiguous footprint over the table. */
  entry *e = &c->tab[line & c->mask];
  int contended = e->line == line + 1 && e->phase == c->phase && e->core != core && pos - e->pos <= c->window;
  *e = (entry){.line = line + 1, .pos = pos, .phase = c->phase, .core = core};
  return contended;
}

void progmodel_contend_free(progmodel_contend *c) {
  if (!c) return;
  free(c->tab);
  free(c);
}

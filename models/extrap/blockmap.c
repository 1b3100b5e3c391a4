/* models/extrap/blockmap.c — blocks of traces of different binaries matched onto one
 * block table (ppt/extrap.h). Building a program at another size (-DN=...) renumbers its
 * blocks: the compiler unrolls, folds and peels differently. What survives recompilation
 * is where a block comes from, (function, file, line, kind flags: PPT_BB_KIND_MASK, not
 * the counts of its code), and among the blocks with that key their order in the table
 * (ppt-cc numbers blocks in function order and, within one, in the order of the IR), so
 * the k-th block of a key matches the k-th. */
#include <stdlib.h>
#include <string.h>

#include "ppt/extrap.h"
#include "ppt/reuse.h"

typedef struct keyed {
  const ppt_trace_bb *bb;
  uint32_t ordinal; /* among the blocks with the same key, in id order */
} keyed;

static int cmp_key(const ppt_trace_bb *x, const ppt_trace_bb *y) {
  int c = strcmp(x->func, y->func);
  if (!c) c = strcmp(x->file, y->file);
  if (!c) c = (x->line > y->line) - (x->line < y->line);
  uint32_t fx = x->flags & PPT_BB_KIND_MASK, fy = y->flags & PPT_BB_KIND_MASK;
  if (!c) c = (fx > fy) - (fx < fy);
  return c;
}

/* By key, then id: equal keys end up in id order, so the ordinal is the rank in the run. */
static int cmp_keyed(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  int c = cmp_key(x->bb, y->bb);
  return c ? c : (x->bb->id > y->bb->id) - (x->bb->id < y->bb->id);
}

static keyed *sorted_blocks(const ppt_trace *t, uint32_t n) {
  keyed *k = malloc((n ? n : 1) * sizeof *k);
  if (!k) return NULL;
  for (uint32_t i = 0; i < n; i++) k[i].bb = ppt_trace_bb_get(t, i + 1);
  qsort(k, n, sizeof *k, cmp_keyed);
  for (uint32_t i = 0; i < n; i++)
    k[i].ordinal = i && !cmp_key(k[i].bb, k[i - 1].bb) ? k[i - 1].ordinal + 1 : 0;
  return k;
}

int ppt_extrap_match_blocks(const ppt_trace *ref, const ppt_trace *t, uint32_t *map, ppt_err *err) {
  uint32_t nr = ppt_trace_nbbs(ref), nt = ppt_trace_nbbs(t);
  keyed *kr = sorted_blocks(ref, nr), *kt = sorted_blocks(t, nt);
  if (!kr || !kt) {
    free(kr);
    free(kt);
    return ppt_err_set(err, PPT_ERUN, "out of memory");
  }
  memset(map, 0, ((size_t)nt + 1) * sizeof *map);
  for (uint32_t i = 0, j = 0; i < nr && j < nt;) { /* merge of the two sorted tables */
    int c = cmp_key(kr[i].bb, kt[j].bb);
    if (!c) c = (kr[i].ordinal > kt[j].ordinal) - (kr[i].ordinal < kt[j].ordinal);
    if (c < 0)
      i++;
    else if (c > 0)
      j++;
    else
      map[kt[j++].bb->id] = kr[i++].bb->id;
  }
  free(kr);
  free(kt);
  return 0;
}

int ppt_extrap_remap_blocks(ppt_sasmm_profiles *p, const uint32_t *map, uint32_t nref, const uint8_t *drop,
                            ppt_err *err) {
  ppt_rdhist **prd = calloc((size_t)nref + 1, sizeof *prd), **crd = calloc((size_t)nref + 1, sizeof *crd);
  if (!prd || !crd) {
    free(prd);
    free(crd);
    return ppt_err_set(err, PPT_ERUN, "out of memory");
  }
  for (uint32_t b = 0; b < p->nblocks; b++) {
    uint32_t to = map ? map[b] : b;
    int keep = (b == 0 || to != 0) && to <= nref && !(drop && drop[to]);
    if (keep) {
      prd[to] = p->prd_bb ? p->prd_bb[b] : NULL;
      crd[to] = p->crd_bb ? p->crd_bb[b] : NULL;
    } else {
      ppt_rdhist_free(p->prd_bb ? p->prd_bb[b] : NULL);
      ppt_rdhist_free(p->crd_bb ? p->crd_bb[b] : NULL);
    }
  }
  free(p->prd_bb);
  free(p->crd_bb);
  p->prd_bb = prd;
  p->crd_bb = crd;
  p->nblocks = nref + 1;
  return 0;
}

double ppt_extrap_unmatched_share(const ppt_sasmm_profiles *p, const uint32_t *map, const uint8_t *drop,
                                  const uint8_t *counted) {
  double total = 0, lost = 0;
  for (uint32_t b = 0; p->prd_bb && b < p->nblocks; b++) {
    if (!p->prd_bb[b] || (counted && !counted[b])) continue;
    double n = ppt_rdhist_total(p->prd_bb[b]);
    uint32_t to = map ? map[b] : b;
    total += n;
    if ((b && !to) || (drop && drop[to])) lost += n;
  }
  return total > 0 ? lost / total : 0;
}

/* models/progmodel/program.c — programs: sequences of serial and parallel regions of
 * tasklists (ppt/program.h), what the program model builds and the engine runs.
 *
 * Every (region, thread) pair is one slot of a single array of tasklist pointers, so a
 * region is its kind, its thread count and the index of its thread 0's slot; readers
 * get the region's threads as one contiguous run of that array. */
#include "ppt/program.h"

#include <stdlib.h>

typedef struct region {
  ppt_region_kind kind;
  uint32_t nthreads;
  size_t first; /* index of thread 0's slot in ppt_program.tls */
} region;

struct ppt_program {
  region *regions;
  size_t nregions, rcap;
  const ppt_tasklist **tls; /* one slot per (region, thread) */
  size_t nslots, scap;
};

ppt_program *ppt_program_new(void) {
  return calloc(1, sizeof(ppt_program));
}

void ppt_program_free(ppt_program *prog) {
  if (!prog) return;
  free(prog->regions);
  free(prog->tls);
  free(prog);
}

size_t ppt_program_nregions(const ppt_program *prog) {
  return prog ? prog->nregions : 0;
}

int ppt_program_region(const ppt_program *prog, size_t r, ppt_region *out) {
  if (!prog || !out || r >= prog->nregions) return PPT_EINPUT;
  const region *R = &prog->regions[r];
  *out = (ppt_region){.kind = R->kind, .nthreads = R->nthreads, .tls = &prog->tls[R->first]};
  return 0;
}

static int add_region(ppt_program *prog, ppt_region_kind kind, size_t nthreads,
                      const ppt_tasklist *const *tls, ppt_err *err) {
  if (!prog || !tls) return ppt_err_set(err, PPT_EINPUT, "program: NULL argument");
  if (nthreads == 0 || nthreads > UINT32_MAX)
    return ppt_err_set(err, PPT_EINPUT, "program: region %zu: %zu threads", prog->nregions, nthreads);
  for (size_t t = 0; t < nthreads; t++)
    if (!tls[t])
      return ppt_err_set(err, PPT_EINPUT, "program: region %zu: thread %zu has no tasklist", prog->nregions,
                         t);
  if (prog->nregions == prog->rcap) {
    size_t cap = prog->rcap ? 2 * prog->rcap : 16;
    region *r = realloc(prog->regions, cap * sizeof *r);
    if (!r) return ppt_err_set(err, PPT_ERUN, "program: out of memory");
    prog->regions = r;
    prog->rcap = cap;
  }
  if (prog->nslots + nthreads > prog->scap) {
    size_t cap = prog->scap ? 2 * prog->scap : 64;
    while (cap < prog->nslots + nthreads) cap *= 2;
    const ppt_tasklist **s = realloc(prog->tls, cap * sizeof *s);
    if (!s) return ppt_err_set(err, PPT_ERUN, "program: out of memory");
    prog->tls = s;
    prog->scap = cap;
  }
  prog->regions[prog->nregions++] =
      (region){.kind = kind, .nthreads = (uint32_t)nthreads, .first = prog->nslots};
  for (size_t t = 0; t < nthreads; t++) prog->tls[prog->nslots++] = tls[t];
  return 0;
}

int ppt_program_add_serial(ppt_program *prog, const ppt_tasklist *tl, ppt_err *err) {
  return add_region(prog, PPT_REGION_SERIAL, 1, &tl, err);
}

int ppt_program_add_parallel(ppt_program *prog, size_t nthreads, const ppt_tasklist *const *tls,
                             ppt_err *err) {
  return add_region(prog, PPT_REGION_FORK, nthreads, tls, err);
}

int ppt_program_add_after_barrier(ppt_program *prog, size_t nthreads, const ppt_tasklist *const *tls,
                                  ppt_err *err) {
  return add_region(prog, PPT_REGION_BARRIER, nthreads, tls, err);
}

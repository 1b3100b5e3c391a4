/* engine/program.c — programs: sequences of serial and parallel regions (ppt/engine.h).
 *
 * A program only records which tasklist each thread of each region runs; tasklists are
 * borrowed, so a 1000-region program that repeats one loop body costs one pointer per
 * thread per region, and the core model evaluates each distinct tasklist once. */
#include <stdlib.h>

#include "engine_internal.h"

ppt_program *ppt_program_create(void) {
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
    eng_region *r = realloc(prog->regions, cap * sizeof *r);
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
      (eng_region){.kind = kind, .nthreads = (uint32_t)nthreads, .first = prog->nslots};
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

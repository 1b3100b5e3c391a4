/* cachesim.c — exact set-associative LRU (or random-replacement) simulation of a cache hierarchy (semantics:
 * include/ppt/cachesim.h, docs/cache.md).
 *
 * Each set is an array of line numbers kept in recency order, most recent first
 * (move-to-front). A hit at way i shifts ways 0..i−1 down by one; a miss drops the
 * last way and shifts everything. With 8–16 ways that is a few stores, and the common
 * case — a hit on the most recent line of the set — is one compare. Empty ways hold
 * EMPTY and always form the tail of the set, so a fill takes an empty way before it
 * evicts anything, and back-invalidation just closes the gap.
 *
 * A random-replacement level keeps the same layout: which way a miss evicts is drawn
 * uniformly (seeded gsl_rng), and the order of the ways then no longer matters to it. */
#include "ppt/cachesim.h"
#include "cache/lruset.h"

#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>

#define EMPTY PPT_LRUSET_EMPTY
#define DIRTY PPT_LRUSET_DIRTY
#define LINE_MASK (~PPT_LRUSET_DIRTY)
#define MAX_THREADS 65536u

typedef struct inst {
  uint64_t *ways; /* sets * assoc line numbers, each set MRU first */
  uint64_t set_mask;
  uint32_t assoc, fold; /* fold: cache_lruset_index's (random replacement: hashed sets) */
  uint32_t victims;     /* random replacement: a victim comes from this many least recent ways */
  int random;           /* PPT_HW_REPL_RANDOM: a miss in a full set evicts a drawn way */
  ppt_cachesim_counts c;
} inst;

struct ppt_cachesim {
  uint32_t nlevels, nthreads, line_bits;
  uint64_t refs;
  uint32_t ninst[PPT_HW_MAX_LEVELS];
  uint32_t shared_by[PPT_HW_MAX_LEVELS];
  int inclusive[PPT_HW_MAX_LEVELS];
  char name[PPT_HW_MAX_LEVELS][16];
  inst *insts[PPT_HW_MAX_LEVELS];
  inst **tmap;  /* [thread * nlevels + level]: the instance that thread uses */
  gsl_rng *rng; /* victims of random-replacement levels; NULL when every level is LRU */
  int coherent; /* a store invalidates the line in every other thread's instances */
  uint32_t last_way; /* ppt_cachesim_last_way */
  /* Dirty lines written back into each level (nlevels: memory) since the counters were
   * reset, and their sum (ppt_cachesim_writebacks) */
  uint64_t wb[PPT_HW_MAX_LEVELS + 1], wb_total;
};

void ppt_cachesim_free(ppt_cachesim *sim) {
  if (!sim) return;
  for (uint32_t k = 0; k < sim->nlevels; k++) {
    if (!sim->insts[k]) continue;
    for (uint32_t i = 0; i < sim->ninst[k]; i++) free(sim->insts[k][i].ways);
    free(sim->insts[k]);
  }
  free(sim->tmap);
  if (sim->rng) gsl_rng_free(sim->rng);
  free(sim);
}

uint64_t ppt_cachesim_bytes(const ppt_hwspec *hw, uint32_t nthreads) {
  /* what ppt_cachesim_new allocates: every instance's ways, eagerly (8 B a line) */
  uint64_t b = sizeof(ppt_cachesim) + (uint64_t)nthreads * hw->nlevels * sizeof(inst *);
  for (uint32_t k = 0; k < hw->nlevels; k++) {
    const ppt_hw_level *lv = &hw->levels[k];
    uint64_t n = ppt_hwspec_instances(lv, nthreads ? nthreads : 1);
    b += n * (sizeof(inst) + ppt_hwspec_sets(lv) * lv->assoc * sizeof(uint64_t));
  }
  return b;
}

int ppt_cachesim_new(const ppt_hwspec *hw, uint32_t nthreads, ppt_cachesim **out, ppt_err *err) {
  int rc = ppt_hwspec_validate(hw, hw->name[0] ? hw->name : "<hwspec>", err);
  if (rc) return rc;
  if (nthreads == 0 || nthreads > MAX_THREADS)
    return ppt_err_set(err, PPT_EINPUT, "%s: cachesim: %u threads (1 to %u allowed)", hw->name, nthreads,
                       MAX_THREADS);
  ppt_cachesim *sim = calloc(1, sizeof *sim);
  if (!sim) goto oom;
  sim->nthreads = nthreads;
  /* validate() guarantees one power-of-two line size for all levels */
  while ((1u << sim->line_bits) < hw->levels[0].line) sim->line_bits++;
  for (uint32_t k = 0; k < hw->nlevels; k++) {
    const ppt_hw_level *lv = &hw->levels[k];
    sim->nlevels = k + 1; /* so that free() sees what was allocated */
    sim->ninst[k] = ppt_hwspec_instances(lv, nthreads);
    sim->shared_by[k] = lv->shared_by;
    sim->inclusive[k] = lv->inclusive;
    memcpy(sim->name[k], lv->name, sizeof sim->name[k]);
    sim->insts[k] = calloc(sim->ninst[k], sizeof(inst));
    if (!sim->insts[k]) goto oom;
    uint64_t sets = ppt_hwspec_sets(lv);
    for (uint32_t i = 0; i < sim->ninst[k]; i++) {
      inst *c = &sim->insts[k][i];
      c->assoc = lv->assoc;
      c->random = lv->replacement == PPT_HW_REPL_RANDOM;
      c->victims = ppt_hwspec_victim_ways(lv);
      c->set_mask = sets - 1;
      c->fold = cache_lruset_fold(sets, c->random || lv->hashed_sets);
      c->ways = malloc(sets * lv->assoc * sizeof(uint64_t));
      if (!c->ways) goto oom;
      for (uint64_t w = 0; w < sets * lv->assoc; w++) c->ways[w] = EMPTY;
    }
  }
  for (uint32_t k = 0; k < hw->nlevels && !sim->rng; k++)
    if (hw->levels[k].replacement == PPT_HW_REPL_RANDOM) {
      sim->rng = gsl_rng_alloc(gsl_rng_taus2); /* fast, and seeded: runs repeat exactly */
      if (!sim->rng) goto oom;
      gsl_rng_set(sim->rng, PPT_CACHESIM_DEFAULT_SEED);
    }
  sim->tmap = malloc((size_t)nthreads * sim->nlevels * sizeof(inst *));
  if (!sim->tmap) goto oom;
  for (uint32_t t = 0; t < nthreads; t++)
    for (uint32_t k = 0; k < sim->nlevels; k++)
      sim->tmap[(size_t)t * sim->nlevels + k] = &sim->insts[k][t / sim->shared_by[k]];
  *out = sim;
  return 0;
oom:
  ppt_cachesim_free(sim);
  return ppt_err_set(err, PPT_ERUN, "%s: cachesim: out of memory", hw->name);
}

/* Removes `line` from instance c if present (back-invalidation). */
static void invalidate(inst *c, uint64_t line) {
  uint64_t *set = c->ways + cache_lruset_index(line, c->set_mask, c->fold) * c->assoc;
  uint32_t a = c->assoc;
  for (uint32_t i = 0; i < a && set[i] != EMPTY; i++) {
    if ((set[i] & LINE_MASK) != line) continue;
    for (uint32_t j = i + 1; j < a; j++) set[j - 1] = set[j];
    set[a - 1] = EMPTY;
    c->c.invalidations++;
    return;
  }
}

/* Level k's instance j evicted `line`: remove it from every instance above that j
 * serves. Sharing nests (validate() checks shared_by[k] is a multiple of shared_by[m]),
 * so those are the instances j*r .. j*r + r − 1 of level m, r = shared_by[k]/shared_by[m]. */
__attribute__((noinline, cold)) static void back_invalidate(ppt_cachesim *sim, uint32_t k, uint32_t j,
                                                            uint64_t line) {
  for (uint32_t m = 0; m < k; m++) {
    uint32_t r = sim->shared_by[k] / sim->shared_by[m];
    uint64_t lo = (uint64_t)j * r, hi = lo + r;
    if (hi > sim->ninst[m]) hi = sim->ninst[m];
    for (uint64_t i = lo; i < hi; i++) invalidate(&sim->insts[m][i], line);
  }
}

/* Level k - 1 evicted a dirty line: it is written back into the first level from k
 * down that holds it (which now holds it dirty), or into memory. A level that no longer
 * holds it does not take it in (the hierarchy fills on the way in only, docs/cache.md),
 * and where the line sits in its set does not change: a write-back is not a use. */
__attribute__((noinline)) static void write_back(ppt_cachesim *sim, inst **path, uint32_t k, uint64_t line) {
  for (; k < sim->nlevels; k++) {
    inst *c = path[k];
    uint64_t *set = c->ways + cache_lruset_index(line, c->set_mask, c->fold) * c->assoc;
    uint32_t i = 0;
    while (i < c->assoc && (set[i] & LINE_MASK) != line) i++;
    if (i < c->assoc) {
      set[i] |= DIRTY;
      c->c.writebacks++;
      break;
    }
  }
  sim->wb[k]++;
  sim->wb_total++;
}

/* One line access; returns the level that held it (nlevels: memory), with *way the way
 * it was found in there. A store leaves the line dirty in the first level (write-back
 * caches, write-allocate); a dirty line that a miss evicts goes back (write_back). */
static inline uint32_t access_line(ppt_cachesim *sim, inst **path, uint64_t line, int is_store,
                                   uint32_t *way) {
  uint32_t n = sim->nlevels, k = 0;
  uint64_t *first = NULL;
  for (; k < n; k++) {
    inst *c = path[k];
    c->c.accesses++;
    c->c.store_accesses += (unsigned)is_store;
    uint64_t victim, *set = c->ways + cache_lruset_index(line, c->set_mask, c->fold) * c->assoc;
    if (k == 0) first = set;
    *way = cache_lruset_touch_masked(set, c->assoc, line, c->random ? sim->rng : NULL, c->victims, &victim,
                                     LINE_MASK);
    if (*way < c->assoc) break;
    c->c.misses++;
    c->c.store_misses += (unsigned)is_store;
    if (victim == EMPTY) continue;
    if (victim & DIRTY) write_back(sim, path, k + 1, victim & LINE_MASK);
    if (sim->inclusive[k]) back_invalidate(sim, k, (uint32_t)(c - sim->insts[k]), victim & LINE_MASK);
  }
  if (is_store && first) first[0] |= DIRTY; /* the line is the set's most recent now */
  return k;
}

/* Write-invalidate coherence: a store by `thread` leaves `line` only in the instances
 * that thread uses; every other instance of every level that has several drops it (and
 * counts an invalidation), so another thread's next access misses there and is served
 * by the first level they share, or memory. */
__attribute__((noinline)) static void invalidate_others(ppt_cachesim *sim, uint32_t thread, uint64_t line) {
  for (uint32_t k = 0; k < sim->nlevels; k++) {
    if (sim->ninst[k] < 2) continue;
    uint32_t mine = thread / sim->shared_by[k];
    for (uint32_t i = 0; i < sim->ninst[k]; i++)
      if (i != mine) invalidate(&sim->insts[k][i], line);
  }
}

uint32_t ppt_cachesim_last_way(const ppt_cachesim *sim) {
  return sim->last_way;
}

void ppt_cachesim_set_coherence(ppt_cachesim *sim, int on) {
  sim->coherent = on != 0;
}

int ppt_cachesim_access(ppt_cachesim *sim, uint32_t thread, uint64_t addr, uint32_t size, int is_store) {
  if (thread >= sim->nthreads) return -1;
  inst **path = sim->tmap + (size_t)thread * sim->nlevels;
  is_store = is_store != 0;
  sim->refs++;
  uint64_t first = addr >> sim->line_bits;
  uint64_t end = addr + (size ? size - 1 : 0);
  if (end < addr) end = UINT64_MAX; /* access running off the top of the address space */
  uint64_t last = end >> sim->line_bits;
  uint32_t deepest = 0, way = 0;
  sim->last_way = 0;
  uint64_t l = first;
  do { /* one call site, so access_line is inlined */
    uint32_t lv = access_line(sim, path, l, is_store, &way);
    if (lv > deepest || (lv == deepest && way > sim->last_way)) sim->last_way = way;
    if (lv > deepest) deepest = lv;
    if (is_store && sim->coherent) invalidate_others(sim, thread, l);
  } while (l++ != last);
  return (int)deepest;
}

void ppt_cachesim_seed(ppt_cachesim *sim, uint64_t seed) {
  if (sim->rng) gsl_rng_set(sim->rng, (unsigned long)seed);
}

uint32_t ppt_cachesim_nlevels(const ppt_cachesim *sim) {
  return sim->nlevels;
}
uint64_t ppt_cachesim_refs(const ppt_cachesim *sim) {
  return sim->refs;
}

uint32_t ppt_cachesim_instances(const ppt_cachesim *sim, uint32_t level) {
  return level < sim->nlevels ? sim->ninst[level] : 0;
}

const char *ppt_cachesim_level_name(const ppt_cachesim *sim, uint32_t level) {
  return level < sim->nlevels ? sim->name[level] : NULL;
}

int ppt_cachesim_instance_counts(const ppt_cachesim *sim, uint32_t level, uint32_t i,
                                 ppt_cachesim_counts *out, ppt_err *err) {
  if (level >= sim->nlevels || i >= sim->ninst[level])
    return ppt_err_set(err, PPT_EINPUT, "cachesim: no instance %u of level %u", i, level);
  *out = sim->insts[level][i].c;
  return 0;
}

int ppt_cachesim_level_counts(const ppt_cachesim *sim, uint32_t level, ppt_cachesim_counts *out,
                              ppt_err *err) {
  if (level >= sim->nlevels) return ppt_err_set(err, PPT_EINPUT, "cachesim: no level %u", level);
  ppt_cachesim_counts s = {0};
  for (uint32_t i = 0; i < sim->ninst[level]; i++) {
    const ppt_cachesim_counts *c = &sim->insts[level][i].c;
    s.accesses += c->accesses;
    s.misses += c->misses;
    s.store_accesses += c->store_accesses;
    s.store_misses += c->store_misses;
    s.invalidations += c->invalidations;
    s.writebacks += c->writebacks;
  }
  *out = s;
  return 0;
}

int ppt_cachesim_contains(const ppt_cachesim *sim, uint32_t level, uint32_t i, uint64_t addr) {
  if (level >= sim->nlevels || i >= sim->ninst[level]) return -1;
  const inst *c = &sim->insts[level][i];
  uint64_t line = addr >> sim->line_bits;
  const uint64_t *set = c->ways + cache_lruset_index(line, c->set_mask, c->fold) * c->assoc;
  for (uint32_t w = 0; w < c->assoc; w++)
    if ((set[w] & LINE_MASK) == line) return 1;
  return 0;
}

uint64_t ppt_cachesim_writebacks(const ppt_cachesim *sim, uint32_t level) {
  if (level == UINT32_MAX) return sim->wb_total;
  return level <= sim->nlevels ? sim->wb[level] : 0;
}

void ppt_cachesim_reset_counts(ppt_cachesim *sim) {
  sim->refs = 0;
  memset(sim->wb, 0, sizeof sim->wb);
  sim->wb_total = 0;
  for (uint32_t k = 0; k < sim->nlevels; k++)
    for (uint32_t i = 0; i < sim->ninst[k]; i++) memset(&sim->insts[k][i].c, 0, sizeof(ppt_cachesim_counts));
}

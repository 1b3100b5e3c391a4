/* sweepsim.c — many hierarchies on one stream, sharing every level they have in common
 * (the tree of sweepsim.h). */
#include "cache/sweepsim.h"
#include "cache/lruset.h"

#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
/* Lines one reference can touch: sizes stop at 255 bytes (ppt_trace_rec.size), lines
 * start at 8 bytes (ppt_hwspec_validate). */
#define MAX_LINES 40
/* Set sampling looks at most this many address bits above the widest line. */
#define SAMPLE_BITS_MAX 12

/* One simulated level: the geometry that identifies it under its parent, its state (the
 * sets of every instance, as ppt_cachesim keeps them, with the same replacement step:
 * cache/lruset.h) and the counted accesses that reached it and missed it, in line
 * accesses (acc, miss) and references (racc, rmiss). */
typedef struct node {
  uint32_t parent; /* NONE for a first level */
  ppt_hw_level lv;
  uint64_t *ways; /* instance i's set s at ways + (i * sets + s) * assoc */
  uint64_t sets, set_mask;
  uint32_t fold;    /* cache_lruset_index's: hashed sets for random replacement */
  uint32_t victims; /* random replacement: ways a victim is drawn from (ppt_hwspec_victim_ways) */
  uint32_t assoc, shared_by;
  gsl_rng *rng; /* random replacement's victims (seeded as ppt_cachesim's); NULL: LRU */
  uint32_t line_bits;
  uint32_t *kids;
  size_t nkids;
  uint64_t acc, miss, racc, rmiss;
  uint64_t line_refs; /* first levels: line accesses of every reference, counted or not */
  /* First levels under set sampling: the counted line accesses and references of every
   * reference, sampled or not (the exact denominators of the rates; see
   * cache_sweepsim_result). */
  uint64_t all_acc, all_racc;
  /* First levels private to each thread: the line of each thread's last access (see
   * cache_sweepsim_access); NULL otherwise. */
  uint64_t *last;
} node;

struct cache_sweepsim {
  node *nodes;
  size_t nnodes;
  uint32_t *tops; /* first-level nodes */
  size_t ntops;
  size_t nspecs;
  uint32_t *path;                       /* [spec * PPT_HW_MAX_LEVELS + k]: its level k's node */
  uint32_t *nlevels;                    /* [spec] */
  char (*names)[PPT_HW_MAX_LEVELS][16]; /* [spec] level names */
  ppt_tracesim_tally **whole;           /* [spec]: the fallback's full simulation, or NULL */
  ppt_tracesim_tally **wholes;          /* the non-NULL ones, for the hot path */
  size_t nwholes;
  const unsigned char *counted; /* [nbbs + 1] or NULL */
  uint32_t nbbs;
  uint64_t refs, counted_refs, loads, stores;
  /* Set sampling (sweepsim.h): a line of the tree is simulated when sel[(addr >>
   * sample_shift) & sample_mask] is set; sample = 1: every line (sel NULL). */
  uint32_t sample, sample_shift;
  uint64_t sample_mask;
  unsigned char *sel;
  uint32_t min_line_bits; /* the narrowest first level's line (cache_sweepsim_droppable) */
};

/* Whether the tree reproduces spec exactly (see sweepsim.h). */
static int tree_exact(const ppt_hwspec *hw) {
  int random = 0;
  for (uint32_t k = 0; k < hw->nlevels; k++) {
    if (hw->levels[k].inclusive) return 0;
    /* A level below the first with a demand_size smaller than itself serves an access
     * no prefetcher covered from its most recent ways only (ppt_tracesim): which
     * accesses those are depends on the prefetchers, which the tree does not run. */
    if (k > 0 && ppt_hwspec_demand_ways(&hw->levels[k]) < hw->levels[k].assoc) return 0;
    random += hw->levels[k].replacement == PPT_HW_REPL_RANDOM;
  }
  return random <= 1;
}

static int same_geometry(const ppt_hw_level *a, const ppt_hw_level *b) {
  return a->size == b->size && a->assoc == b->assoc && a->line == b->line && a->shared_by == b->shared_by &&
         a->replacement == b->replacement && ppt_hwspec_victim_ways(a) == ppt_hwspec_victim_ways(b);
}

/* Level lv's state for nthreads threads: every instance's sets empty, and for random
 * replacement the generator ppt_cachesim would draw from (taus2, seeded). */
static int node_init(node *nd, uint32_t nthreads, uint64_t seed) {
  nd->sets = ppt_hwspec_sets(&nd->lv);
  nd->set_mask = nd->sets - 1;
  nd->fold = cache_lruset_fold(nd->sets, nd->lv.replacement == PPT_HW_REPL_RANDOM || nd->lv.hashed_sets);
  nd->assoc = nd->lv.assoc;
  nd->victims = ppt_hwspec_victim_ways(&nd->lv);
  nd->shared_by = nd->lv.shared_by;
  uint64_t n = ppt_hwspec_instances(&nd->lv, nthreads) * nd->sets * nd->assoc;
  if (!(nd->ways = malloc(n * sizeof *nd->ways))) return -1;
  for (uint64_t i = 0; i < n; i++) nd->ways[i] = PPT_LRUSET_EMPTY;
  if (nd->lv.replacement == PPT_HW_REPL_RANDOM) {
    if (!(nd->rng = gsl_rng_alloc(gsl_rng_taus2))) return -1;
    gsl_rng_set(nd->rng, (unsigned long)seed);
  }
  while ((1u << nd->line_bits) < nd->lv.line) nd->line_bits++;
  return 0;
}

static void node_free(node *nd) {
  free(nd->ways);
  free(nd->kids);
  free(nd->last);
  if (nd->rng) gsl_rng_free(nd->rng);
}

static int push(uint32_t **v, size_t *n, uint32_t x) {
  uint32_t *nv = realloc(*v, (*n + 1) * sizeof *nv);
  if (!nv) return -1;
  nv[(*n)++] = x;
  *v = nv;
  return 0;
}

/* The node for level k of hw under `parent` (made if new). Returns its index or NONE. */
static uint32_t find_or_add(cache_sweepsim *s, const ppt_hwspec *hw, uint32_t k, uint32_t parent,
                            uint32_t nthreads, uint64_t seed, ppt_err *err) {
  const uint32_t *cand = parent == NONE ? s->tops : s->nodes[parent].kids;
  size_t ncand = parent == NONE ? s->ntops : s->nodes[parent].nkids;
  for (size_t i = 0; i < ncand; i++)
    if (same_geometry(&s->nodes[cand[i]].lv, &hw->levels[k])) return cand[i];
  node *nn = realloc(s->nodes, (s->nnodes + 1) * sizeof *nn);
  if (!nn) goto oom;
  s->nodes = nn;
  node *nd = &s->nodes[s->nnodes];
  *nd = (node){.parent = parent, .lv = hw->levels[k]};
  if (node_init(nd, nthreads, seed) || (parent == NONE && nd->lv.shared_by == 1 &&
                                        !(nd->last = malloc((size_t)nthreads * sizeof *nd->last)))) {
    node_free(nd);
    goto oom;
  }
  for (uint32_t t = 0; nd->last && t < nthreads; t++) nd->last[t] = UINT64_MAX;
  uint32_t id = (uint32_t)s->nnodes++;
  if (push(parent == NONE ? &s->tops : &s->nodes[parent].kids,
           parent == NONE ? &s->ntops : &s->nodes[parent].nkids, id))
    goto oom;
  return id;
oom:
  ppt_err_set(err, PPT_ERUN, "sweep: out of memory");
  return NONE;
}

/* Set sampling (sweepsim.h): the address bits just above the widest line of the tree are
 * set-index bits of every level in it, so choosing lines by those bits chooses whole
 * sets, the same fraction of every level's sets, and each chosen set of level k+1 gets
 * exactly the misses of the chosen sets of level k that map to it. The chosen residues
 * are a seeded random subset (gsl_ran_choose), not a fixed stride, so that an access
 * pattern with a power-of-two stride does not fall entirely in or out of the sample. */
static int sample_init(cache_sweepsim *s, uint32_t sample, uint64_t seed, ppt_err *err) {
  s->sample = sample ? sample : 1;
  if (s->sample == 1 || !s->nnodes) return 0;
  if (s->sample & (s->sample - 1))
    return ppt_err_set(err, PPT_EINPUT, "--sample-sets %u is not a power of two", s->sample);
  uint32_t wide = 0, bits = SAMPLE_BITS_MAX;
  for (size_t i = 0; i < s->nnodes; i++)
    if (s->nodes[i].line_bits > wide) wide = s->nodes[i].line_bits;
  const node *tight = NULL;
  for (size_t i = 0; i < s->nnodes; i++) {
    const node *nd = &s->nodes[i];
    uint32_t set_bits = 0;
    while (((uint64_t)1 << set_bits) < nd->sets) set_bits++;
    uint32_t top = nd->line_bits + set_bits; /* the level's set index is bits [line_bits, top) */
    uint32_t room = top > wide ? top - wide : 0;
    if (room < bits) {
      bits = room;
      tight = nd;
    }
  }
  if (((uint64_t)1 << bits) < s->sample)
    return ppt_err_set(err, PPT_EINPUT,
                       "--sample-sets %u: level %s (%llu B, %llu sets of %u B) leaves %u set-index bits "
                       "above the widest line (%u B): at most %u",
                       s->sample, tight->lv.name, (unsigned long long)tight->lv.size,
                       (unsigned long long)tight->sets, tight->lv.line, bits, 1u << wide, 1u << bits);
  size_t nres = (size_t)1 << bits, nsel = nres / s->sample;
  s->sample_shift = wide;
  s->sample_mask = nres - 1;
  s->min_line_bits = wide;
  for (size_t t = 0; t < s->ntops; t++)
    if (s->nodes[s->tops[t]].line_bits < s->min_line_bits) s->min_line_bits = s->nodes[s->tops[t]].line_bits;
  unsigned long *all = malloc(nres * sizeof *all), *chosen = malloc(nsel * sizeof *chosen);
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  if (!(s->sel = calloc(nres, 1)) || !all || !chosen || !rng) {
    free(all);
    free(chosen);
    if (rng) gsl_rng_free(rng);
    return ppt_err_set(err, PPT_ERUN, "sweep: out of memory");
  }
  gsl_rng_set(rng, (unsigned long)seed);
  for (size_t i = 0; i < nres; i++) all[i] = i;
  gsl_ran_choose(rng, chosen, nsel, all, nres, sizeof *all);
  for (size_t i = 0; i < nsel; i++) s->sel[chosen[i]] = 1;
  gsl_rng_free(rng);
  free(all);
  free(chosen);
  return 0;
}

int cache_sweepsim_new(const ppt_hwspec *specs, size_t n, uint32_t nthreads, const unsigned char *counted,
                       uint32_t nbbs, uint32_t sample, uint64_t seed, cache_sweepsim **out, ppt_err *err) {
  cache_sweepsim *s = calloc(1, sizeof *s);
  if (!s || !(s->path = malloc((n ? n : 1) * PPT_HW_MAX_LEVELS * sizeof *s->path)) ||
      !(s->nlevels = calloc(n ? n : 1, sizeof *s->nlevels)) ||
      !(s->names = calloc(n ? n : 1, sizeof *s->names)) ||
      !(s->whole = calloc(n ? n : 1, sizeof *s->whole)) ||
      !(s->wholes = calloc(n ? n : 1, sizeof *s->wholes))) {
    cache_sweepsim_free(s);
    return ppt_err_set(err, PPT_ERUN, "sweep: out of memory");
  }
  s->nspecs = n;
  s->counted = counted;
  s->nbbs = nbbs;
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i++) {
    const ppt_hwspec *hw = &specs[i];
    if ((rc = ppt_hwspec_validate(hw, hw->name[0] ? hw->name : "<hwspec>", err))) break;
    s->nlevels[i] = hw->nlevels;
    for (uint32_t k = 0; k < hw->nlevels; k++) memcpy(s->names[i][k], hw->levels[k].name, 16);
    if (!tree_exact(hw)) {
      ppt_hwspec whole = *hw;
      whole.ntlb = 0; /* the sweep reports caches: no TLB to pay for */
      rc = ppt_tracesim_tally_new(&whole, nthreads, counted, nbbs, seed, &s->whole[i], err);
      if (!rc) s->wholes[s->nwholes++] = s->whole[i];
      continue;
    }
    uint32_t parent = NONE;
    for (uint32_t k = 0; k < hw->nlevels && !rc; k++) {
      parent = find_or_add(s, hw, k, parent, nthreads, seed, err);
      if (parent == NONE) rc = err->status ? (int)err->status : PPT_ERUN;
      s->path[i * PPT_HW_MAX_LEVELS + k] = parent;
    }
  }
  if (!rc) rc = sample_init(s, sample, seed, err);
  if (rc) {
    cache_sweepsim_free(s);
    return rc;
  }
  *out = s;
  return 0;
}

/* Line accesses `lines` (n >= 1) of one reference reach node ni: the ones it misses go on
 * to each level under it. */
static void visit(cache_sweepsim *s, uint32_t ni, uint32_t thread, const uint64_t *lines, uint32_t n,
                  int count) {
  node *nd = &s->nodes[ni];
  uint64_t missed[MAX_LINES], victim;
  uint64_t *inst = nd->ways + (uint64_t)(thread / nd->shared_by) * nd->sets * nd->assoc;
  uint32_t nm = 0;
  for (uint32_t i = 0; i < n; i++)
    if (!cache_lruset_touch(inst + cache_lruset_index(lines[i], nd->set_mask, nd->fold) * nd->assoc,
                            nd->assoc, lines[i], nd->rng, nd->victims, &victim))
      missed[nm++] = lines[i];
  if (count) {
    nd->acc += n;
    nd->miss += nm;
    nd->racc++;
    nd->rmiss += nm > 0;
  }
  for (size_t c = 0; nm && c < nd->nkids; c++) visit(s, nd->kids[c], thread, missed, nm, count);
}

static inline void access_one(cache_sweepsim *s, uint32_t thread, const ppt_trace_rec *rec) {
  for (size_t i = 0; i < s->nwholes; i++) ppt_tracesim_tally_access(s->wholes[i], thread, rec);
  if (rec->kind != PPT_REC_LOAD && rec->kind != PPT_REC_STORE) return;
  int store = rec->kind == PPT_REC_STORE;
  int count = !s->counted || (rec->bb <= s->nbbs && s->counted[rec->bb]);
  s->refs++;
  s->counted_refs += (unsigned)count;
  s->stores += (unsigned)(count & store);
  s->loads += (unsigned)(count & !store);
  uint64_t a = rec->addr, end = a + (rec->size ? rec->size - 1u : 0u);
  if (end < a) end = UINT64_MAX;
  if (s->sel && !s->sel[(a >> s->sample_shift) & s->sample_mask] &&
      !s->sel[(end >> s->sample_shift) & s->sample_mask]) {
    /* No line of the reference is in a sampled set (a reference spans at most two lines
     * of the widest size): it only counts toward the line accesses. */
    for (size_t t = 0; t < s->ntops; t++) {
      node *nd = &s->nodes[s->tops[t]];
      uint64_t k = (end >> nd->line_bits) - (a >> nd->line_bits) + 1;
      k = k < MAX_LINES ? k : MAX_LINES;
      nd->line_refs += k;
      if (count) {
        nd->all_acc += k;
        nd->all_racc++;
      }
    }
    return;
  }
  for (size_t t = 0; t < s->ntops; t++) {
    node *nd = &s->nodes[s->tops[t]];
    uint64_t first = a >> nd->line_bits, last = end >> nd->line_bits, lines[MAX_LINES];
    uint32_t n = 0, shift = s->sample_shift - nd->line_bits;
    for (uint64_t l = first;; l++) {
      if (!s->sel || s->sel[(l >> shift) & s->sample_mask]) lines[n++] = l;
      if (l == last || n == MAX_LINES) break;
    }
    if (s->sel) {
      uint64_t k = last - first + 1 < MAX_LINES ? last - first + 1 : MAX_LINES;
      nd->line_refs += k;
      if (count) {
        nd->all_acc += k;
        nd->all_racc++;
      }
    } else
      nd->line_refs += n;
    if (!n) continue;
    /* A private first level that this thread's last access left holding `first` holds
     * it as the most recent line of its set, and nobody else touched it since: a hit
     * that changes nothing, in every level. Streaming code makes most references so
     * (unit-stride doubles: 7 in 8), and they cost no simulation. Exact for LRU and
     * random replacement alike (a hit draws no victim). */
    if (nd->last) {
      uint64_t prev = nd->last[thread];
      nd->last[thread] = lines[n - 1];
      if (n == 1 && lines[0] == prev) {
        if (count) {
          nd->acc++;
          nd->racc++;
        }
        continue;
      }
    }
    visit(s, s->tops[t], thread, lines, n, count);
  }
}

void cache_sweepsim_access_batch(cache_sweepsim *s, const ppt_trace_rec *recs, const uint32_t *threads,
                                 size_t n) {
  for (size_t i = 0; i < n; i++) access_one(s, threads[i], &recs[i]);
}

static double rate(uint64_t misses, uint64_t of) {
  return of ? 1.0 - (double)misses / (double)of : NAN;
}

void cache_sweepsim_result(const cache_sweepsim *s, size_t i, uint32_t threads, ppt_tracesim_result *out) {
  if (s->whole[i]) {
    ppt_tracesim_tally_result(s->whole[i], threads, out);
    return;
  }
  memset(out, 0, sizeof *out);
  out->nlevels = s->nlevels[i];
  out->threads = threads;
  out->refs = s->refs;
  out->counted_refs = s->counted_refs;
  out->counted_loads = s->loads;
  out->counted_stores = s->stores;
  const uint32_t *p = &s->path[i * PPT_HW_MAX_LEVELS];
  if (out->nlevels) out->line_refs = s->nodes[p[0]].line_refs;
  for (uint32_t k = 0; k < out->nlevels; k++) {
    const node *nd = &s->nodes[p[k]];
    ppt_tracesim_level *lv = &out->levels[k];
    memcpy(lv->name, s->names[i][k], sizeof lv->name);
    /* Sampled: the misses of the sampled sets stand for 1/sample of every level's misses
     * and are scaled back up. The first level's accesses are not estimated: every
     * reference is counted, sampled or not. Estimating them too would put the few lines
     * that take most accesses (a loop's scalars, a queue's head) wholly in or out of
     * the sample and move the rates by points; the misses spread over many lines. */
    lv->misses = nd->miss * s->sample;
    lv->ref_misses = nd->rmiss * s->sample;
    lv->accesses = k == 0 && s->sel ? nd->all_acc : nd->acc * s->sample;
    lv->ref_accesses = k == 0 && s->sel ? nd->all_racc : nd->racc * s->sample;
    if (lv->misses > lv->accesses) lv->misses = lv->accesses; /* a sample all misses */
    if (lv->ref_misses > lv->ref_accesses) lv->ref_misses = lv->ref_accesses;
    lv->hit_rate = rate(lv->misses, out->levels[0].accesses);
    lv->local_hit_rate = rate(lv->misses, lv->accesses);
    lv->ref_hit_rate = rate(lv->ref_misses, out->levels[0].ref_accesses);
    lv->ref_local_hit_rate = rate(lv->ref_misses, lv->ref_accesses);
  }
}

int cache_sweepsim_sampled(const cache_sweepsim *s, uint64_t addr) {
  return !s->sel || s->sel[(addr >> s->sample_shift) & s->sample_mask];
}

int cache_sweepsim_droppable(const cache_sweepsim *s, const ppt_trace_rec *r) {
  if (!s->sel || s->nwholes || (r->kind != PPT_REC_LOAD && r->kind != PPT_REC_STORE)) return 0;
  uint64_t a = r->addr, end = a + (r->size ? r->size - 1u : 0u);
  /* one line of the narrowest first level: one line of every level, and end's sample
   * bits (above the widest line) are a's */
  if (end < a || (a >> s->min_line_bits) != (end >> s->min_line_bits)) return 0;
  return !s->sel[(a >> s->sample_shift) & s->sample_mask];
}

/* What access_one counts for a reference of one line in no sampled set, times refs. */
void cache_sweepsim_count_dropped(cache_sweepsim *s, uint64_t refs, uint64_t loads, uint64_t stores) {
  uint64_t counted = loads + stores;
  s->refs += refs;
  s->counted_refs += counted;
  s->loads += loads;
  s->stores += stores;
  for (size_t t = 0; t < s->ntops; t++) {
    node *nd = &s->nodes[s->tops[t]];
    nd->line_refs += refs;
    nd->all_acc += counted;
    nd->all_racc += counted;
  }
}

size_t cache_sweepsim_nodes(const cache_sweepsim *s) {
  return s->nnodes;
}

size_t cache_sweepsim_fallbacks(const cache_sweepsim *s) {
  return s->nwholes;
}

void cache_sweepsim_free(cache_sweepsim *s) {
  if (!s) return;
  for (size_t i = 0; i < s->nnodes; i++) node_free(&s->nodes[i]);
  for (size_t i = 0; s->whole && i < s->nspecs; i++) ppt_tracesim_tally_free(s->whole[i]);
  free(s->nodes);
  free(s->tops);
  free(s->path);
  free(s->nlevels);
  free(s->names);
  free(s->whole);
  free(s->wholes);
  free(s->sel);
  free(s);
}

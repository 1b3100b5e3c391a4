/* tracesim.c — the exact cache simulator driven by a trace (semantics: ppt/tracesim.h).
 *
 * Each thread's stream is read through its own cursor, one decoded chunk at a time, and
 * the streams are merged reference by reference in the chosen interleaving. Every access
 * is handed to the simulator one cache line at a time, so that the level returned by
 * ppt_cachesim_access tells exactly where each line was served: that is what lets the
 * filtered counts be kept here, per level, in the same line-access unit as the
 * simulator's own counters (which count every reference, filtered or not). */
#include "ppt/tracesim.h"
#include "cache/missq.h"
#include "cache/owner.h"
#include "cache/prefetch.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppt/cachesim.h"

#define PROGRESS_EVERY (1u << 16) /* references between progress calls */
/* Last-writer table: 2^20 lines (64 MiB of data with 64 B lines) before entries collide. */
#define OWNER_BITS 20

/* One thread's stream: its cursor and the batch being consumed, and where it stands
 * in the fork-join structure (see eligible()). */
typedef struct stream {
  ppt_trace_cursor *cur; /* NULL once the stream has ended */
  const ppt_trace_rec *recs;
  size_t n, pos;
  uint64_t loop_ends; /* worksharing loops finished (each ends with a barrier) */
  int in_par;         /* thread 0 only: inside a parallel region */
  int forkjoin;       /* thread 0 only: the trace records parallel regions */
  int done;
} stream;

/* What one thread's counted references did; acc/miss in line accesses, racc/rmiss in
 * references. The hot path (simulate) adds to its thread's block only: the run totals
 * are the sum of `base` (the blocks taken so far, ppt_tracesim_tally_take) and every
 * thread's block, so keeping them per thread costs no second count. */
/* Page-table lines of a thread's last far page walks that its next walks may find in the
 * data caches (tlb_lookup): one for each of a loop's streams. */
enum { TLB_NEAR = 16 };

typedef struct counters {
  uint64_t acc[PPT_HW_MAX_LEVELS], miss[PPT_HW_MAX_LEVELS];
  uint64_t racc[PPT_HW_MAX_LEVELS], rmiss[PPT_HW_MAX_LEVELS];
  uint64_t refs, line_refs, counted_refs, loads, stores;
  uint64_t served[PPT_HW_MAX_LEVELS + 1], prefetched[PPT_HW_MAX_LEVELS + 1];
  uint64_t served_stores[PPT_HW_MAX_LEVELS + 1];
  /* Dirty lines written back into level k (nlevels: memory) by evictions the thread's
   * counted references caused (ppt_cachesim_writebacks). */
  uint64_t writebacks[PPT_HW_MAX_LEVELS + 1];
  /* Of `served`, the references whose first-level miss queued on one set (cache/missq.h),
   * and of those the stores. */
  uint64_t same_set[PPT_HW_MAX_LEVELS + 1], same_set_stores[PPT_HW_MAX_LEVELS + 1];
  /* Loads that wait for loads, in 1/PPT_TRACESIM_CHASE_UNIT (ppt_tracesim_result.chased). */
  uint64_t chased[PPT_HW_MAX_LEVELS + 1], chased_wait[PPT_HW_MAX_LEVELS + 1];
  /* Cache-to-cache transfers (cache/owner.h): counted references served at level k whose
   * line another thread had stored and still held in its private levels. */
  uint64_t transfers[PPT_HW_MAX_LEVELS + 1];
  uint64_t tlb_served[PPT_HW_MAX_TLB + 1];
  uint64_t tlb_near; /* of the page walks, those near a recent walk (TLB_NEAR) */
} counters;

/* The simulation and its counters. Public as ppt_tracesim_tally so other stream
 * producers (SASMM's mimicked cores) count the same way. */
typedef struct ppt_tracesim_tally {
  ppt_cachesim *sim;
  uint32_t nlevels, line_bits, nbbs, nthreads;
  const unsigned char *counted; /* [nbbs + 1]: block counted? NULL: count everything */
  /* [nbbs + 1]: each block's chased share and that share over its chains, in
   * 1/PPT_TRACESIM_CHASE_UNIT (NULL: no block has chased loads). */
  uint16_t (*chase)[2];
  uint64_t refs;                /* references simulated, all threads (for progress) */
  /* [thread * nslots + slot]: since the last take. A thread's counters are split into
   * nslots slots by the block of each reference (slot_of[bb]; NULL: one slot, 0), so
   * that a caller can tell apart what the references of some blocks did
   * (ppt_tracesim_tally_split). */
  counters *th;
  uint32_t nslots;
  const uint32_t *slot_of;
  counters base;                /* the sum of every take */
  cache_prefetch *pf;           /* which first-level misses the prefetchers cover */
  cache_missq *mq;              /* each thread's recent first-level miss sets */
  /* own (cache/owner.h) is NULL with one thread; first_shared is the first level with
   * shared_by > 1 (nlevels: none, memory). */
  cache_owner *own;
  uint32_t first_shared;
  /* The data TLB: a second simulator whose "lines" are pages (NULL: the spec has no
   * TLB). An address goes in shifted right by tlb_shift, so that its page number is
   * the simulator's line number whatever the page size (cachesim lines stop at 4 KiB). */
  ppt_cachesim *tlb;
  uint32_t ntlb, tlb_shift, page_bits;
  uint64_t *tlb_last;   /* per thread: the page of its last lookup (UINT64_MAX: none) */
  uint64_t *pte_recent; /* [thread * TLB_NEAR + i]: page-table lines of recent walks */
  uint32_t *pte_next;   /* [thread]: the slot the next far walk takes */
  /* Level names, kept so that a take (once per phase and core) copies them cheaply. */
  char names[PPT_HW_MAX_LEVELS][16], tlb_names[PPT_HW_MAX_TLB][16];
  /* [k]: the most recent ways of a set of level k where an access no prefetcher covered
   * finds its line (ppt_hwspec_demand_ways); UINT32_MAX for a level without demand_size
   * (and memory), so that the hot path asks the simulator for the way only where it matters. */
  uint32_t demand_ways[PPT_HW_MAX_LEVELS + 1];
  int last_covered; /* a prefetcher covered the last load or store simulated */
  /* The simulator's write-backs already handed to a thread's counters: per level and
   * their sum (the hot path compares the sum only). */
  uint64_t wb_seen[PPT_HW_MAX_LEVELS + 1], wb_seen_total;
  void (*progress)(uint64_t, void *);
  void *progress_arg;
} run;

/* Status of a failed cursor read (err may be NULL: the caller did not want the message). */
static int read_failed(const ppt_err *err) {
  return err && err->status != PPT_OK ? (int)err->status : PPT_EINPUT;
}

/* Next load or store of s: 1 with *out set, 0 at the end of the stream, -1 on error,
 * 2 after a fork-join event that may change which threads may run. */
static int stream_next(stream *s, const ppt_trace_rec **out, ppt_err *err) {
  for (;;) {
    while (s->pos < s->n) {
      const ppt_trace_rec *r = &s->recs[s->pos++];
      if (r->kind == PPT_REC_LOAD || r->kind == PPT_REC_STORE) {
        *out = r;
        return 1;
      }
      if (r->kind == PPT_REC_EVENT) {
        if (r->size == PPT_EV_LOOP_END) {
          s->loop_ends++;
          return 2;
        }
        if (r->size == PPT_EV_PAR_BEGIN || r->size == PPT_EV_PAR_END) {
          s->in_par = r->size == PPT_EV_PAR_BEGIN;
          return 2;
        }
      }
    }
    if (!s->cur) {
      s->done = 1;
      return 0;
    }
    if (ppt_trace_cursor_next(s->cur, &s->recs, &s->n, err)) return -1;
    s->pos = 0;
    if (s->n == 0) {
      ppt_trace_cursor_close(s->cur);
      s->cur = NULL;
      s->done = 1;
      return 0;
    }
  }
}

/* Fork-join order of a real run, which the interleaving must respect: worker threads
 * run only while the main thread (stream 0) is inside a parallel region, and no thread
 * passes the barrier that ends a worksharing loop before every unfinished thread has
 * reached it. Without this, round-robin would pair the main thread's serial code with
 * the workers' parallel work and misalign the threads' loops. */
static int eligible(const stream *s, const uint32_t *active, size_t na, uint32_t th) {
  if (!s[0].forkjoin) return 1; /* no OpenMP events: plain interleaving */
  for (size_t i = 0; i < na; i++)
    if (s[active[i]].loop_ends < s[th].loop_ends) return 0;
  return th == 0 || s[0].done || s[0].in_par;
}

/* An access served at level d (nlevels = memory) reached levels 0..d and missed 0..d−1. */
static inline void tally(uint64_t *acc, uint64_t *miss, uint32_t n, uint32_t d) {
  for (uint32_t k = 0; k < n; k++) {
    acc[k] += k <= d;
    miss[k] += k < d;
  }
}

/* One translation per reference, of its first byte. A reference to the page of this
 * thread's last lookup finds it as the most recent entry of its set in the first level
 * (TLBs are private): a hit that changes nothing, so the simulator is skipped. Out of
 * line so that a spec without a TLB pays only the test of r->tlb. */
__attribute__((noinline)) static void tlb_lookup(run *r, counters *c, uint32_t thread, uint64_t a,
                                                 int count) {
  uint64_t page = a >> r->page_bits;
  uint32_t t = 0;
  if (page != r->tlb_last[thread]) {
    r->tlb_last[thread] = page;
    t = (uint32_t)ppt_cachesim_access(r->tlb, thread, a >> r->tlb_shift, 1, 0);
    if (t == r->ntlb) {
      /* A page walk reads the page's entry from the page table: 8-byte entries, 8 to a
       * line, so a walk to a page whose neighbours were walked recently (a stream
       * crossing into its next page) finds that line in the data caches, and the walk
       * costs a cache hit instead of the chase the calibration times. */
      uint64_t pte = page >> 3, *recent = &r->pte_recent[(size_t)thread * TLB_NEAR];
      int near = 0;
      for (uint32_t i = 0; i < TLB_NEAR && !near; i++) near = recent[i] == pte;
      if (!near) {
        recent[r->pte_next[thread]] = pte;
        r->pte_next[thread] = (r->pte_next[thread] + 1) % TLB_NEAR;
      }
      if (count) c->tlb_near += (uint64_t)near;
    }
  }
  if (count) c->tlb_served[t]++;
}

/* Was this reference (first line) a cache-to-cache transfer? It missed every private
 * level of `thread`, another thread stored the line last, and that thread's private
 * levels still hold it (with coherence, modified). A store makes `thread` the owner. */
static int owner_transfer(run *r, uint32_t thread, uint64_t a, uint32_t dref, int store) {
  uint64_t line = a >> r->line_bits;
  uint32_t w;
  int t = 0;
  if (dref >= r->first_shared && cache_owner_take(r->own, line, thread, &w))
    for (uint32_t k = 0; k < r->first_shared && !t; k++) t = ppt_cachesim_contains(r->sim, k, w, a) == 1;
  if (store) cache_owner_store(r->own, line, thread);
  return t;
}

/* The access just simulated wrote dirty lines back: they count for its thread when the
 * access is counted (the evictions it caused are its traffic). */
__attribute__((noinline)) static void take_writebacks(run *r, counters *c, int count) {
  for (uint32_t k = 1; k <= r->nlevels; k++) {
    uint64_t now = ppt_cachesim_writebacks(r->sim, k);
    if (count) c->writebacks[k] += now - r->wb_seen[k];
    r->wb_seen[k] = now;
  }
  r->wb_seen_total = ppt_cachesim_writebacks(r->sim, UINT32_MAX);
}

/* Returns the level that served the reference's first line(s) (nlevels: memory). */
static uint32_t simulate(run *r, uint32_t thread, const ppt_trace_rec *rec) {
  int store = rec->kind == PPT_REC_STORE;
  uint64_t a = rec->addr;
  uint64_t end = a + (rec->size ? rec->size - 1u : 0u);
  if (end < a) end = UINT64_MAX; /* runs off the top of the address space */
  uint64_t lmask = ((uint64_t)1 << r->line_bits) - 1;
  uint64_t l = a >> r->line_bits, last = end >> r->line_bits;
  int count = !r->counted || (rec->bb <= r->nbbs && r->counted[rec->bb]);
  uint32_t dref = 0;
  counters *c =
      &r->th[(size_t)thread * r->nslots + (r->slot_of && rec->bb <= r->nbbs ? r->slot_of[rec->bb] : 0)];
  do {
    uint64_t lo = l << r->line_bits, hi = lo | lmask;
    if (lo < a) lo = a;
    if (hi > end) hi = end;
    /* thread < nthreads by construction, so the result is a level, never -1 */
    uint32_t d = (uint32_t)ppt_cachesim_access(r->sim, thread, lo, (uint32_t)(hi - lo + 1), store);
    c->line_refs++;
    if (count) tally(c->acc, c->miss, r->nlevels, d);
    if (d > dref) dref = d;
  } while (l++ != last);
  r->refs++;
  c->refs++;
  if (ppt_cachesim_writebacks(r->sim, UINT32_MAX) != r->wb_seen_total) take_writebacks(r, c, count);
  /* An access straddling two pages is rare enough not to be translated twice. Every
   * reference, counted or not, shapes the TLB's contents. */
  if (r->tlb) tlb_lookup(r, c, thread, a, count);
  /* The prefetchers see every access, counted or not; so does the queue of miss sets,
   * with the reference's first line (the one its first-level miss is for, mostly). */
  int covered = cache_prefetch_access(r->pf, thread, a, dref > 0);
  r->last_covered = covered;
  /* An access no prefetcher covered finds its line in the most recent demand ways of its
   * set only (hwspec demand_size): from deeper in the set the next level serves it. The
   * line is at the front now, as that fill would leave it. */
  if (dref > 0 && !covered && r->demand_ways[dref] != UINT32_MAX &&
      ppt_cachesim_last_way(r->sim) >= r->demand_ways[dref]) {
    if (count) {
      c->miss[dref]++;
      if (dref + 1 < r->nlevels) c->acc[dref + 1]++;
    }
    dref++;
  }
  int bunched = dref > 0 && cache_missq_push(r->mq, thread, a >> r->line_bits);
  int transfer = r->own ? owner_transfer(r, thread, a, dref, store) : 0;
  if (count) {
    c->served[dref]++;
    c->served_stores[dref] += (unsigned)store;
    c->prefetched[dref] += (unsigned)covered;
    c->same_set[dref] += (unsigned)bunched;
    c->same_set_stores[dref] += (unsigned)(bunched & store);
    if (r->chase && !store && rec->bb <= r->nbbs) {
      c->chased[dref] += r->chase[rec->bb][0];
      c->chased_wait[dref] += r->chase[rec->bb][1];
    }
    c->transfers[dref] += (unsigned)transfer;
    tally(c->racc, c->rmiss, r->nlevels, dref);
    c->counted_refs++;
    c->stores += (unsigned)store;
    c->loads += (unsigned)!store;
  }
  if (r->progress && r->refs % PROGRESS_EVERY == 0) r->progress(r->refs, r->progress_arg);
  return dref;
}

/* Drops active[i], keeping the others in order (round-robin order must not change). */
static void drop(uint32_t *active, size_t *na, size_t i) {
  memmove(active + i, active + i + 1, (*na - i - 1) * sizeof *active);
  (*na)--;
}

static int run_rr(run *r, stream *s, uint32_t *active, size_t na, ppt_err *err) {
  const ppt_trace_rec *rec;
  uint8_t *ok = malloc(na ? na : 1);
  if (!ok) return ppt_err_set(err, PPT_ERUN, "tracesim: out of memory");
  while (na) {
    /* Who may run is decided once per round: cheap, and a round is one reference each. */
    int any = 0;
    for (size_t i = 0; i < na; i++) any |= ok[i] = (uint8_t)eligible(s, active, na, active[i]);
    if (!any) memset(ok, 1, na); /* inconsistent events: fall back to plain round-robin */
    for (size_t i = 0; i < na;) {
      if (!ok[i]) {
        i++;
        continue;
      }
      int rc = stream_next(&s[active[i]], &rec, err);
      if (rc < 0) {
        free(ok);
        return read_failed(err);
      }
      if (rc == 0) {
        drop(active, &na, i);
        memmove(ok + i, ok + i + 1, na - i);
        continue;
      }
      if (rc == 1) simulate(r, active[i], rec);
      i++;
    }
  }
  free(ok);
  return 0;
}

/* Each next reference from a thread drawn uniformly among the unfinished ones; a drawn
 * thread found finished is dropped and the draw repeated. With one thread left there is
 * nothing to draw (so a single-thread trace uses no random numbers). */
static int run_uniform(run *r, stream *s, uint32_t *active, size_t na, uint64_t seed, ppt_err *err) {
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  if (!rng) return ppt_err_set(err, PPT_ERUN, "tracesim: out of memory");
  gsl_rng_set(rng, (unsigned long)seed);
  const ppt_trace_rec *rec;
  int rc = 0;
  while (na) {
    size_t i = na > 1 ? (size_t)gsl_rng_uniform_int(rng, (unsigned long)na) : 0;
    if (!eligible(s, active, na, active[i])) {
      int any = 0; /* redraw unless nobody may run (then the draw stands) */
      for (size_t k = 0; k < na && !any; k++) any = eligible(s, active, na, active[k]);
      if (any) continue;
    }
    rc = stream_next(&s[active[i]], &rec, err);
    if (rc < 0) break;
    if (rc == 0) {
      drop(active, &na, i);
      continue;
    }
    if (rc == 1) simulate(r, active[i], rec);
  }
  gsl_rng_free(rng);
  return rc < 0 ? read_failed(err) : 0;
}

static double rate(uint64_t misses, uint64_t of) {
  return of ? 1.0 - (double)misses / (double)of : NAN;
}

/* a += b, field by field (counters is all uint64_t). */
static void add_counters(counters *a, const counters *b) {
  uint64_t *x = (uint64_t *)a;
  const uint64_t *y = (const uint64_t *)b;
  for (size_t i = 0; i < sizeof *a / sizeof *x; i++) x[i] += y[i];
}

static void fill_result(const run *r, const counters *c, uint32_t threads, ppt_tracesim_result *out) {
  memset(out, 0, sizeof *out);
  out->nlevels = r->nlevels;
  out->threads = threads;
  out->refs = c->refs;
  out->line_refs = c->line_refs;
  out->counted_refs = c->counted_refs;
  out->counted_loads = c->loads;
  out->counted_stores = c->stores;
  memcpy(out->served, c->served, sizeof out->served);
  memcpy(out->prefetched, c->prefetched, sizeof out->prefetched);
  memcpy(out->served_stores, c->served_stores, sizeof out->served_stores);
  memcpy(out->writebacks, c->writebacks, sizeof out->writebacks);
  memcpy(out->same_set, c->same_set, sizeof out->same_set);
  memcpy(out->same_set_stores, c->same_set_stores, sizeof out->same_set_stores);
  memcpy(out->chased, c->chased, sizeof out->chased);
  memcpy(out->chased_wait, c->chased_wait, sizeof out->chased_wait);
  memcpy(out->transfers, c->transfers, sizeof out->transfers);
  out->ntlb = r->ntlb;
  memcpy(out->tlb_served, c->tlb_served, sizeof out->tlb_served);
  out->tlb_near = c->tlb_near;
  memcpy(out->tlb_names, r->tlb_names, sizeof out->tlb_names);
  for (uint32_t k = 0; k < r->nlevels; k++) {
    ppt_tracesim_level *lv = &out->levels[k];
    memcpy(lv->name, r->names[k], sizeof lv->name);
    lv->accesses = c->acc[k];
    lv->misses = c->miss[k];
    lv->ref_accesses = c->racc[k];
    lv->ref_misses = c->rmiss[k];
    lv->hit_rate = rate(c->miss[k], c->acc[0]);
    lv->local_hit_rate = rate(c->miss[k], c->acc[k]);
    lv->ref_hit_rate = rate(c->rmiss[k], c->racc[0]);
    lv->ref_local_hit_rate = rate(c->rmiss[k], c->racc[k]);
  }
}

/* The run's totals: every take plus what each thread counted since its last one. */
static void fill_total(const run *r, uint32_t threads, ppt_tracesim_result *out) {
  counters sum = r->base;
  for (size_t i = 0; i < (size_t)r->nthreads * r->nslots; i++) add_counters(&sum, &r->th[i]);
  fill_result(r, &sum, threads, out);
}

int ppt_tracesim_run(const ppt_trace *t, const ppt_hwspec *hw, const ppt_tracesim_opts *opts,
                     ppt_tracesim_result *out, ppt_err *err) {
  static const ppt_tracesim_opts defaults = {0};
  const ppt_tracesim_opts *o = opts ? opts : &defaults;
  if (o->interleave != PPT_INTERLEAVE_RR && o->interleave != PPT_INTERLEAVE_UNIFORM)
    return ppt_err_set(err, PPT_EINPUT, "tracesim: unknown interleaving %d", (int)o->interleave);
  if (o->nonly && !o->only) return ppt_err_set(err, PPT_EINPUT, "tracesim: filter without prefixes");
  for (size_t p = 0; p < o->nonly; p++)
    if (!o->only[p]) return ppt_err_set(err, PPT_EINPUT, "tracesim: filter prefix %zu is NULL", p);

  uint32_t nthreads = ppt_trace_nthreads(t);
  unsigned char *counted = NULL;
  if (o->nonly && !(counted = ppt_trace_blocks_of_functions(t, o->only, o->nonly)))
    return ppt_err_set(err, PPT_ERUN, "%s: tracesim: out of memory", ppt_trace_path(t));
  run *r;
  /* A trace without threads has nothing to simulate, but the levels still get names. */
  int rc = ppt_tracesim_tally_new(hw, nthreads, counted, ppt_trace_nbbs(t), o->seed, &r, err);
  if (rc) {
    free(counted);
    return rc;
  }
  r->progress = o->progress;
  r->progress_arg = o->progress_arg;
  ppt_tracesim_tally_coherence(r, o->coherence);
  stream *s = calloc(nthreads ? nthreads : 1, sizeof *s);
  uint32_t *active = calloc(nthreads ? nthreads : 1, sizeof *active);
  if (!s || !active) {
    rc = ppt_err_set(err, PPT_ERUN, "%s: tracesim: out of memory", ppt_trace_path(t));
    goto done;
  }
  if (nthreads) s[0].forkjoin = ppt_trace_has_forkjoin(t);
  for (uint32_t th = 0; th < nthreads; th++) {
    active[th] = th;
    if (ppt_trace_cursor_open(t, th, &s[th].cur, err)) {
      rc = read_failed(err);
      goto done;
    }
  }
  if (o->interleave == PPT_INTERLEAVE_RR)
    rc = run_rr(r, s, active, nthreads, err);
  else
    rc = run_uniform(r, s, active, nthreads, o->seed, err);
  if (rc) goto done;
  if (r->progress) r->progress(r->refs, r->progress_arg);
  fill_total(r, nthreads, out);
done:
  for (uint32_t th = 0; s && th < nthreads; th++) ppt_trace_cursor_close(s[th].cur);
  free(s);
  free(active);
  ppt_tracesim_tally_free(r);
  free(counted);
  return rc;
}

/* The TLB levels of hw as a cache hierarchy for ppt_cachesim: a TLB caches page
 * translations as a cache holds lines, so level j is a cache of `entries` pages in
 * `assoc` ways, private to each thread, LRU. Lines of at most 4 KiB (the simulator's
 * limit) stand for the pages; tlb_shift scales addresses to match. */
static int tlb_create(run *r, const ppt_hwspec *hw, uint32_t nthreads, ppt_err *err) {
  /* hw passed ppt_hwspec_validate in ppt_cachesim_new: the TLB levels have
   * power-of-two set counts, one page size and growing entries, so t is valid too. */
  ppt_hwspec *t = calloc(1, sizeof *t);
  if (!t) return ppt_err_set(err, PPT_ERUN, "tracesim: out of memory");
  uint32_t page_bits = 0, line_bits = 0;
  while ((1u << page_bits) < hw->tlb[0].page_bytes) page_bits++;
  line_bits = page_bits < 12 ? page_bits : 12;
  snprintf(t->name, sizeof t->name, "%.100s TLB", hw->name);
  t->cores = nthreads;
  t->nlevels = hw->ntlb;
  for (uint32_t j = 0; j < hw->ntlb; j++) {
    ppt_hw_level *lv = &t->levels[j];
    memcpy(lv->name, hw->tlb[j].name, sizeof lv->name);
    lv->line = 1u << line_bits;
    lv->size = (uint64_t)hw->tlb[j].entries << line_bits;
    lv->assoc = hw->tlb[j].assoc;
    lv->shared_by = 1;
  }
  int rc = ppt_cachesim_new(t, nthreads, &r->tlb, err);
  free(t);
  if (rc) return rc;
  r->tlb_last = malloc((size_t)nthreads * sizeof *r->tlb_last);
  r->pte_recent = malloc((size_t)nthreads * TLB_NEAR * sizeof *r->pte_recent);
  r->pte_next = calloc(nthreads, sizeof *r->pte_next);
  if (!r->tlb_last || !r->pte_recent || !r->pte_next)
    return ppt_err_set(err, PPT_ERUN, "tracesim: out of memory");
  for (uint32_t i = 0; i < nthreads; i++) r->tlb_last[i] = UINT64_MAX;
  for (size_t i = 0; i < (size_t)nthreads * TLB_NEAR; i++) r->pte_recent[i] = UINT64_MAX;
  r->ntlb = hw->ntlb;
  r->page_bits = page_bits;
  r->tlb_shift = page_bits - line_bits;
  return 0;
}

int ppt_tracesim_tally_new(const ppt_hwspec *hw, uint32_t nthreads, const unsigned char *counted,
                           uint32_t nbbs, uint64_t seed, ppt_tracesim_tally **out, ppt_err *err) {
  run *r = calloc(1, sizeof *r);
  if (!r) return ppt_err_set(err, PPT_ERUN, "tracesim: out of memory");
  r->nthreads = nthreads ? nthreads : 1;
  int rc = ppt_cachesim_new(hw, r->nthreads, &r->sim, err);
  r->nslots = 1;
  if (!rc && !(r->th = calloc(r->nthreads, sizeof *r->th)))
    rc = ppt_err_set(err, PPT_ERUN, "tracesim: out of memory");
  if (!rc && hw->ntlb) rc = tlb_create(r, hw, nthreads ? nthreads : 1, err);
  if (!rc) {
    ppt_cachesim_seed(r->sim, seed);
    r->nlevels = ppt_cachesim_nlevels(r->sim);
    while ((1u << r->line_bits) < hw->levels[0].line) r->line_bits++;
    /* hw passed ppt_hwspec_validate in ppt_cachesim_new: a power-of-two set count. */
    uint64_t sets = hw->levels[0].size / ((uint64_t)hw->levels[0].assoc * hw->levels[0].line);
    if (!(r->pf = cache_prefetch_new(nthreads ? nthreads : 1, r->line_bits)) ||
        !(r->mq = cache_missq_new(nthreads ? nthreads : 1, sets)) ||
        (nthreads > 1 && !(r->own = cache_owner_new(OWNER_BITS))))
      rc = ppt_err_set(err, PPT_ERUN, "tracesim: out of memory");
    r->first_shared = r->nlevels;
    for (uint32_t k = r->nlevels; k-- > 0;)
      if (hw->levels[k].shared_by > 1) r->first_shared = k;
    for (uint32_t k = 0; k <= r->nlevels; k++)
      r->demand_ways[k] =
          k < r->nlevels && hw->levels[k].demand_size ? ppt_hwspec_demand_ways(&hw->levels[k]) : UINT32_MAX;
  }
  if (rc) {
    ppt_tracesim_tally_free(r); /* frees whatever was made */
    return rc;
  }
  r->counted = counted;
  r->nbbs = nbbs;
  for (uint32_t k = 0; k < r->nlevels; k++)
    snprintf(r->names[k], sizeof r->names[k], "%s", ppt_cachesim_level_name(r->sim, k));
  for (uint32_t j = 0; j < r->ntlb; j++)
    snprintf(r->tlb_names[j], sizeof r->tlb_names[j], "%s", ppt_cachesim_level_name(r->tlb, j));
  *out = r;
  return 0;
}

int ppt_tracesim_tally_access(ppt_tracesim_tally *t, uint32_t thread, const ppt_trace_rec *rec) {
  if (rec->kind == PPT_REC_LOAD || rec->kind == PPT_REC_STORE) return (int)simulate(t, thread, rec);
  if (rec->kind == PPT_REC_BB) cache_prefetch_block(t->pf, thread, rec->bb);
  return -1;
}

int ppt_tracesim_tally_prefetched(const ppt_tracesim_tally *t) {
  return t->last_covered;
}

void ppt_tracesim_tally_result(const ppt_tracesim_tally *t, uint32_t threads, ppt_tracesim_result *out) {
  fill_total(t, threads, out);
}

int ppt_tracesim_tally_split(ppt_tracesim_tally *t, uint32_t nslots, const uint32_t *slot_of, ppt_err *err) {
  if (t->refs) return ppt_err_set(err, PPT_EINPUT, "tracesim: slots must be set before the first access");
  if (!nslots || !slot_of) return ppt_err_set(err, PPT_EINPUT, "tracesim: split without slots");
  for (uint32_t b = 0; b <= t->nbbs; b++)
    if (slot_of[b] >= nslots)
      return ppt_err_set(err, PPT_EINPUT, "tracesim: block %u in slot %u of %u", b, slot_of[b], nslots);
  counters *th = calloc((size_t)t->nthreads * nslots, sizeof *th);
  if (!th) return ppt_err_set(err, PPT_ERUN, "tracesim: out of memory");
  free(t->th);
  t->th = th;
  t->nslots = nslots;
  t->slot_of = slot_of;
  return 0;
}

/* Takes counters c into out (zeros when c is NULL) and into the run's base. */
static void take_counters(ppt_tracesim_tally *t, counters *c, ppt_tracesim_result *out) {
  static const counters none;
  fill_result(t, c ? c : &none, t->nthreads, out);
  if (!c) return;
  add_counters(&t->base, c);
  memset(c, 0, sizeof *c);
}

void ppt_tracesim_tally_take(ppt_tracesim_tally *t, uint32_t thread, ppt_tracesim_result *out) {
  if (thread >= t->nthreads) {
    take_counters(t, NULL, out);
    return;
  }
  counters *c = &t->th[(size_t)thread * t->nslots];
  for (uint32_t s = 1; s < t->nslots; s++) {
    add_counters(c, &c[s]);
    memset(&c[s], 0, sizeof c[s]);
  }
  take_counters(t, c, out);
}

void ppt_tracesim_tally_take_slot(ppt_tracesim_tally *t, uint32_t thread, uint32_t slot,
                                  ppt_tracesim_result *out) {
  int in = thread < t->nthreads && slot < t->nslots;
  take_counters(t, in ? &t->th[(size_t)thread * t->nslots + slot] : NULL, out);
}

void ppt_tracesim_tally_free(ppt_tracesim_tally *t) {
  if (!t) return;
  cache_prefetch_free(t->pf);
  cache_missq_free(t->mq);
  cache_owner_free(t->own);
  free(t->chase);
  free(t->th);
  free(t->tlb_last);
  free(t->pte_recent);
  free(t->pte_next);
  ppt_cachesim_free(t->tlb);
  ppt_cachesim_free(t->sim);
  free(t);
}

void ppt_tracesim_tally_coherence(ppt_tracesim_tally *t, int on) {
  ppt_cachesim_set_coherence(t->sim, on);
}

int ppt_tracesim_tally_chase(ppt_tracesim_tally *t, const ppt_trace *trace, ppt_err *err) {
  if (t->refs) return ppt_err_set(err, PPT_EINPUT, "tracesim: the chased loads are set before the first access");
  uint32_t nb = ppt_trace_nbbs(trace) < t->nbbs ? ppt_trace_nbbs(trace) : t->nbbs;
  for (uint32_t b = 1; b <= nb; b++) {
    unsigned chains;
    double q = ppt_trace_bb_chase(ppt_trace_bb_get(trace, b), &chains);
    if (!(q > 0)) continue;
    if (!t->chase && !(t->chase = calloc((size_t)t->nbbs + 1, sizeof *t->chase)))
      return ppt_err_set(err, PPT_ERUN, "tracesim: out of memory");
    t->chase[b][0] = (uint16_t)lround(q * PPT_TRACESIM_CHASE_UNIT);
    t->chase[b][1] = (uint16_t)lround(q / chains * PPT_TRACESIM_CHASE_UNIT);
  }
  return 0;
}

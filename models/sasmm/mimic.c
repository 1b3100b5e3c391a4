/* mimic.c — SASMM Algorithms 1 and 2 over a streamed sequential trace (see ppt/sasmm.h).
 *
 * The trace's two passes (passes.c) find the worksharing loops and cut the trace into
 * phases; each phase is dealt to the cores and streamed through one range reader per
 * core, interleaved into the shared stream. Neither pass depends on the core count: a
 * plan (plan.c) makes both once and keeps pass 2's steps, and every mimic given the plan
 * only deals and streams. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "sasmm/passes.h"
#include "sasmm/rangereader.h"

/* Output batching to the sink. */
enum { OUTB = 4096 };
typedef struct outbuf {
  const ppt_sasmm_sink *sink;
  uint32_t ncores;
  ppt_trace_rec *priv; /* ncores * OUTB */
  size_t *npriv;
  ppt_trace_rec shared[OUTB];
  uint32_t cores[OUTB];
  size_t nshared;
  const ppt_sasmm_opts *opts; /* its progress callback */
  uint64_t handed, next_report;
} outbuf;

/* The records handed on so far, to opts->progress about every million. */
static void report(outbuf *o, size_t n) {
  o->handed += n;
  if (!o->opts || !o->opts->progress || o->handed < o->next_report) return;
  o->next_report = o->handed + (1u << 20);
  o->opts->progress(o->handed, o->opts->progress_arg);
}

static void flush_priv(outbuf *o, uint32_t c) {
  if (o->npriv[c] && o->sink->priv) {
    o->sink->priv(o->sink->arg, c, o->priv + (size_t)c * OUTB, o->npriv[c]);
    if (!o->sink->shared) report(o, o->npriv[c]);
  }
  o->npriv[c] = 0;
}
static void flush_shared(outbuf *o) {
  if (o->nshared && o->sink->shared) {
    o->sink->shared(o->sink->arg, o->shared, o->cores, o->nshared);
    report(o, o->nshared);
  }
  o->nshared = 0;
}
static inline void emit(outbuf *o, uint32_t c, const ppt_trace_rec *r, int shared) {
  if (o->sink->priv) { /* a shared-only sink (the simulator) needs no private copies */
    o->priv[(size_t)c * OUTB + o->npriv[c]++] = *r;
    if (o->npriv[c] == OUTB) flush_priv(o, c);
  }
  if (shared) {
    o->shared[o->nshared] = *r;
    o->cores[o->nshared++] = c;
    if (o->nshared == OUTB) flush_shared(o);
  }
}

typedef struct mimic {
  const ppt_trace *t;
  const ppt_sasmm_opts *o;
  sasmm_chunkmap map;
  sasmm_rreader **rd;
  int *active;
  outbuf out;
  gsl_rng *rng;
  ppt_sasmm_stats *st;
  /* per-phase scratch */
  ppt_range **cr; /* per core ranges */
  size_t *ncr, *capcr;
  uint32_t *quota;        /* per block (per-instance split) */
  const uint64_t *bcount; /* per block: entries in the current loop instance (walk's) */
  const loops *L;         /* the loops of pass 1 */
  int forked;             /* a parallel phase of the current region was streamed already */
  int sieved;             /* the readers read o->sieve (interleave_keyed) */
  ppt_trace_rec *head;    /* sieved: per core, its next record, of ordinal hkey */
  uint64_t *hkey;
  size_t nforks;          /* regions forked so far: the current one is L->reg[nforks - 1] */
  const region_info *reg; /* the current region (NULL: none known) */
} mimic;

static int add_range(mimic *m, uint32_t c, uint64_t s, uint64_t e) {
  if (s >= e) return 0;
  if (m->ncr[c] && m->cr[c][m->ncr[c] - 1].e == s) {
    m->cr[c][m->ncr[c] - 1].e = e; /* consecutive iterations of one core: one range */
    return 0;
  }
  if (m->ncr[c] == m->capcr[c]) {
    size_t nc = m->capcr[c] ? 2 * m->capcr[c] : 16;
    ppt_range *n = realloc(m->cr[c], nc * sizeof *n);
    if (!n) return -1;
    m->cr[c] = n;
    m->capcr[c] = nc;
  }
  m->cr[c][m->ncr[c]++] = (ppt_range){s, e};
  return 0;
}

static int interleave_phase(mimic *m, int nact, ppt_err *err);

/* Streams one phase: core c reads its ranges (privatise: a parallel phase). */
static int run_phase(mimic *m, int privatise, const uint32_t *quota, ppt_err *err) {
  uint32_t n = m->o->ncores;
  int nact = 0;
  for (uint32_t c = 0; c < n; c++) {
    if (sasmm_rreader_reset(m->rd[c], m->cr[c], m->ncr[c], c, privatise, quota, n))
      return ppt_err_set(err, PPT_ERUN, "out of memory");
    /* the blocks the region's thread allocated: each core its own, as the stack */
    if (privatise && m->reg && m->reg->ns)
      sasmm_rreader_set_private(m->rd[c], m->L->seg + m->reg->s0, m->reg->ns);
    else
      sasmm_rreader_set_private(m->rd[c], NULL, 0);
    if (m->ncr[c]) m->active[nact++] = (int)c;
    m->ncr[c] = 0;
  }
  m->st->phases++;
  int rc = interleave_phase(m, nact, err);
  if (rc == 0 && m->out.sink->phase_end) {
    for (uint32_t c = 0; c < n; c++) flush_priv(&m->out, c);
    flush_shared(&m->out);
    m->out.sink->phase_end(m->out.sink->arg, !privatise  ? PPT_REGION_SERIAL
                                             : m->forked ? PPT_REGION_BARRIER
                                                         : PPT_REGION_FORK);
    if (privatise) m->forked = 1;
  }
  return rc;
}

/* Streams the phase set up in the readers: private streams in order, and the shared
 * stream interleaved reference by reference (block entries travel with the reference
 * that follows them). */
/* Core c's next record into its head (1), or none left (0). */
static int head_next(mimic *m, uint32_t c, ppt_err *err) {
  int rc = sasmm_rreader_next(m->rd[c], &m->head[c], err);
  if (rc < 0) return err->status ? -(int)err->status : -1;
  m->hkey[c] = sasmm_rreader_key(m->rd[c]);
  return rc;
}

/* interleave_phase's round-robin with one reference per turn, for sieved readers: in turn
 * i each core streams its records up to its i-th reference, so the shared stream is the
 * records in order of (ordinal, core's place in the round). The dropped references'
 * ordinals are skipped, not stepped through (sieve.h). */
static int interleave_keyed(mimic *m, int nact, ppt_err *err) {
  int live = 0;
  for (int k = 0; k < nact; k++) {
    int rc = head_next(m, (uint32_t)m->active[k], err);
    if (rc < 0) return -rc;
    if (rc) m->active[live++] = m->active[k];
  }
  nact = live;
  while (nact > 0) {
    uint64_t g = UINT64_MAX;
    for (int k = 0; k < nact; k++)
      if (m->hkey[m->active[k]] < g) g = m->hkey[m->active[k]];
    live = 0;
    for (int k = 0; k < nact; k++) {
      uint32_t c = (uint32_t)m->active[k];
      int rc = 1;
      while (rc == 1 && m->hkey[c] == g) {
        emit(&m->out, c, &m->head[c], 1);
        rc = head_next(m, c, err);
      }
      if (rc < 0) return -rc;
      if (rc) m->active[live++] = (int)c;
    }
    nact = live;
  }
  return 0;
}

static int interleave_phase(mimic *m, int nact, ppt_err *err) {
  ppt_trace_rec rec;
  if (m->sieved) return interleave_keyed(m, nact, err);
  if (m->o->private_only) {
    for (int k = 0; k < nact; k++) {
      uint32_t c = (uint32_t)m->active[k];
      int rc;
      while ((rc = sasmm_rreader_next(m->rd[c], &rec, err)) == 1) emit(&m->out, c, &rec, 0);
      if (rc < 0) return err->status ? (int)err->status : 1;
    }
    return 0;
  }
  int k = 0;
  uint64_t q = m->o->quantum;
  while (nact > 0) {
    if (m->o->interleave == PPT_INTERLEAVE_UNIFORM)
      k = (int)gsl_rng_uniform_int(m->rng, (unsigned long)nact);
    else if (k >= nact)
      k = 0;
    uint32_t c = (uint32_t)m->active[k];
    int rc;
    uint64_t blocks = 0;
    while ((rc = sasmm_rreader_next(m->rd[c], &rec, err)) == 1) {
      emit(&m->out, c, &rec, 1);
      /* A turn is one reference, or with a quantum Q > 1, Q block entries: the coarse
       * time slices of a scheduler that runs one thread at a time (Valgrind's). */
      if (q <= 1 ? rec.kind != PPT_REC_BB : rec.kind == PPT_REC_BB && ++blocks >= q) break;
    }
    if (rc < 0) return err->status ? (int)err->status : 1;
    if (rc == 0) { /* exhausted: drop it, keeping the others' round-robin order */
      memmove(&m->active[k], &m->active[k + 1], (size_t)(nact - k - 1) * sizeof *m->active);
      nact--;
      continue;
    }
    k++;
  }
  return 0;
}

/* Deals one loop instance's iterations (boundaries b[0..nb)) and streams the phase. */
static int run_loop(mimic *m, const loop_info *li, const uint64_t *b, uint64_t nb, ppt_err *err) {
  uint32_t n = m->o->ncores;
  uint64_t trip = li->trip;
  m->st->loop_phases++;
  if (m->o->split == PPT_SPLIT_INSTANCES) {
    /* Paper's split: every block's instances in this loop dealt evenly in chunks. */
    uint32_t nbbs = ppt_trace_nbbs(m->t);
    for (uint32_t bb = 0; bb <= nbbs; bb++) m->quota[bb] = (uint32_t)((m->bcount[bb] + n - 1) / n);
    for (uint32_t c = 0; c < n; c++)
      if (add_range(m, c, li->begin, li->end + 1)) return ppt_err_set(err, PPT_ERUN, "out of memory");
    int rc = run_phase(m, 1, m->quota, err);
    return rc;
  }
  uint64_t *start = NULL;
  uint64_t ni = trip;
  if (li->marker && nb >= trip && trip > 0) {
    start = malloc((trip + 1) * sizeof *start);
    if (!start) return ppt_err_set(err, PPT_ERUN, "out of memory");
    memcpy(start, b, trip * sizeof *start); /* an extra exit entry (trip + 1) is dropped */
  } else if (trip > 0) {
    /* No iteration block: cut the loop into trip pieces of equal length. */
    m->st->loops_without_marker++;
    start = malloc((trip + 1) * sizeof *start);
    if (!start) return ppt_err_set(err, PPT_ERUN, "out of memory");
    uint64_t len = li->end - li->begin;
    for (uint64_t i = 0; i < trip; i++) start[i] = li->begin + (len * i) / trip;
  } else {
    ni = 0;
  }
  m->st->iterations += ni;
  if (ni == 0) {
    for (uint32_t c = 0; c < n; c++)
      if (add_range(m, c, li->begin, li->end + 1)) return ppt_err_set(err, PPT_ERUN, "out of memory");
    return run_phase(m, 1, NULL, err);
  }
  start[ni] = li->end + 1;
  uint64_t *work = malloc(ni * sizeof *work);
  uint32_t *core_of = malloc(ni * sizeof *core_of);
  int rc = 0;
  if (!work || !core_of) {
    rc = ppt_err_set(err, PPT_ERUN, "out of memory");
    goto out;
  }
  for (uint64_t i = 0; i < ni; i++) work[i] = start[i + 1] - start[i];
  int sched = m->o->sched >= 0 ? m->o->sched : li->sched;
  int64_t chunk = m->o->sched >= 0 ? m->o->chunk : li->chunk;
  ppt_sasmm_schedule(sched, chunk, ni, n, work, core_of);
  /* The loop's set-up code (before the first iteration) runs on every core. */
  for (uint32_t c = 0; c < n && !rc; c++)
    if (add_range(m, c, li->begin, start[0])) rc = ppt_err_set(err, PPT_ERUN, "out of memory");
  for (uint64_t i = 0; i < ni && !rc; i++)
    if (add_range(m, core_of[i], start[i], start[i + 1])) rc = ppt_err_set(err, PPT_ERUN, "out of memory");
  if (!rc) rc = run_phase(m, 1, NULL, err);
out:
  free(start);
  free(work);
  free(core_of);
  return rc;
}

/* A region that divides its work by thread number (ppt_region_hand_split): its records
 * [s, e) in n contiguous shares of its block instances, share c to core c, as
 * `chunk = n / nthreads; for (i = tid * chunk; ...)` deals them. A share starts at a
 * block entry (with a sieve: at the first kept record from there on). */
static int phase_divided(mimic *m, uint64_t s, uint64_t e, ppt_err *err) {
  uint32_t n = m->o->ncores;
  uint64_t *nth = malloc(2 * (size_t)n * sizeof *nth), *cut = nth + n, blocks = m->reg->blocks;
  if (!nth) return ppt_err_set(err, PPT_ERUN, "out of memory");
  for (uint32_t c = 1; c < n; c++) nth[c - 1] = (uint64_t)((double)blocks * c / n);
  int rc = sasmm_chunkmap_find_blocks(&m->map, s, e, nth, n - 1, cut + 1, err);
  cut[0] = s;
  for (uint32_t c = 1; c < n && m->sieved; c++) {
    size_t i = sasmm_sieve_find(m->o->sieve, cut[c]);
    uint64_t p = i < sasmm_sieve_size(m->o->sieve) ? sasmm_sieve_at(m->o->sieve, i)->pos : e;
    cut[c] = p < e ? p : e;
  }
  for (uint32_t c = 0; c < n && !rc; c++)
    if (add_range(m, c, cut[c], c + 1 < n ? cut[c + 1] : e)) rc = ppt_err_set(err, PPT_ERUN, "out of memory");
  free(nth);
  if (rc) return rc;
  m->st->divided_phases++;
  return run_phase(m, 1, NULL, err);
}

static int phase_plain(mimic *m, uint64_t s, uint64_t e, int parallel, ppt_err *err) {
  if (s >= e) return 0;
  if (parallel && m->o->ncores > 1 && m->reg && ppt_region_hand_split(m->reg))
    return phase_divided(m, s, e, err);
  uint32_t n = parallel ? m->o->ncores : 1;
  for (uint32_t c = 0; c < n; c++)
    if (add_range(m, c, s, e)) return ppt_err_set(err, PPT_ERUN, "out of memory");
  if (parallel)
    m->st->replicated_phases++;
  else
    m->st->serial_phases++;
  return run_phase(m, parallel, NULL, err);
}

/* ---- the mimic's steps: stream them ---- */

static int mimic_plain(void *arg, uint64_t s, uint64_t e, int parallel, ppt_err *err) {
  return phase_plain(arg, s, e, parallel, err);
}

/* A parallel region begins: the walk's k-th fork is pass 1's region k. */
static void begin_region(mimic *m) {
  m->forked = 0;
  m->reg = m->nforks < m->L->nreg ? &m->L->reg[m->nforks] : NULL;
  m->nforks++;
}

static void mimic_fork(void *arg) {
  begin_region(arg);
}

static int mimic_loop(void *arg, size_t li, const uint64_t *b, uint64_t nb, const uint64_t *bcount,
                      ppt_err *err) {
  mimic *m = arg;
  m->bcount = bcount;
  return run_loop(m, &m->L->v[li], b, nb, err);
}

static const step_ops mimic_ops = {mimic_plain, mimic_fork, mimic_loop};

/* The plan's steps, streamed as walk would hand them over (the per-instance split needs
 * the blocks' counts, which a plan does not keep: it walks). */
static int replay(mimic *m, const ppt_sasmm_plan *p, ppt_err *err) {
  int rc = 0;
  for (size_t i = 0; i < p->nsteps && !rc; i++) {
    const step *st = &p->steps[i];
    if (st->kind == STEP_PLAIN)
      rc = phase_plain(m, st->s, st->e, st->parallel, err);
    else if (st->kind == STEP_FORK)
      begin_region(m);
    else
      rc = run_loop(m, &p->L.v[st->loop], p->bnd + st->b0, st->nb, err);
  }
  return rc;
}

int ppt_sasmm_cores_parse(const char *s, uint32_t *v, size_t max, size_t *n) {
  *n = 0;
  while (*s) {
    char *end;
    errno = 0;
    long c = strtol(s, &end, 10);
    if (end == s || errno || c < 1 || c > (long)PPT_SASMM_MAX_CORES || *n == max) return -1;
    v[(*n)++] = (uint32_t)c;
    if (*end == ',' && end[1])
      end++;
    else if (*end)
      return -1;
    s = end;
  }
  return *n ? 0 : -1;
}

int ppt_sasmm_mimic(const ppt_trace *t, const ppt_sasmm_opts *o, const ppt_sasmm_sink *sink,
                    ppt_sasmm_stats *stats, ppt_err *err) {
  if (o->ncores < 1 || o->ncores > PPT_SASMM_MAX_CORES)
    return ppt_err_set(err, PPT_EINPUT, "cores must be 1..%u, not %u", PPT_SASMM_MAX_CORES, o->ncores);
  if (ppt_trace_nthreads(t) < 1) return ppt_err_set(err, PPT_EINPUT, "%s: empty trace", ppt_trace_path(t));
  ppt_sasmm_stats st_local;
  mimic m = {.t = t, .o = o, .st = stats ? stats : &st_local};
  memset(m.st, 0, sizeof *m.st);
  uint32_t n = o->ncores, nbbs = ppt_trace_nbbs(t);
  loops L = {0};
  int rc = sasmm_chunkmap_init(&m.map, t, 0, err);
  if (rc) return rc;
  m.rd = calloc(n, sizeof *m.rd);
  m.active = calloc(n, sizeof *m.active);
  m.cr = calloc(n, sizeof *m.cr);
  m.ncr = calloc(n, sizeof *m.ncr);
  m.capcr = calloc(n, sizeof *m.capcr);
  m.quota = calloc((size_t)nbbs + 1, sizeof *m.quota);
  m.out.sink = sink;
  m.out.ncores = n;
  m.out.opts = o;
  m.out.priv = malloc((size_t)n * OUTB * sizeof *m.out.priv);
  m.out.npriv = calloc(n, sizeof *m.out.npriv);
  m.rng = gsl_rng_alloc(gsl_rng_mt19937);
  if (!m.rd || !m.active || !m.cr || !m.ncr || !m.capcr || !m.quota || !m.out.priv || !m.out.npriv ||
      !m.rng) {
    rc = ppt_err_set(err, PPT_ERUN, "out of memory");
    goto out;
  }
  gsl_rng_set(m.rng, o->seed);
  /* The sieve stands for the trace where its kept records reproduce the stream exactly
   * (sieve.h): the plan's ranges, whole iterations, one reference a round-robin turn. */
  m.sieved = o->sieve && o->plan && o->plan->steps && !o->plan->dropped && o->split == PPT_SPLIT_ITERATIONS &&
             o->interleave == PPT_INTERLEAVE_RR && o->quantum <= 1 && !o->private_only &&
             sasmm_sieve_trace(o->sieve) == t;
  if (m.sieved && (!(m.head = malloc(n * sizeof *m.head)) || !(m.hkey = malloc(n * sizeof *m.hkey)))) {
    rc = ppt_err_set(err, PPT_ERUN, "out of memory");
    goto out;
  }
  for (uint32_t c = 0; c < n; c++)
    if (!(m.rd[c] = m.sieved ? sasmm_rreader_new_sieved(&m.map, o->sieve) : sasmm_rreader_new(&m.map))) {
      rc = ppt_err_set(err, PPT_ERUN, "out of memory");
      goto out;
    }
  if (o->plan && o->plan->t != t) {
    rc = ppt_err_set(err, PPT_EINPUT, "%s: mimic: the plan is of another trace", ppt_trace_path(t));
    goto out;
  }
  if (!o->plan && (rc = sasmm_find_markers(t, &L, err))) goto out;
  m.L = o->plan ? &o->plan->L : &L;
  /* A plan's recorded steps save walking the trace again (the per-instance split needs
   * the walk's block counts). */
  if (o->plan && o->plan->steps && !o->plan->dropped && o->split == PPT_SPLIT_ITERATIONS)
    rc = replay(&m, o->plan, err);
  else
    rc = sasmm_walk(t, m.L, &mimic_ops, &m, NULL, err);
  if (rc) goto out;
  for (uint32_t c = 0; c < n; c++) flush_priv(&m.out, c);
  flush_shared(&m.out);
  for (uint32_t c = 0; m.sieved && sink->dropped && c < n; c++) {
    uint64_t refs, loads, stores;
    sasmm_rreader_dropped(m.rd[c], &refs, &loads, &stores);
    sink->dropped(sink->arg, c, refs, loads, stores);
  }
out:
  if (m.rd)
    for (uint32_t c = 0; c < n; c++) sasmm_rreader_free(m.rd[c]);
  if (m.cr)
    for (uint32_t c = 0; c < n; c++) free(m.cr[c]);
  free(m.rd);
  free(m.active);
  free(m.cr);
  free(m.ncr);
  free(m.capcr);
  free(m.quota);
  free(m.out.priv);
  free(m.out.npriv);
  free(m.head);
  free(m.hkey);
  gsl_rng_free(m.rng);
  ppt_sasmm_loops_free(&L);
  sasmm_chunkmap_free(&m.map);
  return rc;
}

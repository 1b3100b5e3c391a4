/* models/extrap/strides.c — how each block's references walk memory: per block and per
 * position of a reference in the block (its slot), the address step from one instance
 * of the block to the next on the same thread, the most frequent step and how often the
 * step repeats.
 *
 * Why: SDCM (SASMM §3.6 Eq. 5) spreads the lines a reuse waits for over every set, and
 * a trace at a small size cannot show the set conflicts of a larger one: a column walk
 * whose stride in bytes is a multiple of many lines uses a fraction of the sets, and at
 * which size that happens is arithmetic on the stride (docs/extrapolate.md, "Set
 * conflicts"). The stride of a regular loop nest is a function of the size that the
 * traced sizes give (AMM §3: addresses as functions of the input), so it can be fitted
 * as the counts are. A slot whose step does not repeat is data-dependent (a gather). */
#include <stdlib.h>
#include <string.h>

#include "ppt/extrap.h"

/* The running state of one slot. */
typedef struct slot_run {
  uint64_t last;                 /* address of the previous instance's reference */
  int64_t off[PPT_EXTRAP_SLOTS]; /* previous instance's offsets from the slots before */
  int64_t step;                  /* previous step */
  int64_t cand;                  /* Boyer-Moore majority candidate of the steps */
  int64_t votes;                 /* its votes */
  uint64_t seen;                 /* references seen on this thread (0: last is not set) */
} slot_run;

/* One reference of slot j at addr, the instance's slots before it at prev[0..j). */
static void slot_feed(slot_run *s, ppt_extrap_slot *o, uint64_t addr, const uint64_t *prev, unsigned j) {
  for (unsigned i = 0; i < j; i++) {
    int64_t off = (int64_t)(addr - prev[i]);
    if (s->seen && off == s->off[i]) o->same_offset[i]++;
    s->off[i] = o->offset[i] = off;
  }
  if (!o->refs || addr < o->lo) o->lo = addr;
  if (!o->refs || addr > o->hi) o->hi = addr;
  o->refs++;
  if (s->seen++) {
    int64_t step = (int64_t)(addr - s->last);
    o->steps++;
    if (s->seen > 2 && step == s->step) o->repeats++;
    if (!s->votes) {
      s->cand = step;
      s->votes = 1;
    } else
      s->votes += step == s->cand ? 1 : -1;
    s->step = step;
  }
  s->last = addr;
}

int ppt_extrap_strides_measure(const ppt_trace *t, ppt_extrap_strides *out, ppt_err *err) {
  memset(out, 0, sizeof *out);
  uint32_t nb = ppt_trace_nbbs(t) + 1;
  slot_run *run = calloc((size_t)nb * PPT_EXTRAP_SLOTS, sizeof *run);
  out->nblocks = nb;
  out->slot = calloc((size_t)nb * PPT_EXTRAP_SLOTS, sizeof *out->slot);
  out->refs = calloc(nb, sizeof *out->refs);
  out->instances = calloc(nb, sizeof *out->instances);
  out->all_refs = calloc(nb, sizeof *out->all_refs);
  ppt_trace_batch *b = ppt_trace_batch_new();
  int rc = 0;
  if (!run || !out->slot || !out->refs || !out->instances || !out->all_refs || !b)
    rc = ppt_err_set(err, PPT_ERUN, "%s: out of memory", ppt_trace_path(t));
  for (uint32_t th = 0; th < ppt_trace_nthreads(t) && !rc; th++) {
    /* Steps are taken on one thread: another thread's instance is another walk. */
    memset(run, 0, (size_t)nb * PPT_EXTRAP_SLOTS * sizeof *run);
    uint32_t bb = 0, pos = 0;
    uint64_t at[PPT_EXTRAP_SLOTS] = {0};
    for (size_t k = 0; k < ppt_trace_thread_nchunks(t, th) && !rc; k++) {
      const ppt_trace_rec *r;
      size_t n;
      if ((rc = ppt_trace_chunk_decode(t, ppt_trace_thread_chunk(t, th, k), b, &r, &n, err))) break;
      for (size_t i = 0; i < n; i++) {
        if (r[i].kind == PPT_REC_BB) {
          bb = r[i].bb < nb ? r[i].bb : 0;
          out->instances[bb]++;
          pos = 0;
          continue;
        }
        if (r[i].kind == PPT_REC_EVENT) continue;
        if (r[i].bb < nb) out->all_refs[r[i].bb]++;
        if (r[i].flags & PPT_REC_MCSTACK) continue;
        out->refs[bb]++;
        if (pos < PPT_EXTRAP_SLOTS) {
          size_t j = (size_t)bb * PPT_EXTRAP_SLOTS + pos;
          at[pos] = r[i].addr;
          slot_feed(&run[j], &out->slot[j], r[i].addr, at, pos);
        }
        pos++;
      }
    }
    /* The majority candidate of this thread's steps, kept where it is the first found. */
    for (size_t j = 0; j < (size_t)nb * PPT_EXTRAP_SLOTS; j++)
      if (run[j].votes > 0 && !out->slot[j].has_stride) {
        out->slot[j].stride = run[j].cand;
        out->slot[j].has_stride = 1;
      }
  }
  free(run);
  ppt_trace_batch_free(b);
  if (rc) ppt_extrap_strides_free(out);
  return rc;
}

const ppt_extrap_slot *ppt_extrap_strides_of(const ppt_extrap_strides *s, uint32_t bb) {
  return bb < s->nblocks ? s->slot + (size_t)bb * PPT_EXTRAP_SLOTS : NULL;
}

void ppt_extrap_strides_free(ppt_extrap_strides *s) {
  free(s->slot);
  free(s->refs);
  free(s->instances);
  free(s->all_refs);
  s->slot = NULL;
  s->refs = s->instances = s->all_refs = NULL;
  s->nblocks = 0;
}

/* gcd of two positive numbers. */
static uint64_t gcd64(uint64_t a, uint64_t b) {
  while (b) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

uint64_t ppt_extrap_set_fold(int64_t stride, uint64_t sets, uint64_t line) {
  if (!sets || !line) return 1;
  uint64_t span = sets * line, d = (uint64_t)(stride < 0 ? -stride : stride) % span;
  /* A walk of step d visits the addresses that are multiples of gcd(d, span) within
   * one span of the sets; they fall in span / gcd of the sets when the gcd is at least
   * a line (a span of a power-of-two size makes the gcd a power of two, so then a
   * multiple of the line), in every set otherwise. d = 0 stays in one line: no walk. */
  if (!d) return stride ? sets : 1;
  uint64_t g = gcd64(d, span);
  return g >= line && g % line == 0 ? g / line : 1;
}

/* summary.c — one streaming pass over every thread of a trace for `ppt info`. */
#include <stdlib.h>
#include <string.h>

#include "common/u64map.h"
#include "ppt/trace.h"

int ppt_trace_summarize(const ppt_trace *t, ppt_trace_summary *s, void (*progress)(uint64_t done, void *arg),
                        void *arg, ppt_err *err) {
  memset(s, 0, sizeof *s);
  uint32_t nbbs = ppt_trace_nbbs(t);
  s->threads = ppt_trace_nthreads(t);
  s->bbs = nbbs;
  s->bb_count = calloc((size_t)nbbs + 1, sizeof *s->bb_count);
  s->bb_refs = calloc((size_t)nbbs + 1, sizeof *s->bb_refs);
  s->bb_widest = calloc((size_t)nbbs + 1, 1);
  /* Distinct 64-byte lines, as a map from each run of 64 lines (4 KiB) to a bitmap of
   * the lines seen in it: programs touch lines in runs, so the table holds far fewer
   * entries than lines and stays in cache where a set of lines would not. */
  u64map runs;
  u64map_init(&runs);
  ppt_trace_batch *b = ppt_trace_batch_new();
  uint8_t *outlined = calloc((size_t)nbbs + 1, 1); /* per block: PPT_BB_PARALLEL */
  int rc = 0;
  if (!s->bb_count || !s->bb_refs || !s->bb_widest || !b || !outlined) {
    rc = ppt_err_set(err, PPT_ERUN, "%s: out of memory", ppt_trace_path(t));
    goto out;
  }
  for (uint32_t id = 1; id <= nbbs; id++) {
    outlined[id] = (ppt_trace_bb_get(t, id)->flags & PPT_BB_PARALLEL) != 0;
    s->parallel_bbs += outlined[id];
  }
  uint64_t done = 0, last_line = UINT64_MAX;
  for (uint32_t th = 0; th < s->threads && !rc; th++) {
    /* Inside a parallel region: the first thread between its fork and join events, every
     * other thread always (a team's workers record only there). */
    int64_t depth = th > 0;
    for (size_t k = 0; k < ppt_trace_thread_nchunks(t, th) && !rc; k++) {
      const ppt_trace_rec *r;
      size_t n;
      if ((rc = ppt_trace_chunk_decode(t, ppt_trace_thread_chunk(t, th, k), b, &r, &n, err))) break;
      for (size_t i = 0; i < n; i++) {
        if (r[i].kind == PPT_REC_BB) {
          s->bb_count[r[i].bb]++;
          continue;
        }
        if (r[i].kind == PPT_REC_EVENT) {
          s->parallel_regions += r[i].size == PPT_EV_PAR_BEGIN;
          if (th == 0) depth += (r[i].size == PPT_EV_PAR_BEGIN) - (r[i].size == PPT_EV_PAR_END);
          s->loops += r[i].size == PPT_EV_LOOP_BEGIN;
          if (r[i].size == PPT_EV_THREADS_ASKED) {
            const ppt_trace_event *ev = &ppt_trace_batch_events(b)[r[i].addr];
            if (ev->nvals >= 2 && ev->v[0] > 0 && (uint64_t)ev->v[0] > s->threads_asked)
              s->threads_asked = (uint64_t)ev->v[0];
            if (ev->nvals >= 2 && ev->v[1] > 0) s->thread_requests += (uint64_t)ev->v[1];
          }
          continue;
        }
        s->bb_refs[r[i].bb]++;
        s->parallel_refs += depth > 0;
        /* what the regions' bodies reach in functions they call (orphaned worksharing
         * loops, solvers' kernels): parallel, though their blocks are not outlined */
        s->parallel_called_refs += depth > 0 && !outlined[r[i].bb];
        if (r[i].size > s->bb_widest[r[i].bb]) s->bb_widest[r[i].bb] = r[i].size;
        if (r[i].kind == PPT_REC_LOAD)
          s->loads++;
        else
          s->stores++;
        s->stack_refs += (r[i].flags & PPT_REC_STACK) != 0;
        s->mcstack_refs += (r[i].flags & PPT_REC_MCSTACK) != 0;
        /* Most references re-touch the previous line: skip the map for those. */
        uint64_t line = r[i].addr >> 6;
        if (line != last_line) {
          size_t k = u64map_insert(&runs, line >> 6, NULL);
          if (k == U64MAP_NONE) {
            rc = ppt_err_set(err, PPT_ERUN, "%s: out of memory", ppt_trace_path(t));
            break;
          }
          runs.ents[k].val.u |= 1ull << (line & 63);
        }
        last_line = line;
      }
      done += n;
      if (progress) progress(done, arg);
    }
  }
  s->refs = s->loads + s->stores;
  for (uint32_t id = 1; id <= nbbs; id++) {
    s->bb_instances += s->bb_count[id];
  }
  for (size_t k = 0; k < u64map_cap(&runs); k++)
    if (runs.ents[k].key != U64MAP_EMPTY) s->lines64 += (uint64_t)__builtin_popcountll(runs.ents[k].val.u);
out:
  free(outlined);
  u64map_free(&runs);
  ppt_trace_batch_free(b);
  if (rc) ppt_trace_summary_free(s);
  return rc;
}

void ppt_trace_summary_free(ppt_trace_summary *s) {
  free(s->bb_count);
  free(s->bb_refs);
  free(s->bb_widest);
  s->bb_count = s->bb_refs = NULL;
  s->bb_widest = NULL;
}

/* cursor.c — sequential reading of one thread's stream, a chunk at a time (ppt/trace.h),
 * optionally reading and decompressing the next chunk on a second thread while the
 * caller decodes and reads this one.
 *
 * The helper does not decode the records: on the 2-vCPU VM, a chunk's decoded records
 * (16 B each, a megabyte a chunk) written by one CPU and read by the other made a pass
 * 4x slower than decoding them in the reading thread (13.7 against 3.2 ns a record on
 * a 127 M-record trace), while the compressed and raw bytes are a fraction of that. Two
 * batches alternate: the caller's chunk in one, the next one loading into the other (the
 * caller's records stay valid until its next call, as without read-ahead). */
#include <pthread.h>
#include <stdlib.h>

#include "ppt/trace.h"
#include "trace/decode.h"

/* The chunk the helper thread loads, and what came of it. */
typedef struct ahead {
  const ppt_trace *t;
  size_t idx;
  ppt_trace_batch *b;
  int rc;
  ppt_err err;
} ahead;

/* One helper thread per cursor, for the cursor's whole life: a thread started and ended
 * per chunk cost more than the decoding on a VM (each exit frees its stack with madvise,
 * a TLB shoot-down on every CPU, and the next one faults it in again). */
struct ppt_trace_cursor {
  const ppt_trace *t;
  uint32_t thread;
  size_t k;            /* the next chunk to hand out, among the thread's */
  ppt_trace_batch *b;  /* the caller's chunk */
  ppt_trace_batch *b2; /* read-ahead: the next chunk, loading or loaded (NULL: none) */
  int raw;
  int helper;  /* the helper thread runs */
  int pending; /* 1: a job is given (the helper loads b2, or is done: `ready`) */
  int ready, quit;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  pthread_t th;
  ahead job;
};

int ppt_trace_cursor_open(const ppt_trace *t, uint32_t thread, ppt_trace_cursor **out, ppt_err *err) {
  if (thread >= ppt_trace_nthreads(t) && !(thread == 0 && ppt_trace_nthreads(t) == 0))
    return ppt_err_set(err, PPT_EINPUT, "%s: no thread %u (trace has %u)", ppt_trace_path(t), thread,
                       ppt_trace_nthreads(t));
  ppt_trace_cursor *c = calloc(1, sizeof *c);
  if (!c || !(c->b = ppt_trace_batch_new())) {
    free(c);
    return ppt_err_set(err, PPT_ERUN, "%s: out of memory", ppt_trace_path(t));
  }
  c->t = t;
  c->thread = thread;
  *out = c;
  return 0;
}

void ppt_trace_cursor_set_raw(ppt_trace_cursor *c, int raw) {
  c->raw = raw != 0;
  ppt_trace_batch_set_raw(c->b, raw);
  if (c->b2) ppt_trace_batch_set_raw(c->b2, raw);
}

static void *helper_main(void *arg) {
  ppt_trace_cursor *c = arg;
  pthread_mutex_lock(&c->mu);
  for (;;) {
    while (!c->quit && !(c->pending && !c->ready)) pthread_cond_wait(&c->cv, &c->mu);
    if (c->quit) break;
    ahead *j = &c->job;
    pthread_mutex_unlock(&c->mu);
    j->rc = ppt_trace_chunk_load(j->t, j->idx, j->b, &j->err);
    pthread_mutex_lock(&c->mu);
    c->ready = 1;
    pthread_cond_broadcast(&c->cv);
  }
  pthread_mutex_unlock(&c->mu);
  return NULL;
}

int ppt_trace_cursor_set_ahead(ppt_trace_cursor *c, int on) {
  if (!on || c->b2) return 0;
  if (!(c->b2 = ppt_trace_batch_new())) return -1;
  ppt_trace_batch_set_raw(c->b2, c->raw);
  pthread_mutex_init(&c->mu, NULL);
  pthread_cond_init(&c->cv, NULL);
  /* no helper (threads exhausted): load in the caller, as without read-ahead */
  c->helper = pthread_create(&c->th, NULL, helper_main, c) == 0;
  return 0;
}

/* Gives the helper the thread's chunk k to load (read and decompress) into b2 (the caller
 * no longer reads b2); loads in this thread when there is no helper. */
static void start_ahead(ppt_trace_cursor *c, size_t k) {
  ahead *j = &c->job;
  *j = (ahead){.t = c->t, .idx = ppt_trace_thread_chunk(c->t, c->thread, k), .b = c->b2};
  if (!c->helper) {
    j->rc = ppt_trace_chunk_load(j->t, j->idx, j->b, &j->err);
    c->pending = c->ready = 1;
    return;
  }
  pthread_mutex_lock(&c->mu);
  c->pending = 1;
  c->ready = 0;
  pthread_cond_broadcast(&c->cv);
  pthread_mutex_unlock(&c->mu);
}

/* Waits for the job given last. */
static void wait_ahead(ppt_trace_cursor *c) {
  if (!c->helper) return;
  pthread_mutex_lock(&c->mu);
  while (!c->ready) pthread_cond_wait(&c->cv, &c->mu);
  pthread_mutex_unlock(&c->mu);
}

int ppt_trace_cursor_next(ppt_trace_cursor *c, const ppt_trace_rec **recs, size_t *n, ppt_err *err) {
  size_t nchunks = ppt_trace_thread_nchunks(c->t, c->thread);
  if (c->k >= nchunks) {
    *n = 0;
    *recs = NULL;
    return 0;
  }
  if (!c->b2) {
    size_t idx = ppt_trace_thread_chunk(c->t, c->thread, c->k++);
    return ppt_trace_chunk_decode(c->t, idx, c->b, recs, n, err);
  }
  if (!c->pending) start_ahead(c, c->k); /* the first call: nothing loaded ahead yet */
  wait_ahead(c);
  c->pending = 0;
  ppt_trace_batch *cur = c->b2;
  c->b2 = c->b;
  c->b = cur;
  c->k++;
  if (c->job.rc) {
    *err = c->job.err;
    return c->job.rc;
  }
  size_t idx = c->job.idx;
  if (c->k < nchunks) start_ahead(c, c->k); /* the next chunk loads while this one decodes */
  return ppt_trace_chunk_records(c->t, idx, c->b, recs, n, err);
}

const ppt_trace_event *ppt_trace_cursor_events(const ppt_trace_cursor *c) {
  return ppt_trace_batch_events(c->b);
}

void ppt_trace_cursor_close(ppt_trace_cursor *c) {
  if (!c) return;
  if (c->b2) {
    if (c->helper) {
      pthread_mutex_lock(&c->mu);
      c->quit = 1;
      pthread_cond_broadcast(&c->cv);
      pthread_mutex_unlock(&c->mu);
      pthread_join(c->th, NULL);
    }
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cv);
  }
  ppt_trace_batch_free(c->b);
  ppt_trace_batch_free(c->b2);
  free(c);
}

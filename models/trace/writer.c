/* writer.c — the shared trace file: chunks appended under a lock, tables at close. */
#include "trace/writer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_createCCtx_advanced: its memory from ownheap.h */
#include <zstd.h>

#include "trace/ownheap.h"

struct ppt_trace_writer {
  int fd;
  int level;
  char *path;
  pthread_mutex_t lock;
  uint64_t end;          /* next append offset */
  uint32_t nthreads;     /* thread indices handed out */
  uint32_t threads_used; /* highest thread with a chunk + 1: the footer's count, which the
                            reader checks against the chunk table (docs/trace-format.md) */
  int forkjoin;          /* set (atomically) once a parallel region was recorded */
  unsigned char *table;  /* chunk table entries */
  size_t nchunks, cap;
};

static int write_all(int fd, const void *buf, size_t n, uint64_t off) {
  const unsigned char *p = buf;
  while (n) {
    ssize_t r = pwrite(fd, p, n, (off_t)off);
    if (r < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    p += r;
    off += (uint64_t)r;
    n -= (size_t)r;
  }
  return 0;
}

ppt_trace_writer *ppt_trace_writer_open(const char *path, int zstd_level) {
  ppt_trace_writer *w = ppt_own_alloc(sizeof *w);
  if (!w) return NULL;
  w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  w->path = ppt_own_strdup(path);
  if (w->fd < 0 || !w->path) {
    int e = errno;
    if (w->fd >= 0) close(w->fd);
    ppt_own_free(w->path);
    ppt_own_free(w);
    errno = e;
    return NULL;
  }
  w->level = zstd_level;
  pthread_mutex_init(&w->lock, NULL);
  unsigned char h[PPT_TRACE_HEADER_SIZE] = {0};
  memcpy(h, PPT_TRACE_MAGIC, 8);
  ppt_fmt_put32(h + 8, PPT_TRACE_VERSION);
  ppt_fmt_put32(h + 12, PPT_TRACE_HEADER_SIZE);
  ppt_fmt_put32(h + 16, 0);
  ppt_fmt_put32(h + 20, PPT_TRACE_CHUNK_RAW_TARGET);
  ppt_fmt_put64(h + 24, (uint64_t)getpid());
  ppt_fmt_put64(h + 32, (uint64_t)time(NULL));
  if (write_all(w->fd, h, sizeof h, 0)) {
    ppt_trace_writer_abort(w);
    return NULL;
  }
  w->end = PPT_TRACE_HEADER_SIZE;
  return w;
}

void ppt_trace_writer_note_forkjoin(ppt_trace_writer *w) {
  __atomic_store_n(&w->forkjoin, 1, __ATOMIC_RELAXED);
}

uint32_t ppt_trace_writer_new_thread(ppt_trace_writer *w) {
  pthread_mutex_lock(&w->lock);
  uint32_t t = w->nthreads++;
  pthread_mutex_unlock(&w->lock);
  return t;
}

/* Appends a compressed chunk and its table entry. Compression happens before, outside
 * the lock, so threads only serialise on the write itself. */
static int writer_append(ppt_trace_writer *w, const ppt_trace_enc *e, const void *comp, size_t csize,
                         uint32_t raw_size) {
  pthread_mutex_lock(&w->lock);
  int rc = -1;
  if (w->nchunks == w->cap) {
    size_t ncap = w->cap ? 2 * w->cap : 64;
    unsigned char *t = ppt_own_realloc(w->table, ncap * PPT_TRACE_CHUNK_ENTRY_SIZE);
    if (!t) goto out;
    w->table = t;
    w->cap = ncap;
  }
  if (write_all(w->fd, comp, csize, w->end)) goto out;
  unsigned char *ent = w->table + w->nchunks * PPT_TRACE_CHUNK_ENTRY_SIZE;
  ppt_fmt_put64(ent + 0, w->end);
  ppt_fmt_put32(ent + 8, (uint32_t)csize);
  ppt_fmt_put32(ent + 12, raw_size);
  ppt_fmt_put32(ent + 16, e->thread);
  ppt_fmt_put32(ent + 20, e->seq);
  ppt_fmt_put64(ent + 24, e->nrecs);
  ppt_fmt_put64(ent + 32, e->nrefs);
  ppt_fmt_put32(ent + 40, e->start_bb);
  ppt_fmt_put32(ent + 44, e->start_k);
  w->end += csize;
  w->nchunks++;
  if (e->thread >= w->threads_used) w->threads_used = e->thread + 1;
  rc = 0;
out:
  pthread_mutex_unlock(&w->lock);
  return rc;
}

/* zstd's memory, from where the writer's own comes (ownheap.h) */
static void *zstd_alloc(void *opaque, size_t n) {
  (void)opaque;
  return ppt_own_alloc(n);
}
static void zstd_free(void *opaque, void *p) {
  (void)opaque;
  ppt_own_free(p);
}

ppt_trace_enc *ppt_trace_enc_new(ppt_trace_writer *w) {
  ppt_trace_enc *e = ppt_own_alloc(sizeof *e);
  if (!e) return NULL;
  e->ccap = ZSTD_compressBound(PPT_TRACE_CHUNK_RAW_TARGET);
  e->cbuf = ppt_own_alloc(e->ccap);
  e->cctx = ZSTD_createCCtx_advanced((ZSTD_customMem){zstd_alloc, zstd_free, NULL});
  if (!e->cbuf || !e->cctx) {
    ppt_trace_enc_free(e);
    return NULL;
  }
  ZSTD_CCtx_setParameter(e->cctx, ZSTD_c_compressionLevel, w->level);
  ZSTD_CCtx_setParameter(e->cctx, ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setParameter(e->cctx, ZSTD_c_contentSizeFlag, 1);
  e->w = w;
  e->thread = ppt_trace_writer_new_thread(w);
  e->pos = e->buf;
  e->lim = e->buf + PPT_TRACE_CHUNK_RAW_TARGET - PPT_TRACE_ENC_SLACK;
  return e;
}

int ppt_trace_enc_flush(ppt_trace_enc *e) {
  size_t raw = (size_t)(e->pos - e->buf);
  if (raw == 0 || e->failed) {
    e->pos = e->buf;
    return e->failed ? -1 : 0;
  }
  e->nrefs = e->nrecs - e->nother;
  size_t c = ZSTD_compress2(e->cctx, e->cbuf, e->ccap, e->buf, raw);
  if (ZSTD_isError(c) || writer_append(e->w, e, e->cbuf, c, (uint32_t)raw)) {
    e->err = ZSTD_isError(c) ? ENOMEM : errno;
    e->failed = 1;
    e->pos = e->buf;
    return -1;
  }
  e->seq++;
  e->nrecs = e->nrefs = e->nother = 0;
  e->start_bb = e->bb;
  e->start_k = e->k;
  memset(e->sites, 0, sizeof e->sites);
  e->pos = e->buf;
  return 0;
}

void ppt_trace_enc_free(ppt_trace_enc *e) {
  if (!e) return;
  ZSTD_freeCCtx(e->cctx);
  ppt_own_free(e->cbuf);
  ppt_own_free(e);
}

int ppt_trace_writer_close(ppt_trace_writer *w, const unsigned char *bbtab, uint32_t bbtab_size) {
  int rc = -1;
  size_t cap = ZSTD_compressBound(bbtab_size);
  unsigned char *cb = ppt_own_alloc(cap ? cap : 1);
  size_t tsize = w->nchunks * PPT_TRACE_CHUNK_ENTRY_SIZE;
  if (!cb) goto out;
  size_t csize = ZSTD_compress(cb, cap, bbtab, bbtab_size, 3);
  if (ZSTD_isError(csize)) goto out;
  uint64_t bboff = w->end;
  uint64_t tab = bboff + csize;
  unsigned char f[PPT_TRACE_FOOTER_SIZE] = {0};
  memcpy(f, PPT_TRACE_FOOTER_MAGIC, 8);
  ppt_fmt_put64(f + 8, tab);
  ppt_fmt_put64(f + 16, w->nchunks);
  ppt_fmt_put64(f + 24, bboff);
  ppt_fmt_put32(f + 32, (uint32_t)csize);
  ppt_fmt_put32(f + 36, bbtab_size);
  /* Not w->nthreads: a thread numbered while the program exits may never write a chunk. */
  ppt_fmt_put32(f + 40, w->threads_used);
  ppt_fmt_put32(f + 44, bbtab_size >= 4 ? ppt_fmt_get32(bbtab) : 0);
  uint64_t sum = ppt_fmt_fnv1a(PPT_FMT_FNV_INIT, w->table, tsize);
  ppt_fmt_put64(f + 48, ppt_fmt_fnv1a(sum, cb, csize));
  ppt_fmt_put32(f + 56, PPT_TRACE_VERSION);
  unsigned char flags[4];
  ppt_fmt_put32(flags, PPT_TRACE_FLAG_COMPLETE |
                           (__atomic_load_n(&w->forkjoin, __ATOMIC_RELAXED) ? PPT_TRACE_FLAG_FORKJOIN : 0));
  if (write_all(w->fd, cb, csize, bboff) || (tsize && write_all(w->fd, w->table, tsize, tab)) ||
      write_all(w->fd, f, sizeof f, tab + tsize) || fsync(w->fd) || write_all(w->fd, flags, 4, 16))
    goto out;
  rc = 0;
out:
  ppt_own_free(cb);
  if (close(w->fd) != 0) rc = -1;
  w->fd = -1;
  if (rc) unlink(w->path);
  pthread_mutex_destroy(&w->lock);
  ppt_own_free(w->table);
  ppt_own_free(w->path);
  ppt_own_free(w);
  return rc;
}

void ppt_trace_writer_abort(ppt_trace_writer *w) {
  if (!w) return;
  if (w->fd >= 0) close(w->fd);
  unlink(w->path);
  pthread_mutex_destroy(&w->lock);
  ppt_own_free(w->table);
  ppt_own_free(w->path);
  ppt_own_free(w);
}

int ppt_trace_writer_reset(ppt_trace_writer *w) {
  pthread_mutex_lock(&w->lock);
  w->end = PPT_TRACE_HEADER_SIZE;
  w->nchunks = 0;
  w->threads_used = 0;
  __atomic_store_n(&w->forkjoin, 0, __ATOMIC_RELAXED);
  int rc = ftruncate(w->fd, (off_t)PPT_TRACE_HEADER_SIZE);
  pthread_mutex_unlock(&w->lock);
  return rc;
}

void ppt_trace_enc_reset(ppt_trace_enc *e) {
  e->pos = e->buf;
  e->nrecs = e->nrefs = e->nother = 0;
  e->bb = e->k = e->start_bb = e->start_k = 0;
  e->seq = 0;
  memset(e->sites, 0, sizeof e->sites);
}

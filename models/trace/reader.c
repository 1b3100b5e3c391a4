/* reader.c — open, validate and stream-decode ppt traces (format.h, codec.h).
 *
 * Opening reads only the header, footer, chunk table and block table; chunk payloads are
 * read with pread on demand, so a ppt_trace can be shared by reader threads. Every field
 * read from the file is bounds-checked: a bad file gives PPT_EINPUT "PATH: problem",
 * never a crash (tests/trace/fuzz_reader.c hammers this). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "ppt/trace.h"
#include "trace/bbtab.h"
#include "trace/codec.h"
#include "trace/decode.h"
#include "trace/format.h"
#include "trace/stackrefs.h"

struct ppt_trace {
  int fd;
  char *path;
  uint32_t version, nthreads, nbbs, flags;
  uint64_t file_bytes;
  ppt_trace_chunk_info *chunks;
  size_t nchunks;
  /* The largest chunk's sizes: a batch takes them at its first decode, so that readers
   * never realloc (33 readers growing their buffers chunk by chunk fragmented the heap
   * to twice what they held) and ppt_trace_batch_bytes is what a reader costs. */
  uint32_t max_comp, max_raw;
  uint64_t max_nrecs;
  size_t *thread_first; /* per thread: index into by_thread of its first chunk; [nthreads] = nchunks */
  size_t *by_thread;    /* chunk indices grouped by thread, in stream order */
  uint64_t *thread_refs, *thread_recs;
  ppt_trace_bb *bbs;
  char *strings;
  uint16_t (*irmem)[2]; /* per block: the IR's LOAD and STORE counts, without stack refs */
  int has_stack, stack_on;
};

struct ppt_trace_batch {
  unsigned char *comp, *raw;
  size_t comp_cap, raw_cap;
  ppt_trace_rec *recs;
  size_t rec_cap;
  ppt_trace_event *events;
  size_t ev_cap;
  ZSTD_DCtx *dctx;
  ppt_trace_rec *xrecs; /* the records with stack references added */
  size_t xcap;
  int raw_only; /* ppt_trace_batch_set_raw */
};

static int bad(ppt_err *err, const char *path, const char *what) {
  return ppt_err_set(err, PPT_EINPUT, "%s: %s", path, what);
}

static int read_at(int fd, void *buf, size_t n, uint64_t off) {
  unsigned char *p = buf;
  while (n) {
    ssize_t r = pread(fd, p, n, (off_t)off);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    p += r;
    off += (uint64_t)r;
    n -= (size_t)r;
  }
  return 0;
}

static int load_bbtab(ppt_trace *t, uint64_t off, uint32_t csize, uint32_t rsize, uint64_t *sum,
                      ppt_err *err) {
  unsigned char *c = malloc(csize ? csize : 1), *r = NULL;
  int rc = 0;
  if (!c) {
    rc = ppt_err_set(err, PPT_ERUN, "%s: out of memory", t->path);
  } else if (read_at(t->fd, c, csize, off)) {
    rc = bad(err, t->path, "truncated trace: block table unreadable");
  } else if (ZSTD_getFrameContentSize(c, csize) != rsize) {
    /* The footer's size is only trusted once the frame agrees with it: a damaged footer
     * must not make us allocate whatever it claims. */
    rc = bad(err, t->path, "corrupt trace: block table size does not match its frame");
  } else if (!(r = malloc(rsize ? rsize : 1))) {
    rc = ppt_err_set(err, PPT_ERUN, "%s: out of memory", t->path);
  } else {
    *sum = ppt_fmt_fnv1a(*sum, c, csize);
    size_t got = ZSTD_decompress(r, rsize, c, csize);
    if (ZSTD_isError(got) || got != rsize)
      rc = bad(err, t->path, "corrupt trace: block table does not decompress");
    else
      rc = ppt_bbtab_parse(r, rsize, t->version, t->path, &t->bbs, &t->nbbs, &t->strings, err);
  }
  free(c);
  free(r);
  return rc;
}

/* Groups chunks by thread and checks each thread's sequence numbers run 0,1,2,... */
static int index_threads(ppt_trace *t, ppt_err *err) {
  size_t nt = t->nthreads;
  t->thread_first = calloc(nt + 1, sizeof *t->thread_first);
  t->by_thread = calloc(t->nchunks ? t->nchunks : 1, sizeof *t->by_thread);
  t->thread_refs = calloc(nt ? nt : 1, sizeof *t->thread_refs);
  t->thread_recs = calloc(nt ? nt : 1, sizeof *t->thread_recs);
  if (!t->thread_first || !t->by_thread || !t->thread_refs || !t->thread_recs)
    return ppt_err_set(err, PPT_ERUN, "%s: out of memory", t->path);
  for (size_t i = 0; i < t->nchunks; i++) {
    const ppt_trace_chunk_info *c = &t->chunks[i];
    t->thread_first[c->thread + 1]++;
    t->thread_refs[c->thread] += c->nrefs;
    t->thread_recs[c->thread] += c->nrecs;
  }
  for (size_t th = 0; th < nt; th++) t->thread_first[th + 1] += t->thread_first[th];
  for (size_t i = 0; i < t->nchunks; i++) {
    const ppt_trace_chunk_info *c = &t->chunks[i];
    size_t base = t->thread_first[c->thread], cnt = t->thread_first[c->thread + 1] - base;
    if (c->seq >= cnt || t->by_thread[base + c->seq])
      return bad(err, t->path, "corrupt trace: chunk sequence numbers are inconsistent");
    t->by_thread[base + c->seq] = i + 1; /* +1 so 0 means "unset" during the check */
  }
  for (size_t i = 0; i < t->nchunks; i++) t->by_thread[i]--;
  return 0;
}

/* The header: magic, version, sizes this reader was built for, and the flag the runtime
 * sets only when the traced program exited normally. */
static int read_header(ppt_trace *t, ppt_err *err) {
  unsigned char h[PPT_TRACE_HEADER_SIZE];
  const char *path = t->path;
  if (t->file_bytes < PPT_TRACE_HEADER_SIZE || read_at(t->fd, h, sizeof h, 0))
    return bad(err, path, "truncated trace: no complete header");
  if (memcmp(h, PPT_TRACE_MAGIC, 8) != 0) return bad(err, path, "not a ppt trace (bad magic)");
  t->version = ppt_fmt_get32(h + 8);
  if (t->version < PPT_TRACE_VERSION_MIN || t->version > PPT_TRACE_VERSION)
    return ppt_err_set(err, PPT_EINPUT, "%s: unsupported trace version %u (this ppt reads versions %u-%u)", path,
                       t->version, PPT_TRACE_VERSION_MIN, PPT_TRACE_VERSION);
  /* chunk_raw_max: what the writer cut chunks at (older ppt: RAW_MAX itself) */
  if (ppt_fmt_get32(h + 12) != PPT_TRACE_HEADER_SIZE || ppt_fmt_get32(h + 20) == 0 ||
      ppt_fmt_get32(h + 20) > PPT_TRACE_CHUNK_RAW_MAX)
    return bad(err, path, "corrupt trace: unexpected header fields");
  t->flags = ppt_fmt_get32(h + 16);
  if (!(t->flags & PPT_TRACE_FLAG_COMPLETE))
    return bad(err, path, "incomplete trace: the traced program did not exit normally");
  /* The header is not covered by the checksum, so a flipped bit here would otherwise
   * pass: the writer sets no other flag and zeroes the reserved bytes. pid and creation
   * time (24..39) are informational and read by nothing, so any value is valid there. */
  if (t->flags & ~(uint32_t)(PPT_TRACE_FLAG_COMPLETE | PPT_TRACE_FLAG_FORKJOIN))
    return ppt_err_set(err, PPT_EINPUT, "%s: corrupt trace: unknown header flags 0x%x", path,
                       t->flags & ~(uint32_t)(PPT_TRACE_FLAG_COMPLETE | PPT_TRACE_FLAG_FORKJOIN));
  for (unsigned i = 40; i < PPT_TRACE_HEADER_SIZE; i++)
    if (h[i]) return bad(err, path, "corrupt trace: reserved header bytes 40..63 are not zero");
  return 0;
}

/* Where the footer says the tables are (docs/trace-format.md), checked against the file's
 * size before anything is read from there. */
typedef struct footer {
  unsigned char raw[PPT_TRACE_FOOTER_SIZE];
  uint64_t tab, nch, bboff;
  uint32_t bbc, bbr;
} footer;

static int read_footer(ppt_trace *t, footer *f, ppt_err *err) {
  const char *path = t->path;
  if (t->file_bytes < PPT_TRACE_HEADER_SIZE + PPT_TRACE_FOOTER_SIZE ||
      read_at(t->fd, f->raw, sizeof f->raw, t->file_bytes - PPT_TRACE_FOOTER_SIZE) ||
      memcmp(f->raw, PPT_TRACE_FOOTER_MAGIC, 8) != 0)
    return bad(err, path, "truncated trace: footer missing");
  f->tab = ppt_fmt_get64(f->raw + 8);
  f->nch = ppt_fmt_get64(f->raw + 16);
  f->bboff = ppt_fmt_get64(f->raw + 24);
  f->bbc = ppt_fmt_get32(f->raw + 32);
  f->bbr = ppt_fmt_get32(f->raw + 36);
  t->nthreads = ppt_fmt_get32(f->raw + 40);
  uint64_t body_end = t->file_bytes - PPT_TRACE_FOOTER_SIZE;
  if (f->nch > body_end / PPT_TRACE_CHUNK_ENTRY_SIZE || f->tab > body_end ||
      f->tab + f->nch * PPT_TRACE_CHUNK_ENTRY_SIZE != body_end || f->bboff < PPT_TRACE_HEADER_SIZE ||
      f->bboff + f->bbc != f->tab || t->nthreads > (1u << 20) || f->bbr > (1u << 30) ||
      ppt_fmt_get32(f->raw + 56) != t->version)
    return bad(err, path, "corrupt trace: footer fields out of range");
  if (ppt_fmt_get32(f->raw + 60) != 0)
    return bad(err, path, "corrupt trace: reserved footer bytes 60..63 are not zero");
  return 0;
}

/* The chunk table: every entry in range, the chunks back to back up to the block table.
 * *sum continues the tables' checksum. */
static int read_chunk_table(ppt_trace *t, const footer *f, uint64_t *sum, ppt_err *err) {
  const char *path = t->path;
  size_t tsize = (size_t)f->nch * PPT_TRACE_CHUNK_ENTRY_SIZE;
  unsigned char *traw = malloc(tsize ? tsize : 1);
  t->nchunks = (size_t)f->nch;
  t->chunks = calloc(t->nchunks ? t->nchunks : 1, sizeof *t->chunks);
  if (!traw || !t->chunks) {
    free(traw);
    return ppt_err_set(err, PPT_ERUN, "%s: out of memory", path);
  }
  if (read_at(t->fd, traw, tsize, f->tab)) {
    free(traw);
    return bad(err, path, "truncated trace: chunk table unreadable");
  }
  *sum = ppt_fmt_fnv1a(*sum, traw, tsize);
  uint64_t prev_end = PPT_TRACE_HEADER_SIZE;
  uint32_t max_thread = 0;
  int rc = 0;
  for (size_t i = 0; i < t->nchunks && !rc; i++) {
    const unsigned char *e = traw + i * PPT_TRACE_CHUNK_ENTRY_SIZE;
    ppt_trace_chunk_info *c = &t->chunks[i];
    c->offset = ppt_fmt_get64(e);
    c->comp_size = ppt_fmt_get32(e + 8);
    c->raw_size = ppt_fmt_get32(e + 12);
    c->thread = ppt_fmt_get32(e + 16);
    c->seq = ppt_fmt_get32(e + 20);
    c->nrecs = ppt_fmt_get64(e + 24);
    c->nrefs = ppt_fmt_get64(e + 32);
    c->start_bb = ppt_fmt_get32(e + 40);
    c->start_k = ppt_fmt_get32(e + 44);
    /* Chunks are appended in table order, back to back. */
    if (c->offset != prev_end || c->comp_size == 0 || c->offset + c->comp_size > f->bboff ||
        c->raw_size == 0 || c->raw_size > PPT_TRACE_CHUNK_RAW_MAX || c->thread >= t->nthreads ||
        c->nrecs == 0 || c->nrecs > c->raw_size || c->nrefs > c->nrecs)
      rc = ppt_err_set(err, PPT_EINPUT, "%s: corrupt trace: chunk %zu entry out of range", path, i);
    /* A thread's first chunk starts its stream: the encoder starts with no block open. */
    else if (c->seq == 0 && (c->start_bb != 0 || c->start_k != 0))
      rc = ppt_err_set(err, PPT_EINPUT, "%s: corrupt trace: chunk %zu starts thread %u inside a block", path,
                       i, c->thread);
    if (c->thread > max_thread) max_thread = c->thread;
    if (c->comp_size > t->max_comp) t->max_comp = c->comp_size;
    if (c->raw_size > t->max_raw) t->max_raw = c->raw_size;
    if (c->nrecs > t->max_nrecs) t->max_nrecs = c->nrecs;
    prev_end = c->offset + c->comp_size;
  }
  free(traw);
  if (rc) return rc;
  if (prev_end != f->bboff) return bad(err, path, "corrupt trace: gap between chunks and block table");
  /* The footer's thread count is outside the checksum, and every model sizes per-thread
   * state (a simulated core, a cursor) by it: 4096 instead of 2 costs minutes. Threads are
   * numbered 0, 1, ... as their encoders are created, which the runtime does at a thread's
   * first record, so the count is the highest thread with a chunk plus one; a thread below
   * it without chunks is an empty stream (docs/trace-format.md, "Invariants"). */
  uint32_t used = t->nchunks ? max_thread + 1 : 0;
  if (t->nthreads != used)
    return ppt_err_set(err, PPT_EINPUT,
                       "%s: corrupt trace: footer says %u threads but the chunk table uses %u", path,
                       t->nthreads, used);
  return 0;
}

/* After the chunk table: the block table, the tables' checksum, and the per-thread index. */
static int read_tables(ppt_trace *t, const footer *f, ppt_err *err) {
  uint64_t sum = PPT_FMT_FNV_INIT;
  int rc = read_chunk_table(t, f, &sum, err);
  if (rc || (rc = load_bbtab(t, f->bboff, f->bbc, f->bbr, &sum, err))) return rc;
  if (sum != ppt_fmt_get64(f->raw + 48) || t->nbbs != ppt_fmt_get32(f->raw + 44))
    return bad(err, t->path, "corrupt trace: table checksum mismatch");
  for (size_t i = 0; i < t->nchunks; i++)
    if (t->chunks[i].start_bb > t->nbbs)
      return bad(err, t->path, "corrupt trace: chunk names an unknown block");
  return index_threads(t, err);
}

int ppt_trace_open(const char *path, ppt_trace **out, ppt_err *err) {
  ppt_trace *t = calloc(1, sizeof *t);
  if (!t) return ppt_err_set(err, PPT_ERUN, "%s: out of memory", path);
  t->fd = -1;
  t->path = strdup(path);
  int rc = 0;
  struct stat st;
  footer f;
  if (!t->path) {
    rc = ppt_err_set(err, PPT_ERUN, "%s: out of memory", path);
  } else if ((t->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
    rc = ppt_err_set(err, PPT_EINPUT, "%s: cannot open trace: %s", path, strerror(errno));
  } else if (fstat(t->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    rc = bad(err, path, "not a regular file");
  } else {
    t->file_bytes = (uint64_t)st.st_size;
    if (!(rc = read_header(t, err)) && !(rc = read_footer(t, &f, err))) rc = read_tables(t, &f, err);
  }
  if (!rc && !(t->irmem = malloc(((size_t)t->nbbs + 1) * sizeof *t->irmem)))
    rc = ppt_err_set(err, PPT_ERUN, "%s: out of memory", path);
  if (rc) {
    ppt_trace_close(t);
    return rc;
  }
  for (uint32_t i = 0; i < t->nbbs; i++) {
    t->irmem[i][0] = t->bbs[i].ops[PPT_OP_LOAD];
    t->irmem[i][1] = t->bbs[i].ops[PPT_OP_STORE];
    t->has_stack |= (t->bbs[i].stack_loads | t->bbs[i].stack_stores) != 0;
  }
  ppt_trace_set_stack_refs(t, 1);
  *out = t;
  return 0;
}

static uint16_t add16(uint16_t a, uint16_t b) {
  return (uint32_t)a + b > 0xFFFFu ? 0xFFFFu : (uint16_t)(a + b);
}

void ppt_trace_set_stack_refs(ppt_trace *t, int on) {
  t->stack_on = on != 0;
  for (uint32_t i = 0; i < t->nbbs; i++) {
    ppt_trace_bb *b = &t->bbs[i];
    b->ops[PPT_OP_LOAD] = add16(t->irmem[i][0], on ? b->stack_loads : 0);
    b->ops[PPT_OP_STORE] = add16(t->irmem[i][1], on ? b->stack_stores : 0);
  }
}
int ppt_trace_stack_refs(const ppt_trace *t) {
  return t->stack_on && t->has_stack;
}
void ppt_trace_batch_set_raw(ppt_trace_batch *b, int raw) {
  b->raw_only = raw != 0;
}

void ppt_trace_close(ppt_trace *t) {
  if (!t) return;
  if (t->fd >= 0) close(t->fd);
  free(t->path);
  free(t->chunks);
  free(t->thread_first);
  free(t->by_thread);
  free(t->thread_refs);
  free(t->thread_recs);
  free(t->bbs);
  free(t->strings);
  free(t->irmem);
  free(t);
}

const char *ppt_trace_path(const ppt_trace *t) {
  return t->path;
}
uint32_t ppt_trace_version(const ppt_trace *t) {
  return t->version;
}
uint32_t ppt_trace_nthreads(const ppt_trace *t) {
  return t->nthreads;
}
uint64_t ppt_trace_file_bytes(const ppt_trace *t) {
  return t->file_bytes;
}
size_t ppt_trace_nchunks(const ppt_trace *t) {
  return t->nchunks;
}
uint32_t ppt_trace_nbbs(const ppt_trace *t) {
  return t->nbbs;
}
int ppt_trace_has_forkjoin(const ppt_trace *t) {
  return (t->flags & PPT_TRACE_FLAG_FORKJOIN) != 0;
}

static uint64_t sum_threads(const ppt_trace *t, const uint64_t *v, uint32_t thread) {
  if (thread != UINT32_MAX) return thread < t->nthreads ? v[thread] : 0;
  uint64_t s = 0;
  for (uint32_t i = 0; i < t->nthreads; i++) s += v[i];
  return s;
}
uint64_t ppt_trace_nrefs(const ppt_trace *t, uint32_t th) {
  return sum_threads(t, t->thread_refs, th);
}
uint64_t ppt_trace_nrecs(const ppt_trace *t, uint32_t th) {
  return sum_threads(t, t->thread_recs, th);
}

const ppt_trace_chunk_info *ppt_trace_chunk(const ppt_trace *t, size_t i) {
  return i < t->nchunks ? &t->chunks[i] : NULL;
}
size_t ppt_trace_thread_nchunks(const ppt_trace *t, uint32_t th) {
  return th < t->nthreads ? t->thread_first[th + 1] - t->thread_first[th] : 0;
}
size_t ppt_trace_thread_chunk(const ppt_trace *t, uint32_t th, size_t k) {
  return t->by_thread[t->thread_first[th] + k];
}
const ppt_trace_bb *ppt_trace_bb_get(const ppt_trace *t, uint32_t id) {
  return id >= 1 && id <= t->nbbs ? &t->bbs[id - 1] : NULL;
}

uint64_t ppt_trace_batch_bytes(const ppt_trace *t) {
  /* a batch holds the largest chunk compressed, raw and decoded, and a zstd context */
  uint64_t most = (uint64_t)t->max_comp + t->max_raw + t->max_nrecs * sizeof(ppt_trace_rec);
  ZSTD_DCtx *d = ZSTD_createDCtx(); /* its size depends on the zstd build: ask one */
  size_t dsize = d ? ZSTD_sizeof_DCtx(d) : 0;
  ZSTD_freeDCtx(d);
  return most + dsize;
}

ppt_trace_batch *ppt_trace_batch_new(void) {
  ppt_trace_batch *b = calloc(1, sizeof *b);
  if (b && !(b->dctx = ZSTD_createDCtx())) {
    free(b);
    b = NULL;
  }
  return b;
}

void ppt_trace_batch_free(ppt_trace_batch *b) {
  if (!b) return;
  ZSTD_freeDCtx(b->dctx);
  free(b->comp);
  free(b->raw);
  free(b->recs);
  free(b->events);
  free(b->xrecs);
  free(b);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  void *n = realloc(*p, need * elem);
  if (!n) return -1;
  *p = n;
  *cap = need;
  return 0;
}

/* Decodes raw records (codec.h); the tight loop of every pass over a trace. */
int ppt_trace_decode_records(uint32_t nbbs, const ppt_trace_chunk_info *c, const unsigned char *p,
                             const unsigned char *end, ppt_trace_rec *r, ppt_trace_event **events,
                             size_t *ev_cap) {
  static const ppt_codec_site zero = {0, 0};
  ppt_codec_site sites[PPT_CODEC_SITES];
  for (unsigned i = 0; i < PPT_CODEC_SITES; i++) sites[i] = zero;
  uint32_t bb = c->start_bb, k = c->start_k;
  uint64_t n = 0, refs = 0, nrecs = c->nrecs, nev = 0;
  while (p < end) {
    if (n == nrecs) return -1;
    unsigned tag = *p++;
    unsigned kind = tag & 3;
    ppt_trace_rec *o = &r[n++];
    if (kind == PPT_REC_BB) {
      uint64_t id;
      if (tag != 0 || !(p = ppt_codec_get_varint(p, end, &id)) || id == 0 || id > nbbs) return -1;
      bb = (uint32_t)id;
      k = 0;
      *o = (ppt_trace_rec){.addr = 0, .bb = bb, .kind = PPT_REC_BB};
      continue;
    }
    if (kind == PPT_REC_EVENT) {
      unsigned type = (tag >> 2) & 15;
      if ((tag >> 6) || type >= PPT_EV_NTYPES || p >= end || *p > 5) return -1;
      if (nev == *ev_cap) {
        size_t ncap = *ev_cap ? 2 * *ev_cap : 64;
        ppt_trace_event *ne = realloc(*events, ncap * sizeof *ne);
        if (!ne) return -1;
        *events = ne;
        *ev_cap = ncap;
      }
      ppt_trace_event *ev = &(*events)[nev];
      ev->type = type;
      ev->nvals = *p++;
      for (unsigned i = 0; i < ev->nvals; i++) {
        uint64_t z;
        if (!(p = ppt_codec_get_varint(p, end, &z))) return -1;
        ev->v[i] = (int64_t)ppt_codec_unzigzag(z);
      }
      *o = (ppt_trace_rec){.addr = nev++, .bb = bb, .kind = PPT_REC_EVENT, .size = (uint8_t)type};
      continue;
    }
    unsigned lg = (tag >> 2) & 7, mode = tag >> 6;
    if (lg > PPT_CODEC_LG_MAX || mode == 3) return -1;
    ppt_codec_site *s = &sites[ppt_codec_site_of(bb, k++)];
    if (mode == PPT_CODEC_STRIDE) {
      s->last += s->delta;
    } else if (mode == PPT_CODEC_DELTA) {
      uint64_t z;
      if (!(p = ppt_codec_get_varint(p, end, &z))) return -1;
      uint64_t d = ppt_codec_unzigzag(z);
      s->last += d;
      s->delta = d;
    }
    *o = (ppt_trace_rec){.addr = s->last,
                         .bb = bb,
                         .kind = (uint8_t)kind,
                         .size = (uint8_t)(1u << lg),
                         .flags = (uint8_t)((tag >> 5) & 1)};
    refs++;
  }
  return n == nrecs && refs == c->nrefs ? 0 : -1;
}

int ppt_trace_chunk_load(const ppt_trace *t, size_t i, ppt_trace_batch *b, ppt_err *err) {
  if (i >= t->nchunks) return ppt_err_set(err, PPT_EINPUT, "%s: no chunk %zu", t->path, i);
  const ppt_trace_chunk_info *c = &t->chunks[i];
  if (grow((void **)&b->comp, &b->comp_cap, t->max_comp, 1) ||
      grow((void **)&b->raw, &b->raw_cap, t->max_raw, 1) ||
      grow((void **)&b->recs, &b->rec_cap, (size_t)t->max_nrecs, sizeof *b->recs))
    return ppt_err_set(err, PPT_ERUN, "%s: out of memory decoding chunk %zu", t->path, i);
  if (read_at(t->fd, b->comp, c->comp_size, c->offset))
    return ppt_err_set(err, PPT_EINPUT, "%s: truncated trace: chunk %zu unreadable", t->path, i);
  size_t got = ZSTD_decompressDCtx(b->dctx, b->raw, c->raw_size, b->comp, c->comp_size);
  if (ZSTD_isError(got) || got != c->raw_size)
    return ppt_err_set(err, PPT_EINPUT, "%s: corrupt trace: chunk %zu does not decompress (%s)", t->path, i,
                       ZSTD_isError(got) ? ZSTD_getErrorName(got) : "size mismatch");
  return 0;
}

int ppt_trace_chunk_records(const ppt_trace *t, size_t i, ppt_trace_batch *b, const ppt_trace_rec **recs,
                            size_t *n, ppt_err *err) {
  const ppt_trace_chunk_info *c = &t->chunks[i];
  if (ppt_trace_decode_records(t->nbbs, c, b->raw, b->raw + c->raw_size, b->recs, &b->events, &b->ev_cap))
    return ppt_err_set(err, PPT_EINPUT, "%s: corrupt trace: chunk %zu has malformed records", t->path, i);
  *recs = b->recs;
  *n = (size_t)c->nrecs;
  if (!b->raw_only && ppt_trace_stack_refs(t)) {
    size_t k = ppt_stackrefs_expand(t, c->thread, b->recs, *n, &b->xrecs, &b->xcap);
    if (k == SIZE_MAX) return ppt_err_set(err, PPT_ERUN, "%s: out of memory decoding chunk %zu", t->path, i);
    *recs = b->xrecs;
    *n = k;
  }
  return 0;
}

int ppt_trace_chunk_decode(const ppt_trace *t, size_t i, ppt_trace_batch *b, const ppt_trace_rec **recs,
                           size_t *n, ppt_err *err) {
  int rc = ppt_trace_chunk_load(t, i, b, err);
  return rc ? rc : ppt_trace_chunk_records(t, i, b, recs, n, err);
}

const ppt_trace_event *ppt_trace_batch_events(const ppt_trace_batch *b) {
  return b->events;
}

/* rt_cut.c — drop what a finished trace recorded after the last return of the region-of-
 * interest function (ppt trace --roi FUNCTION, rt.c).
 *
 * Whether a return of FUNCTION is its last is known only at exit. So the runtime cuts a
 * chunk boundary at every outermost return (every thread's encoder flushed, the file's
 * length noted) and keeps recording: what follows is inside the region if FUNCTION is
 * called again. At exit, if it was not, the chunks appended between the last cut and the
 * exit flush are removed here, from the closed file: the later chunks (the exit flush's
 * THREADS_ASKED event) move down, then the block table, chunk table and footer are
 * rewritten after them, so the chunks stay back to back as docs/trace-format.md requires.
 * The writer itself stays append-only and knows nothing of this. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/format.h"
#include "trace/runtime/rt.h"

static int rd(int fd, void *buf, size_t n, uint64_t off) {
  unsigned char *p = buf;
  while (n) {
    ssize_t r = pread(fd, p, n, (off_t)off);
    if (r <= 0) return -1;
    p += r;
    off += (uint64_t)r;
    n -= (size_t)r;
  }
  return 0;
}

static int wr(int fd, const void *buf, size_t n, uint64_t off) {
  const unsigned char *p = buf;
  while (n) {
    ssize_t r = pwrite(fd, p, n, (off_t)off);
    if (r <= 0) return -1;
    p += r;
    off += (uint64_t)r;
    n -= (size_t)r;
  }
  return 0;
}

/* Moves the chunks at offsets >= hi down to lo on, dropping those in [lo, hi); updates
 * the table in place. Returns the new end of the chunks, or 0 on an I/O error. */
static uint64_t compact(int fd, unsigned char *tab, uint64_t *nchunks, uint64_t lo, uint64_t hi,
                        uint32_t *nthreads) {
  uint64_t end = lo, w = 0;
  unsigned char *buf = NULL;
  *nthreads = 0;
  for (uint64_t i = 0; i < *nchunks; i++) {
    unsigned char *ent = tab + i * PPT_TRACE_CHUNK_ENTRY_SIZE;
    uint64_t off = ppt_fmt_get64(ent);
    uint32_t csize = ppt_fmt_get32(ent + 8);
    if (off >= lo && off < hi) continue;
    if (off >= hi) {
      unsigned char *nb = realloc(buf, csize ? csize : 1);
      if (!nb || rd(fd, nb, csize, off) || wr(fd, nb, csize, end)) {
        free(nb ? nb : buf);
        return 0;
      }
      buf = nb;
      ppt_fmt_put64(ent, end);
      end += csize;
    }
    uint32_t th = ppt_fmt_get32(ent + 16);
    if (th + 1 > *nthreads) *nthreads = th + 1;
    memmove(tab + w++ * PPT_TRACE_CHUNK_ENTRY_SIZE, ent, PPT_TRACE_CHUNK_ENTRY_SIZE);
  }
  free(buf);
  *nchunks = w;
  return end;
}

int ppt_rt_trace_cut(const char *path, uint64_t lo, uint64_t hi) {
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st;
  unsigned char f[PPT_TRACE_FOOTER_SIZE];
  unsigned char *tab = NULL, *bb = NULL;
  int rc = -1;
  if (fstat(fd, &st) || (uint64_t)st.st_size < PPT_TRACE_FOOTER_SIZE + hi ||
      rd(fd, f, sizeof f, (uint64_t)st.st_size - sizeof f) || memcmp(f, PPT_TRACE_FOOTER_MAGIC, 8))
    goto out;
  uint64_t toff = ppt_fmt_get64(f + 8), nchunks = ppt_fmt_get64(f + 16), bboff = ppt_fmt_get64(f + 24);
  uint32_t bbsize = ppt_fmt_get32(f + 32), nthreads;
  size_t tsize = (size_t)nchunks * PPT_TRACE_CHUNK_ENTRY_SIZE;
  tab = malloc(tsize ? tsize : 1);
  bb = malloc(bbsize ? bbsize : 1);
  if (!tab || !bb || rd(fd, tab, tsize, toff) || rd(fd, bb, bbsize, bboff)) goto out;
  uint64_t end = compact(fd, tab, &nchunks, lo, hi, &nthreads);
  if (!end) goto out;
  tsize = (size_t)nchunks * PPT_TRACE_CHUNK_ENTRY_SIZE;
  ppt_fmt_put64(f + 8, end + bbsize);
  ppt_fmt_put64(f + 16, nchunks);
  ppt_fmt_put64(f + 24, end);
  ppt_fmt_put32(f + 40, nthreads);
  ppt_fmt_put64(f + 48, ppt_fmt_fnv1a(ppt_fmt_fnv1a(PPT_FMT_FNV_INIT, tab, tsize), bb, bbsize));
  if (wr(fd, bb, bbsize, end) || (tsize && wr(fd, tab, tsize, end + bbsize)) ||
      wr(fd, f, sizeof f, end + bbsize + tsize) || ftruncate(fd, (off_t)(end + bbsize + tsize + sizeof f)))
    goto out;
  rc = 0;
out:
  free(tab);
  free(bb);
  if (close(fd)) rc = -1;
  return rc;
}

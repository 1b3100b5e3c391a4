/* ownheap.h — where the trace writer and the runtime take their memory.
 *
 * Inside a traced program (the runtime, libppt_rt: PPT_TRACE_OWN_HEAP) nothing of ppt may
 * touch the program's heap: its encoders, chunk table and zstd contexts would move the
 * program's own allocations and hand it recycled memory where an untraced run gets fresh
 * zeroed pages. A program that reads memory it never wrote then behaves differently traced
 * (Rodinia's particle filter overruns a buffer sized by such a read), and heap addresses,
 * hence cache sets, shift. So there every block is its own private anonymous mapping, its
 * size kept in front of it. Everywhere else (tools that write traces) it is libc's heap. */
#ifndef PPT_TRACE_OWNHEAP_H
#define PPT_TRACE_OWNHEAP_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#ifdef PPT_TRACE_OWN_HEAP
#include <sys/mman.h>

/* Room in front of a block for its mapping's length, keeping 16-byte alignment. */
#define PPT_OWNHEAP_HEAD 16u

static inline void *ppt_own_alloc(size_t n) {
  size_t len = n + PPT_OWNHEAP_HEAD;
  void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  memcpy(p, &len, sizeof len);
  return (char *)p + PPT_OWNHEAP_HEAD; /* fresh mappings are zero: calloc's contract too */
}

static inline void ppt_own_free(void *q) {
  if (!q) return;
  char *p = (char *)q - PPT_OWNHEAP_HEAD;
  size_t len;
  memcpy(&len, p, sizeof len);
  munmap(p, len);
}

static inline void *ppt_own_realloc(void *q, size_t n) {
  if (!q) return ppt_own_alloc(n);
  char *p = (char *)q - PPT_OWNHEAP_HEAD;
  size_t len;
  memcpy(&len, p, sizeof len);
  void *r = mremap(p, len, n + PPT_OWNHEAP_HEAD, MREMAP_MAYMOVE);
  if (r == MAP_FAILED) return NULL;
  len = n + PPT_OWNHEAP_HEAD;
  memcpy(r, &len, sizeof len);
  return (char *)r + PPT_OWNHEAP_HEAD;
}
#else
static inline void *ppt_own_alloc(size_t n) {
  return calloc(1, n ? n : 1);
}
static inline void ppt_own_free(void *q) {
  free(q);
}
static inline void *ppt_own_realloc(void *q, size_t n) {
  return realloc(q, n ? n : 1);
}
#endif

static inline char *ppt_own_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = (char *)ppt_own_alloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

#endif

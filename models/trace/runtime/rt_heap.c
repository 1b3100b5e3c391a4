/* rt_heap.c — wrappers around the C allocation functions the program calls (ppt-cc links
 * with -Wl,--wrap=SYMBOL, wrap-symbols.txt). A block allocated inside a parallel region
 * is the executing thread's own: with N threads there are N of them, in a sequential
 * trace one. The event (ppt_rt_heap_block) tells the SASMM mimic to give each mimicked
 * core its own copy, as it does the stack (docs/sasmm.md). Only the program's own calls
 * are wrapped: libc's and libomp's internal allocations are not seen, and the runtime's
 * memory is never the program's heap (trace/ownheap.h). free is not wrapped: the mimic
 * needs only where each private block begins, its size and when it was allocated.
 *
 * A separate archive member: pulled in by programs that allocate. */
#include <stddef.h>
#include <stdlib.h>

#include "trace/runtime/rt.h"

void *__real_malloc(size_t n);
void *__wrap_malloc(size_t n) {
  void *p = __real_malloc(n);
  ppt_rt_heap_block(p, n);
  return p;
}

void *__real_calloc(size_t k, size_t n);
void *__wrap_calloc(size_t k, size_t n) {
  void *p = __real_calloc(k, n);
  ppt_rt_heap_block(p, k * n); /* calloc failed (NULL) when k * n overflows */
  return p;
}

void *__real_realloc(void *q, size_t n);
void *__wrap_realloc(void *q, size_t n) {
  void *p = __real_realloc(q, n);
  ppt_rt_heap_block(p, n);
  return p;
}

void *__real_reallocarray(void *q, size_t k, size_t n);
void *__wrap_reallocarray(void *q, size_t k, size_t n) {
  void *p = __real_reallocarray(q, k, n);
  ppt_rt_heap_block(p, k * n);
  return p;
}

void *__real_aligned_alloc(size_t a, size_t n);
void *__wrap_aligned_alloc(size_t a, size_t n) {
  void *p = __real_aligned_alloc(a, n);
  ppt_rt_heap_block(p, n);
  return p;
}

void *__real_memalign(size_t a, size_t n);
void *__wrap_memalign(size_t a, size_t n) {
  void *p = __real_memalign(a, n);
  ppt_rt_heap_block(p, n);
  return p;
}

int __real_posix_memalign(void **out, size_t a, size_t n);
int __wrap_posix_memalign(void **out, size_t a, size_t n) {
  int rc = __real_posix_memalign(out, a, n);
  if (rc == 0) ppt_rt_heap_block(*out, n);
  return rc;
}

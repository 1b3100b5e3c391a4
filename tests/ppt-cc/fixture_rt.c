/* fixture_rt.c — a stand-in for the ppt runtime, used only by test_ppt_cc to check what
 * ppt-cc links: it numbers the SanitizerCoverage guards like the real runtime and, at
 * exit, checks that the linked ppt_bbtab section describes every guard exactly once. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "trace/bbdesc.h"

extern const struct ppt_bbdesc __start_ppt_bbtab[], __stop_ppt_bbtab[];

/* ppt-cc links with -Wl,--wrap for the allocation functions the real runtime wraps
 * (models/trace/runtime/rt_heap.c), this file's own calls included: a stand-in runtime
 * provides the wrappers too, passing straight through. */
void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n) {
  return __real_malloc(n);
}
void *__wrap_calloc(size_t k, size_t n) {
  return __real_calloc(k, n);
}
void *__wrap_realloc(void *p, size_t n) {
  return __real_realloc(p, n);
}

static uint32_t *guards_lo, *guards_hi;
static unsigned long block_hits;

void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop) {
  if (start == stop || *start)
    return;
  guards_lo = start;
  guards_hi = stop;
  uint32_t id = 0;
  for (uint32_t *g = start; g < stop; g++)
    *g = ++id;
}
void __sanitizer_cov_trace_pc_guard(uint32_t *guard) { block_hits += *guard != 0; }
void __sanitizer_cov_pcs_init(const uintptr_t *a, const uintptr_t *b) { (void)a, (void)b; }
#define MEMCB(n)                                                                               \
  void __sanitizer_cov_load##n(void *p) { (void)p; }                                           \
  void __sanitizer_cov_store##n(void *p) { (void)p; }
MEMCB(1) MEMCB(2) MEMCB(4) MEMCB(8) MEMCB(16)

/* ppt-cc's own callbacks for the accesses SanitizerCoverage leaves out (widemem.c). */
void __ppt_load32(const void *p) { (void)p; }
void __ppt_store32(const void *p) { (void)p; }
void __ppt_load64(const void *p) { (void)p; }
void __ppt_store64(const void *p) { (void)p; }
void __ppt_load_n(const void *p, uint64_t n, uint32_t lg) { (void)p, (void)n, (void)lg; }
void __ppt_store_n(const void *p, uint64_t n, uint32_t lg) { (void)p, (void)n, (void)lg; }
void __ppt_load_masked(const void *p, uint64_t n, uint32_t lg, uint64_t a) { (void)p, (void)n, (void)lg, (void)a; }
void __ppt_store_masked(const void *p, uint64_t n, uint32_t lg, uint64_t a) { (void)p, (void)n, (void)lg, (void)a; }
void __ppt_memcpy(void *d, const void *s, uint64_t n) { (void)d, (void)s, (void)n; }
void __ppt_memset(void *d, uint64_t n) { (void)d, (void)n; }

__attribute__((destructor)) static void fixture_report(void) {
  size_t n = (size_t)(__stop_ppt_bbtab - __start_ppt_bbtab);
  size_t nguards = (size_t)(guards_hi - guards_lo), bad = 0, dup = 0;
  unsigned char *seen = calloc(nguards + 1, 1);
  for (size_t i = 0; i < n; i++) {
    const struct ppt_bbdesc *d = &__start_ppt_bbtab[i];
    if (d->magic != PPT_BBDESC_MAGIC || d->guard < guards_lo || d->guard >= guards_hi) {
      bad++;
      continue;
    }
    dup += seen[d->guard - guards_lo]++ > 0;
  }
  free(seen);
  fprintf(stderr, "fixture: descs=%zu guards=%zu bad=%zu dup=%zu hits=%lu\n", n, nguards, bad,
          dup, block_hits);
}

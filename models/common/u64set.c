/* u64set.c — open-addressing set of 64-bit keys. Key 0 is stored out of band so the
 * table can use 0 as "empty" without a separate occupancy array. */
#include "ppt/u64set.h"

#include <stdlib.h>

struct ppt_u64set {
  uint64_t *slots;
  size_t mask, n;
  int has_zero;
};

static inline size_t slot_of(uint64_t k, size_t mask) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  return (size_t)k & mask;
}

ppt_u64set *ppt_u64set_new(void) {
  ppt_u64set *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->mask = 1023;
  s->slots = calloc(s->mask + 1, sizeof *s->slots);
  if (!s->slots) {
    free(s);
    return NULL;
  }
  return s;
}

void ppt_u64set_free(ppt_u64set *s) {
  if (!s) return;
  free(s->slots);
  free(s);
}

static int rehash(ppt_u64set *s) {
  size_t nmask = 2 * s->mask + 1;
  uint64_t *n = calloc(nmask + 1, sizeof *n);
  if (!n) return -1;
  for (size_t i = 0; i <= s->mask; i++) {
    uint64_t k = s->slots[i];
    if (!k) continue;
    size_t j = slot_of(k, nmask);
    while (n[j]) j = (j + 1) & nmask;
    n[j] = k;
  }
  free(s->slots);
  s->slots = n;
  s->mask = nmask;
  return 0;
}

int ppt_u64set_add(ppt_u64set *s, uint64_t key) {
  if (key == 0) {
    int added = !s->has_zero;
    s->has_zero = 1;
    return added;
  }
  size_t j = slot_of(key, s->mask);
  while (s->slots[j]) {
    if (s->slots[j] == key) return 0;
    j = (j + 1) & s->mask;
  }
  s->slots[j] = key;
  s->n++;
  /* Keep the load factor under 1/2 so probes stay short. */
  if (2 * s->n > s->mask && rehash(s)) return -1;
  return 1;
}

size_t ppt_u64set_size(const ppt_u64set *s) { return s->n + (size_t)s->has_zero; }

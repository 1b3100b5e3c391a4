/* u64set.c — the public ppt_u64set (include/ppt/u64set.h) as a thin layer over the
 * internal u64map. Only validation/bench/backscan.c still uses it: the project's own
 * code uses u64map directly. Once backscan does too, this file and the header go.
 * UINT64_MAX, the map's free-slot key, is kept out of band so every key can be added. */
#include "ppt/u64set.h"

#include <stdlib.h>

#include "u64map.h"

struct ppt_u64set {
  u64map map;
  int has_max;
};

ppt_u64set *ppt_u64set_new(void) {
  ppt_u64set *s = calloc(1, sizeof *s);
  if (s) u64map_init(&s->map);
  return s;
}

void ppt_u64set_free(ppt_u64set *s) {
  if (!s) return;
  u64map_free(&s->map);
  free(s);
}

int ppt_u64set_add(ppt_u64set *s, uint64_t key) {
  if (key == U64MAP_EMPTY) {
    int added = !s->has_max;
    s->has_max = 1;
    return added;
  }
  int added;
  return u64map_insert(&s->map, key, &added) == U64MAP_NONE ? -1 : added;
}

size_t ppt_u64set_size(const ppt_u64set *s) {
  return s->map.count + (size_t)s->has_max;
}

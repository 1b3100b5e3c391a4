/* select.c — choosing blocks by function name (e.g. the kernel functions Cachegrind is
 * compared over). */
#include <stdlib.h>
#include <string.h>

#include "ppt/trace.h"

uint8_t *ppt_trace_blocks_of_functions(const ppt_trace *t, const char *const *prefixes, size_t n) {
  uint32_t nbbs = ppt_trace_nbbs(t);
  uint8_t *c = calloc((size_t)nbbs + 1, 1);
  if (!c) return NULL;
  for (uint32_t id = 1; id <= nbbs; id++) {
    const char *f = ppt_trace_bb_get(t, id)->func;
    for (size_t p = 0; f && p < n && !c[id]; p++) c[id] = prefixes[p][0] && !strncmp(f, prefixes[p], strlen(prefixes[p]));
  }
  return c;
}

/* interleave.c — names of the interleavings the SASMM mimic and the trace-driven
 * simulation share (ppt_interleave, ppt/trace.h): one parser for every command. */
#include <string.h>

#include "ppt/trace.h"

const char *ppt_interleave_name(ppt_interleave il) {
  switch (il) {
    case PPT_INTERLEAVE_RR: return "rr";
    case PPT_INTERLEAVE_UNIFORM: return "uniform";
  }
  return NULL;
}

int ppt_interleave_parse(const char *s, ppt_interleave *out) {
  if (!s) return -1;
  if (!strcmp(s, "rr") || !strcmp(s, "round-robin")) {
    *out = PPT_INTERLEAVE_RR;
    return 0;
  }
  if (!strcmp(s, "uniform") || !strcmp(s, "random")) {
    *out = PPT_INTERLEAVE_UNIFORM;
    return 0;
  }
  return -1;
}

/* hwspec_q.h — the hwspec tests write their JSON with ' for " to keep it readable;
 * parse_q turns it back and parses it as "bad.json". */
#ifndef PPT_TESTS_HWSPEC_Q_H
#define PPT_TESTS_HWSPEC_Q_H

#include <stdlib.h>
#include <string.h>

#include "ppt/hwspec.h"

static inline char *dq(const char *s) {
  char *o = strdup(s);
  for (char *p = o; *p; p++)
    if (*p == '\'') *p = '"';
  return o;
}

static inline int parse_q(const char *spec, ppt_hwspec *hw, ppt_err *err) {
  char *j = dq(spec);
  memset(hw, 0, sizeof *hw);
  ppt_err_clear(err);
  int rc = ppt_hwspec_parse(j, "bad.json", hw, err);
  free(j);
  return rc;
}

#endif

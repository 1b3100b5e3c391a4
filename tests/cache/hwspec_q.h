/* hwspec_q.h — the hwspec tests write their JSON with ' for " to keep it readable;
 * parse_q turns it back and parses it as "bad.json"; check_bad_spec asserts its error. */
#ifndef PPT_TESTS_HWSPEC_Q_H
#define PPT_TESTS_HWSPEC_Q_H

#include <check.h>
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

/* A spec (written with ') that must fail with a one-line message starting with `key`. */
static inline void check_bad_spec(const char *what, const char *json, const char *key) {
  ppt_hwspec hw;
  ppt_err err;
  int rc = parse_q(json, &hw, &err);
  ck_assert_msg(rc == PPT_EINPUT, "%s: accepted (rc %d)", what, rc);
  ck_assert_int_eq(err.status, PPT_EINPUT);
  char *want = dq(key);
  ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0, "%s: got \"%s\", want prefix \"%s\"", what, err.msg,
                want);
  ck_assert_msg(strchr(err.msg, '\n') == NULL, "%s: message is not one line", what);
  free(want);
}

#endif

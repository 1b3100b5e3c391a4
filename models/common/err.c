/* err.c — the one-line error carrier (see include/ppt/err.h). */
#include "ppt/err.h"

#include <stdarg.h>
#include <stdio.h>

int ppt_err_set(ppt_err *err, ppt_status status, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    /* Messages are one line whatever a bad input puts in them (a JSON key, a file name):
     * control characters become '?'. */
    for (char *c = err->msg; *c; c++)
      if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    err->status = status;
  }
  return (int)status;
}

void ppt_err_clear(ppt_err *err) {
  if (err) {
    err->status = PPT_OK;
    err->msg[0] = '\0';
  }
}

/* ppt/err.h — error reporting shared by every ppt module.
 *
 * Functions that can fail return 0 on success or a nonzero ppt_status and fill a
 * caller-owned ppt_err. The message is one line that names the file (or object) and
 * the problem; the command line prints it as is. Nothing deep inside ppt prints. */
#ifndef PPT_ERR_H
#define PPT_ERR_H

#include <stddef.h>

/* The status doubles as the process exit code the CLI uses. */
typedef enum ppt_status {
  PPT_OK = 0,
  PPT_ERUN = 1,   /* failure while running (I/O error, out of memory, child crashed) */
  PPT_EINPUT = 2, /* bad usage or bad input (missing/corrupt file, invalid spec) */
} ppt_status;

typedef struct ppt_err {
  ppt_status status;
  char msg[512];
} ppt_err;

/* Sets err (if non-NULL) and returns status, so callers can `return ppt_err_set(...)`. */
int ppt_err_set(ppt_err *err, ppt_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Clears err to PPT_OK with an empty message. */
void ppt_err_clear(ppt_err *err);

#endif

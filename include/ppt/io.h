/* ppt/io.h — atomic output files and small I/O helpers.
 *
 * Every result ppt writes goes through ppt_io_atomic_*: data goes to a temporary file
 * in the destination's folder and is renamed over the destination only when complete,
 * so a crash or a full disk never leaves a half-written result behind. */
#ifndef PPT_IO_H
#define PPT_IO_H

#include <stdio.h>

#include "ppt/err.h"

typedef struct ppt_io_atomic ppt_io_atomic;

/* Opens a temporary file next to `path`. "-" means stdout (no atomicity needed). */
int ppt_io_atomic_open(const char *path, ppt_io_atomic **out, ppt_err *err);
/* The stream to write to. */
FILE *ppt_io_atomic_stream(ppt_io_atomic *a);
/* Flushes, fsyncs and renames into place; frees `a` whatever happens. */
int ppt_io_atomic_commit(ppt_io_atomic *a, ppt_err *err);
/* Discards the temporary file; frees `a`. Safe on NULL. */
void ppt_io_atomic_abort(ppt_io_atomic *a);
/* Writes a whole string atomically. */
int ppt_io_write_file(const char *path, const char *text, ppt_err *err);
/* The folder of the running executable (/proc/self/exe), for the helper programs and
 * archives installed next to it; PPT_ERUN when it cannot be read or does not fit. */
int ppt_io_exe_dir(char *dir, size_t size, ppt_err *err);

#endif

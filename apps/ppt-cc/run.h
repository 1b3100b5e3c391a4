/* run.h — running clang and other children, and ppt-cc's own temporary folder.
 *
 * ppt-cc keeps SIGINT/SIGTERM/SIGHUP/SIGQUIT blocked while it runs (children get the
 * original mask), so an interrupted build never leaves its temporary folder behind: the
 * caller cleans up first, then pcc_run_finish lets the pending signal take effect. */
#ifndef PCC_RUN_H
#define PCC_RUN_H

#include <signal.h>

#include "ppt/err.h"

typedef struct pcc_runner {
  sigset_t child_mask; /* the mask ppt-cc started with */
  sigset_t blocked;    /* the termination signals held back meanwhile */
  int verbose;         /* echo each command to stderr (PPT_CC_VERBOSE) */
  int child_signal;    /* last child that died from a signal: its number */
} pcc_runner;

/* Blocks the termination signals and records the original mask. */
void pcc_run_init(pcc_runner *r, int verbose);
/* Runs argv (argv[0] looked up in PATH, no shell) and waits. On success *code is the exit
 * status (128 + signal if the child was killed). Fails only if it could not be started. */
int pcc_run(pcc_runner *r, char *const argv[], int *code, ppt_err *err);
/* pcc_run with the child's stdout and stderr sent to /dev/null (a helper whose
 * messages would only clutter the build: llvm-mca's warnings on ret and call). */
int pcc_run_quiet(pcc_runner *r, char *const argv[], int *code, ppt_err *err);
/* Nonzero when a termination signal is pending or a child was killed by one: stop now. */
int pcc_run_interrupted(pcc_runner *r);
/* Restores the original mask; a pending (or a child's) termination signal then ends the
 * process as it would have without ppt-cc. Returns when there was none. */
void pcc_run_finish(pcc_runner *r);

/* A private temporary folder under $TMPDIR (or /tmp). */
typedef struct pcc_tmpdir {
  char path[4096];
  unsigned seq; /* for unique file names */
} pcc_tmpdir;

int pcc_tmpdir_make(pcc_tmpdir *t, ppt_err *err);
/* "<dir>/<seq>-<stem><suffix>", malloc'd (NULL when out of memory). */
char *pcc_tmpdir_file(pcc_tmpdir *t, const char *stem, const char *suffix);
/* Removes the folder and everything in it (unless keep: then says where it is). */
void pcc_tmpdir_remove(pcc_tmpdir *t, int keep);

#endif

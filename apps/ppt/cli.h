/* cli.h — what every ppt subcommand shares: the command table, option parsing helpers,
 * error printing and the stderr progress bar. */
#ifndef PPT_CLI_H
#define PPT_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "ppt/err.h"
#include "ppt/trace.h"

/* A subcommand: argv[0] is the subcommand name. Returns the process exit code. */
typedef int (*ppt_cli_fn)(int argc, char **argv);

typedef struct ppt_cli_cmd {
  const char *name;
  ppt_cli_fn run;
  const char *summary;
} ppt_cli_cmd;

/* Subcommands (one file each). */
int ppt_cmd_trace(int argc, char **argv);
int ppt_cmd_info(int argc, char **argv);
int ppt_cmd_reuse(int argc, char **argv);
int ppt_cmd_hitrate(int argc, char **argv);
int ppt_cmd_cachesim(int argc, char **argv);
int ppt_cmd_hwspec(int argc, char **argv);
int ppt_cmd_sasmm(int argc, char **argv);
int ppt_cmd_predict(int argc, char **argv);
int ppt_cmd_calibrate(int argc, char **argv);

/* Prints "ppt CMD: message" on stderr and returns err->status (1 or 2). */
int ppt_cli_fail(const char *cmd, const ppt_err *err);
/* Prints a usage error ("ppt CMD: message; see 'ppt CMD --help'") and returns 2. */
int ppt_cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parses an unsigned integer option value; returns 0 on success. */
int ppt_cli_parse_u64(const char *s, uint64_t *out);
int ppt_cli_parse_double(const char *s, double *out);
/* "1,2,4,8": up to max core counts in 1..4095. Returns 0 or -1. */
int ppt_cli_parse_cores(const char *s, uint32_t *v, size_t max, size_t *n);
/* "static", "static,C", "dynamic[,C]", "guided[,C]" to a ppt_sched and chunk. */
int ppt_cli_parse_schedule(const char *s, int *sched, int64_t *chunk);

/* counted[b] = 1 for the blocks b (1..nbbs) whose function starts with one of the
 * comma-separated prefixes; malloc'd, NULL when out of memory. */
uint8_t *ppt_cli_counted_blocks(const ppt_trace *t, const char *prefixes);

/* Progress bar on stderr, drawn only when stderr is a terminal. */
typedef struct ppt_cli_progress ppt_cli_progress;
ppt_cli_progress *ppt_cli_progress_start(const char *label, uint64_t total);
void ppt_cli_progress_update(ppt_cli_progress *p, uint64_t done);
void ppt_cli_progress_end(ppt_cli_progress *p);

#endif

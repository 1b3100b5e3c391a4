/* cli.h — what every ppt subcommand shares: the command table, the options several
 * commands take (parsed in one place, cli_opts.c), option-value helpers, error printing,
 * output helpers and the stderr progress bar (cli.c). */
#ifndef PPT_CLI_H
#define PPT_CLI_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "ppt/err.h"
#include "ppt/hwspec.h"
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
int ppt_cmd_annotate(int argc, char **argv);
int ppt_cmd_sweep(int argc, char **argv);
int ppt_cmd_extrapolate(int argc, char **argv);
int ppt_cmd_predict(int argc, char **argv);
int ppt_cmd_calibrate(int argc, char **argv);

/* ---- options shared by several commands (cli_opts.c) ----
 *
 * Each is spelled, checked and reported in one place; a command names the ones it takes
 * in its ppt_cli_spec and handles only its own options. */
enum {
  PPT_OPT_HW = 1u << 0,          /* --hw SPEC; required by every command that takes it */
  PPT_OPT_CORES = 1u << 1,       /* --cores LIST: ppt_sasmm_cores_parse's, default 1,2,4,8,16 */
  PPT_OPT_ONLY = 1u << 2,        /* --only PREFIXES: repeatable, the prefixes add up */
  PPT_OPT_INTERLEAVE = 1u << 3,  /* --interleave rr|uniform (default rr) */
  PPT_OPT_INTERLEAVES = 1u << 4, /* --interleave LIST: rr, uniform or both, in order */
  PPT_OPT_SEED = 1u << 5,        /* --seed S (default 1) */
  PPT_OPT_JSON = 1u << 6,        /* --json */
  PPT_OPT_OUTPUT = 1u << 7,      /* -o, --output FILE (non-empty) */
  PPT_OPT_PLOT = 1u << 8,        /* --plot FILE */
  PPT_OPT_SET = 1u << 9,         /* --set KEY=VALUE: repeatable, changes the --hw spec */
  PPT_OPT_SETS = 1u << 10,       /* --set KEY=V1,V2,...: the same with lists (ppt sweep) */
  PPT_OPT_NOSTACK = 1u << 11,    /* --no-stack-refs: the trace's IR references only */
};

#define PPT_CLI_MAX_CORES 64
#define PPT_CLI_MAX_ONLY 64
#define PPT_CLI_MAX_SET 16
/* ppt_cli_parse's return after printing --help: the command exits 0. */
#define PPT_CLI_HELP (-1)

/* The shared settings, defaults filled in by ppt_cli_parse. */
typedef struct ppt_cli_common {
  const char *hw;                    /* --hw; never NULL after a successful parse */
  uint32_t cores[PPT_CLI_MAX_CORES]; /* --cores */
  size_t ncores;
  const char *only[PPT_CLI_MAX_ONLY]; /* --only's prefixes, in the order given */
  size_t nonly;
  char *only_list;                  /* --only's values as given, comma-joined; NULL if none */
  ppt_interleave interleave[2];     /* --interleave, in the order given */
  size_t ninterleave;               /* 1, or 2 with PPT_OPT_INTERLEAVES */
  uint64_t seed;                    /* --seed */
  int json;                         /* --json */
  int no_stack_refs;                /* --no-stack-refs */
  const char *output;               /* -o; NULL if not given */
  const char *plot;                 /* --plot; NULL if not given */
  const char *set[PPT_CLI_MAX_SET]; /* --set values as given, in order */
  size_t nset;
  const char *operand; /* the one operand, when the spec names one */
  char **rest;         /* argv after the options (NULL-terminated) */
  int nrest;
  char *only_text[PPT_CLI_MAX_ONLY]; /* private: --only values, split in place */
  size_t nonly_text;
} ppt_cli_common;

/* How a command reads its command line. */
typedef struct ppt_cli_spec {
  const char *cmd;          /* the name in messages: "ppt CMD: ..." */
  unsigned shared;          /* the PPT_OPT_* it takes */
  const struct option *own; /* its own long options, {0}-terminated, or NULL. Their val must
                             * be below 256 and not 'h'; val 'o' is the shared -o under
                             * another long name (sasmm's --profiles) */
  const char *own_short;    /* its own short options for getopt ("t:"), or NULL */
  /* Takes one of its own options (val, optarg); returns 0 or ppt_cli_usage's code.
   * NULL when it has none. */
  int (*take)(void *args, int val, const char *value);
  void (*help)(void);
  /* "TRACE": exactly one operand, anywhere among the options. NULL: the options end at
   * the first operand, and the rest is the command's (ppt trace's PROGRAM ARGS). */
  const char *operand;
  /* With `operand`: zero operands are allowed too (c->operand NULL): ppt hwspec --list's
   * folder has a default. */
  int operand_optional;
} ppt_cli_spec;

/* Runs getopt over argv: shared options into *c, the command's own through spec->take
 * (with args), then checks the operand count and that --hw was given. Returns 0,
 * PPT_CLI_HELP after printing the help, or the exit code of a usage error, whose one
 * line it printed. On 0, release *c with ppt_cli_common_free. */
int ppt_cli_parse(const ppt_cli_spec *spec, int argc, char **argv, ppt_cli_common *c, void *args);
void ppt_cli_common_free(ppt_cli_common *c);

/* Loads --hw and applies each --set in order (ppt_hwspec_set): PPT_EINPUT names the file
 * or the setting. */
int ppt_cli_load_hw(const ppt_cli_common *c, ppt_hwspec *hw, ppt_err *err);
/* The same for one spec file of a list (predict and sweep take --hw A.json,B.json). */
int ppt_cli_load_hw_file(const ppt_cli_common *c, const char *path, ppt_hwspec *hw, ppt_err *err);
/* One setting (ppt_hwspec_set) on the spec read from path; its error names path. */
int ppt_cli_set_hw(const char *path, ppt_hwspec *hw, const char *setting, ppt_err *err);
/* Splits "a,b,c" in place into v[0..*n) (at most max); 0, or -1 on an empty item or too
 * many. */
int ppt_cli_split_list(char *s, const char **v, size_t max, size_t *n);
#define PPT_CLI_SET_HELP                                                                       \
  "  --set KEY=VALUE        change one figure of SPEC, repeatable: L2.size=256K, L1.ways=4,\n" \
  "                         L3.shared_by=8, line=128 (every level), dram.latency_ns=90, ...\n" \
  "                         (any key of the hwspec file; docs/hwspec.md, \"Settings\")\n"

/* --only's lines in every command's --help (the selector language of ppt_trace_select). */
#define PPT_CLI_ONLY_HELP                                                                        \
  "  --only SEL[,SEL...]    count only the blocks a selector matches (everything is still\n"     \
  "                         simulated): FUNC (name prefix, or a glob with * ? []), FILE:FUNC,\n" \
  "                         FILE:LINE or FILE:FIRST-LAST; e.g. kernel_,.omp_outlined. or\n"      \
  "                         jacobi.c:.omp_outlined. or jacobi.c:40-52; a block belongs to the\n" \
  "                         functions its code was inlined from too; a list is a union: a\n"    \
  "                         selector that matches no block is named on stderr, a list that\n"  \
  "                         matches none is an error ('ppt info --blocks' lists the blocks)\n"
/* --no-stack-refs in every command's --help. */
#define PPT_CLI_NOSTACK_HELP                                                                     \
  "  --no-stack-refs        leave out the stack references of the machine code (spills, stack\n" \
  "                         arguments, push/pop, call/ret) that ppt-cc measured per block\n"
/* Applies --no-stack-refs to a trace just opened (ppt_trace_set_stack_refs). */
void ppt_cli_stack_refs(const ppt_cli_common *c, ppt_trace *t);
/* The --only selection of t's blocks (ppt_trace_select): *out NULL when no --only was
 * given; a line on stderr for each selector that matches no block; PPT_EINPUT when the
 * whole list matches none. */
int ppt_cli_counted(const ppt_cli_common *c, const ppt_trace *t, uint8_t **out, ppt_err *err);
/* Opens the sequential trace that sasmm, predict and annotate mimic cores from: a trace
 * of N > 1 threads (from `ppt trace --threads N`, or a program that set its own thread
 * count) is bad input, named with its N, instead of a prediction from thread 0 alone. */
int ppt_cli_open_sequential(const char *path, ppt_trace **out, ppt_err *err);
/* Refuses (PPT_EINPUT, one line naming --cores, the estimate and what limits it) a run
 * that would need more memory than this process can get (MemAvailable, the cgroup's
 * memory.max, ulimit -v), by the memory model of docs/sasmm.md "Memory": the `at_once`
 * largest of --cores (x --interleave) simulated at the same time, each with the nhw specs hw[]
 * (a sweep's hierarchies). Better than an OOM kill. */
/* Memory this process may still take: the least of MemAvailable, the cgroup's limit less
 * its use, and the address-space limit (*what says which); UINT64_MAX when none is known. */
uint64_t ppt_cli_memory_available(const char **what);
int ppt_cli_check_memory(const ppt_cli_common *c, const ppt_trace *t, const ppt_hwspec *hw, size_t nhw,
                         size_t at_once, ppt_err *err);
/* --interleave as text: the names of c->interleave joined by ',' ("rr,uniform"). */
void ppt_cli_interleave_text(const ppt_cli_common *c, char *buf, size_t cap);

/* ---- option values and messages (cli.c) ---- */

/* Prints "ppt CMD: message" on stderr and returns err->status (1 or 2). */
int ppt_cli_fail(const char *cmd, const ppt_err *err);
/* Prints a usage error ("ppt CMD: message; see 'ppt CMD --help'") and returns 2. */
int ppt_cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parses an unsigned integer option value; returns 0 on success. */
int ppt_cli_parse_u64(const char *s, uint64_t *out);
int ppt_cli_parse_double(const char *s, double *out);
/* "static", "static,C", "[monotonic:|nonmonotonic:]dynamic[,C]", "guided[,C]", "auto" to a
 * ppt_sched (with PPT_SCHED_NONMONOTONIC as clang compiles the pragma) and chunk. */
int ppt_cli_parse_schedule(const char *s, int *sched, int64_t *chunk);
/* The name of a --schedule value (a ppt_sched, or -1: "recorded"). */
const char *ppt_cli_schedule_name(int sched);

/* The same, checked and reported as a usage error of CMD: 0 or 2. */
int ppt_cli_take_fraction(const char *cmd, const char *opt, const char *s, double *out);
int ppt_cli_take_schedule(const char *cmd, const char *s, int *sched, int64_t *chunk);
/* --threads T of the commands that run tasks on worker threads: 1..256. */
int ppt_cli_take_threads(const char *cmd, const char *s, uint64_t *out);

/* ---- a command's steps (cli.c) ----
 *
 * Every command is parse_args -> run -> write (table or JSON on stdout, then files) ->
 * release. ppt_cli_main runs the steps, so that exit codes and the one error line on
 * stderr come out the same way for all commands. A command's args struct starts with
 * its ppt_cli_common (ppt_cli_main reads --json there and frees it). */
typedef struct ppt_cli_steps {
  const char *cmd;
  /* 0, PPT_CLI_HELP or a usage error's exit code (its message printed). */
  int (*parse_args)(int argc, char **argv, void *args);
  /* The remaining steps return 0, or a ppt_err status with err saying why. */
  int (*run)(void *args, void *results, ppt_err *err);
  int (*write_table)(void *args, void *results, ppt_err *err); /* NULL: run printed it */
  int (*write_json)(void *args, void *results, ppt_err *err);  /* with --json */
  int (*write_files)(void *args, void *results, ppt_err *err); /* -o, --plot; may be NULL */
  /* Frees what run left in results, also after a failure; may be NULL. */
  void (*release)(void *results);
} ppt_cli_steps;

/* Runs the steps on args and results, both zeroed by the caller (parse_args and run
 * fill in only what they set); returns the process exit code. */
int ppt_cli_main(const ppt_cli_steps *s, int argc, char **argv, void *args, void *results);

/* ---- output (cli.c) ---- */

struct json_object;
/* Prints o with json-c's FLAGS and a newline on stdout and releases it; o NULL (out of
 * memory) sets err instead. Returns 0 or PPT_ERUN. */
/* --plot: runs gnuplot on `script` (after the terminal, a temporary output and the title
 * "CMD: TITLE"), renames the image to path (atomic), removes `data` (the script's data
 * file). Failures name their cause: gnuplot missing, the folder unwritable (full disk,
 * read-only: the system's reason, from a write of our own), or gnuplot's exit status. */
int ppt_cli_gnuplot(const char *path, const char *data, const char *script, const char *cmd,
                    const char *title, ppt_err *err);
/* The name of a second plot beside --plot PATH: "a.png" and "levels" give "a-levels.png". */
void ppt_cli_plot_sibling(const char *path, const char *suffix, char *out, size_t cap);
/* Closes a plot's data file; on a write error removes tmp and says why (for path). */
int ppt_cli_close_data(FILE *f, const char *tmp, const char *path, ppt_err *err);
int ppt_cli_put_json(struct json_object *o, int flags, ppt_err *err);
/* {"trace": c->operand, "hwspec": c->hw, "settings": settings}: how the JSON of the
 * commands that run a trace on a spec starts. */
struct json_object *ppt_cli_json_head(const ppt_cli_common *c, struct json_object *settings);
/* A rate as JSON: null for NaN (a level no reference reached). */
struct json_object *ppt_cli_json_rate(double v);
/* A rate in a table column: " %10.6f", or " -" right-aligned when not finite. */
void ppt_cli_put_rate(double x);

/* Progress bar on stderr, drawn only when stderr is a terminal. */
typedef struct ppt_cli_progress ppt_cli_progress;
ppt_cli_progress *ppt_cli_progress_start(const char *label, uint64_t total);
void ppt_cli_progress_update(ppt_cli_progress *p, uint64_t done);
void ppt_cli_progress_end(ppt_cli_progress *p);
/* ppt_cli_progress_update as a library progress callback (arg: the bar). */
void ppt_cli_progress_cb(uint64_t done, void *arg);

#endif

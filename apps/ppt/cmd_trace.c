/* cmd_trace.c — `ppt trace`: run a ppt-cc-built program and keep its trace.
 *
 * The runtime inside the program writes to a temporary name we choose; only when the
 * program has exited and the trace opens cleanly is it renamed to the requested output,
 * so a crash never leaves a half-written trace under the user's name. */
#include <errno.h>
#include <json-c/json.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "ppt/trace.h"

extern char **environ;

static void help(void) {
  printf(
      "usage: ppt trace [-o FILE] [--threads N] [--json] -- PROGRAM [ARGS...]\n\n"
      "Runs PROGRAM (built with ppt-cc) and records every basic-block entry, load and store\n"
      "of every thread into a compressed trace (docs/trace-format.md).\n\n"
      "  -o, --output FILE  trace file to write (default: ppt.trace)\n"
      "  -t, --threads N    OpenMP threads (OMP_NUM_THREADS); default 1, the SASMM input\n"
      "      --json         print a JSON summary on stdout\n"
      "  -h, --help         this help\n\n"
      "Exit status: PROGRAM's failure or a lost trace gives 1; bad usage gives 2.\n");
}

typedef struct args {
  ppt_cli_common c; /* -o, --json; c.rest: PROGRAM ARGS */
  uint64_t threads;
  const char *out;
} args;

typedef struct results {
  int status; /* PROGRAM's exit status */
  uint64_t refs, bytes;
  uint32_t threads;
} results;

static int take(void *arg, int val, const char *value) {
  args *a = arg;
  (void)val; /* --threads, the only one */
  if (ppt_cli_parse_u64(value, &a->threads) || a->threads < 1 || a->threads > 4096)
    return ppt_cli_usage("trace", "--threads wants a number from 1 to 4096, not '%s'", value);
  return 0;
}

static int parse_args(int argc, char **argv, void *va) {
  static const struct option own[] = {{"threads", required_argument, 0, 't'}, {0, 0, 0, 0}};
  static const ppt_cli_spec spec = {.cmd = "trace",
                                    .shared = PPT_OPT_OUTPUT | PPT_OPT_JSON,
                                    .own = own,
                                    .own_short = "t:",
                                    .take = take,
                                    .help = help};
  args *a = va;
  a->threads = 1;
  int rc = ppt_cli_parse(&spec, argc, argv, &a->c, a);
  if (!rc && !a->c.nrest) {
    ppt_cli_common_free(&a->c);
    return ppt_cli_usage("trace", "no program given (ppt trace [options] -- PROGRAM ARGS...)");
  }
  a->out = a->c.output ? a->c.output : "ppt.trace";
  return rc;
}

/* Runs PROGRAM with the runtime writing its trace to tmp; *st: its wait status. */
static int spawn(const args *a, const char *tmp, int *st, ppt_err *err) {
  char **prog = a->c.rest, tbuf[32];
  snprintf(tbuf, sizeof tbuf, "%llu", (unsigned long long)a->threads);
  setenv("PPT_TRACE_FILE", tmp, 1);
  setenv("OMP_NUM_THREADS", tbuf, 1);
  pid_t pid;
  int rc = posix_spawnp(&pid, prog[0], NULL, NULL, prog, environ);
  unsetenv("PPT_TRACE_FILE");
  if (rc != 0) return ppt_err_set(err, PPT_EINPUT, "%s: cannot run: %s", prog[0], strerror(rc));
  while (waitpid(pid, st, 0) < 0 && errno == EINTR) {
  }
  return 0;
}

/* Checks the trace PROGRAM left in tmp and renames it to the output (tmp removed on a
 * failure). */
static int keep(const args *a, const char *tmp, int st, results *r, ppt_err *err) {
  const char *prog = a->c.rest[0];
  int rc = 0;
  ppt_trace *t;
  if (WIFSIGNALED(st)) {
    rc = ppt_err_set(err, PPT_ERUN, "%s: killed by signal %d; no trace written", prog, WTERMSIG(st));
  } else if (access(tmp, F_OK) != 0) {
    /* A program that failed may have died before its first reference; one that exited
     * cleanly without a trace was not built with ppt-cc, bad input. */
    return ppt_err_set(err, WEXITSTATUS(st) ? PPT_ERUN : PPT_EINPUT,
                       "%s: no trace was written (was it built with ppt-cc?)", prog);
  } else if (ppt_trace_open(tmp, &t, err)) {
    ppt_err e = *err;
    rc = ppt_err_set(err, PPT_ERUN, "%s: the trace is unusable: %s", prog, e.msg);
  } else {
    r->refs = ppt_trace_nrefs(t, UINT32_MAX);
    r->bytes = ppt_trace_file_bytes(t);
    r->threads = ppt_trace_nthreads(t);
    r->status = WEXITSTATUS(st);
    ppt_trace_close(t);
    if (rename(tmp, a->out) != 0)
      rc = ppt_err_set(err, PPT_ERUN, "%s: cannot rename into place: %s", a->out, strerror(errno));
  }
  if (rc) unlink(tmp);
  return rc;
}

static int run(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  size_t n = strlen(a->out) + 16;
  char *tmp = malloc(n);
  if (!tmp) return ppt_err_set(err, PPT_ERUN, "out of memory");
  snprintf(tmp, n, "%s.tmp%ld", a->out, (long)getpid());
  int st, rc = spawn(a, tmp, &st, err);
  if (!rc) rc = keep(a, tmp, st, vr, err);
  free(tmp);
  return rc;
}

static double bytes_per_ref(const results *r) {
  return r->refs ? (double)r->bytes / (double)r->refs : 0;
}

/* The trace is kept when PROGRAM failed, but the failure is ppt trace's too. */
static int exit_status(const args *a, const results *r, ppt_err *err) {
  if (!r->status) return 0;
  return ppt_err_set(err, PPT_ERUN, "%s exited with status %d (trace kept)", a->c.rest[0], r->status);
}

static int write_json(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  const results *r = vr;
  json_object *o = json_object_new_object();
  json_object_object_add(o, "trace", json_object_new_string(a->out));
  json_object_object_add(o, "refs", json_object_new_int64((int64_t)r->refs));
  json_object_object_add(o, "threads", json_object_new_int64(r->threads));
  json_object_object_add(o, "file_bytes", json_object_new_int64((int64_t)r->bytes));
  json_object_object_add(o, "bytes_per_ref", json_object_new_double(bytes_per_ref(r)));
  json_object_object_add(o, "exit_status", json_object_new_int(r->status));
  int rc = ppt_cli_put_json(o, JSON_C_TO_STRING_PRETTY, err);
  return rc ? rc : exit_status(a, r, err);
}

/* The summary goes to stderr: stdout stays the traced program's. */
static int write_table(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  const results *r = vr;
  fprintf(stderr, "ppt trace: wrote %s: %llu references, %u thread%s, %llu bytes (%.3f B/ref)\n", a->out,
          (unsigned long long)r->refs, r->threads, r->threads == 1 ? "" : "s", (unsigned long long)r->bytes,
          bytes_per_ref(r));
  return exit_status(a, r, err);
}

int ppt_cmd_trace(int argc, char **argv) {
  static const ppt_cli_steps steps = {"trace", parse_args, run, write_table, write_json, NULL, NULL};
  return ppt_cli_main(&steps, argc, argv, &(args){0}, &(results){0});
}

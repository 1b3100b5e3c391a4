/* cmd_trace.c — `ppt trace`: run a ppt-cc-built program and keep its trace.
 *
 * The runtime inside the program writes to a temporary name we choose; only when the
 * program has exited and the trace opens cleanly is it renamed to the requested output,
 * so a crash never leaves a half-written trace under the user's name. */
#include <errno.h>
#include <getopt.h>
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

int ppt_cmd_trace(int argc, char **argv) {
  const char *out = "ppt.trace";
  uint64_t threads = 1;
  int json = 0;
  static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                       {"threads", required_argument, 0, 't'},
                                       {"json", no_argument, 0, 'j'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  optind = 1;
  int c;
  opterr = 0; /* one message line, ours */
  while ((c = getopt_long(argc, argv, "+o:t:h", opts, NULL)) != -1) {
    switch (c) {
      case 'o': out = optarg; break;
      case 't':
        if (ppt_cli_parse_u64(optarg, &threads) || threads < 1 || threads > 4096)
          return ppt_cli_usage("trace", "--threads wants a number from 1 to 4096, not '%s'", optarg);
        break;
      case 'j': json = 1; break;
      case 'h': help(); return 0;
      default: return ppt_cli_usage("trace", "unknown option or missing value in '%s'", argv[optind - 1]);
    }
  }
  if (optind >= argc) return ppt_cli_usage("trace", "no program given (ppt trace [options] -- PROGRAM ARGS...)");
  char **prog = argv + optind;

  size_t n = strlen(out) + 16;
  char *tmp = malloc(n);
  char tbuf[32];
  if (!tmp) return 1;
  snprintf(tmp, n, "%s.tmp%ld", out, (long)getpid());
  snprintf(tbuf, sizeof tbuf, "%llu", (unsigned long long)threads);
  setenv("PPT_TRACE_FILE", tmp, 1);
  setenv("OMP_NUM_THREADS", tbuf, 1);
  pid_t pid;
  int rc = posix_spawnp(&pid, prog[0], NULL, NULL, prog, environ);
  unsetenv("PPT_TRACE_FILE");
  if (rc != 0) {
    fprintf(stderr, "ppt trace: %s: cannot run: %s\n", prog[0], strerror(rc));
    free(tmp);
    return 2;
  }
  int st;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(st)) {
    fprintf(stderr, "ppt trace: %s: killed by signal %d; no trace written\n", prog[0], WTERMSIG(st));
    unlink(tmp);
    free(tmp);
    return 1;
  }
  if (access(tmp, F_OK) != 0) {
    fprintf(stderr, "ppt trace: %s: no trace was written (was it built with ppt-cc?)\n", prog[0]);
    free(tmp);
    return WEXITSTATUS(st) ? 1 : 2;
  }
  ppt_trace *t;
  ppt_err err;
  if (ppt_trace_open(tmp, &t, &err)) {
    fprintf(stderr, "ppt trace: %s: the trace is unusable: %s\n", prog[0], err.msg);
    unlink(tmp);
    free(tmp);
    return 1;
  }
  uint64_t refs = ppt_trace_nrefs(t, UINT32_MAX), bytes = ppt_trace_file_bytes(t);
  uint32_t nth = ppt_trace_nthreads(t);
  ppt_trace_close(t);
  if (rename(tmp, out) != 0) {
    fprintf(stderr, "ppt trace: %s: cannot rename into place: %s\n", out, strerror(errno));
    unlink(tmp);
    free(tmp);
    return 1;
  }
  free(tmp);
  double bpr = refs ? (double)bytes / (double)refs : 0;
  if (json) {
    json_object *o = json_object_new_object();
    json_object_object_add(o, "trace", json_object_new_string(out));
    json_object_object_add(o, "refs", json_object_new_int64((int64_t)refs));
    json_object_object_add(o, "threads", json_object_new_int64(nth));
    json_object_object_add(o, "file_bytes", json_object_new_int64((int64_t)bytes));
    json_object_object_add(o, "bytes_per_ref", json_object_new_double(bpr));
    json_object_object_add(o, "exit_status", json_object_new_int(WEXITSTATUS(st)));
    printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
    json_object_put(o);
  } else {
    fprintf(stderr, "ppt trace: wrote %s: %llu references, %u thread%s, %llu bytes (%.3f B/ref)\n", out,
            (unsigned long long)refs, nth, nth == 1 ? "" : "s", (unsigned long long)bytes, bpr);
  }
  if (WEXITSTATUS(st) != 0) {
    fprintf(stderr, "ppt trace: %s exited with status %d (trace kept)\n", prog[0], WEXITSTATUS(st));
    return 1;
  }
  return 0;
}

/* cmd_trace.c — `ppt trace`: run a ppt-cc-built program and keep its trace.
 *
 * The runtime inside the program writes to a temporary name we choose; only when the
 * program has exited and the trace opens cleanly is it renamed to the requested output,
 * so a crash never leaves a half-written trace under the user's name. Before that rename
 * every chunk is decoded once: a trace ppt trace calls good is one every command can read.
 *
 * SIGINT and SIGTERM are passed on to PROGRAM; once it has gone, the temporary file is
 * removed and ppt trace dies from the same signal. PROGRAM also gets PR_SET_PDEATHSIG, so
 * a SIGKILLed ppt trace does not leave it running to write a trace nobody collects. */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "ppt/trace.h"

extern char **environ;

static void help(void) {
  printf(
      "usage: ppt trace [-o FILE] [--threads N] [--roi FUNCTION] [--json] -- PROGRAM [ARGS...]\n\n"
      "Runs PROGRAM (built with ppt-cc) and records every basic-block entry, load and store\n"
      "of every thread into a compressed trace (docs/trace-format.md).\n\n"
      "  -o, --output FILE  trace file to write (default: ppt.trace)\n"
      "  -t, --threads N    OpenMP threads (OMP_NUM_THREADS); default 1, the SASMM input\n"
      "      --roi FUNCTION region of interest: record from FUNCTION's first call to its last\n"
      "                     return (calls nest; what runs between two calls is inside); the\n"
      "                     name as `ppt info --blocks` shows it (C++: demangled, `axpy<double>`\n"
      "                     or the full signature). Caches start cold at the first call: every\n"
      "                     pass forgets what the set-up touched (docs/ppt-cc.md, regions of\n"
      "                     interest). Overrides PPT_ROI_BEGIN/END markers.\n"
      "      --json         print a JSON summary on stdout\n"
      "  -h, --help         this help\n\n"
      "The trace is written to FILE.tmpPID (PID: ppt trace's) and renamed to FILE once PROGRAM\n"
      "has exited and every chunk of it decodes. One process is recorded: PROGRAM (or, behind a\n"
      "wrapper such as sh -c, the first ppt-cc-built program to start); the programs it forks\n"
      "or runs are not (docs/ppt-cc.md).\n\n"
      "Exit status: PROGRAM's failure or a lost or corrupt trace gives 1; bad usage, an --roi\n"
      "FUNCTION that PROGRAM does not have (PROGRAM does not run) or never calls gives 2.\n"
      "SIGINT/SIGTERM are passed on to PROGRAM; when it has gone, the temporary file is removed\n"
      "and ppt trace dies from the same signal (shell status 130/143), leaving no FILE.\n");
}

typedef struct args {
  ppt_cli_common c; /* -o, --json; c.rest: PROGRAM ARGS */
  uint64_t threads;
  const char *out;
  const char *roi; /* --roi FUNCTION, or NULL */
} args;

typedef struct results {
  int status; /* PROGRAM's exit status */
  /* references as every other command counts them: those of the IR (the records) and
   * the machine code's stack references that reading adds per block instance */
  uint64_t ir_refs, mcstack_refs, bytes;
  uint32_t threads;
} results;

static int take(void *arg, int val, const char *value) {
  args *a = arg;
  if (val == 'R') {
    if (!*value) return ppt_cli_usage("trace", "--roi wants a function name");
    a->roi = value;
    return 0;
  }
  if (ppt_cli_parse_u64(value, &a->threads) || a->threads < 1 || a->threads > 4096)
    return ppt_cli_usage("trace", "--threads wants a number from 1 to 4096, not '%s'", value);
  return 0;
}

static int parse_args(int argc, char **argv, void *va) {
  static const struct option own[] = {
      {"threads", required_argument, 0, 't'}, {"roi", required_argument, 0, 'R'}, {0, 0, 0, 0}};
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

/* The handler's state. A handler gets no argument, so what it needs must be static: the
 * signal that arrived (read by the command afterwards) and PROGRAM's pid (to pass the
 * signal on); both sig_atomic_t, the only type a handler may write and main code read. */
static volatile sig_atomic_t g_signal;
static volatile sig_atomic_t g_child; /* 0: no PROGRAM running (never kill(0, ...)) */

static void on_signal(int sig) {
  g_signal = sig;
  if (g_child > 0) kill((pid_t)g_child, sig);
}

/* Installs on_signal for SIGINT and SIGTERM (old: the dispositions to restore). A signal
 * that was ignored stays ignored, as the shell meant for a background job; PROGRAM then
 * inherits the same (exec keeps SIG_IGN and resets caught signals to the default). */
static void catch_signals(struct sigaction old[2]) {
  static const int sigs[2] = {SIGINT, SIGTERM};
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 2; i++) {
    sigaction(sigs[i], NULL, &old[i]);
    if (old[i].sa_handler != SIG_IGN) sigaction(sigs[i], &sa, NULL);
  }
}

static void restore_signals(const struct sigaction old[2]) {
  sigaction(SIGINT, &old[0], NULL);
  sigaction(SIGTERM, &old[1], NULL);
}

/* In the child between fork and exec. ppt trace is single-threaded here, so the libc
 * calls below are safe; on_signal may run here, harmlessly (g_child is 0 in this copy).
 * PR_SET_PDEATHSIG: if ppt trace is killed outright, PROGRAM is killed too instead of
 * running on; the getppid check covers a parent that died before the prctl. An exec
 * failure goes back to the parent through the close-on-exec pipe. */
static void exec_child(char **prog, pid_t parent, int errfd, int statusfd, const sigset_t *mask) {
  sigprocmask(SIG_SETMASK, mask, NULL);
  if (fcntl(statusfd, F_SETFD, 0) != 0) _exit(127); /* the runtime's report pipe survives exec */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(127);
  execvp(prog[0], prog);
  int e = errno;
  if (write(errfd, &e, sizeof e) != (ssize_t)sizeof e) _exit(126);
  _exit(127);
}

/* What the runtime in PROGRAM said about the trace (PPT_TRACE_STATUS_FD, rt.c's
 * rt_status): it claimed it, finished it, or failed with errno `err`. */
typedef struct rt_report {
  int claimed, done, failed, err;
  int roi_nomatch, roi_never; /* --roi FUNCTION: not in the program / never called */
} rt_report;

/* Reads the runtime's messages; the pipe is not waited on (a process PROGRAM left
 * running may hold it open): the runtime wrote them before PROGRAM exited. */
static void read_report(int fd, rt_report *rep) {
  unsigned char buf[64];
  ssize_t n;
  fcntl(fd, F_SETFL, O_NONBLOCK);
  while ((n = read(fd, buf, sizeof buf)) > 0)
    for (ssize_t i = 0; i < n; i++) {
      rep->claimed |= buf[i] == 'C';
      rep->done |= buf[i] == 'K';
      rep->roi_nomatch |= buf[i] == 'M';
      rep->roi_never |= buf[i] == 'N';
      if (buf[i] == 'F' && i + 4 < n) {
        rep->failed = 1;
        memcpy(&rep->err, buf + i + 1, sizeof rep->err);
        i += 4;
      }
    }
  close(fd);
}

/* Runs PROGRAM with the runtime writing its trace to tmp; *st: its wait status. */
static int spawn(const args *a, const char *tmp, int *st, rt_report *rep, ppt_err *err) {
  char **prog = a->c.rest, tbuf[32], fbuf[32];
  int pfd[2], sfd[2];
  if (pipe2(pfd, O_CLOEXEC) != 0)
    return ppt_err_set(err, PPT_ERUN, "cannot create a pipe: %s", strerror(errno));
  if (pipe2(sfd, O_CLOEXEC) != 0) {
    close(pfd[0]);
    close(pfd[1]);
    return ppt_err_set(err, PPT_ERUN, "cannot create a pipe: %s", strerror(errno));
  }
  snprintf(tbuf, sizeof tbuf, "%llu", (unsigned long long)a->threads);
  snprintf(fbuf, sizeof fbuf, "%d", sfd[1]);
  setenv("PPT_TRACE_FILE", tmp, 1);
  setenv("PPT_TRACE_STATUS_FD", fbuf, 1);
  setenv("OMP_NUM_THREADS", tbuf, 1);
  /* The runtime forces this team size on programs that pick their own (rt_omp.c). */
  setenv("PPT_TRACE_THREADS", tbuf, 1);
  if (a->roi) setenv("PPT_TRACE_ROI", a->roi, 1);
  /* Signals wait until g_child is set: one arriving in between is passed on, not lost. */
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigprocmask(SIG_BLOCK, &block, &old);
  pid_t parent = getpid(), pid = g_signal ? -1 : fork(); /* interrupted already: start nothing */
  if (pid == 0) exec_child(prog, parent, pfd[1], sfd[1], &old);
  int e = errno;
  if (pid > 0) g_child = pid;
  sigprocmask(SIG_SETMASK, &old, NULL);
  unsetenv("PPT_TRACE_FILE");
  unsetenv("PPT_TRACE_STATUS_FD");
  unsetenv("PPT_TRACE_THREADS");
  unsetenv("PPT_TRACE_ROI");
  close(pfd[1]);
  close(sfd[1]);
  if (pid < 0) {
    close(pfd[0]);
    close(sfd[0]);
    if (g_signal)
      return ppt_err_set(err, PPT_ERUN, "%s: interrupted by signal %d before it started", prog[0],
                         (int)g_signal);
    return ppt_err_set(err, PPT_ERUN, "%s: cannot run: %s", prog[0], strerror(e));
  }
  int ee = 0;
  ssize_t got;
  while ((got = read(pfd[0], &ee, sizeof ee)) < 0 && errno == EINTR) {
  }
  close(pfd[0]);
  while (waitpid(pid, st, 0) < 0 && errno == EINTR) {
  }
  g_child = 0;
  read_report(sfd[0], rep);
  if (got == (ssize_t)sizeof ee)
    return ppt_err_set(err, PPT_EINPUT, "%s: cannot run: %s", prog[0], strerror(ee));
  return 0;
}

/* Decodes every chunk once: ppt_trace_open checks only the tables, and a chunk that does
 * not decompress (two processes wrote one file, a disk error) must fail here, not in the
 * first command that reads it. Stops early when a signal asks ppt trace to quit. */
static int verify(ppt_trace *t, uint64_t *mcstack, ppt_err *err) {
  ppt_trace_batch *b = ppt_trace_batch_new();
  if (!b) return ppt_err_set(err, PPT_ERUN, "out of memory");
  ppt_trace_batch_set_raw(b, 1); /* the file's records: the stack references added on reading cannot fail */
  int rc = 0, stack = ppt_trace_stack_refs(t);
  *mcstack = 0;
  for (size_t i = 0, n = ppt_trace_nchunks(t); i < n && !rc && !g_signal; i++) {
    const ppt_trace_rec *recs;
    size_t nrecs;
    rc = ppt_trace_chunk_decode(t, i, b, &recs, &nrecs, err);
    /* each block instance's machine-level stack references, as reading adds them */
    for (size_t k = 0; !rc && stack && k < nrecs; k++)
      if (recs[k].kind == PPT_REC_BB) {
        const ppt_trace_bb *bb = ppt_trace_bb_get(t, recs[k].bb);
        if (bb) *mcstack += (uint64_t)bb->stack_loads + bb->stack_stores;
      }
  }
  ppt_trace_batch_free(b);
  return rc;
}

/* Checks the trace PROGRAM left in tmp and renames it to the output (tmp removed on a
 * failure). */
static int keep(const args *a, const char *tmp, int st, const rt_report *rep, results *r, ppt_err *err) {
  const char *prog = a->c.rest[0];
  int rc = 0;
  ppt_trace *t;
  if (g_signal) {
    rc = ppt_err_set(err, PPT_ERUN, "%s: interrupted by signal %d; no trace written", prog, (int)g_signal);
  } else if (rep->roi_nomatch) {
    /* the runtime stopped PROGRAM before main: nothing ran */
    rc = ppt_err_set(err, PPT_EINPUT,
                     "%s: --roi %s: no function of that name in its block table (inlined? see ppt info "
                     "--blocks of a full trace); PROGRAM not run",
                     prog, a->roi);
  } else if (WIFSIGNALED(st)) {
    rc = ppt_err_set(err, PPT_ERUN, "%s: killed by signal %d; no trace written", prog, WTERMSIG(st));
  } else if (rep->failed) {
    /* a full disk, a file-size limit: the system's reason, and a failure, not bad input */
    rc = ppt_err_set(err, PPT_ERUN, "%s: the trace of %s could not be written: %s", a->out, prog,
                     strerror(rep->err));
  } else if (rep->claimed && !rep->done) {
    /* the runtime's exit handler never ran: what it had not flushed is lost */
    rc = ppt_err_set(err, PPT_ERUN, "%s: ended without finishing its trace (did it call _exit or exec?)",
                     prog);
  } else if (access(tmp, F_OK) != 0) {
    /* A program that failed may have died before its first reference; one that exited
     * cleanly without a trace was not built with ppt-cc, bad input. */
    return ppt_err_set(err, WEXITSTATUS(st) ? PPT_ERUN : PPT_EINPUT,
                       "%s: no trace was written (was it built with ppt-cc?)", prog);
  } else if (ppt_trace_open(tmp, &t, err)) {
    ppt_err e = *err;
    rc = ppt_err_set(err, PPT_ERUN, "%s: the trace is unusable: %s", prog, e.msg);
  } else {
    r->ir_refs = ppt_trace_nrefs(t, UINT32_MAX);
    r->bytes = ppt_trace_file_bytes(t);
    r->threads = ppt_trace_nthreads(t);
    r->status = WEXITSTATUS(st);
    if (verify(t, &r->mcstack_refs, err)) {
      ppt_err e = *err;
      rc = ppt_err_set(err, PPT_ERUN, "%s: corrupt trace, not kept: %s", prog, e.msg);
    }
    ppt_trace_close(t);
    if (!rc && g_signal)
      rc = ppt_err_set(err, PPT_ERUN, "%s: interrupted by signal %d; no trace written", prog, (int)g_signal);
    if (!rc && rep->roi_never)
      rc = ppt_err_set(err, PPT_EINPUT, "%s: --roi %s: the function was never called; no trace written", prog,
                       a->roi);
    if (!rc && rename(tmp, a->out) != 0)
      rc = ppt_err_set(err, PPT_ERUN, "%s: cannot rename into place: %s", a->out, strerror(errno));
  }
  if (rc) unlink(tmp);
  return rc;
}

/* What can be known about the output before PROGRAM runs, so that a long run is not
 * wasted on a name that cannot be written: -o naming a directory is bad input (exit 2);
 * a folder the trace cannot be created in is a failure (exit 1), with the system's
 * reason (read-only file system, permission denied, no such directory). */
static int check_output(const char *out, ppt_err *err) {
  struct stat st;
  if (stat(out, &st) == 0 && S_ISDIR(st.st_mode))
    return ppt_err_set(err, PPT_EINPUT, "%s: is a directory (-o names the trace file)", out);
  const char *slash = strrchr(out, '/');
  char dir[4096];
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else if (slash == out)
    snprintf(dir, sizeof dir, "/");
  else
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - out), out);
  if (access(dir, W_OK | X_OK) != 0)
    return ppt_err_set(err, PPT_ERUN, "%s: cannot create the trace in %s: %s", out, dir, strerror(errno));
  return 0;
}

/* Temporary traces OUT.tmpPID that a ppt trace killed with SIGKILL (or a machine that
 * went down) left behind: removed when no process PID exists any more. A live PID may be
 * another ppt trace writing the same output, whose file is left alone. */
static void remove_leftovers(const char *out) {
  char pat[4200];
  snprintf(pat, sizeof pat, "%s.tmp*", out);
  glob_t g;
  if (glob(pat, GLOB_NOSORT, NULL, &g) != 0) return;
  size_t lo = strlen(out) + 4;
  for (size_t i = 0; i < g.gl_pathc; i++) {
    const char *p = g.gl_pathv[i], *num = p + lo;
    char *end;
    errno = 0;
    long pid = strtol(num, &end, 10);
    if (!*num || *end || errno || pid <= 0 || pid == (long)getpid()) continue;
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) unlink(p);
  }
  globfree(&g);
}

static int run(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  int rc = check_output(a->out, err);
  if (rc) return rc;
  remove_leftovers(a->out);
  size_t n = strlen(a->out) + 32;
  char *tmp = malloc(n);
  if (!tmp) return ppt_err_set(err, PPT_ERUN, "out of memory");
  /* Our pid in the name: another ppt trace never collides, and a file left by a ppt
   * trace that was SIGKILLed names the dead process. One with our own pid is such a
   * leftover (pid reuse): the runtime would take it for a live trace and not record. */
  snprintf(tmp, n, "%s.tmp%ld", a->out, (long)getpid());
  unlink(tmp);
  struct sigaction old[2];
  catch_signals(old);
  int st;
  rt_report rep = {0};
  rc = spawn(a, tmp, &st, &rep, err);
  if (!rc) rc = keep(a, tmp, st, &rep, vr, err);
  restore_signals(old);
  free(tmp);
  return rc;
}

static double bytes_per_ref(const results *r) {
  uint64_t refs = r->ir_refs + r->mcstack_refs;
  return refs ? (double)r->bytes / (double)refs : 0;
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
  json_object_object_add(o, "refs", json_object_new_int64((int64_t)(r->ir_refs + r->mcstack_refs)));
  json_object_object_add(o, "ir_refs", json_object_new_int64((int64_t)r->ir_refs));
  json_object_object_add(o, "mcstack_refs", json_object_new_int64((int64_t)r->mcstack_refs));
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
  fprintf(stderr,
          "ppt trace: wrote %s: %llu references (%llu of the IR, %llu of the machine code's stack), %u thread%s, "
          "%llu bytes (%.3f B/ref)\n",
          a->out, (unsigned long long)(r->ir_refs + r->mcstack_refs), (unsigned long long)r->ir_refs,
          (unsigned long long)r->mcstack_refs, r->threads, r->threads == 1 ? "" : "s", (unsigned long long)r->bytes,
          bytes_per_ref(r));
  return exit_status(a, r, err);
}

int ppt_cmd_trace(int argc, char **argv) {
  static const ppt_cli_steps steps = {"trace", parse_args, run, write_table, write_json, NULL, NULL};
  int rc = ppt_cli_main(&steps, argc, argv, &(args){0}, &(results){0});
  /* Interrupted: everything is cleaned up and the one line printed; now die from the
   * signal, as a shell or make expects of an interrupted command. */
  if (g_signal) {
    signal((int)g_signal, SIG_DFL);
    raise((int)g_signal);
  }
  return rc;
}

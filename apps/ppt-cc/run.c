/* run.c — child processes, signals and the temporary folder (see run.h). */
#include "run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const int k_term_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

void pcc_run_init(pcc_runner *r, int verbose) {
  memset(r, 0, sizeof *r);
  r->verbose = verbose;
  sigemptyset(&r->blocked);
  for (size_t i = 0; i < sizeof k_term_signals / sizeof *k_term_signals; i++)
    sigaddset(&r->blocked, k_term_signals[i]);
  sigprocmask(SIG_BLOCK, &r->blocked, &r->child_mask);
}

static void echo(char *const argv[]) {
  fputs("ppt-cc: +", stderr);
  for (size_t i = 0; argv[i]; i++)
    fprintf(stderr, " %s", argv[i]);
  fputc('\n', stderr);
}

/* pcc_run, the child's stdout and stderr to /dev/null when `quiet`. */
static int run(pcc_runner *r, char *const argv[], int quiet, int *code, ppt_err *err) {
  if (r->verbose)
    echo(argv);
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t fa;
  if (posix_spawnattr_init(&attr) != 0)
    return ppt_err_set(err, PPT_ERUN, "ppt-cc: cannot start %s: out of memory", argv[0]);
  if (posix_spawn_file_actions_init(&fa) != 0) {
    posix_spawnattr_destroy(&attr);
    return ppt_err_set(err, PPT_ERUN, "ppt-cc: cannot start %s: out of memory", argv[0]);
  }
  if (quiet) {
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  }
  posix_spawnattr_setsigmask(&attr, &r->child_mask);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0)
    return ppt_err_set(err, PPT_ERUN, "ppt-cc: cannot run %s: %s", argv[0], strerror(rc));
  int st;
  while (waitpid(pid, &st, 0) < 0) {
    if (errno != EINTR)
      return ppt_err_set(err, PPT_ERUN, "ppt-cc: waiting for %s: %s", argv[0], strerror(errno));
  }
  if (WIFSIGNALED(st)) {
    r->child_signal = WTERMSIG(st);
    *code = 128 + WTERMSIG(st);
  } else {
    *code = WEXITSTATUS(st);
  }
  return 0;
}

int pcc_run(pcc_runner *r, char *const argv[], int *code, ppt_err *err) {
  return run(r, argv, 0, code, err);
}

int pcc_run_quiet(pcc_runner *r, char *const argv[], int *code, ppt_err *err) {
  return run(r, argv, 1, code, err);
}

int pcc_run_interrupted(pcc_runner *r) {
  sigset_t pending;
  sigpending(&pending);
  for (size_t i = 0; i < sizeof k_term_signals / sizeof *k_term_signals; i++)
    if (sigismember(&pending, k_term_signals[i]))
      return 1;
  for (size_t i = 0; i < sizeof k_term_signals / sizeof *k_term_signals; i++)
    if (r->child_signal == k_term_signals[i])
      return 1;
  return 0;
}

void pcc_run_finish(pcc_runner *r) {
  int sig = 0;
  for (size_t i = 0; i < sizeof k_term_signals / sizeof *k_term_signals; i++)
    if (r->child_signal == k_term_signals[i])
      sig = r->child_signal;
  /* A pending signal is delivered as soon as it is unblocked: with the default action it
   * ends ppt-cc the way make expects; a child's signal is re-raised the same way. */
  if (sig) {
    signal(sig, SIG_DFL);
    sigprocmask(SIG_SETMASK, &r->child_mask, NULL);
    raise(sig);
  }
  sigprocmask(SIG_SETMASK, &r->child_mask, NULL);
}

int pcc_tmpdir_make(pcc_tmpdir *t, ppt_err *err) {
  const char *base = getenv("TMPDIR");
  if (!base || !*base)
    base = "/tmp";
  t->seq = 0;
  int n = snprintf(t->path, sizeof t->path, "%s/ppt-cc.XXXXXX", base);
  if (n < 0 || (size_t)n >= sizeof t->path)
    return ppt_err_set(err, PPT_ERUN, "ppt-cc: TMPDIR path too long: %s", base);
  if (!mkdtemp(t->path))
    return ppt_err_set(err, PPT_ERUN, "ppt-cc: cannot create a temporary folder in %s: %s", base,
                       strerror(errno));
  return 0;
}

char *pcc_tmpdir_file(pcc_tmpdir *t, const char *stem, const char *suffix) {
  size_t len = strlen(t->path) + strlen(stem) + strlen(suffix) + 24;
  char *r = malloc(len);
  if (r)
    snprintf(r, len, "%s/%u-%s%s", t->path, t->seq++, stem, suffix);
  return r;
}

void pcc_tmpdir_remove(pcc_tmpdir *t, int keep) {
  if (!t->path[0])
    return;
  if (keep) {
    fprintf(stderr, "ppt-cc: kept temporary files in %s\n", t->path);
    return;
  }
  /* The folder is ppt-cc's own (mkdtemp), so everything in it is ours to delete. */
  DIR *d = opendir(t->path);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
        continue;
      char p[4096 + 256];
      snprintf(p, sizeof p, "%s/%s", t->path, e->d_name);
      unlink(p);
    }
    closedir(d);
  }
  rmdir(t->path);
  t->path[0] = '\0';
}

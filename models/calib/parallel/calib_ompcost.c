/* calib_ompcost.c — runs ppt-ompcost (apps/ompcost) for `ppt calibrate` and reads the
 * OpenMP region costs it prints.
 *
 * Why another process: libomp's regions run about twice as slow in any process linked
 * with SimGrid, as ppt is (calib_omp.c), so calibrate timing them itself would overstate
 * what a region costs the plain programs ppt predicts. The probe inherits this process's
 * environment, so OMP_PROC_BIND (which calibrate sets) applies there as it would here. */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "calib/calib_impl.h"
#include "ppt/io.h"

#define PROBE_NAME "ppt-ompcost"
/* The probe prints one short line; anything longer is not its output. */
#define MAX_OUTPUT 4096

extern char **environ;

int calib_ompcost_path(char *path, size_t size, ppt_err *err) {
  const char *env = getenv("PPT_OMPCOST");
  if (env && *env) {
    if ((size_t)snprintf(path, size, "%s", env) >= size)
      return ppt_err_set(err, PPT_EINPUT, "PPT_OMPCOST: path too long");
  } else {
    char exe[4096];
    int rc = ppt_io_exe_dir(exe, sizeof exe, err);
    if (rc) return rc;
    if ((size_t)snprintf(path, size, "%s/" PROBE_NAME, exe) >= size)
      return ppt_err_set(err, PPT_ERUN, "%s/" PROBE_NAME ": path too long", exe);
  }
  if (access(path, X_OK) != 0)
    return ppt_err_set(
        err, PPT_EINPUT, "%s: %s%s", path, strerror(errno),
        env && *env ? " (from PPT_OMPCOST)" : " (build target ppt-ompcost, or set PPT_OMPCOST)");
  return 0;
}

/* A positive finite number under `key`. */
static int get_positive(json_object *o, const char *key, double *v) {
  json_object *x;
  if (!json_object_object_get_ex(o, key, &x)) return -1;
  if (!json_object_is_type(x, json_type_double) && !json_object_is_type(x, json_type_int)) return -1;
  *v = json_object_get_double(x);
  return *v > 0 && isfinite(*v) ? 0 : -1;
}

/* The start of `text` on one line, for a message (control characters as spaces). */
static const char *excerpt(const char *text, char *buf, size_t size) {
  size_t i = 0;
  for (; text[i] && i + 1 < size; i++) buf[i] = (unsigned char)text[i] < 0x20 ? ' ' : text[i];
  buf[i] = '\0';
  return buf;
}

int calib_ompcost_parse(const char *text, const char *probe, calib_ompcost *out, ppt_err *err) {
  char ex[81];
  size_t len = strlen(text);
  if (text[strspn(text, " \t\r\n")] == '\0') return ppt_err_set(err, PPT_ERUN, "%s: printed nothing", probe);
  json_tokener *tok = json_tokener_new();
  if (!tok) return ppt_err_set(err, PPT_ERUN, "%s: out of memory", probe);
  json_object *o = json_tokener_parse_ex(tok, text, (int)len);
  enum json_tokener_error jerr = json_tokener_get_error(tok);
  size_t used = json_tokener_get_parse_end(tok);
  json_tokener_free(tok);
  int rc = 0;
  if (!o) {
    /* "continue": the text ended inside a value. */
    rc = ppt_err_set(err, PPT_ERUN, "%s: output is not JSON (%s): '%s'", probe,
                     jerr == json_tokener_continue ? "incomplete" : json_tokener_error_desc(jerr),
                     excerpt(text, ex, sizeof ex));
  } else if (text[used + strspn(text + used, " \t\r\n")] != '\0') {
    rc = ppt_err_set(err, PPT_ERUN, "%s: output has more than one JSON value: '%s'", probe,
                     excerpt(text, ex, sizeof ex));
  } else if (!json_object_is_type(o, json_type_object)) {
    rc = ppt_err_set(err, PPT_ERUN, "%s: output is not a JSON object: '%s'", probe,
                     excerpt(text, ex, sizeof ex));
  } else {
    double threads = 0;
    calib_ompcost r = {0};
    if (get_positive(o, "threads", &threads) || threads != floor(threads) || threads > 1e6)
      rc = ppt_err_set(err, PPT_ERUN, "%s: output lacks a positive integer \"threads\"", probe);
    else if (get_positive(o, "fork_join_s", &r.fork_join_s))
      rc = ppt_err_set(err, PPT_ERUN, "%s: output lacks a positive \"fork_join_s\"", probe);
    else if (get_positive(o, "fork_join_serial_s", &r.fork_join_serial_s))
      rc = ppt_err_set(err, PPT_ERUN, "%s: output lacks a positive \"fork_join_serial_s\"", probe);
    r.threads = (int)threads;
    if (!rc) *out = r;
  }
  json_object_put(o);
  return rc;
}

/* Appends what is readable on fd to buf (NUL-terminated, at most cap-1 bytes kept, the
 * rest read and dropped). 1 at end of file, 0 when more may come, -1 on error. */
static int drain(int fd, char *buf, size_t *len, size_t cap) {
  char chunk[512];
  ssize_t n = read(fd, chunk, sizeof chunk);
  if (n < 0) return errno == EINTR || errno == EAGAIN ? 0 : -1;
  if (n == 0) return 1;
  size_t keep = (size_t)n < cap - 1 - *len ? (size_t)n : cap - 1 - *len;
  memcpy(buf + *len, chunk, keep);
  *len += keep;
  buf[*len] = '\0';
  return 0;
}

/* Reads the child's stdout and stderr until both close or the deadline passes;
 * 0, or -1 on timeout / read error (errno ETIMEDOUT for the former). */
static int collect(int out_fd, int err_fd, char *out, size_t *out_len, char *errb, size_t *err_len,
                   double timeout_s) {
  double deadline = calib_now() + timeout_s;
  struct pollfd p[2] = {{.fd = out_fd, .events = POLLIN}, {.fd = err_fd, .events = POLLIN}};
  while (p[0].fd >= 0 || p[1].fd >= 0) {
    double left = deadline - calib_now();
    if (left <= 0) {
      errno = ETIMEDOUT;
      return -1;
    }
    int r = poll(p, 2, (int)ceil(left * 1000));
    if (r < 0 && errno != EINTR) return -1;
    for (int i = 0; i < 2 && r > 0; i++) {
      if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      int d = i == 0 ? drain(p[i].fd, out, out_len, MAX_OUTPUT) : drain(p[i].fd, errb, err_len, MAX_OUTPUT);
      if (d < 0) return -1;
      if (d > 0) p[i].fd = -1;
    }
  }
  return 0;
}

int calib_ompcost_run(const char *probe, int threads, const calib_timing *t, double timeout_s,
                      calib_ompcost *out, ppt_err *err) {
  char a_trials[32], a_min[64], a_threads[32];
  snprintf(a_trials, sizeof a_trials, "%d", t->trials);
  snprintf(a_min, sizeof a_min, "%.17g", t->min_s);
  snprintf(a_threads, sizeof a_threads, "%d", threads);
  char *argv[9] = {(char *)probe, "--trials", a_trials, "--min-s", a_min};
  int argn = 5;
  if (threads > 0) {
    argv[argn++] = "--threads";
    argv[argn++] = a_threads;
  }
  if (t->typical) argv[argn++] = "--median";
  argv[argn] = NULL;

  /* Close-on-exec pipes, so a probe started from one thread does not hold the pipes of
   * another; dup2 in the child clears the flag on its own ends. */
  int po[2] = {-1, -1}, pe[2] = {-1, -1};
  if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC)) {
    int e = errno;
    for (int i = 0; i < 2; i++) {
      if (po[i] >= 0) close(po[i]);
      if (pe[i] >= 0) close(pe[i]);
    }
    return ppt_err_set(err, PPT_ERUN, "%s: cannot make a pipe: %s", probe, strerror(e));
  }
  posix_spawn_file_actions_t fa;
  pid_t pid = -1;
  int rc = posix_spawn_file_actions_init(&fa);
  if (!rc) {
    rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, po[1], 1);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
    if (!rc) rc = posix_spawn(&pid, probe, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
  }
  close(po[1]);
  close(pe[1]);
  if (rc) {
    close(po[0]);
    close(pe[0]);
    return ppt_err_set(err, PPT_ERUN, "%s: cannot start: %s", probe, strerror(rc));
  }

  char text[MAX_OUTPUT] = "", msg[MAX_OUTPUT] = "";
  size_t text_len = 0, msg_len = 0;
  int got = collect(po[0], pe[0], text, &text_len, msg, &msg_len, timeout_s);
  int why = errno;
  close(po[0]);
  close(pe[0]);
  if (got) kill(pid, SIGKILL);
  int status = 0;
  pid_t w;
  while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (w < 0 && !got) return ppt_err_set(err, PPT_ERUN, "%s: cannot wait for it: %s", probe, strerror(errno));
  msg[strcspn(msg, "\n")] = '\0'; /* the first line says why */
  if (got && why == ETIMEDOUT)
    return ppt_err_set(err, PPT_ERUN, "%s: no result within %.3g s; killed", probe, timeout_s);
  if (got) return ppt_err_set(err, PPT_ERUN, "%s: cannot read its output: %s", probe, strerror(why));
  if (WIFSIGNALED(status))
    return ppt_err_set(err, PPT_ERUN, "%s: killed by signal %d%s%s", probe, WTERMSIG(status),
                       msg[0] ? ": " : "", msg);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return ppt_err_set(err, PPT_ERUN, "%s: exit status %d%s%s", probe, WEXITSTATUS(status),
                       msg[0] ? ": " : "", msg);
  return calib_ompcost_parse(text, probe, out, err);
}

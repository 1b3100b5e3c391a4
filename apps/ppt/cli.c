/* cli.c — shared helpers of the ppt subcommands: option values, messages, output. */
#include "cli.h"

#include "ppt/sasmm.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <string.h>
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

int ppt_cli_fail(const char *cmd, const ppt_err *err) {
  fprintf(stderr, "ppt %s: %s\n", cmd, err->msg[0] ? err->msg : "failed");
  return err->status ? (int)err->status : 1;
}

int ppt_cli_usage(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "ppt %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "; see 'ppt %s --help'\n", cmd);
  va_end(ap);
  return PPT_EINPUT;
}

int ppt_cli_parse_u64(const char *s, uint64_t *out) {
  if (!s || !*s || *s == '-') return -1;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end) return -1;
  *out = v;
  return 0;
}

int ppt_cli_parse_double(const char *s, double *out) {
  if (!s || !*s) return -1;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || *end) return -1;
  *out = v;
  return 0;
}

int ppt_cli_parse_schedule(const char *s, int *sched, int64_t *chunk) {
  /* As the pragma says it: clang 14 compiles plain dynamic and guided as nonmonotonic
   * (libomp runs dynamic as static_steal then), and only monotonic: asks for the shared
   * counter (docs/sasmm.md, "Schedules"). */
  int mono = !strncmp(s, "monotonic:", 10), nonmono = !strncmp(s, "nonmonotonic:", 13);
  s += mono ? 10 : nonmono ? 13 : 0;
  const char *comma = strchr(s, ',');
  size_t len = comma ? (size_t)(comma - s) : strlen(s);
  long long c = 0;
  if (comma) {
    char *end;
    errno = 0;
    c = strtoll(comma + 1, &end, 10);
    if (end == comma + 1 || *end || errno || c <= 0) return -1;
  }
  if (len == 6 && !strncmp(s, "static", 6) && !nonmono)
    *sched = comma ? PPT_SCHED_STATIC_CHUNKED : PPT_SCHED_STATIC;
  else if (len == 7 && !strncmp(s, "dynamic", 7))
    *sched = PPT_SCHED_DYNAMIC | (mono ? 0 : PPT_SCHED_NONMONOTONIC), c = c ? c : 1;
  else if (len == 6 && !strncmp(s, "guided", 6))
    *sched = PPT_SCHED_GUIDED | (mono ? 0 : PPT_SCHED_NONMONOTONIC), c = c ? c : 1;
  else if (len == 4 && !strncmp(s, "auto", 4) && !comma && !mono && !nonmono)
    *sched = PPT_SCHED_AUTO | PPT_SCHED_NONMONOTONIC, c = 1;
  else
    return -1;
  *chunk = c;
  return 0;
}

const char *ppt_cli_schedule_name(int sched) {
  if (sched < 0) return "recorded";
  int nonmono = (sched & PPT_SCHED_NONMONOTONIC) != 0;
  switch (sched & PPT_SCHED_KIND_MASK) {
    case PPT_SCHED_STATIC: return "static";
    case PPT_SCHED_STATIC_CHUNKED: return "static,C";
    case PPT_SCHED_DYNAMIC: return nonmono ? "dynamic,C" : "monotonic:dynamic,C";
    case PPT_SCHED_GUIDED: return nonmono ? "guided,C" : "monotonic:guided,C";
    case PPT_SCHED_AUTO: return "auto";
    default: return "other";
  }
}

int ppt_cli_split_list(char *s, const char **v, size_t max, size_t *n) {
  *n = 0;
  for (char *p = s;;) {
    size_t len = strcspn(p, ",");
    if (!len || *n == max) return -1;
    v[(*n)++] = p;
    if (!p[len]) return 0;
    p[len] = '\0';
    p += len + 1;
  }
}

int ppt_cli_take_threads(const char *cmd, const char *s, uint64_t *out) {
  if (ppt_cli_parse_u64(s, out) || *out < 1 || *out > 256)
    return ppt_cli_usage(cmd, "--threads wants 1..256, not '%s'", s);
  return 0;
}

int ppt_cli_take_fraction(const char *cmd, const char *opt, const char *s, double *out) {
  if (ppt_cli_parse_double(s, out) || !(*out > 0 && *out <= 1))
    return ppt_cli_usage(cmd, "%s wants a fraction in (0, 1], not '%s'", opt, s);
  return 0;
}

int ppt_cli_take_schedule(const char *cmd, const char *s, int *sched, int64_t *chunk) {
  if (ppt_cli_parse_schedule(s, sched, chunk))
    return ppt_cli_usage(cmd,
                         "--schedule wants static, static,C, [monotonic:|nonmonotonic:]dynamic[,C], "
                         "guided[,C] or auto, not '%s'",
                         s);
  return 0;
}

int ppt_cli_put_json(json_object *o, int flags, ppt_err *err) {
  if (!o) return ppt_err_set(err, PPT_ERUN, "out of memory");
  printf("%s\n", json_object_to_json_string_ext(o, flags));
  json_object_put(o);
  return 0;
}

json_object *ppt_cli_json_head(const ppt_cli_common *c, json_object *settings) {
  json_object *o = json_object_new_object();
  json_object_object_add(o, "trace", json_object_new_string(c->operand));
  json_object_object_add(o, "hwspec", json_object_new_string(c->hw));
  json_object_object_add(o, "settings", settings);
  return o;
}

json_object *ppt_cli_json_rate(double v) {
  return isnan(v) ? NULL : json_object_new_double(v);
}

void ppt_cli_put_rate(double x) {
  if (isfinite(x))
    printf(" %10.6f", x);
  else
    printf(" %10s", "-");
}

struct ppt_cli_progress {
  const char *label;
  uint64_t total;
  int tty;
  struct timespec start, last;
};

ppt_cli_progress *ppt_cli_progress_start(const char *label, uint64_t total) {
  ppt_cli_progress *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->label = label;
  p->total = total ? total : 1;
  p->tty = isatty(STDERR_FILENO);
  clock_gettime(CLOCK_MONOTONIC, &p->start);
  return p;
}

void ppt_cli_progress_update(ppt_cli_progress *p, uint64_t done) {
  if (!p || !p->tty) return;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  /* Redraw at most 10 times a second: the bar must not cost anything measurable. */
  double dt = (double)(now.tv_sec - p->last.tv_sec) + 1e-9 * (double)(now.tv_nsec - p->last.tv_nsec);
  if (dt < 0.1 && done < p->total) return;
  p->last = now;
  int width = 40;
  double f = (double)done / (double)p->total;
  if (f > 1) f = 1;
  int fill = (int)(f * width);
  fprintf(stderr, "\r%s [", p->label);
  for (int i = 0; i < width; i++) fputc(i < fill ? '#' : ' ', stderr);
  fprintf(stderr, "] %5.1f%%", 100.0 * f);
  /* The time left, at the pace so far (once there is a pace to go by). */
  double spent = (double)(now.tv_sec - p->start.tv_sec) + 1e-9 * (double)(now.tv_nsec - p->start.tv_nsec);
  if (done > 0 && done < p->total && spent >= 1.0) {
    double left = spent * (double)(p->total - done) / (double)done;
    fprintf(stderr, "  ETA %2d:%02d ", (int)(left / 60), (int)left % 60);
  } else {
    fprintf(stderr, "%12s", "");
  }
}

void ppt_cli_progress_cb(uint64_t done, void *arg) {
  ppt_cli_progress_update(arg, done);
}

void ppt_cli_progress_end(ppt_cli_progress *p) {
  if (!p) return;
  if (p->tty) fprintf(stderr, "\r%*s\r", 80, "");
  free(p);
}

int ppt_cli_close_data(FILE *f, const char *tmp, const char *path, ppt_err *err) {
  int bad = ferror(f);
  if (fclose(f) != 0 || bad) {
    int e = errno;
    remove(tmp);
    return ppt_err_set(err, PPT_ERUN, "%s: cannot write plot data: %s", path, strerror(e ? e : EIO));
  }
  return 0;
}

/* Why gnuplot could not write into the folder of `out`: the system's reason for a small
 * write of our own there (a full disk, a read-only file system), or NULL if it works. */
static const char *why_unwritable(const char *out) {
  char probe[4200];
  snprintf(probe, sizeof probe, "%s.probe", out);
  FILE *f = fopen(probe, "w");
  if (!f) return strerror(errno);
  static const char block[4096];
  int e = 0;
  for (int i = 0; i < 16 && !e; i++)
    if (fwrite(block, 1, sizeof block, f) != sizeof block) e = errno;
  if (fflush(f) != 0 && !e) e = errno;
  if (fclose(f) != 0 && !e) e = errno;
  remove(probe);
  return e ? strerror(e) : NULL;
}

void ppt_cli_plot_sibling(const char *path, const char *suffix, char *out, size_t cap) {
  size_t len = strlen(path);
  int ext = len > 4 && !strcmp(path + len - 4, ".png");
  snprintf(out, cap, "%.*s-%s.png", (int)(ext ? len - 4 : len), path, suffix);
}

int ppt_cli_gnuplot(const char *path, const char *data, const char *script, const char *cmd,
                    const char *title, ppt_err *err) {
  char out[4096];
  snprintf(out, sizeof out, "%s.tmp%ld", path, (long)getpid());
  /* gnuplot's own messages are not shown: on failure we say what went wrong instead */
  FILE *g = popen("exec gnuplot 2>/dev/null", "w");
  if (!g) {
    remove(data);
    return ppt_err_set(err, PPT_ERUN, "%s: cannot run gnuplot: %s", path, strerror(errno));
  }
  fprintf(g, "set terminal pngcairo size 900,560 noenhanced\nset output '%s'\nset title '%s: %s'\n", out, cmd,
          title);
  fputs(script, g);
  int st = pclose(g);
  remove(data);
  if (st != 0) {
    remove(out);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
      return ppt_err_set(err, PPT_ERUN, "%s: gnuplot not found (install gnuplot: scripts/install-deps)",
                         path);
    const char *why = why_unwritable(out);
    if (why) return ppt_err_set(err, PPT_ERUN, "%s: cannot write the plot: %s", path, why);
    return ppt_err_set(err, PPT_ERUN, "%s: gnuplot failed (exit status %d)", path,
                       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
  }
  if (rename(out, path) != 0) {
    int e = errno;
    remove(out);
    return ppt_err_set(err, PPT_ERUN, "%s: cannot rename the plot into place: %s", path, strerror(e));
  }
  return 0;
}

/* io.c — atomic output files: temp file in the same folder, then rename(2). */
#include "ppt/io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct ppt_io_atomic {
  FILE *f;
  char *path; /* NULL when writing to stdout */
  char *tmp;  /* NULL when writing straight to path (a device or FIFO) */
};

int ppt_io_atomic_open(const char *path, ppt_io_atomic **out, ppt_err *err) {
  ppt_io_atomic *a = calloc(1, sizeof *a);
  if (!a) return ppt_err_set(err, PPT_ERUN, "%s: out of memory", path);
  if (strcmp(path, "-") == 0) {
    a->f = stdout;
    *out = a;
    return 0;
  }
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    /* Not a regular file: renaming a temp file over it would replace the device itself
     * (as root, /dev/null). A folder is a usage error; devices and FIFOs are written. */
    free(a);
    if (S_ISDIR(st.st_mode)) return ppt_err_set(err, PPT_EINPUT, "%s: is a folder, not an output file", path);
    a = calloc(1, sizeof *a);
    if (!a || !(a->path = strdup(path)) || !(a->f = fopen(path, "w"))) {
      int e = errno;
      ppt_io_atomic_abort(a);
      return ppt_err_set(err, PPT_ERUN, "%s: cannot open output: %s", path, strerror(e));
    }
    *out = a;
    return 0;
  }
  size_t n = strlen(path) + 16;
  a->path = strdup(path);
  a->tmp = malloc(n);
  if (!a->path || !a->tmp) {
    ppt_io_atomic_abort(a);
    return ppt_err_set(err, PPT_ERUN, "%s: out of memory", path);
  }
  snprintf(a->tmp, n, "%s.tmpXXXXXX", path);
  int fd = mkstemp(a->tmp);
  if (fd >= 0) {
    /* mkstemp creates 0600; results are ordinary files: 0666 less the umask. */
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, 0666 & ~um);
  }
  if (fd < 0) {
    int e = errno;
    free(a->tmp);
    a->tmp = NULL;
    ppt_io_atomic_abort(a);
    return ppt_err_set(err, PPT_ERUN, "%s: cannot create output: %s", path, strerror(e));
  }
  a->f = fdopen(fd, "w");
  if (!a->f) {
    close(fd);
    ppt_io_atomic_abort(a);
    return ppt_err_set(err, PPT_ERUN, "%s: cannot open output stream", path);
  }
  *out = a;
  return 0;
}

FILE *ppt_io_atomic_stream(ppt_io_atomic *a) { return a->f; }

int ppt_io_atomic_commit(ppt_io_atomic *a, ppt_err *err) {
  int rc = 0;
  if (!a->path) {
    if (fflush(a->f) != 0) rc = ppt_err_set(err, PPT_ERUN, "<stdout>: write failed");
    free(a);
    return rc;
  }
  int bad = ferror(a->f) || fflush(a->f) != 0 || (a->tmp && fsync(fileno(a->f)) != 0);
  int e = errno;
  if (fclose(a->f) != 0) bad = 1;
  a->f = NULL;
  if (!a->tmp) { /* written in place */
    if (bad) rc = ppt_err_set(err, PPT_ERUN, "%s: write failed: %s", a->path, strerror(e));
  } else if (bad) {
    rc = ppt_err_set(err, PPT_ERUN, "%s: write failed: %s", a->path, strerror(e));
  } else if (rename(a->tmp, a->path) != 0) {
    rc = ppt_err_set(err, PPT_ERUN, "%s: cannot rename into place: %s", a->path, strerror(errno));
  }
  if (rc && a->tmp) unlink(a->tmp);
  free(a->tmp);
  free(a->path);
  free(a);
  return rc;
}

void ppt_io_atomic_abort(ppt_io_atomic *a) {
  if (!a) return;
  if (a->f && a->f != stdout) fclose(a->f);
  if (a->tmp) unlink(a->tmp);
  free(a->tmp);
  free(a->path);
  free(a);
}

int ppt_io_write_file(const char *path, const char *text, ppt_err *err) {
  ppt_io_atomic *a;
  int rc = ppt_io_atomic_open(path, &a, err);
  if (rc) return rc;
  fputs(text, ppt_io_atomic_stream(a));
  return ppt_io_atomic_commit(a, err);
}

int ppt_io_exe_dir(char *dir, size_t size, ppt_err *err) {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return ppt_err_set(err, PPT_ERUN, "cannot find the running executable (/proc/self/exe): %s", strerror(errno));
  exe[n] = '\0';
  char *slash = strrchr(exe, '/');
  if (slash) *slash = '\0';
  if ((size_t)snprintf(dir, size, "%s", slash ? exe : ".") >= size)
    return ppt_err_set(err, PPT_ERUN, "%s: path too long", exe);
  return 0;
}

/* rt_stack.c — the calling thread's stack, for the records' stack flag (rt.h).
 *
 * pthread_getattr_np would tell, but it takes memory from the program's heap (a FILE
 * and a line buffer for /proc/self/maps on the main thread, a CPU set on every thread),
 * freed into glibc's caches where the program's next allocations find them: a traced run
 * would see other memory than an untraced one (trace/ownheap.h says why that matters).
 * So the maps are read here with read(2) into this frame, and the bounds follow glibc's
 * own rules: the main thread's stack is the [stack] mapping, grown down as far as
 * RLIMIT_STACK allows or the mapping below it; another thread's is the mapping that
 * holds its stack pointer (its guard page below cuts it off), up to the end of the page
 * that holds its thread descriptor (glibc puts it at the top of the thread's stack, and
 * pthread_self() is its address). */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "trace/runtime/rt.h"

/* glibc (ld.so): the stack pointer of the process's first frame */
extern void *__libc_stack_end;

typedef struct mapping {
  uintptr_t start, end, prev_end; /* prev_end: where the mapping before it ends */
  int is_main_stack;              /* "[stack]" */
} mapping;

static uintptr_t hex(const char **p) {
  uintptr_t v = 0;
  for (;; ++*p) {
    char c = **p;
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return v;
    v = v * 16 + (uintptr_t)d;
  }
}

/* One line of /proc/self/maps ("start-end perms ... [path]"), possibly cut short. */
static void take_line(const char *line, size_t len, uintptr_t sp, uintptr_t *prev_end, mapping *m, int *found) {
  const char *p = line;
  uintptr_t start = hex(&p);
  if (*p != '-') return;
  p++;
  uintptr_t end = hex(&p);
  if (!*found && sp >= start && sp < end) {
    *m = (mapping){start, end, *prev_end, len >= 7 && memcmp(line + len - 7, "[stack]", 7) == 0};
    *found = 1;
  }
  *prev_end = end;
}

static int find_mapping(uintptr_t sp, mapping *m) {
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[4096], line[256];
  size_t len = 0;
  uintptr_t prev_end = 0;
  int found = 0;
  ssize_t n;
  while (!found && (n = read(fd, buf, sizeof buf)) > 0)
    for (ssize_t i = 0; i < n && !found; i++) {
      if (buf[i] != '\n') {
        /* a long path is cut: the fields that matter come first, and [stack] is short */
        if (len < sizeof line - 1) line[len++] = buf[i];
        continue;
      }
      line[len] = '\0';
      take_line(line, len, sp, &prev_end, m, &found);
      len = 0;
    }
  close(fd);
  return found ? 0 : -1;
}

int ppt_rt_stack_bounds(uintptr_t sp, uintptr_t *lo, size_t *size) {
  mapping m;
  if (find_mapping(sp, &m)) return -1;
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), bottom = m.start, top = m.end;
  if (m.is_main_stack) {
    /* glibc's top: the page after the one where the process's initial frame began
     * (argv, environ and the auxiliary vector lie above it) */
    top = ((uintptr_t)__libc_stack_end | (page - 1)) + 1;
    if (top > m.end || top <= sp) top = m.end;
    /* as far down as the limit allows once what lies above top is counted, in whole
     * pages, and not into the mapping below */
    struct rlimit rl;
    uintptr_t room = top - m.prev_end, want = room;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur > m.end - top)
      want = ((uintptr_t)rl.rlim_cur - (m.end - top)) & ~(page - 1);
    bottom = top - (want < room ? want : room);
  } else {
    uintptr_t self = (uintptr_t)pthread_self();
    if (self >= m.start && self < m.end) top = (self | (page - 1)) + 1;
  }
  *lo = bottom;
  *size = top - bottom;
  return 0;
}

/* calib_sysfs.c — cache geometry of the host from Linux sysfs, made into valid hwspec
 * levels.
 *
 * /sys/devices/system/cpu/cpuN/cache/indexM/ holds one cache each: level, type (Data,
 * Instruction, Unified), size ("32K"), ways_of_associativity, coherency_line_size and
 * shared_cpu_list (the logical CPUs that share this instance). The kernel fills them from
 * CPUID leaf 4 / 0x8000001D, i.e. the vendor's own description. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib_impl.h"

/* Reads the first line of DIR/SUB/NAME into buf, without the newline. */
static int read_line(const char *dir, const char *sub, const char *name, char *buf, size_t size, char *path,
                     size_t path_size) {
  snprintf(path, path_size, "%s/%s/%s", dir, sub, name);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  int ok = fgets(buf, (int)size, f) != NULL;
  fclose(f);
  if (!ok) return -1;
  buf[strcspn(buf, "\n")] = '\0';
  return 0;
}

static int parse_u64(const char *s, uint64_t *out) {
  if (!isdigit((unsigned char)*s)) return -1;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end) return -1;
  *out = v;
  return 0;
}

/* "32K", "1M", "4096": the kernel prints sizes in KiB with a K suffix. */
static int parse_size(const char *s, uint64_t *out) {
  char num[32];
  size_t n = strspn(s, "0123456789");
  if (n == 0 || n >= sizeof num) return -1;
  memcpy(num, s, n);
  num[n] = '\0';
  uint64_t v, mult = 1;
  if (parse_u64(num, &v)) return -1;
  const char *suf = s + n;
  if (!strcmp(suf, "K"))
    mult = 1024;
  else if (!strcmp(suf, "M"))
    mult = 1024 * 1024;
  else if (!strcmp(suf, "G"))
    mult = 1024 * 1024 * 1024;
  else if (*suf)
    return -1;
  *out = v * mult;
  return 0;
}

uint32_t ppt_calib_cpulist_count(const char *list) {
  uint64_t count = 0;
  const char *s = list;
  if (!s || !*s) return 0;
  while (*s) {
    char *end;
    if (!isdigit((unsigned char)*s)) return 0;
    unsigned long lo = strtoul(s, &end, 10), hi = lo;
    s = end;
    if (*s == '-') {
      s++;
      if (!isdigit((unsigned char)*s)) return 0;
      hi = strtoul(s, &end, 10);
      s = end;
      if (hi < lo) return 0;
    }
    count += hi - lo + 1;
    if (*s == ',') {
      s++;
      if (!*s) return 0;
    } else if (*s && *s != '\n') {
      return 0;
    } else if (*s == '\n') {
      break;
    }
  }
  return count > UINT32_MAX ? 0 : (uint32_t)count;
}

uint32_t calib_cpus_primary(const char *list, const char *cpu_dir, int *out, uint32_t max) {
  uint32_t n = 0;
  const char *s = list;
  if (!s || ppt_calib_cpulist_count(s) == 0) return 0;
  while (*s && n < max) {
    char *end;
    unsigned long lo = strtoul(s, &end, 10), hi = lo;
    s = end;
    if (*s == '-') hi = strtoul(s + 1, &end, 10), s = end;
    for (unsigned long c = lo; c <= hi && n < max; c++) {
      /* Keep the first hardware thread of each core: two threads on one core share its
       * load ports and would measure the core, not the cache. */
      char sub[64], buf[256], path[4096];
      snprintf(sub, sizeof sub, "cpu%lu/topology", c);
      if (cpu_dir &&
          read_line(cpu_dir, sub, "thread_siblings_list", buf, sizeof buf, path, sizeof path) == 0 &&
          isdigit((unsigned char)buf[0]) && strtoul(buf, NULL, 10) != c)
        continue;
      out[n++] = (int)c;
    }
    if (*s == ',') s++;
  }
  return n;
}

typedef struct found {
  unsigned index;
  ppt_calib_cache lv;
} found;

static int by_level(const void *a, const void *b) {
  const found *x = a, *y = b;
  if (x->lv.level != y->lv.level) return x->lv.level < y->lv.level ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

int ppt_calib_read_sysfs(const char *dir, ppt_calib_caches *out, ppt_err *err) {
  memset(out, 0, sizeof *out);
  DIR *d = opendir(dir);
  if (!d) return ppt_err_set(err, PPT_EINPUT, "%s: cannot open: %s", dir, strerror(errno));
  found f[32];
  size_t nf = 0;
  char path[4096], buf[256];
  struct dirent *e;
  int rc = 0;
  while (!rc && (e = readdir(d)) != NULL) {
    unsigned idx;
    char tail;
    if (sscanf(e->d_name, "index%u%c", &idx, &tail) != 1) continue;
    if (read_line(dir, e->d_name, "type", buf, sizeof buf, path, sizeof path)) {
      rc = ppt_err_set(err, PPT_EINPUT, "%s: cannot read", path);
      break;
    }
    if (strcmp(buf, "Data") != 0 && strcmp(buf, "Unified") != 0) continue; /* Instruction */
    if (nf == sizeof f / sizeof f[0]) continue;
    found *x = &f[nf];
    memset(x, 0, sizeof *x);
    x->index = idx;
    uint64_t v;
#define FIELD(name, parse, dst)                                                                       \
  if (!rc && (read_line(dir, e->d_name, name, buf, sizeof buf, path, sizeof path) || parse(buf, &v))) \
    rc = ppt_err_set(err, PPT_EINPUT, "%s: missing or not a number ('%s')", path, buf);               \
  else if (!rc)                                                                                       \
    dst = v;
    buf[0] = '\0';
    FIELD("level", parse_u64, x->lv.level)
    FIELD("size", parse_size, x->lv.size)
    FIELD("coherency_line_size", parse_u64, x->lv.line)
    FIELD("ways_of_associativity", parse_u64, x->lv.assoc)
#undef FIELD
    if (rc) break;
    if (read_line(dir, e->d_name, "shared_cpu_list", buf, sizeof buf, path, sizeof path) ||
        (x->lv.shared_cpus = ppt_calib_cpulist_count(buf)) == 0) {
      rc = ppt_err_set(err, PPT_EINPUT, "%s: missing or not a CPU list ('%s')", path, buf);
      break;
    }
    x->lv.source = PPT_CALIB_GEO_SYSFS;
    snprintf(x->lv.where, sizeof x->lv.where, "sysfs %s", e->d_name);
    if (strlen(buf) < sizeof x->lv.shared_cpu_list)
      snprintf(x->lv.shared_cpu_list, sizeof x->lv.shared_cpu_list, "%s", buf);
    else
      x->lv.shared_cpu_list[0] = '\0';
    if (x->lv.level == 0 || x->lv.size == 0 || x->lv.line == 0) {
      rc = ppt_err_set(err, PPT_EINPUT, "%s/%s: level, size and line must be positive", dir, e->d_name);
      break;
    }
    nf++;
  }
  closedir(d);
  if (rc) return rc;
  if (nf == 0) return ppt_err_set(err, PPT_EINPUT, "%s: no data or unified cache listed", dir);
  qsort(f, nf, sizeof f[0], by_level);
  for (size_t i = 0; i < nf; i++) {
    if (out->nlevels && f[i].lv.level == out->levels[out->nlevels - 1].level) continue;
    if (out->nlevels == PPT_HW_MAX_LEVELS) break;
    out->levels[out->nlevels++] = f[i].lv;
  }
  return 0;
}

const char *calib_human_bytes(uint64_t bytes, char *buf, size_t size) {
  if (bytes >= (UINT64_C(1) << 20) && bytes % (UINT64_C(1) << 20) == 0)
    snprintf(buf, size, "%llu MiB", (unsigned long long)(bytes >> 20));
  else if (bytes >= 1024 && bytes % 1024 == 0)
    snprintf(buf, size, "%llu KiB", (unsigned long long)(bytes >> 10));
  else if (bytes >= 1024)
    snprintf(buf, size, "%.4g KiB", (double)bytes / 1024);
  else
    snprintf(buf, size, "%llu B", (unsigned long long)bytes);
  return buf;
}

void calib_note(char *notes, size_t size, const char *fmt, ...) {
  if (!notes || !size) return;
  size_t used = strnlen(notes, size);
  if (used + 1 >= size) return;
  if (used) {
    notes[used++] = ' ';
    notes[used] = '\0';
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(notes + used, size - used, fmt, ap);
  va_end(ap);
}

static int is_pow2(uint64_t x) {
  return x && !(x & (x - 1));
}

int ppt_calib_geometry(const ppt_calib_caches *sys, uint32_t cores, uint32_t smt, ppt_hwspec *hw, char *notes,
                       size_t notes_size) {
  int changes = 0;
  if (smt == 0) smt = 1;
  if (cores == 0) cores = 1;
  hw->cores = cores;
  hw->nlevels = sys->nlevels;
  uint32_t line0 = sys->levels[0].line;
  if (!is_pow2(line0) || line0 < 8 || line0 > 4096) line0 = 64;
  for (uint32_t k = 0; k < sys->nlevels; k++) {
    const ppt_calib_cache *s = &sys->levels[k];
    ppt_hw_level *lv = &hw->levels[k];
    memset(lv, 0, sizeof *lv);
    snprintf(lv->name, sizeof lv->name, "L%u", s->level);
    lv->line = line0;
    if (s->line != line0) {
      calib_note(notes, notes_size, "%s: line %u B read as %u B (one line size for all levels).", lv->name,
                 s->line, line0);
      changes++;
    }
    uint64_t lines = s->size / line0;
    if (lines == 0) lines = 1;
    /* The models count cores, not hardware threads: SMT siblings share every level, so
     * a level shared by 2 logical CPUs on a 2-way SMT core is private to the core. */
    uint32_t shared = (s->shared_cpus + smt - 1) / smt;
    uint32_t above = k ? hw->levels[k - 1].shared_by : 1;
    uint32_t want = shared;
    if (want > cores) want = cores;
    if (want < above) want = above;
    while (cores % want || want % above) want++; /* ends at cores at the latest */
    if (want != shared) {
      calib_note(notes, notes_size,
                 "%s: shared by %u cores per sysfs, %u here (shared_by must divide "
                 "cores and cover the level above).",
                 lv->name, shared, want);
      changes++;
    }
    lv->shared_by = want;
    uint32_t assoc = s->assoc;
    if (assoc == 0 || assoc > lines) assoc = (uint32_t)lines; /* fully associative */
    uint64_t sets = lines / assoc;
    uint64_t size = lines * line0;
    if (lines % assoc || !is_pow2(sets)) {
      /* Sliced caches hash lines over a non-power-of-two number of slices (a 25 MiB
       * 20-way L3 of 10 slices has 20480 sets); the models index sets with a mask, so
       * keep the capacity with the largest power-of-two set count below and more ways. */
      uint64_t p = 1;
      while (p * 2 <= sets) p *= 2;
      if (lines % p == 0 && lines / p <= UINT32_MAX) {
        calib_note(notes, notes_size,
                   "%s: %llu sets x %u ways is not a power-of-two set count; "
                   "modelled as %llu sets x %llu ways (same %llu bytes).",
                   lv->name, (unsigned long long)sets, assoc, (unsigned long long)p,
                   (unsigned long long)(lines / p), (unsigned long long)size);
        assoc = (uint32_t)(lines / p);
      } else {
        calib_note(notes, notes_size,
                   "%s: %llu sets x %u ways is not a power-of-two set count; "
                   "modelled as %llu sets x %u ways (%llu of %llu bytes).",
                   lv->name, (unsigned long long)sets, assoc, (unsigned long long)p, assoc,
                   (unsigned long long)(p * assoc * line0), (unsigned long long)size);
        size = p * assoc * line0;
      }
      changes++;
    }
    if (k > 0 && size < hw->levels[k - 1].size) {
      calib_note(notes, notes_size, "%s: %llu bytes is smaller than the level above; raised to %llu.",
                 lv->name, (unsigned long long)size, (unsigned long long)hw->levels[k - 1].size);
      size = hw->levels[k - 1].size;
      assoc = (uint32_t)(hw->levels[k - 1].size / line0 / ppt_hwspec_sets(&hw->levels[k - 1]));
      changes++;
    }
    lv->size = size;
    lv->assoc = assoc;
    /* Levels beyond the second are the sliced last levels of x86 packages: a hash of the
     * physical address picks the slice, and the 4 KiB pages' frames scatter the set bits
     * above 12, so a power-of-two stride does not fold onto a few sets as it would in a
     * cache indexed by the virtual line number's low bits. Indexed so, adi's column walks
     * (8 KiB apart) are priced from DRAM on a Zen 3 guest whose chase-sized L3 has 2048
     * sets: 393 ms against 105 ms measured (hashed: 99 ms). */
    lv->hashed_sets = k >= 2;
  }
  return changes;
}

int calib_read_line(const char *dir, const char *sub, const char *name, char *buf, size_t size) {
  char path[4096];
  return read_line(dir, sub, name, buf, size, path, sizeof path);
}

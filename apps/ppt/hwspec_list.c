/* hwspec_list.c — `ppt hwspec --list [DIR]`: one row per spec sheet of a folder (name,
 * year, ISA, cores, clock, the first three cache levels, DRAM bandwidth), sorted by
 * vendor and year, as a table or JSON. The table in docs/hwspec.md is its output. */
#include "hwspec_list.h"

#include <dirent.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

static int is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int ppt_cli_hwspecs_default_dir(char *buf, size_t cap, ppt_err *err) {
  /* An installed ppt lists the specs installed with it, not those of a source tree
   * that may have moved on (or be gone). */
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) *slash = '\0'; /* bin/ */
    slash = strrchr(exe, '/');
    if (slash) {
      *slash = '\0'; /* the prefix */
      int w = snprintf(buf, cap, "%s/%s", exe, PPT_HWSPECS_INSTALL_REL);
      if (w > 0 && (size_t)w < cap && is_dir(buf)) return 0;
    }
  }
  int w = snprintf(buf, cap, "%s", PPT_HWSPECS_SOURCE_DIR);
  if (w > 0 && (size_t)w < cap && is_dir(buf)) return 0;
  return ppt_err_set(err, PPT_EINPUT, "no hwspecs folder found (neither installed beside ppt nor %s); name one",
                     PPT_HWSPECS_SOURCE_DIR);
}

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int row_cmp(const void *pa, const void *pb) {
  const hwspec_row *a = pa, *b = pb;
  int c = strcmp(a->vendor, b->vendor);
  if (c) return c;
  /* unknown year (0) after the dated parts of the same vendor */
  unsigned ya = a->hw->year ? a->hw->year : 100000u, yb = b->hw->year ? b->hw->year : 100000u;
  if (ya != yb) return ya < yb ? -1 : 1;
  return strcmp(a->hw->name, b->hw->name);
}

static int add_row(hwspec_lib *lib, size_t *cap, const char *file, ppt_err *err) {
  if (lib->n == *cap) {
    size_t nc = *cap ? 2 * *cap : 64;
    hwspec_row *r = realloc(lib->rows, nc * sizeof *r);
    if (!r) return ppt_err_set(err, PPT_ERUN, "out of memory");
    lib->rows = r;
    *cap = nc;
  }
  hwspec_row *row = &lib->rows[lib->n];
  memset(row, 0, sizeof *row);
  if (strlen(file) >= sizeof row->file) return ppt_err_set(err, PPT_EINPUT, "%s: file name too long", file);
  snprintf(row->file, sizeof row->file, "%s", file);
  size_t v = strcspn(file, "-.");
  if (v >= sizeof row->vendor) v = sizeof row->vendor - 1;
  memcpy(row->vendor, file, v);
  row->vendor[v] = '\0';
  row->hw = calloc(1, sizeof *row->hw);
  if (!row->hw) return ppt_err_set(err, PPT_ERUN, "out of memory");
  lib->n++;
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", lib->dir, file);
  return ppt_hwspec_load(path, row->hw, err);
}

int ppt_cli_hwspecs_load(const char *dir, hwspec_lib *lib, ppt_err *err) {
  memset(lib, 0, sizeof *lib);
  int rc = 0;
  if (dir) {
    if (strlen(dir) >= sizeof lib->dir) return ppt_err_set(err, PPT_EINPUT, "%s: path too long", dir);
    snprintf(lib->dir, sizeof lib->dir, "%s", dir);
    /* a folder given as "DIR/" names its files DIR/FILE, not DIR//FILE */
    for (size_t n = strlen(lib->dir); n > 1 && lib->dir[n - 1] == '/'; n--) lib->dir[n - 1] = '\0';
  } else if ((rc = ppt_cli_hwspecs_default_dir(lib->dir, sizeof lib->dir, err))) {
    return rc;
  }
  DIR *d = opendir(lib->dir);
  if (!d) return ppt_err_set(err, PPT_EINPUT, "%s: cannot open folder", lib->dir);
  size_t cap = 0;
  struct dirent *e;
  while (!rc && (e = readdir(d))) {
    if (e->d_name[0] == '.' || !ends_with(e->d_name, ".json")) continue;
    rc = add_row(lib, &cap, e->d_name, err);
  }
  closedir(d);
  if (!rc && lib->n == 0) rc = ppt_err_set(err, PPT_EINPUT, "%s: no *.json specs in this folder", lib->dir);
  if (!rc) qsort(lib->rows, lib->n, sizeof *lib->rows, row_cmp);
  return rc;
}

void ppt_cli_hwspecs_free(hwspec_lib *lib) {
  for (size_t i = 0; i < lib->n; i++) free(lib->rows[i].hw);
  free(lib->rows);
  lib->rows = NULL;
  lib->n = 0;
}

/* A level as "SIZE/SHARED": 48K/1 is a private 48 KiB, 32M/8 one 32 MiB instance for 8
 * cores; "-" when the spec has no such level. Column k = 2 shows the last level, so
 * that a part with four (Lion Cove's L0, L1, L2, L3) still shows its last-level cache,
 * marked "+" for the levels between that the row leaves out. */
static void fmt_level(char *buf, size_t cap, const ppt_hwspec *hw, uint32_t k) {
  int skipped = k == 2 && hw->nlevels > 3;
  if (skipped) k = hw->nlevels - 1;
  if (k >= hw->nlevels) {
    snprintf(buf, cap, "-");
    return;
  }
  const ppt_hw_level *lv = &hw->levels[k];
  char sz[32];
  if (lv->size >= (1u << 20))
    snprintf(sz, sizeof sz, "%gM", (double)lv->size / (1 << 20));
  else if (lv->size % 1024 == 0)
    snprintf(sz, sizeof sz, "%lluK", (unsigned long long)(lv->size / 1024));
  else
    snprintf(sz, sizeof sz, "%lluB", (unsigned long long)lv->size);
  snprintf(buf, cap, "%s/%u%s", sz, lv->shared_by, skipped ? "+" : "");
}

void ppt_hwspec_write_list_table(const hwspec_lib *lib) {
  printf("%-28s %4s %-7s %5s %5s %-9s %-9s %-11s %9s\n", "name", "year", "isa", "cores", "GHz", "L1", "L2",
         "L3", "DRAM GB/s");
  for (size_t i = 0; i < lib->n; i++) {
    const ppt_hwspec *hw = lib->rows[i].hw;
    char year[16] = "-", ghz[16] = "-", dram[16] = "-", l1[40], l2[40], l3[40];
    if (hw->year) snprintf(year, sizeof year, "%u", hw->year);
    if (hw->clock_hz > 0) snprintf(ghz, sizeof ghz, "%g", hw->clock_hz / 1e9);
    if (hw->dram_bw_bytes_per_s > 0) snprintf(dram, sizeof dram, "%g", hw->dram_bw_bytes_per_s / 1e9);
    fmt_level(l1, sizeof l1, hw, 0);
    fmt_level(l2, sizeof l2, hw, 1);
    fmt_level(l3, sizeof l3, hw, 2);
    printf("%-28s %4s %-7s %5u %5s %-9s %-9s %-11s %9s\n", hw->name, year, hw->isa[0] ? hw->isa : "-",
           hw->cores, ghz, l1, l2, l3, dram);
  }
  printf("\n%zu specs in %s; a level is SIZE/CORES: one instance's size and the cores sharing it\n"
         "(L3: the last level; +: levels between it and L2 not shown); DRAM is the socket's bandwidth\n",
         lib->n, lib->dir);
}

/* The shortest digits that read back to v (204.8, not 204.80000000000001); NULL for an
 * absent figure (0). */
static json_object *num_or_null(double v) {
  if (!(v > 0)) return NULL;
  char buf[40];
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  return json_object_new_double_s(v, buf);
}

static json_object *row_json(const hwspec_row *row) {
  const ppt_hwspec *hw = row->hw;
  json_object *o = json_object_new_object(), *lv = json_object_new_array();
  if (!o || !lv) {
    json_object_put(o);
    json_object_put(lv);
    return NULL;
  }
  json_object_object_add(o, "file", json_object_new_string(row->file));
  json_object_object_add(o, "name", json_object_new_string(hw->name));
  json_object_object_add(o, "vendor", json_object_new_string(row->vendor));
  json_object_object_add(o, "year", hw->year ? json_object_new_int64(hw->year) : NULL);
  json_object_object_add(o, "isa", hw->isa[0] ? json_object_new_string(hw->isa) : NULL);
  json_object_object_add(o, "cores", json_object_new_int64(hw->cores));
  json_object_object_add(o, "clock_ghz", num_or_null(hw->clock_hz / 1e9));
  for (uint32_t k = 0; k < hw->nlevels; k++) {
    json_object *l = json_object_new_object();
    json_object_object_add(l, "name", json_object_new_string(hw->levels[k].name));
    json_object_object_add(l, "size", json_object_new_uint64(hw->levels[k].size));
    json_object_object_add(l, "shared_by", json_object_new_int64(hw->levels[k].shared_by));
    json_object_array_add(lv, l);
  }
  json_object_object_add(o, "levels", lv);
  json_object_object_add(o, "dram_bandwidth_gbs", num_or_null(hw->dram_bw_bytes_per_s / 1e9));
  json_object_object_add(o, "dram_latency_ns", num_or_null(hw->dram_latency_ns));
  return o;
}

int ppt_hwspec_write_list_json(const hwspec_lib *lib, ppt_err *err) {
  json_object *root = json_object_new_object(), *specs = json_object_new_array();
  if (!root || !specs) {
    json_object_put(root);
    json_object_put(specs);
    return ppt_cli_put_json(NULL, 0, err);
  }
  json_object_object_add(root, "dir", json_object_new_string(lib->dir));
  for (size_t i = 0; i < lib->n; i++) json_object_array_add(specs, row_json(&lib->rows[i]));
  json_object_object_add(root, "specs", specs);
  return ppt_cli_put_json(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, err);
}

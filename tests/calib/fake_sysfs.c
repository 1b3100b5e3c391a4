/* fake_sysfs.c — see fake_sysfs.h. */
#include "fake_sysfs.h"

#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *fake_root(void) {
  char tmpl[] = "/tmp/ppt-calib-XXXXXX";
  char *d = mkdtemp(tmpl);
  ck_assert_ptr_nonnull(d);
  return strdup(d);
}

void fake_put(const char *root, const char *rel, const char *text) {
  char p[4096];
  snprintf(p, sizeof p, "%s/%s", root, rel);
  for (char *s = p + strlen(root) + 1; *s; s++) /* the parent folders */
    if (*s == '/') {
      *s = '\0';
      mkdir(p, 0755);
      *s = '/';
    }
  FILE *f = fopen(p, "w");
  ck_assert_msg(f != NULL, "%s: %s", p, strerror(errno));
  fprintf(f, "%s\n", text);
  fclose(f);
}

void fake_put_cache(const char *root, int idx, const char *level, const char *type, const char *size,
                    const char *ways, const char *list) {
  static const char *const names[] = {
      "level", "type", "size", "ways_of_associativity", "coherency_line_size", "shared_cpu_list"};
  const char *values[] = {level, type, size, ways, "64", list};
  for (int i = 0; i < 6; i++) {
    char rel[128];
    snprintf(rel, sizeof rel, "cpu0/cache/index%d/%s", idx, names[i]);
    fake_put(root, rel, values[i]);
  }
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  remove(path);
  return 0;
}

void fake_rm_rf(const char *root) {
  nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

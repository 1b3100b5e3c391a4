/* hwspec_set.c — one setting of a hwspec changed by name ("what if L2 were 256 KiB"):
 * the `--set LEVEL.KEY=VALUE` of ppt sasmm, predict and sweep (docs/hwspec.md, "Settings").
 *
 * The setting is applied to the spec's own JSON form and the result parsed back with the
 * strict parser, so every key the file format has can be set (levels' and TLB levels'
 * keys by the level's name, "dram.latency_ns", "ops.fadd.per_cycle", "clock_ghz", ...),
 * and a value the format would refuse is refused with the parser's own message: one
 * checker for files and settings alike. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "ppt/hwspec.h"

int ppt_hwspec_parse_number(const char *s, int integer, double *v) {
  char *end;
  errno = 0;
  double x = strtod(s, &end);
  if (end == s || errno || !isfinite(x)) return -1;
  double mult = 1;
  if (*end) {
    const char *suffixes = "KMG";
    const char *p = strchr(suffixes, toupper((unsigned char)*end));
    if (!integer || !p) return -1;
    mult = (double)(1ull << (10 * (p - suffixes + 1)));
    end++;
    if (!strcasecmp(end, "iB") || !strcasecmp(end, "B")) end += strlen(end);
    if (*end) return -1;
  }
  *v = x * mult;
  return 0;
}

/* The JSON value for `text` in place of `old`, whose type it takes. A key the spec left
 * out (old NULL: latency_cycles, replacement, ...) takes what the text looks like: a
 * number, true/false, or else a string; the parser then says whether the key wants it. */
static json_object *new_value(json_object *old, const char *text, const char *key, ppt_err *err) {
  double x;
  json_type t = old                                               ? json_object_get_type(old)
                : !ppt_hwspec_parse_number(text, 1, &x)           ? json_type_int
                : !ppt_hwspec_parse_number(text, 0, &x)           ? json_type_double
                : !strcmp(text, "true") || !strcmp(text, "false") ? json_type_boolean
                                                                  : json_type_string;
  if (t == json_type_int && !old && x != floor(x)) t = json_type_double;
  if (t == json_type_string) return json_object_new_string(text);
  if (t == json_type_boolean) {
    if (!strcmp(text, "true") || !strcmp(text, "1")) return json_object_new_boolean(1);
    if (!strcmp(text, "false") || !strcmp(text, "0")) return json_object_new_boolean(0);
    ppt_err_set(err, PPT_EINPUT, "%s: wants true or false, not '%s'", key, text);
    return NULL;
  }
  if (t != json_type_int && t != json_type_double) {
    ppt_err_set(err, PPT_EINPUT, "%s: is not a single value that can be set", key);
    return NULL;
  }
  double v;
  int integer = t == json_type_int;
  if (ppt_hwspec_parse_number(text, integer, &v) || (integer && (v != floor(v) || v < 0 || v > 9.2e18))) {
    ppt_err_set(err, PPT_EINPUT, "%s: wants %s, not '%s'", key,
                integer ? "a whole number (K, M, G suffixes allowed)" : "a number", text);
    return NULL;
  }
  return integer ? json_object_new_int64((int64_t)v) : json_object_new_double(v);
}

/* The element of array `arr` whose "name" is `name` (case-insensitive), or NULL. */
static json_object *by_name(json_object *arr, const char *name, size_t len) {
  size_t n = arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;
  for (size_t i = 0; i < n; i++) {
    json_object *e = json_object_array_get_idx(arr, i), *nm;
    if (json_object_object_get_ex(e, "name", &nm)) {
      const char *s = json_object_get_string(nm);
      if (strlen(s) == len && !strncasecmp(s, name, len)) return e;
    }
  }
  return NULL;
}

/* Sets `path` (dot-separated) in the spec's JSON root to `text`. A first component that
 * names a cache or TLB level descends into it; "line" alone sets every level's line (the
 * simulator wants one line size for the hierarchy). */
static int set_path(json_object *root, const char *path, const char *label, const char *text, ppt_err *err) {
  json_object *obj = root, *levels = NULL, *tlb = NULL;
  json_object_object_get_ex(root, "levels", &levels);
  json_object_object_get_ex(root, "tlb", &tlb);
  if (!strcmp(path, "line")) {
    size_t n = levels ? json_object_array_length(levels) : 0;
    for (size_t i = 0; i < n; i++) {
      json_object *lv = json_object_array_get_idx(levels, i), *old = NULL;
      json_object_object_get_ex(lv, "line", &old);
      json_object *v = new_value(old, text, label, err);
      if (!v) return err->status;
      if (json_object_object_add(lv, "line", v)) return ppt_err_set(err, PPT_ERUN, "out of memory");
    }
    return 0;
  }
  const char *p = path;
  for (;;) {
    size_t len = strcspn(p, ".");
    if (!len) return ppt_err_set(err, PPT_EINPUT, "%s: empty part in the key", label);
    if (!p[len]) { /* the last component: the key to set */
      /* a key the spec leaves out (latency_cycles, ...) takes a number; one the format
       * does not know is refused by the parser */
      json_object *old = NULL;
      json_object_object_get_ex(obj, p, &old);
      json_object *v = new_value(old, text, label, err);
      if (!v) return err->status;
      if (json_object_object_add(obj, p, v)) return ppt_err_set(err, PPT_ERUN, "out of memory");
      return 0;
    }
    json_object *next = NULL;
    if (obj == root) next = by_name(levels, p, len);
    if (!next && obj == root) next = by_name(tlb, p, len);
    if (!next) {
      char part[64];
      snprintf(part, sizeof part, "%.*s", (int)(len < 63 ? len : 63), p);
      if (!json_object_object_get_ex(obj, part, &next) || !json_object_is_type(next, json_type_object)) {
        if (obj == root)
          return ppt_err_set(err, PPT_EINPUT, "%s: no level or section '%s' in the spec", label, part);
        return ppt_err_set(err, PPT_EINPUT, "%s: no section '%s'", label, part);
      }
    }
    obj = next;
    p += len + 1;
  }
}

int ppt_hwspec_set(ppt_hwspec *hw, const char *setting, ppt_err *err) {
  const char *eq = strchr(setting, '=');
  if (!eq || eq == setting || !eq[1])
    return ppt_err_set(err, PPT_EINPUT, "setting '%s': wants KEY=VALUE, e.g. L2.size=256K", setting);
  char key[128];
  if ((size_t)(eq - setting) >= sizeof key)
    return ppt_err_set(err, PPT_EINPUT, "setting '%s': key too long", setting);
  snprintf(key, sizeof key, "%.*s", (int)(eq - setting), setting);
  /* "ways" is the usual word for a level's associativity; the file says "assoc" */
  size_t kl = strlen(key);
  if (kl > 5 && !strcmp(key + kl - 5, ".ways")) snprintf(key + kl - 5, sizeof key - (kl - 5), ".assoc");
  json_object *root = ppt_hwspec_to_json_object(hw);
  if (!root) return ppt_err_set(err, PPT_ERUN, "out of memory");
  char name[160];
  snprintf(name, sizeof name, "setting %s", setting);
  int rc = set_path(root, key, name, eq + 1, err);
  ppt_hwspec out;
  if (!rc) rc = ppt_hwspec_from_json_object(root, name, &out, err);
  json_object_put(root);
  if (!rc) *hw = out;
  return rc;
}

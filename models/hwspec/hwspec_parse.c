/* hwspec_parse.c — strict JSON → ppt_hwspec (schema: docs/hwspec.md).
 *
 * Spec sheets are typed in by hand, so a typo must fail loudly rather than silently
 * fall back to a default: every object is checked for unknown keys, every required key
 * for presence, every value for its JSON type. This file only reads fields; the
 * semantic checks (sizes, powers of two, nesting of levels) live in hwspec_check.c so
 * that specs built in code get the same checks. Messages: "NAME: key.path: problem". */
#include "ppt/hwspec.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwspec_limits.h"

#define MAX_FILE_BYTES (1 << 20) /* a spec sheet is a few KB; anything this big is not one */

typedef struct pctx {
  const char *name;
  ppt_err *err;
} pctx;

static int fail(pctx *c, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(pctx *c, const char *path, const char *fmt, ...) {
  char msg[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (path && *path) return ppt_err_set(c->err, PPT_EINPUT, "%s: %s: %s", c->name, path, msg);
  return ppt_err_set(c->err, PPT_EINPUT, "%s: %s", c->name, msg);
}

static void join(char *buf, size_t cap, const char *path, const char *key) {
  if (path && *path)
    snprintf(buf, cap, "%s.%s", path, key);
  else
    snprintf(buf, cap, "%s", key);
}

/* What a value of the wrong type is, for "must be a number, got null": a null must not
 * read as a missing key or a syntax error. */
static const char *got(json_object *v) {
  switch (json_object_get_type(v)) {
    case json_type_null: return "null";
    case json_type_boolean: return "a boolean";
    case json_type_double: return "a number with a fraction or exponent";
    case json_type_int: return "an integer";
    case json_type_object: return "an object";
    case json_type_array: return "an array";
    case json_type_string: return "a string";
  }
  return "another type";
}

/* Rejects any key of `o` not in the NULL-terminated `allowed` list. */
static int check_keys(pctx *c, json_object *o, const char *path, const char *const *allowed) {
  json_object_object_foreach(o, key, val) {
    (void)val;
    int ok = 0;
    for (const char *const *a = allowed; *a; a++)
      if (strcmp(*a, key) == 0) ok = 1;
    if (!ok) {
      char list[256] = "", p[160];
      for (const char *const *a = allowed; *a; a++) {
        if (list[0]) strncat(list, ", ", sizeof list - strlen(list) - 1);
        strncat(list, *a, sizeof list - strlen(list) - 1);
      }
      join(p, sizeof p, path, key);
      return fail(c, p, "unknown key (allowed here: %s)", list);
    }
  }
  return 0;
}

/* Looks up `key`; *present says whether it is there. A missing required key fails. */
static int lookup(pctx *c, json_object *o, const char *path, const char *key, int required, json_object **val,
                  int *present) {
  *present = json_object_object_get_ex(o, key, val);
  if (!*present && required) {
    char p[160];
    join(p, sizeof p, path, key);
    return fail(c, p, "required key is missing");
  }
  return 0;
}

/* An integer in [lo, max] (hwspec_limits.h): checked here, before it is narrowed to the
 * struct's field, so the message gives the real limit and not the field's width. */
static int get_uint(pctx *c, json_object *o, const char *path, const char *key, int required, uint64_t lo,
                    uint64_t max, const char *unit, uint64_t *out, int *present) {
  json_object *v;
  int rc = lookup(c, o, path, key, required, &v, present);
  if (rc || !*present) return rc;
  char p[160];
  join(p, sizeof p, path, key);
  if (!json_object_is_type(v, json_type_int)) return fail(c, p, "must be an integer, got %s", got(v));
  int64_t x = json_object_get_int64(v);
  if (x < 0 || (uint64_t)x < lo || (uint64_t)x > max)
    return fail(c, p, "%lld is out of range [%llu, %llu] %s", (long long)x, (unsigned long long)lo,
                (unsigned long long)max, unit);
  *out = (uint64_t)x;
  return 0;
}

/* A positive finite number (an absent optional figure is left out, never written as 0). */
/* A number > 0, or >= 0 when zero_ok (0 is meaningful for some figures: a free op, a TLB
 * level whose miss costs nothing). */
static int get_number(pctx *c, json_object *o, const char *path, const char *key, int required, int zero_ok,
                      double *out) {
  json_object *v;
  int present;
  int rc = lookup(c, o, path, key, required, &v, &present);
  if (rc || !present) return rc;
  char p[160];
  join(p, sizeof p, path, key);
  if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
    return fail(c, p, "must be a number, got %s", got(v));
  double x = json_object_get_double(v);
  if (zero_ok && (!isfinite(x) || x < 0)) return fail(c, p, "must be a number >= 0 (got %g)", x);
  if (!zero_ok && (!isfinite(x) || x <= 0))
    return fail(c, p, "must be a positive number (got %g); leave the key out if unknown", x);
  *out = x;
  return 0;
}

static int get_pos(pctx *c, json_object *o, const char *path, const char *key, int required, double *out) {
  return get_number(c, o, path, key, required, 0, out);
}

static int get_nonneg(pctx *c, json_object *o, const char *path, const char *key, int required, double *out) {
  return get_number(c, o, path, key, required, 1, out);
}

/* "core_speed" and "busy_speed": each 1 to PPT_HW_MAX_SPEEDS positive numbers (their
 * range is checked in hwspec_check.c). */
static int get_speed_list(pctx *c, json_object *root, const char *key, double *out, uint32_t *count) {
  json_object *v;
  int present;
  int rc = lookup(c, root, "", key, 0, &v, &present);
  if (rc || !present) return rc;
  if (!json_object_is_type(v, json_type_array)) return fail(c, key, "must be an array, got %s", got(v));
  size_t n = json_object_array_length(v);
  if (n == 0 || n > PPT_HW_MAX_SPEEDS)
    return fail(c, key, "must list 1 to %d speeds (got %zu)", PPT_HW_MAX_SPEEDS, n);
  for (size_t i = 0; i < n; i++) {
    json_object *x = json_object_array_get_idx(v, i);
    char p[32];
    snprintf(p, sizeof p, "%s[%zu]", key, i);
    if (!json_object_is_type(x, json_type_double) && !json_object_is_type(x, json_type_int))
      return fail(c, p, "must be a number, got %s", got(x));
    double s = json_object_get_double(x);
    if (!isfinite(s) || s <= 0) return fail(c, p, "must be a positive number (got %g)", s);
    out[i] = s;
  }
  *count = (uint32_t)n;
  return 0;
}

static int get_speeds(pctx *c, json_object *root, ppt_hwspec *hw) {
  int rc = get_speed_list(c, root, "core_speed", hw->core_speed, &hw->nspeeds);
  return rc ? rc : get_speed_list(c, root, "busy_speed", hw->busy_speed, &hw->nbusy);
}

static int get_str(pctx *c, json_object *o, const char *path, const char *key, int required, char *buf,
                   size_t cap) {
  json_object *v;
  int present;
  int rc = lookup(c, o, path, key, required, &v, &present);
  if (rc || !present) return rc;
  char p[160];
  join(p, sizeof p, path, key);
  if (!json_object_is_type(v, json_type_string)) return fail(c, p, "must be a string, got %s", got(v));
  size_t n = (size_t)json_object_get_string_len(v);
  if (n >= cap) return fail(c, p, "too long (%zu bytes, at most %zu)", n, cap - 1);
  memcpy(buf, json_object_get_string(v), n);
  buf[n] = '\0';
  return 0;
}

static int get_obj(pctx *c, json_object *o, const char *path, const char *key, int required,
                   json_object **out) {
  int present;
  *out = NULL;
  int rc = lookup(c, o, path, key, required, out, &present);
  if (rc || !present) {
    *out = NULL;
    return rc;
  }
  if (!json_object_is_type(*out, json_type_object)) {
    char p[160];
    join(p, sizeof p, path, key);
    return fail(c, p, "must be an object, got %s", got(*out));
  }
  return 0;
}

/* An optional true/false key into *out (1/0); *out untouched when absent. */
static int get_flag(pctx *c, json_object *o, const char *path, const char *key, int *out) {
  json_object *v;
  int present, rc = lookup(c, o, path, key, 0, &v, &present);
  if (rc || !present) return rc;
  if (!json_object_is_type(v, json_type_boolean)) {
    char p[160];
    join(p, sizeof p, path, key);
    return fail(c, p, "must be true or false, got %s", got(v));
  }
  *out = json_object_get_boolean(v) ? 1 : 0;
  return 0;
}

static int parse_level(pctx *c, json_object *o, const char *path, ppt_hw_level *lv) {
  static const char *const keys[] = {"name",
                                     "size",
                                     "assoc",
                                     "line",
                                     "shared_by",
                                     "inclusive",
                                     "latency_cycles",
                                     "bandwidth_bytes_per_cycle",
                                     "replacement",
                                     "core_bandwidth_bytes_per_cycle",
                                     "victim_ways",
                                     "hashed_sets",
                                     "demand_size",
                                     NULL};
  if (!json_object_is_type(o, json_type_object)) return fail(c, path, "must be an object, got %s", got(o));
  int rc = check_keys(c, o, path, keys);
  uint64_t u = 0;
  int present;
  if (!rc) rc = get_str(c, o, path, "name", 1, lv->name, sizeof lv->name);
  if (!rc)
    rc = get_uint(c, o, path, "size", 1, HW_MIN_LEVEL_SIZE, HW_MAX_LEVEL_SIZE, "bytes", &lv->size, &present);
  if (!rc && !(rc = get_uint(c, o, path, "assoc", 1, 1, HW_MAX_ASSOC, "ways", &u, &present)))
    lv->assoc = (uint32_t)u;
  if (!rc && !(rc = get_uint(c, o, path, "line", 1, HW_MIN_LINE, HW_MAX_LINE, "bytes", &u, &present)))
    lv->line = (uint32_t)u;
  lv->shared_by = 1; /* private unless said otherwise */
  if (!rc && !(rc = get_uint(c, o, path, "shared_by", 0, 1, HW_MAX_CORES, "cores", &u, &present)) && present)
    lv->shared_by = (uint32_t)u;
  if (!rc) rc = get_flag(c, o, path, "inclusive", &lv->inclusive);
  if (!rc) rc = get_flag(c, o, path, "hashed_sets", &lv->hashed_sets);
  json_object *v;
  if (!rc && !(rc = lookup(c, o, path, "replacement", 0, &v, &present)) && present) {
    const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
    lv->replacement = -1;
    for (int r = PPT_HW_REPL_LRU; r <= PPT_HW_REPL_RANDOM; r++)
      if (strcmp(s, ppt_hw_replacement_name(r)) == 0) lv->replacement = r;
    if (lv->replacement < 0) {
      char p[160];
      join(p, sizeof p, path, "replacement");
      return fail(c, p, "must be \"lru\" or \"random\"");
    }
  }
  if (!rc && !(rc = get_uint(c, o, path, "victim_ways", 0, 1, HW_MAX_ASSOC, "ways", &u, &present)) && present)
    lv->victim_ways = (uint32_t)u;
  if (!rc)
    rc = get_uint(c, o, path, "demand_size", 0, HW_MIN_LEVEL_SIZE, HW_MAX_LEVEL_SIZE, "bytes", &lv->demand_size,
                  &present);
  if (!rc) rc = get_pos(c, o, path, "latency_cycles", 0, &lv->latency_cycles);
  if (!rc) rc = get_pos(c, o, path, "bandwidth_bytes_per_cycle", 0, &lv->bw_bytes_per_cycle);
  if (!rc) rc = get_pos(c, o, path, "core_bandwidth_bytes_per_cycle", 0, &lv->core_bw_bytes_per_cycle);
  return rc;
}

/* One data-TLB level. Every key but in_flight is required: a TLB level without its size
 * or its cost is a half-typed entry, not an unknown figure (miss_cycles 0 is a valid
 * measurement); in_flight left out means misses one at a time. */
static int parse_tlb(pctx *c, json_object *o, const char *path, ppt_hw_tlb *tl) {
  static const char *const keys[] = {"name", "entries", "assoc", "page_bytes", "miss_cycles", "in_flight", NULL};
  if (!json_object_is_type(o, json_type_object)) return fail(c, path, "must be an object, got %s", got(o));
  int rc = check_keys(c, o, path, keys);
  uint64_t u = 0;
  int present;
  if (!rc) rc = get_str(c, o, path, "name", 1, tl->name, sizeof tl->name);
  if (!rc && !(rc = get_uint(c, o, path, "entries", 1, 1, HW_MAX_TLB_ENTRIES, "entries", &u, &present)))
    tl->entries = (uint32_t)u;
  if (!rc && !(rc = get_uint(c, o, path, "assoc", 1, 1, HW_MAX_ASSOC, "ways", &u, &present)))
    tl->assoc = (uint32_t)u;
  if (!rc && !(rc = get_uint(c, o, path, "page_bytes", 1, HW_MIN_PAGE, HW_MAX_PAGE, "bytes", &u, &present)))
    tl->page_bytes = (uint32_t)u;
  if (!rc) rc = get_nonneg(c, o, path, "miss_cycles", 1, &tl->miss_cycles);
  if (!rc) rc = get_pos(c, o, path, "in_flight", 0, &tl->in_flight);
  return rc;
}

static int parse_ops(pctx *c, json_object *ops, ppt_hwspec *hw) {
  static const char *const keys[] = {"ialu",   "idiv",   "fadd",  "fmul", "fdiv",
                                     "branch", "loadst", "fsqrt", NULL};
  static const char *const opkeys[] = {"per_cycle", "latency", NULL};
  int rc = check_keys(c, ops, "ops", keys);
  /* Classes may be left out (0: unknown); ppt_hwspec_has_timing reports them when the
   * runtime model needs them. A listed class needs both figures. */
  for (int k = 0; !rc && k < PPT_HW_NOPCLASS; k++) {
    char p[64];
    json_object *e;
    snprintf(p, sizeof p, "ops.%s", keys[k]);
    rc = get_obj(c, ops, "ops", keys[k], 0, &e);
    if (rc || !e) continue;
    rc = check_keys(c, e, p, opkeys);
    if (!rc) rc = get_pos(c, e, p, "per_cycle", 1, &hw->ops[k].per_cycle);
    /* latency 0 is meaningful (fused or free ops) */
    if (!rc) rc = get_nonneg(c, e, p, "latency", 1, &hw->ops[k].latency);
  }
  return rc;
}

/* Resolves a field path ("levels[1].size", "dram") against the document, so that a
 * citation cannot silently point at a field that does not exist. */
static int path_exists(json_object *root, const char *path) {
  json_object *cur = root;
  const char *s = path;
  if (!*s) return 0;
  while (*s) {
    char seg[64];
    size_t n = strcspn(s, ".[");
    if (n == 0 || n >= sizeof seg) return 0;
    memcpy(seg, s, n);
    seg[n] = '\0';
    s += n;
    if (!json_object_is_type(cur, json_type_object) || !json_object_object_get_ex(cur, seg, &cur)) return 0;
    while (*s == '[') {
      char *end;
      errno = 0;
      unsigned long idx = strtoul(s + 1, &end, 10);
      if (end == s + 1 || *end != ']' || errno || !json_object_is_type(cur, json_type_array) ||
          idx >= json_object_array_length(cur))
        return 0;
      cur = json_object_array_get_idx(cur, idx);
      s = end + 1;
    }
    if (*s == '.') {
      s++;
      if (!*s) return 0;
    } else if (*s) {
      return 0;
    }
  }
  return 1;
}

static int parse_sources(pctx *c, json_object *root, json_object *src, ppt_hwspec *hw) {
  json_object_object_foreach(src, key, val) {
    char p[160];
    join(p, sizeof p, "sources", key);
    if (hw->nsources >= PPT_HW_MAX_SOURCES)
      return fail(c, "sources", "more than %d citations", PPT_HW_MAX_SOURCES);
    if (!json_object_is_type(val, json_type_string)) return fail(c, p, "must be a string, got %s", got(val));
    ppt_hw_source *s = &hw->sources[hw->nsources];
    if (strlen(key) >= sizeof s->key) return fail(c, p, "key too long");
    if (!path_exists(root, key) || strcmp(key, "sources") == 0)
      return fail(c, p, "names no field of this spec");
    if ((size_t)json_object_get_string_len(val) >= sizeof s->text)
      return fail(c, p, "citation too long (at most %zu bytes)", sizeof s->text - 1);
    snprintf(s->key, sizeof s->key, "%s", key);
    snprintf(s->text, sizeof s->text, "%s", json_object_get_string(val));
    hw->nsources++;
  }
  return 0;
}

static int parse_root(pctx *c, json_object *root, ppt_hwspec *hw) {
  static const char *const keys[] = {"name",
                                     "source",
                                     "notes",
                                     "sources",
                                     "year",
                                     "isa",
                                     "clock_ghz",
                                     "cores",
                                     "vector_bits",
                                     "mlp",
                                     "mlp_same_set",
                                     "call_cycles",
                                     "fork_join_cycles",
                                     "fork_join_serial_cycles",
                                     "branch_miss_cycles",
                                     "store_forward_cycles",
                                     "store_forward_fp_cycles",
                                     "fp_window",
                                     "fp_chains",
                                     "block_cycles",
                                     "contention_factor",
                                     "coherence_cycles",
                                     "core_speed",
                                     "busy_speed",
                                     "levels",
                                     "tlb",
                                     "dram",
                                     "ops",
                                     NULL};
  if (!json_object_is_type(root, json_type_object))
    return fail(c, NULL, "top level must be a JSON object, got %s", got(root));
  int rc = check_keys(c, root, "", keys);
  uint64_t u = 0;
  int present;
  if (!rc) rc = get_str(c, root, "", "name", 1, hw->name, sizeof hw->name);
  if (!rc) rc = get_str(c, root, "", "source", 0, hw->source, sizeof hw->source);
  if (!rc) rc = get_str(c, root, "", "notes", 0, hw->notes, sizeof hw->notes);
  /* The instruction set is checked against the known names in hwspec_check.c. */
  if (!rc) rc = get_str(c, root, "", "isa", 0, hw->isa, sizeof hw->isa);
  if (!rc && !(rc = get_uint(c, root, "", "year", 0, HW_MIN_YEAR, HW_MAX_YEAR, "(year)", &u, &present)) && present)
    hw->year = (uint32_t)u;
  double ghz = 0;
  if (!rc) rc = get_pos(c, root, "", "clock_ghz", 0, &ghz);
  /* Whole Hz: GHz times 1e9 is a unit off for some clocks (4.02 GHz reads back
   * 4019999999.9999995 Hz), so a spec written by ppt_hwspec_to_json would not read
   * back the clock it was written with (ppt calibrate rounds it to 3 digits). */
  double hz = ghz * 1e9;
  hw->clock_hz = hz >= 1.0 ? nearbyint(hz) : hz;
  if (!rc && !(rc = get_uint(c, root, "", "cores", 1, 1, HW_MAX_CORES, "cores", &u, &present)))
    hw->cores = (uint32_t)u;
  /* The power of two is checked in hwspec_check.c. */
  if (!rc &&
      !(rc = get_uint(c, root, "", "vector_bits", 0, HW_MIN_VECTOR_BITS, HW_MAX_VECTOR_BITS, "bits", &u,
                      &present)) &&
      present)
    hw->vector_bits = (uint32_t)u;
  if (!rc) rc = get_pos(c, root, "", "mlp", 0, &hw->mlp);
  json_object *same;
  if (!rc) rc = get_obj(c, root, "", "mlp_same_set", 0, &same);
  if (!rc && same) {
    /* Both figures or neither: a column walk is timed storing and loading alike, and a
     * half-typed entry is a typo, not an unknown figure. The range (1..1024, like mlp)
     * is checked in hwspec_check.c. */
    static const char *const skeys[] = {"load", "store", NULL};
    rc = check_keys(c, same, "mlp_same_set", skeys);
    if (!rc) rc = get_pos(c, same, "mlp_same_set", "load", 1, &hw->mlp_same_set_load);
    if (!rc) rc = get_pos(c, same, "mlp_same_set", "store", 1, &hw->mlp_same_set_store);
  }
  if (!rc) rc = get_pos(c, root, "", "call_cycles", 0, &hw->call_cycles);
  if (!rc) rc = get_pos(c, root, "", "fork_join_cycles", 0, &hw->fork_join_cycles);
  if (!rc) rc = get_pos(c, root, "", "fork_join_serial_cycles", 0, &hw->fork_join_serial_cycles);
  if (!rc) rc = get_pos(c, root, "", "branch_miss_cycles", 0, &hw->branch_miss_cycles);
  if (!rc) rc = get_pos(c, root, "", "store_forward_cycles", 0, &hw->store_forward_cycles);
  if (!rc) rc = get_pos(c, root, "", "store_forward_fp_cycles", 0, &hw->store_forward_fp_cycles);
  if (!rc) rc = get_pos(c, root, "", "fp_window", 0, &hw->fp_window);
  if (!rc) rc = get_pos(c, root, "", "fp_chains", 0, &hw->fp_chains);
  if (!rc) rc = get_flag(c, root, "", "block_cycles", &hw->block_cycles);
  if (!rc) rc = get_pos(c, root, "", "contention_factor", 0, &hw->contention_factor);
  /* Cycles per cache-to-cache transfer; its upper bound is checked in hwspec_check.c. */
  if (!rc) rc = get_pos(c, root, "", "coherence_cycles", 0, &hw->coherence_cycles);
  if (!rc) rc = get_speeds(c, root, hw);
  json_object *levels;
  if (!rc && !(rc = lookup(c, root, "", "levels", 1, &levels, &present))) {
    if (!json_object_is_type(levels, json_type_array))
      return fail(c, "levels", "must be an array, got %s", got(levels));
    size_t n = json_object_array_length(levels);
    if (n == 0 || n > PPT_HW_MAX_LEVELS)
      return fail(c, "levels", "must list 1 to %d cache levels (got %zu)", PPT_HW_MAX_LEVELS, n);
    hw->nlevels = (uint32_t)n;
    for (size_t i = 0; !rc && i < n; i++) {
      char p[32];
      snprintf(p, sizeof p, "levels[%zu]", i);
      rc = parse_level(c, json_object_array_get_idx(levels, i), p, &hw->levels[i]);
    }
  }
  json_object *tlb;
  if (!rc && !(rc = lookup(c, root, "", "tlb", 0, &tlb, &present)) && present) {
    if (!json_object_is_type(tlb, json_type_array))
      return fail(c, "tlb", "must be an array, got %s", got(tlb));
    size_t n = json_object_array_length(tlb);
    if (n == 0 || n > PPT_HW_MAX_TLB)
      return fail(c, "tlb", "must list 1 to %d TLB levels (got %zu); leave the key out if unknown",
                  PPT_HW_MAX_TLB, n);
    hw->ntlb = (uint32_t)n;
    for (size_t i = 0; !rc && i < n; i++) {
      char p[32];
      snprintf(p, sizeof p, "tlb[%zu]", i);
      rc = parse_tlb(c, json_object_array_get_idx(tlb, i), p, &hw->tlb[i]);
    }
  }
  json_object *dram;
  if (!rc) rc = get_obj(c, root, "", "dram", 0, &dram);
  if (!rc && dram) {
    static const char *const dkeys[] = {"latency_ns",     "bandwidth_gbs",       "core_bandwidth_gbs",
                                        "writeback_cost", "core_writeback_cost", NULL};
    double gbs = 0;
    rc = check_keys(c, dram, "dram", dkeys);
    if (!rc && json_object_object_length(dram) == 0)
      return fail(c, "dram", "empty; give latency_ns and/or bandwidth_gbs or leave it out");
    if (!rc) rc = get_pos(c, dram, "dram", "latency_ns", 0, &hw->dram_latency_ns);
    if (!rc) rc = get_pos(c, dram, "dram", "bandwidth_gbs", 0, &gbs);
    hw->dram_bw_bytes_per_s = gbs * 1e9;
    double core_gbs = 0;
    if (!rc) rc = get_pos(c, dram, "dram", "core_bandwidth_gbs", 0, &core_gbs);
    hw->dram_core_bw_bytes_per_s = core_gbs * 1e9;
    /* 0 is a cost too (write-backs on a path of their own): absent is -1 here. */
    double wb_core = -1, wb = -1;
    if (!rc) rc = get_nonneg(c, dram, "dram", "core_writeback_cost", 0, &wb_core);
    if (!rc) rc = get_nonneg(c, dram, "dram", "writeback_cost", 0, &wb);
    hw->dram_core_wb_cost = wb_core >= 0 ? wb_core : 0.0;
    hw->dram_wb_cost = wb >= 0 ? wb : 0.0;
    hw->dram_wb_given = (wb_core >= 0 ? 1u : 0u) | (wb >= 0 ? 2u : 0u);
  }
  json_object *ops;
  if (!rc) rc = get_obj(c, root, "", "ops", 0, &ops);
  if (!rc && ops && json_object_object_length(ops) == 0)
    return fail(c, "ops", "empty; list op classes or leave it out");
  if (!rc && ops) rc = parse_ops(c, ops, hw);
  json_object *src;
  if (!rc) rc = get_obj(c, root, "", "sources", 0, &src);
  if (!rc && src) rc = parse_sources(c, root, src, hw);
  return rc;
}

int ppt_hwspec_from_json_object(json_object *obj, const char *name, ppt_hwspec *out, ppt_err *err) {
  pctx c = {name ? name : "<hwspec>", err};
  ppt_hwspec *hw = calloc(1, sizeof *hw);
  if (!hw) return ppt_err_set(err, PPT_ERUN, "%s: out of memory", c.name);
  int rc = parse_root(&c, obj, hw);
  if (!rc) rc = ppt_hwspec_validate(hw, c.name, err);
  if (!rc) *out = *hw;
  free(hw);
  return rc;
}

int ppt_hwspec_parse(const char *json, const char *name, ppt_hwspec *out, ppt_err *err) {
  pctx c = {name ? name : "<hwspec>", err};
  size_t len = strlen(json);
  json_tokener *tok = json_tokener_new();
  if (!tok) return ppt_err_set(err, PPT_ERUN, "%s: out of memory", c.name);
  /* STRICT: no trailing commas, single quotes, comments or trailing text. */
  json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
  /* The terminating NUL is passed too: without it json-c cannot tell that a top-level
   * scalar (`null`, `5`) is complete and reports "unexpected end of file". */
  json_object *root = json_tokener_parse_ex(tok, json, (int)len + 1);
  enum json_tokener_error jerr = json_tokener_get_error(tok);
  size_t end = json_tokener_get_parse_end(tok);
  json_tokener_free(tok);
  if (!root && jerr == json_tokener_success) /* the document is a JSON null */
    return fail(&c, NULL, "top level must be a JSON object, got null");
  if (!root || jerr != json_tokener_success) {
    unsigned line = 1;
    for (size_t i = 0; i < end && i < len; i++) line += json[i] == '\n';
    if (root) json_object_put(root);
    if (jerr == json_tokener_continue || jerr == json_tokener_error_parse_eof)
      return fail(&c, NULL, "not valid JSON: unexpected end of file");
    return fail(&c, NULL, "not valid JSON at line %u: %s", line, json_tokener_error_desc(jerr));
  }
  int rc = ppt_hwspec_from_json_object(root, c.name, out, err);
  json_object_put(root);
  return rc;
}

int ppt_hwspec_load(const char *path, ppt_hwspec *out, ppt_err *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return ppt_err_set(err, PPT_EINPUT, "%s: cannot open: %s", path, strerror(errno));
  char *buf = malloc(MAX_FILE_BYTES + 1);
  if (!buf) {
    fclose(f);
    return ppt_err_set(err, PPT_ERUN, "%s: out of memory", path);
  }
  size_t n = fread(buf, 1, MAX_FILE_BYTES + 1, f);
  int bad = ferror(f);
  fclose(f);
  int rc;
  if (bad)
    rc = ppt_err_set(err, PPT_EINPUT, "%s: read error", path);
  else if (n > MAX_FILE_BYTES)
    rc = ppt_err_set(err, PPT_EINPUT, "%s: larger than %d bytes, not a hwspec", path, MAX_FILE_BYTES);
  else if (memchr(buf, '\0', n))
    rc = ppt_err_set(err, PPT_EINPUT, "%s: contains a NUL byte, not a JSON text", path);
  else {
    buf[n] = '\0';
    rc = ppt_hwspec_parse(buf, path, out, err);
  }
  free(buf);
  return rc;
}

/* cmd_hitrate.c — `ppt hitrate TRACE|PROFILE --hw SPEC`: per-level hit rates of one
 * reuse profile by SDCM (SASMM §3.6 Eq. 5–7, docs/cache.md), every level seeing the same
 * profile: the single-thread view, no sharing and no interleaving (that is `ppt sasmm`).
 *
 * The profile comes from a trace (thread 0's exact histogram, computed here, on the CPU or
 * with --device opencl on an OpenCL device: the same histogram) or from a file written by
 * `ppt reuse -o` — PPT's text lines or JSON, told apart by content. */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_device.h"
#include "ppt/hwspec.h"
#include "ppt/reuse.h"
#include "ppt/sdcm.h"
#include "ppt/trace.h"
#include "trace/format.h"

static void help(void) {
  printf(
      "usage: ppt hitrate TRACE|PROFILE --hw SPEC [--line B] [--json]\n"
      "                   [--device cpu|opencl[:N]|list] [--device-batch N]\n\n"
      "Hit rates per cache level of SPEC (a hwspec, see 'ppt hwspec') predicted by SDCM from\n"
      "one reuse-distance profile, used for every level: a single thread running alone.\n"
      "The profile is thread 0's exact histogram of TRACE, or a PROFILE file written by\n"
      "'ppt reuse -o' (PPT text 'sd count p(sd)' or JSON, recognised by content).\n\n"
      "  --hw SPEC   hwspec JSON file (required)\n" PPT_CLI_SET_HELP
      "  --line B    line size of the profile in bytes (default: SPEC's line size). Text\n"
      "              profiles do not record it; it must equal SPEC's.\n"
      "  --no-stack-refs  a TRACE's IR references only (not the machine code's stack ones)\n"
      "  --json      machine-readable output on stdout\n" PPT_CLI_DEVICE_HELP
      "                  (a TRACE's histogram only)\n"
      "  -h, --help\n\n"
      "hit rate = global (1 - references missing at every level up to this one / all);\n"
      "local = hits here / references reaching here. Accesses and misses are expected counts\n"
      "(references x rates), assuming inclusion (docs/cache.md).\n"
      "Exit status: 0 success, 1 failure while running, 2 bad usage or bad input.\n");
}

typedef enum kind { KIND_TRACE, KIND_TEXT, KIND_JSON } kind;
static const char *kind_name[] = {"trace", "text profile", "JSON profile"};

typedef struct args {
  ppt_cli_common c; /* --hw, --json; c.operand: the trace or profile */
  uint64_t line;    /* --line; 0: the spec's */
  int device;       /* --device opencl: the trace's histogram on an OpenCL device */
  ppt_reuse_dev_opts dopt;
} args;

typedef struct results {
  ppt_hwspec hw;
  kind k;
  ppt_rdhist *h; /* the profile */
  ppt_sdcm_rates rates[PPT_HW_MAX_LEVELS];
} results;

/* A trace starts with its magic (docs/trace-format.md); JSON with '{'; anything else is
 * read as PPT text, whose parser names the first bad line. */
static int sniff(const char *path, kind *k, ppt_err *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return ppt_err_set(err, PPT_EINPUT, "%s: %s", path, strerror(errno));
  char head[8];
  size_t n = fread(head, 1, sizeof head, f);
  if (n > 0 && !memcmp(head, PPT_TRACE_MAGIC, n < 8 ? n : 8) && n >= 4) {
    *k = KIND_TRACE;
  } else {
    rewind(f);
    int c;
    while ((c = fgetc(f)) != EOF && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
    }
    *k = c == '{' ? KIND_JSON : KIND_TEXT;
  }
  fclose(f);
  return 0;
}

/* The trace's batches for the device, drawing the progress bar. */
typedef struct batches {
  ppt_trace_cursor *c;
  ppt_cli_progress *p;
  uint64_t done;
} batches;

static int next_batch(void *arg, const ppt_trace_rec **recs, size_t *n, ppt_err *err) {
  batches *b = arg;
  int rc = ppt_trace_cursor_next(b->c, recs, n, err);
  if (!rc) ppt_cli_progress_update(b->p, b->done += *n);
  return rc;
}

/* Thread 0's exact histogram, streamed a chunk at a time (into dev when not NULL). */
static int from_trace(const char *path, unsigned line, int stack_refs, const ppt_reuse_dev_opts *dev,
                      ppt_rdhist **out, ppt_err *err) {
  ppt_trace *t;
  int rc = ppt_trace_open(path, &t, err);
  if (rc) return rc;
  ppt_trace_set_stack_refs(t, stack_refs);
  ppt_reuse_opts o;
  ppt_reuse_opts_default(&o);
  o.line = line;
  ppt_reuse *r = NULL;
  ppt_trace_cursor *c = NULL;
  rc = ppt_reuse_new(&o, &r, err);
  if (!rc) rc = ppt_trace_cursor_open(t, 0, &c, err);
  ppt_cli_progress *p = rc ? NULL : ppt_cli_progress_start("analysing", ppt_trace_nrecs(t, 0));
  uint64_t done = 0;
  ppt_reuse_dev *d = NULL;
  if (!rc && dev && !(rc = ppt_cli_device_open(dev, &d, err))) {
    batches b = {c, p, 0};
    rc = ppt_reuse_dev_feed(d, r, next_batch, &b, err);
  }
  while (!rc && !d) {
    const ppt_trace_rec *recs;
    size_t n;
    if ((rc = ppt_trace_cursor_next(c, &recs, &n, err)) || !n) break;
    rc = ppt_reuse_feed(r, recs, n, err);
    ppt_cli_progress_update(p, done += n);
  }
  ppt_cli_progress_end(p);
  if (!rc) rc = ppt_reuse_finish(r, err);
  if (!rc && !(*out = ppt_rdhist_clone(ppt_reuse_hist(r)))) rc = ppt_err_set(err, PPT_ERUN, "out of memory");
  ppt_reuse_dev_free(d);
  ppt_trace_cursor_close(c);
  ppt_reuse_free(r);
  ppt_trace_close(t);
  return rc;
}

static int from_text(const char *path, unsigned line, ppt_rdhist **out, ppt_err *err) {
  FILE *f = fopen(path, "r");
  if (!f) return ppt_err_set(err, PPT_EINPUT, "%s: %s", path, strerror(errno));
  int rc = ppt_rdhist_read_text(f, path, line, out, err);
  fclose(f);
  return rc;
}

static int from_json(const char *path, ppt_rdhist **out, ppt_err *err) {
  json_object *j = json_object_from_file(path);
  if (!j) return ppt_err_set(err, PPT_EINPUT, "%s: not valid JSON", path);
  int rc = ppt_rdhist_from_json(j, path, out, err);
  json_object_put(j);
  return rc;
}

/* The histogram as SDCM's plain arrays (caller frees d and count). */
typedef struct arrays {
  uint64_t *d;
  double *count;
  size_t n;
} arrays;

static int collect(int64_t d, double count, void *arg) {
  arrays *a = arg;
  a->d[a->n] = (uint64_t)d;
  a->count[a->n++] = count;
  return 0;
}

static int to_profile(const ppt_rdhist *h, arrays *a, ppt_sdcm_profile *p, ppt_err *err) {
  size_t n = ppt_rdhist_nbins(h);
  a->n = 0;
  a->d = malloc((n ? n : 1) * sizeof *a->d);
  a->count = malloc((n ? n : 1) * sizeof *a->count);
  if (!a->d || !a->count || ppt_rdhist_foreach(h, collect, a) < 0)
    return ppt_err_set(err, PPT_ERUN, "out of memory");
  *p = (ppt_sdcm_profile){.d = a->d, .count = a->count, .n = a->n, .infinite = ppt_rdhist_infinite(h)};
  return 0;
}

static int write_table(void *va, void *vr, ppt_err *err) {
  const char *src = ((const args *)va)->c.operand, *spec = ((const args *)va)->c.hw;
  const results *res = vr;
  const ppt_hwspec *hw = &res->hw;
  const ppt_rdhist *h = res->h;
  const ppt_sdcm_rates *r = res->rates;
  kind k = res->k;
  double refs = ppt_rdhist_total(h);
  (void)err;
  printf("source   %s (%s%s)\n", src, kind_name[k], k == KIND_TRACE ? ", thread 0, exact" : "");
  printf("hwspec   %s (%s)\n", hw->name, spec);
  printf("profile  %.0f references, %.0f first touches, %u-byte lines\n", refs, ppt_rdhist_infinite(h),
         ppt_rdhist_line(h));
  printf("\n%-6s %10s %6s %16s %16s %10s %10s\n", "level", "size", "assoc", "accesses", "misses", "hit rate",
         "local");
  double above = 0;
  for (uint32_t i = 0; i < hw->nlevels; i++) {
    const ppt_hw_level *lv = &hw->levels[i];
    char size[32];
    if (lv->size % (1 << 20) == 0)
      snprintf(size, sizeof size, "%llu MiB", (unsigned long long)(lv->size >> 20));
    else if (lv->size % 1024 == 0)
      snprintf(size, sizeof size, "%llu KiB", (unsigned long long)(lv->size >> 10));
    else
      snprintf(size, sizeof size, "%llu B", (unsigned long long)lv->size);
    printf("%-6s %10s %6u %16.1f %16.1f", lv->name, size, lv->assoc, refs * (1 - above),
           refs * (1 - r[i].hit_rate));
    ppt_cli_put_rate(r[i].hit_rate);
    ppt_cli_put_rate(r[i].local_hit_rate);
    printf("%s\n", r[i].clamped ? "  (clamped)" : "");
    above = r[i].hit_rate;
  }
  printf(
      "\nSDCM (SASMM Eq. 5-7) on one profile for every level: one thread, no sharing.\n"
      "hit rate = global, local = hits / accesses here; counts are expected values.\n");
  return 0;
}

static json_object *rates_json(const char *src, kind k, const char *spec, const ppt_hwspec *hw,
                               const ppt_rdhist *h, const ppt_sdcm_rates *r) {
  const char *names[PPT_HW_MAX_LEVELS];
  for (uint32_t i = 0; i < hw->nlevels; i++) names[i] = hw->levels[i].name;
  json_object *root = ppt_sdcm_rates_json(names, r, hw->nlevels), *levels;
  if (!root || !json_object_object_get_ex(root, "levels", &levels)) return root;
  double refs = ppt_rdhist_total(h), above = 0;
  for (uint32_t i = 0; i < hw->nlevels; i++) {
    json_object *o = json_object_array_get_idx(levels, i);
    /* Inclusion: references reaching level k are those that missed level k-1. */
    json_object_object_add(o, "accesses", json_object_new_double(refs * (1 - above)));
    json_object_object_add(o, "misses", json_object_new_double(refs * (1 - r[i].hit_rate)));
    above = r[i].hit_rate;
  }
  json_object_object_add(root, "source", json_object_new_string(src));
  json_object_object_add(root, "source_kind", json_object_new_string(k == KIND_TRACE ? "trace" : "profile"));
  json_object_object_add(root, "hwspec", json_object_new_string(spec));
  json_object_object_add(root, "hwspec_name", json_object_new_string(hw->name));
  json_object_object_add(root, "line", json_object_new_int64(ppt_rdhist_line(h)));
  json_object_object_add(root, "refs", json_object_new_double(refs));
  json_object_object_add(root, "infinite", json_object_new_double(ppt_rdhist_infinite(h)));
  json_object_object_add(root, "model", json_object_new_string("sdcm-single-thread"));
  return root;
}

static int take(void *arg, int val, const char *value) {
  args *a = arg;
  if (val == 'D') return ppt_cli_device_parse("hitrate", value, &a->device, &a->dopt);
  if (val == 'B') return ppt_cli_device_batch("hitrate", value, &a->dopt);
  if (ppt_cli_parse_u64(value, &a->line) || a->line < 1 || a->line > (1u << 20) || (a->line & (a->line - 1)))
    return ppt_cli_usage("hitrate", "--line wants a power of two up to 1 MiB, not '%s'", value);
  return 0;
}

static int parse_args(int argc, char **argv, void *va) {
  static const struct option own[] = {{"line", required_argument, 0, 'l'},
                                      {"device", required_argument, 0, 'D'},
                                      {"device-batch", required_argument, 0, 'B'},
                                      {0, 0, 0, 0}};
  static const ppt_cli_spec spec = {.cmd = "hitrate",
                                    .shared = PPT_OPT_HW | PPT_OPT_SET | PPT_OPT_JSON | PPT_OPT_NOSTACK,
                                    .own = own,
                                    .take = take,
                                    .help = help,
                                    .operand = "TRACE or PROFILE"};
  args *a = va;
  ppt_reuse_dev_opts_default(&a->dopt);
  return ppt_cli_parse(&spec, argc, argv, &a->c, a);
}

/* The profile of the source, checked against the spec's line size. */
static int load_profile(const args *a, results *r, ppt_err *err) {
  const char *src = a->c.operand, *spec = a->c.hw;
  unsigned hwline = r->hw.levels[0].line; /* one line size for all levels (hwspec_check.c) */
  if (a->line && a->line != hwline)
    return ppt_err_set(err, PPT_EINPUT, "%s: --line %llu differs from the spec's %u-byte lines", spec,
                       (unsigned long long)a->line, hwline);
  int rc;
  if (r->k == KIND_TRACE)
    rc = from_trace(src, hwline, !a->c.no_stack_refs, a->device ? &a->dopt : NULL, &r->h, err);
  else if (r->k == KIND_TEXT)
    rc = from_text(src, hwline, &r->h, err);
  else
    rc = from_json(src, &r->h, err);
  if (!rc && ppt_rdhist_line(r->h) != hwline)
    rc = ppt_err_set(err, PPT_EINPUT, "%s: the profile has %u-byte lines, %s has %u", src,
                     ppt_rdhist_line(r->h), spec, hwline);
  if (!rc && !(ppt_rdhist_total(r->h) > 0))
    rc = ppt_err_set(err, PPT_EINPUT, "%s: the profile is empty", src);
  return rc;
}

static int run(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  results *r = vr;
  /* The spec first: it is small, and a typo in it should not wait for a trace. */
  int rc = ppt_cli_load_hw(&a->c, &r->hw, err);
  if (!rc) rc = sniff(a->c.operand, &r->k, err);
  if (!rc) rc = load_profile(a, r, err);
  if (rc) return rc;
  arrays arr = {0};
  ppt_sdcm_profile prof[PPT_HW_MAX_LEVELS];
  rc = to_profile(r->h, &arr, &prof[0], err);
  for (uint32_t i = 1; !rc && i < r->hw.nlevels; i++) prof[i] = prof[0];
  if (!rc) rc = ppt_sdcm_hierarchy_hw(&r->hw, prof, r->rates, err);
  free(arr.d);
  free(arr.count);
  return rc;
}

static int write_json(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  const results *r = vr;
  json_object *o = rates_json(a->c.operand, r->k, a->c.hw, &r->hw, r->h, r->rates);
  return ppt_cli_put_json(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, err);
}

static void release(void *vr) {
  ppt_rdhist_free(((results *)vr)->h);
}

int ppt_cmd_hitrate(int argc, char **argv) {
  static const ppt_cli_steps steps = {"hitrate", parse_args, run, write_table, write_json, NULL, release};
  if (ppt_cli_device_wants_list(argc, argv)) return ppt_cli_device_list("hitrate");
  return ppt_cli_main(&steps, argc, argv, &(args){0}, &(results){0});
}

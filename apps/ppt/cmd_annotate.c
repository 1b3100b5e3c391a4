/* cmd_annotate.c — `ppt annotate`: references and misses per cache level per function and
 * per source line for the N-core run that `ppt sasmm` simulates (ppt/annotate.h), in the
 * manner of cg_annotate: tables sorted by one level's misses, then the source of the top
 * lines with their counts beside it. */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "ppt/annotate.h"
#include "ppt/hwspec.h"
#include "ppt/sasmm.h"
#include "ppt/trace.h"

#define CONTEXT 3 /* source lines shown either side of an annotated line, as cg_annotate */

static void help(void) {
  printf(
      "usage: ppt annotate TRACE --hw SPEC --cores N [--only SEL] [--sort LEVEL] [--top K]\n"
      "                    [--interleave rr|uniform] [--seed S] [--source-dir DIR] [--json]\n\n"
      "Attributes the references and the misses at every cache level of SPEC to functions and\n"
      "source lines, like cg_annotate, for the run of N cores that 'ppt sasmm' simulates: the\n"
      "loops of the sequential TRACE dealt to N mimicked cores, their streams interleaved, and\n"
      "the result simulated exactly on SPEC. A reference served by level d missed every level\n"
      "above d. Counts are references (one per load/store, Cachegrind's unit).\n\n"
      "Each reference is charged to its basic block, and a block to its first source line: a\n"
      "block that spans several lines is charged to the first of them (cg_annotate, which\n"
      "knows each instruction's line, spreads it). A line whose blocks lie in several functions\n"
      "(an OpenMP pragma: the caller and the outlined body) gets a row per function.\n\n"
      "  --hw SPEC              hwspec JSON (required)\n" PPT_CLI_SET_HELP
      "  --cores N              mimicked cores (required; one count)\n"
      "  --sort LEVEL           order the rows by the misses of LEVEL (a level name of SPEC,\n"
      "                         case-insensitive) or by 'refs' (default: the last level)\n"
      "  --top K                rows per table, and lines whose source is shown (default 20;\n"
      "                         0: all rows)\n"
      "  --source-dir DIR       look for the sources in DIR (as recorded, then by base name)\n"
      "                         before the recorded path\n"
      "  --interleave rr|uniform  how the cores' streams meet in shared levels (default rr)\n"
      "  --seed S               seed of the uniform interleaving and of random replacement\n"
      "                         (default 1)\n" PPT_CLI_ONLY_HELP PPT_CLI_NOSTACK_HELP
      "  --json                 machine-readable output on stdout (the same rows)\n"
      "  -h, --help\n\n"
      "Exit status: 0 success, 1 failure while running, 2 bad usage or bad input.\n");
}

typedef struct args {
  ppt_cli_common c; /* --hw, --cores, --interleave, --seed, --only, --json; c.operand: the trace */
  const char *sort; /* NULL: the last level */
  uint64_t top;
  const char *source_dir;
} args;

typedef struct results {
  ppt_hwspec hw;
  ppt_trace *t;
  uint8_t *counted;
  ppt_annotate_result res;
  int level; /* the sort key: a level, or -1 for references */
  ppt_annotate_row *funcs, *lines;
  size_t nfuncs, nlines;
} results;

/* ---------------------------------------------------------------- options */

static int take(void *arg, int val, const char *value) {
  args *a = arg;
  switch (val) {
    case 'S':
      if (!*value) return ppt_cli_usage("annotate", "--sort wants a level name or 'refs'");
      a->sort = value;
      return 0;
    case 'k':
      if (ppt_cli_parse_u64(value, &a->top))
        return ppt_cli_usage("annotate", "--top wants a count (0: all), not '%s'", value);
      return 0;
    default: /* --source-dir */
      if (!*value) return ppt_cli_usage("annotate", "--source-dir wants a folder");
      a->source_dir = value;
      return 0;
  }
}

static int parse_args(int argc, char **argv, void *va) {
  static const struct option own[] = {{"sort", required_argument, 0, 'S'},
                                      {"top", required_argument, 0, 'k'},
                                      {"source-dir", required_argument, 0, 'd'},
                                      {0, 0, 0, 0}};
  static const ppt_cli_spec spec = {.cmd = "annotate",
                                    .shared = PPT_OPT_HW | PPT_OPT_SET | PPT_OPT_CORES | PPT_OPT_INTERLEAVE |
                                              PPT_OPT_SEED | PPT_OPT_ONLY | PPT_OPT_JSON | PPT_OPT_NOSTACK,
                                    .own = own,
                                    .take = take,
                                    .help = help,
                                    .operand = "TRACE"};
  args *a = va;
  a->top = 20;
  int rc = ppt_cli_parse(&spec, argc, argv, &a->c, a);
  if (rc) return rc;
  /* The shared --cores takes a list and defaults to one; one run here needs one count,
   * given: a list (the default included) is refused. */
  if (a->c.ncores != 1) {
    ppt_cli_common_free(&a->c);
    return ppt_cli_usage("annotate", "--cores N (one core count) is required");
  }
  return 0;
}

/* ---------------------------------------------------------------- run */

/* --sort's level: a name of SPEC (any case), "refs" (-1), or the last level by default. */
static int sort_level(const args *a, const ppt_hwspec *hw, int *level, ppt_err *err) {
  *level = (int)hw->nlevels - 1;
  if (!a->sort) return 0;
  if (!strcasecmp(a->sort, "refs")) {
    *level = -1;
    return 0;
  }
  for (uint32_t k = 0; k < hw->nlevels; k++)
    if (!strcasecmp(a->sort, hw->levels[k].name)) {
      *level = (int)k;
      return 0;
    }
  char names[PPT_HW_MAX_LEVELS * 18] = "";
  for (uint32_t k = 0; k < hw->nlevels; k++)
    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "", hw->levels[k].name);
  return ppt_err_set(err, PPT_EINPUT, "--sort: %s has no level '%s' (its levels: %s; or refs)", a->c.hw,
                     a->sort, names);
}

static int run(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  results *r = vr;
  int rc = ppt_cli_load_hw(&a->c, &r->hw, err);
  if (!rc) rc = sort_level(a, &r->hw, &r->level, err);
  if (!rc) rc = ppt_cli_open_sequential(a->c.operand, &r->t, err);
  if (!rc) ppt_cli_stack_refs(&a->c, r->t);
  /* A selection that matches nothing is bad input (ppt_cli_counted names it). */
  if (!rc) rc = ppt_cli_counted(&a->c, r->t, &r->counted, err);
  if (!rc) rc = ppt_cli_check_memory(&a->c, r->t, &r->hw, 1, 1, err);
  if (rc) return rc;
  ppt_annotate_opts o;
  ppt_annotate_opts_default(&o);
  o.sasmm.ncores = a->c.cores[0];
  o.sasmm.interleave = a->c.interleave[0];
  o.sasmm.seed = a->c.seed;
  o.counted = r->counted;
  /* The sequential stream's length: replicated parallel code makes the mimic's a little
   * longer, and the bar stops at full. */
  ppt_cli_progress *p = ppt_cli_progress_start("simulating", ppt_trace_nrefs(r->t, 0));
  o.progress = ppt_cli_progress_cb;
  o.progress_arg = p;
  rc = ppt_annotate_run(r->t, &r->hw, &o, &r->res, err);
  ppt_cli_progress_end(p);
  if (!rc) rc = ppt_annotate_group(r->t, &r->res, PPT_ANNOTATE_BY_FUNCTION, &r->funcs, &r->nfuncs, err);
  if (!rc) rc = ppt_annotate_group(r->t, &r->res, PPT_ANNOTATE_BY_LINE, &r->lines, &r->nlines, err);
  if (!rc &&
      (ppt_annotate_sort(r->funcs, r->nfuncs, r->level) || ppt_annotate_sort(r->lines, r->nlines, r->level)))
    rc = ppt_err_set(err, PPT_ERUN, "out of memory");
  return rc;
}

static void release(void *vr) {
  results *r = vr;
  free(r->funcs);
  free(r->lines);
  ppt_annotate_result_free(&r->res);
  free(r->counted);
  ppt_trace_close(r->t);
}

/* Rows shown: --top of n (0: all). */
static size_t shown(const args *a, size_t n) {
  return a->top && a->top < n ? (size_t)a->top : n;
}

/* ---------------------------------------------------------------- JSON */

static json_object *levels_json(const ppt_hwspec *hw, const ppt_annotate_counts *c) {
  json_object *arr = json_object_new_array();
  for (uint32_t k = 0; k < hw->nlevels; k++) {
    json_object *l = json_object_new_object();
    json_object_object_add(l, "name", json_object_new_string(hw->levels[k].name));
    json_object_object_add(l, "misses", json_object_new_uint64(c->misses[k]));
    json_object_array_add(arr, l);
  }
  return arr;
}

static json_object *rows_json(const args *a, const ppt_hwspec *hw, const ppt_annotate_row *rows, size_t n,
                              int lines) {
  json_object *arr = json_object_new_array();
  for (size_t i = 0; i < shown(a, n); i++) {
    json_object *e = json_object_new_object();
    if (lines) {
      json_object_object_add(e, "file", json_object_new_string(rows[i].file));
      json_object_object_add(e, "line", json_object_new_int64(rows[i].line));
      json_object_object_add(e, "function", json_object_new_string(rows[i].function));
    } else {
      json_object_object_add(e, "function", json_object_new_string(rows[i].function));
      json_object_object_add(e, "file", json_object_new_string(rows[i].file));
    }
    json_object_object_add(e, "refs", json_object_new_uint64(rows[i].c.refs));
    json_object_object_add(e, "levels", levels_json(hw, &rows[i].c));
    json_object_array_add(arr, e);
  }
  return arr;
}

static int write_json(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  const results *r = vr;
  json_object *o = json_object_new_object(), *names = json_object_new_array(),
              *tot = json_object_new_object();
  json_object_object_add(o, "trace", json_object_new_string(a->c.operand));
  json_object_object_add(o, "hw", json_object_new_string(a->c.hw));
  json_object_object_add(o, "cores", json_object_new_int64(a->c.cores[0]));
  json_object_object_add(o, "interleave", json_object_new_string(ppt_interleave_name(a->c.interleave[0])));
  json_object_object_add(o, "seed", json_object_new_uint64(a->c.seed));
  json_object_object_add(o, "only", a->c.only_list ? json_object_new_string(a->c.only_list) : NULL);
  json_object_object_add(o, "sort",
                         json_object_new_string(r->level < 0 ? "refs" : r->hw.levels[r->level].name));
  for (uint32_t k = 0; k < r->hw.nlevels; k++)
    json_object_array_add(names, json_object_new_string(r->hw.levels[k].name));
  json_object_object_add(o, "levels", names);
  json_object_object_add(tot, "refs", json_object_new_uint64(r->res.total.refs));
  json_object_object_add(tot, "levels", levels_json(&r->hw, &r->res.total));
  json_object_object_add(o, "totals", tot);
  json_object_object_add(o, "functions", rows_json(a, &r->hw, r->funcs, r->nfuncs, 0));
  json_object_object_add(o, "lines", rows_json(a, &r->hw, r->lines, r->nlines, 1));
  return ppt_cli_put_json(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, err);
}

/* ---------------------------------------------------------------- table */

/* v with thousands separators, as cg_annotate prints counts. */
static const char *commas(uint64_t v, char *buf, size_t cap) {
  char digits[32];
  int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v), j = 0;
  for (int i = 0; i < n && (size_t)j + 2 < cap; i++) {
    if (i && (n - i) % 3 == 0) buf[j++] = ',';
    buf[j++] = digits[i];
  }
  buf[j] = '\0';
  return buf;
}

/* Column widths: the widest number is the total; a header may be wider. */
typedef struct cols {
  int w[PPT_HW_MAX_LEVELS + 1]; /* refs, then each level's misses */
} cols;

static cols widths(const results *r) {
  cols c;
  char b[40];
  c.w[0] = (int)strlen(commas(r->res.total.refs, b, sizeof b));
  if (c.w[0] < 4) c.w[0] = 4;
  for (uint32_t k = 0; k < r->hw.nlevels; k++) {
    int w = (int)strlen(commas(r->res.total.misses[k], b, sizeof b)),
        h = (int)strlen(r->hw.levels[k].name) + 5;
    c.w[k + 1] = w > h ? w : h;
  }
  return c;
}

static double share(uint64_t v, uint64_t of) {
  return of ? 100.0 * (double)v / (double)of : 0.0;
}

/* One row's counts, each with its share of the total: "1,234 (12.3%)". */
static void put_counts(const results *r, const cols *w, const ppt_annotate_counts *c) {
  char b[40];
  printf("%*s (%5.1f%%)", w->w[0], commas(c->refs, b, sizeof b), share(c->refs, r->res.total.refs));
  for (uint32_t k = 0; k < r->hw.nlevels; k++)
    printf("  %*s (%5.1f%%)", w->w[k + 1], commas(c->misses[k], b, sizeof b),
           share(c->misses[k], r->res.total.misses[k]));
}

static void put_header(const results *r, const cols *w, const char *what) {
  printf("%*s %8s", w->w[0], "refs", "");
  for (uint32_t k = 0; k < r->hw.nlevels; k++) {
    char h[24];
    snprintf(h, sizeof h, "%s miss", r->hw.levels[k].name);
    printf("  %*s %8s", w->w[k + 1], h, "");
  }
  printf("  %s\n", what);
}

/* A source file's text split into lines (line i at text[i - 1]). */
typedef struct source {
  char *buf;
  char **text;
  size_t n;
} source;

/* Finds and reads a recorded source path: under --source-dir as recorded, then by base
 * name (a build elsewhere records another prefix), then as recorded. 0 when none opens. */
static int source_load(const char *dir, const char *file, source *s) {
  memset(s, 0, sizeof *s);
  if (!*file) return 0;
  const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
  char p[3][4200];
  snprintf(p[0], sizeof p[0], "%s/%s", dir ? dir : "", file);
  snprintf(p[1], sizeof p[1], "%s/%s", dir ? dir : "", base);
  snprintf(p[2], sizeof p[2], "%s", file);
  FILE *f = NULL;
  for (int i = dir ? 0 : 2; i < 3 && !f; i++) f = fopen(p[i], "r");
  if (!f) return 0;
  size_t cap = 0, len = 0;
  char chunk[65536];
  for (size_t got; (got = fread(chunk, 1, sizeof chunk, f)) > 0; len += got) {
    char *nb = len + got + 1 > cap ? realloc(s->buf, cap = 2 * (len + got + 1)) : s->buf;
    if (!nb) break;
    s->buf = nb;
    memcpy(s->buf + len, chunk, got);
  }
  fclose(f);
  if (!s->buf) return 0;
  s->buf[len] = '\0';
  for (size_t i = 0; i < len; i++) s->n += s->buf[i] == '\n';
  s->n += len && s->buf[len - 1] != '\n';
  if (!(s->text = malloc((s->n ? s->n : 1) * sizeof *s->text))) {
    free(s->buf);
    return 0;
  }
  size_t k = 0;
  for (char *q = s->buf, *nl; k < s->n; q = nl + 1) {
    s->text[k++] = q;
    if (!(nl = strchr(q, '\n'))) break;
    *nl = '\0';
  }
  return 1;
}

static void source_free(source *s) {
  free(s->buf);
  free(s->text);
}

/* The counts of every line of `file` (summed over the functions on it), by line number;
 * NULL when out of memory. */
static ppt_annotate_counts *line_counts(const results *r, const char *file, size_t n) {
  ppt_annotate_counts *c = calloc(n + 1, sizeof *c);
  for (size_t i = 0; c && i < r->nlines; i++) {
    const ppt_annotate_row *row = &r->lines[i];
    if (row->line > n || strcmp(row->file, file)) continue;
    c[row->line].refs += row->c.refs;
    for (uint32_t k = 0; k < r->hw.nlevels; k++) c[row->line].misses[k] += row->c.misses[k];
  }
  return c;
}

/* One file's annotated source: CONTEXT lines around each of its top lines, runs merged,
 * counts beside every line that has any, '.' elsewhere (cg_annotate's layout). */
static void put_source(const args *a, const results *r, const cols *w, const char *file, const source *s) {
  size_t top = shown(a, r->nlines);
  uint8_t *want = calloc(s->n + 1, 1);
  ppt_annotate_counts *c = line_counts(r, file, s->n);
  if (want && c) {
    for (size_t i = 0; i < top; i++) {
      const ppt_annotate_row *row = &r->lines[i];
      if (strcmp(row->file, file) || !row->line || row->line > s->n) continue;
      for (size_t l = row->line > CONTEXT ? row->line - CONTEXT : 1; l <= row->line + CONTEXT && l <= s->n;
           l++)
        want[l] = 1;
    }
    printf("\n-- source: %s\n", file);
    int width = w->w[0] + 9;
    for (uint32_t k = 0; k < r->hw.nlevels; k++) width += w->w[k + 1] + 11;
    for (size_t l = 1; l <= s->n; l++) {
      if (!want[l]) continue;
      if (!want[l - 1]) printf("-- line %zu ----------------------------------------\n", l);
      if (c[l].refs)
        put_counts(r, w, &c[l]);
      else
        printf("%*s", width, ".");
      printf("  %s\n", s->text[l - 1]);
    }
  }
  free(want);
  free(c);
}

/* The source section: each file of the top lines once, in the order of its first top line. */
static void put_sources(const args *a, const results *r, const cols *w) {
  size_t top = shown(a, r->nlines);
  for (size_t i = 0; i < top; i++) {
    const char *file = r->lines[i].file;
    int seen = 0;
    for (size_t j = 0; j < i && !seen; j++) seen = !strcmp(r->lines[j].file, file);
    if (seen || !*file) continue;
    source s;
    if (source_load(a->source_dir, file, &s)) {
      put_source(a, r, w, file, &s);
      source_free(&s);
    } else {
      printf("\n-- source: %s: not readable%s\n", file, a->source_dir ? " (nor under --source-dir)" : "");
    }
  }
}

static int write_table(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  const results *r = vr;
  (void)err;
  const char *by = r->level < 0 ? "refs" : r->hw.levels[r->level].name;
  cols w = widths(r);
  printf("# %s on %s: %u core%s, interleave %s, seed %llu%s%s\n", a->c.operand, r->hw.name, a->c.cores[0],
         a->c.cores[0] == 1 ? "" : "s", ppt_interleave_name(a->c.interleave[0]),
         (unsigned long long)a->c.seed, a->c.only_list ? ", only " : "",
         a->c.only_list ? a->c.only_list : "");
  printf("# references (loads and stores) and misses per level; a block is charged to its first line\n\n");
  put_header(r, &w, "");
  put_counts(r, &w, &r->res.total);
  printf("  TOTAL\n");
  printf("\n-- functions, by %s%s (%zu of %zu)\n", by, r->level < 0 ? "" : " misses", shown(a, r->nfuncs),
         r->nfuncs);
  put_header(r, &w, "function (file)");
  for (size_t i = 0; i < shown(a, r->nfuncs); i++) {
    put_counts(r, &w, &r->funcs[i].c);
    printf("  %s (%s)\n", r->funcs[i].function, *r->funcs[i].file ? r->funcs[i].file : "?");
  }
  printf("\n-- lines, by %s%s (%zu of %zu)\n", by, r->level < 0 ? "" : " misses", shown(a, r->nlines),
         r->nlines);
  put_header(r, &w, "file:line function");
  for (size_t i = 0; i < shown(a, r->nlines); i++) {
    const ppt_annotate_row *row = &r->lines[i];
    put_counts(r, &w, &row->c);
    printf("  %s:%u %s\n", *row->file ? row->file : "?", row->line, row->function);
  }
  put_sources(a, r, &w);
  return 0;
}

int ppt_cmd_annotate(int argc, char **argv) {
  static const ppt_cli_steps steps = {"annotate", parse_args, run, write_table, write_json, NULL, release};
  return ppt_cli_main(&steps, argc, argv, &(args){0}, &(results){0});
}

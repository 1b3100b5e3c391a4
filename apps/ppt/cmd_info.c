/* cmd_info.c — `ppt info TRACE`: totals, biggest blocks and functions. */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ppt/trace.h"

static void help(void) {
  printf(
      "usage: ppt info TRACE [--top N] [--blocks] [--json]\n\n"
      "Summarises a trace: references, loads, stores, block instances, distinct 64-byte lines,\n"
      "parallel-region share, and the blocks and functions with the most references.\n\n"
      "  --top N   how many blocks and functions to list (default 10)\n"
      "  --blocks  list every block, by file and line: what --only FILE:LINE, FILE:FUNC\n"
      "            or FUNC selects in the other commands; a block of code inlined from\n"
      "            other functions names each (innermost first) and where it was inlined\n" PPT_CLI_NOSTACK_HELP
      "  --json    machine-readable output on stdout\n"
      "  -h, --help\n\n"
      "Block columns: refs and instances; vec, the widest vector in lanes; widest, the widest\n"
      "reference in bytes; stack, the machine code's stack loads/stores per instance; cycles,\n"
      "llvm-mca's per instance on the build host's core; chased, the share of the block's loads\n"
      "that wait for a loop-carried chain of loads (a pointer chase, a search) and how many\n"
      "chains its loop runs ('-': none; their misses overlap only across chains).\n");
}

typedef struct args {
  ppt_cli_common c; /* --json; c.operand: the trace */
  uint64_t top;
  int blocks; /* --blocks: every block, in source order */
} args;

typedef struct row {
  const char *name;
  const char *file;
  uint32_t id, line;
  uint64_t refs, count;
} row;

/* Source order: file, line, then function and id (--blocks). */
static int by_place(const void *a, const void *b) {
  const row *x = a, *y = b;
  int c = strcmp(x->file, y->file);
  if (c) return c;
  if (x->line != y->line) return x->line < y->line ? -1 : 1;
  c = strcmp(x->name, y->name);
  if (c) return c;
  return x->id < y->id ? -1 : x->id > y->id;
}

static int by_refs(const void *a, const void *b) {
  const row *x = a, *y = b;
  if (x->refs != y->refs) return x->refs < y->refs ? 1 : -1;
  return x->id < y->id ? -1 : x->id > y->id;
}

typedef struct results {
  ppt_trace *t;
  ppt_trace_summary s;
  row *blocks, *funcs; /* the first nb and nf are listed */
  size_t nb, nf;
} results;

/* Aggregates blocks by function name (blocks of one function are contiguous ids in
 * practice, but nothing here relies on it). */
static size_t functions(const ppt_trace *t, const ppt_trace_summary *s, row *out) {
  size_t n = 0;
  for (uint32_t id = 1; id <= s->bbs; id++) {
    const ppt_trace_bb *bb = ppt_trace_bb_get(t, id);
    size_t j = 0;
    while (j < n && (strcmp(out[j].name, bb->func) || strcmp(out[j].file, bb->file))) j++;
    if (j == n) out[n++] = (row){.name = bb->func, .file = bb->file, .id = id, .line = bb->line};
    out[j].refs += s->bb_refs[id];
    if (bb->flags & PPT_BB_FUNC_ENTRY) out[j].count += s->bb_count[id];
  }
  qsort(out, n, sizeof *out, by_refs);
  return n;
}

static int take(void *arg, int val, const char *value) {
  args *a = arg;
  if (val == 'b') {
    a->blocks = 1;
    return 0;
  }
  if (ppt_cli_parse_u64(value, &a->top)) return ppt_cli_usage("info", "--top wants a count, not '%s'", value);
  return 0;
}

static int parse_args(int argc, char **argv, void *va) {
  args *a = va;
  static const struct option own[] = {
      {"top", required_argument, 0, 'n'}, {"blocks", no_argument, 0, 'b'}, {0, 0, 0, 0}};
  static const ppt_cli_spec spec = {.cmd = "info",
                                    .shared = PPT_OPT_JSON | PPT_OPT_NOSTACK,
                                    .own = own,
                                    .take = take,
                                    .help = help,
                                    .operand = "TRACE"};
  a->top = 10;
  return ppt_cli_parse(&spec, argc, argv, &a->c, a);
}

static int run(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  results *r = vr;
  int rc = ppt_trace_open(a->c.operand, &r->t, err);
  if (!rc) ppt_cli_stack_refs(&a->c, r->t);
  if (rc) return rc;
  ppt_cli_progress *p = ppt_cli_progress_start("reading", ppt_trace_nrecs(r->t, UINT32_MAX));
  rc = ppt_trace_summarize(r->t, &r->s, ppt_cli_progress_cb, p, err);
  ppt_cli_progress_end(p);
  if (rc) return rc;
  const ppt_trace_summary *s = &r->s;
  r->blocks = calloc((size_t)s->bbs + 1, sizeof *r->blocks);
  r->funcs = calloc((size_t)s->bbs + 1, sizeof *r->funcs);
  if (!r->blocks || !r->funcs) return ppt_err_set(err, PPT_ERUN, "out of memory");
  for (uint32_t id = 1; id <= s->bbs; id++) {
    const ppt_trace_bb *bb = ppt_trace_bb_get(r->t, id);
    r->blocks[id - 1] = (row){bb->func, bb->file, id, bb->line, s->bb_refs[id], s->bb_count[id]};
  }
  qsort(r->blocks, s->bbs, sizeof *r->blocks, a->blocks ? by_place : by_refs);
  size_t nf = functions(r->t, s, r->funcs);
  r->nb = s->bbs < a->top || a->blocks ? s->bbs : (size_t)a->top;
  r->nf = nf < a->top ? nf : (size_t)a->top;
  return 0;
}

static json_object *blocks_json(const results *r) {
  json_object *tb = json_object_new_array();
  for (size_t i = 0; i < r->nb; i++) {
    const row *b = &r->blocks[i];
    json_object *e = json_object_new_object();
    const ppt_trace_bb *bb = ppt_trace_bb_get(r->t, b->id);
    json_object_object_add(e, "id", json_object_new_int64(b->id));
    json_object_object_add(e, "function", json_object_new_string(b->name));
    json_object_object_add(e, "file", json_object_new_string(b->file));
    json_object_object_add(e, "line", json_object_new_int64(b->line));
    json_object_object_add(e, "parallel", json_object_new_boolean(bb->flags & PPT_BB_PARALLEL));
    json_object_object_add(e, "instances", json_object_new_int64((int64_t)b->count));
    /* per instance, machine-level (ppt-cc; counted in refs unless --no-stack-refs) */
    json_object_object_add(e, "stack_loads", json_object_new_int64(bb->stack_loads));
    json_object_object_add(e, "stack_stores", json_object_new_int64(bb->stack_stores));
    /* llvm-mca's cycles per instance on the build host's core (ppt-cc); 0: unknown */
    json_object_object_add(e, "core_cycles", json_object_new_double(bb->core_cycles16 / 16.0));
    /* loads that wait for loads (ppt-cc, apps/ppt-cc/chase.h): the share of the block's
     * loads whose address depends on a loop-carried chain through memory, and how many
     * independent chains its loop runs (0 and 0: none) */
    unsigned chains;
    double chased = ppt_trace_bb_chase(bb, &chains);
    json_object_object_add(e, "chased_loads", json_object_new_double(chased));
    json_object_object_add(e, "chains", json_object_new_int64(chased > 0 ? chains : 0));
    /* the functions the block's code was inlined from, innermost first, each with the
     * call site it was inlined at */
    json_object *inl = json_object_new_array();
    for (uint32_t k = 0; k < bb->ninl; k++) {
      json_object *l = json_object_new_object();
      json_object_object_add(l, "function", json_object_new_string(bb->inl[k].func));
      json_object_object_add(l, "call_file", json_object_new_string(bb->inl[k].file));
      json_object_object_add(l, "call_line", json_object_new_int64(bb->inl[k].line));
      json_object_array_add(inl, l);
    }
    json_object_object_add(e, "inlined", inl);
    json_object_object_add(e, "refs", json_object_new_int64((int64_t)b->refs));
    json_object_array_add(tb, e);
  }
  return tb;
}

static json_object *functions_json(const results *r) {
  json_object *tf = json_object_new_array();
  for (size_t i = 0; i < r->nf; i++) {
    json_object *e = json_object_new_object();
    json_object_object_add(e, "function", json_object_new_string(r->funcs[i].name));
    json_object_object_add(e, "file", json_object_new_string(r->funcs[i].file));
    json_object_object_add(e, "calls", json_object_new_int64((int64_t)r->funcs[i].count));
    json_object_object_add(e, "refs", json_object_new_int64((int64_t)r->funcs[i].refs));
    json_object_array_add(tf, e);
  }
  return tf;
}

static int write_json(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  const results *r = vr;
  const ppt_trace_summary *s = &r->s;
  uint64_t bytes = ppt_trace_file_bytes(r->t);
  json_object *o = json_object_new_object();
  json_object_object_add(o, "trace", json_object_new_string(a->c.operand));
  json_object_object_add(o, "version", json_object_new_int((int)ppt_trace_version(r->t)));
  const struct {
    const char *key;
    uint64_t v;
  } counts[] = {{"refs", s->refs},
                {"loads", s->loads},
                {"stores", s->stores},
                {"stack_refs", s->stack_refs},
                {"mcstack_refs", s->mcstack_refs},
                {"bb_instances", s->bb_instances},
                {"bbs", s->bbs},
                {"parallel_bbs", s->parallel_bbs},
                {"parallel_refs", s->parallel_refs},
                {"parallel_called_refs", s->parallel_called_refs},
                {"threads", s->threads},
                {"lines64", s->lines64},
                {"file_bytes", bytes},
                {"chunks", ppt_trace_nchunks(r->t)},
                {"parallel_regions", s->parallel_regions},
                {"omp_loops", s->loops},
                {"threads_asked", s->threads_asked},
                {"thread_requests", s->thread_requests}};
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
    json_object_object_add(o, counts[i].key, json_object_new_int64((int64_t)counts[i].v));
  json_object_object_add(o, "bytes_per_ref",
                         json_object_new_double(s->refs ? (double)bytes / (double)s->refs : 0));
  json_object_object_add(o, a->blocks ? "blocks" : "top_blocks", blocks_json(r));
  json_object_object_add(o, "top_functions", functions_json(r));
  return ppt_cli_put_json(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, err);
}

static int write_table(void *va, void *vr, ppt_err *err) {
  const args *a = va;
  const results *r = vr;
  (void)err;
  const ppt_trace_summary *s = &r->s;
  uint64_t bytes = ppt_trace_file_bytes(r->t);
  double pr = s->refs ? 100.0 * (double)s->parallel_refs / (double)s->refs : 0;
  printf("trace          %s (format v%u, %llu bytes, %.3f B/ref)\n", a->c.operand, ppt_trace_version(r->t),
         (unsigned long long)bytes, s->refs ? (double)bytes / (double)s->refs : 0.0);
  printf("threads        %u\n", s->threads);
  /* What the program asked for itself, and ppt trace overrode (docs/ppt-cc.md). */
  if (s->thread_requests)
    printf("threads asked  %llu (largest of %llu requests; traced with %u)\n",
           (unsigned long long)s->threads_asked, (unsigned long long)s->thread_requests, s->threads);
  else
    printf("threads asked  none\n");
  printf("references     %llu (%llu loads, %llu stores, %llu on own stack)\n", (unsigned long long)s->refs,
         (unsigned long long)s->loads, (unsigned long long)s->stores, (unsigned long long)s->stack_refs);
  /* The machine code's own stack references (ppt-cc measured them per block). */
  printf("stack refs     %llu of the machine code (spills, arguments, push/pop, call/ret)%s\n",
         (unsigned long long)s->mcstack_refs,
         a->c.no_stack_refs           ? ": left out (--no-stack-refs)"
         : ppt_trace_stack_refs(r->t) ? ""
                                      : ": none in this trace");
  printf("blocks         %u (%u in parallel regions), %llu instances\n", s->bbs, s->parallel_bbs,
         (unsigned long long)s->bb_instances);
  printf("parallel refs  %llu (%.1f%%) in %llu parallel regions, %llu worksharing loops", (unsigned long long)s->parallel_refs,
         pr, (unsigned long long)s->parallel_regions, (unsigned long long)s->loops);
  /* orphaned worksharing and kernels called from a region run in parallel too */
  if (s->parallel_called_refs)
    printf("; %llu of them in functions the regions call", (unsigned long long)s->parallel_called_refs);
  putchar('\n');
  printf("lines (64 B)   %llu (%.1f KiB footprint)\n", (unsigned long long)s->lines64,
         (double)s->lines64 / 16.0);
  /* vec: the block's widest vector in lanes (1: scalar code), from the op mix ppt-cc
   * recorded; widest: its widest reference in bytes (32: AVX, 64: AVX-512; "-": none). */
  if (a->blocks)
    printf("\nblocks by file and line (select with --only FILE:LINE, FILE:FUNC or FUNC)\n");
  else
    printf("\ntop blocks by references\n");
  /* stack: the machine code's stack loads/stores per instance, part of refs; cycles:
   * llvm-mca's per instance on the build host's core (ppt-cc; "-": unknown); chased: the
   * share of its loads that wait for a loop-carried chain of loads, and the chains */
  printf("  %6s %12s %12s %4s %6s %9s %7s %8s  %s\n", "id", "refs", "instances", "vec", "widest", "stack",
         "cycles", "chased", "function (file:line)");
  for (size_t i = 0; i < r->nb; i++) {
    const row *b = &r->blocks[i];
    char w[8] = "-";
    if (s->bb_widest[b->id]) snprintf(w, sizeof w, "%u", s->bb_widest[b->id]);
    const ppt_trace_bb *bb = ppt_trace_bb_get(r->t, b->id);
    char st[16] = "-";
    if (bb->stack_loads | bb->stack_stores)
      snprintf(st, sizeof st, "%u/%u", bb->stack_loads, bb->stack_stores);
    char cy[16] = "-";
    if (bb->core_cycles16) snprintf(cy, sizeof cy, "%.4g", bb->core_cycles16 / 16.0);
    char ch[24] = "-";
    unsigned chains;
    double chased = ppt_trace_bb_chase(bb, &chains);
    if (chased > 0) snprintf(ch, sizeof ch, "%.0f%%x%u", 100 * chased, chains);
    printf("  %6u %12llu %12llu %4u %6s %9s %7s %8s  %s (%s:%u)", b->id, (unsigned long long)b->refs,
           (unsigned long long)b->count, bb->ops[PPT_OP_VWIDTH], w, st, cy, ch, b->name, b->file, b->line);
    /* code inlined into the function: each function it came from, innermost first */
    for (uint32_t k = 0; k < bb->ninl; k++)
      printf(" in %s (inlined at %s:%u)", bb->inl[k].func, bb->inl[k].file, bb->inl[k].line);
    putchar('\n');
  }
  printf("\ntop functions by references\n  %12s %10s  %s\n", "refs", "calls", "function (file)");
  for (size_t i = 0; i < r->nf; i++)
    printf("  %12llu %10llu  %s (%s)\n", (unsigned long long)r->funcs[i].refs,
           (unsigned long long)r->funcs[i].count, r->funcs[i].name, r->funcs[i].file);
  return 0;
}

static void release(void *vr) {
  results *r = vr;
  free(r->blocks);
  free(r->funcs);
  ppt_trace_summary_free(&r->s);
  ppt_trace_close(r->t);
}

int ppt_cmd_info(int argc, char **argv) {
  static const ppt_cli_steps steps = {"info", parse_args, run, write_table, write_json, NULL, release};
  return ppt_cli_main(&steps, argc, argv, &(args){0}, &(results){0});
}

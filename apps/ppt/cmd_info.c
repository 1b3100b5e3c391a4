/* cmd_info.c — `ppt info TRACE`: totals, biggest blocks and functions. */
#include <getopt.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ppt/trace.h"

static void help(void) {
  printf(
      "usage: ppt info TRACE [--top N] [--json]\n\n"
      "Summarises a trace: references, loads, stores, block instances, distinct 64-byte lines,\n"
      "parallel-region share, and the blocks and functions with the most references.\n\n"
      "  --top N   how many blocks and functions to list (default 10)\n"
      "  --json    machine-readable output on stdout\n"
      "  -h, --help\n");
}

typedef struct row {
  const char *name;
  const char *file;
  uint32_t id, line;
  uint64_t refs, count;
} row;

static int by_refs(const void *a, const void *b) {
  const row *x = a, *y = b;
  if (x->refs != y->refs) return x->refs < y->refs ? 1 : -1;
  return x->id < y->id ? -1 : x->id > y->id;
}

static void progress_cb(uint64_t done, void *arg) { ppt_cli_progress_update(arg, done); }

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

int ppt_cmd_info(int argc, char **argv) {
  int json = 0;
  uint64_t top = 10;
  static const struct option opts[] = {{"json", no_argument, 0, 'j'},
                                       {"top", required_argument, 0, 'n'},
                                       {"help", no_argument, 0, 'h'},
                                       {0, 0, 0, 0}};
  optind = 1;
  int c;
  opterr = 0; /* one message line, ours */
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    switch (c) {
      case 'j': json = 1; break;
      case 'n':
        if (ppt_cli_parse_u64(optarg, &top)) return ppt_cli_usage("info", "--top wants a count, not '%s'", optarg);
        break;
      case 'h': help(); return 0;
      default: return ppt_cli_usage("info", "unknown option or missing value in '%s'", argv[optind - 1]);
    }
  }
  if (optind + 1 != argc) return ppt_cli_usage("info", "expected exactly one TRACE");
  const char *path = argv[optind];
  ppt_trace *t;
  ppt_err err;
  if (ppt_trace_open(path, &t, &err)) return ppt_cli_fail("info", &err);
  ppt_trace_summary s;
  ppt_cli_progress *p = ppt_cli_progress_start("reading", ppt_trace_nrecs(t, UINT32_MAX));
  int rc = ppt_trace_summarize(t, &s, progress_cb, p, &err);
  ppt_cli_progress_end(p);
  if (rc) {
    ppt_trace_close(t);
    return ppt_cli_fail("info", &err);
  }
  row *blocks = calloc((size_t)s.bbs + 1, sizeof *blocks), *funcs = calloc((size_t)s.bbs + 1, sizeof *funcs);
  if (!blocks || !funcs) {
    fprintf(stderr, "ppt info: out of memory\n");
    return 1;
  }
  for (uint32_t id = 1; id <= s.bbs; id++) {
    const ppt_trace_bb *bb = ppt_trace_bb_get(t, id);
    blocks[id - 1] = (row){bb->func, bb->file, id, bb->line, s.bb_refs[id], s.bb_count[id]};
  }
  qsort(blocks, s.bbs, sizeof *blocks, by_refs);
  size_t nf = functions(t, &s, funcs);
  size_t nb = s.bbs < top ? s.bbs : (size_t)top;
  nf = nf < top ? nf : (size_t)top;
  if (json) {
    json_object *o = json_object_new_object();
    json_object_object_add(o, "trace", json_object_new_string(path));
    json_object_object_add(o, "version", json_object_new_int((int)ppt_trace_version(t)));
#define ADD(k, v) json_object_object_add(o, k, json_object_new_int64((int64_t)(v)))
    ADD("refs", s.refs);
    ADD("loads", s.loads);
    ADD("stores", s.stores);
    ADD("stack_refs", s.stack_refs);
    ADD("bb_instances", s.bb_instances);
    ADD("bbs", s.bbs);
    ADD("parallel_bbs", s.parallel_bbs);
    ADD("parallel_refs", s.parallel_refs);
    ADD("threads", s.threads);
    ADD("lines64", s.lines64);
    ADD("file_bytes", ppt_trace_file_bytes(t));
    ADD("chunks", ppt_trace_nchunks(t));
    ADD("parallel_regions", s.parallel_regions);
    ADD("omp_loops", s.loops);
#undef ADD
    json_object_object_add(o, "bytes_per_ref",
                           json_object_new_double(s.refs ? (double)ppt_trace_file_bytes(t) / (double)s.refs : 0));
    json_object *tb = json_object_new_array(), *tf = json_object_new_array();
    for (size_t i = 0; i < nb; i++) {
      json_object *e = json_object_new_object();
      const ppt_trace_bb *bb = ppt_trace_bb_get(t, blocks[i].id);
      json_object_object_add(e, "id", json_object_new_int64(blocks[i].id));
      json_object_object_add(e, "function", json_object_new_string(blocks[i].name));
      json_object_object_add(e, "file", json_object_new_string(blocks[i].file));
      json_object_object_add(e, "line", json_object_new_int64(blocks[i].line));
      json_object_object_add(e, "parallel", json_object_new_boolean(bb->flags & PPT_BB_PARALLEL));
      json_object_object_add(e, "instances", json_object_new_int64((int64_t)blocks[i].count));
      json_object_object_add(e, "refs", json_object_new_int64((int64_t)blocks[i].refs));
      json_object_array_add(tb, e);
    }
    for (size_t i = 0; i < nf; i++) {
      json_object *e = json_object_new_object();
      json_object_object_add(e, "function", json_object_new_string(funcs[i].name));
      json_object_object_add(e, "file", json_object_new_string(funcs[i].file));
      json_object_object_add(e, "calls", json_object_new_int64((int64_t)funcs[i].count));
      json_object_object_add(e, "refs", json_object_new_int64((int64_t)funcs[i].refs));
      json_object_array_add(tf, e);
    }
    json_object_object_add(o, "top_blocks", tb);
    json_object_object_add(o, "top_functions", tf);
    printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
  } else {
    double pr = s.refs ? 100.0 * (double)s.parallel_refs / (double)s.refs : 0;
    printf("trace          %s (format v%u, %llu bytes, %.3f B/ref)\n", path, ppt_trace_version(t),
           (unsigned long long)ppt_trace_file_bytes(t),
           s.refs ? (double)ppt_trace_file_bytes(t) / (double)s.refs : 0.0);
    printf("threads        %u\n", s.threads);
    printf("references     %llu (%llu loads, %llu stores, %llu on own stack)\n", (unsigned long long)s.refs,
           (unsigned long long)s.loads, (unsigned long long)s.stores, (unsigned long long)s.stack_refs);
    printf("blocks         %u (%u in parallel regions), %llu instances\n", s.bbs, s.parallel_bbs,
           (unsigned long long)s.bb_instances);
    printf("parallel refs  %llu (%.1f%%) in %llu parallel regions, %llu worksharing loops\n",
           (unsigned long long)s.parallel_refs, pr, (unsigned long long)s.parallel_regions,
           (unsigned long long)s.loops);
    printf("lines (64 B)   %llu (%.1f KiB footprint)\n", (unsigned long long)s.lines64, (double)s.lines64 / 16.0);
    printf("\ntop blocks by references\n  %6s %12s %12s  %s\n", "id", "refs", "instances", "function (file:line)");
    for (size_t i = 0; i < nb; i++)
      printf("  %6u %12llu %12llu  %s (%s:%u)\n", blocks[i].id, (unsigned long long)blocks[i].refs,
             (unsigned long long)blocks[i].count, blocks[i].name, blocks[i].file, blocks[i].line);
    printf("\ntop functions by references\n  %12s %10s  %s\n", "refs", "calls", "function (file)");
    for (size_t i = 0; i < nf; i++)
      printf("  %12llu %10llu  %s (%s)\n", (unsigned long long)funcs[i].refs, (unsigned long long)funcs[i].count,
             funcs[i].name, funcs[i].file);
  }
  free(blocks);
  free(funcs);
  ppt_trace_summary_free(&s);
  ppt_trace_close(t);
  return 0;
}

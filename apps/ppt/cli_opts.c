/* cli_opts.c — the options several ppt subcommands share (--hw, --cores, --only,
 * --interleave, --seed, --json, -o, --plot) and the getopt loop every command runs:
 * each shared option has one spelling, one check and one message, whichever command
 * takes it; a command adds only its own options (ppt_cli_spec). ppt_cli_main runs a
 * command's steps: parse -> run -> write -> release. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cli.h"
#include "ppt/cachesim.h"
#include "ppt/sasmm.h"

/* Codes of the shared options without a short form: above any char, so that they never
 * meet a command's own option codes. */
enum {
  OPT_HW = 0x100,
  OPT_CORES,
  OPT_ONLY,
  OPT_INTERLEAVE,
  OPT_SEED,
  OPT_JSON,
  OPT_PLOT,
  OPT_SET,
  OPT_NOSTACK
};

static const struct {
  unsigned bits; /* the PPT_OPT_* that take this spelling */
  struct option opt;
} shared_opts[] = {
    {PPT_OPT_HW, {"hw", required_argument, 0, OPT_HW}},
    {PPT_OPT_CORES, {"cores", required_argument, 0, OPT_CORES}},
    {PPT_OPT_ONLY, {"only", required_argument, 0, OPT_ONLY}},
    {PPT_OPT_INTERLEAVE | PPT_OPT_INTERLEAVES, {"interleave", required_argument, 0, OPT_INTERLEAVE}},
    {PPT_OPT_SEED, {"seed", required_argument, 0, OPT_SEED}},
    {PPT_OPT_JSON, {"json", no_argument, 0, OPT_JSON}},
    {PPT_OPT_OUTPUT, {"output", required_argument, 0, 'o'}},
    {PPT_OPT_PLOT, {"plot", required_argument, 0, OPT_PLOT}},
    {PPT_OPT_SET | PPT_OPT_SETS, {"set", required_argument, 0, OPT_SET}},
    {PPT_OPT_NOSTACK, {"no-stack-refs", no_argument, 0, OPT_NOSTACK}},
};
#define NSHARED (sizeof shared_opts / sizeof shared_opts[0])
#define MAX_OPTS 40 /* shared + a command's own + --help + the terminator */

/* --only PREFIXES: the value is kept (split in place) for c->only to point into, and
 * appended to c->only_list for the commands that print the selection as given. */
static int take_only(const char *cmd, const char *s, ppt_cli_common *c) {
  size_t before = c->nonly, had = c->only_list ? strlen(c->only_list) + 1 : 0, n = strlen(s);
  char *copy = c->nonly_text < PPT_CLI_MAX_ONLY ? strdup(s) : NULL;
  if (!copy) return ppt_cli_usage(cmd, "too many --only options");
  c->only_text[c->nonly_text++] = copy;
  for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (c->nonly == PPT_CLI_MAX_ONLY)
      return ppt_cli_usage(cmd, "--only: at most %d prefixes", PPT_CLI_MAX_ONLY);
    c->only[c->nonly++] = tok;
  }
  if (c->nonly == before)
    return ppt_cli_usage(cmd, "--only wants block selectors (FUNC, FILE:FUNC, FILE:LINE-LINE), not '%s'", s);
  char *list = realloc(c->only_list, had + n + 1);
  if (!list) return ppt_cli_usage(cmd, "too many --only options");
  if (had) list[had - 1] = ',';
  memcpy(list + had, s, n + 1);
  c->only_list = list;
  return 0;
}

/* --interleave: up to max distinct interleavings, comma-separated, each as
 * ppt_interleave_parse reads it. */
static int take_interleave(const char *cmd, const char *s, size_t max, ppt_cli_common *c) {
  size_t n = 0;
  int ok = 1;
  for (const char *p = s; ok; p++) {
    size_t len = strcspn(p, ",");
    char item[32];
    ppt_interleave il;
    snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1), p);
    ok = len < sizeof item && n < max && !ppt_interleave_parse(item, &il) && !(n && il == c->interleave[0]);
    if (ok) c->interleave[n++] = il;
    p += len;
    if (!*p) break;
  }
  if (!ok)
    return ppt_cli_usage(cmd, "--interleave wants %s, not '%s'",
                         max > 1 ? "rr, uniform or rr,uniform" : "rr or uniform", s);
  c->ninterleave = n;
  return 0;
}

/* One shared option (its code is in the command's table, so the command takes it). */
static int take_shared(const char *cmd, unsigned bits, int code, const char *s, ppt_cli_common *c) {
  switch (code) {
    case OPT_HW: c->hw = s; return 0;
    case OPT_CORES:
      if (ppt_sasmm_cores_parse(s, c->cores, PPT_CLI_MAX_CORES, &c->ncores))
        return ppt_cli_usage(cmd, "--cores wants a list like 1,2,4 (1..%u), not '%s'", PPT_SASMM_MAX_CORES,
                             s);
      return 0;
    case OPT_ONLY: return take_only(cmd, s, c);
    case OPT_INTERLEAVE: return take_interleave(cmd, s, bits & PPT_OPT_INTERLEAVES ? 2 : 1, c);
    case OPT_SEED:
      if (ppt_cli_parse_u64(s, &c->seed))
        return ppt_cli_usage(cmd, "--seed wants a non-negative integer, not '%s'", s);
      return 0;
    case OPT_JSON: c->json = 1; return 0;
    case OPT_NOSTACK: c->no_stack_refs = 1; return 0;
    case OPT_SET:
      if (!strchr(s, '=') || *s == '=' || !strchr(s, '=')[1])
        return ppt_cli_usage(cmd, "--set wants LEVEL.KEY=VALUE (e.g. L2.size=256K), not '%s'", s);
      if (!(bits & PPT_OPT_SETS) && strchr(s, ','))
        return ppt_cli_usage(cmd, "--set takes one value here ('ppt sweep' takes lists), not '%s'", s);
      if (c->nset == PPT_CLI_MAX_SET) return ppt_cli_usage(cmd, "at most %d --set options", PPT_CLI_MAX_SET);
      c->set[c->nset++] = s;
      return 0;
    case 'o':
      if (!*s) return ppt_cli_usage(cmd, "-o wants a file name");
      c->output = s;
      return 0;
    default: c->plot = s; return 0; /* OPT_PLOT */
  }
}

/* getopt's tables for spec: the shared options it takes, its own, and --help. */
static void build_tables(const ppt_cli_spec *spec, struct option *opts, char *shorts, size_t cap) {
  size_t n = 0;
  for (size_t i = 0; i < NSHARED; i++)
    if (shared_opts[i].bits & spec->shared) opts[n++] = shared_opts[i].opt;
  for (const struct option *o = spec->own; o && o->name && n < MAX_OPTS - 2; o++) opts[n++] = *o;
  opts[n++] = (struct option){"help", no_argument, 0, 'h'};
  opts[n] = (struct option){0, 0, 0, 0};
  /* Without an operand name the command takes the rest of the line: stop at its first
   * word ('+'), so that `ppt trace -- prog -o x` leaves -o to prog. */
  snprintf(shorts, cap, "%sh%s%s", spec->operand ? "" : "+", spec->shared & PPT_OPT_OUTPUT ? "o:" : "",
           spec->own_short ? spec->own_short : "");
}

static void defaults(ppt_cli_common *c) {
  static const uint32_t cores[] = {1, 2, 4, 8, 16};
  memset(c, 0, sizeof *c);
  memcpy(c->cores, cores, sizeof cores);
  c->ncores = sizeof cores / sizeof cores[0];
  c->interleave[0] = PPT_INTERLEAVE_RR;
  c->ninterleave = 1;
  c->seed = 1;
}

/* The getopt loop; 0, PPT_CLI_HELP or a usage error's code. */
static int options(const ppt_cli_spec *spec, int argc, char **argv, ppt_cli_common *c, void *args) {
  struct option opts[MAX_OPTS];
  char shorts[64];
  build_tables(spec, opts, shorts, sizeof shorts);
  optind = 1;
  opterr = 0; /* one message line, ours */
  int code, rc = 0;
  while (!rc && (code = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
    if (code == 'h') {
      spec->help();
      return PPT_CLI_HELP;
    }
    if (code == '?' || code == ':')
      rc = ppt_cli_usage(spec->cmd, "unknown option or missing value in '%s'", argv[optind - 1]);
    else if (code >= 0x100 || (code == 'o' && (spec->shared & PPT_OPT_OUTPUT)))
      rc = take_shared(spec->cmd, spec->shared, code, optarg, c);
    else
      rc = spec->take(args, code, optarg); /* only its own options' codes are left */
  }
  return rc;
}

int ppt_cli_parse(const ppt_cli_spec *spec, int argc, char **argv, ppt_cli_common *c, void *args) {
  defaults(c);
  int rc = options(spec, argc, argv, c, args);
  c->rest = argv + optind;
  c->nrest = argc - optind;
  if (!rc && spec->operand) {
    if (c->nrest == 0 && spec->operand_optional)
      c->operand = NULL;
    else if (c->nrest != 1)
      rc = ppt_cli_usage(spec->cmd, "expected exactly one %s", spec->operand);
    else
      c->operand = c->rest[0];
  }
  if (!rc && (spec->shared & PPT_OPT_HW) && !c->hw) rc = ppt_cli_usage(spec->cmd, "--hw SPEC is required");
  if (rc) ppt_cli_common_free(c);
  return rc;
}

void ppt_cli_common_free(ppt_cli_common *c) {
  for (size_t i = 0; i < c->nonly_text; i++) free(c->only_text[i]);
  free(c->only_list);
  c->nonly_text = c->nonly = 0;
  c->only_list = NULL;
}

int ppt_cli_load_hw(const ppt_cli_common *c, ppt_hwspec *hw, ppt_err *err) {
  return ppt_cli_load_hw_file(c, c->hw, hw, err);
}

int ppt_cli_load_hw_file(const ppt_cli_common *c, const char *path, ppt_hwspec *hw, ppt_err *err) {
  int rc = ppt_hwspec_load(path, hw, err);
  for (size_t i = 0; i < c->nset && !rc; i++) rc = ppt_cli_set_hw(path, hw, c->set[i], err);
  return rc;
}

int ppt_cli_set_hw(const char *path, ppt_hwspec *hw, const char *setting, ppt_err *err) {
  int rc = ppt_hwspec_set(hw, setting, err);
  if (rc) {
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg);
    ppt_err_set(err, (ppt_status)rc, "%s: %s", path, why);
  }
  return rc;
}

int ppt_cli_counted(const ppt_cli_common *c, const ppt_trace *t, uint8_t **out, ppt_err *err) {
  *out = NULL;
  if (!c->nonly) return 0;
  uint8_t missed[PPT_CLI_MAX_ONLY];
  int rc = ppt_trace_select(t, c->only, c->nonly, out, missed, err);
  for (size_t i = 0; !rc && i < c->nonly; i++)
    if (missed[i])
      fprintf(stderr, "ppt: %s: --only '%s' matches no block; counting the rest (see 'ppt info --blocks')\n",
              ppt_trace_path(t), c->only[i]);
  return rc;
}

void ppt_cli_stack_refs(const ppt_cli_common *c, ppt_trace *t) {
  if (t) ppt_trace_set_stack_refs(t, !c->no_stack_refs);
}

int ppt_cli_open_sequential(const char *path, ppt_trace **out, ppt_err *err) {
  int rc = ppt_trace_open(path, out, err);
  if (rc) return rc;
  uint32_t n = ppt_trace_nthreads(*out);
  if (n <= 1) return 0;
  ppt_trace_close(*out);
  *out = NULL;
  return ppt_err_set(err, PPT_EINPUT,
                     "%s: a trace of %u threads; mimicking cores needs the sequential (1-thread) trace "
                     "of 'ppt trace' (an N-thread trace is ground truth for 'ppt cachesim')",
                     path, n);
}

/* Memory this process may still take: the least of MemAvailable, the cgroup's limit
 * less its use (cgroup v2), and the address-space limit; UINT64_MAX when none is known. */
uint64_t ppt_cli_memory_available(const char **what) {
  uint64_t best = UINT64_MAX, v;
  *what = "no limit known";
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %" SCNu64 " kB", &v) == 1 && v * 1024 < best) {
      best = v * 1024;
      *what = "MemAvailable in /proc/meminfo";
    }
  if (f) fclose(f);
  uint64_t max = 0, cur = 0;
  f = fopen("/sys/fs/cgroup/memory.max", "r");
  int got = f && fscanf(f, "%" SCNu64, &max) == 1; /* "max": no limit, no number */
  if (f) fclose(f);
  f = got ? fopen("/sys/fs/cgroup/memory.current", "r") : NULL;
  if (f && fscanf(f, "%" SCNu64, &cur) == 1 && max > cur && max - cur < best) {
    best = max - cur;
    *what = "the cgroup's memory.max";
  }
  if (f) fclose(f);
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (uint64_t)rl.rlim_cur < best) {
    best = (uint64_t)rl.rlim_cur;
    *what = "ulimit -v";
  }
  return best;
}

static int by_size_desc(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* Cache state of every spec at n cores: the hierarchies of a sweep are bounded as if each
 * were simulated alone. */
static uint64_t cache_bytes(const ppt_hwspec *hw, size_t nhw, uint32_t n) {
  uint64_t b = 0;
  for (size_t i = 0; i < nhw; i++) b += ppt_cachesim_bytes(&hw[i], n);
  return b;
}

int ppt_cli_check_memory(const ppt_cli_common *c, const ppt_trace *t, const ppt_hwspec *hw, size_t nhw,
                         size_t at_once, ppt_err *err) {
  /* The memory model (docs/sasmm.md, "Memory"): each simulated core reads the trace with
   * a batch (the largest chunk, decoded), shared with the cores reading the same chunk
   * (so no more batches than chunks), and a 64 KiB output buffer; measured peaks grew by
   * 1.13-1.17 batches per core when every core had its own (jacobi, bfs), so 1.25 are charged;
   * each simulation holds a cache simulator of its core count; 32 MiB for the rest. The
   * runs that go at once are the `at_once` largest core counts (sasmm's worker threads). */
  uint32_t n[PPT_CLI_MAX_CORES * 2];
  size_t nn = 0;
  for (size_t i = 0; i < c->ncores; i++)
    for (size_t k = 0; k < (c->ninterleave ? c->ninterleave : 1) && nn < sizeof n / sizeof *n; k++)
      n[nn++] = c->cores[i];
  qsort(n, nn, sizeof *n, by_size_desc);
  uint64_t batch = ppt_trace_batch_bytes(t) * 5 / 4, per_core = 64 * 1024 + 4096, need = 32u << 20;
  uint64_t chunks = ppt_trace_thread_nchunks(t, 0);
  uint32_t most = 0;
  for (size_t i = 0; i < nn && i < (at_once ? at_once : 1); i++) {
    /* the cores share decoded chunks: no more copies than chunks (models/sasmm/rangereader.h) */
    need += (n[i] < chunks ? n[i] : chunks) * batch + n[i] * per_core + cache_bytes(hw, nhw, n[i]);
    if (n[i] > most) most = n[i];
  }
  per_core += (most < chunks ? most : chunks) * batch / (most ? most : 1);
  const char *what;
  uint64_t avail = ppt_cli_memory_available(&what);
  if (need <= avail) return 0;
  return ppt_err_set(err, PPT_EINPUT,
                     "%s: --cores %u needs about %.2f GB (%.1f MB per simulated core, %.2f GB of cache "
                     "state; docs/sasmm.md 'Memory'), more than the %.2f GB available (%s)",
                     ppt_trace_path(t), most, need / 1e9, per_core / 1e6, cache_bytes(hw, nhw, most) / 1e9,
                     avail / 1e9, what);
}

void ppt_cli_interleave_text(const ppt_cli_common *c, char *buf, size_t cap) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < c->ninterleave && used < cap; i++)
    used +=
        (size_t)snprintf(buf + used, cap - used, "%s%s", i ? "," : "", ppt_interleave_name(c->interleave[i]));
}

/* The steps of every command (ppt_cli_steps): parse, run, write, release; here with the
 * parser so that cli.c (the helpers the steps use) depends on nothing of this file. */
int ppt_cli_main(const ppt_cli_steps *s, int argc, char **argv, void *args, void *results) {
  int rc = s->parse_args(argc, argv, args);
  if (rc) return rc < 0 ? 0 : rc;
  ppt_cli_common *c = args; /* the first member of every command's args */
  int (*write)(void *, void *, ppt_err *) = c->json ? s->write_json : s->write_table;
  ppt_err err;
  ppt_err_clear(&err);
  rc = s->run(args, results, &err);
  if (!rc && write) rc = write(args, results, &err);
  if (!rc && s->write_files) rc = s->write_files(args, results, &err);
  if (rc) rc = ppt_cli_fail(s->cmd, &err);
  if (s->release) s->release(results);
  ppt_cli_common_free(c);
  return rc;
}

/* test_chase.c — loads that wait for loads (ppt_trace_bb.chase, apps/ppt-cc/chase.h;
 * ppt_mem_access.chased in models/cpu/time_compute.c).
 *
 *  - chase_recorded: ppt-cc marks the loads of a pointer chase (p = p->next, and the load
 *    of the node it reached), of a binary search (lo and hi moved by the comparison of
 *    g[mid], with the comparison as a select or as a branch) and of two lists walked in
 *    step (two chains), and no load of an indirect
 *    gather a[idx[i]] (the gathers of successive trips are independent), a streaming
 *    sum, a linear search (i++ whatever a[i] held) or a loop whose index moves with a
 *    loaded value without being read through it (j += a[i] > 0; b[j] is stored).
 *  - chase_priced: `ppt predict` on host.json charges the chase's loads, served at level k,
 *    level k's whole latency one after the other (unless a prefetcher asked for the line),
 *    the first level's hits their load-to-use latency: by hand from the hit rates and
 *    latencies, the chase's memory time within 3 %; two chains take half of that; the
 *    gather, whose misses overlap mlp at a time, takes less than a quarter of its own
 *    serial figure. */
#include <check.h>

#include "ppt_test.h"
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"
#include "ppt/hwspec.h"
#include "ppt/trace.h"

static const char *k_prog =
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#define NODES (1L << 16)\n"
    "#define GRID (1L << 16)\n"
    "#define QUERIES (1L << 12)\n"
    "#define NEL (1L << 18)\n"
    "struct node { struct node *next; long pad[7]; };\n"
    "static unsigned long rng = 88172645463325252ul;\n"
    "static unsigned long next_rand(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }\n"
    "__attribute__((noinline)) long kernel_chase(struct node *p, long steps) {\n"
    "  long s = 0;\n"
    "  for (long i = 0; i < steps; i++) { p = p->next; s += p->pad[0]; }\n"
    "  return s;\n"
    "}\n"
    "__attribute__((noinline)) long kernel_two(struct node *p, struct node *q, long steps) {\n"
    "  long s = 0;\n"
    "  for (long i = 0; i < steps; i++) { p = p->next; q = q->next; s += p->pad[0] + q->pad[0]; }\n"
    "  return s;\n"
    "}\n"
    "__attribute__((noinline)) long kernel_search(const double *g, const double *k, long nq) {\n"
    "  long s = 0;\n"
    "  for (long q = 0; q < nq; q++) {\n"
    "    double key = k[q];\n"
    "    long lo = 0, hi = GRID;\n"
    "    while (hi - lo > 1) { long mid = (lo + hi) / 2; if (g[mid] <= key) lo = mid; else hi = mid; }\n"
    "    s += lo;\n"
    "  }\n"
    "  return s;\n"
    "}\n"
    "long hits[8];\n"
    "__attribute__((noinline)) long kernel_branchy(const double *g, const double *k, long nq) {\n"
    "  long s = 0;\n"
    "  for (long q = 0; q < nq; q++) {\n"
    "    double key = k[q];\n"
    "    long lo = 0, hi = GRID;\n"
    "    while (hi - lo > 1) {\n"
    "      long mid = (lo + hi) / 2;\n"
    "      if (g[mid] <= key) { lo = mid; hits[q & 7]++; } else hi = mid;\n"
    "    }\n"
    "    s += lo;\n"
    "  }\n"
    "  return s;\n"
    "}\n"
    "__attribute__((noinline)) long kernel_gather(const long *a, const long *ix, long n) {\n"
    "  long s = 0;\n"
    "  for (long i = 0; i < n; i++) s += a[ix[i]];\n"
    "  return s;\n"
    "}\n"
    "__attribute__((noinline)) long kernel_stream(const long *a, long n) {\n"
    "  long s = 0;\n"
    "  for (long i = 0; i < n; i++) s += a[i];\n"
    "  return s;\n"
    "}\n"
    "__attribute__((noinline)) long kernel_linear(const long *a, long key) {\n"
    "  long i = 0;\n"
    "  while (a[i] != key) i++;\n"
    "  return i;\n"
    "}\n"
    "__attribute__((noinline)) long kernel_pack(const long *a, long *b, long n) {\n"
    "  long j = 0;\n"
    "  for (long i = 0; i < n; i++) { b[j] = i; j += a[i] > 0; }\n"
    "  return j;\n"
    "}\n"
    "static void ring(struct node *nodes, long *perm) {\n"
    "  for (long i = 0; i < NODES; i++) perm[i] = i;\n"
    "  for (long i = NODES - 1; i > 0; i--) {\n"
    "    long j = (long)(next_rand() % (unsigned long)(i + 1)), t = perm[i];\n"
    "    perm[i] = perm[j]; perm[j] = t;\n"
    "  }\n"
    "  for (long i = 0; i < NODES; i++) { nodes[perm[i]].next = &nodes[perm[(i + 1) % NODES]]; nodes[i].pad[0] = i; }\n"
    "}\n"
    "int main(void) {\n"
    "  struct node *n1 = malloc(NODES * sizeof *n1), *n2 = malloc(NODES * sizeof *n2);\n"
    "  long *perm = malloc(NODES * sizeof *perm);\n"
    "  ring(n1, perm); ring(n2, perm);\n"
    "  double *grid = malloc(GRID * sizeof *grid), *keys = malloc(QUERIES * sizeof *keys);\n"
    "  for (long i = 0; i < GRID; i++) grid[i] = (double)i;\n"
    "  for (long q = 0; q < QUERIES; q++) keys[q] = (double)(next_rand() % GRID);\n"
    "  long *arr = malloc(NEL * sizeof *arr), *idx = malloc(NEL / 4 * sizeof *idx), *b = malloc(NEL * sizeof *b);\n"
    "  for (long i = 0; i < NEL; i++) arr[i] = i;\n"
    "  for (long i = 0; i < NEL / 4; i++) idx[i] = (long)(next_rand() % NEL);\n"
    "  long r = kernel_chase(n1, NODES) + kernel_two(n1, n2, NODES / 2) + kernel_search(grid, keys, QUERIES);\n"
    "  r += kernel_branchy(grid, keys, QUERIES / 4);\n"
    "  r += kernel_gather(arr, idx, NEL / 4) + kernel_stream(arr, NEL) + kernel_linear(arr, NEL / 2);\n"
    "  r += kernel_pack(arr, b, NEL);\n"
    "  printf(\"%ld\\n\", r);\n"
    "  return 0;\n"
    "}\n";

static const char *traced(void) {
  static char dir[600];
  if (dir[0]) return dir;
  snprintf(dir, sizeof dir, "%s", e2e_dir("progmodel_chase"));
  e2e_build_trace(dir, "c", k_prog, "");
  return dir;
}

/* The largest chased share among func's blocks, and that block's chains. */
static double chased_in(const ppt_trace *t, const char *func, unsigned *chains) {
  double best = 0;
  *chains = 0;
  for (uint32_t b = 1; b <= ppt_trace_nbbs(t); b++) {
    const ppt_trace_bb *bb = ppt_trace_bb_get(t, b);
    unsigned n;
    double q = ppt_trace_bb_chase(bb, &n);
    if (strcmp(bb->func, func) || q <= best) continue;
    best = q;
    *chains = n;
  }
  return best;
}

START_TEST(chase_recorded) {
  ppt_trace *t = e2e_open(traced(), "c.trace");
  unsigned chains;
  /* p->next and p->pad[0]: both loads wait for the last step's. */
  ck_assert_double_eq(chased_in(t, "kernel_chase", &chains), 1.0);
  ck_assert_uint_eq(chains, 1);
  ck_assert_double_eq(chased_in(t, "kernel_two", &chains), 1.0);
  ck_assert_uint_eq(chains, 2);
  /* g[mid]: lo and hi are one chain (both move with the same comparison). */
  ck_assert_double_eq(chased_in(t, "kernel_search", &chains), 1.0);
  ck_assert_uint_eq(chains, 1);
  /* The same with a branch (a store on one side keeps it): lo's and hi's PHIs where the
   * paths join depend on the comparison through the branch. */
  ck_assert_msg(chased_in(t, "kernel_branchy", &chains) > 0, "the branchy search has no chased load");
  ck_assert_uint_eq(chains, 1);
  const char *none[] = {"kernel_gather", "kernel_stream", "kernel_linear", "kernel_pack"};
  for (size_t i = 0; i < sizeof none / sizeof *none; i++)
    ck_assert_msg(chased_in(t, none[i], &chains) == 0.0, "%s has chased loads", none[i]);
  ppt_trace_close(t);
}
END_TEST

/* What predict --json says of func at 1 core: memory seconds, and per level k (nlevels:
 * DRAM) the share of references served there and of those the share prefetched. */
typedef struct kpred {
  double memory_s, served[PPT_HW_MAX_LEVELS + 1], prefetched[PPT_HW_MAX_LEVELS + 1];
} kpred;

static double num(json_object *o, const char *key) {
  json_object *v;
  return json_object_object_get_ex(o, key, &v) && v ? json_object_get_double(v) : 0.0;
}

static kpred predict(const char *d, const char *func, uint32_t nlevels) {
  ck_assert_int_eq(e2e_sh(d,
                          "$PPT predict c.trace --hw $PPT_SOURCE_DIR/hwspecs/host.json --cores 1 --only %s "
                          "--no-stack-refs --json > p.json 2>/dev/null",
                          func),
                   0);
  char path[800];
  snprintf(path, sizeof path, "%s/p.json", d);
  json_object *j = json_object_from_file(path), *cores, *lv, *bd, *dram;
  ck_assert_ptr_nonnull(j);
  ck_assert(json_object_object_get_ex(j, "cores", &cores));
  json_object *c = json_object_array_get_idx(cores, 0);
  ck_assert(json_object_object_get_ex(c, "levels", &lv) && json_object_object_get_ex(c, "breakdown", &bd) &&
            json_object_object_get_ex(c, "dram", &dram));
  kpred p = {.memory_s = num(bd, "memory_s")};
  double above = 0;
  for (uint32_t k = 0; k < nlevels; k++) {
    json_object *l = json_object_array_get_idx(lv, k);
    double h = num(l, "hit_rate");
    p.served[k] = h - above;
    p.prefetched[k] = num(l, "prefetched");
    above = h;
  }
  p.served[nlevels] = 1.0 - above;
  p.prefetched[nlevels] = num(dram, "prefetched");
  json_object_put(j);
  return p;
}

/* The references of func's blocks (the IR's). */
static double refs_of(const ppt_trace *t, const ppt_trace_summary *s, const char *func) {
  double n = 0;
  for (uint32_t b = 1; b <= ppt_trace_nbbs(t); b++)
    if (!strcmp(ppt_trace_bb_get(t, b)->func, func)) n += (double)s->bb_refs[b];
  return n;
}

/* By hand: every reference of func waits, one after the other, the latency of the level
 * that served it (the first level's load to use; a prefetched line none). */
static double serial_s(const ppt_hwspec *hw, const kpred *p, double refs) {
  double cyc = p->served[0] * ppt_hwspec_level_latency(hw, 0);
  for (uint32_t k = 1; k <= hw->nlevels; k++)
    cyc += p->served[k] * (1.0 - p->prefetched[k]) * ppt_hwspec_level_latency(hw, k);
  return refs * cyc / hw->clock_hz;
}

START_TEST(chase_priced) {
  const char *d = traced();
  char spec[600];
  snprintf(spec, sizeof spec, "%s/hwspecs/host.json", getenv("PPT_SOURCE_DIR"));
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(ppt_hwspec_load(spec, &hw, &err) == 0, "%s", err.msg);
  ck_assert(hw.mlp >= 4);
  ppt_trace *t = e2e_open(d, "c.trace");
  ppt_trace_summary s;
  e2e_summarize(t, &s);
  kpred p = predict(d, "kernel_chase", hw.nlevels);
  double want = serial_s(&hw, &p, refs_of(t, &s, "kernel_chase"));
  ck_assert_msg(p.served[0] < 0.9, "the chase hits the first level (%g): no misses to price", p.served[0]);
  ck_assert_msg(fabs(p.memory_s - want) <= 0.03 * want, "chase: memory %g s, by hand %g s", p.memory_s, want);
  /* Two chains in step: two misses in flight. */
  p = predict(d, "kernel_two", hw.nlevels);
  want = serial_s(&hw, &p, refs_of(t, &s, "kernel_two")) / 2;
  ck_assert_msg(fabs(p.memory_s - want) <= 0.05 * want, "two chains: memory %g s, by hand %g s", p.memory_s,
                want);
  /* The search's steps are as serial as the chase's. */
  p = predict(d, "kernel_search", hw.nlevels);
  want = serial_s(&hw, &p, refs_of(t, &s, "kernel_search"));
  ck_assert_msg(p.memory_s >= 0.8 * want && p.memory_s <= 1.1 * want, "search: memory %g s, serial %g s",
                p.memory_s, want);
  /* The gather's misses overlap. */
  p = predict(d, "kernel_gather", hw.nlevels);
  want = serial_s(&hw, &p, refs_of(t, &s, "kernel_gather"));
  ck_assert_msg(p.memory_s < 0.25 * want, "gather: memory %g s against %g s serial", p.memory_s, want);
  ppt_trace_summary_free(&s);
  ppt_trace_close(t);
}
END_TEST

int main(void) {
  Suite *s = suite_create("progmodel_chase");
  TCase *tc = tcase_create("chase");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, chase_recorded);
  tcase_add_test(tc, chase_priced);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

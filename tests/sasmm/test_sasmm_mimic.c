/* test_sasmm_mimic.c — SASMM core mimicking against the real thing: the iterations that
 * libomp gave real threads (traced with --threads N) versus ppt_sasmm_schedule, and the
 * mimicked per-core reference streams versus the real threads' streams. */
#include <check.h>

#include "ppt_test.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "e2e.h"
#include "ppt/sasmm.h"
#include "ppt/trace.h"

/* Three parallel loops: static, static with chunk 3, and one with fewer iterations than
 * threads. Each touches its own array once per iteration. The program prints x's address. */
static const char *k_loops =
    "#include <stdio.h>\n"
    "volatile double x[100], y[50], z[5];\n"
    "int main(void) {\n"
    "  printf(\"%lu\\n\", (unsigned long)x);\n"
    "#pragma omp parallel for schedule(static)\n"
    "  for (int i = 0; i < 100; i++) x[i] = x[i] + 1.0;\n"
    "#pragma omp parallel for schedule(static, 3)\n"
    "  for (int i = 0; i < 50; i++) y[i] = 2.0 * i;\n"
    "#pragma omp parallel for\n"
    "  for (int i = 0; i < 5; i++) z[i] = 1.0;\n"
    "  return 0;\n"
    "}\n";

typedef struct chunk_ev {
  int64_t lb, ub, st;
} chunk_ev;

static int cmp_chunk(const void *a, const void *b) {
  const chunk_ev *x = a, *y = b;
  return x->lb < y->lb ? -1 : x->lb > y->lb;
}

/* Collects the k-th LOOP_CHUNK event of every thread (one per static loop). */
static size_t real_chunks(ppt_trace *t, int k, chunk_ev *out) {
  size_t n = 0;
  for (uint32_t th = 0; th < ppt_trace_nthreads(t); th++) {
    ppt_trace_cursor *c;
    ppt_err err;
    ck_assert_int_eq(ppt_trace_cursor_open(t, th, &c, &err), 0);
    const ppt_trace_rec *r;
    size_t nr;
    int seen = 0;
    while (ppt_trace_cursor_next(c, &r, &nr, &err) == 0 && nr)
      for (size_t i = 0; i < nr; i++) {
        if (r[i].kind != PPT_REC_EVENT || r[i].size != PPT_EV_LOOP_CHUNK) continue;
        const ppt_trace_event *e = &ppt_trace_cursor_events(c)[r[i].addr];
        if (seen++ == k) out[n++] = (chunk_ev){e->v[0], e->v[1], e->v[2]};
      }
    ppt_trace_cursor_close(c);
  }
  qsort(out, n, sizeof *out, cmp_chunk);
  return n;
}

/* What ppt_sasmm_schedule gives each core, as libomp reports it: first chunk and stride. */
static size_t model_chunks(int sched, int64_t chunk, uint64_t trip, uint32_t ncores, chunk_ev *out) {
  uint32_t *core_of = malloc(trip * sizeof *core_of);
  ppt_sasmm_schedule(sched, chunk, trip, ncores, NULL, core_of);
  size_t n = 0;
  for (uint32_t c = 0; c < ncores; c++) {
    int64_t lb = -1, ub = -1;
    for (uint64_t i = 0; i < trip; i++) {
      if (core_of[i] != c) continue;
      if (lb < 0)
        lb = ub = (int64_t)i;
      else if (ub == (int64_t)i - 1)
        ub = (int64_t)i;
      else
        break;
    }
    if (lb >= 0) out[n++] = (chunk_ev){lb, ub, 0};
  }
  free(core_of);
  qsort(out, n, sizeof *out, cmp_chunk);
  return n;
}

START_TEST(schedules_match_libomp) {
  const char *d = e2e_dir("sasmm_sched");
  e2e_write(d, "l.c", k_loops);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 -fopenmp l.c -o l"), 0);
  static const uint32_t threads[] = {2, 3, 4, 8};
  for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ti++) {
    uint32_t n = threads[ti];
    ck_assert_int_eq(e2e_sh(d, "$PPT trace -t %u -o l%u.trace -- ./l >/dev/null 2>&1", n, n), 0);
    char name[64];
    snprintf(name, sizeof name, "l%u.trace", n);
    ppt_trace *t = e2e_open(d, name);
    chunk_ev real[16], model[16];
    struct {
      int sched;
      int64_t chunk;
      uint64_t trip;
    } loops[] = {{PPT_SCHED_STATIC, 0, 100}, {PPT_SCHED_STATIC_CHUNKED, 3, 50}, {PPT_SCHED_STATIC, 0, 5}};
    for (int k = 0; k < 3; k++) {
      size_t nr = real_chunks(t, k, real);
      size_t nm = model_chunks(loops[k].sched, loops[k].chunk, loops[k].trip, n, model);
      /* libomp reports lb > ub for a thread without iterations: drop those. */
      size_t w = 0;
      for (size_t i = 0; i < nr; i++)
        if (real[i].lb <= real[i].ub) real[w++] = real[i];
      ck_assert_msg(w == nm, "loop %d, %u threads: %zu real vs %zu model chunks", k, n, w, nm);
      for (size_t i = 0; i < nm; i++) {
        ck_assert_msg(real[i].lb == model[i].lb, "loop %d, %u threads, chunk %zu: lb %ld vs %ld", k, n, i,
                      (long)real[i].lb, (long)model[i].lb);
        /* A chunked schedule reports its first chunk; model chunks are maximal runs. */
        int64_t want_ub = loops[k].sched == PPT_SCHED_STATIC_CHUNKED ? real[i].ub : model[i].ub;
        ck_assert_int_eq(real[i].ub, want_ub);
        if (loops[k].sched == PPT_SCHED_STATIC_CHUNKED) ck_assert_int_eq(real[i].st, 3 * (int64_t)n);
      }
    }
    ppt_trace_close(t);
  }
}
END_TEST

/* schedule(auto) and schedule(runtime) as libomp runs them: auto is guided_analytical
 * (libomp's __kmp_auto), runtime is whatever OMP_SCHEDULE says in the traced run (static without
 * it). The schedule and chunk the loop events record, per OMP_SCHEDULE. */
static const char *k_auto_runtime =
    "volatile double x[64];\n"
    "int main(void) {\n"
    "#pragma omp parallel for schedule(auto)\n"
    "  for (int i = 0; i < 64; i++) x[i] = 1.0;\n"
    "#pragma omp parallel for schedule(runtime)\n"
    "  for (int i = 0; i < 64; i++) x[i] += 1.0;\n"
    "  return 0;\n"
    "}\n";

static void loop_schedules(ppt_trace *t, int64_t sched[2], int64_t chunk[2]) {
  ppt_trace_cursor *c;
  ppt_err err;
  ck_assert_int_eq(ppt_trace_cursor_open(t, 0, &c, &err), 0);
  const ppt_trace_rec *r;
  size_t nr, k = 0;
  while (ppt_trace_cursor_next(c, &r, &nr, &err) == 0 && nr)
    for (size_t i = 0; i < nr; i++) {
      if (r[i].kind != PPT_REC_EVENT || r[i].size != PPT_EV_LOOP_BEGIN || k >= 2) continue;
      const ppt_trace_event *e = &ppt_trace_cursor_events(c)[r[i].addr];
      sched[k] = e->v[0];
      chunk[k++] = e->v[4];
    }
  ppt_trace_cursor_close(c);
  ck_assert_uint_eq(k, 2);
}

START_TEST(auto_and_runtime_schedules) {
  const char *d = e2e_dir("sasmm_sched_auto");
  e2e_write(d, "a.c", k_auto_runtime);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 -fopenmp a.c -o a"), 0);
  static const struct {
    const char *env;
    int64_t sched, chunk;
  } cases[] = {{"", PPT_SCHED_STATIC, 0},
               {"OMP_SCHEDULE=dynamic,4", PPT_SCHED_DYNAMIC, 4},
               {"OMP_SCHEDULE=static,7", PPT_SCHED_STATIC_CHUNKED, 7},
               {"OMP_SCHEDULE=guided", PPT_SCHED_GUIDED, -1},
               {"OMP_SCHEDULE=auto", PPT_SCHED_AUTO, -1}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ck_assert_int_eq(e2e_sh(d, "unset OMP_SCHEDULE; env %s $PPT trace -o a%zu.trace -- ./a >/dev/null 2>&1",
                            cases[i].env, i),
                     0);
    char name[32];
    snprintf(name, sizeof name, "a%zu.trace", i);
    ppt_trace *t = e2e_open(d, name);
    int64_t sched[2], chunk[2];
    loop_schedules(t, sched, chunk);
    ck_assert_int_eq(sched[0], PPT_SCHED_AUTO | PPT_SCHED_NONMONOTONIC); /* clang 14 marks it */
    /* -1: libomp's default chunk, which omp_get_schedule reports as 0 or 1 */
    int chunk_ok = cases[i].chunk < 0 ? chunk[1] == 0 || chunk[1] == 1 : chunk[1] == cases[i].chunk;
    ck_assert_msg(sched[1] == cases[i].sched && chunk_ok, "%s: schedule %ld chunk %ld", cases[i].env,
                  (long)sched[1], (long)chunk[1]);
    ppt_trace_close(t);
  }
}
END_TEST

/* Memory grows with what is simulated: a small trace (one chunk of ~0.5 M records, the
 * whole parallel loop) mimicked on 256 cores holds one decoded copy of it that all cores
 * share, not 256 (1.6 GB before, docs/sasmm.md "Memory"): under 512 MB peak. */
START_TEST(many_cores_small_trace_memory) {
  const char *d = e2e_dir("sasmm_mem");
  e2e_write(d, "m.c",
            "volatile double x[1 << 16];\n"
            "int main(void) {\n"
            "  for (int r = 0; r < 8; r++) {\n"
            "#pragma omp parallel for schedule(static)\n"
            "    for (int i = 0; i < (1 << 16); i++) x[i] = x[i] + 1.0;\n"
            "  }\n"
            "  return 0;\n"
            "}\n");
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 -fopenmp m.c -o m && $PPT trace -o m.trace -- ./m >/dev/null 2>&1"),
                   0);
  ppt_trace *t = e2e_open(d, "m.trace");
  ck_assert_uint_ge(ppt_trace_nrefs(t, 0), 1000000);
  ppt_trace_close(t);
  ck_assert_int_eq(e2e_sh(d,
                          "$PPT sasmm m.trace --hw $PPT_SOURCE_DIR/hwspecs/host.json --cores 256 --json "
                          ">/dev/null"),
                   0);
  struct rusage ru;
  ck_assert_int_eq(getrusage(RUSAGE_CHILDREN, &ru), 0);
  ck_assert_msg(ru.ru_maxrss < 512 * 1024, "peak %ld KB", ru.ru_maxrss);
}
END_TEST

/* Mimicked streams: per core, the sequence of offsets into x touched inside parallel
 * blocks, compared with what each real thread touched. */
typedef struct seqs {
  uint64_t base;
  uint64_t *off[8];
  size_t n[8];
} seqs;

static void push(seqs *s, uint32_t c, uint64_t off) {
  s->off[c] = realloc(s->off[c], (s->n[c] + 1) * sizeof *s->off[c]);
  s->off[c][s->n[c]++] = off;
}

static void on_priv(void *arg, uint32_t core, const ppt_trace_rec *r, size_t n) {
  seqs *s = arg;
  for (size_t i = 0; i < n; i++)
    if (r[i].kind != PPT_REC_BB && r[i].addr - s->base < 800) push(s, core, r[i].addr - s->base);
}

static int cmp_seq(const void *a, const void *b) {
  const uint64_t *const *x = a, *const *y = b;
  return (**x > **y) - (**x < **y);
}

START_TEST(mimicked_streams_match_real_threads) {
  const char *d = e2e_dir("sasmm_streams");
  e2e_write(d, "l.c", k_loops);
  ck_assert_int_eq(e2e_sh(d,
                          "$PPTCC -O1 -fopenmp l.c -o l && $PPT trace -o l1.trace -- ./l >a1.txt 2>/dev/null"
                          " && $PPT trace -t 4 -o l4.trace -- ./l >a4.txt 2>/dev/null"),
                   0);
  seqs mim = {.base = e2e_read_ulong(d, "a1.txt")}, real = {.base = e2e_read_ulong(d, "a4.txt")};
  ppt_trace *t1 = e2e_open(d, "l1.trace"), *t4 = e2e_open(d, "l4.trace");
  ppt_sasmm_opts o;
  ppt_sasmm_opts_default(&o);
  o.ncores = 4;
  ppt_sasmm_sink sink = {.priv = on_priv, .arg = &mim};
  ppt_sasmm_stats st;
  ppt_err err;
  ck_assert_msg(ppt_sasmm_mimic(t1, &o, &sink, &st, &err) == 0, "%s", err.msg);
  ck_assert_uint_eq(st.loop_phases, 3);
  ck_assert_uint_eq(st.loops_without_marker, 0);
  ck_assert_uint_eq(st.iterations, 155);
  for (uint32_t th = 0; th < 4; th++) {
    ppt_trace_cursor *c;
    ck_assert_int_eq(ppt_trace_cursor_open(t4, th, &c, &err), 0);
    const ppt_trace_rec *r;
    size_t n;
    while (ppt_trace_cursor_next(c, &r, &n, &err) == 0 && n) on_priv(&real, th, r, n);
    ppt_trace_cursor_close(c);
  }
  /* Thread numbering differs (trace order vs OpenMP id): compare as sorted sets of sequences. */
  uint64_t *ms[4], *rs[4];
  for (int c = 0; c < 4; c++) {
    ck_assert_uint_eq(mim.n[c], 50); /* 25 iterations of x[i] = x[i] + 1.0 */
    ms[c] = mim.off[c];
    rs[c] = real.off[c];
  }
  qsort(ms, 4, sizeof *ms, cmp_seq);
  qsort(rs, 4, sizeof *rs, cmp_seq);
  for (int c = 0; c < 4; c++) {
    size_t idx = 0;
    while (idx < 4 && real.off[idx] != rs[c]) idx++;
    ck_assert_uint_eq(real.n[idx], 50);
    ck_assert_int_eq(memcmp(ms[c], rs[c], 50 * sizeof(uint64_t)), 0);
  }
  for (int c = 0; c < 8; c++) {
    free(mim.off[c]);
    free(real.off[c]);
  }
  ppt_trace_close(t1);
  ppt_trace_close(t4);
}
END_TEST

/* Stack references inside a parallel region are private to each mimicked core; shared
 * data keeps its address; the shared stream is the round-robin merge of the cores. */
static const char *k_stack =
    "volatile double g[64];\n"
    "int main(void) {\n"
    "#pragma omp parallel\n"
    "  {\n"
    "    volatile double loc[8];\n"
    "    for (int i = 0; i < 8; i++) loc[i] = g[i];\n"
    "  }\n"
    "  return 0;\n"
    "}\n";

typedef struct stackcheck {
  uint64_t stack[4], stack_core_ok, shared_refs, nonstack[4];
  uint32_t last_core;
  int alternations;
} stackcheck;

static void sc_priv(void *arg, uint32_t core, const ppt_trace_rec *r, size_t n) {
  stackcheck *s = arg;
  for (size_t i = 0; i < n; i++) {
    if (r[i].kind == PPT_REC_BB) continue;
    if (r[i].flags & PPT_REC_STACK) {
      s->stack[core]++;
      s->stack_core_ok += (r[i].addr >> 52) == core;
    } else {
      s->nonstack[core]++;
    }
  }
}

static void sc_shared(void *arg, const ppt_trace_rec *r, const uint32_t *cores, size_t n) {
  stackcheck *s = arg;
  for (size_t i = 0; i < n; i++) {
    if (r[i].kind == PPT_REC_BB) continue;
    if (s->shared_refs++ && cores[i] != s->last_core) s->alternations++;
    s->last_core = cores[i];
  }
}

START_TEST(stack_privatised_and_round_robin) {
  const char *d = e2e_dir("sasmm_stack");
  e2e_write(d, "s.c", k_stack);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 -fopenmp s.c -o s && $PPT trace -o s.trace -- ./s >/dev/null 2>&1"),
                   0);
  ppt_trace *t = e2e_open(d, "s.trace");
  stackcheck sc = {0};
  ppt_sasmm_opts o;
  ppt_sasmm_opts_default(&o);
  o.ncores = 4;
  ppt_sasmm_sink sink = {.priv = sc_priv, .shared = sc_shared, .arg = &sc};
  ppt_err err;
  ck_assert_msg(ppt_sasmm_mimic(t, &o, &sink, NULL, &err) == 0, "%s", err.msg);
  uint64_t stack_total = 0;
  for (int c = 0; c < 4; c++) {
    ck_assert_uint_ge(sc.stack[c], 8);           /* each core writes its own loc[] */
    ck_assert_uint_eq(sc.stack[c], sc.stack[0]); /* replicated region: same work */
    ck_assert_uint_eq(sc.nonstack[c], 8);        /* g[0..7] read by every core */
    stack_total += sc.stack[c];
  }
  ck_assert_uint_eq(sc.stack_core_ok, stack_total); /* core c's stack lives at c << 52 */
  /* Round-robin by reference over four equal streams: the core changes at every step. */
  ck_assert_uint_eq(sc.alternations, sc.shared_refs - 1);
  ppt_trace_close(t);
}
END_TEST

int main(void) {
  Suite *s = suite_create("sasmm_mimic");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, schedules_match_libomp);
  tcase_add_test(tc, auto_and_runtime_schedules);
  tcase_add_test(tc, many_cores_small_trace_memory);
  tcase_add_test(tc, mimicked_streams_match_real_threads);
  tcase_add_test(tc, stack_privatised_and_round_robin);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

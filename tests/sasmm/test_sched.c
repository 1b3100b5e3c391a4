/* test_sched.c — every OpenMP schedule as ppt_sasmm_schedule deals it, against what libomp
 * gave 4 real threads (ppt trace -t 4, each thread's PPT_EV_LOOP_CHUNK events). Static
 * forms must match exactly (which iterations share a thread); for the timing-dependent
 * ones the properties that do not depend on timing: coverage, chunk sizes and boundaries,
 * monotonic chunks ascending per thread, static_steal's pieces few and contiguous. */
#include <check.h>

#include "ppt_test.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"
#include "ppt/sasmm.h"
#include "ppt/trace.h"

/* Equal work per iteration, enough of it that the 4 threads overlap. */
static const char *k_prog =
    "volatile double x[4004], y[256];\n"
    "static void work(int i) { double s = 0; for (int j = 0; j < 256; j++) s += y[j]; x[i] += s; }\n"
    "int main(void) {\n"
    "#pragma omp parallel for schedule(static)\n"
    "  for (int i = 0; i < 1003; i++) work(i);\n"
    "#pragma omp parallel for schedule(static, 7)\n"
    "  for (int i = 0; i < 1003; i++) work(i);\n"
    "#pragma omp parallel for schedule(dynamic, 8)\n"
    "  for (int i = 0; i < 4004; i++) work(i);\n"
    "#pragma omp parallel for schedule(monotonic: dynamic, 8)\n"
    "  for (int i = 0; i < 4004; i++) work(i);\n"
    "#pragma omp parallel for schedule(guided, 5)\n"
    "  for (int i = 0; i < 4000; i++) work(i);\n"
    "#pragma omp parallel for schedule(auto)\n"
    "  for (int i = 0; i < 4000; i++) work(i);\n"
    "#pragma omp parallel for schedule(runtime)\n"
    "  for (int i = 0; i < 4004; i++) work(i);\n"
    "  return 0;\n"
    "}\n";

enum { NLOOPS = 7, NT = 4, MAXCH = 8192 };
static const uint64_t k_trip[NLOOPS] = {1003, 1003, 4004, 4004, 4000, 4000, 4004};

typedef struct loopev {
  int64_t sched, chunk;
  size_t n[NT];
  int64_t lb[NT][MAXCH / NT * 4], ub[NT][MAXCH / NT * 4]; /* each thread's chunks, in order */
} loopev;

static void read_loops(ppt_trace *t, loopev *L) {
  memset(L, 0, NLOOPS * sizeof *L);
  ck_assert_uint_eq(ppt_trace_nthreads(t), NT);
  for (uint32_t th = 0; th < NT; th++) {
    ppt_trace_cursor *c;
    ppt_err err;
    ck_assert_int_eq(ppt_trace_cursor_open(t, th, &c, &err), 0);
    const ppt_trace_rec *r;
    size_t nr;
    int k = -1;
    while (ppt_trace_cursor_next(c, &r, &nr, &err) == 0 && nr)
      for (size_t i = 0; i < nr; i++) {
        if (r[i].kind != PPT_REC_EVENT) continue;
        const ppt_trace_event *e = &ppt_trace_cursor_events(c)[r[i].addr];
        if (r[i].size == PPT_EV_LOOP_BEGIN && ++k < NLOOPS) L[k].sched = e->v[0], L[k].chunk = e->v[4];
        if (r[i].size != PPT_EV_LOOP_CHUNK || k < 0 || k >= NLOOPS) continue;
        loopev *l = &L[k];
        /* a static share of a thread without iterations has lb > ub */
        if (e->v[0] > e->v[1] || l->n[th] >= MAXCH) continue;
        l->lb[th][l->n[th]] = e->v[0];
        l->ub[th][l->n[th]++] = e->v[1];
      }
    ppt_trace_cursor_close(c);
    ck_assert_int_eq(k, NLOOPS - 1);
  }
}

/* Static chunks are reported as the first chunk and a stride; expand to iterations. */
static void owners_static(const loopev *l, int chunked, uint64_t trip, int32_t *owner) {
  for (uint32_t th = 0; th < NT; th++)
    for (size_t j = 0; j < l->n[th]; j++) {
      int64_t lb = l->lb[th][j], ub = l->ub[th][j], len = ub - lb + 1;
      for (int64_t s = lb; s < (int64_t)trip; s += chunked ? len * NT : (int64_t)trip)
        for (int64_t i = s; i < s + len && i < (int64_t)trip; i++) owner[i] = (int32_t)th;
    }
}

static void owners_dispatch(const loopev *l, uint64_t trip, int32_t *owner) {
  for (uint64_t i = 0; i < trip; i++) owner[i] = -1;
  for (uint32_t th = 0; th < NT; th++)
    for (size_t j = 0; j < l->n[th]; j++)
      for (int64_t i = l->lb[th][j]; i <= l->ub[th][j]; i++) {
        ck_assert_msg(i >= 0 && i < (int64_t)trip && owner[i] < 0, "iteration %ld twice", (long)i);
        owner[i] = (int32_t)th;
      }
}

/* Same partition of iterations, up to renaming threads (trace order is not OpenMP's). */
static void same_partition(const int32_t *real, const uint32_t *model, uint64_t trip, int k) {
  int32_t map[NT] = {-1, -1, -1, -1};
  for (uint64_t i = 0; i < trip; i++) {
    ck_assert_msg(real[i] >= 0, "loop %d: iteration %lu not run", k, (unsigned long)i);
    if (map[real[i]] < 0) map[real[i]] = (int32_t)model[i];
    ck_assert_msg(map[real[i]] == (int32_t)model[i], "loop %d: iteration %lu on thread %d, model core %u", k,
                  (unsigned long)i, real[i], model[i]);
  }
  for (int a = 0; a < NT; a++)
    for (int b = a + 1; b < NT; b++) ck_assert(map[a] < 0 || map[a] != map[b]);
}

/* Every real chunk lies in one run of the model's cores, and the model changes core only at
 * a real chunk boundary: the same chunk sizes, where the model does not merge neighbours. */
static void same_chunk_bounds(const loopev *l, const uint32_t *model, uint64_t trip, int k) {
  uint8_t *start = calloc(trip + 1, 1);
  for (uint32_t th = 0; th < NT; th++)
    for (size_t j = 0; j < l->n[th]; j++) {
      start[l->lb[th][j]] = 1;
      for (int64_t i = l->lb[th][j] + 1; i <= l->ub[th][j]; i++)
        ck_assert_msg(model[i] == model[i - 1], "loop %d: model splits chunk at %ld", k, (long)i);
    }
  for (uint64_t i = 1; i < trip; i++)
    ck_assert_msg(model[i] == model[i - 1] || start[i], "loop %d: model chunk starts at %lu", k,
                  (unsigned long)i);
  free(start);
}

static size_t count_chunks(const loopev *l) {
  size_t n = 0;
  for (int th = 0; th < NT; th++) n += l->n[th];
  return n;
}

static void check_trace(ppt_trace *t, int64_t runtime_sched, int64_t runtime_chunk) {
  static loopev L[NLOOPS];
  read_loops(t, L);
  const int64_t NM = PPT_SCHED_NONMONOTONIC;
  const int64_t want[NLOOPS][2] = {{PPT_SCHED_STATIC, 1},         {PPT_SCHED_STATIC_CHUNKED, 7},
                                   {PPT_SCHED_DYNAMIC | NM, 8},   {PPT_SCHED_DYNAMIC, 8},
                                   {PPT_SCHED_GUIDED | NM, 5},    {PPT_SCHED_AUTO | NM, 1},
                                   {runtime_sched, runtime_chunk}};
  int32_t owner[4004];
  uint32_t model[4004];
  for (int k = 0; k < NLOOPS; k++) {
    const loopev *l = &L[k];
    uint64_t trip = k_trip[k];
    ck_assert_msg(l->sched == want[k][0] && l->chunk == want[k][1], "loop %d: recorded %ld,%ld", k,
                  (long)l->sched, (long)l->chunk);
    ppt_sasmm_schedule((int)l->sched, l->chunk, trip, NT, NULL, model);
    int kind = (int)l->sched & PPT_SCHED_KIND_MASK;
    if (kind == PPT_SCHED_STATIC || (kind == PPT_SCHED_STATIC_CHUNKED && k < 6)) {
      owners_static(l, kind == PPT_SCHED_STATIC_CHUNKED, trip, owner);
      same_partition(owner, model, trip, k);
      continue;
    }
    owners_dispatch(l, trip, owner);        /* coverage: every iteration once */
    if (kind == PPT_SCHED_STATIC_CHUNKED) { /* schedule(runtime) static,c: chunks from dispatch */
      same_partition(owner, model, trip, k);
      continue;
    }
    for (uint64_t i = 0; i < trip; i++) ck_assert_int_ge(owner[i], 0);
    same_chunk_bounds(l, model, trip, k);
    if (kind == PPT_SCHED_GUIDED) ck_assert_uint_eq(count_chunks(l), 44); /* 500, 437, 382, ..., 5, 1 */
    if (kind == PPT_SCHED_AUTO) ck_assert_uint_eq(count_chunks(l), 56);   /* 500, 437, 383, ..., 1 */
    if (kind != PPT_SCHED_DYNAMIC) continue;
    ck_assert_uint_eq(count_chunks(l), 501);
    size_t runs = 0;
    for (int th = 0; th < NT; th++)
      for (size_t j = 0; j < l->n[th]; j++) {
        int monotonic = !(l->sched & NM);
        if (j && monotonic) ck_assert_int_gt(l->lb[th][j], l->lb[th][j - 1]); /* shared counter */
        runs += !j || l->lb[th][j] != l->ub[th][j - 1] + 1;
      }
    /* static_steal: each thread runs its block, then pieces of a quarter of what is left
     * at a victim's tail; a shared counter dealing to 4 running threads gives far more. */
    if (l->sched & NM) ck_assert_uint_le(runs, 501 / 4);
  }
}

START_TEST(schedules_match_real_threads) {
  const char *d = e2e_dir("sasmm_sched_all");
  e2e_write(d, "p.c", k_prog);
  ck_assert_int_eq(e2e_sh(d, "$PPTCC -O1 -fopenmp p.c -o p"), 0);
  static const struct {
    const char *env;
    int64_t sched, chunk;
  } runs[] = {{"OMP_SCHEDULE=static,7", PPT_SCHED_STATIC_CHUNKED, 7},
              {"OMP_SCHEDULE=dynamic,8", PPT_SCHED_DYNAMIC, 8}, /* libomp 14: monotonic */
              {"OMP_SCHEDULE=nonmonotonic:dynamic,8", PPT_SCHED_DYNAMIC | PPT_SCHED_NONMONOTONIC, 8},
              {"OMP_SCHEDULE=guided,5", PPT_SCHED_GUIDED, 5}};
  for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
    ck_assert_int_eq(e2e_sh(d, "env %s $PPT trace -t 4 -o p%zu.trace -- ./p >/dev/null 2>&1", runs[i].env, i),
                     0);
    char name[32];
    snprintf(name, sizeof name, "p%zu.trace", i);
    ppt_trace *t = e2e_open(d, name);
    check_trace(t, runs[i].sched, runs[i].chunk);
    ppt_trace_close(t);
  }
}
END_TEST

/* The model alone: static_steal with equal work is its balanced blocks of chunks (the one
 * thread whose block ends in a short last chunk would take one chunk off block 0's tail, as
 * it finishes first); with one slow iteration the others steal from that thread's tail. */
START_TEST(static_steal_model) {
  uint32_t core[4004];
  ppt_sasmm_schedule(PPT_SCHED_DYNAMIC | PPT_SCHED_NONMONOTONIC, 8, 4000, 4, NULL, core);
  for (uint32_t i = 0; i < 4000; i++) ck_assert_uint_eq(core[i], i / 1000);
  uint64_t work[4000];
  for (int i = 0; i < 4000; i++) work[i] = i == 0 ? 100000 : 1;
  ppt_sasmm_schedule(PPT_SCHED_DYNAMIC | PPT_SCHED_NONMONOTONIC, 8, 4000, 4, work, core);
  ck_assert_uint_eq(core[0], 0);
  ck_assert_uint_eq(core[752], 1); /* thread 1 steals a quarter of block 0's tail first */
  for (int i = 8; i < 1000; i++) ck_assert_uint_ne(core[i], 0);    /* all of it but chunk 0 */
  for (int i = 1000; i < 2000; i++) ck_assert_uint_eq(core[i], 1); /* its own block first */
  /* old traces (no flag): dynamic is the shared counter */
  ppt_sasmm_schedule(PPT_SCHED_DYNAMIC, 8, 4000, 4, NULL, core);
  ck_assert_uint_eq(core[8], 1);
  ck_assert_uint_eq(core[32], 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("sasmm_sched");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, schedules_match_real_threads);
  tcase_add_test(tc, static_steal_model);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

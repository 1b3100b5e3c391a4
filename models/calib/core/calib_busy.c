/* calib_busy.c — how fast cores compute when many compute at once (hwspec busy_speed).
 *
 * calib_speed.c times each core alone. A parallel region keeps all its cores busy, and
 * busy cores can slow each other where the guest cannot see it: two virtual CPUs on one
 * host core's SMT siblings share its ports, and a package whose cores share one power
 * budget clocks lower the more of them run. On a lent 16-CPU Intel Xeon guest
 * (validation/results/device-emr16/) the compute-bound kernels ran within 4-16 % of ppt's
 * prediction on one thread and scaled 9-12x on 16, where alone each core ran as fast as
 * the first.
 *
 * So the op mix of calib_speed.c runs on k pinned threads at once, started together by a
 * flag they spin on, each timing its own pass; a thread that is done keeps computing (the mix again,
 * untimed) until every thread's timed pass is over, so that no pass ends among fewer busy
 * cores than it started with. A static schedule waits for the slowest thread: busy_speed
 * at k is the slowest busy core's speed (the geometric mean over the mix of the first
 * core's time alone over its own) over the slowest core's speed alone (core_speed). */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "calib/calib_impl.h"

typedef struct busy_team {
  const calib_timing *t;    /* the timed pass */
  const calib_timing *keep; /* the untimed passes of a thread that is done */
  atomic_int go;            /* 0: wait, 1: start, -1: a thread could not be started, give up */
  atomic_uint done;         /* threads whose timed pass is over */
  uint32_t k;
} busy_team;

typedef struct busy_thread {
  busy_team *team;
  int cpu;
  int pinned;
  double s[CALIB_MIX_N];
} busy_thread;

static void *busy_main(void *p) {
  busy_thread *b = p;
  cpu_set_t saved;
  b->pinned = calib_pin_self(b->cpu, &saved);
  int go;
  while ((go = atomic_load(&b->team->go)) == 0) sched_yield();
  if (go < 0) {
    if (b->pinned) calib_unpin_self(&saved);
    return NULL;
  }
  calib_ops_mix_s(b->team->t, b->s);
  atomic_fetch_add(&b->team->done, 1);
  double idle[CALIB_MIX_N];
  while (atomic_load(&b->team->done) < b->team->k) calib_ops_mix_s(b->team->keep, idle);
  if (b->pinned) calib_unpin_self(&saved);
  return NULL;
}

/* The mix on cpus[0..k) at once, the caller running cpus[0]'s share; each thread's
 * seconds per unit in s[i]. 0 when a thread could not be started or pinned. */
static int team_run(const int *cpus, uint32_t k, const calib_timing *t, busy_thread *th) {
  /* Short untimed passes: a thread waits at most one of them past the last timed pass. */
  calib_timing keep = *t;
  keep.trials = 1;
  keep.min_s = t->min_s < 1e-3 ? t->min_s : 1e-3;
  busy_team team = {.t = t, .keep = &keep, .k = k};
  atomic_init(&team.go, 0);
  atomic_init(&team.done, 0);
  pthread_t *tid = calloc(k, sizeof *tid);
  if (!tid) return 0;
  for (uint32_t i = 0; i < k; i++) th[i] = (busy_thread){.team = &team, .cpu = cpus[i]};
  uint32_t started = 1;
  for (; started < k; started++)
    if (pthread_create(&tid[started], NULL, busy_main, &th[started])) break;
  int ok = started == k;
  atomic_store(&team.go, ok ? 1 : -1);
  if (ok) busy_main(&th[0]);
  for (uint32_t i = 1; i < started; i++) pthread_join(tid[i], NULL);
  free(tid);
  for (uint32_t i = 0; ok && i < k; i++) ok = th[i].pinned;
  return ok;
}

double calib_busy_speed(const int *cpus, uint32_t k, const double *speed, const calib_timing *t) {
  if (k < 1) return 0;
  busy_thread *th = calloc(k, sizeof *th);
  if (!th) return 0;
  double r = 0;
  /* The first core alone, the reference of every speed, then all k together. */
  if (team_run(cpus, 1, t, th)) {
    double ref[CALIB_MIX_N];
    for (int j = 0; j < CALIB_MIX_N; j++) ref[j] = th[0].s[j];
    if (team_run(cpus, k, t, th)) {
      double slow_busy = INFINITY, slow_alone = INFINITY;
      for (uint32_t i = 0; i < k; i++) {
        double b = calib_mix_speed(ref, th[i].s), a = speed && speed[i] > 0 ? speed[i] : 1;
        slow_busy = fmin(slow_busy, b);
        slow_alone = fmin(slow_alone, a);
      }
      r = slow_busy > 0 && isfinite(slow_busy) ? slow_busy / slow_alone : 0;
    }
  }
  free(th);
  return r;
}

uint32_t calib_busy_counts(uint32_t n, uint32_t *counts, uint32_t max) {
  uint32_t m = 0;
  for (uint32_t k = 2; k < n && m < max; k *= 2) counts[m++] = k;
  if (n >= 2 && m < max) counts[m++] = n;
  return m;
}

void calib_busy_fill(const uint32_t *counts, const double *at, uint32_t m, uint32_t n, double *busy) {
  /* One core alone is the reference: 1 by definition. Between two timed counts, a
   * straight line in the count; past the last, the last. */
  uint32_t prev_k = 1;
  double prev_v = 1;
  uint32_t j = 0;
  for (uint32_t k = 1; k <= n; k++) {
    while (j < m && counts[j] < k) {
      prev_k = counts[j];
      prev_v = at[j];
      j++;
    }
    if (j < m && counts[j] == k)
      busy[k - 1] = at[j];
    else if (j < m)
      busy[k - 1] = prev_v + (at[j] - prev_v) * (double)(k - prev_k) / (double)(counts[j] - prev_k);
    else
      busy[k - 1] = prev_v;
  }
}

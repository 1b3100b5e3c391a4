/* calib_watch.c — which stage `ppt calibrate` is in, and a watchdog that says so when one
 * runs far longer than it should (declarations: calib_impl.h, "calib_watch.c").
 *
 * Why: the two-core probes spin on a line the other thread writes, and the fork-join and
 * bandwidth stages start a thread on every CPU. On a virtual machine whose CPUs the host
 * stops running (on one 16-CPU guest one calibration of five ran past 7 minutes where
 * the others took 17-20 s, and said nothing), such a
 * stage waits as long as the host keeps that CPU away, and the user sees a silent
 * process. The watchdog names the stage instead, every `stall_s` seconds it goes on. It
 * only reports: a stage cannot be interrupted safely from outside, so stopping (or
 * waiting) stays the caller's choice. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "calib/calib_impl.h"

struct calib_watch {
  pthread_t tid;
  pthread_mutex_t mu;
  pthread_cond_t cv; /* signalled on a new stage and on stop */
  void (*on_stage)(const char *stage, double seconds, void *arg);
  void *arg;
  double stall_s;
  const char *stage; /* a string literal of calib.c */
  double since;      /* calib_now() when the stage began */
  unsigned long gen; /* bumped on every stage change */
  int stop;
};

/* CLOCK_MONOTONIC is calib_now's clock: the condition variable waits on it too. */
static struct timespec abs_time(double t) {
  struct timespec ts;
  ts.tv_sec = (time_t)floor(t);
  ts.tv_nsec = (long)((t - floor(t)) * 1e9);
  if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
  return ts;
}

static void *watch_main(void *arg) {
  calib_watch *w = arg;
  pthread_mutex_lock(&w->mu);
  while (!w->stop) {
    unsigned long gen = w->gen;
    double since = w->since;
    /* Tick k of this stage falls at since + k * stall_s. */
    for (int k = 1; !w->stop && w->gen == gen; k++) {
      struct timespec until = abs_time(since + k * w->stall_s);
      int rc = 0;
      while (!w->stop && w->gen == gen && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&w->cv, &w->mu, &until);
      if (w->stop || w->gen != gen) break;
      const char *stage = w->stage;
      double seconds = calib_now() - since;
      /* The callback prints: not under the lock, so a slow terminal never holds up the
       * measuring thread's next stage. */
      pthread_mutex_unlock(&w->mu);
      w->on_stage(stage, seconds, w->arg);
      pthread_mutex_lock(&w->mu);
    }
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

calib_watch *calib_watch_start(void (*on_stage)(const char *, double, void *), void *arg, double stall_s) {
  if (!on_stage) return NULL;
  calib_watch *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->on_stage = on_stage;
  w->arg = arg;
  w->stall_s = stall_s > 0 ? stall_s : CALIB_STALL_S;
  w->stage = "start";
  w->since = calib_now();
  if (pthread_mutex_init(&w->mu, NULL)) {
    free(w);
    return NULL;
  }
  pthread_condattr_t ca;
  int ok = 1;
  if (pthread_condattr_init(&ca) == 0) {
    ok = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 && pthread_cond_init(&w->cv, &ca) == 0;
    pthread_condattr_destroy(&ca);
    if (ok && pthread_create(&w->tid, NULL, watch_main, w) == 0) return w;
    if (ok) pthread_cond_destroy(&w->cv);
  }
  /* No watchdog (out of threads): stages are still announced, from the caller. */
  w->stall_s = 0;
  return w;
}

void calib_watch_stage(calib_watch *w, const char *stage) {
  if (!w) return;
  if (w->stall_s > 0) {
    pthread_mutex_lock(&w->mu);
    w->stage = stage;
    w->since = calib_now();
    w->gen++;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
  }
  w->on_stage(stage, 0, w->arg);
}

void calib_watch_stop(calib_watch *w) {
  if (!w) return;
  if (w->stall_s > 0) {
    pthread_mutex_lock(&w->mu);
    w->stop = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->tid, NULL);
    pthread_cond_destroy(&w->cv);
  }
  pthread_mutex_destroy(&w->mu);
  free(w);
}

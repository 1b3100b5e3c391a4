/* calib_share.c — whether two CPUs that CPUID and sysfs put on one instance of a cache
 * level share its capacity in practice (hwspec levels[k].shared_by).
 *
 * A guest's virtual CPUs can sit on host cores of different core complexes, each with
 * its own L3, while the guest is told of one L3 shared by all of them. The models then
 * give two threads one capacity where each has its own: on a Zen 3 guest (CPUID: one
 * 32 MiB L3 for both CPUs), CPU 0's chase over 2.5 MiB read 19.8 ns
 * alone and 18.1-21.2 ns while CPU 1 chased 1.5, 2.5 or 6 MiB of its own, where one
 * core's chase holds no more than ~3.3 MiB (137 ns at 6 MiB); jacobi's two threads, 8
 * MiB each, ran 2.4x as fast as one over 16 MiB, which ppt priced as DRAM-bound.
 *
 * The probe: CPU a chases a set of `bytes` alone, then while CPU b chases another set of
 * `bytes` meanwhile (each a random cyclic permutation of lines, on huge pages). Sets that
 * together overflow a shared instance but each fit a private one tell the two apart: the
 * caller sizes them (calib.c, stage_share). */
#include <stdatomic.h>

#include "calib/calib_impl.h"

typedef struct share_partner {
  void *start;
  size_t n;
  atomic_int stop;
} share_partner;

typedef struct share_body {
  void *buf;
  size_t bytes;
  gsl_rng *rng;
  const calib_timing *t;
  share_partner *partner; /* told to stop once the chase is timed; NULL alone */
  double ns;
} share_body;

/* The partner's chase, lap after lap, until told to stop. */
static void *partner_chase(void *p) {
  share_partner *s = p;
  void *volatile sink;
  void **q = s->start;
  while (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
    for (size_t i = 0; i < s->n; i++) q = *q;
    sink = q;
  }
  (void)sink;
  return NULL;
}

/* The timed chase; calib_on_two_cpus joins the partner after it. */
static void body_chase(void *p) {
  share_body *b = p;
  b->ns = calib_chase_ns(b->buf, b->bytes, 64, 1, b->rng, b->t);
  if (b->partner) atomic_store(&b->partner->stop, 1);
}

int calib_share_ns(const int cpus[2], size_t bytes, gsl_rng *rng, const calib_timing *t, double *alone_ns,
                   double *together_ns) {
  *alone_ns = *together_ns = 0;
  size_t n = bytes / 64;
  if (n < 2) return -1;
  int huge = 0;
  void *mine = calib_buffer(bytes, &huge), *theirs = calib_buffer(bytes, &huge);
  size_t *perm = calib_cyclic_perm(n, rng);
  int rc = -1;
  if (mine && theirs && perm) {
    /* The partner's cycle: slot i points to slot perm[i]. */
    for (size_t i = 0; i < n; i++) ((void **)theirs)[i * 8] = (char *)theirs + perm[i] * 64;
    share_body b = {mine, bytes, rng, t, NULL, 0};
    cpu_set_t saved;
    if (calib_pin_self(cpus[0], &saved)) {
      body_chase(&b);
      calib_unpin_self(&saved);
      *alone_ns = b.ns;
      share_partner s = {.start = theirs, .n = n};
      atomic_init(&s.stop, 0);
      b.partner = &s;
      if (b.ns > 0 && calib_on_two_cpus(cpus, partner_chase, &s, body_chase, &b) == 0 && b.ns > 0) {
        *together_ns = b.ns;
        rc = 0;
      }
    }
  }
  free(perm);
  calib_buffer_free(mine);
  calib_buffer_free(theirs);
  return rc;
}

double calib_share_evicted(double alone_ns, double together_ns, double dram_ns) {
  if (!(alone_ns > 0 && together_ns > 0 && dram_ns > alone_ns)) return -1;
  double e = (together_ns - alone_ns) / (dram_ns - alone_ns);
  return e < 0 ? 0 : e > 1 ? 1 : e;
}

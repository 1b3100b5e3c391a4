/* test_device.c — the OpenCL device analysis (ppt/reuse_device.h) gives exactly the CPU
 * engine's results, and both the brute-force oracle's, on random traces of several
 * sizes and shapes, streamed in batches from 64 references (so through many batches and
 * merge-tree levels) to one batch for the whole trace; and its error paths.
 *
 * Exits 77 (ctest's SKIP_RETURN_CODE) with a message when ppt was built without OpenCL
 * or no OpenCL platform exists here; scripts/install-deps installs PoCL, so CI runs it. */
#include <check.h>

#include "ppt_test.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ppt/reuse_device.h"
#include "rdtest.h"

static const rdt_gen gens[] = {
    {3000, 7, 5, 6, 0.2, 0.1, 0.1, 64},         /* a handful of lines */
    {40000, 600, 20, 8, 0.3, 0.1, 0.2, 64},     /* chunks revisit their lines */
    {60000, 5000, 40, 8, 0.2, 0.05, 0.2, 64},   /* lines spread over many batches */
    {60000, 40000, 40, 8, 0.6, 0.0, 0.0, 64},   /* mostly streaming, many first touches */
    {150000, 3000, 60, 12, 0.4, 0.05, 0.1, 64}, /* long: hundreds of batches of 1000 */
};
#define NGENS (sizeof gens / sizeof *gens)

static const size_t batches[] = {64, 100, 1000, 4096, (size_t)1 << 20};
#define NBATCH (sizeof batches / sizeof *batches)

static ppt_reuse_dev *open_dev(size_t batch) {
  ppt_reuse_dev_opts o;
  ppt_reuse_dev_opts_default(&o);
  o.batch = batch;
  ppt_reuse_dev *d;
  ppt_err err;
  ck_assert_msg(ppt_reuse_dev_open(&o, &d, &err) == 0, "%s", err.msg);
  return d;
}

static int feed_dev(void *arg, ppt_reuse *r, const ppt_reuse_chunks *src, ppt_err *err) {
  return ppt_reuse_dev_feed_chunks(arg, r, src, err);
}

/* The records through the device in chunks of csize records. */
static ppt_reuse *run_dev(ppt_reuse_dev *d, const ppt_trace_rec *recs, size_t n, size_t csize) {
  ppt_reuse_opts o;
  ppt_reuse_opts_default(&o);
  return rdt_run_chunks(&o, recs, n, csize, 0, feed_dev, d);
}

START_TEST(device_equals_cpu) {
  const rdt_gen *g = &gens[_i % NGENS];
  rdt_case tc;
  rdt_case_make(&tc, g, 530 + (unsigned long)_i);
  ppt_reuse_opts o;
  ppt_reuse_opts_default(&o);
  ppt_reuse *cpu = rdt_run(&o, tc.recs, tc.n, 1000);
  ck_assert(ppt_rdhist_equal(ppt_reuse_hist(cpu), tc.whole));
  for (size_t k = 0; k < NBATCH; k++) {
    size_t batch = batches[(k + (size_t)_i) % NBATCH];
    ppt_reuse_dev *d = open_dev(batch);
    size_t csize = 1 + (size_t)gsl_rng_uniform_int(tc.rng, 5000);
    ppt_reuse *dev = run_dev(d, tc.recs, tc.n, csize);
    ck_assert_msg(ppt_rdhist_equal(ppt_reuse_hist(dev), tc.whole), "batch %zu: tc.whole histogram differs from the oracle",
                  batch);
    ck_assert_msg(rdt_same_results(cpu, dev), "batch %zu chunk %zu: per-block results differ", batch, csize);
    ck_assert_uint_eq(ppt_reuse_lines(cpu), ppt_reuse_lines(dev));
    ck_assert_uint_eq(ppt_reuse_refs(cpu), ppt_reuse_refs(dev));
    ck_assert_uint_eq(ppt_reuse_max_bb(cpu), ppt_reuse_max_bb(dev));
    for (uint32_t bb = 0; bb <= ppt_reuse_max_bb(cpu); bb++) {
      ck_assert_uint_eq(ppt_reuse_bb_instances(cpu, bb), ppt_reuse_bb_instances(dev, bb));
      ck_assert_uint_eq(ppt_reuse_bb_refs(cpu, bb), ppt_reuse_bb_refs(dev, bb));
    }
    ppt_reuse_free(dev);
    ppt_reuse_dev_free(d);
  }
  ppt_reuse_free(cpu);
  rdt_case_free(&tc);
}
END_TEST

/* One device serves several streams in turn (per-thread histograms: one context each). */
START_TEST(device_several_streams) {
  ppt_reuse_dev *d = open_dev(256);
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(rng, 77);
  for (int s = 0; s < 3; s++) {
    rdt_gen g = {5000 + 3000 * (size_t)s, 300 + 500 * (uint64_t)s, 9, 6, 0.3, 0.1, 0.1, 64};
    size_t n;
    ppt_trace_rec *recs = rdt_generate(&g, rng, &n);
    ppt_reuse_opts o;
    ppt_reuse_opts_default(&o);
    ppt_reuse *cpu = rdt_run(&o, recs, n, 700), *dev = run_dev(d, recs, n, 999);
    ck_assert(rdt_same_results(cpu, dev));
    ppt_reuse_free(cpu);
    ppt_reuse_free(dev);
    free(recs);
  }
  /* an empty stream */
  ppt_reuse *e = run_dev(d, NULL, 0, 10);
  ck_assert_double_eq(ppt_rdhist_total(ppt_reuse_hist(e)), 0);
  ppt_reuse_free(e);
  gsl_rng_free(rng);
  ppt_reuse_dev_free(d);
}
END_TEST

START_TEST(device_errors) {
  ppt_err err;
  ppt_reuse_dev *d;
  ppt_reuse_dev_opts o;
  ppt_reuse_dev_opts_default(&o);
  unsigned ndev = 0;
  FILE *devnull = fopen("/dev/null", "w");
  ck_assert_int_eq(ppt_reuse_dev_list(devnull, &ndev, &err), 0);
  fclose(devnull);
  o.index = ndev; /* one past the last */
  ck_assert_int_eq(ppt_reuse_dev_open(&o, &d, &err), PPT_EINPUT);
  ck_assert_msg(strstr(err.msg, "no such OpenCL device"), "%s", err.msg);
  o.index = 0;
  o.batch = 10;
  ck_assert_int_eq(ppt_reuse_dev_open(&o, &d, &err), PPT_EINPUT);
  d = open_dev(128);
  rdt_gen g = {4000, 100, 5, 4, 0.3, 0.1, 0.1, 64};
  rdt_case tc;
  rdt_case_make(&tc, &g, 0);
  const ppt_trace_rec *recs = tc.recs;
  size_t n = tc.n;
  ppt_reuse_opts ro;
  ppt_reuse_opts_default(&ro);
  ppt_reuse *r;
  /* a decode error reaches the caller and leaves the context unusable */
  rdt_chunks c = {recs, n, 500, 3};
  ppt_reuse_chunks src = {(n + 499) / 500, NULL, rdt_chunk_decode, &c};
  ck_assert_int_eq(ppt_reuse_new(&ro, &r, &err), 0);
  ck_assert_int_eq(ppt_reuse_dev_feed_chunks(d, r, &src, &err), PPT_EINPUT);
  ck_assert_str_eq(err.msg, "t.ppt: chunk 3: bad checksum");
  ck_assert_int_ne(ppt_reuse_finish(r, &err), 0);
  ppt_reuse_free(r);
  /* sampled contexts, and contexts already fed, are refused; a device-fed one takes no more */
  c.fail_at = SIZE_MAX;
  ro.mode = PPT_REUSE_SAMPLED;
  ck_assert_int_eq(ppt_reuse_new(&ro, &r, &err), 0);
  ck_assert_int_eq(ppt_reuse_dev_feed_chunks(d, r, &src, &err), PPT_EINPUT);
  ppt_reuse_free(r);
  ro.mode = PPT_REUSE_EXACT;
  ck_assert_int_eq(ppt_reuse_new(&ro, &r, &err), 0);
  ck_assert_int_eq(ppt_reuse_feed(r, recs, 100, &err), 0);
  ck_assert_int_eq(ppt_reuse_dev_feed_chunks(d, r, &src, &err), PPT_ERUN);
  ppt_reuse_free(r);
  ck_assert_int_eq(ppt_reuse_new(&ro, &r, &err), 0);
  ck_assert_int_eq(ppt_reuse_dev_feed_chunks(d, r, &src, &err), 0);
  ck_assert_int_eq(ppt_reuse_feed(r, recs, 100, &err), PPT_ERUN);
  ck_assert_str_eq(err.msg, "reuse: context is fed by a device");
  ppt_reuse_free(r);
  rdt_case_free(&tc);
  ppt_reuse_dev_free(d);
}
END_TEST

/* Device count, asked in a child process: the OpenCL runtime (PoCL's worker threads)
 * must not be started in this process, whose tests Check forks. -1 on failure. */
static int count_devices(void) {
  pid_t pid = fork();
  if (pid == 0) {
    unsigned ndev = 0;
    ppt_err err;
    FILE *devnull = fopen("/dev/null", "w");
    int rc = ppt_reuse_dev_list(devnull, &ndev, &err);
    if (rc) printf("test_reuse_device: listing the OpenCL devices failed: %s\n", err.msg);
    _exit(rc ? 255 : ndev > 100 ? 100 : (int)ndev);
  }
  int st;
  if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) == 255) return -1;
  return WEXITSTATUS(st);
}

int main(void) {
  if (!ppt_reuse_dev_built()) {
    printf("test_reuse_device: skipped: ppt was built without OpenCL\n");
    return 77;
  }
  int ndev = count_devices();
  if (ndev < 0) return EXIT_FAILURE;
  if (ndev == 0) {
    printf("test_reuse_device: skipped: no OpenCL platform or device here (install pocl-opencl-icd)\n");
    return 77;
  }
  Suite *s = suite_create("reuse_device");
  TCase *tc = tcase_create("device");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, device_equals_cpu, 0, NGENS);
  tcase_add_test(tc, device_several_streams);
  tcase_add_test(tc, device_errors);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

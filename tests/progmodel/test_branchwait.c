/* test_branchwait.c — a mispredicted branch on data waits for the load it tests
 * (progmodel.c judge_branch and branch_waits, bpred.h progmodel_bpred_waited).
 *
 * Two loops branch on the same random bits, key[i] + a byte loaded through a shuffled
 * index; the byte is always 0, so both take the same way every trip and the predictor
 * misses both equally often (about half: coin flips, test_bpred). kernel_near reads
 * its byte from 1 KiB (first-level hits after 16 cold lines); kernel_far from a new line
 * of a 2 MiB array each trip, so every byte is a first touch that memory serves (no
 * prefetcher in hwspecs/host.json; the lines are in random order anyway). Worked out by
 * hand from the spec:
 *   near: mispredicts x branch_miss_cycles
 *   far:  mispredicts x (branch_miss_cycles + DRAM latency in cycles - L1 latency)
 * kernel_near's 16 cold lines add at most 16 waits (0.2 % here), inside the tolerance. */
#include <check.h>

#include "ppt_test.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "breakdown.h"
#include "e2e.h"
#include "ppt/hwspec.h"

#define N 32768

static const char *k_prog =
    "#include <stdio.h>\n"
    "#define N 32768\n"
    "static unsigned key[N], idx[N];\n"
    "unsigned char near_[1024], far_[N * 64];\n" /* external: the compiler cannot fold them to 0 */
    "volatile unsigned va, vb;\n"
    /* different work on the two sides, so that the branch stays a branch */
    "__attribute__((noinline)) void kernel_near(void) {\n"
    "  for (int i = 0; i < N; i++)\n"
    "    if ((key[i] + near_[idx[i] & 1023]) & 1) va = i; else vb = vb * 3 + 1;\n"
    "}\n"
    "__attribute__((noinline)) void kernel_far(void) {\n"
    "  for (int i = 0; i < N; i++)\n"
    "    if ((key[i] + far_[idx[i] * 64]) & 1) va = i; else vb = vb * 3 + 1;\n"
    "}\n"
    "int main(void) {\n"
    "  unsigned x = 12345;\n"
    "  for (int i = 0; i < N; i++) { x = x * 1103515245u + 12345u; key[i] = x >> 16; idx[i] = i; }\n"
    "  for (int i = N - 1; i > 0; i--) {\n"
    "    x = x * 1103515245u + 12345u;\n"
    "    unsigned j = (x >> 8) % (unsigned)(i + 1), t = idx[i];\n"
    "    idx[i] = idx[j]; idx[j] = t;\n"
    "  }\n"
    "  kernel_near(); kernel_far();\n"
    "  printf(\"%u %u\\n\", va, vb);\n"
    "  return 0;\n"
    "}\n";

static double branch_s(const char *dir, const char *kernel) {
  ck_assert_int_eq(e2e_sh(dir,
                          "$PPT predict b.trace --hw $PPT_SOURCE_DIR/hwspecs/host.json --cores 1 "
                          "--only %s --json > %s.json 2>/dev/null",
                          kernel, kernel),
                   0);
  char path[800];
  snprintf(path, sizeof path, "%s/%s.json", dir, kernel);
  return breakdown_compute_key(path, "branch_miss_s");
}

START_TEST(branch_waits_for_its_load) {
  const char *d = e2e_dir("progmodel_branchwait");
  e2e_write(d, "b.c", k_prog);
  ck_assert_int_eq(e2e_sh(d,
                          "$PPTCC -O2 -fno-unroll-loops b.c -o b && "
                          "$PPT trace -o b.trace -- ./b >/dev/null 2>&1"),
                   0);
  char spec[600];
  snprintf(spec, sizeof spec, "%s/hwspecs/host.json", getenv("PPT_SOURCE_DIR"));
  ppt_hwspec hw;
  ppt_err err;
  ck_assert_msg(ppt_hwspec_load(spec, &hw, &err) == 0, "%s", err.msg);
  const double pen = hw.branch_miss_cycles;
  const double wait = hw.dram_latency_ns * 1e-9 * hw.clock_hz - hw.levels[0].latency_cycles;
  double near = branch_s(d, "kernel_near"), far = branch_s(d, "kernel_far");
  double misses = near * hw.clock_hz / pen;
  /* Random bits: the bimodal predictor misses about half of them. */
  ck_assert_msg(fabs(misses - N / 2.0) <= 0.05 * N / 2.0, "near: %g mispredicts of %d trips", misses, N);
  double want = misses * (pen + wait) / hw.clock_hz;
  ck_assert_msg(fabs(far - want) <= 0.02 * want, "far: branch misses %g s, by hand %g s (near %g s)", far,
                want, near);
}
END_TEST

int main(void) {
  Suite *s = suite_create("progmodel_branchwait");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, branch_waits_for_its_load);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

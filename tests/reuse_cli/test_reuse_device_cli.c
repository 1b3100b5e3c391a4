/* test_reuse_device_cli.c — `ppt reuse --device opencl` on traces of the validation
 * kernels (validation/kernels, small sizes, traced on 2 OpenMP threads) gives the same
 * JSON as the CPU engine: whole-stream, per-block and per-region histograms of every
 * thread (--per-bb --all-threads), the timing keys aside, and `ppt hitrate --device
 * opencl` the same rates as on the CPU; and its usage and device
 * errors are one line with exit 2, an OpenCL runtime error one line with exit 1.
 *
 * Exits 77 (ctest's SKIP_RETURN_CODE) with a message where `ppt reuse --device list`
 * finds no OpenCL device or ppt was built without OpenCL. */
#include <check.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e/e2e.h"
#include "ppt_test.h"

typedef struct kernel {
  const char *name, *defs;
} kernel;

/* Streaming, stencil, indirect and scattered accesses. */
static const kernel kernels[] = {
    {"triad", "-DN=20000 -DNTIMES=2"},
    {"jacobi", "-DN=64 -DTSTEPS=3"},
    {"spmv", "-DNROWS=2048 -DITERS=2"},
    {"histo", "-DN=65536 -DROUNDS=1"},
};
#define NKERNELS (sizeof kernels / sizeof *kernels)

/* The JSON of `ppt reuse --all-threads` without what differs between engines or runs. */
static char *normalised(const char *dir, const char *file) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", dir, file);
  json_object *j = json_object_from_file(p);
  ck_assert_msg(j != NULL, "%s: not JSON", p);
  json_object *th = json_object_object_get(j, "threads");
  ck_assert_int_eq((int)json_object_array_length(th), 2);
  for (size_t i = 0; i < json_object_array_length(th); i++) {
    json_object *t = json_object_array_get_idx(th, i);
    ck_assert_ptr_nonnull(json_object_object_get(t, "blocks"));
    json_object_object_del(t, "elapsed_s");
    json_object_object_del(t, "refs_per_s");
    json_object_object_del(t, "device");
  }
  char *s = strdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
  json_object_put(j);
  return s;
}

START_TEST(device_equals_cpu_on_kernels) {
  const kernel *k = &kernels[_i];
  const char *dir = e2e_dir(k->name);
  const char *src = getenv("PPT_SOURCE_DIR");
  ck_assert_ptr_nonnull(src);
  ck_assert_int_eq(e2e_sh(dir,
                          "$PPTCC -O2 -fopenmp %s -I'%s/validation/kernels' '%s/validation/kernels/%s.c' -o k && "
                          "$PPT trace --threads 2 -o k.trace -- ./k >/dev/null 2>&1",
                          k->defs, src, src, k->name),
                   0);
  ck_assert_int_eq(e2e_sh(dir, "$PPT reuse --per-bb --all-threads --json k.trace > cpu.json"), 0);
  /* batches far smaller than the stream: the carried state crosses many of them */
  ck_assert_int_eq(e2e_sh(dir, "$PPT reuse --per-bb --all-threads --json --device opencl --device-batch 5000 "
                               "k.trace > dev.json"),
                   0);
  char *a = normalised(dir, "cpu.json"), *b = normalised(dir, "dev.json");
  ck_assert_msg(!strcmp(a, b), "%s: the device's histograms differ from the CPU engine's", k->name);
  free(a);
  free(b);
  ck_assert_int_eq(e2e_sh(dir, "test \"$(jq -r '.threads[1].device' dev.json)\" = opencl"), 0);
  /* ppt hitrate's histogram of a trace, on the device: the same rates to the last bit */
  ck_assert_int_eq(e2e_sh(dir,
                          "$PPT hitrate --hw '%s/hwspecs/sasmm-cachegrind.json' --json k.trace > h1.json && "
                          "$PPT hitrate --hw '%s/hwspecs/sasmm-cachegrind.json' --json --device opencl "
                          "--device-batch 3000 k.trace > h2.json && cmp h1.json h2.json",
                          src, src),
                   0);
}
END_TEST

/* Bad values are usage errors; a device that does not exist is one line naming it, and
 * so is a failing OpenCL call. */
START_TEST(device_errors) {
  const char *dir = e2e_dir("device_errors");
  e2e_build_trace(dir, "p", "volatile int a[64];\nint main(void) { for (int i = 0; i < 64; i++) a[i]++; return 0; }\n",
                  "");
  ck_assert_int_eq(e2e_sh(dir, "$PPT reuse --device opencl:4000 p.trace 2> e1"), 2);
  ck_assert_int_eq(e2e_sh(dir, "test $(wc -l < e1) = 1 && grep -q 'opencl:4000: no such OpenCL device' e1"), 0);
  ck_assert_int_eq(e2e_sh(dir, "$PPT reuse --device gpu p.trace 2> e2"), 2);
  ck_assert_int_eq(e2e_sh(dir, "$PPT reuse --device opencl --sample 0.5 p.trace 2> e3"), 2);
  ck_assert_int_eq(e2e_sh(dir, "$PPT reuse --device opencl --device-batch 3 p.trace 2> e4"), 2);
  ck_assert_int_eq(e2e_sh(dir, "$PPT reuse --device list > l && grep -q '^opencl:0 ' l"), 0);
  /* An OpenCL runtime error: a batch whose merge tree (25 levels of 2^28 8-byte values)
   * is larger than PoCL lets one buffer be: one line naming the call and the code. */
  ck_assert_int_eq(e2e_sh(dir, "$PPT reuse --device opencl --device-batch 268435456 p.trace 2> e5"), 1);
  ck_assert_int_eq(e2e_sh(dir, "test $(wc -l < e5) = 1 && grep -q '^ppt reuse: --device: OpenCL clCreateBuffer "
                               "failed: CL_[A-Z_]* (-[0-9]*)$' e5"),
                   0);
}
END_TEST

int main(void) {
  const char *bin = getenv("PPT_BINARY_DIR");
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "'%s/bin/ppt' reuse --device list 2>/dev/null | grep -q '^opencl:0 '", bin ? bin : ".");
  if (!bin || system(cmd) != 0) {
    printf("test_reuse_device_cli: skipped: no OpenCL device (`ppt reuse --device list`)\n");
    return 77;
  }
  Suite *s = suite_create("reuse_device_cli");
  TCase *tc = tcase_create("device_cli");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, device_equals_cpu_on_kernels, 0, NKERNELS);
  tcase_add_test(tc, device_errors);
  suite_add_tcase(s, tc);
  return ppt_test_run(s);
}

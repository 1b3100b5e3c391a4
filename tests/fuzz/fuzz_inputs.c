/* fuzz_inputs.c — libFuzzer targets for the other files users hand us, one per parser
 * (PPT_FUZZ_SURFACE, set by tests/fuzz/CMakeLists.txt): 0 hwspec JSON (ppt_hwspec_parse),
 * 1 and 2 reuse profiles in PPT's text format and in JSON, as `ppt hitrate PROFILE` reads
 * them, 3 `--set` settings (ppt_hwspec_set: one per line, applied in order to a full spec,
 * each leaving a valid spec or the spec unchanged). Every input must give either success
 * or PPT_EINPUT with a one-line message — never a crash. */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppt/hwspec.h"
#include "ppt/reuse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_err(int rc, const ppt_err *err) {
  if (rc == 0) return;
  /* Bad input is PPT_EINPUT (out of memory would be PPT_ERUN); one line, always. */
  if (rc != PPT_EINPUT || strchr(err->msg, '\n') || !err->msg[0]) abort();
}

#ifndef PPT_FUZZ_SURFACE
#error "PPT_FUZZ_SURFACE must be 0 (hwspec), 1 (text profile), 2 (JSON profile) or 3 (settings)"
#endif

/* A spec with every section a setting can reach: levels, TLB, DRAM, ops, mlp_same_set. */
static const char *k_full =
    "{\"name\": \"fz\", \"clock_ghz\": 3, \"cores\": 8, \"mlp\": 8, \"mlp_same_set\": {\"load\": 4, "
    "\"store\": 3},"
    "\"levels\": [{\"name\": \"L1\", \"size\": 32768, \"assoc\": 8, \"line\": 64, \"shared_by\": 1,"
    "\"latency_cycles\": 4, \"bandwidth_bytes_per_cycle\": 64},"
    "{\"name\": \"L2\", \"size\": 1048576, \"assoc\": 16, \"line\": 64, \"shared_by\": 8, \"inclusive\": "
    "true,"
    "\"latency_cycles\": 40, \"bandwidth_bytes_per_cycle\": 32}],"
    "\"tlb\": [{\"name\": \"DTLB\", \"entries\": 64, \"assoc\": 4, \"page_bytes\": 4096, \"miss_cycles\": "
    "7}],"
    "\"dram\": {\"latency_ns\": 90, \"bandwidth_gbs\": 50},"
    "\"ops\": {\"fadd\": {\"per_cycle\": 2, \"latency\": 3}}}";

static void fuzz_settings(char *text) {
  ppt_hwspec hw, before;
  ppt_err err;
  if (ppt_hwspec_parse(k_full, "fz", &hw, &err)) abort();
  for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    before = hw;
    int rc = ppt_hwspec_set(&hw, line, &err);
    check_err(rc, &err);
    if (rc ? memcmp(&hw, &before, sizeof hw) != 0 : ppt_hwspec_validate(&hw, "fz", &err) != 0) abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  ppt_err err;
  switch (PPT_FUZZ_SURFACE) {
    case 0: {
      ppt_hwspec hw;
      check_err(ppt_hwspec_parse(text, "fuzz.json", &hw, &err), &err);
      break;
    }
    case 1: {
      FILE *f = size ? fmemopen(text, size, "r") : NULL;
      if (f) {
        ppt_rdhist *h = NULL;
        check_err(ppt_rdhist_read_text(f, "fuzz.txt", 64, &h, &err), &err);
        ppt_rdhist_free(h);
        fclose(f);
      }
      break;
    }
    case 3: fuzz_settings(text); break;
    default: {
      json_object *j = json_tokener_parse(text);
      if (j) {
        ppt_rdhist *h = NULL;
        check_err(ppt_rdhist_from_json(j, "fuzz.json", &h, &err), &err);
        ppt_rdhist_free(h);
        json_object_put(j);
      }
      break;
    }
  }
  free(text);
  return 0;
}

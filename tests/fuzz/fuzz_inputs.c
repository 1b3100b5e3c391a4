/* fuzz_inputs.c — libFuzzer targets for the other files users hand us, one per parser
 * (PPT_FUZZ_SURFACE, set by tests/fuzz/CMakeLists.txt): 0 hwspec JSON (ppt_hwspec_parse),
 * 1 and 2 reuse profiles in PPT's text format and in JSON, as `ppt hitrate PROFILE` reads
 * them. Every input must give either success or PPT_EINPUT with a one-line message —
 * never a crash. */
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
#error "PPT_FUZZ_SURFACE must be 0 (hwspec), 1 (text profile) or 2 (JSON profile)"
#endif

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

/* fuzz_reader.c — libFuzzer targets for everything that reads a trace a user hands us,
 * one target per surface (PPT_FUZZ_SURFACE, set by tests/trace/CMakeLists.txt), so that
 * each has its own corpus and input-length limit:
 *   fuzz_trace_file  (0): the bytes are a whole trace file (header, footer, tables,
 *                         zstd chunks);
 *   fuzz_trace_chunk (1): the bytes are a raw decompressed chunk, which the zstd
 *                         checksum would otherwise shield from mutation. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ppt/trace.h"
#include "trace/decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_file(const uint8_t *data, size_t size) {
  int fd = memfd_create("ppt_fuzz", 0);
  if (fd < 0) return;
  if (write(fd, data, size) != (ssize_t)size) {
    close(fd);
    return;
  }
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  ppt_trace *t;
  ppt_err err;
  if (ppt_trace_open(path, &t, &err) == 0) {
    ppt_trace_batch *b = ppt_trace_batch_new();
    for (size_t i = 0; i < ppt_trace_nchunks(t); i++) {
      const ppt_trace_rec *r;
      size_t n;
      if (ppt_trace_chunk_decode(t, i, b, &r, &n, &err)) break;
    }
    ppt_trace_batch_free(b);
    ppt_trace_close(t);
  } else if (err.status != PPT_EINPUT) {
    abort(); /* a bad file must be reported as bad input */
  }
  close(fd);
}

/* Bytes 0-3 set the chunk's context (start block, start index, block count, whether the
 * references are counted); the rest is the encoded records. */
static void fuzz_records(const uint8_t *data, size_t size) {
  if (size < 5) return;
  ppt_trace_chunk_info c = {0};
  c.start_bb = data[0] % 4;
  c.start_k = data[1];
  uint32_t nbbs = 1u + data[2];
  c.nrecs = size - 4; /* upper bound; the decoder must reject mismatches */
  c.nrefs = data[3] & 1 ? c.nrecs : 0;
  ppt_trace_rec *r = malloc(c.nrecs * sizeof *r);
  if (!r) return;
  ppt_trace_event *ev = NULL;
  size_t cap = 0;
  ppt_trace_decode_records(nbbs, &c, data + 4, data + size, r, &ev, &cap);
  free(ev);
  free(r);
}

#ifndef PPT_FUZZ_SURFACE
#error "PPT_FUZZ_SURFACE must be 0 (trace file) or 1 (raw chunk)"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (PPT_FUZZ_SURFACE == 1)
    fuzz_records(data, size);
  else
    fuzz_file(data, size);
  return 0;
}

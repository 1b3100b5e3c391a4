/* fuzz_reader.c — libFuzzer target for everything that reads a trace a user hands us.
 * Input byte 0 picks the surface: even → the bytes are a whole trace file (header,
 * footer, tables, zstd chunks); odd → the rest is a raw decompressed chunk, which the
 * zstd checksum would otherwise shield from mutation. */
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

static void fuzz_records(const uint8_t *data, size_t size) {
  if (size < 4) return;
  ppt_trace_chunk_info c = {0};
  c.start_bb = data[0] % 4;
  c.start_k = data[1];
  c.nrecs = size - 2;          /* upper bound; the decoder must reject mismatches */
  c.nrefs = data[2] % 8 ? c.nrecs : 0;
  ppt_trace_rec *r = malloc(c.nrecs * sizeof *r);
  if (!r) return;
  ppt_trace_event *ev = NULL;
  size_t cap = 0;
  ppt_trace_decode_records(3, &c, data + 2, data + size, r, &ev, &cap);
  free(ev);
  free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  if (data[0] & 1)
    fuzz_records(data + 1, size - 1);
  else
    fuzz_file(data + 1, size - 1);
  return 0;
}

/* make_fuzz_seed.c — writes the seed corpora of the trace fuzz targets (fuzz_reader.c):
 * valid traces small and large (several chunks of hundreds of KiB, so the decoder's
 * large-input paths are reached from the start), a near-valid one, and raw chunks: a
 * small hand-made one and a full decompressed chunk of the large trace.
 *
 *   make_fuzz_seed FILE_DIR CHUNK_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>

#include "ppt/trace.h"
#include "synth.h"

static unsigned char *slurp(const char *path, long *n) {
  FILE *in = fopen(path, "rb");
  unsigned char *buf = NULL;
  if (in && fseek(in, 0, SEEK_END) == 0 && (*n = ftell(in)) > 0 && fseek(in, 0, SEEK_SET) == 0 &&
      (buf = malloc((size_t)*n)) && fread(buf, 1, (size_t)*n, in) != (size_t)*n) {
    free(buf);
    buf = NULL;
  }
  if (in) fclose(in);
  return buf;
}

static int spit(const char *dir, const char *name, const unsigned char *pre, size_t npre,
                const unsigned char *buf, size_t n) {
  char dst[512];
  snprintf(dst, sizeof dst, "%s/%s", dir, name);
  FILE *o = fopen(dst, "wb");
  if (!o) return 1;
  int bad = fwrite(pre, 1, npre, o) != npre || fwrite(buf, 1, n, o) != n;
  return (fclose(o) != 0) | bad;
}

/* The first chunk of trace `path` (of `nbbs` blocks), decompressed, as a chunk seed: the
 * four context bytes fuzz_reader.c reads (start block 0, start index 0, nbbs - 1,
 * references counted) then the encoded records. */
static int raw_chunk_seed(const char *path, unsigned nbbs, const char *dir) {
  ppt_trace *t;
  ppt_err err;
  long n;
  if (ppt_trace_open(path, &t, &err)) return 1;
  const ppt_trace_chunk_info *c = ppt_trace_chunk(t, 0);
  unsigned char *file = slurp(path, &n), *raw = c ? malloc(c->raw_size) : NULL;
  int rc = !file || !raw || c->offset + c->comp_size > (uint64_t)n ||
           ZSTD_decompress(raw, c->raw_size, file + c->offset, c->comp_size) != c->raw_size;
  const unsigned char pre[] = {0, 0, (unsigned char)(nbbs - 1), 1};
  if (!rc) rc = spit(dir, "raw_large", pre, sizeof pre, raw, c->raw_size);
  free(raw);
  free(file);
  ppt_trace_close(t);
  return rc;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: make_fuzz_seed FILE_DIR CHUNK_DIR\n");
    return 2;
  }
  char tmp[512], name[64];
  long n;
  snprintf(tmp, sizeof tmp, "%s/.synth", argv[1]);
  for (unsigned i = 0; i < 3; i++) {
    unsigned char *buf;
    if (synth_write(tmp, 11 + i, 1 + i % 2, 40 + 200 * i, 3 + i) || !(buf = slurp(tmp, &n))) return 1;
    snprintf(name, sizeof name, "trace%u", i);
    if (spit(argv[1], name, NULL, 0, buf, (size_t)n)) return 1;
    free(buf);
  }
  /* Large: 300 000 records of random-ish references make several chunks near the raw
   * limit (PPT_TRACE_CHUNK_RAW_MAX), about 1 MiB compressed. */
  unsigned char *big;
  if (synth_write(tmp, 31, 1, 300000, 40) || !(big = slurp(tmp, &n))) return 1;
  if (spit(argv[1], "trace_large", NULL, 0, big, (size_t)n) || raw_chunk_seed(tmp, 40, argv[2])) return 1;
  free(big);
  /* A trace whose footer counts one thread more than its chunks use (a check outside the
   * checksum, docs/trace-format.md): near-valid, so the fuzzer starts at that check. */
  unsigned char *buf;
  if (synth_write(tmp, 21, 2, 100, 3) || !(buf = slurp(tmp, &n)) || n <= 64) return 1;
  buf[n - 64 + 40]++; /* footer: u32 nthreads at offset 40 */
  if (spit(argv[1], "trace_nthreads", NULL, 0, buf, (size_t)n)) return 1;
  free(buf);
  remove(tmp);
  /* A raw chunk of 3 blocks: block entry 1, then loads with every address mode. */
  static const unsigned char raw[] = {0, 0, 2, 0, 0, 1, 0x8d, 0x80, 0x01, 0x4d, 0x0d, 0x0e, 0, 2, 0x89, 0x10};
  return spit(argv[2], "raw0", NULL, 0, raw, sizeof raw);
}

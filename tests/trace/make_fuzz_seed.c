/* make_fuzz_seed.c — writes the fuzzer's seed corpus: small valid traces (with the
 * selector byte fuzz_reader.c expects) and a raw record chunk. */
#include <stdio.h>
#include <stdlib.h>

#include "synth.h"

static int prefix(const char *src, const char *dst, unsigned char sel) {
  FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
  if (!in || !out) return 1;
  fputc(sel, out);
  int ch;
  while ((ch = fgetc(in)) != EOF) fputc(ch, out);
  fclose(in);
  return fclose(out) != 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_fuzz_seed DIR\n");
    return 2;
  }
  char tmp[512], dst[512];
  snprintf(tmp, sizeof tmp, "%s/.synth", argv[1]);
  for (unsigned i = 0; i < 3; i++) {
    if (synth_write(tmp, 11 + i, 1 + i % 2, 40 + 200 * i, 3 + i)) return 1;
    snprintf(dst, sizeof dst, "%s/trace%u", argv[1], i);
    if (prefix(tmp, dst, 0)) return 1;
  }
  /* A trace whose footer counts one thread more than its chunks use (a check outside the
   * checksum, docs/trace-format.md): near-valid, so the fuzzer starts at that check. */
  if (synth_write(tmp, 21, 2, 100, 3)) return 1;
  FILE *in = fopen(tmp, "rb");
  if (!in || fseek(in, 0, SEEK_END)) return 1;
  long n = ftell(in);
  unsigned char *buf = n > 64 ? malloc((size_t)n) : NULL;
  rewind(in);
  if (!buf || fread(buf, 1, (size_t)n, in) != (size_t)n) return 1;
  fclose(in);
  buf[n - 64 + 40]++; /* footer: u32 nthreads at offset 40 */
  snprintf(dst, sizeof dst, "%s/trace_nthreads", argv[1]);
  FILE *o = fopen(dst, "wb");
  if (!o || fputc(0, o) == EOF || fwrite(buf, 1, (size_t)n, o) != (size_t)n || fclose(o)) return 1;
  free(buf);
  remove(tmp);
  /* A raw chunk: block entry 1, then loads with every address mode. */
  static const unsigned char raw[] = {1, 0, 0, 0, 1, 0x8d, 0x80, 0x01, 0x4d, 0x0d, 0x0e, 0, 2, 0x89, 0x10};
  snprintf(dst, sizeof dst, "%s/raw0", argv[1]);
  FILE *f = fopen(dst, "wb");
  if (!f || fwrite(raw, 1, sizeof raw, f) != sizeof raw) return 1;
  return fclose(f) != 0;
}

/* mca.c — see mca.h. */
#include "mca.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcasm.h"
#include "ppt/io.h"

/* Iterations llvm-mca runs each block for: its report's cycles include the pipeline's
 * fill once, which 200 iterations spread to under a cycle for any chain up to 200. */
#define MCA_ITERATIONS "-iterations=200"

/* Builds the input: each marker's first machine block as one region. */
typedef struct input {
  char *buf;
  size_t len, cap;
  unsigned char *seen; /* per marker: already written */
  int oom;
} input;

static void put(input *in, const char *s, size_t n) {
  if (in->oom) return;
  if (in->len + n + 1 > in->cap) {
    size_t nc = in->cap ? 2 * in->cap : 65536;
    while (nc < in->len + n + 1) nc *= 2;
    char *nb = realloc(in->buf, nc);
    if (!nb) {
      in->oom = 1;
      return;
    }
    in->buf = nb;
    in->cap = nc;
  }
  memcpy(in->buf + in->len, s, n);
  in->len += n;
  in->buf[in->len] = '\0';
}

static int space(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

/* An instruction line's text without indentation and trailing comment (0: not one). */
static size_t insn_of(const char *s, size_t n, const char **out) {
  while (n > 0 && space(*s)) s++, n--;
  if (n == 0 || *s == '#' || *s == '.') return 0; /* comments, #APP markers, directives */
  const char *h = memchr(s, '#', n);
  if (h) n = (size_t)(h - s);
  while (n > 0 && space(s[n - 1])) n--;
  if (n == 0 || s[n - 1] == ':') return 0; /* a label */
  *out = s;
  return n;
}

static void on_block(void *arg, size_t k, const char *lines, size_t len) {
  input *in = arg;
  if (in->seen[k]) return; /* a tail-duplicated copy: the first one stands for all */
  size_t start = in->len;
  char head[48];
  int hn = snprintf(head, sizeof head, "# LLVM-MCA-BEGIN b%zu\n", k);
  put(in, head, (size_t)hn);
  int ninsn = 0;
  for (const char *p = lines, *end = lines + len; p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *e = nl ? nl : end, *ins;
    size_t m = insn_of(p, (size_t)(e - p), &ins);
    if (m) {
      put(in, "\t", 1);
      put(in, ins, m);
      put(in, "\n", 1);
      ninsn++;
    }
    p = e + 1;
  }
  if (ninsn == 0 || in->oom) { /* llvm-mca refuses an empty region */
    in->len = start;
    if (in->buf) in->buf[start] = '\0';
    return;
  }
  put(in, "# LLVM-MCA-END\n", 15);
  in->seen[k] = 1;
}

char *pcc_mca_input(const char *text, size_t len, size_t n, size_t *out_len) {
  input in = {0};
  in.seen = calloc(n ? n : 1, 1);
  pcc_mcstack *st = calloc(n ? n : 1, sizeof *st);
  if (!in.seen || !st) in.oom = 1;
  if (!in.oom) pcc_mcasm_walk(text, len, st, n, on_block, &in);
  free(st);
  free(in.seen);
  if (in.oom || !in.buf) {
    free(in.buf);
    *out_len = 0;
    return in.oom ? NULL : calloc(1, 1);
  }
  *out_len = in.len;
  return in.buf;
}

/* "KEY:   NUMBER" at the start of line s: the number, else -1. */
static double field(const char *s, size_t n, const char *key) {
  size_t k = strlen(key);
  if (n <= k || memcmp(s, key, k) != 0) return -1;
  char num[32];
  size_t m = n - k < sizeof num - 1 ? n - k : sizeof num - 1;
  memcpy(num, s + k, m);
  num[m] = '\0';
  char *e;
  double v = strtod(num, &e);
  return e == num ? -1 : v;
}

size_t pcc_mca_parse(const char *report, size_t len, size_t n, uint16_t *cyc) {
  memset(cyc, 0, n * sizeof *cyc);
  long k = -1;
  double iters = 0;
  size_t got = 0;
  for (const char *p = report, *end = report + len; p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *e = nl ? nl : end;
    size_t m = (size_t)(e - p);
    const char *r = m > 3 && *p == '[' ? memchr(p, ']', m) : NULL;
    static const char tag[] = "] Code Region - b";
    if (r && (size_t)(e - r) > sizeof tag - 1 && memcmp(r, tag, sizeof tag - 1) == 0) {
      char *q;
      long v = strtol(r + sizeof tag - 1, &q, 10);
      k = q > r + sizeof tag - 1 && v >= 0 && (size_t)v < n ? v : -1;
      iters = 0;
    }
    double v;
    if ((v = field(p, m, "Iterations:")) > 0) iters = v;
    if ((v = field(p, m, "Total Cycles:")) > 0 && k >= 0 && iters > 0) {
      double c = v / iters * PCC_MCA_SCALE + 0.5;
      cyc[k] = (uint16_t)(c > 65535 ? 65535 : c < 1 ? 1 : c);
      got++;
      k = -1;
    }
    p = e + 1;
  }
  return got;
}

/* Runs llvm-mca on `in`, its report to `out`, its messages (warnings on ret and call
 * instructions, which it ignores) to /dev/null; the exit status, -1 if not run. */
static int run_tool(const pcc_mca_cfg *cfg, const char *in, const char *out) {
  char cpu[96], o[4200];
  snprintf(cpu, sizeof cpu, "-mcpu=%s", cfg->cpu);
  snprintf(o, sizeof o, "-o=%s", out);
  /* The summary is all we read: no per-instruction tables (a 17th of the report). */
  char *argv[] = {(char *)cfg->tool, cpu, MCA_ITERATIONS, "-instruction-info=false", "-resource-pressure=false",
                  o, (char *)in, NULL};
  int code = 0;
  ppt_err err;
  return pcc_run_quiet(cfg->run, argv, &code, &err) == 0 ? code : -1;
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *b = NULL;
  size_t cap = 0, n = 0, r;
  do {
    if (n + 65536 > cap) {
      char *nb = realloc(b, cap = cap ? 2 * cap : 1 << 20);
      if (!nb) {
        free(b);
        fclose(f);
        return NULL;
      }
      b = nb;
    }
    r = fread(b + n, 1, cap - n, f);
    n += r;
  } while (r > 0);
  fclose(f);
  *len = n;
  return b;
}

size_t pcc_mca_cycles(const pcc_mca_cfg *cfg, const char *text, size_t len, size_t n, uint16_t *cyc) {
  memset(cyc, 0, n * sizeof *cyc);
  if (!cfg || !cfg->tool || !*cfg->tool || n == 0) return 0;
  size_t ilen = 0;
  char *input_text = pcc_mca_input(text, len, n, &ilen);
  char *in = pcc_tmpdir_file(cfg->tmp, "mca", ".s"), *out = pcc_tmpdir_file(cfg->tmp, "mca", ".txt");
  size_t got = 0;
  ppt_err err;
  if (input_text && ilen && in && out && ppt_io_write_file(in, input_text, &err) == 0) {
    int rc = run_tool(cfg, in, out);
    size_t rlen = 0;
    char *rep = rc == 0 ? slurp(out, &rlen) : NULL;
    if (rep) got = pcc_mca_parse(rep, rlen, n, cyc);
    else if (cfg->verbose)
      fprintf(stderr, "ppt-cc: %s -mcpu=%s failed (status %d): blocks get no core cycles\n", cfg->tool,
              cfg->cpu, rc);
    free(rep);
  }
  free(input_text);
  free(in);
  free(out);
  return got;
}

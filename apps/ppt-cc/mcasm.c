/* mcasm.c — see mcasm.h. */
#include "mcasm.h"

#include <stdlib.h>
#include <string.h>

#define MAX_OPS 6

static int starts(const char *s, size_t n, const char *p) {
  size_t k = strlen(p);
  return n >= k && memcmp(s, p, k) == 0;
}

static int is_one_of(const char *s, size_t n, const char *const *list) {
  for (; *list; list++)
    if (strlen(*list) == n && memcmp(s, *list, n) == 0) return 1;
  return 0;
}

static int is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

/* Is operand o (AT&T) a memory operand on this function's stack frame: disp(%rsp) or, with
 * a frame pointer, disp(%rbp), without index register or segment override? Indexed
 * stack accesses are the program's own arrays, which the IR already traces. */
static int stack_operand(const char *o, size_t n, int fp) {
  const char *lp = memchr(o, '(', n);
  if (!lp || memchr(o, ':', (size_t)(lp - o))) return 0;
  const char *b = lp + 1, *end = o + n;
  size_t k = 0;
  while (b + k < end && b[k] != ',' && b[k] != ')') k++;
  if (b + k >= end || b[k] != ')') return 0; /* an index register follows, or malformed */
  if ((k == 4 && memcmp(b, "%rsp", 4) == 0) || (k == 4 && memcmp(b, "%esp", 4) == 0)) return 1;
  return fp && k == 4 && (memcmp(b, "%rbp", 4) == 0 || memcmp(b, "%ebp", 4) == 0);
}

/* A load from the constant pool (".LCPI0_3(%rip)"): FP and vector constants are operands
 * in the IR but memory in the machine code. Read-only and always near in cache, they
 * count with the stack references (Cachegrind counts them; the trace has no record). */
static int const_pool_operand(const char *o, size_t n) {
  static const char rip[] = "(%rip)";
  if (n < 5 + sizeof rip - 1 || memcmp(o, ".LCPI", 5) != 0) return 0;
  return memcmp(o + n - (sizeof rip - 1), rip, sizeof rip - 1) == 0;
}

/* Splits operands at top-level commas (not inside parentheses or braces). */
static int split_ops(const char *s, size_t n, const char **op, size_t *ol) {
  int nops = 0, depth = 0;
  size_t i = 0;
  while (i < n && is_space(s[i])) i++;
  size_t start = i;
  for (; i <= n; i++) {
    char c = i < n ? s[i] : ',';
    if (c == '(' || c == '{')
      depth++;
    else if ((c == ')' || c == '}') && depth > 0)
      depth--;
    else if (c == ',' && depth == 0) {
      size_t a = start, b = i;
      while (a < b && is_space(s[a])) a++;
      while (b > a && is_space(s[b - 1])) b--;
      if (b > a && nops < MAX_OPS) {
        op[nops] = s + a;
        ol[nops++] = b - a;
      }
      start = i + 1;
    }
  }
  return nops;
}

/* The stack accesses push, pop, call, ret and leave make without a memory operand. */
static void implicit(const char *m, size_t n, uint32_t *ld, uint32_t *st) {
  static const char *const pushes[] = {"push", "pushq", "pushl", "pushw", "pushf", "pushfq", NULL};
  static const char *const pops[] = {"pop",   "popq",   "popl", "popw", "popf", "popfq",
                                     "leave", "leaveq", "ret",  "retq", "retl", NULL};
  static const char *const calls[] = {"call", "callq", "calll", NULL};
  if (is_one_of(m, n, pushes) || is_one_of(m, n, calls))
    (*st)++;
  else if (is_one_of(m, n, pops))
    (*ld)++;
}

/* A memory operand that is the only operand: written, read and written, or read. */
static void one_operand(const char *m, size_t n, uint32_t *ld, uint32_t *st) {
  static const char *const rmw[] = {"inc", "dec", "neg", "not", "shl", "shr", "sal",
                                    "sar", "rol", "ror", "rcl", "rcr", NULL};
  if (starts(m, n, "set") || starts(m, n, "pop") || starts(m, n, "fst") || starts(m, n, "fist") ||
      starts(m, n, "fnst") || starts(m, n, "stmxcsr") || starts(m, n, "vstmxcsr")) {
    (*st)++;
    return;
  }
  for (const char *const *p = rmw; *p; p++)
    if (starts(m, n, *p)) {
      (*ld)++;
      (*st)++;
      return;
    }
  (*ld)++;
}

/* A memory operand in the last (destination) position of a two- or three-operand form. */
static void destination(const char *m, size_t n, uint32_t *ld, uint32_t *st) {
  static const char *const bt[] = {"bt", "btw", "btl", "btq", NULL};
  if (starts(m, n, "cmpxchg") || starts(m, n, "xchg") || starts(m, n, "xadd")) {
    (*ld)++;
    (*st)++;
  } else if (starts(m, n, "cmp") || starts(m, n, "test") || is_one_of(m, n, bt) || starts(m, n, "ucomis") ||
             starts(m, n, "comis") || starts(m, n, "vucomis") || starts(m, n, "vcomis")) {
    (*ld)++;
  } else if (starts(m, n, "mov") || starts(m, n, "vmov") || starts(m, n, "cvt") || starts(m, n, "vcvt") ||
             starts(m, n, "extract") || starts(m, n, "vextract") || starts(m, n, "pextr") ||
             starts(m, n, "vpextr") || starts(m, n, "vpmov")) {
    (*st)++;
  } else { /* add/sub/and/or/xor/... to memory: the machine reads and writes it */
    (*ld)++;
    (*st)++;
  }
}

void pcc_mcasm_insn(const char *s, size_t len, int *fp, uint32_t *loads, uint32_t *stores) {
  static const char *const prefixes[] = {"lock",  "rep",     "repe",   "repz",  "repne",
                                         "repnz", "notrack", "data16", "rex64", NULL};
  size_t i = 0;
  const char *m = NULL;
  size_t mn = 0;
  for (;;) {
    while (i < len && is_space(s[i])) i++;
    size_t b = i;
    while (i < len && !is_space(s[i])) i++;
    m = s + b;
    mn = i - b;
    if (!is_one_of(m, mn, prefixes)) break;
  }
  if (mn == 0) return;
  const char *ops = s + i;
  size_t opn = len - i;
  const char *op[MAX_OPS];
  size_t ol[MAX_OPS];
  int nops = split_ops(ops, opn, op, ol);
  if ((starts(m, mn, "mov") && nops == 2 && ol[0] == 4 && ol[1] == 4 && memcmp(op[0], "%rsp", 4) == 0 &&
       memcmp(op[1], "%rbp", 4) == 0))
    *fp = 1;
  implicit(m, mn, loads, stores);
  /* Address arithmetic and hints touch no data. */
  if (starts(m, mn, "lea") || starts(m, mn, "nop") || starts(m, mn, "prefetch") || starts(m, mn, "clflush") ||
      starts(m, mn, "clwb"))
    return;
  for (int k = 0; k < nops; k++) {
    if (!stack_operand(op[k], ol[k], *fp) && !const_pool_operand(op[k], ol[k])) continue;
    if (nops == 1)
      one_operand(m, mn, loads, stores);
    else if (k == nops - 1)
      destination(m, mn, loads, stores);
    else
      (*loads)++;
  }
}

/* "# ppt-bb K" anywhere in a comment: K, or -1. */
static long marker_of(const char *s, size_t n) {
  static const char tag[] = "ppt-bb ";
  for (size_t i = 0; i + sizeof tag - 1 < n; i++)
    if (memcmp(s + i, tag, sizeof tag - 1) == 0) {
      size_t j = i + sizeof tag - 1;
      long k = 0;
      if (j >= n || s[j] < '0' || s[j] > '9') return -1;
      while (j < n && s[j] >= '0' && s[j] <= '9' && k < 100000000) k = k * 10 + (s[j++] - '0');
      return k;
    }
  return -1;
}

#define MAX_DEPTH 16

typedef struct state {
  pcc_mcstack *out;
  size_t n;
  long marker;               /* the current machine block's marker, -1: none (yet) */
  int depth;                 /* its loop depth (verbose assembly's "Depth=N"; 0 outside loops) */
  uint32_t blk_l, blk_s;     /* its accesses */
  long prev[MAX_DEPTH + 1];  /* per loop depth, the function's last marked block's marker */
  long last;                 /* the function's last marker */
  uint32_t carry_l, carry_s; /* from unmarked blocks, for the next marked one */
  int fp;
  const char *line_at, *line_next; /* the line being read, and the one after it */
  const char *blk_text;            /* where the current machine block's lines begin */
  pcc_mcasm_block_fn fn;           /* NULL, or told each marked block's lines */
  void *arg;
} state;

/* "Depth=N" in a block's label comment, else 0. */
static int depth_of(const char *s, size_t n) {
  for (size_t i = 0; i + 6 < n; i++)
    if (memcmp(s + i, "Depth=", 6) == 0) {
      int d = 0;
      for (size_t j = i + 6; j < n && s[j] >= '0' && s[j] <= '9' && d < 1000; j++) d = d * 10 + (s[j] - '0');
      return d > MAX_DEPTH ? MAX_DEPTH : d;
    }
  return 0;
}

static void add(state *st, long k, uint32_t l, uint32_t w) {
  st->out[k].loads += l;
  st->out[k].stores += w;
}

/* The machine block ends. Its code, the spill code the register allocator put before the
 * marker included, belongs to its marker. A block codegen made itself (a preheader or
 * exit LoopSimplify added, a split edge) runs about as often as the blocks around it at
 * its loop depth: the last marked one of that depth, else the next marked block. */
static void block_end(state *st) {
  if (st->marker >= 0 && st->fn && st->blk_text && st->line_at > st->blk_text)
    st->fn(st->arg, (size_t)st->marker, st->blk_text, (size_t)(st->line_at - st->blk_text));
  st->blk_text = st->line_next;
  if (st->marker >= 0) {
    add(st, st->marker, st->blk_l, st->blk_s);
    st->prev[st->depth] = st->last = st->marker;
  } else if (st->prev[st->depth] >= 0) {
    add(st, st->prev[st->depth], st->blk_l, st->blk_s);
  } else {
    st->carry_l += st->blk_l;
    st->carry_s += st->blk_s;
  }
  st->marker = -1;
  st->blk_l = st->blk_s = 0;
}

static void block_start(state *st, const char *s, size_t n) {
  block_end(st);
  st->depth = depth_of(s, n);
}

/* Accesses still without a marker at the end of a function go to its last one. */
static void function_end(state *st) {
  block_end(st);
  if (st->last >= 0) add(st, st->last, st->carry_l, st->carry_s);
  st->carry_l = st->carry_s = 0;
  st->last = -1;
  st->depth = 0;
  for (int d = 0; d <= MAX_DEPTH; d++) st->prev[d] = -1;
  st->fp = 0;
}

static void line(state *st, const char *s, size_t n) {
  size_t i = 0;
  while (i < n && is_space(s[i])) i++;
  s += i;
  n -= i;
  if (n == 0) return;
  if (s[0] == '#') {
    long k = marker_of(s, n);
    if (k < 0 && n > 6 && memcmp(s, "# %bb.", 6) == 0)
      block_start(st, s, n); /* a fall-through machine block has a comment, not a label */
    if (k >= 0 && (size_t)k < st->n) {
      if (st->marker >= 0) { /* two markers in one machine block: split it there */
        int d = st->depth;
        block_end(st);
        st->depth = d;
        st->blk_text = st->line_at;
      }
      st->marker = k;
      st->out[k].copies++;
      add(st, k, st->carry_l, st->carry_s);
      st->carry_l = st->carry_s = 0;
    }
    return;
  }
  const char *hash = memchr(s, '#', n);
  size_t full = n;
  if (hash) n = (size_t)(hash - s);
  while (n > 0 && is_space(s[n - 1])) n--;
  if (n == 0) return;
  if (s[n - 1] == ':') {
    if (starts(s, n, ".LBB"))
      block_start(st, s, full);
    else if (starts(s, n, ".Lfunc_end"))
      function_end(st);
    return; /* other labels: functions, exception and debug labels */
  }
  if (s[0] == '.') {
    if (starts(s, n, ".cfi_startproc") || starts(s, n, ".cfi_endproc") ||
        (starts(s, n, ".type") && memchr(s, '@', n)))
      function_end(st); /* also a start: nothing carries from one function to the next */
    return;
  }
  pcc_mcasm_insn(s, n, &st->fp, &st->blk_l, &st->blk_s);
}

void pcc_mcasm_walk(const char *text, size_t len, pcc_mcstack *out, size_t n, pcc_mcasm_block_fn fn,
                    void *arg) {
  state st = {.out = out, .n = n, .marker = -1, .last = -1, .fn = fn, .arg = arg, .blk_text = text};
  for (int d = 0; d <= MAX_DEPTH; d++) st.prev[d] = -1;
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *e = nl ? nl : end;
    st.line_at = p;
    st.line_next = nl ? nl + 1 : end;
    line(&st, p, (size_t)(e - p));
    p = e + 1;
  }
  st.line_at = st.line_next = end;
  function_end(&st);
}

void pcc_mcasm_count(const char *text, size_t len, pcc_mcstack *out, size_t n) {
  pcc_mcasm_walk(text, len, out, n, NULL, NULL);
}

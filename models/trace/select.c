/* select.c — choosing blocks with --only selectors (ppt/trace.h, docs/sasmm.md
 * "Selecting blocks"): by function name (prefix or glob), by file and function, or by
 * file and line range; e.g. the kernel functions Cachegrind is compared over, or one of
 * several `.omp_outlined.` bodies that only their file tells apart. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ppt/trace.h"
#include "trace/names.h"

typedef struct selector {
  const char *file;     /* NULL: any file */
  size_t file_len;      /* the file part is not NUL-terminated inside the selector */
  const char *func;     /* NULL: a line range instead */
  uint32_t first, last; /* the line range when func is NULL */
} selector;

static int has_glob(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] == '*' || s[i] == '?' || s[i] == '[') return 1;
  return 0;
}

/* A function pattern: a glob if it has glob characters, else a prefix (a full name is
 * its own prefix, and `kernel_` keeps selecting kernel_* as it always did) or a C++
 * function's name without its return type, arguments or template arguments (names.h:
 * `run_all` selects `void run_all<double>(...)`). */
static int func_match(const char *pat, const char *f) {
  if (!f) return 0;
  if (has_glob(pat, strlen(pat))) return fnmatch(pat, f, 0) == 0;
  return strncmp(f, pat, strlen(pat)) == 0 || ppt_trace_name_is(f, pat);
}

/* FILE matches a block's path when it is the path, a trailing part of it after a '/',
 * or a glob matching the path or its base name. */
static int file_match(const selector *s, const char *path) {
  if (!s->file) return 1;
  if (!path || !*path) return 0;
  char pat[1024];
  if (s->file_len >= sizeof pat) return 0;
  memcpy(pat, s->file, s->file_len);
  pat[s->file_len] = '\0';
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if (has_glob(pat, s->file_len)) return fnmatch(pat, path, 0) == 0 || fnmatch(pat, base, 0) == 0;
  size_t lp = strlen(path);
  if (lp == s->file_len) return strcmp(path, pat) == 0;
  return lp > s->file_len && path[lp - s->file_len - 1] == '/' && strcmp(path + lp - s->file_len, pat) == 0;
}

/* "N" or "N-M" (decimal, N <= M): 1 and the range set, else 0. */
static int parse_lines(const char *s, uint32_t *first, uint32_t *last) {
  if (*s < '0' || *s > '9') return 0;
  char *end;
  errno = 0;
  unsigned long a = strtoul(s, &end, 10), b = a;
  if (*end == '-') {
    const char *m = end + 1;
    if (*m < '0' || *m > '9') return 0;
    b = strtoul(m, &end, 10);
  }
  if (errno || *end || a == 0 || b < a || b > UINT32_MAX) return 0;
  *first = (uint32_t)a;
  *last = (uint32_t)b;
  return 1;
}

/* The last ':' that is not half of a '::': C function names have none, and C++ names in
 * the table are demangled (`ns::f(int)`), so `a.cc:ns::f` splits after `a.cc`. */
static const char *last_single_colon(const char *text) {
  const char *colon = NULL;
  for (const char *p = text; *p; p++)
    if (*p == ':' && p[1] != ':' && (p == text || p[-1] != ':')) colon = p;
  return colon;
}

/* Splits at the last single ':'. Returns 0 for a selector that cannot match anything
 * (empty parts). */
static int parse_selector(const char *text, selector *s) {
  memset(s, 0, sizeof *s);
  const char *colon = last_single_colon(text);
  const char *what = colon ? colon + 1 : text;
  if (colon) {
    s->file = text;
    s->file_len = (size_t)(colon - text);
    if (!s->file_len) return 0;
  }
  if (!*what) return 0;
  if (colon && parse_lines(what, &s->first, &s->last)) return 1;
  s->func = what;
  return 1;
}

/* A function selector matches any level of the block's inlining chain, in the file of
 * that level's code; a line range the block's own file and line. */
static int block_match(const selector *s, const ppt_trace_bb *bb) {
  if (!s->func) return file_match(s, bb->file) && bb->line >= s->first && bb->line <= s->last;
  for (uint32_t k = 0; k <= bb->ninl; k++)
    if (func_match(s->func, ppt_trace_bb_inl_func(bb, k)) && file_match(s, ppt_trace_bb_inl_file(bb, k)))
      return 1;
  return 0;
}

/* Marks in c the blocks selector `text` selects; whether it selected any. */
static int mark(const ppt_trace *t, const char *text, uint8_t *c) {
  selector s;
  int any = 0;
  if (!text || !parse_selector(text, &s)) return 0;
  for (uint32_t id = 1, n = ppt_trace_nbbs(t); id <= n; id++)
    if (block_match(&s, ppt_trace_bb_get(t, id))) any = c[id] = 1;
  return any;
}

int ppt_trace_select(const ppt_trace *t, const char *const *sels, size_t n, uint8_t **out, uint8_t *missed,
                     ppt_err *err) {
  uint8_t *c = calloc((size_t)ppt_trace_nbbs(t) + 1, 1);
  *out = NULL;
  if (!c) return ppt_err_set(err, PPT_ERUN, "out of memory");
  int any = 0;
  for (size_t p = 0; p < n; p++) {
    int hit = mark(t, sels[p], c);
    if (missed) missed[p] = !hit;
    any |= hit;
  }
  if (!any && n) {
    free(c);
    char list[256];
    size_t k = 0;
    for (size_t p = 0; p < n && k < sizeof list; p++)
      k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", p ? "," : "", sels[p] ? sels[p] : "");
    return ppt_err_set(err, PPT_EINPUT, "%s: --only '%s' matches no block (see 'ppt info --blocks %s')",
                       ppt_trace_path(t), list, ppt_trace_path(t));
  }
  *out = c;
  return 0;
}

uint8_t *ppt_trace_blocks_of_functions(const ppt_trace *t, const char *const *sels, size_t n) {
  uint8_t *c = calloc((size_t)ppt_trace_nbbs(t) + 1, 1);
  for (size_t p = 0; c && p < n; p++) mark(t, sels[p], c);
  return c;
}

/* Where an operator's name ends, if the name has "operator" at p (`operator()`,
 * `operator<<`, `operator new`): its own brackets are not the argument list's. */
static const char *operator_end(const char *p) {
  if (strncmp(p, "operator", 8) != 0) return NULL;
  p += 8;
  if (p[0] == '(' && p[1] == ')') return p + 2;
  if (p[0] == '[' && p[1] == ']') return p + 2;
  while (*p && *p != '(') p++;
  return p;
}

char *ppt_trace_func_short(const char *name, char *out, size_t n) {
  if (!n) return out;
  const char *start = name, *args = NULL;
  int depth = 0;
  for (const char *p = name; *p && !args; p++) {
    const char *op = (p == name || p[-1] == ' ' || p[-1] == ':') ? operator_end(p) : NULL;
    if (op) {
      p = op - 1;
      continue;
    }
    if (*p == '<') depth++;
    else if (*p == '>' && depth > 0) depth--;
    else if (*p == ' ' && depth == 0) start = p + 1; /* a return type before it */
    else if (*p == '(' && depth == 0) args = p;
  }
  if (!args) start = name; /* not a demangled function: the name itself */
  size_t len = args ? (size_t)(args - start) : strlen(start);
  if (len >= n) len = n - 1;
  memcpy(out, start, len);
  out[len] = '\0';
  return out;
}

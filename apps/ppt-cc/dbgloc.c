/* dbgloc.c — debug locations of blocks (dbgloc.h). */
#include "dbgloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

LLVMValueRef pcc_dbgloc_first(LLVMBasicBlockRef bb) {
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
    if (!LLVMIsADbgInfoIntrinsic(i) && LLVMGetDebugLocLine(i) > 0) return i;
  return NULL;
}

/* "directory/filename" unless filename is absolute or there is no directory. */
static char *join_path(const char *dir, unsigned dl, const char *file, unsigned fl) {
  if (!dir) dl = 0;
  if (!file) fl = 0;
  int use_dir = dl > 0 && !(fl > 0 && file[0] == '/');
  size_t len = (use_dir ? dl + 1 : 0) + fl;
  char *r = malloc(len + 1);
  if (!r) return NULL;
  size_t k = 0;
  if (use_dir) {
    memcpy(r, dir, dl);
    k = dl;
    if (fl > 0) r[k++] = '/';
  }
  if (fl > 0) memcpy(r + k, file, fl);
  r[k + fl] = '\0';
  return r;
}

/* Removes "." and "DIR/.." components in place, so that a header reached through the
 * compiler's relative include paths (`/usr/lib/gcc/x86_64-linux-gnu/12/../../../../include/
 * c++/12/bits/stl_vector.h`) has one name. Lexical, as the debug info's own names are: a
 * ".." that would climb above the start of a relative path is kept. */
static void normalise(char *path) {
  char *buf = malloc(strlen(path) + 2);
  if (!buf) return; /* the name as it was: still a name */
  size_t k = 0, base = path[0] == '/', kept = 0; /* kept: components a ".." may remove */
  if (base) buf[k++] = '/';
  for (const char *in = path; *in;) {
    while (*in == '/') in++;
    const char *end = strchr(in, '/');
    size_t n = end ? (size_t)(end - in) : strlen(in);
    int dot = n == 1 && in[0] == '.', dotdot = n == 2 && in[0] == '.' && in[1] == '.';
    if (n == 0 || dot || (dotdot && base && k == base)) {
      /* nothing, ".", or ".." at the root: dropped */
    } else if (dotdot && kept > 0) {
      while (k > base && buf[k - 1] != '/') k--;
      if (k > base) k--;
      kept--;
    } else {
      if (k > base) buf[k++] = '/';
      memcpy(buf + k, in, n);
      k += n;
      kept += !dotdot;
    }
    in += n;
  }
  if (k == 0) buf[k++] = '.';
  buf[k] = '\0';
  memcpy(path, buf, k + 1);
  free(buf);
}

char *pcc_dbgloc_file(LLVMValueRef at) {
  unsigned dl = 0, fl = 0;
  const char *dir = LLVMGetDebugLocDirectory(at, &dl);
  const char *file = LLVMGetDebugLocFilename(at, &fl);
  char *path = join_path(dir, dl, file, fl);
  if (path) normalise(path);
  return path;
}

/* libstdc++'s demangler (extern "C" in the C++ ABI; libLLVM already links libstdc++). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *pcc_dbgloc_name(const char *name) {
  if (strncmp(name, "_Z", 2) == 0) {
    int status = -1;
    char *d = __cxa_demangle(name, NULL, NULL, &status);
    if (d && status == 0) return d;
    free(d);
  }
  return strdup(name);
}

/* Operand k of a metadata node, as the C API hands it out (a metadata value; NULL for an
 * empty operand or one past the end). */
static LLVMValueRef md_operand(LLVMContextRef c, LLVMMetadataRef node, unsigned k) {
  LLVMValueRef v = LLVMMetadataAsValue(c, node);
  unsigned n = LLVMGetMDNodeNumOperands(v);
  if (k >= n) return NULL;
  LLVMValueRef *ops = malloc(n * sizeof *ops);
  if (!ops) return NULL;
  LLVMGetMDNodeOperands(v, ops);
  LLVMValueRef r = ops[k];
  free(ops);
  return r;
}

/* The DISubprogram a scope lies in: lexical blocks name their parent scope in operand 1
 * (DILexicalBlockBase's layout: file, scope, ...). NULL if the walk ends elsewhere. */
static LLVMMetadataRef subprogram_of(LLVMContextRef c, LLVMMetadataRef scope) {
  for (int depth = 0; scope && depth < 4096; depth++) {
    LLVMMetadataKind k = LLVMGetMetadataKind(scope);
    if (k == LLVMDISubprogramMetadataKind) return scope;
    if (k != LLVMDILexicalBlockMetadataKind && k != LLVMDILexicalBlockFileMetadataKind) return NULL;
    LLVMValueRef parent = md_operand(c, scope, 1);
    scope = parent ? LLVMValueAsMetadata(parent) : NULL;
  }
  return NULL;
}

/* A subprogram's name as the table shows it: its linkage name demangled (operand 3 of a
 * DISubprogram), else its source name (operand 2); "?" without either. malloc'ed. */
static char *subprogram_name(LLVMContextRef c, LLVMMetadataRef sp) {
  for (unsigned k = 3; sp && k >= 2; k--) {
    LLVMValueRef v = md_operand(c, sp, k);
    unsigned len = 0;
    const char *s = v ? LLVMGetMDString(v, &len) : NULL;
    if (s && len > 0) {
      char *raw = strndup(s, len);
      char *shown = raw ? pcc_dbgloc_name(raw) : NULL;
      free(raw);
      return shown;
    }
  }
  return strdup("?");
}

/* clang emits an OpenMP outlined body as `F._debug__`, with the source's debug info,
 * always inlined into its wrapper F: a level of no use to anyone reading the chain. */
static int is_debug_twin(const char *func) {
  size_t n = strlen(func), k = strlen("._debug__");
  return n > k && strcmp(func + n - k, "._debug__") == 0;
}

/* Appends "FUNC\tFILE\tLINE\n" for the function whose code loc is, inlined at `at`
 * (nothing for clang's debug twins: *added 0). */
static int append_level(LLVMContextRef c, LLVMMetadataRef loc, LLVMMetadataRef at, char **chain, size_t *len,
                        int *added) {
  char *func = subprogram_name(c, subprogram_of(c, LLVMDILocationGetScope(loc)));
  *added = 0;
  if (func && is_debug_twin(func)) {
    free(func);
    return 0;
  }
  LLVMMetadataRef f = LLVMDIScopeGetFile(LLVMDILocationGetScope(at));
  unsigned dl = 0, fl = 0;
  const char *dir = f ? LLVMDIFileGetDirectory(f, &dl) : NULL;
  const char *name = f ? LLVMDIFileGetFilename(f, &fl) : NULL;
  char *file = join_path(dir, dl, name, fl);
  if (file) normalise(file);
  int rc = -1;
  if (func && file) {
    /* tabs and newlines separate the fields: none can be in a name */
    for (char *p = func; *p; p++)
      if (*p == '\t' || *p == '\n') *p = ' ';
    size_t add = strlen(func) + strlen(file) + 16;
    char *grown = realloc(*chain, *len + add);
    if (grown) {
      *chain = grown;
      *len += (size_t)snprintf(grown + *len, add, "%s\t%s\t%u\n", func, file, LLVMDILocationGetLine(at));
      rc = 0;
      *added = 1;
    }
  }
  free(func);
  free(file);
  return rc;
}

/* Whether chain (len bytes) has a line for func: "func\t..." or "func\n". */
static int chain_names(const char *chain, size_t len, const char *func) {
  size_t n = strlen(func);
  for (size_t k = 0; k + n < len; k++)
    if ((k == 0 || chain[k - 1] == '\n') && memcmp(chain + k, func, n) == 0 &&
        (chain[k + n] == '\t' || chain[k + n] == '\n'))
      return 1;
  return 0;
}

/* Appends "FUNC\n" for every function inlined into the code of inst (any level of its
 * chain) that the chain does not name yet. */
static int append_others(LLVMContextRef c, LLVMValueRef inst, char **chain, size_t *len) {
  for (LLVMMetadataRef loc = LLVMInstructionGetDebugLoc(inst), at; loc && (at = LLVMDILocationGetInlinedAt(loc));
       loc = at) {
    char *func = subprogram_name(c, subprogram_of(c, LLVMDILocationGetScope(loc)));
    if (!func) return -1;
    if (is_debug_twin(func) || (*chain && chain_names(*chain, *len, func))) {
      free(func);
      continue;
    }
    char *grown = realloc(*chain, *len + strlen(func) + 2);
    if (grown) {
      *chain = grown;
      *len += (size_t)sprintf(grown + *len, "%s\n", func);
    }
    free(func);
    if (!grown) return -1;
  }
  return 0;
}

int pcc_dbgloc_block_chain(LLVMBasicBlockRef bb, LLVMValueRef first, char **chain, unsigned *nlevels) {
  if (pcc_dbgloc_chain(first, chain, nlevels)) return -1;
  size_t len = *chain ? strlen(*chain) : 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
    if (LLVMIsADbgInfoIntrinsic(i) || !LLVMInstructionGetDebugLoc(i)) continue;
    if (append_others(LLVMGetTypeContext(LLVMTypeOf(i)), i, chain, &len)) {
      free(*chain);
      *chain = NULL;
      *nlevels = 0;
      return -1;
    }
  }
  return 0;
}

int pcc_dbgloc_chain(LLVMValueRef inst, char **chain, unsigned *nlevels) {
  *chain = NULL;
  *nlevels = 0;
  if (!inst) return 0;
  LLVMMetadataRef loc = LLVMInstructionGetDebugLoc(inst);
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(inst));
  size_t len = 0;
  for (LLVMMetadataRef at; loc && (at = LLVMDILocationGetInlinedAt(loc)); loc = at) {
    int added;
    if (append_level(c, loc, at, chain, &len, &added)) {
      free(*chain);
      *chain = NULL;
      *nlevels = 0;
      return -1;
    }
    *nlevels += (unsigned)added;
  }
  return 0;
}

void pcc_dbgloc_print_chain(FILE *f, const char *chain) {
  for (const char *p = chain; p && *p;) {
    const char *nl = strchr(p, '\n');
    if (!nl) break;
    const char *t1 = memchr(p, '\t', (size_t)(nl - p)), *t2 = t1 ? memchr(t1 + 1, '\t', (size_t)(nl - t1 - 1)) : NULL;
    if (t2)
      fprintf(f, " inlined=%.*s@%.*s:%.*s", (int)(t1 - p), p, (int)(t2 - t1 - 1), t1 + 1, (int)(nl - t2 - 1),
              t2 + 1);
    else
      fprintf(f, " also=%.*s", (int)(nl - p), p);
    p = nl + 1;
  }
}

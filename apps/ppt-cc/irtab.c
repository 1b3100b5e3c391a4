/* irtab.c — the block table ppt-cc embeds in each object (see irtab.h, bbdesc.h). */
#include "irtab.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Comdat.h>
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

#include "chase.h"
#include "dbgloc.h"
#include "mcrefs.h"
#include "opmix.h"
#include "widemem.h"
#include "ppt/trace.h"
#include "trace/bbdesc.h"

#define GUARD_CALLBACK "__sanitizer_cov_trace_pc_guard"
#define GUARD_SECTION "__sancov_guards"
#define TABLE_SECTION "ppt_bbtab"
#define MEMCHAIN_SECTION "ppt_bbmrc" /* struct ppt_bbmrc (bbdesc.h) */
#define INLINED_SECTION "ppt_bbinl"  /* struct ppt_bbinl (bbdesc.h) */

_Static_assert(PPT_OP_COUNT <= PPT_BBDESC_NOPS, "ppt_bbdesc has room for every op class");

typedef struct bbent {
  LLVMValueRef guard; /* the constant pointer the block passes to the guard callback */
  LLVMValueRef array; /* the __sancov_gen_ guard array it points into */
  uint64_t index;     /* element of that array */
  size_t array_id;    /* order of first appearance of `array` (deterministic output) */
  size_t group_id;    /* which table array the descriptor goes to */
  LLVMValueRef func_str, file_str;
  const char *func_name, *file_name; /* the same strings, for the log */
  uint32_t line, flags;
  uint16_t ops[PPT_BBDESC_NOPS];
  uint16_t stack_loads, stack_stores; /* machine-level stack references (mcrefs.h) */
  uint32_t mem_chain, chase;          /* ppt_trace_bb's: a recurrence through memory, chased loads */
  uint16_t cycles;                    /* llvm-mca cycles x PCC_MCA_SCALE (mca.h), 0: unknown */
  LLVMValueRef inl_str;               /* the inlining chain (dbgloc.h), NULL when none */
  const char *inl_name;               /* the same string, for the log */
  unsigned ninl;                      /* its levels */
} bbent;

typedef struct strent {
  char *s;
  LLVMValueRef ptr;
} strent;

typedef struct ctx {
  LLVMContextRef c;
  LLVMModuleRef m;
  LLVMTargetDataRef td;
  const char *src;
  char diag[400];
  bbent *e;
  size_t n, cap;
  LLVMValueRef *arrays; /* distinct guard arrays, by first appearance */
  size_t narrays, cap_arrays;
  LLVMComdatRef *groups; /* groups[0] = NULL: the module's main table */
  size_t ngroups, cap_groups;
  strent *strs;
  size_t nstrs, cap_strs;
  LLVMTypeRef i8p, i32p;
  pcc_mcrefs *mc;
} ctx;

static void on_diag(LLVMDiagnosticInfoRef di, void *p) {
  ctx *x = p;
  if (LLVMGetDiagInfoSeverity(di) != LLVMDSError || x->diag[0])
    return;
  char *d = LLVMGetDiagInfoDescription(di);
  snprintf(x->diag, sizeof x->diag, "%s", d ? d : "LLVM error");
  LLVMDisposeMessage(d);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap)
    return 0;
  size_t c = *cap ? *cap * 2 : 64;
  while (c < need)
    c *= 2;
  void *q = realloc(*p, c * elem);
  if (!q)
    return -1;
  *p = q;
  *cap = c;
  return 0;
}

static int oom(ctx *x, ppt_err *err) {
  return ppt_err_set(err, PPT_ERUN, "ppt-cc: %s: out of memory", x->src);
}

/* A private unnamed_addr constant C string, shared by every descriptor that names it. */
static LLVMValueRef str_const(ctx *x, const char *s, const char **kept) {
  for (size_t i = 0; i < x->nstrs; i++)
    if (strcmp(x->strs[i].s, s) == 0) {
      *kept = x->strs[i].s;
      return x->strs[i].ptr;
    }
  if (grow((void **)&x->strs, &x->cap_strs, x->nstrs + 1, sizeof *x->strs))
    return NULL;
  char *copy = strdup(s);
  if (!copy)
    return NULL;
  size_t len = strlen(s);
  LLVMValueRef init = LLVMConstStringInContext(x->c, s, (unsigned)len, 0);
  LLVMValueRef g = LLVMAddGlobal(x->m, LLVMTypeOf(init), ".ppt.str");
  LLVMSetInitializer(g, init);
  LLVMSetLinkage(g, LLVMPrivateLinkage);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
  LLVMSetAlignment(g, 1);
  x->strs[x->nstrs].s = copy;
  x->strs[x->nstrs].ptr = LLVMConstPointerCast(g, x->i8p);
  *kept = copy;
  return x->strs[x->nstrs++].ptr;
}

/* Decodes the guard pointer forms SanitizerCoverage emits,
 *   getelementptr inbounds ([N x i32], [N x i32]* @__sancov_gen_, i32 0, i32 k)
 *   inttoptr (add (ptrtoint @__sancov_gen_), 4k)
 * (casts looked through) into the array and a byte offset. */
static int guard_decode(ctx *x, LLVMValueRef v, LLVMValueRef *array, int64_t *off) {
  *off = 0;
  for (int depth = 0; depth < 32; depth++) {
    if (LLVMIsAGlobalVariable(v)) {
      *array = v;
      return 0;
    }
    if (!LLVMIsAConstantExpr(v))
      return -1;
    switch (LLVMGetConstOpcode(v)) {
    case LLVMBitCast:
    case LLVMIntToPtr:
    case LLVMPtrToInt:
      v = LLVMGetOperand(v, 0);
      break;
    case LLVMAdd: {
      LLVMValueRef k = LLVMGetOperand(v, 1);
      if (!LLVMIsAConstantInt(k))
        return -1;
      *off += LLVMConstIntGetSExtValue(k);
      v = LLVMGetOperand(v, 0);
      break;
    }
    case LLVMGetElementPtr: {
      LLVMTypeRef t = LLVMGetGEPSourceElementType(v);
      int nops = LLVMGetNumOperands(v);
      for (int i = 1; i < nops; i++) {
        LLVMValueRef k = LLVMGetOperand(v, i);
        if (!LLVMIsAConstantInt(k))
          return -1;
        int64_t idx = LLVMConstIntGetSExtValue(k);
        if (i > 1) { /* step into the aggregate */
          if (LLVMGetTypeKind(t) == LLVMStructTypeKind) {
            *off += (int64_t)LLVMOffsetOfElement(x->td, t, (unsigned)idx);
            t = LLVMStructGetTypeAtIndex(t, (unsigned)idx);
            continue;
          }
          if (LLVMGetTypeKind(t) != LLVMArrayTypeKind)
            return -1;
          t = LLVMGetElementType(t);
        }
        *off += idx * (int64_t)LLVMABISizeOfType(x->td, t);
      }
      v = LLVMGetOperand(v, 0);
      break;
    }
    default:
      return -1;
    }
  }
  return -1;
}

static size_t array_id(ctx *x, LLVMValueRef a) {
  /* Arrays are per function, so the last one is nearly always the one asked for. */
  for (size_t i = x->narrays; i-- > 0;)
    if (x->arrays[i] == a)
      return i;
  if (grow((void **)&x->arrays, &x->cap_arrays, x->narrays + 1, sizeof *x->arrays))
    return SIZE_MAX;
  x->arrays[x->narrays] = a;
  return x->narrays++;
}

/* Descriptors of a guard array in a real (deduplicating) comdat go into a table array in
 * the same comdat, so the linker keeps or drops them together. Plain C functions get
 * SanitizerCoverage's "nodeduplicate" comdats, which are never dropped: main table. */
static size_t group_id(ctx *x, LLVMValueRef array) {
  LLVMComdatRef c = LLVMGetComdat(array);
  if (!c || LLVMGetComdatSelectionKind(c) == LLVMNoDeduplicateComdatSelectionKind)
    return 0;
  for (size_t i = 1; i < x->ngroups; i++)
    if (x->groups[i] == c)
      return i;
  if (grow((void **)&x->groups, &x->cap_groups, x->ngroups + 1, sizeof *x->groups))
    return SIZE_MAX;
  x->groups[x->ngroups] = c;
  return x->ngroups++;
}

static int parallel_function(const char *name, size_t n) {
  /* clang outlines OpenMP parallel regions (and tasks, target regions) into these. */
  static const char *const prefixes[] = {".omp_outlined.", ".omp_task_entry.",
                                         "__omp_offloading", NULL};
  for (const char *const *p = prefixes; *p; p++) {
    size_t lp = strlen(*p);
    if (n >= lp && memcmp(name, *p, lp) == 0)
      return 1;
  }
  /* OpenMPIRBuilder's outlined bodies: "<function>..omp_par[.N]". */
  for (size_t i = 0; i + 9 <= n; i++)
    if (memcmp(name + i, "..omp_par", 9) == 0)
      return 1;
  return 0;
}

/* Line and file of a block: its first located instruction's (pcc_dbgloc_first); a block
 * without one has line 0 and its function's file (the DISubprogram still names it). */
static char *block_location(LLVMValueRef fn, LLVMValueRef at, uint32_t *line) {
  *line = at ? LLVMGetDebugLocLine(at) : 0;
  return pcc_dbgloc_file(at ? at : fn);
}

/* PPT_BB_RETURN: where a call of the function ends, for ppt trace --roi FUNCTION. */
static uint32_t ends_in_ret(LLVMBasicBlockRef bb) {
  LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
  return t && LLVMGetInstructionOpcode(t) == LLVMRet ? PPT_BB_RETURN : 0;
}

/* The block's square roots and its loop-carried multiplies into its flags (PPT_BB_EXT,
 * include/ppt/trace.h), saturated. */
static uint32_t ext_flags(unsigned roots, unsigned chain_muls) {
  roots = roots > PPT_BB_SQRT_MAX ? PPT_BB_SQRT_MAX : roots;
  chain_muls = chain_muls > PPT_BB_CHAIN_MUL_MASK ? PPT_BB_CHAIN_MUL_MASK : chain_muls;
  return PPT_BB_EXT | roots << PPT_BB_SQRT_SHIFT | chain_muls << PPT_BB_CHAIN_MUL_SHIFT;
}

/* The block's in-block FP chain into its flags (PPT_BB_PATH, include/ppt/trace.h). */
static uint32_t path_flags(unsigned adds, unsigned muls, unsigned divs) {
  adds = adds > PPT_BB_PATH_ADD_MAX ? PPT_BB_PATH_ADD_MAX : adds;
  muls = muls > PPT_BB_PATH_MUL_MAX ? PPT_BB_PATH_MUL_MAX : muls;
  divs = divs > PPT_BB_PATH_DIV_MAX ? PPT_BB_PATH_DIV_MAX : divs;
  return PPT_BB_PATH | adds << PPT_BB_PATH_ADD_SHIFT |
         muls << PPT_BB_PATH_MUL_SHIFT | divs << PPT_BB_PATH_DIV_SHIFT;
}

static int scan_block(ctx *x, LLVMValueRef fn, LLVMBasicBlockRef bb, LLVMValueRef fname,
                      const char *fname_s, int parallel, const pcc_chase *chase, ppt_err *err) {
  LLVMValueRef guard_call = NULL;
  uint16_t ops[PPT_BBDESC_NOPS] = {0};
  ops[PPT_OP_VWIDTH] = 1;
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
    if (pcc_opmix_is_call_to(i, GUARD_CALLBACK)) {
      if (guard_call) {
        size_t n;
        const char *name = LLVMGetValueName2(fn, &n);
        return ppt_err_set(err, PPT_ERUN, "ppt-cc: %s: a block of %.*s has two coverage guards",
                           x->src, (int)n, name);
      }
      guard_call = i;
      continue;
    }
    if (!pcc_opmix_ignored(i))
      pcc_opmix_add(i, ops);
  }
  if (!guard_call)
    return 0; /* not instrumented (e.g. a block that only holds `unreachable`) */
  unsigned chain_muls = pcc_opmix_recurrence(bb, ops);
  unsigned padd, pmul, pdiv;
  pcc_opmix_path(bb, &padd, &pmul, &pdiv);
  if (grow((void **)&x->e, &x->cap, x->n + 1, sizeof *x->e))
    return oom(x, err);
  bbent *e = &x->e[x->n];
  memset(e, 0, sizeof *e);
  e->guard = LLVMGetOperand(guard_call, 0);
  pcc_mcrefs_get(x->mc, guard_call, &e->stack_loads, &e->stack_stores, &e->cycles);
  int64_t off;
  if (guard_decode(x, e->guard, &e->array, &off) != 0 || off < 0 || off % 4 != 0) {
    size_t n;
    const char *name = LLVMGetValueName2(fn, &n);
    return ppt_err_set(err, PPT_ERUN,
                       "ppt-cc: %s: unexpected coverage guard operand in %.*s (clang version?)",
                       x->src, (int)n, name);
  }
  e->index = (uint64_t)off / 4;
  e->array_id = array_id(x, e->array);
  e->group_id = group_id(x, e->array);
  if (e->array_id == SIZE_MAX || e->group_id == SIZE_MAX)
    return oom(x, err);
  LLVMValueRef at = pcc_dbgloc_first(bb);
  char *file = block_location(fn, at, &e->line), *chain = NULL;
  unsigned nlev = 0;
  if (!file || pcc_dbgloc_block_chain(bb, at, &chain, &nlev)) {
    free(file);
    return oom(x, err);
  }
  e->file_str = str_const(x, file, &e->file_name);
  free(file);
  if (chain) {
    e->inl_str = str_const(x, chain, &e->inl_name);
    e->ninl = nlev;
    free(chain);
    if (!e->inl_str)
      return oom(x, err);
  }
  e->func_str = fname;
  e->func_name = fname_s;
  if (!e->file_str)
    return oom(x, err);
  e->flags = (parallel ? PPT_BB_PARALLEL : 0) |
             (LLVMGetEntryBasicBlock(fn) == bb ? PPT_BB_FUNC_ENTRY : 0) | ends_in_ret(bb) |
             ext_flags(pcc_opmix_sqrts(bb), chain_muls) | path_flags(padd, pmul, pdiv);
  memcpy(e->ops, ops, sizeof ops);
  e->mem_chain = pcc_opmix_mem_recurrence(bb);
  e->chase = pcc_chase_block(chase, bb);
  x->n++;
  return 0;
}

static int scan_module(ctx *x, pcc_irtab_stats *st, ppt_err *err) {
  for (LLVMValueRef fn = LLVMGetFirstFunction(x->m); fn; fn = LLVMGetNextFunction(fn)) {
    if (LLVMIsDeclaration(fn))
      continue;
    size_t before = x->n, n;
    const char *name = LLVMGetValueName2(fn, &n);
    char *cname = strndup(name ? name : "", n);
    if (!cname)
      return oom(x, err);
    const char *fname_s = NULL;
    char *shown = pcc_dbgloc_name(cname);
    LLVMValueRef fname = shown ? str_const(x, shown, &fname_s) : NULL;
    free(shown);
    int parallel = parallel_function(cname, n);
    free(cname);
    if (!fname)
      return oom(x, err);
    pcc_chase *chase = pcc_chase_new(fn);
    int rc = chase ? 0 : oom(x, err);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && !rc; bb = LLVMGetNextBasicBlock(bb))
      rc = scan_block(x, fn, bb, fname, fname_s, parallel, chase, err) ? (int)err->status : 0;
    pcc_chase_free(chase);
    if (rc)
      return rc;
    st->nfunctions += x->n > before;
    if (parallel)
      st->nparallel += x->n - before;
  }
  st->nblocks = x->n;
  return 0;
}

static int cmp_ent(const void *a, const void *b) {
  const bbent *p = a, *q = b;
  if (p->group_id != q->group_id)
    return p->group_id < q->group_id ? -1 : 1;
  if (p->array_id != q->array_id)
    return p->array_id < q->array_id ? -1 : 1;
  return p->index < q->index ? -1 : p->index > q->index;
}

static int is_guard_array(LLVMValueRef g) {
  const char *sec = LLVMGetSection(g);
  return sec && strcmp(sec, GUARD_SECTION) == 0;
}

/* The table must cover every guard exactly once: each guard array's elements 0..N-1 are
 * claimed by exactly one block, and no other guard arrays exist. Entries are sorted. */
static int check_coverage(ctx *x, ppt_err *err) {
  for (size_t a = 0; a < x->narrays; a++) {
    LLVMValueRef arr = x->arrays[a];
    LLVMTypeRef t = LLVMGlobalGetValueType(arr);
    if (!is_guard_array(arr) || LLVMGetTypeKind(t) != LLVMArrayTypeKind)
      return ppt_err_set(err, PPT_ERUN, "ppt-cc: %s: a coverage guard points outside %s",
                         x->src, GUARD_SECTION);
  }
  /* Count claims per array (entries are sorted by group, then array, then index). */
  size_t *claims = calloc(x->narrays ? x->narrays : 1, sizeof *claims);
  if (!claims)
    return oom(x, err);
  for (size_t i = 0; i < x->n; i++) {
    const bbent *e = &x->e[i];
    uint64_t len = LLVMGetArrayLength(LLVMGlobalGetValueType(e->array));
    int dup = i > 0 && x->e[i - 1].array_id == e->array_id && x->e[i - 1].index == e->index;
    if (e->index >= len || dup) {
      free(claims);
      return ppt_err_set(err, PPT_ERUN, "ppt-cc: %s: coverage guard %llu of %llu %s", x->src,
                         (unsigned long long)e->index, (unsigned long long)len,
                         dup ? "used by two blocks" : "out of range");
    }
    claims[e->array_id]++;
  }
  size_t guards = 0, arrays = 0;
  for (LLVMValueRef g = LLVMGetFirstGlobal(x->m); g; g = LLVMGetNextGlobal(g)) {
    if (!is_guard_array(g))
      continue;
    arrays++;
    guards += LLVMGetArrayLength(LLVMGlobalGetValueType(g));
  }
  size_t claimed = 0;
  for (size_t a = 0; a < x->narrays; a++) {
    if (claims[a] != LLVMGetArrayLength(LLVMGlobalGetValueType(x->arrays[a]))) {
      free(claims);
      return ppt_err_set(err, PPT_ERUN, "ppt-cc: %s: a coverage guard array is not fully used",
                         x->src);
    }
    claimed += claims[a];
  }
  free(claims);
  if (arrays != x->narrays || guards != claimed)
    return ppt_err_set(err, PPT_ERUN, "ppt-cc: %s: %zu coverage guards but %zu blocks found",
                       x->src, guards, claimed);
  return 0;
}

/* The IR type of struct ppt_bbdesc; NULL if this target lays it out differently. */
static LLVMTypeRef desc_type(ctx *x) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(x->c), i16 = LLVMInt16TypeInContext(x->c);
  LLVMTypeRef f[8] = {i32, i32, i32, i32, x->i32p, x->i8p, x->i8p,
                      LLVMArrayType(i16, PPT_BBDESC_NOPS)};
  LLVMTypeRef t = LLVMStructTypeInContext(x->c, f, 8, 0);
  static const size_t want[8] = {
      offsetof(struct ppt_bbdesc, magic), offsetof(struct ppt_bbdesc, line),
      offsetof(struct ppt_bbdesc, flags), offsetof(struct ppt_bbdesc, stack),
      offsetof(struct ppt_bbdesc, guard), offsetof(struct ppt_bbdesc, func),
      offsetof(struct ppt_bbdesc, file),  offsetof(struct ppt_bbdesc, ops)};
  if (LLVMABISizeOfType(x->td, t) != sizeof(struct ppt_bbdesc) ||
      LLVMABIAlignmentOfType(x->td, t) != _Alignof(struct ppt_bbdesc))
    return NULL;
  for (unsigned i = 0; i < 8; i++)
    if (LLVMOffsetOfElement(x->td, t, i) != want[i])
      return NULL;
  return t;
}

static LLVMValueRef desc_const(ctx *x, const bbent *e) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(x->c), i16 = LLVMInt16TypeInContext(x->c);
  LLVMValueRef ops[PPT_BBDESC_NOPS];
  for (int i = 0; i < PPT_BBDESC_NOPS; i++)
    ops[i] = LLVMConstInt(i16, e->ops[i], 0);
  LLVMValueRef f[8] = {LLVMConstInt(i32, PPT_BBDESC_MAGIC, 0),
                       LLVMConstInt(i32, e->line, 0),
                       LLVMConstInt(i32, e->flags, 0),
                       LLVMConstInt(i32, (uint32_t)e->stack_loads | (uint32_t)e->stack_stores << 16, 0),
                       LLVMConstPointerCast(e->guard, x->i32p),
                       e->func_str,
                       e->file_str,
                       LLVMConstArray(i16, ops, PPT_BBDESC_NOPS)};
  return LLVMConstStructInContext(x->c, f, 8, 0);
}

/* Appends globals to @llvm.used, so neither the optimizer nor the linker's section
 * garbage collection drops the table (LLVM marks such sections SHF_GNU_RETAIN). */
static void append_used(ctx *x, LLVMValueRef *add, size_t nadd) {
  LLVMValueRef old = LLVMGetNamedGlobal(x->m, "llvm.used");
  LLVMTypeRef elem = x->i8p;
  size_t nold = 0;
  LLVMValueRef *all = NULL;
  if (old) {
    elem = LLVMGetElementType(LLVMGlobalGetValueType(old));
    LLVMValueRef init = LLVMGetInitializer(old);
    nold = init ? (size_t)LLVMGetNumOperands(init) : 0;
  }
  all = malloc((nold + nadd) * sizeof *all);
  if (!all)
    return; /* caught by the caller's check that the table is in llvm.used */
  for (size_t i = 0; i < nold; i++)
    all[i] = LLVMGetOperand(LLVMGetInitializer(old), (unsigned)i);
  for (size_t i = 0; i < nadd; i++)
    all[nold + i] = LLVMConstPointerCast(add[i], elem);
  if (old)
    LLVMDeleteGlobal(old);
  LLVMValueRef init = LLVMConstArray(elem, all, (unsigned)(nold + nadd));
  LLVMValueRef g = LLVMAddGlobal(x->m, LLVMTypeOf(init), "llvm.used");
  LLVMSetInitializer(g, init);
  LLVMSetLinkage(g, LLVMAppendingLinkage);
  LLVMSetSection(g, "llvm.metadata");
  free(all);
}

/* An internal constant array of n elements of type t in `section`, in the comdat of
 * group_id (0: the module's main table). Alignment 8 = a multiple of the element size:
 * arrays from many objects concatenate into one gap-free array between the linker's
 * __start_ and __stop_ symbols of the section. */
static LLVMValueRef table_global(ctx *x, LLVMTypeRef t, LLVMValueRef *vals, size_t n, const char *name,
                                 const char *section, size_t group_id) {
  LLVMValueRef init = LLVMConstArray(t, vals, (unsigned)n);
  LLVMValueRef g = LLVMAddGlobal(x->m, LLVMTypeOf(init), name);
  LLVMSetInitializer(g, init);
  LLVMSetLinkage(g, LLVMInternalLinkage);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetSection(g, section);
  LLVMSetAlignment(g, 8);
  if (group_id > 0)
    LLVMSetComdat(g, x->groups[group_id]);
  return g;
}

/* One block's ppt_bbmrc entries: recurrence, cycles, chased loads, those it has (bbdesc.h). */
static size_t mrc_entries(ctx *x, const bbent *e, LLVMValueRef *vals) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(x->c);
  const uint32_t what[3][2] = {{PPT_BBMRC_MAGIC, e->mem_chain}, {PPT_BBCYC_MAGIC, e->cycles}, {PPT_BBCHS_MAGIC, e->chase}};
  size_t k = 0;
  for (int w = 0; w < 3; w++) {
    if (!what[w][1]) continue;
    LLVMValueRef v[3] = {LLVMConstPointerCast(e->guard, x->i32p), LLVMConstInt(i32, what[w][0], 0),
                         LLVMConstInt(i32, what[w][1], 0)};
    vals[k++] = LLVMConstStructInContext(x->c, v, 3, 0);
  }
  return k;
}

/* The entry of an inlined block in the ppt_bbinl section: its chain. */
static size_t inl_entries(ctx *x, const bbent *e, LLVMValueRef *vals) {
  if (!e->inl_str) return 0;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(x->c);
  LLVMValueRef v[4] = {LLVMConstPointerCast(e->guard, x->i32p), LLVMConstInt(i32, PPT_BBINL_MAGIC, 0),
                       LLVMConstInt(i32, e->ninl, 0), e->inl_str};
  vals[0] = LLVMConstStructInContext(x->c, v, 4, 0);
  return 1;
}

/* A side section of the table (entries keyed by guard, bbdesc.h), an array per comdat group like
 * the descriptors: each block's entries (at most 3) from `entries`. vals: room for 3 x->n; the
 * arrays go to out (one per group that has entries); their count. */
static size_t emit_side(ctx *x, LLVMTypeRef t, const char *name, const char *section,
                        size_t (*entries)(ctx *, const bbent *, LLVMValueRef *), LLVMValueRef *vals,
                        LLVMValueRef *out) {
  size_t nout = 0;
  for (size_t i = 0; i < x->n;) {
    size_t j = i, k = 0;
    for (; j < x->n && x->e[j].group_id == x->e[i].group_id; j++)
      k += entries(x, &x->e[j], vals + k);
    if (k > 0)
      out[nout++] = table_global(x, t, vals, k, name, section, x->e[i].group_id);
    i = j;
  }
  return nout;
}

/* The IR types of struct ppt_bbmrc and struct ppt_bbinl (bbdesc.h); 0 if this target
 * lays them out differently (desc_type already refused such a target). */
static int side_types(ctx *x, LLVMTypeRef *mrc, LLVMTypeRef *inl) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(x->c);
  LLVMTypeRef f[4] = {x->i32p, i32, i32, x->i8p};
  *mrc = LLVMStructTypeInContext(x->c, f, 3, 0);
  *inl = LLVMStructTypeInContext(x->c, f, 4, 0);
  return LLVMABISizeOfType(x->td, *mrc) == sizeof(struct ppt_bbmrc) &&
         LLVMOffsetOfElement(x->td, *mrc, 1) == offsetof(struct ppt_bbmrc, magic) &&
         LLVMOffsetOfElement(x->td, *mrc, 2) == offsetof(struct ppt_bbmrc, chain) &&
         LLVMABISizeOfType(x->td, *inl) == sizeof(struct ppt_bbinl) &&
         LLVMOffsetOfElement(x->td, *inl, 2) == offsetof(struct ppt_bbinl, nlevels) &&
         LLVMOffsetOfElement(x->td, *inl, 3) == offsetof(struct ppt_bbinl, chain);
}

static int emit_tables(ctx *x, ppt_err *err) {
  LLVMTypeRef t = desc_type(x);
  if (!t)
    return ppt_err_set(err, PPT_EINPUT,
                       "ppt-cc: %s: the target's data layout does not match struct ppt_bbdesc "
                       "(only 64-bit targets like the host are supported)",
                       x->src);
  LLVMValueRef *vals = malloc((x->n ? 3 * x->n : 1) * sizeof *vals);
  /* Each group's descriptors, and its side sections' entries when it has any. */
  LLVMValueRef *tables = malloc((x->ngroups ? 3 * x->ngroups : 3) * sizeof *tables);
  if (!vals || !tables) {
    free(vals);
    free(tables);
    return oom(x, err);
  }
  size_t ntables = 0;
  for (size_t i = 0; i < x->n;) {
    size_t j = i;
    for (; j < x->n && x->e[j].group_id == x->e[i].group_id; j++)
      vals[j - i] = desc_const(x, &x->e[j]);
    tables[ntables++] = table_global(x, t, vals, j - i, "__ppt_bbtab", TABLE_SECTION, x->e[i].group_id);
    i = j;
  }
  LLVMTypeRef mrc, inl;
  size_t nmrc = 0;
  if (side_types(x, &mrc, &inl)) {
    nmrc = emit_side(x, mrc, "__ppt_bbmrc", MEMCHAIN_SECTION, mrc_entries, vals, tables + ntables);
    nmrc += emit_side(x, inl, "__ppt_bbinl", INLINED_SECTION, inl_entries, vals, tables + ntables + nmrc);
  }
  append_used(x, tables, ntables + nmrc);
  LLVMValueRef used = LLVMGetNamedGlobal(x->m, "llvm.used");
  size_t nused = used ? (size_t)LLVMGetNumOperands(LLVMGetInitializer(used)) : 0;
  free(vals);
  free(tables);
  if (ntables + nmrc > 0 && nused < ntables + nmrc)
    return oom(x, err);
  return 0;
}

static void log_table(ctx *x, FILE *log) {
  for (size_t i = 0; i < x->n; i++) {
    const bbent *e = &x->e[i];
    fprintf(log, "ppt-cc: bb %s[%llu] %s %s:%u flags=%u ops=", x->src,
            (unsigned long long)e->index, e->func_name, e->file_name, e->line, e->flags);
    for (int k = 0; k < PPT_OP_COUNT; k++)
      fprintf(log, "%s%u", k ? "," : "", e->ops[k]);
    fprintf(log, " stack=%u,%u mem_chain=%#x cycles=%.4g chase=%#x", e->stack_loads, e->stack_stores, e->mem_chain, e->cycles / (double)PCC_MCA_SCALE, e->chase);
    pcc_dbgloc_print_chain(log, e->inl_name);
    fputc('\n', log);
  }
}

static void ctx_free(ctx *x) {
  for (size_t i = 0; i < x->nstrs; i++)
    free(x->strs[i].s);
  free(x->strs);
  free(x->e);
  free(x->arrays);
  free(x->groups);
  pcc_mcrefs_free(x->mc);
  if (x->m)
    LLVMDisposeModule(x->m);
  if (x->c)
    LLVMContextDispose(x->c);
}

static int load(ctx *x, const char *in, ppt_err *err) {
  LLVMMemoryBufferRef buf;
  char *msg = NULL;
  if (LLVMCreateMemoryBufferWithContentsOfFile(in, &buf, &msg)) {
    ppt_err_set(err, PPT_ERUN, "ppt-cc: %s: cannot read %s: %s", x->src, in, msg ? msg : "?");
    LLVMDisposeMessage(msg);
    return err->status;
  }
  /* Without a handler LLVM reports bitcode errors by printing and calling exit(). */
  LLVMContextSetDiagnosticHandler(x->c, on_diag, x);
  int bad = LLVMParseBitcodeInContext2(x->c, buf, &x->m);
  LLVMDisposeMemoryBuffer(buf);
  if (bad) {
    x->m = NULL;
    return ppt_err_set(err, PPT_ERUN, "ppt-cc: %s: cannot read clang's bitcode: %s", x->src,
                       x->diag[0] ? x->diag : "invalid bitcode (clang and libLLVM versions differ?)");
  }
  x->td = LLVMGetModuleDataLayout(x->m);
  x->i8p = LLVMPointerType(LLVMInt8TypeInContext(x->c), 0);
  x->i32p = LLVMPointerType(LLVMInt32TypeInContext(x->c), 0);
  return 0;
}

int pcc_irtab_rewrite(const char *in, const char *out, const char *src, const pcc_mca_cfg *mca, FILE *log,
                      pcc_irtab_stats *st, ppt_err *err) {
  ctx x;
  memset(&x, 0, sizeof x);
  memset(st, 0, sizeof *st);
  x.src = src;
  x.c = LLVMContextCreate();
  if (!x.c)
    return ppt_err_set(err, PPT_ERUN, "ppt-cc: %s: cannot create an LLVM context", src);
  if (grow((void **)&x.groups, &x.cap_groups, 1, sizeof *x.groups)) {
    ctx_free(&x);
    return ppt_err_set(err, PPT_ERUN, "ppt-cc: %s: out of memory", src);
  }
  x.groups[0] = NULL;
  x.ngroups = 1;
  int rc = load(&x, in, err);
  /* Callbacks first, so that the table's op mix sees (and skips) them. */
  if (rc == 0)
    rc = pcc_widemem_instrument(x.m, src, &st->ncallbacks, err);
  /* After the callbacks exist (the clone deletes them), before the table is made. */
  if (rc == 0)
    rc = pcc_mcrefs_measure(x.m, src, mca, &x.mc, err);
  if (rc == 0)
    rc = scan_module(&x, st, err);
  if (rc == 0) {
    qsort(x.e, x.n, sizeof *x.e, cmp_ent);
    rc = check_coverage(&x, err);
  }
  if (rc == 0 && x.n > 0)
    rc = emit_tables(&x, err);
  if (rc == 0) {
    char *msg = NULL;
    if (LLVMVerifyModule(x.m, LLVMReturnStatusAction, &msg)) {
      rc = ppt_err_set(err, PPT_ERUN, "ppt-cc: %s: the module with the block table is invalid: %s",
                       src, msg ? msg : "?");
    }
    LLVMDisposeMessage(msg);
  }
  if (rc == 0 && LLVMWriteBitcodeToFile(x.m, out) != 0)
    rc = ppt_err_set(err, PPT_ERUN, "ppt-cc: %s: cannot write %s", src, out);
  if (rc == 0 && log) {
    log_table(&x, log);
    if (st->ncallbacks)
      fprintf(log, "ppt-cc: %s: %zu accesses without a SanitizerCoverage callback traced by ppt's\n",
              src, st->ncallbacks);
  }
  ctx_free(&x);
  return rc;
}

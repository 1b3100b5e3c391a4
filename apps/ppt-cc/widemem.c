/* widemem.c — runtime callbacks for accesses SanitizerCoverage leaves out (widemem.h). */
#include "widemem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "memop.h"

#define GUARD_CALLBACK "__sanitizer_cov_trace_pc_guard"

typedef struct wctx {
  LLVMContextRef c;
  LLVMModuleRef m;
  LLVMBuilderRef b;
  LLVMTypeRef i8p, i32, i64, vd;
  unsigned cb_kind;
  LLVMValueRef cb_node;
  LLVMValueRef *todo;
  size_t ntodo, cap;
} wctx;

static const char *callee_name(LLVMValueRef inst, size_t *n) {
  *n = 0;
  if (!LLVMIsACallInst(inst)) return NULL;
  LLVMValueRef f = LLVMGetCalledValue(inst);
  while (f && LLVMIsAConstantExpr(f) && LLVMGetConstOpcode(f) == LLVMBitCast) f = LLVMGetOperand(f, 0);
  return f && LLVMIsAFunction(f) ? LLVMGetValueName2(f, n) : NULL;
}

static int name_starts(LLVMValueRef inst, const char *p) {
  size_t n, lp = strlen(p);
  const char *s = callee_name(inst, &n);
  return s && n >= lp && memcmp(s, p, lp) == 0;
}

/* SanitizerCoverage puts its callback immediately before the access it reports (its
 * pointer cast, if any, comes before the callback), so an access whose previous
 * instruction is such a call is already traced. */
static int has_sancov_callback(LLVMValueRef inst) {
  LLVMValueRef p = LLVMGetPreviousInstruction(inst);
  return p && (name_starts(p, "__sanitizer_cov_load") || name_starts(p, "__sanitizer_cov_store"));
}

/* Functions SanitizerCoverage skipped (no guard) get no callbacks either: their
 * references would be charged to whatever block ran before. */
static int instrumented(LLVMValueRef fn) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
      if (name_starts(i, GUARD_CALLBACK)) return 1;
  return 0;
}

static int flat_pointer(LLVMValueRef p) {
  LLVMTypeRef t = LLVMTypeOf(p);
  if (LLVMGetTypeKind(t) == LLVMVectorTypeKind) t = LLVMGetElementType(t);
  return LLVMGetTypeKind(t) == LLVMPointerTypeKind && LLVMGetPointerAddressSpace(t) == 0;
}

static int needs_callback(LLVMValueRef inst) {
  pcc_memop m;
  switch (pcc_memop_of(inst, &m)) {
    case PCC_MEM_NONE: return 0;
    case PCC_MEM_PLAIN:
      if (has_sancov_callback(inst)) return 0;
      break;
    case PCC_MEM_COPY:
      if (!flat_pointer(m.src)) return 0;
      break;
    default: break;
  }
  return flat_pointer(m.ptr);
}

static int collect(wctx *x, LLVMValueRef fn) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
      if (!needs_callback(i)) continue;
      if (x->ntodo == x->cap) {
        size_t cap = x->cap ? 2 * x->cap : 64;
        LLVMValueRef *t = realloc(x->todo, cap * sizeof *t);
        if (!t) return -1;
        x->todo = t;
        x->cap = cap;
      }
      x->todo[x->ntodo++] = i;
    }
  return 0;
}

/* Marks what the pass built, so the op mix does not count it as the program's work
 * (constants folded by the builder are not instructions and need no mark). */
static LLVMValueRef mark(wctx *x, LLVMValueRef v) {
  if (LLVMIsAInstruction(v)) LLVMSetMetadata(v, x->cb_kind, x->cb_node);
  return v;
}

static void call(wctx *x, const char *name, LLVMValueRef *args, unsigned nargs) {
  LLVMTypeRef pt[4];
  for (unsigned i = 0; i < nargs; i++) pt[i] = LLVMTypeOf(args[i]);
  LLVMTypeRef ft = LLVMFunctionType(x->vd, pt, nargs, 0);
  LLVMValueRef f = LLVMGetNamedFunction(x->m, name);
  if (!f) f = LLVMAddFunction(x->m, name, ft);
  mark(x, LLVMBuildCall2(x->b, ft, f, args, nargs, ""));
}

static LLVMValueRef as_i8p(wctx *x, LLVMValueRef p) {
  return mark(x, LLVMBuildPointerCast(x->b, p, x->i8p, ""));
}

static LLVMValueRef as_i64(wctx *x, LLVMValueRef v) {
  unsigned w = LLVMGetIntTypeWidth(LLVMTypeOf(v));
  if (w == 64) return v;
  return mark(x, w < 64 ? LLVMBuildZExt(x->b, v, x->i64, "") : LLVMBuildTrunc(x->b, v, x->i64, ""));
}

/* The <N x i1> mask as lane bits; a mask of more than 64 lanes counts as active. */
static LLVMValueRef mask_bits(wctx *x, LLVMValueRef mask) {
  LLVMTypeRef t = LLVMTypeOf(mask);
  if (LLVMGetTypeKind(t) != LLVMVectorTypeKind || LLVMGetVectorSize(t) > 64)
    return LLVMConstInt(x->i64, 1, 0);
  LLVMTypeRef it = LLVMIntTypeInContext(x->c, LLVMGetVectorSize(t));
  return as_i64(x, mark(x, LLVMBuildBitCast(x->b, mask, it, "")));
}

/* One access of m->bytes at p: the fast entry points where the size is exactly 32 or
 * 64 bytes, else the general one, which the runtime splits into 2^lg-byte references. */
static void plain(wctx *x, const pcc_memop *m, int store, LLVMValueRef p) {
  LLVMValueRef a[3] = {as_i8p(x, p), LLVMConstInt(x->i64, m->bytes, 0), LLVMConstInt(x->i32, m->lg, 0)};
  if (m->nrefs == 1 && (m->lg == 5 || m->lg == 6) && m->bytes == (1ull << m->lg)) {
    static const char *const fast[2][2] = {{"__ppt_load32", "__ppt_store32"},
                                           {"__ppt_load64", "__ppt_store64"}};
    call(x, fast[m->lg - 5][store], a, 1);
    return;
  }
  call(x, store ? "__ppt_store_n" : "__ppt_load_n", a, 3);
}

static void gather(wctx *x, const pcc_memop *m) {
  for (unsigned i = 0; i < m->lanes; i++) {
    LLVMValueRef k = LLVMConstInt(x->i32, i, 0);
    LLVMValueRef p = mark(x, LLVMBuildExtractElement(x->b, m->ptr, k, ""));
    LLVMValueRef on = mark(x, LLVMBuildExtractElement(x->b, m->mask, k, ""));
    LLVMValueRef a[4] = {as_i8p(x, p), LLVMConstInt(x->i64, m->bytes, 0), LLVMConstInt(x->i32, m->lg, 0),
                         as_i64(x, on)};
    call(x, m->store ? "__ppt_store_masked" : "__ppt_load_masked", a, 4);
  }
}

static void instrument(wctx *x, LLVMValueRef inst) {
  pcc_memop m;
  pcc_memop_of(inst, &m);
  LLVMPositionBuilderBefore(x->b, inst);
  LLVMSetCurrentDebugLocation2(x->b, LLVMInstructionGetDebugLoc(inst));
  switch (m.kind) {
    case PCC_MEM_PLAIN: plain(x, &m, m.store, m.ptr); break;
    case PCC_MEM_RMW: /* the read, then the write */
      plain(x, &m, 0, m.ptr);
      plain(x, &m, 1, m.ptr);
      break;
    case PCC_MEM_MASKED: {
      LLVMValueRef a[4] = {as_i8p(x, m.ptr), LLVMConstInt(x->i64, m.bytes, 0), LLVMConstInt(x->i32, m.lg, 0),
                           mask_bits(x, m.mask)};
      call(x, m.store ? "__ppt_store_masked" : "__ppt_load_masked", a, 4);
      break;
    }
    case PCC_MEM_GATHER: gather(x, &m); break;
    case PCC_MEM_COPY: {
      LLVMValueRef a[3] = {as_i8p(x, m.ptr), as_i8p(x, m.src), as_i64(x, m.len)};
      call(x, "__ppt_memcpy", a, 3);
      break;
    }
    case PCC_MEM_SET: {
      LLVMValueRef a[2] = {as_i8p(x, m.ptr), as_i64(x, m.len)};
      call(x, "__ppt_memset", a, 2);
      break;
    }
    default: break;
  }
}

int pcc_widemem_instrument(LLVMModuleRef m, const char *src, size_t *ncalls, ppt_err *err) {
  wctx x;
  memset(&x, 0, sizeof x);
  x.m = m;
  x.c = LLVMGetModuleContext(m);
  x.i8p = LLVMPointerType(LLVMInt8TypeInContext(x.c), 0);
  x.i32 = LLVMInt32TypeInContext(x.c);
  x.i64 = LLVMInt64TypeInContext(x.c);
  x.vd = LLVMVoidTypeInContext(x.c);
  x.cb_kind = LLVMGetMDKindIDInContext(x.c, PCC_WIDEMEM_MD, (unsigned)strlen(PCC_WIDEMEM_MD));
  x.cb_node = LLVMMDNodeInContext(x.c, NULL, 0);
  *ncalls = 0;
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
    if (!LLVMIsDeclaration(fn) && instrumented(fn) && collect(&x, fn)) {
      free(x.todo);
      return ppt_err_set(err, PPT_ERUN, "ppt-cc: %s: out of memory", src);
    }
  x.b = LLVMCreateBuilderInContext(x.c);
  for (size_t i = 0; i < x.ntodo; i++) instrument(&x, x.todo[i]);
  LLVMDisposeBuilder(x.b);
  free(x.todo);
  *ncalls = x.ntodo;
  return 0;
}

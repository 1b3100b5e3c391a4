/* mcrefs.c — see mcrefs.h. */
#include "mcrefs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

#include "mca.h"
#include "mcasm.h"

#define GUARD_CALLBACK "__sanitizer_cov_trace_pc_guard"

typedef struct mcent {
  LLVMValueRef call; /* the guard call in the measured module */
  uint16_t loads, stores;
  uint16_t cycles; /* llvm-mca cycles per execution x PCC_MCA_SCALE; 0: unknown */
} mcent;

struct pcc_mcrefs {
  mcent *e; /* sorted by call */
  size_t n;
};

static const char *callee_name(LLVMValueRef inst, size_t *n) {
  *n = 0;
  if (!inst || !LLVMIsACallInst(inst)) return NULL;
  LLVMValueRef f = LLVMGetCalledValue(inst);
  while (f && LLVMIsAConstantExpr(f) && LLVMGetConstOpcode(f) == LLVMBitCast) f = LLVMGetOperand(f, 0);
  return f && LLVMIsAFunction(f) ? LLVMGetValueName2(f, n) : NULL;
}

static int calls(LLVMValueRef inst, const char *prefix, int exact) {
  size_t n, lp = strlen(prefix);
  const char *s = callee_name(inst, &n);
  return s && n >= lp && memcmp(s, prefix, lp) == 0 && (!exact || n == lp);
}

/* Trace callbacks that would not exist in the user's own build (their loads and stores
 * stay; the calls would clobber registers and force spills the real code does not have). */
static int is_callback(LLVMValueRef i) {
  return (calls(i, "__sanitizer_cov_load", 0) || calls(i, "__sanitizer_cov_store", 0) ||
          calls(i, "__ppt_", 0)) &&
         !LLVMGetFirstUse(i);
}

/* An alloca, through casts and constant-index GEPs: the machine addresses it off %rsp or
 * %rbp, so the IR's trace already has the access. */
static int alloca_slot(LLVMValueRef p) {
  for (int depth = 0; p && depth < 16; depth++) {
    if (LLVMIsAAllocaInst(p)) return 1;
    if (LLVMIsABitCastInst(p) || (LLVMIsAConstantExpr(p) && LLVMGetConstOpcode(p) == LLVMBitCast)) {
      p = LLVMGetOperand(p, 0);
      continue;
    }
    if (LLVMIsAGetElementPtrInst(p)) {
      int n = LLVMGetNumOperands(p);
      for (int k = 1; k < n; k++)
        if (!LLVMIsAConstantInt(LLVMGetOperand(p, (unsigned)k))) return 0;
      p = LLVMGetOperand(p, 0);
      continue;
    }
    return 0;
  }
  return 0;
}

static void ir_stack(LLVMBasicBlockRef bb, uint32_t *ld, uint32_t *st) {
  *ld = *st = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
    if (LLVMIsALoadInst(i) && alloca_slot(LLVMGetOperand(i, 0)))
      (*ld)++;
    else if (LLVMIsAStoreInst(i) && alloca_slot(LLVMGetOperand(i, 1)))
      (*st)++;
  }
}

static char *fn_attr(LLVMValueRef fn, const char *key) {
  LLVMAttributeRef a =
      LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, key, (unsigned)strlen(key));
  unsigned n = 0;
  const char *v = a ? LLVMGetStringAttributeValue(a, &n) : NULL;
  return strndup(v ? v : "", n);
}

static LLVMValueRef first_defined(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f)) return f;
  return NULL;
}

#define NOT_X86 (-2)

/* Assembly of clone c into *asm_buf: 0, NOT_X86, or err's status. */
static int emit_asm(LLVMModuleRef c, const char *src, LLVMMemoryBufferRef *asm_buf, ppt_err *err) {
  const char *triple = LLVMGetTarget(c);
  LLVMValueRef fn = first_defined(c);
  if (!triple || strncmp(triple, "x86_64", 6) != 0 || !fn) return NOT_X86;
  LLVMInitializeX86TargetInfo();
  LLVMInitializeX86Target();
  LLVMInitializeX86TargetMC();
  LLVMInitializeX86AsmPrinter();
  LLVMInitializeX86AsmParser(); /* inline asm (the markers) goes through it */
  LLVMTargetRef target;
  char *msg = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &msg)) {
    int rc =
        ppt_err_set(err, PPT_ERUN, "ppt-cc: %s: no LLVM target for %s: %s", src, triple, msg ? msg : "?");
    LLVMDisposeMessage(msg);
    return rc;
  }
  char *cpu = fn_attr(fn, "target-cpu"), *feat = fn_attr(fn, "target-features");
  /* clang marks every function optnone at -O0; the other levels leave no trace in the
   * IR, and -O1/-O2/-O3 differ little in the backend. */
  int optnone = LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                            LLVMGetEnumAttributeKindForName("optnone", 7)) != NULL;
  LLVMRelocMode reloc = LLVMGetModuleFlag(c, "PIC Level", 9) ? LLVMRelocPIC : LLVMRelocDefault;
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, triple, cpu ? cpu : "", feat ? feat : "",
                                                    optnone ? LLVMCodeGenLevelNone : LLVMCodeGenLevelDefault,
                                                    reloc, LLVMCodeModelDefault);
  free(cpu);
  free(feat);
  if (!tm)
    return ppt_err_set(err, PPT_ERUN, "ppt-cc: %s: cannot make an LLVM target machine for %s", src, triple);
  LLVMSetTargetMachineAsmVerbosity(tm, 1); /* block comments with loop depths (mcasm.c) */
  int rc = 0;
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, c, LLVMAssemblyFile, &msg, asm_buf)) {
    rc = ppt_err_set(err, PPT_ERUN, "ppt-cc: %s: code generation to count stack references failed: %s", src,
                     msg ? msg : "?");
    LLVMDisposeMessage(msg);
  }
  LLVMDisposeTargetMachine(tm);
  return rc;
}

/* Walks m and its clone c in step (LLVMCloneModule keeps every order): records m's guard
 * calls in mc->e, and in c replaces the K-th guard call by the marker "# ppt-bb K" and
 * deletes the trace callbacks. ir[K] gets the block's IR stack accesses. */
static int mark_clone(LLVMModuleRef m, LLVMModuleRef c, pcc_mcrefs *mc, uint32_t (**ir)[2]) {
  size_t cap = 0;
  LLVMContextRef ctx = LLVMGetModuleContext(c);
  LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), NULL, 0, 0);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  int rc = 0;
  LLVMValueRef fm = LLVMGetFirstFunction(m), fc = LLVMGetFirstFunction(c);
  for (; fm && fc && !rc; fm = LLVMGetNextFunction(fm), fc = LLVMGetNextFunction(fc)) {
    LLVMBasicBlockRef bm = LLVMGetFirstBasicBlock(fm), bc = LLVMGetFirstBasicBlock(fc);
    for (; bm && bc && !rc; bm = LLVMGetNextBasicBlock(bm), bc = LLVMGetNextBasicBlock(bc)) {
      LLVMValueRef im = LLVMGetFirstInstruction(bm), ic = LLVMGetFirstInstruction(bc);
      while (im && ic) {
        LLVMValueRef nm = LLVMGetNextInstruction(im), nc = LLVMGetNextInstruction(ic);
        if (calls(im, GUARD_CALLBACK, 1)) {
          if (!calls(ic, GUARD_CALLBACK, 1) || mc->n == UINT32_MAX) {
            rc = -1;
            break;
          }
          if (mc->n == cap) {
            cap = cap ? 2 * cap : 256;
            mcent *ne = realloc(mc->e, cap * sizeof *ne);
            uint32_t(*ni)[2] = realloc(*ir, cap * sizeof *ni);
            if (ne) mc->e = ne;
            if (ni) *ir = ni;
            if (!ne || !ni) {
              rc = -1;
              break;
            }
          }
          char text[32];
          int len = snprintf(text, sizeof text, "# ppt-bb %zu", mc->n);
          LLVMValueRef marker =
              LLVMGetInlineAsm(fty, text, (size_t)len, "", 0, 1, 0, LLVMInlineAsmDialectATT, 0);
          LLVMPositionBuilderBefore(b, ic);
          LLVMBuildCall2(b, fty, marker, NULL, 0, "");
          LLVMInstructionEraseFromParent(ic);
          ir_stack(bm, &(*ir)[mc->n][0], &(*ir)[mc->n][1]);
          mc->e[mc->n++] = (mcent){.call = im};
        } else if (is_callback(ic)) {
          LLVMInstructionEraseFromParent(ic);
        }
        im = nm;
        ic = nc;
      }
    }
  }
  LLVMDisposeBuilder(b);
  return rc;
}

static int cmp_ent(const void *a, const void *b) {
  const mcent *p = a, *q = b;
  return (uintptr_t)p->call < (uintptr_t)q->call ? -1 : (uintptr_t)p->call > (uintptr_t)q->call;
}

static uint16_t sat16(uint32_t v) {
  return v > 0xFFFFu ? 0xFFFFu : (uint16_t)v;
}

/* Machine minus IR accesses per block, mean over a marker's copies. */
static void settle(pcc_mcrefs *mc, const pcc_mcstack *st, uint32_t (*ir)[2]) {
  for (size_t k = 0; k < mc->n; k++) {
    uint32_t c = st[k].copies ? st[k].copies : 1;
    uint32_t l = (st[k].loads + c / 2) / c, s = (st[k].stores + c / 2) / c;
    mc->e[k].loads = sat16(l > ir[k][0] ? l - ir[k][0] : 0);
    mc->e[k].stores = sat16(s > ir[k][1] ? s - ir[k][1] : 0);
  }
}

int pcc_mcrefs_measure(LLVMModuleRef m, const char *src, const pcc_mca_cfg *mca, pcc_mcrefs **out,
                       ppt_err *err) {
  *out = NULL;
  pcc_mcrefs *mc = calloc(1, sizeof *mc);
  uint32_t(*ir)[2] = NULL;
  LLVMModuleRef c = mc ? LLVMCloneModule(m) : NULL;
  if (!mc || !c) {
    free(mc);
    return ppt_err_set(err, PPT_ERUN, "ppt-cc: %s: out of memory", src);
  }
  int rc = mark_clone(m, c, mc, &ir);
  LLVMMemoryBufferRef buf = NULL;
  if (rc == 0) {
    LLVMStripModuleDebugInfo(c); /* no .loc lines; debug info does not change the code */
    rc = emit_asm(c, src, &buf, err);
  }
  LLVMDisposeModule(c);
  pcc_mcstack *st = rc == 0 ? calloc(mc->n ? mc->n : 1, sizeof *st) : NULL;
  if (st) {
    /* PPT_CC_MCREFS_ASM=FILE keeps the marked assembly, to check a count by eye. */
    const char *keep = getenv("PPT_CC_MCREFS_ASM");
    FILE *f = keep && *keep ? fopen(keep, "w") : NULL;
    if (f) {
      fwrite(LLVMGetBufferStart(buf), 1, LLVMGetBufferSize(buf), f);
      fclose(f);
    }
    pcc_mcasm_count(LLVMGetBufferStart(buf), LLVMGetBufferSize(buf), st, mc->n);
    settle(mc, st, ir);
    uint16_t *cyc = mca && mc->n ? calloc(mc->n, sizeof *cyc) : NULL;
    if (cyc && pcc_mca_cycles(mca, LLVMGetBufferStart(buf), LLVMGetBufferSize(buf), mc->n, cyc))
      for (size_t k = 0; k < mc->n; k++) mc->e[k].cycles = cyc[k];
    free(cyc);
  } else if (rc == 0) {
    rc = ppt_err_set(err, PPT_ERUN, "ppt-cc: %s: out of memory", src);
  }
  if (buf) LLVMDisposeMemoryBuffer(buf);
  free(st);
  free(ir);
  if (rc < 0) {
    /* Not x86-64, or the clone did not line up (cannot happen with LLVMCloneModule),
     * or memory ran out: every block counts 0 rather than something wrong. */
    mc->n = 0;
    rc = 0;
  }
  if (rc) {
    pcc_mcrefs_free(mc);
    return rc;
  }
  if (mc->n > 1) qsort(mc->e, mc->n, sizeof *mc->e, cmp_ent);
  *out = mc;
  return 0;
}

void pcc_mcrefs_get(const pcc_mcrefs *mc, LLVMValueRef guard_call, uint16_t *loads, uint16_t *stores,
                    uint16_t *cycles) {
  *loads = *stores = *cycles = 0;
  if (!mc || !mc->n) return;
  mcent key = {.call = guard_call};
  const mcent *e = bsearch(&key, mc->e, mc->n, sizeof *mc->e, cmp_ent);
  if (e) {
    *loads = e->loads;
    *stores = e->stores;
    *cycles = e->cycles;
  }
}

void pcc_mcrefs_free(pcc_mcrefs *mc) {
  if (!mc) return;
  free(mc->e);
  free(mc);
}

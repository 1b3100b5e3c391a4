/* memop.c — memory references of one IR instruction (see memop.h). */
#include "memop.h"

#include <string.h>

#include <llvm-c/Target.h>

static int starts(const char *s, size_t n, const char *p) {
  size_t lp = strlen(p);
  return n >= lp && memcmp(s, p, lp) == 0;
}

int pcc_memop_has_feature(LLVMValueRef fn, const char *feature) {
  static const char key[] = "target-features";
  LLVMAttributeRef a = LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, key, sizeof key - 1);
  if (!a) return 0;
  unsigned n = 0;
  const char *v = LLVMGetStringAttributeValue(a, &n);
  size_t fl = strlen(feature);
  /* Whole entries only: "+avx" must not match "+avx2". */
  for (unsigned i = 0; v && i + fl <= n; i++)
    if ((i == 0 || v[i - 1] == ',') && !memcmp(v + i, feature, fl) && (i + fl == n || v[i + fl] == ','))
      return 1;
  return 0;
}

unsigned pcc_memop_unit_lg(LLVMValueRef fn) {
  /* AVX-512 targets tuned to prefer 256-bit vectors still get 64-byte accesses where the
   * IR holds 64-byte vectors (the vectorizer only makes them when 512 bits are usable,
   * and explicit vector types set min-legal-vector-width), so +avx512f means 64. */
  if (pcc_memop_has_feature(fn, "+avx512f")) return 6;
  if (pcc_memop_has_feature(fn, "+avx")) return 5;
  return 4;
}

static unsigned ceil_lg(uint64_t s) {
  unsigned lg = 0;
  while (lg < 63 && (1ull << lg) < s) lg++;
  return lg;
}

/* Size and count of the references for s bytes (see memop.h): one reference rounded up
 * to a power of two, or whole vector registers above the register width. */
static void split(pcc_memop *m, uint64_t s, unsigned unit_lg) {
  m->bytes = s;
  if (s <= (1ull << unit_lg)) {
    m->lg = ceil_lg(s ? s : 1);
    m->nrefs = 1;
  } else {
    m->lg = unit_lg;
    m->nrefs = (s + (1ull << unit_lg) - 1) >> unit_lg;
  }
}

static LLVMTargetDataRef layout_of(LLVMValueRef inst, LLVMValueRef *fn) {
  *fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(inst));
  return LLVMGetModuleDataLayout(LLVMGetGlobalParent(*fn));
}

static uint64_t store_size(LLVMValueRef inst, LLVMTypeRef t) {
  LLVMValueRef fn;
  return LLVMStoreSizeOfType(layout_of(inst, &fn), t);
}

static unsigned fn_unit_lg(LLVMValueRef inst) {
  LLVMValueRef fn;
  layout_of(inst, &fn);
  return pcc_memop_unit_lg(fn);
}

/* The intrinsics of llvm.masked.* and llvm.mem*: operands by position (LLVM 14). */
static pcc_memop_kind intrinsic(LLVMValueRef inst, const char *name, size_t n, pcc_memop *m) {
  if (starts(name, n, "llvm.memcpy") || starts(name, n, "llvm.memmove") || starts(name, n, "llvm.memset")) {
    int set = starts(name, n, "llvm.memset");
    m->kind = set ? PCC_MEM_SET : PCC_MEM_COPY;
    m->ptr = LLVMGetOperand(inst, 0);
    m->src = set ? NULL : LLVMGetOperand(inst, 1);
    m->len = LLVMGetOperand(inst, 2);
    m->lg = 4;
    m->nrefs = 0;
    if (LLVMIsAConstantInt(m->len)) m->nrefs = (LLVMConstIntGetZExtValue(m->len) + 15) / 16;
    m->store = 1;
    return m->kind;
  }
  int gather = starts(name, n, "llvm.masked.gather."), scatter = starts(name, n, "llvm.masked.scatter.");
  if (gather || scatter) {
    /* gather(ptrs, align, mask, passthru) -> vec; scatter(vec, ptrs, align, mask) */
    LLVMValueRef ptrs = LLVMGetOperand(inst, gather ? 0 : 1);
    LLVMTypeRef vt = gather ? LLVMTypeOf(inst) : LLVMTypeOf(LLVMGetOperand(inst, 0));
    if (LLVMGetTypeKind(LLVMTypeOf(ptrs)) != LLVMVectorTypeKind) return PCC_MEM_NONE;
    m->kind = PCC_MEM_GATHER;
    m->store = scatter;
    m->ptr = ptrs;
    m->mask = LLVMGetOperand(inst, gather ? 2 : 3);
    m->lanes = LLVMGetVectorSize(LLVMTypeOf(ptrs));
    m->bytes = store_size(inst, LLVMGetElementType(vt));
    m->lg = ceil_lg(m->bytes ? m->bytes : 1);
    m->nrefs = m->lanes;
    return m->kind;
  }
  int ld = starts(name, n, "llvm.masked.load."), st = starts(name, n, "llvm.masked.store.");
  int ex = starts(name, n, "llvm.masked.expandload."), cs = starts(name, n, "llvm.masked.compressstore.");
  if (!(ld || st || ex || cs)) return PCC_MEM_NONE;
  /* load(ptr, align, mask, pt), store(v, ptr, align, mask), expandload(ptr, mask, pt),
   * compressstore(v, ptr, mask) */
  m->kind = PCC_MEM_MASKED;
  m->store = st || cs;
  m->ptr = LLVMGetOperand(inst, m->store ? 1 : 0);
  m->mask = LLVMGetOperand(inst, ld ? 2 : st ? 3 : ex ? 1 : 2);
  LLVMTypeRef vt = m->store ? LLVMTypeOf(LLVMGetOperand(inst, 0)) : LLVMTypeOf(inst);
  split(m, store_size(inst, vt), fn_unit_lg(inst));
  return m->kind;
}

pcc_memop_kind pcc_memop_of(LLVMValueRef inst, pcc_memop *m) {
  memset(m, 0, sizeof *m);
  switch (LLVMGetInstructionOpcode(inst)) {
    case LLVMLoad:
      m->kind = PCC_MEM_PLAIN;
      m->ptr = LLVMGetOperand(inst, 0);
      split(m, store_size(inst, LLVMTypeOf(inst)), fn_unit_lg(inst));
      return m->kind;
    case LLVMStore:
      m->kind = PCC_MEM_PLAIN;
      m->store = 1;
      m->ptr = LLVMGetOperand(inst, 1);
      split(m, store_size(inst, LLVMTypeOf(LLVMGetOperand(inst, 0))), fn_unit_lg(inst));
      return m->kind;
    case LLVMAtomicRMW:
    case LLVMAtomicCmpXchg: {
      /* atomicrmw(ptr, val), cmpxchg(ptr, cmp, new): the value's size, one reference each
       * way (a locked instruction reads and writes one word; no atomic is wider than 16). */
      m->kind = PCC_MEM_RMW;
      m->ptr = LLVMGetOperand(inst, 0);
      split(m, store_size(inst, LLVMTypeOf(LLVMGetOperand(inst, 1))), 4);
      return m->kind;
    }
    case LLVMCall: {
      LLVMValueRef f = LLVMGetCalledValue(inst);
      if (!f || !LLVMIsAFunction(f)) return PCC_MEM_NONE;
      size_t n;
      const char *name = LLVMGetValueName2(f, &n);
      return name ? intrinsic(inst, name, n, m) : PCC_MEM_NONE;
    }
    default: return PCC_MEM_NONE;
  }
}

/* opmix.c — instruction classes for the block table (see opmix.h and enum ppt_op in
 * include/ppt/trace.h, which names what each class stands for in PPT's tasklists). */
#include "opmix.h"

#include <stdlib.h>
#include <string.h>

#include "fresh.h"
#include "lanes.h"
#include "memop.h"
#include "recaddr.h"
#include "ppt/trace.h"
#include "widemem.h"

static int starts(const char *s, size_t n, const char *p) {
  size_t lp = strlen(p);
  return n >= lp && memcmp(s, p, lp) == 0;
}

/* The function a call instruction calls, seen through pointer casts; NULL if indirect. */
static LLVMValueRef callee_fn(LLVMValueRef call) {
  LLVMValueRef v = LLVMGetCalledValue(call);
  while (v && LLVMIsAConstantExpr(v) && LLVMGetConstOpcode(v) == LLVMBitCast)
    v = LLVMGetOperand(v, 0);
  return (v && LLVMIsAFunction(v)) ? v : NULL;
}

static const char *callee_name(LLVMValueRef call, size_t *len) {
  LLVMValueRef f = callee_fn(call);
  *len = 0;
  return f ? LLVMGetValueName2(f, len) : NULL;
}

static int is_sancov_call(LLVMValueRef inst) {
  if (!LLVMIsACallInst(inst))
    return 0;
  size_t n;
  const char *name = callee_name(inst, &n);
  return name && starts(name, n, "__sanitizer_cov_");
}

int pcc_opmix_is_call_to(LLVMValueRef inst, const char *want) {
  if (!LLVMIsACallInst(inst))
    return 0;
  size_t n;
  const char *name = callee_name(inst, &n);
  return name && n == strlen(want) && memcmp(name, want, n) == 0;
}

/* Intrinsics that produce no machine code. */
static const char *const k_free_intrinsics[] = {
    "llvm.dbg.", "llvm.lifetime.", "llvm.assume", "llvm.experimental.noalias.scope.decl",
    "llvm.invariant.", "llvm.pseudoprobe", "llvm.var.annotation", "llvm.sideeffect",
    "llvm.donothing", NULL};

/* Made by widemem.c for its own callbacks (casts, lane extracts, the calls). */
static int is_ppt_callback_code(LLVMValueRef inst) {
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(inst));
  unsigned kind = LLVMGetMDKindIDInContext(c, PCC_WIDEMEM_MD, (unsigned)strlen(PCC_WIDEMEM_MD));
  return LLVMGetMetadata(inst, kind) != NULL;
}

int pcc_opmix_ignored(LLVMValueRef inst) {
  if (LLVMIsAPHINode(inst) || is_sancov_call(inst) || is_ppt_callback_code(inst))
    return 1;
  if (LLVMIsACallInst(inst)) {
    size_t n;
    const char *name = callee_name(inst, &n);
    if (name)
      for (const char *const *p = k_free_intrinsics; *p; p++)
        if (starts(name, n, *p))
          return 1;
  }
  /* Casts SanitizerCoverage inserted to pass an address to __sanitizer_cov_load8 etc. */
  LLVMUseRef u = LLVMGetFirstUse(inst);
  if (!u)
    return 0;
  for (; u; u = LLVMGetNextUse(u))
    if (!is_sancov_call(LLVMGetUser(u)))
      return 0;
  return 1;
}

struct rule {
  const char *prefix;
  int cls[2]; /* up to two classes per instruction; -1 = none */
};

enum { NONE = -1 }; /* no second class */

/* Calls by callee name, first match wins. An intrinsic not listed is OTHER (inline code);
 * any other named function is CALL. */
static const struct rule k_call_rules[] = {
    {"llvm.fmuladd.", {PPT_OP_FMUL, PPT_OP_FADD}},
    {"llvm.fma.", {PPT_OP_FMUL, PPT_OP_FADD}},
    {"llvm.sqrt.", {PPT_OP_FDIV, NONE}},
    {"llvm.fabs.", {PPT_OP_FADD, NONE}},
    {"llvm.copysign.", {PPT_OP_FADD, NONE}},
    {"llvm.minnum.", {PPT_OP_FADD, NONE}},
    {"llvm.maxnum.", {PPT_OP_FADD, NONE}},
    {"llvm.minimum.", {PPT_OP_FADD, NONE}},
    {"llvm.maximum.", {PPT_OP_FADD, NONE}},
    {"llvm.floor.", {PPT_OP_FADD, NONE}},
    {"llvm.ceil.", {PPT_OP_FADD, NONE}},
    {"llvm.trunc.", {PPT_OP_FADD, NONE}},
    {"llvm.rint.", {PPT_OP_FADD, NONE}},
    {"llvm.nearbyint.", {PPT_OP_FADD, NONE}},
    {"llvm.round.", {PPT_OP_FADD, NONE}},
    {"llvm.roundeven.", {PPT_OP_FADD, NONE}},
    {"llvm.vector.reduce.fadd.", {PPT_OP_FADD, NONE}},
    {"llvm.vector.reduce.fmax.", {PPT_OP_FADD, NONE}},
    {"llvm.vector.reduce.fmin.", {PPT_OP_FADD, NONE}},
    {"llvm.vector.reduce.fmul.", {PPT_OP_FMUL, NONE}},
    {"llvm.vector.reduce.", {PPT_OP_IALU, NONE}}, /* add/mul/and/or/xor/min/max */
    {"llvm.smax.", {PPT_OP_IALU, NONE}},
    {"llvm.smin.", {PPT_OP_IALU, NONE}},
    {"llvm.umax.", {PPT_OP_IALU, NONE}},
    {"llvm.umin.", {PPT_OP_IALU, NONE}},
    {"llvm.abs.", {PPT_OP_IALU, NONE}},
    {"llvm.ctpop.", {PPT_OP_IALU, NONE}},
    {"llvm.ctlz.", {PPT_OP_IALU, NONE}},
    {"llvm.cttz.", {PPT_OP_IALU, NONE}},
    {"llvm.bswap.", {PPT_OP_IALU, NONE}},
    {"llvm.bitreverse.", {PPT_OP_IALU, NONE}},
    {"llvm.fshl.", {PPT_OP_IALU, NONE}},
    {"llvm.fshr.", {PPT_OP_IALU, NONE}},
    {"llvm.sadd.", {PPT_OP_IALU, NONE}},
    {"llvm.uadd.", {PPT_OP_IALU, NONE}},
    {"llvm.ssub.", {PPT_OP_IALU, NONE}},
    {"llvm.usub.", {PPT_OP_IALU, NONE}},
    {"llvm.smul.", {PPT_OP_IALU, NONE}},
    {"llvm.umul.", {PPT_OP_IALU, NONE}},
    {"llvm.sshl.sat.", {PPT_OP_IALU, NONE}},
    {"llvm.ushl.sat.", {PPT_OP_IALU, NONE}},
    {"llvm.masked.load.", {PPT_OP_LOAD, NONE}},
    {"llvm.masked.gather.", {PPT_OP_LOAD, NONE}},
    {"llvm.masked.expandload.", {PPT_OP_LOAD, NONE}},
    {"llvm.masked.store.", {PPT_OP_STORE, NONE}},
    {"llvm.masked.scatter.", {PPT_OP_STORE, NONE}},
    {"llvm.masked.compressstore.", {PPT_OP_STORE, NONE}},
    {"llvm.memcpy", {PPT_OP_CALL, NONE}},
    {"llvm.memmove", {PPT_OP_CALL, NONE}},
    {"llvm.memset", {PPT_OP_CALL, NONE}},
    {"llvm.", {PPT_OP_OTHER, NONE}},
};

/* libm's square roots, called by name (with errno, clang keeps the call beside the
 * inline root); the intrinsic llvm.sqrt.* is a rule of k_call_rules. */
static int libm_sqrt(const char *name, size_t n) {
  return (n == 4 && memcmp(name, "sqrt", 4) == 0) || (n == 5 && memcmp(name, "sqrtf", 5) == 0) ||
         (n == 5 && memcmp(name, "sqrtl", 5) == 0);
}

static void call_classes(LLVMValueRef inst, int cls[2]) {
  cls[0] = PPT_OP_CALL;
  cls[1] = NONE;
  LLVMValueRef callee = LLVMGetCalledValue(inst);
  if (callee && LLVMIsAInlineAsm(callee)) {
    cls[0] = PPT_OP_OTHER;
    return;
  }
  size_t n;
  const char *name = callee_name(inst, &n);
  if (!name)
    return; /* indirect call */
  if (libm_sqrt(name, n)) {
    cls[0] = PPT_OP_FDIV;
    return;
  }
  for (size_t i = 0; i < sizeof k_call_rules / sizeof *k_call_rules; i++)
    if (starts(name, n, k_call_rules[i].prefix)) {
      cls[0] = k_call_rules[i].cls[0];
      cls[1] = k_call_rules[i].cls[1];
      return;
    }
  /* A call into code this module does not define (libm, libc) runs untraced: count it
   * so the runtime model can charge it. libomp's entry points are the fork-join model's. */
  LLVMValueRef f = callee_fn(inst);
  if (f && LLVMIsDeclaration(f) && !starts(name, n, "__kmpc_") && !starts(name, n, "omp_") &&
      !starts(name, n, "__sanitizer_"))
    cls[1] = PPT_OP_XCALL;
}

static int int_or_ptr(LLVMTypeRef t) {
  LLVMTypeKind k = LLVMGetTypeKind(t);
  return k == LLVMIntegerTypeKind || k == LLVMPointerTypeKind;
}

static int is_fp(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMHalfTypeKind:
  case LLVMBFloatTypeKind:
  case LLVMFloatTypeKind:
  case LLVMDoubleTypeKind:
  case LLVMX86_FP80TypeKind:
  case LLVMFP128TypeKind:
  case LLVMPPC_FP128TypeKind:
    return 1;
  default:
    return 0;
  }
}

/* Lanes of a vector type (0 for anything else); *fp set if its elements are FP. */
static unsigned vec_lanes(LLVMTypeRef t, int *fp) {
  LLVMTypeKind k = LLVMGetTypeKind(t);
  if (k != LLVMVectorTypeKind && k != LLVMScalableVectorTypeKind)
    return 0;
  if (is_fp(LLVMGetElementType(t)))
    *fp = 1;
  return LLVMGetVectorSize(t);
}

static void bump(uint16_t *c, unsigned k) {
  unsigned v = (unsigned)*c + k;
  *c = v > 0xFFFFu ? 0xFFFFu : (uint16_t)v;
}

static void classify(LLVMValueRef inst, int cls[2]) {
  cls[0] = PPT_OP_OTHER;
  cls[1] = NONE;
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMAdd:
  case LLVMSub:
  case LLVMMul:
  case LLVMShl:
  case LLVMLShr:
  case LLVMAShr:
  case LLVMAnd:
  case LLVMOr:
  case LLVMXor:
  case LLVMICmp:
    cls[0] = PPT_OP_IALU;
    break;
  case LLVMSelect: {
    LLVMTypeRef t = LLVMTypeOf(inst);
    if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
      t = LLVMGetElementType(t);
    if (int_or_ptr(t))
      cls[0] = PPT_OP_IALU;
    break;
  }
  case LLVMSDiv:
  case LLVMUDiv:
  case LLVMSRem:
  case LLVMURem:
    cls[0] = PPT_OP_IDIV;
    break;
  case LLVMFAdd:
  case LLVMFSub:
  case LLVMFCmp:
  case LLVMFNeg:
    cls[0] = PPT_OP_FADD;
    break;
  case LLVMFMul:
    cls[0] = PPT_OP_FMUL;
    break;
  case LLVMFDiv:
  case LLVMFRem:
    cls[0] = PPT_OP_FDIV;
    break;
  case LLVMLoad:
    cls[0] = PPT_OP_LOAD;
    break;
  case LLVMStore:
    cls[0] = PPT_OP_STORE;
    break;
  case LLVMAtomicRMW:
  case LLVMAtomicCmpXchg: /* a read and a write of the same word */
    cls[0] = PPT_OP_LOAD;
    cls[1] = PPT_OP_STORE;
    break;
  case LLVMBr:
  case LLVMSwitch:
  case LLVMIndirectBr:
    cls[0] = PPT_OP_BRANCH;
    break;
  case LLVMCall:
    call_classes(inst, cls);
    break;
  case LLVMInvoke:
  case LLVMCallBr:
    cls[0] = PPT_OP_CALL;
    break;
  default:
    break;
  }
}

void pcc_opmix_add(LLVMValueRef inst, uint16_t ops[PPT_BBDESC_NOPS]) {
  int cls[2];
  classify(inst, cls);
  /* Vector shape: the widest vector among the result and the operands, so that compares
   * (vector of i1 out, FP in), stores (value operand) and reductions (scalar out) all see
   * the vector they work on. */
  int fp = 0;
  unsigned lanes = vec_lanes(LLVMTypeOf(inst), &fp);
  int nops = LLVMGetNumOperands(inst);
  for (int i = 0; i < nops; i++) {
    unsigned l = vec_lanes(LLVMTypeOf(LLVMGetOperand(inst, i)), &fp);
    if (l > lanes)
      lanes = l;
  }
  /* LOAD and STORE count trace references (memop.h): a 64-byte vector split in two by
   * an AVX2 backend is two, a gather one per lane, a memcpy of a known length
   * ceil(n/16) of each (it stays a CALL too; of an unknown length, it adds none). */
  pcc_memop m;
  unsigned refs = pcc_memop_of(inst, &m) != PCC_MEM_NONE ? (unsigned)(m.nrefs > 0xFFFFu ? 0xFFFFu : m.nrefs) : 1;
  unsigned counted = 0;
  for (int i = 0; i < 2; i++) {
    if (cls[i] < 0)
      continue;
    unsigned k = cls[i] == PPT_OP_LOAD || cls[i] == PPT_OP_STORE ? refs : 1;
    bump(&ops[cls[i]], k);
    counted += cls[i] != PPT_OP_OTHER && cls[i] != PPT_OP_XCALL ? k : 0;
  }
  if (m.kind == PCC_MEM_COPY || m.kind == PCC_MEM_SET) {
    if (m.kind == PCC_MEM_COPY)
      bump(&ops[PPT_OP_LOAD], refs);
    bump(&ops[PPT_OP_STORE], refs);
  }
  if (lanes > 0) {
    if (counted)
      bump(&ops[fp ? PPT_OP_VFP : PPT_OP_VINT], counted);
    if (lanes > ops[PPT_OP_VWIDTH])
      ops[PPT_OP_VWIDTH] = lanes > 0xFFFFu ? 0xFFFFu : (uint16_t)lanes;
  }
}

/* ---- loop-carried recurrences ---- */

enum { REC_MAX = 1024 };
typedef struct rec_node {
  LLVMValueRef v;
  int done;
  long weight; /* path weight from the PHI to v (-1: v does not depend on it) */
  unsigned fp, mul, div; /* mul: of fp, the multiplies (fmul, fma) */
  unsigned ialu;         /* integer ops on the path (counted for memory cycles only) */
  unsigned mv;           /* lane moves on the path (lanes.h; register cycles only) */
} rec_node;

enum { LOOP_MAX = 256 };
typedef struct rec_ctx {
  LLVMBasicBlockRef bb;
  /* The blocks a cycle may pass through: bb alone for a block that loops to itself; for
   * a back edge from another block, every block on a path from bb to that block. */
  LLVMBasicBlockRef loop[LOOP_MAX];
  size_t nloop;
  LLVMValueRef phi; /* where the cycle starts: a PHI, or a load (mem) */
  int has_fma; /* the function's target fuses multiply-add into one instruction */
  int mem;     /* a cycle through memory: integer ops weigh too (a cycle, each) */
  rec_node n[REC_MAX];
  size_t nn;
} rec_ctx;

/* Generic latencies, only to choose the longest cycle; the hwspec's own latencies price
 * it later (the block table stores op counts, not cycles). `via` is the operand the
 * cycle enters through: llvm.fmuladd(a, b, c) on a target without FMA becomes a
 * multiply then an add, so a cycle through a or b waits for both (adi's
 * den = diag - lo * p[i-1]) and one through the addend c only for the add (a dot
 * product's s += a[i] * b[i]); with FMA it is one instruction either way. */
static void rec_kind(LLVMValueRef inst, int via, int has_fma, unsigned *fp,
                     unsigned *mul, unsigned *div) {
  *fp = *mul = *div = 0;
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMFMul:
    *mul = 1;
    *fp = 1;
    return;
  case LLVMFAdd:
  case LLVMFSub:
  case LLVMFNeg:
    *fp = 1;
    return;
  case LLVMFDiv:
  case LLVMFRem:
    *div = 1;
    return;
  case LLVMCall: {
    size_t n;
    const char *name = callee_name(inst, &n);
    if (!name)
      return;
    /* A fused multiply-add takes a multiply's latency (or more); a split one
     * entered through its addend waits only for the add. */
    if (starts(name, n, "llvm.fma.")) {
      *fp = *mul = 1;
    } else if (starts(name, n, "llvm.fmuladd.")) {
      *fp = has_fma || via == 2 ? 1 : 2;
      *mul = has_fma || via != 2 ? 1 : 0;
    }
    else if (starts(name, n, "llvm.sqrt.") || (n == 4 && !memcmp(name, "sqrt", 4)))
      *div = 1;
    return;
  }
  default:
    return;
  }
}

/* Integer ops a dependence waits a cycle or more for: the op mix's integer ALU class
 * (casts and address arithmetic are free, or folded into the load or store). */
static int is_int_op(LLVMValueRef v) {
  int cls[2];
  classify(v, cls);
  return cls[0] == PPT_OP_IALU;
}

static int in_loop(const rec_ctx *c, LLVMBasicBlockRef b) {
  for (size_t i = 0; i < c->nloop; i++)
    if (c->loop[i] == b)
      return 1;
  return 0;
}

static int has_succ_in(LLVMBasicBlockRef b, const LLVMBasicBlockRef *set, size_t n) {
  LLVMValueRef term = LLVMGetBasicBlockTerminator(b);
  unsigned k = term ? LLVMGetNumSuccessors(term) : 0;
  for (unsigned i = 0; i < k; i++)
    for (size_t j = 0; j < n; j++)
      if (LLVMGetSuccessor(term, i) == set[j])
        return 1;
  return 0;
}

/* c->loop for the back edge latch -> bb: the blocks reachable from bb, without passing
 * bb again, that reach latch. A loop unrolled with an exit between its copies (clang
 * does so for an odd trip count: rowcol's 2999) spreads one trip over two blocks, and its
 * recurrence runs from a PHI of the first through the second and back. 0 when more
 * than LOOP_MAX blocks are reachable from bb (the search stays bounded on every PHI of
 * a large function; such a loop's cycle is then not looked for, as before: a loop early
 * in a function of more than LOOP_MAX blocks). */
static int loop_blocks(rec_ctx *c, LLVMBasicBlockRef bb, LLVMBasicBlockRef latch) {
  LLVMBasicBlockRef fwd[LOOP_MAX];
  size_t nf = 0, done = 0;
  fwd[nf++] = bb;
  while (done < nf) { /* forward from bb, not through bb */
    LLVMValueRef term = LLVMGetBasicBlockTerminator(fwd[done++]);
    unsigned k = term ? LLVMGetNumSuccessors(term) : 0;
    for (unsigned i = 0; i < k; i++) {
      LLVMBasicBlockRef s = LLVMGetSuccessor(term, i);
      int seen = 0;
      for (size_t j = 0; j < nf && !seen; j++)
        seen = fwd[j] == s;
      if (seen)
        continue;
      if (nf == LOOP_MAX)
        return 0;
      fwd[nf++] = s;
    }
  }
  int found = 0;
  for (size_t j = 0; j < nf && !found; j++)
    found = fwd[j] == latch;
  if (!found)
    return 0;
  /* Backward: keep the blocks from which latch is reachable inside fwd. */
  c->nloop = 0;
  c->loop[c->nloop++] = latch;
  for (int grew = 1; grew;) {
    grew = 0;
    for (size_t j = 0; j < nf; j++) {
      if (in_loop(c, fwd[j]) || fwd[j] == bb)
        continue;
      if (has_succ_in(fwd[j], c->loop, c->nloop)) {
        c->loop[c->nloop++] = fwd[j];
        grew = 1;
      }
    }
  }
  if (latch != bb)
    c->loop[c->nloop++] = bb;
  return 1;
}

static rec_node *rec_eval(rec_ctx *c, LLVMValueRef v, int depth) {
  for (size_t i = 0; i < c->nn; i++)
    if (c->n[i].v == v)
      return c->n[i].done ? &c->n[i] : NULL; /* NULL: on the current path (no cycle here) */
  if (c->nn == REC_MAX || depth > 256)
    return NULL;
  rec_node *me = &c->n[c->nn++];
  *me = (rec_node){.v = v, .weight = -1};
  if (v == c->phi) {
    me->weight = 0;
    me->done = 1;
    return me;
  }
  if (!LLVMIsAInstruction(v) || !in_loop(c, LLVMGetInstructionParent(v)) || LLVMIsAPHINode(v)) {
    me->done = 1;
    return me;
  }
  size_t idx = (size_t)(me - c->n);
  long best = -1;
  unsigned bfp = 0, bmul = 0, bdiv = 0, bialu = 0, bmv = 0;
  int via = -1;
  int nops = LLVMGetNumOperands(v);
  for (int i = 0; i < nops; i++) {
    rec_node *u = rec_eval(c, LLVMGetOperand(v, i), depth + 1);
    if (u && u->weight > best) {
      best = u->weight;
      bfp = u->fp;
      bmul = u->mul;
      bdiv = u->div;
      bialu = u->ialu;
      bmv = u->mv;
      via = i;
    }
  }
  me = &c->n[idx];
  if (best >= 0) {
    unsigned fp, mul, div, ia = c->mem && is_int_op(v), mv = !c->mem && pcc_lane_move(v);
    rec_kind(v, via, c->has_fma, &fp, &mul, &div);
    me->weight = best + 4 * (long)fp + 14 * (long)div + (long)ia + (long)mv;
    me->fp = bfp + fp;
    me->mul = bmul + mul;
    me->div = bdiv + div;
    me->ialu = bialu + ia;
    me->mv = bmv + mv;
  }
  me->done = 1;
  return me;
}

/* clang records the target's features per function ("+fma" with -mfma, -march=haswell,
 * ...); the default x86-64 target has none, so fmuladd is split there. */
static int target_has_fma(LLVMValueRef fn) {
  return pcc_memop_has_feature(fn, "+fma");
}

unsigned pcc_opmix_recurrence(LLVMBasicBlockRef bb,
                              uint16_t ops[PPT_BBDESC_NOPS]) {
  rec_ctx *c = malloc(sizeof *c);
  unsigned muls = 0;
  if (!c)
    return 0;
  long best = 0;
  int fresh = 0;
  c->has_fma = target_has_fma(LLVMGetBasicBlockParent(bb));
  c->mem = 0;
  for (LLVMValueRef phi = LLVMGetFirstInstruction(bb); phi && LLVMIsAPHINode(phi);
       phi = LLVMGetNextInstruction(phi)) {
    unsigned k = LLVMCountIncoming(phi);
    for (unsigned i = 0; i < k; i++) {
      /* A back edge from bb itself, or from a block of a loop through bb (an edge from
       * outside it finds no path back to the PHI: loop_blocks fails or the value does
       * not depend on it). */
      LLVMBasicBlockRef from = LLVMGetIncomingBlock(phi, i);
      c->bb = bb;
      if (from == bb) {
        c->loop[0] = bb;
        c->nloop = 1;
      } else if (!loop_blocks(c, bb, from)) {
        continue;
      }
      c->phi = phi;
      c->nn = 0;
      rec_node *r = rec_eval(c, LLVMGetIncomingValue(phi, i), 0);
      if (r && r->weight > best) {
        best = r->weight;
        /* Only for a block that loops to itself: the program model tells an entry
         * from the next trip by the block's consecutive executions, and a trip spread
         * over two blocks (rowcol's unrolled column walk) has none. */
        fresh = from == bb && pcc_fresh_at_entry(phi, c->loop, c->nloop);
        ops[PPT_OP_CHAIN_FP] = (uint16_t)(r->fp > 0xFFFFu ? 0xFFFFu : r->fp);
        ops[PPT_OP_CHAIN_DIV] = ppt_chain_div_pack(r->div, r->mv, fresh);
        muls = r->mul;
      }
    }
  }
  free(c);
  return muls;
}

static int loops_to_itself(LLVMBasicBlockRef bb) {
  LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
  unsigned n = term ? LLVMGetNumSuccessors(term) : 0;
  for (unsigned i = 0; i < n; i++)
    if (LLVMGetSuccessor(term, i) == bb)
      return 1;
  return 0;
}

uint32_t pcc_opmix_mem_recurrence(LLVMBasicBlockRef bb) {
  if (!loops_to_itself(bb))
    return 0;
  rec_ctx *c = malloc(sizeof *c);
  if (!c)
    return 0;
  c->has_fma = target_has_fma(LLVMGetBasicBlockParent(bb));
  c->mem = 1;
  c->bb = bb;
  c->loop[0] = bb;
  c->nloop = 1;
  long best = -1;
  uint32_t chain = 0;
  for (LLVMValueRef st = LLVMGetFirstInstruction(bb); st; st = LLVMGetNextInstruction(st)) {
    if (!LLVMIsAStoreInst(st))
      continue;
    /* A load before it of what it stored the trip before (recaddr.h): one
     * loop-invariant address, or p[j - 1] against p[j]. */
    LLVMValueRef p = LLVMGetOperand(st, 1);
    for (LLVMValueRef ld = LLVMGetFirstInstruction(bb); ld && ld != st; ld = LLVMGetNextInstruction(ld)) {
      if (!LLVMIsALoadInst(ld) || !pcc_recaddr_carried(LLVMGetOperand(ld, 0), p, bb))
        continue;
      c->phi = ld;
      c->nn = 0;
      rec_node *r = rec_eval(c, LLVMGetOperand(st, 0), 0);
      if (r && r->weight > best) {
        best = r->weight;
        chain = ppt_memchain_pack(1, r->ialu, r->fp - r->mul, r->mul, r->div);
      }
    }
  }
  free(c);
  return chain;
}

/* ---- the longest dependence path inside a block ---- */

enum { PATH_MAX_INST = 4096 };
typedef struct path_node {
  LLVMValueRef v;
  long weight;
  unsigned fp, mul, div;
} path_node;

void pcc_opmix_path(LLVMBasicBlockRef bb, unsigned *adds, unsigned *muls,
                    unsigned *divs) {
  *adds = *muls = *divs = 0;
  path_node *n = malloc(PATH_MAX_INST * sizeof *n);
  if (!n)
    return;
  size_t nn = 0;
  long best = 0;
  int has_fma = target_has_fma(LLVMGetBasicBlockParent(bb));
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && nn < PATH_MAX_INST;
       i = LLVMGetNextInstruction(i)) {
    if (LLVMIsAPHINode(i))
      continue;
    /* The heaviest operand computed earlier in the block (SSA: every operand of i
     * defined in the block comes before it); values from PHIs and other blocks are
     * ready when the block starts. */
    path_node me = {.v = i};
    int via = -1, nops = LLVMGetNumOperands(i);
    const path_node *from = NULL;
    for (int k = 0; k < nops; k++) {
      LLVMValueRef op = LLVMGetOperand(i, k);
      if (!LLVMIsAInstruction(op) || LLVMGetInstructionParent(op) != bb)
        continue;
      for (size_t j = nn; j-- > 0;)
        if (n[j].v == op) {
          if (!from || n[j].weight > from->weight) {
            from = &n[j];
            via = k;
          }
          break;
        }
    }
    unsigned fp, mul, div;
    rec_kind(i, via, has_fma, &fp, &mul, &div);
    if (from) {
      me.weight = from->weight;
      me.fp = from->fp;
      me.mul = from->mul;
      me.div = from->div;
    }
    me.weight += 4 * (long)fp + 14 * (long)div;
    me.fp += fp;
    me.mul += mul;
    me.div += div;
    if (me.weight > best) {
      best = me.weight;
      *adds = me.fp - me.mul;
      *muls = me.mul;
      *divs = me.div;
    }
    n[nn++] = me;
  }
  free(n);
}

/* ---- square roots ---- */

static int is_sqrt_call(LLVMValueRef inst) {
  if (LLVMGetInstructionOpcode(inst) != LLVMCall)
    return 0;
  size_t n;
  const char *name = callee_name(inst, &n);
  if (!name)
    return 0;
  return starts(name, n, "llvm.sqrt.") || libm_sqrt(name, n);
}

unsigned pcc_opmix_sqrts(LLVMBasicBlockRef bb) {
  unsigned n = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
    n += (unsigned)is_sqrt_call(i);
  return n;
}

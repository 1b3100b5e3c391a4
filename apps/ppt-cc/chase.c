/* chase.c — loop-carried chains of dependent loads (see chase.h).
 *
 * Per function: the blocks, their predecessors, the dominator tree (Cooper, Harvey and
 * Kennedy's iterative algorithm on reverse postorder), natural loops from back edges.
 * Per loop, a graph over its header PHIs: P -> P' when P's value on the back edge
 * depends on P' directly, and P -> P' through a load L when it depends on L and L's
 * address depends on P'. A PHI on a cycle that passes through a load is memory-chained;
 * the strongly connected classes of such PHIs are the loop's independent chains. */
#include "chase.h"

#include <stdlib.h>
#include <string.h>

#include "memop.h"
#include "ppt/trace.h"

/* Bounds that keep the search linear in the function's size: a larger function's
 * loops, or a header with more PHIs, or a walk past WALK_MAX values, are not looked at
 * further (no chain is the cautious answer: the misses then overlap as before). */
enum { BLOCKS_MAX = 8192, PHIS_MAX = 64, LOADS_MAX = 512, WALK_MAX = 4096, SET_BITS = 13 };

typedef struct blk {
  LLVMBasicBlockRef bb;
  uint32_t idx;
} blk;

/* Open-addressing map of values (a set where val is unused); a generation stamp
 * empties it. */
typedef struct vset {
  LLVMValueRef key[1u << SET_BITS];
  uint32_t gen[1u << SET_BITS], val[1u << SET_BITS];
  uint32_t now, n;
} vset;

struct pcc_chase {
  uint32_t nb;
  blk *sorted;     /* blocks by address, for the index of a block */
  LLVMBasicBlockRef *bb;
  uint32_t *pred_at, *pred; /* CSR: predecessors of block i are pred[pred_at[i]..pred_at[i+1]) */
  uint32_t *idom, *rpo_no;  /* rpo_no: position in reverse postorder; UINT32_MAX: unreachable */
  uint32_t *inner;          /* innermost loop (its header's index) of each block; UINT32_MAX: none */
  uint32_t *body_size;      /* per header: the blocks of its loop (0: not a header) */
  uint64_t *body;           /* per header: bitset of its loop's blocks (nwords each) */
  uint32_t nwords;
  uint32_t *result;         /* per block: ppt_chase_pack of its loads */
  vset *seen, *loads; /* a walk's values; the loads of the loop being analysed */
  LLVMValueRef *stack;
};

static int cmp_blk(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)((const blk *)a)->bb, y = (uintptr_t)((const blk *)b)->bb;
  return x < y ? -1 : x > y;
}

static uint32_t index_of(const pcc_chase *c, LLVMBasicBlockRef bb) {
  blk key = {bb, 0};
  const blk *f = bsearch(&key, c->sorted, c->nb, sizeof key, cmp_blk);
  return f ? f->idx : UINT32_MAX;
}

static int in_body(const pcc_chase *c, uint32_t h, uint32_t b) {
  return b < c->nb && (c->body[(size_t)h * c->nwords + b / 64] >> (b % 64) & 1);
}

/* v's slot: where it is, or the free one it would take. */
static uint32_t slot(const vset *s, LLVMValueRef v) {
  uint32_t m = (1u << SET_BITS) - 1, i = (uint32_t)(((uintptr_t)v >> 4) * 2654435761u) & m;
  while (s->gen[i] == s->now && s->key[i] != v) i = (i + 1) & m;
  return i;
}

/* 1 when v was not in s and is now, with value val; 0 when it was there. */
static int seen_add(vset *s, LLVMValueRef v, uint32_t val) {
  uint32_t i = slot(s, v);
  if (s->gen[i] == s->now) return 0;
  s->gen[i] = s->now;
  s->key[i] = v;
  s->val[i] = val;
  s->n++;
  return 1;
}

static uint32_t seen_get(const vset *s, LLVMValueRef v) {
  uint32_t i = slot(s, v);
  return s->gen[i] == s->now ? s->val[i] : UINT32_MAX;
}

static void seen_clear(vset *s) {
  if (++s->now == 0) {
    memset(s->gen, 0, sizeof s->gen);
    s->now = 1;
  }
  s->n = 0;
}

static uint32_t successors(LLVMBasicBlockRef bb, LLVMValueRef *term) {
  *term = LLVMGetBasicBlockTerminator(bb);
  return *term ? LLVMGetNumSuccessors(*term) : 0;
}

static int build_preds(pcc_chase *c) {
  uint32_t *cnt = calloc((size_t)c->nb + 1, sizeof *cnt);
  if (!cnt) return -1;
  size_t ne = 0;
  for (uint32_t i = 0; i < c->nb; i++) {
    LLVMValueRef t;
    uint32_t k = successors(c->bb[i], &t);
    for (uint32_t j = 0; j < k; j++) {
      uint32_t s = index_of(c, LLVMGetSuccessor(t, j));
      if (s != UINT32_MAX) cnt[s + 1]++, ne++;
    }
  }
  c->pred_at = cnt;
  for (uint32_t i = 0; i < c->nb; i++) cnt[i + 1] += cnt[i];
  uint32_t *fill = malloc(((size_t)c->nb + 1) * sizeof *fill);
  c->pred = malloc((ne ? ne : 1) * sizeof *c->pred);
  if (!fill || !c->pred) {
    free(fill);
    return -1;
  }
  memcpy(fill, cnt, ((size_t)c->nb + 1) * sizeof *fill);
  for (uint32_t i = 0; i < c->nb; i++) {
    LLVMValueRef t;
    uint32_t k = successors(c->bb[i], &t);
    for (uint32_t j = 0; j < k; j++) {
      uint32_t s = index_of(c, LLVMGetSuccessor(t, j));
      if (s != UINT32_MAX) c->pred[fill[s]++] = i;
    }
  }
  free(fill);
  return 0;
}

/* Reverse postorder from the entry (block 0), by an explicit DFS; order[] gets it. */
static uint32_t reverse_postorder(pcc_chase *c, uint32_t *order) {
  uint32_t *st = malloc((size_t)c->nb * sizeof *st), *next = calloc(c->nb, sizeof *next), sp = 0, n = c->nb;
  uint8_t *vis = calloc(c->nb, 1);
  if (!st || !next || !vis) {
    free(st), free(next), free(vis);
    return UINT32_MAX;
  }
  st[sp++] = 0;
  vis[0] = 1;
  while (sp) {
    uint32_t b = st[sp - 1];
    LLVMValueRef t;
    uint32_t k = successors(c->bb[b], &t);
    if (next[b] < k) {
      uint32_t s = index_of(c, LLVMGetSuccessor(t, next[b]++));
      if (s != UINT32_MAX && !vis[s]) vis[s] = 1, st[sp++] = s;
      continue;
    }
    order[--n] = b;
    sp--;
  }
  free(st), free(next), free(vis);
  return n; /* order[n..nb) is the reverse postorder of the reachable blocks */
}

static uint32_t intersect(const pcc_chase *c, uint32_t a, uint32_t b) {
  while (a != b) {
    while (c->rpo_no[a] > c->rpo_no[b]) a = c->idom[a];
    while (c->rpo_no[b] > c->rpo_no[a]) b = c->idom[b];
  }
  return a;
}

static int dominators(pcc_chase *c) {
  uint32_t *order = malloc((size_t)c->nb * sizeof *order);
  c->idom = malloc((size_t)c->nb * sizeof *c->idom);
  c->rpo_no = malloc((size_t)c->nb * sizeof *c->rpo_no);
  if (!order || !c->idom || !c->rpo_no) return free(order), -1;
  uint32_t first = reverse_postorder(c, order);
  if (first == UINT32_MAX) return free(order), -1;
  for (uint32_t i = 0; i < c->nb; i++) c->idom[i] = c->rpo_no[i] = UINT32_MAX;
  for (uint32_t i = first; i < c->nb; i++) c->rpo_no[order[i]] = i - first;
  c->idom[0] = 0;
  for (int changed = 1; changed;) {
    changed = 0;
    for (uint32_t i = first + 1; i < c->nb; i++) {
      uint32_t b = order[i], nd = UINT32_MAX;
      for (uint32_t p = c->pred_at[b]; p < c->pred_at[b + 1]; p++) {
        uint32_t q = c->pred[p];
        if (c->idom[q] == UINT32_MAX) continue;
        nd = nd == UINT32_MAX ? q : intersect(c, q, nd);
      }
      if (nd != c->idom[b]) c->idom[b] = nd, changed = 1;
    }
  }
  free(order);
  return 0;
}

static int dominates(const pcc_chase *c, uint32_t h, uint32_t b) {
  if (c->idom[b] == UINT32_MAX) return 0;
  for (;;) {
    if (b == h) return 1;
    if (b == 0) return 0;
    b = c->idom[b];
  }
}

/* The natural loops: for each back edge l -> h (h dominates l), the blocks that reach
 * l without passing h, and h; loops of one header are one. Then each block's innermost
 * loop, the smallest that holds it. */
static int natural_loops(pcc_chase *c) {
  c->nwords = (c->nb + 63) / 64;
  c->body = calloc((size_t)c->nb * c->nwords, sizeof *c->body);
  c->body_size = calloc(c->nb, sizeof *c->body_size);
  c->inner = malloc((size_t)c->nb * sizeof *c->inner);
  uint32_t *work = malloc((size_t)c->nb * sizeof *work);
  if (!c->body || !c->body_size || !c->inner || !work) return free(work), -1;
  for (uint32_t h = 0; h < c->nb; h++) {
    uint64_t *set = &c->body[(size_t)h * c->nwords];
    uint32_t nw = 0;
    for (uint32_t p = c->pred_at[h]; p < c->pred_at[h + 1]; p++) {
      uint32_t l = c->pred[p];
      if (!dominates(c, h, l)) continue;
      if (!(set[h / 64] >> (h % 64) & 1)) set[h / 64] |= 1ull << (h % 64), c->body_size[h]++;
      if (!(set[l / 64] >> (l % 64) & 1)) set[l / 64] |= 1ull << (l % 64), c->body_size[h]++, work[nw++] = l;
    }
    while (nw) {
      uint32_t b = work[--nw];
      for (uint32_t p = c->pred_at[b]; p < c->pred_at[b + 1]; p++) {
        uint32_t q = c->pred[p];
        if (set[q / 64] >> (q % 64) & 1) continue;
        set[q / 64] |= 1ull << (q % 64);
        c->body_size[h]++;
        work[nw++] = q;
      }
    }
  }
  uint32_t nh = 0;
  for (uint32_t h = 0; h < c->nb; h++)
    if (c->body_size[h]) work[nh++] = h;
  for (uint32_t b = 0; b < c->nb; b++) {
    c->inner[b] = UINT32_MAX;
    for (uint32_t j = 0; j < nh; j++) {
      uint32_t h = work[j];
      if (in_body(c, h, b) && (c->inner[b] == UINT32_MAX || c->body_size[h] < c->body_size[c->inner[b]]))
        c->inner[b] = h;
    }
  }
  free(work);
  return 0;
}

/* ---- one loop ---- */

typedef struct loopctx {
  pcc_chase *c;
  uint32_t h;
  LLVMValueRef phi[PHIS_MAX];
  uint32_t nphi;
  LLVMValueRef load[LOADS_MAX]; /* the loads of the loop's blocks, inner loops' too */
  uint32_t nload;
} loopctx;

/* The address a load reads, or NULL when inst reads nothing ppt traces. */
static LLVMValueRef load_address(LLVMValueRef inst) {
  pcc_memop m;
  pcc_memop_kind k = pcc_memop_of(inst, &m);
  if (k == PCC_MEM_RMW || ((k == PCC_MEM_PLAIN || k == PCC_MEM_MASKED || k == PCC_MEM_GATHER) && !m.store))
    return m.ptr;
  if (k == PCC_MEM_COPY) return m.src;
  return NULL;
}

static uint32_t block_of(const loopctx *x, LLVMValueRef v) {
  return LLVMIsAInstruction(v) ? index_of(x->c, LLVMGetInstructionParent(v)) : UINT32_MAX;
}

static uint32_t load_no(const loopctx *x, LLVMValueRef v) {
  return seen_get(x->c->loads, v);
}

static uint32_t phi_no(const loopctx *x, LLVMValueRef v) {
  for (uint32_t i = 0; i < x->nphi; i++)
    if (x->phi[i] == v) return i;
  return UINT32_MAX;
}

/* Pushes the condition of b's terminator when it branches on one, b being a block of
 * the loop itself: an inner loop's exit branch (a scan's data-dependent end) chooses no
 * address the core waits for, as its header's induction does not. */
static void push_condition(loopctx *x, LLVMBasicBlockRef b, uint32_t *sp) {
  LLVMValueRef t = LLVMGetBasicBlockTerminator(b);
  uint32_t i = index_of(x->c, b);
  if (!t || *sp >= WALK_MAX || i == UINT32_MAX || x->c->inner[i] != x->h) return;
  if (LLVMIsABranchInst(t) && LLVMIsConditional(t)) x->c->stack[(*sp)++] = LLVMGetCondition(t);
  else if (LLVMIsASwitchInst(t)) x->c->stack[(*sp)++] = LLVMGetOperand(t, 0);
}

/* a and b compute the same: one value, or one operation on the same operands (v + 1 in
 * each of the blocks a loop's paths join from). */
static int same_value(LLVMValueRef a, LLVMValueRef b) {
  if (a == b) return 1;
  if (!LLVMIsAInstruction(a) || !LLVMIsAInstruction(b) || LLVMIsAPHINode(a) || LLVMIsALoadInst(a) ||
      LLVMIsACallInst(a) || LLVMGetInstructionOpcode(a) != LLVMGetInstructionOpcode(b))
    return 0;
  int n = LLVMGetNumOperands(a);
  if (n != LLVMGetNumOperands(b)) return 0;
  for (int i = 0; i < n; i++)
    if (LLVMGetOperand(a, i) != LLVMGetOperand(b, i)) return 0;
  return 1;
}

/* 1 when every index of the GEP gep is a constant. */
static int constant_indices(LLVMValueRef gep) {
  int n = LLVMGetNumOperands(gep);
  for (int i = 1; i < n; i++)
    if (!LLVMIsAConstantInt(LLVMGetOperand(gep, i))) return 0;
  return 1;
}

/* A value a loop keeps or takes afresh from one place: a PHI of its header (what the
 * last trip left), or a load from an address the loop does not compute (a pointer the
 * compiler reloads after a store that might have changed it): which one a branch picks
 * moves no address the core waits for. */
static int kept(const loopctx *x, LLVMValueRef v, int depth) {
  while (LLVMIsACastInst(v)) v = LLVMGetOperand(v, 0);
  uint32_t b = block_of(x, v);
  if (b == x->h && LLVMIsAPHINode(v)) return 1;
  if (b == UINT32_MAX || !in_body(x->c, x->h, b) || depth > 4) return 0;
  if (LLVMIsAPHINode(v)) { /* a join of such values (the reload on one path only) */
    unsigned n = LLVMCountIncoming(v);
    for (unsigned i = 0; i < n; i++)
      if (!kept(x, LLVMGetIncomingValue(v, i), depth + 1)) return 0;
    return 1;
  }
  if (!LLVMIsALoadInst(v)) return 0;
  /* The address: a base the loop does not compute, or itself a kept value, at constant
   * offsets (s->boxes->nAtoms, reloaded after the stores of each trip). */
  LLVMValueRef a = LLVMGetOperand(v, 0);
  while (LLVMIsACastInst(a) || (LLVMIsAGetElementPtrInst(a) && constant_indices(a))) a = LLVMGetOperand(a, 0);
  uint32_t ab = block_of(x, a);
  return ab == UINT32_MAX || !in_body(x->c, x->h, ab) || kept(x, a, depth + 1);
}

/* Whether the branches that choose a PHI's incoming value decide what it is: not when
 * every incoming value computes the same, nor when each is kept (kept()). */
static int chosen(const loopctx *x, LLVMValueRef phi) {
  unsigned n = LLVMCountIncoming(phi);
  int same = 1, all_kept = 1;
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef v = LLVMGetIncomingValue(phi, i);
    same &= same_value(LLVMGetIncomingValue(phi, 0), v);
    all_kept &= kept(x, v, 0);
  }
  return !same && !all_kept;
}

/* What v depends on inside the loop, stopping at the header's PHIs: the PHIs reached
 * (*phis, a bit each) and the loads (loads[], a bit each). A PHI of another block of the
 * loop (not an inner loop's header) also depends on the branches that choose its
 * incoming value, where they choose what it is: those of its incoming blocks, and of
 * their single predecessor in the loop.
 * 0, or -1 when the walk passes its bound (then nothing is known). */
static int walk(loopctx *x, LLVMValueRef v, uint64_t *phis, uint64_t *loads) {
  pcc_chase *c = x->c;
  uint32_t sp = 0;
  seen_clear(c->seen);
  *phis = 0;
  memset(loads, 0, LOADS_MAX / 8);
  c->stack[sp++] = v;
  while (sp) {
    LLVMValueRef u = c->stack[--sp];
    uint32_t b = block_of(x, u);
    if (b == UINT32_MAX || !in_body(c, x->h, b) || !seen_add(c->seen, u, 0)) continue;
    if (c->seen->n >= WALK_MAX) return -1;
    uint32_t k;
    if (b == x->h && LLVMIsAPHINode(u)) {
      if ((k = phi_no(x, u)) != UINT32_MAX) *phis |= 1ull << k;
      continue;
    }
    if ((k = load_no(x, u)) != UINT32_MAX) loads[k / 64] |= 1ull << (k % 64);
    if (LLVMIsAPHINode(u)) {
      unsigned n = LLVMCountIncoming(u);
      /* An inner loop's header PHI (its induction) is not chosen by its exit branch: a
       * data-dependent exit (a scan while key[i] < pivot) costs a mispredict, but the
       * core has run ahead on i + 1, i + 2 meanwhile, so no load waits for that load. */
      int control = c->body_size[b] == 0 && chosen(x, u);
      for (unsigned i = 0; i < n && sp + 2 < WALK_MAX; i++) {
        LLVMBasicBlockRef from = LLVMGetIncomingBlock(u, i);
        c->stack[sp++] = LLVMGetIncomingValue(u, i);
        if (!control) continue;
        push_condition(x, from, &sp);
        uint32_t f = index_of(c, from);
        if (f != UINT32_MAX && c->pred_at[f + 1] - c->pred_at[f] == 1 && in_body(c, x->h, c->pred[c->pred_at[f]]))
          push_condition(x, c->bb[c->pred[c->pred_at[f]]], &sp);
      }
      continue;
    }
    int n = LLVMGetNumOperands(u);
    for (int i = 0; i < n && sp < WALK_MAX; i++) c->stack[sp++] = LLVMGetOperand(u, i);
  }
  return 0;
}

/* Transitive closure of a PHI graph of at most PHIS_MAX nodes, reflexive. */
static void closure(uint64_t *t, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) t[i] |= 1ull << i;
  for (uint32_t k = 0; k < n; k++)
    for (uint32_t i = 0; i < n; i++)
      if (t[i] >> k & 1) t[i] |= t[k];
}

static void analyse_loop(pcc_chase *c, uint32_t h) {
  loopctx *x = calloc(1, sizeof *x);
  uint64_t(*lmask)[LOADS_MAX / 64] = calloc(PHIS_MAX, sizeof *lmask);
  uint64_t *addr = calloc(LOADS_MAX, sizeof *addr); /* per load: the PHIs its address depends on */
  if (!x || !lmask || !addr) goto out;
  x->c = c;
  x->h = h;
  seen_clear(c->loads);
  for (LLVMValueRef i = LLVMGetFirstInstruction(c->bb[h]); i && LLVMIsAPHINode(i); i = LLVMGetNextInstruction(i)) {
    if (x->nphi == PHIS_MAX) goto out;
    x->phi[x->nphi++] = i;
  }
  for (uint32_t b = 0; b < c->nb; b++)
    for (LLVMValueRef i = in_body(c, h, b) ? LLVMGetFirstInstruction(c->bb[b]) : NULL; i; i = LLVMGetNextInstruction(i))
      if (load_address(i) && x->nload < LOADS_MAX) {
        seen_add(c->loads, i, x->nload);
        x->load[x->nload++] = i;
      }
  if (!x->nphi || !x->nload) goto out;
  uint64_t scratch[LOADS_MAX / 64], direct[PHIS_MAX] = {0}, via[PHIS_MAX] = {0}, t[PHIS_MAX];
  for (uint32_t l = 0; l < x->nload; l++)
    if (walk(x, load_address(x->load[l]), &addr[l], scratch)) goto out;
  for (uint32_t p = 0; p < x->nphi; p++) {
    unsigned n = LLVMCountIncoming(x->phi[p]);
    for (unsigned i = 0; i < n; i++) {
      uint32_t from = index_of(c, LLVMGetIncomingBlock(x->phi[p], i));
      if (from == UINT32_MAX || !in_body(c, h, from)) continue; /* the entry's value */
      uint64_t ph;
      if (walk(x, LLVMGetIncomingValue(x->phi[p], i), &ph, scratch)) goto out;
      direct[p] |= ph;
      for (uint32_t w = 0; w < LOADS_MAX / 64; w++) lmask[p][w] |= scratch[w];
    }
    for (uint32_t l = 0; l < x->nload; l++)
      if (lmask[p][l / 64] >> (l % 64) & 1) via[p] |= addr[l];
  }
  for (uint32_t p = 0; p < x->nphi; p++) t[p] = direct[p] | via[p];
  closure(t, x->nphi);
  /* Chained: some edge u -> v through a load with p reaching u and v reaching p. */
  uint64_t chained = 0;
  for (uint32_t p = 0; p < x->nphi; p++)
    for (uint32_t u = 0; u < x->nphi && !(chained >> p & 1); u++)
      if (t[p] >> u & 1)
        for (uint32_t v = 0; v < x->nphi; v++)
          if ((via[u] >> v & 1) && (t[v] >> p & 1)) {
            chained |= 1ull << p;
            break;
          }
  if (!chained) goto out;
  unsigned chains = 0;
  uint64_t counted = 0;
  for (uint32_t p = 0; p < x->nphi; p++) {
    if (!(chained >> p & 1) || (counted >> p & 1)) continue;
    chains++;
    for (uint32_t q = 0; q < x->nphi; q++)
      if ((t[p] >> q & 1) && (t[q] >> p & 1)) counted |= 1ull << q;
  }
  /* Each block whose innermost loop this is: its chased loads among its loads. */
  for (uint32_t b = 0; b < c->nb; b++) {
    if (c->inner[b] != h) continue;
    unsigned loads = 0, chased = 0;
    for (LLVMValueRef i = LLVMGetFirstInstruction(c->bb[b]); i; i = LLVMGetNextInstruction(i)) {
      if (!load_address(i)) continue;
      loads++;
      uint32_t l = load_no(x, i);
      chased += l != UINT32_MAX && (addr[l] & chained) != 0;
    }
    if (chased) c->result[b] = ppt_chase_pack(chased, loads, chains);
  }
out:
  free(x);
  free(lmask);
  free(addr);
}

static int analyse(pcc_chase *c, LLVMValueRef fn) {
  c->nb = LLVMCountBasicBlocks(fn);
  if (c->nb == 0 || c->nb > BLOCKS_MAX) return 0;
  c->bb = malloc((size_t)c->nb * sizeof *c->bb);
  c->sorted = malloc((size_t)c->nb * sizeof *c->sorted);
  c->result = calloc(c->nb, sizeof *c->result);
  c->seen = calloc(1, sizeof *c->seen);
  c->loads = calloc(1, sizeof *c->loads);
  c->stack = malloc(WALK_MAX * sizeof *c->stack);
  if (!c->bb || !c->sorted || !c->result || !c->seen || !c->loads || !c->stack) return -1;
  uint32_t i = 0;
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b), i++) {
    c->bb[i] = b;
    c->sorted[i] = (blk){b, i};
  }
  qsort(c->sorted, c->nb, sizeof *c->sorted, cmp_blk);
  if (build_preds(c) || dominators(c) || natural_loops(c)) return -1;
  for (uint32_t h = 0; h < c->nb; h++)
    if (c->body_size[h]) analyse_loop(c, h);
  return 0;
}

pcc_chase *pcc_chase_new(LLVMValueRef fn) {
  pcc_chase *c = calloc(1, sizeof *c);
  if (c && analyse(c, fn)) {
    pcc_chase_free(c);
    return NULL;
  }
  return c;
}

uint32_t pcc_chase_block(const pcc_chase *c, LLVMBasicBlockRef bb) {
  if (!c || !c->result) return 0;
  uint32_t i = index_of(c, bb);
  return i == UINT32_MAX ? 0 : c->result[i];
}

void pcc_chase_free(pcc_chase *c) {
  if (!c) return;
  free(c->sorted);
  free(c->bb);
  free(c->pred_at);
  free(c->pred);
  free(c->idom);
  free(c->rpo_no);
  free(c->inner);
  free(c->body_size);
  free(c->body);
  free(c->result);
  free(c->seen);
  free(c->loads);
  free(c->stack);
  free(c);
}

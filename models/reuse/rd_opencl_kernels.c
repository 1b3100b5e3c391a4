/* rd_opencl_kernels.c — the OpenCL C source of the device analysis (rd_opencl_feed.c
 * drives it), embedded so that the binary needs no file at run time.
 *
 * Notation (HP-RDA §III, made exact): a batch holds n references; pv[i] is the time of
 * the previous access to reference i's line (times are global reference indices + 1;
 * 0 = never seen, so a first touch). The distance of i is the number of distinct lines
 * referenced since pv[i]: counting each such line at its first reference in that
 * window, D(i) = #{j in window : pv[j] < pv[i]}. The window reaches back before the
 * batch when pv[i] lies there; the lines the batch has not touched yet are then the
 * carried lines (one latest time each, sorted: ct) with a time after pv[i].
 *
 *  - rd_leaf: one work-item per chunk of LEAF references (§III-C, the thread-level
 *    analysis): distances of the references whose previous access is in the same
 *    chunk, found by scanning the chunk as the paper's local array does; the others
 *    are left PENDING. It also writes the chunk's pv values sorted: the leaves of the
 *    merge tree.
 *  - rd_merge: one level of the merge (§III-D / §IV-A's thread and thread-block
 *    levels, as many levels as the batch needs): adjacent sorted nodes of width w
 *    become one of width 2w, each work-item merging a run of RUN outputs from where
 *    its run starts on the merge path (a binary search).
 *  - rd_cross: the references left PENDING (§III-D's Formula 1 without its overlap
 *    error): the carried lines after pv[i] by binary search in ct, plus the window's
 *    first references inside the batch counted by binary search in the O(log n) tree
 *    nodes that tile the window (partial leaves scanned). Exact, so §III-E's
 *    probabilistic adjustment has nothing to correct. */
#include "rd_opencl.h"

const char rd_cl_source[] =
    "#define PENDING 0xFFFFFFFEu\n"
    "#define INF 0xFFFFFFFFu\n"
    "\n"
    "__kernel void rd_leaf(__global const ulong *pv, __global uint *dist, __global ulong *lv0,\n"
    "                      ulong base, uint n) {\n"
    "  size_t s = get_global_id(0) * LEAF;\n"
    "  ulong v[LEAF];\n"
    "  for (uint k = 0; k < LEAF; k++) v[k] = pv[s + k];\n"
    "  ulong t0 = base + s + 1; /* time of the chunk's first reference */\n"
    "  for (uint k = 0; k < LEAF && s + k < n; k++) {\n"
    "    ulong p = v[k];\n"
    "    if (p == 0) { dist[s + k] = INF; continue; }\n"
    "    if (p < t0) { dist[s + k] = PENDING; continue; }\n"
    "    uint d = 0;\n"
    "    for (uint j = (uint)(p - t0) + 1; j < k; j++) d += v[j] < p;\n"
    "    dist[s + k] = d;\n"
    "  }\n"
    "  for (uint k = 1; k < LEAF; k++) { /* insertion sort of a few dozen values */\n"
    "    ulong x = v[k];\n"
    "    int j = (int)k - 1;\n"
    "    while (j >= 0 && v[j] > x) { v[j + 1] = v[j]; j--; }\n"
    "    v[j + 1] = x;\n"
    "  }\n"
    "  for (uint k = 0; k < LEAF; k++) lv0[s + k] = v[k];\n"
    "}\n"
    "\n"
    "/* Each work-item writes RUN consecutive outputs of a merged node: it finds where\n"
    "   its run starts on the merge path by binary search, then merges sequentially. */\n"
    "__kernel void rd_merge(__global ulong *lv, ulong so, ulong doff, uint w) {\n"
    "  size_t o0 = get_global_id(0) * RUN, node = o0 / (2 * (size_t)w);\n"
    "  uint d = (uint)(o0 - node * 2 * w);\n"
    "  __global const ulong *A = lv + so + node * 2 * w, *B = A + w;\n"
    "  __global ulong *out = lv + doff + node * 2 * w + d;\n"
    "  /* i outputs from A and d - i from B; ties: A's elements go first, so every\n"
    "     position is taken once */\n"
    "  uint lo = d > w ? d - w : 0, hi = d < w ? d : w;\n"
    "  while (lo < hi) {\n"
    "    uint i = (lo + hi) / 2;\n"
    "    if (A[i] <= B[d - i - 1]) lo = i + 1; else hi = i;\n"
    "  }\n"
    "  uint ia = lo, ib = d - lo;\n"
    "  for (uint r = 0; r < RUN; r++) {\n"
    "    if (ib >= w || (ia < w && A[ia] <= B[ib])) out[r] = A[ia++];\n"
    "    else out[r] = B[ib++];\n"
    "  }\n"
    "}\n"
    "\n"
    "/* Elements of a sorted node below p. */\n"
    "static uint below(__global const ulong *a, uint w, ulong p) {\n"
    "  uint lo = 0, hi = w;\n"
    "  while (lo < hi) { uint m = (lo + hi) / 2; if (a[m] < p) lo = m + 1; else hi = m; }\n"
    "  return lo;\n"
    "}\n"
    "\n"
    "__kernel void rd_cross(__global const ulong *pv, __global uint *dist, __global const ulong *lv,\n"
    "                       __global const ulong *ct, ulong m, ulong base, uint n, uint kp) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i >= n || dist[i] != PENDING) return;\n"
    "  ulong p = pv[i], cnt = 0;\n"
    "  size_t lo;\n"
    "  if (p > base) {\n"
    "    lo = (size_t)(p - base); /* the index after the previous access */\n"
    "  } else {\n"
    "    lo = 0;\n"
    "    ulong a = 0, b = m; /* carried times <= p */\n"
    "    while (a < b) { ulong c = (a + b) / 2; if (ct[c] <= p) a = c + 1; else b = c; }\n"
    "    cnt = m - a;\n"
    "  }\n"
    "  size_t a = (lo + LEAF - 1) / LEAF * LEAF, b = i / LEAF * LEAF;\n"
    "  if (a > i) a = i;\n"
    "  if (b < a) b = a;\n"
    "  for (size_t j = lo; j < a; j++) cnt += pv[j] < p;\n"
    "  for (size_t j = b; j < i; j++) cnt += pv[j] < p;\n"
    "  size_t na = a / LEAF, nb = b / LEAF;\n"
    "  uint w = LEAF;\n"
    "  for (__global const ulong *l = lv; na < nb; l += kp, na >>= 1, nb >>= 1, w <<= 1) {\n"
    "    if (na & 1) { cnt += below(l + na * w, w, p); na++; }\n"
    "    if (nb & 1) { nb--; cnt += below(l + nb * w, w, p); }\n"
    "  }\n"
    "  dist[i] = (uint)cnt;\n"
    "}\n";

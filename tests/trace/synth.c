/* synth.c — synthetic traces: strided streams, random jumps, stack refs, all sizes. */
#include "synth.h"

#include <stdio.h>
#include <stdlib.h>

#include "trace/bbtab.h"
#include "trace/writer.h"

static uint64_t mix(uint64_t x) {
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ull;
  x ^= x >> 27;
  x *= 0x81dadef4bc2dd44dull;
  return x ^ (x >> 33);
}

/* Records come in blocks of 8: one block entry, then 7 references whose addresses mix
 * strides (what loops do), repeats and random jumps, so every codec mode is exercised. */
ppt_trace_rec synth_rec(uint64_t seed, uint32_t th, uint64_t i, uint32_t nbbs) {
  uint64_t blk = i / 8, pos = i % 8;
  uint32_t bb = (uint32_t)(mix(seed ^ (blk * 31 + th)) % nbbs) + 1;
  if (pos == 0) return (ppt_trace_rec){.bb = bb, .kind = PPT_REC_BB};
  uint64_t r = mix(seed * 977 + th * 131 + i);
  if (pos == 1 && blk % 16 == 5) /* an event every 16 blocks; values from synth_event */
    return (ppt_trace_rec){.bb = bb, .kind = PPT_REC_EVENT, .size = (uint8_t)(r % PPT_EV_NTYPES)};
  uint64_t addr;
  switch (r % 4) {
    case 0: addr = 0x10000000ull + blk * 8 * pos; break; /* strides */
    case 1: addr = 0x20000000ull + (pos << 6); break;    /* repeats */
    case 2: addr = 0x7fff00000000ull - (r >> 40); break; /* stack-like */
    default: addr = r & 0xffffffffffffull; break;        /* random */
  }
  unsigned lg = (unsigned)((r >> 8) % 7); /* 1..64 bytes: AVX and AVX-512 accesses too */
  return (ppt_trace_rec){.addr = addr,
                         .bb = bb,
                         .kind = (uint8_t)((r >> 16) & 1 ? PPT_REC_STORE : PPT_REC_LOAD),
                         .size = (uint8_t)(1u << lg),
                         .flags = (uint8_t)((r % 4) == 2)};
}

ppt_trace_event synth_event(uint64_t seed, uint32_t th, uint64_t i) {
  uint64_t r = mix(seed * 977 + th * 131 + i);
  ppt_trace_event ev = {.type = (uint32_t)(r % PPT_EV_NTYPES), .nvals = (uint32_t)(r >> 8) % 6};
  for (uint32_t k = 0; k < ev.nvals; k++) ev.v[k] = (int64_t)mix(r + k) >> (k * 13);
  return ev;
}

int synth_write(const char *path, uint64_t seed, uint32_t nthreads, uint64_t nrecs, uint32_t nbbs) {
  ppt_trace_writer *w = ppt_trace_writer_open(path, 1);
  if (!w) return -1;
  for (uint32_t th = 0; th < nthreads; th++) {
    ppt_trace_enc *e = ppt_trace_enc_new(w);
    if (!e) return -1;
    for (uint64_t i = 0; i < nrecs; i++) {
      ppt_trace_rec r = synth_rec(seed, th, i, nbbs);
      if (r.kind == PPT_REC_BB) {
        ppt_trace_enc_bb(e, r.bb);
      } else if (r.kind == PPT_REC_EVENT) {
        ppt_trace_event ev = synth_event(seed, th, i);
        ppt_trace_enc_event(e, ev.type, ev.v, ev.nvals);
      } else {
        unsigned lg = (unsigned)__builtin_ctz(r.size);
        ppt_trace_enc_mem(e, r.kind, lg, r.flags, r.addr);
      }
    }
    int bad = ppt_trace_enc_flush(e) || e->failed;
    ppt_trace_enc_free(e);
    if (bad) return -1;
  }
  static const ppt_trace_inl k_synth_inl[2] = {{"inl_leaf", "synth.h", 4}, {"inl_mid", "synth.c", 90}};
  ppt_trace_bb *bbs = calloc(nbbs, sizeof *bbs);
  char names[8][16];
  for (uint32_t i = 0; i < 8; i++) snprintf(names[i], sizeof names[i], "func%u", i);
  for (uint32_t i = 0; i < nbbs; i++) {
    bbs[i] = (ppt_trace_bb){.id = i + 1,
                            .flags = (i % 3 == 0) ? PPT_BB_PARALLEL : 0,
                            .line = 10 + i,
                            .func = names[i % 8],
                            .file = "synth.c"};
    bbs[i].ops[PPT_OP_LOAD] = (uint16_t)(i % 5);
    /* some blocks hold inlined code, one or two levels deep (the table's INL1 part) */
    bbs[i].ninl = i % 4 == 1 ? 1 : i % 7 == 2 ? 2 : 0;
    bbs[i].inl = k_synth_inl;
  }
  unsigned char *raw;
  uint32_t size;
  int rc = ppt_bbtab_build(bbs, nbbs, &raw, &size);
  free(bbs);
  if (rc) return -1;
  rc = ppt_trace_writer_close(w, raw, size);
  free(raw);
  return rc;
}

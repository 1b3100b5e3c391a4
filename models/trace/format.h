/* format.h — on-disk layout of a ppt trace, version 2 (docs/trace-format.md).
 *
 *   [header 64 B] [chunk 0] [chunk 1] ... [block table] [chunk table] [footer 64 B]
 *
 * All integers little-endian. Chunks are zstd frames (with content size and checksum) of
 * encoded records (codec.h); each chunk decodes on its own, so readers can seek and
 * split. The chunk table and footer come last because the writer only knows them at
 * exit; the header's COMPLETE flag is set after the footer is written. */
#ifndef PPT_TRACE_FORMAT_H
#define PPT_TRACE_FORMAT_H

#include <stdint.h>

#define PPT_TRACE_MAGIC "PPTTRACE"
#define PPT_TRACE_FOOTER_MAGIC "PPTFOOT1"
/* Version 2 adds the inlining chains to the block table (PPT_TRACE_BBX_INLINED), version
 * 3 the chased loads (PPT_TRACE_BBX_CHASE); the reader also reads versions 1 and 2, whose
 * tables end before them. */
#define PPT_TRACE_VERSION 3u
#define PPT_TRACE_VERSION_MIN 1u
#define PPT_TRACE_HEADER_SIZE 64u
#define PPT_TRACE_FOOTER_SIZE 64u
#define PPT_TRACE_CHUNK_ENTRY_SIZE 48u
#define PPT_TRACE_BB_ENTRY_SIZE 48u
#define PPT_TRACE_FLAG_COMPLETE 1u
#define PPT_TRACE_FLAG_FORKJOIN 2u /* the trace holds parallel-region events (PPT_EV_PAR_*) */
/* Encoded bytes per chunk before compression: at most RAW_MAX (what a reader accepts),
 * and the writer cuts chunks at RAW_TARGET (the header's chunk_raw_max). A decoded chunk
 * holds up to one 16-byte record per encoded byte, and at about 1.3 encoded bytes per
 * record a 512 KiB chunk decoded to 6-7 MB: a mimic of 16 cores holding 16 of them wrote
 * and reread 100 MB, far beyond the caches, and decoding was half its time. 64 KiB chunks
 * decode to under 1 MiB. */
#define PPT_TRACE_CHUNK_RAW_MAX (512u * 1024u)
#define PPT_TRACE_CHUNK_RAW_TARGET (64u * 1024u)

/* Header (offset: field)
 *   0: magic[8]  8: u32 version  12: u32 header_size  16: u32 flags  20: u32 chunk_raw_max
 *  24: u64 pid   32: u64 unix_time  40..63: zero
 * Footer
 *   0: magic[8]  8: u64 chunk_table_offset  16: u64 nchunks  24: u64 bbtab_offset
 *  32: u32 bbtab_comp_size  36: u32 bbtab_raw_size  40: u32 nthreads  44: u32 nbbs
 *  48: u64 checksum (FNV-1a 64 of chunk table bytes then compressed block table bytes)
 *  56: u32 version  60: u32 zero
 * Chunk table entry
 *   0: u64 offset  8: u32 comp_size  12: u32 raw_size  16: u32 thread  20: u32 seq
 *  24: u64 nrecs  32: u64 nrefs  40: u32 start_bb  44: u32 start_k
 * Block table (raw, zstd-compressed in the file)
 *   0: u32 nbbs  4: u32 strtab_size, then nbbs entries for ids 1..nbbs:
 *   0: u32 flags  4: u32 line  8: u32 func_off  12: u32 file_off  16: u16 ops[16]
 *   then strtab_size bytes of NUL-terminated strings (offsets index into it),
 *   then, optionally (traces written since issue 13; older ones end with the strings):
 *   u32 PPT_TRACE_BBX_STACK, then nbbs entries u16 stack_loads, u16 stack_stores;
 *   then, optionally (traces written since the memory recurrences):
 *   u32 PPT_TRACE_BBX_MEMCHAIN, then nbbs entries u32 mem_chain (ppt/trace.h);
 *   then, optionally (traces written since the block cycles):
 *   u32 PPT_TRACE_BBX_CYCLES, then nbbs entries u32 core_cycles16 (ppt/trace.h);
 *   then, in version 2 only (always written there):
 *   u32 PPT_TRACE_BBX_INLINED, then nbbs entries u32 ninl, then for each block in id
 *   order its ninl levels, innermost first, each u32 func_off, u32 file_off, u32 line
 *   (ppt_trace_inl; offsets into the string table);
 *   then, in version 3 (always written there):
 *   u32 PPT_TRACE_BBX_CHASE, then nbbs entries u32 chase (ppt/trace.h).
 *   The table's raw size says which: readers accept all of them, absent means 0. */
#define PPT_TRACE_BBX_STACK 0x314b5453u    /* "STK1" */
#define PPT_TRACE_BBX_MEMCHAIN 0x3143524du /* "MRC1" */
#define PPT_TRACE_BBX_CYCLES 0x31435943u   /* "CYC1" */
#define PPT_TRACE_BBX_INLINED 0x314c4e49u  /* "INL1" */
#define PPT_TRACE_BBX_CHASE 0x31534843u    /* "CHS1" */
#define PPT_TRACE_INL_ENTRY_SIZE 12u

static inline void ppt_fmt_put32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static inline void ppt_fmt_put64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static inline uint32_t ppt_fmt_get32(const unsigned char *p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v |= (uint32_t)p[i] << (8 * i);
  return v;
}
static inline uint64_t ppt_fmt_get64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}
static inline uint64_t ppt_fmt_fnv1a(uint64_t h, const unsigned char *p, uint64_t n) {
  for (uint64_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}
#define PPT_FMT_FNV_INIT 0xcbf29ce484222325ull

#endif

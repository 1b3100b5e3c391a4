/* codec.h — record encoding inside a chunk, shared by the runtime (encoder) and the
 * reader (decoder) so the two can never drift apart.
 *
 * A record starts with a tag byte:
 *   bits 0-1  kind: 0 block entry, 1 load, 2 store (3 reserved)
 *   block entry: bits 2-7 zero, then varint block id
 *   load/store:  bits 2-4 log2(size) 0..6 (1 to 64 bytes; 7 is corrupt), bit 5
 *                on-own-stack, bits 6-7 address mode:
 *     0: address = last address of this site
 *     1: address = last address + last delta of this site (a stride continues)
 *     2: varint zigzag(address - last address of this site) follows
 *   event: bits 2-5 event type (ppt_event_type), bits 6-7 zero, then a varint count n
 *     (at most 5) and n zigzag varints (the event's values)
 * A "site" is (current block, index of the reference within the block instance) hashed
 * into PPT_CODEC_SITES slots. Keying deltas by site instead of by the previous record
 * turns each loop's strided streams into runs of identical one-byte records, which zstd
 * then shrinks to a fraction of a bit per reference. Site state resets at every chunk.
 */
#ifndef PPT_TRACE_CODEC_H
#define PPT_TRACE_CODEC_H

#include <stdint.h>
#include <string.h>

#define PPT_CODEC_SITES 4096u
/* Widest reference: 64 bytes (an AVX-512 vector). Sizes 32 and 64 came with ppt-cc's own
 * callbacks for wide accesses; the tag always had the bits, so older traces still read. */
#define PPT_CODEC_LG_MAX 6u

enum { PPT_CODEC_SAME = 0, PPT_CODEC_STRIDE = 1, PPT_CODEC_DELTA = 2 };

typedef struct ppt_codec_site {
  uint64_t last;
  uint64_t delta;
} ppt_codec_site;

static inline uint32_t ppt_codec_site_of(uint32_t bb, uint32_t k) {
  uint32_t h = bb * 0x9E3779B1u ^ (k + 1u) * 0x85EBCA77u;
  return (h ^ (h >> 15)) & (PPT_CODEC_SITES - 1u);
}

static inline unsigned char *ppt_codec_put_varint(unsigned char *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (unsigned char)(v | 0x80);
    v >>= 7;
  }
  *p++ = (unsigned char)v;
  return p;
}

/* Returns the new position, or NULL on a malformed varint / overrun of end. */
static inline const unsigned char *ppt_codec_get_varint(const unsigned char *p,
                                                        const unsigned char *end, uint64_t *v) {
  uint64_t r = 0;
  for (unsigned shift = 0; shift < 64 && p < end; shift += 7) {
    unsigned char b = *p++;
    r |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = r;
      return p;
    }
  }
  return NULL;
}

static inline uint64_t ppt_codec_zigzag(uint64_t d) { return (d << 1) ^ (uint64_t)((int64_t)d >> 63); }
static inline uint64_t ppt_codec_unzigzag(uint64_t z) { return (z >> 1) ^ (0 - (z & 1)); }

/* Encodes one memory reference; at most 11 bytes. */
static inline unsigned char *ppt_codec_put_mem(unsigned char *p, ppt_codec_site *s, unsigned kind,
                                               unsigned lg, unsigned stack, uint64_t addr) {
  uint64_t d = addr - s->last;
  unsigned tag = kind | (lg << 2) | (stack << 5);
  if (d == 0) {
    *p++ = (unsigned char)(tag | (PPT_CODEC_SAME << 6));
  } else if (d == s->delta) {
    *p++ = (unsigned char)(tag | (PPT_CODEC_STRIDE << 6));
  } else {
    *p++ = (unsigned char)(tag | (PPT_CODEC_DELTA << 6));
    p = ppt_codec_put_varint(p, ppt_codec_zigzag(d));
  }
  if (d) s->delta = d;
  s->last = addr;
  return p;
}

/* Encodes an event record; at most 2 + 5 * 10 bytes. */
static inline unsigned char *ppt_codec_put_event(unsigned char *p, unsigned type, const int64_t *v,
                                                 unsigned n) {
  *p++ = (unsigned char)(3u | (type << 2));
  *p++ = (unsigned char)n;
  for (unsigned i = 0; i < n; i++) p = ppt_codec_put_varint(p, ppt_codec_zigzag((uint64_t)v[i]));
  return p;
}

#endif

/* bbtab.c — parse and validate the block table section of a trace. */
#include <stdlib.h>
#include <string.h>

#include "trace/bbtab.h"
#include "trace/format.h"

int ppt_bbtab_parse(const unsigned char *raw, uint32_t size, const char *path, ppt_trace_bb **bbs,
                    uint32_t *n, char **strings, ppt_err *err) {
  if (size < 8) return ppt_err_set(err, PPT_EINPUT, "%s: corrupt trace: block table too short", path);
  uint32_t nb = ppt_fmt_get32(raw), slen = ppt_fmt_get32(raw + 4);
  uint64_t need = 8 + (uint64_t)nb * PPT_TRACE_BB_ENTRY_SIZE + slen;
  /* Traces since issue 13 append the stack-reference extension, later ones the memory
   * recurrences and then the block cycles after it (format.h); older ones end with the
   * strings. */
  const unsigned char *x = NULL, *mc = NULL, *cy = NULL;
  uint64_t xs = 4 + (uint64_t)nb * 4;
  if (need + xs <= size && ppt_fmt_get32(raw + need) == PPT_TRACE_BBX_STACK) {
    x = raw + need + 4;
    need += xs;
    if (need + xs <= size && ppt_fmt_get32(raw + need) == PPT_TRACE_BBX_MEMCHAIN) {
      mc = raw + need + 4;
      need += xs;
      if (need + xs <= size && ppt_fmt_get32(raw + need) == PPT_TRACE_BBX_CYCLES) {
        cy = raw + need + 4;
        need += xs;
      }
    }
  }
  if (need != size) return ppt_err_set(err, PPT_EINPUT, "%s: corrupt trace: block table size mismatch", path);
  const char *tab = (const char *)raw + 8 + (uint64_t)nb * PPT_TRACE_BB_ENTRY_SIZE;
  if (slen && tab[slen - 1] != '\0')
    return ppt_err_set(err, PPT_EINPUT, "%s: corrupt trace: unterminated block table strings", path);
  ppt_trace_bb *out = calloc(nb ? nb : 1, sizeof *out);
  char *s = malloc(slen + 1);
  if (!out || !s) {
    free(out);
    free(s);
    return ppt_err_set(err, PPT_ERUN, "%s: out of memory reading block table", path);
  }
  memcpy(s, tab, slen);
  s[slen] = '\0';
  for (uint32_t i = 0; i < nb; i++) {
    const unsigned char *e = raw + 8 + (uint64_t)i * PPT_TRACE_BB_ENTRY_SIZE;
    uint32_t fo = ppt_fmt_get32(e + 8), fi = ppt_fmt_get32(e + 12);
    if (fo >= slen || fi >= slen) {
      free(out);
      free(s);
      return ppt_err_set(err, PPT_EINPUT, "%s: corrupt trace: block %u names a string out of range", path,
                         i + 1);
    }
    out[i].id = i + 1;
    out[i].flags = ppt_fmt_get32(e);
    out[i].line = ppt_fmt_get32(e + 4);
    out[i].func = s + fo;
    out[i].file = s + fi;
    for (int k = 0; k < PPT_OP_COUNT; k++) out[i].ops[k] = (uint16_t)(e[16 + 2 * k] | (e[17 + 2 * k] << 8));
    if (x) {
      const unsigned char *q = x + 4 * (uint64_t)i;
      out[i].stack_loads = (uint16_t)(q[0] | (q[1] << 8));
      out[i].stack_stores = (uint16_t)(q[2] | (q[3] << 8));
    }
    if (mc) out[i].mem_chain = ppt_fmt_get32(mc + 4 * (uint64_t)i);
    if (cy) out[i].core_cycles16 = ppt_fmt_get32(cy + 4 * (uint64_t)i);
  }
  *bbs = out;
  *n = nb;
  *strings = s;
  return 0;
}

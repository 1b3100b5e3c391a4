/* elfobj.c — minimal ELF64 object reader for the ppt-cc tests (see elfobj.h). */
#include "elfobj.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/bbdesc.h"

struct elfobj {
  unsigned char *data;
  size_t size;
  const Elf64_Shdr *sh;
  size_t nsec;
  const char *shstr;
};

static int in_file(const elfobj *o, uint64_t off, uint64_t len) {
  return off <= o->size && len <= o->size - off;
}

elfobj *elfobj_open(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  elfobj *o = calloc(1, sizeof *o);
  fseek(f, 0, SEEK_END);
  long sz = ftell(f);
  fseek(f, 0, SEEK_SET);
  if (o && sz > 0 && (o->data = malloc((size_t)sz)) != NULL &&
      fread(o->data, 1, (size_t)sz, f) == (size_t)sz)
    o->size = (size_t)sz;
  fclose(f);
  if (!o || o->size < sizeof(Elf64_Ehdr))
    goto bad;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)o->data;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_type != ET_REL || eh->e_machine != EM_X86_64 ||
      eh->e_shentsize != sizeof(Elf64_Shdr) ||
      !in_file(o, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)) ||
      eh->e_shstrndx >= eh->e_shnum)
    goto bad;
  o->sh = (const Elf64_Shdr *)(o->data + eh->e_shoff);
  o->nsec = eh->e_shnum;
  for (size_t i = 0; i < o->nsec; i++)
    if (o->sh[i].sh_type != SHT_NOBITS && !in_file(o, o->sh[i].sh_offset, o->sh[i].sh_size))
      goto bad;
  o->shstr = (const char *)o->data + o->sh[eh->e_shstrndx].sh_offset;
  return o;
bad:
  elfobj_close(o);
  return NULL;
}

void elfobj_close(elfobj *o) {
  if (o) {
    free(o->data);
    free(o);
  }
}

const char *elfobj_secname(const elfobj *o, size_t sec) {
  return sec < o->nsec ? o->shstr + o->sh[sec].sh_name : "";
}

uint64_t elfobj_secsize(const elfobj *o, size_t sec) {
  return sec < o->nsec ? o->sh[sec].sh_size : 0;
}

uint64_t elfobj_bytes(const elfobj *o, const char *name) {
  uint64_t n = 0;
  for (size_t i = 0; i < o->nsec; i++)
    if (strcmp(elfobj_secname(o, i), name) == 0)
      n += o->sh[i].sh_size;
  return n;
}

/* The R_X86_64_64 relocation that fills byte `off` of section `sec`, as (section, offset). */
static int reloc_at(const elfobj *o, size_t sec, uint64_t off, size_t *tsec, uint64_t *toff) {
  for (size_t r = 0; r < o->nsec; r++) {
    const Elf64_Shdr *rs = &o->sh[r];
    if (rs->sh_type != SHT_RELA || rs->sh_info != sec || rs->sh_link >= o->nsec)
      continue;
    const Elf64_Shdr *ss = &o->sh[rs->sh_link];
    const Elf64_Rela *rel = (const Elf64_Rela *)(o->data + rs->sh_offset);
    const Elf64_Sym *sym = (const Elf64_Sym *)(o->data + ss->sh_offset);
    size_t nsym = ss->sh_size / sizeof *sym;
    for (size_t k = 0; k < rs->sh_size / sizeof *rel; k++) {
      if (rel[k].r_offset != off)
        continue;
      size_t si = ELF64_R_SYM(rel[k].r_info);
      if (ELF64_R_TYPE(rel[k].r_info) != R_X86_64_64 || si >= nsym)
        return -1;
      *tsec = sym[si].st_shndx;
      *toff = sym[si].st_value + (uint64_t)rel[k].r_addend;
      return *tsec < o->nsec ? 0 : -1;
    }
  }
  return -1;
}

static const char *string_at(const elfobj *o, size_t sec, uint64_t off) {
  const Elf64_Shdr *s = &o->sh[sec];
  if (off >= s->sh_size)
    return NULL;
  const char *p = (const char *)o->data + s->sh_offset + off;
  return memchr(p, '\0', s->sh_size - off) ? p : NULL;
}

elfdesc *elfobj_descs(const elfobj *o, size_t *n) {
  *n = 0;
  uint64_t bytes = elfobj_bytes(o, "ppt_bbtab");
  if (bytes == 0 || bytes % sizeof(struct ppt_bbdesc) != 0)
    return NULL;
  elfdesc *d = calloc(bytes / sizeof(struct ppt_bbdesc), sizeof *d);
  if (!d)
    return NULL;
  for (size_t s = 0; s < o->nsec; s++) {
    if (strcmp(elfobj_secname(o, s), "ppt_bbtab") != 0)
      continue;
    for (uint64_t off = 0; off + sizeof(struct ppt_bbdesc) <= o->sh[s].sh_size;
         off += sizeof(struct ppt_bbdesc)) {
      struct ppt_bbdesc raw;
      memcpy(&raw, o->data + o->sh[s].sh_offset + off, sizeof raw);
      elfdesc *e = &d[(*n)++];
      e->magic = raw.magic;
      e->line = raw.line;
      e->flags = raw.flags;
      e->stack = raw.stack;
      memcpy(e->ops, raw.ops, sizeof e->ops);
      size_t ts;
      uint64_t to;
      e->guard_sec = SIZE_MAX;
      if (reloc_at(o, s, off + offsetof(struct ppt_bbdesc, guard), &ts, &to) == 0) {
        e->guard_sec = ts;
        e->guard_off = to;
      }
      if (reloc_at(o, s, off + offsetof(struct ppt_bbdesc, func), &ts, &to) == 0)
        e->func = string_at(o, ts, to);
      if (reloc_at(o, s, off + offsetof(struct ppt_bbdesc, file), &ts, &to) == 0)
        e->file = string_at(o, ts, to);
    }
  }
  return d;
}

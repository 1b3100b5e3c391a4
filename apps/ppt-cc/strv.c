/* strv.c — growable argument vectors (see strv.h). */
#include "strv.h"

#include <stdlib.h>
#include <string.h>

char *pcc_strdup2(const char *a, const char *b) {
  size_t la = strlen(a), lb = b ? strlen(b) : 0;
  char *r = malloc(la + lb + 1);
  if (!r)
    return NULL;
  memcpy(r, a, la);
  if (lb)
    memcpy(r + la, b, lb);
  r[la + lb] = '\0';
  return r;
}

static void push_owned(pcc_strv *s, char *x) {
  if (s->oom || !x) {
    s->oom = 1;
    free(x);
    return;
  }
  if (s->n + 2 > s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 16;
    char **v = realloc(s->v, cap * sizeof *v);
    if (!v) {
      s->oom = 1;
      free(x);
      return;
    }
    s->v = v;
    s->cap = cap;
  }
  s->v[s->n++] = x;
  s->v[s->n] = NULL;
}

void pcc_strv_push(pcc_strv *s, const char *x) { push_owned(s, pcc_strdup2(x, NULL)); }

void pcc_strv_push2(pcc_strv *s, const char *a, const char *b) { push_owned(s, pcc_strdup2(a, b)); }

void pcc_strv_append(pcc_strv *s, const pcc_strv *src) {
  for (size_t i = 0; i < src->n; i++)
    pcc_strv_push(s, src->v[i]);
}

int pcc_strv_ok(const pcc_strv *s) { return !s->oom && s->v != NULL; }

void pcc_strv_free(pcc_strv *s) {
  for (size_t i = 0; i < s->n; i++)
    free(s->v[i]);
  free(s->v);
  s->v = NULL;
  s->n = s->cap = 0;
  s->oom = 0;
}

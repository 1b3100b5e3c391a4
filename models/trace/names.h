/* names.h — how a function name a user gives (--roi, --only) meets the block table's
 * names; shared by the reader's selectors (select.c) and the runtime (rt_table.c), which
 * links nothing of libppt. */
#ifndef PPT_TRACE_NAMES_H
#define PPT_TRACE_NAMES_H

#include <string.h>

/* Whether the table's name `have` is the function `want`: the same name, or a demangled
 * C++ name whose function part is `want`. `want` then starts the name or follows a space
 * or a "::", and a '(' or a template's '<' follows it: `axpy`, `axpy<double>` and
 * `axpy<double>(...)` are `void axpy<double>(std::vector<double>&)`, `kern` is
 * `kern(double*, int)`, `f` is `ns::f(int)` and `run_all` every instance of a template
 * run_all (a name without its template arguments or overload: all of them). */
static inline int ppt_trace_name_is(const char *have, const char *want) {
  if (strcmp(have, want) == 0) return 1;
  size_t n = strlen(want);
  if (!n) return 0;
  for (const char *p = strstr(have, want); p; p = strstr(p + 1, want)) {
    int starts = p == have || p[-1] == ' ' || (p - have >= 2 && p[-1] == ':' && p[-2] == ':');
    if (starts && (p[n] == '(' || (p[n] == '<' && want[n - 1] != '>'))) return 1;
  }
  return 0;
}

#endif

#!/usr/bin/env bash
# Installs the build into a scratch prefix and uses it as a user would: ppt-cc from the
# prefix builds and traces a program, ppt reads the trace, and a program compiled
# against libppt through pkg-config opens it. Usage: check-install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
pfx=$(mktemp -d)
trap 'rm -rf "$pfx"' EXIT
cmake --install "$build" --prefix "$pfx" >/dev/null
cd "$pfx"
"$pfx/bin/ppt-cc" -O1 -fopenmp "$src/apps/examples/matmul.c" -o mm
"$pfx/bin/ppt" trace -o mm.trace -- ./mm 16 >/dev/null 2>&1
refs=$("$pfx/bin/ppt" info --no-stack-refs --json mm.trace | sed -n 's/^ *"refs":\([0-9]*\),$/\1/p')
test "$refs" -gt 8192 # 2 * 16^3 loads in the multiply alone
# ppt-c++ (a symlink to ppt-cc) builds and traces a C++ program from the prefix too.
test -L "$pfx/bin/ppt-c++"
printf '#include <vector>\nint main() { std::vector<double> v(4096, 1.0); double s = 0;\n'\
'  for (double x : v) s += x; return s == 4096.0 ? 0 : 1; }\n' > v.cpp
"$pfx/bin/ppt-c++" -O1 v.cpp -o v
"$pfx/bin/ppt" trace -o v.trace -- ./v >/dev/null 2>&1
vrefs=$("$pfx/bin/ppt" info --no-stack-refs --json v.trace | sed -n 's/^ *"refs":\([0-9]*\),$/\1/p')
test "$vrefs" -ge 4096
cat > use.c <<'C'
#include <stdio.h>
#include <ppt/trace.h>
int main(int argc, char **argv) {
  ppt_trace *t; ppt_err e;
  if (argc < 2 || ppt_trace_open(argv[1], &t, &e)) return 1;
  printf("%llu\n", (unsigned long long)ppt_trace_nrefs(t, UINT32_MAX));
  ppt_trace_close(t);
  return 0;
}
C
export PKG_CONFIG_PATH="$pfx/lib/pkgconfig"
# shellcheck disable=SC2046
cc use.c -o use $(pkg-config --cflags ppt) $(pkg-config --libs --static ppt)
test "$(./use mm.trace)" = "$refs"
# The installed ppt/roi.h: with ppt-cc only the region between the markers is traced.
cat > roi.c <<'C'
#include <ppt/roi.h>
volatile double a[100];
int main(void) {
  for (int i = 0; i < 100; i++) a[i] = 1;
  PPT_ROI_BEGIN();
  for (int i = 0; i < 50; i++) a[i] = 2;
  PPT_ROI_END();
  return 0;
}
C
"$pfx/bin/ppt-cc" -O1 -I"$pfx/include" roi.c -o roi
"$pfx/bin/ppt" trace -o roi.trace -- ./roi >/dev/null 2>&1
test "$("$pfx/bin/ppt" info --no-stack-refs --json roi.trace | sed -n 's/^ *"stores":\([0-9]*\),$/\1/p')" = 50
# ppt calibrate's OpenMP region probe sits next to ppt, where calibrate looks for it.
grep -q '"fork_join_serial_s"' <<<"$("$pfx/bin/ppt-ompcost" --trials 2 --min-s 0.0005)"
echo "install check passed"

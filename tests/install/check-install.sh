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
refs=$("$pfx/bin/ppt" info --json mm.trace | sed -n 's/^ *"refs":\([0-9]*\),$/\1/p')
test "$refs" -gt 8192 # 2 * 16^3 loads in the multiply alone
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
# ppt calibrate's OpenMP region probe sits next to ppt, where calibrate looks for it.
"$pfx/bin/ppt-ompcost" --trials 2 --min-s 0.0005 | grep -q '"fork_join_serial_s"'
echo "install check passed"

# cgsum.awk — sums a cachegrind.out file over the kernel functions and prints summary.json.
#
# Input format (Cachegrind 3.19, "cachegrind.out.<pid>"): header lines `desc:`, `cmd:`,
# `events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw`, then for each source file `fl=FILE`,
# for each function in it `fn=NAME`, then one line per source line: `LINE count...` in the
# order of `events:` (trailing zero counts may be left out), and finally `summary: ...`.
# A function can appear under several fl= (code inlined from other files), so counts are
# summed by function name across files.
#
# Counted functions: names starting with `kernel_` (the kernels' own functions) or
# `.omp_outlined.` (clang's outlined bodies of the parallel regions, which the kernels only
# create inside kernel_* functions). Everything else — main, initialisation, libc, libm,
# libomp's scheduling and barriers — is reported only in the "program" totals.
#
# Variables (-v): threads, seconds. Environment: CGSUM_KERNEL (name), CGSUM_OUTPUT (the
# kernel's first output line, its checksum), CGSUM_ARGS (its arguments joined by \037).
# JSON string literal. Built character by character because the escaping of backslashes in
# gsub() replacements differs between awk implementations (mawk, gawk, busybox).
function jstr(s,    out, i, c) {
  out = ""
  for (i = 1; i <= length(s); i++) {
    c = substr(s, i, 1)
    if (c == "\\" || c == "\"") out = out "\\" c
    else if (c == "\t") out = out "\\t"
    else if (c < " ") out = out sprintf("\\u%04x", ord[c])
    else out = out c
  }
  return "\"" out "\""
}
function pct(num, den) { return den > 0 ? sprintf("%.4f", 100.0 * num / den) : "null" }
function counted(name) { return name ~ /^kernel_/ || index(name, ".omp_outlined.") == 1 }

BEGIN {
  nev = 0; nfn = 0; fn = ""
  for (i = 1; i < 32; i++) ord[sprintf("%c", i)] = i
}

/^events:/ {
  for (i = 2; i <= NF; i++) col[$i] = i - 1 # count k is field k+1 of a data line
  nev = NF - 1
  next
}
/^fn=/ {
  fn = substr($0, 4)
  if (counted(fn) && !(fn in seen)) { seen[fn] = 1; order[++nfn] = fn }
  next
}
/^[0-9]/ {
  if (nev == 0) { print "cgsum: counts before the events: line" > "/dev/stderr"; bad = 1; exit 2 }
  for (e = 1; e <= nev; e++) {
    v = (e + 1 <= NF) ? $(e + 1) + 0 : 0
    tot[e] += v
    if (counted(fn)) { k[e] += v; f[fn, e] += v }
  }
  next
}

END {
  if (bad) exit 2
  if (!("Dr" in col) || !("D1mr" in col) || !("DLmr" in col) || !("Dw" in col) ||
      !("D1mw" in col) || !("DLmw" in col)) {
    print "cgsum: the cachegrind file lacks data-cache events (was --cache-sim=yes given?)" > "/dev/stderr"
    exit 2
  }
  if (nfn == 0) {
    print "cgsum: no kernel_* or .omp_outlined.* function in the cachegrind file (built with -g?)" > "/dev/stderr"
    exit 2
  }
  dr = col["Dr"]; dw = col["Dw"]; d1r = col["D1mr"]; d1w = col["D1mw"]; llr = col["DLmr"]; llw = col["DLmw"]
  refs = k[dr] + k[dw]; d1 = k[d1r] + k[d1w]; ll = k[llr] + k[llw]
  prefs = tot[dr] + tot[dw]; pd1 = tot[d1r] + tot[d1w]; pll = tot[llr] + tot[llw]

  nargs = ENVIRON["CGSUM_ARGS"] == "" ? 0 : split(ENVIRON["CGSUM_ARGS"], argv, "\037")
  printf "{\n  \"kernel\": %s,\n  \"threads\": %d,\n  \"args\": [", jstr(ENVIRON["CGSUM_KERNEL"]), threads
  for (i = 1; i <= nargs; i++) printf "%s%s", (i > 1 ? ", " : ""), jstr(argv[i])
  printf "],\n  \"output\": %s,\n", jstr(ENVIRON["CGSUM_OUTPUT"])
  printf "  \"functions\": ["
  for (i = 1; i <= nfn; i++) printf "%s%s", (i > 1 ? ", " : ""), jstr(order[i])
  printf "],\n"
  printf "  \"data_refs\": %.0f,\n  \"data_reads\": %.0f,\n  \"data_writes\": %.0f,\n", refs, k[dr], k[dw]
  printf "  \"d1_misses\": %.0f,\n  \"ll_misses\": %.0f,\n", d1, ll
  printf "  \"l1_hit_rate\": %s,\n", pct(refs - d1, refs)
  printf "  \"l2_hit_rate_global\": %s,\n", pct(refs - ll, refs)
  printf "  \"l2_local_hit_rate\": %s,\n", pct(d1 - ll, d1)
  printf "  \"per_function\": [\n"
  for (i = 1; i <= nfn; i++) {
    n = order[i]
    r = f[n, dr] + f[n, dw]; m1 = f[n, d1r] + f[n, d1w]; m2 = f[n, llr] + f[n, llw]
    printf "    {\"name\": %s, \"data_refs\": %.0f, \"d1_misses\": %.0f, \"ll_misses\": %.0f}%s\n",
      jstr(n), r, m1, m2, (i < nfn ? "," : "")
  }
  printf "  ],\n"
  printf "  \"program\": {\"data_refs\": %.0f, \"d1_misses\": %.0f, \"ll_misses\": %.0f, " \
         "\"l1_hit_rate\": %s, \"l2_hit_rate_global\": %s},\n", prefs, pd1, pll,
         pct(prefs - pd1, prefs), pct(prefs - pll, prefs)
  printf "  \"cachegrind_seconds\": %s\n}\n", seconds
}

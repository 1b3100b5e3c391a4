/* args.c — command-line classification for ppt-cc (see args.h).
 *
 * The tables below follow clang 14's Options.td for the options a C build uses; an
 * option ppt-cc does not know is kept as a compile option (PCC_R_OTHER), which is what
 * clang would do with it in a compile-only run. */
#include "args.h"

#include <stdlib.h>
#include <string.h>

static int starts(const char *s, const char *p) {
  return strncmp(s, p, strlen(p)) == 0;
}

static int in_list(const char *s, const char *const *list) {
  for (; *list; list++)
    if (strcmp(s, *list) == 0) return 1;
  return 0;
}

/* Options whose value may come as the next argument (clang: Separate/JoinedOrSeparate). */
static const char *const k_sep[] = {"-o",
                                    "-x",
                                    "-I",
                                    "-D",
                                    "-U",
                                    "-include",
                                    "-imacros",
                                    "-isystem",
                                    "-iquote",
                                    "-idirafter",
                                    "-iprefix",
                                    "-iwithprefix",
                                    "-iwithprefixbefore",
                                    "-isysroot",
                                    "-imultilib",
                                    "--sysroot",
                                    "-MF",
                                    "-MT",
                                    "-MQ",
                                    "-MJ",
                                    "-L",
                                    "-l",
                                    "-Xlinker",
                                    "-Xclang",
                                    "-Xassembler",
                                    "-Xpreprocessor",
                                    "-Xopenmp-target",
                                    "-Xanalyzer",
                                    "-mllvm",
                                    "-u",
                                    "-T",
                                    "-z",
                                    "-e",
                                    "-target",
                                    "-arch",
                                    "-include-pch",
                                    "-dependency-file",
                                    "-dependency-dot",
                                    "-F",
                                    "-aux-info",
                                    "-B",
                                    "--param",
                                    "-serialize-diagnostics",
                                    "-ivfsoverlay",
                                    "-isystem-after",
                                    "-cxx-isystem",
                                    NULL};

/* Any of these means "not a plain compile or link": clang runs unchanged. */
static const char *const k_passthrough[] = {
    "-E",           "-S",         "-M",   "-MM",       "-fsyntax-only",
    "-emit-llvm",   "-emit-ast",  "-###", "--version", "-dumpversion",
    "-dumpmachine", "-dumpspecs", "-cc1", "-cc1as",    "--analyze",
    "-precompile",  NULL};

/* Link-only options without a value. */
static const char *const k_link_flags[] = {
    "-shared", "-static", "-static-pie",    "-rdynamic",      "-s",
    "-pie",    "-no-pie", "-nostdlib",      "-nodefaultlibs", "-nostartfiles",
    "-nolibc", "-r",      "-static-libgcc", "-shared-libgcc", NULL};

/* Link-only options with a separate value. */
static const char *const k_link_sep[] = {"-L", "-l", "-Xlinker", "-u", "-T", "-z", "-e", NULL};

/* -f/-m options that must not reach the object step (which compiles IR, not C). */
static const char *const k_not_codegen[] = {
    "-fsanitize-coverage",    "-fplugin",      "-fpass-plugin",       "-fuse-ld", "-fmodule",
    "-fno-sanitize-coverage", "-fprofile-use", "-fprofile-instr-use", NULL};

/* Extensions clang compiles (other than C, which ppt-cc handles itself). */
static const char *const k_src_ext[] = {
    "s", "S",  "sx", "cc", "cp",  "cxx", "cpp", "CPP", "c++", "C", "ii", "h",   "hh",  "hpp", "hxx", "H",
    "m", "mm", "M",  "mi", "mii", "ll",  "bc",  "cu",  "cl",  "f", "F",  "f90", "F90", "for", "f95", NULL};

static const char *ext_of(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *dot = strrchr(base, '.');
  return (dot && dot != base) ? dot + 1 : NULL;
}

/* C++ sources ppt-c++ instruments (clang's driver types: c++ and c++-cpp-output). */
static const char *const k_cxx_ext[] = {"cc", "cp", "cxx", "cpp", "CPP", "c++", "C", "ii", NULL};
static const char *const k_c_lang[] = {"c", "cpp-output", NULL};
static const char *const k_cxx_lang[] = {"c++", "c++-cpp-output", NULL};

static enum pcc_role input_role(const char *path, const char *xlang, int cxx) {
  if (xlang) /* "-x LANG" decides, as in clang; "none" was turned into NULL */
    return in_list(xlang, k_c_lang) || (cxx && in_list(xlang, k_cxx_lang)) ? PCC_R_IN_C : PCC_R_IN_SRC;
  if (strcmp(path, "-") == 0) return PCC_R_IN_SRC; /* stdin without -x: let clang say what it thinks */
  const char *ext = ext_of(path);
  /* clang++ compiles .c and .i as C++ (with a deprecation warning): ppt-c++ runs clang++
   * on them as they are, so they are instrumented either way. */
  if (ext && (strcmp(ext, "c") == 0 || strcmp(ext, "i") == 0 || (cxx && in_list(ext, k_cxx_ext))))
    return PCC_R_IN_C;
  if (ext && in_list(ext, k_src_ext)) return PCC_R_IN_SRC;
  return PCC_R_IN_LINK;
}

static enum pcc_role option_role(const char *o) {
  if (strcmp(o, "-c") == 0) return PCC_R_COMPILE;
  if (strcmp(o, "-o") == 0 || (starts(o, "-o") && o[2])) return PCC_R_OUTPUT;
  if (starts(o, "-x")) return PCC_R_LANG;
  if (starts(o, "-O")) return PCC_R_OLEVEL;
  if (starts(o, "-MF")) return PCC_R_DEPFILE;
  if (starts(o, "-MT") || starts(o, "-MQ")) return PCC_R_DEPTARGET;
  if (starts(o, "-flto") || starts(o, "-fthinlto")) return PCC_R_LTO;
  if (in_list(o, k_link_flags) || in_list(o, k_link_sep) || starts(o, "-l") || starts(o, "-L") ||
      starts(o, "-Wl,") || starts(o, "-fuse-ld=") || starts(o, "--ld-path=") || starts(o, "--rtlib=") ||
      starts(o, "-rtlib=") || starts(o, "--unwindlib="))
    return PCC_R_LINK;
  if (starts(o, "-f") || (starts(o, "-m") && strcmp(o, "-mllvm") != 0)) {
    for (const char *const *p = k_not_codegen; *p; p++)
      if (starts(o, *p)) return PCC_R_OTHER;
    return PCC_R_CODEGEN;
  }
  if (strcmp(o, "-mllvm") == 0 || strcmp(o, "-target") == 0 || starts(o, "--target=") || starts(o, "-B") ||
      strcmp(o, "-v") == 0)
    return PCC_R_CODEGEN;
  return PCC_R_OTHER;
}

static int passthrough_option(const char *o) {
  return in_list(o, k_passthrough) || starts(o, "-print-") || starts(o, "--print-");
}

int pcc_args_parse(int argc, char **argv, pcc_cmdline *cl, ppt_err *err) {
  return pcc_args_parse_lang(argc, argv, 0, cl, err);
}

int pcc_args_parse_lang(int argc, char **argv, int cxx, pcc_cmdline *cl, ppt_err *err) {
  memset(cl, 0, sizeof *cl);
  cl->a = calloc(argc > 0 ? (size_t)argc : 1, sizeof *cl->a);
  if (!cl->a) return ppt_err_set(err, PPT_ERUN, "ppt-cc: out of memory");
  const char *xlang = NULL;
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    pcc_arg *a = &cl->a[cl->n++];
    a->s[0] = s;
    a->n = 1;
    if (s[0] != '-' || strcmp(s, "-") == 0) {
      a->role = input_role(s, xlang, cxx);
      a->xlang = xlang;
      cl->n_c += a->role == PCC_R_IN_C;
      cl->n_src += a->role == PCC_R_IN_SRC;
      cl->n_link += a->role == PCC_R_IN_LINK;
      continue;
    }
    if (strcmp(s, "--ppt-help") == 0) {
      cl->ppt_help = 1;
      continue;
    }
    if (strcmp(s, "--help") == 0 || strcmp(s, "-help") == 0) {
      cl->clang_help = 1;
      cl->passthrough = "help";
    }
    if (passthrough_option(s)) cl->passthrough = s;
    if (in_list(s, k_sep)) {
      if (i + 1 >= argc) /* clang reports "argument to '-o' is missing" */
        cl->passthrough = "missing option value";
      else {
        a->s[1] = argv[++i];
        a->n = 2;
      }
    }
    a->role = option_role(s);
    const char *val = a->n == 2 ? a->s[1] : NULL;
    switch (a->role) {
      case PCC_R_OUTPUT: cl->output = val ? val : s + 2; break;
      case PCC_R_COMPILE: cl->compile_only = 1; break;
      case PCC_R_LANG: {
        const char *l = val ? val : s + 2;
        xlang = strcmp(l, "none") == 0 ? NULL : l;
        break;
      }
      case PCC_R_OLEVEL: cl->olevel = s; break;
      case PCC_R_DEPFILE: cl->dep_file_given = 1; break;
      case PCC_R_DEPTARGET: cl->dep_target_given = 1; break;
      case PCC_R_LTO: cl->lto = 1; break;
      case PCC_R_LINK:
        if (strcmp(s, "-shared") == 0 || strcmp(s, "-r") == 0) cl->no_runtime = 1;
        break;
      default: break;
    }
    if (strcmp(s, "-MD") == 0 || strcmp(s, "-MMD") == 0) cl->deps = 1;
    if (starts(s, "-Wp,-MD,") || starts(s, "-Wp,-MMD,")) {
      cl->deps = 1;
      cl->dep_file_given = 1;
    }
  }
  cl->final_xlang = xlang;
  if (cl->n_c + cl->n_src + cl->n_link == 0 && !cl->passthrough) cl->passthrough = "no input files";
  /* clang's "cannot specify -o when generating multiple output files" */
  if (cl->compile_only && cl->output && cl->n_c + cl->n_src > 1 && !cl->passthrough)
    cl->passthrough = "-o with several inputs";
  return 0;
}

void pcc_args_free(pcc_cmdline *cl) {
  free(cl->a);
  cl->a = NULL;
  cl->n = 0;
}

char *pcc_path_stem(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *ext = ext_of(base);
  size_t len = ext ? (size_t)(ext - 1 - base) : strlen(base);
  char *r = malloc(len + 1);
  if (r) {
    memcpy(r, base, len);
    r[len] = '\0';
  }
  return r;
}

char *pcc_path_replace_ext(const char *path, const char *ext) {
  const char *e = ext_of(path);
  size_t keep = e ? (size_t)(e - 1 - path) : strlen(path);
  size_t le = strlen(ext);
  char *r = malloc(keep + 1 + le + 1);
  if (r) {
    memcpy(r, path, keep);
    r[keep] = '.';
    memcpy(r + keep + 1, ext, le + 1);
  }
  return r;
}

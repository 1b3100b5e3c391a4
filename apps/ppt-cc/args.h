/* args.h — classifies a C compiler command line the way clang's driver would read it.
 *
 * ppt-cc has to rebuild clang command lines for each step (IR generation, object
 * generation, link), so every argument is tagged with the role it plays. Options that
 * take a separate value are kept as one entry with two strings, so a value that looks
 * like a file name ("-o foo.c", "-MT x.c") is never mistaken for an input. */
#ifndef PCC_ARGS_H
#define PCC_ARGS_H

#include <stddef.h>

#include "ppt/err.h"

enum pcc_role {
  PCC_R_OTHER,     /* compile options: -I -D -W -std -g -include ...: step 1 only */
  PCC_R_CODEGEN,   /* -f* -m* -mllvm -target -B -v: also given to the object step */
  PCC_R_OLEVEL,    /* -O*: both steps */
  PCC_R_OUTPUT,    /* -o FILE / -oFILE */
  PCC_R_COMPILE,   /* -c */
  PCC_R_LANG,      /* -x LANG / -xLANG */
  PCC_R_LINK,      /* link-only options (-l -L -Wl, -shared ...): dropped from compile steps */
  PCC_R_LTO,       /* -flto*: dropped, the block table must describe the final code */
  PCC_R_DEPFILE,   /* -MF */
  PCC_R_DEPTARGET, /* -MT / -MQ */
  PCC_R_IN_C,      /* a source ppt-cc instruments: C (ppt-cc), C or C++ (ppt-c++) */
  PCC_R_IN_SRC,    /* another compilable input (.S, .h, .ll, .cc for ppt-cc ...): left to clang */
  PCC_R_IN_LINK,   /* object files, archives, libraries, anything else: left to the linker */
};

typedef struct pcc_arg {
  const char *s[2]; /* the option and, for separate-value options, its value */
  int n;            /* 1 or 2 */
  enum pcc_role role;
  const char *xlang; /* inputs: language from the last "-x" before it, NULL for none */
} pcc_arg;

typedef struct pcc_cmdline {
  pcc_arg *a;
  size_t n;
  const char *passthrough;   /* non-NULL (the reason) when clang should just run as is */
  int compile_only;          /* -c */
  int clang_help;            /* --help / -help */
  int ppt_help;              /* --ppt-help */
  const char *output;        /* -o value or NULL */
  int deps;                  /* -MD / -MMD / -Wp,-MD,... asked for a dependency file */
  int dep_file_given;        /* -MF or -Wp,-M[M]D,FILE */
  int dep_target_given;      /* -MT / -MQ */
  int no_runtime;            /* -shared / -r: the runtime belongs to the executable */
  int lto;                   /* some -flto* was dropped */
  size_t n_c, n_src, n_link; /* inputs by role */
  const char *olevel;        /* last -O* or NULL */
  const char *final_xlang;   /* "-x" language still in effect after the last argument */
} pcc_cmdline;

/* Parses argv[1..argc-1] as ppt-cc (C sources instrumented). Strings are not copied:
 * argv must outlive cl. */
int pcc_args_parse(int argc, char **argv, pcc_cmdline *cl, ppt_err *err);
/* The same; with cxx != 0 as ppt-c++, which instruments what clang++ compiles as C or C++:
 * .cc .cp .cxx .cpp .CPP .c++ .C .ii, .c and .i (C++ under clang++), -x c/c++/...-output. */
int pcc_args_parse_lang(int argc, char **argv, int cxx, pcc_cmdline *cl, ppt_err *err);
void pcc_args_free(pcc_cmdline *cl);

/* Path helpers that mirror clang's naming of default outputs. */
/* "dir/foo.c" -> "foo" (basename without its last extension); malloc'd. */
char *pcc_path_stem(const char *path);
/* "dir/foo.o" -> "dir/foo.d": replaces (or adds) the extension of the last component. */
char *pcc_path_replace_ext(const char *path, const char *ext);

#endif

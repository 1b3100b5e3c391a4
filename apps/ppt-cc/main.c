/* main.c — ppt-cc, a drop-in C compiler that builds programs for ppt tracing.
 *
 * `CC=ppt-cc make` works on an unchanged project: each C source is compiled in two
 * clang steps with ppt-cc's own work in between,
 *   1. clang <user flags> -g -gdwarf-4 -fsanitize-coverage=... -c -emit-llvm -> TMP.bc
 *      (SanitizerCoverage: a guard per basic block, load/store callbacks, PC table)
 *   2. irtab: one struct ppt_bbdesc per instrumented block, from that very IR -> TMP2.bc
 *   3. clang -c TMP2.bc -O<user> <user -f/-m> -Xclang -disable-llvm-passes -> object
 * so the block table describes exactly the code the object holds (no pass changes the
 * IR after it was analysed; the backend still optimises at the user's level). Links add
 * the ppt runtime (libppt_rt.a), which implements the SanitizerCoverage callbacks.
 * DWARF 4 is forced because valgrind 3.19 cannot read clang 14's DWARF 5.
 * The same executable is ppt-c++ (a symlink, as clang++ is to clang): run under a name
 * ending in "++" it runs clang++ and instruments C++ sources too (docs/ppt-cc.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "irtab.h"
#include "ppt/err.h"
#include "ppt/io.h"
#include "ppt_cc_wrap.h"
#include "run.h"
#include "strv.h"

#ifndef PPT_CC_DEFAULT_CLANG
#define PPT_CC_DEFAULT_CLANG "clang"
#endif
#ifndef PPT_CXX_DEFAULT_CLANG
#define PPT_CXX_DEFAULT_CLANG "clang++"
#endif
#ifndef PPT_CC_BIN_TO_LIB
#define PPT_CC_BIN_TO_LIB "../lib"
#endif
#define PPT_CC_RUNTIME_NAME "libppt_rt.a"

static const char *const k_sancov =
    "-fsanitize-coverage=bb,no-prune,trace-pc-guard,trace-loads,trace-stores,pc-table";

typedef struct job {
  const pcc_cmdline *cl;
  const char *clang;
  pcc_runner run;
  pcc_tmpdir tmp;
  int log_blocks; /* PPT_CC_VERBOSE >= 2 */
  pcc_mca_cfg mca; /* each block's core cycles (mca.h) */
  char mca_cpu[64];
} job;

/* Which driver this is, from the name it was run under. */
typedef struct tool {
  int cxx;            /* ppt-c++: clang++, C and C++ sources instrumented, libstdc++ linked */
  const char *name;   /* "ppt-cc" or "ppt-c++" */
  const char *clang;  /* what runs: $PPT_CC_CLANG / $PPT_CXX_CLANG or the default */
  const char *envvar; /* the variable that chose it */
} tool;

/* clang's own rule: a driver named *++ (clang++, x86_64-linux-gnu-clang++) is C++. */
static tool pick_tool(const char *argv0) {
  const char *base = argv0 ? strrchr(argv0, '/') : NULL;
  base = base ? base + 1 : (argv0 ? argv0 : "");
  size_t n = strlen(base);
  tool t = {0, "ppt-cc", NULL, "PPT_CC_CLANG"};
  if (n >= 2 && strcmp(base + n - 2, "++") == 0) t = (tool){1, "ppt-c++", NULL, "PPT_CXX_CLANG"};
  t.clang = getenv(t.envvar);
  if (!t.clang || !*t.clang) t.clang = t.cxx ? PPT_CXX_DEFAULT_CLANG : PPT_CC_DEFAULT_CLANG;
  return t;
}

static void print_ppt_help(const tool *t) {
  if (t->cxx)
    printf(
        "ppt-c++: ppt-cc for C++. It runs %s ($PPT_CXX_CLANG or the default),\n"
        "instruments C++ sources (.cc .cpp .cxx .C .c++ .ii, -x c++) and, as clang++ does,\n"
        "compiles .c files as C++ (C with -x c); it links with clang++ (libstdc++). Objects\n"
        "from ppt-cc and ppt-c++ link together. Function names in the block table are\n"
        "the IR's: mangled (c++filt demangles them). The rest is as for ppt-cc:\n\n",
        t->clang);
  printf(
      "ppt-cc: a drop-in C compiler that builds programs for ppt tracing.\n"
      "\n"
      "Usage: ppt-cc [clang options] files...       e.g.  make CC=ppt-cc CXX=ppt-c++\n"
      "\n"
      "Every C source it compiles (-c, or compile and link in one go) is built with clang's\n"
      "SanitizerCoverage (a guard per basic block, load/store callbacks, PC table), with\n"
      "-g -gdwarf-4, and gets a table of its basic blocks in section ppt_bbtab: function,\n"
      "source file and line, OpenMP parallel region or not, and the op mix of the block,\n"
      "taken from the same IR clang turns into code. Links add the ppt runtime.\n"
      "Other options and inputs (.s, .S, .o, .a, -l...) go to clang unchanged.\n"
      "Run unchanged, without instrumentation: -E, -S, -M, -MM, -fsyntax-only, -emit-llvm,\n"
      "--version, -###, --help, and command lines without input files. -flto is ignored.\n"
      "\n"
      "Environment:\n"
      "  PPT_CC_CLANG       clang ppt-cc runs (default %s; must match ppt-cc's LLVM)\n"
      "  PPT_CXX_CLANG      clang++ ppt-c++ runs (default %s; the same)\n"
      "  PPT_CC_RUNTIME     runtime to link (default <ppt-cc dir>/../lib/" PPT_CC_RUNTIME_NAME
      ")\n"
      "  PPT_CC_VERBOSE     1: print each command run; 2: also each block descriptor\n"
      "  PPT_CC_KEEP_TEMPS  1: keep the temporary folder (its path is printed)\n"
      "  PPT_CC_MCA         llvm-mca that times each block (default %s; none: no block cycles)\n"
      "  PPT_CC_MCA_CPU     the CPU it models (default: this host's, as LLVM names it)\n"
      "  TMPDIR             where the temporary folder goes (default /tmp)\n"
      "\n"
      "Documentation: docs/ppt-cc.md\n",
      PPT_CC_DEFAULT_CLANG, PPT_CXX_DEFAULT_CLANG, PPT_CC_DEFAULT_MCA);
}

static int env_int(const char *name) {
  const char *v = getenv(name);
  return v && *v ? atoi(v) : 0;
}

/* The ppt runtime archive: $PPT_CC_RUNTIME, else next to ppt-cc's own executable, in the
 * build tree (build/bin -> build/lib) or the installed prefix (bin -> libdir). */
static char *find_runtime(ppt_err *err) {
  const char *env = getenv("PPT_CC_RUNTIME");
  if (env && *env) {
    if (access(env, R_OK) != 0) {
      ppt_err_set(err, PPT_EINPUT, "ppt-cc: PPT_CC_RUNTIME=%s: %s", env, strerror(errno));
      return NULL;
    }
    return strdup(env);
  }
  char exe[4096];
  if (ppt_io_exe_dir(exe, sizeof exe, err)) {
    char why[sizeof err->msg];
    snprintf(why, sizeof why, "%s", err->msg);
    ppt_err_set(err, PPT_ERUN, "ppt-cc: %s", why);
    return NULL;
  }
  static const char *const rel[] = {"../lib", PPT_CC_BIN_TO_LIB};
  char path[4096 + 256];
  for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
    snprintf(path, sizeof path, "%s/%s/%s", exe, rel[i], PPT_CC_RUNTIME_NAME);
    if (access(path, R_OK) == 0) return strdup(path);
  }
  ppt_err_set(err, PPT_EINPUT,
              "ppt-cc: runtime not found: %s/%s/%s (build target ppt_rt, or set PPT_CC_RUNTIME)", exe,
              PPT_CC_BIN_TO_LIB, PPT_CC_RUNTIME_NAME);
  return NULL;
}

/* Runs a command; a nonzero exit becomes the result (clang has printed why). */
static int run_cmd(job *j, pcc_strv *cmd, int *code, ppt_err *err) {
  if (!pcc_strv_ok(cmd)) return ppt_err_set(err, PPT_ERUN, "ppt-cc: out of memory");
  if (pcc_run(&j->run, cmd->v, code, err)) return err->status;
  return 0;
}

static void push_arg(pcc_strv *v, const pcc_arg *a) {
  for (int k = 0; k < a->n; k++) pcc_strv_push(v, a->s[k]);
}

/* Is OpenMP on for this compilation (the last of -fopenmp[=LIB] and -fno-openmp wins)? */
static int openmp_on(const pcc_cmdline *cl) {
  int on = 0;
  for (size_t i = 0; i < cl->n; i++)
    for (int k = 0; k < cl->a[i].n; k++) {
      const char *s = cl->a[i].s[k];
      if (!strcmp(s, "-fopenmp") || !strncmp(s, "-fopenmp=", 9)) on = 1;
      if (!strcmp(s, "-fno-openmp")) on = 0;
    }
  return on;
}

/* Step 1: the user's compile options, without output/mode/inputs, + coverage, to IR. */
static void ir_command(const job *j, const pcc_arg *src, const char *obj, const char *bc, pcc_strv *v) {
  const pcc_cmdline *cl = j->cl;
  pcc_strv_push(v, j->clang);
  for (size_t i = 0; i < cl->n; i++) {
    const pcc_arg *a = &cl->a[i];
    switch (a->role) {
      case PCC_R_OTHER:
      case PCC_R_CODEGEN:
      case PCC_R_OLEVEL:
      case PCC_R_DEPFILE:
      case PCC_R_DEPTARGET: push_arg(v, a); break;
      default: /* -o -c -x -flto, link-only options and inputs */ break;
    }
  }
  pcc_strv_push(v, "-g");
  pcc_strv_push(v, "-gdwarf-4");
  /* A Makefile whose CFLAGS lack -fopenmp builds a serial program from a parallel
   * source without a word, and ppt would then model it as serial: clang names each
   * ignored '#pragma omp' (a warning even under the user's -Werror). */
  if (!openmp_on(cl)) {
    pcc_strv_push(v, "-Wsource-uses-openmp");
    pcc_strv_push(v, "-Wno-error=source-uses-openmp");
  }
  pcc_strv_push(v, "-DPPT_CC=1"); /* ppt/roi.h's markers call the runtime */
  pcc_strv_push(v, k_sancov);
  pcc_strv_push(v, "-c");
  pcc_strv_push(v, "-emit-llvm");
  if (cl->deps) {
    /* clang would name the dependency file and its target after the real output (or
     * the input's stem); here the output is a temporary file, so say it explicitly. */
    char *stem = pcc_path_stem(src->s[0]);
    if (!cl->dep_file_given) {
      char *d = cl->output ? pcc_path_replace_ext(cl->output, "d") : pcc_strdup2(stem ? stem : "", ".d");
      pcc_strv_push(v, "-MF");
      if (d)
        pcc_strv_push(v, d);
      else
        v->oom = 1;
      free(d);
    }
    if (!cl->dep_target_given) {
      pcc_strv_push(v, "-MQ");
      pcc_strv_push(v, cl->output ? cl->output : obj);
    }
    free(stem);
  }
  pcc_strv_push(v, "-o");
  pcc_strv_push(v, bc);
  if (src->xlang) {
    pcc_strv_push(v, "-x");
    pcc_strv_push(v, src->xlang);
  }
  pcc_strv_push(v, src->s[0]);
}

/* Step 3: IR to object at the user's optimisation level and code generation options;
 * -disable-llvm-passes keeps the IR exactly as analysed. */
static void obj_command(const job *j, const char *bc, const char *obj, pcc_strv *v) {
  const pcc_cmdline *cl = j->cl;
  pcc_strv_push(v, j->clang);
  pcc_strv_push(v, "-c");
  pcc_strv_push(v, bc);
  pcc_strv_push(v, "-o");
  pcc_strv_push(v, obj);
  if (cl->olevel) pcc_strv_push(v, cl->olevel);
  for (size_t i = 0; i < cl->n; i++)
    if (cl->a[i].role == PCC_R_CODEGEN) push_arg(v, &cl->a[i]);
  pcc_strv_push(v, "-g");
  pcc_strv_push(v, "-gdwarf-4");
  pcc_strv_push(v, "-Xclang");
  pcc_strv_push(v, "-disable-llvm-passes");
  pcc_strv_push(v, "-Qunused-arguments");
}

/* Compiles one C source to `obj`. Returns 0, a clang exit status, or err's status. */
static int compile_c(job *j, const pcc_arg *src, const char *obj, ppt_err *err) {
  char *stem = pcc_path_stem(src->s[0]);
  char *bc = stem ? pcc_tmpdir_file(&j->tmp, stem, ".bc") : NULL;
  char *bc2 = stem ? pcc_tmpdir_file(&j->tmp, stem, ".ppt.bc") : NULL;
  pcc_strv cmd = {0};
  int code = 0, rc = 0;
  if (!bc || !bc2) {
    rc = ppt_err_set(err, PPT_ERUN, "ppt-cc: out of memory");
    goto done;
  }
  ir_command(j, src, obj, bc, &cmd);
  if ((rc = run_cmd(j, &cmd, &code, err)) != 0 || (rc = code) != 0) goto done;
  pcc_irtab_stats st;
  if ((rc = pcc_irtab_rewrite(bc, bc2, src->s[0], &j->mca, j->log_blocks ? stderr : NULL, &st, err)) != 0)
    goto done;
  pcc_strv_free(&cmd);
  obj_command(j, bc2, obj, &cmd);
  if ((rc = run_cmd(j, &cmd, &code, err)) == 0) rc = code;
done:
  pcc_strv_free(&cmd);
  free(stem);
  free(bc);
  free(bc2);
  return rc;
}

/* -c: each C source to its object; other inputs in one plain clang run. */
static int compile_mode(job *j, ppt_err *err) {
  const pcc_cmdline *cl = j->cl;
  for (size_t i = 0; i < cl->n; i++) {
    const pcc_arg *a = &cl->a[i];
    if (a->role != PCC_R_IN_C) continue;
    char *obj = NULL;
    if (cl->output)
      obj = strdup(cl->output);
    else {
      char *stem = pcc_path_stem(a->s[0]);
      obj = stem ? pcc_strdup2(stem, ".o") : NULL;
      free(stem);
    }
    if (!obj) return ppt_err_set(err, PPT_ERUN, "ppt-cc: out of memory");
    int rc = compile_c(j, a, obj, err);
    free(obj);
    if (rc != 0 || pcc_run_interrupted(&j->run)) return rc ? rc : 1;
  }
  if (cl->n_src + cl->n_link == 0) return 0;
  pcc_strv cmd = {0};
  pcc_strv_push(&cmd, j->clang);
  for (size_t i = 0; i < cl->n; i++)
    if (cl->a[i].role != PCC_R_IN_C) push_arg(&cmd, &cl->a[i]);
  int code = 0, rc = run_cmd(j, &cmd, &code, err);
  pcc_strv_free(&cmd);
  return rc ? rc : code;
}

static int later_input(const pcc_cmdline *cl, size_t i) {
  for (size_t k = i + 1; k < cl->n; k++)
    if (cl->a[k].role == PCC_R_IN_C || cl->a[k].role == PCC_R_IN_SRC || cl->a[k].role == PCC_R_IN_LINK)
      return 1;
  return 0;
}

/* Link (possibly compiling C sources first): sources become instrumented temporary
 * objects in place, and the runtime goes last. */
static int link_mode(job *j, ppt_err *err) {
  const pcc_cmdline *cl = j->cl;
  char *runtime = NULL;
  if (!cl->no_runtime && !(runtime = find_runtime(err))) return err->status;
  pcc_strv cmd = {0};
  pcc_strv_push(&cmd, j->clang);
  int rc = 0;
  for (size_t i = 0; i < cl->n && rc == 0; i++) {
    const pcc_arg *a = &cl->a[i];
    if (a->role != PCC_R_IN_C) {
      push_arg(&cmd, a);
      continue;
    }
    char *stem = pcc_path_stem(a->s[0]);
    char *obj = stem ? pcc_tmpdir_file(&j->tmp, stem, ".o") : NULL;
    free(stem);
    if (!obj) {
      rc = ppt_err_set(err, PPT_ERUN, "ppt-cc: out of memory");
      break;
    }
    rc = compile_c(j, a, obj, err);
    if (rc == 0 && pcc_run_interrupted(&j->run)) rc = 1;
    /* Under "-x c" the object would be read as C source: reset the language around it. */
    if (a->xlang) pcc_strv_push(&cmd, "-x");
    if (a->xlang) pcc_strv_push(&cmd, "none");
    pcc_strv_push(&cmd, obj);
    if (a->xlang && later_input(cl, i)) { /* clang warns about a trailing -x */
      pcc_strv_push(&cmd, "-x");
      pcc_strv_push(&cmd, a->xlang);
    }
    free(obj);
  }
  if (rc == 0 && runtime) {
    /* The runtime's wrappers of libomp entry points (see models/trace/runtime/rt_omp.c);
     * a program without OpenMP has no references to wrap and never pulls them in. */
    if (PPT_CC_WRAP_LDFLAGS[0]) pcc_strv_push(&cmd, PPT_CC_WRAP_LDFLAGS);
    if (cl->final_xlang) { /* or clang would read the archive as source */
      pcc_strv_push(&cmd, "-x");
      pcc_strv_push(&cmd, "none");
    }
    pcc_strv_push(&cmd, runtime);
    if (PPT_CC_RT_LDFLAGS[0]) {
      pcc_strv_push(&cmd, PPT_CC_RT_LDFLAGS);
      /* The sanitizers' runtime has weak SanitizerCoverage callbacks of its own, which
       * would satisfy the program's calls without the runtime's rt.o: ask for rt.o. */
      pcc_strv_push(&cmd, "-Wl,--undefined=ppt_rt_event");
    }
    pcc_strv_push(&cmd, "-lzstd");
    pcc_strv_push(&cmd, "-lpthread");
  }
  int code = 0;
  if (rc == 0 && (rc = run_cmd(j, &cmd, &code, err)) == 0) rc = code;
  pcc_strv_free(&cmd);
  free(runtime);
  return rc;
}

/* Runs clang with the user's arguments as they are. */
static int passthrough(const pcc_cmdline *cl, const tool *t, char **argv, ppt_err *err) {
  const char *clang = t->clang;
  if (cl->clang_help) {
    printf("%s: the help of %s follows; `%s --ppt-help` describes %s itself.\n", t->name, clang, t->name,
           t->name);
    fflush(stdout);
  }
  argv[0] = (char *)clang;
  execvp(clang, argv);
  return ppt_err_set(err, PPT_ERUN, "ppt-cc: cannot run %s: %s", clang, strerror(errno));
}

int main(int argc, char **argv) {
  ppt_err err;
  ppt_err_clear(&err);
  const tool t = pick_tool(argv[0]);
  pcc_cmdline cl;
  if (pcc_args_parse_lang(argc, argv, t.cxx, &cl, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return err.status;
  }
  if (cl.ppt_help) {
    print_ppt_help(&t);
    pcc_args_free(&cl);
    return 0;
  }
  if (cl.passthrough) {
    passthrough(&cl, &t, argv, &err);
    fprintf(stderr, "%s\n", err.msg);
    pcc_args_free(&cl);
    return err.status;
  }
  if (cl.lto)
    fprintf(stderr,
            "ppt-cc: warning: -flto ignored: the block table must describe the final "
            "code\n");

  job j;
  memset(&j, 0, sizeof j);
  j.cl = &cl;
  j.clang = t.clang;
  int verbose = env_int("PPT_CC_VERBOSE");
  j.log_blocks = verbose >= 2;
  pcc_run_init(&j.run, verbose >= 1);
  int rc = pcc_tmpdir_make(&j.tmp, &err);
  /* llvm-mca: $PPT_CC_MCA ("none": do without), else the newest found at configure
   * time (PPT_CC_MCA_NATIVE: LLVM 17 or later, which names the host itself). */
  const char *mca = getenv("PPT_CC_MCA");
  int own = !(mca && *mca);
  pcc_mca_host_cpu(j.mca_cpu, sizeof j.mca_cpu, own && PPT_CC_MCA_NATIVE);
  j.mca = (pcc_mca_cfg){.run = &j.run,
                        .tmp = &j.tmp,
                        .tool = own ? PPT_CC_DEFAULT_MCA : strcmp(mca, "none") ? mca : NULL,
                        .cpu = j.mca_cpu,
                        .verbose = verbose >= 1};
  if (rc == 0) rc = cl.compile_only ? compile_mode(&j, &err) : link_mode(&j, &err);
  if (err.status != PPT_OK) fprintf(stderr, "%s\n", err.msg);
  pcc_tmpdir_remove(&j.tmp, env_int("PPT_CC_KEEP_TEMPS"));
  pcc_args_free(&cl);
  pcc_run_finish(&j.run); /* a pending SIGINT/SIGTERM ends ppt-cc here, after clean-up */
  return rc > 255 ? 1 : rc;
}

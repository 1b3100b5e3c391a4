/* rt.c — the tracing runtime linked into every ppt-cc-built program.
 *
 * SanitizerCoverage calls us at every basic block (trace-pc-guard) and before every load
 * and store (trace-loads/-stores). Each thread encodes its own stream into a private raw
 * chunk (no locks on the hot path); a full chunk is compressed by that thread and appended
 * to the shared file under a short lock. At exit every live thread's chunk is flushed
 * and the tables and footer are written. Memory per thread: one 512 KiB chunk, its
 * compressed copy and 64 KiB of codec state, whatever the run length.
 *
 * This file is the one place in ppt with process-global mutable state: callbacks from
 * instrumented code carry no context, so the trace writer and the guard count must be
 * globals. Tracing is on only when PPT_TRACE_FILE is set (`ppt trace` sets it).
 *
 * One process, one trace (docs/ppt-cc.md, "Programs that fork or run other programs"):
 * the first ppt-cc-built process started with PPT_TRACE_FILE set, while that file does not
 * exist yet, records; it removes the variable from its own environment at once, so no
 * program it runs (system, popen, exec) ever sees it, and a fork()ed copy of it stops
 * recording in the child (rt_atfork_child) without touching the parent's file. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ppt/trace.h"
#include "trace/codec.h"
#include "trace/ownheap.h"

#include "trace/runtime/rt.h"
#include "trace/writer.h"

/* In ppt's sanitizer build the runtime is checked inside every program the tests trace
 * (models/trace/CMakeLists.txt): heap and stack errors are what is looked for, so the
 * programs' own allocations are kept out of LeakSanitizer's report (test programs exit
 * without freeing), thread by thread from the first block each runs. */
#ifdef PPT_RT_SANITIZE
#include <sanitizer/lsan_interface.h>
#define rt_lsan_off() __lsan_disable()
#else
#define rt_lsan_off() ((void)0)
#endif

typedef struct rt_thread {
  ppt_trace_enc *enc; /* NULL: this thread does not trace */
  uintptr_t stack_lo;
  uintptr_t stack_size;
  struct rt_thread *next; /* registry of live threads, for the exit flush */
  /* The encoder's state at the last cut of ppt trace --roi FUNCTION (rt_roi_cut), to
   * which the exit restores it when what followed is dropped (rt_roi_discard). */
  uint32_t cut_seq, cut_bb, cut_k;
} rt_thread;

static struct {
  pthread_mutex_t lock;
  ppt_trace_writer *w;
  uint32_t nguards;
  int finished;
  rt_thread *threads;
  pthread_key_t key;
  char *path; /* PPT_TRACE_FILE as read at start: the variable is gone afterwards */
  /* PPT_TRACE_STATUS_FD: ppt trace's pipe, told what became of the trace (rt_status);
   * -1 when the program runs outside ppt trace. */
  int status_fd;
  int err; /* errno of the first failed write of a thread that has exited (0: none) */
  /* PPT_TRACE_THREADS: the team size ppt trace asked for, forced on the program's own
   * requests (0: not tracing, requests pass through); the largest request and how many. */
  int team;
  _Atomic int64_t asked_max, asked_n;
  _Atomic int par_depth;    /* parallel regions under way (PPT_EV_PAR_BEGIN .. _END) */
  _Atomic uint64_t regions; /* PPT_EV_PAR_BEGIN so far: tells one region from the next */
  int roi_depth;            /* PPT_ROI_BEGIN nesting; changed in serial code only */
  _Atomic int roi_warned;
  /* ppt trace --roi FUNCTION (PPT_TRACE_ROI), tracked in serial code only: per block id,
   * FUNCTION's entry flag (NULL: no such region); whether a call is under way and the
   * stack pointer of its frame; whether it ran; whether a cut was made and the file's
   * length then (rt_cut.c says why). */
  unsigned char *roi_kind;
  char *roi_func;
  int roi_active, roi_entered, roi_cut;
  int roi_inlined;   /* the active region began in code inlined from FUNCTION */
  int roi_tentative; /* ... in a block that begins in other code (rt_roi_inside) */
  int roi_returning; /* the active call's outermost frame ran its return block */
  int roi_spec;      /* a parallel region before FUNCTION ever ran is being recorded in case
                        FUNCTION is called inside it (ppt_rt_roi_join) */
  int roi_muted;     /* recording stopped for a region forked by other code (ppt_rt_roi_fork) */
  _Atomic int roi_par_hit; /* a thread ran a block of FUNCTION in the current region */
  uintptr_t roi_sp;
  uint64_t roi_cut_off;
} rt = {.lock = PTHREAD_MUTEX_INITIALIZER, .status_fd = -1};

/* Tells ppt trace what became of the trace: 'C' claimed (this process writes it), 'K'
 * complete, 'F' + errno failed. ppt trace then reports a full disk as a failure with the
 * system's reason (one line, exit 1), not as a program built without ppt-cc. Returns
 * whether ppt trace is listening (if not, the runtime says it on stderr itself). */
static int rt_status(char what, int err) {
  if (rt.status_fd < 0) return 0;
  unsigned char msg[5] = {(unsigned char)what};
  memcpy(msg + 1, &err, sizeof err);
  ssize_t n = write(rt.status_fd, msg, what == 'F' ? 5 : 1);
  return n > 0;
}

/* Whether records are written now: always, unless the program holds region-of-interest
 * markers (ppt/roi.h), and then only between PPT_ROI_BEGIN and PPT_ROI_END. One flag for
 * the whole process, set in serial code only; the hot path reads it relaxed (a plain
 * load), as the fork of the next parallel region orders it for the worker threads. */
static _Atomic int rt_rec = 1;

/* A thread that does not trace points here, so the hot path tests one pointer. */
static rt_thread rt_off;
static __thread rt_thread *tls_thr __attribute__((tls_model("initial-exec")));

static void rt_thread_detach(void *p) {
  rt_thread *t = p;
  pthread_mutex_lock(&rt.lock);
  if (!rt.finished && t->enc) {
    /* a thread's last chunk that cannot be written loses the trace (rt_finish says why) */
    if (ppt_trace_enc_flush(t->enc) && !rt.err) rt.err = t->enc->err ? t->enc->err : EIO;
    for (rt_thread **pp = &rt.threads; *pp; pp = &(*pp)->next)
      if (*pp == t) {
        *pp = t->next;
        break;
      }
    ppt_trace_enc_free(t->enc);
    ppt_own_free(t);
  }
  pthread_mutex_unlock(&rt.lock);
  tls_thr = &rt_off;
}

static rt_thread *rt_thread_attach(void) {
  rt_thread *t = &rt_off;
  rt_lsan_off();
  pthread_mutex_lock(&rt.lock);
  if (rt.w && !rt.finished) {
    rt_thread *n = ppt_own_alloc(sizeof *n);
    if (n && (n->enc = ppt_trace_enc_new(rt.w))) {
      uintptr_t lo;
      size_t sz;
      if (ppt_rt_stack_bounds((uintptr_t)__builtin_frame_address(0), &lo, &sz) == 0) {
        n->stack_lo = lo;
        n->stack_size = sz;
      }
      n->next = rt.threads;
      rt.threads = n;
      pthread_setspecific(rt.key, n);
      t = n;
    } else {
      ppt_own_free(n);
    }
  }
  pthread_mutex_unlock(&rt.lock);
  tls_thr = t;
  return t;
}

static inline ppt_trace_enc *rt_enc(void) {
  rt_thread *t = tls_thr;
  if (__builtin_expect(t == NULL, 0)) t = rt_thread_attach();
  return t->enc;
}

/* ppt trace --roi FUNCTION. "From FUNCTION's first entry to its last return": the first
 * entry starts recording; every outermost return cuts a chunk boundary (rt_roi_cut) and
 * recording goes on, since a later call makes what runs in between part of the region;
 * at exit, what followed the last cut is dropped (rt_roi_discard, then rt_cut.c).
 * A return is seen on the stack, not in a block: the callbacks run at the start of a
 * block, and FUNCTION's return block may call anything (a parallel region) before its
 * `ret`. The caller's stack pointer at a callback (sp, rt_caller_sp) equals FUNCTION's
 * frame inside it, is lower in its callees (recursion included) and higher once it has
 * returned (or was left by longjmp or an exception): the first callback from serial code
 * with a higher sp is the cut. Calls made inside parallel regions do not count
 * (recording is one switch for the process, flipped in serial code, as for markers). */
static void rt_roi_cut(void) {
  pthread_mutex_lock(&rt.lock);
  if (rt.w && !rt.finished) {
    for (rt_thread *t = rt.threads; t; t = t->next) {
      ppt_trace_enc *e = t->enc;
      if (!e) continue;
      if (ppt_trace_enc_flush(e) && !rt.err) rt.err = e->err ? e->err : EIO;
      t->cut_seq = e->seq;
      t->cut_bb = e->bb;
      t->cut_k = e->k;
    }
    /* every chunk so far is appended (pwrite): the file's length is where the next begins */
    struct stat st;
    if (stat(rt.path, &st) == 0) {
      rt.roi_cut_off = (uint64_t)st.st_size;
      rt.roi_cut = 1;
    } else if (!rt.err) {
      rt.err = errno;
    }
  }
  pthread_mutex_unlock(&rt.lock);
}

/* The stack pointer of the instrumented code that called the callback this is inlined
 * in (x86-64: the return address and the saved frame pointer lie between). */
#define rt_caller_sp() ((uintptr_t)__builtin_frame_address(0) + 16)

/* Code of FUNCTION inlined into a caller has no entry or return of its own: it starts at
 * the first block of it that runs and ends at the first block of the caller's own code in
 * the caller's frame (same sp, holding no code inlined from FUNCTION, with a source
 * line); its callees run lower on the stack, a fork from it at the same sp, and the
 * caller's return higher, as for a call. A block is the unit: one that begins in other
 * code and goes on into FUNCTION's (PPT_RT_ROI_ALSO) starts the region tentatively, until
 * a block that begins in FUNCTION's code confirms it; a region forked meanwhile by that
 * other code is left out (ppt_rt_roi_fork). */
static int rt_roi_inside(unsigned char kind, uintptr_t sp, int fork) {
  if (sp < rt.roi_sp) return 1;
  if (sp > rt.roi_sp) return 0;
  if (fork) return 1;
  if (rt.roi_inlined) return (kind & (PPT_RT_ROI_INLINED | PPT_RT_ROI_ALSO | PPT_RT_ROI_NOLINE)) != 0;
  /* Out of line, a frame at FUNCTION's own depth is FUNCTION's, or once its return block
   * ran, the next function its caller calls (which may well have the same frame size). */
  return (kind & PPT_RT_ROI_OWN) || !rt.roi_returning;
}

/* id: the block entered, 0 for a parallel region's fork. */
static void rt_roi_at(uint32_t id, uintptr_t sp) {
  unsigned char kind = id && id <= rt.nguards ? rt.roi_kind[id] : 0;
  if (atomic_load_explicit(&rt.par_depth, memory_order_relaxed) > 0) {
    /* a call inside a parallel region (an orphaned worksharing loop's function): the
     * region is the unit (ppt_rt_roi_join) */
    if ((kind & (PPT_RT_ROI_OWN | PPT_RT_ROI_INLINED | PPT_RT_ROI_ALSO)) &&
        !atomic_load_explicit(&rt.roi_par_hit, memory_order_relaxed))
      atomic_store_explicit(&rt.roi_par_hit, 1, memory_order_relaxed);
    return;
  }
  if (rt.roi_active) {
    if (rt_roi_inside(kind, sp, id == 0)) { /* still inside FUNCTION */
      if (kind & (PPT_BB_FUNC_ENTRY | PPT_RT_ROI_INLINED)) rt.roi_tentative = 0;
      if (sp == rt.roi_sp && (kind & PPT_BB_RETURN)) rt.roi_returning = 1;
      return;
    }
    rt.roi_active = 0;
    rt_roi_cut();
  }
  if (kind & (PPT_BB_FUNC_ENTRY | PPT_RT_ROI_INLINED | PPT_RT_ROI_ALSO)) {
    rt.roi_active = rt.roi_entered = 1;
    rt.roi_inlined = !(kind & PPT_BB_FUNC_ENTRY);
    rt.roi_tentative = !(kind & (PPT_BB_FUNC_ENTRY | PPT_RT_ROI_INLINED));
    rt.roi_returning = (kind & PPT_BB_FUNC_ENTRY) && (kind & PPT_BB_RETURN);
    rt.roi_sp = sp;
    atomic_store_explicit(&rt_rec, 1, memory_order_relaxed);
  }
}

/* The function part of libomp's source position ";file;function;line;col;;". */
static int rt_psource_is(const char *psource, const char *func) {
  const char *f = psource ? strchr(psource + (*psource == ';'), ';') : NULL;
  if (!f) return 0;
  f++;
  const char *end = strchr(f, ';');
  size_t n = end ? (size_t)(end - f) : strlen(f);
  return strlen(func) == n && strncmp(f, func, n) == 0;
}

/* FUNCTION never ran and the parallel region just joined did not call it either: what it
 * recorded is dropped, the trace starts over as it was at the start (empty), and recording
 * stops again. Serial code: no thread is recording. */
static void rt_roi_restart(void) {
  pthread_mutex_lock(&rt.lock);
  if (rt.w && !rt.finished) {
    for (rt_thread *t = rt.threads; t; t = t->next)
      if (t->enc) ppt_trace_enc_reset(t->enc);
    if (ppt_trace_writer_reset(rt.w) && !rt.err) rt.err = errno ? errno : EIO;
  }
  pthread_mutex_unlock(&rt.lock);
  atomic_store_explicit(&rt_rec, 0, memory_order_relaxed);
}

/* Calls of FUNCTION inside parallel regions (an orphaned worksharing loop, a solver's
 * kernel called from a region's body): recording is one switch for the process, so the
 * unit is the region. Until FUNCTION first runs, each region is recorded in case it
 * calls it and dropped at its join if it did not (rt_roi_restart); a region that did
 * call it counts as a call that returns at the join (later code is inside the region of
 * interest only up to the last such return, as between serial calls). */
void ppt_rt_roi_join(void) {
  if (!rt.roi_kind || atomic_load_explicit(&rt.par_depth, memory_order_relaxed) > 0) return;
  if (rt.roi_muted) {
    rt.roi_muted = 0;
    atomic_store_explicit(&rt_rec, 1, memory_order_relaxed);
  }
  int hit = atomic_exchange(&rt.roi_par_hit, 0);
  if (rt.roi_spec) {
    rt.roi_spec = 0;
    if (!hit) {
      rt_roi_restart();
      return;
    }
    rt.roi_entered = 1;
  }
  if (hit && !rt.roi_active) rt_roi_cut();
}

void ppt_rt_roi_fork(uintptr_t sp, const char *psource) {
  if (!rt.roi_kind) return;
  rt_roi_at(0, sp);
  if (atomic_load_explicit(&rt.par_depth, memory_order_relaxed)) return;
  atomic_store_explicit(&rt.roi_par_hit, 0, memory_order_relaxed);
  if (!rt.roi_active && !rt.roi_entered) {
    rt.roi_spec = 1;
    atomic_store_explicit(&rt_rec, 1, memory_order_relaxed);
  } else if (rt.roi_active && rt.roi_tentative && sp == rt.roi_sp && !rt_psource_is(psource, rt.roi_func)) {
    /* forked by the other code the tentative block began with: not FUNCTION's region */
    rt.roi_muted = 1;
    atomic_store_explicit(&rt_rec, 0, memory_order_relaxed);
  }
}

/* At exit (rt.lock held), when FUNCTION's last call returned and a cut followed it: the
 * records since are not part of the region. Each encoder forgets them and takes back its
 * state at the cut, so the exit flush continues its stream where the cut left it.
 * Returns the file's length then (the chunks from the cut up to it are removed after the
 * trace is closed), or 0 when nothing is to be dropped. */
static uint64_t rt_roi_discard(void) {
  if (!rt.roi_kind || !rt.roi_cut || rt.roi_active) return 0;
  for (rt_thread *t = rt.threads; t; t = t->next) {
    ppt_trace_enc *e = t->enc;
    if (!e) continue;
    e->pos = e->buf;
    e->nrecs = e->nrefs = e->nother = 0;
    e->seq = t->cut_seq;
    e->bb = e->start_bb = t->cut_bb;
    e->k = e->start_k = t->cut_k;
    memset(e->sites, 0, sizeof e->sites);
  }
  struct stat st;
  return stat(rt.path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* The program's own team-size requests, as one event at the end of thread 0's stream
 * (the main thread's), written whatever the region of interest: it describes the run. */
static void rt_note_threads_asked(void) {
  int64_t v[2] = {atomic_load(&rt.asked_max), atomic_load(&rt.asked_n)};
  if (!v[1]) return;
  rt_thread *first = NULL;
  for (rt_thread *t = rt.threads; t; t = t->next)
    if (t->enc && (!first || t->enc->thread < first->enc->thread)) first = t;
  if (first) ppt_trace_enc_event(first->enc, PPT_EV_THREADS_ASKED, v, 2);
}

static void rt_finish(void) {
  pthread_mutex_lock(&rt.lock);
  if (!rt.w || rt.finished) {
    pthread_mutex_unlock(&rt.lock);
    return;
  }
  rt.finished = 1;
  int bad = rt.err;
  uint64_t tail = rt_roi_discard();
  rt_note_threads_asked();
  for (rt_thread *t = rt.threads; t; t = t->next) {
    ppt_trace_enc *e = t->enc;
    t->enc = NULL; /* late callbacks (other exit handlers) stop recording */
    if ((ppt_trace_enc_flush(e) || e->failed) && !bad) bad = e->err ? e->err : EIO;
    ppt_trace_enc_free(e);
  }
  unsigned char *tab = NULL;
  uint32_t size = 0;
  errno = 0;
  if (bad || ppt_rt_build_bbtab(rt.nguards, &tab, &size) || ppt_trace_writer_close(rt.w, tab, size)) {
    int e = bad ? bad : errno ? errno : EIO;
    if (bad || !tab) ppt_trace_writer_abort(rt.w);
    if (!rt_status('F', e))
      fprintf(stderr, "ppt runtime: %s: could not write the trace: %s\n", rt.path, strerror(e));
  } else if (tail && ppt_rt_trace_cut(rt.path, rt.roi_cut_off, tail)) {
    int e = errno ? errno : EIO;
    if (!rt_status('F', e))
      fprintf(stderr, "ppt runtime: %s: could not cut the trace at the region's end: %s\n", rt.path,
              strerror(e));
  } else {
    /* 'N': FUNCTION never ran, the trace is empty (ppt trace says so and keeps nothing) */
    if (rt.roi_kind && !rt.roi_entered && !rt_status('N', 0))
      fprintf(stderr, "ppt runtime: %s: --roi %s: the function was never called; the trace is empty\n",
              rt.path, rt.roi_func);
    rt_status('K', 0);
  }
  free(tab);
  rt.w = NULL;
  pthread_mutex_unlock(&rt.lock);
}

/* fork(): the child holds copies of the parent's writer, encoders and unflushed chunks,
 * and a descriptor of the same file. Writing any of it (a full chunk, the exit flush)
 * would interleave with the parent's own writes and corrupt its trace, so the child stops
 * recording here, before fork returns in it, and never flushes: its copies are abandoned
 * (copy-on-write pages, freed with the process). rt.lock is held across fork so the child
 * does not inherit it locked by a thread that does not exist there. */
static void rt_atfork_prepare(void) {
  pthread_mutex_lock(&rt.lock);
}
static void rt_atfork_parent(void) {
  pthread_mutex_unlock(&rt.lock);
}
static void rt_atfork_child(void) {
  rt.w = NULL;     /* rt_finish (atexit) and new threads see no trace */
  rt.finished = 1; /* thread-exit destructors flush nothing */
  rt.threads = NULL;
  rt.team = 0;       /* the child is not traced: its requests pass through */
  tls_thr = &rt_off; /* the forking thread, the only one in the child, stops at once */
  if (rt.status_fd >= 0) close(rt.status_fd); /* the child's exit says nothing of the trace */
  rt.status_fd = -1;
  pthread_mutex_unlock(&rt.lock);
}

/* PPT_ROI_BEGIN leaves a byte in section ppt_roi (include/ppt/roi.h): the linker's bounds
 * of it tell, before main, whether the program has markers at all, so the set-up before
 * the first one is never written. Weak: a program without markers has no such section. */
extern const char __start_ppt_roi[] __attribute__((weak));
extern const char __stop_ppt_roi[] __attribute__((weak));

/* --roi FUNCTION: its blocks, found before main (the guards are numbered by then:
 * SanitizerCoverage's module constructors run first). A name that matches no block is
 * bad input, reported before the program runs ('M' to ppt trace). */
static int rt_roi_init(void) {
  uint32_t nblocks = 0;
  rt.roi_kind = ppt_rt_roi_kinds(rt.nguards, rt.roi_func, &nblocks);
  if (rt.roi_kind && nblocks) return 0;
  if (!rt.roi_kind || !rt_status('M', 0))
    fprintf(stderr, "ppt runtime: --roi %s: %s\n", rt.roi_func,
            rt.roi_kind ? "no function of that name in the program's block table" : "out of memory");
  return -1;
}

/* Runs before main (and before most constructors): open the trace if asked to. */
__attribute__((constructor(101))) static void rt_init(void) {
  rt_lsan_off();
  pthread_key_create(&rt.key, rt_thread_detach);
  const char *path = getenv("PPT_TRACE_FILE");
  if (!path || !*path) return;
  /* Claim the trace: copy the name, then remove the variable before anything can start
   * another program, so children of any kind run untraced. A file already there belongs
   * to an earlier process of the same run (a wrapper script's second program): leave it. */
  rt.path = ppt_own_strdup(path);
  unsetenv("PPT_TRACE_FILE");
  const char *sfd = getenv("PPT_TRACE_STATUS_FD");
  int status_fd = sfd && *sfd ? atoi(sfd) : -1;
  unsetenv("PPT_TRACE_STATUS_FD");
  const char *team = getenv("PPT_TRACE_THREADS");
  int nteam = team && *team ? atoi(team) : 0;
  unsetenv("PPT_TRACE_THREADS");
  const char *roi = getenv("PPT_TRACE_ROI");
  rt.roi_func = roi && *roi ? ppt_own_strdup(roi) : NULL;
  unsetenv("PPT_TRACE_ROI");
  if (!rt.path || access(rt.path, F_OK) == 0) return;
  /* Only the process that claims the trace reports on it; programs it starts do not
   * inherit the pipe. */
  if (status_fd >= 0 && fcntl(status_fd, F_SETFD, FD_CLOEXEC) == 0) rt.status_fd = status_fd;
  if (rt.roi_func && rt_roi_init()) exit(2);
  const char *lv = getenv("PPT_TRACE_ZSTD_LEVEL");
  int level = lv ? atoi(lv) : 3;
  pthread_atfork(rt_atfork_prepare, rt_atfork_parent, rt_atfork_child);
  pthread_mutex_lock(&rt.lock);
  rt.w = ppt_trace_writer_open(rt.path, level);
  pthread_mutex_unlock(&rt.lock);
  if (!rt.w) {
    int e = errno;
    if (!rt_status('F', e))
      fprintf(stderr, "ppt runtime: %s: cannot create trace: %s\n", rt.path, strerror(e));
    exit(1);
  }
  rt_status('C', 0);
  rt.team = nteam > 0 ? nteam : 0;
  /* A program with region-of-interest markers records nothing until the first one, and
   * with --roi FUNCTION nothing until FUNCTION's first call. */
  if (rt.roi_kind) atomic_store(&rt_rec, 0);
  if (__start_ppt_roi && __start_ppt_roi != __stop_ppt_roi) atomic_store(&rt_rec, 0);
  /* A thread that already ran instrumented code before we opened the file is re-attached. */
  tls_thr = NULL;
  atexit(rt_finish);
}

/* Block ids 1..N in guard order; called once per instrumented module with the same range
 * for the whole executable, so only the first call numbers the guards. */
void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop) {
  if (start == stop || *start) return;
  uint32_t n = 0;
  for (uint32_t *g = start; g < stop; g++) *g = ++n;
  pthread_mutex_lock(&rt.lock);
  rt.nguards += n;
  pthread_mutex_unlock(&rt.lock);
}

/* The PC table is not needed: ppt-cc's descriptors carry function, file and line. */
void __sanitizer_cov_pcs_init(const uintptr_t *beg, const uintptr_t *end) {
  (void)beg;
  (void)end;
}

void __sanitizer_cov_trace_pc_guard(uint32_t *guard) {
  ppt_trace_enc *e = rt_enc();
  if (__builtin_expect(rt.roi_kind != NULL, 0)) rt_roi_at(*guard, rt_caller_sp());
  if (e && atomic_load_explicit(&rt_rec, memory_order_relaxed)) ppt_trace_enc_bb(e, *guard);
}

void ppt_rt_event(unsigned type, const int64_t *v, unsigned n) {
  if (type == PPT_EV_PAR_BEGIN) {
    atomic_fetch_add(&rt.regions, 1);
    atomic_fetch_add(&rt.par_depth, 1);
  }
  if (type == PPT_EV_PAR_END) atomic_fetch_sub(&rt.par_depth, 1);
  ppt_trace_enc *e = rt_enc();
  if (e && atomic_load_explicit(&rt_rec, memory_order_relaxed)) ppt_trace_enc_event(e, type, v, n);
}

/* Per thread: inside how many single or master constructs it runs (what one thread
 * allocates there is the team's, not its own), and the region (rt.regions) in which it
 * last asked for its number and for the team's size. */
static __thread int tls_solo __attribute__((tls_model("initial-exec")));
static __thread uint64_t tls_asked[2] __attribute__((tls_model("initial-exec")));

void ppt_rt_solo(int delta) {
  tls_solo += delta;
}

void ppt_rt_heap_block(const void *p, size_t n) {
  if (!p || atomic_load_explicit(&rt.par_depth, memory_order_relaxed) <= 0 || tls_solo > 0) return;
  int64_t v[2] = {(int64_t)(uintptr_t)p, (int64_t)n};
  ppt_rt_event(PPT_EV_ALLOC, v, 2);
}

void ppt_rt_team_query(int what) {
  if (what < 0 || what > 1 || atomic_load_explicit(&rt.par_depth, memory_order_relaxed) <= 0) return;
  uint64_t region = atomic_load_explicit(&rt.regions, memory_order_relaxed);
  if (tls_asked[what] == region) return; /* once per region: programs ask in inner loops */
  tls_asked[what] = region;
  int64_t v[1] = {what};
  ppt_rt_event(PPT_EV_TEAM_QUERY, v, 1);
}

int ppt_rt_threads_request(int n) {
  if (!rt.team) return n;
  int64_t m = atomic_load(&rt.asked_max);
  while (n > m && !atomic_compare_exchange_weak(&rt.asked_max, &m, n)) {
  }
  atomic_fetch_add(&rt.asked_n, 1);
  return rt.team;
}

/* Regions of interest: a nesting count in serial code, where no other thread records. A
 * marker inside a parallel region would switch recording for threads mid-loop (and race
 * with them): it is an error, said once, and ignored; so is an END without a BEGIN. */
static int rt_roi_misplaced(const char *what, int end) {
  const char *why = NULL;
  if (atomic_load(&rt.par_depth) > 0)
    why = "inside a parallel region";
  else if (end && rt.roi_depth == 0)
    why = "without PPT_ROI_BEGIN";
  if (why && !atomic_exchange(&rt.roi_warned, 1))
    fprintf(stderr, "ppt runtime: %s %s ignored (regions of interest begin and end in serial code)\n", what,
            why);
  return why != NULL;
}

/* With ppt trace --roi FUNCTION the function decides alone: the markers are ignored. */
void ppt_roi_begin(void) {
  if (!rt.w || rt.roi_kind || rt_roi_misplaced("PPT_ROI_BEGIN", 0)) return;
  if (rt.roi_depth++ == 0) atomic_store_explicit(&rt_rec, 1, memory_order_relaxed);
}

void ppt_roi_end(void) {
  if (!rt.w || rt.roi_kind || rt_roi_misplaced("PPT_ROI_END", 1)) return;
  if (--rt.roi_depth == 0) atomic_store_explicit(&rt_rec, 0, memory_order_relaxed);
}

/* Inlined into each callback: a call per reference less on the hottest path of all. */
__attribute__((always_inline)) static inline void rt_mem(const void *p, unsigned kind, unsigned lg) {
  rt_thread *t = tls_thr;
  if (__builtin_expect(t == NULL, 0)) t = rt_thread_attach();
  if (!t->enc || !atomic_load_explicit(&rt_rec, memory_order_relaxed)) return;
  uintptr_t a = (uintptr_t)p;
  unsigned stack = (a - t->stack_lo) < t->stack_size;
  ppt_trace_enc_mem(t->enc, kind, lg, stack, a);
}

#define PPT_RT_MEM(n, lg)                        \
  void __sanitizer_cov_load##n(const void *p) {  \
    rt_mem(p, PPT_REC_LOAD, lg);                 \
  }                                              \
  void __sanitizer_cov_store##n(const void *p) { \
    rt_mem(p, PPT_REC_STORE, lg);                \
  }
PPT_RT_MEM(1, 0)
PPT_RT_MEM(2, 1)
PPT_RT_MEM(4, 2)
PPT_RT_MEM(8, 3)
PPT_RT_MEM(16, 4)

/* Accesses SanitizerCoverage does not report, called by code ppt-cc adds (apps/ppt-cc/
 * widemem.c, rules in memop.h): 32- and 64-byte vectors have their own entry points, as
 * the hot path of AVX code; the rest (odd sizes, vectors wider than the target's
 * registers, masked accesses, gather lanes, atomics) go through one that records
 * ceil(n / 2^lg) references of 2^lg bytes, each at the next 2^lg bytes. */
#define PPT_RT_WIDE(n, lg)             \
  void __ppt_load##n(const void *p) {  \
    rt_mem(p, PPT_REC_LOAD, lg);       \
  }                                    \
  void __ppt_store##n(const void *p) { \
    rt_mem(p, PPT_REC_STORE, lg);      \
  }
PPT_RT_WIDE(32, 5)
PPT_RT_WIDE(64, 6)

static inline void rt_mem_n(const void *p, unsigned kind, uint64_t n, uint32_t lg) {
  if (lg > PPT_CODEC_LG_MAX) lg = PPT_CODEC_LG_MAX; /* what the reader accepts */
  const char *c = p;
  for (uint64_t off = 0; off < n; off += 1ull << lg) rt_mem(c + off, kind, lg);
}

void __ppt_load_n(const void *p, uint64_t n, uint32_t lg) {
  rt_mem_n(p, PPT_REC_LOAD, n, lg);
}
void __ppt_store_n(const void *p, uint64_t n, uint32_t lg) {
  rt_mem_n(p, PPT_REC_STORE, n, lg);
}

/* Masked loads and stores, and each gather/scatter lane: only when a lane is active (an
 * all-false mask touches no memory; its address may not even be valid). */
void __ppt_load_masked(const void *p, uint64_t n, uint32_t lg, uint64_t active) {
  if (active) rt_mem_n(p, PPT_REC_LOAD, n, lg);
}
void __ppt_store_masked(const void *p, uint64_t n, uint32_t lg, uint64_t active) {
  if (active) rt_mem_n(p, PPT_REC_STORE, n, lg);
}

/* llvm.memcpy/memmove and llvm.memset, whether the backend inlines them or calls libc
 * (which is not traced): 16-byte steps, a load and a store each, as glibc's SSE2 loop. */
void __ppt_memcpy(void *dst, const void *src, uint64_t n) {
  const char *s = src;
  char *d = dst;
  for (uint64_t off = 0; off < n; off += 16) {
    rt_mem(s + off, PPT_REC_LOAD, 4);
    rt_mem(d + off, PPT_REC_STORE, 4);
  }
}
void __ppt_memset(void *dst, uint64_t n) {
  rt_mem_n(dst, PPT_REC_STORE, n, 4);
}

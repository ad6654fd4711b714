/* failmalloc.c - an LD_PRELOAD shim for test_oom.sh: the OOM_AT-th call
 * to malloc, calloc, realloc, posix_memalign or aligned_alloc fails
 * (NULL, errno ENOMEM); every other call goes to libc. OOM_COUNT set:
 * the number of calls is written to stderr at exit (OOM_COUNT=/PATH:
 * appended to that file). The failed call's
 * caller (the first frame outside libc and this shim) is written as
 * "failmalloc: caller OBJECT+0xOFFSET", for addr2line. Calls made while
 * dlsym looks libc up are served from a static buffer. Children run
 * without it.
 * OOM_ONLY=TEXT: only calls whose caller's object name contains TEXT are
 * counted (and can fail): libfsvc's own, inside a Python process. A
 * program drives it through failmalloc_arm(k) (the k-th counted call from
 * now fails; 0: none) and failmalloc_calls() (counted since the last arm),
 * as tests/python/test_oom.py does through ctypes. OOM_RANK=R: only the
 * Open MPI rank R (OMPI_COMM_WORLD_RANK) fails and reports. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *(*r_malloc)(size_t), *(*r_calloc)(size_t, size_t), *(*r_realloc)(void *, size_t);
static void (*r_free)(void *);
static int (*r_memalign)(void **, size_t, size_t);
static void *(*r_aligned)(size_t, size_t);
static atomic_long calls;
static long fail_at = -1;
static int state, report; /* state: 0 not set up, 1 looking libc up, 2 ready */
static const char *only;  /* OOM_ONLY */
static _Thread_local int inside; /* a call made by the filter's own backtrace */
static _Alignas(16) char boot[1 << 16];
static size_t boot_used;

static int in_boot(const void *p) { return (const char *)p >= boot && (const char *)p < boot + sizeof boot; }

static void *boot_alloc(size_t n)
{
    size_t at = boot_used;
    boot_used += (n + 15) & ~(size_t)15;
    return boot_used <= sizeof boot ? memset(boot + at, 0, n) : NULL;
}

static void setup(void)
{
    state = 1;
    r_malloc = dlsym(RTLD_NEXT, "malloc");
    r_calloc = dlsym(RTLD_NEXT, "calloc");
    r_realloc = dlsym(RTLD_NEXT, "realloc");
    r_free = dlsym(RTLD_NEXT, "free");
    r_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    r_aligned = dlsym(RTLD_NEXT, "aligned_alloc");
    const char *s = getenv("OOM_AT");
    fail_at = s ? atol(s) : -1;
    report = getenv("OOM_COUNT") != NULL;
    only = getenv("OOM_ONLY");
    const char *rank = getenv("OOM_RANK"), *mine = getenv("OMPI_COMM_WORLD_RANK");
    if (rank && (!mine || strcmp(rank, mine))) fail_at = -1, report = 0; /* another rank */
    void *warm[2];
    backtrace(warm, 2); /* loads libgcc's unwinder now, not inside a failing call */
    state = 2;
}

/* The first frame outside libc and this shim (a call from fopen or strdup
 * is its caller's failure): its object in *in, its address returned (NULL:
 * none). */
static void *caller(Dl_info *in)
{
    void *bt[16];
    int n = backtrace(bt, 16);
    Dl_info self, libc;
    if (!dladdr((void *)caller, &self) || !dladdr((void *)r_malloc, &libc)) return NULL;
    for (int i = 1; i < n; i++)
        if (dladdr(bt[i], in) && in->dli_fbase != self.dli_fbase &&
            in->dli_fbase != libc.dli_fbase)
            return bt[i];
    return NULL;
}

/* "failmalloc: caller OBJECT+0xOFFSET", for addr2line */
static void who(void *at, const Dl_info *in)
{
    if (!at) return;
    char b[600];
    int k = snprintf(b, sizeof b, "failmalloc: caller %s+0x%lx\n", in->dli_fname,
                     (unsigned long)((char *)at - (char *)in->dli_fbase - 1));
    const char *to = getenv("OOM_COUNT"); /* a path: there too (see done) */
    int fd = to && to[0] == '/' ? open(to, O_WRONLY | O_APPEND | O_CREAT, 0644) : -1;
    if (k > 0 && fd >= 0 && write(fd, b, (size_t)k) < 0) k = 0;
    if (fd >= 0) close(fd);
    if (k > 0 && write(2, b, (size_t)k) < 0) return;
}

static int fails(void *ra)
{
    if (state != 2) setup();
    if (inside) return 0;
    Dl_info in;
    void *at = NULL;
    if (only) {
        /* the direct caller first (one dladdr); the whole stack only for a
         * call from libc (fopen, strdup), as most are not ours */
        static void *libc_base;
        Dl_info libc;
        if (!libc_base && dladdr((void *)r_malloc, &libc)) libc_base = libc.dli_fbase;
        if (!dladdr(ra, &in)) return 0;
        at = ra;
        if (in.dli_fbase == libc_base) {
            inside = 1;
            at = caller(&in);
            inside = 0;
        }
        if (!at || !in.dli_fname || !strstr(in.dli_fname, only)) return 0;
    }
    if (atomic_fetch_add(&calls, 1) + 1 != fail_at) return 0;
    if (!only) {
        inside = 1;
        at = caller(&in);
        inside = 0;
    }
    who(at, &in);
    errno = ENOMEM;
    return 1;
}

void failmalloc_arm(long k)
{
    if (state != 2) setup();
    atomic_store(&calls, 0);
    fail_at = k > 0 ? k : -1;
}

long failmalloc_calls(void)
{
    return atomic_load(&calls);
}

/* the process under test only: a child (gnuplot) starts without the shim,
 * so the counts and failures are fsvc's own */
__attribute__((constructor)) static void start(void)
{
    unsetenv("LD_PRELOAD");
}

__attribute__((destructor)) static void done(void)
{
    if (report) {
        char b[48];
        int k = snprintf(b, sizeof b, "failmalloc calls %ld\n", (long)calls);
        const char *to = getenv("OOM_COUNT");
        /* a path: appended there (a rank's stderr is gone after MPI_Finalize) */
        int fd = to && to[0] == '/' ? open(to, O_WRONLY | O_APPEND | O_CREAT, 0644) : 2;
        if (fd >= 0 && write(fd, b, (size_t)k) < 0) return;
        if (fd > 2) close(fd);
    }
}

void *malloc(size_t n)
{
    if (state == 1) return boot_alloc(n);
    return fails(__builtin_return_address(0)) ? NULL : r_malloc(n);
}

void *calloc(size_t a, size_t b)
{
    if (state == 1) return boot_alloc(a * b);
    return fails(__builtin_return_address(0)) ? NULL : r_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
    if (state == 1) return boot_alloc(n);
    if (fails(__builtin_return_address(0))) return NULL;
    if (!in_boot(p)) return r_realloc(p, n);
    void *q = r_malloc(n); /* a boot block: copied out (it is never freed) */
    if (q) memcpy(q, p, n < (size_t)(boot + sizeof boot - (char *)p) ? n : (size_t)(boot + sizeof boot - (char *)p));
    return q;
}

void free(void *p)
{
    if (!p || in_boot(p)) return;
    if (state != 2) setup();
    r_free(p);
}

int posix_memalign(void **p, size_t a, size_t n)
{
    return fails(__builtin_return_address(0)) ? ENOMEM : r_memalign(p, a, n);
}

void *aligned_alloc(size_t a, size_t n)
{
    return fails(__builtin_return_address(0)) ? NULL : r_aligned(a, n);
}

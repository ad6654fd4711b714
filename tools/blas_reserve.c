/* blas_reserve.c - OpenBLAS's work buffers, taken while there is memory.
 *
 * OpenBLAS (Debian's 0.3.21) gives each level-3 call a work buffer of
 * about 128 MiB from a pool that grows when every buffer is in use. When
 * malloc/mmap fails for a new buffer, its allocator retries forever: the
 * process hangs, one core busy, instead of failing. Under an address-space
 * limit (ulimit -v) that is what a nearly full process did (found when a
 * rank of an mpirun job hung the test suite for an hour).
 *
 * fsvc calls BLAS from at most `threads` threads at once (the forward pass
 * runs one GEMM per OpenMP thread; the readout calls from the main thread,
 * whose worker threads hold buffers of their own from OpenBLAS's start).
 * OpenBLAS's own worker threads take their buffers when they start, at
 * the same time as main runs: under a tight limit a worker can spin in
 * that loop forever and the process then hangs at exit, joining it.
 *
 * So before any work fsvc checks that the address space has room for all
 * those buffers (plain mallocs of the same size, given back), waits for
 * OpenBLAS's workers (an empty job on each: wake_workers), and
 * makes each of its own threads take a buffer at the same time and give
 * it back: the pool then holds enough buffers for the whole run and never
 * allocates again. Without room, the run stops at once with one line and
 * exit 3, and the process ends with _exit (cli_blas_reserve_failed): the
 * exit handlers would wait for a worker that never gets its buffer. */
#include "tools/cli.h"

#include <cblas.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* OpenBLAS's pool (exported by libopenblas, not in its headers) */
void *blas_memory_alloc(int procpos);
void blas_memory_free(void *buffer);
int openblas_get_num_threads(void);

/* one buffer and a margin: BUFFER_SIZE is 128 MiB on x86-64 builds */
#define RESERVE_BYTES ((size_t)136 << 20)

static int g_reserved; /* threads whose buffers the pool already holds */
static int g_failed;   /* no room: the process must end with _exit */

int cli_blas_reserve_failed(void) { return g_failed; }

/* OpenBLAS's pthreads pool runs function(args) on numthreads threads, the
 * caller's and numthreads - 1 workers, and waits for them (exported by
 * its pthreads build, weak: other builds have none) */
int gotoblas_pthread(int numthreads, void *function, void *args, int stride)
    __attribute__((weak));

static void nothing(void *arg) { (void)arg; }

/* Returns when every OpenBLAS worker is up and holds its buffer: a worker
 * takes it before it runs its first job, so one empty job each, waited
 * for, is enough (microseconds; the threaded 256^3 dgemm that other
 * builds need took 2 of the 3.3 ms of `train -v 5` on iris). */
static void wake_workers(void)
{
    int n = openblas_get_num_threads();
    if (gotoblas_pthread) {
        if (n > 1) gotoblas_pthread(n, (void *)nothing, NULL, 0);
        return;
    }
    enum { S = 256 }; /* a dgemm big enough for OpenBLAS to hand parts to every worker */
    double *a = calloc((size_t)3 * S * S, sizeof *a);
    if (!a) return;
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, S, S, S, 1.0, a, S, a + S * S, S,
                0.0, a + 2 * S * S, S);
    free(a);
}

static int no_room(int n, int threads, int workers, fsvc_error *err)
{
    g_failed = 1;
    return fsvc_fail(err, FSVC_ERESOURCE, "out of memory: OpenBLAS needs %d work buffers "
                     "of %zu MiB (%d for fsvc's threads, %d for its own) and the address "
                     "space has no room for them (ulimit -v?); give more memory or fewer "
                     "--threads", n, RESERVE_BYTES >> 20, threads, workers);
}

int cli_blas_reserve(int threads, fsvc_error *err)
{
    if (threads < 1) threads = 1;
    if (threads <= g_reserved) return FSVC_OK;
    int workers = g_reserved ? 0 : openblas_get_num_threads() - 1, n = threads + workers;
    void **probe = calloc((size_t)n, sizeof *probe);
    int ok = probe != NULL;
    for (int t = 0; ok && t < n; t++)
        ok = (probe[t] = malloc(RESERVE_BYTES)) != NULL;
    if (probe)
        for (int t = 0; t < n; t++) free(probe[t]);
    free(probe);
    if (!ok) return no_room(n, threads, workers, err);
    if (!g_reserved) wake_workers();
    /* Each thread first takes a plain buffer of its own, all at once: a
     * thread's first large malloc also maps its malloc arena (64 MiB), which
     * the probe above, on one thread, did not count. Only when every thread
     * got one does any of them ask OpenBLAS, whose allocator never fails. */
    int short_of_room = 0;
#ifdef _OPENMP
    #pragma omp parallel num_threads(threads)
    {
        void *p = malloc(RESERVE_BYTES);
        if (!p) {
            #pragma omp atomic write
            short_of_room = 1;
        }
        #pragma omp barrier
        free(p);
        #pragma omp barrier
        int stop;
        #pragma omp atomic read
        stop = short_of_room;
        if (!stop) {
            void *b = blas_memory_alloc(0);
            #pragma omp barrier /* all held at once: distinct buffers */
            blas_memory_free(b);
        }
    }
#else
    void *p = malloc(RESERVE_BYTES);
    short_of_room = p == NULL;
    free(p);
    if (!short_of_room) blas_memory_free(blas_memory_alloc(0));
#endif
    if (short_of_room) return no_room(n, threads, workers, err);
    g_reserved = threads;
    return FSVC_OK;
}

int cli_blas_threads_default(void)
{
#ifdef _OPENMP
    int a = omp_get_max_threads(), b = omp_get_num_procs();
    return a > b ? a : b;
#else
    return 1;
#endif
}

/* forkteam.c - see forkteam.h. */
#include "forkteam.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int ft_comm_init(ft_comm *c, int K)
{
    if (K < 1 || K > FT_MAXK) return -1;
    c->K = K;
    pthread_barrierattr_t a;
    if (pthread_barrierattr_init(&a)) return -1;
    int rc = pthread_barrierattr_setpshared(&a, PTHREAD_PROCESS_SHARED) ||
             pthread_barrier_init(&c->bar, &a, (unsigned)K);
    pthread_barrierattr_destroy(&a);
    return rc ? -1 : 0;
}

static int ft_sum(void *self, void *buf, size_t n, fsvc_dtype t)
{
    ft_member *me = self;
    ft_comm *c = me->c;
    size_t es = t == FSVC_F64 ? 8 : 4;
    if (n * es > FT_SLOT) return FSVC_ERESOURCE;
    memcpy(c->slot[me->rank], buf, n * es);
    pthread_barrier_wait(&c->bar);
    memcpy(buf, c->slot[0], n * es); /* rank order */
    for (int r = 1; r < c->K; r++)
        for (size_t i = 0; i < n; i++) {
            if (es == 8) ((double *)buf)[i] += ((const double *)c->slot[r])[i];
            else ((float *)buf)[i] += ((const float *)c->slot[r])[i];
        }
    pthread_barrier_wait(&c->bar);
    return 0;
}

static int ft_bor(void *self, void *buf, size_t bytes)
{
    ft_member *me = self;
    ft_comm *c = me->c;
    if (bytes > FT_SLOT) return FSVC_ERESOURCE;
    memcpy(c->slot[me->rank], buf, bytes);
    pthread_barrier_wait(&c->bar);
    memset(buf, 0, bytes);
    for (int r = 0; r < c->K; r++)
        for (size_t i = 0; i < bytes; i++)
            ((unsigned char *)buf)[i] |= ((const unsigned char *)c->slot[r])[i];
    pthread_barrier_wait(&c->bar);
    return 0;
}

static int ft_agree(void *self, int status)
{
    ft_member *me = self;
    ft_comm *c = me->c;
    c->st[me->rank] = status;
    pthread_barrier_wait(&c->bar);
    int worst = 0;
    for (int r = 0; r < c->K; r++)
        if (c->st[r] > worst) worst = c->st[r];
    pthread_barrier_wait(&c->bar);
    return worst;
}

fsvc_comm ft_fsvc_comm(ft_member *me)
{
    fsvc_comm d = {me->rank, me->c->K, me, ft_sum, ft_bor, ft_agree, NULL};
    return d;
}

void *ft_shared(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p; /* anonymous maps are zeroed */
}

int ft_run(int K, unsigned alarm_s, void (*rank)(int r, void *arg), void *arg)
{
    pid_t pid[FT_MAXK];
    int bad = 0, started = 0;
    for (int r = 0; r < K && r < FT_MAXK; r++, started++) {
        pid[r] = fork();
        if (pid[r] < 0) { bad = 1; break; }
        if (pid[r] == 0) {
            if (alarm_s) alarm(alarm_s);
            rank(r, arg);
            _exit(0);
        }
    }
    for (int r = 0; r < started; r++) {
        int st = 0;
        if (waitpid(pid[r], &st, 0) != pid[r] || !WIFEXITED(st) || WEXITSTATUS(st) != 0) bad = 1;
    }
    return bad || started != K ? -1 : 0;
}

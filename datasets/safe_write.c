/* safe_write.c - output files that appear whole or not at all.
 *
 * ds_tmp_open puts the new data in an unnamed file (Linux O_TMPFILE) in the
 * target's folder, so a crash or a SIGKILL at any moment leaves nothing
 * behind. ds_tmp_commit checks every write, fsyncs the file, links it in
 * (straight to the target when there is none, else to a temporary name that
 * is renamed over the target, since linkat cannot replace), then fsyncs the
 * folder before reporting success. Where O_TMPFILE is not supported
 * (EOPNOTSUPP, EISDIR, EINVAL), or FSVC_NO_O_TMPFILE is set in the
 * environment, the data goes to a named temporary file next to the target
 * instead; every temporary name on disk is registered, so that
 * ds_tmp_unlink_all() (async-signal-safe) can remove them from a SIGINT or
 * SIGTERM handler. New files get mode 0666 & ~umask. A target that exists
 * and is not a regular file (symbolic link, device, FIFO, folder) is never
 * replaced. The state of each open file lives in a slot found by its FILE*,
 * so the tmp buffer of the API is only informative (the temporary name). */
#include "datasets/datasets.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SLOTS 64

typedef struct tmp_slot {
    atomic_int live;        /* 1 while `name` may exist in dirfd: signals unlink it */
    int used;               /* taken (under lock) */
    FILE *f;
    int dirfd;
    int anon;               /* O_TMPFILE: no name until the commit */
    char name[NAME_MAX + 1];
} tmp_slot;

static tmp_slot slots[SLOTS];
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;

void ds_tmp_unlink_all(void)
{
    /* only atomic loads and unlinkat: async-signal-safe */
    for (int i = 0; i < SLOTS; i++)
        if (atomic_load(&slots[i].live))
            unlinkat(slots[i].dirfd, slots[i].name, 0);
}

static tmp_slot *slot_take(void)
{
    tmp_slot *s = NULL;
    pthread_mutex_lock(&slots_lock);
    for (int i = 0; i < SLOTS && !s; i++)
        if (!slots[i].used) {
            s = &slots[i];
            s->used = 1;
            s->f = NULL;
            s->dirfd = -1;
            s->anon = 0;
            s->name[0] = 0;
        }
    pthread_mutex_unlock(&slots_lock);
    return s;
}

static tmp_slot *slot_find(FILE *f)
{
    tmp_slot *s = NULL;
    pthread_mutex_lock(&slots_lock);
    for (int i = 0; i < SLOTS && !s; i++)
        if (slots[i].used && slots[i].f == f)
            s = &slots[i];
    pthread_mutex_unlock(&slots_lock);
    return s;
}

/* From now on the slot is found by its stream (under the lock: other
 * threads scan every slot's stream in slot_find). */
static void slot_bind(tmp_slot *s, FILE *f)
{
    pthread_mutex_lock(&slots_lock);
    s->f = f;
    pthread_mutex_unlock(&slots_lock);
}

static void slot_release(tmp_slot *s)
{
    atomic_store(&s->live, 0);
    if (s->dirfd >= 0)
        close(s->dirfd);
    pthread_mutex_lock(&slots_lock);
    s->used = 0;
    s->f = NULL;
    s->dirfd = -1;
    pthread_mutex_unlock(&slots_lock);
}

/* A fresh temporary name for base in s->name: ".BASE.XXXXXXXX.tmp" (or
 * ".fsvc.XXXXXXXX.tmp" when BASE is too long for that). */
static void make_name(tmp_slot *s, const char *base)
{
    static const char abc[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    static atomic_uint counter;
    unsigned char r[8];
    if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        unsigned v = (unsigned)getpid() * 2654435761u ^ (unsigned)time(NULL) ^
                     atomic_fetch_add(&counter, 1) * 40503u;
        for (size_t k = 0; k < sizeof r; k++, v = v * 1103515245u + 12345u)
            r[k] = (unsigned char)(v >> 16);
    }
    char rnd[9];
    for (size_t k = 0; k < 8; k++)
        rnd[k] = abc[r[k] % (sizeof abc - 1)];
    rnd[8] = 0;
    if (strlen(base) + 15 <= NAME_MAX)
        snprintf(s->name, sizeof s->name, ".%s.%s.tmp", base, rnd);
    else
        snprintf(s->name, sizeof s->name, ".fsvc.%s.tmp", rnd);
}

/* Creates a named temporary file in s->dirfd, registered before it exists. */
static int create_named(tmp_slot *s, const char *base)
{
    for (int tries = 0; tries < 100; tries++) {
        make_name(s, base);
        atomic_store(&s->live, 1);
        int fd = openat(s->dirfd, s->name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0)
            return fd;
        int e = errno;
        atomic_store(&s->live, 0);
        if (e != EEXIST) {
            errno = e;
            return -1;
        }
    }
    errno = EEXIST;
    return -1;
}

static int no_tmpfile_wanted(void)
{
    const char *v = getenv("FSVC_NO_O_TMPFILE");
    return v && *v && strcmp(v, "0") != 0;
}

/* The folder part of path (malloc'd) and a pointer to its last component. */
static char *split_path(const char *path, const char **base)
{
    const char *slash = strrchr(path, '/');
    *base = slash ? slash + 1 : path;
    if (!slash)
        return strdup(".");
    size_t k = slash == path ? 1 : (size_t)(slash - path);
    char *dir = malloc(k + 1);
    if (dir) {
        memcpy(dir, path, k);
        dir[k] = 0;
    }
    return dir;
}

/* A path too long to name whole in one line: its head and tail. */
static int fail_long(fsvc_error *err, const char *path, size_t len, const char *what,
                     size_t limit)
{
    size_t pl = strlen(path);
    return fsvc_fail(err, FSVC_EINPUT, "%.48s...%s: %s is %zu bytes, longer than the "
                     "%zu the system allows", path, path + (pl > 32 ? pl - 32 : 0), what,
                     len, limit);
}

/* 1 when an entry named base exists in dirfd and is not a regular file. */
static int not_regular(int dirfd, const char *base)
{
    struct stat st;
    return fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode);
}

static int fail_not_regular(fsvc_error *err, const char *path)
{
    return fsvc_fail(err, FSVC_EINPUT, "%s: not a regular file; refusing to replace it", path);
}

int ds_tmp_open(FILE **f, char *tmp, size_t tmpsz, const char *path, fsvc_error *err)
{
    *f = NULL;
    if (tmp && tmpsz)
        tmp[0] = 0;
    if (!path || !*path)
        return fsvc_fail(err, FSVC_EINPUT, "empty output file name");
    size_t len = strlen(path);
    if (len >= PATH_MAX)
        return fail_long(err, path, len, "the path", PATH_MAX - 1);
    const char *base;
    char *dir = split_path(path, &base);
    if (!dir)
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: out of memory", path);
    size_t bl = strlen(base);
    if (bl == 0 || !strcmp(base, ".") || !strcmp(base, "..")) {
        free(dir);
        return fsvc_fail(err, FSVC_EINPUT, "%s: names a folder, not a file", path);
    }
    if (bl > NAME_MAX) {
        free(dir);
        return fail_long(err, path, bl, "the file name", NAME_MAX);
    }
    int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) {
        int e = errno;
        int rc = fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot open its folder %s: %s",
                           path, dir, strerror(e));
        free(dir);
        return rc;
    }
    free(dir);
    if (not_regular(dirfd, base)) {
        close(dirfd);
        return fail_not_regular(err, path);
    }
    tmp_slot *s = slot_take();
    if (!s) {
        close(dirfd);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: more than %d files being written at "
                         "once", path, SLOTS);
    }
    s->dirfd = dirfd;
    int fd = -1;
    if (!no_tmpfile_wanted()) {
        fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
        /* an unnamed file is linked through /proc/self/fd, or AT_EMPTY_PATH,
         * which needs CAP_DAC_READ_SEARCH */
        if (fd >= 0 && access("/proc/self/fd", X_OK) != 0 && geteuid() != 0) {
            close(fd);
            fd = -1;
            errno = EOPNOTSUPP;
        }
        if (fd < 0 && errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
            int e = errno;
            slot_release(s);
            return fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot create the file: %s", path,
                             strerror(e));
        }
        s->anon = fd >= 0;
    }
    if (fd < 0 && (fd = create_named(s, base)) < 0) {
        int e = errno;
        slot_release(s);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot create a temporary file: %s",
                         path, strerror(e));
    }
    FILE *fp = fdopen(fd, "wb");
    if (!fp) {
        int e = errno;
        close(fd);
        if (!s->anon)
            unlinkat(dirfd, s->name, 0);
        slot_release(s);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: fdopen: %s", path, strerror(e));
    }
    slot_bind(s, fp);
    if (tmp && tmpsz && !s->anon)
        snprintf(tmp, tmpsz, "%s", s->name);
    *f = fp;
    return FSVC_OK;
}

/* Gives the unnamed file of fd the name base in dirfd. */
static int link_anon(int fd, int dirfd, const char *base)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    if (linkat(AT_FDCWD, proc, dirfd, base, AT_SYMLINK_FOLLOW) == 0)
        return 0;
    if (errno != ENOENT)
        return -1;
    return linkat(fd, "", dirfd, base, AT_EMPTY_PATH);
}

/* Puts the finished file (fd) in place as base; errno on failure. */
static int put_in_place(tmp_slot *s, int fd, const char *base)
{
    if (s->anon) {
        if (link_anon(fd, s->dirfd, base) == 0)
            return 0;
        if (errno != EEXIST)
            return -1;
        /* the target exists: link to a temporary name, rename that over it */
        int tries = 0;
        for (;;) {
            make_name(s, base);
            atomic_store(&s->live, 1);
            if (link_anon(fd, s->dirfd, s->name) == 0)
                break;
            int e = errno;
            atomic_store(&s->live, 0);
            if (e != EEXIST || ++tries == 100) {
                errno = e;
                return -1;
            }
        }
    }
    if (renameat(s->dirfd, s->name, s->dirfd, base) != 0) {
        int e = errno;
        unlinkat(s->dirfd, s->name, 0);
        atomic_store(&s->live, 0);
        errno = e;
        return -1;
    }
    atomic_store(&s->live, 0);
    return 0;
}

/* Closes the stream of a failed write and removes what it made. */
static void discard(tmp_slot *s, FILE *f)
{
    if (f)
        fclose(f);
    if (!s->anon && atomic_load(&s->live))
        unlinkat(s->dirfd, s->name, 0);
    slot_release(s);
}

int ds_tmp_commit(FILE *f, const char *tmp, const char *path, fsvc_error *err)
{
    (void)tmp;
    tmp_slot *s = f ? slot_find(f) : NULL;
    if (!s) {
        if (f)
            fclose(f);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: internal error: not a stream of "
                         "ds_tmp_open", path);
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    int failed = ferror(f);
    if (fflush(f) != 0) {
        int e = errno;
        discard(s, f);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: write error: %s", path, strerror(e));
    }
    if (failed) {
        discard(s, f);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: write error (a write to the file "
                         "failed; nothing written)", path);
    }
    if (fsync(fileno(f)) != 0 && errno != EINVAL) {
        int e = errno;
        discard(s, f);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot sync the file to disk: %s", path,
                         strerror(e));
    }
    /* every error of the file shows before its name appears: close a copy */
    int fd = dup(fileno(f));
    if (fd < 0 || fclose(f) != 0) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            f = NULL; /* closed (with an error) */
        }
        discard(s, f);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot close the file: %s", path,
                         strerror(e));
    }
    if (not_regular(s->dirfd, base)) {
        close(fd);
        discard(s, NULL);
        return fail_not_regular(err, path);
    }
    if (put_in_place(s, fd, base) != 0) {
        int e = errno;
        close(fd);
        discard(s, NULL);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: cannot put the new file in place: %s",
                         path, strerror(e));
    }
    close(fd);
    if (fsync(s->dirfd) != 0 && errno != EINVAL) {
        int e = errno;
        slot_release(s);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: written, but its folder cannot be "
                         "synced to disk: %s", path, strerror(e));
    }
    slot_release(s);
    return FSVC_OK;
}

void ds_tmp_abort(FILE *f, const char *tmp)
{
    (void)tmp;
    tmp_slot *s = f ? slot_find(f) : NULL;
    if (s)
        discard(s, f);
    else if (f)
        fclose(f);
}

/* test_io.c - safe files in and out (issue 15, defects 5, 6, 10):
 * ds_tmp_open/commit/abort (unnamed while written, named fallback and its
 * signal clean-up, modes from the umask, fsync, refused targets, path
 * limits, write errors, threads) and ds_open_input/ds_read_file (no
 * blocking on FIFOs, no unbounded reads of devices, the load limit). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "datasets/datasets.h"
#include "fsvc/fsvc.h"
#include "tests/util/fixtures.h"

/* fsync, interposed over libc's for the library linked into this test:
 * counts the calls and fails with EIO when asked. */
static atomic_int fsync_calls, fsync_fail; /* writer threads call it at once */
int fsync(int fd)
{
    fsync_calls++;
    if (fsync_fail) {
        errno = EIO;
        return -1;
    }
    return (int)syscall(SYS_fsync, fd);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir (hidden ones too), sorted, each followed by a space. */
static const char *entries(char *out, size_t sz, const char *dir)
{
    char *names[256];
    int n = 0;
    out[0] = 0;
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) && n < 256)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_str);
    for (int i = 0; i < n; i++) {
        strncat(out, names[i], sz - strlen(out) - 2);
        strcat(out, " ");
        free(names[i]);
    }
    return out;
}

static char *slurp(const char *path)
{
    unsigned char *b;
    size_t len;
    fsvc_error err;
    if (ds_read_file(&b, &len, path, &err))
        return NULL;
    return (char *)b;
}

static int write_text(const char *path, const char *text, fsvc_error *err)
{
    FILE *f;
    char tmp[64];
    int rc = ds_tmp_open(&f, tmp, sizeof tmp, path, err);
    if (rc)
        return rc;
    fputs(text, f);
    return ds_tmp_commit(f, tmp, path, err);
}

/* 1 when this folder's file system makes unnamed files (O_TMPFILE). */
static int has_tmpfile(const char *dir)
{
    int fd = open(dir, O_TMPFILE | O_WRONLY, 0600);
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

static void test_commit_mode_and_replace(void **state)
{
    const char *dir = *state;
    char p[4096], ls[4096];
    fx_join(p, sizeof p, dir, "out.txt");
    fsvc_error err;
    mode_t old = umask(027);
    fsync_calls = 0;
    int rc = write_text(p, "first\n", &err);
    if (rc)
        fail_msg("%s", err.msg);
    assert_int_equal(fsync_calls, 2); /* the file, then its folder */
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640); /* 0666 & ~umask, not forced */
    umask(0);
    assert_int_equal(write_text(p, "second\n", &err), FSVC_OK);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0666);
    umask(old);
    char *t = slurp(p);
    assert_string_equal(t, "second\n");
    free(t);
    assert_string_equal(entries(ls, sizeof ls, dir), "out.txt ");
    /* the same through the named fallback */
    setenv("FSVC_NO_O_TMPFILE", "1", 1);
    umask(077);
    assert_int_equal(write_text(p, "third\n", &err), FSVC_OK);
    umask(old);
    unsetenv("FSVC_NO_O_TMPFILE");
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    t = slurp(p);
    assert_string_equal(t, "third\n");
    free(t);
    assert_string_equal(entries(ls, sizeof ls, dir), "out.txt ");
}

/* Defect 6: while it is written the new file has no name (a SIGKILL leaves
 * nothing); an abort removes everything and keeps the old file. */
static void test_unnamed_while_written(void **state)
{
    const char *dir = *state;
    if (!has_tmpfile(dir))
        skip();
    char p[4096], ls[4096];
    fx_join(p, sizeof p, dir, "model.bin");
    assert_int_equal(fx_write_text(p, "old"), 0);
    FILE *f;
    char tmp[64];
    fsvc_error err;
    assert_int_equal(ds_tmp_open(&f, tmp, sizeof tmp, p, &err), FSVC_OK);
    fputs("new data", f);
    fflush(f);
    assert_string_equal(entries(ls, sizeof ls, dir), "model.bin ");
    char link[64], target[4200];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fileno(f));
    ssize_t n = readlink(link, target, sizeof target - 1);
    assert_true(n > 0);
    target[n] = 0;
    assert_non_null(strstr(target, "(deleted)"));
    ds_tmp_abort(f, tmp);
    assert_string_equal(entries(ls, sizeof ls, dir), "model.bin ");
    char *t = slurp(p);
    assert_string_equal(t, "old");
    free(t);
    /* committed over an existing file: no temporary name stays */
    assert_int_equal(write_text(p, "new", &err), FSVC_OK);
    assert_string_equal(entries(ls, sizeof ls, dir), "model.bin ");
}

/* Defect 6: the named fallback registers its temporary file, and
 * ds_tmp_unlink_all (the signal handler's call) removes it. */
static void test_fallback_signal_cleanup(void **state)
{
    const char *dir = *state;
    char p[4096], ls[4096];
    fx_join(p, sizeof p, dir, "x.csv");
    setenv("FSVC_NO_O_TMPFILE", "1", 1);
    FILE *f, *g;
    char tmp[64], tmp2[64];
    fsvc_error err;
    assert_int_equal(ds_tmp_open(&f, tmp, sizeof tmp, p, &err), FSVC_OK);
    assert_int_equal(ds_tmp_open(&g, tmp2, sizeof tmp2, p, &err), FSVC_OK);
    fputs("a,b\n", f);
    entries(ls, sizeof ls, dir);
    assert_non_null(strstr(ls, ".x.csv."));
    assert_non_null(strstr(ls, tmp));
    assert_non_null(strstr(ls, tmp2));
    ds_tmp_unlink_all();
    assert_string_equal(entries(ls, sizeof ls, dir), "");
    /* its file gone, the commit fails cleanly */
    assert_int_equal(ds_tmp_commit(f, tmp, p, &err), FSVC_ERESOURCE);
    assert_non_null(strstr(err.msg, "x.csv"));
    ds_tmp_abort(g, tmp2);
    /* released slots: an ordinary write works and leaves only its file */
    assert_int_equal(write_text(p, "ok\n", &err), FSVC_OK);
    unsetenv("FSVC_NO_O_TMPFILE");
    assert_string_equal(entries(ls, sizeof ls, dir), "x.csv ");
    ds_tmp_unlink_all(); /* nothing registered any more: removes nothing */
    assert_string_equal(entries(ls, sizeof ls, dir), "x.csv ");
}

/* Defect 10: a symlink, FIFO, folder or device is never replaced. */
static void test_refuses_non_regular_targets(void **state)
{
    const char *dir = *state;
    char p[4096], q[4096], ls[4096];
    fsvc_error err;
    fx_join(q, sizeof q, dir, "pointee");
    assert_int_equal(fx_write_text(q, "precious"), 0);
    fx_join(p, sizeof p, dir, "link");
    assert_int_equal(symlink(q, p), 0);
    assert_int_equal(write_text(p, "x", &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "link: not a regular file; refusing to replace it"));
    fx_join(p, sizeof p, dir, "fifo");
    assert_int_equal(mkfifo(p, 0600), 0);
    alarm(20); /* a blocking open would hang here */
    assert_int_equal(write_text(p, "x", &err), FSVC_EINPUT);
    alarm(0);
    fx_join(p, sizeof p, dir, "sub");
    assert_int_equal(mkdir(p, 0700), 0);
    assert_int_equal(write_text(p, "x", &err), FSVC_EINPUT);
    assert_int_equal(write_text("/dev/null", "x", &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "/dev/null: not a regular file"));
    struct stat st;
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    /* a symlink that appears while the file is written: refused at commit */
    fx_join(p, sizeof p, dir, "late");
    FILE *f;
    char tmp[64];
    assert_int_equal(ds_tmp_open(&f, tmp, sizeof tmp, p, &err), FSVC_OK);
    fputs("x", f);
    assert_int_equal(symlink(q, p), 0);
    assert_int_equal(ds_tmp_commit(f, tmp, p, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "refusing to replace it"));
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    char *t = slurp(q);
    assert_string_equal(t, "precious");
    free(t);
    assert_string_equal(entries(ls, sizeof ls, dir), "fifo late link pointee sub ");
}

/* Defect 10: a path is never cut; too long is a clear bad-input error. */
static void test_path_limits(void **state)
{
    const char *dir = *state;
    fsvc_error err;
    /* ~3000 bytes: written exactly where asked */
    size_t cap = 4000;
    char *p = malloc(cap);
    snprintf(p, cap, "%s", dir);
    while (strlen(p) < 2900) {
        strcat(p, "/abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz");
        if (mkdir(p, 0700) != 0)
            fail_msg("mkdir: %s", strerror(errno));
    }
    strcat(p, "/model_final.fsvc");
    int rc = write_text(p, "m", &err);
    if (rc)
        fail_msg("%s", err.msg);
    assert_true(fx_exists(p));
    free(p);
    /* longer than PATH_MAX */
    p = malloc(PATH_MAX + 100);
    memset(p, 'a', PATH_MAX + 99);
    p[0] = '/';
    p[PATH_MAX + 99] = 0;
    assert_int_equal(write_text(p, "m", &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "longer than the 4095 the system allows"));
    assert_null(strchr(err.msg, '\n'));
    free(p);
    /* a file name longer than NAME_MAX */
    char q[4096], name[300];
    memset(name, 'n', 299);
    name[299] = 0;
    assert_int_equal(write_text(fx_join(q, sizeof q, dir, name), "m", &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "file name is 299 bytes, longer than the 255"));
    /* a folder name, an empty name */
    snprintf(q, sizeof q, "%s/", dir);
    assert_int_equal(write_text(q, "m", &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "names a folder, not a file"));
    assert_int_equal(write_text("", "m", &err), FSVC_EINPUT);
    /* a missing folder is a resource error naming the path */
    assert_int_equal(write_text("/nonexistent-dir/x.txt", "m", &err), FSVC_ERESOURCE);
    assert_non_null(strstr(err.msg, "/nonexistent-dir/x.txt"));
}

/* Every write error is FSVC_ERESOURCE naming the path, the old file stays,
 * nothing is left: a file-size limit (EFBIG) in a child process, and a
 * failing fsync. */
static void test_write_errors(void **state)
{
    const char *dir = *state;
    char p[4096], ls[4096];
    fx_join(p, sizeof p, dir, "big.txt");
    assert_int_equal(fx_write_text(p, "old"), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit rl = {65536, 65536};
        signal(SIGXFSZ, SIG_IGN);
        if (setrlimit(RLIMIT_FSIZE, &rl))
            _exit(10);
        int bad = 0;
        for (int mode = 0; mode < 2; mode++) {
            if (mode)
                setenv("FSVC_NO_O_TMPFILE", "1", 1);
            FILE *f;
            char tmp[64];
            fsvc_error err;
            if (ds_tmp_open(&f, tmp, sizeof tmp, p, &err))
                _exit(11);
            static char chunk[4096];
            memset(chunk, 'x', sizeof chunk);
            for (int i = 0; i < 64; i++)
                fwrite(chunk, 1, sizeof chunk, f); /* unchecked, as callers do */
            if (ds_tmp_commit(f, tmp, p, &err) != FSVC_ERESOURCE)
                bad |= 1 << (2 * mode);
            if (!strstr(err.msg, p) || !strstr(err.msg, "write error"))
                bad |= 2 << (2 * mode);
            /* the LIBSVM writer checks its writes too */
            static double x[20000];
            fsvc_dataset d;
            memset(&d, 0, sizeof d);
            d.N = 10000; d.n = 2; d.dtype = FSVC_F64; d.x = x;
            for (int i = 0; i < 20000; i++)
                x[i] = 1.0 / (i + 3);
            if (fsvc_dataset_write_libsvm(p, &d, &err) != FSVC_ERESOURCE ||
                !strstr(err.msg, "File too large"))
                bad |= 16 << mode;
        }
        _exit(bad);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    char *t = slurp(p);
    assert_string_equal(t, "old");
    free(t);
    assert_string_equal(entries(ls, sizeof ls, dir), "big.txt ");
    /* fsync failing: nothing replaced */
    fsvc_error err;
    fsync_fail = 1;
    assert_int_equal(write_text(p, "new", &err), FSVC_ERESOURCE);
    fsync_fail = 0;
    assert_non_null(strstr(err.msg, "cannot sync the file to disk"));
    t = slurp(p);
    assert_string_equal(t, "old");
    free(t);
    assert_string_equal(entries(ls, sizeof ls, dir), "big.txt ");
}

typedef struct job {
    const char *dir;
    int id, bad;
} job;

static void *writer(void *arg)
{
    job *j = arg;
    char p[4096], name[32], want[64];
    snprintf(name, sizeof name, "t%d.txt", j->id);
    fx_join(p, sizeof p, j->dir, name);
    for (int i = 0; i < 40; i++) {
        fsvc_error err;
        snprintf(want, sizeof want, "thread %d round %d\n", j->id, i);
        if (write_text(p, want, &err))
            j->bad++;
    }
    char *t = slurp(p);
    if (!t || strcmp(t, want))
        j->bad++;
    free(t);
    return NULL;
}

static void test_threads(void **state)
{
    pthread_t th[8];
    job jobs[8];
    for (int i = 0; i < 8; i++) {
        jobs[i] = (job){*state, i, 0};
        assert_int_equal(pthread_create(&th[i], NULL, writer, &jobs[i]), 0);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(jobs[i].bad, 0);
    }
    char ls[4096];
    entries(ls, sizeof ls, *state);
    assert_null(strstr(ls, ".tmp"));
}

/* Defect 5: a FIFO or a device where a file is wanted is refused at once. */
static void test_inputs_not_regular(void **state)
{
    const char *dir = *state;
    char p[4096];
    fsvc_error err;
    FILE *f;
    fx_join(p, sizeof p, dir, "pipe");
    assert_int_equal(mkfifo(p, 0600), 0);
    alarm(20); /* a blocking open would hang: the alarm kills the test */
    assert_int_equal(ds_open_input(&f, p, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "pipe: not a regular file (a FIFO)"));
    fsvc_dataset d;
    assert_int_equal(fsvc_dataset_load(&d, p, NULL, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "(a FIFO)"));
    fsvc_model m;
    assert_int_equal(fsvc_model_load(&m, p, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "(a FIFO)"));
    alarm(0);
    unsigned char *b;
    size_t len;
    assert_int_equal(ds_read_file(&b, &len, "/dev/zero", &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "/dev/zero: not a regular file (a character device)"));
    assert_int_equal(fsvc_dataset_load(&d, "/dev/zero", NULL, &err), FSVC_EINPUT);
    assert_int_equal(ds_open_input(&f, dir, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "is a folder"));
    fx_join(p, sizeof p, dir, "plain");
    assert_int_equal(fx_write_text(p, "abc"), 0);
    assert_int_equal(ds_open_input(&f, p, &err), FSVC_OK);
    assert_int_equal(fgetc(f), 'a');
    fclose(f);
    assert_int_equal(ds_read_file(&b, &len, p, &err), FSVC_OK);
    assert_int_equal(len, 3);
    free(b);
}

/* Out of file descriptors is a resource failure (exit 3), not bad input. */
static void test_no_descriptors(void **state)
{
    char p[4096];
    fx_join(p, sizeof p, *state, "plain");
    assert_int_equal(fx_write_text(p, "abc"), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit rl = {3, 3}; /* stdin, stdout, stderr only */
        if (setrlimit(RLIMIT_NOFILE, &rl))
            _exit(10);
        FILE *f;
        fsvc_error err;
        int bad = ds_open_input(&f, p, &err) != FSVC_ERESOURCE;
        bad |= (ds_tmp_open(&f, NULL, 0, p, &err) != FSVC_ERESOURCE) << 1;
        _exit(bad);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* Defect 8: a file larger than the load limit (a sparse file here) is
 * refused from its size, before reading. */
static void test_file_over_the_limit(void **state)
{
    char p[4096];
    fx_join(p, sizeof p, *state, "huge.txt");
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    int sparse = ftruncate(fd, (off_t)(ds_max_bytes() + 4096)) == 0;
    close(fd);
    if (!sparse)
        skip();
    unsigned char *b;
    size_t len;
    fsvc_error err;
    assert_int_equal(ds_read_file(&b, &len, p, &err), FSVC_EINPUT);
    assert_non_null(strstr(err.msg, "more than the load limit"));
    assert_non_null(strstr(err.msg, "min(64 GiB, physical RAM)"));
    unlink(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_commit_mode_and_replace, fx_tmpdir_setup, fx_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_unnamed_while_written, fx_tmpdir_setup, fx_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_fallback_signal_cleanup, fx_tmpdir_setup, fx_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_refuses_non_regular_targets, fx_tmpdir_setup, fx_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_path_limits, fx_tmpdir_setup, fx_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_write_errors, fx_tmpdir_setup, fx_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_threads, fx_tmpdir_setup, fx_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_inputs_not_regular, fx_tmpdir_setup, fx_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_no_descriptors, fx_tmpdir_setup, fx_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_file_over_the_limit, fx_tmpdir_setup, fx_tmpdir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* replay.c - runs a libFuzzer target's LLVMFuzzerTestOneInput on every
 * file of the folders (or on the files) given, without libFuzzer: linked
 * with one tests/fuzz/fuzz_<name>.c by gcc (plain, or with ASan+UBSan in
 * the asan build), `make test` replays tests/fuzz/corpus/fuzz_<name>/, so
 * every input that once crashed or hung a reader stays a regression test.
 *
 *   replay [-t SECONDS] DIR|FILE...
 *
 * Each input gets SECONDS (default 20) of wall time; a hang or a crash
 * prints "replay: FILE: ..." and fails (exit 1; a sanitizer's own report
 * names the file through its death callback). A folder that does not exist
 * is an empty corpus. Prints "replay: N inputs, all passed" on success. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static const char *current = "(none)";

static void say_current(void)
{
    static const char a[] = "replay: the input was ";
    if (write(2, a, sizeof a - 1) < 0 || write(2, current, strlen(current)) < 0 ||
        write(2, "\n", 1) < 0)
        return;
}

static void on_signal(int sig)
{
    const char *what = sig == SIGALRM ? "replay: timed out\n" : "replay: crashed\n";
    if (write(2, what, strlen(what)) < 0)
        _exit(1);
    say_current();
    signal(sig, SIG_DFL);
    if (sig == SIGALRM)
        _exit(1);
    raise(sig);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_file(const char *path, unsigned seconds)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return 1;
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
            cap *= 2;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        fprintf(stderr, "replay: %s: cannot read\n", path);
        free(buf);
        return 1;
    }
    /* a copy of exactly len bytes, so that ASan sees reads past the input */
    uint8_t *in = malloc(len ? len : 1);
    if (!in) { free(buf); return 1; }
    memcpy(in, buf, len);
    free(buf);
    current = path;
    alarm(seconds);
    LLVMFuzzerTestOneInput(in, len);
    alarm(0);
    current = "(none)";
    free(in);
    return 0;
}

/* Runs every regular file of dir, in name order; counts them in *n. */
static int run_dir(const char *dir, unsigned seconds, int *n)
{
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? 0 : (fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno)), 1);
    char **names = NULL;
    size_t cnt = 0, cap = 0;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (cnt == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn) { rc = 1; break; }
            names = nn;
        }
        size_t l = strlen(dir) + strlen(e->d_name) + 2;
        if (!(names[cnt] = malloc(l))) { rc = 1; break; }
        snprintf(names[cnt++], l, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (cnt)
        qsort(names, cnt, sizeof *names, cmp_str);
    for (size_t i = 0; i < cnt; i++) {
        struct stat st;
        if (!rc && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            rc = run_file(names[i], seconds);
            ++*n;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    unsigned seconds = 20;
    int first = 1;
    if (argc > 2 && !strcmp(argv[1], "-t")) {
        seconds = (unsigned)strtoul(argv[2], NULL, 10);
        first = 3;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: %s [-t SECONDS] DIR|FILE...\n", argv[0]);
        return 2;
    }
    signal(SIGALRM, on_signal);
    signal(SIGSEGV, on_signal);
    signal(SIGBUS, on_signal);
    signal(SIGFPE, on_signal);
    signal(SIGABRT, on_signal);
    if (__sanitizer_set_death_callback)
        __sanitizer_set_death_callback(say_current);
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    int n = 0, rc = 0;
    for (int i = first; i < argc && !rc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISREG(st.st_mode)) {
            rc = run_file(argv[i], seconds);
            n++;
        } else {
            rc = run_dir(argv[i], seconds, &n);
        }
    }
    if (!rc)
        fprintf(stderr, "replay: %d inputs, all passed\n", n);
    return rc;
}

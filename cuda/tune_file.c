/*
 * tune_file.c - read and write the per-device tune file (tune_file.h).
 */
#include "tune_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int bnlc_tune_path(char *buf, size_t len, const char *tag)
{
    const char *f = getenv("FSVC_TUNE_FILE");
    if (f && *f) {
        snprintf(buf, len, "%s", f);
        return 0;
    }
    const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
    if (x && *x)
        snprintf(buf, len, "%s/fsvc/tune-%s.txt", x, tag);
    else if (h && *h)
        snprintf(buf, len, "%s/.cache/fsvc/tune-%s.txt", h, tag);
    else
        return -1;
    return 0;
}

int bnlc_tune_read(const char *path, bnlc_limits *lim, fsvc_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return errno == ENOENT ? 1
                               : fsvc_fail(err, FSVC_EINPUT, "%s: %s", path, strerror(errno));
    bnlc_limits l = *lim;
    char line[512];
    int no = 0;
    while (fgets(line, sizeof line, f)) {
        no++;
        char key[64], val[256];
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        int k = sscanf(line, "%63s %255s", key, val);
        if (k <= 0)
            continue;
        char *end = NULL;
        double v = k == 2 ? strtod(val, &end) : 0;
        int num = k == 2 && end && *end == 0;
        if (!strcmp(key, "device"))
            continue;
        if (!num) {
            fclose(f);
            return fsvc_fail(err, FSVC_EINPUT, "%s:%d: expected 'key number'", path, no);
        }
        if (!strcmp(key, "max_M") && v >= 0 && v <= 1e9)
            l.max_M = (int64_t)v;
        else if (!strcmp(key, "launch_s") && v > 0 && v <= 60)
            l.launch_s = v;
        else if (!strcmp(key, "streams") && v >= 1 && v <= 4)
            l.streams = (int)v;
        else if (!strcmp(key, "mem_frac") && v > 0 && v <= 1)
            l.mem_frac = v;
        else if (!strcmp(key, "max_launch_syn") && v >= 0)
            l.max_launch_syn = v;
        else {
            fclose(f);
            return fsvc_fail(err, FSVC_EINPUT, "%s:%d: unknown key or value out of range: %s",
                             path, no, key);
        }
    }
    fclose(f);
    *lim = l;
    return FSVC_OK;
}

static int mkdirs(char *dir)
{
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(dir, 0755) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(dir, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

int bnlc_tune_write(const char *path, const char *device, const bnlc_limits *lim,
                    const char *comment, fsvc_error *err)
{
    char dir[1024], tmp[1100];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = 0;
        if (mkdirs(dir) != 0)
            return fsvc_fail(err, FSVC_ERESOURCE, "%s: %s", dir, strerror(errno));
    }
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: %s", tmp, strerror(errno));
    fprintf(f, "# fsvc tune file (fsvc tune --backend cuda)\n");
    if (comment && *comment)
        fprintf(f, "# %s\n", comment);
    fprintf(f, "device %s\nmax_M %lld\nlaunch_s %g\nstreams %d\n", device ? device : "none",
            (long long)lim->max_M, lim->launch_s, lim->streams);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return fsvc_fail(err, FSVC_ERESOURCE, "%s: %s", path, strerror(e));
    }
    return FSVC_OK;
}

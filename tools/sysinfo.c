/* sysinfo.c - one-line machine and compiler descriptions for the results
 * files (CPU model, cores, SIMD flags; compiler version and build flags). */
#include "tools/study_out.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void sysinfo_machine(char *out, size_t len)
{
    char model[256] = "unknown CPU", flags[8192] = "", line[8192];
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        while (fgets(line, sizeof line, f)) {
            char *c = strchr(line, ':');
            if (!c) continue;
            c++;
            while (*c == ' ') c++;
            c[strcspn(c, "\n")] = 0;
            if (!strncmp(line, "model name", 10)) snprintf(model, sizeof model, "%s", c);
            else if (!strncmp(line, "flags", 5) && !flags[0]) snprintf(flags, sizeof flags, " %s ", c);
        }
        fclose(f);
    }
    static const char *want[] = {"sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw",
                                 "avx512vl", "avx512dq", "avx512_vnni", "avx512_bf16", "amx_tile"};
    char simd[256] = "";
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        char pat[64];
        snprintf(pat, sizeof pat, " %s ", want[k]);
        if (strstr(flags, pat)) {
            strncat(simd, simd[0] ? " " : "", sizeof simd - strlen(simd) - 1);
            strncat(simd, want[k], sizeof simd - strlen(simd) - 1);
        }
    }
    snprintf(out, len, "%s, %ld cores, flags: %s", model, sysconf(_SC_NPROCESSORS_ONLN),
             simd[0] ? simd : "none of the SIMD ones");
}

void sysinfo_compiler(char *out, size_t len)
{
    const char *fl = getenv("FSVC_CFLAGS");
#if defined(__clang__)
    const char *cc = "clang " __clang_version__;
#elif defined(__GNUC__)
    const char *cc = "gcc " __VERSION__;
#else
    const char *cc = "unknown compiler";
#endif
    snprintf(out, len, "%s; build flags: %s", cc,
             fl && *fl ? fl : "the Makefile's (OPT=-O2 by default; set FSVC_CFLAGS to record them)");
}

/* cmd_info.c - `fsvc info`: version, compiler, CPU features, backends. */
#include "tools/cli.h"

#include <stdio.h>
#include <string.h>

int cmd_info(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: fsvc info\n\nPrints the version, compiler, CPU features, "
               "backends, BLAS and CUDA devices.\n");
        return FSVC_OK;
    }
    printf("fsvc %s\n", FSVC_VERSION);
    printf("compiler: %s\n", __VERSION__);
    return FSVC_OK;
}

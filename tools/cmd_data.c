/* cmd_data.c - `fsvc data SOURCE`: load a dataset and summarise it. */
#include "tools/cli.h"

#include <string.h>

int cmd_data(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: fsvc data SOURCE\n");
        return FSVC_OK;
    }
    if (argc != 2)
        return cli_usage_error("data", "expected one SOURCE");
    fsvc_dataset d;
    fsvc_error err;
    fsvc_error_clear(&err);
    if (fsvc_dataset_load(&d, argv[1], NULL, &err) != FSVC_OK)
        return cli_report(&err);
    printf("source: %s\nN x n: %lld x %d\n", d.source, (long long)d.N, d.n);
    fsvc_dataset_free(&d);
    return FSVC_OK;
}

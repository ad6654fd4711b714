/* ctx.c - the engine context of a training run: p's backend and threads,
 * on p's device backend when it names one (tests: an emulated device). */
#include "internal.h"

#include <string.h>

int fsvc_ctx_open(bnl_ctx *ctx, const fsvc_param *p, fsvc_error *err)
{
    const char *b = p->backend ? p->backend : "cpu";
    if (p->device && !strcmp(b, "cuda"))
        return bnl_ctx_open_device(ctx, p->device, p->threads, 0, err);
    return bnl_ctx_open(ctx, b, p->threads, 0, err);
}

/* ctx.c - the engine context of a training run: p's backend and threads,
 * on p's device table when it names one (tests: an emulated device). */
#include "internal.h"

int fsvc_ctx_open(bnl_ctx *ctx, const fsvc_param *p, fsvc_error *err)
{
    return bnl_ctx_open_with(ctx, p->backend ? p->backend : "cpu", p->device, p->threads, 0,
                             err);
}

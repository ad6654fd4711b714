/*
 * dnnl_api.h - oneDNN's C API through a table of function pointers that
 * layers/dnnl_load.c fills by dlopen + dlsym (dnnl_load.h): included
 * instead of <oneapi/dnnl/dnnl.h> by layers/cpu_dnnl.c, whose calls then
 * read dnnl_x(...) as before and go through the table. A call of a
 * function missing from BNL_DNNL_FUNCS stays a direct reference, which
 * the link of fsvc refuses (no -ldnnl) and tests/cli/test_lazy_libs.sh
 * finds in cpu_dnnl.o: add its name here.
 *
 * Only dnnl_engine_create may be the first call: until the library is
 * loaded its entry loads it (once), the others are NULL. cpu_dnnl.c makes
 * its engine before anything else, and the planner (bnl_cpu_uses_dnnl)
 * loads the library before it picks the tier.
 */
#ifndef FSVC_DNNL_API_H
#define FSVC_DNNL_API_H

#include <oneapi/dnnl/dnnl.h>

#include "dnnl_load.h"

#define BNL_DNNL_FUNCS(X)                                                                  \
    X(dnnl_engine_create) X(dnnl_engine_destroy) X(dnnl_matmul_desc_init)                  \
    X(dnnl_memory_create) X(dnnl_memory_desc_get_size) X(dnnl_memory_desc_init_by_strides) \
    X(dnnl_memory_desc_init_by_tag) X(dnnl_memory_destroy) X(dnnl_primitive_attr_create)   \
    X(dnnl_primitive_attr_destroy) X(dnnl_primitive_attr_set_scratchpad_mode)              \
    X(dnnl_primitive_create) X(dnnl_primitive_desc_create) X(dnnl_primitive_desc_destroy)  \
    X(dnnl_primitive_desc_query) X(dnnl_primitive_desc_query_md) X(dnnl_primitive_destroy) \
    X(dnnl_primitive_execute) X(dnnl_reorder_primitive_desc_create) X(dnnl_stream_create)  \
    X(dnnl_stream_destroy) X(dnnl_stream_wait) X(dnnl_version) X(dnnl_sgemm)

#define BNL_DNNL_MEMBER(f) __typeof__(f) *f;
typedef struct bnl_dnnl_api {
    BNL_DNNL_FUNCS(BNL_DNNL_MEMBER)
} bnl_dnnl_api;
#undef BNL_DNNL_MEMBER

extern bnl_dnnl_api bnl_dnnl_fn;

#ifndef BNL_DNNL_LOADER /* every file but the loader calls through the table */
#define BNL_DNNL_REDIRECT(f) (bnl_dnnl_fn.f)
#define dnnl_engine_create BNL_DNNL_REDIRECT(dnnl_engine_create)
#define dnnl_engine_destroy BNL_DNNL_REDIRECT(dnnl_engine_destroy)
#define dnnl_matmul_desc_init BNL_DNNL_REDIRECT(dnnl_matmul_desc_init)
#define dnnl_memory_create BNL_DNNL_REDIRECT(dnnl_memory_create)
#define dnnl_memory_desc_get_size BNL_DNNL_REDIRECT(dnnl_memory_desc_get_size)
#define dnnl_memory_desc_init_by_strides BNL_DNNL_REDIRECT(dnnl_memory_desc_init_by_strides)
#define dnnl_memory_desc_init_by_tag BNL_DNNL_REDIRECT(dnnl_memory_desc_init_by_tag)
#define dnnl_memory_destroy BNL_DNNL_REDIRECT(dnnl_memory_destroy)
#define dnnl_primitive_attr_create BNL_DNNL_REDIRECT(dnnl_primitive_attr_create)
#define dnnl_primitive_attr_destroy BNL_DNNL_REDIRECT(dnnl_primitive_attr_destroy)
#define dnnl_primitive_attr_set_scratchpad_mode \
    BNL_DNNL_REDIRECT(dnnl_primitive_attr_set_scratchpad_mode)
#define dnnl_primitive_create BNL_DNNL_REDIRECT(dnnl_primitive_create)
#define dnnl_primitive_desc_create BNL_DNNL_REDIRECT(dnnl_primitive_desc_create)
#define dnnl_primitive_desc_destroy BNL_DNNL_REDIRECT(dnnl_primitive_desc_destroy)
#define dnnl_primitive_desc_query BNL_DNNL_REDIRECT(dnnl_primitive_desc_query)
#define dnnl_primitive_desc_query_md BNL_DNNL_REDIRECT(dnnl_primitive_desc_query_md)
#define dnnl_primitive_destroy BNL_DNNL_REDIRECT(dnnl_primitive_destroy)
#define dnnl_primitive_execute BNL_DNNL_REDIRECT(dnnl_primitive_execute)
#define dnnl_sgemm BNL_DNNL_REDIRECT(dnnl_sgemm)
#define dnnl_reorder_primitive_desc_create BNL_DNNL_REDIRECT(dnnl_reorder_primitive_desc_create)
#define dnnl_stream_create BNL_DNNL_REDIRECT(dnnl_stream_create)
#define dnnl_stream_destroy BNL_DNNL_REDIRECT(dnnl_stream_destroy)
#define dnnl_stream_wait BNL_DNNL_REDIRECT(dnnl_stream_wait)
#define dnnl_version BNL_DNNL_REDIRECT(dnnl_version)
#endif

#endif

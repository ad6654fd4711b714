/*
 * dnnl_load.h - oneDNN (Debian's libdnnl) loaded on first use, not linked:
 * a process that never runs a large f32 / bf16 product on the onednn tier
 * (iris, every u8 or f64 job, `fsvc --version`) does not pay for loading
 * it and its dependencies (libstdc++, libOpenCL), about a millisecond.
 */
#ifndef FSVC_DNNL_LOAD_H
#define FSVC_DNNL_LOAD_H

/* 1 when oneDNN is loaded (loading it on the first call), 0 when this
 * build has no oneDNN or the library does not load; then the first call
 * prints one line (fsvc_printf) and the onednn tier's products run on the
 * avx512bf16 tier's paths. FSVC_DNNL_LIB=NAME loads NAME instead of
 * libdnnl.so.<the headers' major version> (tests). Thread-safe. */
int bnl_dnnl_load(void);
/* "libdnnl.so.2 (oneDNN v2.7.3)", "not loaded yet", or why it did not load. */
const char *bnl_dnnl_load_status(void);

#endif

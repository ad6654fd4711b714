/*
 * test_names.c - one name table per enum: every table's names and values
 * are distinct, and each enum's _name and _parse functions read exactly
 * its table (round trips, unknown names refused, unknown values "?").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "fsvc/fsvc.h"
#include "layers/bnl.h"

typedef const char *(*name_fn)(int);
typedef int (*parse_fn)(const char *, int *);

/* Adapters: the enum functions with int values (all enums here are int-sized). */
#define ADAPT(T)                                                                \
    static const char *T##_n(int v) { return T##_name((T)v); }                  \
    static int T##_p(const char *s, int *v)                                     \
    {                                                                           \
        T e;                                                                    \
        int rc = T##_parse(s, &e);                                              \
        if (!rc) *v = (int)e;                                                   \
        return rc;                                                              \
    }
ADAPT(fsvc_dtype)
ADAPT(fsvc_scale)
ADAPT(fsvc_select)
ADAPT(fsvc_readout)
ADAPT(fsvc_preprocess)
ADAPT(bnl_dist)
ADAPT(bnl_act)
ADAPT(bnl_backend)
ADAPT(bnl_arch)

static const struct {
    const char *what;
    const fsvc_name *t;
    name_fn name;
    parse_fn parse;
    int count;
} tables[] = {
    {"dtype", fsvc_dtype_names, fsvc_dtype_n, fsvc_dtype_p, 3},
    {"scale", fsvc_scale_names, fsvc_scale_n, fsvc_scale_p, 3},
    {"select", fsvc_select_names, fsvc_select_n, fsvc_select_p, 5},
    {"readout", fsvc_readout_names, fsvc_readout_n, fsvc_readout_p, 3},
    {"preprocess", fsvc_preprocess_names, fsvc_preprocess_n, fsvc_preprocess_p, 7},
    {"dist", bnl_dist_names, bnl_dist_n, bnl_dist_p, 3},
    {"act", bnl_act_names, bnl_act_n, bnl_act_p, 4},
    {"backend", bnl_backend_names, bnl_backend_n, bnl_backend_p, 3},
    {"arch", bnl_arch_names, bnl_arch_n, bnl_arch_p, BNL_ARCH_COUNT},
};

static void test_tables(void **state)
{
    for (size_t k = 0; k < sizeof tables / sizeof *tables; k++) {
        const fsvc_name *t = tables[k].t;
        int n = 0;
        for (; t[n].name; n++) {
            for (int q = 0; q < n; q++) {
                assert_string_not_equal(t[q].name, t[n].name);
                assert_int_not_equal(t[q].value, t[n].value);
            }
            int v = -12345;
            assert_int_equal(tables[k].parse(t[n].name, &v), 0);
            assert_int_equal(v, t[n].value);
            assert_string_equal(tables[k].name(t[n].value), t[n].name);
        }
        if (n != tables[k].count)
            fail_msg("%s: %d names, expected %d", tables[k].what, n, tables[k].count);
        int v = 7;
        assert_int_equal(tables[k].parse("no-such-name", &v), -1);
        assert_int_equal(v, 7); /* untouched on failure */
        assert_int_equal(tables[k].parse("", &v), -1);
        assert_string_equal(tables[k].name(999), "?");
    }
}

static void test_lookup(void **state)
{
    char buf[64];
    assert_string_equal(fsvc_name_list(fsvc_readout_names, buf, sizeof buf), "onehot|lms|ridge");
    assert_string_equal(fsvc_name_list(bnl_arch_names, buf, sizeof buf),
                        "ref|scalar|avx2|avxvnni|avx512|avx512vnni|avx512bf16|onednn|amx");
    /* cut at a whole name, still terminated */
    assert_string_equal(fsvc_name_list(bnl_arch_names, buf, 12), "ref|scalar");
    int v = 0;
    assert_int_equal(fsvc_name_parse(bnl_dist_names, NULL, &v), -1);
    assert_int_equal(fsvc_name_parse(bnl_dist_names, "L1", &v), -1); /* case matters */
    assert_string_equal(fsvc_name_of(bnl_act_names, BNL_IDENT), "ident");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_lookup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

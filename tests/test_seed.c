/* test_seed.c - one name for the seed (issue 14 point 11): the setting
 * "seed" holds the seed of every random choice and is part of the
 * canonical settings text even with the shuffle off (random selection
 * uses it: two seeds, two models, two texts); "shuffle" is on|off, its
 * older form "shuffle=SEED" still means on + that seed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "fsvc/fsvc.h"

static void canon_of(char *out, size_t cap, const char *spec)
{
    fsvc_param p;
    fsvc_param_default(&p);
    out[0] = 0;
    assert_int_equal(fsvc_param_parse(&p, spec, NULL), FSVC_OK);
    assert_int_equal(fsvc_param_canon(out, cap, &p), FSVC_OK);
}

static void test_seed_forms(void **state)
{
    (void)state;
    fsvc_param p;
    fsvc_param_default(&p);
    assert_int_equal(fsvc_param_set(&p, "shuffle", "7", NULL), FSVC_OK);
    assert_int_equal(p.shuffle, 1);
    assert_int_equal(p.seed, 7);
    char a[1024], b[1024];
    canon_of(a, sizeof a, "shuffle=7");
    canon_of(b, sizeof b, "shuffle=on;seed=7");
    assert_string_equal(a, b);              /* the older form is the same setting */
    assert_non_null(strstr(a, "shuffle=on;seed=7;"));
    canon_of(a, sizeof a, "seed=5");
    assert_non_null(strstr(a, "shuffle=off;seed=5;"));  /* the seed without the shuffle */
    canon_of(b, sizeof b, "seed=6");
    assert_string_not_equal(a, b);
    fsvc_param_default(&p);
    fsvc_error err;
    assert_int_equal(fsvc_param_set(&p, "seed", "off", &err), FSVC_EUSAGE);
    assert_int_equal(fsvc_param_set(&p, "seed", "-1", &err), FSVC_EUSAGE);
    assert_int_equal(fsvc_param_set(&p, "shuffle", "maybe", &err), FSVC_EUSAGE);
    assert_non_null(strstr(err.msg, "shuffle"));
}

/* random selection with the shuffle off: the seed picks the centroids */
static void test_seed_shapes_random_selection(void **state)
{
    (void)state;
    fsvc_dataset d;
    memset(&d, 0, sizeof d);
    d.N = 200; d.n = 2; d.dtype = FSVC_F64; d.has_labels = 1; d.K = 2;
    double *x = malloc(400 * sizeof *x);
    d.y = malloc(200 * sizeof *d.y);
    d.cls = malloc(200 * sizeof *d.cls);
    double cv[2] = {0, 1};
    d.class_values = cv;
    for (int i = 0; i < 200; i++) {
        x[2 * i] = (i % 2) + 0.01 * i; x[2 * i + 1] = 0.5 * (i % 7);
        d.cls[i] = i % 2; d.y[i] = i % 2;
    }
    d.x = x;
    fsvc_model m[2];
    for (int s = 0; s < 2; s++) {
        fsvc_param p;
        fsvc_param_default(&p);
        assert_int_equal(fsvc_param_parse(&p, s ? "select=random;max-neurons=20;seed=2"
                                                : "select=random;max-neurons=20;seed=1", NULL), FSVC_OK);
        assert_int_equal(p.shuffle, 0);
        p.threads = 1;
        assert_int_equal(fsvc_train(&m[s], NULL, &d, &p, NULL), FSVC_OK);
    }
    assert_int_equal(m[0].m, 20);
    assert_int_equal(m[1].m, 20);
    assert_memory_not_equal(m[0].C, m[1].C, 20 * 2 * sizeof(float));
    fsvc_free_model(&m[0]); fsvc_free_model(&m[1]);
    free(x); free(d.y); free(d.cls);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_forms),
        cmocka_unit_test(test_seed_shapes_random_selection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

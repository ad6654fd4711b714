/* test_cuda_pick.c - bnl_cuda_pick_device: FSVC_CUDA_DEVICE names the
 * device (a number below the count, else refused), else each mpirun rank
 * takes local_rank % device_count, else device 0. No device needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cuda/bnl_cuda.h"

static void test_local_rank_round_robin(void **state)
{
    (void)state;
    assert_int_equal(bnl_cuda_pick_device(1, NULL, "0"), 0);
    assert_int_equal(bnl_cuda_pick_device(1, NULL, "3"), 0);
    assert_int_equal(bnl_cuda_pick_device(4, NULL, "0"), 0);
    assert_int_equal(bnl_cuda_pick_device(4, NULL, "1"), 1);
    assert_int_equal(bnl_cuda_pick_device(4, NULL, "3"), 3);
    assert_int_equal(bnl_cuda_pick_device(4, NULL, "4"), 0);
    assert_int_equal(bnl_cuda_pick_device(4, NULL, "6"), 2);
    assert_int_equal(bnl_cuda_pick_device(3, "", "7"), 1); /* empty: not set */
}

static void test_no_mpirun_is_device_0(void **state)
{
    (void)state;
    assert_int_equal(bnl_cuda_pick_device(8, NULL, NULL), 0);
    assert_int_equal(bnl_cuda_pick_device(8, NULL, ""), 0);
    assert_int_equal(bnl_cuda_pick_device(8, NULL, "x"), 0);  /* not a rank */
    assert_int_equal(bnl_cuda_pick_device(8, NULL, "-1"), 0);
}

static void test_fsvc_cuda_device_wins(void **state)
{
    (void)state;
    assert_int_equal(bnl_cuda_pick_device(4, "2", "1"), 2);
    assert_int_equal(bnl_cuda_pick_device(4, "0", "3"), 0);
    assert_int_equal(bnl_cuda_pick_device(4, "4", NULL), -1); /* no such device */
    assert_int_equal(bnl_cuda_pick_device(4, "-1", NULL), -1);
    assert_int_equal(bnl_cuda_pick_device(4, "1x", NULL), -1);
}

static void test_no_device(void **state)
{
    (void)state;
    assert_int_equal(bnl_cuda_pick_device(0, NULL, "1"), -1);
    assert_int_equal(bnl_cuda_pick_device(0, NULL, NULL), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_local_rank_round_robin),
        cmocka_unit_test(test_no_mpirun_is_device_0),
        cmocka_unit_test(test_fsvc_cuda_device_wins),
        cmocka_unit_test(test_no_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

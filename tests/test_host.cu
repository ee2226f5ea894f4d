/* Host-only checks of the test oracle itself (wt_types.h): if the reference model were wrong,
   every GPU test would compare against a wrong answer. Runs without a GPU. */
#include <warpred/warp_reduce.cuh>
#include "wt_types.h"

static uint64_t dbits(double d) { uint64_t b; memcpy(&b, &d, 8); return b; }

static void test_model_float_rules(void **state)
{
    (void)state;
    const double nan = NAN, inf = INFINITY;
    /* -0 < +0 whatever the argument order */
    assert_true(dbits(wt_model(WT_MAX, -0.0, 0.0)) == dbits(0.0));
    assert_true(dbits(wt_model(WT_MAX, 0.0, -0.0)) == dbits(0.0));
    assert_true(dbits(wt_model(WT_MIN, 0.0, -0.0)) == dbits(-0.0));
    assert_true(dbits(wt_model(WT_MIN_NUM, -0.0, 0.0)) == dbits(-0.0));
    /* NaN wins for min/max, loses for the _num forms */
    assert_true(isnan(wt_model(WT_MAX, 1.0, nan)));
    assert_true(isnan(wt_model(WT_MIN, nan, -inf)));
    assert_true(wt_model(WT_MAX_NUM, nan, -inf) == -inf);
    assert_true(wt_model(WT_MIN_NUM, 3.0, nan) == 3.0);
    assert_true(isnan(wt_model(WT_MIN_NUM, nan, nan)));
    assert_true(wt_model(WT_MAX, -inf, inf) == inf);
    assert_true(wt_model(WT_MIN, -inf, inf) == -inf);
}

static void test_reference_integers_wrap(void **state)
{
    (void)state;
    int x[3] = {INT32_MAX, 1, 5};
    wt_ref<int> r;
    r.fold(WT_SUM, x, 3);
    assert_int_equal(r.value, INT32_MIN + 5);
    unsigned long long u[2] = {~0ull, 2};
    wt_ref<unsigned long long> ru;
    ru.fold(WT_SUM, u, 2);
    assert_true(ru.value == 1);
    ru.fold(WT_MIN, u, 2);
    assert_true(ru.value == 2);
    long long l[2] = {-5, 3};
    wt_ref<long long> rl;
    rl.fold(WT_MAX, l, 2);
    assert_true(rl.value == 3);
}

static void test_reference_tolerance_rejects(void **state)
{
    (void)state;
    float x[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    wt_ref<float> r;
    r.fold(WT_SUM, x, 4);
    char why[200];
    assert_true(r.matches(WT_SUM, 10.0f, 4, why, sizeof why));
    assert_false(r.matches(WT_SUM, 10.01f, 4, why, sizeof why));
    r.fold(WT_MAX, x, 4);
    assert_false(r.matches(WT_MAX, 3.0f, 4, why, sizeof why));
    /* a NaN result must be the canonical one */
    x[2] = NAN;
    r.fold(WT_MAX, x, 4);
    float canonical, other;
    uint32_t cb = 0x7fffffffu, ob = 0x7fc00000u;
    memcpy(&canonical, &cb, 4);
    memcpy(&other, &ob, 4);
    assert_true(r.matches(WT_MAX, canonical, 4, why, sizeof why));
    assert_false(r.matches(WT_MAX, other, 4, why, sizeof why));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_float_rules),
        cmocka_unit_test(test_reference_integers_wrap),
        cmocka_unit_test(test_reference_tolerance_rejects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

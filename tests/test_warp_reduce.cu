/* Warp-level reductions: every operation x type x variant x width, partial warps, segments
   that call alone, and NaN/inf/-0 inputs, against the host reference in wt_types.h.
   Built twice: as is, and with -DWARPRED_NO_REDUX -DWARPRED_NO_NAN_MINMAX --use_fast_math
   (the paths older GPUs take: shuffles instead of redux.sync, min/max without the sm_80 .NaN
   instructions; and flush-to-zero arithmetic, which min/max must not notice), so that both
   paths meet the reference on the same GPU. */
#include <warpred/warp_reduce.cuh>
#include "wt_types.h"
#include "wt_kernels.h" /* the warp modes (WT_FULL, WT_EVEN, partial warps) and wt_k_warp */

/* A subnormal of either sign, never zero: with no NaN or zero in a warp, float/double min/max
   take the plain tree, which must order subnormals exactly (under --use_fast_math, the second
   build, the one compare flags them and they take the exact path). */
template <typename T> static T wt_subnormal(void)
{
    const int mantissa_bits = sizeof(T) == 4 ? 23 : 52;
    uint64_t b = (wt_rand64() & (((uint64_t)1 << mantissa_bits) - 1)) | 1;
    if (wt_rand_below(2)) b |= (uint64_t)1 << (sizeof(T) * 8 - 1);
    return wt_type<T>::from_bits(b);
}

/* special: 0 ordinary values, 1 with NaN/inf/-0/subnormals among them, 2 subnormals only */
template <int W, typename T, typename Op> static void run_case(int special)
{
    const int op = wt_op_of<Op>::code;
    const size_t count = WT_MODE_WARPS * 32, bytes = count * sizeof(T);
    T *in = (T *)wt_host_alloc(bytes), *d_in = (T *)wt_dev_alloc(bytes);
    for (size_t i = 0; i < count; i++) {
        if constexpr (!wt_type<T>::is_int) in[i] = special == 2 ? wt_subnormal<T>() : wt_type<T>::random(special);
        else
            in[i] = wt_type<T>::random(special);
    }
    wt_to_dev(d_in, in, bytes);
    char what[120];
    snprintf(what, sizeof what, "%s %s%s", wt_type<T>::name(), wt_op_name[op], special ? " (special values)" : "");
    wt_run_warps<T>(
        what, W,
        [&](const int *d_modes, T *d_red, T *d_all) {
            wt_k_warp<W, T, Op><<<WT_MODE_WARPS, 32>>>(d_in, d_modes, d_red, d_all);
        },
        [&](const int *pos, int k, T got, char *why, size_t len) {
            return wt_ref_check(op, in, pos, k, got, why, len);
        },
        wt_same_bits<T>);
    wt_dev_free(d_in);
    wt_host_free(in);
}

template <typename T, typename Op> static void run_all_widths(int special)
{
    run_case<1, T, Op>(special);
    run_case<2, T, Op>(special);
    run_case<4, T, Op>(special);
    run_case<8, T, Op>(special);
    run_case<16, T, Op>(special);
    run_case<32, T, Op>(special);
}

template <typename T> static void run_float_type(void)
{
    wt_each_float_op([](auto op, int special) { run_all_widths<T, decltype(op)>(special); });
}

template <typename T> static void run_int_type(void)
{
    wt_each_int_op([](auto op, int special) { run_all_widths<T, decltype(op)>(special); });
}

template <typename T> static void run_subnormal_minmax(void)
{
    run_all_widths<T, warpred_op_max>(2);
    run_all_widths<T, warpred_op_min>(2);
    run_all_widths<T, warpred_op_max_num>(2);
    run_all_widths<T, warpred_op_min_num>(2);
}

WT_GPU_TEST(test_subnormal_minmax, run_subnormal_minmax<float>(); run_subnormal_minmax<double>())

WT_GPU_TESTS_EACH_TYPE(test_, run_int_type, run_float_type)

/* The usage snippets of warp_reduce.cuh (the kernel demo) and of ops.cuh (the kernel combine),
   as the build copies them from the manuals (scripts/snippets.py). */
#include "snippets/warp_reduce.inc"
#include "snippets/ops.inc"

static void test_doc_snippet(void **state)
{
    WT_NEED_GPU(state);
    int *d = (int *)wt_dev_alloc(35 * sizeof(int)), h[35];
    wt_launch_into(h, d, sizeof h, [&] { demo<<<1, 32>>>(d); });
    assert_int_equal(h[0], 528);
    assert_int_equal(h[2], 15);
    for (int l = 0; l < 32; l++) assert_int_equal(h[3 + l], (l / 8) * 8 + 7);
    wt_dev_free(d);
}

/* ops.cuh: out = {+0 (bits 0x00000000), NaN (bits 0x7fffffff), 1, +inf} */
static void test_doc_snippet_ops(void **state)
{
    WT_NEED_GPU(state);
    float *d = (float *)wt_dev_alloc(4 * sizeof(float)), h[4];
    wt_launch_into(h, d, sizeof h, [&] { combine<<<1, 1>>>(d); });
    assert_true(wt_type<float>::bits(h[0]) == 0x00000000u);
    assert_true(wt_type<float>::bits(h[1]) == 0x7fffffffu);
    assert_true(h[2] == 1.0f);
    assert_true(wt_type<float>::bits(h[3]) == 0x7f800000u);
    wt_dev_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(test_doc_snippet), WT_TEST(test_doc_snippet_ops),  WT_TEST(test_int),
        WT_TEST(test_unsigned),    WT_TEST(test_long_long),        WT_TEST(test_unsigned_long_long),
        WT_TEST(test_float),       WT_TEST(test_double),           WT_TEST(test_half),
        WT_TEST(test_bfloat16),    WT_TEST(test_subnormal_minmax),
    };
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}

/* Warp-level reductions: every operation x type x variant x width, partial warps, segments
   that call alone, and NaN/inf/-0 inputs, against the host reference in wt_types.h.
   Built twice: as is, and with -DWARPRED_NO_REDUX -DWARPRED_NO_NAN_MINMAX --use_fast_math
   (the paths older GPUs take: shuffles instead of redux.sync, min/max without the sm_80 .NaN
   instructions; and flush-to-zero arithmetic, which min/max must not notice), so that both
   paths meet the reference on the same GPU. */
#include <warpred/warp_reduce.cuh>
#include "wt_types.h"
#include "wt_kernels.h" /* the warp modes (WT_FULL, WT_EVEN, partial warps) and wt_k_warp */

/* Checks one warp's outputs; returns 0 and describes the first problem in why. */
template <typename T>
static int check_warp(int op, int W, int mode, const T *in, const T *red, const T *all, char *why, size_t n)
{
    for (int seg = 0; seg < 32; seg += W) {
        T vals[32];
        int k = 0;
        for (int l = seg; l < seg + W; l++) {
            if (wt_lane_calls(mode, W, l)) {
                vals[k++] = in[l];
            } else if (!wt_is_poison(red[l]) || !wt_is_poison(all[l])) {
                snprintf(why, n, "lane %d did not call but its output was written", l);
                return 0;
            }
        }
        if (k == 0) continue;
        wt_ref<T> ref;
        ref.fold(op, vals, k);
        char sub[200];
        if (!ref.matches(op, red[seg], k, sub, sizeof sub)) {
            snprintf(why, n, "reduce, segment at lane %d (%d lanes): %s", seg, k, sub);
            return 0;
        }
        for (int l = seg; l < seg + k; l++) {
            if (wt_type<T>::bits(all[l]) != wt_type<T>::bits(all[seg]) || !ref.matches(op, all[l], k, sub, sizeof sub)) {
                snprintf(why, n, "allreduce lane %d of segment at lane %d: %s (lane %d has bits %llx, first lane %llx)",
                         l, seg, sub, l, (unsigned long long)wt_type<T>::bits(all[l]),
                         (unsigned long long)wt_type<T>::bits(all[seg]));
                return 0;
            }
        }
    }
    return 1;
}

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
template <int W, typename T, typename Op>
static void run_case(int special)
{
    const int op = wt_op_of<Op>::code;
    enum { NWARPS = WT_MODE_WARPS };
    int modes[NWARPS];
    wt_warp_modes(modes);
    const size_t count = NWARPS * 32, bytes = count * sizeof(T);
    T *in = (T *)wt_host_alloc(bytes), *red = (T *)wt_host_alloc(bytes), *all = (T *)wt_host_alloc(bytes);
    for (size_t i = 0; i < count; i++) {
        if constexpr (!wt_type<T>::is_int) in[i] = special == 2 ? wt_subnormal<T>() : wt_type<T>::random(special);
        else in[i] = wt_type<T>::random(special);
    }

    T *d_in = (T *)wt_dev_alloc(bytes), *d_red = (T *)wt_dev_alloc(bytes), *d_all = (T *)wt_dev_alloc(bytes);
    int *d_modes = (int *)wt_dev_alloc(sizeof modes);
    wt_to_dev(d_in, in, bytes);
    wt_to_dev(d_modes, modes, sizeof modes);
    wt_k_warp<W, T, Op><<<NWARPS, 32>>>(d_in, d_modes, d_red, d_all);
    WT_LAUNCHED();
    wt_to_host(red, d_red, bytes);
    wt_to_host(all, d_all, bytes);

    for (int b = 0; b < NWARPS; b++) {
        char why[400];
        if (!check_warp(op, W, modes[b], in + b * 32, red + b * 32, all + b * 32, why, sizeof why))
            fail_msg("%s %s width %d, warp mode %d%s: %s", wt_type<T>::name(), wt_op_name[op], W, modes[b],
                     special ? " (special values)" : "", why);
    }
    wt_dev_free(d_in);
    wt_dev_free(d_red);
    wt_dev_free(d_all);
    wt_dev_free(d_modes);
    wt_host_free(in);
    wt_host_free(red);
    wt_host_free(all);
}

template <typename T, typename Op>
static void run_all_widths(int special)
{
    run_case<1, T, Op>(special);
    run_case<2, T, Op>(special);
    run_case<4, T, Op>(special);
    run_case<8, T, Op>(special);
    run_case<16, T, Op>(special);
    run_case<32, T, Op>(special);
}

template <typename T>
static void run_float_type(void)
{
    wt_each_float_op([](auto op, int special) { run_all_widths<T, decltype(op)>(special); });
}

template <typename T>
static void run_int_type(void)
{
    wt_each_int_op([](auto op, int special) { run_all_widths<T, decltype(op)>(special); });
}

template <typename T>
static void run_subnormal_minmax(void)
{
    run_all_widths<T, warpred_op_max>(2);
    run_all_widths<T, warpred_op_min>(2);
    run_all_widths<T, warpred_op_max_num>(2);
    run_all_widths<T, warpred_op_min_num>(2);
}

static void test_subnormal_minmax(void **state)
{
    WT_NEED_GPU(state);
    run_subnormal_minmax<float>();
    run_subnormal_minmax<double>();
}

static void test_int(void **state) { WT_NEED_GPU(state); run_int_type<int>(); }
static void test_unsigned(void **state) { WT_NEED_GPU(state); run_int_type<unsigned>(); }
static void test_long_long(void **state) { WT_NEED_GPU(state); run_int_type<long long>(); }
static void test_unsigned_long_long(void **state) { WT_NEED_GPU(state); run_int_type<unsigned long long>(); }
static void test_float(void **state) { WT_NEED_GPU(state); run_float_type<float>(); }
static void test_double(void **state) { WT_NEED_GPU(state); run_float_type<double>(); }
static void test_half(void **state) { WT_NEED_GPU(state); run_float_type<__half>(); }
static void test_bfloat16(void **state) { WT_NEED_GPU(state); run_float_type<__nv_bfloat16>(); }

/* The usage snippet from the top of warp_reduce.cuh, verbatim. */
__global__ void demo(int *out)
{
    int lane = threadIdx.x & 31;
    int s = warpred_warp_reduce(lane + 1, warpred_op_sum());          // 528 in lane 0
    int m = warpred_warp_allreduce<8>(lane, warpred_op_max());       // 7,15,23,31 per 8 lanes
    if (lane < 5) {
        int t = warpred_warp_reduce_partial(lane + 1, warpred_op_sum(), 5); // 15 in lane 0
        if (lane == 0) out[2] = t;
    }
    if (lane == 0) out[0] = s;
    out[3 + lane] = m;
}

static void test_doc_snippet(void **state)
{
    WT_NEED_GPU(state);
    int *d = (int *)wt_dev_alloc(35 * sizeof(int)), h[35];
    demo<<<1, 32>>>(d);
    WT_LAUNCHED();
    wt_to_host(h, d, sizeof h);
    assert_int_equal(h[0], 528);
    assert_int_equal(h[2], 15);
    for (int l = 0; l < 32; l++) assert_int_equal(h[3 + l], (l / 8) * 8 + 7);
    wt_dev_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(test_doc_snippet),
        WT_TEST(test_int),
        WT_TEST(test_unsigned),
        WT_TEST(test_long_long),
        WT_TEST(test_unsigned_long_long),
        WT_TEST(test_float),
        WT_TEST(test_double),
        WT_TEST(test_half),
        WT_TEST(test_bfloat16),
        WT_TEST(test_subnormal_minmax),
    };
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}

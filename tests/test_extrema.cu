/* warpred_op_extrema / _num (warpred/op_extrema.cuh), an operation written against the public
   protocol alone: at warp, block, grid and device level, each member must have the bits that
   warpred_op_min / warpred_op_max (or their _num forms) give the same values, against a host
   model of the IEEE rules; NaN, -0/+0, integers, partial warps, empty input. */
#include <warpred/op_extrema.cuh>
#include <warpred/device_reduce.cuh>
#include <warpred/grid_reduce.cuh>
#include "wt.h"
#include "wt_plans.h" /* the grid scratch and the device plan, owned by the running test */

/* ---- the manual's snippet: span() ---- */

#include "snippets/op_extrema.inc"

static unsigned h_bits(float x)
{
    unsigned u;
    memcpy(&u, &x, 4);
    return u;
}

/* host model of warpred_op_min/_max (and _num) on floats: -0 < +0, the canonical NaN */
static float h_minmax(bool is_max, bool num, float a, float b)
{
    const bool na = a != a, nb = b != b;
    const float qnan = [] {
        float f;
        unsigned u = 0x7fffffffu;
        memcpy(&f, &u, 4);
        return f;
    }();
    if (na || nb) {
        if (!num || (na && nb)) return qnan;
        return na ? b : a;
    }
    if (a == b) { /* equal numbers, or -0 and +0 */
        const bool a_neg = h_bits(a) >> 31, b_neg = h_bits(b) >> 31;
        if (a_neg == b_neg) return a;
        return is_max ? (a_neg ? b : a) : (a_neg ? a : b);
    }
    return is_max ? (a < b ? b : a) : (a < b ? a : b);
}

/* The layers' result: the first value as it is, then each next one through the operation. The
   device-wide reduce starts every thread from the identity instead (From_identity), so there
   every element goes through the operation and a lone NaN comes back canonical. */
template <bool Num, bool From_identity = false> static warpred_extrema<float> h_fold(const float *x, int n)
{
    warpred_extrema<float> e = {x[0], x[0]};
    if (From_identity) {
        const unsigned lo = Num ? 0x7fffffffu : 0x7f800000u, hi = Num ? 0x7fffffffu : 0xff800000u;
        memcpy(&e.min, &lo, 4);
        memcpy(&e.max, &hi, 4);
    }
    for (int i = From_identity ? 0 : 1; i < n; i++) {
        e.min = h_minmax(false, Num, e.min, x[i]);
        e.max = h_minmax(true, Num, e.max, x[i]);
    }
    return e;
}

static void expect_extrema(const char *what, int shape, warpred_extrema<float> got, warpred_extrema<float> want)
{
    if (h_bits(got.min) != h_bits(want.min) || h_bits(got.max) != h_bits(want.max))
        fail_msg("%s (%d): got {%.9g (%08x), %.9g (%08x)}, expected {%.9g (%08x), %.9g (%08x)}", what, shape, got.min,
                 h_bits(got.min), got.max, h_bits(got.max), want.min, h_bits(want.min), want.max, h_bits(want.max));
}

/* ---- kernels ---- */

template <typename Op> __global__ void k_warp(const float *x, int n, warpred_extrema<float> *out, Op op)
{
    const int lane = threadIdx.x;
    if (lane >= n) return;
    const warpred_extrema<float> e = warpred_make_extrema(x[lane]);
    const warpred_extrema<float> r = n == 32 ? warpred_warp_reduce(e, op) : warpred_warp_reduce_partial(e, op, n);
    const warpred_extrema<float> a = n == 32 ? warpred_warp_allreduce(e, op) : warpred_warp_allreduce_partial(e, op, n);
    if (lane == 0) out[0] = r;
    if (lane == n - 1) out[1] = a;
}

template <typename Op> __global__ void k_block(const float *x, warpred_extrema<float> *out, Op op)
{
    const warpred_extrema<float> e = warpred_make_extrema(x[blockIdx.x * blockDim.x + threadIdx.x]);
    const warpred_extrema<float> r = warpred_block_reduce(e, op);
    const warpred_extrema<float> a = warpred_block_allreduce(e, op);
    if (threadIdx.x == 0) out[2 * blockIdx.x] = r;
    if (threadIdx.x == blockDim.x - 1) out[2 * blockIdx.x + 1] = a;
}

template <typename Op>
__global__ void k_grid(const float *x, warpred_grid_scratch s, warpred_extrema<float> *out, Op op)
{
    warpred_grid_reduce(warpred_make_extrema(x[blockIdx.x * blockDim.x + threadIdx.x]), op, s, out);
}

__global__ void k_int(const int *x, warpred_extrema<int> *out)
{
    const warpred_extrema<int> r = warpred_block_reduce(warpred_make_extrema(x[threadIdx.x]), warpred_op_extrema());
    if (threadIdx.x == 0) *out = r;
}

/* Random floats with NaNs (of several payloads), zeros of both signs and infinities sprinkled in
   at the given rate (per mille). */
static void h_values(float *x, int n, int special_per_mille)
{
    for (int i = 0; i < n; i++) {
        x[i] = (float)((wt_rand_unit() - 0.5) * pow(2.0, wt_rand_below(40) - 20));
        if (wt_rand_below(1000) < special_per_mille) {
            const unsigned pick[] = {0x7fc00001u, 0xffc00000u, 0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u};
            unsigned u = pick[wt_rand_below(6)];
            memcpy(&x[i], &u, 4);
        }
    }
}

template <bool Num, typename Op> static void every_level(Op op, int special_per_mille)
{
    enum { N = 1 << 16 };
    const char *name = Num ? "extrema_num" : "extrema";
    float *h = (float *)wt_host_alloc(N * sizeof(float));
    h_values(h, N, special_per_mille);
    float *x = (float *)wt_dev_alloc(N * sizeof(float));
    warpred_extrema<float> *out = (warpred_extrema<float> *)wt_dev_alloc(8 * sizeof(warpred_extrema<float>));
    warpred_extrema<float> got[8];
    wt_to_dev(x, h, N * sizeof(float));
    char what[64];

    for (int n = 1; n <= 32; n++) {
        wt_poison(out, 2 * sizeof got[0]);
        k_warp<<<1, 32>>>(x + 7 * n, n, out, op);
        WT_LAUNCHED();
        wt_to_host(got, out, 2 * sizeof got[0]);
        snprintf(what, sizeof what, "%s warp reduce of n lanes", name);
        expect_extrema(what, n, got[0], h_fold<Num>(h + 7 * n, n));
        snprintf(what, sizeof what, "%s warp allreduce of n lanes", name);
        expect_extrema(what, n, got[1], h_fold<Num>(h + 7 * n, n));
    }
    const int sizes[] = {33, 96, 256, 1000, 1024};
    for (int s = 0; s < 5; s++) {
        wt_poison(out, 6 * sizeof got[0]);
        k_block<<<3, sizes[s]>>>(x, out, op);
        WT_LAUNCHED();
        wt_to_host(got, out, 6 * sizeof got[0]);
        for (int b = 0; b < 3; b++) {
            snprintf(what, sizeof what, "%s block reduce", name);
            expect_extrema(what, sizes[s], got[2 * b], h_fold<Num>(h + b * sizes[s], sizes[s]));
            snprintf(what, sizeof what, "%s block allreduce", name);
            expect_extrema(what, sizes[s], got[2 * b + 1], h_fold<Num>(h + b * sizes[s], sizes[s]));
        }
    }
    warpred_grid_scratch *s = wt_grid_scratch(256, sizeof(warpred_extrema<float>));
    wt_poison(out, sizeof got[0]);
    k_grid<<<200, 160>>>(x, *s, out, op);
    WT_LAUNCHED();
    wt_grid_scratch_ok(s, name);
    wt_grid_scratch_free(s);
    wt_to_host(got, out, sizeof got[0]);
    snprintf(what, sizeof what, "%s grid reduce", name);
    expect_extrema(what, 200, got[0], h_fold<Num>(h, 200 * 160));

    warpred_device_plan *plan = wt_device_plan(0);
    const char *why = NULL;
    const int ns[] = {1, 5, 4097, N - 3};
    for (int k = 0; k < 4; k++) {
        wt_poison(out, sizeof got[0]);
        WT_CUDA(warpred_device_transform_reduce(plan, x + 3, (size_t)ns[k], out, op, warpred_xf_extrema(), 0, &why));
        WT_LAUNCHED();
        wt_to_host(got, out, sizeof got[0]);
        snprintf(what, sizeof what, "%s device reduce", name);
        expect_extrema(what, ns[k], got[0], h_fold<Num, true>(h + 3, ns[k]));
    }
    /* empty input: the identity */
    wt_poison(out, sizeof got[0]);
    WT_CUDA(warpred_device_transform_reduce(plan, x, 0, out, op, warpred_xf_extrema(), 0, &why));
    WT_LAUNCHED();
    wt_to_host(got, out, sizeof got[0]);
    const unsigned want_min = Num ? 0x7fffffffu : 0x7f800000u, want_max = Num ? 0x7fffffffu : 0xff800000u;
    if (h_bits(got[0].min) != want_min || h_bits(got[0].max) != want_max)
        fail_msg("%s of nothing: {%08x, %08x}, expected {%08x, %08x}", name, h_bits(got[0].min), h_bits(got[0].max),
                 want_min, want_max);
    wt_device_plan_free(plan);
}

static void test_extrema_numbers(void **state)
{
    WT_NEED_GPU(state);
    every_level<false>(warpred_op_extrema(), 0);
}
static void test_extrema_specials(void **state)
{
    WT_NEED_GPU(state);
    every_level<false>(warpred_op_extrema(), 30);
}
static void test_extrema_num_specials(void **state)
{
    WT_NEED_GPU(state);
    every_level<true>(warpred_op_extrema_num(), 30);
}

static void test_integers(void **state)
{
    WT_NEED_GPU(state);
    int h[200];
    for (int i = 0; i < 200; i++) h[i] = (int)wt_rand32();
    int *x = (int *)wt_dev_alloc(sizeof h);
    warpred_extrema<int> *out = (warpred_extrema<int> *)wt_dev_alloc(sizeof(warpred_extrema<int>));
    wt_to_dev(x, h, sizeof h);
    k_int<<<1, 200>>>(x, out);
    WT_LAUNCHED();
    warpred_extrema<int> got;
    wt_to_host(&got, out, sizeof got);
    int lo = h[0], hi = h[0];
    for (int i = 1; i < 200; i++) lo = h[i] < lo ? h[i] : lo, hi = h[i] > hi ? h[i] : hi;
    if (got.min != lo || got.max != hi) fail_msg("int extrema: {%d, %d}, expected {%d, %d}", got.min, got.max, lo, hi);
}

static void test_doc_snippet(void **state)
{
    WT_NEED_GPU(state);
    const float h[4] = {3.0f, -2.0f, 7.5f, 0.0f};
    float *x = (float *)wt_dev_alloc(sizeof h), *out = (float *)wt_dev_alloc(2 * sizeof(float));
    wt_to_dev(x, h, sizeof h);
    const int threads[] = {1, 3, 64, 100};
    for (int t = 0; t < 4; t++) {
        wt_poison(out, 2 * sizeof(float));
        span<<<1, threads[t]>>>(x, 4, out);
        WT_LAUNCHED();
        float got[2];
        wt_to_host(got, out, sizeof got);
        if (got[0] != -2.0f || got[1] != 7.5f)
            fail_msg("snippet with %d threads: {%g, %g}, expected {-2, 7.5}", threads[t], got[0], got[1]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(test_extrema_numbers), WT_TEST(test_extrema_specials), WT_TEST(test_extrema_num_specials),
        WT_TEST(test_integers),        WT_TEST(test_doc_snippet),
    };
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}

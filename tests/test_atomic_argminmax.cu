/* One-slot atomic argmax / argmin (atomic_argminmax.cuh): many threads, blocks and kernels
   publish (value, index) pairs into one 64-bit slot in arbitrary order; the decoded slot must be
   the pair the host model (wt_compound.h, the rules of warpred_op_argmax and friends) picks:
   ties to the lowest index, the first NaN for the propagating forms, numbers over NaN for the
   _num forms, -0 < +0; a NaN decodes as the canonical NaN; an empty slot decodes to index -1
   (checked on the host: the decoder is __host__ __device__). Value types float, int, unsigned;
   indices up to 2^32 - 2. */
#include <warpred/atomic_argminmax.cuh>
#include <warpred/block_reduce.cuh>
#include "wt_compound.h"

template <int OpId, typename T> __device__ void publish(unsigned long long *slot, T value, unsigned index)
{
    switch (OpId) {
    case WT_ARGMAX: warpred_atomic_argmax(slot, value, index); break;
    case WT_ARGMIN: warpred_atomic_argmin(slot, value, index); break;
    case WT_ARGMAX_NUM: warpred_atomic_argmax_num(slot, value, index); break;
    default: warpred_atomic_argmin_num(slot, value, index); break;
    }
}

/* Pairs [first, first + n), grid-stride. */
template <int OpId, typename T>
__global__ void k_publish(const T *v, const unsigned *idx, size_t first, size_t n, unsigned long long *slot)
{
    for (size_t i = first + blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < first + n;
         i += (size_t)gridDim.x * blockDim.x)
        publish<OpId>(slot, v[i], idx[i]);
}

template <int OpId, typename T> __global__ void k_decode(const unsigned long long *slot, warpred_arg<T, long long> *out)
{
    *out = warpred_arg_slot_decode<typename wt_argop_of<OpId>::type, T>(*slot);
}

/* ------------------------------------------------------------------------------------------
   the empty slot, on the host
   ------------------------------------------------------------------------------------------ */

template <typename T> static void check_empty(void)
{
    const unsigned long long e = WARPRED_ARG_SLOT_EMPTY;
    assert_true((warpred_arg_slot_decode<warpred_op_argmax, T>(e).index == -1));
    assert_true((warpred_arg_slot_decode<warpred_op_argmin, T>(e).index == -1));
    assert_true((warpred_arg_slot_decode<warpred_op_argmax_num, T>(e).index == -1));
    assert_true((warpred_arg_slot_decode<warpred_op_argmin_num, T>(e).index == -1));
}

static void test_empty_slot_host(void **state)
{
    (void)state;
    assert_true(WARPRED_ARG_SLOT_EMPTY == 0ull);
    check_empty<float>();
    check_empty<int>();
    check_empty<unsigned>();
}

/* ------------------------------------------------------------------------------------------
   inputs
   ------------------------------------------------------------------------------------------ */

enum { S_FEW, S_UNIQUE, S_TIES, S_NAN_FIRST, S_NAN_LAST, S_ALL_NAN, S_ZEROS, S_EXTREMES, S_MIXED, S_COUNT };
static const char *const s_name[] = {
    "few values", "unique",   "ties", "NaN at the lowest index", "NaN at the highest index", "all NaN",
    "+-0",        "extremes", "mixed"};

template <typename T> static T value_of(int s)
{
    if constexpr (wt_type<T>::is_int) {
        const T zero = (T)0, ones = (T)~zero;
        const T lowest = ones < zero ? (T)(1ull << (sizeof(T) * 8 - 1)) : zero;
        switch (s) {
        case S_UNIQUE: return (T)wt_rand32();
        case S_EXTREMES: return wt_rand_below(2) ? lowest : (T)~lowest;
        case S_MIXED:
            return wt_rand_below(3) == 0 ? (wt_rand_below(2) ? lowest : (T)~lowest) : (T)(wt_rand_below(5) - 2);
        default: return (T)(wt_rand_below(5) - 2);
        }
    } else {
        switch (s) {
        case S_UNIQUE: return (T)((wt_rand_unit() * 2 - 1) * 1e6);
        case S_ALL_NAN: return wt_nan_with<T>(wt_rand64(), wt_rand_below(2));
        case S_ZEROS: return wt_rand_below(2) ? (T)0 : (T)-0.0;
        case S_EXTREMES: {
            const int r = wt_rand_below(4);
            return r == 0   ? (T)INFINITY
                   : r == 1 ? (T)-INFINITY
                   : r == 2 ? (T)3.4028235e38f
                            : (T)-1.4e-45f; /* +-inf, max, -subnormal */
        }
        case S_MIXED: {
            const int r = wt_rand_below(8);
            return r == 0   ? wt_nan_with<T>(wt_rand64(), wt_rand_below(2))
                   : r == 1 ? (T)-0.0
                   : r == 2 ? (T)0
                   : r == 3 ? (T)-INFINITY
                   : r == 4 ? (T)INFINITY
                            : (T)(wt_rand_below(5) - 2);
        }
        default: return (T)(wt_rand_below(5) - 2);
        }
    }
}

/* n pairs with distinct indices spread over [0, 2^32 - 2] (both ends included), values by
   scenario; the array order is random, so the arrival order is too. */
template <typename T> static void fill(int s, T *v, unsigned *idx, long long *idx_ll, size_t n)
{
    const T tie = value_of<T>(S_UNIQUE);
    for (size_t i = 0; i < n; i++) {
        idx[i] = i == 0   ? 0u
                 : i == 1 ? 0xfffffffeu
                          : (unsigned)(2 + (i - 2) * (0xfffffff0ull / n)) + (unsigned)wt_rand_below(3);
        v[i] = s == S_TIES ? tie : value_of<T>(s);
    }
    for (size_t i = n - 1; i > 0; i--) { /* shuffle the pairs */
        const size_t j = (size_t)(wt_rand64() % (i + 1));
        const T tv = v[i];
        const unsigned ti = idx[i];
        v[i] = v[j], idx[i] = idx[j];
        v[j] = tv, idx[j] = ti;
    }
    if (!wt_type<T>::is_int &&
        (s == S_NAN_FIRST || s == S_NAN_LAST)) { /* the pair with the lowest / highest index gets a NaN */
        size_t at = 0;
        for (size_t i = 1; i < n; i++)
            if (s == S_NAN_FIRST ? idx[i] < idx[at] : idx[i] > idx[at]) at = i;
        v[at] = wt_nan_with<T>(wt_rand64(), wt_rand_below(2));
    }
    for (size_t i = 0; i < n; i++) idx_ll[i] = idx[i];
}

/* What the slot must decode to: the model's pair, a NaN value as the canonical NaN. */
template <typename T>
static int check_decoded(int op, const T *v, const long long *idx_ll, size_t n, warpred_arg<T, long long> got,
                         char *why, size_t len)
{
    const int want = wt_arg_pick(op, v, idx_ll, (int)n);
    T want_v = v[want];
    if constexpr (!wt_type<T>::is_int) {
        if (wt_isnan_v(want_v)) {
            const uint64_t b = wt_type<T>::nan_bits();
            memcpy(&want_v, &b, sizeof want_v);
        }
    }
    if (got.index == idx_ll[want] && wt_type<T>::bits(got.value) == wt_type<T>::bits(want_v)) return 1;
    snprintf(why, len, "decoded (value bits %llx, index %lld), expected (value bits %llx, index %lld)",
             (unsigned long long)wt_type<T>::bits(got.value), got.index, (unsigned long long)wt_type<T>::bits(want_v),
             idx_ll[want]);
    return 0;
}

/* ------------------------------------------------------------------------------------------
   many blocks into one slot
   ------------------------------------------------------------------------------------------ */

/* Publishes the n pairs in `kernels` launches of different grid shapes into one slot, decodes
   on the device and on the host; repeats with the pairs in another order: same slot bits. */
template <int OpId, typename T> static void run_slot(int s, size_t n, int kernels)
{
    typedef warpred_arg<T, long long> A;
    T *v = (T *)wt_host_alloc(n * sizeof(T));
    unsigned *idx = (unsigned *)wt_host_alloc(n * sizeof(unsigned));
    long long *idx_ll = (long long *)wt_host_alloc(n * sizeof(long long));
    fill(s, v, idx, idx_ll, n);
    T *d_v = (T *)wt_dev_alloc(n * sizeof(T));
    unsigned *d_idx = (unsigned *)wt_dev_alloc(n * sizeof(unsigned));
    unsigned long long *d_slot = (unsigned long long *)wt_dev_alloc(sizeof(unsigned long long)), slot[2];
    A *d_dec = (A *)wt_dev_alloc(sizeof(A)), dec;
    const char *name = wt_argop_name[OpId];
    for (int rep = 0; rep < 2; rep++) {
        if (rep == 1) { /* reverse the array: another arrival order */
            for (size_t i = 0; i < n / 2; i++) {
                const T tv = v[i];
                const unsigned ti = idx[i];
                v[i] = v[n - 1 - i], idx[i] = idx[n - 1 - i];
                v[n - 1 - i] = tv, idx[n - 1 - i] = ti;
            }
            for (size_t i = 0; i < n; i++) idx_ll[i] = idx[i];
        }
        wt_to_dev(d_v, v, n * sizeof(T));
        wt_to_dev(d_idx, idx, n * sizeof(unsigned));
        const unsigned long long empty = WARPRED_ARG_SLOT_EMPTY;
        wt_to_dev(d_slot, &empty, sizeof empty);
        for (int k = 0; k < kernels; k++) {
            const size_t first = n * k / kernels, count = n * (k + 1) / kernels - first;
            const int blocks = k % 2 ? 7 : 1 + (int)(count / 256 < 2048 ? count / 256 : 2048);
            k_publish<OpId, T><<<blocks, k % 3 == 2 ? 96 : 256>>>(d_v, d_idx, first, count, d_slot);
            WT_CUDA(cudaGetLastError());
        }
        WT_LAUNCHED();
        wt_to_host(&slot[rep], d_slot, sizeof(unsigned long long));
        k_decode<OpId, T><<<1, 1>>>(d_slot, d_dec);
        WT_LAUNCHED();
        wt_to_host(&dec, d_dec, sizeof(A));
        const A host = warpred_arg_slot_decode<typename wt_argop_of<OpId>::type, T>(slot[rep]);
        char why[300];
        if (!check_decoded(OpId, v, idx_ll, n, dec, why, sizeof why))
            fail_msg("atomic %s %s, %s, %zu pairs in %d kernels, order %d: device decode: %s", name, wt_type<T>::name(),
                     s_name[s], n, kernels, rep, why);
        if (!check_decoded(OpId, v, idx_ll, n, host, why, sizeof why))
            fail_msg("atomic %s %s, %s, %zu pairs: host decode: %s", name, wt_type<T>::name(), s_name[s], n, why);
    }
    if (slot[0] != slot[1])
        fail_msg("atomic %s %s, %s: slot %016llx in one order, %016llx in another (not order-independent)", name,
                 wt_type<T>::name(), s_name[s], slot[0], slot[1]);
    wt_dev_free(d_v);
    wt_dev_free(d_idx);
    wt_dev_free(d_slot);
    wt_dev_free(d_dec);
    wt_host_free(v);
    wt_host_free(idx);
    wt_host_free(idx_ll);
}

template <int OpId, typename T> static void run_slot_scenarios(void)
{
    const size_t big = wt_quick() ? (size_t)1 << 16 : (size_t)1 << 20;
    for (int s = 0; s < S_COUNT; s++) {
        if (wt_type<T>::is_int && (s == S_NAN_FIRST || s == S_NAN_LAST || s == S_ALL_NAN || s == S_ZEROS)) continue;
        run_slot<OpId, T>(s, 1, 1);
        run_slot<OpId, T>(s, 2, 2);
        run_slot<OpId, T>(s, 1000, 3);
        run_slot<OpId, T>(s, big, 4);
    }
}

static void test_slot_float(void **state)
{
    WT_NEED_GPU(state);
    run_slot_scenarios<WT_ARGMAX, float>();
    run_slot_scenarios<WT_ARGMIN, float>();
    run_slot_scenarios<WT_ARGMAX_NUM, float>();
    run_slot_scenarios<WT_ARGMIN_NUM, float>();
}

static void test_slot_int(void **state)
{
    WT_NEED_GPU(state);
    run_slot_scenarios<WT_ARGMAX, int>();
    run_slot_scenarios<WT_ARGMIN, int>();
    run_slot_scenarios<WT_ARGMAX_NUM, int>();
}

static void test_slot_unsigned(void **state)
{
    WT_NEED_GPU(state);
    run_slot_scenarios<WT_ARGMAX, unsigned>();
    run_slot_scenarios<WT_ARGMIN_NUM, unsigned>();
}

/* ------------------------------------------------------------------------------------------
   the usage snippet of atomic_argminmax.cuh (the kernel argmax_all), as the build copies it from
   the manual (scripts/snippets.py)
   ------------------------------------------------------------------------------------------ */

#include "snippets/atomic_argminmax.inc"

static void test_doc_snippet(void **state)
{
    WT_NEED_GPU(state);
    const float x[4] = {1, 5, -2, 5};
    float *d_x = (float *)wt_dev_alloc(sizeof x);
    unsigned long long *d_slot = (unsigned long long *)wt_dev_alloc(sizeof(unsigned long long)), slot;
    wt_to_dev(d_x, x, sizeof x);
    const int threads[] = {1, 2, 3, 32, 64};
    for (int t = 0; t < 5; t++) {
        const unsigned long long empty = WARPRED_ARG_SLOT_EMPTY;
        wt_to_dev(d_slot, &empty, sizeof empty);
        argmax_all<<<(4 + threads[t] - 1) / threads[t], threads[t]>>>(d_x, 4, d_slot);
        WT_LAUNCHED();
        wt_to_host(&slot, d_slot, sizeof slot);
        const warpred_arg<float, long long> a = warpred_arg_slot_decode<warpred_op_argmax, float>(slot);
        if (a.value != 5.0f || a.index != 1)
            fail_msg("snippet with %d threads a block: {%g, %lld}, expected {5, 1}", threads[t], a.value, a.index);
    }
    wt_dev_free(d_x);
    wt_dev_free(d_slot);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(wt_compound_self_check), WT_TEST(test_empty_slot_host), WT_TEST(test_doc_snippet),
        WT_TEST(test_slot_float),        WT_TEST(test_slot_int),        WT_TEST(test_slot_unsigned),
    };
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}

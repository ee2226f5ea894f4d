/* Segmented warp reductions (warp_segmented.cuh) against the host model in wt_compound.h:
   (a) by key: 1, 2, 32 distinct keys per warp, random keys, keys that differ only in their
       high 32 bits, non-contiguous groups, and only a random subset of lanes calling
       (divergent); allreduce_by_key in every lane of a group, reduce_by_key in the group's
       lowest lane, warpred_warp_key_group's mask;
   (b) by head flags: random flags, lane 0 unflagged, every lane flagged, none flagged, only
       the last lane; reduce at each run's head, allreduce in every lane of the run.
   Operations: int and float sums, min/max, an argmax pair, and an associative but NOT
   commutative one (affine maps composed in lane order), which shows any reordering of lanes:
   the contract asks only associativity of these ops. */
#include <warpred/warp_segmented.cuh>
#include <warpred/op_argminmax.cuh>
#include "wt_compound.h"

enum { WT_AFFINE = 100, WT_ARG = 101 };

/* x -> a*x + b mod 2^32 composed: f first, then g (wt_affine_compose). */
struct wt_affine_op {
    __device__ unsigned long long operator()(unsigned long long f, unsigned long long g) const
    {
        const unsigned fa = (unsigned)(f >> 32), fb = (unsigned)f, ga = (unsigned)(g >> 32), gb = (unsigned)g;
        return ((unsigned long long)(fa * ga) << 32) | (unsigned)(fb * ga + gb);
    }
};

/* the operation type of a code: wt_types.h's, and the two of this file */
template <int Op> struct wt_seg_op : wt_op_type<Op> {};
template <> struct wt_seg_op<WT_AFFINE> {
    typedef wt_affine_op type;
};
template <> struct wt_seg_op<WT_ARG> {
    typedef warpred_op_argmax type;
};

typedef warpred_arg<float, int> wt_pair;

/* ------------------------------------------------------------------------------------------
   host: inputs and the reference fold of one group (in ascending lane order)
   ------------------------------------------------------------------------------------------ */

template <typename T> static T seg_input(int op) { return wt_type<T>::random(op != WT_SUM); }
static unsigned long long seg_input_affine(void)
{
    return ((unsigned long long)(wt_rand32() | 1) << 32) | wt_rand32(); /* odd a: invertible maps */
}
static wt_pair seg_input_pair(void)
{
    wt_pair p;
    p.value = (float)(wt_rand_below(5) - 2); /* ties */
    if (wt_rand_below(16) == 0) p.value = NAN;
    p.index = wt_rand_below(1 << 20);
    return p;
}

template <typename T> static void fill_inputs(int op, T *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if constexpr (sizeof(T) == 8 && wt_type<T>::is_int) {
            if (op == WT_AFFINE) {
                v[i] = (T)seg_input_affine();
                continue;
            }
        }
        v[i] = seg_input<T>(op);
    }
}
static void fill_inputs(int, wt_pair *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        v[i] = seg_input_pair();
        v[i].index = (int)i; /* distinct indices */
    }
}

template <typename T> static int check_fold(int op, const T *vals, int k, T got, char *why, size_t len)
{
    wt_ref<T> ref;
    ref.fold(op, vals, k);
    return ref.matches(op, got, k, why, len);
}
static int check_fold(int op, const unsigned long long *vals, int k, unsigned long long got, char *why, size_t len)
{
    if (op != WT_AFFINE) {
        wt_ref<unsigned long long> ref;
        ref.fold(op, vals, k);
        return ref.matches(op, got, k, why, len);
    }
    unsigned long long want = vals[0];
    for (int j = 1; j < k; j++) want = wt_affine_compose(want, vals[j]);
    if (got == want) return 1;
    snprintf(why, len, "got %016llx, expected the lane-order composition %016llx", got, want);
    return 0;
}
static int check_fold(int, const wt_pair *vals, int k, wt_pair got, char *why, size_t len)
{
    float v[32] = {0};
    int idx[32] = {0};
    for (int j = 0; j < k; j++) v[j] = vals[j].value, idx[j] = vals[j].index;
    return wt_arg_matches(v, idx, wt_arg_pick(WT_ARGMAX, v, idx, k), got.value, got.index, why, len);
}

template <typename T> static int same_bits(T a, T b) { return memcmp(&a, &b, sizeof a) == 0; }

template <typename T> static const char *tname(void) { return wt_type<T>::name(); }
template <> const char *tname<wt_pair>(void) { return "warpred_arg<float, int>"; }

/* ------------------------------------------------------------------------------------------
   (a) by key
   ------------------------------------------------------------------------------------------ */

template <typename T, typename K, typename Op>
__global__ void k_by_key(const T *v, const K *keys, const unsigned *calling, T *red, T *all, unsigned *group)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31, warp = i / 32;
    if ((calling[warp] >> lane) & 1) {
        const T a = warpred_warp_allreduce_by_key(v[i], keys[i], Op());
        const T r = warpred_warp_reduce_by_key(v[i], keys[i], Op());
        const unsigned g = warpred_warp_key_group(keys[i]);
        all[i] = a;
        red[i] = r;
        group[i] = g;
    }
}

enum { KEYS_ONE, KEYS_TWO, KEYS_32, KEYS_FEW, KEYS_HIGH, KEYS_KINDS };
enum { CALL_ALL, CALL_RANDOM, CALL_ONE, CALL_FIRST_N, CALL_ODD, CALL_KINDS };

/* Keys of one warp. KEYS_HIGH: keys equal in their low 32 bits and different above (for 32-bit
   key types: different in the sign bit only). */
template <typename K> static void fill_keys(K *keys, int kind)
{
    K pool[8];
    for (int j = 0; j < 8; j++) {
        uint64_t r = wt_rand64();
        pool[j] = (K)r;
    }
    const uint64_t low = wt_rand32();
    for (int l = 0; l < 32; l++) {
        switch (kind) {
        case KEYS_ONE: keys[l] = pool[0]; break;
        case KEYS_TWO: keys[l] = pool[wt_rand_below(2)]; break;
        case KEYS_32: keys[l] = (K)((uint64_t)pool[0] + (uint64_t)l * 0x9E3779B97F4A7C15ull); break;
        case KEYS_FEW: keys[l] = pool[wt_rand_below(5)]; break;
        default:
            keys[l] = sizeof(K) == 8 ? (K)(low | ((uint64_t)wt_rand_below(3) << 32))
                                     : (K)(low ^ (wt_rand_below(2) ? 0x80000000u : 0));
        }
    }
    if (kind == KEYS_32) /* distinct for sure: the multiplier is odd, l < 32 */
        for (int l = 1; l < 32; l++) assert_true(keys[l] != keys[0] || sizeof(K) < 4);
}

static unsigned calling_mask(int kind)
{
    switch (kind) {
    case CALL_ALL: return 0xffffffffu;
    case CALL_RANDOM: { /* about half or a quarter of the lanes */
        unsigned m = 0;
        while (m == 0) m = wt_rand_below(2) ? wt_rand32() : wt_rand32() & wt_rand32();
        return m;
    }
    case CALL_ONE: return 1u << wt_rand_below(32);
    case CALL_FIRST_N: {
        const int n = 1 + wt_rand_below(32);
        return n == 32 ? 0xffffffffu : (1u << n) - 1;
    }
    default: return 0xaaaaaaaau;
    }
}

template <typename T, typename K, int OpId> static void run_by_key(void)
{
    typedef typename wt_seg_op<OpId>::type Op;
    enum { WARPS = KEYS_KINDS * CALL_KINDS * 2 };
    const size_t n = WARPS * 32;
    T *v = (T *)wt_host_alloc(n * sizeof(T)), *red = (T *)wt_host_alloc(n * sizeof(T)),
      *all = (T *)wt_host_alloc(n * sizeof(T));
    K *keys = (K *)wt_host_alloc(n * sizeof(K));
    unsigned calling[WARPS], *group = (unsigned *)wt_host_alloc(n * sizeof(unsigned));
    fill_inputs(OpId, v, n);
    for (int w = 0; w < WARPS; w++) {
        fill_keys(keys + w * 32, (w / CALL_KINDS) % KEYS_KINDS);
        calling[w] = calling_mask(w % CALL_KINDS);
    }
    T *d_v = (T *)wt_dev_alloc(n * sizeof(T)), *d_red = (T *)wt_dev_alloc(n * sizeof(T)),
      *d_all = (T *)wt_dev_alloc(n * sizeof(T));
    K *d_keys = (K *)wt_dev_alloc(n * sizeof(K));
    unsigned *d_calling = (unsigned *)wt_dev_alloc(sizeof calling),
             *d_group = (unsigned *)wt_dev_alloc(n * sizeof(unsigned));
    wt_to_dev(d_v, v, n * sizeof(T));
    wt_to_dev(d_keys, keys, n * sizeof(K));
    wt_to_dev(d_calling, calling, sizeof calling);
    k_by_key<T, K, Op><<<WARPS / 2, 64>>>(d_v, d_keys, d_calling, d_red, d_all, d_group);
    WT_LAUNCHED();
    wt_to_host(red, d_red, n * sizeof(T));
    wt_to_host(all, d_all, n * sizeof(T));
    wt_to_host(group, d_group, n * sizeof(unsigned));
    for (int w = 0; w < WARPS; w++) {
        const K *wk = keys + w * 32;
        for (int l = 0; l < 32; l++) {
            const size_t i = (size_t)w * 32 + l;
            if (!((calling[w] >> l) & 1)) {
                if (!wt_is_poison(all[i]) || !wt_is_poison(red[i]) || !wt_is_poison(group[i]))
                    fail_msg("by key: lane %d of warp %d did not call but was written", l, w);
                continue;
            }
            const unsigned want_group = wt_key_group(wk, calling[w], l);
            if (group[i] != want_group)
                fail_msg("warpred_warp_key_group (%s keys), warp %d (calling %08x, key kind %d), lane %d: %08x, "
                         "expected %08x",
                         wt_type<K>::name(), w, calling[w], (w / CALL_KINDS) % KEYS_KINDS, l, group[i], want_group);
            T vals[32] = {};
            int k = 0;
            for (int j = 0; j < 32; j++)
                if ((want_group >> j) & 1) vals[k++] = v[(size_t)w * 32 + j];
            char why[300];
            const int lowest = wt_lowest_lane(want_group);
            if (!check_fold(OpId, vals, k, all[i], why, sizeof why) || !same_bits(all[i], all[(size_t)w * 32 + lowest]))
                fail_msg("allreduce_by_key %s, %s keys, op %d, warp %d (calling %08x), lane %d, group %08x: %s (or "
                         "differs from "
                         "the group's lowest lane)",
                         tname<T>(), wt_type<K>::name(), OpId, w, calling[w], l, want_group, why);
            if (l == lowest && !check_fold(OpId, vals, k, red[i], why, sizeof why))
                fail_msg("reduce_by_key %s, %s keys, op %d, warp %d (calling %08x), group %08x, lowest lane %d: %s",
                         tname<T>(), wt_type<K>::name(), OpId, w, calling[w], want_group, l, why);
        }
    }
    wt_dev_free(d_v);
    wt_dev_free(d_red);
    wt_dev_free(d_all);
    wt_dev_free(d_keys);
    wt_dev_free(d_calling);
    wt_dev_free(d_group);
    wt_host_free(v);
    wt_host_free(red);
    wt_host_free(all);
    wt_host_free(keys);
    wt_host_free(group);
}

static void test_by_key(void **state)
{
    WT_NEED_GPU(state);
    for (int rep = 0; rep < (wt_quick() ? 2 : 10); rep++) {
        run_by_key<int, int, WT_SUM>();
        run_by_key<float, unsigned, WT_SUM>();
        run_by_key<float, long long, WT_MAX>();
        run_by_key<double, unsigned long long, WT_MIN_NUM>();
        run_by_key<int, long long, WT_MIN>();
        run_by_key<unsigned long long, int, WT_AFFINE>();
        run_by_key<unsigned long long, unsigned long long, WT_AFFINE>();
        run_by_key<wt_pair, int, WT_ARG>();
        run_by_key<long long, unsigned, WT_SUM>();
    }
}

/* ------------------------------------------------------------------------------------------
   (b) by head flags
   ------------------------------------------------------------------------------------------ */

template <typename T, typename Op> __global__ void k_by_flags(const T *v, const unsigned *heads, T *red, T *all)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31, warp = i / 32;
    const bool head = (heads[warp] >> lane) & 1;
    red[i] = warpred_warp_reduce_by_flags(v[i], head, Op());
    all[i] = warpred_warp_allreduce_by_flags(v[i], head, Op());
}

enum { FLAGS_RANDOM, FLAGS_NO_LANE0, FLAGS_ALL, FLAGS_NONE, FLAGS_LAST, FLAGS_SPARSE, FLAGS_KINDS };

static unsigned heads_mask(int kind)
{
    switch (kind) {
    case FLAGS_RANDOM: return wt_rand32() & wt_rand32();
    case FLAGS_NO_LANE0: return wt_rand32() & ~1u;
    case FLAGS_ALL: return 0xffffffffu;
    case FLAGS_NONE: return 0;
    case FLAGS_LAST: return 0x80000000u;
    default: return (1u << wt_rand_below(32)) | (1u << wt_rand_below(32));
    }
}

template <typename T, int OpId> static void run_by_flags(void)
{
    typedef typename wt_seg_op<OpId>::type Op;
    enum { WARPS = FLAGS_KINDS * 4 };
    const size_t n = WARPS * 32;
    T *v = (T *)wt_host_alloc(n * sizeof(T)), *red = (T *)wt_host_alloc(n * sizeof(T)),
      *all = (T *)wt_host_alloc(n * sizeof(T));
    unsigned heads[WARPS];
    fill_inputs(OpId, v, n);
    for (int w = 0; w < WARPS; w++) heads[w] = heads_mask(w % FLAGS_KINDS);
    T *d_v = (T *)wt_dev_alloc(n * sizeof(T)), *d_red = (T *)wt_dev_alloc(n * sizeof(T)),
      *d_all = (T *)wt_dev_alloc(n * sizeof(T));
    unsigned *d_heads = (unsigned *)wt_dev_alloc(sizeof heads);
    wt_to_dev(d_v, v, n * sizeof(T));
    wt_to_dev(d_heads, heads, sizeof heads);
    k_by_flags<T, Op><<<WARPS / 4, 128>>>(d_v, d_heads, d_red, d_all);
    WT_LAUNCHED();
    wt_to_host(red, d_red, n * sizeof(T));
    wt_to_host(all, d_all, n * sizeof(T));
    for (int w = 0; w < WARPS; w++) {
        unsigned char head[32];
        for (int l = 0; l < 32; l++) head[l] = (heads[w] >> l) & 1;
        for (int l = 0; l < 32; l++) {
            const unsigned run = wt_flag_run(head, l);
            const int first = wt_lowest_lane(run);
            T vals[32] = {};
            int k = 0;
            for (int j = 0; j < 32; j++)
                if ((run >> j) & 1) vals[k++] = v[(size_t)w * 32 + j];
            char why[300];
            const size_t i = (size_t)w * 32 + l;
            if (!check_fold(OpId, vals, k, all[i], why, sizeof why) || !same_bits(all[i], all[(size_t)w * 32 + first]))
                fail_msg(
                    "allreduce_by_flags %s, op %d, heads %08x, lane %d (run %08x): %s (or differs from the run's head)",
                    tname<T>(), OpId, heads[w], l, run, why);
            if (l == first && !check_fold(OpId, vals, k, red[i], why, sizeof why))
                fail_msg("reduce_by_flags %s, op %d, heads %08x, run head %d (run %08x): %s", tname<T>(), OpId,
                         heads[w], l, run, why);
        }
    }
    wt_dev_free(d_v);
    wt_dev_free(d_red);
    wt_dev_free(d_all);
    wt_dev_free(d_heads);
    wt_host_free(v);
    wt_host_free(red);
    wt_host_free(all);
}

static void test_by_flags(void **state)
{
    WT_NEED_GPU(state);
    for (int rep = 0; rep < (wt_quick() ? 2 : 10); rep++) {
        run_by_flags<int, WT_SUM>();
        run_by_flags<float, WT_SUM>();
        run_by_flags<float, WT_MIN>();
        run_by_flags<double, WT_MAX>();
        run_by_flags<unsigned, WT_MIN_NUM>();
        run_by_flags<unsigned long long, WT_AFFINE>();
        run_by_flags<wt_pair, WT_ARG>();
    }
}

/* The usage snippets of warp_segmented.cuh (the kernels per_key and per_run), as the build copies
   them from the manual (scripts/snippets.py). */
#include "snippets/warp_segmented.inc"

static void test_doc_snippets(void **state)
{
    WT_NEED_GPU(state);
    int keys[32], heads[32];
    float vals[32], ones[32], sums[32];
    for (int l = 0; l < 32; l++) {
        keys[l] = l < 4 ? (l % 2 ? 3 : 7) : 9;
        vals[l] = (float)l;
        ones[l] = 1;
        heads[l] = l == 8 || l == 20;
    }
    int *d_keys = (int *)wt_dev_alloc(sizeof keys), *d_heads = (int *)wt_dev_alloc(sizeof heads);
    float *d_vals = (float *)wt_dev_alloc(sizeof vals), *d_ones = (float *)wt_dev_alloc(sizeof ones),
          *d_sums = (float *)wt_dev_alloc(sizeof sums);
    wt_to_dev(d_keys, keys, sizeof keys);
    wt_to_dev(d_heads, heads, sizeof heads);
    wt_to_dev(d_vals, vals, sizeof vals);
    wt_to_dev(d_ones, ones, sizeof ones);
    per_key<<<1, 32>>>(d_keys, d_vals, d_sums);
    WT_LAUNCHED();
    wt_to_host(sums, d_sums, sizeof sums);
    assert_true(sums[0] == 2 && sums[2] == 2 && sums[1] == 4 && sums[3] == 4);
    for (int l = 4; l < 32; l++) assert_true(sums[l] == 490);
    wt_poison(d_sums, sizeof sums);
    per_run<<<1, 32>>>(d_ones, d_heads, d_sums);
    WT_LAUNCHED();
    wt_to_host(sums, d_sums, sizeof sums);
    assert_true(sums[0] == 8 && sums[8] == 12 && sums[20] == 12);
    wt_dev_free(d_keys);
    wt_dev_free(d_heads);
    wt_dev_free(d_vals);
    wt_dev_free(d_ones);
    wt_dev_free(d_sums);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        WT_TEST(wt_compound_self_check),
        WT_TEST(test_doc_snippets),
        WT_TEST(test_by_key),
        WT_TEST(test_by_flags),
    };
    return cmocka_run_group_tests(tests, wt_group_setup, NULL);
}
